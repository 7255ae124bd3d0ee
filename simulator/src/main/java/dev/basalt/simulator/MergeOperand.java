package dev.basalt.simulator;

import dev.basalt.decoder.Instruction;
import dev.basalt.decoder.Operand;

/**
 * A conditional move merges its source into the old value of its destination, and where it takes two micro-ops
 * (before Broadwell: Ivy Bridge and Haswell, latency 2) that old value is read by the second: it is needed a cycle
 * after the first starts, so a chain through the destination ({@code test rdx, rdx; cmovne r12, rdx}) runs at one
 * cycle an iteration, as BHive measured it on both (0.98–1.0; the row's latency gave 2.0), while the flags and the
 * source keep the row's latency. uops.info gives a cmov of latency 2 the same split (operand 1 → 1: 1 cycle, the
 * others 2). On a one-micro-op cmov (Skylake, Zen) nothing changes. This is a source's property, so it is one flag
 * per source ({@link Sources#merge()}); the scheduler and the bounds take it.
 */
public final class MergeOperand {

    private MergeOperand() {
    }

    /**
     * Whether {@code insn} is a conditional move whose destination is {@code register} (an enclosing register name),
     * read only as the value to keep — not also as its source or in its address.
     */
    static boolean isMerge(Instruction insn, String register) {
        if (!insn.mnemonic().startsWith("cmov")) {
            return false;
        }
        var ops = insn.visibleOperands();
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

    /** How many cycles before its producer's result a merge source may be late: all but the last micro-op's cycle. */
    static int early(int operationLatency) {
        return Math.max(0, operationLatency - 1);
    }
}
