package dev.basalt.simulator;

import dev.basalt.decoder.BasicBlock;
import dev.basalt.decoder.Instruction;
import dev.basalt.decoder.Operand;
import dev.basalt.decoder.RegisterClass;

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
final class BhiveMemory {

    static final long INIT = 0x2324000L;

    /** A load's producer store: instruction indices, whether from the previous iteration, whether partial. */
    record Edge(int store, int load, boolean loopCarried, boolean partial) {
    }

    private BhiveMemory() {
    }

    /** The store→load dependencies the harness's memory layout creates between known addresses. */
    static List<Edge> edges(BasicBlock block) {
        int n = block.size();
        boolean anyStore = false;
        boolean anyLoad = false;
        for (Instruction insn : block.instructions()) {
            for (Operand op : insn.operands()) {
                if (op instanceof Operand.MemoryOperand m && m.visibility() != dev.basalt.decoder.Visibility.HIDDEN) {
                    anyStore |= m.action().write() || m.action().conditionalWrite();
                    anyLoad |= m.action().readsOldValue();
                }
            }
        }
        if (!anyStore || !anyLoad) {
            return List.of(); // no store→load pair to place: skip the runs of the block
        }
        List<Regs> before = valuesBefore(block);
        long[] address = new long[n];
        int[] size = new int[n];
        boolean[] loads = new boolean[n];
        boolean[] stores = new boolean[n];
        for (int i = 0; i < n; i++) {
            address[i] = -1;
            for (Operand op : block.instruction(i).operands()) {
                if (op instanceof Operand.MemoryOperand m && m.visibility() != dev.basalt.decoder.Visibility.HIDDEN) {
                    Long a = address(m, before.get(i));
                    if (a != null) {
                        address[i] = a & 4095;
                        size[i] = Math.max(1, m.sizeBits() / 8);
                        loads[i] |= m.action().readsOldValue();
                        stores[i] |= m.action().write() || m.action().conditionalWrite();
                    }
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
                    boolean contained = contains(address[s], size[s], address[i], size[i]);
                    out.add(new Edge(s, i, s >= i, !contained));
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
    static int[] loadOffsets(BasicBlock block) {
        List<Regs> before = valuesBefore(block);
        int[] out = new int[block.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = -1;
            int loads = 0;
            for (Operand op : block.instruction(i).operands()) {
                if (op instanceof Operand.MemoryOperand m && m.action().readsOldValue()) {
                    loads++;
                    Long a = m.visibility() == dev.basalt.decoder.Visibility.HIDDEN ? null : address(m, before.get(i));
                    out[i] = a == null || loads > 1 ? -1 : (int) (a & 4095);
                }
            }
        }
        return out;
    }

    /**
     * The registers (by enclosing name) holding a known value before each instruction, the same in every iteration
     * after the first. The block runs three times from the harness's registers, following what it computes: a
     * move of a known register or an immediate, an {@code lea} of known registers, a zero idiom, a 4- or 8-byte
     * load from a known address no store of the block writes (the page's filling), a {@code pop} when nothing is
     * pushed (the stack stays 8-aligned, and every aligned quadword holds {@link #INIT}). Any other write makes a
     * register unknown, and so does a value that differs between the second and third runs (an {@code add rdi,
     * 8}). Which loads a store overlaps depends on the values, so the runs repeat until the stores' addresses
     * settle.
     */
    static List<Regs> valuesBefore(BasicBlock block) {
        int n = block.size();
        long[][] stored = new long[0][];
        boolean pushes = false;
        for (Instruction insn : block.instructions()) {
            pushes |= insn.mnemonic().startsWith("push") || insn.mnemonic().equals("call");
        }
        List<Regs> result = null;
        boolean memory = false;
        for (Instruction insn : block.instructions()) {
            for (Operand op : insn.operands()) {
                memory |= op instanceof Operand.MemoryOperand m && m.visibility() != dev.basalt.decoder.Visibility.HIDDEN;
            }
        }
        if (!memory) { // nothing to place: no values needed
            return java.util.Collections.nCopies(n, new Regs());
        }
        // What each instruction writes, and its visible operands, once (the runs below repeat them many times).
        String[][] writes = new String[n][];
        List<List<Operand>> visible = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            Instruction insn = block.instruction(i);
            List<String> w = new ArrayList<>(2);
            for (Operand op : insn.operands()) {
                if (op instanceof Operand.RegisterOperand r && r.register().registerClass() != RegisterClass.FLAGS
                        && (r.action().write() || r.action().conditionalWrite())) {
                    w.add(r.register().enclosingName());
                }
            }
            writes[i] = w.toArray(new String[0]);
            visible.add(followed(insn) ? insn.visibleOperands() : List.of());
        }
        for (int round = 0; round < 4; round++) {
            List<Regs> second = null;
            List<Regs> third = null;
            Regs state = harness();
            for (int run = 0; run < 3; run++) {
                List<Regs> points = run == 0 ? null : new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    // A snapshot: kept for the later runs, and read by every write of an instruction that makes several.
                    Regs now = points != null || writes[i].length > 1 ? state.copy() : state;
                    if (points != null) {
                        points.add(now);
                    }
                    Instruction insn = block.instruction(i);
                    for (String reg : writes[i]) {
                        Long v = valueWritten(insn, visible.get(i), reg, now, stored, pushes);
                        if (v == null) {
                            state.remove(reg);
                        } else {
                            state.put(reg, v);
                        }
                    }
                }
                if (run == 1) {
                    second = points;
                } else if (run == 2) {
                    third = points;
                }
            }
            for (int i = 0; i < n; i++) {
                third.get(i).keepAgreeing(second.get(i));
            }
            result = third;
            long[][] stores = storeRanges(block, third);
            if (java.util.Arrays.deepEquals(stores, stored)) {
                break;
            }
            stored = stores;
        }
        return result;
    }

    /** The registers as the harness leaves them: all {@link #INIT}, {@code rsp} and {@code rbp} in the page. */
    private static Regs harness() {
        Regs known = new Regs();
        for (String r : Regs.NAMES) {
            known.put(r, INIT);
        }
        known.put("rsp", INIT + 2048);
        known.put("rbp", ((INIT + 2048) >> 5 << 5) - 0x10);
        return known;
    }

    /** Known values of the 16 general-purpose registers (by enclosing name): a bit mask and an array. */
    static final class Regs {
        static final String[] NAMES = {"rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rsp", "rbp", "r8", "r9", "r10",
                "r11", "r12", "r13", "r14", "r15"};
        private final long[] value = new long[16];
        private int known;

        private static int slot(String name) {
            return switch (name) {
                case "rax" -> 0;
                case "rbx" -> 1;
                case "rcx" -> 2;
                case "rdx" -> 3;
                case "rsi" -> 4;
                case "rdi" -> 5;
                case "rsp" -> 6;
                case "rbp" -> 7;
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

        Long get(String name) {
            int k = slot(name);
            return k >= 0 && (known & (1 << k)) != 0 ? value[k] : null;
        }

        void put(String name, long v) {
            int k = slot(name);
            if (k >= 0) {
                value[k] = v;
                known |= 1 << k;
            }
        }

        void remove(String name) {
            int k = slot(name);
            if (k >= 0) {
                known &= ~(1 << k);
            }
        }

        Regs copy() {
            Regs c = new Regs();
            System.arraycopy(value, 0, c.value, 0, 16);
            c.known = known;
            return c;
        }

        /** Forgets every register whose value differs from (or is unknown in) {@code other}. */
        void keepAgreeing(Regs other) {
            for (int k = 0; k < 16; k++) {
                if ((other.known & (1 << k)) == 0 || other.value[k] != value[k]) {
                    known &= ~(1 << k);
                }
            }
        }
    }

    /** {page offset, bytes} of every store of the block at a known address, given the values before each. */
    private static long[][] storeRanges(BasicBlock block, List<Regs> before) {
        List<long[]> out = new ArrayList<>();
        for (int i = 0; i < block.size(); i++) {
            for (Operand op : block.instruction(i).operands()) {
                if (op instanceof Operand.MemoryOperand m && (m.action().write() || m.action().conditionalWrite())) {
                    Long a = address(m, before.get(i));
                    if (a != null) {
                        out.add(new long[] {a & 4095, Math.max(1, m.sizeBits() / 8)});
                    }
                }
            }
        }
        return out.toArray(new long[0][]);
    }

    /** The value {@code insn} leaves in register {@code reg} given {@code known} registers, or null when not known. */
    /** Whether {@link #valueWritten} can know what {@code insn} writes: a move, {@code lea}, {@code pop}, zero idiom. */
    private static boolean followed(Instruction insn) {
        String mnemonic = insn.mnemonic();
        return mnemonic.equals("mov") || mnemonic.equals("lea") || mnemonic.equals("pop")
                || insn.idiom() == dev.basalt.decoder.Idiom.ZERO;
    }

    private static Long valueWritten(Instruction insn, List<Operand> ops, String reg, Regs known, long[][] stored,
                                     boolean pushes) {
        if (!followed(insn)) {
            return null; // the hot path: an instruction whose result we do not follow
        }
        if (insn.mnemonic().equals("pop") && ops.size() == 1 && ops.get(0) instanceof Operand.RegisterOperand p
                && p.register().enclosingName().equals(reg) && p.register().widthBits() == 64) {
            // rsp stays 8-aligned, and every aligned quadword of the page holds INIT unless something is pushed.
            return pushes ? null : INIT;
        }
        if (ops.size() != 2 || !(ops.get(0) instanceof Operand.RegisterOperand d)
                || !d.register().enclosingName().equals(reg)) {
            return null; // flags or hidden writes of other registers, or an instruction we do not follow
        }
        for (Operand op : insn.operands()) { // it must write nothing else we track
            if (op != d && op instanceof Operand.RegisterOperand r && r.register().registerClass() != RegisterClass.FLAGS
                    && (r.action().write() || r.action().conditionalWrite())) {
                return null;
            }
        }
        int width = d.register().widthBits();
        if (width != 32 && width != 64) {
            return null; // a partial write keeps bits we would have to track
        }
        long mask = width == 32 ? 0xffffffffL : -1L;
        Operand src = ops.get(1);
        if (insn.idiom() == dev.basalt.decoder.Idiom.ZERO) {
            return 0L;
        }
        switch (insn.mnemonic()) {
            case "mov" -> {
                if (src instanceof Operand.RegisterOperand s && (s.register().widthBits() == width)) {
                    Long v = known.get(s.register().enclosingName());
                    return v == null ? null : v & mask;
                }
                if (src instanceof Operand.ImmediateOperand i) {
                    return i.value() & mask;
                }
                if (src instanceof Operand.MemoryOperand m && m.sizeBits() >= 32) {
                    Long a = address(m, known);
                    if (a == null || storedBy(stored, a & 4095, m.sizeBits() / 8)) {
                        return null;
                    }
                    return filling(a & 4095, width / 8) & mask;
                }
                return null;
            }
            case "lea" -> {
                if (src instanceof Operand.AddressOperand a) {
                    long v = a.displacement();
                    if (a.base().isPresent()) {
                        Long b = known.get(a.base().enclosingName());
                        if (b == null || a.base().registerClass() == RegisterClass.IP) {
                            return null;
                        }
                        v += b;
                    }
                    if (a.index().isPresent()) {
                        Long x = known.get(a.index().enclosingName());
                        if (x == null) {
                            return null;
                        }
                        v += x * a.scale();
                    }
                    return v & mask;
                }
                return null;
            }
            default -> {
                return null;
            }
        }
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

    private static boolean storedBy(long[][] stored, long offset, int size) {
        for (long[] st : stored) {
            if (overlaps(st[0], (int) st[1], offset, size)) {
                return true;
            }
        }
        return false;
    }

    /** The address of a memory operand, or null when a register of it is unknown or it is RIP- or segment-based. */
    static Long address(Operand.MemoryOperand m, Regs known) {
        String seg = m.segment().name();
        if (!seg.equals("ds") && !seg.equals("ss") && !seg.equals("es")) {
            return null;
        }
        long a = m.displacement();
        if (m.base().isPresent()) {
            Long b = known.get(m.base().enclosingName());
            if (b == null || m.base().registerClass() == RegisterClass.IP) {
                return null;
            }
            a += m.base().widthBits() == 32 ? b & 0xffffffffL : b;
        }
        if (m.index().isPresent()) {
            Long x = known.get(m.index().enclosingName());
            if (x == null) {
                return null;
            }
            a += (m.index().widthBits() == 32 ? x & 0xffffffffL : x) * m.scale();
        }
        return a;
    }

    private static boolean overlaps(long a, int as, long b, int bs) {
        return a < b + bs && b < a + as;
    }

    private static boolean contains(long a, int as, long b, int bs) {
        return a <= b && b + bs <= a + as;
    }
}
