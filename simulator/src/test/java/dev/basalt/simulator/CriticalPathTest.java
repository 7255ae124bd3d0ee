package dev.basalt.simulator;

import dev.basalt.simulator.bounds.CriticalPath;
import dev.basalt.simulator.facts.Sources;
import dev.basalt.simulator.params.InstructionParams;
import dev.basalt.simulator.params.SimulatorParams;
import dev.basalt.core.Microarchitecture;
import dev.basalt.decoder.BasicBlock;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** The surrogate's latency-chain bound on blocks whose chain is known, checked against the real simulator. */
class CriticalPathTest {

    private static final SimulatorParams HSW = SimulatorParams.bundled(Microarchitecture.HASWELL);

    private static float[][] chain(String hex) {
        BasicBlock b = BasicBlock.fromHex(hex);
        Simulator sim = new Simulator(HSW);
        float[] lat = new float[b.size()];
        float[] ra = new float[b.size()];
        for (int i = 0; i < b.size(); i++) {
            InstructionParams r = sim.resolve(b.instruction(i).form()).row();
            lat[i] = r.latency();
            ra[i] = r.readAdvance();
        }
        return CriticalPath.coefficients(b, Sources.of(b, Simulator.Options.defaults(), Sources.stackOps(b)),
                lat, ra);
    }

    private static double simulated(String hex) {
        return new Simulator(HSW).run(BasicBlock.fromHex(hex), Simulator.Options.defaults()).cyclesPerIteration();
    }

    @Test
    void imulThenAddIsOneChainOfFourCycles() {
        // imul rax, rax (3 cycles); add rax, rbx (1): both on the loop-carried rax chain, once per iteration.
        String hex = "480fafc04801d8";
        float[][] c = chain(hex);
        assertArrayEquals(new float[] {1f, 1f}, c[0], 1e-6f);
        assertEquals(4.0, 3 * c[0][0] + 1 * c[0][1], 1e-6);
        assertEquals(4.0, simulated(hex), 0.05);
    }

    @Test
    void independentInstructionsAreNotOnTheChain() {
        // imul rax, rax; add rbx, 1: only the imul repeats on itself.
        float[][] c = chain("480fafc04883c301");
        assertEquals(1f, c[0][0], 1e-6f);
        assertEquals(0f, c[0][1], 1e-6f);
    }

    @Test
    void readAdvanceShortensTheChainAsInTheSimulator() {
        // add rax, [rdi] (load-op: its register source rax is read 5 cycles late, latency 6 from the table)
        String hex = "480307";
        float[][] c = chain(hex);
        InstructionParams row = new Simulator(HSW).resolve(BasicBlock.fromHex(hex).instruction(0).form()).row();
        double bound = c[0][0] * row.latency() - c[1][0] * row.readAdvance();
        assertEquals(Math.max(0, row.latency() - row.readAdvance()), bound, 1e-6);
        assertEquals(simulated(hex), Math.max(bound, 0.5), 0.1);
    }
}
