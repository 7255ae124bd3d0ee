package dev.basalt.simulator.pipeline;

import java.util.Arrays;

/**
 * The large arrays of a {@link Pipeline} run, kept by the simulator per thread and reused: a run sizes them
 * ({@link #fit}), clears the per-iteration port counts, and resets a ring slot when its instance enters the window
 * ({@link Pipeline#born}) — no slot is read before that.
 */
public final class Scratch {
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
    long[] forwarded = new long[0];
    int[] blocker = new int[0];
    int[] waitHead = new int[0];
    int[] insnOf = new int[0];
    int[] iterOf = new int[0];
    int[] waitNext = new int[0];
    boolean[] sourcesReady = new boolean[0];
    long[] committed = new long[0];
    int portBusyDirty; // what the next run must clear (set by Pipeline#run)
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
            forwarded = new long[slots];
            blocker = new int[slots];
            waitHead = new int[slots];
            insnOf = new int[slots];
            iterOf = new int[slots];
            waitNext = new int[slots];
            sourcesReady = new boolean[slots];
            committed = new long[slots];
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
