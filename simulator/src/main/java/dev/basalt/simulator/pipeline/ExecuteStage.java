package dev.basalt.simulator.pipeline;

import dev.basalt.simulator.facts.MergeOperand;
import dev.basalt.simulator.params.CoreParams;
import java.util.Arrays;

/**
 * The scheduler and execution: oldest first, every issued instruction whose sources are ready (registers,
 * store-to-load forwarding) and whose ports, dividers, cache banks and fences allow. See {@link Pipeline}.
 */
final class ExecuteStage {

    private final Pipeline pl; // each method copies it to a local: C1, which ./basalt runs, reloads a field

    ExecuteStage(Pipeline pl) {
        this.pl = pl;
    }

    /**
     * Executes, oldest first, every renamed instruction whose sources are ready and whose ports are free; a
     * load+operation instruction first its load, then the rest.
     */
    void execute() {
        Pipeline pl = this.pl;
        if (pl.idealBackEnd) {
            for (int s = 0; s < pl.schedCount; s++) {
                pl.issued[pl.scheduler[s] & pl.mask] = pl.now;
                pl.done[pl.scheduler[s] & pl.mask] = pl.now;
            }
            pl.schedCount = 0;
            return;
        }
        if (pl.now < pl.earliestWake) {
            return; // no entry can execute before then: nothing to scan
        }
        pl.cycleLoadCount = 0;
        int keep = 0;
        long soonest = Long.MAX_VALUE;
        long[] wake = pl.wake;
        boolean queues = pl.options.issueTimePorts();
        if (queues) {
            Arrays.fill(pl.portWaiters, 0);
        }
        int[] scheduler = pl.scheduler;
        int count = pl.schedCount;
        int mask = pl.mask;
        long now = pl.now;
        for (int s = 0; s < count; s++) {
            int j = scheduler[s];
            int at = j & mask;
            long due = wake[at];
            if (due > now) { // known not to be ready yet: the hot path of a full scheduler
                soonest = Math.min(soonest, due);
                scheduler[keep++] = j;
                continue;
            }
            int i = pl.insnOf[at];
            if (pl.twoStep[i] && pl.loadDone[at] == Long.MAX_VALUE) {
                if (ready(j, i, true) && bankFree(i) && (pl.translation == null || pl.translation.free(j, i, now))
                        && takePorts(j, i, pl.split[i], pl.demand[i].length, pl.loadPart[i])) {
                    loaded(i);
                    long walk = pl.translation == null ? 0 : pl.translation.access(j, i, now);
                    pl.loadDone[at] = (pl.forwarded[at] != Long.MIN_VALUE ? Math.max(pl.now, pl.forwarded[at])
                            : pl.now + (pl.loading[i] ? pl.loadLatency[i] : 1)) + (pl.loading[i] ? walk : 0);
                    pl.notBefore[at] = 0; // the next step has other sources
                    pl.blocker[at] = -1;
                    pl.sourcesReady[at] = false;
                    wake[at] = pl.loadDone[at];
                } else {
                    wake[at] = notReady(at);
                }
                soonest = Math.min(soonest, wake[at]);
                scheduler[keep++] = j;
            } else if (ready(j, i, false) && (pl.eliminated[at] || (pl.twoStep[i] || !pl.loading[i] || bankFree(i))
                    && (pl.translation == null || pl.twoStep[i] || pl.translation.free(j, i, now))
                    && takePorts(j, i, 0, pl.split[i], pl.opPart[i]))) {
                if (!pl.twoStep[i] && pl.loading[i]) {
                    loaded(i);
                }
                long walk = 0;
                if (pl.translation != null && !pl.eliminated[at]) {
                    if (!pl.twoStep[i]) {
                        long w = pl.translation.access(j, i, now);
                        walk = pl.loading[i] ? w : 0;
                    } else if (pl.storing[i] && pl.translation.replay(j)) {
                        holdPorts(j, 0, pl.split[i]); // the store's data is written again once translated
                    }
                }
                pl.issued[at] = pl.now;
                pl.done[at] = pl.eliminated[at] ? pl.now : pl.twoStep[i] && pl.loading[i]
                        ? pl.now + pl.opLatency[i] : pl.forwarded[at] != Long.MIN_VALUE
                        ? Math.max(pl.now, pl.forwarded[at] + pl.latency[i] - pl.context.params().loadLatency())
                        : pl.now + pl.latency[i];
                pl.done[at] += walk;
                if (!pl.eliminated[at]) {
                    pl.schedUops -= pl.unfused[i];
                }
                if (pl.fenceCycles[i] > 0) {
                    pl.fenceFree[pl.fenceKind[i]] = pl.now + pl.fenceCycles[i];
                }
                // Its waiters are younger, so later in this scan: looked at this cycle, as before parking.
                for (int w = pl.waitHead[at]; w >= 0; w = pl.waitNext[w & pl.mask]) {
                    wake[w & pl.mask] = pl.now;
                }
                pl.waitHead[at] = -1;
            } else if (queues && pl.sourcesReady[at] && pl.singleOp[i] && !pl.eliminated[at]) {
                // Held up by its one port, which each older waiter for it (served first, oldest first, one a
                // cycle) takes before it: it cannot run before the port frees plus one cycle for each of them.
                int port = pl.bound[at * pl.maxDemand];
                wake[at] = Math.max(pl.now + 1, pl.portFree[port] + pl.portWaiters[port]++);
                soonest = Math.min(soonest, wake[at]);
                scheduler[keep++] = j;
            } else {
                wake[at] = notReady(at);
                soonest = Math.min(soonest, wake[at]);
                scheduler[keep++] = j;
            }
        }
        pl.schedCount = keep;
        pl.earliestWake = soonest;
    }

