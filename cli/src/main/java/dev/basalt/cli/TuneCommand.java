package dev.basalt.cli;

import dev.basalt.core.Microarchitecture;
import dev.basalt.datasets.BlockFiles;
import dev.basalt.datasets.Dataset;
import dev.basalt.datasets.LabelledBlock;
import dev.basalt.datasets.Split;
import dev.basalt.datasets.SplitScheme;
import dev.basalt.decoder.BasicBlock;
import dev.basalt.difftune.ParameterLearner;
import dev.basalt.simulator.params.SimulatorParams;
import dev.basalt.difftune.SimulatorRefiner;
import dev.basalt.difftune.SurrogateConfig;
import dev.basalt.difftune.Tuner;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * {@code basalt tune}: learn a CPU's simulator parameters from measured throughputs through a surrogate
 * (DiffTune, DESIGN.md §7), then polish them with the real simulator; print a before/after table on the test
 * split and write the table as JSON.
 */
@Command(name = "tune", mixinStandardHelpOptions = true,
        description = "Learn simulator parameters from measurements (DiffTune) and write them as a table.")
final class TuneCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--mcpu", defaultValue = "haswell", description = "CPU (default ${DEFAULT-VALUE}).")
    Microarchitecture mcpu;

    @Option(names = "--data", paramLabel = "FILE", description = "Measured BHive CSV for this CPU (default: Basalt's "
            + "own measurements of it where it has them, else the bundled BHive sample).")
    Path data;

    @Option(names = "--unlabelled", paramLabel = "FILE", description = "More blocks (BHive CSV, hex first) to "
            + "sample surrogate training data from; repeatable.")
    List<Path> unlabelled;

    @Option(names = "--params", paramLabel = "FILE", description = "Table to start from (default: the bundled "
            + "llvm-mca defaults).")
    Path params;

    @Option(names = "--out", required = true, paramLabel = "FILE", description = "Tuned table to write (JSON).")
    Path out;

    @Option(names = "--work", paramLabel = "DIR", description = "Folder for the resumable sample files (default: "
            + "basalt-tune-work beside --out).")
    Path work;

    @Option(names = "--samples", description = "Simulated samples for the surrogate (default ${DEFAULT-VALUE}).",
            defaultValue = "40000")
    int samples;

    @Option(names = "--held-out", description = "Held-out samples for the fidelity check (default ${DEFAULT-VALUE}).",
            defaultValue = "4000")
    int heldOut;

    @Option(names = "--surrogate-epochs", description = "Maximum surrogate epochs (default ${DEFAULT-VALUE}).",
            defaultValue = "12")
    int surrogateEpochs;

    @Option(names = "--learn-epochs", description = "Maximum parameter-learning epochs (default ${DEFAULT-VALUE}).",
            defaultValue = "30")
    int learnEpochs;

    @Option(names = "--lr", description = "Parameter-learning rate (default ${DEFAULT-VALUE}).", defaultValue = "0.05")
    double learningRate;

    @Option(names = "--passes", description = "Maximum real-simulator refinement passes (default ${DEFAULT-VALUE}; "
            + "0 keeps the surrogate's table).", defaultValue = "10")
    int passes;

    @Option(names = "--max-train", description = "Use at most this many training blocks (for quick runs).")
    Integer maxTrain;

    @Option(names = "--seed", description = "Seed of the samples (default ${DEFAULT-VALUE}).", defaultValue = "1")
    long seed;

    @Mixin
    DebugOption debugOption;

    @Override
    public Integer call() throws Exception {
        // Sizes first, before any work: a zero or negative one only failed deep inside, after the sampling.
        BadInputException.atLeast("--samples", samples, 1);
        BadInputException.atLeast("--held-out", heldOut, 1);
        BadInputException.atLeast("--surrogate-epochs", surrogateEpochs, 1);
        BadInputException.atLeast("--learn-epochs", learnEpochs, 1);
        BadInputException.atLeast("--passes", passes, 0);
        BadInputException.atLeast("--max-train", maxTrain, 1);
        BadInputException.positive("--lr", learningRate);
        Outputs.checkFile("--out", out);
        if (work != null) {
            Outputs.checkFolder("--work", work);
        }
        PrintWriter o = spec.commandLine().getOut();
        Microarchitecture uarch = mcpu;
        // Then every file, before any of them is read at length.
        if (data != null) {
            ParamsCommand.Import.checkReadable("--data", data);
        }
        for (Path p : unlabelled == null ? List.<Path>of() : unlabelled) {
            ParamsCommand.Import.checkReadable("--unlabelled", p);
        }
        if (params == null && SimulatorParams.imported(uarch).isEmpty()) {
            throw new BadInputException("--mcpu " + uarch + ": this build has no simulator table to start from");
        }
        SimulatorParams initial = params == null ? SimulatorParams.bundled(uarch)
                : ParamsCommand.Import.readTable("--params", params);
        if (!initial.mcpu().equals(uarch.llvmName())) {
            throw new BadInputException("--params " + params + " is a table for " + initial.mcpu() + ", not "
                    + uarch.llvmName());
        }
        Dataset dataset;
        if (data != null) {
            dataset = Dataset.load("custom", Map.of(uarch, data));
        } else if (uarch.descriptor().measured().isPresent()) {
            dataset = Dataset.measured(uarch); // Basalt's own measurements of this CPU
        } else {
            dataset = Dataset.bundled();
        }
        SplitScheme scheme = SplitScheme.defaults();
        List<LabelledBlock> train = dataset.blocks(scheme, Split.TRAIN).stream().filter(b -> b.hasLabel(uarch)).toList();
        if (maxTrain != null && maxTrain < train.size()) {
            train = train.subList(0, maxTrain);
        }
        List<LabelledBlock> validation = dataset.blocks(scheme, Split.VALIDATION).stream()
                .filter(b -> b.hasLabel(uarch)).toList();
        List<LabelledBlock> test = dataset.blocks(scheme, Split.TEST).stream().filter(b -> b.hasLabel(uarch)).toList();
        if (train.isEmpty() || validation.isEmpty()) {
            throw new BadInputException("no " + uarch.llvmName() + " measurements to tune on in "
                    + (data == null ? "the bundled data (" + dataset.name() + ")" : data));
        }
        // Surrogate data: every training-split block (labelled for any CPU) and any extra blocks given.
        Map<String, BasicBlock> pool = new LinkedHashMap<>();
        (maxTrain == null ? dataset.blocks(scheme, Split.TRAIN) : train)
                .forEach(b -> pool.putIfAbsent(b.block().hex(), b.block()));
        for (Path p : unlabelled == null ? List.<Path>of() : unlabelled) {
            BlockFiles.Loaded l = BlockFiles.readUnlabelled(p);
            l.blocks().forEach(b -> pool.putIfAbsent(b.block().hex(), b.block()));
            o.println("read " + l.summary());
        }
        Tuner.Config defaults = Tuner.Config.defaults();
        SurrogateConfig s = defaults.surrogate();
        Tuner.Config config = BadInputException.check("--samples, --held-out, --surrogate-epochs, --learn-epochs, --lr, --passes", () -> new Tuner.Config(samples, heldOut, seed,
                new SurrogateConfig(s.embedding(), s.hidden(), s.learningRate(), surrogateEpochs,
                        s.batchInstructions(), s.clipNorm(), s.patience(), s.seed()),
                new ParameterLearner.Settings(learningRate, learnEpochs, defaults.learner().batchInstructions(),
                        defaults.learner().patience(), defaults.learner().seed(), defaults.learner().shrink()),
                new SimulatorRefiner.Settings(passes, defaults.refiner().minBlocks(), defaults.refiner().minGain(),
                        defaults.refiner().shrinkage())));
        Path workDir = work != null ? work
                : (out.toAbsolutePath().getParent() == null ? Path.of(".") : out.toAbsolutePath().getParent())
                        .resolve("basalt-tune-work");
        o.printf("tuning %s on %d training blocks (validation %d, test %d); surrogate data from %d blocks in %s%n",
                uarch.llvmName(), train.size(), validation.size(), test.size(), pool.size(), workDir);
        o.flush();
        long t0 = System.nanoTime();
        ProgressBars bars = new ProgressBars(o);
        Tuner.Report report;
        try {
            report = Tuner.tune(uarch, initial, new ArrayList<>(pool.values()), train, validation, test, config,
                    workDir, bars);
        } finally {
            bars.close();
        }
        double minutes = (System.nanoTime() - t0) / 60e9;

        o.printf(Locale.ROOT, "%nsurrogate fidelity (held-out samples): MAPE %.2f%%, Kendall tau %.4f%n",
                100 * report.fidelityMape(), report.fidelityTau());
        o.println();
        o.println("real simulator, " + uarch.llvmName() + ":");
        o.println("| table | train MAPE | validation MAPE | test MAPE | test Kendall tau |");
        o.println("|---|---:|---:|---:|---:|");
        for (Tuner.Stage st : report.stages()) {
            o.printf(Locale.ROOT, "| %s | %.2f%% | %.2f%% | %.2f%% | %.4f |%n", st.name(), 100 * st.trainMape(),
                    100 * st.validationMape(), 100 * st.testMape(), st.testTau());
        }
        Tuner.Stage first = report.stages().get(0);
        Tuner.Stage chosen = report.stages().stream()
                .filter(st -> st.name().equals(report.tuned().provenance().detail("stage").orElse(null))).findFirst()
                .orElseThrow();
        o.printf(Locale.ROOT, "written table: %s — test MAPE %.2f%% → %.2f%% (%.1f%% lower), Kendall tau %.4f → %.4f%n",
                chosen.name(), 100 * first.testMape(), 100 * chosen.testMape(),
                100 * (1 - chosen.testMape() / first.testMape()), first.testTau(), chosen.testTau());
        o.println();
        o.printf("%d rows changed; the 10 largest changes:%n", report.changes().size());
        report.changes().stream().limit(10).forEach(c -> o.printf(Locale.ROOT, "  %-28s %4d blocks  %s  →  %s%n",
                c.form(), c.blocks(), row(c.before()), row(c.after())));
        o.println(report.outOfRange().isEmpty() ? "range check: every value is within its valid range"
                : "range check FAILED: " + report.outOfRange());
        dev.basalt.core.Provenance provenance = dev.basalt.core.Provenance.now("simulator-table",
                        "basalt " + String.join(" ", spec.commandLine().getParseResult().originalArgs()))
                .withData(dataset.fingerprint(), "SHA-256 of hex, 80/10/10").withSeed(seed)
                .with("dataset", dataset.name());
        for (Map.Entry<String, Object> d : report.tuned().provenance().details().entrySet()) {
            provenance = provenance.with(d.getKey(), d.getValue());
        }
        provenance = provenance.with("tuningMinutes", minutes).with("changedRows", report.changes().size());
        report.tuned().withProvenance(provenance).write(out);
        Path changes = out.resolveSibling(out.getFileName() + ".changes.md");
        String md = changesMarkdown(uarch, report);
        dev.basalt.core.AtomicFiles.writeString(changes, md);
        o.printf("every change over 2x, with its evidence: %s%n", changes);
        o.printf(Locale.ROOT, "wrote %s (%.1f min: %s)%n", out, minutes, report.minutes().entrySet().stream()
                .map(e -> String.format(Locale.ROOT, "%s %.1f", e.getKey(), e.getValue()))
                .reduce((a, b) -> a + ", " + b).orElse(""));
        return 0;
    }

    /**
     * Every row change of more than 2× (a latency, read-advance or port count doubled or halved), with the
     * training blocks that use the form and the held-out gain that justified it, as a Markdown table.
     */
    static String changesMarkdown(Microarchitecture uarch, Tuner.Report report) {
        StringBuilder sb = new StringBuilder();
        List<Tuner.Change> big = report.changes().stream().filter(Tuner.Change::moreThanDoubled).toList();
        sb.append(String.format(Locale.ROOT, "### %s: %d rows changed, %d of them by more than 2x%n%n",
                uarch.llvmName(), report.changes().size(), big.size()));
        sb.append("| form | training blocks | before | after | training error (sum of APE) | held-out blocks "
                + "| held-out error (sum of APE) |\n|---|---:|---|---|---|---:|---|\n");
        for (Tuner.Change c : big) {
            SimulatorRefiner.Evidence e = c.evidence();
            sb.append(String.format(Locale.ROOT, "| `%s` | %d | %s | %s | %s | %s | %s |%n", c.form(), c.blocks(),
                    row(c.before()), row(c.after()),
                    e == null ? "class rule" : String.format(Locale.ROOT, "%.3f → %.3f", e.trainBefore(), e.trainAfter()),
                    e == null ? "-" : String.valueOf(e.heldOutBlocks()),
                    e == null ? "-" : String.format(Locale.ROOT, "%.3f → %.3f", e.heldOutBefore(), e.heldOutAfter())));
        }
        return sb.toString();
    }

    static String row(dev.basalt.simulator.params.InstructionParams r) {
        return String.format(Locale.ROOT, "uops %d lat %d ra %d %s", r.uops(), r.latency(), r.readAdvance(),
                r.ports());
    }
}
