package dev.basalt.training;

import dev.basalt.core.Estimators;
import dev.basalt.core.Microarchitecture;
import dev.basalt.core.Prediction;
import dev.basalt.core.Provenance;
import dev.basalt.core.ThroughputEstimator;
import dev.basalt.decoder.BasicBlock;

import java.util.List;
import java.util.Optional;

/**
 * An analytical prior for a learned model: the learned model predicts the prior's cycles plus a learned
 * correction (DESIGN.md §5, "Analytical prior"). The prior is named in the model's configuration and found
 * through {@link Estimators}, so a model module does not compile against the simulator.
 */
public final class Priors {

    private Priors() {
    }

    /**
     * The named estimator, checked to support every CPU of the model.
     *
     * @throws IllegalArgumentException when it is unknown or lacks one of {@code cpus}
     */
    public static ThroughputEstimator load(String name, List<Microarchitecture> cpus) {
        ThroughputEstimator prior = Estimators.load(name);
        if (!prior.supported().containsAll(cpus)) {
            throw new IllegalArgumentException("prior estimator " + name + " supports " + prior.supported()
                    + ", not every CPU of " + cpus);
        }
        return prior;
    }

    /**
     * {@code provenance} with the prior a model rests on: by name and {@linkplain ThroughputEstimator#fingerprint(
     * java.util.Collection) fingerprint} on the model's CPUs, or by name only (the detail {@code prior}) when the estimator computes no fingerprint.
     */
    public static Provenance pin(Provenance provenance, String name, ThroughputEstimator prior,
                                 List<Microarchitecture> cpus) {
        Optional<String> fingerprint = prior.fingerprint(cpus);
        return fingerprint.isPresent() ? provenance.withPrior(new Provenance.Prior(name, fingerprint.get()))
                : provenance.with("prior", name);
    }

    /**
     * Why a model's predictions may differ from those it was trained and tested with: the prior named
     * {@code name} (now {@code prior}) is not the one {@code provenance} pins, or cannot be checked against it.
     *
     * @return one message a reason; empty when the prior is pinned by a fingerprint that {@code prior} still has
     */
    public static List<String> check(Provenance provenance, String name, ThroughputEstimator prior,
                                     List<Microarchitecture> cpus) {
        Provenance.Prior pinned = provenance.prior();
        Optional<String> now = prior.fingerprint(cpus);
        if (pinned == null) {
            return List.of("prior " + name + " is pinned by name only (the model file records no fingerprint of it): "
                    + "it may have changed since training");
        }
        if (!pinned.name().equals(name)) {
            return List.of("prior " + name + " is not the prior " + pinned.name() + " the model was trained on");
        }
        if (now.isEmpty()) {
            return List.of("prior " + name + " has no fingerprint now, so it cannot be checked against the one the "
                    + "model was trained on (" + abbreviate(pinned.fingerprint()) + ")");
        }
        if (!now.get().equals(pinned.fingerprint())) {
            return List.of("prior " + name + " changed since training: trained on " + abbreviate(pinned.fingerprint())
                    + ", now " + abbreviate(now.get()));
        }
        return List.of();
    }

    private static String abbreviate(String fingerprint) {
        return fingerprint.length() <= 12 ? fingerprint : fingerprint.substring(0, 12) + "…";
    }

    /** The prior's cycles per iteration, [block][cpu]. */
    public static float[][] table(ThroughputEstimator prior, List<BasicBlock> blocks, List<Microarchitecture> cpus) {
        float[][] out = new float[blocks.size()][cpus.size()];
        for (int c = 0; c < cpus.size(); c++) {
            List<Prediction> p = prior.predictFeatures(blocks, cpus.get(c));
            for (int i = 0; i < blocks.size(); i++) {
                out[i][c] = (float) p.get(i).cyclesPerIteration();
            }
        }
        return out;
    }

