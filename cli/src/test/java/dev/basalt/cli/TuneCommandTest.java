package dev.basalt.cli;

import dev.basalt.core.Estimators;
import dev.basalt.core.Microarchitecture;
import dev.basalt.decoder.BasicBlock;
import dev.basalt.simulator.Simulator;
import dev.basalt.simulator.params.SimulatorParams;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code basalt tune} end to end (tiny configuration), {@code simulate --params} with its result, and bad input. */
class TuneCommandTest {

    @Test
    void tunesWritesATableAndSimulateUsesIt(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("hsw.json");
        CliRun r = CliRun.of("tune", "--mcpu", "haswell", "--max-train", "300", "--samples", "1500", "--held-out",
                "200", "--surrogate-epochs", "1", "--learn-epochs", "1", "--passes", "1", "--work",
                dir.resolve("work").toString(), "--out", out.toString());
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().contains("surrogate fidelity (held-out samples): MAPE"), r.out());
        assertTrue(r.out().contains("| llvm-mca defaults |") && r.out().contains("| refined from defaults |"), r.out());
        assertTrue(r.out().contains("range check: every value is within its valid range"), r.out());
        SimulatorParams t = SimulatorParams.read(out);
        assertEquals("haswell", t.mcpu());
        assertTrue(t.provenance().command().startsWith("basalt tune --mcpu haswell"));
        assertEquals("simulator-table", t.provenance().kind());
        assertEquals(dev.basalt.datasets.Dataset.bundled().fingerprint(), t.provenance().dataFingerprint());
        assertTrue(t.provenance().detail("stage").isPresent(), t.provenance().toString());
        // The resumable sample files stay in --work; beside the table only its change report.
        assertTrue(Files.exists(dir.resolve("work/samples-haswell-seed1.jsonl")));
        try (var files = Files.list(dir)) {
            assertEquals(3, files.count());
        }
        String changes = Files.readString(dir.resolve("hsw.json.changes.md"));
        assertTrue(changes.startsWith("### haswell: ") && changes.contains("| form | training blocks |"), changes);
        CliRun s = CliRun.of("simulate", "--params", out.toString(), "--mcpu", "haswell", "480fafc0");
        assertEquals(0, s.exit(), s.err());
        double expected = new Simulator(t).run(BasicBlock.fromHex("480fafc0"), Simulator.Options.defaults())
                .cyclesPerIteration();
        assertTrue(s.out().contains(String.format(java.util.Locale.ROOT, "%.2f", expected)), s.out());
    }

    @Test
    void aTableForAnotherCpuIsRefused(@TempDir Path dir) throws Exception {
        Path skl = dir.resolve("skl.json");
        SimulatorParams.bundled(Microarchitecture.SKYLAKE).write(skl);
        CliRun r = CliRun.of("tune", "--mcpu", "haswell", "--params", skl.toString(), "--out",
                dir.resolve("x.json").toString());
        assertEquals(2, r.exit(), r.err());
        assertTrue(r.err().contains("is a table for skylake, not haswell"), r.err());
        assertTrue(!Files.exists(dir.resolve("x.json")));
    }

    @Test
    void simulatorNamesTheirTables() {
        // simulator-default and simulator-untuned use the untuned llvm-mca tables; simulator the standard ones.
        BasicBlock b = BasicBlock.fromHex("488b07480fafc0");
        for (Microarchitecture m : Microarchitecture.measured()) {
            SimulatorParams untuned = SimulatorParams.bundled(m);
            assertEquals(new Simulator(untuned).run(b, Simulator.Options.llvmMcaCompatible()).cyclesPerIteration(),
                    Estimators.load("simulator-default").predict(b, m).cyclesPerIteration(), 0.0);
            assertEquals(new Simulator(untuned).run(b, Simulator.Options.defaults()).cyclesPerIteration(),
                    Estimators.load("simulator-untuned").predict(b, m).cyclesPerIteration(), 0.0);
            assertEquals(new Simulator(SimulatorParams.standard(m)).run(b, Simulator.Options.defaults())
                    .cyclesPerIteration(), Estimators.load("simulator").predict(b, m).cyclesPerIteration(), 0.0);
        }
    }

    @Test
    void zeroOrNegativeSizesAreRefusedBeforeAnyWork(@TempDir Path dir) {
        Path out = dir.resolve("t.json");
        for (String[] bad : new String[][] {{"--samples", "0"}, {"--held-out", "0"}, {"--max-train", "-5"},
                {"--learn-epochs", "0"}, {"--lr", "-1"}}) {
            CliRun r = CliRun.of("tune", "--out", out.toString(), "--work", dir.resolve("w").toString(), bad[0], bad[1]);
            assertEquals(2, r.exit(), String.join(" ", bad));
            assertTrue(r.err().startsWith("basalt tune: " + bad[0] + " must be"), r.err());
            assertTrue(!Files.exists(out) && !Files.exists(dir.resolve("w")), "nothing written for " + bad[0]);
        }
        CliRun train = CliRun.of("train", "granite", "--out", dir.resolve("g.granite").toString(), "--epochs", "0");
        assertEquals(2, train.exit());
        assertTrue(train.err().startsWith("basalt train: --epochs must be at least 1, got 0"), train.err());
        assertTrue(!Files.exists(dir.resolve("g.granite")));
    }
}
