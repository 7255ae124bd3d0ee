package dev.basalt.simulator.harness;

import dev.basalt.decoder.BasicBlock;
import dev.basalt.decoder.Instruction;
import dev.basalt.decoder.Operand;
import dev.basalt.decoder.RegisterClass;
import dev.basalt.decoder.Visibility;

import java.util.ArrayList;
import java.util.List;

/**
 * Which loads read what which stores wrote when the block runs as BHive measured it (its timing harness,
 * {@code run_test.nasm}): every general-purpose register starts at {@code 0x2324000} except {@code rsp}
 * ({@code 0x2324800}) and {@code rbp} ({@code 0x23247f0}), every memory page maps to one physical page filled with
 * that value in every quadword, so two accesses whose addresses agree modulo 4096 touch the same bytes.
 *
 * <p>An address is known when its base and index registers hold known values ({@link #knownRegisters}). Other
 * writes (an {@code add rdi, 8}, whose value changes every iteration) make a register unknown, and accesses
 * through it are left to the dependency graph's same-expression rule. Known
 * loads depend on the last known store before them (in the previous iteration when it comes later in the
 * block) that overlaps them; {@code partial} marks a load that the store does not contain, whose data cannot
 * be forwarded.
 */
public final class BhiveMemory {

    static final long INIT = 0x2324000L;

    /**
     * A load's producer store: instruction indices, whether from the previous iteration, whether partial (the
     * store cannot forward its data: it does not contain the load, or it wrote another virtual page).
     */
    public record Edge(int store, int load, boolean loopCarried, boolean partial) {
    }

    private BhiveMemory() {
    }

