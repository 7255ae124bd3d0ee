package dev.basalt.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A program's loops are the same loops whichever form of it is given: gcc's {@code .s} in AT&T and Intel syntax,
 * {@code objdump -d} listings in both syntaxes, and the object file. {@code basalt analyze} finds the same loops
 * (function, header, latch, instructions) in all five and predicts each the same; {@code basalt predict} on the
 * {@code .s} cuts each one-block loop out as the block the object file has, marked as a loop — not glued to the
 * exit code gcc places right after the back edge.
 */
class AssemblyLoopsTest {

    /** The functions of loops.c that hold a loop. */
    private static final Set<String> LOOPING = Set.of("sum", "copy", "digits", "find", "matvec", "each", "crc",
            "collatz");

    @ParameterizedTest(name = "gcc -{0}")
    @ValueSource(strings = {"O2", "O3"})
    void everyLoopIsFoundInEveryFormWithEqualPredictions(String level, @TempDir Path dir) throws Exception {
        Assumptions.assumeTrue(CliRun.onPath("gcc") && CliRun.onPath("objdump"),
                "gcc and objdump (binutils) are needed to compile the test program");
        Path c = dir.resolve("loops.c");
        try (InputStream in = AssemblyLoopsTest.class.getResourceAsStream("loops.c")) {
            Files.copy(in, c);
        }
        Path object = dir.resolve("loops.o");
        run(dir, null, "gcc", "-" + level, "-c", "-o", object.toString(), c.toString());
        List<Path> forms = new ArrayList<>(List.of(object));
        forms.add(run(dir, null, "gcc", "-" + level, "-S", "-o", dir.resolve("att.s").toString(), c.toString()));
        forms.add(run(dir, null, "gcc", "-" + level, "-S", "-masm=intel", "-o", dir.resolve("intel.s").toString(),
                c.toString()));
        forms.add(run(dir, dir.resolve("att.lst"), "objdump", "-d", object.toString()));
        forms.add(run(dir, dir.resolve("intel.lst"), "objdump", "-d", "-M", "intel", object.toString()));

        List<String> reference = null;
        for (Path form : forms) {
            CliRun r = CliRun.of("analyze", "--model", "simulator", "--mcpu", "haswell,skylake", "--format", "json",
                    form.toString());
            assertEquals(0, r.exit(), form + ": " + r.err());
            JsonNode root = new ObjectMapper().readTree(r.out());
            List<String> loops = new ArrayList<>();
            Set<String> functions = new TreeSet<>();
            for (JsonNode cpu : root.get("results")) {
                for (JsonNode l : cpu.get("loop_list")) {
                    loops.add(String.join(" ", cpu.get("mcpu").asText(), l.get("function").asText(),
                            l.get("header").asText(), l.get("latch").asText(), l.get("innermost").asText(),
                            l.get("instructions").asText(),
                            String.format(java.util.Locale.ROOT, "%.4f", l.get("cycles_per_iteration").asDouble())));
                    functions.add(l.get("function").asText());
                }
            }
            loops.sort(null);
            assertEquals(LOOPING, functions, form + ": a loop in every function that has one");
            if (reference == null) {
                reference = loops;
            } else {
                assertEquals(reference, loops, form.getFileName() + " against the object file");
            }
        }
        System.err.printf("gcc -%s: %d loops, the same in the .o, both .s and both objdump listings%n", level,
                reference.size() / 2);

        // predict on the .s: each one-block loop of the object file is a block of its own, marked as a loop
        CliRun objectLoops = CliRun.of("analyze", "--mcpu", "haswell", "--model", "simulator", "--format", "json", object.toString());
        Set<String> oneBlockLoops = new TreeSet<>();
        for (JsonNode l : new ObjectMapper().readTree(objectLoops.out()).get("results").get(0).get("loop_list")) {
            if (l.get("block_addresses").size() == 1) {
                for (JsonNode b : new ObjectMapper().readTree(objectLoops.out()).get("results").get(0)
                        .get("block_list")) {
                    if (b.get("address").equals(l.get("header")) && b.get("function").equals(l.get("function"))) {
                        oneBlockLoops.add(b.get("hex").asText());
                    }
                }
            }
        }
        assertTrue(oneBlockLoops.size() >= 5, "one-block loops: " + oneBlockLoops);
        for (String syntax : List.of("att.s", "intel.s")) {
            CliRun p = CliRun.of("predict", "--model", "simulator", "--mcpu", "haswell", "--format", "json",
                    "--input", dir.resolve(syntax).toString());
            assertEquals(0, p.exit(), p.err());
            Set<String> marked = new TreeSet<>();
            for (JsonNode row : new ObjectMapper().readTree(p.out())) {
                if (row.get("input").asText().endsWith(", a loop")) {
                    marked.add(row.get("hex").asText());
                    assertEquals("loop", row.get("mode").asText(), row.toString());
                }
            }
            assertEquals(oneBlockLoops, marked, syntax + ": the blocks marked as loops");
        }
    }

    /** Runs a tool in {@code dir}; its output goes to {@code out} when given. Returns the file it wrote. */
    private static Path run(Path dir, Path out, String... command) throws Exception {
        ProcessBuilder b = new ProcessBuilder(command).directory(dir.toFile());
        if (out != null) {
            b.redirectOutput(out.toFile());
        } else {
            b.redirectErrorStream(true);
        }
        Process p = b.start();
        String log = out == null ? new String(p.getInputStream().readAllBytes()) : "";
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), String.join(" ", command));
        assertEquals(0, p.exitValue(), String.join(" ", command) + ": " + log);
        if (out != null) {
            return out;
        }
        for (int k = 0; k < command.length - 1; k++) {
            if (command[k].equals("-o")) {
                return Path.of(command[k + 1]);
            }
        }
        throw new IllegalStateException("no output named in " + String.join(" ", command));
    }
}
