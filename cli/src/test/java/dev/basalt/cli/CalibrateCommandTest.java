package dev.basalt.cli;

import dev.basalt.core.Microarchitecture;
import dev.basalt.measure.HostCpu;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code basalt calibrate}'s choices before it measures: the shipped CPU it starts from for a host, the folder name
 * of the host's data, and its seeded block sample. (A run measures and tunes; the closing note of issue 38 and
 * README "Calibrating a machine" give one on the developers' machine.)
 */
class CalibrateCommandTest {

    private static HostCpu host(String vendor, int family, int model, String... features) {
        return new HostCpu(vendor, family, model, 1, "", "", "Linux", true, Set.of(features), "tsc", "ymm", "on");
    }

    @Test
    void theStartIsTheCpuMeasuredOnThisVeryModelElseTheClosestByFamilyAndModel() {
        // The developers' Zen 5: the CPU whose data set was measured on it.
        assertEquals("znver5", CalibrateCommand.closest(host("AuthenticAMD", 26, 2)).llvmName());
        assertEquals("amd-family26-model2", CalibrateCommand.folderOf(host("AuthenticAMD", 26, 2)));
        // Other Zen 5 models, Zen 4 (family 25 model 17: the EPYC Genoa the issue names) and Zen 3 (model 1).
        assertEquals("znver5", CalibrateCommand.closest(host("AuthenticAMD", 26, 17)).llvmName());
        assertEquals("znver4", CalibrateCommand.closest(host("AuthenticAMD", 25, 17)).llvmName());
        assertEquals("znver3", CalibrateCommand.closest(host("AuthenticAMD", 25, 1)).llvmName());
        // Intel by model: Ivy Bridge 0x3a, Haswell 0x3c, Skylake 0x55 (a Xeon), anything newer Skylake.
        assertEquals(Microarchitecture.IVYBRIDGE, CalibrateCommand.closest(host("GenuineIntel", 6, 0x3a)));
        assertEquals(Microarchitecture.HASWELL, CalibrateCommand.closest(host("GenuineIntel", 6, 0x3c)));
        assertEquals(Microarchitecture.SKYLAKE, CalibrateCommand.closest(host("GenuineIntel", 6, 0x55)));
        assertEquals(Microarchitecture.SKYLAKE, CalibrateCommand.closest(host("GenuineIntel", 6, 0x8f)));
        assertEquals("intel-family6-model143", CalibrateCommand.folderOf(host("GenuineIntel", 6, 0x8f)));
        // Golden Cove and later by SERIALIZE, whatever model the hypervisor reports: the Xeon 6 of the data set (167,
        // by its own data), a Sapphire Rapids (0x8f), an Alder Lake (0x97).
        assertEquals("graniterapids", CalibrateCommand.closest(host("GenuineIntel", 6, 167, "serialize")).llvmName());
        assertEquals("graniterapids", CalibrateCommand.closest(host("GenuineIntel", 6, 0x8f, "serialize", "amx_tile"))
                .llvmName());
        assertEquals("graniterapids", CalibrateCommand.closest(host("GenuineIntel", 6, 0x97, "serialize"))
                .llvmName());
    }

    /**
     * Issue 54: blocks measured on another machine (400 of the Xeon 6 data set, its meta beside them) are fitted
     * without executing anything: the host comes from the meta, the machine search runs, the table is written
     * with its provenance, and no measurement file appears.
     */
    @Test
    void measurementsFromElsewhereAreFittedWithoutExecutingAnything(@org.junit.jupiter.api.io.TempDir
                                                                     java.nio.file.Path dir) throws Exception {
        String folder = "/dev/basalt/datasets/measured/intel-family6-model167/";
        java.nio.file.Path csv = dir.resolve("xeon6.csv");
        try (java.io.InputStream in = dev.basalt.datasets.Dataset.class.getResourceAsStream(folder + "unlabelled.csv");
             java.io.InputStream meta = dev.basalt.datasets.Dataset.class.getResourceAsStream(folder
                     + "unlabelled.csv.meta.json")) {
            List<String> lines = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.US_ASCII).lines()
                    .limit(400).toList();
            java.nio.file.Files.write(csv, lines);
            java.nio.file.Files.write(dir.resolve("xeon6.csv.meta.json"), meta.readAllBytes());
        }
        java.nio.file.Path out = dir.resolve("cal");
        CliRun r = CliRun.of("calibrate", "--measurements", csv.toString(), "--from", "skylake", "--blocks", "400",
                "--samples", "1000", "--passes", "0", "--out", out.toString());
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().contains("GenuineIntel family 6 model 167"), r.out());
        assertTrue(r.out().contains("no block is executed"), r.out());
        assertTrue(r.out().contains("machine found"), r.out());
        assertTrue(java.nio.file.Files.isRegularFile(out.resolve("skylake-calibrated.json")));
        assertTrue(!java.nio.file.Files.exists(out.resolve("measurements.csv")), "nothing was measured");
        String table = java.nio.file.Files.readString(out.resolve("skylake-calibrated.json"));
        assertTrue(table.contains("\"machine\"") && table.contains("heldOutMapeBefore"), "provenance");
        // Without its meta the file names no host: bad input, naming the option.
        java.nio.file.Files.delete(dir.resolve("xeon6.csv.meta.json"));
        CliRun bad = CliRun.of("calibrate", "--measurements", csv.toString(), "--out", dir.resolve("cal2").toString());
        assertEquals(Basalt.EXIT_BAD_INPUT, bad.exit(), bad.err());
        assertTrue(bad.err().contains("--measurements") && bad.err().contains("meta.json"), bad.err());
    }

    @Test
    void theSampleIsSeededDistinctAndRealCode() {
        List<String> a = CalibrateCommand.sample(500, 1);
        assertEquals(500, a.size());
        assertEquals(500, Set.copyOf(a).size());
        assertEquals(a, CalibrateCommand.sample(500, 1), "same seed, same blocks");
        assertNotEquals(a, CalibrateCommand.sample(500, 2));
        assertEquals(a.subList(0, 100), CalibrateCommand.sample(100, 1), "a smaller sample is a prefix");
    }
}
