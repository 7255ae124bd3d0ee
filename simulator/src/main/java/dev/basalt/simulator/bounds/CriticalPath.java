package dev.basalt.simulator.bounds;

import dev.basalt.simulator.facts.Sources;
import dev.basalt.decoder.BasicBlock;

/**
 * The loop-carried latency chain of a block, as a linear function of the rows' latencies and read-advances
 * (for the surrogate's analytical bound, DESIGN.md §7).
 *
 * <p>Latency-only schedule over {@link #ITERATIONS} copies of the block: an instruction finishes at
 * max(producer finished − its read-advance, 0) + its latency, with the simulator's own sources. Following the
 * deciding producer back from the last instruction to finish, over the second half of the copies, gives the
 * critical chain; counting how often each instruction's latency (and read-advance) lies on it, per
 * iteration, gives coefficients {@code lat[i]}, {@code ra[i]} with chain = Σ lat[i]·latency[i] −
 * Σ ra[i]·readAdvance[i]. The coefficients are piecewise constant in the parameters, so the chain's gradient
 * is that of the current critical path, as for any maximum.
 */
public final class CriticalPath {

    /** Copies of the block scheduled; the chain is measured over the second half. */
    static final int ITERATIONS = 16;

    private CriticalPath() {
    }

    /**
     * Coefficients for {@code block}.
     *
     * @param latency     per instruction (zero idioms: 0)
     * @param readAdvance per instruction
     * @return [2 × n]: per-iteration latency coefficients, then read-advance coefficients
     */
    public static float[][] coefficients(BasicBlock block, Sources sources, float[] latency, float[] readAdvance) {
        int n = block.size();
        int[] start = sources.start();
        int[] prod = sources.producers();
        double[] done = new double[ITERATIONS * n];
        int[] from = new int[ITERATIONS * n];
        for (int k = 0; k < ITERATIONS; k++) {
            for (int j = 0; j < n; j++) {
                double ready = 0;
                int arg = -1;
                for (int e = start[j]; e < start[j + 1]; e++) {
                    int kk = k - prod[2 * e + 1];
                    if (kk < 0) {
                        continue;
                    }
                    int node = kk * n + prod[2 * e];
                    double t = done[node] - readAdvance[j];
                    if (t > ready) {
                        ready = t;
                        arg = node;
                    }
                }
                done[k * n + j] = ready + latency[j];
                from[k * n + j] = arg;
            }
        }
        int node = (ITERATIONS - 1) * n;
        for (int j = 1; j < n; j++) {
            if (done[(ITERATIONS - 1) * n + j] > done[node]) {
                node = (ITERATIONS - 1) * n + j;
            }
        }
        float[][] c = new float[2][n];
        int half = ITERATIONS / 2;
        while (node >= 0 && node / n >= half) {
            int j = node % n;
            c[0][j] += 1f / half;
            if (from[node] >= 0) {
                c[1][j] += 1f / half;
            }
            node = from[node];
        }
        return c;
    }
}
