package dev.basalt.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.basalt.core.Microarchitecture;
import dev.basalt.decoder.BasicBlock;
import dev.basalt.simulator.bounds.Bounds;
import dev.basalt.simulator.InstructionTable;
import dev.basalt.simulator.Simulator;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * {@code simulate --view instructions} and {@code --view timeline}: the per-instruction table (llvm-mca's
 * instruction info and resource pressure by instruction, uiCA's table) and the pipeline timeline (llvm-mca's
 * {@code -timeline}), in text, json and csv. Their columns are documented in {@code docs/views.md}.
 */
final class SimulateViews {

    /** The csv header of the instructions view. */
    static final String INSTRUCTIONS_CSV = "hex,mcpu,index,instruction,form,unfused_uops,fused_uops,latency,"
            + "wait_cycles,reads,port_cycles,input";

    /** The csv header of the timeline view. */
    static final String TIMELINE_CSV = "hex,mcpu,iteration,index,instruction,predecoded,decoded,issued,dispatched,"
            + "executed,retired,input";

    /** Longest timeline a text view draws, in cycles, so that it fits a terminal. */
    private static final int TEXT_CYCLES = 72;

    private SimulateViews() {
    }

    /** What instruction {@code i} reads from: {@code rax←2, mem←3 (prev), addr←1}. */
    private static String reads(List<int[]> sources, int n) {
        List<String> out = new ArrayList<>();
        for (int[] s : sources) {
            String what = s[2] == 1 ? "memory" : s[2] == 2 ? "address" : "register";
            out.add(what + "←" + s[0] + (s[1] > 0 ? " (" + (s[1] == 1 ? "previous iteration" : s[1]
                    + " iterations back") + ")" : ""));
        }
        return String.join(", ", out);
    }

    /** The ports with cycles on them, as {@code 0:0.25 1:0.25}. */
    private static String ports(double[] cycles, List<String> names) {
        StringBuilder b = new StringBuilder();
        for (int p = 0; p < cycles.length; p++) {
            if (cycles[p] > 1e-9) {
                b.append(b.length() == 0 ? "" : " ").append(names.get(p)).append(':')
                        .append(String.format(Locale.ROOT, "%.2f", cycles[p]));
            }
        }
        return b.toString();
    }

