package dev.basalt.training;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The shared trainer on a two-head linear model with known answers: head 0 learns y = 2x, head 1 learns
 * y = 3x and has labels only for even examples (masking); a "poisoned" example makes its batch's gradient
 * NaN while the loss stays finite: that step is recomputed, and skipped and counted if it stays non-finite,
 * never applied.
 */
class MultiTaskTrainerTest {

    private static final int EXAMPLES = 64;
    private static final int POISON = 7;

    /**
     * predict = x·w (per head), plus sqrt(0·w) in the poisoned example's batch when {@code poison} accepts the
     * number of that batch's forward passes so far: value 0, gradient 0·∞ = NaN.
     */
    private record Linear(Map<String, NDArray> params, float[] x, java.util.function.IntPredicate poison,
                          int[] calls, List<float[]> steps) implements MultiTaskTrainer.Model<List<Integer>> {
        Linear(Map<String, NDArray> params, float[] x, java.util.function.IntPredicate poison) {
            this(params, x, poison, new int[1], new ArrayList<>());
        }

        /** Records the weights after each applied step. */
        @Override
        public void afterStep() {
            steps.add(params.get("w").toFloatArray());
        }

        @Override
        public Map<String, NDArray> parameters() {
            return params;
        }

        @Override
        public List<Integer> batch(List<Integer> examples) {
            return examples;
        }

        @Override
        public NDArray predict(List<Integer> examples, NDManager m) {
            float[] xs = new float[examples.size()];
            float[] poisoned = new float[examples.size()];
            for (int i = 0; i < xs.length; i++) {
                xs[i] = x[examples.get(i)];
                poisoned[i] = examples.get(i) == POISON ? 1f : 0f;
            }
            NDArray w = params.get("w");
            NDArray out = m.create(xs, new Shape(xs.length, 1)).matMul(w);
            if (examples.contains(POISON) && poison.test(calls[0]++)) {
                out = out.add(m.create(poisoned, new Shape(xs.length, 1)).matMul(w.mul(0f).sqrt()));
            }
            return out;
        }
    }

    private static MultiTaskTrainer.Settings settings(int epochs) {
        return new MultiTaskTrainer.Settings(0.05, 100.0, epochs, 100, 8, 3, 0.5, 2, false);
    }

    private static double[][] labels(float[] x) {
        double[][] y = new double[EXAMPLES][2];
        for (int i = 0; i < EXAMPLES; i++) {
            y[i][0] = 2 * x[i];
            y[i][1] = i % 2 == 0 ? 3 * x[i] : Double.NaN;
        }
        return y;
    }

    private static float[] run(int epochs, List<MultiTaskTrainer.Epoch> out) {
        return run(epochs, out, call -> true);
    }

    private static float[] run(int epochs, List<MultiTaskTrainer.Epoch> out, java.util.function.IntPredicate poison) {
        float[] x = new float[EXAMPLES];
        for (int i = 0; i < EXAMPLES; i++) {
            x[i] = 0.5f + i / 16f;
        }
        try (NDManager m = Djl.engine().newBaseManager()) {
            Map<String, NDArray> params = new LinkedHashMap<>();
            NDArray w = m.create(new float[] {1f, 1f}, new Shape(1, 2));
            w.setRequiresGradient(true);
            params.put("w", w);
            int[] sizes = new int[EXAMPLES];
            java.util.Arrays.fill(sizes, 1);
            List<Integer> train = IntStream.range(0, EXAMPLES).boxed().toList();
            MultiTaskTrainer<List<Integer>> trainer = new MultiTaskTrainer<>(Djl.engine(), settings(epochs));
            out.addAll(trainer.train(new Linear(params, x, poison), labels(x), sizes, train, train, e -> { }, n -> { }));
            return w.toFloatArray();
        }
    }

