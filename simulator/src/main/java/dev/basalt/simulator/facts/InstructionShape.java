package dev.basalt.simulator.facts;

import dev.basalt.simulator.params.CoreParams;
import dev.basalt.simulator.params.InstructionParams;
import dev.basalt.decoder.Instruction;
import dev.basalt.decoder.Operand;
import dev.basalt.decoder.RegisterClass;
import dev.basalt.decoder.Visibility;

import java.util.List;
import java.util.Set;

/**
 * What the second-generation machine needs to know of one instruction beyond its table row, derived from the
 * decoder (length, prefixes, operands, addressing mode) by the rules of DESIGN.md §11. Each rule is one method,
 * so that it can be read, tested and, where the table states a value ({@link InstructionParams#fusedUops()}),
 * overridden.
 *
 * @param length            bytes
 * @param opcodeOffset      bytes before the opcode byte (legacy prefixes, REX, VEX/EVEX)
 * @param lengthChanging    whether it has a length-changing prefix (66 shrinking an immediate to 16 bits)
 * @param decodeUops        fused micro-ops in the front end (decoders, micro-op queue)
 * @param issueUops         fused micro-ops at the renamer and in the reorder buffer (unlamination adds slots)
 * @param complex           whether only the complex decoder takes it (more than one fused micro-op)
 * @param microcoded        whether the microcode sequencer delivers it
 * @param noPort            whether it executes on no port and waits for nothing (zero idiom, NOP)
 * @param moveRegisterFile  for an eliminable register move: 1 general-purpose, 2 vector; else 0
 * @param decodedAlone      whether no instruction after it is decoded in its cycle ({@link
 *                          CoreParams.PopRspDecoding#COMPLEX_ALONE})
 * @param immediateField    whether its encoding holds an immediate or a displacement ({@link ImmediateFields})
 */
