package dev.basalt.training;

import dev.basalt.datasets.Metrics;
import ai.djl.engine.Engine;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import ai.djl.pytorch.engine.PtNDArray;
import ai.djl.pytorch.jni.JniUtils;
import ai.djl.training.GradientCollector;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.IntConsumer;

/**
 * The training loop both learned models share (DESIGN.md §5/§6): multi-task heads with label masking, a
 * relative-error loss, seeded shuffling, batches bounded by instruction count, Adam with global gradient-norm
 * clipping, and early stopping on validation MAPE (the best epoch's weights are kept).
 *
 * <p>Loss: for each head, the mean of |predicted − measured| / measured over the blocks that have a label for
 * that head; the loss is the mean over the heads present in the batch. Deterministic for a given seed.
 *
 * @param <B> the model's batch type
 */
public final class MultiTaskTrainer<B> {

    /** What the trainer needs from a model. */
    public interface Model<B> {
        /** Trainable parameters, in a fixed order. */
        Map<String, NDArray> parameters();

        /** Builds the batch of the given examples. */
        B batch(List<Integer> examples);

        /** Predictions [examples × heads] in cycles per iteration; intermediates go to {@code manager}. */
        NDArray predict(B batch, NDManager manager);

        /** Called after each applied update, e.g. to project parameters back into their valid range. */
        default void afterStep() {
        }

        /** A model from its parameters, its batch builder and its forward pass. */
        static <B> Model<B> of(Map<String, NDArray> parameters, java.util.function.Function<List<Integer>, B> batch,
                               java.util.function.BiFunction<B, NDManager, NDArray> predict) {
            return new Model<>() {
                @Override
                public Map<String, NDArray> parameters() {
                    return parameters;
                }

                @Override
                public B batch(List<Integer> examples) {
                    return batch.apply(examples);
                }

                @Override
                public NDArray predict(B b, NDManager manager) {
                    return predict.apply(b, manager);
                }
            };
        }
    }

    /**
     * Settings.
     *
     * @param learningRate      Adam learning rate
     * @param clipNorm          maximum global gradient norm
     * @param epochs            maximum epochs
     * @param patience          epochs without improvement before stopping
     * @param batchInstructions maximum instructions per batch
     * @param seed              shuffling seed
     * @param decayFactor       the learning rate is multiplied by this (in (0, 1]) ...
     * @param decayPatience     ... after this many epochs without a better validation MAPE (and again after
     *                          each further such run): small steps late in training settle into a minimum that
     *                          Adam's full step keeps jumping over
     * @param bucketBySize      group examples of similar size into batches (order still seeded-random): for
     *                          models that pad every example to the batch's longest, such as an LSTM
     * @param averaging         the decay of an exponential moving average of the weights over steps (Polyak
     *                          averaging), which is what is validated and kept; 0: the weights themselves
     */
    public record Settings(double learningRate, double clipNorm, int epochs, int patience, int batchInstructions,
                           long seed, double decayFactor, int decayPatience, boolean bucketBySize, double averaging) {
        public Settings {
            if (!(decayFactor > 0 && decayFactor <= 1) || decayPatience < 1) {
                throw new IllegalArgumentException("decay factor must be in (0, 1] and decay patience >= 1, got "
                        + decayFactor + ", " + decayPatience);
            }
            if (!(averaging >= 0 && averaging < 1)) {
                throw new IllegalArgumentException("weight averaging decay must be in [0, 1), got " + averaging);
            }
        }

        /** Settings without weight averaging. */
        public Settings(double learningRate, double clipNorm, int epochs, int patience, int batchInstructions,
                        long seed, double decayFactor, int decayPatience, boolean bucketBySize) {
            this(learningRate, clipNorm, epochs, patience, batchInstructions, seed, decayFactor, decayPatience,
                    bucketBySize, 0);
        }

        /** Settings with a constant learning rate. */
        public Settings(double learningRate, double clipNorm, int epochs, int patience, int batchInstructions,
                        long seed) {
            this(learningRate, clipNorm, epochs, patience, batchInstructions, seed, 1.0, Integer.MAX_VALUE, false);
        }
    }

