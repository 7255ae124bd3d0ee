package dev.basalt.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code basalt explain} end to end: the three formats, the simulator's bottleneck, bad input. */
class ExplainCommandTest {

    // add rax, rbx; add rcx, rdx; div rsi; add r8, r9
    private static final String DIV_BLOCK = "4801d84801d148f7f64d01c8";

    @Test
    void jsonExplainsTheSimulatorsDivBlock() throws Exception {
        CliRun r = CliRun.of("explain", "--mcpu", "haswell", "--model", "simulator", "--format", "json", "--coverage-samples", "2000",
                DIV_BLOCK);
        assertEquals(0, r.exit(), r.err());
        JsonNode j = new ObjectMapper().readTree(r.out());
        assertEquals("simulator", j.get("model").asText());
        assertEquals(4, j.get("instructions").size());
        assertEquals("div rsi", j.get("instructions").get(2).get("intel").asText());
        double sum = 0;
        int top = 0;
        for (int i = 0; i < 4; i++) {
            double v = j.get("instructions").get(i).get("shapley_cycles").asDouble();
            sum += v;
            if (v > j.get("instructions").get(top).get("shapley_cycles").asDouble()) {
                top = i;
            }
        }
        assertEquals(2, top, "the div contributes most");
        assertEquals(j.get("cycles_per_iteration").asDouble(), sum, 1e-6);
        assertEquals("dependency_chain", j.get("bottleneck").get("kind").asText());
        assertEquals(16, j.get("model_version").asText().length(), "the model's version, as in predict: " + j);
        JsonNode anchor = j.get("anchor");
        assertTrue(anchor.get("meets_threshold").asBoolean());
        assertTrue(anchor.get("precision").asDouble() >= 0.7);
        assertFalse(anchor.get("features").isEmpty());
        assertTrue(anchor.get("queries").asInt() > 1);
    }

    @Test
    void htmlIsOneSelfContainedPageWrittenToAFile(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("explain.html");
        CliRun r = CliRun.of("explain", "--mcpu", "haswell", "--model", "crude", "--format", "html", "--coverage-samples", "2000", "--bucket", "0.25",
                "--out", out.toString(), DIV_BLOCK);
        assertEquals(0, r.exit(), r.err());
        assertEquals("", r.out());
        String html = Files.readString(out);
        assertTrue(html.startsWith("<!DOCTYPE html>"));
        assertTrue(html.contains("div rsi") && html.contains("add r8, r9"), "every instruction is shown");
        assertTrue(html.contains("class=\"chip\">dep(0,2,RAW)<"), "the crude model's true explanation is the anchor");
        assertTrue(html.contains("<path d=\"M"), "dependency arrows");
        assertFalse(html.contains("<script") || html.contains("http://") && !html.contains("http://www.w3.org/2000/svg"),
                "no scripts, no external resources");
        try (var files = Files.list(dir)) {
            assertEquals(1, files.count(), "no temporary file left behind");
        }
    }

