package dev.basalt.simulator.pipeline;

import dev.basalt.simulator.facts.BlockFacts;
import dev.basalt.simulator.facts.CpuContext;
import dev.basalt.simulator.facts.RunModel;
import dev.basalt.simulator.facts.Sources;
import dev.basalt.simulator.facts.SteadyState;
import dev.basalt.simulator.harness.BhiveMemory;
import dev.basalt.simulator.harness.Translation;
import dev.basalt.simulator.params.SimulatorParams;
import dev.basalt.decoder.BasicBlock;

import java.util.AbstractList;
import java.util.Arrays;
import java.util.Objects;
import java.util.RandomAccess;

/**
 * One run of the second-generation machine (DESIGN.md §11), the block repeated back to back from an aligned
 * address as BHive ran it. Each cycle runs the stages from the back of the pipeline to the front, so that each
 * sees what the stage before it produced in earlier cycles:
 * <ol>
 * <li>{@link RetireStage#retire}: in program order, up to {@link CoreParams#retireWidth()} fused micro-ops of
 *     finished instructions;</li>
 * <li>{@link ExecuteStage#execute}: oldest first, every renamed instruction whose sources are ready and whose ports
 *     (bound at rename) are free; a load of an address an in-flight store wrote gets the data by store
 *     forwarding;</li>
 * <li>{@link DispatchStage#rename}: in order from the micro-op queue, up to {@link CoreParams#issueWidth()} fused
 *     micro-ops into the reorder buffer and scheduler, binding each unfused micro-op to a port (fewest queued
 *     micro-ops, ties to the higher port, odd slots to the second least loaded unless 3 or more behind, loads
 *     alternating); zero idioms and NOPs need no port, and eliminated moves neither port nor latency;</li>
 * <li>{@link FetchStage#decode}: from the instruction queue, up to {@link CoreParams#decoders()} instructions — the
 *     first on the complex decoder, the others only if one fused micro-op — and {@link CoreParams#decodeUops()}
 *     micro-ops; an instruction of more micro-ops than {@link CoreParams#microcodedAbove()} comes from the
 *     microcode sequencer after a switch;</li>
 * <li>{@link FetchStage#predecode}: the current aligned window of {@link CoreParams#predecodeBytes()} bytes, marking
 *     up to {@link CoreParams#predecodeWidth()} instructions that end in it; a length-changing prefix stalls it
 *     {@link CoreParams#lcpPenalty()} cycles, and an instruction whose opcode is still in a window whose five
 *     slots were used costs one more cycle.</li>
 * </ol>
 * Each stage is a class of its own over this object's state (the rings of in-flight instances and the counters
 * between stages), which they share: {@link FetchStage}, {@link DispatchStage}, {@link ExecuteStage},
 * {@link RetireStage} (llvm-mca's stage names).
 * The throughput is the steady state's: the cycles between retiring two iterations far apart, divided by the
 * iterations between them (so the pipeline's fill, which BHive's measurement cancels, does not count).
 */
public final class Pipeline extends BlockFacts {

