package dev.basalt.difftune;

import dev.basalt.simulator.params.InstructionParams;
import dev.basalt.simulator.params.SimulatorParams;
import dev.basalt.simulator.Simulator;
import dev.basalt.core.Microarchitecture;
import dev.basalt.datasets.Dataset;
import dev.basalt.datasets.LabelledBlock;
import dev.basalt.datasets.Split;
import dev.basalt.datasets.SplitScheme;
import dev.basalt.decoder.BasicBlock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Surrogate training data: seeded, in range, really simulated, and resumable to the identical file. */
class SurrogateDataTest {

    private static final SimulatorParams HSW = SimulatorParams.bundled(Microarchitecture.HASWELL);

    private static List<BasicBlock> blocks() {
        return Dataset.bundled().blocks(SplitScheme.defaults(), Split.TRAIN).stream()
                .filter(b -> b.hasLabel(Microarchitecture.HASWELL)).limit(500).map(LabelledBlock::block).toList();
    }

    @Test
    void samplesAreSimulatedWithTheirOwnTableAndStayInRange() {
        List<BasicBlock> blocks = blocks();
        ParameterSampler sampler = new ParameterSampler(HSW);
        int kept = 0;
        int rows = 0;
        for (int i = 0; i < 200; i++) {
            SurrogateData.Sample s = SurrogateData.sample(blocks, sampler, Simulator.Options.defaults(), 11, i);
            assertTrue(s.dispatchWidth() >= 1 && s.dispatchWidth() <= 10, "dispatch width " + s.dispatchWidth());
            assertTrue(s.robSize() >= 50 && s.robSize() <= 250, "ROB " + s.robSize());
            for (var e : s.rows().entrySet()) {
                InstructionParams d = new Simulator(HSW).resolve(e.getKey()).row();
                InstructionParams r = e.getValue();
                rows++;
                kept += r.equals(d) ? 1 : 0;
                assertTrue(r.uops() >= 1 && r.uops() <= Math.max(5, d.uops()), e.toString());
                assertTrue(r.latency() <= Math.max(5, d.latency()) && r.readAdvance() <= Math.max(5, d.readAdvance()));
            }
            // The recorded cycles are the simulator's with the recorded rows.
            SimulatorParams table = HSW.toBuilder().dispatchWidth(s.dispatchWidth()).robSize(s.robSize())
                    .forms(merged(s)).provenance(null).build();
            assertEquals(new Simulator(table).run(BasicBlock.fromHex(s.hex()), Simulator.Options.defaults())
                    .cyclesPerIteration(), s.cycles(), 1e-12);
        }
        // The full table is the same draw, with every other form at its default.
        List<String> forms = List.of("ADD r64, r64", "IMUL r64, r64", "MOV r64, m64");
        SimulatorParams full = sampler.sample(forms, 99);
        SimulatorParams only = sampler.sampleOnly(forms, 99);
        // The three sampled rows, and MOV r64, m64's register form at its default (LoadOperation reads it).
        assertEquals(java.util.Set.of("ADD r64, r64", "IMUL r64, r64", "MOV r64, m64", "MOV r64, r64"),
                only.forms().keySet());
        assertEquals(HSW.forms().get("MOV r64, r64"), only.forms().get("MOV r64, r64"));
        only.forms().forEach((f, r) -> assertEquals(r, full.forms().get(f)));
        assertEquals(HSW.forms().get("DIV r64"), full.forms().get("DIV r64"));
        assertEquals(only.dispatchWidth(), full.dispatchWidth());
        double share = (double) kept / rows;
        assertTrue(share > 0.4 && share < 0.7, "about half the rows keep their default: " + share);
    }

    private static java.util.Map<String, InstructionParams> merged(SurrogateData.Sample s) {
        java.util.Map<String, InstructionParams> m = new java.util.TreeMap<>(HSW.forms());
        m.putAll(s.rows());
        return m;
    }

    @Test
    void generationResumesToTheIdenticalFile(@TempDir Path dir) throws Exception {
        List<BasicBlock> blocks = blocks();
        Path whole = dir.resolve("whole.jsonl");
        Path resumed = dir.resolve("resumed.jsonl");
        SurrogateData.generate(whole, blocks, HSW, Simulator.Options.defaults(), 600, 5, n -> { });
        SurrogateData.generate(resumed, blocks, HSW, Simulator.Options.defaults(), 300, 5, n -> { });
        // Simulate an interrupted run: a torn last line.
        Files.writeString(resumed, Files.readString(resumed) + "{\"index\":300,\"hex\":\"48",
                java.nio.file.StandardOpenOption.TRUNCATE_EXISTING);
        int made = SurrogateData.generate(resumed, blocks, HSW, Simulator.Options.defaults(), 600, 5, n -> { });
        assertEquals(300, made, "only the missing samples are made");
        assertEquals(Files.readString(whole), Files.readString(resumed));
        List<SurrogateData.Sample> samples = SurrogateData.read(whole);
        assertEquals(600, samples.size());
        assertTrue(samples.stream().allMatch(s -> s.cycles() > 0));
        assertTrue(samples.stream().map(SurrogateData.Sample::hex).distinct().count() > 200, "many blocks");
    }
}
