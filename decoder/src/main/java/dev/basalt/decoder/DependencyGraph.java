package dev.basalt.decoder;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * The data dependencies of a basic block that runs in a loop.
 *
 * <p><b>What an instruction reads and writes.</b> Registers count by their largest enclosing register
 * ({@code al}, {@code ax}, {@code eax} are all {@code rax}; {@code xmm1} is {@code zmm1}). A write to an 8- or
 * 16-bit general purpose register merges into the old value, so it also reads the register; a 32-bit write
 * zero-extends and reads nothing. A conditional write ({@code cmovcc}) reads the old value too. Memory
 * operands and {@code lea} addresses read their base and index ({@code fs}/{@code gs} segments too; RIP and
 * the default segments are not tracked). Flags are read and written in the groups of
 * {@link Resource.Kind#FLAGS}, from Zydis' per-instruction flag tables; a shift or rotate by {@code cl} also
 * reads the flags it writes, because a zero count leaves them unchanged. Dependency-breaking
 * {@link Idiom}s read nothing. Memory reads and writes are resources under the chosen {@link MemoryPolicy}.
 *
 * <p><b>Edges.</b> Walk two copies of the block in order, keeping for every resource its last writer and
 * the readers since that write. A read gets a RAW edge from the last writer; a write gets WAR edges from the
 * readers since the last write and a WAW edge from the last writer. Edges whose two ends are in the first
 * copy are edges within an iteration; edges from the first copy into the second are loop-carried (the last
 * writer of {@code rax} in iteration <i>i</i> feeding the first reader in <i>i+1</i>, including an
 * instruction feeding itself). Edges are de-duplicated and sorted by consumer, then producer.
 *
 * <p>Immutable and thread-safe.
 */
public final class DependencyGraph {

    private static final int RSI = 59; // Zydis register ids (checked by DependencyGraphTest)
    private static final int RDI = 60;
    private static final int CF = 300;
    private static final int OSZAP = 301;
    private static final int DF = 302;
    private static final int SYSFLAGS = 303;
    private static final int RESOURCE_IDS = 304;
    private static final Resource[] FLAG_RESOURCES = {
        new Resource(Resource.Kind.FLAGS, "CF"), new Resource(Resource.Kind.FLAGS, "OSZAP"),
        new Resource(Resource.Kind.FLAGS, "DF"), new Resource(Resource.Kind.FLAGS, "SYSFLAGS")};
    private static final int OSZAP_BITS = FlagSet.of(CpuFlag.OF, CpuFlag.SF, CpuFlag.ZF, CpuFlag.AF, CpuFlag.PF).bits();
    private static final int SYS_BITS = FlagSet.of(CpuFlag.TF, CpuFlag.IF, CpuFlag.IOPL, CpuFlag.NT, CpuFlag.RF,
            CpuFlag.VM, CpuFlag.AC, CpuFlag.VIF, CpuFlag.VIP, CpuFlag.ID).bits();
    private static final Set<String> SHIFTS = Set.of("shl", "sal", "shr", "sar", "rol", "ror", "rcl", "rcr",
            "shld", "shrd");
    private static final Comparator<Dependency> ORDER = Comparator.comparingInt(Dependency::consumer)
            .thenComparing(Dependency::loopCarried)
            .thenComparingInt(Dependency::producer)
            .thenComparing(Dependency::kind)
            .thenComparing(d -> d.resource().name());

    private final int size;
    private final MemoryPolicy policy;
    private final List<Dependency> edges;
    private final List<List<Resource>> reads;
    private final List<List<Resource>> writes;

    private DependencyGraph(int size, MemoryPolicy policy, List<Dependency> edges, List<List<Resource>> reads,
                            List<List<Resource>> writes) {
        this.size = size;
        this.policy = policy;
        this.edges = edges;
        this.reads = reads;
        this.writes = writes;
    }

    /** Builds the graph of the given instructions (in block order) under the given memory policy. */
    public static DependencyGraph of(List<Instruction> instructions, MemoryPolicy policy) {
        Objects.requireNonNull(policy, "policy");
        int n = instructions.size();
        Effects[] effects = new Effects[n];
        for (int i = 0; i < n; i++) {
            effects[i] = Effects.of(instructions.get(i), policy);
        }
        Set<Dependency> found = new LinkedHashSet<>();
        int[] lastWriter = new int[RESOURCE_IDS];
        Arrays.fill(lastWriter, -1);
        int[][] readers = new int[RESOURCE_IDS][];
        int[] readerCount = new int[RESOURCE_IDS];
        List<MemoryAccess> memory = new ArrayList<>();
        for (int p = 0; p < 2 * n; p++) {
            Effects e = effects[p % n];
            for (int r : e.registerReads) {
                if (lastWriter[r] >= 0) {
                    edge(found, n, lastWriter[r], p, DependencyKind.RAW, resource(r));
                }
            }
            for (int r : e.registerReads) {
                if (readers[r] == null) {
                    readers[r] = new int[4];
                } else if (readerCount[r] == readers[r].length) {
                    readers[r] = Arrays.copyOf(readers[r], readerCount[r] * 2);
                }
                readers[r][readerCount[r]++] = p;
            }
            for (int r : e.registerWrites) {
                for (int k = 0; k < readerCount[r]; k++) {
                    if (readers[r][k] != p) {
                        edge(found, n, readers[r][k], p, DependencyKind.WAR, resource(r));
                    }
                }
                if (lastWriter[r] >= 0) {
                    edge(found, n, lastWriter[r], p, DependencyKind.WAW, resource(r));
                }
                lastWriter[r] = p;
                readerCount[r] = 0;
            }
            for (MemoryAccess a : e.memoryReads) {
                for (int k = memory.size() - 1; k >= 0; k--) {
                    MemoryAccess prior = memory.get(k);
                    if (prior.write && prior.position != p && aliases(prior, a, p, effects, policy)) {
                        edge(found, n, prior.position, p, DependencyKind.RAW, a.resource);
                        break;
                    }
                }
            }
            for (MemoryAccess a : e.memoryReads) {
                memory.add(a.at(p, false));
            }
            for (MemoryAccess a : e.memoryWrites) {
                for (int k = memory.size() - 1; k >= 0; k--) {
                    MemoryAccess prior = memory.get(k);
                    if (prior.position == p || !aliases(prior, a, p, effects, policy)) {
                        continue;
                    }
                    edge(found, n, prior.position, p, prior.write ? DependencyKind.WAW : DependencyKind.WAR,
                            a.resource);
                    if (prior.write) {
                        break;
                    }
                }
            }
            for (MemoryAccess a : e.memoryWrites) {
                memory.add(a.at(p, true));
            }
        }
        List<Dependency> sorted = new ArrayList<>(found);
        sorted.sort(ORDER);
        List<List<Resource>> reads = new ArrayList<>(n);
        List<List<Resource>> writes = new ArrayList<>(n);
        for (Effects e : effects) {
            reads.add(e.readResources());
            writes.add(e.writeResources());
        }
        return new DependencyGraph(n, policy, List.copyOf(sorted), List.copyOf(reads), List.copyOf(writes));
    }

    private static void edge(Set<Dependency> found, int n, int producer, int consumer, DependencyKind kind,
                             Resource resource) {
        if (consumer < n) {
            found.add(new Dependency(producer, consumer, kind, resource, false));
        } else if (producer < n) {
            found.add(new Dependency(producer, consumer - n, kind, resource, true));
        }
        // Both in the second copy: a repeat of an edge within an iteration.
    }

    /** Whether {@code prior} (at its position) and {@code current} (at {@code position}) may alias. */
    private static boolean aliases(MemoryAccess prior, MemoryAccess current, int position, Effects[] effects,
                                   MemoryPolicy policy) {
        if (policy == MemoryPolicy.ALL_ALIAS) {
            return true;
        }
        if (!prior.resource.name().equals(current.resource.name())) {
            return false;
        }
        if (current.ripRelative) {
            return true; // same absolute address, and code does not move between iterations
        }
        // The address is computed before the instruction's own writes, so the prior instruction's writes
        // count (pop's [rsp] then rsp += 8) and the current one's do not.
        int n = effects.length;
        for (int q = prior.position; q < position; q++) {
            int[] w = effects[q % n].registerWrites;
            for (int r : w) {
                if (r == current.baseId || r == current.indexId) {
                    return false;
                }
            }
        }
        return true;
    }

    private static Resource resource(int id) {
        return id >= CF ? FLAG_RESOURCES[id - CF] : RegisterResources.of(id);
    }

    /** Number of instructions. */
    public int size() {
        return size;
    }

    /** The memory policy the graph was built with. */
    public MemoryPolicy memoryPolicy() {
        return policy;
    }

    /** All edges, sorted by consumer then producer. */
    public List<Dependency> edges() {
        return edges;
    }

    /** Edges of one kind. */
    public List<Dependency> edges(DependencyKind kind) {
        return edges.stream().filter(d -> d.kind() == kind).toList();
    }

    /** Edges into instruction {@code i}. */
    public List<Dependency> incoming(int i) {
        return edges.stream().filter(d -> d.consumer() == i).toList();
    }

    /** What instruction {@code i} reads (registers by enclosing name, flag groups, memory). */
    public List<Resource> reads(int i) {
        return reads.get(i);
    }

    /** What instruction {@code i} writes. */
    public List<Resource> writes(int i) {
        return writes.get(i);
    }

    @Override
    public String toString() {
        return edges.toString();
    }

    /** A memory read or write of one instruction, with what alias checks need. */
    private static final class MemoryAccess {
        final Resource resource;
        final int baseId;
        final int indexId;
        final boolean ripRelative;
        final int position;
        final boolean write;

        MemoryAccess(Resource resource, int baseId, int indexId, boolean ripRelative, int position, boolean write) {
            this.resource = resource;
            this.baseId = baseId;
            this.indexId = indexId;
            this.ripRelative = ripRelative;
            this.position = position;
            this.write = write;
        }

        MemoryAccess at(int p, boolean w) {
            return new MemoryAccess(resource, baseId, indexId, ripRelative, p, w);
        }
    }

    /** Resources one instruction reads and writes (register and flag resources as ids). */
    private static final class Effects {
        final int[] registerReads;
        final int[] registerWrites;
        final List<MemoryAccess> memoryReads;
        final List<MemoryAccess> memoryWrites;

        private Effects(int[] registerReads, int[] registerWrites, List<MemoryAccess> memoryReads,
                        List<MemoryAccess> memoryWrites) {
            this.registerReads = registerReads;
            this.registerWrites = registerWrites;
            this.memoryReads = memoryReads;
            this.memoryWrites = memoryWrites;
        }

        static Effects of(Instruction insn, MemoryPolicy policy) {
            IntSet reads = new IntSet();
            IntSet writes = new IntSet();
            List<MemoryAccess> memReads = new ArrayList<>(1);
            List<MemoryAccess> memWrites = new ArrayList<>(1);
            boolean idiom = insn.idiom() != Idiom.NONE;
            for (Operand o : insn.operands()) {
                if (o instanceof Operand.RegisterOperand r) {
                    Register reg = r.register();
                    if (!tracked(reg)) {
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
                    Resource res = memoryResource(insn, m, policy);
                    boolean rip = m.base().registerClass() == RegisterClass.IP;
                    MemoryAccess access = new MemoryAccess(res, m.base().enclosingId(), m.index().enclosingId(),
                            rip, -1, false);
                    if (m.action().readsOldValue()) {
                        memReads.add(access);
                    }
                    if (m.action().writes()) {
                        memWrites.add(access);
                    }
                } else if (o instanceof Operand.AddressOperand a) {
                    addressReads(reads, a.segment(), a.base(), a.index());
                }
            }
            stringPointers(insn, reads, writes);
            int flagsRead = insn.flagsRead().bits();
            int flagsWritten = insn.flagsWritten().bits();
            if (SHIFTS.contains(insn.mnemonic()) && shiftsByRegister(insn)) {
                flagsRead |= flagsWritten;
            }
            if (!idiom) {
                addFlags(reads, flagsRead);
            }
            addFlags(writes, flagsWritten);
            return new Effects(reads.toArray(), writes.toArray(), memReads, memWrites);
        }

        /**
         * String instructions advance their pointer registers. Zydis 4.0 lists that for {@code movs} and
         * {@code stos} but not for {@code cmps}, {@code scas} and {@code lods}; add what is missing.
         */
        private static void stringPointers(Instruction insn, IntSet reads, IntSet writes) {
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

        private static boolean shiftsByRegister(Instruction insn) {
            for (Operand o : insn.operands()) {
                if (o instanceof Operand.RegisterOperand r && r.visibility() != Visibility.HIDDEN
                        && r.register().name().equals("cl")) {
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
            if (segment.isPresent() && (segment.name().equals("fs") || segment.name().equals("gs"))) {
                reads.add(segment.id());
            }
            if (tracked(base)) {
                reads.add(base.enclosingId());
            }
            if (tracked(index)) {
                reads.add(index.enclosingId());
            }
        }

        /**
         * Flags go through the flag tables; RIP changes with every instruction anyway; the x87 status and tag
         * words are bookkeeping that nearly every x87 instruction writes, and tracking them would chain all
         * x87 code into one false WAW sequence.
         */
        private static boolean tracked(Register r) {
            RegisterClass c = r.registerClass();
            return r.isPresent() && c != RegisterClass.FLAGS && c != RegisterClass.IP
                    && !r.name().equals("x87status") && !r.name().equals("x87tag");
        }

        private static Resource memoryResource(Instruction insn, Operand.MemoryOperand m, MemoryPolicy policy) {
            if (policy == MemoryPolicy.ALL_ALIAS) {
                return Resource.MEMORY;
            }
            if (m.base().registerClass() == RegisterClass.IP) {
                long absolute = insn.offset() + insn.length() + m.displacement();
                String seg = m.segment().name();
                String prefix = seg.equals("fs") || seg.equals("gs") ? seg + ":" : "";
                return new Resource(Resource.Kind.MEMORY, prefix + "[block+0x" + Long.toHexString(absolute) + "]");
            }
            return new Resource(Resource.Kind.MEMORY, m.addressText());
        }

        List<Resource> readResources() {
            return resources(registerReads, memoryReads);
        }

        List<Resource> writeResources() {
            return resources(registerWrites, memoryWrites);
        }

        private static List<Resource> resources(int[] ids, List<MemoryAccess> memory) {
            List<Resource> out = new ArrayList<>(ids.length + memory.size());
            for (int id : ids) {
                out.add(resource(id));
            }
            for (MemoryAccess a : memory) {
                if (!out.contains(a.resource)) {
                    out.add(a.resource);
                }
            }
            return List.copyOf(out);
        }
    }

    /** A tiny insertion-ordered set of small ints (an instruction touches a handful of resources). */
    private static final class IntSet {
        private int[] values = new int[8];
        private int count;

        void add(int v) {
            for (int i = 0; i < count; i++) {
                if (values[i] == v) {
                    return;
                }
            }
            if (count == values.length) {
                values = Arrays.copyOf(values, count * 2);
            }
            values[count++] = v;
        }

        int[] toArray() {
            return Arrays.copyOf(values, count);
        }
    }
}
