package dev.basalt.granite;

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
 * The shipped GRANITE model with its real prior (the {@code simulator} estimator, on the class path as a runtime
 * dependency): its baseline is the simulator's prediction, its per-instruction contributions add up to its
 * correction, and on the Haswell test split of the bundled sample it keeps the accuracy the README reports
 * (8.18% MAPE when shipped).
 */
class BundledGraniteModelTest {

    @Test
    void bundledModelRunsOnItsSimulatorPrior() throws IOException {
        List<LabelledBlock> test = Dataset.bundled().labelled(Microarchitecture.HASWELL).stream()
                .filter(b -> SplitScheme.defaults().of(b) == Split.TEST).toList();
        List<BasicBlock> blocks = test.stream().map(LabelledBlock::block).toList();
        ThroughputEstimator prior = Estimators.load("simulator");
        try (GraniteModel model = GraniteModel.bundled()) {
            assertEquals("simulator", model.config().prior());
            List<Prediction> p = model.predictAll(blocks, Microarchitecture.HASWELL);
            List<Prediction> base = prior.predictAll(blocks, Microarchitecture.HASWELL);
            for (int i = 0; i < blocks.size(); i++) {
                Prediction g = p.get(i);
                assertEquals((float) base.get(i).cyclesPerIteration(), g.baseline(), 1e-6,
                        "baseline of " + blocks.get(i).hex());
                // GRANITE attributes its correction: baseline plus contributions is the prediction.
                double sum = g.baseline() + g.contributions().stream().mapToDouble(Double::doubleValue).sum();
                assertEquals(Math.max(0, sum), g.cyclesPerIteration(), 1e-3 * Math.max(1, sum), blocks.get(i).hex());
                assertEquals(blocks.get(i).size(), g.contributions().size());
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

    @Test
    void bundledModelReadsItsOlderProvenanceAndSaysItsPriorIsPinnedByNameOnly() throws IOException {
        try (GraniteModel model = GraniteModel.bundled()) {
            dev.basalt.core.Provenance p = model.provenance().orElseThrow();
            assertTrue(p.command().startsWith("basalt train granite "), p.command());
            assertEquals(Dataset.bundled().fingerprint(), p.detail("datasetFingerprint").orElseThrow());
            assertEquals(40, p.detail("epochs").orElseThrow());
            assertEquals(1, model.warnings().size(), model.warnings().toString());
            assertTrue(model.warnings().get(0).startsWith("prior simulator is pinned by name only"),
                    model.warnings().get(0));
        }
    }
}
