package dev.basalt.training;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import dev.basalt.core.Microarchitecture;
import dev.basalt.core.Prediction;
import dev.basalt.core.Provenance;
import dev.basalt.datasets.Vocabulary;
import dev.basalt.decoder.BasicBlock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What every learned model inherits: its provenance survives save and load, a changed or unpinned prior is
 * reported on load, and batches for prediction group blocks by size. Runs a one-layer model on the test priors
 * ({@link TestPriors}).
 */
class LearnedModelTest {

    private static final List<Microarchitecture> CPUS = List.of(Microarchitecture.HASWELL, Microarchitecture.SKYLAKE);
    private static final List<BasicBlock> BLOCKS = List.of(BasicBlock.fromHex("4883c001"),
            BasicBlock.fromHex("4889de4801c8"), BasicBlock.fromHex("4801c84801c84801c8"));

    /** A tiny model's configuration. */
    record TinyConfig(long seed, String prior) {
    }

    /** A batch: each block's instruction count and prior rows. */
    record TinyBatch(float[] sizes, float[] prior) implements LearnedModel.Batch {
        @Override
        public int unknownTokens() {
            return 0;
        }
    }

    /** Cycles = prior + size × w[head]. */
    static final class TinyModel extends LearnedModel<TinyConfig, BasicBlock, TinyBatch> {
        static final Format<TinyConfig> FORMAT = new Format<>("basalt-tiny-1", "tiny", TinyConfig.class);

        TinyModel(TinyConfig config, Vocabulary vocabulary, List<Microarchitecture> cpus, Provenance provenance) {
            super(FORMAT, config, config.prior(), vocabulary, cpus, provenance);
            parameters().uniform("w", new SplittableRandom(config.seed()), 1.0, 1, cpus.size());
        }

        static TinyModel create(TinyConfig config) {
            return new TinyModel(config, Vocabulary.build(List.of("a"), List.of(), 1), CPUS, null);
        }

        static TinyModel load(Path file) throws IOException {
            return load(file, FORMAT, TinyModel::new);
        }

        @Override
        public String name() {
            return "tiny";
        }

        @Override
        protected BasicBlock prepare(BasicBlock block) {
            return block;
        }

        @Override
        protected TinyBatch batch(List<BasicBlock> blocks, float[] priorRows, List<float[][]> statistics) {
            float[] sizes = new float[blocks.size()];
            for (int i = 0; i < sizes.length; i++) {
                sizes[i] = blocks.get(i).size();
            }
            return new TinyBatch(sizes, priorRows);
        }

        @Override
        protected NDList forward(TinyBatch batch, NDManager manager) {
            NDArray y = manager.create(batch.sizes(), new Shape(batch.sizes().length, 1))
                    .matMul(parameters().get("w"));
            return new NDList(batch.prior() == null ? y
                    : y.add(manager.create(batch.prior(), new Shape(batch.sizes().length, cpus().size()))));
        }

        @Override
        protected MultiTaskTrainer.Settings settings() {
            return new MultiTaskTrainer.Settings(1e-3, 5, 1, 1, 100, config().seed());
        }
    }

    private static double[] predictions(TinyModel model) {
        return model.predictAll(BLOCKS, Microarchitecture.SKYLAKE).stream()
                .mapToDouble(Prediction::cyclesPerIteration).toArray();
    }

    @Test
    void saveAndLoadKeepTheProvenanceAndTheWeights(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("m.tiny");
        Provenance saved;
        double[] before;
        try (TinyModel model = TinyModel.create(new TinyConfig(7, "fingerprinted"))) {
            assertTrue(model.provenance().isEmpty(), "a new model was not loaded");
            assertEquals(List.of(), model.warnings());
            saved = model.newProvenance("basalt train tiny --seed 7").withData("d474", "by hex")
                    .with("epochs", 3).with("testReport", "a,b\n1,2\n");
            assertEquals("tiny-model", saved.kind());
            assertEquals(7L, saved.seed());
            assertEquals(new Provenance.Prior("fingerprinted", TestPriors.FINGERPRINT), saved.prior());
            model.save(file, saved);
            before = predictions(model);
        }
        ModelFile.Loaded<TinyConfig, Vocabulary> read = ModelFile.read(Files.readAllBytes(file), file.toString(),
                "tiny", "basalt-tiny-1", TinyConfig.class, Vocabulary.class);
        assertEquals(saved, read.provenance());
        try (TinyModel loaded = TinyModel.load(file)) {
            assertEquals(saved, loaded.provenance().orElseThrow());
            assertEquals(List.of(), loaded.warnings(), "the prior is the one it was trained on");
            assertEquals(new TinyConfig(7, "fingerprinted"), loaded.config());
            assertEquals(before.length, predictions(loaded).length);
            for (int i = 0; i < before.length; i++) {
                assertEquals(before[i], predictions(loaded)[i], 0.0);
            }
        }
    }

