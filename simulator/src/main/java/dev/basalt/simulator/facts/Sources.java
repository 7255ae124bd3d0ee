package dev.basalt.simulator.facts;

import dev.basalt.simulator.harness.BhiveMemory;
import dev.basalt.decoder.BasicBlock;
import dev.basalt.decoder.DependencyKind;
import dev.basalt.decoder.Instruction;
import dev.basalt.decoder.Resource;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;

/**
 * What each instruction waits for: its producers, flattened. For instruction i, pairs (producer, loop-carried 0/1)
 * at {@code producers[2k], producers[2k+1]} for k in {@code start[i] .. start[i+1]}; whether that source is memory
 * (a store the load reads from) at {@code memory[k]}, whether it is a register the consumer reads as an address
 * (base or index of a memory operand) at {@code address[k]}, whether it is a store that does not contain the
 * load at {@code partial[k]}, and whether it is the old value of a conditional move's destination at
 * {@code merge[k]} ({@link MergeOperand}: read by its last micro-op).
 *
 * <p>They come from the block's {@link dev.basalt.decoder.DependencyGraph} RAW edges (registers and flags, and,
 * when enabled, memory under the same-expression policy), loop-carried ones linking iteration <i>k−1</i> to
 * <i>k</i>; with the stack engine on, the rsp updates of push, pop, call and ret are no source; on the second
 * machine a false output dependency ({@link CoreParams#falseOutputDependencies()}) is one, and, under harness
 * memory ({@link RunModel.MemoryModel}), BHive's harness ({@link BhiveMemory}) adds its store→load sources. Both machines, the bounds, the critical path and the
 * tuner's surrogate read them from here.
 */
