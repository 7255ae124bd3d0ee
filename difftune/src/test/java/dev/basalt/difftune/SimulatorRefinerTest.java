package dev.basalt.difftune;

import dev.basalt.simulator.params.InstructionParams;
import dev.basalt.simulator.params.SimulatorParams;
import dev.basalt.simulator.Simulator;
import dev.basalt.core.Microarchitecture;
import dev.basalt.datasets.Dataset;
import dev.basalt.datasets.LabelledBlock;
import dev.basalt.datasets.Metrics;
import dev.basalt.datasets.Split;
import dev.basalt.datasets.SplitScheme;
import dev.basalt.decoder.BasicBlock;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The real-simulator search finds planted errors: "measurements" made by the simulator with the imported table are
 * fitted again starting from a table with two rows wrong (the latencies of two loads, 4 cycles too long, which the
 * plausibility rules would not let a search reach but let it leave).
 */
class SimulatorRefinerTest {

    private static final SimulatorParams HSW = SimulatorParams.bundled(Microarchitecture.HASWELL);

    @Test
    void recoversPlantedChangesFromSimulatedMeasurements() {
        List<BasicBlock> all = Dataset.bundled().blocks(SplitScheme.defaults(), Split.TRAIN).stream()
                .filter(b -> b.hasLabel(Microarchitecture.HASWELL)).limit(600).map(LabelledBlock::block).toList();
        Map<String, InstructionParams> forms = new LinkedHashMap<>(HSW.forms());
        InstructionParams load = forms.get("MOV r64, m64");
        InstructionParams load32 = forms.get("MOV r32, m32");
        forms.put("MOV r64, m64", new InstructionParams(load.uops(), load.latency() + 4, load.readAdvance(), load.ports()));
        forms.put("MOV r32, m32", new InstructionParams(load32.uops(), load32.latency() + 4, load32.readAdvance(),
                load32.ports()));
        SimulatorParams planted = HSW.withForms(forms);
        SimulatorParams truth = HSW;
        Simulator.Options options = Simulator.Options.defaults();
        List<BasicBlock> train = all.subList(0, 400);
        List<BasicBlock> validation = all.subList(400, 600);
        double[] trainY = SimulatorRefiner.simulate(truth, train, options);
        double[] validationY = SimulatorRefiner.simulate(truth, validation, options);
        double before = Metrics.mape(SimulatorRefiner.simulate(planted, validation, options), validationY);
        assertTrue(before > 0.03, "the planted change must matter: " + before);

        List<SimulatorRefiner.Pass> passes = new ArrayList<>();
        SimulatorParams refined = new SimulatorRefiner(new SimulatorRefiner.Settings(4, 3, 0.002, 0.05), options, HSW)
                .refine(planted, train, trainY, validation, validationY, passes::add, done -> { });
        double after = Metrics.mape(SimulatorRefiner.simulate(refined, validation, options), validationY);
        assertTrue(after < 0.2 * before, "validation MAPE " + before + " -> " + after + " " + passes);
        assertEquals(load.latency(), refined.forms().get("MOV r64, m64").latency(), passes.toString());
        assertEquals(load32.latency(), refined.forms().get("MOV r32, m32").latency(), passes.toString());
        assertEquals(List.of(), ParameterLayout.outOfRange(refined));
    }

    @Test
    void candidatesChangeOneValueAndStayInRange() {
        InstructionParams row = new InstructionParams(1, 4, 0, Map.of("0156", 1));
        List<InstructionParams> c = SimulatorRefiner.candidates(row, row, false);
        assertTrue(c.contains(new InstructionParams(1, 2, 0, Map.of("0156", 1))), c.toString()); // latency ×½
        assertTrue(c.contains(new InstructionParams(1, 8, 0, Map.of("0156", 1))), c.toString()); // latency ×2
        assertTrue(c.contains(new InstructionParams(2, 4, 0, Map.of("0156", 1))), c.toString()); // uops +1
        assertTrue(c.contains(new InstructionParams(1, 4, 0, Map.of())), c.toString()); // port group dropped
        assertTrue(c.stream().noneMatch(r -> r.equals(row) || r.uops() < 1), c.toString());
    }

    @Test
    void familiesKeepTheirPrefixes() {
        assertEquals("CMPXCHG", SimulatorRefiner.family("CMPXCHG m32, r32"));
        assertEquals("LOCK CMPXCHG", SimulatorRefiner.family("LOCK CMPXCHG m32, r32"));
        assertEquals("REP STOSB", SimulatorRefiner.family("REP STOSB"));
        assertEquals("CDQ", SimulatorRefiner.family("CDQ"));
        assertEquals("IDIV", SimulatorRefiner.family("IDIV r32"));
    }
}
