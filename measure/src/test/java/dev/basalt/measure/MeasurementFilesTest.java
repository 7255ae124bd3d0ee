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
        first.writeMeta(HOST, method, "basalt measure", 0, false, "");
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
    }

    @Test
    void aResumeOnAnotherCpuOrWithOtherSettingsIsRefused(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("host.csv");
        ObjectNode method = new ObjectMapper().createObjectNode().put("rounds", 16);
        MeasurementFiles files = new MeasurementFiles(out);
        files.writeMeta(HOST, method, "basalt measure", 0, false, "");
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
