package dev.basalt.simulator;

import dev.basalt.core.Microarchitecture;
import dev.basalt.decoder.BasicBlock;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The per-decoding facts cache changes nothing but speed, and stays within its bound. */
class InstructionFactsTest {

    private static final List<BasicBlock> BLOCKS = SampleBlocks.haswell(200);

    private static String everything(Simulator sim, BasicBlock b) {
        Simulator.Options o = Simulator.Options.defaults();
        Simulator.Result r = sim.run(b, o);
        Bounds x = sim.bounds(b, o);
        return r.cyclesPerIteration() + " " + Arrays.toString(r.portCycles()) + " " + Arrays.toString(r.waitCycles())
                + " " + r.fallbacks() + " " + x.describe() + " " + Arrays.deepToString(x.shares());
    }

    @Test
    void aTinyCacheGivesWhatAFullOneGives() {
        SimulatorParams table = SimulatorParams.standard(Microarchitecture.HASWELL);
        Simulator full = new Simulator(table);
        InstructionFacts.Cache tiny = new InstructionFacts.Cache(3);
        Simulator bounded = new Simulator(table, tiny);
        for (BasicBlock b : BLOCKS) {
            String first = everything(full, b);
            assertEquals(first, everything(full, b), "cached facts (second run) on " + b.hex());
            assertEquals(first, everything(bounded, b), "facts of a cache that keeps 3 decodings on " + b.hex());
            assertTrue(tiny.forSwitches(Simulator.Options.defaults()).size() <= 3, "the cache outgrew its bound");
        }
    }
}
