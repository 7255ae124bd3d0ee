package dev.basalt.difftune;

import dev.basalt.simulator.params.InstructionParams;
import dev.basalt.simulator.params.SimulatorParams;
import dev.basalt.simulator.Simulator;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDArrays;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.Shape;
import dev.basalt.training.Djl;
import dev.basalt.core.Microarchitecture;
import dev.basalt.core.Provenance;
import dev.basalt.training.DjlModel;
import dev.basalt.training.MultiTaskTrainer;
import dev.basalt.datasets.Vocabulary;
import dev.basalt.decoder.BasicBlock;
import dev.basalt.decoder.Instruction;
import dev.basalt.datasets.IthemalTokenizer;

import java.io.IOException;
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
public final class SurrogateModel extends DjlModel<SurrogateModel.Saved> {

    private static final Format<Saved> FORMAT = new Format<>("basalt-surrogate-1", "surrogate", Saved.class);

    /**
     * A block made ready for batching: role-tagged token ids per instruction, zero idioms, the simulator's
     * sources and each instruction's form.
     */
    record Prepared(BasicBlock block, int[][] tokens, boolean[] zeroIdiom, dev.basalt.simulator.facts.Sources sources,
                    String[] forms, float frontEnd, float issue, float simulated, float[][] defaultRows) {
        int size() {
            return forms.length;
        }
    }

    private final ParameterLayout layout;
    private final SurrogateNetwork network;
    /** The bundled table's simulator, for each block's front-end bound (which no tuned value changes much). */
    private final Simulator frontEnd;
    private final Map<BasicBlock, Prepared> prepared = new ConcurrentHashMap<>();

    private SurrogateModel(Saved saved, Vocabulary vocabulary, Microarchitecture uarch, ParameterLayout layout,
                           Provenance provenance) {
        super(FORMAT, saved, vocabulary, List.of(uarch), provenance);
        this.layout = layout;
        this.frontEnd = new Simulator(SimulatorParams.bundled(uarch));
        this.network = new SurrogateNetwork(parameters(), manager(), saved.surrogate(), layout, vocabulary.size());
    }

    /** A surrogate of {@code uarch}'s simulator, with its parameter layout from the bundled table. */
    private static SurrogateModel of(Saved saved, Vocabulary vocabulary, Microarchitecture uarch,
                                     Provenance provenance) {
        return new SurrogateModel(saved, vocabulary, uarch, new ParameterLayout(SimulatorParams.bundled(uarch)),
                provenance);
    }

    /** A fresh surrogate of {@code uarch}'s simulator run with {@code options}. */
    public static SurrogateModel create(SurrogateConfig config, Vocabulary vocabulary, Microarchitecture uarch,
                                        Simulator.Options options) {
        return of(new Saved(config, options), vocabulary, uarch, null);
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

    /** The simulator options the surrogate imitates. */
    Simulator.Options options() {
        return savedConfig().options();
    }

    public SurrogateConfig config() {
        return savedConfig().surrogate();
    }

    public Microarchitecture uarch() {
        return cpus().get(0);
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
                ids[i] = tokens(insn).stream().mapToInt(vocabulary()::id).toArray();
                zero[i] = Simulator.noExecution(insn, savedConfig().options());
                forms[i] = insn.form();
            }
            return new Prepared(b, ids, zero, dev.basalt.simulator.facts.Sources.of(b, savedConfig().options()), forms,
                    (float) frontEnd.frontEndBound(b, savedConfig().options()),
                    savedConfig().options().secondGeneration()
                            ? (float) frontEnd.issueBound(b, savedConfig().options()) : -1f,
                    (float) frontEnd.run(b, savedConfig().options()).cyclesPerIteration(),
                    java.util.Arrays.stream(forms).map(f -> layout.encode(frontEnd.resolve(f).row()))
                            .toArray(float[][]::new));
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
        return forward(b, rows, globals, m);
    }

    /**
     * Forward pass with given rows [instructions × width] and globals [blocks × 2] (for parameter learning). The
     * second-generation machine issues {@link dev.basalt.simulator.params.CoreParams#issueWidth()} fused micro-ops a
     * cycle whatever the table's dispatch width, so there the first global is that constant (and gets no gradient).
     */
    NDArray forward(SurrogateBatch b, NDArray rows, NDArray globals, NDManager m) {
        if (savedConfig().options().secondGeneration()) {
            NDArray width = m.full(new Shape(b.blocks, 1), (float) frontEnd.params().core().issueWidth());
            globals = NDArrays.concat(new NDList(width, globals.get(new NDIndex(":, 1:2"))), 1);
        }
        return network.forward(b, rows, globals, m);
    }

    /** The network's weights (frozen during parameter learning). */
    Map<String, NDArray> weights() {
        return parameters().map();
    }

    /** A manager for intermediates (parameter learning's), closed by the caller. */
    NDManager newSubManager() {
        return manager().newSubManager();
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
        MultiTaskTrainer.Model<SurrogateBatch> model = MultiTaskTrainer.Model.of(parameters().map(),
                examples -> batch(examples.stream().map(all::get).toList(), blocks), this::forward);
        SurrogateConfig config = config();
        MultiTaskTrainer<SurrogateBatch> trainer = new MultiTaskTrainer<>(Djl.engine(),
                new MultiTaskTrainer.Settings(config.learningRate(), config.clipNorm(), config.epochs(),
                        config.patience(), config.batchInstructions(), config.seed(), 0.5, 2, true));
        return trainer.train(model, labels, sizes, IntStream.range(0, train.size()).boxed().toList(),
                IntStream.range(train.size(), all.size()).boxed().toList(), onEpoch, onBatch);
    }

    /** The surrogate's cycles per iteration for each sample. */
    public synchronized double[] predict(List<SurrogateData.Sample> samples, Map<String, BasicBlock> blocks) {
        double[] out = new double[samples.size()];
        int[] sizes = samples.stream().mapToInt(s -> blocks.get(s.hex()).size()).toArray();
        for (List<Integer> chunk : bySize(sizes, config().batchInstructions())) {
            try (NDManager m = manager().newSubManager()) {
                float[] y = forward(batch(chunk.stream().map(samples::get).toList(), blocks), m).toFloatArray();
                for (int k = 0; k < chunk.size(); k++) {
                    out[chunk.get(k)] = y[k];
                }
            }
        }
        return out;
    }

    /**
     * What a surrogate file stores as its configuration: the surrogate's and the simulator options it imitates.
     */
    record Saved(SurrogateConfig surrogate, Simulator.Options options) {
    }

    /** Loads a surrogate written by {@link #save}; errors name the file and what is wrong with it. */
    public static SurrogateModel load(Path file) throws IOException {
        return DjlModel.<Saved, SurrogateModel>load(file, FORMAT, (saved, vocabulary, cpus, provenance) ->
                of(saved, vocabulary, cpus.get(0), provenance));
    }
}
