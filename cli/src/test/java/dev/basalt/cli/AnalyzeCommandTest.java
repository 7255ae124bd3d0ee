package dev.basalt.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.basalt.decoder.BasicBlock;
import dev.basalt.decoder.Instruction;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code basalt analyze} on programs gcc compiles here, on a stripped system binary, and on bad files. */
class AnalyzeCommandTest {

    private static final String SOURCE = """
            double dot(const double *a, const double *b, long n) {
                double s = 0;
                for (long i = 0; i < n; i++) s += a[i] * b[i];
                return s;
            }
            int main(int argc, char **argv) { return (int) dot((double *) argv, (double *) argv, argc); }
            """;

    private static Path compile(Path dir, String... flags) throws Exception {
        Assumptions.assumeTrue(CliRun.onPath("gcc"), "gcc is not installed");
        Path c = Files.writeString(dir.resolve("dot.c"), SOURCE);
        Path out = dir.resolve(flags.length > 0 && flags[0].equals("-c") ? "dot.o" : "dot");
        List<String> cmd = new java.util.ArrayList<>(List.of("gcc", "-O2"));
        cmd.addAll(List.of(flags));
        cmd.addAll(List.of("-o", out.toString(), c.toString()));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String log = new String(p.getInputStream().readAllBytes());
        assertTrue(p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0, log);
        return out;
    }

    @Test
    void findsTheDotProductLoopInAnExecutableAndAnObjectFile(@TempDir Path dir) throws Exception {
        for (Path binary : List.of(compile(dir), compile(dir, "-c"))) {
            CliRun r = CliRun.of("analyze", "--mcpu", "haswell", binary.toString(), "--function", "dot", "--model", "simulator",
                    "--format", "json");
            assertEquals(0, r.exit(), r.err());
            JsonNode json = new ObjectMapper().readTree(r.out());
            assertEquals(1, json.get("functions").asInt());
            JsonNode result = json.get("results").get(0);
            assertEquals("haswell", result.get("mcpu").asText());
            JsonNode loops = result.get("loop_list");
            assertEquals(1, loops.size(), r.out());
            JsonNode loop = loops.get(0);
            assertTrue(loop.get("innermost").asBoolean());
            assertEquals(1, loop.get("block_addresses").size(), "gcc -O2 makes the loop one block");
            // the loop's block: loads, mulsd, addsd into the sum, the counter, and the branch back to its start
            JsonNode block = null;
            for (JsonNode b : result.get("block_list")) {
                if (b.get("address").asText().equals(loop.get("header").asText())) {
                    block = b;
                }
            }
            List<String> mnemonics = BasicBlock.fromHex(block.get("hex").asText()).instructions().stream()
                    .map(Instruction::mnemonic).toList();
            assertTrue(mnemonics.contains("mulsd") && mnemonics.contains("addsd"), mnemonics.toString());
            assertEquals("jnz", mnemonics.get(mnemonics.size() - 1), mnemonics.toString());
            // The sum is a loop-carried chain through addsd, 3 cycles on Haswell: the loop's throughput.
            assertEquals(3.0, loop.get("cycles_per_iteration").asDouble(), 0.1, r.out());
            assertEquals("latency", loop.get("bottleneck").asText());
        }
    }

