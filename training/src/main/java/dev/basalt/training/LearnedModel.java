package dev.basalt.training;

import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import dev.basalt.core.Microarchitecture;
import dev.basalt.core.Prediction;
import dev.basalt.core.Provenance;
import dev.basalt.core.ThroughputEstimator;
import dev.basalt.datasets.LabelledBlock;
import dev.basalt.datasets.Vocabulary;
import dev.basalt.decoder.BasicBlock;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.IntConsumer;
import java.util.stream.IntStream;

/**
 * A learned throughput model (GRANITE, Ithemal): a network with one head per CPU over batches of blocks, optionally
 * correcting an analytical prior (see {@link Priors}). It trains with {@link MultiTaskTrainer} and predicts in
 * batches, serialised on the model, which makes it safe to share between threads. A subclass says how a block is
 * prepared once ({@link #prepare}), how prepared blocks and their prior rows make a batch ({@link #batch}) and how
 * the network runs on a batch ({@link #forward}).
 *
 * <p>On load, the prior the model was trained on (as its provenance pins it) is checked against the prior it now
 * runs on; {@link #warnings()} says when they differ or cannot be compared.
 *
 * @param <C> the configuration record
 * @param <T> a block prepared for batching (a graph, token lists)
 * @param <B> the batch type
 */
