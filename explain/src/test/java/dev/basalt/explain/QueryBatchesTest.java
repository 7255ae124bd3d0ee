package dev.basalt.explain;

import dev.basalt.core.Estimators;
import dev.basalt.core.Microarchitecture;
import dev.basalt.core.ThroughputEstimator;
import dev.basalt.decoder.BasicBlock;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Bounded query batches: every answer under its own key, no batch past its bounds, a large block alone. */
class QueryBatchesTest {

    private static final Microarchitecture HSW = Microarchitecture.HASWELL;

    @Test
    void everyAnswerIsFiledUnderItsBlockAndNoBatchExceedsTheBounds() {
        ThroughputEstimator simulator = Estimators.load("simulator");
        CountingEstimator counting = new CountingEstimator(simulator, 0);
        List<BasicBlock> blocks = new ArrayList<>(ExplainTestData.haswellTest().subList(0, 40));
        blocks.add(17, ExplainTestData.largestHaswellTest()); // 217 instructions: more than a batch may hold
        Map<Integer, Double> answers = new HashMap<>();
        QueryBatches<Integer> queries = new QueryBatches<>(counting, HSW, answers::put, 5, 60);
        for (int k = 0; k < blocks.size(); k++) {
            queries.add(k, blocks.get(k));
        }
        queries.flush();
        queries.flush(); // nothing left: no empty query
        assertEquals(blocks.size(), answers.size());
        assertEquals(blocks.size(), queries.queries());
        for (int k = 0; k < blocks.size(); k++) {
            assertEquals(simulator.predict(blocks.get(k), HSW).cyclesPerIteration(), answers.get(k), 0.0, "block " + k);
        }
        for (int[] batch : counting.batches) {
            assertTrue(batch[0] >= 1 && batch[0] <= 5, "blocks in a batch: " + batch[0]);
            assertTrue(batch[1] <= 60 || batch[0] == 1, "a batch past 60 instructions holds one block: "
                    + batch[0] + " blocks, " + batch[1] + " instructions");
        }
        assertTrue(counting.batches.stream().anyMatch(b -> b[0] == 1 && b[1] == 217), "the large block alone");
        int total = blocks.stream().mapToInt(BasicBlock::size).sum();
        assertEquals(total, counting.instructions());
        assertTrue(counting.batches.size() >= (total - 217) / 60 + 1, counting.batches.size() + " batches");
    }

    @Test
    void boundsBelowOneAreRefused() {
        ThroughputEstimator simulator = Estimators.load("simulator");
        assertThrows(IllegalArgumentException.class, () -> new QueryBatches<Integer>(simulator, HSW, (k, v) -> { },
                0, 10));
        assertThrows(IllegalArgumentException.class, () -> new QueryBatches<Integer>(simulator, HSW, (k, v) -> { },
                10, 0));
    }
}
