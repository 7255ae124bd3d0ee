package dev.basalt.simulator;

import dev.basalt.simulator.mca.LlvmMcaImporter;
import dev.basalt.simulator.mca.LlvmMcaRunner;
import dev.basalt.simulator.params.SimulatorParams;
import dev.basalt.core.Microarchitecture;
import dev.basalt.decoder.BasicBlock;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * With the imported default tables and llvm-mca-compatible options, the simulator tracks llvm-mca-14 itself:
 * on 300 Haswell sample blocks at 100 iterations, the median relative difference is at most 5% and at least
 * 80% of blocks are within 10% (the bar; the full 10,000-block report is in the README).
 */
class LlvmMcaFidelityTest {

    static boolean onPath(String tool) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator)) {
            if (Files.isExecutable(Path.of(dir, tool))) {
                return true;
            }
        }
        return false;
    }

    /** Relative differences |ours − llvm-mca| / llvm-mca over the blocks both could run. */
    static double[] differences(List<BasicBlock> blocks, Microarchitecture uarch) throws Exception {
        double[] mca = new LlvmMcaRunner("llvm-mc-14", "llvm-mca-14").llvmMcaThroughput(blocks, uarch, 100);
        Simulator sim = new Simulator(SimulatorParams.bundled(uarch));
        List<Double> d = new ArrayList<>();
        for (int i = 0; i < blocks.size(); i++) {
            if (Double.isNaN(mca[i])) {
                continue;
            }
            double ours = sim.run(blocks.get(i), Simulator.Options.llvmMcaCompatible()).cyclesPerIteration();
            d.add(Math.abs(ours - mca[i]) / mca[i]);
        }
        return d.stream().mapToDouble(Double::doubleValue).toArray();
    }

    /**
     * Every CPU this build has an llvm-mca-14 table for: the Intel ones and znver3. (Zen 4 and 5 come from
     * llvm-mca-19, with their memory micro-ops left to the second machine: {@link LlvmMcaImporter#memoryRebuilt}.)
     */
    static java.util.stream.Stream<Microarchitecture> cpusWithTables() {
        return Microarchitecture.all().stream().filter(m -> SimulatorParams.imported(m).isPresent()
                && !LlvmMcaImporter.memoryRebuilt(m));
    }

    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.MethodSource("cpusWithTables")
    void tracksLlvmMca(Microarchitecture uarch) throws Exception {
        if (!onPath("llvm-mca-14") || !onPath("llvm-mc-14")) {
            System.err.println("SKIPPED LlvmMcaFidelityTest: llvm-mca-14/llvm-mc-14 not installed (apt-get install llvm-14)");
            Assumptions.abort("llvm-14 tools not installed");
        }
        // The Haswell sample's blocks, whatever the CPU: a CPU without measurements is checked on the same code.
        List<BasicBlock> blocks = SampleBlocks.haswell(300);
        double[] d = differences(blocks, uarch);
        Arrays.sort(d);
        double median = d[d.length / 2];
        double within10 = Arrays.stream(d).filter(x -> x <= 0.10).count() / (double) d.length;
        System.err.printf("simulator vs llvm-mca-14 on %d blocks, %s: median difference %.2f%%, %.1f%% within 10%%%n",
                d.length, uarch, 100 * median, 100 * within10);
        assertTrue(d.length >= 290, "llvm-mca ran " + d.length + " of 300 blocks");
        assertTrue(median <= 0.05, "median difference " + median);
        assertTrue(within10 >= 0.80, "share within 10%: " + within10);
    }

    @Test
    void everyCpuHasATableMatchingItsDescriptor() {
        for (Microarchitecture m : Microarchitecture.all()) {
            SimulatorParams t = SimulatorParams.imported(m).orElseThrow(() -> new AssertionError("no table for " + m));
            assertEquals(m.llvmName(), t.mcpu());
            assertEquals(m.descriptor().dispatchWidth(), t.dispatchWidth(), m + " dispatch width");
            assertEquals(m.descriptor().robSize(), t.robSize(), m + " ROB");
            assertEquals(m.descriptor().schedulerSize(), t.schedulerSize(), m + " scheduler");
            assertEquals(m.descriptor().loadLatency(), t.loadLatency(), m + " load latency");
        }
    }
}
