package dev.basalt.decoder;

import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * One decoded x86-64 instruction.
 *
 * @param offset       byte offset of the instruction in its block
 * @param bytes        the instruction's machine code (copied in and out)
 * @param mnemonic     lower-case Zydis mnemonic without prefixes ({@code movsb}, {@code vaddps})
 * @param prefixes     semantic prefixes ({@code lock}, {@code rep}, ...)
 * @param operands     all operands: the visible ones in Intel order, then the hidden ones
 * @param flagsRead    flags the instruction tests
 * @param flagsWritten flags it modifies, sets, clears or leaves undefined
 * @param idiom        whether it is a dependency-breaking idiom
 * @param isaSet       Zydis ISA set ({@code I86}, {@code AVX2}, {@code AVX512F_512}, ...)
 * @param isaExtension Zydis ISA extension ({@code BASE}, {@code SSE2}, {@code AVX512EVEX}, ...)
 * @param category     Zydis instruction category ({@code BINARY}, {@code DATAXFER}, {@code AVX}, ...)
 * @param form         instruction-form key such as {@code ADD r64, m64}: see {@link InstructionForms}
 */
public record Instruction(int offset, byte[] bytes, String mnemonic, Set<Prefix> prefixes, List<Operand> operands,
                          FlagSet flagsRead, FlagSet flagsWritten, Idiom idiom, String isaSet, String isaExtension,
                          String category, String form) {

    public Instruction {
        if (offset < 0) {
            throw new IllegalArgumentException("offset must be >= 0, got " + offset);
        }
        Objects.requireNonNull(bytes, "bytes");
        if (bytes.length == 0 || bytes.length > 15) {
            throw new IllegalArgumentException("an x86 instruction is 1..15 bytes, got " + bytes.length);
        }
        bytes = bytes.clone();
        Objects.requireNonNull(mnemonic, "mnemonic");
        prefixes = prefixes.isEmpty() ? Set.of() : Set.copyOf(prefixes);
        operands = List.copyOf(operands);
        Objects.requireNonNull(flagsRead, "flagsRead");
        Objects.requireNonNull(flagsWritten, "flagsWritten");
        Objects.requireNonNull(idiom, "idiom");
        Objects.requireNonNull(isaSet, "isaSet");
        Objects.requireNonNull(isaExtension, "isaExtension");
        Objects.requireNonNull(category, "category");
        Objects.requireNonNull(form, "form");
    }

    /** A copy of the machine code. */
    @Override
    public byte[] bytes() {
        return bytes.clone();
    }

    /** Length in bytes. */
    public int length() {
        return bytes.length;
    }

    /** The machine code as lower-case hex. */
    public String hex() {
        return HexFormat.of().formatHex(bytes);
    }

    /** The operands that show in Intel syntax, in order. */
    public List<Operand> visibleOperands() {
        return operands.stream().filter(o -> o.visibility().isVisible()).toList();
    }

    /** True if the instruction carries the given prefix. */
    public boolean has(Prefix prefix) {
        return prefixes.contains(prefix);
    }

    /**
     * The instruction in Intel syntax, formatted by Zydis ({@code mov rsi, qword ptr [rsp+0x30]}). Formatted on
     * each call: formatting costs about as much as decoding and most callers never print.
     */
    public String intelSyntax() {
        return Zydis.get().format(bytes, offset);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Instruction other && offset == other.offset && Arrays.equals(bytes, other.bytes);
    }

    @Override
    public int hashCode() {
        return 31 * offset + Arrays.hashCode(bytes);
    }

    @Override
    public String toString() {
        return offset + ": " + hex() + " " + form;
    }
}
