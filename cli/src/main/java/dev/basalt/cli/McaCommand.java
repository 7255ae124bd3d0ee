package dev.basalt.cli;

import dev.basalt.core.Microarchitecture;
import dev.basalt.core.Prediction;
import dev.basalt.decoder.Assembly;
import dev.basalt.decoder.AssemblyException;
import dev.basalt.decoder.BasicBlock;
import dev.basalt.decoder.Instruction;
import dev.basalt.decoder.Operand;
import dev.basalt.simulator.Bottleneck;
import dev.basalt.simulator.InstructionTable;
import dev.basalt.simulator.Simulator;
import dev.basalt.simulator.SimulatorEstimator;
import dev.basalt.simulator.bounds.Bounds;
import dev.basalt.simulator.params.SimulatorParams;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.regex.Pattern;

/**
 * {@code basalt mca}: llvm-mca's command line ({@link McaArguments}) and views, filled by Basalt's second-generation
 * simulator on its tuned tables, in llvm-mca's text layout, so that what reads llvm-mca's output reads this. Each
 * code region ({@code # LLVM-MCA-BEGIN name} … {@code # LLVM-MCA-END}, or the whole input) is one block, simulated
 * as {@code basalt simulate} simulates it (a region ending in a jump back to its start runs as a loop). After
 * llvm-mca's views comes Basalt's section, marked as such: the bound that wins, the bottleneck, the interval, notes.
 */
@Command(name = "mca", description = "llvm-mca's command line and views, filled by Basalt's simulator "
        + "(basalt-mca stands in for llvm-mca); basalt mca -help lists the options.")
