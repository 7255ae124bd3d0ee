package dev.basalt.cli;

import dev.basalt.core.Microarchitecture;
import dev.basalt.measure.HostCpu;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

/**
 * {@code basalt calibrate}'s choices before it measures: the shipped CPU it starts from for a host, the folder name
 * of the host's data, and its seeded block sample. (A run measures and tunes; the closing note of issue 38 and
 * README "Calibrating a machine" give one on the developers' machine.)
 */
class CalibrateCommandTest {

    private static HostCpu host(String vendor, int family, int model) {
        return new HostCpu(vendor, family, model, 1, "", "", "Linux", true, Set.of(), "tsc", "ymm", "on");
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
