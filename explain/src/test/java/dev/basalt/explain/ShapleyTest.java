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
}
