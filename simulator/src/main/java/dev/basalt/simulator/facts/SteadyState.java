package dev.basalt.simulator.facts;

/**
 * When a run may stop: once the iterations retire periodically, the rest of the run is known and extrapolated.
 * Both machines ask here ({@link #steadyState} the first, {@link #repeatingPeriod} the second).
 */
public final class SteadyState {

    private SteadyState() {
    }

    /**
     * Once the core is in a steady state, the rest of the run is known: if the last iterations retired at
     * exactly periodic times (period W ≤ 8 iterations, the same cycle delta over consecutive windows spanning
     * at least 24 iterations), the retire cycle of the final iteration is extrapolated and the run
     * stops early. Returns that cycle, or -1 to keep simulating. The result equals a full run whenever the
     * schedule is truly periodic, which it is once buffers and ports have settled.
     */
    public static long steadyState(long[] retired, int k, int iterations) {
        long[] steady = steadyPeriod(retired, k, iterations, 8, 24);
        return steady == null ? -1 : steady[0];
    }

    /**
     * The steady state as {@link #steadyState} finds it, for periods of up to {@code maxPeriod} iterations that
     * agree over at least {@code span} iterations: {the extrapolated retire cycle of the final iteration, the
     * cycles of one period, its iterations}, or null.
     */
    static long[] steadyPeriod(long[] retired, int k, int iterations, int maxPeriod, int span) {
        int last = iterations - 1;
        if (k < span || k >= last) {
            return null;
        }
        for (int w = 1; w <= maxPeriod; w++) {
            int windows = Math.max(3, (span + w - 1) / w); // at least span iterations agree, whatever the period
            if (k < windows * w) {
                break;
            }
            long d = retired[k] - retired[k - w];
            boolean periodic = true;
            for (int m = 1; m < windows && periodic; m++) {
                periodic = retired[k - m * w] - retired[k - (m + 1) * w] == d;
            }
            if (periodic) {
                int anchor = k - ((k - last % w + w) % w); // the iteration <= k congruent to the last mod w
                return new long[] {retired[anchor] + (long) ((last - anchor) / w) * d, d, w};
            }
        }
        return null;
    }

    /**
     * The steady state of a retire sequence that repeats exactly: the smallest period of up to {@code maxPeriod}
     * iterations such that every one of the last {@code agree} iterations, and at least three periods' worth,
     * retired the same number of cycles after the iteration a period before it. Unlike comparing sums over
     * windows, a run whose true period is 16 is never taken for one of 10 whose window sums happen to match; and
     * a long period must repeat three times, since a pipeline's fill can repeat once or twice (Haswell's {@code mov
     * esi, 395} retired a 13-iteration pattern twice, 4 cycles each — faster than its predecoder's 16 iterations
     * in 5 cycles, the true period being 32 in 10). Returns {the extrapolated retire cycle
     * of the final iteration, the cycles of one period, its iterations}, or null.
     */
    static long[] repeatingPeriod(long[] retired, int k, int iterations, int maxPeriod, int agree) {
        return repeatingPeriod(retired, null, k, iterations, maxPeriod, agree);
    }

    /**
     * {@link #repeatingPeriod(long[], int, int, int, int)} where, beyond the retire times, a signature of the
     * machine's state as each iteration retired ({@code state}; null: not checked) must repeat too: retire times
     * can repeat for dozens of iterations while the state drifts toward another bottleneck.
     */
    static long[] repeatingPeriod(long[] retired, long[] state, int k, int iterations, int maxPeriod, int agree) {
        int last = iterations - 1;
        if (k >= last) {
            return null;
        }
        for (int w = 1; w <= maxPeriod && k - Math.max(agree, 3 * w) - w >= 0; w++) {
            int span = Math.max(agree, 3 * w); // at least three whole periods repeat the one before them
            long d = retired[k] - retired[k - w];
            boolean periodic = true;
            for (int m = 1; m <= span && periodic; m++) {
                periodic = retired[k - m] - retired[k - m - w] == d;
            }
            for (int m = 0; m <= span && periodic && state != null; m++) {
                periodic = state[k - m] == state[k - m - w];
            }
            if (periodic) {
                int anchor = k - ((k - last % w + w) % w); // the iteration <= k congruent to the last mod w
                return new long[] {retired[anchor] + (long) ((last - anchor) / w) * d, d, w};
            }
        }
        return null;
    }

    /**
     * {@link #repeatingPeriod(long[], long[], int, int, int, int)} asked after every iteration in turn, in O(periods)
     * per iteration instead of O(periods × agree): per period w it keeps how many iterations in a row retired the
     * same cycles after the one w before as the previous did, and how many in a row had the state w before. The
     * answers are the same (SteadyStateTest checks them against the direct search).
     */
    public static final class Detector {
        private final int iterations;
        private final int maxPeriod;
        private final int agree;
        private final int[] deltaStreak;
        private final int[] stateStreak;
        private int expected; // the iteration the next offer must be

        public Detector(int iterations, int maxPeriod, int agree) {
            this.iterations = iterations;
            this.maxPeriod = maxPeriod;
            this.agree = agree;
            this.deltaStreak = new int[maxPeriod + 1];
            this.stateStreak = new int[maxPeriod + 1];
        }

        /** Iteration {@code k} retired (they come in order, from 0): the steady state as repeatingPeriod gives it. */
        public long[] offer(long[] retired, long[] state, int k) {
            if (k != expected++) {
                throw new IllegalStateException("iterations must be offered in order: " + k);
            }
            for (int w = 1; w <= maxPeriod; w++) {
                stateStreak[w] = k - w >= 0 && state[k] == state[k - w] ? stateStreak[w] + 1 : 0;
                deltaStreak[w] = k - w - 1 >= 0 && retired[k] - retired[k - w] == retired[k - 1] - retired[k - 1 - w]
                        ? deltaStreak[w] + 1 : 0;
            }
            int last = iterations - 1;
            if (k >= last) {
                return null;
            }
            for (int w = 1; w <= maxPeriod && k - Math.max(agree, 3 * w) - w >= 0; w++) {
                int span = Math.max(agree, 3 * w);
                if (deltaStreak[w] >= span && stateStreak[w] >= span + 1) {
                    long d = retired[k] - retired[k - w];
                    int anchor = k - ((k - last % w + w) % w); // the iteration <= k congruent to the last mod w
                    return new long[] {retired[anchor] + (long) ((last - anchor) / w) * d, d, w};
                }
            }
            return null;
        }
    }
}
