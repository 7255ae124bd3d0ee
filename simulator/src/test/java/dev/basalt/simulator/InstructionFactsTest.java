package dev.basalt.simulator;

import dev.basalt.simulator.facts.EncodingFacts;
import dev.basalt.simulator.facts.InstructionFacts;

import dev.basalt.simulator.bounds.Bounds;
import dev.basalt.simulator.params.SimulatorParams;
import dev.basalt.core.Microarchitecture;
import dev.basalt.decoder.BasicBlock;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The per-decoding facts caches change nothing but speed, stay within their bound, and may be shared between CPUs'
 * simulators for what the bytes alone say.
 */
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

    @Test
    void simulatorsOfTwoCpusSharingTheirEncodingsGiveWhatEachGivesAlone() {
        EncodingFacts.Cache shared = new EncodingFacts.Cache();
        // Skylake first, so that Haswell's simulator finds every encoding's facts made by another CPU's.
        Simulator skylake = new Simulator(SimulatorParams.standard(Microarchitecture.SKYLAKE), shared, Microarchitecture.SKYLAKE);
        Simulator haswell = new Simulator(SimulatorParams.standard(Microarchitecture.HASWELL), shared, Microarchitecture.HASWELL);
        Simulator skylakeAlone = new Simulator(SimulatorParams.standard(Microarchitecture.SKYLAKE));
        Simulator haswellAlone = new Simulator(SimulatorParams.standard(Microarchitecture.HASWELL));
        for (BasicBlock b : BLOCKS) {
            assertEquals(everything(skylakeAlone, b), everything(skylake, b), "Skylake on " + b.hex());
        }
        int encodings = shared.size();
        assertTrue(encodings > 100, "the blocks' encodings: " + encodings);
        for (BasicBlock b : BLOCKS) {
            assertEquals(everything(haswellAlone, b), everything(haswell, b), "Haswell on " + b.hex());
        }
        assertEquals(encodings, shared.size(), "Haswell's simulator computed encodings' facts Skylake's had made");
    }
}
