package dev.basalt.decoder;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * The basic blocks and loops of a stretch of machine code (a function): decoded front to back, cut into blocks at
 * branch targets, after every branch, call and return, and where undecodable bytes interrupt the code; a loop is
 * a back edge, a branch to a block at or before its own that does not span the start of another function (the
 * target of a direct call).
 *
 * <p>A loop's blocks are those between its header and the block of its back edge that the header reaches and that
 * reach the back edge, in address order: the natural loop of structured code, without a dominator analysis (code
 * that jumps into the middle of a loop from outside is not told apart).
 */
public final class ControlFlow {

    /** Largest block, in instructions: longer straight-line code is cut (a model's cost grows with the block). */
    public static final int MAX_BLOCK_INSTRUCTIONS = 1000;

    /**
     * The most blocks a back edge may span to be analyzed as a loop: a range of thousands of blocks (a generated
     * recognizer's dispatch loop in gcc's cc1) is no loop whose cycles per iteration say anything, and finding its
     * body costs time that grows with the range for each such edge.
     */
    static final int MAX_LOOP_BLOCKS = 4096;

    private static final Set<String> ENDS_BLOCK = Set.of("COND_BR", "UNCOND_BR", "CALL", "RET", "SYSCALL",
            "INTERRUPT", "SYSTEM");

    /**
     * One basic block.
     *
     * @param address   its first instruction's address
     * @param block     its instructions
     * @param target    where its last instruction branches to (a direct jump or conditional branch), or -1
     */
    public record Block(long address, BasicBlock block, long target) {

        /** True when its last instruction branches back to this block's start: it is a loop by itself. */
        public boolean isSelfLoop() {
            return target == address;
        }
    }

    /**
     * One loop: a back edge from the block at {@code latch} to the block at {@code header}, the blocks between
     * them, and whether it is innermost (no other loop lies within it).
     */
    public record Loop(long header, long latch, List<Block> blocks, boolean innermost) {

        public Loop {
            blocks = List.copyOf(blocks);
        }

        private boolean contains(Loop other) {
            return other != this && header <= other.header && other.latch <= latch
                    && (header != other.header || latch != other.latch);
        }

        /** Instructions in its blocks. */
        public int instructions() {
            return blocks.stream().mapToInt(b -> b.block().size()).sum();
        }
    }

    private final List<Block> blocks;
    private final List<Loop> loops;
    private final long instructions;
    private final long skippedBytes;

    private ControlFlow(List<Block> blocks, List<Loop> loops, long instructions, long skippedBytes) {
        this.blocks = List.copyOf(blocks);
        this.loops = List.copyOf(loops);
        this.instructions = instructions;
        this.skippedBytes = skippedBytes;
    }

    /** The blocks and loops of {@code code}, which starts at {@code address}. */
    public static ControlFlow of(byte[] code, long address) {
        return of(code, address, java.util.Set.of());
    }

    /**
     * The blocks and loops of {@code code}, which starts at {@code address}, where functions are also known to
     * start at {@code functionStarts} (absolute addresses; a stripped library's exported symbols).
     */
    public static ControlFlow of(byte[] code, long address, java.util.Set<Long> functionStarts) {
        return of(code, address, functionStarts, java.util.Set.of());
    }