    final boolean idealBackEnd;
    final SimulatorParams params;
    final int total;
    final int portCount;
    final int[] syncProducer; // the last instruction before i (cyclically) writing rsp explicitly, or -1
    // Locked read-modify-writes: how many instances back the nearest earlier locked one is (0: none in the block).
    final int[] lockBack;
    // Execution fences: how many instances back the nearest earlier fence is (0: none in the block).
    final int[] fenceBack;
    // Store fences: how many instances back the nearest earlier sfence is (0: none in the block).
    final int[] storeFenceBack;
    // Whether instruction i meets any of the ordering rules (locks, fences, store fences): most blocks have none,
    // and their instructions skip those checks.
    final boolean[] ordered;
    final int lsdCopies; // iterations the loop stream detector issues as one
    // Cache banks (Sandy/Ivy Bridge): each instruction's known load offset in the page, or -1; the offsets of
    // the loads executed this cycle.
    final int[] loadOffset;
    final int[] cycleLoads = new int[4];
    int cycleLoadCount;
    // Memory moving to new pages every iteration (BHive's harness): their translation, or null (most blocks).
    final Translation translation;
    // Load+operation instructions and stores execute in two steps ({@link BlockFacts#twoStep}): the address
    // micro-ops — loads, store address — (demand[i][split[i]..]) when the address is ready, the rest
    // (demand[i][..split[i]]: the operation, the store data) when the loaded data and the other sources are;
    // opPart and loadPart are the two halves for execution-time port choice.
    final int[] split;
    // Whether the instruction's operation step is one micro-op on one port (no divider): its waiters queue.
    final boolean[] singleOp;
    final int[][] opPart;
    final int[][] loadPart;
    final int loadGroup;
    // Per instance j (instruction j % n of iteration j / n): cycle of each stage (Long.MAX_VALUE: not yet; -1:
    // not modelled), the ports its micro-ops are bound to, whether its move was eliminated.
    final long[] predecoded;
    final long[] decoded;
    final long[] renamed;
    final long[] issued;
    final long[] done;
    final int[] bound;
    final boolean[] eliminated;
    final long[] loadDone;
    final int mask;
    final long[] waitSum; // per instruction: cycles retired instances waited from rename to execution
    final long[] notBefore; // a lower bound of the cycle instance j's current step can execute
    final long[] forwarded; // memory renaming: when the data of the store instance j's load reads is there
    final int[] blocker; // the producer instance whose unknown result held j up last, or -1
    // Instances waiting for j's result, a list through waitNext (-1 ends it): an entry whose producer has not
    // executed is parked (wake MAX) on it, and woken when it executes, instead of being looked at every cycle.
    final int[] waitHead;
    // Per slot, its instance's instruction (j % n) and iteration (j / n), set once instead of divided per look.
    final int[] insnOf;
    final int[] iterOf;
    final int[] waitNext;
    final boolean[] sourcesReady; // whether j's current step found its sources ready (ports held it)
    // Stores write the cache in program order once retired, one a cycle: per slot of a retired store, the cycle
    // its data is in the cache (Long.MAX_VALUE: not yet retired), and the last such cycle. A load the store
    // cannot forward to reads the data from the cache.
    final long[] committed;
    long lastCommit;
    final Scratch room;
    int busiestIteration; // the highest iteration whose port counts this run touched
    // Front end.
    long window;
    // With CoreParams#slidingFetch: the address up to which code bytes have been fetched.
    long fetchEnd;
    int predecodeNext;
    int predecodeInsn; // predecodeNext % n and predecodeNext / n, kept by the predecoder
    int predecodeIteration;
    int predecodeStall;
    int decodeNext;
    long microcodeBusyUntil;
    int queuedUops;
    // Dispatch (rename) and execution.
    int renameNext;
    int renamedSlotsOfCurrent;
    int robUops;
    int schedUops;
    final int[] scheduler;
    final long[] wake; // per slot of a scheduler entry: the first cycle it may execute (a lower bound)
    long earliestWake; // the smallest wake of the scheduler's entries (Long.MAX_VALUE: none)
    int schedCount;
    final int[] queued;
    final int[] queuedAtStart;
    // Per port, micro-ops dispatched this cycle: they leave `queued` only at the cycle's end, so the binding of this
    // cycle's issue still counts them, as uiCA counts a micro-op until the cycle after its dispatch.
    final int[] dispatchedNow;
    int loadTurn;
    final int[][] eliminations;
    final long[][] eliminationCycle;
    // Ports.
    final long[] portFree;
    final int[] portWaiters; // per port, this cycle: older entries, ready, whose one micro-op waits for it
    final long[] fenceFree = new long[4]; // per fence kind (Fences): the first cycle the next may execute
    final long[] portUse;
    final long[] portBusy; // per iteration and port: busy cycles of that iteration's micro-ops
    final long[] scratch;
    final long[] taken;
    // Retirement.
    int nextRetire;
    final long[] iterationRetired;
    // Per iteration, how long each of its instances waited between finishing and retiring (a hash): in a steady
    // state it repeats with the retire times; while a bottleneck is still taking over it drifts.
    final long[] iterationSignature;
    long retireSignature; // of the iteration now retiring
    // The first instances' stage cycles, TIMELINE_FIELDS each, as RunModel.Result's timeline gives them: one flat
    // array a run instead of 64 small ones, read as rows only when asked.
    static final int TIMELINE_FIELDS = 7;
    final int[] timeline;
    int timelineRows;
    // The stages, in the order a micro-op meets them.
    private final FetchStage frontEnd;
    private final DispatchStage renamer;
    private final ExecuteStage scheduler_;
    private final RetireStage retirement;
    final SteadyState.Detector steadyState; // periods of up to 32 iterations agreeing over 24 and three periods
    final int timelineSize;
    final boolean traced; // every iteration run and kept in the timeline (llvm-mca's statistics)
    long period = -1;
    int periodIterations;
    long finalCycles = -1;
    int simulatedIterations;
    // Iterations this run may simulate (runIterations).
    final int iterations;
    long now;

