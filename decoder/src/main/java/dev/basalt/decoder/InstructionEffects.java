package dev.basalt.decoder;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * What one instruction reads and writes, as the dependency graph counts it (the rules are in the javadoc of
 * {@link DependencyGraph}). Register and flag resources are small int ids (a register's enclosing register
 * id, or one of the flag-group ids below); memory operands are reported through a {@link Sink}.
 */
final class InstructionEffects {

    static final int CL = 2; // Zydis register ids (checked by DependencyGraphTest)
    static final int RSI = 59;
    static final int RDI = 60;
    static final int CF = 300;
    static final int OSZAP = 301;
    static final int DF = 302;
    static final int SYSFLAGS = 303;
    /** Resource ids are below this: register ids (< 300) and the four flag groups. */
    static final int RESOURCE_IDS = 304;
    private static final Resource[] FLAG_RESOURCES = {
        new Resource(Resource.Kind.FLAGS, "CF"), new Resource(Resource.Kind.FLAGS, "OSZAP"),
        new Resource(Resource.Kind.FLAGS, "DF"), new Resource(Resource.Kind.FLAGS, "SYSFLAGS")};
    private static final int OSZAP_BITS = FlagSet.of(CpuFlag.OF, CpuFlag.SF, CpuFlag.ZF, CpuFlag.AF, CpuFlag.PF)
            .bits();
    private static final int SYS_BITS = FlagSet.of(CpuFlag.TF, CpuFlag.IF, CpuFlag.IOPL, CpuFlag.NT, CpuFlag.RF,
            CpuFlag.VM, CpuFlag.AC, CpuFlag.VIF, CpuFlag.VIP, CpuFlag.ID).bits();
    private static final Set<String> SHIFTS = Set.of("shl", "sal", "shr", "sar", "rol", "ror", "rcl", "rcr",
            "shld", "shrd");

    private InstructionEffects() {
    }

    /** Receives the memory operands of an instruction. */
    interface Sink {
        void memory(MemoryAccess access, boolean reads, boolean writes);
    }

    /** The resource with this id (a register or a flag group). */
    static Resource resource(int id) {
        return id >= CF ? FLAG_RESOURCES[id - CF] : RegisterResources.of(id);
    }

    /** Offset of the first read in a {@link #pack packed} effects array. */
    static final int PACKED_HEADER = 3;
    /** Memory operands whose read/write bits fit the packed header; an instruction has at most a few. */
    private static final int MAX_PACKED_MEMORY = 15;

    /**
     * The register and flag effects of an instruction as one array: {@code [number of reads, number of memory
     * operands, their actions (bit 2k: operand k reads, bit 2k+1: it writes), reads..., writes...]}. They do not
     * depend on the memory policy or on the instruction's offset, so instructions with the same bytes share one
     * array.
     */
    static int[] pack(Decoding decoding) {
        IntSet reads = new IntSet();
        IntSet writes = new IntSet();
        compute(decoding, 0, MemoryPolicy.SAME_EXPRESSION, reads, writes, null);
        int memoryOperands = 0;
        int actions = 0;
        List<Operand> operands = decoding.operands();
        for (int k = 0, count = operands.size(); k < count; k++) {
            if (operands.get(k) instanceof Operand.MemoryOperand m) {
                if (memoryOperands < MAX_PACKED_MEMORY) {
                    actions |= (m.action().readsOldValue() ? 1 : 0) << (2 * memoryOperands)
                            | (m.action().writes() ? 2 : 0) << (2 * memoryOperands);
                }
                memoryOperands++;
            }
        }
        return pack(reads, writes, memoryOperands, memoryOperands <= MAX_PACKED_MEMORY ? actions : -1);
    }

    /** Packs effects; {@code actions} is -1 when unknown (then memory is re-read from the operands). */
    static int[] pack(IntSet reads, IntSet writes, int memoryOperands, int actions) {
        int[] e = new int[PACKED_HEADER + reads.size() + writes.size()];
        e[0] = reads.size();
        e[1] = memoryOperands;
        e[2] = actions;
        for (int k = 0; k < reads.size(); k++) {
            e[PACKED_HEADER + k] = reads.get(k);
        }
        for (int k = 0; k < writes.size(); k++) {
            e[PACKED_HEADER + reads.size() + k] = writes.get(k);
        }
        return e;
    }

    /**
     * The memory accesses of an instruction's memory operands under {@link MemoryPolicy#SAME_EXPRESSION}, in
     * operand order, to be shared by every instruction with the same bytes ({@link MemoryAccess#at}; built for
     * offset 0), or null when it has none.
     */
    static MemoryAccess[] memoryTemplates(Decoding decoding) {
        List<MemoryAccess> out = new ArrayList<>(2);
        for (Operand o : decoding.operands()) {
            if (o instanceof Operand.MemoryOperand m) {
                out.add(new MemoryAccess(decoding.length(), m, MemoryPolicy.SAME_EXPRESSION));
            }
        }
        return out.isEmpty() ? null : out.toArray(new MemoryAccess[0]);
    }

