package dev.basalt.measure;

import dev.basalt.decoder.BasicBlock;
import dev.basalt.decoder.DecodeException;
import dev.basalt.decoder.Instruction;
import dev.basalt.decoder.Operand;

import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What of a block may run on the host, decided before anything is executed. A block is refused, with the
 * instruction and the reason, when it holds a system, privileged or I/O instruction, a kernel entry or interrupt
 * ({@code syscall}, {@code int}, {@code int3}), an undefined opcode ({@code ud2}), a transfer of control other than a
 * final direct branch (BHive drops that one; a branch inside is not a basic block), a write of a segment register or
 * the fs/gs base (the harness's own thread state), an instruction that waits ({@code mwait}, {@code umwait}) or that
 * only a supervisor may run,  a constant stack-pointer move that leaves the stack window
 * within two copies (a smaller one only lowers the unroll: {@link Admitted#mostCopies()}), or an instruction of an ISA extension
 * the host's CPUID does not report (a hypervisor may mask AVX-512). Everything else runs in the child, where a fault
 * costs only the child.
 */
final class Admission {

    private Admission() {
    }

    /** How far (bytes) rsp may move from its start over one run of the large unroll. */
    static final long STACK_WINDOW = 1L << 20;
    /** The longest block the harness runs (its request limit, MAX_BLOCK_BYTES in basalt-harness.c). */
    static final int MAX_BYTES = 4096;
    /** The initial stack pointer (the middle of BHive's data page). */
    static final long INITIAL_RSP = 0x2324000L + 2048;

    /** The verdict on a block. */
    sealed interface Verdict permits Admitted, Refused {
    }

    /**
     * A block that may run.
     *
     * @param code             the bytes to run: the block without its final direct branch
     * @param droppedBranch    whether a final branch was dropped
     * @param stackPerCopy     rsp's net move per copy in bytes (push -8, pop +8, sub rsp, 16: -16), 0 when none or
     *                         not a constant
     */
    record Admitted(BasicBlock block, byte[] code, boolean droppedBranch, long stackPerCopy) implements Verdict {

        /** Copies that keep rsp inside the stack window (at least 2; every copy when rsp does not move). */
        int mostCopies() {
            return stackPerCopy == 0 ? Integer.MAX_VALUE : (int) Math.min(Integer.MAX_VALUE,
                    Math.max(2, STACK_WINDOW / Math.abs(stackPerCopy)));
        }
    }

    /** A block refused before execution, and why. */
    record Refused(String reason) implements Verdict {
    }

    // Mnemonics refused whatever their category says, with why.
    private static final Map<String, String> REFUSED = Map.ofEntries(
            Map.entry("wrfsbase", "writes the fs base, which the harness's own thread state uses"),
            Map.entry("wrgsbase", "writes the gs base, which the harness's own thread state uses"),
            Map.entry("rdpmc", "reads a performance counter (it faults unless the kernel allows it)"),
            Map.entry("xsetbv", "is privileged"), Map.entry("xsaves", "is privileged"),
            Map.entry("xsaves64", "is privileged"), Map.entry("xrstors", "is privileged"),
            Map.entry("xrstors64", "is privileged"), Map.entry("cli", "is privileged"),
            Map.entry("sti", "is privileged"), Map.entry("hlt", "is privileged"),
            Map.entry("wrpkru", "changes the protection keys of the harness's own memory"),
            Map.entry("monitor", "arms a wait"), Map.entry("mwait", "waits"), Map.entry("monitorx", "arms a wait"),
            Map.entry("mwaitx", "waits"), Map.entry("umonitor", "arms a wait"), Map.entry("umwait", "waits"),
            Map.entry("tpause", "waits"), Map.entry("xbegin", "starts a transaction (a branch on abort)"),
            Map.entry("xend", "ends a transaction"), Map.entry("xabort", "aborts a transaction"),
            Map.entry("xsusldtrk", "suspends a transaction's load tracking"),
            Map.entry("xresldtrk", "resumes a transaction's load tracking"),
            Map.entry("lfs", "loads a segment register"), Map.entry("lgs", "loads a segment register"),
            Map.entry("lss", "loads a segment register"), Map.entry("enqcmd", "needs a process address space id"),
            Map.entry("enqcmds", "is privileged"), Map.entry("ptwrite", "writes to processor trace"),
            Map.entry("hreset", "is privileged"), Map.entry("loadiwkey", "is privileged"),
            Map.entry("incsspd", "needs shadow stacks"), Map.entry("incsspq", "needs shadow stacks"),
            Map.entry("saveprevssp", "needs shadow stacks"), Map.entry("rstorssp", "needs shadow stacks"),
            Map.entry("wrssd", "needs shadow stacks"), Map.entry("wrssq", "needs shadow stacks"),
            Map.entry("wrussd", "is privileged"), Map.entry("wrussq", "is privileged"),
            Map.entry("setssbsy", "is privileged"), Map.entry("clrssbsy", "is privileged"),
            Map.entry("senduipi", "sends an interrupt"), Map.entry("uiret", "returns from an interrupt"),
            Map.entry("clui", "changes user-interrupt state"), Map.entry("stui", "changes user-interrupt state"),
            Map.entry("testui", "needs user interrupts"), Map.entry("getsec", "is privileged"));

    // Zydis categories refused, with why.
    private static final Map<String, String> REFUSED_CATEGORIES = Map.ofEntries(
            Map.entry("SYSCALL", "enters the kernel"), Map.entry("SYSRET", "returns from the kernel"),
            Map.entry("INTERRUPT", "raises an interrupt"), Map.entry("IO", "does port I/O"),
            Map.entry("IOSTRINGOP", "does port I/O"), Map.entry("VTX", "is a virtualization instruction"),
            Map.entry("SVM", "is a virtualization instruction"), Map.entry("SGX", "is an enclave instruction"),
            Map.entry("CALL", "transfers control (a call)"), Map.entry("RET", "transfers control (a return)"),
            Map.entry("SEGOP", "loads a segment register"), Map.entry("LEGACY", "is a trust-domain instruction"),
            Map.entry("PCONFIG", "is privileged"), Map.entry("UINTR", "needs user interrupts"));

    /** User-mode instructions of Zydis' SYSTEM category that the harness lets run (reads of counters and state). */
    private static final Set<String> SYSTEM_ALLOWED = Set.of("rdtsc", "rdtscp");

    /** The verdict on {@code hex} for {@code host}. */
    static Verdict check(String hex, HostCpu host) {
        BasicBlock block;
        try {
            block = BasicBlock.fromHex(hex);
        } catch (DecodeException e) {
            return new Refused("does not decode: " + e.getMessage());
        }
        if (block.size() == 0) {
            return new Refused("holds no instruction");
        }
        if (block.length() > MAX_BYTES) {
            return new Refused("is " + block.length() + " bytes, longer than the " + MAX_BYTES + " bytes the harness "
                    + "runs as one block");
        }
        int last = block.size() - 1;
        Instruction final_ = block.instruction(last);
        boolean drop = isDirectBranch(final_);
        int end = drop ? last : block.size();
        if (end == 0) {
            return new Refused("nothing to run once its final branch is dropped (BHive drops a block's last branch)");
        }
        long stack = 0;
        boolean stackKnown = true;
        for (int k = 0; k < end; k++) {
            Instruction i = block.instruction(k);
            Optional<String> why = refusal(i, k == last, host);
            if (why.isPresent()) {
                return new Refused(describe(i) + " " + why.get());
            }
            StackMove move = stackMove(i);
            if (move.absolute().isPresent()) {
                long target = move.absolute().get();
                if (Math.abs(target - INITIAL_RSP) > STACK_WINDOW) {
                    return new Refused(describe(i) + " moves rsp to 0x" + Long.toHexString(target)
                            + ", outside the stack window (±" + (STACK_WINDOW >> 10) + " KiB around 0x"
                            + Long.toHexString(INITIAL_RSP) + ")");
                }
                stackKnown = false;
            } else if (move.unknown()) {
                stackKnown = false;
            } else {
                stack += move.bytes();
            }
        }
        if (stackKnown && Math.abs(stack) * 2 > STACK_WINDOW) {
            return new Refused(String.format(Locale.ROOT, "moves rsp by %d bytes a copy: two copies leave the stack "
                    + "window (±%d KiB)", stack, STACK_WINDOW >> 10));
        }
        byte[] code = Arrays.copyOf(block.bytes(), drop ? final_.offset() : block.length());
        return new Admitted(block, code, drop, stackKnown ? stack : 0);
    }

    private static String describe(Instruction i) {
        return "'" + i.intelSyntax() + "' (at byte " + i.offset() + ")";
    }

    private static boolean isDirectBranch(Instruction i) {
        String c = i.category();
        return (c.equals("COND_BR") || c.equals("UNCOND_BR")) && !i.mnemonic().startsWith("x")
                && i.operands().stream().anyMatch(o -> o instanceof Operand.ImmediateOperand imm && imm.relative());
    }

    /** Why {@code i} may not run, or empty. */
    static Optional<String> refusal(Instruction i, boolean isLast, HostCpu host) {
        String m = i.mnemonic();
        String c = i.category();
        if (REFUSED.containsKey(m)) {
            return Optional.of(REFUSED.get(m));
        }
        if (m.startsWith("ud")) {
            return Optional.of("is an undefined opcode (it raises #UD)");
        }
        if (REFUSED_CATEGORIES.containsKey(c)) {
            return Optional.of(REFUSED_CATEGORIES.get(c));
        }
        if (c.equals("SYSTEM") && !SYSTEM_ALLOWED.contains(m)) {
            return Optional.of("is a system or privileged instruction");
        }
        if (c.equals("COND_BR") || c.equals("UNCOND_BR")) {
            return Optional.of(isDirectBranch(i) ? "is a branch before the end of the block (not a basic block)"
                    : "is an indirect or far transfer of control");
        }
        if (writesSegmentRegister(i)) {
            return Optional.of("writes a segment register");
        }
        if (touchesSystemRegister(i)) {
            return Optional.of("accesses a control, debug, test or descriptor-table register (privileged)");
        }
        return Isa.missing(i, host.features());
    }

    private static boolean writesSegmentRegister(Instruction i) {
        for (Operand o : i.operands()) {
            if (o instanceof Operand.RegisterOperand r && (r.action().write() || r.action().conditionalWrite())
                    && r.register().registerClass().name().equals("SEGMENT")) {
                return true;
            }
        }
        return false;
    }

    private static boolean touchesSystemRegister(Instruction i) {
        for (Operand o : i.operands()) {
            if (o instanceof Operand.RegisterOperand r) {
                String c = r.register().registerClass().name();
                if (c.equals("CONTROL") || c.equals("DEBUG") || c.equals("TEST") || c.equals("TABLE")) {
                    return true;
                }
            }
        }
        return false;
    }

    /** rsp's move by one instruction: a number of bytes, an absolute value, or unknown. */
    private record StackMove(long bytes, Optional<Long> absolute, boolean unknown) {
        static final StackMove NONE = new StackMove(0, Optional.empty(), false);
        static final StackMove UNKNOWN = new StackMove(0, Optional.empty(), true);
    }

    private static StackMove stackMove(Instruction i) {
        boolean writes = false;
        for (Operand o : i.operands()) {
            if (o instanceof Operand.RegisterOperand r && r.register().enclosingName().equals("rsp")
                    && (r.action().write() || r.action().conditionalWrite())) {
                writes = true;
            }
        }
        if (!writes) {
            return StackMove.NONE;
        }
        String m = i.mnemonic();
        boolean word = i.bytes().length > 0 && hasOperandSizePrefix(i);
        java.util.List<Operand> visible = i.visibleOperands();
        switch (m) {
            case "push", "pushf", "pushfq" -> {
                return new StackMove(word ? -2 : -8, Optional.empty(), false);
            }
            case "pop", "popf", "popfq" -> {
                return new StackMove(word ? 2 : 8, Optional.empty(), false);
            }
            case "add", "sub" -> {
                if (visible.size() == 2 && visible.get(1) instanceof Operand.ImmediateOperand imm) {
                    return new StackMove(m.equals("add") ? imm.value() : -imm.value(), Optional.empty(), false);
                }
                return StackMove.UNKNOWN;
            }
            case "lea" -> {
                if (visible.size() == 2 && visible.get(1) instanceof Operand.AddressOperand a
                        && a.base().enclosingName().equals("rsp") && !a.index().isPresent()) {
                    return new StackMove(a.displacement(), Optional.empty(), false);
                }
                return StackMove.UNKNOWN;
            }
            case "mov" -> {
                if (visible.size() == 2 && visible.get(1) instanceof Operand.ImmediateOperand imm) {
                    return new StackMove(0, Optional.of(imm.value()), false);
                }
                return StackMove.UNKNOWN;
            }
            case "enter" -> {
                if (!visible.isEmpty() && visible.get(0) instanceof Operand.ImmediateOperand imm) {
                    return new StackMove(-8 - (imm.value() & 0xffff), Optional.empty(), false);
                }
                return StackMove.UNKNOWN;
            }
            default -> {
                return StackMove.UNKNOWN;
            }
        }
    }

    private static boolean hasOperandSizePrefix(Instruction i) {
        byte[] b = i.bytes();
        for (byte x : b) {
            int v = x & 0xff;
            if (v == 0x66) {
                return true;
            }
            if (!(v == 0xf0 || v == 0xf2 || v == 0xf3 || v == 0x2e || v == 0x36 || v == 0x3e || v == 0x26
                    || v == 0x64 || v == 0x65 || v == 0x67)) {
                return false; // past the legacy prefixes
            }
        }
        return false;
    }
}
