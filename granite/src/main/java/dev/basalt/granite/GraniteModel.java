package dev.basalt.granite;

import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import dev.basalt.training.Djl;
import dev.basalt.core.Microarchitecture;
import dev.basalt.core.Prediction;
import dev.basalt.core.ThroughputEstimator;
import dev.basalt.training.LearnedEstimator;
import dev.basalt.training.ModelFile;
import dev.basalt.training.MultiTaskTrainer;
import dev.basalt.training.Priors;
import dev.basalt.datasets.LabelledBlock;
import dev.basalt.datasets.Vocabulary;
import dev.basalt.decoder.BasicBlock;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.IntConsumer;

/**
 * A GRANITE model: the network, its vocabulary, configuration and the CPUs its heads predict. Predictions
 * are serialised (one forward pass at a time), which makes the model safe to share between threads.
 */
public final class GraniteModel implements LearnedEstimator<LabelledBlock> {

    private final GraniteConfig config;
    private final Vocabulary vocabulary;
    private final List<Microarchitecture> cpus;
    private final NDManager manager;
    private final GraniteNetwork network;
    /** The analytical estimator whose prediction the network corrects, or null. */
    private final ThroughputEstimator prior;

    private GraniteModel(GraniteConfig config, Vocabulary vocabulary, List<Microarchitecture> cpus) {
        this.config = config;
        this.vocabulary = vocabulary;
        this.cpus = List.copyOf(cpus);
        this.prior = config.hasPrior() ? Priors.load(config.prior(), cpus) : null;
        this.manager = Djl.engine().newBaseManager();
        this.network = new GraniteNetwork(manager, config, vocabulary.size(), cpus.size());
    }

    /** A freshly initialised model (weights from {@code config.seed()}). */
    public static GraniteModel create(GraniteConfig config, Vocabulary vocabulary, List<Microarchitecture> cpus) {
        return new GraniteModel(config, vocabulary, cpus);
    }

    /** The vocabulary of the node tokens of these blocks' graphs, with the structural tokens reserved. */
    public static Vocabulary vocabulary(List<BasicBlock> blocks, GraniteConfig config) {
        List<String> tokens = new ArrayList<>();
        for (BasicBlock b : blocks) {
            GraniteGraph.of(b, config.memoryPolicy()).nodes().forEach(n -> tokens.add(n.token()));
        }
        return Vocabulary.build(tokens, dev.basalt.datasets.Tokens.STRUCTURAL, 1);
    }

    public GraniteConfig config() {
        return config;
    }

    public Vocabulary vocabulary() {
        return vocabulary;
    }

    /**
     * Trains on {@code train}, stopping early on {@code validation}'s MAPE.
     *
     * @return one record per epoch run
     */
    @Override
    public List<MultiTaskTrainer.Epoch> train(List<LabelledBlock> train, List<LabelledBlock> validation,
                                              Consumer<MultiTaskTrainer.Epoch> onEpoch, IntConsumer onBatch) {
        List<LabelledBlock> all = new ArrayList<>(train);
        all.addAll(validation);
        List<GraniteGraph> graphs = all.stream().map(b -> GraniteGraph.of(b.block(), config.memoryPolicy())).toList();
        float[][] priors = priors(all.stream().map(LabelledBlock::block).toList());
        double[][] labels = LabelledBlock.labels(all, cpus);
        int[] sizes = all.stream().mapToInt(b -> b.block().size()).toArray();
        List<Integer> trainIdx = java.util.stream.IntStream.range(0, train.size()).boxed().toList();
        List<Integer> validationIdx = java.util.stream.IntStream.range(train.size(), all.size()).boxed().toList();
        MultiTaskTrainer.Model<GraniteBatch> model = MultiTaskTrainer.Model.of(network.params,
                examples -> new GraniteBatch(examples.stream().map(graphs::get).toList(), vocabulary,
                        priors == null ? null : Priors.rows(priors, examples)),
                (batch, m) -> network.forward(batch, m).get(1));
        MultiTaskTrainer<GraniteBatch> trainer = new MultiTaskTrainer<>(Djl.engine(),
                new MultiTaskTrainer.Settings(config.learningRate(), config.clipNorm(), config.epochs(),
                        config.patience(), config.batchInstructions(), config.seed(), config.lrDecay(),
                        config.lrPatience(), false));
        synchronized (this) {
            return trainer.train(model, labels, sizes, trainIdx, validationIdx, onEpoch, onBatch);
        }
    }

