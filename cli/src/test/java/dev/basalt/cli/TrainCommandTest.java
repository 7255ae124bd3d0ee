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
    void trainsGraniteWithTheSimulatorPriorAndWritesALoadableModel(@TempDir Path dir) throws Exception {
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
            assertEquals("simulator", m.config().prior(), "GRANITE's default prior");
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
            // The prior is pinned by the fingerprint of the simulator's tables and options for the model's CPUs.
            String simulator = Estimators.load("simulator").fingerprint(m.cpus()).orElseThrow();
            assertEquals(new Provenance.Prior("simulator", simulator), p.prior());
            assertEquals(List.of(), m.warnings());
        }
    }

    @Test
    void pretrainsOnUnlabelledBlocksLeavingOutValidationAndTestBlocks(@TempDir Path dir) throws Exception {
        // 300 training-split blocks, 50 test-split blocks (to be left out), one bad row.
        Dataset data = Dataset.bundled();
        dev.basalt.datasets.SplitScheme scheme = dev.basalt.datasets.SplitScheme.defaults();
        List<String> train = data.blocks(scheme, dev.basalt.datasets.Split.TRAIN).stream().limit(300)
                .map(b -> b.hex()).toList();
        List<String> test = data.blocks(scheme, dev.basalt.datasets.Split.TEST).stream().limit(50)
                .map(b -> b.hex()).toList();
        List<String> lines = new java.util.ArrayList<>(train);
        lines.addAll(test);
        lines.add("zz");
        Path blocks = dir.resolve("unlabelled.csv");
        java.nio.file.Files.write(blocks, lines);
        Path out = dir.resolve("p.granite");
        CliRun r = CliRun.of("train", "granite", "--max-train", "300", "--epochs", "1", "--hidden", "8",
                "--iterations", "1", "--mcpu", "haswell", "--pretrain", blocks.toString(), "--pretrain-epochs", "2",
                "--out", out.toString());
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().contains(blocks + ": 351 rows read, 350 kept, 1 skipped"), r.out());
        assertTrue(r.out().contains("pre-training on ") && r.out().contains(" distinct blocks (of 350 rows in 1 files; "
                + "validation and test blocks left out) labelled by simulator: "), r.out());
        assertTrue(r.out().contains("pre-training epoch 2: loss"), r.out());
        try (GraniteModel m = GraniteModel.load(out)) {
            Object said = m.provenance().orElseThrow().detail("pretraining").orElseThrow();
            // The 300 training blocks are kept (distinct ones), the 50 test blocks are not.
            long distinct = train.stream().distinct().count();
            assertEquals(distinct + " blocks labelled by simulator, 2 epochs", said);
        }
        // A file with nothing usable is bad input, named.
        Path only = dir.resolve("test-only.csv");
        java.nio.file.Files.write(only, test);
        CliRun bad = CliRun.of("train", "granite", "--max-train", "300", "--epochs", "1", "--hidden", "8",
                "--iterations", "1", "--mcpu", "haswell", "--pretrain", only.toString(), "--out",
                dir.resolve("q.granite").toString());
        assertEquals(2, bad.exit(), bad.out() + bad.err());
        assertTrue(bad.err().contains("--pretrain: 0 usable blocks"), bad.err());
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
