package dev.basalt.difftune;

import dev.basalt.simulator.InstructionParams;
import dev.basalt.simulator.SimulatorParams;
import dev.basalt.simulator.Simulator;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import dev.basalt.training.Djl;
import dev.basalt.core.Microarchitecture;
import dev.basalt.training.ModelFile;
import dev.basalt.training.MultiTaskTrainer;
import dev.basalt.datasets.Vocabulary;
import dev.basalt.decoder.BasicBlock;
import dev.basalt.decoder.Idiom;
import dev.basalt.decoder.Instruction;
import dev.basalt.datasets.IthemalTokenizer;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.IntConsumer;
import java.util.stream.IntStream;

/**
 * The trained surrogate of one CPU's simulator: network, token vocabulary and configuration. Not thread-safe
 * (training and parameter learning are single-threaded loops); predictions are serialised.
 */
public final class SurrogateModel implements AutoCloseable {

    private static final String FORMAT = "basalt-surrogate-1";

    /**
     * A block made ready for batching: role-tagged token ids per instruction, zero idioms, the simulator's
     * sources and each instruction's form.
     */
    record Prepared(BasicBlock block, int[][] tokens, boolean[] zeroIdiom, Simulator.Sources sources,
                    String[] forms) {
        int size() {
            return forms.length;
        }
    }

    private final SurrogateConfig config;
    private final Vocabulary vocabulary;
    private final Microarchitecture uarch;
    private final ParameterLayout layout;
    private final Simulator.Options options;
    private final NDManager manager;
    private final SurrogateNetwork network;
    private final Map<BasicBlock, Prepared> prepared = new ConcurrentHashMap<>();

    private SurrogateModel(SurrogateConfig config, Vocabulary vocabulary, Microarchitecture uarch,
                           Simulator.Options options) {
        this.config = config;
        this.vocabulary = vocabulary;
        this.uarch = uarch;
        this.layout = new ParameterLayout(SimulatorParams.bundled(uarch));
        this.options = options;
        this.manager = Djl.engine().newBaseManager();
        this.network = new SurrogateNetwork(manager, config, layout, vocabulary.size());
    }

    /** A fresh surrogate of {@code uarch}'s simulator run with {@code options}. */
    public static SurrogateModel create(SurrogateConfig config, Vocabulary vocabulary, Microarchitecture uarch,
                                        Simulator.Options options) {
        return new SurrogateModel(config, vocabulary, uarch, options);
    }

    /** The surrogate's tokens of an instruction: Ithemal's, each tagged with its role (source, destination, address). */
    static List<String> tokens(Instruction insn) {
        List<String> out = new ArrayList<>();
        String role = "";
        boolean memory = false;
        for (String t : IthemalTokenizer.tokens(insn)) {
            switch (t) {
                case IthemalTokenizer.SOURCES -> role = "S";
                case IthemalTokenizer.DESTINATIONS -> role = "D";
                case IthemalTokenizer.MEMORY_OPEN -> memory = true;
                case IthemalTokenizer.MEMORY_CLOSE -> memory = false;
                case IthemalTokenizer.END -> {
                }
                default -> out.add(role.isEmpty() ? t : role + (memory ? "M" : "") + ":" + t);
            }
        }
        return out;
    }

    /** The vocabulary of these blocks' surrogate tokens. */
    public static Vocabulary vocabulary(List<BasicBlock> blocks) {
        List<String> tokens = new ArrayList<>();
        for (BasicBlock b : blocks) {
            b.instructions().forEach(i -> tokens.addAll(tokens(i)));
        }
        return Vocabulary.build(tokens, List.of(), 1);
    }

    public SurrogateConfig config() {
        return config;
    }

    public Microarchitecture uarch() {
        return uarch;
    }

    ParameterLayout layout() {
        return layout;
    }

    Prepared prepare(BasicBlock block) {
        return prepared.computeIfAbsent(block, b -> {
            int n = b.size();
            int[][] ids = new int[n][];
            boolean[] zero = new boolean[n];
            String[] forms = new String[n];
            for (int i = 0; i < n; i++) {
                Instruction insn = b.instruction(i);
                ids[i] = tokens(insn).stream().mapToInt(vocabulary::id).toArray();
                zero[i] = insn.idiom() == Idiom.ZERO;
                forms[i] = insn.form();
            }
            return new Prepared(b, ids, zero, Simulator.sources(b, options), forms);
        });
    }

    /** The parameter rows of a sample's instructions. */
    private float[][] rows(Prepared p, SurrogateData.Sample s) {
        float[][] r = new float[p.size()][];
        for (int i = 0; i < r.length; i++) {
            InstructionParams row = s.rows().get(p.forms()[i]);
            if (row == null) {
                throw new IllegalArgumentException("sample " + s.index() + " has no row for " + p.forms()[i]);
            }
            r[i] = layout.encode(row);
        }
        return r;
    }

