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

    @Test
    void spreadIsTheInterquartileRangeOverTheMedian() {
        assertEquals(0.0, Measurer.spread(List.of(1.0)), 0);
        assertEquals((1.03 - 1.01) / 1.02, Measurer.spread(List.of(1.0, 1.01, 1.02, 1.03, 1.04)), 1e-12);
    }
}