    @Test
    void textNamesTheAnchorAndTheContributions() {
        CliRun r = CliRun.of("explain", "--mcpu", "haswell", "--model", "crude", "--method", "anchors", "--coverage-samples", "2000",
                "--bucket", "0.25", DIV_BLOCK);
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().startsWith("crude on haswell: 10.75 cycles/iteration"), r.out());
        assertTrue(r.out().contains("anchor: [dep(0,2,RAW)]"), r.out());
        assertTrue(r.out().contains("bucket 0.25 cycles"), r.out());
    }

    /** A learned model that fell back to its prior says so in the explanation, as its prediction does. */
    @Test
    void aFallbackToThePriorIsSaid() throws Exception {
        // test rdx, rdx; jle: GRANITE never saw a conditional jump, so the number is its prior's
        CliRun text = CliRun.of("explain", "--mcpu", "haswell", "--model", "granite", "--method", "anchors",
                "--coverage-samples", "200", "4885d27e1d");
        assertEquals(0, text.exit(), text.err());
        assertTrue(text.out().lines().skip(1).findFirst().orElse("").startsWith("note: outside granite's training "
                + "range (unknown forms: JLE"), text.out());
        assertTrue(text.out().startsWith("granite on haswell: ") && text.out().lines().findFirst().orElse("")
                .endsWith("source: simulator"), "the number is the simulator's, and the first line says so: "
                + text.out());
        CliRun json = CliRun.of("explain", "--mcpu", "haswell", "--model", "granite", "--method", "anchors",
                "--coverage-samples", "200", "--format", "json", "4885d27e1d");
        assertEquals(0, json.exit(), json.err());
        assertTrue(new ObjectMapper().readTree(json.out()).get("notes").get(0).asText()
                .contains("its prior's cycles (simulator)"), json.out());
        // and for scripts: the estimator that answered, which one handed it on, why, and the forms by name
        var source = new ObjectMapper().readTree(json.out()).get("source");
        assertEquals("simulator", source.get("estimator").asText(), json.out());
        assertEquals("granite", source.get("fallback_from").asText(), json.out());
        assertEquals("JLE", source.get("unknown_forms").get(0).asText(), json.out());
    }

    @Test
    void aRelativeBucketScalesWithThePrediction() throws Exception {
        CliRun r = CliRun.of("explain", "--mcpu", "haswell", "--model", "crude", "--method", "anchors", "--format", "json",
                "--coverage-samples", "2000", "--bucket", "5%", DIV_BLOCK);
        assertEquals(0, r.exit(), r.err());
        JsonNode anchor = new ObjectMapper().readTree(r.out()).get("anchor");
        assertEquals(0.05 * 10.75, anchor.get("bucket_cycles").asDouble(), 1e-12);
        for (String bad : new String[] {"-1", "x%", "0"}) {
            CliRun b = CliRun.of("explain", "--mcpu", "haswell", "--model", "crude", "--bucket", bad, DIV_BLOCK);
            assertEquals(2, b.exit(), bad);
            assertTrue(b.err().contains("bad --bucket"), b.err());
        }
    }

    @Test
    void badInputIsExitTwoWithOneLine() {
        CliRun bad = CliRun.of("explain", "--mcpu", "haswell", "48f7");
        assertEquals(2, bad.exit());
        assertTrue(bad.err().contains("truncated instruction"), bad.err());
        assertEquals(1, bad.err().strip().lines().count(), bad.err());
        CliRun method = CliRun.of("explain", "--mcpu", "haswell", "--method", "lime", DIV_BLOCK);
        assertEquals(2, method.exit());
        assertTrue(method.err().contains("unknown method 'lime'"), method.err());
        CliRun cpu = CliRun.of("explain", "--model", "crude", "--mcpu", "skylake", DIV_BLOCK);
        assertEquals(2, cpu.exit());
        assertTrue(cpu.err().contains("crude has no model for"), cpu.err());
    }

    @Test
    void theBoundsEstimatorExplainsItselfWithItsBounds() throws Exception {
        // xchg rax, rbx; xchg rdx, rcx; xchg rsi, rdi: decoder-bound at 3 cycles (BoundsTest).
        String xchg = "4887d84887ca4887fe";
        CliRun text = CliRun.of("explain", "--mcpu", "haswell", "--model", "bounds", "--method", "shapley", xchg);
        assertEquals(0, text.exit(), text.err());
        assertTrue(text.out().startsWith("bounds on haswell: 3.00 cycles/iteration"), text.out());
        assertTrue(text.out().contains("bounds: predecoder: 0.94 · decoders: 3.00 · issue: 2.25"), text.out());
        CliRun json = CliRun.of("explain", "--mcpu", "haswell", "--model", "bounds", "--method", "shapley", "--format", "json", xchg);
        assertEquals(0, json.exit(), json.err());
        JsonNode b = new ObjectMapper().readTree(json.out()).get("bounds");
        assertEquals("decoders", b.get("winner").asText());
        assertEquals(3.0, b.get("decoders").asDouble(), 1e-9);
        assertEquals(2.0, b.get("latency").asDouble(), 1e-9);
    }

    @Test
    void anOutInsideAFileIsBadInputNamingIt(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("a-file");
        Files.writeString(file, "x");
        Path out = file.resolve("x.html");
        CliRun r = CliRun.of("explain", "--mcpu", "haswell", "--model", "crude", "--format", "html", "--out", out.toString(), DIV_BLOCK);
        assertEquals(2, r.exit());
        assertEquals("basalt explain: --out " + out + ": " + file + " is not a folder",
                r.err().lines().findFirst().orElseThrow());
    }

    @Test
    void aBlockAboveTheSizeLimitIsRefusedInOneLineNamingIt(@TempDir Path dir) throws Exception {
        CliRun big = CliRun.of("explain", "--mcpu", "haswell", "4801d8".repeat(513)); // 513 × add rax, rbx
        assertEquals(2, big.exit());
        assertEquals("basalt explain: block of 513 instructions: explain takes at most 512 (predict and simulate "
                + "take larger ones)", big.err().strip());
        // 64 KB of hex is past the decoder's 16 KB block, through --input as on the command line.
        Path file = dir.resolve("huge.hex");
        Files.writeString(file, "4801d8".repeat(64 * 1024 / 6) + "\n");
        for (CliRun r : new CliRun[] {CliRun.of("explain", "--mcpu", "haswell", "--input", file.toString()),
                CliRun.of("explain", "--mcpu", "haswell", Files.readString(file).strip())}) {
            assertEquals(2, r.exit(), r.err());
            assertTrue(r.err().contains("more than the 16384-byte limit"), r.err());
            assertEquals(1, r.err().strip().lines().count(), r.err());
        }
    }
}