public record Sources(int[] start, int[] producers, boolean[] memory, boolean[] address, boolean[] partial,
                      boolean[] merge) {

    /** The RAW sources the simulator waits for under {@code options} (what the surrogate's latency chain uses). */
    public static Sources of(BasicBlock block, RunModel.Options options) {
        return of(block, options, stackOps(block));
    }

    /** Whether each instruction is a push, pop, call or ret (whose rsp update the stack engine absorbs). */
    public static boolean[] stackOps(BasicBlock block) {
        boolean[] stackOp = new boolean[block.size()];
        for (int i = 0; i < stackOp.length; i++) {
            stackOp[i] = isStackOp(block.instruction(i));
        }
        return stackOp;
    }

    /** Whether the stack engine updates {@code insn}'s rsp: push, pop, call, ret. */
    static boolean isStackOp(Instruction insn) {
        String m = insn.mnemonic();
        return m.equals("push") || m.equals("pop") || m.equals("call") || m.equals("ret");
    }

    /** The RAW sources the simulator waits for under {@code options}. */
    public static Sources of(BasicBlock block, RunModel.Options options, boolean[] stackOp) {
        return of(block, options, stackOp, null);
    }

    /** {@link #of(BasicBlock, RunModel.Options, boolean[])} with the block's harness steps (null: compiled here). */
    public static Sources of(BasicBlock block, RunModel.Options options, boolean[] stackOp, BhiveMemory.Program harness) {
        return of(block, options, stackOp, harness, Set.of());
    }

    /**
     * {@link #of(BasicBlock, RunModel.Options, boolean[], BhiveMemory.Program)} where, on the second machine, an
     * instruction whose mnemonic (lower case) is in {@code falseOutput} also waits for the previous writer of
     * its destination register ({@link CoreParams#falseOutputDependencies()}): the graph's WAW edge into it
     * becomes a source.
     */
    public static Sources of(BasicBlock block, RunModel.Options options, boolean[] stackOp, BhiveMemory.Program harness,
                      Set<String> falseOutput) {
        return of(block, options, stackOp, harness, falseOutput, false);
    }

    /**
     * {@link #of(BasicBlock, RunModel.Options, boolean[], BhiveMemory.Program, Set)} where, with {@code dirtyUpper}
     * ({@link CoreParams#dirtyUpperMerge}) and harness memory, a legacy SSE instruction that writes an xmm register
     * also merges into that register's previous value: the graph's WAW edge into it becomes a merge source.
     */
    public static Sources of(BasicBlock block, RunModel.Options options, boolean[] stackOp, BhiveMemory.Program harness,
                      Set<String> falseOutput, boolean dirtyUpper) {
        int n = block.size();
        int[] prodCount = new int[n + 1];
        dev.basalt.decoder.DependencyGraph g = block.dependencyGraph();
        int edges = g.edgeCount();
        int[] chosen = new int[edges]; // the graph's edges that are sources, in graph order
        int count = 0;
        boolean falseDeps = options.secondGeneration() && !falseOutput.isEmpty();
        int[] explicit = options.stackEngine() && any(stackOp) ? explicitStackWriters(block, stackOp) : null;
        boolean harnessMemory = options.secondGeneration() && options.memoryDependencies()
                && options.harnessMemory(RunModel.runsAsLoop(block, options));
        boolean[] upper = dirtyUpper && harnessMemory ? legacyXmmWrites(block) : null;
        boolean[] upperEdge = upper == null ? null : new boolean[edges];
        for (int e = 0; e < edges; e++) {
            DependencyKind kind = g.kind(e);
            if (kind == DependencyKind.RAW) {
                Resource r = g.resource(e);
                if (r.kind() == Resource.Kind.MEMORY && !options.memoryDependencies()) {
                    continue;
                }
                if (r.kind() == Resource.Kind.MEMORY && harnessMemory
                        && InstructionShape.ripRelative(block.instruction(g.producer(e)))
                        && InstructionShape.ripRelative(block.instruction(g.consumer(e)))) {
                    // The harness runs the block unrolled: each copy sits at another rip, so [rip+X] is another
                    // address in each copy and in each instruction (add dword ptr [rip+X], 1 runs at 1.00 cycle on
                    // the Xeon 6, not a store-forwarding chain).
                    continue;
                }
                if (r.kind() == Resource.Kind.FLAGS && options.secondGeneration()
                        && shiftByCl(block.instruction(g.consumer(e)))) {
                    // A shift by cl keeps the old flags when cl is 0, so the graph has it read them; they go to its
                    // own flags, merged in a micro-op of their own, and its register result does not wait for them:
                    // `mov eax, 1; mov ecx, ebx; shl eax, cl; test [r12+0x74], eax` measured 1.98 cycles on Haswell
                    // (the chain through the flags gave 3.00), `mov eax, 1; shl rax, cl; test al, 0x83` 1.47 on
                    // Skylake. The flags the shift may keep are not followed.
                    continue;
                }
                if (options.stackEngine() && stackOp[g.producer(e)] && r.name().equals("rsp")) {
                    // The engine absorbs the stack op's update, not the last explicit write before it: rsp is that
                    // write's value plus the engine's offset (`lea rsp, [rbp-40]; pop rbx; pop r12`: both pops wait
                    // for the lea). The edge is taken from the explicit writer instead (-1: none in the block).
                    if (explicit == null || explicit[g.consumer(e)] < 0) {
                        continue;
                    }
                }
            } else if (upper != null && kind == DependencyKind.WAW && upper[g.consumer(e)]
                    && g.resource(e).kind() == Resource.Kind.REGISTER && isVectorRegister(g.resource(e).name())) {
                upperEdge[e] = true;
            } else if (!(kind == DependencyKind.WAW && falseDeps && g.resource(e).kind() == Resource.Kind.REGISTER
                    && falseOutput.contains(block.instruction(g.consumer(e)).mnemonic()))) {
                continue;
            }
            chosen[count++] = e;
            prodCount[g.consumer(e) + 1]++;
        }
        for (int i = 0; i < n; i++) {
            prodCount[i + 1] += prodCount[i];
        }
        int[] prod = new int[2 * count];
        boolean[] memory = new boolean[count];
        boolean[] address = new boolean[count];
        boolean[] merge = new boolean[count];
        int[] fill = Arrays.copyOf(prodCount, n);
        for (int c = 0; c < count; c++) {
            int e = chosen[c];
            int consumer = g.consumer(e);
            Resource r = g.resource(e);
            int at = fill[consumer]++;
            int producer = g.producer(e);
            boolean carried = g.loopCarried(e);
            if (explicit != null && stackOp[producer] && r.name().equals("rsp") && g.kind(e) == DependencyKind.RAW) {
                producer = explicit[consumer];
                carried = producer >= consumer;
            }
            prod[2 * at] = producer;
            prod[2 * at + 1] = carried ? 1 : 0;
            memory[at] = r.kind() == Resource.Kind.MEMORY;
            address[at] = r.kind() == Resource.Kind.REGISTER && readsAsAddress(block.instruction(consumer), r.name());
            merge[at] = g.kind(e) == DependencyKind.RAW && r.kind() == Resource.Kind.REGISTER
                    && MergeOperand.isMerge(block.instruction(consumer), r.name()) || upperEdge != null && upperEdge[e];
        }
        Sources graph = new Sources(prodCount, prod, memory, address, new boolean[count], merge);
        // The second machine runs the block in BHive's harness, whose memory layout adds store→load sources — when
        // the options' memory model says harness memory for this block (a loop, by default, has distinct memory).
        return harnessMemory
                ? withHarnessMemory(block, graph, BhiveMemory.edges(harness != null ? harness
                        : BhiveMemory.Program.of(block, BhiveMemory.Harness.BHIVE)))
                : graph;
    }


    /**
     * Per instruction, whether it is a legacy (not VEX or EVEX) SSE instruction that writes an xmm register; none in a
     * block with a {@code vzeroupper}. A legacy zero idiom ({@code xorps xmm0, xmm0}) merges too on the machine
     * (4.15 cycles an iteration before a {@code mulss}), but stays eliminated here.
     */
    static boolean[] legacyXmmWrites(BasicBlock block) {
        boolean[] out = new boolean[block.size()];
        for (int i = 0; i < out.length; i++) {
            String m = block.instruction(i).mnemonic();
            if (m.equals("vzeroupper") || m.equals("vzeroall")) {
                return out; // the block clears the upper bits every iteration (Zen 4: 1.00 after it, 4.13 without)
            }
        }
        for (int i = 0; i < out.length; i++) {
            Instruction insn = block.instruction(i);
            if (insn.mnemonic().startsWith("v")) {
                continue; // VEX and EVEX forms clear the upper bits
            }
            for (dev.basalt.decoder.Operand o : insn.operands()) {
                if (o instanceof dev.basalt.decoder.Operand.RegisterOperand r && r.action().writes()
                        && r.register().registerClass() == dev.basalt.decoder.RegisterClass.XMM) {
                    out[i] = true;
                }
            }
        }
        return out;
    }

    /** Shifts and rotates whose only flags input is the one the graph adds ({@code rcl}, {@code rcr} read CF). */
    private static final Set<String> SHIFTS = Set.of("shl", "sal", "shr", "sar", "rol", "ror");

    /** A shift or rotate (not through carry) whose count is {@code cl}. */
    static boolean shiftByCl(Instruction insn) {
        return SHIFTS.contains(insn.mnemonic()) && insn.countsByCl();
    }

    private static boolean isVectorRegister(String name) {
        return name.startsWith("zmm") || name.startsWith("ymm") || name.startsWith("xmm");
    }

    /** Whether any flag is set. */
    public static boolean any(boolean[] flags) {
        for (boolean f : flags) {
            if (f) {
                return true;
            }
        }
        return false;
    }

    /**
     * For each instruction, the last instruction before it (cyclically: the block repeats) that writes rsp other
     * than through the stack engine, or -1 when none does: the value the engine adds its offset to (the stack
     * operations' rsp source here, the sync micro-op's in the pipeline).
     */
    public static int[] explicitStackWriters(BasicBlock block, boolean[] stackOp) {
        int n = block.size();
        int[] writer = new int[n];
        Arrays.fill(writer, -1);
        int last = -1;
        for (int pass = 0; pass < 2; pass++) {
            for (int i = 0; i < n; i++) {
                writer[i] = last;
                if (!stackOp[i] && InstructionShape.writesStackPointer(block.instruction(i))) {
                    last = i;
                }
            }
        }
        return writer;
    }

    /** Whether {@code insn} reads register {@code name} (an enclosing register) as a memory operand's base or index. */
    private static boolean readsAsAddress(Instruction insn, String name) {
        for (int oi = 0, on = insn.operands().size(); oi < on; oi++) {
            dev.basalt.decoder.Operand op = insn.operands().get(oi); // indexed: C1 allocates an iterator per loop
            if (op instanceof dev.basalt.decoder.Operand.MemoryOperand m
                    && (m.base().enclosingName().equals(name) || m.index().enclosingName().equals(name))) {
                return true;
            }
        }
        return false;
    }

    /**
     * {@code src} with the store→load sources of BHive's memory layout ({@link BhiveMemory}) added where the
     * dependency graph has none from that store, and the graph's own marked partial where the layout says the store
     * cannot forward to the load.
     */
    private static Sources withHarnessMemory(BasicBlock block, Sources src, List<BhiveMemory.Edge> edges) {
        if (edges.isEmpty()) {
            return src; // most blocks: no store→load pair in the harness
        }
        int n = block.size();
        int[] start = src.start();
        int[] prod = src.producers();
        List<int[]> all = new ArrayList<>(); // consumer, producer, loop-carried, memory, address, partial, merge
        for (int i = 0; i < n; i++) {
            for (int k = start[i]; k < start[i + 1]; k++) {
                all.add(new int[] {i, prod[2 * k], prod[2 * k + 1], src.memory()[k] ? 1 : 0, src.address()[k] ? 1 : 0,
                        0, src.merge()[k] ? 1 : 0});
            }
        }
        int given = all.size();
        boolean marked = false;
        for (BhiveMemory.Edge e : edges) {
            boolean known = false;
            for (int k = start[e.load()]; k < start[e.load() + 1]; k++) {
                if (src.memory()[k] && prod[2 * k] == e.store()) {
                    known = true;
                    if (e.partial()) { // the graph's edge, whose store cannot forward to the load
                        all.get(k)[5] = 1;
                        marked = true;
                    }
                }
            }
            if (!known) {
                all.add(new int[] {e.load(), e.store(), e.loopCarried() ? 1 : 0, 1, 0, e.partial() ? 1 : 0, 0});
            }
        }
        if (all.size() == given && !marked) {
            return src;
        }
        all.sort(java.util.Comparator.comparingInt(a -> a[0])); // stable: each consumer's sources keep their order
        int[] newStart = new int[n + 1];
        int[] newProd = new int[2 * all.size()];
        boolean[] memory = new boolean[all.size()];
        boolean[] address = new boolean[all.size()];
        boolean[] partial = new boolean[all.size()];
        boolean[] merge = new boolean[all.size()];
        for (int k = 0; k < all.size(); k++) {
            int[] a = all.get(k);
            newStart[a[0] + 1]++;
            newProd[2 * k] = a[1];
            newProd[2 * k + 1] = a[2];
            memory[k] = a[3] == 1;
            address[k] = a[4] == 1;
            partial[k] = a[5] == 1;
            merge[k] = a[6] == 1;
        }
        for (int i = 0; i < n; i++) {
            newStart[i + 1] += newStart[i];
        }
        return new Sources(newStart, newProd, memory, address, partial, merge);
    }
}
