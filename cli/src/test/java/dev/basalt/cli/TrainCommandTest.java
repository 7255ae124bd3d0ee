package dev.basalt.cli;

import dev.basalt.core.Microarchitecture;
import dev.basalt.decoder.BasicBlock;
import dev.basalt.granite.GraniteModel;
import dev.basalt.ithemal.IthemalModel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
        try (GraniteModel m = GraniteModel.load(out)) {
            assertEquals(java.util.List.of(Microarchitecture.HASWELL), m.cpus());
            assertEquals("simulator", m.config().prior());
            assertTrue(m.predict(BasicBlock.fromHex("4883c001"), Microarchitecture.HASWELL).cyclesPerIteration() > 0);
        }
    }

    @Test
    void trainsIthemalWithoutAPrior(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("i.ithemal");
        CliRun r = CliRun.of("train", "ithemal", "--max-train", "300", "--epochs", "1", "--hidden", "8",
                "--embedding", "8", "--prior", "none", "--out", out.toString());
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().contains("| ithemal | ivybridge |"), r.out());
        try (IthemalModel m = IthemalModel.load(out)) {
            assertEquals(3, m.cpus().size());
            assertEquals(null, m.config().prior());
        }
    }

    @Test
    void modelSpecificOptionsAndUnknownModelsAreRefused(@TempDir Path dir) {
        CliRun a = CliRun.of("train", "ithemal", "--iterations", "2", "--out", dir.resolve("x").toString());
        assertEquals(2, a.exit());
        assertTrue(a.err().contains("--iterations is a granite option"), a.err());
        CliRun b = CliRun.of("train", "oracle", "--out", dir.resolve("y").toString());
        assertEquals(2, b.exit());
        assertTrue(b.err().contains("unknown model 'oracle'"), b.err());
    }
}