    /**
     * The wake of slot {@code at}, which could not execute: parked (never, until its producer executes) when a
     * producer's result is unknown, else the next cycle or the first its sources allow.
     */
    private long notReady(int at) {
        Pipeline pl = this.pl;
        int b = pl.blocker[at];
        return b >= 0 && pl.done[b & pl.mask] == Long.MAX_VALUE ? Long.MAX_VALUE
                : Math.max(pl.now + 1, pl.notBefore[at]);
    }

    /**
     * Whether the sources of instance {@code j} are ready. For the load step of a two-step instruction: its
     * address registers, and a store it reads from (its data arrives by forwarding). For the rest of a two-step
     * instruction: the loaded data and its other sources. Otherwise: every register producer's result (less the
     * consumer's read-advance) and the forwarded data of a store.
     */
    private boolean ready(int j, int i, boolean loadStep) {
        Pipeline pl = this.pl;
        int at = j & pl.mask;
        if (pl.sourcesReady[at]) {
            return true; // ready before, held up by its ports: sources do not become unready
        }
        if (pl.notBefore[at] > pl.now) {
            return false; // a source already known to arrive later
        }
        if (pl.ordered[i] && !ordered(j, i)) {
            return false;
        }
        int waitingFor = pl.blocker[at];
        if (waitingFor >= 0) {
            if (pl.done[waitingFor & pl.mask] == Long.MAX_VALUE) {
                return false; // the producer that held it up last time has still not executed
            }
            pl.blocker[at] = -1;
        }
        long earliest = pl.twoStep[i] && !loadStep ? pl.loadDone[at] : 0;
        boolean unknown = earliest == Long.MAX_VALUE;
        int iteration = pl.iterOf[at];
        for (int k = pl.start[i]; k < pl.start[i + 1] && !unknown; k++) {
            boolean forLoad = pl.memorySource[k] || pl.addressSource[k];
            if (pl.twoStep[i] && forLoad != loadStep) {
                continue;
            }
            int iter = iteration - pl.producers[2 * k + 1];
            if (iter < 0) {
                continue; // the first iteration's loop-carried inputs are ready
            }
            int p = iter * pl.n + pl.producers[2 * k];
            long d = pl.done[p & pl.mask];
            if (d == Long.MAX_VALUE) {
                unknown = true;
                park(at, j, p);
            } else if (pl.memorySource[k] && pl.renamed(i, pl.producers[2 * k], k)) {
                // Memory renaming: the load's data is the stored register's, there as soon as the store has it (a
                // cycle before the store completes); the load itself only checks the prediction.
                pl.forwarded[at] = Math.max(pl.forwarded[at], d - 1);
            } else if (pl.memorySource[k] && pl.core.forwardToWaitingLoads() && pl.options.storeForwarding()
                    && !pl.partialSource[k]) {
                // Forwarded to a load that waits in the load buffer: its data is there storeForwardLatency after the
                // store completes, however early it issued (CoreParams#forwardToWaitingLoads).
                pl.forwarded[at] = Math.max(pl.forwarded[at], d + (pl.storing[i] && pl.twoStep[i]
                        ? pl.core.rmwForwardCycles() : pl.core.storeForwardLatency()) + pl.forwardExtra[i]);
            } else if (pl.memorySource[k]) {
                // Forwarded, the load's data arrives storeForwardLatency after the store completes; it issues so
                // that its own load latency ends then. Without forwarding it waits for the store.
                earliest = Math.max(earliest, !pl.options.storeForwarding() ? d : d + (pl.storing[i] && pl.twoStep[i]
                        ? pl.core.rmwForwardCycles() : pl.core.storeForwardLatency()) + pl.forwardExtra[i]
                        - pl.loadLatency[i] + (pl.partialSource[k] ? pl.core.storeForwardFailPenalty() : 0));
                if (pl.partialSource[k] && pl.options.storeForwarding()) {
                    // Not forwardable: the load reads the cache once the store has written it (after retiring).
                    earliest = Math.max(earliest, p < pl.nextRetire ? pl.committed[p & pl.mask] : pl.now + 1);
                }
            } else {
                earliest = Math.max(earliest, d - (pl.twoStep[i] ? 0 : pl.readAdvance[i]) - (pl.mergeSource[k]
                        ? early(pl, i) : 0));
            }
        }
        if (!unknown && pl.stackSync[i] && pl.syncProducer[i] >= 0 && !(pl.twoStep[i] && !loadStep)) {
            // The sync micro-op adds the engine's offset to rsp as the last explicit write left it.
            int iter = iteration - (pl.syncProducer[i] >= i ? 1 : 0);
            if (iter >= 0) {
                int p = iter * pl.n + pl.syncProducer[i];
                long d = pl.done[p & pl.mask];
                unknown = d == Long.MAX_VALUE;
                if (unknown) {
                    park(at, j, p);
                }
                earliest = Math.max(earliest, d + 1);
            }
        }
        if (!unknown && pl.loadsWaitForStoreAddresses && pl.loading[i] && (!pl.twoStep[i] || loadStep)) {
            long addresses = olderStoreAddresses(j, at);
            unknown = addresses == Long.MAX_VALUE;
            earliest = Math.max(earliest, addresses);
        }
        if (!unknown && pl.forwarded[at] != Long.MIN_VALUE && pl.core.forwardToWaitingLoads() && pl.loading[i]
                && (!pl.twoStep[i] || loadStep)) {
            // A load that waited for a store still needs its own latency from its address: the data comes no
            // sooner than the address's registers plus the load latency (a late address is no shortcut).
            pl.forwarded[at] = Math.max(pl.forwarded[at], earliest + pl.loadLatency[i]);
        }
        if (unknown || earliest > pl.now) {
            if (!unknown || earliest > pl.notBefore[at]) {
                pl.notBefore[at] = Math.max(pl.notBefore[at], unknown ? Math.min(earliest, pl.now + 1) : earliest);
            }
            return false;
        }
        pl.sourcesReady[at] = true;
        return true;
    }

