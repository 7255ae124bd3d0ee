package dev.basalt.ithemal;

import dev.basalt.core.Estimators;
import dev.basalt.core.Microarchitecture;
import dev.basalt.core.Prediction;
import dev.basalt.datasets.Dataset;
import dev.basalt.datasets.LabelledBlock;
import dev.basalt.datasets.Metrics;
import dev.basalt.datasets.Split;
import dev.basalt.datasets.SplitScheme;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The shipped Ithemal model runs in its own module on its real prior, the {@code bounds} estimator (a runtime
 * dependency): on the Skylake test split of the bundled sample every baseline is the bounds' prediction,
 * there is no per-instruction attribution, and the corrected predictions beat the prior (8.94% MAPE shipped).
 */
class BundledIthemalModelTest {

    @Test
    void correctsItsBoundsPriorOnTheSkylakeTestSplit() throws IOException {
        Microarchitecture skl = Microarchitecture.SKYLAKE;
        List<LabelledBlock> test = Dataset.bundled().blocks(SplitScheme.defaults(), Split.TEST).stream()
                .filter(b -> b.hasLabel(skl)).toList();
        double[] measured = test.stream().mapToDouble(b -> b.throughput(skl).orElseThrow()).toArray();
        double[] prior = Estimators.load("bounds").predictAll(test.stream().map(LabelledBlock::block).toList(), skl)
                .stream().mapToDouble(Prediction::cyclesPerIteration).toArray();
        try (IthemalModel ithemal = IthemalModel.bundled()) {
            assertEquals(List.of(), ithemal.warnings(), "trained on today's tables, pinned by their fingerprint");
            List<Prediction> ours = ithemal.predictAll(test.stream().map(LabelledBlock::block).toList(), skl);
            double[] cycles = new double[ours.size()];
            for (int i = 0; i < cycles.length; i++) {
                cycles[i] = ours.get(i).cyclesPerIteration();
                assertEquals((float) prior[i], ours.get(i).baseline(), 1e-6, test.get(i).hex());
                assertTrue(ours.get(i).contributions().isEmpty());
            }
            double mape = Metrics.mape(cycles, measured);
            assertTrue(mape < 0.095 && mape < Metrics.mape(prior, measured), "Ithemal " + mape + ", prior "
                    + Metrics.mape(prior, measured));
            assertTrue(Metrics.kendallTauB(cycles, measured) > 0.85, "Kendall tau");
        }
    }
}
