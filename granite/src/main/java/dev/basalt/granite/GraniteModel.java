package dev.basalt.granite;

import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import dev.basalt.core.Microarchitecture;
import dev.basalt.core.Provenance;
import dev.basalt.datasets.Tokens;
import dev.basalt.datasets.Vocabulary;
import dev.basalt.decoder.BasicBlock;
import dev.basalt.training.LearnedModel;
import dev.basalt.training.MultiTaskTrainer;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;

/**
 * A GRANITE model: the network, its vocabulary, configuration and the CPUs its heads predict. Predictions
 * are serialised (one forward pass at a time), which makes the model safe to share between threads.
 */
public final class GraniteModel extends LearnedModel<GraniteConfig, GraniteGraph, GraniteBatch> {

    private static final Format<GraniteConfig> FORMAT = new Format<>("basalt-granite-1", "GRANITE",
            GraniteConfig.class);
    private static final String BUNDLED = "granite-default.granite";

    private final GraniteNetwork network;

    private GraniteModel(GraniteConfig config, Vocabulary vocabulary, List<Microarchitecture> cpus,
                         Provenance provenance) {
        super(FORMAT, config, config.prior(), vocabulary, cpus, provenance);
        this.network = new GraniteNetwork(parameters(), config, vocabulary.size(), cpus.size(), statisticsWidth());
    }

    /** A freshly initialised model (weights from {@code config.seed()}). */
    public static GraniteModel create(GraniteConfig config, Vocabulary vocabulary, List<Microarchitecture> cpus) {
        return new GraniteModel(config, vocabulary, cpus, null);
    }

    /** The vocabulary of the node tokens of these blocks' graphs, with the structural tokens reserved. */
    public static Vocabulary vocabulary(List<BasicBlock> blocks, GraniteConfig config) {
        List<String> tokens = new ArrayList<>();
        for (BasicBlock b : blocks) {
            GraniteGraph.of(b, config.memoryPolicy()).nodes().forEach(n -> tokens.add(n.token()));
        }
        return Vocabulary.build(tokens, Tokens.STRUCTURAL, 1);
    }

    /**
     * Loads a model written by {@link #save}.
     *
     * @throws IOException naming the file and what is wrong with it (not a model, truncated, a parameter missing
     *                     or of the wrong shape)
     */
    public static GraniteModel load(Path file) throws IOException {
        return load(file, FORMAT, GraniteModel::new);
    }

    /** Whether {@code file} is a GRANITE model file (by the format it names; whether it loads is {@link #load}'s). */
    public static boolean reads(Path file) throws IOException {
        return dev.basalt.training.ModelFile.formatOf(file).filter(FORMAT.name()::equals).isPresent();
    }

    /** The model shipped with Basalt ({@value #BUNDLED} beside this class). */
    public static GraniteModel bundled() throws IOException {
        return bundled(GraniteModel.class, BUNDLED, FORMAT, GraniteModel::new);
    }

    /**
     * The bundled model of one CPU alone ({@code granite-<cpu>.granite}: a CPU Basalt measured, trained on its own
     * data set), if this build has one; {@code --model granite} serves it for that CPU before any head of the default
     * model.
     */
    public static java.util.Optional<GraniteModel> bundled(dev.basalt.core.Microarchitecture cpu) throws IOException {
        String resource = "granite-" + cpu.llvmName() + ".granite";
        if (GraniteModel.class.getResource(resource) == null) {
            return java.util.Optional.empty();
        }
        return java.util.Optional.of(bundled(GraniteModel.class, resource, FORMAT, GraniteModel::new));
    }

    @Override
    public String name() {
        return "granite";
    }

    @Override
    protected List<String> unseenTokens(GraniteGraph graph) {
        List<String> unseen = new java.util.ArrayList<>();
        for (GraniteGraph.Node node : graph.nodes()) {
            if (vocabulary().id(node.token()) == 0) {
                unseen.add(node.token());
            }
        }
        return unseen;
    }

    @Override
    protected GraniteGraph prepare(BasicBlock block) {
        return GraniteGraph.of(block, config().memoryPolicy());
    }

    @Override
    protected GraniteBatch batch(List<GraniteGraph> graphs, float[] priorRows, List<float[][]> statistics) {
        return new GraniteBatch(graphs, vocabulary(), priorRows, statistics);
    }

    @Override
    protected boolean hybrid() {
        return config().hybrid();
    }

    @Override
    protected NDList forward(GraniteBatch batch, NDManager manager) {
        return network.forward(batch, manager);
    }

    /** One forward pass over all the blocks, in their order: graphs are not padded, so size does not matter. */
    @Override
    protected List<List<Integer>> predictionBatches(List<BasicBlock> blocks) {
        return List.of(IntStream.range(0, blocks.size()).boxed().toList());
    }

    @Override
    protected MultiTaskTrainer.Settings settings() {
        GraniteConfig c = config();
        return new MultiTaskTrainer.Settings(c.learningRate(), c.clipNorm(), c.epochs(), c.patience(),
                c.batchInstructions(), c.seed(), c.lrDecay(), c.lrPatience(), false,
                c.averaging());
    }
}
