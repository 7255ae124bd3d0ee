package dev.basalt.difftune;

import dev.basalt.simulator.params.InstructionParams;
import dev.basalt.simulator.params.SimulatorParams;
import dev.basalt.simulator.Simulator;
import dev.basalt.core.Microarchitecture;
import dev.basalt.training.MultiTaskTrainer;
import dev.basalt.datasets.LabelledBlock;
import dev.basalt.datasets.Metrics;
import dev.basalt.decoder.BasicBlock;
import dev.basalt.decoder.Instruction;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The whole of {@code basalt tune} for one CPU (DESIGN.md §7): sample tables and simulate them (resumable data
 * file), train the surrogate and measure its fidelity on held-out (block, table) pairs, learn the table through
 * the frozen surrogate, polish it with the real simulator ({@link SimulatorRefiner}), and evaluate every stage
 * with the real simulator on the training, validation and test splits.
 */
public final class Tuner {

    /**
     * @param samples   simulated (block, table) samples for training the surrogate (5% of them validate it)
     * @param heldOut   further samples, from another seed, for measuring the surrogate's fidelity
     * @param seed      seed of the samples (the surrogate, learner and refiner have their own)
     * @param surrogate the surrogate's configuration
     * @param learner   parameter-learning settings
     * @param refiner   real-simulator refinement settings
     */
    public record Config(int samples, int heldOut, long seed, SurrogateConfig surrogate,
                         ParameterLearner.Settings learner, SimulatorRefiner.Settings refiner) {
        public static Config defaults() {
            return new Config(40_000, 4_000, 1, SurrogateConfig.defaults(),
                    ParameterLearner.Settings.defaults(), new SimulatorRefiner.Settings(10, 3, 0.002, 0.1));
        }
    }

    /** Real-simulator accuracy of one stage's table. */
    public record Stage(String name, double trainMape, double validationMape, double testMape, double testTau) {
    }

    /**
     * A form whose row changed, with how many training blocks use it and the refiner's evidence for the change
     * (null when the refiner did not record one).
     */
    public record Change(String form, int blocks, InstructionParams before, InstructionParams after, int size,
                         SimulatorRefiner.Evidence evidence) {

        /** Whether some value (latency, read-advance, a port group's cycles) at least doubled or halved. */
        public boolean moreThanDoubled() {
            java.util.Set<String> groups = new java.util.TreeSet<>(after.ports().keySet());
            groups.addAll(before.ports().keySet());
            boolean ports = groups.stream().anyMatch(g -> doubled(before.ports().getOrDefault(g, 0),
                    after.ports().getOrDefault(g, 0)));
            return ports || doubled(before.latency(), after.latency())
                    || doubled(before.readAdvance(), after.readAdvance());
        }

        private static boolean doubled(int a, int b) {
            return a != b && (b >= 2 * a || a >= 2 * b);
        }
    }

    /**
     * Everything a tune produced.
     *
     * @param tuned        the final table (the best stage by validation MAPE)
     * @param fidelityMape surrogate vs simulator MAPE on the held-out samples
     * @param fidelityTau  Kendall's τ between them
     * @param stages       llvm-mca defaults, surrogate-learned (reported, never chosen: its rows are not held to
     *                     the plausibility rules) and the physical refinement from the defaults
     * @param changes      changed rows, largest change first
     * @param outOfRange   values of the tuned table outside their valid range (expected empty)
     * @param minutes      wall time per phase
     */
    public record Report(Microarchitecture uarch, SimulatorParams tuned, double fidelityMape, double fidelityTau,
                         List<Stage> stages, List<Change> changes, List<String> outOfRange,
                         Map<String, Double> minutes) {
    }

    /** Progress of a tune. */
    public interface Listener {
        /** A phase starts; {@code total} units of work (0 when unknown). */
        void phase(String name, long total);

        /** Units done in the current phase. */
        void progress(long done);

        /** A line for the log. */
        void message(String line);
    }

