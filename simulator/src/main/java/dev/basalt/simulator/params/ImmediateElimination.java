package dev.basalt.simulator.params;

import dev.basalt.decoder.Instruction;
import dev.basalt.decoder.Operand;
import dev.basalt.decoder.RegisterClass;

import java.util.ArrayList;
import java.util.List;

/**
 * Rename-time elimination of small immediates: Intel's P-cores since Golden Cove (Alder Lake, Sapphire, Emerald
 * and Granite Rapids, Raptor, Meteor and Arrow Lake) execute a 64-bit {@code add}/{@code sub} of a small
 * immediate, {@code inc}, {@code dec}, {@code lea r64, [r64 + disp]} and {@code mov r64, imm} in the renamer: the
 * destination becomes its source's physical register plus an offset the renamer keeps, with no micro-op executed
 * and no latency, though it takes an allocation slot (DESIGN.md §15, Peter Cordes' description).
 *
 * <p>The offset a register may carry is bounded: an instruction whose new offset would leave {@code [-limit,
 * limit)} executes as usual (one ALU micro-op, its row's latency), and its result carries no offset. On the Xeon 6
 * of the measured data set: {@code add rax, 1} chains at 0.248 cycles (never executed: the front end's four a
 * cycle), {@code add rax, 1023} at 0.503 (every other one executes: the offset would reach 2046), {@code add rax,
 * 1024} at 1.000 (never eliminated), {@code add rax, 127} at 0.308 (one in nine executes); a 32-bit {@code add eax,
 * 1} is never eliminated (1.000). At most {@code perCycle} instructions a cycle are eliminated this way; one that
 * finds them used waits for the next cycle rather than executing: {@code inc rax}, which the decoders deliver six a
 * cycle, chains at 5.2 a cycle (0.192 cycles), where executing every sixth would chain them at 3.
 *
 * <p>Any other write of a register leaves it without an offset; an eliminated register move copies its source's.
 * Consumers of a register with an offset pay nothing here: {@code imul rax, rax; add rax, 1} runs at 2.998 cycles
 * and {@code add rax, rcx; add rax, 1} at 1.001 (the measured exception, a shift count read through an offset,
 * is not modelled).
 *
 * @param perCycle instructions the renamer eliminates this way in one cycle
 * @param limit    offsets lie in {@code [-limit, limit)}
 */
public record ImmediateElimination(int perCycle, int limit) {

    public ImmediateElimination {
        if (perCycle < 1 || limit < 1) {
            throw new IllegalArgumentException("immediate elimination out of range: perCycle " + perCycle
                    + ", limit " + limit);
        }
    }

    /**
     * What an eliminable instruction does to the renamer's offsets: destination register {@code destination} (its
     * number, 0 = rax .. 15 = r15) becomes source {@code source} (-1: none, a constant) plus {@code offset}.
     */
    public record Fold(int destination, int source, long offset) {
    }

    /** The fold {@code insn} is, or null when it is no candidate (another form, 32-bit, a memory operand). */
    public static Fold of(Instruction insn) {
        String m = insn.mnemonic();
        List<Operand> ops = insn.visibleOperands();
        if (ops.isEmpty() || !(ops.get(0) instanceof Operand.RegisterOperand d)) {
            return null;
        }
        int dest = number(d);
        if (dest < 0) {
            return null;
        }
        if (d.register().registerClass() != RegisterClass.GPR64) {
            return null;
        }
        switch (m) {
            case "inc", "dec" -> {
                return ops.size() == 1 ? new Fold(dest, dest, m.equals("inc") ? 1 : -1) : null;
            }
            case "add", "sub" -> {
                if (ops.size() == 2 && ops.get(1) instanceof Operand.ImmediateOperand imm) {
                    return new Fold(dest, dest, m.equals("add") ? imm.value() : -imm.value());
                }
                return null;
            }
            case "mov" -> {
                if (ops.size() == 2 && ops.get(1) instanceof Operand.ImmediateOperand imm) {
                    return new Fold(dest, -1, imm.value());
                }
                return null;
            }
            case "lea" -> {
                if (ops.size() == 2 && ops.get(1) instanceof Operand.AddressOperand a && a.base().isPresent()
                        && !a.index().isPresent() && a.base().registerClass() == RegisterClass.GPR64) {
                    int base = number(a.base().enclosingName());
                    return base < 0 ? null : new Fold(dest, base, a.displacement());
                }
                return null;
            }
            default -> {
                return null;
            }
        }
    }

    /** A 64-bit register move ({@code mov rcx, rax}) as the fold that gives its destination its source's offset. */
    public static Fold move(Instruction insn) {
        List<Operand> ops = insn.visibleOperands();
        if (insn.mnemonic().equals("mov") && ops.size() == 2 && ops.get(0) instanceof Operand.RegisterOperand d
                && ops.get(1) instanceof Operand.RegisterOperand src
                && d.register().registerClass() == RegisterClass.GPR64
                && src.register().registerClass() == RegisterClass.GPR64 && number(d) >= 0 && number(src) >= 0) {
            return new Fold(number(d), number(src), 0);
        }
        return null;
    }

    private static final List<String> GPRS = List.of("rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi", "r8",
            "r9", "r10", "r11", "r12", "r13", "r14", "r15");

    private static int number(Operand.RegisterOperand r) {
        return number(r.register().enclosingName());
    }

    private static int number(String enclosing) {
        return GPRS.indexOf(enclosing);
    }