    /**
     * The first cycle load instance {@code j} may execute once every older store in flight knows its address (the
     * cycle after its address registers are there; {@link dev.basalt.simulator.harness.StoreAddressWait}), or
     * {@code Long.MAX_VALUE}, parked, while one of those registers is unknown.
     */
    private long olderStoreAddresses(int j, int at) {
        Pipeline pl = this.pl;
        long earliest = 0;
        for (int s = j - 1; s >= pl.nextRetire && s >= 0; s--) {
            int ss = s & pl.mask;
            int st = pl.insnOf[ss];
            if (!pl.storing[st] || pl.done[ss] != Long.MAX_VALUE
                    || pl.twoStep[st] && pl.loadDone[ss] != Long.MAX_VALUE) {
                continue; // not a store, or one that has executed (its address step, for a two-step one)
            }
            int iteration = pl.iterOf[ss];
            for (int k = pl.start[st]; k < pl.start[st + 1]; k++) {
                int iter = iteration - pl.producers[2 * k + 1];
                if (!pl.addressSource[k] || iter < 0) {
                    continue;
                }
                int p = iter * pl.n + pl.producers[2 * k];
                long d = pl.done[p & pl.mask];
                if (d == Long.MAX_VALUE) {
                    park(at, j, p);
                    return Long.MAX_VALUE;
                }
                earliest = Math.max(earliest, d + 1);
            }
        }
        return earliest;
    }

