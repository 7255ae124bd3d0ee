package dev.basalt.simulator;

import dev.basalt.simulator.params.SimulatorParams;
import dev.basalt.core.Microarchitecture;
import dev.basalt.decoder.BasicBlock;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The simulator names the resource a hand-made block is limited by (bundled llvm-mca Haswell table). */
class BottleneckTest {

    private final Simulator haswell = new Simulator(SimulatorParams.bundled(Microarchitecture.HASWELL));
    private final Simulator.Options options = Simulator.Options.defaults();

    @Test
    void independentAddsAreLimitedByThePredecoder() {
        // Six independent add r64, r64 of 3 bytes: 6 micro-ops / 4 per cycle = 1.5, 4 ALU ports also 1.5. But
        // the predecoder marks at most 5 instructions of a 16-byte window per cycle. Per 48 bytes (16
        // instructions, 8/3 iterations) windows end 5, 5 and 6 instructions: 1 cycle, 1 cycle plus 1 (its five
        // slots are used and the next add's opcode, at byte 31, is still in it) and 2 cycles: 5 cycles, so
        // 5 / (8/3) = 1.875 cycles per iteration.
        Bottleneck b = haswell.bottleneck(BasicBlock.fromHex("4801d84801d14801fe4d01c84d01da4d01ec"), options);
        assertEquals(1.5, b.dispatchBound(), 1e-9);
        assertTrue(b.chainBound() <= 1.0, "chain " + b.chainBound());
        assertEquals(Bottleneck.Kind.FRONT_END, b.kind(), b.describe());
        assertEquals(1.875, b.frontEndBound(), 1e-9);
        assertEquals(1.875, b.cyclesPerIteration(), 1e-9);
        // Without the front end, the issue width and the ALU ports bound it.
        Bottleneck simple = haswell.bottleneck(BasicBlock.fromHex("4801d84801d14801fe4d01c84d01da4d01ec"),
                options.without(true, false, false, false, false));
        assertEquals(0, simple.frontEndBound());
        assertEquals(1.5, simple.cyclesPerIteration(), 0.05);
    }

    @Test
    void aLoopCarriedImulIsAChain() {
        // imul rax, rax: latency 3 on a loop-carried chain.
        Bottleneck b = haswell.bottleneck(BasicBlock.fromHex("480fafc0"), options);
        assertEquals(Bottleneck.Kind.DEPENDENCY_CHAIN, b.kind(), b.describe());
        assertEquals(3.0, b.chainBound(), 1e-6);
        assertEquals(List.of(0), b.chain());
        assertEquals(3.0, b.cyclesPerIteration(), 0.1);
    }

    @Test
    void independentMultipliesArePortBound() {
        // three independent vmulps ymm: ports 0 and 1 take 3 micro-ops in 1.5 cycles; no chain, 3 / 4 dispatch.
        Bottleneck b = haswell.bottleneck(BasicBlock.fromHex("c5ec59cbc5d459e6c4c13c59f9"), options);
        assertEquals(Bottleneck.Kind.PORT_PRESSURE, b.kind(), b.describe());
        // The named bottleneck is the port bound: 3 micro-ops on ports 0 and 1, 1.5 cycles each; the port table
        // (the bounds' balanced loads) shows the same 1.5 on both.
        assertEquals(1.5, b.portBound(), 1e-9);
        assertEquals("01", b.busiestPort());
        assertEquals("ports 01", b.resource());
        assertEquals(List.of(0, 1, 2), b.instructions());
        double[] loads = haswell.bounds(BasicBlock.fromHex("c5ec59cbc5d459e6c4c13c59f9"), options).portLoads();
        List<String> ports = haswell.params().ports();
        assertEquals(1.5, loads[ports.indexOf("0")], 1e-9);
        assertEquals(1.5, loads[ports.indexOf("1")], 1e-9);
        assertEquals(0, loads[ports.indexOf("5")], 1e-9);
    }
}
