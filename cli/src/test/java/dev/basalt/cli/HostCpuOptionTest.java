package dev.basalt.cli;

import dev.basalt.measure.HostCpu;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code --mcpu host}: this machine's CPU from /proc/cpuinfo, run as the closest shipped CPU, said once. */
class HostCpuOptionTest {

    private static HostCpu read(Path dir, String text) throws Exception {
        return HostCpuInfo.read(Files.writeString(dir.resolve("cpuinfo"), text)).orElseThrow();
    }

    @Test
    void theClosestShippedCpuOfAProcCpuinfo(@TempDir Path dir) throws Exception {
        // a Xeon 6 guest as its kernel showed it (model 173), SERIALIZE among its flags: Granite Rapids' family
        HostCpu xeon = read(dir, "processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 173\n"
                + "model name\t: Intel(R) Xeon(R) 6975P-C\nstepping\t: 1\nflags\t\t: fpu sse2 avx2 serialize hypervisor\n"
                + "\nprocessor\t: 1\nvendor_id\t: SomethingElse\n");
        assertEquals("graniterapids", CalibrateCommand.closest(xeon).llvmName());
        assertTrue(xeon.virtualized());
        HostCpu zen5 = read(dir, "vendor_id : AuthenticAMD\ncpu family : 26\nmodel : 2\nflags : fpu avx512f\n");
        assertEquals("znver5", CalibrateCommand.closest(zen5).llvmName(), "measured by Basalt on this very CPU");
        HostCpu haswell = read(dir, "vendor_id : GenuineIntel\ncpu family : 6\nmodel : 63\nflags : avx2\n");
        assertEquals("haswell", CalibrateCommand.closest(haswell).llvmName());
        assertTrue(HostCpuInfo.read(Files.writeString(dir.resolve("bad"), "vendor_id : X\nmodel : ?\n")).isEmpty());
    }

    @Test
    void hostRunsAsTheClosestCpuAndSaysSoOnce() {
        java.util.Optional<HostCpu> here = HostCpuInfo.read();
        org.junit.jupiter.api.Assumptions.assumeTrue(here.isPresent(), "no /proc/cpuinfo here");
        String expected = CalibrateCommand.closest(here.get()).llvmName();
        CliRun r = CliRun.of("predict", "--model", "bounds", "--mcpu", "host,haswell", "--format", "csv", "4801d8");
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().contains("4801d8," + expected + ",bounds,"), r.out());
        assertEquals(1, r.err().lines().filter(l -> l.startsWith("basalt: --mcpu host: this machine is ")).count(),
                r.err());
        CliRun unknown = CliRun.of("predict", "--mcpu", "hots", "4801d8");
        assertEquals(2, unknown.exit());
        assertTrue(unknown.err().contains(", or host"), unknown.err());
    }
}
