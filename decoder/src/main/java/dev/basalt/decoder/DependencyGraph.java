package dev.basalt.decoder;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
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
 * instruction feeding itself). Edges are de-duplicated; those within an iteration come first, ordered by
 * consumer, then the loop-carried ones, ordered by consumer.
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

    private final int size;
    private final MemoryPolicy policy;
    private final List<Dependency> edges;
    private final Effects[] effects;

    private DependencyGraph(int size, MemoryPolicy policy, List<Dependency> edges, Effects[] effects) {
        this.size = size;
        this.policy = policy;
        this.edges = edges;
        this.effects = effects;
    }

    /** Per-thread working arrays, indexed by resource id and reset after each graph (no per-graph allocation). */
    private static final class Scratch {
        final int[] lastWriter = new int[RESOURCE_IDS];
        final int[][] readers = new int[RESOURCE_IDS][4];
        final int[] readerCount = new int[RESOURCE_IDS];
        final int[] touched = new int[RESOURCE_IDS];
        final boolean[] isTouched = new boolean[RESOURCE_IDS];
        final IntSet reads = new IntSet();
        final IntSet writes = new IntSet();
        int touchedCount;

        Scratch() {
            Arrays.fill(lastWriter, -1);
        }

        void touch(int r) {
            if (!isTouched[r]) {
                isTouched[r] = true;
                touched[touchedCount++] = r;
            }
        }

        void reset() {
            for (int k = 0; k < touchedCount; k++) {
                int r = touched[k];
                lastWriter[r] = -1;
                readerCount[r] = 0;
                isTouched[r] = false;
            }
            touchedCount = 0;
        }
    }

    private static final ThreadLocal<Scratch> SCRATCH = ThreadLocal.withInitial(Scratch::new);

    /** Builds the graph of the given instructions (in block order) under the given memory policy. */
    public static DependencyGraph of(List<Instruction> instructions, MemoryPolicy policy) {
        Objects.requireNonNull(policy, "policy");
        int n = instructions.size();
        Effects[] effects = new Effects[n];
        int memoryAccesses = 0;
        Scratch sc = SCRATCH.get();
        for (int i = 0; i < n; i++) {
            effects[i] = Effects.of(instructions.get(i), policy, sc.reads, sc.writes);
            memoryAccesses += effects[i].memoryReads.size() + effects[i].memoryWrites.size();
        }
        List<Dependency> found = new ArrayList<>(10 * n + 4); // BHive averages 8 edges per instruction
        int[] lastWriter = sc.lastWriter;
        int[][] readers = sc.readers;
        int[] readerCount = sc.readerCount;
        MemoryAccess[] memory = new MemoryAccess[2 * memoryAccesses];
        int memoryCount = 0;
        try {
            for (int p = 0; p < 2 * n; p++) {
                Effects e = effects[p % n];
                int consumerStart = found.size();
                int reads = e.memoryReads.size();
                int writes = e.memoryWrites.size();
                // Stamp this instruction's memory accesses with the last write of their base and index
                // registers before it: two same-expression accesses name one address only if no write of
                // those registers falls between them.
                for (int j = 0; j < reads; j++) {
                    memory[memoryCount + j] = e.memoryReads.get(j).at(p, false, lastWriter);
                }
                for (int j = 0; j < writes; j++) {
                    memory[memoryCount + reads + j] = e.memoryWrites.get(j).at(p, true, lastWriter);
                }
                for (int r : e.registerReads) {
                    sc.touch(r);
                    if (lastWriter[r] >= 0) {
                        edge(found, n, lastWriter[r], p, DependencyKind.RAW, r);
                    }
                }
                for (int r : e.registerReads) {
                    if (readerCount[r] == readers[r].length) {
                        readers[r] = Arrays.copyOf(readers[r], readerCount[r] * 2);
                    }
                    readers[r][readerCount[r]++] = p;
                }
                for (int r : e.registerWrites) {
                    sc.touch(r);
                    int[] rs = readers[r];
                    for (int k = 0; k < readerCount[r]; k++) {
                        if (rs[k] != p) {
                            edge(found, n, rs[k], p, DependencyKind.WAR, r);
                        }
                    }
                    if (lastWriter[r] >= 0) {
                        edge(found, n, lastWriter[r], p, DependencyKind.WAW, r);
                    }
                    lastWriter[r] = p;
                    readerCount[r] = 0;
                }
                // A read depends on the latest aliasing write; a write on the reads since the latest aliasing
                // write, and on that write. Accesses of this same instruction are not its producers.
                for (int j = 0; j < reads; j++) {
                    MemoryAccess a = memory[memoryCount + j];
                    for (int k = memoryCount - 1; k >= 0; k--) {
                        MemoryAccess prior = memory[k];
                        if (prior.write && aliases(prior, a, policy)) {
                            memoryEdge(found, consumerStart, n, prior.position, p, DependencyKind.RAW, a.resource());
                            break;
                        }
                    }
                }
                for (int j = 0; j < writes; j++) {
                    MemoryAccess a = memory[memoryCount + reads + j];
                    for (int k = memoryCount - 1; k >= 0; k--) {
                        MemoryAccess prior = memory[k];
                        if (!aliases(prior, a, policy)) {
                            continue;
                        }
                        memoryEdge(found, consumerStart, n, prior.position, p,
                                prior.write ? DependencyKind.WAW : DependencyKind.WAR, a.resource());
                        if (prior.write) {
                            break;
                        }
                    }
                }
                memoryCount += reads + writes;
            }
        } finally {
            sc.reset();
        }
        return new DependencyGraph(n, policy, Collections.unmodifiableList(found), effects);
    }

    private static void edge(List<Dependency> found, int n, int producer, int consumer, DependencyKind kind,
                             int resourceId) {
        if (consumer < n) {
            found.add(new Dependency(producer, consumer, kind, resource(resourceId), false));
        } else if (producer < n) {
            found.add(new Dependency(producer, consumer - n, kind, resource(resourceId), true));
        }
        // Both in the second copy: a repeat of an edge within an iteration.
    }

    /** Memory edges can repeat (two operands of one instruction on one location); keep the first. */
    private static void memoryEdge(List<Dependency> found, int consumerStart, int n, int producer, int consumer,
                                   DependencyKind kind, Resource resource) {
        if (consumer >= n && producer >= n) {
            return;
        }
        boolean loop = consumer >= n;
        Dependency d = new Dependency(producer, loop ? consumer - n : consumer, kind, resource, loop);
        for (int k = consumerStart; k < found.size(); k++) {
            if (found.get(k).equals(d)) {
                return;
            }
        }
        found.add(d);
    }

    /** Whether {@code prior} and the later access {@code current} may touch the same memory. */
    private static boolean aliases(MemoryAccess prior, MemoryAccess current, MemoryPolicy policy) {
        if (policy == MemoryPolicy.ALL_ALIAS) {
            return true;
        }
        if (!prior.sameExpression(current)) {
            return false;
        }
        // RIP-relative: the same absolute address, and code does not move between iterations. Otherwise the
        // base and index must not have been written since (and including) the prior access: its address was
        // computed before its own writes (pop's [rsp], then rsp += 8), the current one's likewise.
        return current.ripRelative || current.addressVersion < prior.position;
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

    /** All edges: those within an iteration by consumer, then the loop-carried ones by consumer. */
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
        return effects[Objects.checkIndex(i, size)].readResources();
    }

    /** What instruction {@code i} writes. */
    public List<Resource> writes(int i) {
        return effects[Objects.checkIndex(i, size)].writeResources();
    }

    @Override
    public String toString() {
        return edges.toString();
    }

    /**
     * A memory read or write of one instruction, with what alias checks need. Accesses compare by their
     * address fields; the {@link Resource} (whose name is the address text) is built only when an edge or a
     * caller needs it.
     */
    private static final class MemoryAccess {
        final Operand.MemoryOperand operand;
        final MemoryPolicy policy;
        /** For RIP-relative operands, the address as an offset from the block start; else unused. */
        final long ripTarget;
        final boolean ripRelative;
        /** Position in the two unrolled copies (-1 until stamped). */
        final int position;
        final boolean write;
        /** Position of the last write of the base or index register before this access (-1: none). */
        final int addressVersion;
        /** The unstamped access this is a copy of (itself when unstamped); holds the cached resource. */
        final MemoryAccess origin;
        private Resource resource;

        MemoryAccess(Instruction insn, Operand.MemoryOperand operand, MemoryPolicy policy) {
            this.operand = operand;
            this.policy = policy;
            this.ripRelative = operand.base().registerClass() == RegisterClass.IP;
            this.ripTarget = ripRelative ? insn.offset() + insn.length() + operand.displacement() : 0;
            this.position = -1;
            this.write = false;
            this.addressVersion = -1;
            this.origin = this;
        }

        private MemoryAccess(MemoryAccess origin, int position, boolean write, int addressVersion) {
            this.operand = origin.operand;
            this.policy = origin.policy;
            this.ripRelative = origin.ripRelative;
            this.ripTarget = origin.ripTarget;
            this.position = position;
            this.write = write;
            this.addressVersion = addressVersion;
            this.origin = origin;
        }

        MemoryAccess at(int p, boolean w, int[] lastWriter) {
            return new MemoryAccess(origin, p, w, Math.max(lastWriter[operand.base().enclosingId()],
                    lastWriter[operand.index().enclosingId()]));
        }

        /** Same address expression (same-expression policy), ignoring register versions. */
        boolean sameExpression(MemoryAccess o) {
            Operand.MemoryOperand a = operand;
            Operand.MemoryOperand b = o.operand;
            if (ripRelative || o.ripRelative) {
                return ripRelative && o.ripRelative && ripTarget == o.ripTarget && a.segment() == b.segment();
            }
            return a.displacement() == b.displacement() && a.base() == b.base() && a.index() == b.index()
                    && a.scale() == b.scale() && segmentOverride(a) == segmentOverride(b);
        }

        Resource resource() {
            MemoryAccess o = origin;
            if (o.resource == null) {
                o.resource = memoryResource(operand, ripTarget, ripRelative, policy);
            }
            return o.resource;
        }
    }

    /** fs or gs when the operand uses one (they change the address); otherwise NONE. */
    private static Register segmentOverride(Operand.MemoryOperand m) {
        String s = m.segment().name();
        return s.equals("fs") || s.equals("gs") ? m.segment() : Register.NONE;
    }

    private static Resource memoryResource(Operand.MemoryOperand m, long ripTarget, boolean rip, MemoryPolicy policy) {
        if (policy == MemoryPolicy.ALL_ALIAS) {
            return Resource.MEMORY;
        }
        if (rip) {
            Register seg = segmentOverride(m);
            String prefix = seg.isPresent() ? seg.name() + ":" : "";
            return new Resource(Resource.Kind.MEMORY, prefix + "[block+0x" + Long.toHexString(ripTarget) + "]");
        }
        return new Resource(Resource.Kind.MEMORY, m.addressText());
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

        static Effects of(Instruction insn, MemoryPolicy policy, IntSet reads, IntSet writes) {
            reads.clear();
            writes.clear();
            List<MemoryAccess> memReads = List.of();
            List<MemoryAccess> memWrites = List.of();
            boolean idiom = insn.idiom() != Idiom.NONE;
            List<Operand> operands = insn.operands();
            for (int k = 0, count = operands.size(); k < count; k++) {
                Operand o = operands.get(k);
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
                    MemoryAccess access = new MemoryAccess(insn, m, policy);
                    if (m.action().readsOldValue()) {
                        memReads = append(memReads, access);
                    }
                    if (m.action().writes()) {
                        memWrites = append(memWrites, access);
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

        private static List<MemoryAccess> append(List<MemoryAccess> list, MemoryAccess a) {
            if (list.isEmpty()) {
                return List.of(a);
            }
            List<MemoryAccess> l = new ArrayList<>(list);
            l.add(a);
            return l;
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
            if (segment.isPresent() && RegisterResources.isFsOrGs(segment.id())) {
                reads.add(segment.id());
            }
            if (tracked(base)) {
                reads.add(base.enclosingId());
            }
            if (tracked(index)) {
                reads.add(index.enclosingId());
            }
        }

        /** See {@link RegisterResources#tracked(int)}. */
        private static boolean tracked(Register r) {
            return RegisterResources.tracked(r.id());
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
                if (!out.contains(a.resource())) {
                    out.add(a.resource());
                }
            }
            return List.copyOf(out);
        }
    }

    /** A tiny insertion-ordered set of small ints (an instruction touches a handful of resources). */
    private static final class IntSet {
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
                values = Arrays.copyOf(values, count * 2);
            }
            values[count++] = v;
        }

        int[] toArray() {
            return Arrays.copyOf(values, count);
        }
    }
}