public record InstructionShape(int length, int opcodeOffset, boolean lengthChanging, int decodeUops, int issueUops,
                        boolean complex, boolean microcoded, boolean noPort, int moveRegisterFile,
                        boolean decodedAlone, boolean immediateField) {

    private static final Set<String> VECTOR_MOVES = Set.of("movaps", "movups", "movapd", "movupd", "movdqa",
            "movdqu", "vmovaps", "vmovups", "vmovapd", "vmovupd", "vmovdqa", "vmovdqu");

    /**
     * This shape as the second half of a macro-fused pair: the jump travels in its flag setter's micro-op, so
     * it takes no decoder, no micro-op slot and no port of its own.
     */
    InstructionShape macroFusedTail() {
        return new InstructionShape(length, opcodeOffset, lengthChanging, 0, 0, false, false, true, 0, false,
                false);
    }

    /** The shape of {@code insn}, of {@code unfused} micro-ops, with table row {@code row} on {@code core}. */
    public static InstructionShape of(Instruction insn, InstructionParams row, int unfused, CoreParams core,
                               boolean microFusion, boolean moveElimination) {
        return of(EncodingFacts.of(insn), insn.length(), row, unfused, core, microFusion, moveElimination);
    }

    /** The shape of an instruction of {@code length} bytes whose encoding's facts are {@code e}. */
    public static InstructionShape of(EncodingFacts e, int length, InstructionParams row, int unfused, CoreParams core,
                               boolean microFusion, boolean moveElimination) {
        int fusions = microFusion ? fusions(e.readsMemory(), e.writesMemory(), unfused) : 0;
        int decode = row.fusedUops() != null && microFusion ? row.fusedUops() : unfused - fusions;
        int issue = decode + (fusions > 0 && unlaminated(e.indexedMemory(), e.destructive(), core.unlamination())
                ? fusions : 0);
        CoreParams.PopRspDecoding pop = e.popRsp() ? core.popRspDecoding() : null;
        boolean complexOnly = pop == CoreParams.PopRspDecoding.COMPLEX
                || pop == CoreParams.PopRspDecoding.COMPLEX_ALONE || e.ripComplex() && core.ripRelativeComplex();
        return new InstructionShape(length, e.opcodeOffset(), e.lengthChanging(), decode,
                Math.min(issue, unfused), decode > 1 || complexOnly, decode > core.microcodedAbove(), e.noPort(),
                moveElimination ? e.moveRegisterFile() : 0, pop == CoreParams.PopRspDecoding.COMPLEX_ALONE,
                e.immediateField());
    }

    /**
     * Which instructions get a stack-synchronisation micro-op (DESIGN.md §11, uiCA §4): with the stack engine,
     * push, pop, call and ret change {@code rsp} by an offset the engine keeps; the next instruction that uses
     * {@code rsp} otherwise (as an operand or an address register) first needs a micro-op that adds the offset
     * to the register. The block repeats, so the state at its start is the one at its end.
     */
    static boolean[] stackSyncs(boolean[] stackOp, boolean[] usesStackPointer) {
        int n = stackOp.length;
        boolean[] sync = new boolean[n];
        boolean pending = false;
        for (int pass = 0; pass < 2; pass++) {
            for (int i = 0; i < n; i++) {
                if (stackOp[i]) {
                    pending = true;
                } else if (usesStackPointer[i]) {
                    sync[i] = pending;
                    pending = false;
                }
            }
        }
        return sync;
    }

    /** Whether the instruction writes {@code rsp} as an operand (not through the stack engine). */
    static boolean writesStackPointer(Instruction insn) {
        for (int oi = 0, on = insn.operands().size(); oi < on; oi++) {
            Operand op = insn.operands().get(oi); // indexed: C1 allocates an iterator per loop
            if (op instanceof Operand.RegisterOperand r && r.register().enclosingName().equals("rsp")
                    && (r.action().write() || r.action().conditionalWrite())) {
                return true;
            }
        }
        return false;
    }

    static boolean usesStackPointer(Instruction insn) {
        for (int oi = 0, on = insn.operands().size(); oi < on; oi++) {
            Operand op = insn.operands().get(oi); // indexed: C1 allocates an iterator per loop
            if (op instanceof Operand.RegisterOperand r && r.register().enclosingName().equals("rsp")) {
                return true;
            }
            if (op instanceof Operand.MemoryOperand m && (m.base().enclosingName().equals("rsp")
                    || m.index().enclosingName().equals("rsp"))) {
                return true;
            }
            if (op instanceof Operand.AddressOperand a && (a.base().enclosingName().equals("rsp")
                    || a.index().enclosingName().equals("rsp"))) {
                return true;
            }
        }
        return false;
    }

    /** Whether the instruction is {@code pop rsp} or {@code pop r12}, opcode 5C ({@link CoreParams.PopRspDecoding}). */
    static boolean popRsp(Instruction insn) {
        return insn.mnemonic().equals("pop") && insn.visibleOperands().size() == 1
                && insn.visibleOperands().get(0) instanceof Operand.RegisterOperand r
                && (r.register().enclosingName().equals("rsp") || r.register().enclosingName().equals("r12"));
    }

    /**
     * Whether the instruction has a RIP-relative memory operand (or {@code lea} address) and stores, is a {@code lea}
     * or carries an explicit immediate ({@link CoreParams#ripComplexDecode}).
     */
    static boolean ripComplex(Instruction insn, boolean stores) {
        if (!ripRelative(insn)) {
            return false;
        }
        for (int oi = 0, on = insn.operands().size(); oi < on; oi++) {
            if (insn.operands().get(oi) instanceof Operand.ImmediateOperand imm // indexed: C1 allocates an iterator
                    && imm.visibility() == Visibility.EXPLICIT) {
                return true;
            }
        }
        return stores || insn.mnemonic().equals("lea");
    }

    /** Whether the instruction has a RIP-relative memory operand or {@code lea} address. */
    static boolean ripRelative(Instruction insn) {
        for (int oi = 0, on = insn.operands().size(); oi < on; oi++) {
            Operand op = insn.operands().get(oi); // indexed: C1 allocates an iterator per loop
            if (op instanceof Operand.MemoryOperand m && m.base().enclosingName().equals("rip")
                    || op instanceof Operand.AddressOperand a && a.base().enclosingName().equals("rip")) {
                return true;
            }
        }
        return false;
    }

    /** Whether the instruction is a {@code lea} of three components: base, index and a displacement. */
    static boolean slowLea(Instruction insn) {
        if (!insn.mnemonic().equals("lea")) {
            return false;
        }
        for (int oi = 0, on = insn.operands().size(); oi < on; oi++) {
            Operand op = insn.operands().get(oi); // indexed: C1 allocates an iterator per loop
            if (op instanceof Operand.AddressOperand a) {
                return a.base().isPresent() && a.index().isPresent() && a.displacement() != 0;
            }
        }
        return false;
    }

    /** Memory operands the instruction reads (a read-modify-write operand counts once). */
    public static int loads(Instruction insn) {
        int loads = 0;
        for (int oi = 0, on = insn.operands().size(); oi < on; oi++) {
            Operand op = insn.operands().get(oi); // indexed: C1 allocates an iterator per loop
            if (op instanceof Operand.MemoryOperand m && m.action().readsOldValue()) {
                loads++;
            }
        }
        return loads;
    }

    /** Whether the instruction is a locked read-modify-write: a {@code lock} prefix, or {@code xchg} with memory. */
    static boolean locked(Instruction insn) {
        return (insn.has(dev.basalt.decoder.Prefix.LOCK) || insn.mnemonic().equals("xchg")) && stores(insn)
                && loads(insn) > 0;
    }

    /** Whether the instruction writes memory. */
    public static boolean stores(Instruction insn) {
        for (int oi = 0, on = insn.operands().size(); oi < on; oi++) {
            Operand op = insn.operands().get(oi); // indexed: C1 allocates an iterator per loop
            if (op instanceof Operand.MemoryOperand m && (m.action().write() || m.action().conditionalWrite())) {
                return true;
            }
        }
        return false;
    }

    /**
     * Micro-fusions: a store's address and data micro-ops are one fused micro-op, and so are a load and the
     * operation that uses it (a read-modify-write has both: four unfused micro-ops, two fused).
     */
    private static int fusions(boolean reads, boolean writes, int unfused) {
        int fusions = 0;
        if (writes && unfused >= 2) {
            fusions++;
        }
        if (reads && unfused - fusions >= 2) {
            fusions++;
        }
        return fusions;
    }

    /** Whether the renamer splits a micro-fused instruction again (see {@link CoreParams.Unlamination}). */
    /** Whether the instruction's last memory operand has an index register (what unlamination asks first). */
    static boolean indexedMemory(Instruction insn) {
        Operand.MemoryOperand last = null;
        for (int oi = 0, on = insn.operands().size(); oi < on; oi++) {
            Operand op = insn.operands().get(oi); // indexed: C1 allocates an iterator per loop
            if (op instanceof Operand.MemoryOperand m) {
                last = m;
            }
        }
        return last != null && last.index().isPresent();
    }

    /**
     * Whether the instruction is a destructive register-and-memory form: two visible operands, a register read and
     * written, and a memory source ({@code add rax, [rbx+rcx]}), which the renamer keeps fused.
     */
    static boolean destructive(Instruction insn) {
        List<Operand> visible = insn.visibleOperands();
        return visible.size() == 2 && visible.get(0) instanceof Operand.RegisterOperand r
                && r.action().readsOldValue() && r.action().write() && visible.get(1) instanceof Operand.MemoryOperand;
    }

    /**
     * Whether the renamer splits a micro-fused instruction again (see {@link CoreParams.Unlamination}), from whether
     * its (last) memory operand has an index and whether it is a destructive register-and-memory form.
     */
    private static boolean unlaminated(boolean indexedMemory, boolean destructive, CoreParams.Unlamination rule) {
        if (rule == CoreParams.Unlamination.NONE || !indexedMemory) {
            return false;
        }
        return rule == CoreParams.Unlamination.INDEXED || !destructive;
    }

    /** Bytes before the opcode: legacy prefixes, then REX, or a VEX/EVEX prefix (whose last byte precedes it). */
    static int opcodeOffset(byte[] bytes) {
        int k = 0;
        while (k < bytes.length - 1 && isLegacyPrefix(bytes[k] & 0xff)) {
            k++;
        }
        int b = bytes[k] & 0xff;
        if ((b & 0xf0) == 0x40 && k < bytes.length - 1) {
            return k + 1;
        }
        int vex = b == 0xc5 ? 2 : b == 0xc4 || b == 0x8f ? 3 : b == 0x62 ? 4 : 0;
        return vex > 0 && k + vex < bytes.length ? k + vex : k;
    }

    private static boolean isLegacyPrefix(int b) {
        return b == 0x66 || b == 0x67 || b == 0xf0 || b == 0xf2 || b == 0xf3 || b == 0x2e || b == 0x36 || b == 0x3e
                || b == 0x26 || b == 0x64 || b == 0x65;
    }

    /**
     * A length-changing prefix: an operand-size prefix (66) among the legacy prefixes of an instruction with a
     * 16-bit immediate, which the prefix shrank from 32 bits ({@code add ax, 0x1234}).
     */
    static boolean lengthChanging(Instruction insn) {
        return lengthChanging(insn, insn.bytes());
    }

    static boolean lengthChanging(Instruction insn, byte[] bytes) {
        boolean operandSize = false;
        for (int k = 0; k < bytes.length && isLegacyPrefix(bytes[k] & 0xff); k++) {
            operandSize |= (bytes[k] & 0xff) == 0x66;
        }
        if (!operandSize) {
            return false;
        }
        for (int oi = 0, on = insn.operands().size(); oi < on; oi++) {
            Operand op = insn.operands().get(oi); // indexed: C1 allocates an iterator per loop
            if (op instanceof Operand.ImmediateOperand imm && imm.sizeBits() == 16 && !imm.relative()) {
                return true;
            }
        }
        return false;
    }

    /**
     * Register-to-register moves the renamer can eliminate: {@code mov} of 32- or 64-bit general-purpose
     * registers (1) and whole-register vector moves (2); 0 for anything else.
     */
    public static int moveRegisterFile(Instruction insn) {
        List<Operand> visible = insn.visibleOperands();
        if (visible.size() != 2 || !(visible.get(0) instanceof Operand.RegisterOperand d)
                || !(visible.get(1) instanceof Operand.RegisterOperand s)) {
            return 0;
        }
        RegisterClass dc = d.register().registerClass();
        RegisterClass sc = s.register().registerClass();
        if (insn.mnemonic().equals("mov") && dc == sc && (dc == RegisterClass.GPR32 || dc == RegisterClass.GPR64)) {
            return 1;
        }
        if (VECTOR_MOVES.contains(insn.mnemonic()) && dc == sc && (dc == RegisterClass.XMM || dc == RegisterClass.YMM)) {
            return 2;
        }
        return 0;
    }
}