    /**
     * Per-epoch progress: training loss, validation MAPE per head, the learning rate used, how many batches
     * were skipped because their gradient stayed non-finite, and how many steps were recomputed because it was
     * non-finite once.
     */
    public record Epoch(int epoch, double trainLoss, double[] validationMape, double seconds, double learningRate,
                        int skipped, int retried) {
    }

    /** Recomputations of a step whose gradient came out non-finite before it is skipped. */
    static final int RETRIES = 2;

    /** Examples sorted together when bucketing by size. */
    private static final int BUCKET_WINDOW = 4096;

    private final Settings settings;
    private final Engine engine;

    public MultiTaskTrainer(Engine engine, Settings settings) {
        this.engine = engine;
        this.settings = settings;
    }

    /**
     * Trains {@code model}.
     *
     * @param labels     per example, per head: cycles per iteration, or NaN when the example has no label
     * @param sizes      per example: its instruction count (bounds batches)
     * @param train      indices of training examples
     * @param validation indices of validation examples (may be empty: then every epoch runs)
     * @param onEpoch    progress callback
     * @param onBatch    called with the number of training examples done in the epoch
     * @return the epochs run; the model holds the weights of the best validation epoch
     */
    public List<Epoch> train(Model<B> model, double[][] labels, int[] sizes, List<Integer> train,
                             List<Integer> validation, java.util.function.Consumer<Epoch> onEpoch, IntConsumer onBatch) {
        Map<String, NDArray> params = model.parameters();
        Map<String, NDArray[]> adam = new HashMap<>();
        NDManager state = params.values().iterator().next().getManager().newSubManager();
        for (Map.Entry<String, NDArray> p : params.entrySet()) {
            adam.put(p.getKey(), new NDArray[] {state.zeros(p.getValue().getShape()), state.zeros(p.getValue().getShape())});
        }
        List<Epoch> epochs = new ArrayList<>();
        // One intra-op thread while training: with two, gather gradients are summed with atomic adds in a
        // varying order and runs differ in the last bits. Restored afterwards (inference is deterministic).
        int threads = JniUtils.getNumThreads();
        JniUtils.setNumThreads(1);
        double best = Double.POSITIVE_INFINITY;
        Map<String, float[]> bestWeights = snapshot(params);
        Map<String, float[]> average = settings.averaging() > 0 ? snapshot(params) : null;
        int sinceBest = 0;
        long step = 0;
        double lr = settings.learningRate();
        try {
            for (int epoch = 1; epoch <= settings.epochs(); epoch++) {
                long t0 = System.nanoTime();
                List<Integer> order = new ArrayList<>(train);
                Random random = new Random(settings.seed() * 31 + epoch);
                Collections.shuffle(order, random);
                List<List<Integer>> epochBatches;
                if (settings.bucketBySize()) {
                    // Sort windows of the shuffled order by size, batch them, then shuffle the batches.
                    for (int from = 0; from < order.size(); from += BUCKET_WINDOW) {
                        order.subList(from, Math.min(order.size(), from + BUCKET_WINDOW))
                                .sort(java.util.Comparator.comparingInt(i -> sizes[i]));
                    }
                    epochBatches = batches(order, sizes);
                    Collections.shuffle(epochBatches, random);
                } else {
                    epochBatches = batches(order, sizes);
                }
                double lossSum = 0;
                int batches = 0;
                int skipped = 0;
                int retried = 0;
                int done = 0;
                for (List<Integer> examples : epochBatches) {
                    step++;
                    // A non-finite gradient from a finite loss has so far always been transient (the same batch
                    // recomputed comes out finite), so the step is recomputed first, which keeps the run
                    // reproducible; only a gradient that stays non-finite is skipped.
                    for (int attempt = 0; ; attempt++) {
                        double loss;
                        boolean applied;
                        try (NDManager batch = state.newSubManager()) {
                            B b = model.batch(examples);
                            try (GradientCollector gc = engine.newGradientCollector()) {
                                zeroGradients(params);
                                NDArray predicted = model.predict(b, batch);
                                NDArray l = loss(predicted, examples, labels, batch);
                                loss = l.getFloat();
                                if (!Double.isFinite(loss)) {
                                    throw new IllegalStateException("non-finite loss at step " + step + " (epoch "
                                            + epoch + ") on examples " + examples);
                                }
                                gc.backward(l);
                            }
                            applied = update(params, adam, step, lr, batch);
                        }
                        if (applied) {
                            model.afterStep();
                            if (average != null) {
                                accumulate(average, params, (float) settings.averaging());
                            }
                            lossSum += loss;
                            batches++;
                            break;
                        }
                        if (attempt == RETRIES) {
                            skipped++;
                            break;
                        }
                        retried++;
                    }
                    done += examples.size();
                    onBatch.accept(done);
                }
                Map<String, float[]> current = null;
                if (average != null) { // validate (and keep) the averaged weights; training goes on from its own
                    current = snapshot(params);
                    restore(params, average);
                }
                double[] mape = validation.isEmpty() ? new double[0] : evaluate(model, labels, sizes, validation, state);
                double score = mean(mape);
                Epoch e = new Epoch(epoch, lossSum / Math.max(1, batches), mape, (System.nanoTime() - t0) / 1e9, lr,
                        skipped, retried);
                epochs.add(e);
                onEpoch.accept(e);
                boolean better = validation.isEmpty() || score < best;
                if (better) {
                    best = validation.isEmpty() ? best : score;
                    bestWeights = snapshot(params);
                }
                if (current != null) {
                    restore(params, current);
                }
                if (better) {
                    sinceBest = 0;
                } else if (++sinceBest >= settings.patience()) {
                    break;
                } else if (sinceBest % settings.decayPatience() == 0) {
                    lr *= settings.decayFactor();
                }
            }
            restore(params, bestWeights);
        } finally {
            state.close();
            JniUtils.setNumThreads(threads);
        }
        return epochs;
    }

