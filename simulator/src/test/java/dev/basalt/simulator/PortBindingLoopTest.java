package dev.basalt.simulator;

import dev.basalt.core.Microarchitecture;
import dev.basalt.decoder.BasicBlock;
import dev.basalt.simulator.params.SimulatorParams;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The textbook loop {@code add rax, [rsi]; add rsi, 8; dec rcx; jnz}: every bound says 1.00 cycle an iteration (the
 * taken branch, fused with dec, fills port 6; two ALU micro-ops share ports 0, 1 and 5), yet the machine runs 1.24
 * on Haswell and Skylake. The micro-ops are bound to ports as they are allocated, by the ports' queues at that moment
 * (uiCA's rule; BHive's Skylake rows measure its cost, CoreParams.PortBinding): the adds' queues fill with micro-ops
 * waiting for the load, port 6's does not, and about one ALU micro-op in ten goes to port 6 beside the branch. Port
 * 6 then carries 1.15–1.21 cycles an iteration, and the bottleneck says so. Taking any free port at execution
 * instead, the same machine runs at the bound.
 */
class PortBindingLoopTest {

    private static final BasicBlock LOOP = BasicBlock.fromHex("4803064883c60848ffc975f4");

    @Test
    void bindingAtAllocationLoadsTheBranchsPortAndTheBottleneckSaysSo() {
        for (Microarchitecture cpu : new Microarchitecture[] {Microarchitecture.HASWELL, Microarchitecture.SKYLAKE}) {
            Simulator sim = new Simulator(SimulatorParams.standard(cpu));
            Simulator.Options o = Simulator.Options.defaults();
            Simulator.Result r = sim.run(LOOP, o);
            Bottleneck b = sim.bottleneck(LOOP, o);
            assertEquals(1.00, b.cycles(), 0.01, cpu.llvmName() + ": the bound");
            assertTrue(r.cyclesPerIteration() > 1.1, cpu.llvmName() + ": " + r.cyclesPerIteration());
            int p6 = sim.params().ports().indexOf("6");
            assertTrue(r.portCycles()[p6] > 1.1, cpu.llvmName() + ": port 6 carried " + r.portCycles()[p6]);
            assertEquals("6", b.boundPort(), cpu.llvmName());
            assertTrue(b.describe().contains("bound to ports at allocation"), b.describe());
            // Any free port at execution: the bound.
            double free = sim.run(LOOP, o.without(false, false, false, true, false)).cyclesPerIteration();
            assertEquals(1.00, free, 0.02, cpu.llvmName() + ": execution-time ports");
        }
    }
}
