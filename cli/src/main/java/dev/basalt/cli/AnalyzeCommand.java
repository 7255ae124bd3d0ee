package dev.basalt.cli;

import dev.basalt.core.Microarchitecture;
import dev.basalt.core.Prediction;
import dev.basalt.core.ThroughputEstimator;
import dev.basalt.decoder.BasicBlock;
import dev.basalt.decoder.ControlFlow;
import dev.basalt.decoder.ElfCode;
import dev.basalt.decoder.PerfSamples;
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
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.function.BiFunction;

/**
 * {@code basalt analyze FILE}: the basic blocks and loops of an ELF program, shared library or object file,
 * each block predicted as the body of a loop (as BHive measured blocks), with its bottleneck from the analytical
 * bounds; loops first, then blocks by cost, or by their share of a profile's samples. The program is read a window
 * of functions at a time and its rows streamed out ({@link AnalyzeOutput}): time and memory grow with its code.
 */
@Command(name = "analyze", mixinStandardHelpOptions = true,
        description = {"Find the basic blocks and loops of an x86-64 ELF file (executable, shared library or object"
                + " file), or of assembly text (a .s file or an objdump -d listing), and predict each block's cycles"
                + " per iteration, loops first, then blocks by cost.",
                "Functions come from the symbol table, else from the unwind table (.eh_frame); a file with neither is"
                        + " analyzed section by section. With --profile, loops and blocks are ranked by their share of"
                        + " a perf profile's samples."})
