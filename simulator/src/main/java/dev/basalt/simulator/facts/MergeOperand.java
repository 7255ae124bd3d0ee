package dev.basalt.simulator.facts;

import dev.basalt.decoder.Instruction;
import dev.basalt.decoder.Operand;

/**
 * An instruction that merges a result into the old value of a register reads that old value late, in its last
 * micro-op, so a chain through it is shorter than the row's latency.
 * <ul>
 * <li>A conditional move merges its source into its destination, and where it takes two micro-ops (before
 *     Broadwell: Ivy Bridge and Haswell, latency 2) the old value is read by the second: a chain through the
 *     destination ({@code test rdx, rdx; cmovne r12, rdx}) runs at one cycle an iteration, as BHive measured it on
 *     both (0.98–1.0; the row's latency gave 2.0), while the flags and the source keep the row's latency. uops.info
 *     gives a cmov of latency 2 the same split (operand 1 → 1: 1 cycle, the others 2). On a one-micro-op cmov
 *     (Skylake, Zen) nothing changes.</li>
 * <li>A {@code setcc} of a byte register keeps the rest of it, and the two-micro-op ones ({@code seta}, {@code
 *     setbe}: two flags combined, latency 2) write the byte in the second: {@code cmp edx, r10d; seta al} measured
 *     0.98 on Ivy Bridge, {@code cmp edi, 2; setbe al} 1.03 on Haswell, {@code seta al} alone 0.97 on Skylake —
 *     the row's latency on the chain through {@code al} gave 2.0 on each.</li>
 * <li>An integer-to-FP conversion ({@code cvtsi2sd xmm0, rax}; the VEX forms' first source) writes the low element
 *     and keeps the rest of the old register: the integer crosses to the vector side first, and the old value
 *     joins in the convert micro-op, on the FP adder, whose latency ({@code ADDSD xmm, xmm}'s row) is the chain's.
 *     BHive measured {@code cvtsi2sd xmm0, rax} alone at 2.99 cycles on Haswell and 2.98 on Ivy Bridge (adder 3,
 *     row 4), {@code cvtsi2ss} 2.97–3.0 on Ivy Bridge (row 5), both 3.95–4.0 on Skylake (adder 4, rows 5 and
 *     6); Zen 5, whose rows equal its adder, measured 3.0.</li>
 * </ul>
 * This is a source's property, so it is one flag per source ({@link Sources#merge()}) and per instruction the
 * cycles from the merged value to the result ({@link #cycles}); the scheduler and the bounds take both.
 */
public final class MergeOperand {

    private MergeOperand() {
    }

    /**
     * Whether {@code insn} merges into the old value of {@code register} (an enclosing register name), read only as
     * the value to keep — not also as its source or in its address: a conditional move's destination, a {@code
     * setcc}'s byte register, or the register a conversion from an integer keeps the upper elements of.
     */
    static boolean isMerge(Instruction insn, String register) {
        var ops = insn.visibleOperands();
        if (isConversion(insn)) {
            // SSE: cvtsi2sd xmm, r/m keeps its destination's; VEX: vcvtsi2sd xmm, xmm, r/m its first source's.
            Operand kept = ops.get(ops.size() - 2);
            return kept instanceof Operand.RegisterOperand k && k.register().enclosingName().equals(register);
        }
        if (isSetByte(insn)) {
            return ops.get(0) instanceof Operand.RegisterOperand d && d.register().enclosingName().equals(register);
        }
        if (!insn.mnemonic().startsWith("cmov")) {
            return false;
        }
        if (ops.size() != 2 || !(ops.get(0) instanceof Operand.RegisterOperand d)
                || !d.register().enclosingName().equals(register)) {
            return false;
        }
        Operand src = ops.get(1);
        if (src instanceof Operand.RegisterOperand s) {
            return !s.register().enclosingName().equals(register);
        }
        return src instanceof Operand.MemoryOperand m && !m.base().enclosingName().equals(register)
                && !m.index().enclosingName().equals(register);
    }

    /** Whether {@code insn} sets a byte register from the flags ({@code seta al}), keeping the rest of it. */
    private static boolean isSetByte(Instruction insn) {
        String m = insn.mnemonic();
        return m.startsWith("set") && insn.visibleOperands().size() == 1;
    }

    /** Whether {@code insn} converts an integer to a scalar float or double, merging into a vector register. */
    private static boolean isConversion(Instruction insn) {
        String m = insn.mnemonic();
        int ops = insn.visibleOperands().size();
        return (m.equals("cvtsi2sd") || m.equals("cvtsi2ss")) && ops == 2
                || (m.equals("vcvtsi2sd") || m.equals("vcvtsi2ss")) && ops == 3;
    }

    /**
     * The cycles from the merged value of {@code insn} to its result, when {@code insn} merges ({@link #isMerge}):
     * a conditional move's or a {@code setcc}'s last micro-op, one; a conversion's convert micro-op, {@code
     * adderLatency}.
     */
    static int cycles(Instruction insn, int adderLatency) {
        return isConversion(insn) ? adderLatency : 1;
    }

    /**
     * How many cycles before its producer's result a merge source may be late: an operation of {@code latency}
     * whose merged value takes {@code cycles} to its result.
     */
    public static int early(int latency, int cycles) {
        return Math.max(0, latency - cycles);
    }
}
