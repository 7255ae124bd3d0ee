package dev.basalt.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code basalt measure} and {@code basalt calibrate} check their clock before they report: a run whose calibration
 * chain disagrees with the known answers exits 1 with one message and writes no row (calibrate: nothing but its
 * log); a run whose chain is right records the check and the host facts in its meta file.
 */
class ClockCheckCommandTest {

    private static void onX86Linux() {
        Assumptions.assumeTrue(System.getProperty("os.arch", "").matches("amd64|x86_64")
                && System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux"),
                "measuring runs on x86-64 Linux only");
    }

    private static List<String> files(Path dir) throws IOException {
        try (Stream<Path> s = Files.walk(dir)) {
            return s.filter(Files::isRegularFile).map(p -> dir.relativize(p).toString()).sorted().toList();
        }
    }

    @Test
    void aMeasureWhoseClockDisagreesExitsOneAndWritesNoRow(@TempDir Path dir) throws IOException {
        onX86Linux();
        // imul said to take one cycle: the known answers read three times too fast.
        CliRun r = CliRun.of("measure", "--jobs", "1", "--clock-chain", "imul rax, rax=1", "--out",
                dir.resolve("m.csv").toString(), "4801d8", "480fafc0");
        assertEquals(Basalt.EXIT_ERROR, r.exit(), r.err());
        assertEquals("", r.out(), "no row on stdout");
        List<String> lines = r.err().lines().toList();
        assertEquals(1, lines.size(), "one message: " + r.err());
        String m = lines.get(0);
        assertTrue(m.startsWith("basalt measure: clock check failed on "), m);
        // about one copy a cycle, as the host's noise prints it: 0.99x or 1.0x
        assertTrue(m.matches(".*'imul rax, rax' measured (0\\.99|1\\.0)\\d* cycles, expected 3.*"), m);
        // three times too small, within the same noise as the imul's 0.99-1.0 (0.997 measured prints 2.99x)
        assertTrue(m.matches(".*(2\\.9[7-9]|3\\.0[0-3])x too small.*") && m.contains("Nothing was measured or written"),
                m);
        assertEquals(List.of(), files(dir), "files written");
    }

    @Test
    void aCalibrateWhoseClockDisagreesWritesOnlyItsLog(@TempDir Path dir) throws IOException {
        onX86Linux();
        Path out = dir.resolve("cal");
        CliRun r = CliRun.of("calibrate", "--jobs", "1", "--blocks", "100", "--clock-chain", "imul rax, rax=1",
                "--out", out.toString());
        assertEquals(Basalt.EXIT_ERROR, r.exit(), r.out() + r.err());
        assertTrue(r.err().contains("basalt calibrate: clock check failed on "), r.err());
        assertEquals(List.of("cal/calibrate.log"), files(dir));
        assertTrue(Files.readString(out.resolve("calibrate.log")).contains("clock check failed"));
    }

    @Test
    void aMeasureWhoseClockIsRightRecordsTheCheckAndTheHostFacts(@TempDir Path dir) throws IOException {
        onX86Linux();
        Path out = dir.resolve("m.csv");
        CliRun r = CliRun.of("measure", "--jobs", "1", "--out", out.toString(), "4801d8");
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.err().contains("basalt measure: clock add rax, rcx (1 cycle per copy), checked: "
                + "'sub rax, rcx; xor rax, rdx' "), r.err());
        assertTrue(r.err().contains("basalt measure: host: 'add rax, 1' chain: "), r.err());
        JsonNode meta = new ObjectMapper().readTree(Files.readString(Path.of(out + ".meta.json")));
        assertEquals("add rax, rcx (1 cycle per copy)", meta.path("calibration").path("chain").asText());
        assertEquals("add rax, rcx (1 cycle per copy)", meta.path("method").path("calibration_chain").asText());
        JsonNode check = meta.path("clock_check");
        assertTrue(check.path("passed").asBoolean(), check.toString());
        for (JsonNode a : check.path("known_answers")) {
            double e = a.path("expected").asDouble();
            assertTrue(Math.abs(a.path("measured").asDouble() - e) <= 0.02 * e, a.toString());
        }
        JsonNode add = check.path("host_facts").get(0);
        assertEquals("add rax, 1", add.path("block").asText());
        double c = add.path("cycles").asDouble();
        assertTrue(c >= 0.15 && c <= 1.05, add.toString());
    }
}