final class AnalyzeCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "FILE", description = "An x86-64 ELF file, or assembly text (Intel or "
            + "AT&T syntax; an objdump -d listing).")
    Path file;

    @Option(names = "--function", paramLabel = "NAME", description = "Only this function (default: every function"
            + " of the file's executable sections).")
    String function;

    @Option(names = "--model", paramLabel = "NAME|FILE", description = "As in predict (default granite).")
    String model;

    @Option(names = "--mcpu", paramLabel = "CPU", split = ",", description = "CPUs, comma-separated or repeated ("
            + DefaultCpus.HELP + ").")
    List<Microarchitecture> mcpu;

    @Option(names = "--memory", defaultValue = "auto", paramLabel = "MODEL", converter = MemoryModels.class,
            description = "For the simulator-based models and the bottleneck's bounds: auto (harness for "
                    + "straight-line blocks, distinct for loops, as in predict), distinct (only accesses the code "
                    + "proves the same alias) or harness (BHive's measurement harness); default ${DEFAULT-VALUE}.")
    dev.basalt.simulator.Simulator.MemoryModel memory;

    @Option(names = "--format", defaultValue = "text", description = "text, json or csv (default ${DEFAULT-VALUE}).")
    String format;

    @Option(names = "--top", defaultValue = "20", description = "Blocks listed in text form (default "
            + "${DEFAULT-VALUE}; json and csv list all, in address order).")
    int top;

    @Option(names = "--profile", paramLabel = "PERF", description = "A profile of the program: the text `perf script"
            + " --show-mmap-events` prints (or a perf.data file, read through perf). Loops and blocks are then ranked"
            + " by their share of the file's samples.")
    Path profile;

    @Mixin
    DebugOption debugOption;

    /** Functions are decoded together (in parallel) and their blocks predicted together, this much code at a time. */
    static final int WINDOW_BYTES = 256 << 10;

    /** Code of at least this many bytes gets a progress bar (gcc's cc1: 20 MB, a minute; /bin/ls: 0.1 MB). */
    static final long PROGRESS_BYTES = 4L << 20;

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
        List<Microarchitecture> cpus = DefaultCpus.resolve(mcpu, estimator.supported(), spec.commandLine().getErr(),
                "basalt analyze");
        for (Microarchitecture cpu : cpus) {
            if (!estimator.supported().contains(cpu)) {
                throw new BadInputException("--mcpu " + cpu + ": " + estimator.name() + " has no model for it (it "
                        + "supports " + estimator.supported().stream().map(Microarchitecture::llvmName).toList() + ")");
            }
        }
        PerfSamples.Counts samples = profile == null ? null : readProfile(found, text);
        PredictCommand.warn(err, "basalt analyze", estimator);
        // the bottleneck is the bounds' winner; with --model bounds they are the model's own predictions
        // A program's code is real code: its accesses alias only where the code proves it (--memory distinct).
        if (estimator instanceof dev.basalt.simulator.LoopAware aware) {
            estimator = aware.withMemory(memory);
        }
        ThroughputEstimator bounds = estimator.name().equals(BoundsEstimator.NAME) ? estimator
                : ((dev.basalt.simulator.LoopAware) PredictCommand.load(BoundsEstimator.NAME)).withMemory(memory);

        AnalyzeOutput.Header header = new AnalyzeOutput.Header(file, found, estimator, cpus,
                Optional.ofNullable(samples), profile);
        long codeBytes = functions.stream().mapToLong(f -> f.bytes().length).sum();
        // A large program takes seconds to minutes: a bar on stderr (functions done of all), as measure has.
        try (AnalyzeOutput sink = AnalyzeOutput.of(format, out, header, top);
             ProgressBars bars = codeBytes >= PROGRESS_BYTES ? new ProgressBars(err) : null) {
            if (bars != null) {
                bars.phase("analyzing", functions.size());
            }
            // a stripped file's blocks are named by the exported function they lie in, when one does
            BiFunction<ElfCode.Function, Long, String> naming = found.stripped()
                    ? (f, at) -> found.exportedName(at).orElse(f.name()) : (f, at) -> f.name();
            int done = 0;
            for (List<ElfCode.Function> window : windows(functions)) {
                analyze(window, found, estimator, bounds, cpus, naming, samples, sink);
                done += window.size();
                if (bars != null) {
                    bars.progress(done);
                }
            }
            if (bars != null) {
                bars.close();
            }
            String summary = sink.finish();
            out.flush();
            if (!format.equals("text")) {
                err.println("basalt analyze: " + summary);
            }
        }
        return 0;
    }

    /** The profile's samples of the analyzed file; a perf.data file is read through {@code perf script}. */
    private PerfSamples.Counts readProfile(ElfCode.Functions found, boolean assembly) throws IOException {
        if (assembly) {
            throw new BadInputException("--profile " + profile + ": " + file + " is assembly text; a profile maps "
                    + "samples to the addresses of the ELF program that ran");
        }
        if (java.nio.file.Files.isDirectory(profile) || !java.nio.file.Files.isReadable(profile)) {
            throw new BadInputException("--profile " + profile + ": no such file, or not readable");
        }
        PerfSamples.Counts counts;
        try {
            counts = PerfSamples.isPerfData(profile) ? PerfScript.read(profile, file, found)
                    : PerfSamples.read(profile, file, found);
        } catch (IOException e) {
            throw new BadInputException("--profile " + e.getMessage());
        }
        if (counts.inFile() == 0) {
            throw new BadInputException("--profile " + profile + ": none of its " + counts.total() + " samples is in "
                    + file + " (it has samples of " + String.join(", ", counts.others().keySet()) + ")");
        }
        return counts;
    }

    /** The functions in runs of about {@link #WINDOW_BYTES} of code, in address order. */
    private static List<List<ElfCode.Function>> windows(List<ElfCode.Function> functions) {
        List<List<ElfCode.Function>> out = new ArrayList<>();
        int from = 0;
        long bytes = 0;
        for (int k = 0; k < functions.size(); k++) {
            bytes += functions.get(k).bytes().length;
            if (bytes >= WINDOW_BYTES || k == functions.size() - 1) {
                out.add(functions.subList(from, k + 1));
                from = k + 1;
                bytes = 0;
            }
        }
        return out;
    }

    /**
     * One window of functions: decoded in parallel, every block predicted in one call per CPU (the estimators
     * spread a call over the cores), then handed to the output function by function, CPU by CPU.
     */
    private static void analyze(List<ElfCode.Function> window, ElfCode.Functions found, ThroughputEstimator estimator,
                                ThroughputEstimator bounds, List<Microarchitecture> cpus,
                                BiFunction<ElfCode.Function, Long, String> naming, PerfSamples.Counts samples,
                                AnalyzeOutput sink) {
        List<ControlFlow> flows = window.parallelStream()
                .map(f -> ControlFlow.of(f.bytes(), f.address(), found.knownStarts())).toList();
        List<BasicBlock> blocks = new ArrayList<>();
        flows.forEach(flow -> flow.blocks().forEach(b -> blocks.add(b.block())));
        // each block's profile samples, counted once for every CPU
        long[] hits = new long[blocks.size()];
        if (samples != null) {
            int b = 0;
            for (ControlFlow flow : flows) {
                for (ControlFlow.Block block : flow.blocks()) {
                    hits[b++] = samples.between(block.address(), block.address() + block.block().length());
                }
            }
        }
        for (int c = 0; c < cpus.size(); c++) {
            Microarchitecture cpu = cpus.get(c);
            List<Optional<Prediction>> predictions = estimator.predictEach(blocks, cpu);
            List<Optional<Prediction>> limits = bounds == estimator ? predictions : bounds.predictEach(blocks, cpu);
            int at = 0;
            for (int fi = 0; fi < window.size(); fi++) {
                ElfCode.Function f = window.get(fi);
                ControlFlow flow = flows.get(fi);
                List<AnalyzeOutput.Row> rows = new ArrayList<>();
                Map<Long, AnalyzeOutput.Row> byAddress = new java.util.HashMap<>();
                for (ControlFlow.Block b : flow.blocks()) {
                    AnalyzeOutput.Row row = new AnalyzeOutput.Row(naming.apply(f, b.address()), b,
                            predictions.get(at), limits.get(at).map(AnalyzeCommand::winner).orElse(""), hits[at]);
                    at++;
                    rows.add(row);
                    byAddress.put(b.address(), row);
                }
                List<AnalyzeOutput.LoopRow> loops = new ArrayList<>();
                for (ControlFlow.Loop loop : flow.loops()) {
                    loops.add(new AnalyzeOutput.LoopRow(naming.apply(f, loop.header()), loop,
                            loop.blocks().stream().map(b -> byAddress.get(b.address())).toList()));
                }
                sink.accept(c, flow, loops, rows);
            }
        }
    }

    /** The bound that wins: the analytical estimator's largest detail. */
    private static String winner(Prediction p) {
        return p.details().entrySet().stream().max(Map.Entry.comparingByValue()).map(Map.Entry::getKey).orElse("");
    }
}