final class McaCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Parameters(arity = "0..*", paramLabel = "ARG", description = "llvm-mca's options and the input file")
    List<String> args = new ArrayList<>();

    private static final Pattern STATEMENT = Pattern.compile("^\\s*(?:[A-Za-z_.$@][\\w.$@]*:\\s*)?([a-z].*)$");

    @Override
    public Integer call() throws IOException {
        McaArguments a;
        try {
            a = McaArguments.parse(args);
        } catch (McaArguments.HelpRequested help) {
            spec.commandLine().getOut().println(McaArguments.USAGE);
            return 0;
        }
        String text = a.input().equals("-") ? new String(System.in.readAllBytes(), StandardCharsets.UTF_8)
                : BlockInput.readText(Path.of(a.input()), a.input());
        Assembly.Syntax syntax = Assembly.Syntax.detect(text);
        List<Assembly.Block> regions;
        try {
            regions = Assembly.parse(text, syntax).stream().filter(b -> b.region() != null).toList();
            if (regions.isEmpty()) { // no markers: the whole input is one region, as llvm-mca takes it
                text = "# LLVM-MCA-BEGIN\n" + text + "\n# LLVM-MCA-END\n";
                regions = Assembly.parse(text, syntax).stream().filter(b -> b.region() != null).toList();
            }
        } catch (AssemblyException e) {
            throw new BadInputException((a.input().equals("-") ? "<stdin>" : a.input()) + ": " + e.getMessage());
        }
        if (regions.isEmpty()) {
            throw new BadInputException((a.input().equals("-") ? "<stdin>" : a.input()) + ": no instructions");
        }
        String[] lines = text.split("\n", -1);
        // An instruction the CPU does not have is the input's fault: refused before any view, naming it.
        for (Assembly.Block region : regions) {
            java.util.Optional<String> cannot = dev.basalt.core.IsaSupport.unsupported(region.basicBlock(), a.cpu());
            if (cannot.isPresent()) {
                throw new BadInputException((a.input().equals("-") ? "<stdin>" : a.input())
                        + (region.region().isEmpty() ? "" : ", region " + region.region()) + ": " + cannot.get()
                        + (a.cpuAsked().equalsIgnoreCase(a.cpu().llvmName()) ? ""
                        : " (-mcpu=" + a.cpuAsked() + " runs on " + a.cpu().llvmName() + ")"));
            }
        }
        StringWriter buffer = new StringWriter();
        PrintWriter out = new PrintWriter(buffer);
        Simulator sim = new Simulator(SimulatorParams.standard(a.cpu()));
        SimulatorEstimator estimator = SimulatorEstimator.standard();
        if (a.json()) {
            com.fasterxml.jackson.databind.ObjectMapper mapper = new com.fasterxml.jackson.databind.ObjectMapper();
            com.fasterxml.jackson.databind.node.ObjectNode root = mapper.createObjectNode();
            com.fasterxml.jackson.databind.node.ArrayNode code = root.putArray("CodeRegions");
            for (Assembly.Block region : regions) {
                regionJson(code.addObject(), a, sim, estimator, region, lines, syntax);
            }
            com.fasterxml.jackson.databind.node.ObjectNode parameters = root.putObject("SimulationParameters");
            parameters.put("-march", "x86_64");
            parameters.put("-mcpu", a.cpu().llvmName());
            parameters.put("-mtriple", "x86_64-unknown-linux-gnu");
            com.fasterxml.jackson.databind.node.ObjectNode target = root.putObject("TargetInfo");
            target.put("CPUName", a.cpu().llvmName());
            com.fasterxml.jackson.databind.node.ArrayNode resources = target.putArray("Resources");
            sim.params().ports().forEach(port -> resources.add(portName(port)));
            out.println(dev.basalt.core.ReportJson.pretty(root));
        }
        boolean named = regions.size() > 1 || !regions.get(0).region().isEmpty();
        for (int k = 0; k < regions.size() && !a.json(); k++) {
            Assembly.Block region = regions.get(k);
            if (named) {
                out.printf(Locale.ROOT, "%n[%d] Code Region%s%n%n", k,
                        region.region().isEmpty() ? "" : " - " + region.region());
            }
            region(out, a, sim, estimator, region, lines, syntax);
        }
        out.flush();
        if (a.output().equals("-")) {
            spec.commandLine().getOut().print(buffer);
            spec.commandLine().getOut().flush();
        } else {
            Path file = Path.of(a.output());
            if (java.nio.file.Files.isDirectory(file)) {
                throw new BadInputException("-o " + file + " is a folder, not a file");
            }
            dev.basalt.core.AtomicFiles.writeString(file, buffer.toString());
        }
        return 0;
    }

    /** One region simulated: what every view of it reads. */
    private record Run(BasicBlock block, Simulator.Options options, Simulator.Result result, Bounds bounds,
                       List<InstructionTable.Row> rows, List<String> text) {

        static Run of(McaArguments a, Simulator sim, Assembly.Block region, String[] lines, Assembly.Syntax syntax) {
            BasicBlock block = region.basicBlock();
            Simulator.Options options = Simulator.Options.defaults().withIterations(a.iterations());
            Bounds bounds = sim.bounds(block, options);
            return new Run(block, options, sim.run(block, options), bounds, InstructionTable.of(bounds),
                    instructionText(block, region, lines, a.intel() || syntax == Assembly.Syntax.INTEL));
        }
    }

    /**
     * The statistics views' counts: a traced run of every iteration ({@link Simulator#trace}), refused (bad input)
     * above {@link McaStatistics#MAX_INSTANCES} instances, which it would keep in memory.
     */
    private static McaStatistics statistics(McaArguments a, Simulator sim, Run run) {
        long instances = (long) run.block().size() * a.iterations();
        if (instances > McaStatistics.MAX_INSTANCES) {
            throw new BadInputException("the statistics and bottleneck views trace every instruction of "
                    + "every iteration, at most " + McaStatistics.MAX_INSTANCES + "; " + run.block().size()
                    + " instructions x -iterations=" + a.iterations() + " is " + instances);
        }
        Simulator.Result traced = sim.trace(run.block(), run.options());
        return McaStatistics.of(run.block(), dev.basalt.simulator.Timeline.rows(run.block(), traced,
                sim.frontEnd(run.block(), run.options())), run.rows(), sim.params());
    }

    /** The views of one region. */
    private static void region(PrintWriter out, McaArguments a, Simulator sim, SimulatorEstimator estimator,
                               Assembly.Block region, String[] lines, Assembly.Syntax syntax) {
        Run run = Run.of(a, sim, region, lines, syntax);
        BasicBlock block = run.block();
        Simulator.Options options = run.options();
        Simulator.Result r = run.result();
        Bounds bounds = run.bounds();
        List<InstructionTable.Row> rows = run.rows();
        List<String> text = run.text();
        int n = block.size();
        long uops = 0;
        for (InstructionTable.Row row : rows) {
            uops += row.unfused();
        }
        long cycles = Math.max(1, r.totalCycles());
        if (a.summary()) {
            long instructions = (long) n * a.iterations();
            out.printf(Locale.ROOT, "Iterations:        %d%n", a.iterations());
            out.printf(Locale.ROOT, "Instructions:      %d%n", instructions);
            out.printf(Locale.ROOT, "Total Cycles:      %d%n", cycles);
            out.printf(Locale.ROOT, "Total uOps:        %d%n%n", uops * a.iterations());
            out.printf(Locale.ROOT, "Dispatch Width:    %d%n", sim.params().core().issueWidth());
            out.printf(Locale.ROOT, "uOps Per Cycle:    %.2f%n", uops * (double) a.iterations() / cycles);
            out.printf(Locale.ROOT, "IPC:               %.2f%n", instructions / (double) cycles);
            out.printf(Locale.ROOT, "Block RThroughput: %.1f%n%n", Math.max(bounds.issue(), bounds.ports()));
        }
        McaStatistics stats = a.anyStats() || a.bottleneck() ? statistics(a, sim, run) : null;
        if (a.bottleneck()) {
            McaBottleneck.print(out, block, sim.bottleneck(block, options), stats, rows, text);
        }
        if (a.instructionInfo()) {
            out.printf("%nInstruction Info:%n[1]: #uOps%n[2]: Latency%n[3]: RThroughput%n[4]: MayLoad%n"
                    + "[5]: MayStore%n[6]: HasSideEffects (U)%n%n");
            out.println("[1]    [2]    [3]    [4]    [5]    [6]    Instructions:");
            for (int i = 0; i < n; i++) {
                Instruction insn = block.instruction(i);
                InstructionTable.Row row = rows.get(i);
                double rthroughput = 0;
                for (double c : row.portCycles()) {
                    rthroughput = Math.max(rthroughput, c);
                }
                rthroughput = Math.max(rthroughput, row.fused() / (double) sim.params().core().issueWidth());
                out.println(cell(" " + row.unfused()) + cell(" " + row.latency())
                        + cell(String.format(Locale.ROOT, "%.2f", rthroughput))
                        + cell(memory(insn, true) ? " *" : "") + cell(memory(insn, false) ? " *" : "")
                        + cell(sideEffects(insn) ? " U" : "") + text.get(i));
            }
            out.println();
        }
        if (a.dispatchStats()) {
            stats.printDispatchStalls(out);
        }
        if (a.schedulerStats()) {
            stats.printScheduler(out, sim.params());
        }
        if (a.retireStats()) {
            stats.printRetire(out, sim.params());
        }
        if (a.registerFileStats()) {
            stats.printRegisterFile(out);
        }
        if (a.anyStats() && a.resourcePressure()) {
            out.println();
        }
        if (a.resourcePressure()) {
            List<String> ports = sim.params().ports();
            out.printf("%nResources:%n");
            for (int p = 0; p < ports.size(); p++) {
                out.printf(Locale.ROOT, "%-6s- %s%n", "[" + p + "]", portName(ports.get(p)));
            }
            out.printf("%n%nResource pressure per iteration:%n");
            StringBuilder head = new StringBuilder();
            for (int p = 0; p < ports.size(); p++) {
                head.append(cell("[" + p + "]"));
            }
            out.println(head);
            StringBuilder total = new StringBuilder();
            for (double c : bounds.portLoads()) {
                total.append(pressure(c));
            }
            out.println(total);
            out.printf("%nResource pressure by instruction:%n");
            out.println(head + "Instructions:");
            for (int i = 0; i < n; i++) {
                StringBuilder line = new StringBuilder();
                for (double c : rows.get(i).portCycles()) {
                    line.append(pressure(c));
                }
                out.println(line + text.get(i));
            }
        }
        if (a.timeline()) {
            timeline(out, a, block, dev.basalt.simulator.Timeline.rows(block, r, sim.frontEnd(block, options)), text);
        }
        basaltSection(out, a, sim, estimator, block, r, bounds, options);
    }

    /**
     * llvm-mca's timeline and average wait times, from the simulator's first instances: {@code D} renamed into the
     * scheduler, {@code =} waiting there, {@code e} executing (from its dispatch to a port until its latency ends),
     * {@code E} its result ready, {@code -} waiting to retire in order, {@code R} retired. Column [2] (waiting while
     * ready) is not one the simulator keeps: it is printed as {@code -}.
     */
    private static void timeline(PrintWriter out, McaArguments a, BasicBlock block, List<int[]> all,
                                 List<String> text) {
        List<int[]> rows = new ArrayList<>();
        int last = 0;
        for (int[] row : all) { // iteration, index, predecoded, decoded, issued, dispatched, executed, retired
            if (row[0] < a.timelineIterations() && row[4] >= 0 && row[7] < a.timelineCycles()) {
                rows.add(row);
                last = Math.max(last, row[7]);
            }
        }
        int width = last + 1;
        out.printf("%n%nTimeline view:%n");
        StringBuilder tens = new StringBuilder(" ".repeat(10));
        StringBuilder ones = new StringBuilder("Index     ");
        for (int c = 0; c < width; c++) {
            tens.append(c < 10 ? ' ' : (char) ('0' + c % 10));
            ones.append(c < 10 ? (char) ('0' + c) : ' ');
        }
        out.println(tens.toString().stripTrailing());
        out.println(ones);
        out.println();
        for (int[] row : rows) {
            char[] cells = new char[width];
            for (int c = 0; c < width; c++) {
                cells[c] = c % 5 == 0 || c == width - 1 ? '.' : ' ';
            }
            int renamed = row[4];
            int dispatched = row[5];
            int executed = row[6];
            int retired = row[7];
            for (int c = renamed + 1; c < dispatched && c < width; c++) {
                cells[c] = '=';
            }
            for (int c = Math.max(dispatched, 0); c < executed && c < width; c++) {
                cells[c] = 'e';
            }
            for (int c = executed + 1; c < retired && c < width; c++) {
                cells[c] = '-';
            }
            if (executed >= 0 && executed < width) {
                cells[executed] = 'E';
            }
            cells[renamed] = 'D';
            cells[retired] = 'R';
            out.printf(Locale.ROOT, "%-10s%s   %s%n", "[" + row[0] + "," + row[1] + "]", new String(cells),
                    text.get(row[1]));
        }
        out.printf("%n%nAverage Wait times (based on the timeline view):%n[0]: Executions%n"
                + "[1]: Average time spent waiting in a scheduler's queue%n"
                + "[2]: Average time spent waiting in a scheduler's queue while ready%n"
                + "[3]: Average time elapsed from WB until retire stage%n%n");
        out.println("      [0]    [1]    [2]    [3]");
        int n = block.size();
        long allCount = 0;
        double allQueue = 0;
        double allRetire = 0;
        for (int i = 0; i < n; i++) {
            int count = 0;
            double queue = 0;
            double retire = 0;
            for (int[] row : rows) {
                if (row[1] == i) {
                    count++;
                    queue += row[5] - row[4];
                    retire += row[7] - row[6];
                }
            }
            allCount += count;
            allQueue += queue;
            allRetire += retire;
            out.println(waits(i + ".", count, count == 0 ? 0 : queue / count, count == 0 ? 0 : retire / count)
                    + text.get(i));
        }
        if (n > 1) {
            out.println(waits("", allCount / n, allCount == 0 ? 0 : allQueue / allCount,
                    allCount == 0 ? 0 : allRetire / allCount) + "<total>");
        }
    }

    /** A row of the average wait times: index, executions, the two averages kept, column [2] not kept. */
    private static String waits(String index, long count, double queue, double retire) {
        return String.format(Locale.ROOT, "%-7s%-6d%-7.1f%-7s%-10.1f", index, count, queue, " -", retire);
    }

    /**
     * One region as llvm-mca's JSON has it (Name, Instructions, SummaryView, InstructionInfoView,
     * ResourcePressureView, TimelineView — whose CycleReady the simulator does not keep and leaves out), and Basalt's
     * own object.
     */
    private static void regionJson(com.fasterxml.jackson.databind.node.ObjectNode n, McaArguments a, Simulator sim,
                                   SimulatorEstimator estimator, Assembly.Block region, String[] lines,
                                   Assembly.Syntax syntax) {
        Run run = Run.of(a, sim, region, lines, syntax);
        BasicBlock block = run.block();
        int n1 = block.size();
        n.put("Name", region.region());
        com.fasterxml.jackson.databind.node.ArrayNode instructions = n.putArray("Instructions");
        run.text().forEach(instructions::add);
        long uops = run.rows().stream().mapToLong(InstructionTable.Row::unfused).sum();
        long cycles = Math.max(1, run.result().totalCycles());
        if (a.summary()) {
            com.fasterxml.jackson.databind.node.ObjectNode v = n.putObject("SummaryView");
            v.put("BlockRThroughput", Math.max(run.bounds().issue(), run.bounds().ports()));
            v.put("DispatchWidth", sim.params().core().issueWidth());
            v.put("IPC", (long) n1 * a.iterations() / (double) cycles);
            v.put("Instructions", (long) n1 * a.iterations());
            v.put("Iterations", a.iterations());
            v.put("TotalCycles", cycles);
            v.put("TotaluOps", uops * a.iterations());
            v.put("uOpsPerCycle", uops * (double) a.iterations() / cycles);
        }
        if (a.instructionInfo()) {
            com.fasterxml.jackson.databind.node.ArrayNode list = n.putObject("InstructionInfoView")
                    .putArray("InstructionList");
            for (int i = 0; i < n1; i++) {
                InstructionTable.Row row = run.rows().get(i);
                double rthroughput = row.fused() / (double) sim.params().core().issueWidth();
                for (double c : row.portCycles()) {
                    rthroughput = Math.max(rthroughput, c);
                }
                com.fasterxml.jackson.databind.node.ObjectNode e = list.addObject();
                e.put("Instruction", i);
                e.put("Latency", row.latency());
                e.put("NumMicroOpcodes", row.unfused());
                e.put("RThroughput", rthroughput);
                e.put("hasUnmodeledSideEffects", sideEffects(block.instruction(i)));
                e.put("mayLoad", memory(block.instruction(i), true));
                e.put("mayStore", memory(block.instruction(i), false));
            }
        }
        if (a.resourcePressure()) {
            com.fasterxml.jackson.databind.node.ArrayNode info = n.putObject("ResourcePressureView")
                    .putArray("ResourcePressureInfo");
            for (int i = 0; i <= n1; i++) { // the last index is the totals, as llvm-mca writes them
                double[] used = i < n1 ? run.rows().get(i).portCycles() : run.bounds().portLoads();
                for (int p = 0; p < used.length; p++) {
                    if (used[p] >= 0.005) {
                        com.fasterxml.jackson.databind.node.ObjectNode e = info.addObject();
                        e.put("InstructionIndex", i);
                        e.put("ResourceIndex", p);
                        e.put("ResourceUsage", Math.round(used[p] * 100) / 100.0);
                    }
                }
            }
        }
        if (a.dispatchStats()) {
            com.fasterxml.jackson.databind.node.ObjectNode d = n.putObject("DispatchStatistics");
            statistics(a, sim, run).dispatchStatisticsJson().forEach(d::put);
        }
        if (a.timeline()) {
            com.fasterxml.jackson.databind.node.ArrayNode info = n.putObject("TimelineView").putArray("TimelineInfo");
            for (int[] row : dev.basalt.simulator.Timeline.rows(block, run.result(), sim.frontEnd(block, run.options()))) {
                if (row[0] < a.timelineIterations() && row[4] >= 0 && row[7] < a.timelineCycles()) {
                    com.fasterxml.jackson.databind.node.ObjectNode e = info.addObject();
                    e.put("CycleDispatched", row[4]);
                    e.put("CycleExecuted", row[6]);
                    e.put("CycleIssued", row[5]);
                    e.put("CycleRetired", row[7]);
                }
            }
        }
        com.fasterxml.jackson.databind.node.ObjectNode b = n.putObject("Basalt");
        b.put("cycles_per_iteration", run.result().cyclesPerIteration());
        b.put("loop", dev.basalt.simulator.facts.RunModel.runsAsLoop(block, run.options()));
        Prediction p = estimator.predict(block, a.cpu());
        p.interval().ifPresent(iv -> b.putArray("interval").add(iv.low()).add(iv.high()));
        b.put("bounds", run.bounds().describe());
        b.put("bottleneck", sim.bottleneck(block, run.options()).describe());
        if (a.model() != null) {
            dev.basalt.core.ThroughputEstimator model = dev.basalt.core.Estimators.load(a.model());
            if (!model.supported().contains(a.cpu())) {
                throw new BadInputException("--basalt-model " + a.model() + " has no model for " + a.cpu().llvmName());
            }
            b.put(a.model(), model.predict(block, a.cpu()).cyclesPerIteration());
        }
        com.fasterxml.jackson.databind.node.ArrayNode notes = b.putArray("notes");
        p.notes().forEach(notes::add);
    }

    /** Basalt's own findings, after llvm-mca's views and marked as Basalt's. */
    private static void basaltSection(PrintWriter out, McaArguments a, Simulator sim, SimulatorEstimator estimator,
                                      BasicBlock block, Simulator.Result r, Bounds bounds, Simulator.Options options) {
        out.printf(Locale.ROOT, "%n%nBasalt (not an llvm-mca view):%n");
        out.printf(Locale.ROOT, "  CPU:                  %s%n", a.cpu().llvmName());
        out.printf(Locale.ROOT, "  Cycles per iteration: %.2f (%s)%n", r.cyclesPerIteration(),
                dev.basalt.simulator.facts.RunModel.runsAsLoop(block, options) ? "loop" : "unrolled");
        Prediction p = estimator.predict(block, a.cpu());
        p.interval().ifPresent(iv -> out.printf(Locale.ROOT, "  Interval:             %.2f-%.2f%n", iv.low(),
                iv.high()));
        out.printf(Locale.ROOT, "  Bounds:               %s%n", bounds.describe());
        Bottleneck b = sim.bottleneck(block, options);
        out.printf(Locale.ROOT, "  Bottleneck:           %s%n", b.describe());
        if (a.model() != null) {
            dev.basalt.core.ThroughputEstimator model = dev.basalt.core.Estimators.load(a.model());
            if (!model.supported().contains(a.cpu())) {
                throw new BadInputException("--basalt-model " + a.model() + " has no model for " + a.cpu().llvmName());
            }
            out.printf(Locale.ROOT, "  %-21s %.2f cycles per iteration%n", a.model() + ":",
                    model.predict(block, a.cpu()).cyclesPerIteration());
        }
        for (String note : p.notes()) {
            out.printf(Locale.ROOT, "  Note: %s%n", note);
        }
    }

    /** A 7-wide column of llvm-mca's tables. */
    private static String cell(String s) {
        return String.format(Locale.ROOT, "%-7s", s);
    }

    /** A resource-pressure cell: " -" when unused, else two decimals. */
    private static String pressure(double c) {
        return cell(c < 0.005 ? " -" : String.format(Locale.ROOT, "%.2f", c));
    }

    /** Basalt's port names as llvm-mca lists resources: "Divider", "Port0". */
    static String portName(String port) {
        return port.chars().allMatch(Character::isLetterOrDigit) && Character.isDigit(port.charAt(0))
                ? "Port" + port : port;
    }

    /** Whether {@code insn} may read ({@code load}) or write memory. */
    private static boolean memory(Instruction insn, boolean load) {
        for (Operand o : insn.operands()) {
            if (o instanceof Operand.MemoryOperand m && (load ? m.action().readsOldValue() : m.action().write()
                    || m.action().conditionalWrite())) {
                return true;
            }
        }
        return false;
    }

    /** Whether {@code insn} has side effects llvm-mca marks (locked, fences, serializing, system). */
    private static boolean sideEffects(Instruction insn) {
        String m = insn.mnemonic();
        return insn.has(dev.basalt.decoder.Prefix.LOCK) || m.endsWith("fence") || m.equals("cpuid")
                || dev.basalt.core.UnmodelledInstructions.reason(insn).isPresent();
    }

    /**
     * Each instruction's text: Intel syntax from the decoder when asked for or read so; else the source's own
     * statements (AT&T, as llvm-mca prints), when the region's lines give one per instruction.
     */
    private static List<String> instructionText(BasicBlock block, Assembly.Block region, String[] lines,
                                                boolean intel) {
        List<String> out = new ArrayList<>();
        if (!intel) {
            for (int l = region.firstLine() - 1; l < region.lastLine() && l < lines.length; l++) {
                String line = lines[l].replaceAll("(#|//).*$", "").strip();
                var m = STATEMENT.matcher(line);
                if (!line.isEmpty() && !line.startsWith(".") && m.matches()) {
                    // llvm-mca's layout: the mnemonic, a tab, the operands
                    out.add(m.group(1).strip().replaceFirst("^(\\S+)\\s+", "$1\t"));
                }
            }
            if (out.size() == block.size()) {
                return out;
            }
            out.clear();
        }
        for (int i = 0; i < block.size(); i++) {
            out.add(block.instruction(i).intelSyntax());
        }
        return out;
    }
}
