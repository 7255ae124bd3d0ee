package dev.basalt.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.basalt.core.Microarchitecture;
import dev.basalt.core.Prediction;
import dev.basalt.core.ThroughputEstimator;
import dev.basalt.decoder.BasicBlock;
import dev.basalt.decoder.ControlFlow;
import dev.basalt.decoder.ElfCode;
import dev.basalt.decoder.Instruction;
import dev.basalt.simulator.BoundsEstimator;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;

/**
 * {@code basalt analyze FILE}: the basic blocks and loops of an ELF program, shared library or object file,
 * each block predicted as the body of a loop (as BHive measured blocks), with its bottleneck from the analytical
 * bounds; loops first, then blocks by cost.
 */
@Command(name = "analyze", mixinStandardHelpOptions = true,
        description = {"Find the basic blocks and loops of an x86-64 ELF file (executable, shared library or object"
                + " file) and predict each block's cycles per iteration, loops first, then blocks by cost.",
                "Functions come from the symbol table; a stripped file is analyzed section by section."})
final class AnalyzeCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "FILE", description = "An x86-64 ELF file.")
    Path file;

    @Option(names = "--function", paramLabel = "NAME", description = "Only this function (default: every function"
            + " of the file's executable sections).")
    String function;

    @Option(names = "--model", paramLabel = "NAME|FILE", description = "As in predict (default granite).")
    String model;

    @Option(names = "--mcpu", paramLabel = "CPU", split = ",", defaultValue = "haswell", description = "CPUs, "
            + "comma-separated or repeated (default ${DEFAULT-VALUE}).")
    List<Microarchitecture> mcpu;

    @Option(names = "--memory", defaultValue = "distinct", paramLabel = "MODEL", converter = MemoryModels.class,
            description = "For the simulator-based models and the bottleneck's bounds: distinct (only accesses the code "
                    + "proves the same alias, as in real code), harness (BHive's measurement harness) or auto; default "
                    + "${DEFAULT-VALUE}.")
    dev.basalt.simulator.Simulator.MemoryModel memory;

    @Option(names = "--format", defaultValue = "text", description = "text, json or csv (default ${DEFAULT-VALUE}).")
    String format;

    @Option(names = "--top", defaultValue = "20", description = "Blocks listed in text form (default "
            + "${DEFAULT-VALUE}; json and csv list all).")
    int top;

    @Mixin
    DebugOption debugOption;

    private static final int BATCH = 256;

    /** One block of one function, with what the model and the bounds make of it. */
    private record Row(String function, ControlFlow.Block block, Optional<Prediction> prediction, String bottleneck) {

        double cycles() {
            return prediction.map(Prediction::cyclesPerIteration).orElse(Double.NaN);
        }
    }

    /** One loop of one function: its blocks' rows. */
    private record LoopRow(String function, ControlFlow.Loop loop, List<Row> rows) {

        /** A loop of one block is that block as a loop body; a longer loop, the sum of its blocks' cycles. */
        double cycles() {
            return rows.stream().mapToDouble(Row::cycles).sum();
        }

        String bottleneck() {
            return rows.stream().filter(r -> !Double.isNaN(r.cycles())).max(Comparator.comparingDouble(Row::cycles))
                    .map(Row::bottleneck).orElse("");
        }
    }

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        BadInputException.format(format, "text", "csv", "json");
        BadInputException.atLeast("--top", top, 0);
        ElfCode.Functions found;
        boolean text = !ElfCode.isElf(file) && java.nio.file.Files.isRegularFile(file);
        if (text) {
            found = BlockInput.functions(file);  // assembly or a listing: its code as the object file would hold it
        } else {
            try {
                found = ElfCode.functions(file);
            } catch (IOException e) {
                throw new BadInputException(e.getMessage());
            }
        }
        if (found.functions().isEmpty()) {
            throw new BadInputException(file + " holds no code: " + (text ? "no instruction in the text"
                    : "no executable section with bytes (a data-only or debug-only ELF file?)"));
        }
        List<ElfCode.Function> functions = found.functions();
        if (function != null) {
            functions = functions.stream().filter(f -> f.name().equals(function)).toList();
            if (functions.isEmpty()) {
                // a stripped library still names its exported functions (the dynamic symbol table)
                functions = found.exported().stream().filter(f -> f.name().equals(function)).toList();
            }
            if (functions.isEmpty()) {
                throw new BadInputException("--function " + function + ": no such function in " + file
                        + (found.stripped() ? " (it is stripped: it has no symbol table, and no exported function of"
                        + " that name)" : ""));
            }
        }
        ThroughputEstimator estimator = PredictCommand.load(model == null ? PredictCommand.DEFAULT_MODEL : model);
        List<Microarchitecture> cpus = mcpu.stream().distinct().toList();
        for (Microarchitecture cpu : cpus) {
            if (!estimator.supported().contains(cpu)) {
                throw new BadInputException("--mcpu " + cpu + ": " + estimator.name() + " has no model for it (it "
                        + "supports " + estimator.supported().stream().map(Microarchitecture::llvmName).toList() + ")");
            }
        }
        PredictCommand.warn(err, "basalt analyze", estimator);
        // the bottleneck is the bounds' winner; with --model bounds they are the model's own predictions
        // A program's code is real code: its accesses alias only where the code proves it (--memory distinct).
        if (estimator instanceof dev.basalt.simulator.LoopAware aware) {
            estimator = aware.withMemory(memory);
        }
        ThroughputEstimator bounds = estimator.name().equals(BoundsEstimator.NAME) ? estimator
                : ((dev.basalt.simulator.LoopAware) PredictCommand.load(BoundsEstimator.NAME)).withMemory(memory);

        List<ControlFlow> flows = new ArrayList<>();
        long instructions = 0;
        long skipped = 0;
        long codeBytes = functions.stream().mapToLong(f -> f.bytes().length).sum();
        // A large program takes seconds to minutes: a bar on stderr (functions done of all), as measure has.
        ProgressBars bars = codeBytes >= PROGRESS_BYTES ? new ProgressBars(err) : null;
        if (bars != null) {
            bars.phase("decoding", functions.size());
        }
        for (ElfCode.Function f : functions) {
            ControlFlow flow = ControlFlow.of(f.bytes(), f.address(), found.knownStarts());
            flows.add(flow);
            instructions += flow.instructions();
            skipped += flow.skippedBytes();
            if (bars != null) {
                bars.progress(flows.size());
            }
        }
        List<Result> results = new ArrayList<>();
        // a stripped file's blocks are named by the exported function they lie in, when one does
        java.util.function.BiFunction<ElfCode.Function, Long, String> naming = found.stripped()
                ? (f, at) -> found.exportedName(at).orElse(f.name()) : (f, at) -> f.name();
        for (Microarchitecture cpu : cpus) {
            if (bars != null) {
                bars.phase("predicting " + cpu.llvmName(), functions.size());
            }
            results.add(analyze(functions, flows, estimator, bounds, cpu, naming,
                    done -> {
                        if (bars != null) {
                            bars.progress(done);
                        }
                    }));
        }
        if (bars != null) {
            bars.close();
        }
        Result first = results.get(0);
        String summary = String.format(Locale.ROOT, "%s%s: %,d function(s), %,d instructions, %,d blocks, %,d loops,"
                + " %,d bytes skipped", file, switch (found.boundaries()) {
                    case UNWIND_TABLE -> " (stripped: functions from the unwind table, .eh_frame)";
                    case SECTIONS -> " (stripped: each executable section analyzed whole)";
                    case SYMBOLS -> "";
                }, functions.size(), instructions, first.blocks().size(), first.loops().size(), skipped);
        switch (format) {
            case "json" -> json(out, found, functions.size(), instructions, skipped, estimator, results);
            case "csv" -> csv(out, estimator, results);
            default -> {
                out.println(summary);
                for (int k = 0; k < results.size(); k++) {
                    if (k > 0) {
                        out.println();
                    }
                    text(out, estimator, results.get(k));
                }
            }
        }
        out.flush();
        if (!format.equals("text")) {
            err.println("basalt analyze: " + summary);
        }
        return 0;
    }

    /** One CPU's rows: loops by cost, blocks by cost. */
    private record Result(Microarchitecture cpu, List<LoopRow> loops, List<Row> blocks) {
    }

    /** Code of at least this many bytes gets a progress bar (gcc's cc1: 20 MB, a minute; /bin/ls: 0.1 MB). */
    static final long PROGRESS_BYTES = 4L << 20;

    private static Result analyze(List<ElfCode.Function> functions, List<ControlFlow> flows,
                                  ThroughputEstimator estimator, ThroughputEstimator bounds, Microarchitecture mcpu,
                                  java.util.function.BiFunction<ElfCode.Function, Long, String> naming,
                                  java.util.function.LongConsumer progress) {
        List<Row> rows = new ArrayList<>();
        List<LoopRow> loops = new ArrayList<>();
        for (int fi = 0; fi < functions.size(); fi++) {
            ElfCode.Function f = functions.get(fi);
            ControlFlow flow = flows.get(fi);
            List<ControlFlow.Block> blocks = flow.blocks();
            Map<Long, Row> byAddress = new java.util.HashMap<>();
            for (int from = 0; from < blocks.size(); from += BATCH) {
                List<ControlFlow.Block> batch = blocks.subList(from, Math.min(blocks.size(), from + BATCH));
                List<BasicBlock> bbs = batch.stream().map(ControlFlow.Block::block).toList();
                List<Optional<Prediction>> predictions = estimator.predictEach(bbs, mcpu);
                List<Optional<Prediction>> limits = bounds == estimator ? predictions
                        : bounds.predictEach(bbs, mcpu);
                for (int k = 0; k < batch.size(); k++) {
                    Row row = new Row(naming.apply(f, batch.get(k).address()), batch.get(k), predictions.get(k),
                            limits.get(k).map(AnalyzeCommand::winner)
                            .orElse(""));
                    rows.add(row);
                    byAddress.put(row.block().address(), row);
                }
            }
            for (ControlFlow.Loop loop : flow.loops()) {
                loops.add(new LoopRow(naming.apply(f, loop.header()), loop, loop.blocks().stream()
                        .map(b -> byAddress.get(b.address()))
                        .toList()));
            }
            progress.accept(fi + 1);
        }
        // a loop that cannot be predicted (NaN) goes last, as its blocks do
        loops.sort(Comparator.comparingDouble((LoopRow l) -> Double.isNaN(l.cycles()) ? -1 : l.cycles()).reversed());
        List<Row> byCost = new ArrayList<>(rows);
        byCost.sort(Comparator.comparingDouble((Row r) -> Double.isNaN(r.cycles()) ? -1 : r.cycles()).reversed());
        return new Result(mcpu, loops, byCost);
    }

    /** The bound that wins: the analytical estimator's largest detail. */
    private static String winner(Prediction p) {
        return p.details().entrySet().stream().max(Map.Entry.comparingByValue()).map(Map.Entry::getKey).orElse("");
    }

    private static String firstInstructions(BasicBlock b, int n) {
        String s = b.instructions().stream().limit(n).map(Instruction::intelSyntax).collect(Collectors.joining("; "));
        return b.size() > n ? s + "; …" : s;
    }

    private static String cycles(double c) {
        return Double.isNaN(c) ? "     error" : String.format(Locale.ROOT, "%10.2f", c);
    }

    private void text(PrintWriter out, ThroughputEstimator estimator, Result result) {
        List<LoopRow> loops = result.loops();
        List<Row> byCost = result.blocks();
        out.println("model " + estimator.name() + " on " + result.cpu()
                + "; cycles per iteration of each block as a loop body;"
                + " of a loop of several blocks, the sum of its blocks (every path once: an upper estimate)");
        out.println("a loop: a branch back to a block at or before its own (within one function), with the blocks "
                + "between that the header reaches and that reach the branch; innermost: no loop inside it");
        out.println();
        List<LoopRow> inner = loops.stream().filter(l -> l.loop().innermost()).toList();
        out.println("innermost loops (" + inner.size() + " of " + loops.size() + "):");
        out.printf(Locale.ROOT, "  %-18s %-24s %6s %6s %10s  %-10s %s%n", "header", "function", "blocks", "instr",
                "cycles", "bottleneck", "instructions");
        for (LoopRow l : inner.subList(0, Math.min(inner.size(), Math.max(top, 0)))) {
            out.printf(Locale.ROOT, "  %#-18x %-24s %6d %6d %s  %-10s %s%n", l.loop().header(), shorten(l.function()),
                    l.loop().blocks().size(), l.loop().instructions(), cycles(l.cycles()), l.bottleneck(),
                    firstInstructions(l.rows().get(0).block().block(), 3));
        }
        if (inner.size() > top) {
            out.println("  … " + (inner.size() - top) + " more (--top, or --format csv for all loops)");
        }
        out.println();
        out.println("blocks by cost (" + byCost.size() + "):");
        out.printf(Locale.ROOT, "  %-18s %-24s %6s %10s  %-10s %s%n", "address", "function", "instr", "cycles",
                "bottleneck", "instructions");
        for (Row r : byCost.subList(0, Math.min(byCost.size(), Math.max(top, 0)))) {
            out.printf(Locale.ROOT, "  %#-18x %-24s %6d %s  %-10s %s%n", r.block().address(), shorten(r.function()),
                    r.block().block().size(), cycles(r.cycles()), r.bottleneck(),
                    firstInstructions(r.block().block(), 3));
            r.prediction().ifPresent(p -> p.notes().forEach(n -> out.println("      note: " + n)));
        }
        if (byCost.size() > top) {
            out.println("  … " + (byCost.size() - top) + " more (--top, or --format csv for all)");
        }
    }

    private static String shorten(String name) {
        return name.length() <= 24 ? name : name.substring(0, 23) + "…";
    }

    private void csv(PrintWriter out, ThroughputEstimator estimator, List<Result> results) {
        out.println("kind,function,address,blocks,instructions,hex,mcpu,model,model_version,cycles_per_iteration,"
                + "interval_low,interval_high,bottleneck,note,error");
        for (Result result : results) {
            csv(out, estimator, result.cpu(), result.loops(), result.blocks());
        }
    }

    private void csv(PrintWriter out, ThroughputEstimator estimator, Microarchitecture mcpu, List<LoopRow> loops,
                     List<Row> byCost) {
        String version = PredictCommand.version(estimator, mcpu);
        for (LoopRow l : loops) {
            boolean ok = l.rows().stream().noneMatch(r -> r.prediction().isEmpty());
            out.println(String.join(",", l.loop().innermost() ? "innermost_loop" : "loop",
                    PredictCommand.csvCell(l.function()),
                    hex(l.loop().header()),
                    String.valueOf(l.loop().blocks().size()), String.valueOf(l.loop().instructions()),
                    l.loop().blocks().size() == 1 ? l.loop().blocks().get(0).block().hex() : "", mcpu.llvmName(),
                    estimator.name(), version, ok ? String.format(Locale.ROOT, "%.4f", l.cycles()) : "",
                    interval(l, true),
                    interval(l, false),
                    l.bottleneck(), "", ok ? "" : "a block of the loop cannot be predicted"));
        }
        for (Row r : byCost) {
            Prediction p = r.prediction().orElse(null);
            out.println(String.join(",", "block", PredictCommand.csvCell(r.function()), hex(r.block().address()), "1",
                    String.valueOf(r.block().block().size()), r.block().block().hex(), mcpu.llvmName(),
                    estimator.name(),
                    version, p == null ? "" : String.format(Locale.ROOT, "%.4f", p.cyclesPerIteration()),
                    p == null ? "" : p.interval().map(iv -> String.format(Locale.ROOT, "%.4f", iv.low())).orElse(""),
                    p == null ? "" : p.interval().map(iv -> String.format(Locale.ROOT, "%.4f", iv.high())).orElse(""),
                    r.bottleneck(), p == null ? "" : PredictCommand.csvCell(p.note()),
                    p == null ? PredictCommand.csvCell(refusal(r, estimator, mcpu)) : ""));
        }
    }

    /** A one-block loop's interval is its block's; a longer loop has none (its blocks' errors are not independent). */
    private static String interval(LoopRow l, boolean low) {
        if (l.rows().size() != 1) {
            return "";
        }
        return l.rows().get(0).prediction().flatMap(Prediction::interval)
                .map(iv -> String.format(Locale.ROOT, "%.4f", low ? iv.low() : iv.high())).orElse("");
    }

    private static String refusal(Row r, ThroughputEstimator estimator, Microarchitecture mcpu) {
        return dev.basalt.core.IsaSupport.unsupported(r.block().block(), mcpu)
                .orElse(estimator.name() + " cannot predict this block on " + mcpu);
    }

    private static String hex(long address) {
        return String.format(Locale.ROOT, "0x%x", address);
    }

    private void json(PrintWriter out, ElfCode.Functions found, int functions, long instructions, long skipped,
                      ThroughputEstimator estimator, List<Result> results) {
        ObjectMapper mapper = new ObjectMapper();
        ObjectNode root = mapper.createObjectNode();
        root.put("file", file.toString());
        root.put("stripped", found.stripped());
        root.put("function_boundaries", found.boundaries().name().toLowerCase(Locale.ROOT));
        root.put("functions", functions);
        root.put("instructions", instructions);
        root.put("blocks", results.get(0).blocks().size());
        root.put("loops", results.get(0).loops().size());
        root.put("skipped_bytes", skipped);
        ArrayNode perCpu = root.putArray("results");
        for (Result result : results) {
            json(perCpu.addObject(), estimator, result);
        }
        out.println(root.toPrettyString());
    }

    /** One CPU's loops and blocks. */
    private static void json(ObjectNode node, ThroughputEstimator estimator, Result result) {
        Microarchitecture mcpu = result.cpu();
        List<LoopRow> loops = result.loops();
        List<Row> byCost = result.blocks();
        node.put("mcpu", mcpu.llvmName());
        node.put("model", estimator.name());
        node.put("model_version", PredictCommand.version(estimator, mcpu));
        ArrayNode ls = node.putArray("loop_list");
        for (LoopRow l : loops) {
            ObjectNode n = ls.addObject();
            n.put("function", l.function());
            n.put("header", hex(l.loop().header()));
            n.put("latch", hex(l.loop().latch()));
            n.put("innermost", l.loop().innermost());
            ArrayNode addresses = n.putArray("block_addresses");
            l.loop().blocks().forEach(b -> addresses.add(hex(b.address())));
            n.put("instructions", l.loop().instructions());
            if (l.rows().stream().noneMatch(r -> r.prediction().isEmpty())) {
                n.put("cycles_per_iteration", l.cycles());
            } else {
                n.put("error", "a block of the loop cannot be predicted");
            }
            n.put("bottleneck", l.bottleneck());
        }
        ArrayNode bs = node.putArray("block_list");
        for (Row r : byCost) {
            ObjectNode n = bs.addObject();
            n.put("function", r.function());
            n.put("address", hex(r.block().address()));
            n.put("hex", r.block().block().hex());
            n.put("instructions", r.block().block().size());
            if (r.prediction().isPresent()) {
                Prediction p = r.prediction().get();
                n.put("cycles_per_iteration", p.cyclesPerIteration());
                p.interval().ifPresent(iv -> {
                    n.put("interval_low", iv.low());
                    n.put("interval_high", iv.high());
                });
                n.put("bottleneck", r.bottleneck());
                n.put("note", p.note());
            } else {
                n.put("error", refusal(r, estimator, mcpu));
            }
        }
    }
}
