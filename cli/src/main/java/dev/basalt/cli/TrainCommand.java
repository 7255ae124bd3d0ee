package dev.basalt.cli;

import dev.basalt.core.Microarchitecture;
import dev.basalt.datasets.Dataset;
import dev.basalt.datasets.Evaluation;
import dev.basalt.datasets.LabelledBlock;
import dev.basalt.datasets.Split;
import dev.basalt.datasets.SplitScheme;
import dev.basalt.granite.GraniteConfig;
import dev.basalt.granite.GraniteModel;
import dev.basalt.ithemal.IthemalConfig;
import dev.basalt.ithemal.IthemalModel;
import dev.basalt.training.LearnedEstimator;
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
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * {@code basalt train granite|ithemal}: train a learned model on the bundled sample (or given BHive CSVs) with
 * the shared trainer, print per-epoch validation MAPE and a test-split report, and write the model file.
 */
@Command(name = "train", mixinStandardHelpOptions = true, description = "Train a learned model.")
final class TrainCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "MODEL", description = "granite or ithemal")
    String modelName;

    @Option(names = "--data", paramLabel = "CPU=FILE", split = ",", description = "BHive CSVs (default: bundled sample).")
    Map<String, Path> files;

    @Option(names = "--data-dir", paramLabel = "DIR", description = "A folder of BHive CSVs named by CPU "
            + "(hsw.csv, skl.csv, ivb.csv; those present are used), e.g. ../shared/datasets/bhive-sample.")
    Path dataDir;

    @Option(names = "--out", required = true, paramLabel = "FILE", description = "Model file to write.")
    Path out;

    @Option(names = "--epochs", description = "Maximum epochs (default from the configuration).")
    Integer epochs;

    @Option(names = "--hidden", description = "Vector width.")
    Integer hidden;

    @Option(names = "--embedding", description = "Token embedding width (ithemal).")
    Integer embedding;

    @Option(names = "--iterations", description = "Message-passing steps (granite).")
    Integer steps;

    @Option(names = "--max-train", description = "Use at most this many training blocks (for quick runs).")
    Integer maxTrain;

    @Option(names = "--seed", description = "Seed.")
    Long seed;

    @Option(names = "--prior", paramLabel = "MODEL", description = "Analytical estimator whose prediction the "
            + "network learns to correct, or 'none' for the plain GRANITE network (default: simulator).")
    String prior;

    @Option(names = "--mcpu", paramLabel = "CPU", split = ",", description = "CPUs to train heads for "
            + "(default: haswell,skylake,ivybridge).")
    List<String> mcpus;

    @Option(names = "--debug", description = "Print stack traces of errors.")
    boolean debug;

    @Option(names = "--lr", description = "Adam learning rate.")
    Double learningRate;

    @Override
    public Integer call() throws Exception {
        if (!List.of("granite", "ithemal").contains(modelName)) {
            throw new BadInputException("unknown model '" + modelName + "': train granite or ithemal");
        }
        PrintWriter o = spec.commandLine().getOut();
        if (dataDir != null) {
            if (files != null) {
                throw new BadInputException("give --data or --data-dir, not both");
            }
            files = new LinkedHashMap<>();
            for (Microarchitecture m : Microarchitecture.measured()) {
                Path f = dataDir.resolve(m.shortName() + ".csv");
                if (Files.isRegularFile(f)) {
                    files.put(m.shortName(), f);
                }
            }
            if (files.isEmpty()) {
                throw new BadInputException("no hsw.csv, skl.csv or ivb.csv in --data-dir " + dataDir);
            }
        }
        Dataset data = DatasetCommand.load(files);
        SplitScheme scheme = SplitScheme.defaults();
        List<LabelledBlock> train = data.blocks(scheme, Split.TRAIN);
        if (maxTrain != null && maxTrain < train.size()) {
            train = train.subList(0, maxTrain);
        }
        List<LabelledBlock> validation = data.blocks(scheme, Split.VALIDATION);
        List<LabelledBlock> test = data.blocks(scheme, Split.TEST);
        List<Microarchitecture> cpus = mcpus == null ? Microarchitecture.measured()
                : mcpus.stream().map(Microarchitecture::parse).distinct().toList();
        if (mcpus != null) {
            // Blocks with no label for any chosen CPU teach nothing; drop them so "one CPU, same budget" is fair.
            train = train.stream().filter(b -> cpus.stream().anyMatch(b::hasLabel)).toList();
            validation = validation.stream().filter(b -> cpus.stream().anyMatch(b::hasLabel)).toList();
        }
        List<BasicBlock> trainBlocks = train.stream().map(LabelledBlock::block).toList();
        long t0 = System.nanoTime();
        int trainSize = train.size();
        try (LearnedEstimator<LabelledBlock> model = modelName.equals("granite") ? granite(trainBlocks, cpus) : ithemal(trainBlocks, cpus)) {
            o.printf("training %s on %d blocks (validation %d, test %d)%n", model.description(), train.size(),
                    validation.size(), test.size());
            // One progress bar (with ETA) per epoch; the epoch summary line follows it. Each epoch that improves
            // the validation MAPE is written to --out at once (atomically), so an interrupted run leaves its best
            // model so far; the finished run overwrites it with the full provenance.
            ProgressBar[] bar = new ProgressBar[1];
            int[] epoch = {1};
            double[] best = {Double.POSITIVE_INFINITY};
            List<dev.basalt.training.MultiTaskTrainer.Epoch> epochs = model.train(train, validation, e -> {
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
                    Map<String, Object> checkpoint = new LinkedHashMap<>();
                    checkpoint.put("command", "basalt " + String.join(" ", spec.commandLine().getParseResult()
                            .originalArgs()));
                    checkpoint.put("checkpoint", "epoch " + e.epoch() + " of an unfinished run (best validation so far)");
                    checkpoint.put("created", Instant.now().toString());
                    checkpoint.put("datasetFingerprint", data.fingerprint());
                    try {
                        model.save(out, checkpoint);
                    } catch (java.io.IOException ex) {
                        throw new java.io.UncheckedIOException("cannot write checkpoint " + out + ": " + ex.getMessage(), ex);
                    }
                }
            }, done -> {
                if (bar[0] == null) {
                    bar[0] = new ProgressBarBuilder().setTaskName("epoch " + epoch[0]).setInitialMax(trainSize)
                            .setUnit(" blocks", 1).setStyle(ProgressBarStyle.ASCII).setUpdateIntervalMillis(1000)
                            .setConsumer(new ConsoleProgressBarConsumer(System.err)).build();
                }
                bar[0].stepTo(done);
            });
            if (bar[0] != null) {
                bar[0].close();
            }
            double minutes = (System.nanoTime() - t0) / 60e9;
            List<Evaluation> report = new ArrayList<>();
            for (Microarchitecture m : cpus) {
                List<LabelledBlock> t = test.stream().filter(b -> b.hasLabel(m)).toList();
                double[] predicted = model.predictAll(t.stream().map(LabelledBlock::block).toList(), m).stream()
                        .mapToDouble(p -> Math.max(1e-3, p.cyclesPerIteration())).toArray();
                double[] measured = t.stream().mapToDouble(b -> b.throughput(m).orElseThrow()).toArray();
                report.add(Evaluation.of(modelName, data.name(), "test", m, predicted, measured));
            }
            o.print(Evaluation.markdownTable(report));
            Map<String, Object> provenance = new LinkedHashMap<>();
            provenance.put("command", "basalt " + String.join(" ", spec.commandLine().getParseResult()
                    .originalArgs()));
            provenance.put("created", Instant.now().toString());
            provenance.put("basalt", new VersionProvider().getVersion()[0]);
            provenance.put("java", System.getProperty("java.version") + " " + System.getProperty("os.name") + " "
                    + System.getProperty("os.arch"));
            provenance.put("dataset", data.name());
            provenance.put("datasetFingerprint", data.fingerprint());
            provenance.put("split", "SHA-256 of hex, 80/10/10");
            provenance.put("trainBlocks", train.size());
            provenance.put("trainingMinutes", minutes);
            provenance.put("epochs", epochs.size());
            provenance.put("skippedBatches", epochs.stream().mapToInt(e -> e.skipped()).sum());
            provenance.put("recomputedSteps", epochs.stream().mapToInt(e -> e.retried()).sum());
            provenance.put("testReport", Evaluation.csv(report));
            model.save(out, provenance);
            o.printf(Locale.ROOT, "model written to %s (%.1f minutes)%n", out, minutes);
        }
        return 0;
    }

    private LearnedEstimator<LabelledBlock> granite(List<BasicBlock> trainBlocks, List<Microarchitecture> cpus) {
        if (embedding != null) {
            throw new BadInputException("--embedding is an ithemal option");
        }
        GraniteConfig d = GraniteConfig.defaults();
        GraniteConfig config = new GraniteConfig(hidden != null ? hidden : d.hidden(), steps != null ? steps : d.steps(),
                d.mlpHidden(), learningRate != null ? learningRate : d.learningRate(),
                epochs != null ? epochs : d.epochs(), d.batchInstructions(), d.clipNorm(), d.patience(),
                seed != null ? seed : d.seed(), d.memoryPolicy(), prior != null ? prior : d.prior(), d.lrDecay(),
                d.lrPatience());
        return GraniteModel.create(config, GraniteModel.vocabulary(trainBlocks, config), cpus);
    }

    private LearnedEstimator<LabelledBlock> ithemal(List<BasicBlock> trainBlocks, List<Microarchitecture> cpus) {
        if (steps != null) {
            throw new BadInputException("--iterations is a granite option");
        }
        IthemalConfig d = IthemalConfig.defaults();
        IthemalConfig config = new IthemalConfig(embedding != null ? embedding : d.embedding(),
                hidden != null ? hidden : d.hidden(), learningRate != null ? learningRate : d.learningRate(),
                epochs != null ? epochs : d.epochs(), d.batchInstructions(), d.clipNorm(), d.patience(),
                seed != null ? seed : d.seed(), prior != null ? prior : d.prior(), d.lrDecay(), d.lrPatience());
        return IthemalModel.create(config, IthemalModel.vocabulary(trainBlocks), cpus);
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