    /** The prior's cycles per iteration per block and head, or null without a prior. */
    private float[][] priors(List<BasicBlock> blocks) {
        return prior == null ? null : Priors.table(prior, blocks, cpus);
    }

    @Override
    public String description() {
        return "GRANITE " + config + ", vocabulary " + vocabulary.size() + " tokens";
    }

    @Override
    public String name() {
        return "granite";
    }

    @Override
    public Set<Microarchitecture> supported() {
        return new java.util.TreeSet<>(cpus);
    }

    @Override
    public Prediction predict(BasicBlock block, Microarchitecture uarch) {
        return predictAll(List.of(block), uarch).get(0);
    }

    @Override
    public synchronized List<Prediction> predictAll(List<BasicBlock> blocks, Microarchitecture uarch) {
        checkSupported(uarch);
        int head = cpus.indexOf(uarch);
        List<GraniteGraph> graphs = blocks.stream().map(b -> GraniteGraph.of(b, config.memoryPolicy())).toList();
        float[][] p = priors(blocks);
        GraniteBatch batch = new GraniteBatch(graphs, vocabulary,
                p == null ? null : Priors.flatten(p));
        unknownTokens.addAndGet(batch.unknownTokens);
        try (NDManager m = manager.newSubManager()) {
            NDList out = network.forward(batch, m);
            float[] contributions = out.get(0).toFloatArray();
            float[] totals = out.get(1).toFloatArray();
            List<Prediction> predictions = new ArrayList<>();
            int instruction = 0;
            for (int g = 0; g < blocks.size(); g++) {
                List<Double> parts = new ArrayList<>();
                for (int k = 0; k < blocks.get(g).size(); k++) {
                    parts.add((double) contributions[(instruction++) * cpus.size() + head]);
                }
                // A sum of contributions can be slightly negative for an untrained network; clamp to zero.
                predictions.add(new Prediction(Math.max(0, totals[g * cpus.size() + head]), parts,
                        p == null ? 0 : p[g][head]));
            }
            return predictions;
        }
    }

    /**
     * Saves the model as one zip file, atomically: {@code model.json} (format, configuration, CPUs, vocabulary
     * and the given provenance) and {@code weights.bin} (every parameter: name, shape, float32 values).
     */
    @Override
    public synchronized void save(java.nio.file.Path file, Map<String, Object> provenance) throws java.io.IOException {
        ModelFile.write(file, FORMAT, config, cpus, vocabulary, provenance, network.params);
    }

    /**
     * Loads a model written by {@link #save}.
     *
     * @throws java.io.IOException naming the file and what is wrong with it (not a model, truncated, a
     *                             parameter missing or of the wrong shape)
     */
    public static GraniteModel load(java.nio.file.Path file) throws java.io.IOException {
        return load(java.nio.file.Files.readAllBytes(file), file.toString());
    }

    /** The model shipped with Basalt ({@code granite-default.granite} beside this class). */
    public static GraniteModel bundled() throws java.io.IOException {
        try (java.io.InputStream in = GraniteModel.class.getResourceAsStream(BUNDLED)) {
            if (in == null) {
                throw new java.io.IOException("no bundled GRANITE model (" + BUNDLED + ") in this build");
            }
            return load(in.readAllBytes(), "bundled " + BUNDLED);
        }
    }

    private static final String BUNDLED = "granite-default.granite";

    /** Loads a model from the bytes of a model file; {@code file} names it in errors. */
    static GraniteModel load(byte[] bytes, String file) throws java.io.IOException {
        ModelFile.Loaded<GraniteConfig, Vocabulary> f = ModelFile.read(bytes, file, "GRANITE", FORMAT,
                GraniteConfig.class, Vocabulary.class);
        GraniteModel model = new GraniteModel(f.config(), f.vocabulary(), f.cpus());
        try {
            ModelFile.readWeights(f.weights(), model.network.params, file);
        } catch (java.io.IOException | RuntimeException e) {
            model.close();
            throw e;
        }
        return model;
    }

    private final java.util.concurrent.atomic.AtomicLong unknownTokens = new java.util.concurrent.atomic.AtomicLong();

    /** Node tokens seen in predictions that were not in the vocabulary (mapped to the unknown token). */
    public long unknownTokens() {
        return unknownTokens.get();
    }

    /** The CPUs of the model's heads, in head order. */
    public List<Microarchitecture> cpus() {
        return cpus;
    }

    private static final String FORMAT = "basalt-granite-1";

    @Override
    public void close() {
        network.close();
        manager.close();
    }
}
