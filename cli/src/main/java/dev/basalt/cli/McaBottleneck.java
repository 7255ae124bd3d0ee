package dev.basalt.cli;

import dev.basalt.decoder.BasicBlock;
import dev.basalt.decoder.Operand;
import dev.basalt.simulator.Bottleneck;
import dev.basalt.simulator.InstructionTable;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * llvm-mca's {@code -bottleneck-analysis} view, filled by Basalt: the share of cycles in which the renamer waited
 * for room in the back end (the reorder buffer or the scheduler full, counted over a traced run), given to the cause
 * Basalt's own bottleneck names — port pressure on its busiest port, or a chain of dependencies through registers or
 * through memory — and that chain (or that port's instructions) as llvm-mca's critical sequence. llvm-mca splits the
 * cycles between causes as its simulation meets them; Basalt gives them all to the one it finds.
 */
final class McaBottleneck {

    private McaBottleneck() {
    }

    static void print(PrintWriter out, BasicBlock block, Bottleneck b, McaStatistics stats,
                      List<InstructionTable.Row> rows, List<String> text) {
        int pressured = stats.rcuStalls() + stats.schedulerStalls();
        if (pressured == 0) {
            out.printf("%nNo resource or data dependency bottlenecks discovered.%n");
            return;
        }
        double share = 100.0 * pressured / stats.cycles();
        boolean chain = b.kind() == Bottleneck.Kind.DEPENDENCY_CHAIN && !b.chain().isEmpty();
        boolean throughMemory = false;
        if (chain) {
            for (int i : b.chain()) {
                for (int[] s : rows.get(i).sources()) {
                    throughMemory |= s[2] == 1 && b.chain().contains(s[0]);
                }
            }
        }
        out.printf(Locale.ROOT, "%nCycles with backend pressure increase [ %.2f%% ]%n", share);
        out.printf("Throughput Bottlenecks: %n");
        out.printf(Locale.ROOT, "  Resource Pressure       [ %.2f%% ]%n", chain ? 0.0 : share);
        String port = b.boundPort().isEmpty() ? b.busiestPort() : b.boundPort();
        if (!chain && !port.isEmpty()) {
            out.printf(Locale.ROOT, "  - %s  [ %.2f%% ]%n", McaCommand.portName(port), share);
        }
        out.printf(Locale.ROOT, "  Data Dependencies:      [ %.2f%% ]%n", chain ? share : 0.0);
        out.printf(Locale.ROOT, "  - Register Dependencies [ %.2f%% ]%n", chain && !throughMemory ? share : 0.0);
        out.printf(Locale.ROOT, "  - Memory Dependencies   [ %.2f%% ]%n", chain && throughMemory ? share : 0.0);
        out.printf("%nCritical sequence based on the simulation:%n%n");
        out.printf("              Instruction                                 Dependency Information%n");
        List<Integer> marked = chain ? b.chain() : b.instructions();
        if (marked.isEmpty()) {
            return;
        }
        int last = marked.get(marked.size() - 1);
        if (chain) {
            out.printf(" +----< %d.    %s%n |%n |    < loop carried > %n |%n", last, text.get(last));
        }
        for (int i = 0; i <= last; i++) {
            if (!marked.contains(i)) {
                out.printf(" |      %d.    %s%n", i, text.get(i));
                continue;
            }
            String why = chain ? dependency(block, rows, marked, i) : "## RESOURCE interference:  "
                    + McaCommand.portName(port);
            out.printf(Locale.ROOT, " +----> %-42s%s%n", i + ".    " + text.get(i), why);
        }
        out.println();
    }

    /** How chain member {@code i} depends on the member before it: the register, or memory. */
    private static String dependency(BasicBlock block, List<InstructionTable.Row> rows, List<Integer> chain, int i) {
        for (int[] s : rows.get(i).sources()) {
            if (!chain.contains(s[0])) {
                continue;
            }
            if (s[2] == 1) {
                return "## MEMORY dependency.";
            }
            List<String> written = McaStatistics.writtenRegisters(block.instruction(s[0]));
            List<String> read = new ArrayList<>();
            for (Operand o : block.instruction(i).operands()) {
                if (o instanceof Operand.RegisterOperand r && r.action().readsOldValue()) {
                    read.add(r.register().enclosingName());
                } else if (o instanceof Operand.MemoryOperand m) {
                    read.add(m.base().enclosingName());
                    read.add(m.index().enclosingName());
                }
            }
            for (String r : written) {
                if (read.contains(r)) {
                    return "## REGISTER dependency:  " + r;
                }
            }
        }
        return "## REGISTER dependency.";
    }
}
