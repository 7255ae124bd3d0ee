package dev.basalt.training;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import dev.basalt.core.Interval;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * Prediction intervals for a learned model by split conformal prediction: on blocks the network was not fitted on
 * (the validation split), the log-ratios {@code ln(measured / predicted)} per head, in bins of how far the
 * network moved from its prior ({@code |ln(predicted / prior)|}, so a block the network corrects a lot gets a
 * wider interval than one it leaves alone), give each level's lower and upper quantile. A prediction's interval
 * at level L is {@code [predicted · e^low, predicted · e^high]}; for blocks like the calibration blocks the
 * measurement falls inside for a share L of them (the order statistics are taken with the finite-sample
 * correction, so the coverage is at least L on exchangeable data). Numbers only: no engine state, safe to share.
 *
 * @param levels nominal coverages, increasing, each in (0, 1)
 * @param heads  per head (the model's CPUs, in order), its bins
 * @param blocks calibration blocks per head
 * @param range  where the model was trained ({@link TrainingRange}), or null (a file written before it existed)
 */
public record Calibration(double[] levels, List<Head> heads, int[] blocks, TrainingRange range) {

    /** The levels {@code basalt train} calibrates (the reliability plot's points; 0.9 is the reported one). */
    public static final double[] LEVELS = {0.5, 0.6, 0.7, 0.8, 0.9, 0.95};

    /** Bins per head: fewer when a head has fewer than {@link #MIN_PER_BIN} blocks per bin. */
    public static final int BINS = 4;

    /** The fewest calibration blocks a bin may have. */
    public static final int MIN_PER_BIN = 100;

    /**
     * One head's bins.
     *
     * @param edges upper ends of every bin but the last, increasing, in the bin score
     * @param low   per bin and level, the lower log-ratio
     * @param high  per bin and level, the upper log-ratio
     */
    public record Head(double[] edges, double[][] low, double[][] high) {
        @JsonCreator
        public Head(@JsonProperty("edges") double[] edges, @JsonProperty("low") double[][] low,
                    @JsonProperty("high") double[][] high) {
            this.edges = edges.clone();
            this.low = deepClone(low);
            this.high = deepClone(high);
            if (low.length != edges.length + 1 || high.length != low.length) {
                throw new IllegalArgumentException("calibration head: " + (edges.length + 1) + " bins, "
                        + low.length + " lower and " + high.length + " upper rows");
            }
        }

        int bin(double score) {
            int b = 0;
            while (b < edges.length && score > edges[b]) {
                b++;
            }
            return b;
        }
    }

    @JsonCreator
    public Calibration(@JsonProperty("levels") double[] levels, @JsonProperty("heads") List<Head> heads,
                       @JsonProperty("blocks") int[] blocks, @JsonProperty("range") TrainingRange range) {
        this.range = range;
        this.levels = levels.clone();
        this.heads = List.copyOf(heads);
        this.blocks = blocks.clone();
        for (int i = 0; i < levels.length; i++) {
            if (!(levels[i] > 0 && levels[i] < 1) || (i > 0 && levels[i] <= levels[i - 1])) {
                throw new IllegalArgumentException("calibration levels must increase within (0, 1): "
                        + Arrays.toString(levels));
            }
        }
        for (Head h : this.heads) {
            for (double[] row : h.low()) {
                if (row.length != levels.length) {
                    throw new IllegalArgumentException("calibration head has " + row.length + " levels, expected "
                            + levels.length);
                }
            }
        }
    }

    @Override
    public double[] levels() {
        return levels.clone();
    }

    @Override
    public int[] blocks() {
        return blocks.clone();
    }

    /** This calibration with the model's training range. */
    public Calibration withRange(TrainingRange range) {
        return new Calibration(levels, heads, blocks, range);
    }

    /**
     * The intervals of a prediction made outside the training range ({@link TrainingRange}): around {@code value},
     * the widest bin's log-ratios doubled.
     */
    public List<Interval> widened(int head, double value) {
        Head h = heads.get(head);
        int b = h.low().length - 1;
        double center = Math.max(value, 0);
        List<Interval> out = new ArrayList<>(levels.length);
        for (int l = 0; l < levels.length; l++) {
            out.add(new Interval(levels[l], center * Math.exp(2 * Math.min(0, h.low()[b][l])),
                    center * Math.exp(2 * Math.max(0, h.high()[b][l]))));
        }
        return out;
    }

    /** The score bins are chosen by: how far the network moved from its prior (0 without a prior). */
    static double score(double predicted, double prior) {
        return prior > 0 && predicted > 0 ? Math.abs(Math.log(predicted / prior)) : 0;
    }

    /** The intervals, one per level, of a prediction {@code predicted} whose prior was {@code prior} (0: none). */
    public List<Interval> intervals(int head, double predicted, double prior) {
        Head h = heads.get(head);
        int b = h.bin(score(predicted, prior));
        double center = Math.max(predicted, 0);
        List<Interval> out = new ArrayList<>(levels.length);
        for (int l = 0; l < levels.length; l++) {
            out.add(new Interval(levels[l], center * Math.exp(h.low()[b][l]), center * Math.exp(h.high()[b][l])));
        }
        return out;
    }

    /**
     * Fits the calibration from held-out predictions.
     *
     * @param predicted per block and head, the model's cycles per iteration
     * @param prior     per block and head, the prior's cycles (null without a prior)
     * @param labels    per block and head, measured cycles, NaN when unlabelled
     * @throws IllegalArgumentException when a head has fewer than {@link #MIN_PER_BIN} labelled blocks
     */
    public static Calibration fit(double[][] predicted, double[][] prior, double[][] labels) {
        int heads = labels.length == 0 ? 0 : labels[0].length;
        List<Head> out = new ArrayList<>();
        int[] counts = new int[heads];
        for (int c = 0; c < heads; c++) {
            List<double[]> rows = new ArrayList<>(); // score, log-ratio
            for (int i = 0; i < labels.length; i++) {
                double y = labels[i][c];
                double p = predicted[i][c];
                if (Double.isNaN(y) || !(y > 0) || !(p > 0)) {
                    continue;
                }
                rows.add(new double[] {score(p, prior == null ? 0 : prior[i][c]), Math.log(y / p)});
            }
            counts[c] = rows.size();
            if (rows.size() < MIN_PER_BIN) {
                throw new IllegalArgumentException("head " + c + " has " + rows.size() + " calibration blocks; at "
                        + "least " + MIN_PER_BIN + " are needed");
            }
            rows.sort((a, b) -> Double.compare(a[0], b[0]));
            int bins = Math.max(1, Math.min(BINS, rows.size() / MIN_PER_BIN));
            double[] edges = new double[bins - 1];
            double[][] low = new double[bins][];
            double[][] high = new double[bins][];
            for (int b = 0; b < bins; b++) {
                int from = (int) ((long) rows.size() * b / bins);
                int to = (int) ((long) rows.size() * (b + 1) / bins);
                if (b < bins - 1) {
                    edges[b] = rows.get(to - 1)[0];
                }
                double[] r = rows.subList(from, to).stream().mapToDouble(x -> x[1]).sorted().toArray();
                low[b] = new double[LEVELS.length];
                high[b] = new double[LEVELS.length];
                for (int l = 0; l < LEVELS.length; l++) {
                    double tail = (1 - LEVELS[l]) / 2;
                    low[b][l] = r[lowerRank(r.length, tail) - 1];
                    high[b][l] = r[upperRank(r.length, tail) - 1];
                }
            }
            out.add(new Head(edges, low, high));
        }
        return new Calibration(LEVELS, out, counts, null);
    }

    /** Split conformal's rank for the upper end: ceil((n + 1)(1 − tail)), at most n. */
    static int upperRank(int n, double tail) {
        return Math.min(n, (int) Math.ceil((n + 1) * (1 - tail) - 1e-9));
    }

    /** And for the lower end: floor((n + 1) · tail), at least 1. */
    static int lowerRank(int n, double tail) {
        return Math.max(1, (int) Math.floor((n + 1) * tail + 1e-9));
    }

    private static double[][] deepClone(double[][] a) {
        double[][] out = new double[a.length][];
        for (int i = 0; i < a.length; i++) {
            out[i] = Objects.requireNonNull(a[i], "calibration row").clone();
        }
        return out;
    }
}
