package dev.basalt.simulator;

import dev.basalt.decoder.BasicBlock;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * One run of the second-generation machine (DESIGN.md §11), the block repeated back to back from an aligned
 * address as BHive ran it. Each cycle runs the stages from the back of the pipeline to the front, so that each
 * sees what the stage before it produced in earlier cycles:
 * <ol>
 * <li>{@link #retire}: in program order, up to {@link CoreParams#retireWidth()} fused micro-ops of finished
 *     instructions;</li>
 * <li>{@link #execute}: oldest first, every renamed instruction whose sources are ready and whose ports (bound at
 *     rename) are free; a load of an address an in-flight store wrote gets the data by store forwarding;</li>
 * <li>{@link #rename}: in order from the micro-op queue, up to {@link CoreParams#issueWidth()} fused micro-ops into
 *     the reorder buffer and scheduler, binding each unfused micro-op to a port (fewest queued micro-ops, ties to
 *     the higher port, odd slots to the second least loaded unless 3 or more behind, loads alternating);
 *     zero idioms and NOPs need no port, and eliminated moves neither port nor latency;</li>
 * <li>{@link #decode}: from the instruction queue, up to {@link CoreParams#decoders()} instructions — the first on
 *     the complex decoder, the others only if one fused micro-op — and {@link CoreParams#decodeUops()} micro-ops;
 *     an instruction of more micro-ops than {@link CoreParams#microcodedAbove()} comes from the microcode sequencer
 *     after a switch;</li>
 * <li>{@link #predecode}: the current aligned window of {@link CoreParams#predecodeBytes()} bytes, marking up to
 *     {@link CoreParams#predecodeWidth()} instructions that end in it; a length-changing prefix stalls it
 *     {@link CoreParams#lcpPenalty()} cycles, and an instruction whose opcode is still in a window whose five slots
 *     were used costs one more cycle.</li>
 * </ol>
 * The throughput is the steady state's: the cycles between retiring two iterations far apart, divided by the
 * iterations between them (so the pipeline's fill, which BHive's measurement cancels, does not count).
 */
final class Pipeline extends BlockFacts {

    private final boolean idealBackEnd;
    private final SimulatorParams params;
    private final int total;
    private final int portCount;
    final int[] syncProducer; // the last instruction before i (cyclically) writing rsp explicitly, or -1
    // Locked read-modify-writes: how many instances back the nearest earlier locked one is (0: none in the block).
    private final int[] lockBack;
    // Execution fences: how many instances back the nearest earlier fence is (0: none in the block).
    private final int[] fenceBack;
    // Store fences: how many instances back the nearest earlier sfence is (0: none in the block).
    private final int[] storeFenceBack;
    private final int lsdCopies; // iterations the loop stream detector issues as one
    // Cache banks (Sandy/Ivy Bridge): each instruction's known load offset in the page, or -1; the offsets of
    // the loads executed this cycle.
    private final int[] loadOffset;
    private final int[] cycleLoads = new int[4];
    private int cycleLoadCount;
    // Load+operation instructions and stores execute in two steps ({@link BlockFacts#twoStep}): the address
    // micro-ops — loads, store address — (demand[i][split[i]..]) when the address is ready, the rest
    // (demand[i][..split[i]]: the operation, the store data) when the loaded data and the other sources are;
    // opPart and loadPart are the two halves for execution-time port choice.
    private final int[] split;
    private final int[][] opPart;
    private final int[][] loadPart;
    private final int loadGroup;
    // Per instance j (instruction j % n of iteration j / n): cycle of each stage (Long.MAX_VALUE: not yet; -1:
    // not modelled), the ports its micro-ops are bound to, whether its move was eliminated.
    private final long[] predecoded;
    private final long[] decoded;
    private final long[] renamed;
    private final long[] issued;
    private final long[] done;
    private final int[] bound;
    private final boolean[] eliminated;
    private final long[] loadDone;
    private final int mask;
    private final long[] waitSum; // per instruction: cycles retired instances waited from rename to execution
    private final long[] notBefore; // a lower bound of the cycle instance j's current step can execute
    private final int[] blocker; // the producer instance whose unknown result held j up last, or -1
    private final boolean[] sourcesReady; // whether j's current step found its sources ready (ports held it)
    private final Scratch room;
    private int busiestIteration; // the highest iteration whose port counts this run touched
    // Front end.
    private long window;
    private int predecodeNext;
    private int predecodeStall;
    private int decodeNext;
    private long microcodeBusyUntil;
    private int queuedUops;
    // Renamer and scheduler.
    private int renameNext;
    private int renamedSlotsOfCurrent;
    private int robUops;
    private int schedUops;
    private final int[] scheduler;
    private final long[] wake; // per scheduler entry: the first cycle it may execute (a lower bound)
    private long earliestWake; // the smallest wake of the scheduler's entries (Long.MAX_VALUE: none)
    private int schedCount;
    private final int[] queued;
    private final int[] queuedAtStart;
    private int loadTurn;
    private final int[][] eliminations;
    private final long[][] eliminationCycle;
    // Ports.
    private final long[] portFree;
    private final long[] portUse;
    private final long[] portBusy; // per iteration and port: busy cycles of that iteration's micro-ops
    private final long[] scratch;
    private final long[] taken;
    // Retirement.
    private int nextRetire;
    private final long[] iterationRetired;
    // Per iteration, how long each of its instances waited between finishing and retiring (a hash): in a steady
    // state it repeats with the retire times; while a bottleneck is still taking over it drifts.
    private final long[] iterationSignature;
    private long retireSignature; // of the iteration now retiring
    private final List<int[]> timeline;
    private final SteadyState.Detector steadyState; // periods of up to 32 iterations agreeing over 24
    private final int timelineSize;
    private long period = -1;
    private int periodIterations;
    private long finalCycles = -1;
    private int simulatedIterations;
    private long now;

    /**
     * @param idealBackEnd whether renaming, execution and retirement take no time and have no limits, so that
     *                     the run measures what the front end alone delivers (its bound, {@link Bottleneck})
     */
    Pipeline(Simulator simulator, BasicBlock block, Simulator.Options options, boolean idealBackEnd, Scratch scratch) {
        super(simulator, block, options);
        this.idealBackEnd = idealBackEnd;
        this.params = simulator.params();
        this.total = n * options.iterations();
        this.portCount = params.ports().size();
        this.loadGroup = simulator.ports().groupOf(core.loadPorts());
        this.split = new int[n];
        this.opPart = new int[n][];
        this.loadPart = new int[n][];
        for (int i = 0; i < n; i++) {
            split[i] = twoStep[i] ? demand[i].length - addressUops[i] : demand[i].length;
            opPart[i] = Arrays.copyOfRange(demand[i], 0, split[i]);
            loadPart[i] = Arrays.copyOfRange(demand[i], split[i], demand[i].length);
        }
        this.lockBack = distanceBack(locked);
        this.fenceBack = distanceBack(fence);
        this.storeFenceBack = distanceBack(storeFence);
        this.lsdCopies = lsdCopies();
        // Cache banks need the loads' addresses, which only BHive's harness memory gives.
        this.loadOffset = core.cacheBanks() && options.memoryDependencies() && options.harnessMemory(loop)
                ? BhiveMemory.loadOffsets(memory) : null;
        this.syncProducer = new int[n];
        for (int i = 0; i < n; i++) {
            syncProducer[i] = -1;
            for (int back = 1; back <= n && stackSync[i]; back++) {
                int q = ((i - back) % n + n) % n;
                if (!stackOp[q] && facts[q].writesStackPointer()) {
                    syncProducer[i] = q;
                    break;
                }
            }
        }
        // Per-instance state lives in rings of `window` slots (instance j in slot j & mask): enough for every
        // instance in flight (instruction queue, micro-op queue, reorder buffer) and the two iterations of
        // producers an in-flight instance can read; the front end and the renamer wait rather than overrun it.
        int slots = Integer.highestOneBit(Math.max(16, core.instructionQueue() + core.uopQueue() + params.robSize()
                + core.predecodeWidth() + 4 * n + 8) * 2 - 1);
        this.mask = slots - 1;
        Scratch room = scratch.fit(slots, maxDemand, portCount * options.iterations());
        this.predecoded = room.predecoded;
        this.decoded = room.decoded;
        this.renamed = room.renamed;
        this.issued = room.issued;
        this.done = room.done;
        this.bound = room.bound;
        this.eliminated = room.eliminated;
        this.loadDone = room.loadDone;
        this.notBefore = room.notBefore;
        this.blocker = room.blocker;
        this.sourcesReady = room.sourcesReady;
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
        this.eliminations = new int[3][core.moveEliminationCycles()];
        this.eliminationCycle = new long[3][core.moveEliminationCycles()];
        this.portFree = new long[portCount];
        this.portUse = new long[portCount];
        this.portBusy = room.portBusy;
        this.scratch = new long[portCount];
        this.taken = new long[portCount];
        this.iterationRetired = new long[options.iterations()];
        this.iterationSignature = new long[options.iterations()];
        this.timelineSize = Math.min(total, 64);
        this.timeline = new ArrayList<>(timelineSize); // sized: growing it was 5% of a run
        this.steadyState = new SteadyState.Detector(options.iterations(), 32, 24);
        this.simulatedIterations = options.iterations();
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

    /**
     * The large arrays of a run, kept by the simulator per thread and reused: a run sizes them ({@link #fit}),
     * clears the per-iteration port counts, and resets a ring slot when its instance enters the window
     * ({@link #born}) — no slot is read before that.
     */
    static final class Scratch {
        private int slots;
        private int demand;
        long[] predecoded = new long[0];
        long[] decoded = new long[0];
        long[] renamed = new long[0];
        long[] issued = new long[0];
        long[] done = new long[0];
        int[] bound = new int[0];
        boolean[] eliminated = new boolean[0];
        long[] loadDone = new long[0];
        long[] notBefore = new long[0];
        int[] blocker = new int[0];
        boolean[] sourcesReady = new boolean[0];
        private int portBusyDirty;
        int[] scheduler = new int[0];
        long[] wake = new long[0];
        long[] portBusy = new long[0];

        /** These arrays with room for at least {@code slots} ring slots, and zeroed per-iteration port counts. */
        Scratch fit(int slots, int demand, int portBusyLength) {
            if (this.slots < slots || this.demand < demand) { // larger arrays serve smaller runs
                this.slots = Math.max(this.slots, slots);
                this.demand = Math.max(this.demand, demand);
                slots = this.slots;
                demand = this.demand;
                predecoded = new long[slots];
                decoded = new long[slots];
                renamed = new long[slots];
                issued = new long[slots];
                done = new long[slots];
                bound = new int[slots * demand];
                eliminated = new boolean[slots];
                loadDone = new long[slots];
                notBefore = new long[slots];
                blocker = new int[slots];
                sourcesReady = new boolean[slots];
                scheduler = new int[slots];
                wake = new long[slots];
            }
            if (portBusy.length < portBusyLength) {
                portBusy = new long[portBusyLength];
            } else {
                Arrays.fill(portBusy, 0, Math.min(portBusyDirty, portBusy.length), 0);
            }
            portBusyDirty = 0;
            return this;
        }
    }

    /** Instance {@code j} enters the window: its slot is reset. */
    private void born(int j) {
        int at = j & mask;
        predecoded[at] = options.frontEnd() ? Long.MAX_VALUE : -1;
        decoded[at] = options.frontEnd() ? Long.MAX_VALUE : -1;
        renamed[at] = -1;
        issued[at] = -1;
        done[at] = Long.MAX_VALUE;
        eliminated[at] = false;
        loadDone[at] = Long.MAX_VALUE;
        notBefore[at] = 0;
        blocker[at] = -1;
        sourcesReady[at] = false;
    }

    /** The cycle loop: the stages from the back of the pipeline to the front, once per cycle. */
    Simulator.Result run() {
        try {
            while (nextRetire < total) {
                retire();
                if (finalCycles >= 0) {
                    break;
                }
                execute();
                rename();
                decode();
                predecode();
                tick();
            }
            return result();
        } finally {
            room.portBusyDirty = (busiestIteration + 1) * portCount; // what the next run must clear
        }
    }

    /** Retires, in program order, up to the retire width of fused micro-ops of finished instructions. */
    void retire() {
        int slots = idealBackEnd ? Integer.MAX_VALUE : core.retireWidth();
        while (nextRetire < renameNext && done[nextRetire & mask] <= now && slots > 0) {
            int uops = issueSlots[nextRetire % n];
            if (uops > slots && slots < core.retireWidth()) {
                return; // a wide instruction retires at the start of a cycle
            }
            slots -= uops;
            robUops -= uops;
            int j = nextRetire;
            int at = j & mask;
            waitSum[j % n] += issued[at] - renamed[at];
            retireSignature = retireSignature * 31 + (now - done[at]);
            if (timeline.size() < timelineSize) {
                timeline.add(new int[] {j, (int) predecoded[at], (int) decoded[at], (int) renamed[at], (int) issued[at],
                        (int) done[at], (int) now});
            }
            nextRetire++;
            if (nextRetire % n == 0 && iterationRetired(nextRetire / n - 1)) {
                return;
            }
        }
    }

    /** Whether the run found a steady state (a repeating period) rather than measuring its last iterations. */
    boolean periodic() {
        return period > 0;
    }

    /** Records that iteration {@code k} retired now; whether the steady state gives the run's end. */
    private boolean iterationRetired(int k) {
        iterationRetired[k] = now;
        iterationSignature[k] = retireSignature;
        retireSignature = 0;
        // The front end's windows give periods of up to 16 iterations, port binding longer ones; 24 iterations
        // that each repeat the one a period before, in retire time and in how long each instance waited to retire,
        // are a steady state. Retire times alone can repeat while one bottleneck takes over from another (a load
        // paced by the front end, then the store port): such runs measured faster than the machine's own bounds.
        long[] steady = steadyState.offer(iterationRetired, iterationSignature, k);
        if (steady == null) {
            return false;
        }
        period = steady[1];
        periodIterations = (int) steady[2];
        finalCycles = steady[0] + 1;
        simulatedIterations = k + 1;
        return true;
    }

    /**
     * Executes, oldest first, every renamed instruction whose sources are ready and whose ports are free; a
     * load+operation instruction first its load, then the rest.
     */
    void execute() {
        if (idealBackEnd) {
            for (int s = 0; s < schedCount; s++) {
                issued[scheduler[s] & mask] = now;
                done[scheduler[s] & mask] = now;
            }
            schedCount = 0;
            return;
        }
        if (now < earliestWake) {
            return; // no entry can execute before then: nothing to scan
        }
        cycleLoadCount = 0;
        int keep = 0;
        long[] wake = this.wake;
        for (int s = 0; s < schedCount; s++) {
            int j = scheduler[s];
            if (wake[s] > now) { // known not to be ready yet: the hot path of a full scheduler
                wake[keep] = wake[s];
                scheduler[keep++] = j;
                continue;
            }
            int i = j % n;
            int at = j & mask;
            if (twoStep[i] && loadDone[at] == Long.MAX_VALUE) {
                if (ready(j, i, true) && bankFree(i) && takePorts(j, i, split[i], demand[i].length, loadPart[i])) {
                    loaded(i);
                    loadDone[at] = now + (loading[i] ? params.loadLatency() : 1);
                    notBefore[at] = 0; // the next step has other sources
                    blocker[at] = -1;
                    sourcesReady[at] = false;
                    wake[keep] = loadDone[at];
                } else {
                    wake[keep] = Math.max(now + 1, notBefore[at]);
                }
                scheduler[keep++] = j;
            } else if (ready(j, i, false) && (eliminated[at] || (twoStep[i] || !loading[i] || bankFree(i))
                    && takePorts(j, i, 0, split[i], opPart[i]))) {
                if (!twoStep[i] && loading[i]) {
                    loaded(i);
                }
                issued[at] = now;
                done[at] = eliminated[at] ? now : twoStep[i] && loading[i]
                        ? now + opLatency[i] : now + latency[i];
                if (!eliminated[at]) {
                    schedUops -= unfused[i];
                }
            } else {
                wake[keep] = Math.max(now + 1, notBefore[at]);
                scheduler[keep++] = j;
            }
        }
        schedCount = keep;
        long soonest = Long.MAX_VALUE;
        for (int s = 0; s < keep; s++) {
            soonest = Math.min(soonest, wake[s]);
        }
        earliestWake = soonest;
    }

    /**
     * Whether the sources of instance {@code j} are ready. For the load step of a two-step instruction: its
     * address registers, and a store it reads from (its data arrives by forwarding). For the rest of a two-step
     * instruction: the loaded data and its other sources. Otherwise: every register producer's result (less the
     * consumer's read-advance) and the forwarded data of a store.
     */
    private boolean ready(int j, int i, boolean loadStep) {
        int at = j & mask;
        if (sourcesReady[at]) {
            return true; // ready before, held up by its ports: sources do not become unready
        }
        if (notBefore[at] > now) {
            return false; // a source already known to arrive later
        }
        if (locked[i] && !lockMayStart(j)) {
            notBefore[at] = now + 1;
            return false;
        }
        if (fence[i] && !olderFinished(j)) {
            notBefore[at] = now + 1; // a fence executes once everything before it has finished
            return false;
        }
        if (fenceBack[i] > 0 && j - fenceBack[i] >= nextRetire && done[(j - fenceBack[i]) & mask] > now) {
            notBefore[at] = now + 1; // and nothing after it executes before it has
            return false;
        }
        if (memoryAccess[i] && lockBack[i] > 0 && j - lockBack[i] >= nextRetire
                && done[(j - lockBack[i]) & mask] > now) {
            notBefore[at] = now + 1; // a younger memory access waits for the lock before it
            return false;
        }
        if (storeFence[i] && !olderStoresFinished(j)) {
            notBefore[at] = now + 1; // sfence executes once the older stores have finished
            return false;
        }
        if (storing[i] && storeFenceBack[i] > 0 && j - storeFenceBack[i] >= nextRetire
                && done[(j - storeFenceBack[i]) & mask] > now) {
            notBefore[at] = now + 1; // and a younger store waits for it
            return false;
        }
        int waitingFor = blocker[at];
        if (waitingFor >= 0) {
            if (done[waitingFor & mask] == Long.MAX_VALUE) {
                return false; // the producer that held it up last time has still not executed
            }
            blocker[at] = -1;
        }
        long earliest = twoStep[i] && !loadStep ? loadDone[at] : 0;
        boolean unknown = earliest == Long.MAX_VALUE;
        int iteration = j / n;
        for (int k = start[i]; k < start[i + 1] && !unknown; k++) {
            boolean forLoad = memorySource[k] || addressSource[k];
            if (twoStep[i] && forLoad != loadStep) {
                continue;
            }
            int iter = iteration - producers[2 * k + 1];
            if (iter < 0) {
                continue; // the first iteration's loop-carried inputs are ready
            }
            int p = iter * n + producers[2 * k];
            long d = done[p & mask];
            if (d == Long.MAX_VALUE) {
                unknown = true;
                blocker[at] = p;
            } else if (memorySource[k]) {
                // Forwarded, the load's data arrives storeForwardLatency after the store completes; it issues so
                // that its own load latency ends then. Without forwarding it waits for the store.
                earliest = Math.max(earliest, !options.storeForwarding() ? d : d + core.storeForwardLatency()
                        - params.loadLatency() + (partialSource[k] ? core.storeForwardFailPenalty() : 0));
            } else {
                earliest = Math.max(earliest, d - (twoStep[i] ? 0 : readAdvance[i]));
            }
        }
        if (!unknown && stackSync[i] && syncProducer[i] >= 0 && !(twoStep[i] && !loadStep)) {
            // The sync micro-op adds the engine's offset to rsp as the last explicit write left it.
            int iter = iteration - (syncProducer[i] >= i ? 1 : 0);
            if (iter >= 0) {
                int p = iter * n + syncProducer[i];
                long d = done[p & mask];
                unknown = d == Long.MAX_VALUE;
                if (unknown) {
                    blocker[at] = p;
                }
                earliest = Math.max(earliest, d + 1);
            }
        }
        if (unknown || earliest > now) {
            if (!unknown || earliest > notBefore[at]) {
                notBefore[at] = Math.max(notBefore[at], unknown ? Math.min(earliest, now + 1) : earliest);
            }
            return false;
        }
        sourcesReady[at] = true;
        return true;
    }

    /**
     * Whether instruction {@code i}'s load can use the data cache this cycle: on a CPU with cache banks, not when a
     * load already executed this cycle reads the same bank (address bits 2–5) of another line set (bits 6–11).
     */
    private boolean bankFree(int i) {
        if (loadOffset == null || loadOffset[i] < 0) {
            return true;
        }
        int a = loadOffset[i];
        for (int k = 0; k < cycleLoadCount; k++) {
            int b = cycleLoads[k];
            if (((a ^ b) & 0x3c) == 0 && ((a ^ b) & 0xfc0) != 0) {
                return false;
            }
        }
        return true;
    }

    /** Notes that instruction {@code i}'s load executed this cycle. */
    private void loaded(int i) {
        if (loadOffset != null && loadOffset[i] >= 0 && cycleLoadCount < cycleLoads.length) {
            cycleLoads[cycleLoadCount++] = loadOffset[i];
        }
    }

    /** Whether every instance older than {@code j} has finished. */
    private boolean olderFinished(int j) {
        for (int k = nextRetire; k < j; k++) {
            if (done[k & mask] > now) {
                return false;
            }
        }
        return true;
    }

    /** Whether store fence instance {@code j} may execute: every older store has finished. */
    private boolean olderStoresFinished(int j) {
        for (int k = nextRetire; k < j; k++) {
            if (storing[k % n] && done[k & mask] > now) {
                return false;
            }
        }
        return true;
    }

    /** Whether locked instance {@code j} may execute: every older memory access has finished (it is a fence). */
    private boolean lockMayStart(int j) {
        for (int k = nextRetire; k < j; k++) {
            if (memoryAccess[k % n] && done[k & mask] > now) {
                return false;
            }
        }
        return true;
    }

    /**
     * Takes the ports of micro-ops {@code from..to} of instance {@code j} this cycle, or nothing: their bound
     * ports, or any free ones ({@code part}, the same micro-ops, for execution-time choice).
     */
    private boolean takePorts(int j, int i, int from, int to, int[] part) {
        int[] d = demand[i];
        if (!options.issueTimePorts()) {
            if (!simulator.ports().reserve(part, portFree, portUse, scratch, now, taken)) {
                return false;
            }
            account(j);
            return true;
        }
        int base = (j & mask) * maxDemand;
        for (int k = from; k < to; k++) {
            if (portFree[bound[base + k]] > now) {
                return false;
            }
            if (d[k] < 0) {
                k++;
            }
        }
        // Each micro-op holds its port a cycle more (a divider its cycles): a port taken twice is busy two.
        int busy = (j / n) * portCount;
        busiestIteration = Math.max(busiestIteration, j / n);
        for (int k = from; k < to; k++) {
            int port = bound[base + k];
            boolean divider = d[k] < 0;
            int cycles = divider ? d[++k] : 1;
            portFree[port] = Math.max(portFree[port], now) + cycles;
            portUse[port] += cycles;
            portBusy[busy + port] += cycles;
            if (!divider) {
                queued[port]--;
            }
        }
        return true;
    }

    /** Adds the port cycles just taken ({@code taken}) to instance {@code j}'s iteration's statistics. */
    private void account(int j) {
        int base = (j / n) * portCount;
        busiestIteration = Math.max(busiestIteration, j / n);
        for (int p = 0; p < portCount; p++) {
            portBusy[base + p] += taken[p];
        }
    }

    /** Renames (issues) up to the issue width of fused micro-ops from the micro-op queue, in order. */
    void rename() {
        int slots = idealBackEnd ? Integer.MAX_VALUE : core.issueWidth();
        System.arraycopy(queued, 0, queuedAtStart, 0, portCount); // binding sees the counts of the cycle's start
        while (renameNext < total && slots > 0 && (options.frontEnd()
                ? renameNext < decodeNext && decoded[renameNext & mask] < now
                : renameNext - nextRetire + 2 * n < predecoded.length)) {
            int j = renameNext;
            int i = j % n;
            int uops = issueSlots[i];
            if (i == 0 && source == Simulator.UopSource.LSD && slots < core.issueWidth() && (j / n) % lsdCopies == 0) {
                return; // the loop stream detector does not issue two of its (unrolled) loops in one cycle
            }
            if (renamedSlotsOfCurrent == 0) {
                if (uops > slots && uops <= core.issueWidth()) {
                    return; // an instruction's fused micro-ops issue together
                }
                if (!idealBackEnd && !fits(i)) {
                    return;
                }
            }
            int take = Math.min(slots, uops - renamedSlotsOfCurrent);
            slots -= take;
            renamedSlotsOfCurrent += take;
            if (renamedSlotsOfCurrent < uops) {
                return; // the rest of this instruction's micro-ops issue next cycle
            }
            renamedSlotsOfCurrent = 0;
            enter(j, i, (idealBackEnd ? 0 : core.issueWidth()) - slots - uops);
            renameNext++;
        }
    }

    /** Whether instruction {@code i} fits in the reorder buffer and scheduler (an empty one takes anything). */
    private boolean fits(int i) {
        boolean robFull = robUops > 0 && robUops + issueSlots[i] > params.robSize();
        boolean schedulerFull = !shape[i].noPort() && schedUops > 0
                && schedUops + unfused[i] > params.schedulerSize();
        return !robFull && !schedulerFull;
    }

    /** Puts renamed instance {@code j} into the reorder buffer and, unless it needs no port, the scheduler. */
    private void enter(int j, int i, int slot) {
        int at = j & mask;
        if (!options.frontEnd()) {
            born(j);
        }
        renamed[at] = now;
        robUops += issueSlots[i];
        if (options.frontEnd()) {
            queuedUops -= shape[i].decodeUops();
        }
        if (shape[i].noPort()) {
            issued[at] = now;
            done[at] = now;
            return;
        }
        wake[schedCount] = now + 1;
        earliestWake = Math.min(earliestWake, now + 1);
        scheduler[schedCount++] = j;
        int file = shape[i].moveRegisterFile();
        if (file > 0 && eliminate(file)) {
            eliminated[at] = true;
            return;
        }
        schedUops += unfused[i];
        if (options.issueTimePorts()) {
            int[] d = demand[i];
            for (int k = 0; k < d.length; k++) {
                if (d[k] < 0) {
                    bound[(j & mask) * maxDemand + k] = -d[k] - 1;
                    k++;
                } else {
                    int port = bindPort(d[k], slot);
                    bound[(j & mask) * maxDemand + k] = port;
                    queued[port]++;
                }
            }
        }
    }

    /** Whether a move-elimination slot of register file {@code file} is free this cycle (and takes it). */
    private boolean eliminate(int file) {
        int[] count = eliminations[file];
        long[] cycle = eliminationCycle[file];
        int used = 0;
        for (int c = 0; c < count.length; c++) {
            if (cycle[c] > now - count.length) {
                used += count[c];
            }
        }
        if (used >= core.moveEliminationSlots()) {
            return false;
        }
        int at = (int) (now % count.length);
        if (cycle[at] != now) {
            cycle[at] = now;
            count[at] = 0;
        }
        count[at]++;
        return true;
    }

    /**
     * The port a micro-op of port group {@code group} is bound to at renamer slot {@code slot} (that of its
     * instruction's first fused micro-op in this cycle): loads alternate; otherwise the port with the fewest
     * queued micro-ops at the start of the cycle (ties to the higher port), except that odd slots take
     * the second least loaded unless it has 3 or more micro-ops more.
     */
    private int bindPort(int group, int slot) {
        int[] members = simulator.ports().members(group);
        if (members.length == 1) {
            return members[0];
        }
        if (group == loadGroup) {
            return members[loadTurn++ % members.length];
        }
        int best = -1;
        int second = -1;
        for (int port : members) { // members ascend, so >= prefers the higher port on ties
            if (best < 0 || queuedAtStart[port] <= queuedAtStart[best]) {
                second = best;
                best = port;
            } else if (second < 0 || queuedAtStart[port] <= queuedAtStart[second]) {
                second = port;
            }
        }
        return slot % 2 == 1 && queuedAtStart[second] - queuedAtStart[best] < 3 ? second : best;
    }

    /** Decodes from the instruction queue into the micro-op queue (see the class description). */
    void decode() {
        if (!options.frontEnd() || microcodeBusyUntil > now) {
            return;
        }
        if (source != Simulator.UopSource.LEGACY) {
            deliver();
            return;
        }
        int count = 0;
        int uops = 0;
        while (decodeNext < predecodeNext && count < core.decoders() && predecoded[decodeNext & mask] < now) {
            InstructionShape s = shape[decodeNext % n];
            int u = s.decodeUops();
            if (fusedTail[decodeNext % n]) { // decoded with its flag setter, by the same decoder
                decoded[decodeNext++ & mask] = now;
                continue;
            }
            int next = decodeNext + 1;
            if (next < total && fusedTail[next % n] && (next >= predecodeNext || predecoded[next & mask] >= now)) {
                return; // a flag setter waits for the jump it fuses with
            }
            if (queuedUops + u > core.uopQueue() && queuedUops > 0) {
                return;
            }
            if (s.microcoded()) {
                if (count > 0) {
                    return;
                }
                // Switch to the microcode sequencer and back; it delivers msUopsPerCycle micro-ops a cycle.
                long last = now + core.msSwitchCycles() + (u + core.msUopsPerCycle() - 1) / core.msUopsPerCycle() - 1;
                decoded[decodeNext++ & mask] = last;
                queuedUops += u;
                microcodeBusyUntil = last + 1;
                return;
            }
            if (count > 0 && (s.complex() || uops + u > core.decodeUops())) {
                return;
            }
            decoded[decodeNext++ & mask] = now;
            queuedUops += u;
            uops += u;
            count++;
            if (decodeNext < total && fusedTail[decodeNext % n]) { // the jump fused with it comes along
                decoded[decodeNext++ & mask] = now;
            }
        }
    }

    /**
     * A loop's micro-ops from the micro-op cache or the loop stream detector, in place of predecoding and
     * decoding: up to the source's width a cycle ({@code dsbUopsPerCycle}, or the issue width for the LSD),
     * the taken jump at the end of an iteration ending the cycle's delivery.
     */
    private void deliver() {
        int width = source == Simulator.UopSource.DSB ? core.loop().dsbUopsPerCycle() : core.issueWidth();
        int uops = 0;
        while (decodeNext < total && decodeNext - nextRetire + 2 * n < predecoded.length) {
            int i = decodeNext % n;
            int u = shape[i].decodeUops();
            if (queuedUops + u > core.uopQueue() && queuedUops > 0 || uops + u > width && uops > 0) {
                return;
            }
            born(decodeNext);
            predecoded[decodeNext & mask] = now;
            decoded[decodeNext & mask] = now;
            queuedUops += u;
            uops += u;
            decodeNext++;
            predecodeNext = decodeNext;
            if (i == n - 1 && (source == Simulator.UopSource.DSB || decodeNext / n % lsdCopies == 0)) {
                return; // a taken jump ends the cycle's delivery (the LSD's at the end of its unrolled copies)
            }
        }
    }

    /** Predecodes from the current aligned window into the instruction queue (see the class description). */
    void predecode() {
        if (predecodeNext >= total || source != Simulator.UopSource.LEGACY) {
            return;
        }
        if (predecodeStall > 0) {
            predecodeStall--;
            return;
        }
        long windowEnd = (window + 1) * core.predecodeBytes();
        int marked = 0;
        while (predecodeNext < total && marked < core.predecodeWidth()
                && predecodeNext - decodeNext < core.instructionQueue() && end(predecodeNext) < windowEnd
                && predecodeNext - nextRetire + 2 * n < predecoded.length) {
            born(predecodeNext);
            predecoded[predecodeNext & mask] = now;
            if (shape[predecodeNext % n].lengthChanging()) {
                predecodeStall += core.lcpPenalty();
            }
            predecodeNext++;
            marked++;
        }
        if (predecodeNext >= total || end(predecodeNext) >= windowEnd) {
            if (marked == core.predecodeWidth() && predecodeNext < total
                    && address(predecodeNext) + shape[predecodeNext % n].opcodeOffset() < windowEnd) {
                predecodeStall++; // its opcode is in this window, but all its slots are used
            }
            window++;
        }
    }

    /** Address of instance {@code j}'s first byte (block start at 0, aligned). */
    private long address(int j) {
        return (j / n) * blockBytes + offset[j % n];
    }

    /** Address of instance {@code j}'s last byte. */
    private long end(int j) {
        return address(j) + shape[j % n].length() - 1;
    }

    /** Ends the cycle. */
    void tick() {
        now++;
        if (now > 1000L * total + 100_000L) { // no instruction takes 1,000 cycles: a bug, not a block
            throw new IllegalStateException("simulation of " + block.hex() + " did not finish");
        }
    }

    /** The statistics: steady-state cycles per iteration, and per simulated iteration port use and waiting. */
    Simulator.Result result() {
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
        return new Simulator.Result(cyclesPerIteration(totalCycles), totalCycles, portCycles, wait, fallbacks,
                timeline);
    }

    /**
     * Steady-state cycles per iteration: the detected period, else the cycles between the retirement of the last
     * iteration and one a multiple of 16 iterations before it, at least a quarter of the way in (so that the
     * fill does not count), else (a run of few iterations) the total per iteration.
     */
    private double cyclesPerIteration(long totalCycles) {
        if (period > 0) {
            return period / (double) periodIterations;
        }
        int last = options.iterations() - 1;
        int span = (last - last / 4) / 16 * 16; // a multiple of every period the 16-byte windows cause
        if (span >= 16) {
            return (iterationRetired[last] - iterationRetired[last - span]) / (double) span;
        }
        if (last >= 8) {
            return (iterationRetired[last] - iterationRetired[last / 4]) / (double) (last - last / 4);
        }
        return totalCycles / (double) options.iterations();
    }
}