    @Test
    void learnsEachHeadWithMaskingAndSkipsNonFiniteSteps() {
        List<MultiTaskTrainer.Epoch> epochs = new ArrayList<>();
        float[] w = run(60, epochs);
        assertEquals(2.0, w[0], 0.05, "head 0 learns y = 2x");
        assertEquals(3.0, w[1], 0.05, "head 1 learns y = 3x from the even examples only");
        for (MultiTaskTrainer.Epoch e : epochs) {
            assertEquals(1, e.skipped(), "the poisoned example's batch is skipped once per epoch");
            assertEquals(MultiTaskTrainer.RETRIES, e.retried(), "after being recomputed");
            assertTrue(Double.isFinite(e.trainLoss()));
        }
        assertTrue(epochs.get(epochs.size() - 1).validationMape()[0] < 0.05, "validation MAPE falls");
        System.err.println("epochs run " + epochs.size() + ", last learning rate "
                + epochs.get(epochs.size() - 1).learningRate());
        assertTrue(epochs.stream().anyMatch(e -> e.learningRate() < 0.05),
                "the learning rate decays once validation stops improving");
        List<MultiTaskTrainer.Epoch> again = new ArrayList<>();
        float[] w2 = run(60, again);
        assertEquals(w[0], w2[0], 0f, "seeded: same weights");
        assertEquals(w[1], w2[1], 0f);
    }

    @Test
    void aTransientNonFiniteGradientIsRecomputedAndTheRunStaysReproducible() {
        // The poisoned batch's first forward pass of each epoch is poisoned; the recomputation and the
        // validation pass are not (three passes per epoch: step, retry, validation).
        List<MultiTaskTrainer.Epoch> flaky = new ArrayList<>();
        float[] w = run(20, flaky, call -> call % 3 == 0);
        List<MultiTaskTrainer.Epoch> clean = new ArrayList<>();
        float[] w2 = run(20, clean, call -> false);
        for (MultiTaskTrainer.Epoch e : flaky) {
            assertEquals(0, e.skipped());
            assertEquals(1, e.retried());
        }
        assertEquals(w2[0], w[0], 0f, "the same weights as a run that never saw a NaN");
        assertEquals(w2[1], w[1], 0f);
        assertEquals(clean.size(), flaky.size());
    }

    @Test
    void weightAveragingKeepsTheMovingAverageOfEveryStepsWeights() {
        float[] x = new float[EXAMPLES];
        for (int i = 0; i < EXAMPLES; i++) {
            x[i] = 0.5f + i / 16f;
        }
        float decay = 0.75f;
        try (NDManager m = Djl.engine().newBaseManager()) {
            Map<String, NDArray> params = new LinkedHashMap<>();
            NDArray w = m.create(new float[] {1f, 1f}, new Shape(1, 2));
            w.setRequiresGradient(true);
            params.put("w", w);
            Linear recording = new Linear(params, x, call -> false);
            List<float[]> steps = recording.steps();
            int[] sizes = new int[EXAMPLES];
            java.util.Arrays.fill(sizes, 1);
            List<Integer> train = IntStream.range(0, EXAMPLES).boxed().toList();
            MultiTaskTrainer.Settings s = new MultiTaskTrainer.Settings(0.05, 100.0, 1, 100, 8, 3, 0.5, 2, false,
                    decay);
            new MultiTaskTrainer<List<Integer>>(Djl.engine(), s).train(recording, labels(x), sizes, train, train,
                    e -> { }, n -> { });
            assertEquals(EXAMPLES / 8, steps.size(), "one step per batch of 8");
            float[] average = {1f, 1f};
            for (float[] step : steps) {
                for (int k = 0; k < 2; k++) {
                    average[k] = decay * average[k] + (1 - decay) * step[k];
                }
            }
            float[] kept = w.toFloatArray();
            float[] last = steps.get(steps.size() - 1);
            assertEquals(average[0], kept[0], 0f, "the averaged weights are kept, not the last step's");
            assertEquals(average[1], kept[1], 0f);
            assertTrue(Math.abs(kept[0] - last[0]) > 1e-3, "and they differ from the last step's: " + kept[0]
                    + " vs " + last[0]);
        }
        assertThrows(IllegalArgumentException.class,
                () -> new MultiTaskTrainer.Settings(0.05, 100.0, 1, 100, 8, 3, 0.5, 2, false, 1.0));
    }
}
