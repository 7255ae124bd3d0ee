package dev.basalt.simulator.harness;

import dev.basalt.decoder.BasicBlock;
import dev.basalt.decoder.Instruction;
import dev.basalt.simulator.harness.HarnessInterpreter.Follow;
import dev.basalt.simulator.harness.HarnessInterpreter.Pop;
import dev.basalt.simulator.harness.StepCompiler.Access;
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
 *
 * <p>Here: the queries and the types other packages use; the runs are {@link HarnessInterpreter}'s, each instruction
 * compiled for them by {@link StepCompiler}.
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
                long a = m.hidden() ? UNKNOWN : at[prog.firstAccess[i] + k];
                if (a != UNKNOWN) {
                    address[i] = a & 4095;
                    virtual[i] = a;
                    stride[i] = moves[prog.firstAccess[i] + k];
                    size[i] = m.bytes();
                    loads[i] |= m.load();
                    stores[i] |= m.store();
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
                if (m.load()) {
                    loads++;
                    long a = m.hidden() ? UNKNOWN : at[prog.firstAccess[i] + k];
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
        int stores = 0;
        for (int i = 0; i < prog.n; i++) {
            for (Access m : prog.steps[i].access()) {
                stores += m.store() ? 1 : 0;
            }
        }
        if (stores == 0) {
            return new long[][] {new long[0], new long[0]}; // no store: no need to run the block
        }
        long[] at = prog.addresses();
        long[] moves = prog.strides();
        long[] offset = new long[stores];
        long[] stride = new long[stores];
        int s = 0;
        for (int i = 0; i < prog.n; i++) {
            Access[] access = prog.steps[i].access();
            for (int k = 0; k < access.length; k++) {
                if (access[k].store()) {
                    long a = access[k].hidden() ? UNKNOWN : at[prog.firstAccess[i] + k];
                    offset[s] = a == UNKNOWN ? -1 : a & 4095;
                    stride[s++] = a == UNKNOWN ? 0 : moves[prog.firstAccess[i] + k];
                }
            }
        }
        return new long[][] {offset, stride};
    }

    /**
     * Whose harness ran the measurements: BHive's (rbp 16 bytes below the page's middle, rounded to 32) or
     * {@code basalt measure}'s (rbp = rsp = the page's middle; measure's C harness), which measured the CPUs named
     * by CPUID. On the Xeon 6's training split the right rbp takes the simulator from 8.35% to 8.00% MAPE (stores of
     * {@code [rbp-0xa8]} and {@code [rbp-0x78]} lie in two lines from 0x800, in one from 0x7f0); Zen 5: 6.50% to 6.47%.
     */
    public enum Harness { BHIVE, BASALT }

    /** "Not known": no address or value the harness can produce. */
    static final long UNKNOWN = Long.MIN_VALUE;

    static final int RDX = 3;
    static final int RSP = 6;
    static final int RBP = 7;

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
            Step step = StepCompiler.shape(insn);
            Follow data = StepCompiler.dataOf(insn);
            return data == null ? step : new Step(step.writes, step.followedSlot, step.follow, step.stackDelta,
                    step.access, step.visibleMemory, step.visibleLoad, step.visibleStore, data);
        }
    }

    /** A block compiled for the runs: its instructions' steps, and whether it pushes anything. */
    public static final class Program {
        final int n;
        final Step[] steps;
        final Harness harness;
        final boolean memory; // whether any memory operand is visible (or a stack slot)
        final boolean pushes;
        final boolean divides; // whether an integer divide's values are followed
        private int[][] quotientBits; // per instruction: a divide's quotient bits in the second and third runs
        /** Where instruction i's memory operands start in the numbering of all the block's (n + 1 entries). */
        final int[] firstAccess;
        private long[] addresses; // the runs' result, once: Ivy Bridge's cache banks ask for it after the edges
        private long[] strides;
        // Per memory operand: how far its address moves from the second run to the third (0: it does not, or is
        // not known in both), and where it is in the third.
        long[] moving;
        long[] movingFrom;

        /**
         * Every memory operand's address ({@link HarnessInterpreter#addressesOf}), computed on first use. Not
         * thread-safe.
         */
        long[] addresses() {
            if (addresses == null) {
                strides = new long[firstAccess[n]];
                moving = new long[firstAccess[n]];
                movingFrom = new long[firstAccess[n]];
                addresses = HarnessInterpreter.addressesOf(this, strides);
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
            boolean dividing = false;
            for (Step step : steps) {
                dividing |= step.follow() instanceof HarnessInterpreter.Divide;
            }
            this.divides = dividing;
            this.memory = anyMemory;
            this.firstAccess = new int[n + 1];
            for (int i = 0; i < n; i++) {
                firstAccess[i + 1] = firstAccess[i] + steps[i].access().length;
            }
        }

        /** Records divide {@code i}'s quotient bits (-1: not known) in run {@code run} (1 or 2) of the runs. */
        void divided(int i, int run, int bits) {
            if (run > 2) {
                return;
            }
            if (quotientBits == null) {
                quotientBits = new int[n][];
            }
            if (quotientBits[i] == null) {
                quotientBits[i] = new int[] {-1, -1};
            }
            quotientBits[i][run - 1] = bits;
        }

        /**
         * Per instruction, the significant bits of the quotient an integer divide computes in BHive's harness, the
         * same in every iteration after the first; -1 where not known (not a divide, values not followed, or a
         * quotient that changes between iterations).
         */
        public int[] quotientBits() {
            int[] out = new int[n];
            java.util.Arrays.fill(out, -1);
            if (!divides) {
                return out;
            }
            addresses();
            for (int i = 0; quotientBits != null && i < n; i++) {
                int[] q = quotientBits[i];
                out[i] = q != null && q[0] == q[1] ? q[0] : -1;
            }
            return out;
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

    static boolean overlaps(long a, int as, long b, int bs) {
        return a < b + bs && b < a + as;
    }

    private static boolean contains(long a, int as, long b, int bs) {
        return a <= b && b + bs <= a + as;
    }
}
