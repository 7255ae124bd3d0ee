package dev.basalt.cli;

import dev.basalt.core.Estimators;
import dev.basalt.core.Microarchitecture;
import dev.basalt.core.Provenance;
import dev.basalt.datasets.Dataset;
import dev.basalt.decoder.BasicBlock;
import dev.basalt.granite.GraniteModel;
import dev.basalt.ithemal.IthemalModel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code basalt train} end to end on a slice of the bundled data, for both learned models. */
class TrainCommandTest {

    @Test
    void trainsGraniteWithThePriorAndWritesALoadableModel(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("g.granite");
        CliRun r = CliRun.of("train", "granite", "--max-train", "300", "--epochs", "1", "--hidden", "8",
                "--iterations", "1", "--mcpu", "haswell", "--out", out.toString());
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().contains("epoch 1: loss") && r.out().contains("| granite | haswell |"), r.out());
        // The validation split's ~1,000 Haswell blocks calibrate the intervals, and the test split checks them.
        assertTrue(r.out().contains("90% prediction intervals (calibrated on the validation split), test blocks "
                + "inside: haswell "), r.out());
        try (GraniteModel m = GraniteModel.load(out)) {
            assertEquals(java.util.List.of(Microarchitecture.HASWELL), m.cpus());
            assertTrue(m.calibration().isPresent());
            assertEquals(6, m.predict(BasicBlock.fromHex("4883c001"), Microarchitecture.HASWELL).intervals().size());
            assertEquals("simulator", m.config().prior());
            assertTrue(m.predict(BasicBlock.fromHex("4883c001"), Microarchitecture.HASWELL).cyclesPerIteration() > 0);
            // The provenance says how the model was made, and pins the prior as well as the prior allows.
            Provenance p = m.provenance().orElseThrow();
            assertEquals("granite-model", p.kind());
            assertEquals("basalt train granite --max-train 300 --epochs 1 --hidden 8 --iterations 1 --mcpu haswell "
                    + "--out " + out, p.command());
            assertEquals(42L, p.seed(), "the configuration's default seed");
            assertEquals(Dataset.bundled().fingerprint(), p.dataFingerprint());
            assertEquals("SHA-256 of hex, 80/10/10", p.split());
            assertEquals(300, p.detail("trainBlocks").orElseThrow());
            assertEquals(1, p.detail("epochs").orElseThrow());
            assertTrue(p.detail("testReport").orElseThrow().toString().startsWith("estimator,uarch"), p.toString());
            // The prior is pinned by the fingerprint of the simulator's tables for the model's CPUs.
            String simulator = Estimators.load("simulator").fingerprint(m.cpus()).orElseThrow();
            assertEquals(new Provenance.Prior("simulator", simulator), p.prior());
            assertEquals(List.of(), m.warnings());
        }
    }

    @Test
    void trainsIthemalWithoutAPrior(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("i.ithemal");
        CliRun r = CliRun.of("train", "ithemal", "--max-train", "300", "--epochs", "1", "--hidden", "8",
                "--embedding", "8", "--prior", "none", "--seed", "5", "--out", out.toString());
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().contains("| ithemal | ivybridge |"), r.out());
        // Eight-wide and one epoch, it predicts 0 for most blocks: too few usable blocks to calibrate, said so.
        try (IthemalModel m = IthemalModel.load(out)) {
            if (m.calibration().isEmpty()) {
                assertTrue(r.out().contains("no prediction intervals: too few validation blocks"), r.out());
            }
            assertEquals(3, m.cpus().size());
            assertEquals(null, m.config().prior());
            assertEquals(5L, m.config().seed());
            assertEquals("ithemal-model", m.provenance().orElseThrow().kind());
            assertEquals(5L, m.provenance().orElseThrow().seed());
            assertNull(m.provenance().orElseThrow().prior());
            assertEquals(List.of(), m.warnings());
        }
    }

    @Test
    void modelSpecificOptionsAndUnknownModelsAreRefused(@TempDir Path dir) {
        CliRun a = CliRun.of("train", "ithemal", "--iterations", "2", "--out", dir.resolve("x").toString());
        assertEquals(2, a.exit());
        assertTrue(a.err().contains("--iterations is a granite option"), a.err());
        CliRun h = CliRun.of("train", "granite", "--hybrid", "--prior", "none", "--out", dir.resolve("x").toString());
        assertEquals(2, h.exit());
        assertTrue(h.err().contains("--hybrid takes the prior's statistics: it needs a prior"), h.err());
        CliRun b = CliRun.of("train", "oracle", "--out", dir.resolve("y").toString());
        assertEquals(2, b.exit());
        assertTrue(b.err().contains("unknown model 'oracle'") && b.err().contains("granite, ithemal"), b.err());
        CliRun c = CliRun.of("train", "granite", "--embedding", "8", "--out", dir.resolve("z").toString());
        assertEquals(2, c.exit());
        assertTrue(c.err().contains("--embedding is an ithemal option"), c.err());
    }

    @Test
    void helpListsTheTrainableModels() {
        CliRun r = CliRun.of("train", "--help");
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().contains("granite, ithemal"), r.out());
    }
}
