package dev.basalt.decoder;

import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * What one x86-64 instruction's bytes decode to, wherever they sit: mnemonic, prefixes, operands, flags, ISA
 * and form. An {@link Instruction} is a position plus a decoding.
 *
 * <p>Why separate: an x86 decoding depends only on the bytes, and real code repeats the same instructions
 * endlessly, so the decoder's per-thread cache hands out one decoding per distinct byte string and a repeated
 * instruction costs one small object. The decoding also carries, precomputed once, the register and flag
 * effects and the memory accesses the {@link DependencyGraph} needs.
 *
 * <p>Immutable and thread-safe; made only by the decoder. Equality is by bytes.
 */
public final class Decoding {

    static final int ID_BITS = 9;
    static final int IDS_PER_LONG = 7;

    private final byte[] bytes;
    private final int hash; // of the bytes: decodings are map keys of every per-instruction cache
    private final int length;
    private final String mnemonic;
    private final Set<Prefix> prefixes;
    private final List<Operand> operands;
    private final List<Operand> visibleOperands; // kept: estimators ask for it per instruction, per block
    private final FlagSet flagsRead;
    private final FlagSet flagsWritten;
    private final Idiom idiom;
    private final String isaSet;
    private final String isaExtension;
    private final String category;
    private final String form;
    private final int displacementBits;
    /** Register and flag effects, packed ({@link InstructionEffects#pack}). */
    final int[] effects;
    /** Memory accesses under {@link MemoryPolicy#SAME_EXPRESSION}, in operand order, or null when none. */
    final MemoryAccess[] memory;
    // The same again, inline, for the dependency graph's hot loop: a block's graph then reads one object per
    // instruction rather than three (each a likely cache miss). Up to 14 resource ids of 9 bits, seven per
    // long, in the order of effects (reads, then writes); inlineCount is -1 when they do not fit.
    final long inlineIds0;
    final long inlineIds1;
    final int inlineCount;
    /** How many of the inline ids are reads. */
    final int inlineReads;
    /** Number of memory operands, and their read/write bits as in {@link InstructionEffects#pack}. */
    final int memoryCount;
    final int memoryActions;
    /** The first memory access (null when none): most instructions have at most one. */
    final MemoryAccess memory0;

    /** Takes ownership of {@code bytes}: the decoder passes a fresh copy and never touches it again. */
    Decoding(byte[] bytes, String mnemonic, Set<Prefix> prefixes, List<Operand> operands, FlagSet flagsRead,
             FlagSet flagsWritten, Idiom idiom, String isaSet, String isaExtension, String category, String form,
             int displacementBits) {
        Objects.requireNonNull(bytes, "bytes");
        if (bytes.length == 0 || bytes.length > 15) {
            throw new IllegalArgumentException("an x86 instruction is 1..15 bytes, got " + bytes.length);
        }
        this.bytes = bytes;
        this.hash = Arrays.hashCode(bytes);
        this.length = bytes.length;
        this.mnemonic = Objects.requireNonNull(mnemonic, "mnemonic");
        this.prefixes = prefixes.isEmpty() ? Set.of() : Set.copyOf(prefixes);
        this.operands = List.copyOf(operands);
        this.visibleOperands = this.operands.stream().filter(o -> o.visibility().isVisible()).toList();
        this.flagsRead = Objects.requireNonNull(flagsRead, "flagsRead");
        this.flagsWritten = Objects.requireNonNull(flagsWritten, "flagsWritten");
        this.idiom = Objects.requireNonNull(idiom, "idiom");
        this.isaSet = Objects.requireNonNull(isaSet, "isaSet");
        this.isaExtension = Objects.requireNonNull(isaExtension, "isaExtension");
        this.category = Objects.requireNonNull(category, "category");
        this.form = Objects.requireNonNull(form, "form");
        this.displacementBits = displacementBits;
        this.effects = InstructionEffects.pack(this);
        this.memory = effects[1] == 0 ? null : InstructionEffects.memoryTemplates(this);
        this.memory0 = memory == null ? null : memory[0];
        int ids = effects.length - InstructionEffects.PACKED_HEADER;
        long w0 = 0;
        long w1 = 0;
        boolean fits = ids <= 2 * IDS_PER_LONG;
        for (int k = 0; k < ids && fits; k++) {
            long id = effects[InstructionEffects.PACKED_HEADER + k];
            fits = id >= 0 && id < (1 << ID_BITS);
            if (k < IDS_PER_LONG) {
                w0 |= id << (ID_BITS * k);
            } else {
                w1 |= id << (ID_BITS * (k - IDS_PER_LONG));
            }
        }
        this.inlineIds0 = w0;
        this.inlineIds1 = w1;
        this.inlineCount = fits ? ids : -1;
        this.inlineReads = effects[0];
        this.memoryCount = effects[1];
        this.memoryActions = effects[2];
    }

    /** A copy of the machine code. */
    public byte[] bytes() {
        return bytes.clone();
    }

    /** The machine code itself, for this package's readers that never modify it. */
    byte[] rawBytes() {
        return bytes;
    }

    /** Length in bytes. */
    public int length() {
        return length;
    }

    /** Lower-case Zydis mnemonic without prefixes ({@code movsb}, {@code vaddps}). */
    public String mnemonic() {
        return mnemonic;
    }

    /** Semantic prefixes ({@code lock}, {@code rep}, ...). */
    public Set<Prefix> prefixes() {
        return prefixes;
    }

    /** All operands: the visible ones in Intel order, then the hidden ones. */
    public List<Operand> operands() {
        return operands;
    }

    /** The operands that show in Intel syntax, in order. */
    public List<Operand> visibleOperands() {
        return visibleOperands;
    }

    /** Flags the instruction tests. */
    public FlagSet flagsRead() {
        return flagsRead;
    }

    /** Flags it modifies, sets, clears or leaves undefined. */
    public FlagSet flagsWritten() {
        return flagsWritten;
    }

    /** Whether it is a dependency-breaking idiom. */
    public Idiom idiom() {
        return idiom;
    }

    /** Zydis ISA set ({@code I86}, {@code AVX2}, {@code AVX512F_512}, ...). */
    public String isaSet() {
        return isaSet;
    }

    /** Zydis ISA extension ({@code BASE}, {@code SSE2}, {@code AVX512EVEX}, ...). */
    public String isaExtension() {
        return isaExtension;
    }

    /** Zydis instruction category ({@code BINARY}, {@code DATAXFER}, {@code AVX}, ...). */
    public String category() {
        return category;
    }

    /** Bits of the encoded displacement (0, 8, 16 or 32; a zero {@code disp8} counts: {@code nop [rax+0]}). */
    public int displacementBits() {
        return displacementBits;
    }

    /** Instruction-form key such as {@code ADD r64, m64}: see {@link InstructionForms}. */
    public String form() {
        return form;
    }

    @Override
    public boolean equals(Object o) {
        return this == o || o instanceof Decoding other && hash == other.hash && Arrays.equals(bytes, other.bytes);
    }

    @Override
    public int hashCode() {
        return hash;
    }

    @Override
    public String toString() {
        return HexFormat.of().formatHex(bytes) + " " + form;
    }
}
