package dev.basalt.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.basalt.core.Microarchitecture;
import dev.basalt.core.Prediction;
import dev.basalt.core.ThroughputEstimator;
import dev.basalt.decoder.BasicBlock;
import dev.basalt.decoder.DecodeException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * {@code basalt predict}: the contract every model follows. Blocks come from hex arguments or {@code --input}
 * (a BHive CSV or one hex per line); output is one row per block and CPU, in input order; a block that does
 * not decode, or that the estimator cannot predict (llvm-mca rejects a few), gives an error row, not an abort
 * (exit code 2 at the end).
 */
@Command(name = "predict", mixinStandardHelpOptions = true,
        description = "Predict cycles per iteration of blocks with a model.")
final class PredictCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Parameters(arity = "0..*", paramLabel = "BLOCK", description = "Blocks as hex or assembly "
            + "(\"add rax, rbx; imul rax, rax\").")
    List<String> hex = new ArrayList<>();

    /** The default: the estimator with the best test-split accuracy (README, "Results"). */
    static final String DEFAULT_MODEL = "granite";
    /** What predicts a CPU the default model has no head for. */
    static final String FALLBACK_MODEL = "simulator";

    @Option(names = "--model", paramLabel = "NAME|FILE", description = "granite (the bundled GRANITE model), "
            + "ithemal (the bundled Ithemal model), simulator (the second machine on its tuned tables), "
            + "simulator-untuned, simulator-default (llvm-mca compatible), bounds (the simulator's analytical "
            + "bounds), llvm-mca, or a model file basalt train wrote; default " + DEFAULT_MODEL + ", with the "
            + "simulator for a CPU it has no head for.")
    String model;

    @Option(names = "--mcpu", paramLabel = "CPU", split = ",", description = "CPUs, comma-separated or repeated "
            + "(" + DefaultCpus.HELP + ").")
    List<Microarchitecture> mcpu;

    @Mixin
    BlockInput blockInput;

    @Option(names = "--mode", defaultValue = "auto", paramLabel = "MODE", converter = LoopModes.class,
            description = "For the simulator-based models: auto (a block ending in a jump back to its start is a "
                    + "loop), loop, or unroll (BHive's straight-line model); default ${DEFAULT-VALUE}.")
    dev.basalt.simulator.Simulator.LoopMode mode;

    @Option(names = "--memory", defaultValue = "auto", paramLabel = "MODEL", converter = MemoryModels.class,
            description = "For the simulator-based models: harness (BHive's measurement harness: every pointer into "
                    + "one page), distinct (only accesses the code proves the same, as uiCA and llvm-mca assume), or "
                    + "auto (harness for straight-line blocks, distinct for loops); default ${DEFAULT-VALUE}.")
    dev.basalt.simulator.Simulator.MemoryModel memory;

    @Option(names = "--format", defaultValue = "text", description = "text, csv or json (default ${DEFAULT-VALUE}).")
    String format;

    @Option(names = "--explain", description = "Also print each instruction's contribution in cycles (models "
            + "that attribute their predictions; a baseline is the part no one instruction owns).")
    boolean explain;

    @Mixin
    DebugOption debugOption;

    private static final int BATCH = 256;

    private static void textExplanation(PrintWriter out, BasicBlock block, Prediction p) {
        if (p.contributions().isEmpty()) {
            out.println("    (this model does not attribute its predictions to instructions)");
            return;
        }
        if (p.baseline() != 0) {
            out.printf(Locale.ROOT, "    %+8.2f  baseline (the model's prior)%n", p.baseline());
        }
        for (int j = 0; j < p.contributions().size(); j++) {
            out.printf(Locale.ROOT, "    %+8.2f  %4d: %s%n", p.contributions().get(j), block.instruction(j).offset(),
                    block.instruction(j).intelSyntax());
        }
    }

    /** The prediction's details as CSV cells, in the columns' order (empty cells for any it lacks). */
    private static String csvDetails(Prediction p, List<String> names) {
        StringBuilder sb = new StringBuilder();
        for (String name : names) {
            Double v = p.details().get(name);
            sb.append(',').append(v == null ? "" : String.format(Locale.ROOT, "%.4f", v));
        }
        return sb.toString();
    }

    /** {@code  (predecoder 3.44 · decoders 0.50 · ...)}, or nothing without details. */
    private static String textDetails(Prediction p) {
        if (p.details().isEmpty()) {
            return "";
        }
        StringBuilder sb = new StringBuilder("  (");
        p.details().forEach((k, v) -> sb.append(sb.length() > 3 ? " · " : "").append(k).append(": ")
                .append(String.format(Locale.ROOT, "%.2f", v)));
        return sb.append(')').toString();
    }

    /** Which memory a simulator-based model's run of {@code block} saw ("harness", "distinct"), or "". */
    private static String memoryOf(ThroughputEstimator e, BasicBlock block, Microarchitecture m) {
        return e instanceof dev.basalt.simulator.LoopAware aware ? aware.memoryOf(block, m) : "";
    }

    /**
     * {@code  [loop, distinct memory]} for a simulator-based model when the block runs as a loop or the memory was
     * chosen; nothing for BHive's default (a straight-line block in harness memory), which every row would repeat.
     */
    private String textMemory(ThroughputEstimator e, BasicBlock block, Microarchitecture m) {
        if (!(e instanceof dev.basalt.simulator.LoopAware aware)) {
            return "";
        }
        boolean loop = aware.frontEnd(block, m).loop();
        return loop || memory != dev.basalt.simulator.Simulator.MemoryModel.AUTO
                ? "  [" + (loop ? "loop" : "unrolled") + ", " + aware.memoryOf(block, m) + " memory]" : "";
    }

    /** The 90% interval's two cells (empty for an estimator without intervals), each after a comma. */
    private static String csvInterval(Prediction p) {
        return p.interval().map(iv -> String.format(Locale.ROOT, ",%.4f,%.4f", iv.low(), iv.high())).orElse(",,");
    }

    /** {@code text} as one CSV cell: quoted when it holds a comma, a quote or a line break. */
    static String csvCell(String text) {
        return text.contains(",") || text.contains("\"") || text.contains("\n")
                ? "\"" + text.replace("\"", "\"\"") + "\"" : text;
    }

    private static String csvExplanation(Prediction p) {
        StringBuilder sb = new StringBuilder(String.format(Locale.ROOT, ",%.4f,", p.baseline()));
        for (int j = 0; j < p.contributions().size(); j++) {
            sb.append(j == 0 ? "" : ";").append(String.format(Locale.ROOT, "%.4f", p.contributions().get(j)));
        }
        return sb.toString();
    }

    /** The first 16 hex digits of the estimator's fingerprint on {@code cpu}, or "" when it computes none. */
    static String version(ThroughputEstimator estimator, Microarchitecture cpu) {
        return estimator.fingerprint(List.of(cpu)).map(f -> f.substring(0, Math.min(16, f.length()))).orElse("");
    }

    static ThroughputEstimator load(String model) {
        return BadInputException.check("--model", () -> dev.basalt.core.Estimators.load(model));
    }

    /** Prints what a user should know before trusting {@code estimator} (its prior changed, ...) to stderr. */
    static void warn(PrintWriter err, String command, ThroughputEstimator estimator) {
        estimator.warnings().forEach(w -> err.println(command + ": warning: " + estimator.name() + ": " + w));
    }

    /**
     * The estimator for each CPU: the chosen model; without {@code --model}, the default model where it has a
     * head for the CPU and the simulator (with a note on {@code notes}) where it has not.
     */
    private Map<Microarchitecture, ThroughputEstimator> estimators(List<String> notes,
            Map<Microarchitecture, dev.basalt.core.Source> handedOn) {
        ThroughputEstimator chosen = load(model == null ? DEFAULT_MODEL : model);
        List<Microarchitecture> cpus = DefaultCpus.resolve(mcpu, model == null ? DefaultCpus.shipped()
                : chosen.supported(), spec.commandLine().getErr(), "basalt predict");
        Map<Microarchitecture, ThroughputEstimator> out = new java.util.LinkedHashMap<>();
        ThroughputEstimator fallback = null;
        if (mode != dev.basalt.simulator.Simulator.LoopMode.AUTO) {
            if (!(chosen instanceof dev.basalt.simulator.LoopAware aware)) {
                throw new BadInputException("--mode " + mode.name().toLowerCase(Locale.ROOT) + ": " + chosen.name()
                        + " has no loop mode; the simulator-based models (simulator, simulator-untuned, bounds) do");
            }
            chosen = aware.withLoopMode(mode);
        }
        if (memory != dev.basalt.simulator.Simulator.MemoryModel.AUTO) {
            if (!(chosen instanceof dev.basalt.simulator.LoopAware aware)) {
                throw new BadInputException("--memory " + memory.name().toLowerCase(Locale.ROOT) + ": "
                        + chosen.name() + " has no memory model; the simulator-based models (simulator, "
                        + "simulator-untuned, bounds) do");
            }
            chosen = aware.withMemory(memory);
        }
        for (Microarchitecture m : cpus) {
            if (chosen.supported().contains(m)) {
                out.put(m, chosen);
                continue;
            }
            String why = chosen.name() + " has no model for " + m + " (it supports "
                    + chosen.supported().stream().map(Microarchitecture::llvmName).toList() + ")";
            if (model != null) {
                throw new BadInputException("--mcpu " + m + ": " + why);
            }
            fallback = fallback == null ? load(FALLBACK_MODEL) : fallback;
            if (!fallback.supported().contains(m)) {
                throw new BadInputException("--mcpu " + m + ": " + why + ", and neither has the simulator");
            }
            out.put(m, fallback);
            handedOn.put(m, dev.basalt.core.Source.fallback(FALLBACK_MODEL, chosen.name(),
                    chosen.name() + " has no model for " + m, List.of()));
            notes.add("note: " + why + "; " + m + " is predicted by the " + FALLBACK_MODEL + ". "
                    + m.descriptor().notes());
        }
        return out;
    }

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        BadInputException.format(format, "text", "csv", "json");
        List<BlockInput.Input> sourced = blockInput.inputs(hex);
        List<String> inputs = sourced.stream().map(BlockInput.Input::hex).toList();
        if (inputs.isEmpty()) {
            throw new BadInputException("no blocks: give hex arguments or --input FILE");
        }
        List<String> notes = new ArrayList<>();
        Map<Microarchitecture, dev.basalt.core.Source> handedOn = new java.util.HashMap<>();
        Map<Microarchitecture, ThroughputEstimator> estimators = estimators(notes, handedOn);
        List<Microarchitecture> cpus = List.copyOf(estimators.keySet());
        // A note goes to the output in text form; beside csv and json (which must stay parseable) to stderr.
        notes.forEach(format.equals("text") ? out::println : err::println);
        estimators.values().stream().distinct().forEach(e -> warn(err, "basalt predict", e));
        List<BasicBlock> blocks = new ArrayList<>();
        List<String> errors = new ArrayList<>();
        boolean failed = false;
        for (String in : inputs) {
            try {
                blocks.add(BasicBlock.fromHex(in));
                errors.add(null);
            } catch (DecodeException e) {
                blocks.add(null);
                errors.add(e.getMessage());
                failed = true;
            }
        }
        // Batched per CPU: a learned model is many times faster on a batch than block by block.
        List<BasicBlock> decoded = blocks.stream().filter(java.util.Objects::nonNull).toList();
        // A block the estimator cannot predict (llvm-mca rejects a few) is empty here and an error row below.
        Map<Microarchitecture, List<java.util.Optional<Prediction>>> byCpu = new java.util.TreeMap<>();
        for (Microarchitecture m : cpus) {
            List<java.util.Optional<Prediction>> all = new ArrayList<>(decoded.size());
            for (int from = 0; from < decoded.size(); from += BATCH) {
                all.addAll(estimators.get(m).predictEach(decoded.subList(from, Math.min(decoded.size(), from + BATCH)),
                        m));
            }
            byCpu.put(m, all);
        }
        ObjectMapper mapper = new ObjectMapper();
        ArrayNode json = mapper.createArrayNode();
        // Details (the bounds of `bounds`) each get their own column, in the first CPU's estimator's order.
        List<String> details = estimators.isEmpty() ? List.of() : estimators.get(cpus.get(0)).detailNames();
        // What names the model's version: its fingerprint (tables, weights, options) on that CPU, shortened.
        Map<Microarchitecture, String> versions = new java.util.HashMap<>();
        for (Microarchitecture m : cpus) {
            versions.put(m, version(estimators.get(m), m));
        }
        // The simulator-based models say which memory each block saw (a column of its own in CSV).
        boolean memoryColumn = estimators.values().stream().allMatch(e -> e instanceof dev.basalt.simulator.LoopAware);
        if (format.equals("csv")) {
            out.println("hex,mcpu,model,model_version,cycles_per_iteration,interval_low,interval_high"
                    + (explain ? ",baseline,contributions" : "")
                    + details.stream().map(d -> "," + d).collect(java.util.stream.Collectors.joining())
                    + (memoryColumn ? ",memory" : "") + ",note,error,source,source_reason,input");
        }
        int width = Math.max(10, cpus.stream().mapToInt(c -> c.toString().length()).max().orElse(0));
        int k = 0;
        int failedInputs = 0;
        String firstFailure = null;
        for (int i = 0; i < inputs.size(); i++) {
            String in = inputs.get(i);
            String source = sourced.get(i).source();
            BasicBlock block = blocks.get(i);
            for (Microarchitecture m : cpus) {
                Prediction p = block == null ? null : byCpu.get(m).get(k).orElse(null);
                // Who answered: the model asked, its prior outside its training range, or the simulator for a CPU
                // the model has no head for.
                dev.basalt.core.Source answered = p == null ? null
                        : handedOn.containsKey(m) ? handedOn.get(m) : p.source(estimators.get(m).name());
                String error = block == null ? errors.get(i) : p != null ? null
                        : dev.basalt.core.IsaSupport.unsupported(block, m)
                                .orElse(mode == dev.basalt.simulator.Simulator.LoopMode.LOOP
                                        && !dev.basalt.simulator.Simulator.endsInJump(block)
                                        ? dev.basalt.simulator.Simulator.LOOP_MODE_REFUSAL
                                        : estimators.get(m).name() + " cannot predict this block on " + m);
                failed |= p == null;
                if (p == null && (firstFailure == null || !firstFailure.startsWith("input " + (i + 1) + " "))) {
                    failedInputs++;
                    firstFailure = firstFailure != null ? firstFailure : "input " + (i + 1) + " '"
                            + DecodeCommand.abbreviate(in) + "'" + (block == null ? "" : " on " + m) + ": " + error;
                }
                if (block == null && format.equals("text") && m != cpus.get(0)) {
                    continue;  // a block that does not decode is said once, not once per CPU
                }
                switch (format) {
                    // Numeric columns stay numeric: an error row leaves them empty and says why in `error`.
                    case "csv" -> out.println(in + "," + m.llvmName() + "," + estimators.get(m).name() + ","
                            + versions.get(m) + ","
                            + (p == null ? ",," + (explain ? ",," : "") + ",".repeat(details.size())
                                    + (memoryColumn ? "," : "") + "," + "," + csvCell(error) + ",,"
                                    : String.format(Locale.ROOT, "%.4f", p.cyclesPerIteration()) + csvInterval(p)
                                    + (explain ? csvExplanation(p) : "") + csvDetails(p, details)
                                    + (memoryColumn ? "," + memoryOf(estimators.get(m), block, m) : "") + ","
                                    + csvCell(p.note()) + ",," + csvCell(answered.estimator()) + ","
                                    + csvCell(answered.reason())) + "," + csvCell(source));
                    case "json" -> {
                        ObjectNode n = json.addObject();
                        n.put("hex", in);
                        n.put("input", source);
                        n.put("mcpu", m.llvmName());
                        n.put("model", estimators.get(m).name());
                        n.put("model_version", versions.get(m));
                        if (p == null) {
                            n.put("error", error);
                        } else {
                            n.put("cycles_per_iteration", p.cyclesPerIteration());
                            n.set("source", dev.basalt.core.ReportJson.source(answered));
                            p.interval().ifPresent(iv -> {
                                n.put("interval_low", iv.low());
                                n.put("interval_high", iv.high());
                            });
                            p.details().forEach(n::put);
                            if (estimators.get(m) instanceof dev.basalt.simulator.LoopAware aware) {
                                dev.basalt.simulator.Simulator.FrontEnd fe = aware.frontEnd(block, m);
                                n.put("mode", fe.loop() ? "loop" : "unrolled");
                                n.put("memory", aware.memoryOf(block, m));
                                n.put("uop_source", fe.source().name().toLowerCase(Locale.ROOT));
                                ArrayNode pairs = n.putArray("fused_pairs");
                                fe.fusedPairs().forEach(f -> pairs.addArray().add(f).add(f + 1));
                            }
                            n.put("note", p.note());
                            if (explain) {
                                n.put("baseline", p.baseline());
                                ArrayNode parts = n.putArray("contributions");
                                for (int j = 0; j < p.contributions().size(); j++) {
                                    ObjectNode c = parts.addObject();
                                    c.put("offset", block.instruction(j).offset());
                                    c.put("instruction", block.instruction(j).intelSyntax());
                                    c.put("cycles", p.contributions().get(j));
                                }
                            }
                        }
                    }
                    default -> {
                        out.println(block == null ? in + "  error: " + error
                                : p == null ? in + "  " + m + "  error: " + error
                                : String.format(Locale.ROOT, "%s  %-" + width + "s %8.2f cycles/iteration", in, m,
                                        p.cyclesPerIteration()) + p.interval().map(iv -> String.format(Locale.ROOT,
                                        "  (90%% interval %.2f–%.2f)", iv.low(), iv.high())).orElse("")
                                        + textDetails(p) + textMemory(estimators.get(m), block, m)
                                        + (answered.isFallback() ? "  source: " + answered.estimator() : ""));
                        if (!source.startsWith("block argument") || source.contains(":")) {
                            out.println("    from " + source);  // assembly: where in the text the block is
                        }
                        if (p != null) {
                            p.notes().forEach(note -> out.println("    note: " + note));
                        }
                        if (p != null && explain) {
                            textExplanation(out, block, p);
                        }
                    }
                }
            }
            if (block != null) {
                k++;
            }
        }
        if (format.equals("json")) {
            out.println(dev.basalt.core.ReportJson.pretty(json));
        }
        if (failed) { // one line on stderr whatever the format, naming the first block that failed
            err.println("basalt predict: " + failedInputs + " of " + inputs.size() + " blocks did not decode or could "
                    + "not be predicted (see their error rows); the first: " + firstFailure);
        }
        out.flush();
        return failed ? Basalt.EXIT_BAD_INPUT : 0;
    }
}
