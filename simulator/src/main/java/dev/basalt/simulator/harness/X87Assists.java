package dev.basalt.simulator.harness;

import dev.basalt.decoder.BasicBlock;
import dev.basalt.decoder.Instruction;
import dev.basalt.decoder.Operand;
import dev.basalt.decoder.RegisterClass;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The x87 unit's microcode assists in BHive's harness. Intel's x87 unit handles a stack fault, an unnormal operand
 * and a NaN operand of arithmetic in microcode, which flushes the pipeline: each such event costs some 350-400
 * cycles, added to the iteration ({@link CoreParams#x87AssistCycles()}). The harness makes them common: the x87
 * stack starts empty, so a block that reads a register it never loaded underflows; a block that pushes more than it
 * pops overflows once the eight registers are full; memory holds 0x2324000 in every four bytes, which read as an
 * 80-bit number is an unnormal (its explicit integer bit is clear); and a masked fault's result is a NaN, which then
 * flows on. An unrolled block repeats, so this class follows the stack's tags through iterations until they settle
 * and counts the events an iteration.
 *
 * <p>Measured (the training split of {@code datasets/measured/intel-family6-model167}): the 476 blocks holding an
 * x87 instruction run at 409.9 cycles (median) with one event an iteration, 806.8 with two, 1,202.9 with three,
 * 1,606.8 with four; of those with none, 90% run under 23 cycles. BHive's Haswell, Skylake and Ivy Bridge rows of
 * x87 code agree (one event: 326–449 cycles; {@code fldz; test rdi, rdi} 330 on Ivy Bridge, four events 1,278 on
 * Haswell). AMD's Zen 5 shows none: its x87 blocks with events run in tens of cycles.
 *
 * <p>The rules, each read from blocks of that split: a read of an empty register is a stack underflow, except
 * {@code fxch}'s, which fills both registers with NaN and costs an event all the same ({@code fstp st0; fxch st1}
 * at 410, {@code fxch st1} alone at 1: its registers are full after the first iteration); a push onto a full stack
 * is an overflow; arithmetic on an unnormal or a NaN, and an ordered compare ({@code fcomi}) of either, is an
 * invalid operation; {@code fucomi} of a NaN, {@code fabs} and {@code fchs} are not; a store of an unnormal or NaN
 * to an integer is; loading and storing 80 bits is not.
 */
public final class X87Assists {

    private X87Assists() {
    }

    // A register's tag as far as assists go: nothing, an ordinary number, an unnormal, a NaN.
    private static final byte EMPTY = 0;
    private static final byte NUMBER = 1;
    private static final byte UNNORMAL = 2;
    private static final byte NAN = 3;

    /** Iterations followed, and the last of them averaged over (a stack that cycles settles well before). */
    private static final int ITERATIONS = 64;
    private static final int AVERAGED = 16;

    private static final Set<String> NO_STACK = Set.of("fnstsw", "fstsw", "fnstcw", "fstcw", "fldcw", "fwait",
            "wait", "fnclex", "fclex", "fnstenv", "fstenv", "fldenv", "fxam", "fnop", "fdecstp", "fincstp", "ffree",
            "fnsave", "fsave", "frstor", "fsetpm", "fneni", "fndisi");
    private static final Set<String> CONSTANTS = Set.of("fld1", "fldz", "fldpi", "fldl2e", "fldl2t", "fldlg2",
            "fldln2");
    private static final Set<String> STORES = Set.of("fst", "fstp", "fist", "fistp", "fisttp", "fbstp");
    private static final Set<String> COMPARES = Set.of("fcom", "fcomp", "fcompp", "fucom", "fucomp", "fucompp",
            "fcomi", "fcomip", "fucomi", "fucomip", "ftst", "ficom", "ficomp");
    private static final Set<String> POP_ONE_MORE = Set.of("fpatan", "fyl2x", "fyl2xp1");
    private static final Set<String> PUSH_ONE_MORE = Set.of("fptan", "fsincos", "fxtract");

    /** Assists an iteration of {@code block} run over and over from an empty x87 stack (0: no x87 code). */
    public static double perIteration(BasicBlock block) {
        List<Step> steps = new ArrayList<>();
        for (Instruction insn : block.instructions()) {
            if ("X87".equals(insn.isaExtension())) {
                steps.add(Step.of(insn));
            }
        }
        if (steps.isEmpty()) {
            return 0;
        }
        Stack stack = new Stack();
        long counted = 0;
        for (int k = 0; k < ITERATIONS; k++) {
            for (Step s : steps) {
                int events = stack.run(s);
                if (k >= ITERATIONS - AVERAGED) {
                    counted += events;
                }
            }
        }
        return counted / (double) AVERAGED;
    }

    /** One x87 instruction as the stack sees it. */
    private record Step(String mnemonic, int[] reads, int write, boolean wideMemory, boolean memory) {

        static Step of(Instruction insn) {
            List<Integer> reads = new ArrayList<>();
            int write = -1;
            boolean memory = false;
            boolean wide = false;
            for (Operand o : insn.operands()) {
                if (o instanceof Operand.RegisterOperand r && r.register().registerClass() == RegisterClass.X87) {
                    int index = r.register().name().charAt(2) - '0'; // "st0".."st7"
                    if (r.action().readsOldValue()) {
                        reads.add(index);
                    }
                    if (r.action().writes() && write < 0) {
                        write = index;
                    }
                } else if (o instanceof Operand.MemoryOperand m) {
                    memory = true;
                    wide = m.sizeBits() == 80;
                }
            }
            return new Step(insn.mnemonic(), reads.stream().mapToInt(Integer::intValue).toArray(), write, wide,
                    memory);
        }
    }

    /** The eight registers' tags and the top of the stack. */
    private static final class Stack {
        private final byte[] tag = new byte[8];
        private int top;

        private byte get(int i) {
            return tag[(top + i) & 7];
        }

        private void set(int i, byte v) {
            tag[(top + i) & 7] = v;
        }

        private void pop() {
            set(0, EMPTY);
            top = (top + 1) & 7;
        }

        // Pushes v; an overflow (the register below the top full) is an event and pushes a NaN.
        private int push(byte v) {
            top = (top - 1) & 7;
            if (get(0) != EMPTY) {
                set(0, NAN);
                return 1;
            }
            set(0, v);
            return 0;
        }

        /** Runs one instruction; returns its events. */
        int run(Step s) {
            String m = s.mnemonic();
            if (NO_STACK.contains(m)) {
                return 0;
            }
            if (m.equals("fninit") || m.equals("finit")) {
                java.util.Arrays.fill(tag, EMPTY);
                top = 0;
                return 0;
            }
            if (m.equals("ffreep")) {
                pop();
                return 0;
            }
            if (CONSTANTS.contains(m) || m.equals("fild")) {
                return push(NUMBER);
            }
            if (m.equals("fld") || m.equals("fbld")) {
                if (s.memory()) { // harness memory read as 80 bits is an unnormal
                    return push(s.wideMemory() ? UNNORMAL : NUMBER);
                }
                byte v = get(s.reads()[0]);
                int events = v == EMPTY ? 1 : 0;
                return events + push(v == EMPTY ? NAN : v);
            }
            if (m.equals("fxch")) {
                int i = s.reads().length > 0 ? s.reads()[0] : 1;
                byte a = get(0);
                byte b = get(i);
                int events = a == EMPTY || b == EMPTY ? 1 : 0;
                set(0, b == EMPTY ? NAN : b);
                set(i, a == EMPTY ? NAN : a);
                return events;
            }
            if (STORES.contains(m)) {
                byte v = get(0);
                int events = 0;
                if (v == EMPTY) {
                    events = 1;
                    v = NAN;
                } else if (s.memory() && !s.wideMemory() && (v == UNNORMAL || v == NAN && m.startsWith("fi"))) {
                    events = 1; // an invalid operand converted; 80 bits are stored as they are
                }
                if (!s.memory() && s.write() >= 0) {
                    set(s.write(), v);
                }
                if (m.endsWith("p")) {
                    pop();
                }
                return events;
            }
            if (COMPARES.contains(m)) {
                int events = 0;
                for (int i : s.reads()) {
                    byte v = get(i);
                    if (v == EMPTY || v == UNNORMAL || v == NAN && !m.startsWith("fu")) {
                        events = 1;
                    }
                }
                int pops = m.endsWith("pp") ? 2 : m.endsWith("p") ? 1 : 0;
                for (int k = 0; k < pops; k++) {
                    pop();
                }
                return events;
            }
            if (m.equals("fabs") || m.equals("fchs")) {
                if (get(0) == EMPTY) {
                    set(0, NAN);
                    return 1;
                }
                return 0;
            }
            if (m.startsWith("fcmov")) {
                for (int i : s.reads()) {
                    if (get(i) == EMPTY) {
                        set(0, NAN);
                        return 1;
                    }
                }
                return 0;
            }
            // Arithmetic: an empty, unnormal or NaN source is an event and makes a NaN.
            byte out = NUMBER;
            for (int i : s.reads()) {
                if (get(i) != NUMBER) {
                    out = NAN;
                }
            }
            int events = out == NAN ? 1 : 0;
            int dest = s.write() >= 0 ? s.write() : 0;
            set(dest, out);
            if (m.endsWith("p") || POP_ONE_MORE.contains(m)) {
                pop();
            }
            if (PUSH_ONE_MORE.contains(m)) {
                events += push(out);
            }
            return events;
        }
    }
}
