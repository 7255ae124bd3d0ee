package dev.basalt.decoder;

import java.util.List;

/**
 * One parsed instruction line of assembly text, in a syntax-neutral form (Intel operand order): what
 * {@link AsmParser} reads and {@link AsmEncoder} turns into an encoder request.
 *
 * @param line       line of the text (from 1)
 * @param column     column of the mnemonic (from 1)
 * @param prefixes   Zydis {@code ZYDIS_ATTRIB_HAS_*} prefix bits written before the mnemonic ({@code lock},
 *                   {@code rep})
 * @param mnemonic   the mnemonic as written, lower case
 * @param operands   the operands, destination first
 * @param suffix     AT&T's size suffix when the mnemonic carried one ({@code "l"} of {@code addl}), else empty
 * @param address    the address of a listing line ({@code objdump -d}), or -1 without an address column
 */
record AsmStatement(int line, int column, long prefixes, String mnemonic, List<Operand> operands, String suffix,
                    long address) {

    AsmStatement {
        operands = List.copyOf(operands);
    }

    /** An operand as written; sizes are in bytes, 0 when the text does not say. */
    sealed interface Operand permits Reg, Mem, Imm, Target {
    }

    record Reg(Register register) implements Operand {
    }

    /** A memory operand; {@code segment} is {@link Register#NONE} without an override. */
    record Mem(Register segment, Register base, Register index, int scale, long displacement, int size)
            implements Operand {

        Mem withSize(int bytes) {
            return new Mem(segment, base, index, scale, displacement, bytes);
        }

        boolean absolute() {
            return !base.isPresent() && !index.isPresent();
        }
    }

    /** An immediate value. */
    record Imm(long value) implements Operand {
    }

    /**
     * A branch target: a number (relative to the next instruction, as llvm-mc prints it, or an absolute address
     * in a listing with an address column) or a label, resolved when the text is laid out.
     */
    record Target(long value, String label, boolean absolute) implements Operand {
    }
}