    private Tuner() {
    }

    /**
     * Tunes {@code initial} (normally the llvm-mca defaults) for {@code uarch}.
     *
     * @param pool       blocks to sample surrogate training data from (the training split, possibly more)
     * @param train      labelled training blocks (must have labels for {@code uarch})
     * @param validation labelled validation blocks
     * @param test       labelled test blocks (only evaluated)
     * @param work       folder for the resumable sample files
     */
    public static Report tune(Microarchitecture uarch, SimulatorParams initial, List<BasicBlock> pool,
                              List<LabelledBlock> train, List<LabelledBlock> validation, List<LabelledBlock> test,
                              Config config, Path work, Listener listener) throws IOException {
        Simulator.Options options = Simulator.Options.defaults();
        Map<String, Double> minutes = new LinkedHashMap<>();
        List<BasicBlock> trainBlocks = blocks(train);
        List<BasicBlock> validationBlocks = blocks(validation);
        List<BasicBlock> testBlocks = blocks(test);
        double[] trainY = measured(train, uarch);
        double[] validationY = measured(validation, uarch);
        double[] testY = measured(test, uarch);

        long t0 = System.nanoTime();
        Files.createDirectories(work);
        String stem = "samples-" + uarch.llvmName() + "-seed" + config.seed();
        Path data = work.resolve(stem + ".jsonl");
        Path held = work.resolve(stem + "-heldout.jsonl");
        listener.phase("simulating sampled tables", config.samples() + (long) config.heldOut());
        SurrogateData.generate(data, pool, initial, options, config.samples(), config.seed(), listener::progress);
        SurrogateData.generate(held, pool, initial, options, config.heldOut(), config.seed() + 1_000_003L,
                done -> listener.progress(config.samples() + (long) done));
        List<SurrogateData.Sample> samples = SurrogateData.read(data);
        List<SurrogateData.Sample> heldOut = SurrogateData.read(held);
        minutes.put("data", since(t0));

        t0 = System.nanoTime();
        Map<String, BasicBlock> byHex = new HashMap<>();
        pool.forEach(b -> byHex.put(b.hex(), b));
        int validating = Math.max(1, samples.size() / 20);
        List<SurrogateData.Sample> fit = samples.subList(0, samples.size() - validating);
        List<SurrogateData.Sample> check = samples.subList(samples.size() - validating, samples.size());
        List<BasicBlock> vocabularyBlocks = new ArrayList<>(pool);
        vocabularyBlocks.addAll(validationBlocks);
        double fidelity;
        double fidelityTau;
        int[] skippedBatches = {0};
        int[] recomputed = {0};
        List<Stage> stages = new ArrayList<>();
        SimulatorParams learned;
        try (SurrogateModel surrogate = SurrogateModel.create(config.surrogate(),
                SurrogateModel.vocabulary(vocabularyBlocks), uarch, options)) {
            listener.phase("training the surrogate", (long) fit.size() * config.surrogate().epochs());
            long[] before = {0};
            surrogate.train(fit, check, byHex, e -> {
                before[0] = (long) e.epoch() * fit.size();
                skippedBatches[0] += e.skipped();
                recomputed[0] += e.retried();
                listener.message(String.format(java.util.Locale.ROOT,
                        "surrogate epoch %d: loss %.4f, validation MAPE %.2f%%, %.0f s%s", e.epoch(), e.trainLoss(),
                        100 * e.validationMape()[0], e.seconds(), skipped(e)));
            }, done -> listener.progress(before[0] + done));
            double[] predicted = surrogate.predict(heldOut, byHex);
            double[] simulated = heldOut.stream().mapToDouble(s -> Math.max(1e-3, s.cycles())).toArray();
            fidelity = Metrics.mape(predicted, simulated);
            fidelityTau = Metrics.kendallTauB(predicted, simulated);
            listener.message(String.format(java.util.Locale.ROOT,
                    "surrogate vs simulator on %d held-out samples: MAPE %.2f%%, Kendall tau %.4f", heldOut.size(),
                    100 * fidelity, fidelityTau));
            minutes.put("surrogate", since(t0));

            t0 = System.nanoTime();
            listener.phase("learning parameters through the surrogate",
                    (long) trainBlocks.size() * config.learner().epochs());
            long[] doneBefore = {0};
            learned = ParameterLearner.learn(surrogate, initial, config.learner(), trainBlocks, trainY,
                    validationBlocks, validationY, e -> {
                        doneBefore[0] = (long) e.epoch() * trainBlocks.size();
                        skippedBatches[0] += e.skipped();
                        recomputed[0] += e.retried();
                        listener.message(String.format(java.util.Locale.ROOT,
                                "parameter epoch %d: surrogate training MAPE %.2f%%, validation %.2f%%, %.0f s%s",
                                e.epoch(), 100 * e.trainLoss(), 100 * e.validationMape()[0], e.seconds(), skipped(e)));
                    }, done -> listener.progress(doneBefore[0] + done)).table();
            minutes.put("learning", since(t0));
        }

        t0 = System.nanoTime();
        stages.add(stage("llvm-mca defaults", initial, trainBlocks, trainY, validationBlocks, validationY, testBlocks,
                testY, options));
        stages.add(stage("surrogate-learned", learned, trainBlocks, trainY, validationBlocks, validationY, testBlocks,
                testY, options));
        // Polish with the real simulator, from the defaults, under the plausibility rules: the surrogate
        // proposes rows (candidates), the simulator and the held-out blocks decide.
        SimulatorRefiner refiner = new SimulatorRefiner(config.refiner(), options, initial);
        int forms = (int) trainBlocks.stream().flatMap(b -> b.instructions().stream()).map(Instruction::form)
                .distinct().count();
        Map<String, SimulatorParams> tables = new LinkedHashMap<>();
        tables.put("llvm-mca defaults", initial);
        tables.put("surrogate-learned", learned);
        Map<String, String> repaired = new java.util.TreeMap<>();
        SimulatorParams plausible = Plausibility.repair(initial, repaired);
        repaired.forEach((form, what) -> listener.message("  rule: " + form + " " + what));
        for (SimulatorParams start : List.of(plausible)) {
            String name = "refined from defaults";
            listener.message(name + ": machine-wide parameters, then the real-simulator search over forms (the "
                    + "surrogate-learned rows are candidates too)");
            start = refiner.refineCore(start, trainBlocks, trainY, validationBlocks, validationY,
                    line -> listener.message("  " + line));
            listener.phase(name, (long) forms * config.refiner().passes());
            int[] pass = {0};
            SimulatorParams refined = refiner.refine(start, learned, trainBlocks, trainY, validationBlocks,
                    validationY, p -> {
                        pass[0] = p.pass();
                        listener.message(String.format(java.util.Locale.ROOT,
                                "  pass %d: %d changes, training MAPE %.2f%%, validation MAPE %.2f%%", p.pass(),
                                p.changed(), 100 * p.trainMape(), 100 * p.validationMape()));
                    }, done -> listener.progress((long) pass[0] * forms + done));
            tables.put(name, refined);
            stages.add(stage(name, refined, trainBlocks, trainY, validationBlocks, validationY, testBlocks, testY,
                    options));
        }
        minutes.put("refinement", since(t0));

        // Only the refined table is held to the plausibility rules (and repaired by them): it is the one written.
        Stage best = stages.stream().filter(s -> s.name().startsWith("refined"))
                .min(Comparator.comparingDouble(Stage::validationMape)).orElseThrow();
        SimulatorParams chosen = tables.get(best.name());
        Map<String, Object> provenance = new LinkedHashMap<>();
        provenance.put("tunedFrom", initial.provenance().detail("source").orElse("llvm-mca defaults"));
        provenance.put("stage", best.name());
        provenance.put("rulesApplied", repaired.toString());
        provenance.put("surrogateFidelityMape", fidelity);
        provenance.put("skippedBatches", skippedBatches[0]);
        provenance.put("recomputedSteps", recomputed[0]);
        provenance.put("config", config.toString());
        for (Stage s : stages) {
            provenance.put("stage " + s.name(), String.format(java.util.Locale.ROOT,
                    "train MAPE %.4f, validation MAPE %.4f, test MAPE %.4f, test tau %.4f", s.trainMape(),
                    s.validationMape(), s.testMape(), s.testTau()));
        }
        // The caller (basalt tune) adds the command, the data and the seed; the tuner says what it did.
        SimulatorParams tuned = chosen.withProvenance(dev.basalt.core.Provenance.of(provenance)
                .withSeed(config.seed()));
        return new Report(uarch, tuned, fidelity, fidelityTau, stages,
                changes(initial, tuned, trainBlocks, refiner.evidence()), ParameterLayout.outOfRange(tuned), minutes);
    }

