package dev.basalt.explain;

import dev.basalt.core.Estimators;
import dev.basalt.core.Microarchitecture;
import dev.basalt.core.ThroughputEstimator;
import dev.basalt.decoder.BasicBlock;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Shapley attributions: efficiency, and the bottleneck instruction first on hand-made blocks. */
class ShapleyTest {

    private static final Microarchitecture HSW = Microarchitecture.HASWELL;

    // add rax, rbx; add rcx, rdx; div rsi; add r8, r9 (llvm-mc-14 encodings)
    private static final String DIV_AMONG_ADDS = "4801d84801d148f7f64d01c8";
    // add r8, r9; imul rax, rax; add rcx, rdx; add rsi, rdi (imul: a 3-cycle loop-carried chain)
    private static final String IMUL_CHAIN_AMONG_ADDS = "4d01c8480fafc04801d14801fe";
    // add rax, rbx; sqrtsd xmm0, xmm0; add rcx, rdx (sqrtsd: a long loop-carried latency chain)
    private static final String SQRT_AMONG_ADDS = "4801d8f20f51c04801d1";

    private static double sum(List<Double> xs) {
        return xs.stream().mapToDouble(Double::doubleValue).sum();
    }

    @Test
    void contributionsAddUpToThePredictionOnRealBlocks() {
        ThroughputEstimator[] models = {Estimators.load("simulator"), Estimators.load("granite"), CrudeModel.haswell()};
        Shapley shapley = new Shapley(new Shapley.Config(8, 5));
        for (ThroughputEstimator model : models) {
            for (BasicBlock block : ExplainTestData.haswellTest().subList(0, 20)) {
                Shapley.Result r = shapley.attribute(block, HSW, model);
                assertEquals(block.size(), r.contributions().size());
                assertEquals(0.0, r.emptyValue());
                // GRANITE computes in float32, and a batch's sums round differently from a single block's.
                assertEquals(model.predict(block, HSW).cyclesPerIteration(), r.prediction(), 1e-5 * r.prediction(),
                        model.name());
                assertEquals(r.prediction() - r.emptyValue(), sum(r.contributions()), 1e-6,
                        model.name() + " on " + block);
            }
        }
    }

    @Test
    void theBottleneckInstructionRanksFirst() {
        for (String model : new String[] {"simulator", "granite"}) {
            ThroughputEstimator m = Estimators.load(model);
            Shapley shapley = new Shapley(Shapley.Config.defaults());
            assertEquals(2, shapley.attribute(BasicBlock.fromHex(DIV_AMONG_ADDS), HSW, m).top(), model + ": div");
            assertEquals(1, shapley.attribute(BasicBlock.fromHex(IMUL_CHAIN_AMONG_ADDS), HSW, m).top(),
                    model + ": imul chain");
            assertEquals(1, shapley.attribute(BasicBlock.fromHex(SQRT_AMONG_ADDS), HSW, m).top(),
                    model + ": sqrtsd");
        }
        Shapley.Result crude = new Shapley(Shapley.Config.defaults()).attribute(BasicBlock.fromHex(DIV_AMONG_ADDS),
                HSW, CrudeModel.haswell());
        assertEquals(2, crude.top());
    }

    @Test
    void theSameSeedGivesTheSameAttributions() {
        BasicBlock block = ExplainTestData.haswellTest().get(3);
        ThroughputEstimator sim = Estimators.load("simulator");
        Shapley.Result a = new Shapley(new Shapley.Config(6, 9)).attribute(block, HSW, sim);
        Shapley.Result b = new Shapley(new Shapley.Config(6, 9)).attribute(block, HSW, sim);
        assertEquals(a, b);
        assertTrue(a.queries() > 0);
    }

    @Test
    void aLargeBlocksSubBlocksGoToTheModelInBoundedBatches() {
        BasicBlock block = ExplainTestData.largestHaswellTest();
        assertEquals(217, block.size());
        CountingEstimator counting = new CountingEstimator(Estimators.load("simulator"), 0);
        Shapley.Result r = new Shapley(new Shapley.Config(2, 3)).attribute(block, HSW, counting);
        assertEquals(r.queries(), counting.blocks());
        assertEquals(2 * 217 - 1, r.queries(), "a permutation's prefixes and its reverse's, the whole block once");
        assertTrue(counting.maxInstructions() <= QueryBatches.MAX_INSTRUCTIONS, counting.maxInstructions() + "");
        assertTrue(counting.maxBlocks() <= QueryBatches.MAX_BLOCKS, counting.maxBlocks() + "");
        // 2 × (1 + … + 217) instructions less the whole block once: at least 12 batches of 4,096.
        assertEquals(217 * 218 - 217, counting.instructions());
        assertTrue(counting.batches.size() >= 12, counting.batches.size() + " batches");
        assertEquals(r.prediction(), sum(r.contributions()), 1e-6);
    }

    @Test
    void batchingChangesGranitesAttributionsOnlyByRounding() {
        // A 30-to-40-instruction block: 256 of its sub-blocks hold more than 4,096 instructions, so the instruction
        // bound splits its batches; asked about them 16 blocks at a time, GRANITE must give the same attributions.
        BasicBlock block = ExplainTestData.haswellTest().stream().filter(b -> b.size() >= 30 && b.size() <= 40)
                .findFirst().orElseThrow();
        ThroughputEstimator granite = Estimators.load("granite");
        CountingEstimator batched = new CountingEstimator(granite, 0);
        Shapley shapley = new Shapley(new Shapley.Config(8, 11));
        Shapley.Result a = shapley.attribute(block, HSW, batched);
        Shapley.Result b = shapley.attribute(block, HSW, new CountingEstimator(granite, 16));
        assertTrue(batched.batches.size() >= 2 && batched.maxBlocks() > 1, "batched: " + batched.batches.size());
        assertEquals(a.queries(), b.queries());
        assertEquals(a.prediction(), b.prediction(), 1e-4 * a.prediction());
        for (int i = 0; i < block.size(); i++) {
            assertEquals(b.contributions().get(i), a.contributions().get(i), 1e-4 * a.prediction(), "instruction " + i);
        }
    }

    @Test
    void largeBlocksGetFewerPermutationsWithinTheInstructionBudget() {
        Shapley defaults = new Shapley(Shapley.Config.defaults());
        assertEquals(32, defaults.permutations(4));
        assertEquals(32, defaults.permutations(223));
        assertEquals(30, defaults.permutations(224));
        assertEquals(16, defaults.permutations(300));
        assertEquals(6, defaults.permutations(Explainer.MAX_INSTRUCTIONS));
        assertEquals(2, defaults.permutations(5000), "one antithetic pair at least");
        assertEquals(8, new Shapley(new Shapley.Config(7, 1)).permutations(300), "7 rounds up to 8, within budget");
        for (int n : new int[] {10, 100, 300, 512}) {
            assertTrue(defaults.permutations(n) / 2 * (long) n * (n + 1) <= Shapley.INSTRUCTION_BUDGET, "n = " + n);
        }
        Shapley.Result r = defaults.attribute(BasicBlock.fromHex("4801d8".repeat(300)), HSW, CrudeModel.haswell());
        assertEquals(16, r.permutations());
    }
}
