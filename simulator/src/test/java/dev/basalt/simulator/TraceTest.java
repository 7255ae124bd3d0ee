package dev.basalt.simulator;

import dev.basalt.core.Microarchitecture;
import dev.basalt.decoder.BasicBlock;
import dev.basalt.simulator.params.SimulatorParams;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A traced run ({@link Simulator#trace}) runs every iteration asked and keeps every instance's stages, where a run
 * stops at its steady state and keeps the first 64: same machine, same cycles.
 */
class TraceTest {

    @Test
    void aTraceKeepsEveryInstanceAndAgreesWithTheRun() {
        Simulator sim = new Simulator(SimulatorParams.standard(Microarchitecture.SKYLAKE));
        BasicBlock chain = BasicBlock.fromHex("480fafc04801d8"); // imul rax, rax; add rax, rbx: 4 cycles a round
        Simulator.Options options = Simulator.Options.defaults().withIterations(300);
        Simulator.Result run = sim.run(chain, options);
        Simulator.Result trace = sim.trace(chain, options);
        assertTrue(run.timeline().size() <= 64, "a run keeps at most its first 64 instances");
        assertEquals(2 * 300, trace.timeline().size());
        List<int[]> rows = Timeline.rows(chain, trace, sim.frontEnd(chain, options));
        int last = rows.get(rows.size() - 1)[7];
        assertEquals(299, rows.get(rows.size() - 1)[0]);
        // 300 rounds of the 4-cycle chain, and the run's total (extrapolated from its steady state) the same.
        assertEquals(4.0 * 300, last, 10);
        assertEquals(run.totalCycles(), trace.totalCycles(), 0.01 * run.totalCycles() + 2);
        for (int k = 1; k < rows.size(); k++) {
            assertTrue(rows.get(k)[7] >= rows.get(k - 1)[7], "retired in order");
        }
        assertThrows(IllegalArgumentException.class, () -> sim.trace(chain, Simulator.Options.llvmMcaCompatible()));
    }
}
