package dev.basalt.cli;

import dev.basalt.core.AtomicFiles;
import dev.basalt.core.Estimators;
import dev.basalt.core.Microarchitecture;
import dev.basalt.core.ThroughputEstimator;
import dev.basalt.decoder.BasicBlock;
import dev.basalt.explain.Anchors;
import dev.basalt.explain.Explainer;
import dev.basalt.explain.Explanation;
import dev.basalt.explain.Reports;
import dev.basalt.explain.Shapley;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;

/**
 * {@code basalt explain}: why a model predicts what it does for one block — COMET-style anchors, Shapley
 * attributions over instruction removal, and the simulator's bottleneck — as text, JSON or one HTML page.
 */
@Command(name = "explain", mixinStandardHelpOptions = true,
        description = "Explain a model's prediction for one block: anchors (which instructions and dependencies "
                + "keep the prediction where it is), per-instruction contributions, the simulator's bottleneck.")
final class ExplainCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Parameters(arity = "0..1", paramLabel = "HEX", description = "The block as hex (or one block in --input).")
    String hex;

    @picocli.CommandLine.Mixin
    BlockInput blockInput;

    @Option(names = "--model", defaultValue = "granite",
            paramLabel = "NAME|FILE", description = "granite, ithemal, simulator, simulator-default, simulator-untuned, "
                    + "bounds, crude (COMET's crude analytical model, Haswell only) or a model file basalt train "
                    + "wrote; default ${DEFAULT-VALUE}.")
    String model;

    @Option(names = "--memory", defaultValue = "auto", paramLabel = "MODEL", converter = MemoryModels.class,
            description = "For the simulator-based models: auto (harness for straight-line blocks, distinct for "
                    + "loops), harness or distinct, as in predict; default ${DEFAULT-VALUE}.")
    dev.basalt.simulator.Simulator.MemoryModel memory;

    @Option(names = "--mcpu", paramLabel = "CPU", split = ",", description = "CPUs, comma-separated or repeated ("
            + DefaultCpus.HELP + "); each is explained in turn.")
    java.util.List<Microarchitecture> mcpu;

    @Option(names = "--method", defaultValue = "both", description = "anchors, shapley or both (default "
            + "${DEFAULT-VALUE}).")
    String method;

    @Option(names = "--format", defaultValue = "text", description = "text, json or html (default ${DEFAULT-VALUE}).")
    String format;

    @Option(names = "--out", paramLabel = "FILE", description = "Write to FILE (atomically) instead of standard "
            + "output.")
    Path out;

    @Option(names = "--bucket", defaultValue = "0.5", description = "Width of a prediction bucket: cycles (0.5), or "
            + "a share of the prediction (5%%); a perturbation preserves the prediction when it stays in the "
            + "original's bucket (default ${DEFAULT-VALUE}).")
    String bucket;

    @Option(names = "--threshold", defaultValue = "0.7", description = "Precision an anchor must reach (default "
            + "${DEFAULT-VALUE}).")
    double threshold;

    @Option(names = "--coverage-samples", defaultValue = "10000", description = "Perturbations that estimate "
            + "coverage (default ${DEFAULT-VALUE}).")
    int coverageSamples;

    @Option(names = "--permutations", defaultValue = "32", description = "Sampled permutations for Shapley "
            + "(default ${DEFAULT-VALUE}).")
    int permutations;

    @Option(names = "--seed", defaultValue = "1", description = "Seed of the perturbations and permutations "
            + "(default ${DEFAULT-VALUE}).")
    long seed;

    @Mixin
    DebugOption debugOption;

    /** {@code 0.5} → half-cycle buckets; {@code 5%} → buckets of 5% of the prediction. */
    static Anchors.Config bucket(String text) {
        String t = text.trim();
        boolean relative = t.endsWith("%");
        double v;
        try {
            v = Double.parseDouble(relative ? t.substring(0, t.length() - 1) : t);
        } catch (NumberFormatException e) {
            throw new BadInputException("bad --bucket '" + text + "': give cycles (0.5) or a percentage (5%)");
        }
        if (!(v > 0) || Double.isInfinite(v)) {
            throw new BadInputException("bad --bucket '" + text + "': it must be positive");
        }
        return relative ? Anchors.Config.defaults().withRelativeBucket(v / 100)
                : Anchors.Config.defaults().withBucketWidth(v);
    }

    @Override
    public Integer call() throws Exception {
        PrintWriter stdout = spec.commandLine().getOut();
        BadInputException.format(format, "text", "json", "html");
        if (out != null) { // where the page goes is checked before the search, not after it
            if (Files.isDirectory(out)) {
                throw new BadInputException("--out " + out + " is a folder, not a file");
            }
            Path parent = out.toAbsolutePath().getParent();
            if (parent != null && !Files.isDirectory(parent)) {
                throw new BadInputException("--out " + out + ": " + parent + " is not a folder");
            }
            Outputs.checkFile("--out", out); // and a file can be made there (not so in /proc, or a read-only folder)
        }
        Explainer.Method m = BadInputException.check("--method", () -> Explainer.Method.parse(method));
        BadInputException.atLeast("--coverage-samples", coverageSamples, 1);
        BadInputException.atLeast("--permutations", permutations, 1);
        if (!(threshold > 0 && threshold <= 1)) {
            throw new BadInputException("--threshold must be in (0, 1], got " + threshold);
        }
        Explainer.Config config = BadInputException.check("--bucket, --threshold, --coverage-samples, --permutations",
                () -> new Explainer.Config(bucket(bucket).withPrecisionThreshold(threshold)
                        .withCoverageSamples(coverageSamples).withSeed(seed), new Shapley.Config(permutations, seed)));
        java.util.List<String> given = blockInput.blocks(hex == null ? java.util.List.of() : java.util.List.of(hex));
        if (given.size() != 1) {
            throw new BadInputException("explain takes one block: " + (given.isEmpty() ? "give it as hex or in "
                    + "--input FILE" : given.size() + " were given (hex and --input together, or a file of several)"));
        }
        BasicBlock block;
        try {
            block = BasicBlock.fromHex(given.get(0));
        } catch (dev.basalt.decoder.DecodeException e) {
            throw new BadInputException("block '" + DecodeCommand.abbreviate(given.get(0)) + "': " + e.getMessage());
        }
        Explainer.tooLarge(block).ifPresent(why -> { // before the model loads: a refusal takes no time
            throw new BadInputException(why);
        });
        ThroughputEstimator loaded = BadInputException.check("--model", () -> Estimators.load(model));
        if (memory != dev.basalt.simulator.Simulator.MemoryModel.AUTO
                && !(loaded instanceof dev.basalt.simulator.LoopAware)) {
            throw new BadInputException("--memory " + memory.name().toLowerCase(java.util.Locale.ROOT) + ": "
                    + loaded.name() + " has no memory model; the simulator-based models (simulator, simulator-untuned, "
                    + "bounds) do");
        }
        ThroughputEstimator estimator = loaded instanceof dev.basalt.simulator.LoopAware aware
                && memory != dev.basalt.simulator.Simulator.MemoryModel.AUTO ? aware.withMemory(memory) : loaded;
        PredictCommand.warn(spec.commandLine().getErr(), "basalt explain", estimator);
        java.util.List<Microarchitecture> cpus = DefaultCpus.resolve(mcpu, estimator.supported(),
                spec.commandLine().getErr(), "basalt explain");
        if (format.equals("html") && cpus.size() > 1) {
            throw new BadInputException("--format html is one CPU's page: give one --mcpu, not " + cpus.size());
        }
        for (Microarchitecture uarch : cpus) {
            BadInputException.check("--mcpu", () -> {
                estimator.checkSupported(uarch);
                return uarch;
            });
            dev.basalt.core.IsaSupport.unsupported(block, uarch).ifPresent(why -> {
                throw new BadInputException("block " + block.hex() + " on " + uarch + ": " + why);
            });
        }
        // One CPU: one report (a JSON object); several: the reports in turn (a JSON array).
        java.util.List<String> reports = new java.util.ArrayList<>();
        com.fasterxml.jackson.databind.node.ArrayNode json = dev.basalt.core.ReportJson.mapper().createArrayNode();
        for (Microarchitecture uarch : cpus) {
            Explanation e = Explainer.forCpu(uarch, config).explain(block, uarch, estimator, m);
            switch (format) {
                case "json" -> json.add(withVersion(Reports.json(e), PredictCommand.version(estimator, uarch)));
                case "html" -> reports.add(Reports.html(e));
                default -> reports.add(Reports.text(e));
            }
        }
        String text = !format.equals("json") ? String.join("\n", reports)
                : dev.basalt.core.ReportJson.pretty(json.size() == 1 ? json.get(0) : json) + "\n";
        if (out != null) {
            AtomicFiles.writeString(out, text);
            spec.commandLine().getErr().println("wrote " + out);
        } else {
            stdout.print(text);
            stdout.flush();
        }
        return 0;
    }

    /** The report with {@code model_version} after {@code model}, as predict's rows name the model's version. */
    private static com.fasterxml.jackson.databind.JsonNode withVersion(String json, String version)
            throws java.io.IOException {
        com.fasterxml.jackson.databind.ObjectMapper mapper = dev.basalt.core.ReportJson.mapper();
        com.fasterxml.jackson.databind.JsonNode report = mapper.readTree(json);
        if (!(report instanceof com.fasterxml.jackson.databind.node.ObjectNode object)) {
            return report;
        }
        com.fasterxml.jackson.databind.node.ObjectNode out = mapper.createObjectNode();
        object.fields().forEachRemaining(f -> {
            out.set(f.getKey(), f.getValue());
            if (f.getKey().equals("model")) {
                out.put("model_version", version);
            }
        });
        return out;
    }
}
