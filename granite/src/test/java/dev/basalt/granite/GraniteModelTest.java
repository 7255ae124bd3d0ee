package dev.basalt.granite;

import dev.basalt.core.Microarchitecture;
import dev.basalt.training.MultiTaskTrainer;
import dev.basalt.datasets.Dataset;
import dev.basalt.datasets.LabelledBlock;
import dev.basalt.datasets.Split;
import dev.basalt.datasets.SplitScheme;
import dev.basalt.datasets.Vocabulary;
import dev.basalt.decoder.BasicBlock;
import dev.basalt.decoder.MemoryPolicy;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A tiny GRANITE trains (its loss falls) and is reproducible (same seed, same weights, same predictions). */
class GraniteModelTest {

    // With weight averaging, as the shipped model: the averaged weights must be as reproducible as the weights.
    private static final GraniteConfig TINY = new GraniteConfig(16, 2, 1, 3e-3, 4, 400, 5.0, 10, 7,
            MemoryPolicy.ALL_ALIAS, null, 1.0, 1, false, 0.9);
    private static final List<Microarchitecture> CPUS = List.of(Microarchitecture.HASWELL, Microarchitecture.SKYLAKE);

    private record Run(List<MultiTaskTrainer.Epoch> epochs, double[] predictions) {
    }

    private static Run trainOnce(List<LabelledBlock> train, List<LabelledBlock> validation, Vocabulary vocab,
                                 List<BasicBlock> probe, java.nio.file.Path saveTo) throws Exception {
        try (GraniteModel model = GraniteModel.create(TINY, vocab, CPUS)) {
            List<MultiTaskTrainer.Epoch> epochs = model.train(train, validation, e -> { }, n -> { });
            double[] p = model.predictAll(probe, Microarchitecture.HASWELL).stream()
                    .mapToDouble(x -> x.cyclesPerIteration()).toArray();
            if (saveTo != null) {
                model.save(saveTo, model.newProvenance("test").withData("d474", "all").with("test", "tiny"));
            }
            return new Run(epochs, p);
        }
    }

    @Test
    void trainsIsReproducibleAndRoundTrips(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        Dataset data = Dataset.bundled();
        SplitScheme scheme = SplitScheme.defaults();
        List<LabelledBlock> train = data.blocks(scheme, Split.TRAIN).stream()
                .filter(b -> b.hasLabel(Microarchitecture.HASWELL) || b.hasLabel(Microarchitecture.SKYLAKE))
                .filter(b -> b.block().size() <= 20).limit(300).toList();
        List<LabelledBlock> validation = data.blocks(scheme, Split.VALIDATION).stream()
                .filter(b -> b.hasLabel(Microarchitecture.HASWELL)).filter(b -> b.block().size() <= 20).limit(60)
                .toList();
        Vocabulary vocab = GraniteModel.vocabulary(train.stream().map(LabelledBlock::block).toList(), TINY);
        List<BasicBlock> probe = validation.stream().limit(20).map(LabelledBlock::block).toList();
        java.nio.file.Path file = dir.resolve("tiny.granite");
        Run a = trainOnce(train, validation, vocab, probe, file);
        Run b = trainOnce(train, validation, vocab, probe, null);
        a.epochs().forEach(e -> System.err.printf("tiny GRANITE epoch %d: loss %.4f, validation MAPE %s (%.1f s)%n",
                e.epoch(), e.trainLoss(), java.util.Arrays.toString(e.validationMape()), e.seconds()));
        assertEquals(TINY.epochs(), a.epochs().size());
        assertTrue(a.epochs().get(a.epochs().size() - 1).trainLoss() < a.epochs().get(0).trainLoss(),
                "training loss falls");
        assertArrayEquals(a.predictions(), b.predictions(), 0.0, "same seed and data, same predictions");
        for (double p : a.predictions()) {
            assertTrue(p >= 0 && Double.isFinite(p));
        }
        // Save and load: the same predictions, and the provenance it was saved with.
        try (GraniteModel loaded = GraniteModel.load(file)) {
            double[] again = loaded.predictAll(probe, Microarchitecture.HASWELL).stream()
                    .mapToDouble(x -> x.cyclesPerIteration()).toArray();
            assertArrayEquals(a.predictions(), again, 0.0);
            dev.basalt.core.Provenance p = loaded.provenance().orElseThrow();
            assertEquals("granite-model", p.kind());
            assertEquals("test", p.command());
            assertEquals(TINY.seed(), p.seed());
            assertEquals(TINY, loaded.config(), "the configuration, weight averaging included, round-trips");
            assertEquals("d474", p.dataFingerprint());
            assertEquals("tiny", p.detail("test").orElseThrow());
            assertEquals(List.of(), loaded.warnings(), "no prior, nothing to warn about");
        }
        // A truncated file gives one clear error.
        byte[] bytes = java.nio.file.Files.readAllBytes(file);
        java.nio.file.Path cut = dir.resolve("cut.granite");
        java.nio.file.Files.write(cut, java.util.Arrays.copyOf(bytes, bytes.length / 2));
        java.io.IOException e = org.junit.jupiter.api.Assertions.assertThrows(java.io.IOException.class,
                () -> GraniteModel.load(cut));
        assertTrue(e.getMessage().contains(cut.toString()), e.getMessage());
        java.nio.file.Path notModel = dir.resolve("not.granite");
        java.nio.file.Files.writeString(notModel, "hello");
        assertThrows(java.io.IOException.class, () -> GraniteModel.load(notModel));
    }