    /**
     * @param idealBackEnd whether renaming, execution and retirement take no time and have no limits, so that
     *                     the run measures what the front end alone delivers (its bound, {@link Bottleneck})
     */
    public Pipeline(CpuContext context, BasicBlock block, RunModel.Options options, boolean idealBackEnd, Scratch scratch) {
        this(context, block, options, idealBackEnd, scratch, false);
    }

    /**
     * A pipeline that is {@code traced} runs exactly the options' iterations, every one (no stop at a steady state),
     * and keeps every instance's stage cycles in its timeline: what llvm-mca's statistics views count.
     */
    public Pipeline(CpuContext context, BasicBlock block, RunModel.Options options, boolean idealBackEnd, Scratch scratch,
                    boolean traced) {
        super(context, block, options);
        this.idealBackEnd = idealBackEnd;
        this.traced = traced;
        this.params = context.params();
        // Only a machine whose fetch slides over the code (Golden Cove: periods up to 32 iterations, a 512-entry
        // reorder buffer) runs longer; the older machines' runs, and every prediction of theirs, stay as they were.
        this.iterations = core.slidingFetch() && !traced
                ? runIterations(options.iterations(), issueSlots, params.robSize()) : options.iterations();
        this.total = n * iterations;
        this.portCount = params.ports().size();
        this.loadGroup = context.ports().groupOf(core.loadPorts());
        this.split = new int[n];
        this.singleOp = new boolean[n];
        this.opPart = new int[n][];
        this.loadPart = new int[n][];
        for (int i = 0; i < n; i++) {
            split[i] = twoStep[i] ? demand[i].length - addressUops[i] : demand[i].length;
            singleOp[i] = split[i] == 1 && demand[i][0] >= 0 && (twoStep[i] || !loading[i]);
            opPart[i] = Arrays.copyOfRange(demand[i], 0, split[i]);
            loadPart[i] = Arrays.copyOfRange(demand[i], split[i], demand[i].length);
        }
        this.lockBack = distanceBack(locked);
        this.fenceBack = distanceBack(fence);
        this.storeFenceBack = distanceBack(storeFence);
        this.ordered = new boolean[n];
        for (int i = 0; i < n; i++) {
            ordered[i] = locked[i] || fence[i] || fenceBack[i] > 0 || memoryAccess[i] && lockBack[i] > 0
                    || storeFence[i] || storing[i] && storeFenceBack[i] > 0;
        }
        this.lsdCopies = lsdCopies();
        // Cache banks need the loads' addresses, which only BHive's harness memory gives.
        this.loadOffset = (core.cacheBanks() || core.sameBankLoads() > 0) && options.memoryDependencies()
                && options.harnessMemory(loop) ? BhiveMemory.loadOffsets(memory) : null;
        this.syncProducer = new int[n];
        int[] writers = Sources.any(stackSync) ? Sources.explicitStackWriters(block, stackOp) : null;
        for (int i = 0; i < n; i++) {
            syncProducer[i] = stackSync[i] ? writers[i] : -1;
        }
        // Per-instance state lives in rings of `window` slots (instance j in slot j & mask): enough for every
        // instance in flight (instruction queue, micro-op queue, reorder buffer) and the two iterations of
        // producers an in-flight instance can read; the front end and the renamer wait rather than overrun it.
        int slots = Integer.highestOneBit(Math.max(16, core.instructionQueue() + core.uopQueue() + params.robSize()
                + core.predecodeWidth() + 4 * n + 8) * 2 - 1);
        this.mask = slots - 1;
        int walk = core.pageWalkCycles() == null ? 0 : core.pageWalkCycles();
        this.translation = options.memoryDependencies() && options.harnessMemory(loop)
                ? Translation.of(BhiveMemory.movingAddresses(memory), n, walk, slots) : null;
        Scratch room = scratch.fit(slots, maxDemand, portCount * iterations);
        this.predecoded = room.predecoded;
        this.decoded = room.decoded;
        this.renamed = room.renamed;
        this.issued = room.issued;
        this.done = room.done;
        this.bound = room.bound;
        this.eliminated = room.eliminated;
        this.loadDone = room.loadDone;
        this.notBefore = room.notBefore;
        this.forwarded = room.forwarded;
        this.blocker = room.blocker;
        this.waitHead = room.waitHead;
        this.insnOf = room.insnOf;
        this.iterOf = room.iterOf;
        this.waitNext = room.waitNext;
        this.sourcesReady = room.sourcesReady;
        this.committed = room.committed;
        this.room = room;
        this.waitSum = new long[n];
        if (!options.frontEnd()) { // every instruction waits in the micro-op queue from the start
            predecodeNext = total;
            decodeNext = total;
        }
        this.scheduler = room.scheduler;
        this.wake = room.wake;
        this.queued = new int[portCount];
        this.queuedAtStart = new int[portCount];
        this.dispatchedNow = new int[portCount];
        this.eliminations = new int[3][core.moveEliminationCycles()];
        this.eliminationCycle = new long[3][core.moveEliminationCycles()];
        this.portFree = new long[portCount];
        this.portWaiters = new int[portCount];
        this.portUse = new long[portCount];
        this.portBusy = room.portBusy;
        this.scratch = new long[portCount];
        this.taken = new long[portCount];
        this.iterationRetired = new long[iterations];
        this.iterationSignature = new long[iterations];
        this.timelineSize = traced ? total : Math.min(total, 64);
        this.timeline = new int[timelineSize * TIMELINE_FIELDS];
        this.steadyState = new SteadyState.Detector(iterations, 32, 24);
        this.simulatedIterations = iterations;
        this.frontEnd = new FetchStage(this);
        this.renamer = new DispatchStage(this);
        this.scheduler_ = new ExecuteStage(this);
        this.retirement = new RetireStage(this);
    }

