package dev.basalt.cli;

import dev.basalt.core.Microarchitecture;
import dev.basalt.measure.HostCpu;
import org.junit.jupiter.api.Test;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Every command's default CPUs: this machine's when Basalt measured it, else every measured CPU, said once. */
class DefaultCpusTest {

    private static HostCpu cpu(String vendor, int family, int model, String... flags) {
        return new HostCpu(vendor, family, model, 1, "", "", "", true, Set.of(flags), "", "", "");
    }

    private static List<String> names(List<Microarchitecture> cpus) {
        return cpus.stream().map(Microarchitecture::llvmName).toList();
    }

    private record Said(List<String> cpus, String err) {
    }

    private static Said on(Optional<HostCpu> host) {
        StringWriter err = new StringWriter();
        List<Microarchitecture> cpus = DefaultCpus.forHost(host, Microarchitecture.all(), new PrintWriter(err, true),
                "basalt predict");
        return new Said(names(cpus), err.toString());
    }

    @Test
    void aMachineBasaltMeasuredGetsItsOwnCpuAndIsToldSo() {
        Said zen5 = on(Optional.of(cpu("AuthenticAMD", 26, 2)));
        assertEquals(List.of("znver5"), zen5.cpus());
        assertTrue(zen5.err().startsWith("basalt predict: --mcpu znver5, this machine's CPU (AMD family 26 model 2;"),
                zen5.err());
        assertEquals(List.of("graniterapids"), on(Optional.of(cpu("GenuineIntel", 6, 173, "serialize"))).cpus());
        assertEquals(List.of("haswell"), on(Optional.of(cpu("GenuineIntel", 6, 0x3c))).cpus());
        assertEquals(List.of("skylake"), on(Optional.of(cpu("GenuineIntel", 6, 0x55))).cpus());
        assertEquals(List.of("ivybridge"), on(Optional.of(cpu("GenuineIntel", 6, 0x3a))).cpus());
    }

    @Test
    void anyOtherMachineGetsEveryMeasuredCpuWithItsClosestAndCalibrateNamed() {
        List<String> measured = List.of("haswell", "skylake", "ivybridge", "znver5", "graniterapids");
        Said zen4 = on(Optional.of(cpu("AuthenticAMD", 25, 17)));
        assertEquals(measured, zen4.cpus());
        assertEquals("basalt predict: --mcpu haswell, skylake, ivybridge, znver5, graniterapids; this machine (AMD "
                + "family 25 model 17) has no measured model: --mcpu host picks the closest, znver4; basalt calibrate "
                + "fits one\n", zen4.err());
        // Broadwell runs as Haswell with --mcpu host, but Basalt has no measurements of it
        assertEquals(measured, on(Optional.of(cpu("GenuineIntel", 6, 0x3d))).cpus());
        Said unknown = on(Optional.empty());
        assertEquals(measured, unknown.cpus());
        assertTrue(unknown.err().contains("this machine's CPU is unknown"), unknown.err());
    }

    @Test
    void namedCpusAreTakenAsGivenAndNothingIsSaid() {
        StringWriter err = new StringWriter();
        List<Microarchitecture> cpus = DefaultCpus.resolve(List.of(Microarchitecture.SKYLAKE,
                Microarchitecture.SKYLAKE, Microarchitecture.HASWELL), Microarchitecture.all(),
                new PrintWriter(err, true), "basalt simulate");
        assertEquals(List.of("skylake", "haswell"), names(cpus));
        assertEquals("", err.toString());
    }

    @Test
    void everyPredictingCommandSaysItsDefaultOnce() {
        for (String[] args : List.of(new String[] {"predict", "4801d8"}, new String[] {"simulate", "4801d8"},
                new String[] {"explain", "--model", "bounds", "--method", "shapley", "4801d8"})) {
            CliRun run = CliRun.of(args);
            assertEquals(0, run.exit(), run.err());
            assertEquals(1, run.err().lines().filter(l -> l.startsWith("basalt " + args[0] + ": --mcpu ")).count(),
                    run.err());
            // what it says is what it did: one result per CPU it names
            String said = run.err().lines().filter(l -> l.startsWith("basalt " + args[0] + ": --mcpu ")).findFirst()
                    .orElseThrow().replaceFirst("^basalt \\w+: --mcpu ", "").split("[;(]")[0].trim();
            for (String name : said.split(",\\s*")) {
                String shown = name.split(" ")[0].replace(",", "");
                assertTrue(run.out().contains(shown), shown + " in\n" + run.out());
            }
        }
    }
}