    @Test
    void withAPriorThePredictionIsThePriorPlusTheInstructionsCorrections() throws Exception {
        GraniteConfig withPrior = new GraniteConfig(16, 2, 1, 3e-3, 2, 400, 5.0, 10, 7, MemoryPolicy.ALL_ALIAS,
                "simulator", 1.0, 1);
        Dataset data = Dataset.bundled();
        List<LabelledBlock> train = data.blocks(SplitScheme.defaults(), Split.TRAIN).stream()
                .filter(b -> b.hasLabel(Microarchitecture.HASWELL)).filter(b -> b.block().size() <= 20).limit(200)
                .toList();
        Vocabulary vocab = GraniteModel.vocabulary(train.stream().map(LabelledBlock::block).toList(), withPrior);
        List<BasicBlock> probe = data.blocks(SplitScheme.defaults(), Split.TEST).stream().limit(25)
                .map(LabelledBlock::block).toList();
        dev.basalt.core.ThroughputEstimator simulator = dev.basalt.core.Estimators.load("simulator");
        try (GraniteModel model = GraniteModel.create(withPrior, vocab, CPUS)) {
            model.train(train, List.of(), e -> { }, n -> { });
            List<dev.basalt.core.Prediction> p = model.predictAll(probe, Microarchitecture.SKYLAKE);
            double corrections = 0;
            for (int i = 0; i < probe.size(); i++) {
                double sim = simulator.predict(probe.get(i), Microarchitecture.SKYLAKE).cyclesPerIteration();
                dev.basalt.core.Prediction q = p.get(i);
                assertEquals(sim, q.baseline(), 1e-4, "the baseline is the simulator's prediction");
                assertEquals(probe.get(i).size(), q.contributions().size());
                double sum = q.contributions().stream().mapToDouble(Double::doubleValue).sum();
                assertEquals(Math.max(0, sim + sum), q.cyclesPerIteration(), 1e-3 * Math.max(1, sim));
                corrections += Math.abs(sum);
            }
            assertTrue(corrections > 0, "the trained network corrects the prior");
        }
        GraniteConfig badPrior = new GraniteConfig(16, 2, 1, 3e-3, 2, 400, 5.0, 10, 7, MemoryPolicy.ALL_ALIAS,
                "no-such-model", 1.0, 1);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> GraniteModel.create(badPrior, vocab, CPUS));
        assertTrue(e.getMessage().contains("no-such-model"), e.getMessage());
    }

    /**
     * Hybrid inputs reach the network: a hybrid model and a plain one from the same seed share every other weight
     * (the statistics' weights are made last), so before training they differ only by what the prior's statistics
     * add; after two epochs the hybrid model predicts finite numbers, round-trips through its file, and a hybrid
     * model without a prior is refused.
     */
    @Test
    void aHybridModelReadsThePriorsStatistics(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws Exception {
        GraniteConfig plain = new GraniteConfig(16, 2, 1, 3e-3, 2, 400, 5.0, 10, 7, MemoryPolicy.ALL_ALIAS,
                "simulator", 1.0, 1);
        GraniteConfig hybrid = plain.withHybrid(true);
        Dataset data = Dataset.bundled();
        List<LabelledBlock> train = data.blocks(SplitScheme.defaults(), Split.TRAIN).stream()
                .filter(b -> b.hasLabel(Microarchitecture.HASWELL)).filter(b -> b.block().size() <= 20).limit(200)
                .toList();
        Vocabulary vocab = GraniteModel.vocabulary(train.stream().map(LabelledBlock::block).toList(), plain);
        List<BasicBlock> probe = data.blocks(SplitScheme.defaults(), Split.TEST).stream().limit(25)
                .map(LabelledBlock::block).toList();
        java.nio.file.Path file = dir.resolve("hybrid.granite");
        try (GraniteModel a = GraniteModel.create(plain, vocab, CPUS);
             GraniteModel b = GraniteModel.create(hybrid, vocab, CPUS)) {
            double[] pa = a.predictAll(probe, Microarchitecture.HASWELL).stream()
                    .mapToDouble(x -> x.cyclesPerIteration()).toArray();
            double[] pb = b.predictAll(probe, Microarchitecture.HASWELL).stream()
                    .mapToDouble(x -> x.cyclesPerIteration()).toArray();
            assertFalse(java.util.Arrays.equals(pa, pb), "the statistics change the untrained network's output");
            b.train(train, List.of(), e -> { }, n -> { });
            double[] trained = b.predictAll(probe, Microarchitecture.HASWELL).stream()
                    .mapToDouble(x -> x.cyclesPerIteration()).toArray();
            for (double p : trained) {
                assertTrue(Double.isFinite(p) && p >= 0, "prediction " + p);
            }
            b.save(file, b.newProvenance("test"));
            try (GraniteModel loaded = GraniteModel.load(file)) {
                assertTrue(loaded.config().hybrid());
                assertArrayEquals(trained, loaded.predictAll(probe, Microarchitecture.HASWELL).stream()
                        .mapToDouble(x -> x.cyclesPerIteration()).toArray(), 0.0);
            }
        }
        assertThrows(IllegalArgumentException.class, () -> new GraniteConfig(16, 2, 1, 3e-3, 2, 400, 5.0, 10, 7,
                MemoryPolicy.ALL_ALIAS, null, 1.0, 1, true));
    }
}
