package dev.basalt.difftune;

import dev.basalt.simulator.params.InstructionParams;
import dev.basalt.simulator.params.SimulatorParams;
import dev.basalt.simulator.Simulator;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import dev.basalt.training.Djl;
import dev.basalt.training.MultiTaskTrainer;
import dev.basalt.training.Rows;
import dev.basalt.decoder.BasicBlock;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.function.IntConsumer;
import java.util.stream.IntStream;

/**
 * DiffTune's parameter learning (DESIGN.md §7): with the surrogate frozen, the parameter table itself — one row
 * per instruction form of the blocks, plus dispatch width and ROB size — is the trainable tensor, initialised from
 * a given table (the llvm-mca defaults); Adam minimises the surrogate's MAPE against measured throughputs; values
 * are projected back to ≥ 0 after every step (and each row to the port groups it started with), and at the end
 * rounded and clamped to their valid ranges.
 */
public final class ParameterLearner {

    /**
     * @param learningRate Adam learning rate, in table units (cycles, micro-ops) per step
     * @param epochs       maximum epochs over the training blocks
     * @param batchInstructions maximum instructions per batch
     * @param patience     epochs without a better (surrogate) validation MAPE before stopping
     * @param seed         shuffling seed
     * @param shrink       after each step every value moves this share of a learning-rate step back towards its
     *                     initial value (a proximal L1 penalty): only values whose gradient keeps pushing them
     *                     move far, which keeps the table from drifting to where the surrogate is wrong
     */
    public record Settings(double learningRate, int epochs, int batchInstructions, int patience, long seed,
                           double shrink) {
        public static Settings defaults() {
            return new Settings(0.05, 30, 2048, 4, 11, 0.1);
        }
    }

    /** The learned table (rounded and clamped) and the epochs run. */
    public record Result(SimulatorParams table, List<MultiTaskTrainer.Epoch> epochs) {
    }

    private record Batch(SurrogateBatch batch, long[] formIndex) {
    }

    private ParameterLearner() {
    }

