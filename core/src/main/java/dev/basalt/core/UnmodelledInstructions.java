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

    /**
     * What the cost of {@code insn} depends on that no block says, or empty: the number is one case of several.
     * {@code pause} differs by generation (about 10 cycles before Skylake, about 140 from it on), a
     * {@code rep}-prefixed string instruction runs {@code rcx} times over data of any length, a call's callee and a
     * return's caller are not in the block, an indirect branch waits for its target's prediction.
     */
    public static Optional<String> dependence(Instruction insn) {
        String mnemonic = insn.mnemonic();
        String category = insn.category();
        if (mnemonic.equals("pause")) {
            return Optional.of("its latency differs by CPU generation (about 10 cycles before Skylake, about 140 from "
                    + "Skylake on, measured); the table gives one figure");
        }
        if ((insn.has(dev.basalt.decoder.Prefix.REP) || insn.has(dev.basalt.decoder.Prefix.REPE)
                || insn.has(dev.basalt.decoder.Prefix.REPNE)) && category.equals("STRINGOP")) {
            return Optional.of("a repeated string instruction: it runs rcx times (the count, and the data's "
                    + "alignment and length, are only known at run time); the number is for the table's fixed cost");
        }
        boolean indirect = insn.visibleOperands().stream().noneMatch(o -> o instanceof dev.basalt.decoder.Operand
                .ImmediateOperand imm && imm.relative());
        if (category.equals("CALL")) {
            return Optional.of("a call: the callee is not in the block, so only the call's own cost (the return "
                    + "address pushed, the jump" + (indirect ? " to a target read at run time" : "") + ") is counted");
        }
        if (category.equals("RET")) {
            return Optional.of("a return: where it goes comes from the stack; only its own cost is counted (one "
                    + "whose call is not in the block may be mispredicted)");
        }
        if (category.equals("UNCOND_BR") && indirect) {
            return Optional.of("an indirect jump: its cost depends on how well its target is predicted");
        }
        return Optional.empty();
    }

    /**
     * One note per instruction of {@code block} whose cost is not modelled, or depends on what the block does not
     * say ({@link #dependence}), in block order.
     */
    public static List<String> notes(BasicBlock block) {
        List<String> notes = new ArrayList<>();
        for (int i = 0; i < block.size(); i++) {
            Instruction insn = block.instruction(i);
            Optional<String> why = reason(insn);
            if (why.isPresent()) {
                notes.add(note(i, insn, why.get()));
            } else {
                int at = i;
                dependence(insn).ifPresent(d -> notes.add(String.format(Locale.ROOT, "instruction %d (%s) is %s",
                        at, insn.intelSyntax(), d)));
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