    private SurrogateBatch batch(List<SurrogateData.Sample> samples, Map<String, BasicBlock> blocks) {
        List<Prepared> p = new ArrayList<>();
        List<float[][]> rows = new ArrayList<>();
        float[][] globals = new float[samples.size()][];
        for (int k = 0; k < samples.size(); k++) {
            SurrogateData.Sample s = samples.get(k);
            BasicBlock b = blocks.get(s.hex());
            if (b == null) {
                throw new IllegalArgumentException("sample " + s.index() + ": block " + s.hex() + " is not in the pool");
            }
            Prepared pr = prepare(b);
            p.add(pr);
            rows.add(rows(pr, s));
            globals[k] = new float[] {s.dispatchWidth(), s.robSize()};
        }
        return new SurrogateBatch(p, rows, globals, layout.width());
    }

    /** Forward pass with the batch's own rows and globals. */
    private NDArray forward(SurrogateBatch b, NDManager m) {
        NDArray rows = m.create(b.rows, new Shape(b.instructions, layout.width()));
        NDArray globals = m.create(b.globals, new Shape(b.blocks, 2));
        return network.forward(b, rows, globals, m);
    }

    /** Forward pass with given rows [instructions × width] and globals [blocks × 2] (for parameter learning). */
    NDArray forward(SurrogateBatch b, NDArray rows, NDArray globals, NDManager m) {
        return network.forward(b, rows, globals, m);
    }

    /** The network's weights (frozen during parameter learning). */
    Map<String, NDArray> weights() {
        return network.params;
    }

    NDManager manager() {
        return manager;
    }

    /**
     * Trains on simulator samples (MAPE loss against the simulated cycles), stopping early on the validation
     * samples' MAPE.
     *
     * @param blocks the sampled blocks by hex
     */
    public synchronized List<MultiTaskTrainer.Epoch> train(List<SurrogateData.Sample> train,
                                                           List<SurrogateData.Sample> validation,
                                                           Map<String, BasicBlock> blocks,
                                                           Consumer<MultiTaskTrainer.Epoch> onEpoch,
                                                           IntConsumer onBatch) {
        List<SurrogateData.Sample> all = new ArrayList<>(train);
        all.addAll(validation);
        double[][] labels = all.stream().map(s -> new double[] {Math.max(1e-3, s.cycles())}).toArray(double[][]::new);
        int[] sizes = all.stream().mapToInt(s -> blocks.get(s.hex()).size()).toArray();
        MultiTaskTrainer.Model<SurrogateBatch> model = MultiTaskTrainer.Model.of(network.params,
                examples -> batch(examples.stream().map(all::get).toList(), blocks), this::forward);
        MultiTaskTrainer<SurrogateBatch> trainer = new MultiTaskTrainer<>(Djl.engine(),
                new MultiTaskTrainer.Settings(config.learningRate(), config.clipNorm(), config.epochs(),
                        config.patience(), config.batchInstructions(), config.seed(), 0.5, 2, true));
        return trainer.train(model, labels, sizes, IntStream.range(0, train.size()).boxed().toList(),
                IntStream.range(train.size(), all.size()).boxed().toList(), onEpoch, onBatch);
    }

    /** The surrogate's cycles per iteration for each sample. */
    public synchronized double[] predict(List<SurrogateData.Sample> samples, Map<String, BasicBlock> blocks) {
        double[] out = new double[samples.size()];
        List<Integer> order = IntStream.range(0, samples.size()).boxed()
                .sorted(java.util.Comparator.comparingInt(i -> blocks.get(samples.get(i).hex()).size())).toList();
        int from = 0;
        while (from < order.size()) {
            int to = from;
            int instructions = 0;
            while (to < order.size() && (to == from || instructions + blocks.get(samples.get(order.get(to)).hex()).size()
                    <= config.batchInstructions())) {
                instructions += blocks.get(samples.get(order.get(to++)).hex()).size();
            }
            List<Integer> chunk = order.subList(from, to);
            try (NDManager m = manager.newSubManager()) {
                float[] y = forward(batch(chunk.stream().map(samples::get).toList(), blocks), m).toFloatArray();
                for (int k = 0; k < chunk.size(); k++) {
                    out[chunk.get(k)] = y[k];
                }
            }
            from = to;
        }
        return out;
    }

    /** Saves the surrogate as one file, atomically. */
    public synchronized void save(Path file, Map<String, Object> provenance) throws IOException {
        ModelFile.write(file, FORMAT, new Saved(config, options), List.of(uarch), vocabulary, provenance,
                network.params);
    }

    /** What a surrogate file stores besides the weights. */
    record Saved(SurrogateConfig surrogate, Simulator.Options options) {
    }

    /** Loads a surrogate written by {@link #save}; errors name the file and what is wrong with it. */
    public static SurrogateModel load(Path file) throws IOException {
        ModelFile.Loaded<Saved, Vocabulary> f = ModelFile.read(Files.readAllBytes(file), file.toString(), "surrogate",
                FORMAT, Saved.class, Vocabulary.class);
        SurrogateModel model = new SurrogateModel(f.config().surrogate(), f.vocabulary(), f.cpus().get(0),
                f.config().options());
        try {
            ModelFile.readWeights(f.weights(), model.network.params, file.toString());
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
