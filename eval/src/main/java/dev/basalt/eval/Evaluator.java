package dev.basalt.eval;

import dev.basalt.core.EstimatorUnavailableException;
import dev.basalt.core.Estimators;
import dev.basalt.core.Interval;
import dev.basalt.core.Microarchitecture;
import dev.basalt.core.Prediction;
import dev.basalt.core.ThroughputEstimator;
import dev.basalt.datasets.Dataset;
import dev.basalt.datasets.Evaluation;
import dev.basalt.datasets.LabelledBlock;
import dev.basalt.datasets.Split;
import dev.basalt.datasets.SplitScheme;
import dev.basalt.decoder.BasicBlock;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * {@code basalt eval}: every estimator's predictions on the same blocks (one split of a data set, per CPU), and
 * their accuracy and speed, measured the same way for all (DESIGN.md §9). {@code llvm-mca} is an estimator like
 * the others (llvm-mca-14, all blocks of a CPU as regions of a few runs) and is skipped with a note when missing.
 * A block an estimator cannot predict counts against its coverage, not its error.
 */
public final class Evaluator {

    /**
     * Blocks handed to an estimator at once. Each call that predicts on both cores wakes the second core's worker
     * and waits for its last block; at 256 a call that hand-off cost the bounds a fifth of their time (a warm pass
     * over 10,000 Haswell blocks: 56 ms on one core, 34 ms on two in calls of 256, 29 ms in calls of 1,024; the
     * simulator 1,080, 576 and 570 ms).
     */
    private static final int BATCH = 1024;
    /** Blocks predicted untimed before an estimator is timed on a CPU. */
    private static final int WARM_UP = 256;

    /**
     * What to evaluate.
     *
     * @param models   estimator names ({@code Estimators.available()})
     * @param cpus     the CPUs
     * @param split    the split, or empty for every block
     */
    public record Config(List<String> models, List<Microarchitecture> cpus, Optional<Split> split) {
        public Config {
            models = List.copyOf(models);
            cpus = List.copyOf(cpus);
            Objects.requireNonNull(split, "split");
            if (models.isEmpty() || cpus.isEmpty()) {
                throw new IllegalArgumentException("give at least one model and one CPU");
            }
        }

        public String splitName() {
            return split.map(s -> s.name().toLowerCase(java.util.Locale.ROOT)).orElse("all");
        }
    }

    /**
     * One estimator on one CPU.
     *
     * @param estimator       its name
     * @param uarch           the CPU
     * @param blocks          blocks of the split labelled for the CPU
     * @param predicted       of which it predicted
     * @param evaluation      accuracy on the predicted blocks (empty when none)
     * @param blocksPerSecond predicted blocks per second of wall time (loading excluded)
     * @param note            why it was skipped or what it missed (empty when nothing to say)
     * @param intervals       how its prediction intervals cover the measurements (empty: it gives none)
     */
    public record Row(String estimator, Microarchitecture uarch, int blocks, int predicted,
                      Optional<Evaluation> evaluation, double blocksPerSecond, String note,
                      Optional<IntervalScore> intervals) {
        public double coverage() {
            return blocks == 0 ? 0 : (double) predicted / blocks;
        }
    }

    /**
     * Calibration and sharpness of an estimator's prediction intervals on the blocks that have them.
     *
     * @param levels      nominal levels, increasing
     * @param coverage    per level, the share of blocks whose measurement lies inside the interval
     * @param medianWidth per level, the median of (high − low) ÷ prediction
     * @param blocks      blocks with intervals
     */
    public record IntervalScore(double[] levels, double[] coverage, double[] medianWidth, int blocks) {

        /** Coverage at {@code level}, NaN when it was not given. */
        public double coverageAt(double level) {
            return at(coverage, level);
        }

        /** Median relative width at {@code level}, NaN when it was not given. */
        public double medianWidthAt(double level) {
            return at(medianWidth, level);
        }

        private double at(double[] values, double level) {
            for (int i = 0; i < levels.length; i++) {
                if (Math.abs(levels[i] - level) < 1e-9) {
                    return values[i];
                }
            }
            return Double.NaN;
        }

