package dev.basalt.simulator.facts;

import dev.basalt.decoder.Instruction;
import dev.basalt.decoder.Operand;
import dev.basalt.decoder.Visibility;

/**
 * The decoders' limit on instructions that carry an immediate or a displacement field: on Golden Cove and its
 * successors the legacy decoders deliver six instructions a cycle, but at most {@code CoreParams.decodeImmediates}
 * of them with such a field. Measured on the Xeon 6 (BHive's unrolled harness, DESIGN.md §15): four-byte NOPs ({@code
 * nop [rax+0]}, a zero disp8), {@code add rax, 1} and {@code lea rax, [rax+1]} run four a cycle, eight-byte NOPs
 * (disp32) four a cycle too, while one-byte NOPs, {@code xor eax, eax} and {@code mov rcx, rax} (no field) run six
 * a cycle and three-byte {@code inc rax} 5.2. The fetch window, which slides over the code 32 bytes a cycle
 * ({@code CoreParams.slidingFetch}) rather than stepping through aligned windows, explains the rest: nine-byte NOPs
 * at 32 bytes a cycle.
 */
public final class ImmediateFields {

    private ImmediateFields() {
    }

    /** Whether {@code insn}'s encoding holds an immediate or a displacement (a zero {@code disp8} counts). */
    public static boolean has(Instruction insn) {
        if (insn.displacementBits() > 0) {
            return true;
        }
        for (int k = 0, n = insn.operands().size(); k < n; k++) { // indexed: C1 allocates an iterator per loop
            if (insn.operands().get(k) instanceof Operand.ImmediateOperand imm
                    && imm.visibility() == Visibility.EXPLICIT) {
                return true;
            }
        }
        return false;
    }
}
