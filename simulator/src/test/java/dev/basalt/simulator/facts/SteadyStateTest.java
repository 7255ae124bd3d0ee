package dev.basalt.simulator.facts;

import dev.basalt.simulator.Simulator;
import dev.basalt.simulator.params.SimulatorParams;
import dev.basalt.core.Microarchitecture;
import dev.basalt.decoder.BasicBlock;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/** How the second machine finds its steady state and stops early. */
class SteadyStateTest {

    /** Retire cycles of iterations 0..count-1 whose per-iteration deltas repeat {@code pattern}. */
    private static long[] retired(int count, int... pattern) {
        long[] r = new long[count];
        for (int k = 1; k < count; k++) {
            r[k] = r[k - 1] + pattern[(k - 1) % pattern.length];
        }
        return r;
    }

    @Test
    void aSixteenIterationPeriodIsNotTakenForAShorterOne() {
        // mov esi, imm32 is 5 bytes: sixteen iterations fill five 16-byte windows, so iterations retire 0 1 0 0 1
        // 0 0 1 0 0 1 0 0 1 0 0 cycles apart (5 cycles per 16). Windows of 10 iterations sum to 3 cycles five
        // times in a row at some phases, which comparing window sums took for 0.3 cycles an iteration.
        int[] pattern = {0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0};
        long[] r = retired(100, pattern);
        long[] steady = null;
        int k = 0;
        for (; k < 99 && steady == null; k++) {
            steady = SteadyState.repeatingPeriod(r, k, 100, 32, 24);
        }
        assertArrayEquals(new long[] {r[99], 5, 16}, steady);
        assertEquals(3 * 16 + 16 + 1, k, "found as soon as three periods (48 iterations) repeat the ones 16 before");
    }

    @Test
    void aPatternSeenTwiceIsNotYetAPeriod() {
        // Thirteen iterations of 4 cycles, three times (a pipeline's fill), then the predecoder's true rhythm of
        // 5 cycles per 16: once 24 iterations agree with the ones 13 before (iteration 37) the 13-iteration pattern
        // had been taken for the steady state; a period must now repeat three whole times after its first.
        int[] fill = {0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 0, 1};
        int[] rhythm = {0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0};
        long[] r = new long[200];
        for (int k = 1; k < 200; k++) {
            r[k] = r[k - 1] + (k < 39 ? fill[k % 13] : rhythm[k % 16]);
        }
        for (int k = 0; k < 39 + 3 * 16; k++) { // before the rhythm could have repeated three times
            assertNull(SteadyState.repeatingPeriod(r, k, 200, 32, 24), "iteration " + k);
        }
        long[] later = SteadyState.repeatingPeriod(r, 39 + 4 * 16 + 1, 200, 32, 24);
        assertArrayEquals(new long[] {5, 16}, new long[] {later[1], later[2]}, "the true period, three times over");
    }

    @Test
    void aTransientIsNotASteadyState() {
        // Ten 2-cycle iterations, then 1-cycle ones: nothing is periodic until 24 iterations of the new rate.
        long[] r = new long[100];
        for (int k = 1; k < 100; k++) {
            r[k] = r[k - 1] + (k <= 10 ? 2 : 1);
        }
        assertNull(SteadyState.repeatingPeriod(r, 30, 100, 32, 24));
        assertArrayEquals(new long[] {r[99], 1, 1}, SteadyState.repeatingPeriod(r, 35, 100, 32, 24));
        assertNull(SteadyState.repeatingPeriod(r, 99, 100, 32, 24), "the last iteration needs no extrapolation");
    }

    @Test
    void theMachineReportsTheFrontEndPeriod() {
        // The same block through the whole machine: the predecoder's 5 windows per 16 iterations. (Haswell binds
        // its ALU micro-ops to the least loaded port; the pipeline's fill then retires a 13-iteration pattern of
        // 4 cycles twice, which 24 agreeing iterations took for the steady state: 0.3077.)
        Simulator haswell = new Simulator(SimulatorParams.bundled(Microarchitecture.HASWELL));
        assertEquals(5 / 16.0, haswell.run(BasicBlock.fromHex("be8b010000"), Simulator.Options.defaults())
                .cyclesPerIteration(), 1e-9);
    }

    /** The incremental detector the second machine uses answers as the direct search does, iteration by iteration. */
    @org.junit.jupiter.api.Test
    void theDetectorAgreesWithTheDirectSearch() {
        java.util.SplittableRandom rnd = new java.util.SplittableRandom(5);
        for (int trial = 0; trial < 300; trial++) {
            int iterations = 60 + rnd.nextInt(80);
            long[] retired = new long[iterations];
            long[] state = new long[iterations];
            int period = 1 + rnd.nextInt(20);
            int from = rnd.nextInt(50); // noise before the pattern settles
            long[] step = new long[period];
            long[] sig = new long[period];
            for (int w = 0; w < period; w++) {
                step[w] = 1 + rnd.nextInt(4);
                sig[w] = rnd.nextInt(3);
            }
            SteadyState.Detector d = new SteadyState.Detector(iterations, 32, 24);
            for (int k = 0; k < iterations; k++) {
                boolean noisy = k < from;
                retired[k] = (k == 0 ? 0 : retired[k - 1]) + (noisy ? 1 + rnd.nextInt(5) : step[k % period]);
                state[k] = noisy ? rnd.nextInt(3) : sig[k % period];
                org.junit.jupiter.api.Assertions.assertArrayEquals(
                        SteadyState.repeatingPeriod(retired, state, k, iterations, 32, 24), d.offer(retired, state, k),
                        "trial " + trial + ", iteration " + k);
            }
        }
    }
}
