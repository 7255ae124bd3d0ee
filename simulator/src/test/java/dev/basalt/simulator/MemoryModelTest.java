package dev.basalt.simulator;

import dev.basalt.simulator.params.SimulatorParams;
import dev.basalt.core.Microarchitecture;
import dev.basalt.decoder.BasicBlock;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The two memory models: BHive's harness memory (every pointer 0x2324000, so {@code [rsi]} and {@code [rdi]} are one
 * address) and distinct memory (only what the code proves aliases), with {@code AUTO} harness for straight-line
 * blocks and distinct for loops. The run and the bounds follow the same choice.
 */
class MemoryModelTest {

    // mov rax, [rsi]; add rax, rbx; mov [rdi], rax (then, as a loop: dec rcx; jnz back)
    private static final BasicBlock STRAIGHT = BasicBlock.fromHex("488b064801d8488907");
    private static final BasicBlock LOOP = BasicBlock.fromHex("488b064801d848890748ffc975f2");

    private static double run(Microarchitecture cpu, BasicBlock b, Simulator.MemoryModel m) {
        return new Simulator(SimulatorParams.standard(cpu)).run(b, Simulator.Options.defaults().withMemory(m))
                .cyclesPerIteration();
    }

    private static double bound(Microarchitecture cpu, BasicBlock b, Simulator.MemoryModel m) {
        return new Simulator(SimulatorParams.standard(cpu)).bounds(b, Simulator.Options.defaults().withMemory(m))
                .cyclesPerIteration();
    }

    @Test
    void harnessMemoryChainsTheCopyThroughOneAddressDistinctMemoryDoesNot() {
        for (Microarchitecture cpu : List.of(Microarchitecture.HASWELL, Microarchitecture.SKYLAKE)) {
            for (BasicBlock b : List.of(STRAIGHT, LOOP)) {
                double harness = run(cpu, b, Simulator.MemoryModel.HARNESS);
                double distinct = run(cpu, b, Simulator.MemoryModel.DISTINCT);
                // store → forwarded load → add → store: the tables' forwarding latency plus the add, at least 5
                assertTrue(harness >= 5, cpu + " " + b.hex() + " harness " + harness);
                assertEquals(1.0, distinct, 0.02, cpu + " " + b.hex() + " distinct");
                assertTrue(bound(cpu, b, Simulator.MemoryModel.HARNESS) >= 5, "the bounds follow: harness");
                assertEquals(1.0, bound(cpu, b, Simulator.MemoryModel.DISTINCT), 0.02, "the bounds follow: distinct");
            }
        }
    }

    @Test
    void autoIsHarnessForStraightLineBlocksAndDistinctForLoops() {
        Microarchitecture cpu = Microarchitecture.HASWELL;
        assertEquals(run(cpu, STRAIGHT, Simulator.MemoryModel.HARNESS), run(cpu, STRAIGHT, Simulator.MemoryModel.AUTO));
        assertEquals(run(cpu, LOOP, Simulator.MemoryModel.DISTINCT), run(cpu, LOOP, Simulator.MemoryModel.AUTO));
        assertTrue(Simulator.Options.defaults().harnessMemory(false));
        assertTrue(!Simulator.Options.defaults().harnessMemory(true));
        // AUTO leaves estimators' fingerprints as they were before there was a memory model
        assertEquals(-1, Simulator.Options.defaults().fingerprintText().indexOf("memory="));
        assertTrue(Simulator.Options.defaults().withMemory(Simulator.MemoryModel.DISTINCT).fingerprintText()
                .contains("memory=DISTINCT"));
    }
}
