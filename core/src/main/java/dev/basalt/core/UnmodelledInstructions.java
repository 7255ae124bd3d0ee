package dev.basalt.core;

import dev.basalt.decoder.BasicBlock;
import dev.basalt.decoder.Instruction;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * Instructions whose cost no estimator of this project models: privileged and system instructions, kernel
 * entries and exits, port I/O, virtualization, undefined opcodes and serializing {@code cpuid}. A block holding
 * one still gets a number (the tables have some row for most of them), but the hardware's cost depends on the
 * operating system, the device or a pipeline flush, and BHive measured none of them; the notes say so, so that
 * a number is never confidently wrong in silence.
 */
public final class UnmodelledInstructions {

    private UnmodelledInstructions() {
    }

    // Zydis' instruction categories that are not modelled, with why.
    private static final Set<String> SYSTEM = Set.of("SYSTEM");
    private static final Set<String> KERNEL = Set.of("SYSCALL", "SYSRET", "INTERRUPT");
    private static final Set<String> IO = Set.of("IO", "IOSTRINGOP");
    private static final Set<String> VIRTUALIZATION = Set.of("VTX", "SVM");
    private static final Set<String> UNDEFINED = Set.of("ud0", "ud1", "ud2");
    private static final Set<String> PRIVILEGED = Set.of("cli", "sti", "iret", "iretd", "iretq", "hlt");

    /** Why {@code insn}'s cost is not modelled, or empty when it is an ordinary instruction. */
    public static Optional<String> reason(Instruction insn) {
        String category = insn.category();
        String mnemonic = insn.mnemonic(); // Zydis spells mnemonics in lower case
        if (UNDEFINED.contains(mnemonic)) {
            return Optional.of("an undefined opcode (it raises #UD)");
        }
        if (mnemonic.equals("cpuid")) {
            return Optional.of("serializing (it drains the pipeline; its cost depends on the leaf asked)");
        }
        if (mnemonic.startsWith("rdtsc") || mnemonic.equals("rdpmc")) {
            return Optional.of("a counter read (its cost is the microcode's, not measured)");
        }
        if (PRIVILEGED.contains(mnemonic) || SYSTEM.contains(category)) {
            return Optional.of("a privileged or system instruction");
        }
        if (KERNEL.contains(category)) {
            return Optional.of("an entry to or exit from the kernel");
        }
        if (IO.contains(category)) {
            return Optional.of("port I/O");
        }
        if (VIRTUALIZATION.contains(category)) {
            return Optional.of("a virtualization instruction");
        }
        return Optional.empty();
    }

    /** One note per instruction of {@code block} whose cost is not modelled, in block order. */
    public static List<String> notes(BasicBlock block) {
        List<String> notes = new ArrayList<>();
        for (int i = 0; i < block.size(); i++) {
            Instruction insn = block.instruction(i);
            Optional<String> why = reason(insn);
            if (why.isPresent()) {
                notes.add(note(i, insn, why.get()));
            }
        }
        return notes;
    }

    /** The note on instruction {@code i} of a block, {@code insn}, not modelled because of {@code why}. */
    public static String note(int i, Instruction insn, String why) {
        return String.format(Locale.ROOT, "instruction %d (%s) is %s: its cost is not modelled, do not trust this "
                + "number", i, insn.intelSyntax(), why);
    }
}