    /** Each general-purpose register an instruction writes (their numbers), for resetting their offsets. */
    public static int[] writtenRegisters(Instruction insn) {
        int mask = 0;
        for (int k = 0, n = insn.operands().size(); k < n; k++) { // indexed: C1 allocates an iterator per loop
            if (insn.operands().get(k) instanceof Operand.RegisterOperand r
                    && (r.action().write() || r.action().conditionalWrite())) {
                int g = number(r.register().enclosingName());
                if (g >= 0) {
                    mask |= 1 << g;
                }
            }
        }
        int[] out = new int[Integer.bitCount(mask)];
        for (int g = 0, at = 0; g < 16; g++) {
            if ((mask & (1 << g)) != 0) {
                out[at++] = g;
            }
        }
        return out;
    }

    /** Iterations {@link #executedShare} follows a block's offsets at most (two thousand: a drift of 1 overflows). */
    private static final int SHARE_ITERATIONS = 2050;

    /**
     * For the bounds: the share of iterations in which each instruction executes rather than being eliminated, with
     * every elimination slot free (1 for an instruction that is no fold, 0 for one always eliminated). The block's
     * offsets are followed iteration by iteration — the renamer's rule without its per-cycle limit — until they
     * repeat from one iteration to the next, or for {@value #SHARE_ITERATIONS} iterations when they drift
     * ({@code add rax, 127}: one in nine executes).
     */
    public double[] executedShare(Fold[] fold, Fold[] move, int[][] writes) {
        int n = fold.length;
        double[] share = new double[n];
        if (java.util.Arrays.stream(fold).allMatch(java.util.Objects::isNull)) {
            java.util.Arrays.fill(share, 1); // nothing to eliminate: every instruction executes
            return share;
        }
        Renaming r = new Renaming(new ImmediateElimination(Integer.MAX_VALUE, limit));
        int[] executed = new int[n];
        long[] before = new long[16];
        int counted = 0;
        // Each iteration's offsets at its start, and what executed in it: the offsets decide the iteration, so
        // once they recur the iterations repeat, and the rest of the run is summed in closed form (integer sums,
        // exact in doubles: the same numbers as running them).
        java.util.Map<Offsets, Integer> seen = new java.util.HashMap<>();
        List<int[]> history = new ArrayList<>();
        for (int it = 0; it < SHARE_ITERATIONS; it++) {
            System.arraycopy(r.offset, 0, before, 0, 16);
            Integer first = seen.putIfAbsent(new Offsets(before.clone()), it);
            if (first != null && it - first >= 2) {
                int period = it - first;
                for (int k = it; k < SHARE_ITERATIONS; k++) {
                    int[] e = history.get(first + (k - first) % period);
                    counted++;
                    for (int i = 0; i < n; i++) {
                        share[i] += e[i];
                    }
                }
                break;
            }
            java.util.Arrays.fill(executed, 0);
            for (int i = 0; i < n; i++) {
                if (fold[i] != null) {
                    if (!r.eliminate(fold[i], it)) {
                        executed[i]++;
                    }
                } else if (move[i] != null) {
                    r.moved(move[i]);
                } else {
                    r.wrote(writes[i]);
                }
            }
            history.add(executed.clone());
            if (it >= 1) { // the first iteration starts from no offsets, the harness's state
                counted++;
                for (int i = 0; i < n; i++) {
                    share[i] += executed[i];
                }
            }
            if (it >= 1 && java.util.Arrays.equals(before, r.offset)) {
                // The offsets repeat each iteration: so does what executes in it.
                for (int i = 0; i < n; i++) {
                    share[i] = executed[i];
                }
                counted = 1;
                break;
            }
        }
        for (int i = 0; i < n; i++) {
            share[i] = fold[i] == null ? 1 : share[i] / Math.max(1, counted);
        }
        return share;
    }

    /** Registers' offsets at the start of an iteration, compared by value. */
    private record Offsets(long[] values) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Offsets other && java.util.Arrays.equals(values, other.values);
        }

        @Override
        public int hashCode() {
            return java.util.Arrays.hashCode(values);
        }
    }

    /**
     * The renamer's side of one run: each register's offset, and the eliminations of the current cycle. Asked in
     * program order, as the renamer renames.
     */
    public static final class Renaming {
        private final ImmediateElimination rule;
        private final long[] offset = new long[16];
        private long cycle = -1;
        private int used;

        public Renaming(ImmediateElimination rule) {
            this.rule = rule;
        }

        /**
         * Whether {@code fold}, renamed at cycle {@code now}, is eliminated (and its offset taken): its new offset
         * in range and a slot of this cycle free.
         */
        public boolean eliminate(Fold fold, long now) {
            long base = fold.source() < 0 ? 0 : offset[fold.source()];
            long next = base + fold.offset();
            if (now != cycle) {
                cycle = now;
                used = 0;
            }
            if (next < -rule.limit() || next >= rule.limit() || used >= rule.perCycle()) {
                offset[fold.destination()] = 0;
                return false;
            }
            used++;
            offset[fold.destination()] = next;
            return true;
        }

        /**
         * Whether {@code fold} would be eliminated but this cycle's slots are used: the renamer waits for the next
         * cycle rather than executing it.
         */
        public boolean waits(Fold fold, long now) {
            long base = fold.source() < 0 ? 0 : offset[fold.source()];
            long next = base + fold.offset();
            return next >= -rule.limit() && next < rule.limit() && now == cycle && used >= rule.perCycle();
        }

        /** An eliminated register move: its destination carries its source's offset. */
        public void moved(Fold move) {
            offset[move.destination()] = offset[move.source()];
        }

        /** An instruction that executed wrote {@code registers}: their values carry no offset. */
        public void wrote(int[] registers) {
            for (int r : registers) {
                offset[r] = 0;
            }
        }
    }
}