    /**
     * The iterations a run simulates: {@code asked} (the options', 100), or more for a block so short that the reorder
     * buffer holds more than a quarter of that many iterations — its fill would outlast the quarter of the run that a
     * run without a steady state leaves out of its estimate (Golden Cove's 512 entries hold 170 iterations of a
     * three-micro-op block) — at most four times as many. A run that finds its steady state stops there as before.
     */
    static int runIterations(int asked, int[] issueSlots, int robSize) {
        long uops = 0;
        for (int s : issueSlots) {
            uops += s;
        }
        long fill = (4L * robSize + Math.max(1, uops) - 1) / Math.max(1, uops);
        return (int) Math.min(4L * asked, Math.max(asked, fill));
    }

    /** Per instruction, how many instances back the nearest marked one is, cyclically (0: none marked). */
    private static int[] distanceBack(boolean[] marked) {
        int n = marked.length;
        int[] back = new int[n];
        boolean any = false;
        for (boolean m : marked) {
            any |= m;
        }
        for (int i = 0; i < n && any; i++) {
            for (int d = 1; d <= n; d++) {
                if (marked[((i - d) % n + n) % n]) {
                    back[i] = d;
                    break;
                }
            }
        }
        return back;
    }

    /** Instance {@code j}, instruction {@code i} of iteration {@code k}, enters the window: its slot is reset. */
    void born(int j, int i, int k) {
        int at = j & mask;
        predecoded[at] = options.frontEnd() ? Long.MAX_VALUE : -1;
        decoded[at] = options.frontEnd() ? Long.MAX_VALUE : -1;
        renamed[at] = -1;
        issued[at] = -1;
        done[at] = Long.MAX_VALUE;
        eliminated[at] = false;
        loadDone[at] = Long.MAX_VALUE;
        notBefore[at] = 0;
        forwarded[at] = Long.MIN_VALUE;
        blocker[at] = -1;
        waitHead[at] = -1;
        insnOf[at] = i;
        iterOf[at] = k;
        sourcesReady[at] = false;
        committed[at] = Long.MAX_VALUE;
    }

