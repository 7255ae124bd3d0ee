package dev.basalt.decoder;

import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * One decoded x86-64 instruction: where it sits in its block and what its bytes decode to. The accessors
 * below read through to the {@link Decoding}, which instructions with the same bytes share.
 *
 * @param offset   byte offset of the instruction in its block
 * @param decoding what its bytes decode to
 */
public record Instruction(int offset, Decoding decoding) {

    public Instruction {
        if (offset < 0) {
            throw new IllegalArgumentException("offset must be >= 0, got " + offset);
        }
        Objects.requireNonNull(decoding, "decoding");
    }

    /** A copy of the machine code. */
    public byte[] bytes() {
        return decoding.bytes();
    }

    /** Length in bytes. */
    public int length() {
        return decoding.length();
    }

    /** Lower-case Zydis mnemonic without prefixes ({@code movsb}, {@code vaddps}). */
    public String mnemonic() {
        return decoding.mnemonic();
    }

    /** Semantic prefixes ({@code lock}, {@code rep}, ...). */
    public Set<Prefix> prefixes() {
        return decoding.prefixes();
    }

    /** All operands: the visible ones in Intel order, then the hidden ones. */
    public List<Operand> operands() {
        return decoding.operands();
    }

    /** Flags the instruction tests. */
    public FlagSet flagsRead() {
        return decoding.flagsRead();
    }

    /** Flags it modifies, sets, clears or leaves undefined. */
    public FlagSet flagsWritten() {
        return decoding.flagsWritten();
    }

    /** Whether it is a dependency-breaking idiom. */
    public Idiom idiom() {
        return decoding.idiom();
    }

    /** Zydis ISA set ({@code I86}, {@code AVX2}, {@code AVX512F_512}, ...). */
    public String isaSet() {
        return decoding.isaSet();
    }

    /** Zydis ISA extension ({@code BASE}, {@code SSE2}, {@code AVX512EVEX}, ...). */
    public String isaExtension() {
        return decoding.isaExtension();
    }

    /** Zydis instruction category ({@code BINARY}, {@code DATAXFER}, {@code AVX}, ...). */
    public String category() {
        return decoding.category();
    }

    /** Bits of the encoded displacement ({@link Decoding#displacementBits}). */
    public int displacementBits() {
        return decoding.displacementBits();
    }

    /**
     * Whether a visible operand after the first is {@code cl}: the count of a shift or rotate by register, which
     * keeps the flags when it is 0 (so the dependency graph has it read them).
     */
    public boolean countsByCl() {
        return InstructionEffects.shiftsByRegister(decoding);
    }

    /** Instruction-form key such as {@code ADD r64, m64}: see {@link InstructionForms}. */
    public String form() {
        return decoding.form();
    }

    /** The machine code as lower-case hex. */
    public String hex() {
        return HexFormat.of().formatHex(decoding.rawBytes());
    }

    /** The operands that show in Intel syntax, in order. */
    public List<Operand> visibleOperands() {
        return decoding.visibleOperands();
    }

    /** True if the instruction carries the given prefix. */
    public boolean has(Prefix prefix) {
        return prefixes().contains(prefix);
    }

    /**
     * The instruction in Intel syntax, formatted by Zydis ({@code mov rsi, qword ptr [rsp+0x30]}). Formatted on
     * each call: formatting costs about as much as decoding and most callers never print.
     */
    public String intelSyntax() {
        return Zydis.get().format(decoding.rawBytes(), offset);
    }

    @Override
    public String toString() {
        return offset + ": " + hex() + " " + form();
    }
}