    /**
     * Fills {@code reads}/{@code writes} (cleared first) with resource ids and reports memory to the sink (none
     * when it is null).
     */
    static void compute(Decoding insn, int offset, MemoryPolicy policy, IntSet reads, IntSet writes,
                        Sink memory) {
        reads.clear();
        writes.clear();
        boolean idiom = insn.idiom() != Idiom.NONE;
        List<Operand> operands = insn.operands();
        for (int k = 0, count = operands.size(); k < count; k++) {
            Operand o = operands.get(k);
            if (o instanceof Operand.RegisterOperand r) {
                Register reg = r.register();
                if (!RegisterResources.tracked(reg.id())) {
                    continue;
                }
                if (!idiom && (r.action().readsOldValue() || (r.action().writes() && reg.isPartialWrite()))) {
                    reads.add(reg.enclosingId());
                }
                if (r.action().writes()) {
                    writes.add(reg.enclosingId());
                }
            } else if (o instanceof Operand.MemoryOperand m) {
                addressReads(reads, m.segment(), m.base(), m.index());
                if (memory != null) {
                    memory.memory(new MemoryAccess(offset + insn.length(), m, policy),
                            m.action().readsOldValue(), m.action().writes());
                }
            } else if (o instanceof Operand.AddressOperand a) {
                addressReads(reads, a.segment(), a.base(), a.index());
            }
        }
        stringPointers(insn, reads, writes);
        bitScanDestination(insn, reads);
        int flagsRead = insn.flagsRead().bits();
        int flagsWritten = insn.flagsWritten().bits();
        if (flagsWritten != 0 && shiftsByRegister(insn) && SHIFTS.contains(insn.mnemonic())) {
            flagsRead |= flagsWritten;
        }
        if (!idiom) {
            addFlags(reads, flagsRead);
        }
        addFlags(writes, flagsWritten);
    }

    /** Reports only the memory operands (when the register effects are already known). */
    static void memoryOnly(Instruction insn, MemoryPolicy policy, Sink memory) {
        List<Operand> operands = insn.operands();
        for (int k = 0, count = operands.size(); k < count; k++) {
            if (operands.get(k) instanceof Operand.MemoryOperand m) {
                memory.memory(new MemoryAccess(insn.offset() + insn.length(), m, policy),
                        m.action().readsOldValue(), m.action().writes());
            }
        }
    }

    /**
     * String instructions advance their pointer registers. Zydis 4.0 lists that for {@code movs} and
     * {@code stos} but not for {@code cmps}, {@code scas} and {@code lods}; add what is missing.
     */
    private static void stringPointers(Decoding insn, IntSet reads, IntSet writes) {
        if (!insn.category().equals("STRINGOP")) {
            return;
        }
        String m = insn.mnemonic();
        boolean source = m.startsWith("movs") || m.startsWith("cmps") || m.startsWith("lods")
                || m.startsWith("outs");
        boolean destination = m.startsWith("movs") || m.startsWith("cmps") || m.startsWith("stos")
                || m.startsWith("scas") || m.startsWith("ins");
        if (source) {
            reads.add(RSI);
            writes.add(RSI);
        }
        if (destination) {
            reads.add(RDI);
            writes.add(RDI);
        }
    }

    /**
     * {@code bsf} and {@code bsr} leave their destination as it was when the source is zero (AMD documents it,
     * Intel's CPUs do it), so they read it: {@code bsr rax, rsi; add rax, rdi} is a chain (BHive measured 4.02 on
     * Skylake, bsr's 3 and add's 1). Zydis 4.0 lists the destination as written only. {@code tzcnt}/{@code lzcnt}
     * write it always (their false dependency is a CPU's, in its table).
     */
    private static void bitScanDestination(Decoding insn, IntSet reads) {
        String m = insn.mnemonic();
        if ((m.equals("bsf") || m.equals("bsr")) && insn.idiom() == Idiom.NONE
                && insn.operands().get(0) instanceof Operand.RegisterOperand r
                && RegisterResources.tracked(r.register().id())) {
            reads.add(r.register().enclosingId());
        }
    }

    /**
     * Whether the shift count is {@code cl}: a visible operand after the first (the first is the shifted value,
     * which may be {@code cl} itself — {@code shr cl, 4} counts by an immediate and reads no flags).
     */
    static boolean shiftsByRegister(Decoding insn) {
        List<Operand> operands = insn.operands();
        int visible = 0;
        for (int k = 0, count = operands.size(); k < count; k++) {
            Operand o = operands.get(k);
            if (o.visibility() == Visibility.HIDDEN) {
                continue;
            }
            if (visible++ > 0 && o instanceof Operand.RegisterOperand r && r.register().id() == CL) {
                return true;
            }
        }
        return false;
    }

    private static void addFlags(IntSet set, int bits) {
        if ((bits & CpuFlag.CF.mask()) != 0) {
            set.add(CF);
        }
        if ((bits & OSZAP_BITS) != 0) {
            set.add(OSZAP);
        }
        if ((bits & CpuFlag.DF.mask()) != 0) {
            set.add(DF);
        }
        if ((bits & SYS_BITS) != 0) {
            set.add(SYSFLAGS);
        }
    }

    private static void addressReads(IntSet reads, Register segment, Register base, Register index) {
        if (segment.isPresent() && RegisterResources.isFsOrGs(segment.id())) {
            reads.add(segment.id());
        }
        if (RegisterResources.tracked(base.id())) {
            reads.add(base.enclosingId());
        }
        if (RegisterResources.tracked(index.id())) {
            reads.add(index.enclosingId());
        }
    }

    /** A tiny insertion-ordered set of small ints (an instruction touches a handful of resources). */
    static final class IntSet {
        private int[] values = new int[16];
        private int count;

        void clear() {
            count = 0;
        }

        void add(int v) {
            for (int i = 0; i < count; i++) {
                if (values[i] == v) {
                    return;
                }
            }
            if (count == values.length) {
                values = java.util.Arrays.copyOf(values, count * 2);
            }
            values[count++] = v;
        }

        int size() {
            return count;
        }

        int get(int i) {
            return values[i];
        }
    }
}
