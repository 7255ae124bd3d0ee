package dev.basalt.ithemal;

import dev.basalt.core.Microarchitecture;
import dev.basalt.core.Prediction;
import dev.basalt.training.MultiTaskTrainer;
import dev.basalt.datasets.Dataset;
import dev.basalt.datasets.LabelledBlock;
import dev.basalt.datasets.Split;
import dev.basalt.datasets.SplitScheme;
import dev.basalt.datasets.Vocabulary;
import dev.basalt.decoder.BasicBlock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A tiny Ithemal trains on real blocks, reproduces exactly from its seed, and round-trips through its file. */
class IthemalModelTest {

    private static final IthemalConfig TINY = new IthemalConfig(16, 16, 3e-3, 4, 400, 5.0, 10, 5, null, 1.0, 1);
    private static final List<Microarchitecture> CPUS = List.of(Microarchitecture.HASWELL, Microarchitecture.IVYBRIDGE);

    private record Run(List<MultiTaskTrainer.Epoch> epochs, double[] predictions) {
    }

    private static Run train(List<LabelledBlock> train, List<LabelledBlock> validation, Vocabulary vocab,
                             List<BasicBlock> probe, Path saveTo) throws IOException {
        try (IthemalModel model = IthemalModel.create(TINY, vocab, CPUS)) {
            List<MultiTaskTrainer.Epoch> epochs = model.train(train, validation, e -> { }, n -> { });
            double[] p = model.predictAll(probe, Microarchitecture.IVYBRIDGE).stream()
                    .mapToDouble(Prediction::cyclesPerIteration).toArray();
            if (saveTo != null) {
                model.save(saveTo, model.newProvenance("test").with("test", "tiny"));
            }
            return new Run(epochs, p);
        }
    }

    @Test
    void trainsReproducesAndRoundTrips(@TempDir Path dir) throws IOException {
        Dataset data = Dataset.bundled();
        SplitScheme scheme = SplitScheme.defaults();
        List<LabelledBlock> train = data.blocks(scheme, Split.TRAIN).stream()
                .filter(b -> CPUS.stream().anyMatch(b::hasLabel)).filter(b -> b.block().size() <= 20).limit(300)
                .toList();
        List<LabelledBlock> validation = data.blocks(scheme, Split.VALIDATION).stream()
                .filter(b -> b.hasLabel(Microarchitecture.IVYBRIDGE)).limit(60).toList();
        Vocabulary vocab = IthemalModel.vocabulary(train.stream().map(LabelledBlock::block).toList());
        List<BasicBlock> probe = validation.stream().limit(20).map(LabelledBlock::block).toList();
        Path file = dir.resolve("tiny.ithemal");
        Run a = train(train, validation, vocab, probe, file);
        Run b = train(train, validation, vocab, probe, null);
        a.epochs().forEach(e -> System.err.printf("tiny Ithemal epoch %d: loss %.4f, validation MAPE %s%n", e.epoch(),
                e.trainLoss(), Arrays.toString(e.validationMape())));
        assertEquals(TINY.epochs(), a.epochs().size());
        assertTrue(a.epochs().get(TINY.epochs() - 1).trainLoss() < a.epochs().get(0).trainLoss(), "loss falls");
        assertArrayEquals(a.predictions(), b.predictions(), 0.0, "same seed and data, same predictions");
        try (IthemalModel loaded = IthemalModel.load(file)) {
            assertEquals("ithemal-model", loaded.provenance().orElseThrow().kind());
            assertEquals(TINY.seed(), loaded.provenance().orElseThrow().seed());
            assertEquals("tiny", loaded.provenance().orElseThrow().detail("test").orElseThrow());
            assertArrayEquals(a.predictions(), loaded.predictAll(probe, Microarchitecture.IVYBRIDGE).stream()
                    .mapToDouble(Prediction::cyclesPerIteration).toArray(), 0.0);
            // One block at a time equals the batch: padding does not leak into the LSTM states.
            for (int i = 0; i < probe.size(); i++) {
                assertEquals(a.predictions()[i], loaded.predict(probe.get(i), Microarchitecture.IVYBRIDGE)
                        .cyclesPerIteration(), 1e-4 * Math.max(1, a.predictions()[i]));
            }
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> loaded.predict(probe.get(0), Microarchitecture.SKYLAKE));
            assertTrue(e.getMessage().contains("skylake"), e.getMessage());
        }
        byte[] bytes = Files.readAllBytes(file);
        Path cut = dir.resolve("cut.ithemal");
        Files.write(cut, Arrays.copyOf(bytes, bytes.length - 100));
        IOException e = assertThrows(IOException.class, () -> IthemalModel.load(cut));
        assertTrue(e.getMessage().contains(cut.toString()), e.getMessage());
    }

    @Test
    void eightThreadsGiveTheSingleThreadResults() throws Exception {
        List<BasicBlock> blocks = Dataset.bundled().labelled(Microarchitecture.HASWELL).stream().limit(1000)
                .map(LabelledBlock::block).toList();
        Vocabulary vocab = IthemalModel.vocabulary(blocks.subList(0, 500));
        try (IthemalModel model = IthemalModel.create(TINY, vocab, CPUS)) {
            double[] expected = blocks.stream().mapToDouble(b -> model.predict(b, Microarchitecture.HASWELL)
                    .cyclesPerIteration()).toArray();
            java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(8);
            try {
                List<java.util.concurrent.Future<double[]>> runs = new java.util.ArrayList<>();
                for (int t = 0; t < 8; t++) {
                    runs.add(pool.submit(() -> blocks.stream().mapToDouble(b -> model.predict(b,
                            Microarchitecture.HASWELL).cyclesPerIteration()).toArray()));
                }
                // Not bit-exact (unlike GRANITE): PyTorch's fused LSTM splits its work by the calling thread's
                // OpenMP team, so a pool thread may round the last bit differently from the main thread.
                for (java.util.concurrent.Future<double[]> r : runs) {
                    double[] got = r.get();
                    for (int i = 0; i < got.length; i++) {
                        assertEquals(expected[i], got[i], 1e-6 * Math.max(1, expected[i]), "block " + i);
                    }
                }
            } finally {
                pool.shutdown();
            }
            assertTrue(model.unknownTokens() > 0, "blocks 500..999 bring tokens outside the vocabulary: counted");
        }
    }
}