    public static Result learn(SurrogateModel surrogate, SimulatorParams init, Settings settings,
                               List<BasicBlock> train, double[] trainMeasured, List<BasicBlock> validation,
                               double[] validationMeasured, Consumer<MultiTaskTrainer.Epoch> onEpoch,
                               IntConsumer onBatch) {
        ParameterLayout layout = surrogate.layout();
        int width = layout.width();
        List<BasicBlock> all = new ArrayList<>(train);
        all.addAll(validation);
        TreeSet<String> formSet = new TreeSet<>();
        all.forEach(b -> b.instructions().forEach(i -> formSet.add(i.form())));
        List<String> forms = new ArrayList<>(formSet);
        Map<String, Integer> formId = new LinkedHashMap<>();
        forms.forEach(f -> formId.put(f, formId.size()));
        Simulator resolver = new Simulator(init);
        float[] start = new float[forms.size() * width];
        for (int f = 0; f < forms.size(); f++) {
            System.arraycopy(layout.encode(resolver.resolve(forms.get(f)).row()), 0, start, f * width, width);
        }
        double[][] labels = new double[all.size()][];
        for (int i = 0; i < all.size(); i++) {
            labels[i] = new double[] {i < train.size() ? trainMeasured[i] : validationMeasured[i - train.size()]};
        }
        int[] sizes = all.stream().mapToInt(BasicBlock::size).toArray();
        try (NDManager m = surrogate.newSubManager()) {
            NDArray table = m.create(start, new Shape(forms.size(), width));
            table.setRequiresGradient(true);
            NDArray globals = m.create(new float[] {init.dispatchWidth(), init.robSize()}, new Shape(1, 2));
            globals.setRequiresGradient(true);
            Map<String, NDArray> params = new LinkedHashMap<>();
            params.put("table", table);
            params.put("globals", globals);
            NDArray initial = m.create(start, new Shape(forms.size(), width));
            // A row keeps its port groups: a group it does not use stays at zero (the gradient would otherwise
            // sprinkle fractions of a cycle over every group, which the rounding turns into implausible rows).
            float[] keep = new float[start.length];
            for (int k = 0; k < start.length; k++) {
                keep[k] = k % width < ParameterLayout.FIXED || start[k] > 0 ? 1f : 0f;
            }
            NDArray mask = m.create(keep, new Shape(forms.size(), width));
            float shrink = (float) (settings.shrink() * settings.learningRate());
            NDArray low = m.create(new float[] {ParameterLayout.MIN_DISPATCH, ParameterLayout.MIN_ROB}, new Shape(1, 2));
            MultiTaskTrainer.Model<Batch> model = new MultiTaskTrainer.Model<>() {
                @Override
                public Map<String, NDArray> parameters() {
                    return params;
                }

                @Override
                public Batch batch(List<Integer> examples) {
                    float[] t = table.toFloatArray(); // the chain coefficients follow the current values
                    float[] g = globals.toFloatArray();
                    List<SurrogateModel.Prepared> prepared = new ArrayList<>();
                    List<float[][]> rows = new ArrayList<>();
                    float[][] blockGlobals = new float[examples.size()][];
                    List<Long> index = new ArrayList<>();
                    for (int k = 0; k < examples.size(); k++) {
                        SurrogateModel.Prepared p = surrogate.prepare(all.get(examples.get(k)));
                        prepared.add(p);
                        float[][] r = new float[p.size()][];
                        for (int i = 0; i < p.size(); i++) {
                            int f = formId.get(p.forms()[i]);
                            r[i] = java.util.Arrays.copyOfRange(t, f * width, (f + 1) * width);
                            index.add((long) f);
                        }
                        rows.add(r);
                        blockGlobals[k] = g;
                    }
                    return new Batch(new SurrogateBatch(prepared, rows, blockGlobals, width),
                            index.stream().mapToLong(Long::longValue).toArray());
                }

                @Override
                public NDArray predict(Batch b, NDManager manager) {
                    NDArray rows = Rows.gather(manager, table, b.formIndex());
                    NDArray g = Rows.gather(manager, globals, new long[b.batch().blocks]);
                    return surrogate.forward(b.batch(), rows, g, manager);
                }

                @Override
                public void afterStep() {
                    // Shrink towards the initial table: d = x − x0 → sign(d)·max(|d| − s, 0), written as
                    // x −= clip(d, −s, s). Then project onto the valid set: table ≥ 0, widths ≥ their minimum.
                    try (NDManager tmp = m.newSubManager()) {
                        if (shrink > 0) {
                            NDArray step = table.sub(initial).clip(-shrink, shrink);
                            step.attach(tmp);
                            table.subi(step);
                        }
                        NDArray negative = table.minimum(0f);
                        negative.attach(tmp);
                        table.subi(negative);
                        table.muli(mask);
                        NDArray below = globals.sub(low).minimum(0f);
                        below.attach(tmp);
                        globals.subi(below);
                    }
                }
            };
            MultiTaskTrainer<Batch> trainer = new MultiTaskTrainer<>(Djl.engine(), new MultiTaskTrainer.Settings(
                    settings.learningRate(), 5.0, settings.epochs(), settings.patience(), settings.batchInstructions(),
                    settings.seed(), 0.5, 2, true));
            List<MultiTaskTrainer.Epoch> epochs = trainer.train(model, labels, sizes,
                    IntStream.range(0, train.size()).boxed().toList(),
                    IntStream.range(train.size(), all.size()).boxed().toList(), onEpoch, onBatch);
            float[] learned = table.toFloatArray();
            float[] g = globals.toFloatArray();
            Map<String, InstructionParams> rows = new LinkedHashMap<>(init.forms());
            for (int f = 0; f < forms.size(); f++) {
                InstructionParams row = layout.decode(learned, f * width);
                String form = forms.get(f);
                if (init.forms().containsKey(form) || !row.equals(resolver.resolve(form).row())) {
                    rows.put(form, row);
                }
            }
            dev.basalt.core.Provenance provenance = init.provenance().with("learned",
                    "surrogate gradient steps from the table above");
            SimulatorParams out = init.toBuilder()
                    .dispatchWidth(surrogate.options().secondGeneration() ? init.dispatchWidth()
                            : ParameterLayout.clamp(g[0], ParameterLayout.MIN_DISPATCH, ParameterLayout.MAX_DISPATCH))
                    .robSize(ParameterLayout.clamp(g[1], ParameterLayout.MIN_ROB, ParameterLayout.MAX_ROB))
                    .forms(rows).provenance(provenance).build();
            return new Result(out, epochs);
        }
    }
}