    @Test
    void theDefaultModelPredictsTheLoopToo(@TempDir Path dir) throws Exception {
        CliRun r = CliRun.of("analyze", compile(dir).toString(), "--function", "dot", "--mcpu", "haswell,skylake");
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().contains("model granite on haswell") && r.out().contains("model granite on skylake"),
                r.out());
        assertTrue(r.out().contains("innermost loops (1 of 1):"), r.out());
        assertTrue(r.out().lines().anyMatch(l -> l.contains(" dot ") && l.contains("latency")
                && l.contains("mulsd")), r.out());
    }

    @Test
    void aStrippedSystemBinaryIsAnalyzedWhole() throws Exception {
        Path ls = Path.of("/bin/ls");
        Assumptions.assumeTrue(dev.basalt.decoder.ElfCode.isElf(ls), "/bin/ls is not an ELF file here");
        CliRun r = CliRun.of("analyze", "--mcpu", "haswell", ls.toString(), "--model", "simulator", "--format", "json");
        Assumptions.assumeFalse(r.err().contains("not x86-64"), "/bin/ls is not x86-64 here");
        assertEquals(0, r.exit(), r.err());
        JsonNode json = new ObjectMapper().readTree(r.out());
        System.err.printf("analyze /bin/ls: stripped %s, %d instructions, %d blocks, %d loops, %d bytes skipped%n",
                json.get("stripped"), json.get("instructions").asLong(), json.get("blocks").asLong(),
                json.get("loops").asLong(), json.get("skipped_bytes").asLong());
        assertTrue(json.get("instructions").asLong() > 1000, r.err());
        assertTrue(json.get("blocks").asLong() > 100);
        assertTrue(json.get("loops").asLong() > 0);
        assertEquals(json.get("blocks").asLong(), json.get("results").get(0).get("block_list").size());
    }

    @Test
    void badFilesAreRefusedByName(@TempDir Path dir) throws Exception {
        CliRun missing = CliRun.of("analyze", "--mcpu", "haswell", dir.resolve("nothing").toString());
        assertEquals(2, missing.exit());
        assertTrue(missing.err().contains(dir.resolve("nothing") + ": no such file"), missing.err());
        CliRun folder = CliRun.of("analyze", "--mcpu", "haswell", dir.toString());
        assertEquals(2, folder.exit());
        assertTrue(folder.err().contains("is a directory"), folder.err());
        Path text = Files.writeString(dir.resolve("notes.txt"), "hello");
        CliRun notElf = CliRun.of("analyze", "--mcpu", "haswell", text.toString());
        assertEquals(2, notElf.exit());
        assertTrue(notElf.err().contains("is not an ELF file"), notElf.err());
        Path truncated = dir.resolve("cut");
        Files.write(truncated, new byte[] {0x7f, 'E', 'L', 'F', 2, 1, 1, 0});
        CliRun cut = CliRun.of("analyze", "--mcpu", "haswell", truncated.toString());
        assertEquals(2, cut.exit(), cut.err());
        assertTrue(!cut.err().contains("Exception"), cut.err());
    }

    @Test
    void aStrippedLibrarysExportedFunctionsAreFoundByName() throws Exception {
        Path libz = Path.of("/usr/lib/x86_64-linux-gnu/libz.so.1");
        Assumptions.assumeTrue(Files.isRegularFile(libz), "zlib (libz.so.1) is not installed here");
        // libz is stripped: no .symtab, but its dynamic symbol table names crc32_z, whose loops are found
        CliRun r = CliRun.of("analyze", "--mcpu", "haswell", "--model", "bounds", "--function", "crc32_z", "--format", "json",
                libz.toString());
        assertEquals(0, r.exit(), r.err());
        JsonNode root = new com.fasterxml.jackson.databind.ObjectMapper().readTree(r.out());
        assertTrue(root.get("stripped").asBoolean());
        JsonNode cpu = root.get("results").get(0);
        assertTrue(cpu.get("loop_list").size() >= 1, r.out());
        for (JsonNode b : cpu.get("block_list")) {
            assertTrue(b.get("function").asText().startsWith("crc32_z"), b.toString());
        }
        CliRun text = CliRun.of("analyze", "--mcpu", "haswell", "--model", "bounds", "--function", "crc32_z", libz.toString());
        assertTrue(text.out().contains("a loop: a branch back to a block"), text.out());
    }

    @Test
    void anUnknownFunctionIsRefused(@TempDir Path dir) throws Exception {
        CliRun r = CliRun.of("analyze", "--mcpu", "haswell", compile(dir).toString(), "--function", "nosuch");
        assertEquals(2, r.exit());
        assertTrue(r.err().contains("--function nosuch: no such function"), r.err());
    }

    @Test
    void everyFunctionOfAnObjectFileCountsAndALoopAroundACallIsFound(@TempDir Path dir) throws Exception {
        Assumptions.assumeTrue(CliRun.onPath("gcc"), "gcc is not installed");
        // With -ffunction-sections every function starts at offset 0 of its own section; the loop's call is
        // unrelocated in the object file (e8 00000000) and must not hide the loop.
        Path c = Files.writeString(dir.resolve("g.c"), """
                void sink(long);
                long sum(const long *a, long n) { long s = 0; for (long i = 0; i < n; i++) s += a[i]; return s; }
                void each(long n) { for (long i = 0; i < n; i++) sink(i); }
                long twice(long x) { return 2 * x; }
                """);
        Path o = dir.resolve("g.o");
        Process p = new ProcessBuilder("gcc", "-O2", "-ffunction-sections", "-c", "-o", o.toString(), c.toString())
                .redirectErrorStream(true).start();
        String log = new String(p.getInputStream().readAllBytes());
        assertTrue(p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0, log);
        CliRun r = CliRun.of("analyze", "--mcpu", "haswell", o.toString(), "--model", "simulator", "--format", "json");
        assertEquals(0, r.exit(), r.err());
        JsonNode json = new ObjectMapper().readTree(r.out());
        assertEquals(3, json.get("functions").asInt(), r.out());
        java.util.Set<String> withLoops = new java.util.TreeSet<>();
        json.get("results").get(0).get("loop_list").forEach(l -> withLoops.add(l.get("function").asText()));
        assertEquals(java.util.Set.of("each", "sum"), withLoops, r.out());
    }

    /**
     * A program hot on purpose (a dot product called 100,000 times, and a cold loop run once), profiled here with
     * {@code perf record -e cpu-clock} (it needs no PMU): ranked by the profile, its hottest loop is the dot product's,
     * in text, JSON and CSV, from the script's text and from perf.data itself.
     */
    @Test
    void aProfileRanksTheLoopsByWhereTheProgramSpentItsTime(@TempDir Path dir) throws Exception {
        Assumptions.assumeTrue(CliRun.onPath("gcc"), "gcc is not installed");
        Assumptions.assumeTrue(CliRun.onPath("perf"), "perf is not installed (Debian: linux-perf)");
        Path c = Files.writeString(dir.resolve("hot.c"), """
                #include <stdlib.h>
                __attribute__((noipa)) double dot(const double *a, const double *b, long n) {
                    double s = 0;
                    for (long i = 0; i < n; i++) s += a[i] * b[i];
                    return s;
                }
                __attribute__((noipa)) long cold(long n) { long s = 0; for (long i = 0; i < n; i++) s ^= i * 7; return s; }
                int main(int argc, char **argv) {
                    long n = 4096;
                    double *a = calloc(n, 8), *b = calloc(n, 8), t = cold(argc * 1000);
                    for (int r = 0; r < 100000; r++) t += dot(a, b, n);
                    return t > 1e300;
                }
                """);
        Path hot = dir.resolve("hot");
        run(dir, "gcc", "-O2", "-o", hot.toString(), c.toString());
        Path data = dir.resolve("perf.data");
        Process record = new ProcessBuilder("perf", "record", "-q", "-e", "cpu-clock", "-o", data.toString(),
                hot.toString()).redirectErrorStream(true).start();
        String log = new String(record.getInputStream().readAllBytes());
        Assumptions.assumeTrue(record.waitFor(120, TimeUnit.SECONDS) && record.exitValue() == 0
                && Files.size(data) > 0, "perf record cannot profile here (perf_event_paranoid, a container?): " + log);
        Path text = dir.resolve("perf.txt");
        Process script = new ProcessBuilder("perf", "script", "--show-mmap-events", "-i", data.toString())
                .redirectOutput(text.toFile()).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        assertTrue(script.waitFor(120, TimeUnit.SECONDS) && script.exitValue() == 0, "perf script failed");

        CliRun json = CliRun.of("analyze", "--mcpu", "haswell", hot.toString(), "--model", "bounds", "--profile", text.toString(),
                "--format", "json");
        assertEquals(0, json.exit(), json.err());
        JsonNode root = new ObjectMapper().readTree(json.out());
        JsonNode profile = root.get("profile");
        assertTrue(profile.get("in_file").asLong() > 100, json.out());
        // with the mappings every sample of the program is placed, and nearly all in its blocks (not in padding)
        assertEquals(0, profile.get("unmapped").asLong(), json.out());
        assertTrue(profile.get("in_blocks").asLong() >= 0.99 * profile.get("in_file").asLong(), json.out());
        JsonNode hottest = null;
        for (JsonNode l : root.get("results").get(0).get("loop_list")) {
            if (hottest == null || l.get("samples").asLong() > hottest.get("samples").asLong()) {
                hottest = l;
            }
        }
        assertEquals("dot", hottest.get("function").asText(), json.out());
        assertTrue(hottest.get("share").asDouble() > 0.8, hottest.toString());
        assertEquals(3.0, hottest.get("cycles_per_iteration").asDouble(), 0.1, "the addsd chain on Haswell");

        // The text ranks by share: the dot product's loop first, with its share and its bottleneck.
        for (Path p : List.of(text, data)) {
            CliRun r = CliRun.of("analyze", "--mcpu", "haswell", hot.toString(), "--model", "bounds", "--profile", p.toString());
            assertEquals(0, r.exit(), r.err());
            List<String> lines = r.out().lines().toList();
            int at = lines.indexOf(lines.stream().filter(l -> l.startsWith("innermost loops by share of samples"))
                    .findFirst().orElseThrow(() -> new AssertionError(r.out())));
            String first = lines.get(at + 2);
            assertTrue(first.contains(" dot ") && first.contains("latency") && first.contains("mulsd"), r.out());
        }
        // CSV: samples and share on every row; the block of the loop holds most of them.
        CliRun csv = CliRun.of("analyze", "--mcpu", "haswell", hot.toString(), "--model", "bounds", "--profile", text.toString(),
                "--format", "csv");
        assertEquals(0, csv.exit(), csv.err());
        assertTrue(csv.out().lines().findFirst().orElseThrow().endsWith(",samples,share"), csv.out());
        assertTrue(csv.out().lines().anyMatch(l -> l.startsWith("innermost_loop,dot,")
                && Double.parseDouble(l.split(",")[18]) > 0.8), csv.out());

        // A profile of another program is refused by name, with what it does hold.
        Assumptions.assumeTrue(dev.basalt.decoder.ElfCode.isElf(Path.of("/bin/ls")), "no /bin/ls here");
        CliRun other = CliRun.of("analyze", "--mcpu", "haswell", "/bin/ls", "--model", "bounds", "--profile", text.toString());
        assertEquals(2, other.exit(), other.err());
        assertTrue(other.err().contains("--profile " + text + ": none of its") && other.err().contains(hot.toString()),
                other.err());
        CliRun notPerf = CliRun.of("analyze", "--mcpu", "haswell", hot.toString(), "--profile", c.toString());
        assertEquals(2, notPerf.exit());
        assertTrue(notPerf.err().contains("--profile " + c + ": no sample in it"), notPerf.err());
    }

    private static void run(Path dir, String... cmd) throws Exception {
        Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
        String log = new String(p.getInputStream().readAllBytes());
        assertTrue(p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0, String.join(" ", cmd) + ": " + log);
    }
}
