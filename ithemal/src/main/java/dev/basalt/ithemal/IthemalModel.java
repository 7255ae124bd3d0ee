package dev.basalt.ithemal;

import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import dev.basalt.core.Microarchitecture;
import dev.basalt.core.Provenance;
import dev.basalt.datasets.IthemalTokenizer;
import dev.basalt.datasets.Vocabulary;
import dev.basalt.decoder.BasicBlock;
import dev.basalt.training.LearnedModel;
import dev.basalt.training.MultiTaskTrainer;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * An Ithemal model: the network, its vocabulary, configuration and the CPUs of its heads. Predictions are
 * serialised (one forward pass at a time), which makes the model safe to share between threads; they run over
 * batches of blocks of similar length (every block is padded to its batch's longest).
 */
public final class IthemalModel extends LearnedModel<IthemalConfig, List<List<String>>, IthemalBatch> {

    private static final Format<IthemalConfig> FORMAT = new Format<>("basalt-ithemal-1", "Ithemal",
            IthemalConfig.class);
    private static final String BUNDLED = "ithemal-default.ithemal";

    private final IthemalNetwork network;

    private IthemalModel(IthemalConfig config, Vocabulary vocabulary, List<Microarchitecture> cpus,
                         Provenance provenance) {
        super(FORMAT, config, config.prior(), vocabulary, cpus, provenance);
        this.network = new IthemalNetwork(parameters(), config, vocabulary.size(), cpus.size(), statisticsWidth());
    }

    /** A freshly initialised model (weights from {@code config.seed()}). */
    public static IthemalModel create(IthemalConfig config, Vocabulary vocabulary, List<Microarchitecture> cpus) {
        return new IthemalModel(config, vocabulary, cpus, null);
    }

    /** The vocabulary of these blocks' tokens, with the structural and delimiter tokens reserved. */
    public static Vocabulary vocabulary(List<BasicBlock> blocks) {
        List<String> tokens = new ArrayList<>();
        for (BasicBlock b : blocks) {
            b.instructions().forEach(i -> tokens.addAll(IthemalTokenizer.tokens(i)));
        }
        return Vocabulary.build(tokens, IthemalTokenizer.RESERVED, 1);
    }

    /** Loads a model written by {@link #save}; errors name the file and what is wrong with it. */
    public static IthemalModel load(Path file) throws IOException {
        return load(file, FORMAT, IthemalModel::new);
    }

    /** Whether {@code file} is an Ithemal model file (by the format it names; whether it loads is {@link #load}'s). */
    public static boolean reads(Path file) throws IOException {
        return dev.basalt.training.ModelFile.formatOf(file).filter(FORMAT.name()::equals).isPresent();
    }

    /** The model shipped with Basalt ({@value #BUNDLED} beside this class). */
    public static IthemalModel bundled() throws IOException {
        return bundled(IthemalModel.class, BUNDLED, FORMAT, IthemalModel::new);
    }

    /**
     * The bundled model of one CPU the default model has no head for ({@code ithemal-<cpu>.ithemal}: a CPU Basalt
     * measured, trained on its own data set), if this build has one.
     */
    public static java.util.Optional<IthemalModel> bundled(dev.basalt.core.Microarchitecture cpu) throws IOException {
        String resource = "ithemal-" + cpu.llvmName() + ".ithemal";
        if (IthemalModel.class.getResource(resource) == null) {
            return java.util.Optional.empty();
        }
        return java.util.Optional.of(bundled(IthemalModel.class, resource, FORMAT, IthemalModel::new));
    }

    @Override
    public String name() {
        return "ithemal";
    }

    /** Each instruction's tokens. */
    @Override
    protected List<List<String>> prepare(BasicBlock block) {
        return block.instructions().stream().map(IthemalTokenizer::tokens).toList();
    }

    @Override
    protected List<String> unseenTokens(List<List<String>> tokens) {
        List<String> unseen = new java.util.ArrayList<>();
        for (List<String> instruction : tokens) {
            for (String t : instruction) {
                if (vocabulary().id(t) == 0) {
                    unseen.add(t);
                }
            }
        }
        return unseen;
    }

    @Override
    protected IthemalBatch batch(List<List<List<String>>> blocks, float[] priorRows, List<float[][]> statistics) {
        return new IthemalBatch(blocks, vocabulary(), priorRows, statistics);
    }

    @Override
    protected boolean hybrid() {
        return config().hybrid();
    }

    @Override
    protected NDList forward(IthemalBatch batch, NDManager manager) {
        return new NDList(network.forward(batch, manager));
    }

    @Override
    protected MultiTaskTrainer.Settings settings() {
        IthemalConfig c = config();
        return new MultiTaskTrainer.Settings(c.learningRate(), c.clipNorm(), c.epochs(), c.patience(),
                c.batchInstructions(), c.seed(), c.lrDecay(), c.lrPatience(), true);
    }
}