    /** Validation MAPE per head (NaN for a head without labels). */
    public double[] evaluate(Model<B> model, double[][] labels, int[] sizes, List<Integer> examples, NDManager parent) {
        int heads = labels.length == 0 ? 0 : labels[0].length;
        double[] sum = new double[heads];
        int[] count = new int[heads];
        List<Integer> order = new ArrayList<>(examples);
        if (settings.bucketBySize()) {
            order.sort(java.util.Comparator.comparingInt(i -> sizes[i])); // less padding; the sums do not care
        }
        for (List<Integer> chunk : batches(order, sizes)) {
            try (NDManager m = parent.newSubManager()) {
                float[] p = model.predict(model.batch(chunk), m).toFloatArray();
                for (int i = 0; i < chunk.size(); i++) {
                    for (int c = 0; c < heads; c++) {
                        double y = labels[chunk.get(i)][c];
                        if (!Double.isNaN(y)) {
                            sum[c] += Metrics.ape(p[i * heads + c], y);
                            count[c]++;
                        }
                    }
                }
            }
        }
        double[] mape = new double[heads];
        for (int c = 0; c < heads; c++) {
            mape[c] = count[c] == 0 ? Double.NaN : sum[c] / count[c];
        }
        return mape;
    }

    /** Consecutive runs of examples whose instruction counts add up to at most the batch bound. */
    List<List<Integer>> batches(List<Integer> order, int[] sizes) {
        List<List<Integer>> out = new ArrayList<>();
        List<Integer> current = new ArrayList<>();
        int instructions = 0;
        for (int ex : order) {
            if (!current.isEmpty() && instructions + sizes[ex] > settings.batchInstructions()) {
                out.add(current);
                current = new ArrayList<>();
                instructions = 0;
            }
            current.add(ex);
            instructions += sizes[ex];
        }
        if (!current.isEmpty()) {
            out.add(current);
        }
        return out;
    }

