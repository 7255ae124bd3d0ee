package dev.basalt.cli;

import dev.basalt.core.Microarchitecture;
import dev.basalt.decoder.BasicBlock;
import dev.basalt.decoder.DecodeException;
import dev.basalt.simulator.Bottleneck;
import dev.basalt.simulator.bounds.Bounds;
import dev.basalt.simulator.Simulator;
import dev.basalt.simulator.SimulatorEstimator;
import dev.basalt.simulator.params.SimulatorParams;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/** {@code basalt simulate}: run the cycle simulator on blocks. */
@Command(name = "simulate", mixinStandardHelpOptions = true,
        description = "Simulate blocks on the cycle simulator's core (front end, rename, ports, memory) and print "
                + "cycles per iteration, port pressure, the bottleneck, the bounds and where each instruction waited.")
final class SimulateCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Parameters(arity = "0..*", paramLabel = "BLOCK", description = "Blocks as hex or assembly "
            + "(\"add rax, rbx; imul rax, rax\").")
    List<String> arguments;

    @Mixin
    BlockInput blockInput;

    @Option(names = "--mcpu", paramLabel = "CPU", split = ",",
            description = "CPUs, comma-separated or repeated (" + DefaultCpus.HELP + ").")
    List<Microarchitecture> mcpu;

    @Option(names = "--params", paramLabel = "FILE", description = "Parameter table, e.g. one written by basalt tune (default: the bundled standard table).")
    Path paramsFile;

    @Option(names = "--untuned", description = "Use the untuned llvm-mca table (default: the standard table, "
            + "tuned where tuning beat it).")
    boolean untuned;

    @Option(names = "--mode", defaultValue = "auto", paramLabel = "MODE", converter = LoopModes.class,
            description = "auto (a block ending in a jump back to its start is a loop), loop, or unroll (BHive's "
                    + "straight-line model); default ${DEFAULT-VALUE}.")
    Simulator.LoopMode mode;

    @Option(names = "--memory", defaultValue = "auto", paramLabel = "MODEL", converter = MemoryModels.class,
            description = "Which loads and stores alias: harness (BHive's measurement harness: every pointer into one "
                    + "page), distinct (only accesses the code proves the same, as uiCA and llvm-mca assume), or auto "
                    + "(harness for straight-line blocks, distinct for loops); default ${DEFAULT-VALUE}.")
    Simulator.MemoryModel memory;

    @Option(names = "--iterations", defaultValue = "100", description = "Iterations (default ${DEFAULT-VALUE}).")
    int iterations;

    @Option(names = "--no-stack-engine", description = "Charge push/pop rsp updates like llvm-mca does.")
    boolean noStackEngine;

    @Option(names = "--timeline", description = "Print the predecoded, decoded, issued (rename), dispatched (to a "
            + "port), executed and retired cycles of the first instructions (docs/glossary.md).")
    boolean timeline;

    @Option(names = "--format", defaultValue = "text", description = "text, json or csv (default ${DEFAULT-VALUE}).")
    String format;

    @Option(names = "--view", defaultValue = "summary", paramLabel = "VIEW", description = "summary (cycles, ports, "
            + "bottleneck, bounds), instructions (per instruction: micro-ops, latency, ports with cycles on each, what "
            + "it reads) or timeline (per instance and stage, llvm-mca's -timeline); default ${DEFAULT-VALUE}. "
            + "Columns: docs/views.md.")
    String view;

    @Option(names = "--llvm-mca-compatible", description = "Run the first-generation machine as llvm-mca 14 does: "
            + "issue width, unfused micro-ops, no front end, no stack engine, loads never wait for stores.")
    boolean llvmMcaCompatible;

    @Mixin
    MachineSwitches switches;

    @Mixin
    DebugOption debugOption;

    /** Each table's fingerprint, hashed once: hashing a whole table per block made a long input crawl. */
    private final java.util.Map<SimulatorParams, String> fingerprints = new java.util.IdentityHashMap<>();

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        BadInputException.format(format, "text", "json", "csv");
        if (!List.of("summary", "instructions", "timeline").contains(view)) {
            throw new BadInputException("unknown --view '" + view + "': use summary, instructions or timeline");
        }
        if (!view.equals("summary") && llvmMcaCompatible) {
            throw new BadInputException("--view " + view + " shows the second machine: drop --llvm-mca-compatible");
        }
        if (format.equals("csv")) {
            out.println(switch (view) {
                case "instructions" -> SimulateViews.INSTRUCTIONS_CSV;
                case "timeline" -> SimulateViews.TIMELINE_CSV;
                default -> CSV_HEADER;
            });
        }
        if (llvmMcaCompatible && switches.any()) {
            throw new BadInputException("--llvm-mca-compatible turns every mechanism off; drop " + switches.describe());
        }
        Simulator.Options options = BadInputException.check("--iterations", () -> llvmMcaCompatible
                ? Simulator.Options.llvmMcaCompatible().withIterations(iterations)
                : switches.apply(new Simulator.Options(iterations, !noStackEngine, true))).withLoopMode(mode)
                .withMemory(memory);
        List<BlockInput.Input> sourced = blockInput.inputs(arguments);
        List<String> blocks = sourced.stream().map(BlockInput.Input::hex).toList();
        if (blocks.isEmpty()) {
            throw new BadInputException("no blocks: give hex arguments or --input FILE");
        }
        com.fasterxml.jackson.databind.ObjectMapper mapper = new com.fasterxml.jackson.databind.ObjectMapper();
        com.fasterxml.jackson.databind.node.ArrayNode json = mapper.createArrayNode();
        if (untuned && paramsFile != null) {
            throw new BadInputException("give --params or --untuned, not both");
        }
        if (paramsFile != null && mcpu != null && mcpu.size() > 1) {
            throw new BadInputException("--params is one CPU's table: give one --mcpu with it, not " + mcpu.size());
        }
        List<Microarchitecture> cpus = paramsFile != null && (mcpu == null || mcpu.isEmpty())
                ? List.of(paramsCpu())  // a table file is one CPU's: simulate it as that CPU
                : DefaultCpus.resolve(mcpu, Microarchitecture.all(), spec.commandLine().getErr(), "basalt simulate");
        List<Simulator> sims = new java.util.ArrayList<>();
        for (Microarchitecture uarch : cpus) {
            sims.add(new Simulator(table(uarch, err)));
        }
        boolean failed = false;
        for (int k = 0; k < blocks.size(); k++) {
            BasicBlock block;
            try {
                block = BasicBlock.fromHex(blocks.get(k));
            } catch (DecodeException e) {
                err.println("basalt simulate: input " + (k + 1) + " '" + DecodeCommand.abbreviate(blocks.get(k)) + "': "
                        + e.getMessage());
                for (Microarchitecture c : cpus) {
                    json.addObject().put("hex", blocks.get(k)).put("mcpu", c.llvmName()).put("error", e.getMessage());
                    if (format.equals("csv")) {
                        out.println(csvError(blocks.get(k), c, e.getMessage()) + PredictCommand.csvCell(sourced.get(k).source()));
                    }
                }
                failed = true;
                continue;
            }
            for (int c = 0; c < cpus.size(); c++) {
                java.util.Optional<String> cannot = dev.basalt.core.IsaSupport.unsupported(block, cpus.get(c));
                if (cannot.isEmpty() && mode == Simulator.LoopMode.LOOP && !Simulator.endsInJump(block)) {
                    cannot = java.util.Optional.of("--mode loop: the block does not end in a jump back to its start");
                }
                if (cannot.isPresent()) { // no number for code the CPU cannot run; the other blocks go on
                    err.println("basalt simulate: input " + (k + 1) + " '" + DecodeCommand.abbreviate(blocks.get(k)) + "': "
                            + cannot.get());
                    json.addObject().put("hex", blocks.get(k)).put("mcpu", cpus.get(c).llvmName())
                            .put("error", cannot.get());
                    if (format.equals("csv")) {
                        out.println(csvError(blocks.get(k), cpus.get(c), cannot.get())
                                + PredictCommand.csvCell(sourced.get(k).source()));
                    }
                    failed = true;
                    continue;
                }
                String source = sourced.get(k).source();
                if (!view.equals("summary")) {
                    view(out, json, mapper, block, cpus.get(c), sims.get(c), options, source);
                } else if (format.equals("json")) {
                    json.add(toJson(mapper, block, cpus.get(c), sims.get(c), options).put("input", source)
                            .set("source", simulatorSource()));
                } else if (format.equals("csv")) {
                    out.println(toCsv(block, cpus.get(c), sims.get(c), options) + "," + PredictCommand.csvCell(source));
                } else {
                    print(out, block, cpus.get(c), sims.get(c), options);
                    if (!source.startsWith("block argument") || source.contains(":")) {
                        out.println("  from " + source);
                    }
                }
            }
        }
        if (format.equals("json")) {
            out.println(dev.basalt.core.ReportJson.pretty(json));
        }
        out.flush();
        return failed ? Basalt.EXIT_BAD_INPUT : 0;
    }

    /** The instructions or timeline view of one block on one CPU, in the chosen format. */
    private void view(PrintWriter out, com.fasterxml.jackson.databind.node.ArrayNode json,
                      com.fasterxml.jackson.databind.ObjectMapper mapper, BasicBlock block, Microarchitecture uarch,
                      Simulator sim, Simulator.Options options, String source) {
        Simulator.Result r = sim.run(block, options);
        Simulator.FrontEnd fe = sim.frontEnd(block, options);
        Bounds bounds = sim.bounds(block, options);
        boolean instructions = view.equals("instructions");
        switch (format) {
            case "json" -> {
                com.fasterxml.jackson.databind.node.ObjectNode n = json.addObject();
                n.put("hex", block.hex()).put("mcpu", uarch.llvmName()).put("input", source)
                        .put("cycles_per_iteration", r.cyclesPerIteration()).set("source", simulatorSource());
                if (instructions) {
                    SimulateViews.instructionsJson(n, block, sim, r, bounds);
                } else {
                    SimulateViews.timelineJson(n, block, r, fe);
                }
            }
            case "csv" -> {
                if (instructions) {
                    SimulateViews.instructionsCsv(out, block, uarch, sim, r, bounds, source);
                } else {
                    SimulateViews.timelineCsv(out, block, uarch, r, fe, source);
                }
            }
            default -> {
                if (instructions) {
                    SimulateViews.instructionsText(out, block, uarch, sim, options, r, bounds);
                } else {
                    SimulateViews.timelineText(out, block, uarch, r, fe);
                }
                if (!source.startsWith("block argument") || source.contains(":")) {
                    out.println("  from " + source);
                }
            }
        }
    }

    /** The table to simulate {@code uarch} with (--params, --untuned or the standard one), with notes on stderr. */
    private SimulatorParams table(Microarchitecture uarch, PrintWriter err) {
        if (paramsFile == null && SimulatorParams.imported(uarch).isEmpty()) {
            throw new BadInputException("--mcpu " + uarch + ": this build has no simulator table for it");
        }
        SimulatorParams params = paramsFile != null ? ParamsCommand.Import.readTable("--params", paramsFile)
                : untuned ? SimulatorParams.bundled(uarch) : SimulatorParams.standard(uarch);
        if (!params.mcpu().equals(uarch.llvmName())) {
            err.println("basalt simulate: note: " + (paramsFile == null ? "the table" : paramsFile) + " is for "
                    + params.mcpu() + ", simulating it as " + uarch.llvmName());
        }
        if (uarch.descriptor().bhive().isEmpty() && mcpu != null && !mcpu.isEmpty()) {
            // (for a CPU the user named: the default CPUs are said in one line, which says what backs them)
            err.println("basalt simulate: note: " + uarch + ": " + uarch.descriptor().notes());
        }
        return params;
    }

    /** What produced simulate's numbers, in JSON's words (the same as predict's {@code source}). */
    private static com.fasterxml.jackson.databind.node.ObjectNode simulatorSource() {
        return dev.basalt.core.ReportJson.source(new dev.basalt.core.Source("simulator", "", "", List.of()));
    }

    /** The CPU a table file is for, as {@code --mcpu} would name it. */
    private Microarchitecture paramsCpu() throws java.io.IOException {
        String name = ParamsCommand.Import.readTable("--params", paramsFile).mcpu();
        return Microarchitecture.find(name).orElseThrow(() -> new BadInputException("--params " + paramsFile
                + " is for " + name + ", which Basalt does not know: give --mcpu"));
    }

    /** The csv columns: json's figures that are one number or word per block and CPU. */
    private static final String CSV_HEADER = "hex,mcpu,table,cycles_per_iteration,total_cycles,iterations,mode,memory,"
            + java.util.Arrays.stream(Bounds.Kind.values()).map(k -> k.name().toLowerCase(Locale.ROOT))
            .collect(java.util.stream.Collectors.joining(",")) + ",bound_winner,note,error,source,input";

    private static String csvError(String hex, Microarchitecture uarch, String error) {
        // numeric columns stay empty: table … the bounds, winner, note
        return hex + "," + uarch.llvmName() + "," + ",".repeat(CSV_HEADER.split(",").length - 5)
                + PredictCommand.csvCell(error) + ",,";
    }

    private String toCsv(BasicBlock block, Microarchitecture uarch, Simulator sim, Simulator.Options options) {
        Simulator.Result r = sim.run(block, options);
        Simulator.FrontEnd fe = sim.frontEnd(block, options);
        StringBuilder sb = new StringBuilder(String.join(",", block.hex(), uarch.llvmName(), sim.params().fingerprint(),
                String.format(Locale.ROOT, "%.4f", r.cyclesPerIteration()), Long.toString(r.totalCycles()),
                Integer.toString(iterations), fe.loop() ? "loop" : "unrolled", options.memoryOf(block)));
        Bounds b = options.secondGeneration() ? sim.bounds(block, options) : null;
        for (Bounds.Kind k : Bounds.Kind.values()) {
            sb.append(',').append(b == null ? "" : String.format(Locale.ROOT, "%.4f", b.value(k)));
        }
        sb.append(',').append(b == null ? "" : b.winner().name().toLowerCase(Locale.ROOT));
        sb.append(',').append(PredictCommand.csvCell(String.join("; ", SimulatorEstimator.notes(block,
                r.fallbacks())))).append(",,simulator");
        return sb.toString();
    }

    /** What {@link #print} says, as one JSON object with snake_case keys (the timeline when asked). */
    private com.fasterxml.jackson.databind.node.ObjectNode toJson(com.fasterxml.jackson.databind.ObjectMapper mapper,
                                                                  BasicBlock block, Microarchitecture uarch,
                                                                  Simulator sim, Simulator.Options options) {
        SimulatorParams params = sim.params();
        Simulator.Result r = sim.run(block, options);
        Simulator.FrontEnd fe = sim.frontEnd(block, options);
        com.fasterxml.jackson.databind.node.ObjectNode n = mapper.createObjectNode();
        n.put("hex", block.hex());
        n.put("mcpu", uarch.llvmName());
        n.put("table", fingerprints.computeIfAbsent(params, SimulatorParams::fingerprint));
        n.put("cycles_per_iteration", r.cyclesPerIteration());
        n.put("total_cycles", r.totalCycles());
        n.put("iterations", iterations);
        n.put("mode", fe.loop() ? "loop" : "unrolled");
        n.put("memory", options.memoryOf(block));
        n.put("uop_source", fe.source().name().toLowerCase(Locale.ROOT));
        com.fasterxml.jackson.databind.node.ArrayNode pairs = n.putArray("fused_pairs");
        fe.fusedPairs().forEach(f -> pairs.addArray().add(f).add(f + 1));
        com.fasterxml.jackson.databind.node.ArrayNode insns = n.putArray("instructions");
        for (int i = 0; i < block.size(); i++) {
            insns.addObject().put("index", i).put("instruction", block.instruction(i).intelSyntax())
                    .put("form", block.instruction(i).form()).put("wait_cycles", r.waitCycles()[i]);
        }
        // the port table: the bounds' balanced spread on the second machine (its busiest is the port bound), the
        // run's own use beside it; the first machine has only its run
        double[] table = options.secondGeneration() ? sim.bounds(block, options).portLoads() : r.portCycles();
        com.fasterxml.jackson.databind.node.ObjectNode ports = n.putObject("port_cycles");
        com.fasterxml.jackson.databind.node.ObjectNode run = n.putObject("port_cycles_run");
        for (int p = 0; p < params.ports().size(); p++) {
            ports.put(params.ports().get(p), table[p]);
            run.put(params.ports().get(p), r.portCycles()[p]);
        }
        Bottleneck bottleneck = sim.bottleneck(block, options);
        com.fasterxml.jackson.databind.node.ObjectNode bn = n.putObject("bottleneck");
        bn.put("kind", bottleneck.kind().name().toLowerCase(Locale.ROOT));
        bn.put("resource", bottleneck.resource());
        com.fasterxml.jackson.databind.node.ArrayNode on = bn.putArray("instructions");
        bottleneck.instructions().forEach(on::add);
        bn.put("cycles", bottleneck.cycles());
        bn.put("description", bottleneck.describe());
        if (options.secondGeneration()) {
            Bounds b = sim.bounds(block, options);
            com.fasterxml.jackson.databind.node.ObjectNode bounds = n.putObject("bounds");
            for (Bounds.Kind k : Bounds.Kind.values()) {
                bounds.put(k.name().toLowerCase(Locale.ROOT), b.value(k));
            }
            bounds.put("port_set", b.portSet());
            bounds.put("winner", b.winner().name().toLowerCase(Locale.ROOT));
            com.fasterxml.jackson.databind.node.ArrayNode critical = bounds.putArray("critical");
            b.critical().forEach(critical::add);
        }
        com.fasterxml.jackson.databind.node.ArrayNode notes = n.putArray("notes");
        SimulatorEstimator.notes(block, r.fallbacks()).forEach(notes::add);
        if (timeline) {
            com.fasterxml.jackson.databind.node.ArrayNode rows = n.putArray("timeline");
            for (int[] t : r.timeline()) {
                rows.addObject().put("instance", t[0]).put("instruction", t[0] % block.size())
                        .put("predecode", t[1]).put("decode", t[2]).put("issue", t[3]).put("dispatch", t[4])
                        .put("done", t[5]).put("retire", t[6]);
            }
        }
        return n;
    }

    /** {@code label 0=1.00 1=0.50 …}: the ports with cycles on them, every port when none has any. */
    private static String portLine(String label, List<String> names, double[] cycles) {
        StringBuilder line = new StringBuilder(label);
        boolean any = java.util.Arrays.stream(cycles).anyMatch(c -> c > 0.005);
        for (int p = 0; p < names.size(); p++) {
            if (!any || cycles[p] > 0.005) {
                line.append(String.format(Locale.ROOT, " %s=%.2f", names.get(p), cycles[p]));
            }
        }
        return line.toString();
    }

    /** One block's run on one CPU: cycles, waits, ports, bottleneck, bounds, fallbacks, notes, timeline. */
    private void print(PrintWriter out, BasicBlock block, Microarchitecture uarch, Simulator sim,
                       Simulator.Options options) {
        SimulatorParams params = sim.params();
        {
            Simulator.Result r = sim.run(block, options);
            out.printf(Locale.ROOT, "block %s on %s: %.2f cycles/iteration (%d cycles, %d iterations)%n", block.hex(),
                    uarch, r.cyclesPerIteration(), r.totalCycles(), iterations);
            Simulator.FrontEnd fe = sim.frontEnd(block, options);
            if (options.secondGeneration()) {
                out.println("  mode: " + fe.describe() + "; " + options.memoryOf(block) + " memory");
            }
            for (int i = 0; i < block.size(); i++) {
                out.printf(Locale.ROOT, "  %2d  %-40s  %-28s waits %.1f%n", i, block.instruction(i).intelSyntax(),
                        block.instruction(i).form(), r.waitCycles()[i]);
            }
            Bottleneck b = sim.bottleneck(block, options);
            if (options.secondGeneration()) {
                // one story: the port table, the bottleneck and the bounds all come from the analytical bounds
                // (DESIGN.md §13); the run's own port use, counted over its iterations warm-up included, is in json
                // (port_cycles_run) and not set beside them
                Bounds bounds = sim.bounds(block, options);
                out.println(portLine("  port pressure (cycles/iteration, micro-ops spread as the port bound spreads "
                        + "them):", params.ports(), bounds.portLoads()));
                out.println("  bottleneck: " + b.describe());
                out.println("  bounds (cycles/iteration): " + bounds.describe());
                out.println("  waits: mean cycles an instruction spent from issue (rename) to dispatch to a port, "
                        + "waiting for its operands or a port; long waits behind a slow chain are the front end running"
                        + " ahead of it, not a stall");
            } else {
                out.println(portLine("  port cycles/iteration:", params.ports(), r.portCycles()));
                out.println("  bottleneck: " + b.describe());
                out.println("  bounds (cycles/iteration): " + b.bounds());
            }
            if (!r.fallbacks().isEmpty()) {
                out.println("  fallbacks: " + r.fallbacks());
            }
            dev.basalt.core.UnmodelledInstructions.notes(block).forEach(n -> out.println("  note: " + n));
            if (timeline) {
                out.println("  instance  instr  predecode  decode  issue  dispatch  done  retire");
                for (int[] t : r.timeline()) {
                    int i = t[0] % block.size();
                    out.printf("  %8d  %5d  %9s  %6s  %8d  %5d  %4d  %6d%s%n", t[0], i,
                            t[1] < 0 ? "-" : String.valueOf(t[1]), t[2] < 0 ? "-" : String.valueOf(t[2]), t[3], t[4],
                            t[5], t[6], fe.fusedPairs().contains(i - 1) ? "  (macro-fused with " + (i - 1) + ")" : "");
                }
            }
        }
    }
}