public abstract class LearnedModel<C, T, B extends LearnedModel.Batch> extends DjlModel<C>
        implements LearnedEstimator<LabelledBlock> {

    /** A batch of prepared blocks. */
    public interface Batch {
        /** Tokens of the batch that were not in the vocabulary (mapped to the unknown token). */
        int unknownTokens();
    }

    private final String priorName;
    /** The analytical estimator whose prediction the network corrects, or null. */
    private final ThroughputEstimator prior;
    private final List<String> warnings;
    private final AtomicLong unknownTokens = new AtomicLong();

    /**
     * A model with an empty parameter set for the subclass to fill.
     *
     * @param prior      the name of the prior estimator ({@link Priors#load}), or null for none
     * @param provenance what the model file says about how the model was made, or null for a new model
     * @throws IllegalArgumentException when the prior is unknown or lacks one of {@code cpus}
     */
    protected LearnedModel(Format<C> format, C config, String prior, Vocabulary vocabulary,
                           List<Microarchitecture> cpus, Provenance provenance) {
        // The prior is loaded before the manager exists, so an unusable prior leaks nothing.
        this(format, config, prior, prior == null ? null : Priors.load(prior, cpus), vocabulary, cpus, provenance);
    }

    private LearnedModel(Format<C> format, C config, String priorName, ThroughputEstimator prior,
                         Vocabulary vocabulary, List<Microarchitecture> cpus, Provenance provenance) {
        super(format, config, vocabulary, cpus, provenance);
        this.priorName = priorName;
        this.prior = prior;
        this.warnings = provenance == null || prior == null ? List.of() : Priors.check(provenance, priorName, prior, cpus);
        // One PyTorch thread per operator: predictAll uses the cores with forward passes side by side instead. On
        // two cores, two threads per operator mostly wait for each other: a GRANITE 64-block batch ran at 4,000
        // blocks/s with them against 6,000 without, and a single block took 4.4 ms against 1.0 (p50).
        Djl.intraOpThreads(1);
    }

    /**
     * The model file's SHA-256 combined with its prior's fingerprint on {@code cpus}: both determine the
     * predictions. Empty for a model made in this process (not yet written) or on a prior without a fingerprint.
     */
    @Override
    public Optional<String> fingerprint(java.util.Collection<Microarchitecture> cpus) {
        Optional<String> file = fileDigest();
        if (file.isEmpty()) {
            return Optional.empty();
        }
        if (prior == null) {
            return file;
        }
        return prior.fingerprint(cpus).map(p -> {
            try {
                byte[] d = java.security.MessageDigest.getInstance("SHA-256").digest((file.get() + ":" + p)
                        .getBytes(java.nio.charset.StandardCharsets.UTF_8));
                return java.util.HexFormat.of().formatHex(d);
            } catch (java.security.NoSuchAlgorithmException e) {
                throw new IllegalStateException("every Java has SHA-256", e);
            }
        });
    }

    /**
     * The prior's cycles of {@code blocks} and, when the model is hybrid, its statistics; null without a prior.
     */
    private Priors.Inputs priorInputs(List<BasicBlock> blocks) {
        if (prior == null) {
            if (hybrid()) {
                throw new IllegalStateException(name() + " takes the prior's statistics but has no prior");
            }
            return null;
        }
        return Priors.inputs(prior, blocks, cpus(), hybrid());
    }

    /** Per block and head, the share of its instructions on the prior's critical cycle; null without statistics. */
    private float[][] criticalShares(float[][][] statistics) {
        if (statistics == null) {
            return null;
        }
        float[][] out = new float[statistics.length][cpus().size()];
        for (int i = 0; i < statistics.length; i++) {
            for (int c = 0; c < out[i].length; c++) {
                double share = Priors.criticalShare(prior, statistics[i], c);
                if (Double.isNaN(share)) {
                    return null; // the prior gives no such statistic
                }
                out[i][c] = (float) share;
            }
        }
        return out;
    }

    private static List<float[][]> pick(float[][][] table, List<Integer> examples) {
        return table == null ? null : examples.stream().map(i -> table[i]).toList();
    }

    /** Prepares a block for batching (once per block and training run or prediction). */
    protected abstract T prepare(BasicBlock block);

    /**
     * The batch of {@code blocks}.
     *
     * @param priorRows  the prior's cycles [blocks × heads] row-major, or null without a prior
     * @param statistics per block, the prior's per-instruction statistics [instructions][{@link
     *                   #statisticsWidth()}] ({@link Priors#statistics}), or null when the model takes none
     */
    protected abstract B batch(List<T> blocks, float[] priorRows, List<float[][]> statistics);

    /**
     * The tokens of a prepared block that the vocabulary does not hold (forms the model never saw), each as often as
     * it occurs; none by default.
     */
    protected List<String> unseenTokens(T prepared) {
        return List.of();
    }

    /** Whether the network takes the prior's per-instruction statistics as inputs (its hybrid inputs). */
    protected boolean hybrid() {
        return false;
    }

    /** How many statistics per instruction the network takes: 0 unless {@link #hybrid()}. */
    protected final int statisticsWidth() {
        return hybrid() ? Priors.statisticsWidth(prior, cpus()) : 0;
    }

    /**
     * Runs the network on a batch; intermediates go to {@code manager}.
     *
     * @return block predictions [blocks × heads] in cycles per iteration, then, for a model that attributes them,
     *         each instruction's contribution [instructions × heads]
     */
    protected abstract NDList forward(B batch, NDManager manager);

    /** The trainer's settings (from the configuration). */
    protected abstract MultiTaskTrainer.Settings settings();

    /**
     * The batches of {@code blocks} for prediction, as index lists: by default blocks of similar size together,
     * at most {@link MultiTaskTrainer.Settings#batchInstructions()} instructions a batch.
     */
    protected List<List<Integer>> predictionBatches(List<BasicBlock> blocks) {
        return bySize(blocks.stream().mapToInt(BasicBlock::size).toArray(), settings().batchInstructions());
    }

    /** The configuration the model was made with. */
    public C config() {
        return savedConfig();
    }

    @Override
    public String description() {
        return format().kind() + " " + config() + ", vocabulary " + vocabulary().size() + " tokens";
    }

    @Override
    public Set<Microarchitecture> supported() {
        return new TreeSet<>(cpus());
    }

    /** Tokens seen in predictions that were not in the vocabulary (mapped to the unknown token). */
    public long unknownTokens() {
        return unknownTokens.get();
    }

    /** Whether the prior this model was trained on may differ from the one it now runs on, and why. */
    @Override
    public List<String> warnings() {
        return warnings;
    }

    @Override
    public Provenance newProvenance(String command) {
        Provenance p = Provenance.now(name() + "-model", command).withSeed(settings().seed());
        return prior == null ? p : Priors.pin(p, priorName, prior, cpus());
    }

    /**
     * Trains on {@code train}, stopping early on {@code validation}'s MAPE.
     *
     * @return one record per epoch run
     */
    @Override
    public List<MultiTaskTrainer.Epoch> train(List<LabelledBlock> train, List<LabelledBlock> validation,
                                              Consumer<MultiTaskTrainer.Epoch> onEpoch, IntConsumer onBatch) {
        return fit(train, validation, settings(), onEpoch, onBatch);
    }

    /**
     * Trains for at most {@code epochs} epochs with the configuration's other settings, from the weights the model
     * has: pre-training on blocks labelled by an analytical estimator, before {@link #train} on measurements.
     */
    @Override
    public List<MultiTaskTrainer.Epoch> pretrain(List<LabelledBlock> train, List<LabelledBlock> validation, int epochs,
                                                 Consumer<MultiTaskTrainer.Epoch> onEpoch, IntConsumer onBatch) {
        if (epochs < 1) {
            throw new IllegalArgumentException("pre-training epochs must be >= 1, got " + epochs);
        }
        MultiTaskTrainer.Settings s = settings();
        // No weight averaging here: the averaged weights are those of the training on measurements.
        return fit(train, validation, new MultiTaskTrainer.Settings(s.learningRate(), s.clipNorm(), epochs,
                s.patience(), s.batchInstructions(), s.seed(), s.decayFactor(), s.decayPatience(), s.bucketBySize()),
                onEpoch, onBatch);
    }

    private List<MultiTaskTrainer.Epoch> fit(List<LabelledBlock> train, List<LabelledBlock> validation,
                                             MultiTaskTrainer.Settings settings,
                                             Consumer<MultiTaskTrainer.Epoch> onEpoch, IntConsumer onBatch) {
        List<LabelledBlock> all = new ArrayList<>(train);
        all.addAll(validation);
        List<BasicBlock> blocks = all.stream().map(LabelledBlock::block).toList();
        List<T> prepared = blocks.stream().map(this::prepare).toList();
        Priors.Inputs inputs = priorInputs(blocks);
        float[][] priors = inputs == null ? null : inputs.cycles();
        float[][][] statistics = inputs == null ? null : inputs.statistics();
        double[][] labels = LabelledBlock.labels(all, cpus());
        int[] sizes = blocks.stream().mapToInt(BasicBlock::size).toArray();
        List<Integer> trainIdx = IntStream.range(0, train.size()).boxed().toList();
        List<Integer> validationIdx = IntStream.range(train.size(), all.size()).boxed().toList();
        MultiTaskTrainer.Model<B> model = MultiTaskTrainer.Model.of(parameters().map(),
                examples -> batch(examples.stream().map(prepared::get).toList(),
                        priors == null ? null : Priors.rows(priors, examples), pick(statistics, examples)),
                (batch, m) -> forward(batch, m).get(0));
        MultiTaskTrainer<B> trainer = new MultiTaskTrainer<>(Djl.engine(), settings);
        synchronized (this) {
            List<MultiTaskTrainer.Epoch> epochs = trainer.train(model, labels, sizes, trainIdx, validationIdx, onEpoch,
                    onBatch);
            TrainingRange range = priors == null ? null
                    : TrainingRange.of(sizes, priors, labels, priorName, criticalShares(statistics));
            calibrate(validationCalibration(prepared, priors, statistics, labels, sizes, validationIdx)
                    .map(c -> c.withRange(range)).orElse(null));
            return epochs;
        }
    }

    /**
     * The calibration of the trained network on the validation blocks (which it was not fitted on), or empty when
     * some head has fewer than {@link Calibration#MIN_PER_BIN} of them with a measurement and a positive
     * prediction.
     */
    private Optional<Calibration> validationCalibration(List<T> prepared, float[][] priors, float[][][] statistics,
                                                        double[][] labels, int[] blockSizes, List<Integer> validation) {
        int heads = cpus().size();
        for (int c = 0; c < heads; c++) {
            int head = c;
            if (validation.stream().filter(i -> !Double.isNaN(labels[i][head])).count() < Calibration.MIN_PER_BIN) {
                return Optional.empty();
            }
        }
        int[] sizes = validation.stream().mapToInt(i -> blockSizes[i]).toArray();
        double[][] predicted = new double[validation.size()][];
        double[][] prior = priors == null ? null : new double[validation.size()][];
        double[][] measured = new double[validation.size()][];
        List<List<Integer>> chunks = bySize(sizes, settings().batchInstructions());
        for (List<Integer> chunk : chunks) {
            List<Integer> examples = chunk.stream().map(validation::get).toList();
            B batch = batch(examples.stream().map(prepared::get).toList(),
                    priors == null ? null : Priors.rows(priors, examples), pick(statistics, examples));
            try (NDManager m = manager().newSubManager()) {
                float[] y = forward(batch, m).get(0).toFloatArray();
                for (int k = 0; k < chunk.size(); k++) {
                    int v = chunk.get(k);
                    predicted[v] = new double[heads];
                    for (int c = 0; c < heads; c++) {
                        predicted[v][c] = Math.max(0, y[k * heads + c]);
                    }
                    if (prior != null) {
                        prior[v] = new double[heads];
                        for (int c = 0; c < heads; c++) {
                            prior[v][c] = priors[examples.get(k)][c];
                        }
                    }
                    measured[v] = labels[examples.get(k)];
                }
            }
        }
        try {
            return Optional.of(Calibration.fit(predicted, prior, measured));
        } catch (IllegalArgumentException tooFew) { // an untrained network predicting 0 leaves no usable block
            return Optional.empty();
        }
    }

    @Override
    public Prediction predict(BasicBlock block, Microarchitecture uarch) {
        return predictAll(List.of(block), uarch).get(0);
    }

    /**
     * Predicts in forward passes over {@link #predictionBatches}, split so that every core has one when there are
     * enough blocks ({@link #parallelBatches}): PyTorch's own threads share one operator's work, which for these
     * small operators mostly means waiting (a 64-block GRANITE batch on two cores: 2 threads per operator ran
     * slower than two one-thread passes side by side).
     */
    @Override
    public synchronized List<Prediction> predictAll(List<BasicBlock> blocks, Microarchitecture uarch) {
        for (BasicBlock b : blocks) { // predictEach then predicts the others one by one
            checkSupported(b, uarch);
        }
        int head = cpus().indexOf(uarch);
        Priors.Inputs inputs = priorInputs(blocks);
        float[][] p = inputs == null ? null : inputs.cycles();
        float[][][] statistics = inputs == null ? null : inputs.statistics();
        Calibration calibration = calibration().orElse(null);
        Prediction[] out = new Prediction[blocks.size()];
        List<List<Integer>> batches = parallelBatches(predictionBatches(blocks), blocks.size(),
                Runtime.getRuntime().availableProcessors());
        java.util.function.Consumer<List<Integer>> run = chunk -> Rows.withoutGradients(() -> predictBatch(blocks,
                chunk, head, p, statistics, calibration, out));
        if (batches.size() > 1) {
            batches.parallelStream().forEach(run);
        } else {
            batches.forEach(run);
        }
        return List.of(out);
    }

    /** Fewest blocks worth a forward pass of their own on another core. */
    static final int MIN_PARALLEL_BLOCKS = 16;

    /**
     * {@code batches} cut so that there are at least {@code cores} of them when {@code total} blocks allow
     * {@link #MIN_PARALLEL_BLOCKS} each: the largest batch is halved until then. Order within a batch is kept.
     */
    static List<List<Integer>> parallelBatches(List<List<Integer>> batches, int total, int cores) {
        int wanted = Math.min(cores, total / MIN_PARALLEL_BLOCKS);
        List<List<Integer>> out = new ArrayList<>(batches);
        while (out.size() < wanted) {
            int largest = 0;
            for (int i = 1; i < out.size(); i++) {
                if (out.get(i).size() > out.get(largest).size()) {
                    largest = i;
                }
            }
            List<Integer> b = out.get(largest);
            if (b.size() < 2 * MIN_PARALLEL_BLOCKS) {
                break;
            }
            out.set(largest, b.subList(0, b.size() / 2));
            out.add(largest + 1, b.subList(b.size() / 2, b.size()));
        }
        return out;
    }

    /** One forward pass over the blocks {@code chunk} of {@code blocks}, writing their predictions into {@code out}. */
    private void predictBatch(List<BasicBlock> blocks, List<Integer> chunk, int head, float[][] p,
                              float[][][] statistics, Calibration calibration, Prediction[] out) {
        int heads = cpus().size();
        List<T> prepared = chunk.stream().map(i -> prepare(blocks.get(i))).toList();
        B batch = batch(prepared, p == null ? null : Priors.rows(p, chunk), pick(statistics, chunk));
        unknownTokens.addAndGet(batch.unknownTokens());
        try (NDManager m = manager().newSubManager()) {
            NDList y = forward(batch, m);
            float[] totals = y.get(0).toFloatArray();
            float[] contributions = y.size() > 1 ? y.get(1).toFloatArray() : null;
            int instruction = 0;
            for (int k = 0; k < chunk.size(); k++) {
                int g = chunk.get(k);
                List<Double> parts = new ArrayList<>();
                for (int i = 0; contributions != null && i < blocks.get(g).size(); i++) {
                    parts.add((double) contributions[(instruction++) * heads + head]);
                }
                // An untrained network can predict below zero (a sum of contributions, say); clamp.
                double cycles = Math.max(0, totals[k * heads + head]);
                double priorCycles = p == null ? 0 : p[g][head];
                TrainingRange range = calibration == null || p == null ? null : calibration.range();
                String outside = range == null ? null : range.outside(blocks.get(g).size(), priorCycles, head,
                        statistics == null ? Double.NaN : Priors.criticalShare(prior, statistics[g], head));
                List<String> unseen = range == null || outside != null ? List.of() : unseenTokens(prepared.get(k));
                List<String> forms = unseen.isEmpty() ? List.of() : unseen.stream().distinct().toList();
                if (!forms.isEmpty()) {
                    // which forms, so that a reader can tell a rare instruction from a tokenizer gap
                    outside = "unknown forms: " + String.join(", ", forms.subList(0, Math.min(4, forms.size())))
                            + (forms.size() > 4 ? ", …" : "");
                }
                if (outside != null) { // extrapolating: the prior's cycles, a wider interval, and a note saying so
                    // No correction: every instruction's contribution is 0, and baseline plus them is the prediction.
                    out[g] = new Prediction(priorCycles, java.util.Collections.nCopies(parts.size(), 0.0), priorCycles)
                            .withNotes(dev.basalt.core.UnmodelledInstructions.notes(blocks.get(g)))
                            .withNotes(List.of("outside " + name() + "'s training range (" + outside + "): its "
                                    + "prior's cycles (" + range.priorName() + "), with an interval twice as wide"))
                            .withIntervals(calibration.widened(head, priorCycles))
                            .withSource(dev.basalt.core.Source.fallback(range.priorName(), name(),
                                    "outside " + name() + "'s training range (" + outside + ")", forms));
                    continue;
                }
                Prediction made = new Prediction(cycles, parts, priorCycles)
                        .withNotes(dev.basalt.core.UnmodelledInstructions.notes(blocks.get(g)));
                out[g] = calibration == null ? made
                        : made.withIntervals(calibration.intervals(head, cycles, priorCycles));
            }
        }
    }
}