    /** The store→load dependencies the harness's memory layout creates between known addresses of a block. */
    public static List<Edge> edges(Program prog) {
        boolean anyStore = false;
        boolean anyLoad = false;
        for (Step step : prog.steps) {
            anyStore |= step.visibleStore();
            anyLoad |= step.visibleLoad();
        }
        if (!anyStore || !anyLoad) {
            return List.of(); // no store→load pair to place: skip the runs of the block
        }
        int n = prog.n;
        long[] at = prog.addresses();
        long[] moves = prog.strides();
        long[] address = new long[n];
        long[] virtual = new long[n]; // the full address: where it differs, only the physical page is shared
        long[] stride = new long[n];
        int[] size = new int[n];
        boolean[] loads = new boolean[n];
        boolean[] stores = new boolean[n];
        for (int i = 0; i < n; i++) {
            address[i] = -1;
            Access[] access = prog.steps[i].access();
            for (int k = 0; k < access.length; k++) {
                Access m = access[k];
                long a = m.hidden ? UNKNOWN : at[prog.firstAccess[i] + k];
                if (a != UNKNOWN) {
                    address[i] = a & 4095;
                    virtual[i] = a;
                    stride[i] = moves[prog.firstAccess[i] + k];
                    size[i] = m.bytes;
                    loads[i] |= m.load;
                    stores[i] |= m.store;
                }
            }
        }
        List<Edge> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            if (!loads[i]) {
                continue;
            }
            for (int back = 1; back <= n; back++) { // the last overlapping store before i, cyclically
                int s = ((i - back) % n + n) % n;
                if (stores[s] && overlaps(address[s], size[s], address[i], size[i])) {
                    // A store of another virtual page that shares the bytes only through the harness's one
                    // physical page cannot forward either: forwarding matches virtual addresses.
                    // (A store of the previous iteration wrote where its address was then.)
                    boolean contained = contains(address[s], size[s], address[i], size[i])
                            && overlaps(virtual[s] - (s >= i ? stride[s] : 0), size[s], virtual[i], size[i]);
                    out.add(new Edge(s, i, s >= i, !contained));
                    break;
                }
            }
        }
        return out;
    }

    /**
     * Where each instruction's memory moves in BHive's harness, for the translation of its pages
     * ({@link Translation}): per instruction, {address in the third run (iteration 2), bytes it moves an iteration}
     * of its first memory operand whose address moves, or null; null as a whole when nothing moves (most blocks:
     * their pages are the same every iteration).
     */
    public static long[][] movingAddresses(Program prog) {
        if (!prog.mayMove()) {
            return null; // no address register written in the block: nothing to run for
        }
        prog.addresses();
        long[][] out = null;
        for (int i = 0; i < prog.n; i++) {
            for (int a = prog.firstAccess[i]; a < prog.firstAccess[i + 1]; a++) {
                if (prog.moving[a] != 0) {
                    if (out == null) {
                        out = new long[prog.n][];
                    }
                    out[i] = new long[] {prog.movingFrom[a], prog.moving[a]};
                    break;
                }
            }
        }
        return out;
    }

    /**
     * Each instruction's page offset (0..4095) of the memory it loads, when it loads from one known address; -1
     * otherwise (no load, several, or an address that changes between iterations).
     */
    public static int[] loadOffsets(Program prog) {
        long[] at = prog.addresses();
        int[] out = new int[prog.n];
        for (int i = 0; i < out.length; i++) {
            out[i] = -1;
            int loads = 0;
            Access[] access = prog.steps[i].access();
            for (int k = 0; k < access.length; k++) {
                Access m = access[k];
                if (m.load) {
                    loads++;
                    long a = m.hidden ? UNKNOWN : at[prog.firstAccess[i] + k];
                    out[i] = a == UNKNOWN || loads > 1 ? -1 : (int) (a & 4095);
                }
            }
        }
        return out;
    }

    /**
     * The page offset (in BHive's harness every page is one) of each store the block makes, in program order, a
     * stack slot's included, at {@code [0]}, -1 where the address is not known; and at {@code [1]} how far each moves
     * an iteration (a push's slot with the stack; 0 when it stays or is not known) ({@link StoreCommit}).
     */
    public static long[][] storeOffsets(Program prog) {
        long[] at = prog.addresses();
        long[] moves = prog.strides();
        int stores = 0;
        for (int i = 0; i < prog.n; i++) {
            for (Access m : prog.steps[i].access()) {
                stores += m.store ? 1 : 0;
            }
        }
        long[] offset = new long[stores];
        long[] stride = new long[stores];
        int s = 0;
        for (int i = 0; i < prog.n; i++) {
            Access[] access = prog.steps[i].access();
            for (int k = 0; k < access.length; k++) {
                if (access[k].store) {
                    long a = access[k].hidden ? UNKNOWN : at[prog.firstAccess[i] + k];
                    offset[s] = a == UNKNOWN ? -1 : a & 4095;
                    stride[s++] = a == UNKNOWN ? 0 : moves[prog.firstAccess[i] + k];
                }
            }
        }
        return new long[][] {offset, stride};
    }

    /**
     * The address of every memory operand of the block ({@link Program#firstAccess} numbers them), or
     * {@link #UNKNOWN}, from the registers holding a known value before its instruction, the same in every
     * iteration after the first. The block runs three times from the harness's registers, following what it
     * computes: a move of a known register or an immediate, an {@code lea} of known registers, a zero idiom, a 4-
     * or 8-byte load (a 64-bit {@code pop} too) from a known address no store of the block writes (the page's
     * filling), and rsp through {@code push}, {@code pop} and {@code add}/{@code sub} of an immediate, the stack
     * slots of push and pop being accesses like others. Any other
     * write makes a register unknown, and so does a value that differs between the second and third runs (an
     * {@code add rdi, 8}). Which loads a store overlaps depends on the values, so the runs repeat until the stores'
     * addresses settle. Only the operands' base and index registers are kept from the runs: an address is all
     * anything asks of them.
     */
    private static long[] addressesOf(Program prog, long[] stride) {
        int n = prog.n;
        int accesses = prog.firstAccess[n];
        long[] address = new long[accesses];
        java.util.Arrays.fill(address, UNKNOWN);
        if (!prog.memory) { // nothing to place: no address needed
            return address;
        }
        boolean loadsFollowed = false;
        for (int i = 0; i < n; i++) {
            loadsFollowed |= prog.follow(i) instanceof Load || prog.follow(i) instanceof Pop;
        }
        // The second run's base and index values at each operand (UNKNOWN: not known), to compare with the third's.
        long[] secondBase = new long[accesses];
        long[] secondIndex = new long[accesses];
        long[] stored = new long[0]; // {page offset, bytes} pairs of the stores at known addresses
        // Per operand, whether it stores what the page already holds there (the filling): such a store changes no
        // value a load of the block can see (a copy of a pointer loaded from the page back into it).
        boolean[] keeps = new boolean[accesses];
        long[] value = new long[16];
        for (int round = 0; round < 4; round++) {
            int known = harness(value, prog.harness);
            boolean anyMoving = false;
            for (int run = 0; run < 4; run++) {
                if (run == 3 && !anyMoving) {
                    break; // a fourth run only checks that moving addresses keep their stride
                }
                for (int i = 0; i < n; i++) {
                    Access[] access = prog.steps[i].access();
                    for (int k = 0, a = prog.firstAccess[i]; run > 0 && k < access.length; k++, a++) {
                        long base = register(access[k].base, value, known);
                        long index = register(access[k].index, value, known);
                        if (run == 3) {
                            // Moving for good only by the same stride again: a value loaded from the page can
                            // move an address once and then settle (eax = [rax + 36] - 117 lands on one offset).
                            if (prog.moving[a] != 0
                                    && access[k].address(base, index) - prog.movingFrom[a] != prog.moving[a]) {
                                prog.moving[a] = 0;
                            }
                        } else if (run == 1) {
                            secondBase[a] = base;
                            secondIndex[a] = index;
                        } else {
                            // Known in both runs with the same value, or not known.
                            address[a] = access[k].address(base == secondBase[a] ? base : UNKNOWN,
                                    index == secondIndex[a] ? index : UNKNOWN);
                            long thirdRun = access[k].address(base, index);
                            long secondRun = access[k].address(secondBase[a], secondIndex[a]);
                            prog.moving[a] = thirdRun != UNKNOWN && secondRun != UNKNOWN && !access[k].hidden
                                    ? thirdRun - secondRun : 0;
                            prog.movingFrom[a] = thirdRun;
                            anyMoving |= prog.moving[a] != 0;
                            if (address[a] == UNKNOWN) {
                                // Moving by a multiple of the page from one iteration to the next (p += stride, the
                                // stride a register holding 0x2324000): another virtual page every iteration, the
                                // same bytes of the one physical page — its offset is known.
                                long third = access[k].address(base, index);
                                long second = access[k].address(secondBase[a], secondIndex[a]);
                                if (third != UNKNOWN && second != UNKNOWN && ((third - second) & 4095) == 0) {
                                    address[a] = third;
                                    stride[a] = third - second;
                                }
                            }
                            keeps[a] = access[k].store && address[a] != UNKNOWN && prog.steps[i].data() != null
                                    && keepsFilling(prog.steps[i].data().value(value, known, stored), address[a],
                                    access[k].bytes);
                        }
                    }
                    Step step = prog.steps[i];
                    int[] writes = step.writes();
                    if (writes.length > 0) {
                        // Every write of an instruction reads the registers as they were before it.
                        Follow follow = prog.follow(i);
                        long v = follow == null ? UNKNOWN : follow.value(value, known, stored);
                        for (int slot : writes) {
                            if (slot == step.followedSlot() && v != UNKNOWN) {
                                value[slot] = v;
                                known |= 1 << slot;
                            } else {
                                known &= ~(1 << slot);
                            }
                        }
                    }
                    value[RSP] += step.stackDelta(); // a push or pop moves rsp (known or not: then unused)
                }
            }
            if (!loadsFollowed) {
                break; // the stores' addresses change nothing the runs follow
            }
            long[] stores = storeRanges(prog, address, keeps);
            if (java.util.Arrays.equals(stores, stored)) {
                break;
            }
            stored = stores;
        }
        return address;
    }

    /** A base or index slot's value: 0 when absent (-1), {@link #UNKNOWN} when not followed (-2) or not known. */
    private static long register(int slot, long[] value, int known) {
        return slot == -1 ? 0 : slot < 0 || (known & (1 << slot)) == 0 ? UNKNOWN : value[slot];
    }

    /**
     * Whose harness ran the measurements: BHive's (rbp 16 bytes below the page's middle, rounded to 32) or
     * {@code basalt measure}'s (rbp = rsp = the page's middle; measure's C harness), which measured the CPUs named
     * by CPUID. On the Xeon 6's training split the right rbp takes the simulator from 8.35% to 8.00% MAPE (stores of
     * {@code [rbp-0xa8]} and {@code [rbp-0x78]} lie in two lines from 0x800, in one from 0x7f0); Zen 5: 6.50% to 6.47%.
     */
    public enum Harness { BHIVE, BASALT }

    /** The registers as the harness leaves them (all {@link #INIT}, {@code rsp} and {@code rbp} in the page): the mask. */
    private static int harness(long[] value, Harness harness) {
        java.util.Arrays.fill(value, INIT);
        value[RSP] = INIT + 2048;
        value[RBP] = harness == Harness.BASALT ? INIT + 2048 : ((INIT + 2048) >> 5 << 5) - 0x10;
        return 0xffff;
    }

    private static final int[] NONE = {};
    private static final Access[] NO_ACCESS = {};

    /** "Not known": no address or value the harness can produce. */
    static final long UNKNOWN = Long.MIN_VALUE;

    private static final int RSP = 6;
    private static final int RBP = 7;

    /** Whether {@code insn} writes general-purpose register {@code slot} as an operand it names (or, unless
     *  {@code visibleOnly}, any). */
    private static boolean writesSlot(Instruction insn, int slot, boolean visibleOnly) {
        for (Operand op : insn.operands()) {
            if (op instanceof Operand.RegisterOperand r && slot(r.register()) == slot
                    && (r.action().write() || r.action().conditionalWrite())
                    && (!visibleOnly || r.visibility() != Visibility.HIDDEN)) {
                return true;
            }
        }
        return false;
    }

    /** A general-purpose register's slot (0..15) by its enclosing name; -1 for any other register. */
    private static int slot(dev.basalt.decoder.Register r) {
        return switch (r.enclosingName()) {
            case "rax" -> 0;
            case "rbx" -> 1;
            case "rcx" -> 2;
            case "rdx" -> 3;
            case "rsi" -> 4;
            case "rdi" -> 5;
            case "rsp" -> RSP;
            case "rbp" -> RBP;
            case "r8" -> 8;
            case "r9" -> 9;
            case "r10" -> 10;
            case "r11" -> 11;
            case "r12" -> 12;
            case "r13" -> 13;
            case "r14" -> 14;
            case "r15" -> 15;
            default -> -1;
        };
    }

    /**
     * A memory operand, compiled: segment usable (ds, ss, es), displacement, base and index slots (-1: absent,
     * -2: a register not followed, such as rip), whether they are 32-bit, scale, bytes, and its use.
     */
    record Access(boolean segment, long displacement, int base, boolean base32, int index, boolean index32,
                          int scale, int bytes, int sizeBits, boolean load, boolean store, boolean hidden) {

        static Access of(Operand.MemoryOperand m) {
            String seg = m.segment().name();
            return new Access(seg.equals("ds") || seg.equals("ss") || seg.equals("es"), m.displacement(),
                    followed(m.base()), m.base().widthBits() == 32, followed(m.index()), m.index().widthBits() == 32,
                    m.scale(), Math.max(1, m.sizeBits() / 8), m.sizeBits(), m.action().readsOldValue(),
                    m.action().write() || m.action().conditionalWrite(), m.visibility() == Visibility.HIDDEN);
        }

        /** This hidden stack slot of a push or pop as an access at rsp + {@code displacement}. */
        Access stackSlot(long displacement) {
            return new Access(segment, displacement, base, base32, index, index32, scale, bytes, sizeBits, load,
                    store, false);
        }

        private static int followed(dev.basalt.decoder.Register r) {
            return !r.isPresent() ? -1 : r.registerClass() == RegisterClass.IP || slot(r) < 0 ? -2 : slot(r);
        }

        /** Its address given registers {@code known} with {@code value}, or {@link #UNKNOWN}. */
        long address(long[] value, int known) {
            return address(register(base, value, known), register(index, value, known));
        }

        /**
         * Its address given its base's and index's values ({@link #register}: 0 when absent, {@link #UNKNOWN} when
         * not known), or {@link #UNKNOWN}.
         */
        long address(long baseValue, long indexValue) {
            if (!segment || baseValue == UNKNOWN || indexValue == UNKNOWN) {
                return UNKNOWN;
            }
            return displacement + (base32 ? baseValue & 0xffffffffL : baseValue)
                    + (index32 ? indexValue & 0xffffffffL : indexValue) * scale;
        }
    }

    /** How a followed instruction computes the value it writes ({@link #addressesOf}). */
    sealed interface Follow {
        /** The value written given the registers before, or {@link #UNKNOWN}. */
        long value(long[] value, int known, long[] stored);
    }

    /** A constant: an immediate, a zero idiom. */
    private record Constant(long v) implements Follow {
        public long value(long[] value, int known, long[] stored) {
            return v;
        }
    }

    /** {@code mov} of a register of the same width. */
    private record Copy(int from, long mask) implements Follow {
        public long value(long[] value, int known, long[] stored) {
            return from >= 0 && (known & (1 << from)) != 0 ? value[from] & mask : UNKNOWN;
        }
    }

    /** {@code movzx}/{@code movsx}/{@code movsxd} of a register's low {@code bits} (from bit {@code shift}). */
    private record Extend(int from, int shift, int bits, boolean signed, long mask) implements Follow {
        public long value(long[] value, int known, long[] stored) {
            if ((known & (1 << from)) == 0) {
                return UNKNOWN;
            }
            long v = value[from] >>> shift << (64 - bits);
            return (signed ? v >> (64 - bits) : v >>> (64 - bits)) & mask;
        }
    }

    /**
     * {@code mov} of 4 or 8 bytes, or {@code movzx}/{@code movsx}/{@code movsxd} of 1, 2 or 4 ({@code signed}: sign-
     * extended), from a known address no store of the block writes: the page's filling.
     */
    private record Load(Access m, int bytes, long mask, boolean signed) implements Follow {
        Load(Access m, int bytes, long mask) {
            this(m, bytes, mask, false);
        }

        public long value(long[] value, int known, long[] stored) {
            long a = m.address(value, known);
            if (a == UNKNOWN || storedBy(stored, a & 4095, m.sizeBits() / 8)) {
                return UNKNOWN;
            }
            long v = filling(a & 4095, bytes);
            if (signed && bytes < 8) {
                v = v << (64 - 8 * bytes) >> (64 - 8 * bytes);
            }
            return v & mask;
        }
    }

    /**
     * A 64-bit {@code pop}: a {@link Load} of its stack slot; where rsp is not known (after an {@code and rsp, -16})
     * and the block pushes nothing ({@code guess}), still the filling — rsp stays 8-aligned, and every aligned
     * quadword of the page holds {@link #INIT}.
     */
    private record Pop(Load slot, boolean guess) implements Follow {
        public long value(long[] value, int known, long[] stored) {
            if (guess && slot.m().address(value, known) == UNKNOWN) {
                return INIT;
            }
            return slot.value(value, known, stored);
        }
    }

    /** {@code add} or {@code sub} of an immediate to rsp (a frame's allocation): rsp + {@code delta}. */
    private record StackAdjust(long delta) implements Follow {
        public long value(long[] value, int known, long[] stored) {
            return (known & (1 << RSP)) != 0 ? value[RSP] + delta : UNKNOWN;
        }
    }

    /** {@code add} or {@code sub} ({@code sign} -1) of register {@code from} (-1: of {@code imm}) to {@code to}. */
    private record Sum(int to, int from, long imm, long sign, long mask) implements Follow {
        public long value(long[] value, int known, long[] stored) {
            if ((known & (1 << to)) == 0 || from >= 0 && (known & (1 << from)) == 0) {
                return UNKNOWN;
            }
            return (value[to] + sign * (from >= 0 ? value[from] : imm)) & mask;
        }
    }

    /** {@code lea}: displacement, base, index times scale. */
    private record Lea(long displacement, int base, int index, int scale, long mask) implements Follow {
        public long value(long[] value, int known, long[] stored) {
            long v = displacement;
            if (base != -1) {
                if (base < 0 || (known & (1 << base)) == 0) {
                    return UNKNOWN;
                }
                v += value[base];
            }
            if (index != -1) {
                if (index < 0 || (known & (1 << index)) == 0) {
                    return UNKNOWN;
                }
                v += value[index] * scale;
            }
            return v & mask;
        }
    }

    /**
     * One instruction compiled for the runs: the general-purpose registers it writes (slots, in operand order),
     * the one whose value can be followed and how, and its memory operands. It depends on the bytes alone, so
     * {@link InstructionFacts} keeps it.
     *
     * @param stackDelta how a push (negative) or pop moves rsp, followed apart from the writes; 0 for others
     */
    public record Step(int[] writes, int followedSlot, Follow follow, int stackDelta, Access[] access,
                boolean visibleMemory, boolean visibleLoad, boolean visibleStore, Follow data) {

        public Step(int[] writes, int followedSlot, Follow follow, int stackDelta, Access[] access, boolean visibleMemory,
             boolean visibleLoad, boolean visibleStore) {
            this(writes, followedSlot, follow, stackDelta, access, visibleMemory, visibleLoad, visibleStore, null);
        }

        public static Step of(Instruction insn) {
            Step step = shape(insn);
            Follow data = dataOf(insn);
            return data == null ? step : new Step(step.writes, step.followedSlot, step.follow, step.stackDelta,
                    step.access, step.visibleMemory, step.visibleLoad, step.visibleStore, data);
        }

        /**
         * What a store writes, when the runs can follow it: {@code mov} to memory of a register as wide as the
         * operand (4 or 8 bytes) or of an immediate, {@code push} of a 64-bit register or an immediate; else null.
         */
        private static Follow dataOf(Instruction insn) {
            String mnemonic = insn.mnemonic();
            List<Operand> ops = insn.visibleOperands();
            if (mnemonic.equals("mov") && ops.size() == 2 && ops.get(0) instanceof Operand.MemoryOperand m) {
                int bits = m.sizeBits();
                long mask = bits >= 64 ? -1L : (1L << bits) - 1;
                if (ops.get(1) instanceof Operand.RegisterOperand r && r.register().widthBits() == bits
                        && (bits == 32 || bits == 64) && slot(r.register()) >= 0) {
                    return new Copy(slot(r.register()), mask);
                }
                if (ops.get(1) instanceof Operand.ImmediateOperand imm && bits > 0) {
                    return new Constant(imm.value() & mask);
                }
            }
            if (mnemonic.equals("push") && ops.size() == 1) {
                if (ops.get(0) instanceof Operand.RegisterOperand r && r.register().widthBits() == 64
                        && slot(r.register()) >= 0) {
                    return new Copy(slot(r.register()), -1L);
                }
                if (ops.get(0) instanceof Operand.ImmediateOperand imm) {
                    return new Constant(imm.value());
                }
            }
            return null;
        }

        private static Step shape(Instruction insn) {
            String mnemonic = insn.mnemonic();
            // push and pop: the stack engine moves rsp by the operand's size, followed here (stackDelta) so that
            // a pop finds what a push of the block stored; the stack slot they access is a memory operand like
            // any other. (pop rsp, whose result replaces the stack engine's, is left unknown.)
            boolean push = mnemonic.equals("push");
            boolean stackOp = push || mnemonic.equals("pop") && !writesSlot(insn, RSP, true);
            int stackDelta = 0;
            int[] w = new int[insn.operands().size()];
            int count = 0;
            List<Access> accesses = null;
            boolean visible = false;
            boolean load = false;
            boolean store = false;
            for (int oi = 0, on = insn.operands().size(); oi < on; oi++) {
                Operand op = insn.operands().get(oi); // indexed: C1 allocates an iterator per loop
                if (op instanceof Operand.RegisterOperand r && r.register().registerClass() != RegisterClass.FLAGS
                        && (r.action().write() || r.action().conditionalWrite()) && slot(r.register()) >= 0
                        && !(stackOp && slot(r.register()) == RSP && r.visibility() == Visibility.HIDDEN)) {
                    w[count++] = slot(r.register());
                }
                if (op instanceof Operand.MemoryOperand m) {
                    if (accesses == null) {
                        accesses = new ArrayList<>(2);
                    }
                    boolean stackSlot = stackOp && m.visibility() == Visibility.HIDDEN && slot(m.base()) == RSP;
                    Access a = Access.of(m);
                    if (stackSlot) {
                        stackDelta = push ? -a.bytes() : a.bytes();
                        a = a.stackSlot(push ? -a.bytes() : 0); // a push writes below the rsp it reads
                    }
                    accesses.add(a);
                    if (m.visibility() != Visibility.HIDDEN || stackSlot) {
                        visible = true;
                        load |= m.action().readsOldValue();
                        store |= m.action().write() || m.action().conditionalWrite();
                    }
                }
            }
            int[] writes = count == 0 ? NONE : java.util.Arrays.copyOf(w, count);
            Access[] access = accesses == null ? NO_ACCESS : accesses.toArray(new Access[0]);
            boolean zero = insn.idiom() == dev.basalt.decoder.Idiom.ZERO;
            List<Operand> visibleOps = insn.visibleOperands();
            if ((mnemonic.equals("add") || mnemonic.equals("sub")) && visibleOps.size() == 2
                    && visibleOps.get(0) instanceof Operand.RegisterOperand d && d.register().widthBits() == 64
                    && slot(d.register()) == RSP && visibleOps.get(1) instanceof Operand.ImmediateOperand imm) {
                long delta = mnemonic.equals("add") ? imm.value() : -imm.value();
                return new Step(writes, RSP, new StackAdjust(delta), 0, access, visible, load, store);
            }
            boolean sum = (mnemonic.equals("add") || mnemonic.equals("sub")) && visibleOps.size() == 2
                    && (visibleOps.get(1) instanceof Operand.RegisterOperand
                    || visibleOps.get(1) instanceof Operand.ImmediateOperand);
            boolean extending = mnemonic.equals("movzx") || mnemonic.equals("movsx") || mnemonic.equals("movsxd");
            if (!mnemonic.equals("mov") && !mnemonic.equals("lea") && !mnemonic.equals("pop") && !zero && !sum
                    && !extending) {
                // the common case: an instruction whose result we do not follow
                return new Step(writes, -1, null, stackDelta, access, visible, load, store);
            }
            List<Operand> ops = visibleOps;
            if (mnemonic.equals("pop")) {
                // a pop's value is a load like mov's: the page's filling unless a store of the block wrote there
                boolean followed = stackDelta == 8 && ops.size() == 1 && ops.get(0) instanceof Operand.RegisterOperand p
                        && p.register().widthBits() == 64 && slot(p.register()) >= 0;
                return followed
                        ? new Step(writes, slot(((Operand.RegisterOperand) ops.get(0)).register()),
                                new Pop(new Load(access[access.length - 1], 8, -1L), true), stackDelta, access,
                                visible, load, store)
                        : new Step(writes, -1, null, stackDelta, access, visible, load, store);
            }
            if (ops.size() != 2 || !(ops.get(0) instanceof Operand.RegisterOperand d) || slot(d.register()) < 0) {
                return new Step(writes, -1, null, 0, access, visible, load, store); // another shape: unknown
            }
            for (int oi = 0, on = insn.operands().size(); oi < on; oi++) { // it must write nothing else we track
                Operand op = insn.operands().get(oi); // indexed: C1 allocates an iterator per loop
                if (op != d && op instanceof Operand.RegisterOperand r
                        && r.register().registerClass() != RegisterClass.FLAGS
                        && (r.action().write() || r.action().conditionalWrite())) {
                    return new Step(writes, -1, null, 0, access, visible, load, store);
                }
            }
            int width = d.register().widthBits();
            if (width != 32 && width != 64) { // a partial write keeps bits we would have to track
                return new Step(writes, -1, null, 0, access, visible, load, store);
            }
            long mask = width == 32 ? 0xffffffffL : -1L;
            Operand src = ops.get(1);
            Follow follow = null;
            if (zero) {
                follow = new Constant(0);
            } else if (mnemonic.equals("mov")) {
                if (src instanceof Operand.RegisterOperand s && s.register().widthBits() == width) {
                    follow = new Copy(slot(s.register()), mask);
                } else if (src instanceof Operand.ImmediateOperand imm) {
                    follow = new Constant(imm.value() & mask);
                } else if (src instanceof Operand.MemoryOperand m && m.sizeBits() >= 32) {
                    follow = new Load(Access.of(m), width / 8, mask);
                }
            } else if (extending) {
                // a table's entry loaded and extended: a jump table's offset added to its base moves the base by
                // the filling (0x2324000) every iteration, onto another page
                boolean signed = !mnemonic.equals("movzx");
                if (src instanceof Operand.MemoryOperand m && m.sizeBits() < width) {
                    follow = new Load(Access.of(m), m.sizeBits() / 8, mask, signed);
                } else if (src instanceof Operand.RegisterOperand r && slot(r.register()) >= 0
                        && r.register().widthBits() < width) {
                    String name = r.register().name();
                    boolean high = name.length() == 2 && name.charAt(1) == 'h'; // ah, bh, ch, dh: bits 8-15
                    follow = new Extend(slot(r.register()), high ? 8 : 0, r.register().widthBits(), signed, mask);
                }
            } else if (sum) {
                // add/sub of a register or an immediate: followed so that a pointer stepping by a register that holds
                // 0x2324000 keeps its page offset (the address's value still changes between runs: not known)
                long sign = mnemonic.equals("add") ? 1 : -1;
                if (src instanceof Operand.RegisterOperand s && s.register().widthBits() == width
                        && slot(s.register()) >= 0) {
                    follow = new Sum(slot(d.register()), slot(s.register()), 0, sign, mask);
                } else if (src instanceof Operand.ImmediateOperand imm) {
                    follow = new Sum(slot(d.register()), -1, imm.value(), sign, mask);
                }
            } else if (mnemonic.equals("lea") && src instanceof Operand.AddressOperand a) {
                follow = new Lea(a.displacement(), Access.followed(a.base()), Access.followed(a.index()), a.scale(),
                        mask);
            }
            return new Step(writes, slot(d.register()), follow, 0, access, visible, load, store);
        }
    }

    /** A block compiled for the runs: its instructions' steps, and whether it pushes anything. */
    public static final class Program {
        final int n;
        final Step[] steps;
        final Harness harness;
        final boolean memory; // whether any memory operand is visible (or a stack slot)
        final boolean pushes;
        /** Where instruction i's memory operands start in the numbering of all the block's (n + 1 entries). */
        final int[] firstAccess;
        private long[] addresses; // the runs' result, once: Ivy Bridge's cache banks ask for it after the edges
        private long[] strides;
        // Per memory operand: how far its address moves from the second run to the third (0: it does not, or is
        // not known in both), and where it is in the third.
        private long[] moving;
        private long[] movingFrom;

        /** Every memory operand's address ({@link #addressesOf}), computed on first use. Not thread-safe. */
        long[] addresses() {
            if (addresses == null) {
                strides = new long[firstAccess[n]];
                moving = new long[firstAccess[n]];
                movingFrom = new long[firstAccess[n]];
                addresses = addressesOf(this, strides);
            }
            return addresses;
        }

        /**
         * Per memory operand, how far its address moves from one iteration to the next (a multiple of 4096), 0 when
         * it does not or is not known.
         */
        long[] strides() {
            addresses();
            return strides;
        }

        public Program(BasicBlock block, Step[] steps, Harness harness) {
            this.harness = harness;
            this.n = steps.length;
            this.steps = steps;
            boolean anyMemory = false;
            boolean pushing = false;
            for (Step step : steps) {
                anyMemory |= step.visibleMemory();
                pushing |= step.stackDelta() < 0;
            }
            this.pushes = pushing;
            this.memory = anyMemory;
            this.firstAccess = new int[n + 1];
            for (int i = 0; i < n; i++) {
                firstAccess[i + 1] = firstAccess[i] + steps[i].access().length;
            }
        }

        /** Whether a register some memory operand's address is made of is written in the block (rsp by push too). */
        boolean mayMove() {
            int written = 0;
            int used = 0;
            for (Step step : steps) {
                for (int slot : step.writes()) {
                    written |= 1 << slot;
                }
                if (step.stackDelta() != 0) {
                    written |= 1 << RSP;
                }
                for (Access a : step.access()) {
                    used |= (a.base() >= 0 ? 1 << a.base() : 0) | (a.index() >= 0 ? 1 << a.index() : 0);
                }
            }
            return (written & used) != 0;
        }

        /** How instruction {@code i}'s followed register gets its value, or null when unknown. */
        Follow follow(int i) {
            Follow f = steps[i].follow();
            return f instanceof Pop p && pushes ? p.slot() : f;
        }

        public static Program of(BasicBlock block, Harness harness) {
            Step[] steps = new Step[block.size()];
            for (int i = 0; i < steps.length; i++) {
                steps[i] = Step.of(block.instruction(i));
            }
            return new Program(block, steps, harness);
        }
    }

    /** Whether {@code v}, stored in {@code bytes} bytes at {@code address}, is what the page holds there. */
    private static boolean keepsFilling(long v, long address, int bytes) {
        return v != UNKNOWN && bytes <= 8 && v == filling(address & 4095, bytes);
    }

    /**
     * {page offset, bytes} of every store of the block at a known address that changes the page ({@code keeps}:
     * those that write back its filling do not), given every operand's address.
     */
    private static long[] storeRanges(Program prog, long[] address, boolean[] keeps) {
        long[] out = new long[8];
        int count = 0;
        for (int i = 0; i < prog.n; i++) {
            Access[] access = prog.steps[i].access();
            for (int k = 0; k < access.length; k++) {
                Access m = access[k];
                long a = m.store && !keeps[prog.firstAccess[i] + k] ? address[prog.firstAccess[i] + k] : UNKNOWN;
                if (a != UNKNOWN) {
                    if (count + 2 > out.length) {
                        out = java.util.Arrays.copyOf(out, out.length * 2);
                    }
                    out[count++] = a & 4095;
                    out[count++] = m.bytes;
                }
            }
        }
        return java.util.Arrays.copyOf(out, count);
    }

    /** The bytes at page offset {@code offset} of the page filled with {@link #INIT} quadwords, little-endian. */
    static long filling(long offset, int bytes) {
        long v = 0;
        for (int k = bytes - 1; k >= 0; k--) {
            long at = (offset + k) & 4095;
            v = (v << 8) | ((INIT >>> (8 * (at & 7))) & 0xff);
        }
        return v;
    }

    private static boolean storedBy(long[] stored, long offset, int size) {
        for (int k = 0; k < stored.length; k += 2) {
            if (overlaps(stored[k], (int) stored[k + 1], offset, size)) {
                return true;
            }
        }
        return false;
    }

    private static boolean overlaps(long a, int as, long b, int bs) {
        return a < b + bs && b < a + as;
    }

    private static boolean contains(long a, int as, long b, int bs) {
        return a <= b && b + bs <= a + as;
    }
}
