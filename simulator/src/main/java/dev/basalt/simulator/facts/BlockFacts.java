package dev.basalt.simulator.facts;

import dev.basalt.simulator.harness.BhiveMemory;
import dev.basalt.simulator.harness.StoreAddressWait;
import dev.basalt.simulator.harness.StoreCommit;
import dev.basalt.simulator.harness.X87Assists;
import dev.basalt.simulator.params.CoreParams;
import dev.basalt.simulator.params.DenseCode;
import dev.basalt.simulator.params.Dividers;
import dev.basalt.simulator.params.Fences;
import dev.basalt.simulator.params.ImmediateElimination;
import dev.basalt.simulator.params.PortGroups;
import dev.basalt.simulator.params.RowSource;
import dev.basalt.decoder.BasicBlock;
import dev.basalt.decoder.Decoding;
import dev.basalt.decoder.Instruction;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What the second machine knows of a block before it runs it: per instruction its place, shape, micro-ops and
 * ports, latencies, and the sources it waits for (register, memory and the harness's store→load pairs). The
 * machine's run ({@code Pipeline}) and the analytical bounds ({@code Bounds}) read the same facts, so with the
 * same mechanisms on the run can never beat a bound; the bounds need nothing else, and so cost a fraction of a run.
 *
 * <p>A {@code Pipeline} is a run over these facts (it extends this class, so that its cycle loop reads them as
 * its own fields).
 */
public class BlockFacts {

    public final CpuContext context;
    public final CoreParams core;
    public final RunModel.Options options;
    public final BasicBlock block;
    public final int n;
    public final long blockBytes;
    // The bytes fetched a cycle: the core's predecodeBytes, or fewer for dense code (DenseCode).
    public final int fetchBytes;
    // The cycles per iteration the cache needs to take the block's stores (StoreCommit; 0: no such limit).
    public final double storeCommit;
    // The cycles per iteration x87 microcode assists add in BHive's harness (X87Assists; 0: none).
    public final double x87Assists;
    // Per instruction of the block.
    final InstructionFacts[] facts;
    public final int[] offset;
    public final InstructionShape[] shape;
    public final int[] unfused;
    public final int[] latency;
    public final int[] readAdvance;
    public final int[][] demand;
    public final int[] issueSlots; // fused micro-ops at the renamer and in the reorder buffer
    public final boolean[] stackOp; // push, pop, call, ret
    // Instructions preceded by a stack-synchronisation micro-op: one more issue slot and ALU micro-op, and
    // their rsp arrives a cycle later.
    public final boolean[] stackSync;
    // Load+operation instructions and stores execute in two steps, as their unfused micro-ops do: the address
    // micro-ops (loads, store address: the last addressUops of demand) when the address is ready, the rest
    // when the loaded data and the other sources are.
    public final boolean[] twoStep;
    // The latency of a load+operation's second step, after its load ({@link LoadOperation}).
    public final int[] opLatency;
    // The latency of a loading instruction's load step: the table's load latency, or, under LoadOperation, the row's
    // latency less the operation's (a vector load's 6 or 7 cycles, not the integer 5), so load to result stays
    // the row's latency.
    public final int[] loadLatency;
    public final int[] addressUops;
    public final boolean[] loading;
    public final boolean[] locked; // locked read-modify-writes, and mfence (a fence for memory, with the same cost)
    // Execution fences (lfence, mfence; cpuid, which serializes): each waits for every older instruction to finish, and
    // every younger one waits for it.
    public final boolean[] fence;
    public final boolean[] memoryAccess;
    // Store fences (sfence): each waits for every older store to finish, and every younger store waits for it;
    // loads pass it.
    public final boolean[] storeFence;
    // Per fence, its kind (Fences.LOAD_FENCE, ...; 0: not a fence) and the cycles until the next of that kind
    // may execute (Fences; 0: no limit).
    public final int[] fenceKind;
    public final int[] fenceCycles;
    public final boolean[] storing;
    // Sources, in consumer order (Sources).
    public final int[] start;
    public final int[] producers;
    public final boolean[] memorySource;
    final boolean[] stableAddress; // its memory operand's registers are not written in the block (memory renaming)
    // Per instruction, its memory operand as the memory file pairs it (renameKey); null when the file cannot take it.
    final String[] renameKey;
    public final boolean[] addressSource;
    public final boolean[] mergeSource; // per source: a value the instruction merges into, read late (MergeOperand)
    public final int[] mergeCycles; // per instruction: the cycles from its merged value to its result (MergeOperand)
    // Per instruction, whether its merge is into the harness's dirty upper bits (CoreParams#dirtyUpperMerge): its
    // result comes mergeCycles after the merged value even when its own latency is shorter (a load's last step).
    public final boolean[] dirtyMerge;
    public final boolean[] partialSource; // a store→load source whose store does not contain the load
    // Whether every load waits for the older stores' addresses (StoreAddressWait): BHive's harness memory only.
    public final boolean loadsWaitForStoreAddresses;
    // Per instruction, the cycles forwarded data takes beyond storeForwardLatency (CoreParams#vectorForwardCycles:
    // a load into a vector register); 0 for the rest.
    public final int[] forwardExtra;
    public final Map<String, RowSource> fallbacks; // forms the table has no row of, in block order
    public final BhiveMemory.Program memory; // the block compiled for BHive's harness values
    public final int maxDemand;
    // Loops (DESIGN.md §12): whether the block runs as a loop body, which instructions are the jump of a
    // macro-fused pair (their micro-op travels with the instruction before), and where the micro-ops come from.
    public final boolean loop;
    public final boolean[] fusedTail;
    public final RunModel.UopSource source;
    // Whether the simulator's CPU runs every instruction (InstructionFacts#runs).
    public final boolean runs;
    // Rename-time elimination of small immediates (ImmediateElimination; null when the CPU has none or move
    // elimination is off): per instruction its fold or null, for a 64-bit register move the fold that copies its
    // source's offset or null, and the general-purpose registers it writes.
    public final ImmediateElimination.Fold[] fold;
    public final ImmediateElimination.Fold[] move;
    public final int[][] writes;
    // For the bounds: the share of iterations each instruction executes in (1 without folds; ImmediateElimination).
    public final double[] executedShare;

    public BlockFacts(CpuContext context, BasicBlock block, RunModel.Options options) {
        this.context = context;
        this.core = context.params().core();
        this.options = options;
        this.block = block;
        this.n = block.size();
        this.facts = new InstructionFacts[n];
        this.offset = new int[n];
        this.shape = new InstructionShape[n];
        this.unfused = new int[n];
        this.latency = new int[n];
        this.readAdvance = new int[n];
        this.demand = new int[n][];
        this.issueSlots = new int[n];
        this.stackOp = new boolean[n];
        this.twoStep = new boolean[n];
        this.opLatency = new int[n];
        this.loadLatency = new int[n];
        this.addressUops = new int[n];
        this.loading = new boolean[n];
        this.locked = new boolean[n];
        this.fence = new boolean[n];
        this.memoryAccess = new boolean[n];
        this.storeFence = new boolean[n];
        this.fenceKind = new int[n];
        this.fenceCycles = new int[n];
        this.storing = new boolean[n];
        // Per-instruction facts come from the simulator's cache (InstructionFacts); only what depends on the
        // block — the stack engine's synchronisation micro-ops, the sources — is added here.
        Map<Decoding, InstructionFacts> known = context.facts().forSwitches(options);
        boolean[] usesStack = new boolean[n];
        BhiveMemory.Step[] steps = new BhiveMemory.Step[n];
        boolean everyOneRuns = true;
        for (int i = 0; i < n; i++) {
            facts[i] = context.facts().get(known, context, block.instruction(i), options);
            everyOneRuns &= facts[i].runs();
            steps[i] = facts[i].memory();
            stackOp[i] = facts[i].stackOp();
            usesStack[i] = facts[i].usesStackPointer();
        }
        this.runs = everyOneRuns;
        if (core.immediateElimination() != null && options.secondGeneration() && options.moveElimination()) {
            this.fold = new ImmediateElimination.Fold[n];
            this.move = new ImmediateElimination.Fold[n];
            this.writes = new int[n][];
            for (int i = 0; i < n; i++) {
                Instruction insn = block.instruction(i);
                fold[i] = ImmediateElimination.of(insn);
                move[i] = ImmediateElimination.move(insn);
                writes[i] = ImmediateElimination.writtenRegisters(insn);
            }
            this.executedShare = core.immediateElimination().executedShare(fold, move, writes);
        } else {
            this.fold = null;
            this.move = null;
            this.writes = null;
            this.executedShare = null;
        }
        this.stackSync = options.stackEngine() ? InstructionShape.stackSyncs(stackOp, usesStack) : new boolean[n];
        // BHive's harness divides small values: dividers take their fast timings (Dividers). Elsewhere the values are
        // not known: an integer divide takes its fast end too, and the prediction's interval its slow one
        // (SimulatorEstimator); an FP divide, whose range is narrow, its row.
        boolean smallOperands = options.secondGeneration()
                && options.harnessMemory(RunModel.runsAsLoop(block, options));
        int alu = context.ports().aluGroup();
        int slowLea = context.ports().slowLeaGroup();
        int widest = 0;
        long bytes = 0;
        Map<String, RowSource> missing = Map.of();
        for (int i = 0; i < n; i++) {
            Instruction insn = block.instruction(i);
            InstructionFacts f = facts[i];
            if (f.resolved().source() != RowSource.FORM) {
                if (missing.isEmpty()) {
                    missing = new LinkedHashMap<>();
                }
                missing.put(insn.form(), f.resolved().source());
            }
            offset[i] = insn.offset();
            bytes = Math.max(bytes, insn.offset() + (long) insn.length());
            int[] ops = f.ops();
            Dividers.Timing small = smallOperands || options.secondGeneration() && integerDivide(insn)
                    ? f.smallOperands() : null;
            if (small != null && small.cycles() > 0 && f.dividerUnit() < 0) {
                ops = Dividers.holding(ops, f.dividerUnit(), small.cycles());
            }
            if (stackSync[i] && alu >= 0) { // the sync micro-op, on an ALU port, before the rest
                int[] withSync = new int[ops.length + 1];
                withSync[0] = alu;
                System.arraycopy(ops, 0, withSync, 1, ops.length);
                ops = withSync;
            }
            unfused[i] = Math.max(1, PortGroups.portMicroOps(ops));
            shape[i] = stackSync[i] && alu < 0 // (every table has an ALU group; this keeps the rule whole)
                    ? InstructionShape.of(insn, f.resolved().row(), Math.max(1, unfused[i] - 1), core,
                    options.microFusion(), options.moveElimination())
                    : f.shape();
            issueSlots[i] = shape[i].issueUops() + (stackSync[i] ? 1 : 0);
            latency[i] = small != null ? small.latency() : f.latency();
            readAdvance[i] = f.readAdvance();
            if (slowLea >= 0 && f.slowLea()) { // its own unit and latency, whatever the row
                ops = new int[] {slowLea};
                unfused[i] = 1;
                latency[i] = Math.max(latency[i], core.slowLeaLatency());
            }
            demand[i] = shape[i].noPort() ? new int[0] : ops;
            int loads = context.ports().hasLoadPorts() ? f.loads() : 0;
            int address = loads + (context.ports().hasLoadPorts() && f.stores() ? 1 : 0);
            twoStep[i] = address > 0 && !shape[i].noPort() && PortGroups.portMicroOps(ops) > address;
            addressUops[i] = shape[i].noPort() ? 0 : address;
            loading[i] = loads > 0;
            widest = Math.max(widest, demand[i].length);
            fence[i] = options.secondGeneration() && (f.fence() == Fences.LOAD_FENCE
                    || f.fence() == Fences.MFENCE);
            storeFence[i] = options.secondGeneration() && f.fence() == Fences.STORE_FENCE;
            fenceKind[i] = options.secondGeneration() ? f.fence() : 0;
            fenceCycles[i] = core.fences().cycles(fenceKind[i]);
            storing[i] = options.secondGeneration() && f.stores();
            if (core.lockCycles() > 0) {
                locked[i] = f.locked() || f.fence() == Fences.MFENCE;
                memoryAccess[i] = f.loads() > 0 || f.stores();
                if (locked[i]) {
                    latency[i] = Math.max(latency[i], core.lockCycles());
                }
            }
            // LoadOperation: a load+operation that does not store waits for its load's own latency, then the
            // operation's (a read-modify-write's row also holds its store: it keeps the table's load latency).
            boolean split = options.operationLatency() && twoStep[i] && loading[i] && !f.stores() && small == null
                    && f.operationLatency() >= 0 && !locked[i] && !f.slowLea();
            opLatency[i] = !loading[i] ? latency[i]
                    : split ? Math.max(1, f.operationLatency())
                    : Math.max(1, latency[i] - context.params().loadLatency());
            loadLatency[i] = split ? Math.max(1, latency[i] - opLatency[i]) : context.params().loadLatency();
        }
        this.fallbacks = missing;
        this.loop = RunModel.runsAsLoop(block, options);
        this.fusedTail = new boolean[n];
        CoreParams.LoopFrontEnd lf = core.loop();
        int taken = loop ? context.ports().takenBranchGroup() : -1;
        if (options.secondGeneration() && options.microFusion() && !lf.macroFusion().isEmpty()) {
            for (int i = 0; i + 1 < n; i++) {
                if (fusedTail[i]
                        || !FrontEndFacts.fuses(lf, block.instruction(i), block.instruction(i + 1), shape[i])) {
                    continue;
                }
                // One micro-op on the jump's port does the flag setter's work and the jump's.
                fusedTail[i + 1] = true;
                int branch = taken >= 0 && i + 1 == n - 1 ? taken
                        : demand[i + 1].length > 0 && demand[i + 1][0] >= 0 ? demand[i + 1][0] : -1;
                if (branch >= 0 && demand[i].length > addressUops[i] && demand[i][0] >= 0) {
                    demand[i] = demand[i].clone(); // the arrays are the cached facts' own
                    demand[i][0] = branch;
                }
                shape[i + 1] = shape[i + 1].macroFusedTail();
                demand[i + 1] = new int[0];
                issueSlots[i + 1] = 0;
                twoStep[i + 1] = false;
                addressUops[i + 1] = 0;
            }
        }
        if (taken >= 0 && !fusedTail[n - 1] && demand[n - 1].length > 0 && demand[n - 1][0] >= 0) {
            demand[n - 1] = demand[n - 1].clone(); // a taken jump executes on the taken-branch port
            demand[n - 1][0] = taken;
        }
        // A taken jump back to the start: each iteration's code begins a new fetch window.
        this.blockBytes = Math.max(1, loop ? (bytes + core.predecodeBytes() - 1) / core.predecodeBytes()
                * core.predecodeBytes() : bytes);
        this.fetchBytes = DenseCode.fetchBytes(core, n, Math.max(1, bytes));
        this.source = loop ? FrontEndFacts.uopSource(lf, block, offset, shape, fusedTail)
                : RunModel.UopSource.LEGACY;
        this.maxDemand = Math.max(1, widest);
        this.memory = new BhiveMemory.Program(block, steps, context.harness());
        this.storeCommit = storeCommitFloor();
        this.x87Assists = x87AssistCycles();
        Sources src = Sources.of(block, options, stackOp, memory, context.falseOutput(),
                context.params().core().mergesDirtyUpper());
        this.start = src.start();
        this.producers = src.producers();
        this.memorySource = src.memory();
        this.addressSource = src.address();
        this.mergeSource = src.merge();
        this.mergeCycles = new int[n];
        this.dirtyMerge = new boolean[n];
        // A legacy SSE write into the harness's dirty upper bits merges in the CPU's cycles (CoreParams#dirtyUpperMerge)
        boolean[] dirty = core.mergesDirtyUpper() ? Sources.legacyXmmWrites(block) : null;
        for (int i = 0; i < n; i++) {
            for (int k = start[i]; k < start[i + 1]; k++) {
                if (mergeSource[k]) {
                    int c = MergeOperand.cycles(block.instruction(i), context.adderLatency());
                    dirtyMerge[i] = dirty != null && dirty[i];
                    mergeCycles[i] = dirtyMerge[i] ? Math.max(c, core.dirtyUpperCycles()) : c;
                    break;
                }
            }
        }
        this.partialSource = src.partial();
        // Not on the cores that hold a load predicted to read a store in the load buffer until that store (Golden
        // Cove's forwarding to waiting loads, Zen's memory file): their measured sets show no such wait.
        this.loadsWaitForStoreAddresses = options.secondGeneration() && options.memoryDependencies()
                && options.harnessMemory(loop) && !core.forwardToWaitingLoads() && !core.memoryRenaming()
                && StoreAddressWait.caught(n, start, producers, memorySource,
                addressSource, loading, storing, latency);
        // Only memory renaming (AMD) asks which addresses are stable: the others skip the search.
        this.stableAddress = context.params().core().memoryRenaming() && options.storeForwarding()
                ? stableAddresses(block) : null;
        this.renameKey = stableAddress == null ? null : renameKeys(block);
        this.forwardExtra = new int[n];
        if (core.vectorForwardDelay() > 0) {
            for (int i = 0; i < n; i++) {
                forwardExtra[i] = loading[i] && writesVector(block.instruction(i)) ? core.vectorForwardDelay() : 0;
            }
        }
        // A load that also reads a register as data (a partial write merging into it: mov ax, [m]) executes in
        // two steps too: the merge waits for the old value, the load does not.
        for (int i = 0; i < n; i++) {
            for (int k = start[i]; k < start[i + 1] && loading[i] && !twoStep[i] && addressUops[i] > 0; k++) {
                twoStep[i] = !memorySource[k] && !addressSource[k];
            }
        }
    }

    /** The fused micro-ops of one iteration as the front end delivers them. */
    public int iterationUops() {
        return FrontEndFacts.iterationUops(shape);
    }

    /** How many iterations the loop stream detector issues as one (1 for any other source). */
    public int lsdCopies() {
        return source == RunModel.UopSource.LSD ? core.loop().lsdCopies(iterationUops()) : 1;
    }

    /** The macro-fused pairs, as the indices of their first instructions. */
    public java.util.List<Integer> fusedPairs() {
        java.util.List<Integer> out = new java.util.ArrayList<>();
        for (int i = 1; i < n; i++) {
            if (fusedTail[i]) {
                out.add(i - 1);
            }
        }
        return out;
    }

    /**
     * What a user should know of this block's numbers ({@link dev.basalt.core.Prediction#notes()}): each
     * instruction no estimator prices, then each form the table has no row for.
     */
    public java.util.List<String> notes() {
        java.util.List<String> notes = new java.util.ArrayList<>();
        for (int i = 0; i < n; i++) {
            if (facts[i].unmodelled() != null) {
                notes.add(dev.basalt.core.UnmodelledInstructions.note(i, block.instruction(i), facts[i].unmodelled()));
            }
        }
        RowSource.addFallbackNotes(notes, fallbacks);
        return notes;
    }

    /**
     * Whether load {@code i} gets the data of store {@code store} along source {@code k} by memory renaming
     * ({@link CoreParams#memoryRenaming}): both addresses name registers the block never writes, and the store
     * holds all the load reads — for every store the load may read; a locked instruction (a fence) is never
     * renamed.
     */
    public boolean renamed(int i, int store, int k) {
        if (!context.params().core().memoryRenaming() || !options.storeForwarding() || !stableAddress[i]
                || locked[i] || renameKey[i] == null) {
            return false;
        }
        // All the stores the load may read are paired with it, or none is: its data is the youngest one's, and a
        // pairing with another (an older store to the same harness address) would give the wrong value.
        for (int s = start[i]; s < start[i + 1]; s++) {
            int st = producers[2 * s];
            if (memorySource[s] && (partialSource[s] || !stableAddress[st] || locked[st] || renameKey[st] == null
                    || !sameRenameKey(renameKey[i], renameKey[st]))) {
                return false;
            }
        }
        return true;
    }

    /**
     * Per instruction, whether the registers its memory operand depends on (base, index) are written by no
     * instruction of the block, so that the address names the same register values every iteration: what AMD's
     * memory file needs to pair a load with a store (base register and displacement). The stack engine's implicit
     * stack-pointer updates (push, pop, call, ret) do not count; an explicit write of rsp does.
     */
    public static boolean[] stableAddresses(dev.basalt.decoder.BasicBlock block) {
        java.util.Set<Integer> written = new java.util.HashSet<>();
        for (dev.basalt.decoder.Instruction insn : block.instructions()) {
            for (dev.basalt.decoder.Operand o : insn.operands()) {
                if (o instanceof dev.basalt.decoder.Operand.RegisterOperand r && r.action().writes()
                        && !(r.register().enclosingName().equals("rsp") && !r.visibility().isVisible())) {
                    written.add(r.register().enclosingId());
                }
            }
        }
        boolean[] out = new boolean[block.size()];
        for (int i = 0; i < block.size(); i++) {
            out[i] = true;
            for (dev.basalt.decoder.Operand o : block.instruction(i).operands()) {
                if (o instanceof dev.basalt.decoder.Operand.MemoryOperand m
                        && (m.base() != null && written.contains(m.base().enclosingId())
                        || m.index() != null && written.contains(m.index().enclosingId()))) {
                    out[i] = false;
                }
            }
        }
        return out;
    }

    /**
     * Per instruction, its memory operand as AMD's memory file pairs a load with a store: the base, index, scale and
     * displacement as written ("" for the stack engine's implicit operands of push, pop, call and ret, which the
     * file pairs by the engine's offset); null when the file cannot take the access. Measured on a Zen 4 (family 25
     * model 17, `basalt measure`, 2026-12-05): {@code mov [rsi], rax; mov rax, [rsi]} and the 32-bit pair run at 1.00
     * cycle an iteration, renamed; the 16- and 8-bit pairs at 8.1, the {@code movss}/{@code movsd} pairs at 10.0,
     * and {@code mov [rsi], rax; mov rax, [rdi]} (one address through another register) at 6.94: forwarded, not
     * renamed. So only 32- and 64-bit accesses between general-purpose registers, through the same registers.
     */
    static String[] renameKeys(dev.basalt.decoder.BasicBlock block) {
        String[] out = new String[block.size()];
        for (int i = 0; i < block.size(); i++) {
            String key = null;
            boolean vector = false;
            for (dev.basalt.decoder.Operand o : block.instruction(i).operands()) {
                if (o instanceof dev.basalt.decoder.Operand.MemoryOperand m && (m.action().readsOldValue() || m.action().writes())
                        && key == null) {
                    boolean wide = m.sizeBits() == 32 || m.sizeBits() == 64;
                    key = !wide ? null : m.visibility() == dev.basalt.decoder.Visibility.EXPLICIT
                            ? m.segment().name() + ":" + m.addressText() : "";
                    if (!wide) {
                        break;
                    }
                } else if (o instanceof dev.basalt.decoder.Operand.RegisterOperand r) {
                    switch (r.register().registerClass()) {
                        case MMX, XMM, YMM, ZMM, X87 -> vector = true;
                        default -> { }
                    }
                }
            }
            out[i] = vector ? null : key;
        }
        return out;
    }

    private static boolean writesVector(dev.basalt.decoder.Instruction insn) {
        for (dev.basalt.decoder.Operand o : insn.operands()) {
            if (o instanceof dev.basalt.decoder.Operand.RegisterOperand r && r.action().writes()) {
                switch (r.register().registerClass()) {
                    case MMX, XMM, YMM, ZMM -> {
                        return true;
                    }
                    default -> { }
                }
            }
        }
        return false;
    }

    // A stack operation's implicit operand pairs with any other the engine tracks; explicit ones must agree.
    private static boolean sameRenameKey(String load, String store) {
        return load.isEmpty() || store.isEmpty() || load.equals(store);
    }

    /** The store-commit floor ({@link StoreCommit}): 0 without the rule or outside BHive's harness memory. */
    private double storeCommitFloor() {
        StoreCommit c = core.storeCommit();
        if (c == null || !options.memoryDependencies() || !options.harnessMemory(loop)) {
            return 0;
        }
        long[][] stores = BhiveMemory.storeOffsets(memory);
        return c.cyclesPerIteration(stores[0], stores[1]);
    }

    /** The x87 assists' cycles per iteration ({@link X87Assists}): 0 without the rule or outside BHive's harness. */
    private double x87AssistCycles() {
        Integer cost = core.x87AssistCycles();
        if (cost == null || cost == 0 || !options.harnessMemory(loop)) {
            return 0;
        }
        return X87Assists.perIteration(block) * cost;
    }

    /** Whether {@code insn} is an integer divide ({@code div}, {@code idiv}). */
    public static boolean integerDivide(Instruction insn) {
        String m = insn.mnemonic();
        return m.equals("div") || m.equals("idiv");
    }
}
