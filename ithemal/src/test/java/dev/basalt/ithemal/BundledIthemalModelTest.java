package dev.basalt.ithemal;

import dev.basalt.core.Estimators;
import dev.basalt.core.Microarchitecture;
import dev.basalt.core.Prediction;
import dev.basalt.core.ThroughputEstimator;
import dev.basalt.datasets.Dataset;
import dev.basalt.datasets.LabelledBlock;
import dev.basalt.datasets.Metrics;
import dev.basalt.datasets.Split;
import dev.basalt.datasets.SplitScheme;
import dev.basalt.decoder.BasicBlock;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The shipped Ithemal model with its real prior (the {@code simulator} estimator, on the class path as a runtime
 * dependency): its baseline is the simulator's prediction, and on the Haswell test split of the bundled sample it
 * keeps the accuracy the README reports (8.36% MAPE when shipped).
 */
class BundledIthemalModelTest {

    @Test
    void bundledModelRunsOnItsSimulatorPrior() throws IOException {
        List<LabelledBlock> test = Dataset.bundled().labelled(Microarchitecture.HASWELL).stream()
                .filter(b -> SplitScheme.defaults().of(b) == Split.TEST).toList();
        List<BasicBlock> blocks = test.stream().map(LabelledBlock::block).toList();
        ThroughputEstimator prior = Estimators.load("simulator");
        try (IthemalModel model = IthemalModel.bundled()) {
            assertEquals("simulator", model.config().prior());
            // Its file predates typed provenance: read as far as it goes, and its prior is named but not pinned.
            assertEquals(Dataset.bundled().fingerprint(), model.provenance().orElseThrow().detail("datasetFingerprint")
                    .orElseThrow());
            assertTrue(model.warnings().get(0).startsWith("prior simulator is pinned by name only"), model.warnings()
                    .toString());
            List<Prediction> p = model.predictAll(blocks, Microarchitecture.HASWELL);
            List<Prediction> base = prior.predictAll(blocks, Microarchitecture.HASWELL);
            for (int i = 0; i < blocks.size(); i++) {
                assertEquals((float) base.get(i).cyclesPerIteration(), p.get(i).baseline(), 1e-6,
                        "baseline of " + blocks.get(i).hex());
            }
            double[] predicted = p.stream().mapToDouble(Prediction::cyclesPerIteration).toArray();
            double[] measured = test.stream().mapToDouble(b -> b.throughput(Microarchitecture.HASWELL).orElseThrow())
                    .toArray();
            double mape = Metrics.mape(predicted, measured);
            assertTrue(mape < 0.09, "test MAPE " + mape);
            assertTrue(mape < Metrics.mape(base.stream().mapToDouble(Prediction::cyclesPerIteration).toArray(),
                    measured), "the learned correction improves on its prior");
        }
    }
}