    @Test
    void aPriorThatChangedSinceTrainingIsReported(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("m.tiny");
        try (TinyModel model = TinyModel.create(new TinyConfig(7, "fingerprinted"))) {
            model.save(file, model.newProvenance("test")
                    .withPrior(new Provenance.Prior("fingerprinted", "f00d" + "1".repeat(60))));
        }
        try (TinyModel loaded = TinyModel.load(file)) {
            assertEquals(List.of("prior fingerprinted changed since training: trained on f00d11111111…, now "
                    + "ab1200000000…"), loaded.warnings());
        }
    }

    @Test
    void aPriorPinnedByNameOnlyIsReported(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("m.tiny");
        try (TinyModel model = TinyModel.create(new TinyConfig(7, "unfingerprinted"))) {
            Provenance p = model.newProvenance("test");
            assertNull(p.prior(), "a prior without a fingerprint cannot be pinned by one");
            assertEquals("unfingerprinted", p.detail("prior").orElseThrow());
            model.save(file, p);
        }
        try (TinyModel loaded = TinyModel.load(file)) {
            assertEquals(1, loaded.warnings().size());
            assertTrue(loaded.warnings().get(0).startsWith("prior unfingerprinted is pinned by name only"),
                    loaded.warnings().get(0));
        }
        // A file pinning a fingerprint whose prior no longer has one cannot be checked either.
        try (TinyModel model = TinyModel.create(new TinyConfig(7, "unfingerprinted"))) {
            model.save(file, Provenance.now("tiny-model", "test")
                    .withPrior(new Provenance.Prior("unfingerprinted", "f00d")));
        }
        try (TinyModel loaded = TinyModel.load(file)) {
            assertEquals(List.of("prior unfingerprinted has no fingerprint now, so it cannot be checked against the "
                    + "one the model was trained on (f00d)"), loaded.warnings());
        }
    }

    @Test
    void weightsThatDoNotFitAreOneClearError(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("m.tiny");
        try (TinyModel model = new TinyModel(new TinyConfig(7, null), Vocabulary.build(List.of("a"), List.of(), 1),
                List.of(Microarchitecture.HASWELL), null)) {
            model.save(file, model.newProvenance("test"));
        }
        // Same file, but claiming two CPUs: the weights have one column.
        byte[] bytes = Files.readAllBytes(file);
        ModelFile.Contents c = ModelFile.read(bytes, "m", "tiny");
        String json = new String(c.json(), java.nio.charset.StandardCharsets.UTF_8).replace("\"haswell\"",
                "\"haswell\", \"skylake\"");
        Path bad = dir.resolve("bad.tiny");
        try (NDManager m = Djl.engine().newBaseManager()) {
            ModelFile.write(bad, json.getBytes(java.nio.charset.StandardCharsets.UTF_8),
                    java.util.Map.of("w", m.create(new float[] {1f}, new Shape(1, 1))));
        }
        IOException e = assertThrows(IOException.class, () -> TinyModel.load(bad));
        assertTrue(e.getMessage().contains(bad.toString()) && e.getMessage().contains("does not fit"), e.getMessage());
    }

    @Test
    void predictionBatchesGroupBlocksBySize() {
        assertEquals(List.of(List.of(1, 3), List.of(2), List.of(0)), DjlModel.bySize(new int[] {5, 1, 3, 1}, 4));
        assertEquals(List.of(), DjlModel.bySize(new int[0], 4));
    }

    @Test
    void largeBatchesAreCutSoThatEveryCoreHasOne() {
        List<Integer> all = java.util.stream.IntStream.range(0, 64).boxed().toList();
        // One 64-block batch on two cores: two halves, in order.
        assertEquals(List.of(all.subList(0, 32), all.subList(32, 64)),
                LearnedModel.parallelBatches(List.of(all), 64, 2));
        // Too few blocks to be worth a second pass, or one core: unchanged.
        List<Integer> few = all.subList(0, 20);
        assertEquals(List.of(few), LearnedModel.parallelBatches(List.of(few), 20, 2));
        assertEquals(List.of(all), LearnedModel.parallelBatches(List.of(all), 64, 1));
        // Already as many batches as cores: unchanged; four cores: the largest are halved first.
        List<List<Integer>> two = List.of(all.subList(0, 48), all.subList(48, 64));
        assertEquals(two, LearnedModel.parallelBatches(two, 64, 2));
        assertEquals(List.of(all.subList(0, 24), all.subList(24, 48), all.subList(48, 64)),
                LearnedModel.parallelBatches(two, 64, 4));
    }

    @Test
    void predictionsDoNotDependOnHowTheBatchIsCut() {
        List<BasicBlock> many = new java.util.ArrayList<>();
        for (int i = 0; i < 40; i++) {
            many.addAll(BLOCKS);
        }
        try (TinyModel model = TinyModel.create(new TinyConfig(3, null))) {
            List<Prediction> together = model.predictAll(many, Microarchitecture.HASWELL);
            for (int i = 0; i < many.size(); i++) {
                assertEquals(model.predict(many.get(i), Microarchitecture.HASWELL).cyclesPerIteration(),
                        together.get(i).cyclesPerIteration(), 1e-6, "block " + i);
            }
        }
    }
}
