package dev.basalt.core;

import dev.basalt.decoder.BasicBlock;
import dev.basalt.decoder.Instruction;

import java.util.Optional;
import java.util.Set;

/**
 * Whether a CPU has every instruction of a block, from its descriptor's {@link CpuDescriptor#isaExtensions()}:
 * an estimator must not give a number for code the CPU cannot run (AVX-512 on Haswell), only an error naming
 * the instruction and the CPU.
 *
 * <p>Some newer instructions sit in encodings that older CPUs run as something else, so those CPUs run them
 * without fault: {@code TZCNT} and {@code LZCNT} are {@code REP BSF}/{@code REP BSR} to a CPU without them;
 * {@code ENDBR64}, the shadow-stack reads, MPX's {@code BND*} and {@code CLDEMOTE} are in the hint-NOP space
 * ({@code 0F 1A..1E}); {@code PREFETCHW} is a NOP where it is not a prefetch. These are never refused.
 */
public final class IsaSupport {

    private IsaSupport() {
    }

    /** Mnemonics (upper case) that every x86-64 CPU runs, as the instruction or as the older one it decays to. */
    private static final Set<String> RUN_EVERYWHERE = Set.of("TZCNT", "LZCNT", "ENDBR32", "ENDBR64", "RDSSPD",
            "RDSSPQ", "BNDMK", "BNDCL", "BNDCU", "BNDCN", "BNDMOV", "BNDLDX", "BNDSTX", "CLDEMOTE", "PREFETCHW",
            "PREFETCH", "NOP");

    /**
     * The reason {@code cpu} cannot run {@code block} (its first instruction from an extension the CPU lacks),
     * or empty when it can, or when the CPU's extensions are not known.
     */
    public static Optional<String> unsupported(BasicBlock block, Microarchitecture cpu) {
        Set<String> known = cpu.descriptor().isaExtensions();
        if (known.isEmpty()) {
            return Optional.empty();
        }
        for (int k = 0, n = block.size(); k < n; k++) { // indexed: asked per block, and C1 allocates iterators
            Instruction i = block.instruction(k);
            if (!runs(i, known)) {
                return Optional.of(i.form() + " (" + i.decoding().isaExtension() + ", at byte " + i.offset()
                        + ") is not an instruction of " + cpu.llvmName() + " (" + cpu.descriptor().description() + ")");
            }
        }
        return Optional.empty();
    }

    /** Whether {@code cpu} runs {@code insn} (true when the CPU's extensions are not known). */
    public static boolean runs(Instruction insn, Microarchitecture cpu) {
        Set<String> known = cpu.descriptor().isaExtensions();
        return known.isEmpty() || runs(insn, known);
    }

    private static boolean runs(Instruction i, Set<String> known) {
        return known.contains(i.decoding().isaExtension())
                || RUN_EVERYWHERE.contains(i.mnemonic().toUpperCase(java.util.Locale.ROOT));
    }
}
