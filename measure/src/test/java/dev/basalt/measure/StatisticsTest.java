package dev.basalt.measure;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The agreement rule and the spread, on tries seen here. */
class StatisticsTest {

    @Test
    void twoDisturbedTriesOfFiveDoNotMoveTheValue() {
        // 4 x add rax, 1: two tries taken while something else slowed the block's code (seen in KnownAnswersTest).
        List<Double> tries = List.of(4.003, 6.858, 3.998, 6.525, 4.001);
        List<Double> agreeing = Measurer.agreeing(tries, 0.02);
        assertEquals(List.of(3.998, 4.001, 4.003), agreeing);
        assertEquals(4.001, Measurer.median(agreeing), 1e-12);
        assertEquals(6.525, Measurer.median(List.of(4.003, 6.858, 3.998, 6.525, 6.9)), 1e-12);
    }

    /**
     * A series of tries taken while something disturbs the host (CI once: {@code add rax, rcx} unstable, spread 2.5%
     * over nine tries, 21 drifted) is taken again after a pause; the first series that agrees is the block's value,
     * and a block that errs is not retried.
     */
    @Test
    void anUnstableSeriesIsTakenAgainAfterAPause() throws java.io.IOException {
        BlockMeasurement unstable = series(BlockMeasurement.Status.UNSTABLE, 1.000);
        BlockMeasurement ok = series(BlockMeasurement.Status.OK, 1.001);
        java.util.ArrayDeque<BlockMeasurement> seen = new java.util.ArrayDeque<>(List.of(unstable, unstable, ok));
        java.util.List<Integer> pauses = new java.util.ArrayList<>();
        assertEquals(ok, Measurer.untilStable(3, seen::removeFirst, pauses::add));
        assertEquals(List.of(1, 2), pauses);
        // Three unstable series: the last is the answer, after two pauses.
        BlockMeasurement last = series(BlockMeasurement.Status.UNSTABLE, 0.9);
        seen.addAll(List.of(unstable, unstable, last, ok));
        pauses.clear();
        assertEquals(last, Measurer.untilStable(3, seen::removeFirst, pauses::add));
        assertEquals(List.of(1, 2), pauses);
        assertEquals(List.of(ok), List.copyOf(seen));
        // An error or a stable first series ends the block at once.
        BlockMeasurement error = BlockMeasurement.failed("4801c8", BlockMeasurement.Status.ERROR, "#DE", 0);
        seen.clear();
        seen.addAll(List.of(error, ok));
        pauses.clear();
        assertEquals(error, Measurer.untilStable(3, seen::removeFirst, pauses::add));
        assertEquals(List.of(), pauses);
    }

    private static BlockMeasurement series(BlockMeasurement.Status status, double cycles) {
        return new BlockMeasurement("4801c8", status, cycles, cycles, 0.025, 9, 0, 500, 1000, 50, 0.78, "");
    }

    @Test
    void spreadIsTheInterquartileRangeOverTheMedian() {
        assertEquals(0.0, Measurer.spread(List.of(1.0)), 0);
        assertEquals((1.03 - 1.01) / 1.02, Measurer.spread(List.of(1.0, 1.01, 1.02, 1.03, 1.04)), 1e-12);
    }
}
