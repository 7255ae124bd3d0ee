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
import java.util.concurrent.Callable;

/**
 * {@code basalt predict}: the contract every model follows. Blocks come from hex arguments or {@code --input}
 * (a BHive CSV or one hex per line); output is one row per block and CPU, in input order; a block that does
 * not decode gives an error row, not an abort (exit code 2 at the end).
 */
@Command(name = "predict", mixinStandardHelpOptions = true,
        description = "Predict cycles per iteration of blocks with a model.")
final class PredictCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Parameters(arity = "0..*", paramLabel = "HEX", description = "Blocks as hex.")
    List<String> hex = new ArrayList<>();

    // The default is the estimator with the best test-split accuracy: GRANITE (README, "Results").
    @Option(names = "--model", defaultValue = "granite",
            description = "granite (the bundled GRANITE model), ithemal (the bundled Ithemal model), simulator "
                    + "(llvm-mca tables + stack engine) or simulator-default (llvm-mca compatible); default "
                    + "${DEFAULT-VALUE}.")
    String model;

    @Option(names = "--mcpu", paramLabel = "CPU", description = "CPU (repeatable; default: all the model supports).")
    List<String> mcpu;

    @Option(names = "--input", paramLabel = "FILE", description = "BHive CSV or one hex per line.")
    Path input;

    @Option(names = "--format", defaultValue = "text", description = "text, csv or json (default ${DEFAULT-VALUE}).")
    String format;

    @Option(names = "--explain", description = "Also print each instruction's contribution in cycles (models "
            + "that attribute their predictions; a baseline is the part no one instruction owns).")
    boolean explain;

    @Option(names = "--debug", description = "Print stack traces of errors.")
    boolean debug;

    private static final int BATCH = 256;

    private static void textExplanation(PrintWriter out, BasicBlock block, Prediction p) {
        if (p.contributions().isEmpty()) {
            out.println("    (this model does not attribute its predictions to instructions)");
            return;
        }
        if (p.baseline() != 0) {
            out.printf(Locale.ROOT, "    %+8.2f  baseline (analytical prior)%n", p.baseline());
        }
        for (int j = 0; j < p.contributions().size(); j++) {
            out.printf(Locale.ROOT, "    %+8.2f  %4d: %s%n", p.contributions().get(j), block.instruction(j).offset(),
                    block.instruction(j).intelSyntax());
        }
    }

    private static String csvExplanation(Prediction p) {
        StringBuilder sb = new StringBuilder(String.format(Locale.ROOT, ",%.4f,", p.baseline()));
        for (int j = 0; j < p.contributions().size(); j++) {
            sb.append(j == 0 ? "" : ";").append(String.format(Locale.ROOT, "%.4f", p.contributions().get(j)));
        }
        return sb.toString();
    }

    static ThroughputEstimator load(String model) {
        return dev.basalt.core.Estimators.load(model);
    }

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (!List.of("text", "csv", "json").contains(format)) {
            throw new IllegalArgumentException("unknown format '" + format + "': use text, csv or json");
        }
        List<String> inputs = new ArrayList<>(hex);
        if (input != null) {
            if (!Files.isReadable(input)) {
                throw new BadInputException("cannot read input file " + input);
            }
            for (String line : Files.readAllLines(input)) {
                String t = line.trim();
                if (!t.isEmpty()) {
                    inputs.add(t.contains(",") ? t.substring(0, t.indexOf(',')).trim() : t);
                }
            }
        }
        if (inputs.isEmpty()) {
            throw new IllegalArgumentException("no blocks: give hex arguments or --input FILE");
        }
        ThroughputEstimator estimator = load(model);
        List<Microarchitecture> cpus = mcpu == null || mcpu.isEmpty()
                ? List.copyOf(estimator.supported()) : mcpu.stream().map(Microarchitecture::parse).toList();
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
        java.util.Map<Microarchitecture, List<Prediction>> byCpu = new java.util.TreeMap<>();
        for (Microarchitecture m : cpus) {
            List<Prediction> all = new ArrayList<>(decoded.size());
            for (int from = 0; from < decoded.size(); from += BATCH) {
                all.addAll(estimator.predictAll(decoded.subList(from, Math.min(decoded.size(), from + BATCH)), m));
            }
            byCpu.put(m, all);
        }
        ObjectMapper mapper = new ObjectMapper();
        ArrayNode json = mapper.createArrayNode();
        if (format.equals("csv")) {
            out.println("hex,mcpu,cycles_per_iteration" + (explain ? ",baseline,contributions" : ""));
        }
        int k = 0;
        for (int i = 0; i < inputs.size(); i++) {
            String in = inputs.get(i);
            BasicBlock block = blocks.get(i);
            String error = errors.get(i);
            for (Microarchitecture m : cpus) {
                Prediction p = block == null ? null : byCpu.get(m).get(k);
                switch (format) {
                    case "csv" -> out.println(in + "," + m.llvmName() + ","
                            + (p == null ? "error: " + error.replace(',', ';') : String.format(Locale.ROOT, "%.4f",
                                    p.cyclesPerIteration()) + (explain ? csvExplanation(p) : "")));
                    case "json" -> {
                        ObjectNode n = json.addObject();
                        n.put("hex", in);
                        n.put("mcpu", m.llvmName());
                        if (p == null) {
                            n.put("error", error);
                        } else {
                            n.put("cycles_per_iteration", p.cyclesPerIteration());
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
                        out.println(p == null ? in + "  " + m + "  error: " + error
                                : String.format(Locale.ROOT, "%s  %-10s %8.2f cycles/iteration", in, m,
                                        p.cyclesPerIteration()));
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
            out.println(json.toPrettyString());
        }
        if (failed && !format.equals("text")) {
            err.println("basalt predict: some blocks did not decode (see their error rows)");
        }
        out.flush();
        return failed ? Basalt.EXIT_BAD_INPUT : 0;
    }
}
