package dev.basalt.measure;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The journal survives an interruption, and a resume refuses to mix CPUs or methods. */
class MeasurementFilesTest {

    private static final HostCpu HOST = new HostCpu("AuthenticAMD", 25, 17, 1, "AMD EPYC", "0x1", "Linux", true,
            Set.of("avx2"), "tsc", "ymm", "on");

    /** A clock check as a run on this host would report it (the numbers are a VM's on Zen 4). */
    private static final ClockCheck.Report CLOCK = new ClockCheck.Report(ClockChain.REGISTER_ADD, List.of(
            new ClockCheck.Answer("sub rax, rcx; xor rax, rdx", "4829c84831d0", 2, 2.001, true),
            new ClockCheck.Answer("imul rax, rax", "480fafc0", 3, 3.0, true)), List.of(
            new ClockCheck.Fact("add rax, 1", "4883c001", 1.0, "not eliminated: a one-cycle ALU add")));

    private static BlockMeasurement ok(String hex, double cycles) {
        return new BlockMeasurement(hex, BlockMeasurement.Status.OK, cycles, cycles * 0.99, 0.004, 5, 1, 500, 1000,
                193, 0.6, "");
    }

    @Test
    void anInterruptedRunKeepsItsBlocksAndTheNextSkipsThem(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("host.csv");
        ObjectNode method = new ObjectMapper().createObjectNode().put("rounds", 16).put("target_ticks", 20_000L)
                .put("max_spread", 0.02);
        MeasurementFiles first = new MeasurementFiles(out);
        first.resume(HOST, method);
        first.writeMeta(HOST, method, CLOCK, "basalt measure", 0, false, "");
        first.open();
        first.append(ok("4801d8", 1.0));
        first.append(BlockMeasurement.failed("0f0b", BlockMeasurement.Status.REFUSED, "ud2, with \"quotes\", here", 0));
        // Killed while writing the third row: a torn line without its newline.
        Files.writeString(first.journal(), Files.readString(first.journal()) + "480fafc0,ok,3.0", 
                java.nio.file.StandardOpenOption.TRUNCATE_EXISTING);
        MeasurementFiles second = new MeasurementFiles(out);
        second.resume(HOST, method);
        assertEquals(Set.of("4801d8", "0f0b"), second.finished().keySet());
        assertEquals("ud2, with \"quotes\", here", second.finished().get("0f0b").message());
        second.open();
        second.append(ok("480fafc0", 3.0));
        second.finish(List.of("480fafc0", "0f0b", "4801d8"));
        assertEquals("480fafc0,300.00\n4801d8,100.00\n", Files.readString(out));
        List<String> journal = Files.readAllLines(second.journal());
        assertEquals(4, journal.size());
        assertTrue(journal.get(1).startsWith("480fafc0,ok,3.00000,"));
        // The meta names the clock and keeps what its check measured.
        com.fasterxml.jackson.databind.JsonNode meta = new ObjectMapper().readTree(second.meta().toFile());
        assertEquals("add rax, rcx (1 cycle per copy)", meta.path("calibration").path("chain").asText());
        assertEquals(3.0, meta.path("clock_check").path("known_answers").get(1).path("measured").asDouble());
        assertEquals("add rax, 1", meta.path("clock_check").path("host_facts").get(0).path("block").asText());
    }

    @Test
    void aResumeOnAnotherCpuOrWithOtherSettingsIsRefused(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("host.csv");
        ObjectNode method = new ObjectMapper().createObjectNode().put("rounds", 16);
        MeasurementFiles files = new MeasurementFiles(out);
        files.writeMeta(HOST, method, CLOCK, "basalt measure", 0, false, "");
        HostCpu other = new HostCpu("GenuineIntel", 6, 85, 4, "Xeon", "0x1", "Linux", true, Set.of("avx2"), "tsc",
                "ymm", "on");
        IllegalStateException cpu = assertThrows(IllegalStateException.class,
                () -> new MeasurementFiles(out).resume(other, method));
        assertTrue(cpu.getMessage().contains("another CPU"), cpu.getMessage());
        IllegalStateException settings = assertThrows(IllegalStateException.class,
                () -> new MeasurementFiles(out).resume(HOST, method.deepCopy().put("rounds", 8)));
        assertTrue(settings.getMessage().contains("other settings"), settings.getMessage());
    }
}
