package dev.basalt.decoder;

import java.util.AbstractList;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.RandomAccess;

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

    // An edge packed in a long: producer (bits 0-15), consumer (16-31), kind (32-33), loop-carried (34),
    // resource (35-63: a register/flag id below RESOURCE_IDS, or RESOURCE_IDS + index into memory[]).
    // Blocks have at most 16,384 instructions (16 KiB of code), so 16 bits per index suffice.
    private static final int CONSUMER_SHIFT = 16;
    private static final int KIND_SHIFT = 32;
    private static final int LOOP_SHIFT = 34;
    private static final int RESOURCE_SHIFT = 35;
    private static final DependencyKind[] KINDS = DependencyKind.values();

    private final List<Instruction> instructions;
    private final MemoryPolicy policy;
    private final long[] packed;
    private final MemoryAccess[] memory;
    private final List<Dependency> edges = new EdgeList();

    private DependencyGraph(List<Instruction> instructions, MemoryPolicy policy, long[] packed,
                            MemoryAccess[] memory) {
        this.instructions = instructions;
        this.policy = policy;
        this.packed = packed;
        this.memory = memory;
    }

    /**
     * Per-thread working storage, so that building a graph allocates little more than its result: the
     * effects of the block's instructions (flat arrays), the memory accesses of the two unrolled copies, the
     * last writer and readers of every register/flag resource (reset after each graph), and the edge buffer.
     * Static because it is scratch space, never state: nothing in it outlives one call of {@link #of}.
     */
    private static final class Scratch implements InstructionEffects.Sink {
        // Effects of instruction i: register reads regs[readStart[i] .. writeStart[i]), writes
        // regs[writeStart[i] .. readStart[i + 1]); memory accesses mem[memStart[i] .. memStart[i + 1]).
        int[] regs = new int[256];
        int[] readStart = new int[64];
        int[] writeStart = new int[64];
        int[] memStart = new int[64];
        MemoryAccess[] mem = new MemoryAccess[32];
        boolean[] memReads = new boolean[32];
        boolean[] memWrites = new boolean[32];
        int regCount;
        int memCount;
        // Memory accesses in unrolled order: which access, its position, the last write of its address
        // registers before it, and whether this entry is the write (an access can be read and written).
        int[] stampAccess = new int[64];
        int[] stampPosition = new int[64];
        int[] stampVersion = new int[64];
        boolean[] stampWrite = new boolean[64];
        // Stamps chained by expression-hash slot, most recent first, so that an alias search only visits
        // accesses that can have the same address (blocks with hundreds of stores stay linear).
        int[] stampChain = new int[64];
        int[] chainHead = new int[64];
        int chainMask;
        long[] edges = new long[256];
        int edgeCount;
        final int[] lastWriter = new int[InstructionEffects.RESOURCE_IDS];
        final int[][] readers = new int[InstructionEffects.RESOURCE_IDS][4];
        final int[] readerCount = new int[InstructionEffects.RESOURCE_IDS];

        Scratch() {
            Arrays.fill(lastWriter, -1);
        }

        @Override
        public void memory(MemoryAccess access, boolean reads, boolean writes) {
            if (memCount == mem.length) {
                mem = Arrays.copyOf(mem, memCount * 2);
                memReads = Arrays.copyOf(memReads, memCount * 2);
                memWrites = Arrays.copyOf(memWrites, memCount * 2);
            }
            mem[memCount] = access;
            memReads[memCount] = reads;
            memWrites[memCount] = writes;
            memCount++;
        }

        void effects(List<Instruction> instructions, MemoryPolicy policy, boolean inline) {
            int n = instructions.size();
            if (readStart.length < n + 1) {
                readStart = new int[2 * n + 1];
                writeStart = new int[2 * n + 1];
                memStart = new int[2 * n + 1];
            }
            regCount = 0;
            memCount = 0;
            for (int i = 0; i < n; i++) {
                memStart[i] = memCount;
                Instruction insn = instructions.get(i);
                Decoding decoding = insn.decoding();
                int ids = decoding.inlineCount;
                if (ids < 0 || !inline) {
                    slowEffects(i, insn, decoding, policy);
                    continue;
                }
                // Everything from the decoding's own fields: its arrays are further objects, likely cache misses.
                memoryEffects(insn, decoding, policy);
                if (regCount + ids > regs.length) {
                    regs = Arrays.copyOf(regs, 2 * (regCount + ids));
                }
                long w = decoding.inlineIds0;
                for (int k = 0; k < ids; k++) {
                    if (k == Decoding.IDS_PER_LONG) {
                        w = decoding.inlineIds1;
                    }
                    regs[regCount + k] = (int) (w & ((1 << Decoding.ID_BITS) - 1));
                    w >>>= Decoding.ID_BITS;
                }
                readStart[i] = regCount;
                writeStart[i] = regCount + decoding.inlineReads;
                regCount += ids;
            }
            readStart[n] = regCount;
            memStart[n] = memCount;
            int stamps = 0;
            for (int k = 0; k < memCount; k++) {
                stamps += (memReads[k] ? 1 : 0) + (memWrites[k] ? 1 : 0);
            }
            if (stampAccess.length < 2 * stamps) {
                stampAccess = new int[4 * stamps];
                stampPosition = new int[4 * stamps];
                stampVersion = new int[4 * stamps];
                stampWrite = new boolean[4 * stamps];
                stampChain = new int[4 * stamps];
            }
            int slots = Integer.highestOneBit(Math.max(16, 2 * memCount)) << 1;
            if (chainHead.length < slots) {
                chainHead = new int[slots];
            }
            chainMask = slots - 1;
            Arrays.fill(chainHead, 0, slots, -1);
        }

        /** Memory accesses of one instruction: the decoding's shared ones, or made afresh for all-alias. */
        private void memoryEffects(Instruction insn, Decoding decoding, MemoryPolicy policy) {
            int count = decoding.memoryCount;
            if (count == 0) {
                return;
            }
            int bits = decoding.memoryActions;
            if (policy != MemoryPolicy.SAME_EXPRESSION || bits < 0) {
                InstructionEffects.memoryOnly(insn, policy, this);
                return;
            }
            memory(decoding.memory0.at(insn), (bits & 1) != 0, (bits & 2) != 0);
            for (int k = 1; k < count; k++) {
                int b = bits >>> (2 * k);
                memory(decoding.memory[k].at(insn), (b & 1) != 0, (b & 2) != 0);
            }
        }

        /** Effects of instruction {@code i} from its packed array (when they do not fit inline). */
        private void slowEffects(int i, Instruction insn, Decoding decoding, MemoryPolicy policy) {
            memoryEffects(insn, decoding, policy);
            int[] known = decoding.effects;
            int h = InstructionEffects.PACKED_HEADER;
            if (regCount + known.length > regs.length) {
                regs = Arrays.copyOf(regs, 2 * (regCount + known.length));
            }
            readStart[i] = regCount;
            System.arraycopy(known, h, regs, regCount, known.length - h);
            writeStart[i] = regCount + known[0];
            regCount += known.length - h;
        }

        void addEdge(long e) {
            if (edgeCount == edges.length) {
                edges = Arrays.copyOf(edges, edgeCount * 2);
            }
            edges[edgeCount++] = e;
        }

        void reset() {
            // Every resource the walk changed is among the block's register effects.
            for (int k = 0; k < regCount; k++) {
                int r = regs[k];
                lastWriter[r] = -1;
                readerCount[r] = 0;
            }
            edgeCount = 0;
            Arrays.fill(mem, 0, memCount, null);
        }
    }

    private static final ThreadLocal<Scratch> SCRATCH = ThreadLocal.withInitial(Scratch::new);

    /** Builds the graph of the given instructions (in block order) under the given memory policy. */
    public static DependencyGraph of(List<Instruction> instructions, MemoryPolicy policy) {
        return build(instructions instanceof InstructionList l ? l : List.copyOf(instructions), policy);
    }

    /** Builds the graph of an immutable instruction list (a block's own list needs no copy). */
    static DependencyGraph build(List<Instruction> insns, MemoryPolicy policy) {
        return build(insns, policy, true);
    }

    /**
     * {@link #build(List, MemoryPolicy)}, with {@code inlineEffects} false forcing the path for instructions
     * whose effects do not fit a {@link Decoding}'s inline fields (none in BHive; tests compare the two paths).
     */
    static DependencyGraph build(List<Instruction> insns, MemoryPolicy policy, boolean inlineEffects) {
        Objects.requireNonNull(policy, "policy");
        int n = insns.size();
        Scratch sc = SCRATCH.get();
        try {
            sc.effects(insns, policy, inlineEffects);
            int[] lastWriter = sc.lastWriter;
            int stamped = 0;
            for (int p = 0; p < 2 * n; p++) {
                int i = p < n ? p : p - n;
                // Stamp this instruction's memory accesses with the last write of their base and index
                // registers before it: two same-expression accesses name one address only if no write of
                // those registers falls between them.
                int firstStamp = stamped;
                for (int m = sc.memStart[i]; m < sc.memStart[i + 1]; m++) {
                    int version = Math.max(lastWriter[sc.mem[m].baseId()], lastWriter[sc.mem[m].indexId()]);
                    if (sc.memReads[m]) {
                        stamp(sc, stamped++, m, p, version, false);
                    }
                    if (sc.memWrites[m]) {
                        stamp(sc, stamped++, m, p, version, true);
                    }
                }
                if (p < n) {
                    registersFirstCopy(sc, p, i);
                } else {
                    registersSecondCopy(sc, n, p, i);
                }
                // A read depends on the latest aliasing write; a write on the reads since the latest aliasing
                // write, and on that write. This instruction's own accesses are not its producers.
                int memoryEdgesStart = sc.edgeCount;
                for (int s = firstStamp; s < stamped; s++) {
                    boolean write = sc.stampWrite[s];
                    int slot = sc.mem[sc.stampAccess[s]].expressionHash & sc.chainMask;
                    for (int k = sc.chainHead[slot]; k >= 0; k = sc.stampChain[k]) {
                        if (!write && !sc.stampWrite[k] || !aliases(sc, k, s, policy)) {
                            continue;
                        }
                        DependencyKind kind = !write ? DependencyKind.RAW
                                : sc.stampWrite[k] ? DependencyKind.WAW : DependencyKind.WAR;
                        memoryEdge(sc, memoryEdgesStart, n, sc.stampPosition[k], p, kind, sc.stampAccess[s]);
                        if (sc.stampWrite[k]) {
                            break;
                        }
                    }
                }
                for (int s = firstStamp; s < stamped; s++) {
                    int slot = sc.mem[sc.stampAccess[s]].expressionHash & sc.chainMask;
                    sc.stampChain[s] = sc.chainHead[slot];
                    sc.chainHead[slot] = s;
                }
            }
            MemoryAccess[] memory = sc.memCount == 0 ? NO_MEMORY : Arrays.copyOf(sc.mem, sc.memCount);
            return new DependencyGraph(insns, policy, Arrays.copyOf(sc.edges, sc.edgeCount), memory);
        } finally {
            sc.reset();
        }
    }

    private static final MemoryAccess[] NO_MEMORY = {};

    /** Register and flag edges into position {@code p < n} (edges within the iteration), and its state. */
    private static void registersFirstCopy(Scratch sc, int p, int i) {
        int[] regs = sc.regs;
        int[] lastWriter = sc.lastWriter;
        int[][] readers = sc.readers;
        int[] readerCount = sc.readerCount;
        int readEnd = sc.writeStart[i];
        for (int k = sc.readStart[i]; k < readEnd; k++) {
            int r = regs[k];
            if (lastWriter[r] >= 0) {
                sc.addEdge(pack(lastWriter[r], p, DependencyKind.RAW, false, r));
            }
        }
        for (int k = sc.readStart[i]; k < readEnd; k++) {
            int r = regs[k];
            if (readerCount[r] == readers[r].length) {
                readers[r] = Arrays.copyOf(readers[r], readerCount[r] * 2);
            }
            readers[r][readerCount[r]++] = p;
        }
        for (int k = readEnd, end = sc.readStart[i + 1]; k < end; k++) {
            int r = regs[k];
            int[] rs = readers[r];
            for (int q = 0, count = readerCount[r]; q < count; q++) {
                if (rs[q] != p) {
                    sc.addEdge(pack(rs[q], p, DependencyKind.WAR, false, r));
                }
            }
            if (lastWriter[r] >= 0) {
                sc.addEdge(pack(lastWriter[r], p, DependencyKind.WAW, false, r));
            }
            lastWriter[r] = p;
            readerCount[r] = 0;
        }
    }

    /**
     * Register and flag edges into position {@code p >= n}, the second copy: only those from the first copy
     * count (loop-carried), so once a resource is written in the second copy it yields nothing more, and the
     * second copy's readers need not be remembered (they could only produce edges within the second copy).
     */
    private static void registersSecondCopy(Scratch sc, int n, int p, int i) {
        int[] regs = sc.regs;
        int[] lastWriter = sc.lastWriter;
        int consumer = p - n;
        int readEnd = sc.writeStart[i];
        for (int k = sc.readStart[i]; k < readEnd; k++) {
            int r = regs[k];
            int w = lastWriter[r];
            if (w >= 0 && w < n) {
                sc.addEdge(pack(w, consumer, DependencyKind.RAW, true, r));
            }
        }
        for (int k = readEnd, end = sc.readStart[i + 1]; k < end; k++) {
            int r = regs[k];
            int w = lastWriter[r];
            if (w < n) {
                int[] rs = sc.readers[r];
                for (int q = 0, count = sc.readerCount[r]; q < count; q++) {
                    sc.addEdge(pack(rs[q], consumer, DependencyKind.WAR, true, r));
                }
                if (w >= 0) {
                    sc.addEdge(pack(w, consumer, DependencyKind.WAW, true, r));
                }
            }
            lastWriter[r] = p; // still needed: it dates the second copy's address registers
        }
    }

    private static void stamp(Scratch sc, int s, int access, int position, int version, boolean write) {
        sc.stampAccess[s] = access;
        sc.stampPosition[s] = position;
        sc.stampVersion[s] = version;
        sc.stampWrite[s] = write;
    }

    private static long pack(int producer, int consumer, DependencyKind kind, boolean loop, int resource) {
        return producer | (long) consumer << CONSUMER_SHIFT | (long) kind.ordinal() << KIND_SHIFT
                | (loop ? 1L : 0L) << LOOP_SHIFT | (long) resource << RESOURCE_SHIFT;
    }

    /** Memory edges can repeat (two operands of one instruction on one location); keep the first. */
    private static void memoryEdge(Scratch sc, int memoryEdgesStart, int n, int producer, int consumer,
                                   DependencyKind kind, int access) {
        if (consumer >= n && producer >= n) {
            return;
        }
        boolean loop = consumer >= n;
        int resource = InstructionEffects.RESOURCE_IDS + access;
        long e = pack(producer, loop ? consumer - n : consumer, kind, loop, resource);
        for (int k = memoryEdgesStart; k < sc.edgeCount; k++) {
            long other = sc.edges[k];
            if ((other & ((1L << RESOURCE_SHIFT) - 1)) == (e & ((1L << RESOURCE_SHIFT) - 1))
                    && sameResource(sc, other, e)) {
                return;
            }
        }
        sc.addEdge(e);
    }

    private static boolean sameResource(Scratch sc, long a, long b) {
        int ra = (int) (a >>> RESOURCE_SHIFT);
        int rb = (int) (b >>> RESOURCE_SHIFT);
        if (ra < InstructionEffects.RESOURCE_IDS || rb < InstructionEffects.RESOURCE_IDS) {
            return ra == rb;
        }
        MemoryAccess x = sc.mem[ra - InstructionEffects.RESOURCE_IDS];
        MemoryAccess y = sc.mem[rb - InstructionEffects.RESOURCE_IDS];
        return x.policy == MemoryPolicy.ALL_ALIAS || x.sameExpression(y);
    }

    /** Whether stamped access {@code prior} and the later stamped access {@code current} may alias. */
    private static boolean aliases(Scratch sc, int prior, int current, MemoryPolicy policy) {
        if (policy == MemoryPolicy.ALL_ALIAS) {
            return true;
        }
        MemoryAccess a = sc.mem[sc.stampAccess[prior]];
        MemoryAccess b = sc.mem[sc.stampAccess[current]];
        if (!a.sameExpression(b)) {
            return false;
        }
        // RIP-relative: the same absolute address, and code does not move between iterations. Otherwise the
        // base and index must not have been written since (and including) the prior access: its address was
        // computed before its own writes (pop's [rsp], then rsp += 8), the current one's likewise.
        return b.ripRelative || sc.stampVersion[current] < sc.stampPosition[prior];
    }

    private Resource resourceOf(int id) {
        return id < InstructionEffects.RESOURCE_IDS ? InstructionEffects.resource(id)
                : memory[id - InstructionEffects.RESOURCE_IDS].resource();
    }

    /** Number of instructions. */
    public int size() {
        return instructions.size();
    }

    /** The memory policy the graph was built with. */
    public MemoryPolicy memoryPolicy() {
        return policy;
    }

    /**
     * All edges: those within an iteration by consumer, then the loop-carried ones by consumer. The list is
     * a view over a packed array; its {@link Dependency} values are made on access.
     */
    public List<Dependency> edges() {
        return edges;
    }

    /** Number of edges (without materialising them). */
    public int edgeCount() {
        return packed.length;
    }

    // Edge k of edges(), field by field without making a Dependency: for estimators that read every edge of
    // every block (a Dependency each is most of what the analytical bounds allocate).

    /** Edge {@code k}'s producer. */
    public int producer(int k) {
        return (int) (packed[k] & 0xffff);
    }

    /** Edge {@code k}'s consumer. */
    public int consumer(int k) {
        return (int) ((packed[k] >>> CONSUMER_SHIFT) & 0xffff);
    }

    /** Edge {@code k}'s kind. */
    public DependencyKind kind(int k) {
        return KINDS[(int) ((packed[k] >>> KIND_SHIFT) & 3)];
    }

    /** Whether edge {@code k} crosses into the next iteration. */
    public boolean loopCarried(int k) {
        return ((packed[k] >>> LOOP_SHIFT) & 1) != 0;
    }

    /** Edge {@code k}'s resource. */
    public Resource resource(int k) {
        return resourceOf((int) (packed[k] >>> RESOURCE_SHIFT));
    }

    /** Edges of one kind. */
    public List<Dependency> edges(DependencyKind kind) {
        return edges.stream().filter(d -> d.kind() == kind).toList();
    }

    /** Edges into instruction {@code i}. */
    public List<Dependency> incoming(int i) {
        Objects.checkIndex(i, size());
        return edges.stream().filter(d -> d.consumer() == i).toList();
    }

    /** What instruction {@code i} reads (registers by enclosing name, flag groups, memory). */
    public List<Resource> reads(int i) {
        return resources(i, true);
    }

    /** What instruction {@code i} writes. */
    public List<Resource> writes(int i) {
        return resources(i, false);
    }

    private List<Resource> resources(int i, boolean reads) {
        Instruction insn = instructions.get(Objects.checkIndex(i, size()));
        InstructionEffects.IntSet r = new InstructionEffects.IntSet();
        InstructionEffects.IntSet w = new InstructionEffects.IntSet();
        List<Resource> out = new ArrayList<>();
        List<Resource> mem = new ArrayList<>();
        InstructionEffects.compute(insn.decoding(), insn.offset(), policy, r, w, (access, read, write) -> {
            if ((reads ? read : write) && !mem.contains(access.resource())) {
                mem.add(access.resource());
            }
        });
        InstructionEffects.IntSet ids = reads ? r : w;
        for (int k = 0; k < ids.size(); k++) {
            out.add(InstructionEffects.resource(ids.get(k)));
        }
        out.addAll(mem);
        return List.copyOf(out);
    }

    @Override
    public String toString() {
        return edges.toString();
    }

    /** The edges as an immutable random-access list view. */
    private final class EdgeList extends AbstractList<Dependency> implements RandomAccess {
        @Override
        public Dependency get(int index) {
            long e = packed[Objects.checkIndex(index, packed.length)];
            return new Dependency((int) (e & 0xffff), (int) ((e >>> CONSUMER_SHIFT) & 0xffff),
                    KINDS[(int) ((e >>> KIND_SHIFT) & 3)], resourceOf((int) (e >>> RESOURCE_SHIFT)),
                    ((e >>> LOOP_SHIFT) & 1) != 0);
        }

        @Override
        public int size() {
            return packed.length;
        }
    }
}