    /** Masked relative error, averaged per head over labelled examples, then over heads present. */
    static NDArray loss(NDArray predicted, List<Integer> examples, double[][] labels, NDManager m) {
        int heads = (int) predicted.getShape().get(1);
        float[] y = new float[examples.size() * heads];
        float[] mask = new float[y.length];
        float[] headWeight = new float[heads];
        for (int i = 0; i < examples.size(); i++) {
            for (int c = 0; c < heads; c++) {
                double v = labels[examples.get(i)][c];
                boolean has = !Double.isNaN(v);
                y[i * heads + c] = has ? (float) v : 1f;
                mask[i * heads + c] = has ? 1f : 0f;
                headWeight[c] += has ? 1f : 0f;
            }
        }
        int present = 0;
        for (int c = 0; c < heads; c++) {
            if (headWeight[c] > 0) {
                present++;
            }
        }
        for (int c = 0; c < heads; c++) {
            headWeight[c] = headWeight[c] > 0 ? 1f / (headWeight[c] * present) : 0f;
        }
        Shape shape = new Shape(examples.size(), heads);
        NDArray target = Rows.constant(m, y, shape);
        NDArray weights = Rows.constant(m, mask, shape).mul(Rows.constant(m, headWeight, new Shape(1, heads)));
        return predicted.sub(target).abs().div(target).mul(weights).sum();
    }

    /** One Adam step with global-norm clipping; false (and no change) when the gradient is not finite. */
    private boolean update(Map<String, NDArray> params, Map<String, NDArray[]> adam, long step, double learningRate,
                           NDManager m) {
        double norm = 0;
        Map<String, NDArray> grads = new HashMap<>();
        for (Map.Entry<String, NDArray> p : params.entrySet()) {
            // A copy in the batch's manager: every array computed from it then dies with the batch.
            NDArray g = p.getValue().getGradient().duplicate();
            g.attach(m);
            grads.put(p.getKey(), g);
            norm += g.square().sum().getFloat();
        }
        norm = Math.sqrt(norm);
        if (!Double.isFinite(norm)) {
            // Skip the step, as mixed-precision trainers do: one bad batch must not poison every weight.
            // Counted and reported per epoch; the step number still advances Adam's bias correction.
            return false;
        }
        float clip = norm > settings.clipNorm() ? (float) (settings.clipNorm() / norm) : 1f;
        float b1 = 0.9f;
        float b2 = 0.999f;
        float lr = (float) (learningRate * Math.sqrt(1 - Math.pow(b2, step)) / (1 - Math.pow(b1, step)));
        for (Map.Entry<String, NDArray> p : params.entrySet()) {
            NDArray g = grads.get(p.getKey()).mul(clip);
            NDArray[] mv = adam.get(p.getKey());
            mv[0].muli(b1).addi(g.mul(1 - b1));
            mv[1].muli(b2).addi(g.square().mul(1 - b2));
            NDArray denominator = mv[1].sqrt();
            denominator.attach(m);
            NDArray ratio = mv[0].div(denominator.add(1e-8f));
            ratio.attach(m);
            p.getValue().subi(ratio.mul(lr));
        }
        return true;
    }

    /**
     * Sets the parameters' gradients to zero in place, in the engine ({@code zero_()}). Not
     * {@code GradientCollector.zeroGradients}: it subtracts each gradient from itself, which leaves a NaN or
     * infinity in place, and walks every array the engine holds. Not {@code NDArray.set(float[])} either: DJL
     * makes the gradient <em>alias</em> a new Java buffer each step (no copy), kept alive only by a wrapper that
     * piles up in the parameters' manager.
     */
    private static void zeroGradients(Map<String, NDArray> params) {
        for (NDArray p : params.values()) {
            JniUtils.zeroGrad((PtNDArray) p);
        }
    }

    private static double mean(double[] v) {
        double s = 0;
        int n = 0;
        for (double x : v) {
            if (!Double.isNaN(x)) {
                s += x;
                n++;
            }
        }
        return n == 0 ? Double.NaN : s / n;
    }

    private static Map<String, float[]> snapshot(Map<String, NDArray> params) {
        Map<String, float[]> s = new HashMap<>();
        params.forEach((k, v) -> s.put(k, v.toFloatArray()));
        return s;
    }

    /** average ← decay · average + (1 − decay) · weights, in a fixed order of operations (deterministic). */
    private static void accumulate(Map<String, float[]> average, Map<String, NDArray> params, float decay) {
        params.forEach((k, v) -> {
            float[] w = v.toFloatArray();
            float[] a = average.get(k);
            for (int i = 0; i < a.length; i++) {
                a[i] = decay * a[i] + (1 - decay) * w[i];
            }
        });
    }

    private static void restore(Map<String, NDArray> params, Map<String, float[]> weights) {
        params.forEach((k, v) -> Rows.assign(v, weights.get(k)));
    }
}