    /**
     * The prior's per-instruction statistics on every CPU, side by side: per block, [instructions][statistics ×
     * cpus] (the first CPU's statistics, then the next CPU's). Computed on every core.
     *
     * @throws IllegalArgumentException when the prior gives no statistics
     */
    public static float[][][] statistics(ThroughputEstimator prior, List<BasicBlock> blocks,
                                         List<Microarchitecture> cpus) {
        if (!(prior instanceof dev.basalt.core.InstructionStatistics stats)) {
            throw new IllegalArgumentException("prior " + prior.name() + " gives no per-instruction statistics");
        }
        int width = stats.statisticNames().size();
        return blocks.parallelStream().map(b -> {
            float[][] rows = new float[b.size()][width * cpus.size()];
            for (int c = 0; c < cpus.size(); c++) {
                float[][] s = stats.statistics(b, cpus.get(c));
                for (int i = 0; i < b.size(); i++) {
                    System.arraycopy(s[i], 0, rows[i], c * width, width);
                }
            }
            return rows;
        }).toArray(float[][][]::new);
    }

    /** A learned model's inputs from its prior: cycles [block][cpu], and statistics as {@link #statistics} or null. */
    public record Inputs(float[][] cycles, float[][][] statistics) {
    }

    /**
     * {@link #table} and, when {@code withStatistics}, {@link #statistics}: from one computation per block and CPU
     * when the prior makes both at once ({@link dev.basalt.core.InstructionStatistics.Shared}), else from two.
     */
    public static Inputs inputs(ThroughputEstimator prior, List<BasicBlock> blocks, List<Microarchitecture> cpus,
                                boolean withStatistics) {
        if (!withStatistics || !(prior instanceof dev.basalt.core.InstructionStatistics.Shared shared)) {
            return new Inputs(table(prior, blocks, cpus), withStatistics ? statistics(prior, blocks, cpus) : null);
        }
        int width = shared.statisticNames().size();
        float[][] cycles = new float[blocks.size()][cpus.size()];
        float[][][] statistics = new float[blocks.size()][][];
        java.util.stream.IntStream.range(0, blocks.size()).parallel().forEach(i -> {
            BasicBlock b = blocks.get(i);
            float[][] rows = new float[b.size()][width * cpus.size()];
            for (int c = 0; c < cpus.size(); c++) {
                dev.basalt.core.InstructionStatistics.Shared.Featured f = shared.featured(b, cpus.get(c));
                cycles[i][c] = (float) f.cycles();
                for (int k = 0; k < b.size(); k++) {
                    System.arraycopy(f.statistics()[k], 0, rows[k], c * width, width);
                }
            }
            statistics[i] = rows;
        });
        return new Inputs(cycles, statistics);
    }

    /**
     * The share of a block's instructions on its prior's critical cycle on CPU {@code cpu} (index into the
     * model's CPUs), from its statistics as {@link #statistics} lays them out, or NaN when the prior gives no
     * {@code on_critical_cycle} statistic (or the block none).
     */
    public static double criticalShare(ThroughputEstimator prior, float[][] statistics, int cpu) {
        if (!(prior instanceof dev.basalt.core.InstructionStatistics stats) || statistics == null
                || statistics.length == 0) {
            return Double.NaN;
        }
        int index = stats.statisticNames().indexOf("on_critical_cycle");
        if (index < 0) {
            return Double.NaN;
        }
        int column = cpu * stats.statisticNames().size() + index;
        int on = 0;
        for (float[] instruction : statistics) {
            if (instruction[column] > 0) {
                on++;
            }
        }
        return on / (double) statistics.length;
    }

    /** How many statistics per instruction {@link #statistics} gives for {@code cpus}, or 0 without any. */
    public static int statisticsWidth(ThroughputEstimator prior, List<Microarchitecture> cpus) {
        return prior instanceof dev.basalt.core.InstructionStatistics stats
                ? stats.statisticNames().size() * cpus.size() : 0;
    }

    /** The rows of {@code examples}, flattened row-major [examples × cpus]. */
    public static float[] rows(float[][] table, List<Integer> examples) {
        int heads = table.length == 0 ? 0 : table[0].length;
        float[] out = new float[examples.size() * heads];
        for (int i = 0; i < examples.size(); i++) {
            System.arraycopy(table[examples.get(i)], 0, out, i * heads, heads);
        }
        return out;
    }

    /** Every row of {@code table}, flattened row-major [rows × cpus]. */
    public static float[] flatten(float[][] table) {
        return rows(table, java.util.stream.IntStream.range(0, table.length).boxed().toList());
    }
}