        /** The score of {@code intervals} (null: none for that block) against {@code measured}. */
        static Optional<IntervalScore> of(List<List<Interval>> intervals, double[] predicted, double[] measured) {
            double[] levels = intervals.stream().filter(java.util.Objects::nonNull).findFirst()
                    .map(l -> l.stream().mapToDouble(Interval::level).toArray()).orElse(null);
            if (levels == null) {
                return Optional.empty();
            }
            double[] inside = new double[levels.length];
            double[][] widths = new double[levels.length][intervals.size()];
            int n = 0;
            for (int i = 0; i < intervals.size(); i++) {
                List<Interval> iv = intervals.get(i);
                if (iv == null || iv.size() != levels.length || !(predicted[i] > 0)) {
                    continue;
                }
                for (int l = 0; l < levels.length; l++) {
                    inside[l] += iv.get(l).contains(measured[i]) ? 1 : 0;
                    widths[l][n] = iv.get(l).relativeWidth(predicted[i]);
                }
                n++;
            }
            if (n == 0) {
                return Optional.empty();
            }
            double[] coverage = new double[levels.length];
            double[] median = new double[levels.length];
            for (int l = 0; l < levels.length; l++) {
                coverage[l] = inside[l] / n;
                median[l] = dev.basalt.datasets.Metrics.percentile(Arrays.copyOf(widths[l], n), 50);
            }
            return Optional.of(new IntervalScore(levels, coverage, median, n));
        }
    }

    /**
     * Everything measured.
     *
     * @param config      what was asked
     * @param dataset     the data set's name
     * @param rows        one per (CPU, estimator), CPUs outermost
     * @param blocks      per CPU, the blocks evaluated
     * @param predictions per CPU and estimator, predictions aligned with {@code blocks} (NaN: not predicted)
     * @param intervals   per CPU and estimator, each block's 90% interval as {low, high} (null: none)
     */
    public record Result(Config config, String dataset, List<Row> rows, Map<Microarchitecture, List<LabelledBlock>> blocks,
                         Map<Microarchitecture, Map<String, double[]>> predictions,
                         Map<Microarchitecture, Map<String, double[][]>> intervals) {
    }

    /** Progress of an evaluation. */
    public interface Listener {
        void phase(String name, long total);

        void progress(long done);

        void message(String line);
    }

    /** A listener that ignores everything. */
    public static Listener silent() {
        return new Listener() {
            @Override
            public void phase(String name, long total) {
            }

            @Override
            public void progress(long done) {
            }

            @Override
            public void message(String line) {
            }
        };
    }

    private Evaluator() {
    }

    /** Evaluates {@code config} on {@code data}, loading each estimator with {@link Estimators#load}. */
    public static Result run(Dataset data, Config config, Listener listener) {
        return run(data, config, Estimators::load, listener);
    }