    /**
     * As {@link #of(byte[], long, Set)}, with blocks also starting at {@code leaders} (offsets in {@code code}):
     * where a text says a block starts although no branch does (a blank line between hand-written blocks, an
     * llvm-mca region's bounds).
     */
    public static ControlFlow of(byte[] code, long address, java.util.Set<Long> functionStarts,
                                 java.util.Set<Integer> leadersToo) {
        List<Instruction> insns = new ArrayList<>();
        CodeScan.Result scan = CodeScan.linear(code, 0, code.length, insns::add);
        TreeSet<Integer> leaders = new TreeSet<>(leadersToo);
        Set<Integer> starts = new java.util.HashSet<>();
        for (Instruction i : insns) {
            starts.add(i.offset());
        }
        // Direct call targets start functions: a back edge never spans one (what keeps a stripped .text, analyzed
        // whole, from looking like one loop around everything).
        // Only the starts inside this code matter: a navigable set (ElfCode's) gives them without a pass over all
        // of a large program's starts for each of its functions.
        java.util.Collection<Long> inside = functionStarts instanceof java.util.NavigableSet<Long> sorted
                ? sorted.subSet(address, true, address + code.length, false) : functionStarts;
        TreeSet<Long> entries = new TreeSet<>(inside);
        for (long start : inside) {
            if (start > address && start - address < code.length) {
                leaders.add((int) (start - address));
            }
        }
        int expected = 0;
        for (Instruction i : insns) {
            // (a call to the next instruction is an object file's unrelocated call, or a get-PC idiom: no entry)
            if (i.category().equals("CALL") && target(i) >= 0 && target(i) != i.offset() + i.length()) {
                entries.add(address + target(i));
            }
            if (i.offset() != expected) {
                leaders.add(i.offset());  // after bytes that did not decode
            }
            expected = i.offset() + i.length();
            if (endsBlock(i)) {
                leaders.add(expected);
                long t = target(i);
                if (t >= 0 && t < code.length && starts.contains((int) t)) {
                    leaders.add((int) t);
                }
            }
        }
        if (!insns.isEmpty()) {
            leaders.add(insns.get(0).offset());
        }
        List<Block> blocks = new ArrayList<>();
        List<Instruction> current = new ArrayList<>();
        for (int k = 0; k < insns.size(); k++) {
            Instruction i = insns.get(k);
            if (!current.isEmpty() && (leaders.contains(i.offset()) || current.size() >= MAX_BLOCK_INSTRUCTIONS)) {
                blocks.add(block(code, address, current));
                current.clear();
            }
            current.add(i);
        }
        if (!current.isEmpty()) {
            blocks.add(block(code, address, current));
        }
        // Whether each block runs on into the next (not after a jump or a return).
        boolean[] fallsThrough = new boolean[blocks.size()];
        {
            int k = 0;
            for (int b = 0; b < blocks.size(); b++) {
                Block block = blocks.get(b);
                Instruction last = insns.get(k + block.block().size() - 1);
                k += block.block().size();
                String c = last.category();
                fallsThrough[b] = !c.equals("UNCOND_BR") && !c.equals("RET");
            }
        }
        List<Loop> loops = new ArrayList<>();
        long[] addresses = new long[blocks.size()];
        for (int b = 0; b < blocks.size(); b++) {
            addresses[b] = blocks.get(b).address();
        }
        for (int b = 0; b < blocks.size(); b++) {
            Block latch = blocks.get(b);
            if (latch.target() >= address && latch.target() <= latch.address()) {
                // the block at the target, or the last one before it (blocks are in address order): a binary
                // search, not a walk back, which made one huge function quadratic
                int found = java.util.Arrays.binarySearch(addresses, 0, b + 1, latch.target());
                int first = found >= 0 ? found : Math.max(0, -found - 2);
                Long entry = entries.higher(latch.target());
                if (blocks.get(first).address() == latch.target() && (entry == null || entry > latch.address())
                        && b - first < MAX_LOOP_BLOCKS) {
                    List<Block> body = body(blocks, fallsThrough, first, b);
                    // a back edge the header does not reach again (a jump into code before it) is no loop
                    if (!body.isEmpty() && body.get(0) == blocks.get(first) && body.get(body.size() - 1) == latch) {
                        loops.add(new Loop(latch.target(), latch.address(), body, true));
                    }
                }
            }
        }
        List<Loop> marked = new ArrayList<>(loops.size());
        for (Loop l : loops) {
            boolean inner = loops.stream().noneMatch(l::contains);
            marked.add(inner ? l : new Loop(l.header(), l.latch(), l.blocks(), false));
        }
        loops = marked;
        return new ControlFlow(blocks, loops, scan.instructions(), scan.skippedBytes());
    }

