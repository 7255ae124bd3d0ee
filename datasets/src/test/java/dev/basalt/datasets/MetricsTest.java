package dev.basalt.datasets;

import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MetricsTest {

    /** τ-b by counting every pair. */
    private static double bruteTauB(double[] x, double[] y) {
        long concordant = 0;
        long discordant = 0;
        long tiesX = 0;
        long tiesY = 0;
        int n = x.length;
        for (int i = 0; i < n; i++) {
            for (int j = i + 1; j < n; j++) {
                double dx = Math.signum(x[i] - x[j]);
                double dy = Math.signum(y[i] - y[j]);
                if (dx == 0 && dy == 0) {
                    continue;
                }
                if (dx == 0) {
                    tiesX++;
                } else if (dy == 0) {
                    tiesY++;
                } else if (dx == dy) {
                    concordant++;
                } else {
                    discordant++;
                }
            }
        }
        // n0 - n1 = pairs not tied in x = concordant + discordant + tiesY (tied in y only)
        double notTiedX = concordant + discordant + tiesY;
        double notTiedY = concordant + discordant + tiesX;
        return (concordant - discordant) / Math.sqrt(notTiedX * notTiedY);
    }

    /** ρ by definition: Pearson correlation of ranks, ranks counted directly. */
    private static double bruteRho(double[] x, double[] y) {
        return Metrics.pearson(bruteRanks(x), bruteRanks(y));
    }

    private static double[] bruteRanks(double[] v) {
        double[] r = new double[v.length];
        for (int i = 0; i < v.length; i++) {
            int less = 0;
            int equal = 0;
            for (double w : v) {
                if (w < v[i]) {
                    less++;
                } else if (w == v[i]) {
                    equal++;
                }
            }
            r[i] = less + (equal + 1) / 2.0;
        }
        return r;
    }

    @Test
    void tauAndRhoMatchBruteForceOnRandomDataWithTies() {
        SplittableRandom rnd = new SplittableRandom(2026);
        for (int trial = 0; trial < 30; trial++) {
            int n = 2 + rnd.nextInt(700);
            int levels = 1 + rnd.nextInt(trial % 3 == 0 ? 5 : 200); // few levels: many ties
            double[] x = new double[n];
            double[] y = new double[n];
            for (int i = 0; i < n; i++) {
                x[i] = rnd.nextInt(levels);
                y[i] = rnd.nextDouble() < 0.5 ? x[i] + rnd.nextInt(3) : rnd.nextInt(levels);
            }
            double tau = Metrics.kendallTauB(x, y);
            double expected = bruteTauB(x, y);
            if (Double.isNaN(expected)) {
                assertTrue(Double.isNaN(tau), "constant input gives NaN");
            } else {
                assertEquals(expected, tau, 1e-12, "tau trial " + trial);
            }
            double rho = Metrics.spearmanRho(x, y);
            double expectedRho = bruteRho(x, y);
            if (Double.isNaN(expectedRho)) {
                assertTrue(Double.isNaN(rho));
            } else {
                assertEquals(expectedRho, rho, 1e-12, "rho trial " + trial);
            }
        }
    }

    @Test
    void handComputedTinyCases() {
        // Pairs (1,2) and (1,3) concordant, (2,3) discordant: (2 - 1) / 3.
        assertEquals(1.0 / 3, Metrics.kendallTauB(new double[] {1, 2, 3}, new double[] {1, 3, 2}), 1e-15);
        // Rank differences 0, 1, 1: rho = 1 - 6 * 2 / (3 * 8) = 0.5.
        assertEquals(0.5, Metrics.spearmanRho(new double[] {1, 2, 3}, new double[] {1, 3, 2}), 1e-15);
        // A tie in x: n0 = 3, n1 = 1, n2 = 0, two concordant pairs: 2 / sqrt(2 * 3).
        assertEquals(2 / Math.sqrt(6), Metrics.kendallTauB(new double[] {1, 1, 2}, new double[] {1, 2, 3}), 1e-15);
        // Average ranks of a tie: 10, 20, 20, 30 -> 1, 2.5, 2.5, 4.
        assertEquals(java.util.List.of(1.0, 2.5, 2.5, 4.0),
                java.util.Arrays.stream(Metrics.averageRanks(new double[] {10, 20, 20, 30})).boxed().toList());
        assertEquals(-1.0, Metrics.kendallTauB(new double[] {1, 2, 3, 4}, new double[] {4, 3, 2, 1}), 1e-15);
        assertTrue(Double.isNaN(Metrics.kendallTauB(new double[] {1, 1}, new double[] {1, 2})));
    }

    @Test
    void percentageErrors() {
        double[] predicted = {1.1, 0.9, 2};
        double[] measured = {1, 1, 1};
        assertEquals(0.4, Metrics.mape(predicted, measured), 1e-12);
        assertEquals(0.1, Metrics.medianApe(predicted, measured), 1e-12);
        // Sorted APEs 0.1, 0.1, 1.0; the 90th percentile sits at 1.8 of 2: 0.1 + 0.8 * 0.9.
        assertEquals(0.82, Metrics.percentile(Metrics.ape(predicted, measured), 90), 1e-12);
        assertThrows(IllegalArgumentException.class, () -> Metrics.mape(new double[] {1}, new double[] {0}));
        assertThrows(IllegalArgumentException.class, () -> Metrics.mape(new double[] {1}, new double[] {1, 2}));
        assertThrows(IllegalArgumentException.class, () -> Metrics.mape(new double[0], new double[0]));
    }

    @Test
    void evaluationFormats() {
        Evaluation e = Evaluation.of("test-model", "bhive-sample", "test", dev.basalt.core.Microarchitecture.HASWELL,
                new double[] {1.1, 0.9, 2, 4}, new double[] {1, 1, 1, 4});
        assertEquals(4, e.blocks());
        assertEquals(0.3, e.mape(), 1e-12);
        assertTrue(e.toText().contains("MAPE 30.00%"), e.toText());
        String md = Evaluation.markdownTable(java.util.List.of(e));
        assertTrue(md.startsWith("| estimator | CPU |") && md.contains("| test-model | haswell |"), md);
        String csv = Evaluation.csv(java.util.List.of(e));
        assertEquals(2, csv.strip().split("\n").length);
        assertTrue(csv.split("\n")[1].startsWith("test-model,haswell,bhive-sample,test,4,0.3"), csv);
    }
}
