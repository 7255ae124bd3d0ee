package dev.basalt.cli;

import dev.basalt.decoder.BasicBlock;
import dev.basalt.decoder.Instruction;
import dev.basalt.decoder.Operand;
import dev.basalt.decoder.RegisterClass;
import dev.basalt.simulator.InstructionTable;
import dev.basalt.simulator.params.SimulatorParams;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * llvm-mca's statistics views ({@code -dispatch-stats}, {@code -scheduler-stats}, {@code -retire-stats},
 * {@code -register-file-stats}) counted over a traced run of Basalt's simulator: every instance of every iteration
 * with the cycle it was renamed into the scheduler (llvm-mca's "dispatched"), sent to a port (llvm-mca's "issued")
 * and retired. Basalt's names differ from llvm-mca's there: its renamer is llvm-mca's dispatch stage, its dispatch to
 * a port llvm-mca's issue.
 *
 * <p>What Basalt's machine does not model is printed as llvm-mca prints an event that never happened: no register
 * file runs out (RAT), load and store queues are not sized (LQ, SQ), and nothing restricts a dispatch group (GROUP,
 * USH). A multi-micro-op instruction is counted in the cycle its first micro-op went, as the timeline shows it.
 *
 * @param cycles       the traced run's cycles
 * @param dispatched   per cycle, fused micro-ops renamed (llvm-mca's dispatch)
 * @param issued       per cycle, micro-ops sent to ports (llvm-mca's issue)
 * @param retired      per cycle, instructions retired
 * @param robUsed      per cycle, reorder-buffer entries (fused micro-ops) in use
 * @param schedulerUsed per cycle, scheduler entries (micro-ops waiting for a port) in use
 * @param rcuStalls    cycles the renamer waited with the reorder buffer full
 * @param schedulerStalls cycles it waited with the scheduler full
 * @param mappings     register mappings created (each register an instance writes, the flags as one)
 * @param maxMappings  the most mappings alive at once (a mapping lives until the next writer of its register retires)
 */
record McaStatistics(int cycles, int[] dispatched, int[] issued, int[] retired, int[] robUsed, int[] schedulerUsed,
                     int rcuStalls, int schedulerStalls, long mappings, int maxMappings) {

    /** The instances a traced run may keep: above it the statistics views are refused (memory). */
    static final long MAX_INSTANCES = 2_000_000;

    /** Counts the views over {@code timeline} (Timeline.rows of a traced run) of {@code block}. */
    static McaStatistics of(BasicBlock block, List<int[]> timeline, List<InstructionTable.Row> rows,
                            SimulatorParams params) {
        int cycles = 1;
        for (int[] t : timeline) {
            cycles = Math.max(cycles, t[7] + 1);
        }
        int[] dispatched = new int[cycles];
        int[] issued = new int[cycles];
        int[] retired = new int[cycles];
        int[] robDelta = new int[cycles + 1];
        int[] rsDelta = new int[cycles + 1];
        for (int[] t : timeline) {
            InstructionTable.Row row = rows.get(t[1]);
            if (t[4] >= 0) {
                dispatched[t[4]] += row.fused();
                robDelta[t[4]] += row.fused();
                robDelta[Math.max(t[4], t[7])] -= row.fused();
            }
            if (t[5] >= 0) {
                issued[t[5]] += row.unfused();
                if (t[4] >= 0 && t[5] > t[4]) {
                    rsDelta[t[4]] += row.unfused();
                    rsDelta[t[5]] -= row.unfused();
                }
            }
            retired[t[7]]++;
        }
        int[] rob = running(robDelta, cycles);
        int[] rs = running(rsDelta, cycles);
        // A renamer stall: a cycle before an instance's rename in which the instance before it was renamed already
        // (it is next in line) and the reorder buffer or the scheduler had no room for it.
        int robSize = params.robSize();
        int rsSize = params.schedulerSize();
        boolean[] rcu = new boolean[cycles];
        boolean[] schedq = new boolean[cycles];
        for (int k = 1; k < timeline.size(); k++) {
            int[] t = timeline.get(k);
            int[] before = timeline.get(k - 1);
            InstructionTable.Row row = rows.get(t[1]);
            if (t[4] < 0 || before[4] < 0 || row.fused() == 0) {
                continue;
            }
            for (int c = Math.max(0, before[4]); c < t[4]; c++) {
                if (rob[c] + row.fused() > robSize) {
                    rcu[c] = true;
                } else if (rs[c] + row.unfused() > rsSize) {
                    schedq[c] = true;
                }
            }
        }
        int rcuStalls = 0;
        int schedulerStalls = 0;
        for (int c = 0; c < cycles; c++) {
            rcuStalls += rcu[c] ? 1 : 0;
            schedulerStalls += schedq[c] ? 1 : 0;
        }
        // Register mappings: each instance's written registers, alive from its rename until the next writer of the
        // same register retires (the run's end when none does).
        List<List<String>> writes = new ArrayList<>();
        for (Instruction insn : block.instructions()) {
            writes.add(writtenRegisters(insn));
        }
        int[] mapDelta = new int[cycles + 1];
        Map<String, Integer> open = new HashMap<>();
        long mappings = 0;
        for (int[] t : timeline) {
            if (t[4] < 0) {
                continue;
            }
            for (String reg : writes.get(t[1])) {
                mappings++;
                mapDelta[t[4]]++;
                if (open.put(reg, t[4]) != null) {
                    mapDelta[t[7]]--; // the previous mapping of reg is freed when this writer retires
                }
            }
        }
        int maxMappings = 0;
        int live = 0;
        for (int c = 0; c < cycles; c++) {
            live += mapDelta[c];
            maxMappings = Math.max(maxMappings, live);
        }
        return new McaStatistics(cycles, dispatched, issued, retired, rob, rs, rcuStalls, schedulerStalls, mappings,
                maxMappings);
    }

    private static int[] running(int[] delta, int cycles) {
        int[] out = new int[cycles];
        int level = 0;
        for (int c = 0; c < cycles; c++) {
            level += delta[c];
            out[c] = level;
        }
        return out;
    }

    /** The registers {@code insn} writes, by their enclosing register ({@code rax} for {@code eax}), flags as one. */
    static List<String> writtenRegisters(Instruction insn) {
        List<String> out = new ArrayList<>();
        for (Operand o : insn.operands()) {
            if (o instanceof Operand.RegisterOperand r && r.action().writes()) {
                String name = r.register().registerClass() == RegisterClass.FLAGS ? "flags"
                        : r.register().enclosingName();
                if (!out.contains(name) && !name.equals("rip")) {
                    out.add(name);
                }
            }
        }
        return out;
    }

    /** llvm-mca's "Dynamic Dispatch Stall Cycles". */
    void printDispatchStalls(PrintWriter out) {
        out.printf("%nDynamic Dispatch Stall Cycles:%n");
        stall(out, "RAT     - Register unavailable:                      ", 0);
        stall(out, "RCU     - Retire tokens unavailable:                 ", rcuStalls);
        stall(out, "SCHEDQ  - Scheduler full:                            ", schedulerStalls);
        stall(out, "LQ      - Load queue full:                           ", 0);
        stall(out, "SQ      - Store queue full:                          ", 0);
        stall(out, "GROUP   - Static restrictions on the dispatch group: ", 0);
        stall(out, "USH     - Uncategorised Structural Hazard:           ", 0);
        out.printf("%n%nDispatch Logic - number of cycles where we saw N micro opcodes dispatched:%n");
        out.printf("[# dispatched], [# cycles]%n");
        histogram(out, dispatched, "              ");
    }

    private void stall(PrintWriter out, String label, int count) {
        out.print(label + count);
        if (count > 0) {
            out.printf(Locale.ROOT, "  (%.1f%%)", percent(count));
        }
        out.println();
    }

    /** llvm-mca's "Schedulers" and "Scheduler's queue usage". */
    void printScheduler(PrintWriter out, SimulatorParams params) {
        out.printf("%n%nSchedulers - number of cycles where we saw N micro opcodes issued:%n");
        out.printf("[# issued], [# cycles]%n");
        histogram(out, issued, "          ");
        long sum = 0;
        int max = 0;
        for (int u : schedulerUsed) {
            sum += u;
            max = Math.max(max, u);
        }
        out.printf("%nScheduler's queue usage:%n[1] Resource name.%n[2] Average number of used buffer entries.%n"
                + "[3] Maximum number of used buffer entries.%n[4] Total number of buffer entries.%n%n");
        out.printf(" [1]            [2]        [3]        [4]%n");
        out.printf(Locale.ROOT, "%-17s%-11d%-11d%d%n", "Scheduler", Math.round(sum / (double) cycles), max,
                params.schedulerSize());
    }

    /** llvm-mca's "Retire Control Unit" view. */
    void printRetire(PrintWriter out, SimulatorParams params) {
        out.printf("%n%nRetire Control Unit - number of cycles where we saw N instructions retired:%n");
        out.printf("[# retired], [# cycles]%n");
        histogram(out, retired, "           ");
        long sum = 0;
        int max = 0;
        for (int u : robUsed) {
            sum += u;
            max = Math.max(max, u);
        }
        int size = params.robSize();
        long average = Math.round(sum / (double) cycles);
        out.printf(Locale.ROOT, "%nTotal ROB Entries:                %d%n", size);
        out.printf(Locale.ROOT, "Max Used ROB Entries:             %d  ( %.1f%% )%n", max, 100.0 * max / size);
        out.printf(Locale.ROOT, "Average Used ROB Entries per cy:  %d  ( %.1f%% )%n", average, 100.0 * average / size);
    }

    /** llvm-mca's "Register File statistics". */
    void printRegisterFile(PrintWriter out) {
        out.printf("%n%nRegister File statistics:%n");
        out.printf(Locale.ROOT, "Total number of mappings created:    %d%n", mappings);
        out.printf(Locale.ROOT, "Max number of mappings used:         %d%n", maxMappings);
    }

    /** llvm-mca's JSON "DispatchStatistics": the stall counts by kind. */
    Map<String, Integer> dispatchStatisticsJson() {
        Map<String, Integer> out = new TreeMap<>();
        out.put("GROUP", 0);
        out.put("LQ", 0);
        out.put("RAT", 0);
        out.put("RCU", rcuStalls);
        out.put("SCHEDQ", schedulerStalls);
        out.put("SQ", 0);
        out.put("USH", 0);
        return out;
    }

    /** Cycles with each count, the counts that occur in order: " 2,              136  (44.2%)". */
    private void histogram(PrintWriter out, int[] perCycle, String gap) {
        Map<Integer, Integer> byCount = new TreeMap<>();
        for (int v : perCycle) {
            byCount.merge(v, 1, Integer::sum);
        }
        for (Map.Entry<Integer, Integer> e : byCount.entrySet()) {
            out.printf(Locale.ROOT, " %d,%s%d  (%.1f%%)%n", e.getKey(), gap, e.getValue(), percent(e.getValue()));
        }
    }

    private double percent(int count) {
        return Math.floor(1000.0 * count / cycles + 0.5) / 10;
    }
}
