package dev.basalt.simulator.pipeline;

/**
 * Retirement, in program order, and the steady state it reveals. See {@link Pipeline}.
 */
final class RetireStage {

    private final Pipeline pl; // each method copies it to a local: C1, which ./basalt runs, reloads a field

    RetireStage(Pipeline pl) {
        this.pl = pl;
    }

    /** Retires, in program order, up to the retire width of fused micro-ops of finished instructions. */
    void retire() {
        Pipeline pl = this.pl;
        int slots = pl.idealBackEnd ? Integer.MAX_VALUE : pl.core.retireWidth();
        while (pl.nextRetire < pl.renameNext && pl.done[pl.nextRetire & pl.mask] <= pl.now && slots > 0) {
            int uops = pl.issueSlots[pl.insnOf[pl.nextRetire & pl.mask]];
            if (uops > slots && slots < pl.core.retireWidth()) {
                return; // a wide instruction retires at the start of a cycle
            }
            slots -= uops;
            pl.robUops -= uops;
            int j = pl.nextRetire;
            int at = j & pl.mask;
            pl.waitSum[pl.insnOf[at]] += pl.issued[at] - pl.renamed[at];
            pl.retireSignature = pl.retireSignature * 31 + (pl.now - pl.done[at]);
            if (pl.storing[pl.insnOf[at]]) {
                // A retired store's data reaches the cache storeForwardFailPenalty cycles later, stores one a
                // cycle in program order: what a load it cannot forward to waits for (ExecuteStage#ready).
                pl.lastCommit = Math.max(pl.now + pl.core.storeForwardFailPenalty(), pl.lastCommit + 1);
                pl.committed[at] = pl.lastCommit;
            }
            if (pl.timelineRows < pl.timelineSize) {
                int[] t = pl.timeline;
                int o = pl.timelineRows++ * Pipeline.TIMELINE_FIELDS;
                t[o] = j;
                t[o + 1] = (int) pl.predecoded[at];
                t[o + 2] = (int) pl.decoded[at];
                t[o + 3] = (int) pl.renamed[at];
                t[o + 4] = (int) pl.issued[at];
                t[o + 5] = (int) pl.done[at];
                t[o + 6] = (int) pl.now;
            }
            pl.nextRetire++;
            if (pl.insnOf[at] == pl.n - 1 && iterationRetired(pl.iterOf[at])) {
                return;
            }
        }
    }

    /** Records that iteration {@code k} retired now; whether the steady state gives the run's end. */
    private boolean iterationRetired(int k) {
        Pipeline pl = this.pl;
        pl.iterationRetired[k] = pl.now;
        pl.iterationSignature[k] = pl.retireSignature;
        pl.retireSignature = 0;
        if (pl.traced) {
            return false; // a traced run counts every iteration
        }
        // The front end's windows give periods of up to 16 iterations, port binding longer ones; 24 iterations, and
        // three periods, that each repeat the one a period before, in retire time and in how long each instance waited
        // to retire, are a steady state. Retire times alone can repeat while one bottleneck takes over from another (a
        // load paced by the front end, then the store port): such runs measured faster than the machine's own bounds.
        long[] steady = pl.steadyState.offer(pl.iterationRetired, pl.iterationSignature, k);
        if (steady == null) {
            return false;
        }
        pl.period = steady[1];
        pl.periodIterations = (int) steady[2];
        pl.finalCycles = steady[0] + 1;
        pl.simulatedIterations = k + 1;
        return true;
    }
}
