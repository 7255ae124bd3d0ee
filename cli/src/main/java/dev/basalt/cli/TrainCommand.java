package dev.basalt.cli;

import dev.basalt.core.Microarchitecture;
import dev.basalt.core.Provenance;
import dev.basalt.datasets.Dataset;
import dev.basalt.datasets.Evaluation;
import dev.basalt.datasets.LabelledBlock;
import dev.basalt.datasets.Split;
import dev.basalt.datasets.SplitScheme;
import dev.basalt.training.LearnedEstimator;
import dev.basalt.training.MultiTaskTrainer;
import dev.basalt.training.TrainableProvider;
import dev.basalt.training.Trainables;
import dev.basalt.training.TrainingOptions;
import dev.basalt.decoder.BasicBlock;
import me.tongfei.progressbar.ConsoleProgressBarConsumer;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * {@code basalt train MODEL}: train a learned model on the bundled sample (or given BHive CSVs) with the shared
 * trainer, print per-epoch validation MAPE and a test-split report, and write the model file with its
 * provenance. The models are those whose module registers a {@link TrainableProvider} (see {@link Trainables});
 * each says which of the model options below it uses and builds its configuration from them.
 */
@Command(name = "train", mixinStandardHelpOptions = true, description = "Train a learned model.")
final class TrainCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "MODEL", completionCandidates = TrainableModels.class,
            description = "The model to train: ${COMPLETION-CANDIDATES}.")
    String modelName;

    @Option(names = "--data", paramLabel = "CPU=FILE", split = ",", description = "BHive CSVs (default: bundled sample).")
    Map<String, Path> files;

    @Option(names = "--data-dir", paramLabel = "DIR", description = "A folder of BHive CSVs named by "
            + "CPU (BHive's short names, e.g. hsw.csv; those present are used), e.g. ../shared/datasets/bhive-sample.")
    Path dataDir;

    @Option(names = "--out", required = true, paramLabel = "FILE", description = "Model file to write.")
    Path out;

    @Option(names = "--epochs", description = "Maximum epochs (default from the configuration).")
    Integer epochs;

    @Option(names = "--hidden", description = "Vector width.")
    Integer hidden;

    @Option(names = "--embedding", description = "Token embedding width (models that embed tokens).")
    Integer embedding;

    @Option(names = "--iterations", description = "Message-passing steps (graph networks).")
    Integer steps;

    @Option(names = "--max-train", description = "Use at most this many training blocks (for quick runs).")
    Integer maxTrain;

    @Option(names = "--seed", description = "Seed.")
    Long seed;

    @Option(names = "--prior", paramLabel = "MODEL", description = "Analytical estimator whose prediction the "
            + "network learns to correct, or 'none' for the plain network (default: the model's — simulator for granite, "
            + "bounds for ithemal).")
    String prior;

    @Option(names = "--hybrid", negatable = true, description = "Also feed the network the prior's per-instruction "
            + "statistics (each bound's share, the critical cycle, the limiting bound); needs a prior that gives them.")
    Boolean hybrid;

    @Option(names = "--mcpu", paramLabel = "CPU", split = ",", description = "CPUs to train heads for "
            + "(default: every CPU with measurements).")
    List<String> mcpus;

    @Option(names = "--debug", description = "Print stack traces of errors.")
    boolean debug;

    @Option(names = "--lr", description = "Adam learning rate.")
    Double learningRate;

    @Option(names = "--pretrain", paramLabel = "FILE", description = "Unlabelled blocks (one hex per line, or a CSV "
            + "whose first column is hex; repeatable) to pre-train on before the measurements: the network first "
            + "learns to predict --pretrain-target's cycles on them. Blocks of the validation and test splits are "
            + "left out.")
    List<Path> pretrain;

    @Option(names = "--pretrain-target", paramLabel = "MODEL", defaultValue = "simulator", description = "The "
            + "analytical estimator whose predictions label the --pretrain blocks (default: ${DEFAULT-VALUE}).")
    String pretrainTarget;

    @Option(names = "--pretrain-epochs", description = "Maximum pre-training epochs (default: ${DEFAULT-VALUE}).",
            defaultValue = "10")
    int pretrainEpochs;

    /** How the data is split (recorded in the provenance). */
    private static final String SPLIT = "SHA-256 of hex, 80/10/10";

    @Override
    public Integer call() throws Exception {
        TrainableProvider<?> provider = Trainables.find(modelName).orElseThrow(() -> new BadInputException(
                "unknown model '" + modelName + "': " + (Trainables.available().isEmpty()
                        ? "no trainable model is on the class path"
                        : "the trainable models are " + String.join(", ", Trainables.available()))));
        // Sizes first, before any work: --epochs 0 used to write an untrained model, --max-train -5 to fail in a
        // list operation.
        BadInputException.atLeast("--epochs", epochs, 1);
        BadInputException.atLeast("--max-train", maxTrain, 1);
        BadInputException.atLeast("--hidden", hidden, 1);
        BadInputException.atLeast("--embedding", embedding, 1);
        BadInputException.atLeast("--iterations", steps, 1);
        BadInputException.positive("--lr", learningRate);
        BadInputException.atLeast("--pretrain-epochs", pretrainEpochs, 1);
        List<Path> pretrainFiles = new ArrayList<>();
        for (Path p : pretrain == null ? List.<Path>of() : pretrain) {
            if (Files.isDirectory(p)) { // a folder: its CSV files, in name order (BHive's sources/ folder, say)
                try (java.util.stream.Stream<Path> files = Files.list(p)) {
                    List<Path> csv = files.filter(f -> f.getFileName().toString().endsWith(".csv")).sorted().toList();
                    if (csv.isEmpty()) {
                        throw new BadInputException("--pretrain " + p + ": a folder without .csv files");
                    }
                    pretrainFiles.addAll(csv);
                }
            } else {
                pretrainFiles.add(p);
            }
        }
        for (Path p : pretrainFiles) {
            ParamsCommand.Import.checkReadable("--pretrain", p);
        }
        List<Microarchitecture> cpus = mcpus == null ? Microarchitecture.measured()
                : mcpus.stream().map(name -> BadInputException.check("--mcpu", () -> Microarchitecture.parse(name)))
                        .distinct().toList();
        Outputs.checkFile("--out", out);
        TrainingOptions options = new TrainingOptions(hidden, embedding, steps, learningRate, epochs, seed, prior,
                hybrid);
        for (TrainingOptions.Option given : options.given()) {
            if (!provider.options().contains(given)) {
                throw new BadInputException(flag(given) + " is " + usedBy(given) + " option, not one of "
                        + provider.name());
            }
        }
        if (Boolean.TRUE.equals(hybrid) && prior != null && (prior.isBlank() || prior.equals("none"))) {
            throw new BadInputException("--hybrid takes the prior's statistics: it needs a prior, not --prior "
                    + "none");
        }
        PrintWriter o = spec.commandLine().getOut();
        if (dataDir != null) {
            if (files != null) {
                throw new BadInputException("give --data or --data-dir, not both");
            }
            if (!Files.isDirectory(dataDir)) {
                throw new BadInputException("--data-dir " + dataDir + ": " + (Files.exists(dataDir)
                        ? "not a folder" : "no such folder"));
            }
            files = new LinkedHashMap<>();
            for (Microarchitecture m : Microarchitecture.measured()) {
                Path f = dataDir.resolve(m.shortName() + ".csv");
                if (Files.isRegularFile(f)) {
                    files.put(m.shortName(), f);
                }
            }
            if (files.isEmpty()) {
                throw new BadInputException("no " + String.join(", ", Microarchitecture.measured().stream()
                        .map(m -> m.shortName() + ".csv").toList()) + " in --data-dir " + dataDir);
            }
        }
        Dataset loaded = DatasetCommand.load(files);
        if (files == null || files.isEmpty()) { // a CPU Basalt measured learns from its own measurements
            for (Microarchitecture m : cpus) {
                if (m.descriptor().measured().isPresent()) {
                    loaded = loaded.plus(Dataset.measured(m));
                }
            }
        }
        Dataset data = loaded;
        SplitScheme scheme = SplitScheme.defaults();
        List<LabelledBlock> train = data.blocks(scheme, Split.TRAIN);
        List<LabelledBlock> validation = data.blocks(scheme, Split.VALIDATION);
        List<LabelledBlock> test = data.blocks(scheme, Split.TEST);
        if (mcpus != null) {
            // Blocks with no label for any chosen CPU teach nothing; drop them so "one CPU, same budget" is fair.
            train = train.stream().filter(b -> cpus.stream().anyMatch(b::hasLabel)).toList();
            validation = validation.stream().filter(b -> cpus.stream().anyMatch(b::hasLabel)).toList();
        }
        if (maxTrain != null && maxTrain < train.size()) { // the first N of the chosen CPUs' blocks
            train = train.subList(0, maxTrain);
        }
        if (train.isEmpty() || validation.isEmpty()) { // an empty file, or one of bad rows: nothing to learn from
            throw new BadInputException("no " + (train.isEmpty() ? "training" : "validation") + " blocks"
                    + (mcpus == null ? "" : " measured on " + String.join(",", mcpus)) + " in "
                    + (files == null || files.isEmpty() ? "the bundled sample" : "--data " + String.join(",",
                    files.values().stream().map(Path::toString).toList())));
        }
        // Pre-training data (read and labelled) before the model is made, so that a bad file costs no model.
        Pretraining pre = pretrain == null ? null : pretrainingData(cpus, pretrainFiles, validation, test, o);
        List<BasicBlock> trainBlocks = train.stream().map(LabelledBlock::block).toList();
        long t0 = System.nanoTime();
        int trainSize = train.size();
        String command = "basalt " + String.join(" ", spec.commandLine().getParseResult().originalArgs());
        try (LearnedEstimator<LabelledBlock> model = provider.create(options, trainBlocks, cpus)) {
            // (the test blocks the report scores: those measured on a chosen CPU)
            o.printf("training %s on %d blocks (validation %d, test %d)%n", model.description(), train.size(),
                    validation.size(), test.stream().filter(b -> cpus.stream().anyMatch(b::hasLabel)).count());
            List<MultiTaskTrainer.Epoch> pretrained = pre == null ? List.of() : pretrain(model, pre, cpus, o);
            // One progress bar (with ETA) per epoch; the epoch summary line follows it. Each epoch that improves
            // the validation MAPE is written to --out at once (atomically), so an interrupted run leaves its best
            // model so far; the finished run overwrites it with the full provenance.
            ProgressBar[] bar = new ProgressBar[1];
            int[] epoch = {1};
            double[] best = {Double.POSITIVE_INFINITY};
            List<MultiTaskTrainer.Epoch> epochs = model.train(train, validation, e -> {
                if (bar[0] != null) {
                    bar[0].close();
                    bar[0] = null;
                }
                o.printf(Locale.ROOT, "epoch %d: loss %.4f, validation MAPE %s, lr %.2g, %.0f s%s%n",
                        e.epoch(), e.trainLoss(), mapes(cpus, e.validationMape()), e.learningRate(), e.seconds(),
                        (e.skipped() == 0 ? "" : ", " + e.skipped() + " batches skipped (non-finite gradient)")
                                + (e.retried() == 0 ? "" : ", " + e.retried() + " steps recomputed (non-finite gradient once)"));
                o.flush();
                epoch[0] = e.epoch() + 1;
                double score = java.util.Arrays.stream(e.validationMape()).filter(v -> !Double.isNaN(v)).average()
                        .orElse(Double.NaN);
                if (score < best[0]) {
                    best[0] = score;
                    Provenance checkpoint = model.newProvenance(command).withData(data.fingerprint(), SPLIT)
                            .with("dataset", data.name())
                            .with("checkpoint", "epoch " + e.epoch()
                                    + " of an unfinished run (best validation so far)");
                    try {
                        model.save(out, checkpoint);
                    } catch (java.io.IOException ex) {
                        throw new java.io.UncheckedIOException("cannot write checkpoint " + out + ": " + ex.getMessage(), ex);
                    }
                }
            }, done -> {
                if (bar[0] == null) {
                    bar[0] = epochBar("epoch " + epoch[0], trainSize);
                }
                bar[0].stepTo(done);
            });
            if (bar[0] != null) {
                bar[0].close();
            }
            double minutes = (System.nanoTime() - t0) / 60e9;
            List<Evaluation> report = new ArrayList<>();
            List<String> intervals = new ArrayList<>();
            for (Microarchitecture m : cpus) {
                List<LabelledBlock> t = test.stream().filter(b -> b.hasLabel(m)).toList();
                List<dev.basalt.core.Prediction> ps = model.predictAll(t.stream().map(LabelledBlock::block).toList(), m);
                double[] predicted = ps.stream().mapToDouble(p -> Math.max(1e-3, p.cyclesPerIteration())).toArray();
                double[] measured = t.stream().mapToDouble(b -> b.throughput(m).orElseThrow()).toArray();
                report.add(Evaluation.of(modelName, data.name(), "test", m, predicted, measured));
                long inside = java.util.stream.IntStream.range(0, ps.size())
                        .filter(i -> ps.get(i).interval().map(iv -> iv.contains(measured[i])).orElse(false)).count();
                if (!t.isEmpty() && ps.get(0).interval().isPresent()) {
                    intervals.add(String.format(Locale.ROOT, "%s %.1f%%", m.llvmName(), 100.0 * inside / t.size()));
                }
            }
            o.print(Evaluation.markdownTable(report));
            o.println(intervals.isEmpty()
                    ? "no prediction intervals: too few validation blocks per CPU with a positive prediction to "
                            + "calibrate them (at least " + dev.basalt.training.Calibration.MIN_PER_BIN + ")"
                    : "90% prediction intervals (calibrated on the validation split), test blocks inside: "
                            + String.join(", ", intervals));
            Provenance provenance = model.newProvenance(command).withData(data.fingerprint(), SPLIT)
                    .with("dataset", data.name())
                    .with("trainBlocks", train.size())
                    .with("trainingMinutes", minutes)
                    .with("epochs", epochs.size())
                    .with("pretraining", pre == null ? "none" : pre.size() + " blocks labelled by "
                            + pretrainTarget + ", " + pretrained.size() + " epochs")
                    .with("skippedBatches", epochs.stream().mapToInt(e -> e.skipped()).sum())
                    .with("recomputedSteps", epochs.stream().mapToInt(e -> e.retried()).sum())
                    .with("testReport", Evaluation.csv(report));
            model.save(out, provenance);
            o.printf(Locale.ROOT, "model written to %s (%.1f minutes)%n", out, minutes);
        }
        return 0;
    }

    /** Pre-training's own split: 95% to fit, the rest to stop early on. */
    private static final SplitScheme PRETRAIN_SPLIT = new SplitScheme(0.95, 0.05 / 2);

    /** Pre-training blocks labelled by {@code --pretrain-target}: to fit, and to stop early on. */
    private record Pretraining(List<LabelledBlock> fit, List<LabelledBlock> stop) {
        int size() {
            return fit.size() + stop.size();
        }
    }

    /**
     * The {@code --pretrain} blocks labelled by {@code --pretrain-target} on every CPU of the model: 95% to fit, 5%
     * (by hash) to stop early on. Blocks of the measured validation and test splits are left out, so neither early
     * stopping nor the test report sees a block the network was pre-trained on.
     */
    private Pretraining pretrainingData(List<Microarchitecture> cpus, List<Path> files,
                                        List<LabelledBlock> validation, List<LabelledBlock> test, PrintWriter o)
            throws java.io.IOException {
        dev.basalt.core.ThroughputEstimator target = BadInputException.check("--pretrain-target",
                () -> dev.basalt.training.Priors.load(pretrainTarget, cpus));
        java.util.Set<String> heldOut = new java.util.HashSet<>();
        validation.forEach(b -> heldOut.add(b.hex()));
        test.forEach(b -> heldOut.add(b.hex()));
        Map<String, BasicBlock> pool = new LinkedHashMap<>();
        int rows = 0;
        List<dev.basalt.datasets.RowIssue> issues = new ArrayList<>();
        for (Path p : files) {
            dev.basalt.datasets.BlockFiles.Loaded l = dev.basalt.datasets.BlockFiles.readUnlabelled(p);
            rows += l.blocks().size();
            issues.addAll(l.summary().issues());
            l.blocks().stream().filter(b -> !heldOut.contains(b.hex()))
                    .forEach(b -> pool.putIfAbsent(b.hex(), b.block()));
        }
        // One line for all files: BHive's sources/ folder is 112 of them, each with its empty last row.
        o.println("pre-training: read " + new dev.basalt.datasets.LoadSummary(files.size() == 1
                ? files.get(0).toString() : files.size() + " files", rows + issues.size(), rows, issues));
        issues.stream().limit(3).forEach(i -> o.println("  skipped " + i.file() + " line " + i.line() + ": "
                + i.detail()));
        if (pool.size() < 20) {
            throw new BadInputException("--pretrain: " + pool.size() + " usable blocks (outside the validation and "
                    + "test splits) in " + (files.size() == 1 ? files.get(0) : files.size() + " files") + "; pre-training "
                    + "needs at least 20");
        }
        List<BasicBlock> blocks = new ArrayList<>(pool.values());
        double[][] cycles = new double[blocks.size()][cpus.size()];
        for (int c = 0; c < cpus.size(); c++) {
            List<dev.basalt.core.Prediction> p = target.predictFeatures(blocks, cpus.get(c));
            for (int i = 0; i < blocks.size(); i++) {
                cycles[i][c] = p.get(i).cyclesPerIteration();
            }
        }
        List<LabelledBlock> fit = new ArrayList<>();
        List<LabelledBlock> stop = new ArrayList<>();
        for (int i = 0; i < blocks.size(); i++) {
            Map<Microarchitecture, Double> labels = new java.util.TreeMap<>();
            for (int c = 0; c < cpus.size(); c++) {
                if (cycles[i][c] > 0 && Double.isFinite(cycles[i][c])) {
                    labels.put(cpus.get(c), cycles[i][c]);
                }
            }
            if (labels.isEmpty()) {
                continue;
            }
            LabelledBlock b = new LabelledBlock(blocks.get(i), labels);
            // 1 in 20 by the hex's hash, as the measured splits are made: the same blocks whatever the file order.
            (PRETRAIN_SPLIT.of(b.hex()) == Split.TRAIN ? fit : stop).add(b);
        }
        o.printf(Locale.ROOT, "pre-training on %d distinct blocks (of %d rows in %d files; validation and test blocks "
                + "left out) labelled by %s: %d to fit, %d to stop early on; at most %d epochs%n", fit.size()
                + stop.size(), rows, files.size(), pretrainTarget, fit.size(), stop.size(), pretrainEpochs);
        o.flush();
        return new Pretraining(fit, stop);
    }

    /** Pre-trains {@code model} on {@code data}, from its initial weights, for at most {@code --pretrain-epochs}. */
    private List<MultiTaskTrainer.Epoch> pretrain(LearnedEstimator<LabelledBlock> model, Pretraining data,
                                                  List<Microarchitecture> cpus, PrintWriter o) {
        List<LabelledBlock> fit = data.fit();
        ProgressBar[] bar = new ProgressBar[1];
        int[] epoch = {1};
        List<MultiTaskTrainer.Epoch> epochs = model.pretrain(fit, data.stop(), pretrainEpochs, e -> {
            if (bar[0] != null) {
                bar[0].close();
                bar[0] = null;
            }
            o.printf(Locale.ROOT, "pre-training epoch %d: loss %.4f, MAPE against %s %s, %.0f s%n", e.epoch(),
                    e.trainLoss(), pretrainTarget, mapes(cpus, e.validationMape()), e.seconds());
            o.flush();
            epoch[0] = e.epoch() + 1;
        }, done -> {
            if (bar[0] == null) {
                bar[0] = epochBar("pre-training " + epoch[0], fit.size());
            }
            bar[0].stepTo(done);
        });
        if (bar[0] != null) {
            bar[0].close();
        }
        return epochs;
    }

    /** A progress bar (with ETA) over one epoch's {@code blocks} training blocks, on stderr. */
    private static ProgressBar epochBar(String task, int blocks) {
        return new ProgressBarBuilder().setTaskName(task).setInitialMax(blocks).setUnit(" blocks", 1)
                .setStyle(ProgressBarStyle.ASCII).setUpdateIntervalMillis(1000)
                .setConsumer(new ConsoleProgressBarConsumer(System.err)).build();
    }

    /** The command-line spelling of a model option. */
    private static String flag(TrainingOptions.Option option) {
        return switch (option) {
            case HIDDEN -> "--hidden";
            case EMBEDDING -> "--embedding";
            case ITERATIONS -> "--iterations";
            case LEARNING_RATE -> "--lr";
            case EPOCHS -> "--epochs";
            case SEED -> "--seed";
            case PRIOR -> "--prior";
            case HYBRID -> "--hybrid";
        };
    }

    /** The trainable models that use {@code option}, slash-separated after "a" or "an". */
    private static String usedBy(TrainingOptions.Option option) {
        List<String> models = Trainables.all().stream().filter(p -> p.options().contains(option))
                .map(TrainableProvider::name).toList();
        if (models.isEmpty()) {
            return "no trainable model's";
        }
        String names = String.join("/", models);
        return ("aeiou".indexOf(Character.toLowerCase(names.charAt(0))) >= 0 ? "an " : "a ") + names;
    }

    /** The trainable models on the class path, for the help and completion. */
    static final class TrainableModels implements Iterable<String> {
        @Override
        public Iterator<String> iterator() {
            return Trainables.available().iterator();
        }
    }

    private static String mapes(List<Microarchitecture> cpus, double[] mape) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < mape.length; i++) {
            sb.append(i == 0 ? "" : ", ").append(cpus.get(i).shortName()).append(' ')
                    .append(String.format(Locale.ROOT, "%.2f%%", 100 * mape[i]));
        }
        return sb.toString();
    }
}
