package dev.basalt.explain;

import dev.basalt.core.Microarchitecture;
import dev.basalt.decoder.BasicBlock;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Anchors against the crude model, whose true explanation is known: explanation accuracy on 200 Haswell
 * test-split blocks (issue target ≥ 90%), next to a random explanation of the same size.
 */
class AnchorsTest {

    private static final Microarchitecture HSW = Microarchitecture.HASWELL;

    /** Correct: non-empty (the true set never is) and a subset of the true explanation. */
    private static boolean correct(List<Feature> explanation, Set<Feature> truth) {
        return !explanation.isEmpty() && truth.containsAll(explanation);
    }

    @Test
    void explanationAccuracyOnTheCrudeModelIsAtLeastNinetyPercent() {
        CrudeModel crude = CrudeModel.haswell();
        // COMET's quarter-cycle buckets for the crude model, whose values are multiples of a quarter cycle.
        Anchors anchors = new Anchors(Anchors.Config.defaults().withBucketWidth(0.25), ExplainTestData.pool());
        List<BasicBlock> blocks = ExplainTestData.haswellTest().subList(0, 200);
        SplittableRandom random = new SplittableRandom(42);
        int right = 0;
        int randomRight = 0;
        int meets = 0;
        List<Integer> queries = new ArrayList<>();
        for (BasicBlock block : blocks) {
            Anchors.Result r = anchors.explain(block, HSW, crude);
            Set<Feature> truth = crude.trueExplanation(block);
            right += correct(r.features(), truth) ? 1 : 0;
            meets += r.meetsThreshold() ? 1 : 0;
            queries.add(r.queries());
            // Baseline: as many features as the anchor, drawn at random from the block's candidates.
            List<Feature> all = new ArrayList<>(new BlockFeatures(block).features());
            List<Feature> pick = new ArrayList<>();
            for (int k = 0; k < Math.max(1, r.features().size()) && !all.isEmpty(); k++) {
                pick.add(all.remove(random.nextInt(all.size())));
            }
            randomRight += correct(pick, truth) ? 1 : 0;
        }
        queries.sort(null);
        double accuracy = right / (double) blocks.size();
        double baseline = randomRight / (double) blocks.size();
        System.out.printf("AnchorsTest: explanation accuracy on the crude model %.1f%% (%d/%d; random explanation of "
                        + "the same size %.1f%%); %d anchors met the 0.7 threshold; median %d model queries%n",
                100 * accuracy, right, blocks.size(), 100 * baseline, meets, queries.get(queries.size() / 2));
        assertTrue(accuracy >= 0.90, "explanation accuracy " + accuracy);
        assertTrue(accuracy > baseline + 0.3, "random baseline " + baseline);
    }

    @Test
    void theSameSeedGivesTheSameAnchorAndAnotherSeedStillFindsTheDiv() {
        BasicBlock block = BasicBlock.fromHex("4801d84801d148f7f64d01c8"); // add; add; div rsi; add
        CrudeModel crude = CrudeModel.haswell();
        Anchors.Config config = Anchors.Config.defaults().withBucketWidth(0.25).withCoverageSamples(2_000);
        Anchors.Result a = new Anchors(config, ExplainTestData.pool()).explain(block, HSW, crude);
        Anchors.Result b = new Anchors(config, ExplainTestData.pool()).explain(block, HSW, crude);
        assertEquals(a, b);
        Anchors.Result c = new Anchors(config.withSeed(99), ExplainTestData.pool()).explain(block, HSW, crude);
        for (Anchors.Result r : List.of(a, c)) {
            assertTrue(r.meetsThreshold());
            assertTrue(r.precision() >= 0.7, "precision " + r.precision());
            assertFalse(r.features().isEmpty());
            assertTrue(crude.trueExplanation(block).containsAll(r.features()), r.features().toString());
        }
    }

    @Test
    void aLargeBlocksPerturbationsGoToTheModelInBoundedBatches() {
        BasicBlock block = ExplainTestData.largestHaswellTest();
        CountingEstimator counting = new CountingEstimator(dev.basalt.core.Estimators.load("simulator"), 0);
        Anchors.Config d = Anchors.Config.defaults();
        // A short search: 500 coverage samples, at most 512 queries (eight batches of 64 perturbations).
        Anchors.Config config = new Anchors.Config(d.precisionThreshold(), d.delta(), d.epsilon(), d.epsilonStop(),
                d.batchSize(), 500, d.beamSize(), d.bucketWidth(), false, 512, false, 7L, d.perturbation());
        // Haswell's mnemonics only (as Explainer.forCpu swaps them): the simulator refuses what Haswell lacks.
        MnemonicPool haswell = MnemonicPool.forCpu(dev.basalt.simulator.params.SimulatorParams.bundled(HSW).forms().keySet(),
                HSW);
        Anchors.Result r = new Anchors(config, haswell).explain(block, HSW, counting);
        assertEquals(r.queries(), counting.blocks(), "every query counted once (the block's own prediction too)");
        assertTrue(r.queries() > 64, r.queries() + " queries");
        assertTrue(counting.maxInstructions() <= QueryBatches.MAX_INSTRUCTIONS, counting.maxInstructions() + "");
        assertTrue(counting.maxBlocks() <= config.batchSize(), counting.maxBlocks() + "");
        // 64 perturbations of a 217-instruction block are more than 4,096 instructions: each batch is split.
        assertTrue(counting.batches.size() >= 2 * (r.queries() / 64), counting.batches.size() + " model calls");
    }
}
