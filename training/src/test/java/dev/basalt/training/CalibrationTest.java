package dev.basalt.training;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.basalt.core.Interval;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Split-conformal intervals: exact ranks, coverage on fresh data, wider where the network moved off its prior. */
class CalibrationTest {

    @Test
    void ranksAreSplitConformals() {
        // n = 9, 90%: tails of 5%; upper rank ceil(10 · 0.95) = 10, capped at 9; lower floor(10 · 0.05) = 0 → 1.
        assertEquals(9, Calibration.upperRank(9, 0.05));
        assertEquals(1, Calibration.lowerRank(9, 0.05));
        // n = 199, 50%: ceil(200 · 0.75) = 150, floor(200 · 0.25) = 50.
        assertEquals(150, Calibration.upperRank(199, 0.25));
        assertEquals(50, Calibration.lowerRank(199, 0.25));
    }

    /**
     * Blocks whose measurement is the prediction times e^(s·z), z standard normal, with a noise scale s that grows
     * with how far the prediction is from the prior: fitted on one sample, the 90% interval covers 88–92% of a
     * fresh one (binomial spread on 4,000 blocks is ±1 point), and is wider for blocks far from their prior.
     */
    @Test
    void coversFreshBlocksAtTheNominalLevelAndAdaptsToTheCorrection() {
        Sample fit = sample(4000, 1);
        Calibration c = Calibration.fit(fit.predicted, fit.prior, fit.labels);
        assertEquals(4, c.heads().get(0).low().length, "four bins of 1,000 blocks");
        Sample fresh = sample(4000, 2);
        int inside = 0;
        for (int i = 0; i < fresh.labels.length; i++) {
            Interval iv = c.intervals(0, fresh.predicted[i][0], fresh.prior[i][0]).get(4);
            assertEquals(0.9, iv.level());
            inside += iv.contains(fresh.labels[i][0]) ? 1 : 0;
        }
        double coverage = inside / 4000.0;
        assertTrue(coverage >= 0.88 && coverage <= 0.92, "coverage " + coverage);
        double near = c.intervals(0, 2.0, 2.0).get(4).relativeWidth(2.0);
        double far = c.intervals(0, 4.0, 2.0).get(4).relativeWidth(4.0);
        assertTrue(far > 2 * near, "near the prior " + near + ", far from it " + far);
        // Levels nest: each wider interval contains the narrower ones.
        List<Interval> all = c.intervals(0, 3.0, 2.0);
        for (int l = 1; l < all.size(); l++) {
            assertTrue(all.get(l).low() <= all.get(l - 1).low() && all.get(l).high() >= all.get(l - 1).high());
        }
    }

    @Test
    void roundTripsThroughJsonAndRefusesTooFewBlocks() throws Exception {
        Sample s = sample(500, 3);
        Calibration c = Calibration.fit(s.predicted, s.prior, s.labels);
        ObjectMapper json = new ObjectMapper();
        Calibration back = json.readValue(json.writeValueAsBytes(c), Calibration.class);
        assertArrayEquals(c.levels(), back.levels());
        assertEquals(c.intervals(0, 3.0, 2.5), back.intervals(0, 3.0, 2.5));
        Sample few = sample(Calibration.MIN_PER_BIN - 1, 4);
        assertThrows(IllegalArgumentException.class, () -> Calibration.fit(few.predicted, few.prior, few.labels));
    }

    private record Sample(double[][] predicted, double[][] prior, double[][] labels) {
    }

    private static Sample sample(int n, long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        double[][] predicted = new double[n][1];
        double[][] prior = new double[n][1];
        double[][] labels = new double[n][1];
        for (int i = 0; i < n; i++) {
            prior[i][0] = 1 + 9 * rnd.nextDouble();
            double moved = rnd.nextDouble() * 0.8; // |ln(predicted / prior)|
            predicted[i][0] = prior[i][0] * Math.exp(rnd.nextBoolean() ? moved : -moved);
            double noise = 0.02 + 0.3 * moved;
            labels[i][0] = predicted[i][0] * Math.exp(noise * gaussian(rnd));
        }
        return new Sample(predicted, prior, labels);
    }

    private static double gaussian(SplittableRandom rnd) {
        return Math.sqrt(-2 * Math.log(1 - rnd.nextDouble())) * Math.cos(2 * Math.PI * rnd.nextDouble());
    }
}
