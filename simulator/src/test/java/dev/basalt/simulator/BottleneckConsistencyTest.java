package dev.basalt.simulator;

import dev.basalt.simulator.bounds.Bounds;
import dev.basalt.simulator.params.SimulatorParams;
import dev.basalt.core.Microarchitecture;
import dev.basalt.datasets.Dataset;
import dev.basalt.datasets.LabelledBlock;
import dev.basalt.decoder.BasicBlock;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One bottleneck story (issue 39): what {@code simulate} names as the bottleneck, the bounds printed beside it and
 * the port table come from the same facts and agree, on every one of the 30,000 sample blocks on every CPU with a
 * table: the named bottleneck's bound is the winning bound, the busiest row of the port table is the port bound,
 * the instruction table's port columns add up to the port table, the chain reported is no longer than the result
 * (up to the finite-iteration error a run has), and the instructions named as loading the resource are
 * instructions of the block.
 */
class BottleneckConsistencyTest {

    /** One cycle over the 64 iterations a run measures when it finds no steady state (BoundsConsistencyTest). */
    private static final double FINITE_ITERATIONS = 1.0 / 64;

    @Test
    void theBottleneckTheBoundsAndThePortTableAgreeOnEverySampleBlock() {
        Map<String, BasicBlock> distinct = new LinkedHashMap<>();
        for (LabelledBlock b : Dataset.bundled().blocks()) {
            distinct.putIfAbsent(b.hex(), b.block());
        }
        List<BasicBlock> blocks = List.copyOf(distinct.values());
        assertTrue(blocks.size() >= 29_000, "the sample's distinct blocks: " + blocks.size());
        for (Microarchitecture cpu : Microarchitecture.all()) {
            if (SimulatorParams.imported(cpu).isEmpty()) {
                continue;
            }
            Simulator sim = new Simulator(SimulatorParams.standard(cpu));
            Simulator.Options options = Simulator.Options.defaults();
            List<String> problems = blocks.parallelStream().map(b -> problem(sim, options, b))
                    .filter(p -> p != null).toList();
            System.out.printf(Locale.ROOT, "bottleneck consistency, %s: %d blocks, %d disagreements%n", cpu,
                    blocks.size(), problems.size());
            problems.stream().limit(20).forEach(p -> System.out.println("  " + p));
            assertTrue(problems.isEmpty(), cpu + ": " + problems.size() + " blocks disagree, e.g. "
                    + problems.subList(0, Math.min(5, problems.size())));
        }
    }

    /** What disagrees on {@code block}, or null. */
    private static String problem(Simulator sim, Simulator.Options options, BasicBlock block) {
        Bottleneck b = sim.bottleneck(block, options);
        Bounds bounds = sim.bounds(block, options);
        List<String> wrong = new ArrayList<>();
        double top = bounds.cyclesPerIteration();
        if (Math.abs(b.cycles() - top) > 1e-9) {
            wrong.add(String.format(Locale.ROOT, "named %s %.4f but the winning bound is %s %.4f", b.resource(),
                    b.cycles(), bounds.winner(), top));
        }
        double busiest = 0;
        for (double load : bounds.portLoads()) {
            busiest = Math.max(busiest, load);
        }
        if (Math.abs(busiest - bounds.ports()) > 1e-9 || Math.abs(b.portBound() - bounds.ports()) > 1e-9) {
            wrong.add(String.format(Locale.ROOT, "busiest port row %.4f, port bound %.4f, bottleneck's %.4f",
                    busiest, bounds.ports(), b.portBound()));
        }
        double[] table = bounds.portLoads();
        double[] columns = new double[table.length];
        for (InstructionTable.Row row : InstructionTable.of(bounds)) {
            for (int port = 0; port < columns.length; port++) {
                columns[port] += row.portCycles()[port];
            }
        }
        for (int port = 0; port < columns.length; port++) {
            if (Math.abs(columns[port] - table[port]) > 1e-6) {
                wrong.add(String.format(Locale.ROOT, "the instruction table's port %s adds up to %.6f, the port "
                        + "table says %.6f", sim.params().ports().get(port), columns[port], table[port]));
            }
        }
        if (b.chainBound() > b.cyclesPerIteration() + FINITE_ITERATIONS + 1e-9) {
            wrong.add(String.format(Locale.ROOT, "chain %.4f longer than the result %.4f", b.chainBound(),
                    b.cyclesPerIteration()));
        }
        if (b.instructions().stream().anyMatch(i -> i < 0 || i >= block.size())
                || b.chain().stream().anyMatch(i -> i < 0 || i >= block.size())) {
            wrong.add("instructions out of the block: " + b.instructions() + " " + b.chain());
        }
        return wrong.isEmpty() ? null : block.hex() + ": " + String.join("; ", wrong);
    }
}
