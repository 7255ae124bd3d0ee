package dev.basalt.training;

import dev.basalt.core.Estimators;
import dev.basalt.core.Microarchitecture;
import dev.basalt.core.Prediction;
import dev.basalt.core.ThroughputEstimator;
import dev.basalt.decoder.BasicBlock;

import java.util.List;

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

    /** The prior's cycles per iteration, [block][cpu]. */
    public static float[][] table(ThroughputEstimator prior, List<BasicBlock> blocks, List<Microarchitecture> cpus) {
        float[][] out = new float[blocks.size()][cpus.size()];
        for (int c = 0; c < cpus.size(); c++) {
            List<Prediction> p = prior.predictAll(blocks, cpus.get(c));
            for (int i = 0; i < blocks.size(); i++) {
                out[i][c] = (float) p.get(i).cyclesPerIteration();
            }
        }
        return out;
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
