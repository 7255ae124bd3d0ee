package dev.basalt.granite;

import dev.basalt.core.Microarchitecture;
import dev.basalt.datasets.Dataset;
import dev.basalt.datasets.LabelledBlock;
import dev.basalt.datasets.Vocabulary;
import dev.basalt.decoder.BasicBlock;
import dev.basalt.decoder.MemoryPolicy;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class GraniteModelSafetyTest {

    private static final GraniteConfig TINY = new GraniteConfig(16, 2, 1, 1e-3, 1, 400, 5.0, 2, 11,
            MemoryPolicy.ALL_ALIAS, null, 1.0, 1);

    @Test
    void eightThreadsGiveTheSingleThreadResults() throws Exception {
        List<BasicBlock> blocks = Dataset.bundled().blocks().stream().limit(1000).map(LabelledBlock::block).toList();
        Vocabulary vocab = GraniteModel.vocabulary(blocks.subList(0, 500), TINY);
        try (GraniteModel model = GraniteModel.create(TINY, vocab, List.of(Microarchitecture.HASWELL))) {
            double[] single = blocks.stream().mapToDouble(b -> model.predict(b, Microarchitecture.HASWELL)
                    .cyclesPerIteration()).toArray();
            ExecutorService pool = Executors.newFixedThreadPool(8);
            try {
                List<Future<double[]>> runs = new ArrayList<>();
                for (int t = 0; t < 8; t++) {
                    runs.add(pool.submit(() -> blocks.stream().mapToDouble(b -> model.predict(b,
                            Microarchitecture.HASWELL).cyclesPerIteration()).toArray()));
                }
                for (Future<double[]> f : runs) {
                    assertArrayEquals(single, f.get(), 0.0);
                }
            } finally {
                pool.shutdown();
            }
            // Blocks 500..999 bring tokens the vocabulary of blocks 0..499 lacks: counted, not fatal.
            assertTrue(model.unknownTokens() > 0, "unknown tokens counted");
        }
    }

    @Test
    void otherCpusAreRefusedClearly() {
        Vocabulary vocab = GraniteModel.vocabulary(List.of(BasicBlock.fromHex("4889de")), TINY);
        try (GraniteModel model = GraniteModel.create(TINY, vocab, List.of(Microarchitecture.HASWELL))) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> model.predict(BasicBlock.fromHex("4889de"), Microarchitecture.SKYLAKE));
            assertTrue(e.getMessage().contains("granite has no model for skylake"), e.getMessage());
            assertEquals(1, model.supported().size());
        }
    }

    @Test
    void aVocabularyThatDoesNotFitTheWeightsIsOneClearError(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws Exception {
        Vocabulary vocab = GraniteModel.vocabulary(List.of(BasicBlock.fromHex("4889de4801c8")), TINY);
        java.nio.file.Path file = dir.resolve("m.granite");
        try (GraniteModel model = GraniteModel.create(TINY, vocab, List.of(Microarchitecture.HASWELL))) {
            model.save(file, model.newProvenance("test"));
        }
        // Rewrite model.json with one more vocabulary token than the embedding table has rows.
        java.util.Map<String, byte[]> entries = new java.util.LinkedHashMap<>();
        try (java.util.zip.ZipInputStream in = new java.util.zip.ZipInputStream(java.nio.file.Files.newInputStream(file))) {
            for (java.util.zip.ZipEntry e; (e = in.getNextEntry()) != null; ) {
                entries.put(e.getName(), in.readAllBytes());
            }
        }
        com.fasterxml.jackson.databind.ObjectMapper json = new com.fasterxml.jackson.databind.ObjectMapper();
        com.fasterxml.jackson.databind.node.ObjectNode meta =
                (com.fasterxml.jackson.databind.node.ObjectNode) json.readTree(entries.get("model.json"));
        ((com.fasterxml.jackson.databind.node.ArrayNode) meta.path("vocabulary").path("tokens")).add("VFMADD231PS");
        ((com.fasterxml.jackson.databind.node.ArrayNode) meta.path("vocabulary").path("counts")).add(1);
        entries.put("model.json", json.writeValueAsBytes(meta));
        java.nio.file.Path bad = dir.resolve("bad.granite");
        try (java.util.zip.ZipOutputStream out = new java.util.zip.ZipOutputStream(java.nio.file.Files.newOutputStream(bad))) {
            for (java.util.Map.Entry<String, byte[]> e : entries.entrySet()) {
                out.putNextEntry(new java.util.zip.ZipEntry(e.getKey()));
                out.write(e.getValue());
                out.closeEntry();
            }
        }
        java.io.IOException e = org.junit.jupiter.api.Assertions.assertThrows(java.io.IOException.class,
                () -> GraniteModel.load(bad));
        assertTrue(e.getMessage().contains(bad.toString()) && e.getMessage().contains("node.embedding")
                && e.getMessage().contains("does not fit"), e.getMessage());
    }
}