    /** Parks instance {@code j} (slot {@code at}) on producer {@code p}, whose result is unknown. */
    private void park(int at, int j, int p) {
        Pipeline pl = this.pl;
        pl.blocker[at] = p;
        pl.waitNext[at] = pl.waitHead[p & pl.mask];
        pl.waitHead[p & pl.mask] = j;
    }

    /**
     * Whether instruction {@code i}'s load can use the data cache this cycle: on a CPU with cache banks, not when a
     * load already executed this cycle reads the same bank (address bits 2–5) of another line set (bits 6–11); on a
     * CPU with {@link CoreParams#sameBankLoads}, not when that many loads of its bank (bits 2–5, any line) did.
     */
    private boolean bankFree(int i) {
        Pipeline pl = this.pl;
        if (pl.loadOffset == null || pl.loadOffset[i] < 0) {
            return true;
        }
        int a = pl.loadOffset[i];
        int same = 0;
        for (int k = 0; k < pl.cycleLoadCount; k++) {
            int b = pl.cycleLoads[k];
            if (pl.core.cacheBanks() && ((a ^ b) & 0x3c) == 0 && ((a ^ b) & 0xfc0) != 0) {
                return false;
            }
            same += ((a ^ b) & CoreParams.LOAD_BANK_BITS) == 0 ? 1 : 0; // of one bank, in any line
        }
        return pl.core.sameBankLoads() == 0 || same < pl.core.sameBankLoads();
    }

    /** Notes that instruction {@code i}'s load executed this cycle. */
    private void loaded(int i) {
        Pipeline pl = this.pl;
        if (pl.loadOffset != null && pl.loadOffset[i] >= 0 && pl.cycleLoadCount < pl.cycleLoads.length) {
            pl.cycleLoads[pl.cycleLoadCount++] = pl.loadOffset[i];
        }
    }

    /** Whether every instance older than {@code j} has finished. */
    private boolean olderFinished(int j) {
        Pipeline pl = this.pl;
        for (int k = pl.nextRetire; k < j; k++) {
            if (pl.done[k & pl.mask] > pl.now) {
                return false;
            }
        }
        return true;
    }

    /** Whether store fence instance {@code j} may execute: every older store has finished. */
    private boolean olderStoresFinished(int j) {
        Pipeline pl = this.pl;
        for (int k = pl.nextRetire; k < j; k++) {
            if (pl.storing[pl.insnOf[k & pl.mask]] && pl.done[k & pl.mask] > pl.now) {
                return false;
            }
        }
        return true;
    }

