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
}