    /**
     * Whether a block ends after {@code i}: a branch, call, return, system call or interrupt, or a system instruction
     * other than a counter read ({@code rdtsc}, {@code rdtscp}, {@code rdpmc}: Zydis files them as system
     * instructions, but control goes on to the next instruction, and code times itself with them).
     */
    public static boolean endsBlock(Instruction i) {
        if (i.category().equals("SYSTEM")) {
            String m = i.mnemonic().toLowerCase(java.util.Locale.ROOT);
            return !(m.startsWith("rdtsc") || m.equals("rdpmc"));
        }
        return ENDS_BLOCK.contains(i.category());
    }

    /**
     * The loop's blocks between its header (block {@code first}) and latch (block {@code last}): those the header
     * reaches and that reach the latch, along fall-throughs and branches inside that range — the natural loop of
     * structured code. So alignment padding after a jump, another function's prologue and the exit code placed
     * inside the range are not counted as the loop's.
     */
    private static List<Block> body(List<Block> blocks, boolean[] fallsThrough, int first, int last) {
        int n = last - first + 1;
        java.util.Map<Long, Integer> at = new java.util.HashMap<>();
        for (int k = 0; k < n; k++) {
            at.put(blocks.get(first + k).address(), k);
        }
        List<List<Integer>> next = new ArrayList<>();
        for (int k = 0; k < n; k++) {
            List<Integer> succ = new ArrayList<>();
            if (fallsThrough[first + k] && k + 1 < n) {
                succ.add(k + 1);
            }
            Integer t = at.get(blocks.get(first + k).target());
            if (t != null && k != n - 1) {
                succ.add(t);
            }
            next.add(succ);
        }
        boolean[] reached = new boolean[n];
        java.util.ArrayDeque<Integer> work = new java.util.ArrayDeque<>(List.of(0));
        reached[0] = true;
        while (!work.isEmpty()) {
            for (int s : next.get(work.pop())) {
                if (!reached[s]) {
                    reached[s] = true;
                    work.push(s);
                }
            }
        }
        // Those that reach the latch: a walk back along the edges reversed (linear, where repeating forward passes
        // until nothing changed was quadratic on long ranges).
        List<List<Integer>> previous = new ArrayList<>(n);
        for (int k = 0; k < n; k++) {
            previous.add(new ArrayList<>(2));
        }
        for (int k = 0; k < n; k++) {
            for (int s : next.get(k)) {
                previous.get(s).add(k);
            }
        }
        boolean[] reaches = new boolean[n];
        reaches[n - 1] = true;
        work.push(n - 1);
        while (!work.isEmpty()) {
            for (int p : previous.get(work.pop())) {
                if (!reaches[p]) {
                    reaches[p] = true;
                    work.push(p);
                }
            }
        }
        List<Block> body = new ArrayList<>();
        for (int k = 0; k < n; k++) {
            if (reached[k] && reaches[k]) {
                body.add(blocks.get(first + k));
            }
        }
        return body;
    }

    private static Block block(byte[] code, long address, List<Instruction> insns) {
        Instruction first = insns.get(0);
        Instruction last = insns.get(insns.size() - 1);
        byte[] bytes = Arrays.copyOfRange(code, first.offset(), last.offset() + last.length());
        long t = target(last);
        String c = last.category();
        boolean branch = c.equals("COND_BR") || c.equals("UNCOND_BR");
        return new Block(address + first.offset(), BasicBlock.fromBytes(bytes), branch && t >= 0 ? address + t : -1);
    }

    /** The offset a direct branch or call goes to (relative to the code's start), or -1 for an indirect one. */
    private static long target(Instruction i) {
        for (Operand o : i.operands()) {
            if (o instanceof Operand.ImmediateOperand imm && imm.relative()) {
                return i.offset() + i.length() + imm.value();
            }
        }
        return -1;
    }

    /** The basic blocks, in address order. */
    public List<Block> blocks() {
        return blocks;
    }

    /** The loops, in the order of their back edges. */
    public List<Loop> loops() {
        return loops;
    }

    /** Instructions decoded. */
    public long instructions() {
        return instructions;
    }

    /** Bytes skipped because no instruction starts with them (data or padding in the code). */
    public long skippedBytes() {
        return skippedBytes;
    }
}