    /** Whether locked instance {@code j} may execute: every older memory access has finished (it is a fence). */
    private boolean lockMayStart(int j) {
        Pipeline pl = this.pl;
        for (int k = pl.nextRetire; k < j; k++) {
            if (pl.memoryAccess[pl.insnOf[k & pl.mask]] && pl.done[k & pl.mask] > pl.now) {
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
        Pipeline pl = this.pl;
        int[] d = pl.demand[i];
        if (!pl.options.issueTimePorts()) {
            if (!pl.context.ports().reserve(part, pl.portFree, pl.portUse, pl.scratch, pl.now, pl.taken)) {
                return false;
            }
            account(j);
            return true;
        }
        int base = (j & pl.mask) * pl.maxDemand;
        for (int k = from; k < to; k++) {
            if (pl.portFree[pl.bound[base + k]] > pl.now) {
                return false;
            }
            if (d[k] < 0) {
                k++;
            }
        }
        // Each micro-op holds its port a cycle more (a divider its cycles): a port taken twice is busy two.
        int iteration = pl.iterOf[j & pl.mask];
        int busy = iteration * pl.portCount;
        pl.busiestIteration = Math.max(pl.busiestIteration, iteration);
        for (int k = from; k < to; k++) {
            int port = pl.bound[base + k];
            boolean divider = d[k] < 0;
            int cycles = divider ? d[++k] : 1;
            pl.portFree[port] = Math.max(pl.portFree[port], pl.now) + cycles;
            pl.portUse[port] += cycles;
            pl.portBusy[busy + port] += cycles;
            if (!divider) {
                pl.dispatchedNow[port]++;
            }
        }
        return true;
    }

    /** Holds the ports of micro-ops {@code from..to} of instance {@code j}, just taken, one cycle more. */
    private void holdPorts(int j, int from, int to) {
        Pipeline pl = this.pl;
        int iteration = pl.iterOf[j & pl.mask];
        if (!pl.options.issueTimePorts()) {
            for (int p = 0; p < pl.portCount; p++) {
                if (pl.taken[p] > 0) {
                    pl.portFree[p]++;
                    pl.portUse[p]++;
                    pl.portBusy[iteration * pl.portCount + p]++;
                }
            }
            return;
        }
        int[] d = pl.demand[pl.insnOf[j & pl.mask]];
        int base = (j & pl.mask) * pl.maxDemand;
        for (int k = from; k < to; k++) {
            int port = pl.bound[base + k];
            if (d[k] < 0) {
                k++; // a divider holds its port its own cycles
                continue;
            }
            pl.portFree[port]++;
            pl.portUse[port]++;
            pl.portBusy[iteration * pl.portCount + port]++;
        }
    }

    /** Adds the port cycles just taken ({@code taken}) to instance {@code j}'s iteration's statistics. */
    private void account(int j) {
        Pipeline pl = this.pl;
        int iteration = pl.iterOf[j & pl.mask];
        int base = iteration * pl.portCount;
        pl.busiestIteration = Math.max(pl.busiestIteration, iteration);
        for (int p = 0; p < pl.portCount; p++) {
            pl.portBusy[base + p] += pl.taken[p];
        }
    }

    /** Whether instance {@code j} of instruction {@code i} may execute now under the locks' and fences' ordering. */
    private boolean ordered(int j, int i) {
        Pipeline pl = this.pl;
        int at = j & pl.mask;
        if (pl.locked[i] && !lockMayStart(j)) {
            pl.notBefore[at] = pl.now + 1;
            return false;
        }
        if (pl.fenceKind[i] > 0 && pl.fenceFree[pl.fenceKind[i]] > pl.now) {
            pl.notBefore[at] = pl.fenceFree[pl.fenceKind[i]]; // the previous fence of its kind holds it (Fences)
            return false;
        }
        if (pl.fence[i] && !olderFinished(j)) {
            pl.notBefore[at] = pl.now + 1; // a fence executes once everything before it has finished
            return false;
        }
        if (pl.fenceBack[i] > 0 && j - pl.fenceBack[i] >= pl.nextRetire
                && pl.done[(j - pl.fenceBack[i]) & pl.mask] > pl.now) {
            pl.notBefore[at] = pl.now + 1; // and nothing after it executes before it has
            return false;
        }
        if (pl.memoryAccess[i] && pl.lockBack[i] > 0 && j - pl.lockBack[i] >= pl.nextRetire
                && pl.done[(j - pl.lockBack[i]) & pl.mask] > pl.now) {
            pl.notBefore[at] = pl.now + 1; // a younger memory access waits for the lock before it
            return false;
        }
        if (pl.storeFence[i] && !olderStoresFinished(j)) {
            pl.notBefore[at] = pl.now + 1; // sfence executes once the older stores have finished
            return false;
        }
        if (pl.storing[i] && pl.storeFenceBack[i] > 0 && j - pl.storeFenceBack[i] >= pl.nextRetire
                && pl.done[(j - pl.storeFenceBack[i]) & pl.mask] > pl.now) {
            pl.notBefore[at] = pl.now + 1; // and a younger store waits for it
            return false;
        }
        return true;
    }

    /**
     * How many cycles before the merged value instruction {@code i} may start ({@link MergeOperand#early}); a merge
     * into dirty upper bits may be negative: its result comes {@code mergeCycles} after the merged value even when the
     * instruction's own latency (a load's) is shorter.
     */
    private static int early(Pipeline pl, int i) {
        int latency = pl.twoStep[i] ? pl.opLatency[i] : pl.latency[i];
        return pl.dirtyMerge[i] ? latency - pl.mergeCycles[i] : MergeOperand.early(latency, pl.mergeCycles[i]);
    }
}