    /** The cycle loop: the stages from the back of the pipeline to the front, once per cycle. */
    public RunModel.Result run() {
        try {
            while (nextRetire < total) {
                retirement.retire();
                if (finalCycles >= 0) {
                    break;
                }
                scheduler_.execute();
                renamer.rename();
                frontEnd.decode();
                frontEnd.predecode();
                tick();
            }
            return result();
        } finally {
            room.portBusyDirty = (busiestIteration + 1) * portCount; // what the next run must clear
        }
    }

    /** Whether the run found a steady state (a repeating period) rather than measuring its last iterations. */
    public boolean periodic() {
        return period > 0;
    }

    /** Ends the cycle. */
    void tick() {
        for (int p = 0; p < portCount; p++) {
            queued[p] -= dispatchedNow[p];
            dispatchedNow[p] = 0;
        }
        now++;
        context.checkRunLength(now, total, block);
    }

    /** The statistics: steady-state cycles per iteration, and per simulated iteration port use and waiting. */
    RunModel.Result result() {
        long totalCycles = finalCycles >= 0 ? finalCycles : now;
        double iterations = simulatedIterations;
        double[] portCycles = new double[portCount];
        for (int k = 0; k < simulatedIterations; k++) {
            for (int p = 0; p < portCount; p++) {
                portCycles[p] += portBusy[k * portCount + p] / iterations;
            }
        }
        double[] wait = new double[n];
        for (int i = 0; i < n; i++) {
            wait[i] = waitSum[i] / iterations;
        }
        // The store buffer drains at the cache's pace after retirement (StoreCommit): slower than the rest of the
        // machine, it fills and holds allocation to that pace, a steady state the run needs no cycles to reach.
        // x87 microcode assists flush the pipeline: their cycles come on top of the rest (X87Assists).
        return new RunModel.Result(Math.max(cyclesPerIteration(totalCycles), storeCommit) + x87Assists, totalCycles,
                portCycles,
                wait, fallbacks, new TimelineRows(timeline, timelineRows));
    }

    /**
     * Steady-state cycles per iteration: the detected period, else the slope of retire cycle over iteration from
     * the last iteration back a multiple of 16 iterations, at least a quarter of the way in (so that the fill does
     * not count), else (a run of few iterations) the total per iteration.
     */
    private double cyclesPerIteration(long totalCycles) {
        if (period > 0) {
            return period / (double) periodIterations;
        }
        int last = iterations - 1;
        int span = (last - last / 4) / 16 * 16; // a multiple of every period the 16-byte windows cause
        if (span >= 16) {
            // The least-squares slope of retire cycle over iteration in that window, not its two ends' difference:
            // a stall at either end (a page walk) would otherwise set the figure.
            double meanK = last - span / 2.0;
            double meanT = 0;
            for (int k = last - span; k <= last; k++) {
                meanT += iterationRetired[k];
            }
            meanT /= span + 1;
            double num = 0;
            double den = 0;
            for (int k = last - span; k <= last; k++) {
                num += (k - meanK) * (iterationRetired[k] - meanT);
                den += (k - meanK) * (k - meanK);
            }
            return num / den;
        }
        if (last >= 8) {
            return (iterationRetired[last] - iterationRetired[last / 4]) / (double) (last - last / 4);
        }
        return totalCycles / (double) iterations;
    }

    /** A run's timeline rows over its flat array: each row a fresh copy, so a caller cannot change the run's. */
    private static final class TimelineRows extends AbstractList<int[]> implements RandomAccess {
        private final int[] flat;
        private final int rows;

        TimelineRows(int[] flat, int rows) {
            this.flat = flat;
            this.rows = rows;
        }

        @Override
        public int[] get(int index) {
            Objects.checkIndex(index, size());
            return Arrays.copyOfRange(flat, index * TIMELINE_FIELDS, (index + 1) * TIMELINE_FIELDS);
        }

        @Override
        public int size() {
            return rows;
        }
    }
}