    /**
     * Evaluates {@code config} on {@code data}; {@code loader} turns a model name into its estimator. An
     * estimator that cannot run here ({@link EstimatorUnavailableException}) gets a row per CPU saying why.
     */
    public static Result run(Dataset data, Config config, Function<String, ThroughputEstimator> loader,
                             Listener listener) {
        List<Row> rows = new ArrayList<>();
        Map<Microarchitecture, List<LabelledBlock>> blocksByCpu = new LinkedHashMap<>();
        Map<Microarchitecture, Map<String, double[]>> predictions = new LinkedHashMap<>();
        Map<Microarchitecture, Map<String, double[][]>> intervals90 = new LinkedHashMap<>();
        Map<String, ThroughputEstimator> loaded = new LinkedHashMap<>();
        Map<String, String> unavailable = new LinkedHashMap<>();
        try {
            for (String m : config.models()) {
                try {
                    ThroughputEstimator e = loader.apply(m);
                    loaded.put(m, e);
                    e.warnings().forEach(w -> listener.message("warning: " + m + ": " + w));
                } catch (EstimatorUnavailableException e) {
                    unavailable.put(m, "skipped: " + e.getMessage());
                }
            }
            for (Microarchitecture cpu : config.cpus()) {
                List<LabelledBlock> blocks = data.labelled(cpu).stream()
                        .filter(b -> config.split().isEmpty() || SplitScheme.defaults().of(b) == config.split().get())
                        .toList();
                blocksByCpu.put(cpu, blocks);
                double[] measured = blocks.stream().mapToDouble(b -> b.throughput(cpu).orElseThrow()).toArray();
                List<BasicBlock> bbs = blocks.stream().map(LabelledBlock::block).toList();
                // Every estimator reads the blocks' dependency graphs, memoized in the block: built here, untimed,
                // so that blocks/s does not charge the first estimator of a CPU for what all of them share.
                bbs.forEach(BasicBlock::dependencyGraph);
                Map<String, double[]> byModel = new LinkedHashMap<>();
                predictions.put(cpu, byModel);
                Map<String, double[][]> intervalsByModel = new LinkedHashMap<>();
                intervals90.put(cpu, intervalsByModel);
                for (String m : config.models()) {
                    ThroughputEstimator e = loaded.get(m);
                    String skip = e == null ? unavailable.get(m)
                            : e.supported().contains(cpu) ? null : "skipped: " + m + " has no model for " + cpu;
                    if (skip != null) {
                        listener.message(cpu + " " + m + ": " + skip);
                        rows.add(new Row(m, cpu, blocks.size(), 0, Optional.empty(), 0, skip, Optional.empty()));
                        continue;
                    }
                    double[] p = new double[blocks.size()];
                    Arrays.fill(p, Double.NaN);
                    // One batch first, untimed: blocks/s measures predicting, not the JIT compiling the estimator.
                    e.predictEach(bbs.subList(0, Math.min(WARM_UP, bbs.size())), cpu);
                    // And a collected heap: otherwise an estimator pays for collecting the garbage the one before
                    // it made (the simulator leaves ~100 MB a CPU, more than a whole pass of the bounds makes).
                    System.gc();
                    listener.phase(cpu + " " + m, bbs.size());
                    long t0 = System.nanoTime();
                    List<List<Interval>> iv = new ArrayList<>(java.util.Collections.nCopies(bbs.size(), null));
                    predict(e, cpu, bbs, p, iv, listener);
                    double seconds = (System.nanoTime() - t0) / 1e9;
                    byModel.put(m, p);
                    if (iv.stream().anyMatch(java.util.Objects::nonNull)) {
                        double[][] at90 = new double[bbs.size()][];
                        for (int i = 0; i < at90.length; i++) {
                            List<Interval> l = iv.get(i);
                            at90[i] = l == null ? null : l.stream().filter(x -> Math.abs(x.level()
                                    - Interval.DEFAULT_LEVEL) < 1e-9).findFirst()
                                    .map(x -> new double[] {x.low(), x.high()}).orElse(null);
                        }
                        intervalsByModel.put(m, at90);
                    }
                    rows.add(row(m, cpu, data.name(), config.splitName(), p, measured, seconds, "",
                            IntervalScore.of(iv, p, measured)));
                    rows.get(rows.size() - 1).evaluation().ifPresent(ev -> listener.message(ev.toText()));
                }
            }
        } finally {
            for (ThroughputEstimator e : loaded.values()) {
                if (e instanceof AutoCloseable c) {
                    try {
                        c.close();
                    } catch (Exception closeFailed) {
                        listener.message("closing " + e.name() + " failed: " + closeFailed);
                    }
                }
            }
        }
        return new Result(config, data.name(), rows, blocksByCpu, predictions, intervals90);
    }

    /**
     * Predicts in batches; a block the estimator cannot predict ({@link ThroughputEstimator#predictEach}) stays
     * NaN and counts against coverage. Every other failure propagates: it is a bug, not a result.
     */
    private static void predict(ThroughputEstimator e, Microarchitecture cpu, List<BasicBlock> blocks, double[] out,
                                List<List<Interval>> intervals, Listener listener) {
        for (int from = 0; from < blocks.size(); from += BATCH) {
            List<Optional<Prediction>> ps = e.predictEach(blocks.subList(from, Math.min(blocks.size(), from + BATCH)),
                    cpu);
            for (int k = 0; k < ps.size(); k++) {
                out[from + k] = ps.get(k).map(Prediction::cyclesPerIteration).orElse(Double.NaN);
                List<Interval> iv = ps.get(k).map(Prediction::intervals).orElse(List.of());
                intervals.set(from + k, iv.isEmpty() ? null : iv);
            }
            listener.progress(from + ps.size());
        }
    }

    private static Row row(String m, Microarchitecture cpu, String dataset, String split, double[] p,
                           double[] measured, double seconds, String note, Optional<IntervalScore> intervals) {
        int n = 0;
        for (double v : p) {
            if (Double.isFinite(v) && v > 0) {
                n++;
            }
        }
        double[] pp = new double[n];
        double[] mm = new double[n];
        int k = 0;
        for (int i = 0; i < p.length; i++) {
            if (Double.isFinite(p[i]) && p[i] > 0) {
                pp[k] = p[i];
                mm[k++] = measured[i];
            }
        }
        Optional<Evaluation> ev = n < 2 ? Optional.empty() : Optional.of(Evaluation.of(m, dataset, split, cpu, pp, mm));
        String missed = n < p.length ? (p.length - n) + " block(s) not predicted" : "";
        return new Row(m, cpu, p.length, n, ev, seconds > 0 ? n / seconds : 0,
                note.isEmpty() ? missed : note, intervals);
    }
}
