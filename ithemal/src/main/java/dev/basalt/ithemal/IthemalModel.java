package dev.basalt.ithemal;

import dev.basalt.datasets.IthemalTokenizer;
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

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.IntConsumer;
import java.util.stream.IntStream;

/**
 * An Ithemal model: the network, its vocabulary, configuration and the CPUs of its heads. Predictions are
 * serialised (one forward pass at a time), which makes the model safe to share between threads.
 */
public final class IthemalModel implements LearnedEstimator<LabelledBlock> {

    private static final String FORMAT = "basalt-ithemal-1";
    private static final String BUNDLED = "ithemal-default.ithemal";

    private final IthemalConfig config;
    private final Vocabulary vocabulary;
    private final List<Microarchitecture> cpus;
    private final ThroughputEstimator prior;
    private final NDManager manager;
    private final IthemalNetwork network;
    private final AtomicLong unknownTokens = new AtomicLong();

    private IthemalModel(IthemalConfig config, Vocabulary vocabulary, List<Microarchitecture> cpus) {
        this.config = config;
        this.vocabulary = vocabulary;
        this.cpus = List.copyOf(cpus);
        this.prior = config.hasPrior() ? Priors.load(config.prior(), cpus) : null;
        this.manager = Djl.engine().newBaseManager();
        this.network = new IthemalNetwork(manager, config, vocabulary.size(), cpus.size());
    }

    /** A freshly initialised model (weights from {@code config.seed()}). */
    public static IthemalModel create(IthemalConfig config, Vocabulary vocabulary, List<Microarchitecture> cpus) {
        return new IthemalModel(config, vocabulary, cpus);
    }

    /** The vocabulary of these blocks' tokens, with the structural and delimiter tokens reserved. */
    public static Vocabulary vocabulary(List<BasicBlock> blocks) {
        List<String> tokens = new ArrayList<>();
        for (BasicBlock b : blocks) {
            b.instructions().forEach(i -> tokens.addAll(IthemalTokenizer.tokens(i)));
        }
        return Vocabulary.build(tokens, IthemalTokenizer.RESERVED, 1);
    }

    private static List<List<String>> tokens(BasicBlock b) {
        return b.instructions().stream().map(IthemalTokenizer::tokens).toList();
    }

    public IthemalConfig config() {
        return config;
    }

    public Vocabulary vocabulary() {
        return vocabulary;
    }

    /** The CPUs of the model's heads, in head order. */
    public List<Microarchitecture> cpus() {
        return cpus;
    }

    /** Tokens seen in predictions that were not in the vocabulary (mapped to the unknown token). */
    public long unknownTokens() {
        return unknownTokens.get();
    }

    /**
     * Trains on {@code train}, stopping early on {@code validation}'s MAPE, with the shared trainer.
     *
     * @return one record per epoch run
     */
    @Override
    public List<MultiTaskTrainer.Epoch> train(List<LabelledBlock> train, List<LabelledBlock> validation,
                                              Consumer<MultiTaskTrainer.Epoch> onEpoch, IntConsumer onBatch) {
        List<LabelledBlock> all = new ArrayList<>(train);
        all.addAll(validation);
        List<List<List<String>>> tokens = all.stream().map(b -> tokens(b.block())).toList();
        float[][] priors = prior == null ? null : Priors.table(prior, all.stream().map(LabelledBlock::block).toList(),
                cpus);
        double[][] labels = LabelledBlock.labels(all, cpus);
        int[] sizes = all.stream().mapToInt(b -> b.block().size()).toArray();
        List<Integer> trainIdx = IntStream.range(0, train.size()).boxed().toList();
        List<Integer> validationIdx = IntStream.range(train.size(), all.size()).boxed().toList();
        MultiTaskTrainer.Model<IthemalBatch> model = MultiTaskTrainer.Model.of(network.params,
                examples -> new IthemalBatch(examples.stream().map(tokens::get).toList(), vocabulary,
                        priors == null ? null : Priors.rows(priors, examples)),
                network::forward);
        MultiTaskTrainer<IthemalBatch> trainer = new MultiTaskTrainer<>(Djl.engine(),
                new MultiTaskTrainer.Settings(config.learningRate(), config.clipNorm(), config.epochs(),
                        config.patience(), config.batchInstructions(), config.seed(), config.lrDecay(),
                        config.lrPatience(), true));
        synchronized (this) {
            return trainer.train(model, labels, sizes, trainIdx, validationIdx, onEpoch, onBatch);
        }
    }

    @Override
    public String description() {
        return "Ithemal " + config + ", vocabulary " + vocabulary.size() + " tokens";
    }

    @Override
    public String name() {
        return "ithemal";
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
        float[][] p = prior == null ? null : Priors.table(prior, blocks, cpus);
        // Forward passes over blocks of similar length (every block is padded to its batch's longest).
        List<Integer> order = IntStream.range(0, blocks.size()).boxed()
                .sorted(java.util.Comparator.comparingInt(i -> blocks.get(i).size())).toList();
        Prediction[] out = new Prediction[blocks.size()];
        int from = 0;
        while (from < order.size()) {
            int to = from;
            int instructions = 0;
            while (to < order.size() && (to == from || instructions + blocks.get(order.get(to)).size()
                    <= config.batchInstructions())) {
                instructions += blocks.get(order.get(to++)).size();
            }
            List<Integer> chunk = order.subList(from, to);
            IthemalBatch batch = new IthemalBatch(chunk.stream().map(i -> tokens(blocks.get(i))).toList(), vocabulary,
                    p == null ? null : Priors.rows(p, chunk));
            unknownTokens.addAndGet(batch.unknownTokens);
            try (NDManager m = manager.newSubManager()) {
                float[] y = network.forward(batch, m).toFloatArray();
                for (int k = 0; k < chunk.size(); k++) {
                    int g = chunk.get(k);
                    // An untrained network can predict below zero; clamp.
                    out[g] = new Prediction(Math.max(0, y[k * cpus.size() + head]), List.of(),
                            p == null ? 0 : p[g][head]);
                }
            }
            from = to;
        }
        return List.of(out);
    }

    /** Saves the model (configuration, CPUs, vocabulary, provenance, weights) as one file, atomically. */
    @Override
    public synchronized void save(Path file, Map<String, Object> provenance) throws IOException {
        ModelFile.write(file, FORMAT, config, cpus, vocabulary, provenance, network.params);
    }

    /** Loads a model written by {@link #save}; errors name the file and what is wrong with it. */
    public static IthemalModel load(Path file) throws IOException {
        return load(Files.readAllBytes(file), file.toString());
    }

    /** The model shipped with Basalt ({@value #BUNDLED} beside this class). */
    public static IthemalModel bundled() throws IOException {
        try (InputStream in = IthemalModel.class.getResourceAsStream(BUNDLED)) {
            if (in == null) {
                throw new IOException("no bundled Ithemal model (" + BUNDLED + ") in this build");
            }
            return load(in.readAllBytes(), "bundled " + BUNDLED);
        }
    }

    static IthemalModel load(byte[] bytes, String file) throws IOException {
        ModelFile.Loaded<IthemalConfig, Vocabulary> f = ModelFile.read(bytes, file, "Ithemal", FORMAT, IthemalConfig.class,
                Vocabulary.class);
        IthemalModel model = new IthemalModel(f.config(), f.vocabulary(), f.cpus());
        try {
            ModelFile.readWeights(f.weights(), model.network.params, file);
        } catch (IOException | RuntimeException e) {
            model.close();
            throw e;
        }
        return model;
    }

    @Override
    public void close() {
        network.close();
        manager.close();
    }
}