    static void instructionsText(PrintWriter out, BasicBlock block, Microarchitecture cpu, Simulator sim,
                                 Simulator.Options options, Simulator.Result r, Bounds bounds) {
        List<InstructionTable.Row> rows = InstructionTable.of(bounds);
        List<String> names = sim.params().ports();
        double[] loads = bounds.portLoads();
        List<Integer> used = new ArrayList<>();
        for (int p = 0; p < loads.length; p++) {
            if (loads[p] > 1e-9) {
                used.add(p);
            }
        }
        out.printf(Locale.ROOT, "block %s on %s: %.2f cycles/iteration%n", block.hex(), cpu, r.cyclesPerIteration());
        StringBuilder head = new StringBuilder(String.format(Locale.ROOT, "  %2s  %-34s %5s %5s %4s %6s", "#",
                "instruction", "uops", "fused", "lat", "waits"));
        for (int p : used) {
            head.append(String.format(Locale.ROOT, " %6s", shortName(names.get(p))));
        }
        out.println(head.append("  reads"));
        for (int i = 0; i < block.size(); i++) {
            InstructionTable.Row row = rows.get(i);
            StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "  %2d  %-34s %5d %5d %4d %6.1f", i,
                    abbreviate(block.instruction(i).intelSyntax(), 34), row.unfused(), row.fused(), row.latency(),
                    r.waitCycles()[i]));
            for (int p : used) {
                double c = row.portCycles()[p];
                line.append(c > 1e-9 ? String.format(Locale.ROOT, " %6.2f", c) : "      -");
            }
            out.println(line.append("  ").append(reads(row.sources(), block.size())));
        }
        StringBuilder total = new StringBuilder(String.format(Locale.ROOT, "  %2s  %-34s %5s %5s %4s %6s", "",
                "ports, cycles/iteration", "", "", "", ""));
        for (int p : used) {
            total.append(String.format(Locale.ROOT, " %6.2f", loads[p]));
        }
        out.println(total);
        out.println("  uops: micro-ops at the ports; fused: issue slots (fused domain); lat: latency, load included;");
        out.println("  waits: mean cycles from issue (rename) to dispatch to a port; port columns: cycles per "
                + "iteration,");
        out.println("  micro-ops spread as the port bound spreads them (the last row is the port table; its largest "
                + "is the port bound)");
    }

    private static String shortName(String port) {
        return port.length() <= 6 ? port : port.substring(0, 6);
    }

    private static String abbreviate(String s, int width) {
        return s.length() <= width ? s : s.substring(0, width - 1) + "…";
    }

    static void instructionsJson(ObjectNode n, BasicBlock block, Simulator sim, Simulator.Result r, Bounds bounds) {
        List<InstructionTable.Row> rows = InstructionTable.of(bounds);
        List<String> names = sim.params().ports();
        ArrayNode insns = n.putArray("instruction_table");
        for (int i = 0; i < block.size(); i++) {
            InstructionTable.Row row = rows.get(i);
            ObjectNode o = insns.addObject();
            o.put("index", i).put("instruction", block.instruction(i).intelSyntax())
                    .put("form", block.instruction(i).form()).put("unfused_uops", row.unfused())
                    .put("fused_uops", row.fused()).put("latency", row.latency()).put("wait_cycles", r.waitCycles()[i]);
            ObjectNode ports = o.putObject("port_cycles");
            for (int p = 0; p < names.size(); p++) {
                if (row.portCycles()[p] > 1e-9) {
                    ports.put(names.get(p), row.portCycles()[p]);
                }
            }
            ArrayNode reads = o.putArray("reads");
            for (int[] s : row.sources()) {
                reads.addObject().put("from", s[0]).put("iterations_back", s[1])
                        .put("kind", s[2] == 1 ? "memory" : s[2] == 2 ? "address" : "register");
            }
        }
    }

    static void instructionsCsv(PrintWriter out, BasicBlock block, Microarchitecture cpu, Simulator sim,
                                Simulator.Result r, Bounds bounds, String source) {
        List<InstructionTable.Row> rows = InstructionTable.of(bounds);
        for (int i = 0; i < block.size(); i++) {
            InstructionTable.Row row = rows.get(i);
            out.println(String.join(",", block.hex(), cpu.llvmName(), String.valueOf(i),
                    PredictCommand.csvCell(block.instruction(i).intelSyntax()),
                    PredictCommand.csvCell(block.instruction(i).form()), String.valueOf(row.unfused()),
                    String.valueOf(row.fused()), String.valueOf(row.latency()),
                    String.format(Locale.ROOT, "%.4f", r.waitCycles()[i]),
                    PredictCommand.csvCell(reads(row.sources(), block.size())),
                    PredictCommand.csvCell(ports(row.portCycles(), sim.params().ports())),
                    PredictCommand.csvCell(source)));
        }
    }

    private static List<int[]> timeline(BasicBlock block, Simulator.Result r, Simulator.FrontEnd fe) {
        return dev.basalt.simulator.Timeline.rows(block, r, fe);
    }

    static void timelineText(PrintWriter out, BasicBlock block, Microarchitecture cpu, Simulator.Result r,
                             Simulator.FrontEnd fe) {
        List<int[]> rows = timeline(block, r, fe);
        out.printf(Locale.ROOT, "block %s on %s: %.2f cycles/iteration — timeline of the first instances%n",
                block.hex(), cpu, r.cyclesPerIteration());
        if (rows.isEmpty()) {
            return;
        }
        int first = Integer.MAX_VALUE;
        for (int[] row : rows) {
            first = Math.min(first, row[3] >= 0 ? row[3] : row[4]);
        }
        // as many instances as fit the width
        List<int[]> shown = new ArrayList<>();
        for (int[] row : rows) {
            if (row[7] - first >= TEXT_CYCLES) {
                break;
            }
            shown.add(row);
        }
        if (shown.isEmpty()) {
            shown.add(rows.get(0));
        }
        int last = 0;
        for (int[] row : shown) {
            last = Math.max(last, row[7]);
        }
        int width = Math.min(TEXT_CYCLES, last - first + 1);
        StringBuilder tens = new StringBuilder();
        StringBuilder ones = new StringBuilder();
        for (int c = 0; c < width; c++) {
            tens.append(c % 10 == 0 ? Character.forDigit(c / 10 % 10, 10) : ' ');
            ones.append(c % 10);
        }
        out.printf(Locale.ROOT, "  %-7s %s%n", "", tens);
        out.printf(Locale.ROOT, "  %-7s %s%n", "[it,i]", ones);
        for (int[] row : shown) {
            char[] line = new char[width];
            java.util.Arrays.fill(line, ' ');
            for (int c = row[3] + 1; c < row[4]; c++) {
                mark(line, c - first, '.');                       // decoded, queued for issue
            }
            mark(line, row[3] - first, 'D');                      // decoded
            mark(line, row[4] - first, 'i');                      // issued: renamed into the scheduler
            for (int c = row[4] + 1; c < row[5]; c++) {
                mark(line, c - first, '=');                       // waiting for operands or a port
            }
            for (int c = row[5]; c < row[6]; c++) {
                mark(line, c - first, 'e');                       // dispatched to a port: executing
            }
            mark(line, row[6] - first, 'E');                      // done
            for (int c = row[6] + 1; c < row[7]; c++) {
                mark(line, c - first, '-');                       // done, waiting to retire in order
            }
            mark(line, row[7] - first, 'R');                      // retired
            out.printf(Locale.ROOT, "  %-7s %s  %s%s%n", "[" + row[0] + "," + row[1] + "]", new String(line),
                    block.instruction(row[1]).intelSyntax(), fe.fusedPairs().contains(row[1] - 1)
                            ? "  (macro-fused with " + (row[1] - 1) + ")" : "");
        }
        out.printf(Locale.ROOT, "  cycles from %d; D decoded%s, . queued, i issued (renamed into the scheduler),%n"
                + "  = waiting for operands or a port, e dispatched to a port and executing, E executed,%n"
                + "  - waiting to retire in order, R retired%n", first, fe.source() == dev.basalt.simulator.Simulator.UopSource.LEGACY ? ""
                : " (here delivered from the " + fe.source().name().toLowerCase(Locale.ROOT) + ")");
    }

    private static void mark(char[] line, int at, char c) {
        if (at >= 0 && at < line.length) {
            line[at] = c;
        }
    }

    static void timelineJson(ObjectNode n, BasicBlock block, Simulator.Result r, Simulator.FrontEnd fe) {
        ArrayNode out = n.putArray("timeline_view");
        for (int[] row : timeline(block, r, fe)) {
            out.addObject().put("iteration", row[0]).put("index", row[1])
                    .put("instruction", block.instruction(row[1]).intelSyntax()).put("predecoded", row[2])
                    .put("decoded", row[3]).put("issued", row[4]).put("dispatched", row[5]).put("executed", row[6])
                    .put("retired", row[7]);
        }
    }

    static void timelineCsv(PrintWriter out, BasicBlock block, Microarchitecture cpu, Simulator.Result r,
                            Simulator.FrontEnd fe, String source) {
        for (int[] row : timeline(block, r, fe)) {
            out.println(String.join(",", block.hex(), cpu.llvmName(), String.valueOf(row[0]), String.valueOf(row[1]),
                    PredictCommand.csvCell(block.instruction(row[1]).intelSyntax()), String.valueOf(row[2]),
                    String.valueOf(row[3]), String.valueOf(row[4]), String.valueOf(row[5]), String.valueOf(row[6]),
                    String.valueOf(row[7]), PredictCommand.csvCell(source)));
        }
    }
}
