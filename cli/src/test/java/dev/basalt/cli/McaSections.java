package dev.basalt.cli;

import java.util.ArrayList;
import java.util.List;

/** The structure of llvm-mca's text output, to compare basalt mca's with: its section headings, in order. */
final class McaSections {

    private McaSections() {
    }

    /** The lines that open llvm-mca's sections and regions, in order. */
    static List<String> of(String output) {
        List<String> out = new ArrayList<>();
        for (String line : output.split("\n")) {
            // The bottleneck view is one section whichever it finds: pressure and its causes, or none.
            if (line.startsWith("Cycles with backend pressure increase")
                    || line.equals("No resource or data dependency bottlenecks discovered.")) {
                out.add("bottleneck view");
            } else if (line.startsWith("Dynamic Dispatch Stall Cycles:") || line.startsWith("Dispatch Logic - ")
                    || line.startsWith("Schedulers - ") || line.equals("Scheduler's queue usage:")
                    || line.startsWith("Retire Control Unit - ") || line.startsWith("Total ROB Entries:")
                    || line.startsWith("Max Used ROB Entries:") || line.startsWith("Register File statistics:")
                    || line.startsWith("Total number of mappings created:")
                    || line.startsWith("Max number of mappings used:")) {
                out.add(line.replaceAll(":.*", ":"));
            } else if (line.matches("\\[\\d+\\] Code Region.*") || line.matches("(Iterations|Instructions|Total Cycles|"
                    + "Total uOps|Dispatch Width|uOps Per Cycle|IPC|Block RThroughput):.*")
                    || line.equals("Instruction Info:") || line.equals("Resources:")
                    || line.startsWith("Resource pressure per iteration:")
                    || line.startsWith("Resource pressure by instruction:") || line.equals("Timeline view:")
                    || line.startsWith("Average Wait times")
                    || line.startsWith("[1]    [2]    [3]    [4]    [5]    [6]    Instructions:")) {
                out.add(line.replaceAll(":.*", ":"));
            }
        }
        return out;
    }

}