    private static Stage stage(String name, SimulatorParams table, List<BasicBlock> train, double[] trainY,
                               List<BasicBlock> validation, double[] validationY, List<BasicBlock> test,
                               double[] testY, Simulator.Options options) {
        double[] test1 = SimulatorRefiner.simulate(table, test, options);
        return new Stage(name, Metrics.mape(SimulatorRefiner.simulate(table, train, options), trainY),
                Metrics.mape(SimulatorRefiner.simulate(table, validation, options), validationY),
                Metrics.mape(test1, testY), Metrics.kendallTauB(test1, testY));
    }

    /** Rows of {@code tuned} that differ from what {@code initial} resolves the form to, largest change first. */
    public static List<Change> changes(SimulatorParams initial, SimulatorParams tuned, List<BasicBlock> train,
                                       Map<String, SimulatorRefiner.Evidence> evidence) {
        Map<String, Integer> users = new TreeMap<>();
        for (BasicBlock b : train) {
            new LinkedHashSet<>(b.instructions().stream().map(Instruction::form).toList())
                    .forEach(f -> users.merge(f, 1, Integer::sum));
        }
        Simulator before = new Simulator(initial);
        List<Change> out = new ArrayList<>();
        tuned.forms().forEach((form, row) -> {
            InstructionParams old = before.resolve(form).row();
            if (!old.equals(row)) {
                int size = Math.abs(row.uops() - old.uops()) + Math.abs(row.latency() - old.latency())
                        + Math.abs(row.readAdvance() - old.readAdvance());
                java.util.Set<String> groups = new java.util.TreeSet<>(row.ports().keySet());
                groups.addAll(old.ports().keySet());
                for (String g : groups) {
                    size += Math.abs(row.ports().getOrDefault(g, 0) - old.ports().getOrDefault(g, 0));
                }
                out.add(new Change(form, users.getOrDefault(form, 0), old, row, size, evidence.get(form)));
            }
        });
        out.sort(Comparator.comparingInt((Change c) -> -c.size()).thenComparingInt(c -> -c.blocks())
                .thenComparing(Change::form));
        return out;
    }

    private static String skipped(MultiTaskTrainer.Epoch e) {
        return (e.skipped() == 0 ? "" : ", " + e.skipped() + " batches skipped (non-finite gradient)")
                + (e.retried() == 0 ? "" : ", " + e.retried() + " steps recomputed (non-finite gradient once)");
    }

    private static List<BasicBlock> blocks(List<LabelledBlock> l) {
        return l.stream().map(LabelledBlock::block).toList();
    }

    private static double[] measured(List<LabelledBlock> l, Microarchitecture uarch) {
        return l.stream().mapToDouble(b -> b.throughput(uarch).orElseThrow(
                () -> new IllegalArgumentException("a block has no " + uarch + " measurement: " + b.block().hex())))
                .toArray();
    }

    private static double since(long t0) {
        return (System.nanoTime() - t0) / 60e9;
    }
}
