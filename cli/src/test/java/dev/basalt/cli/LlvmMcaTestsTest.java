package dev.basalt.cli;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * basalt mca on llvm-mca's own x86 tests ({@code llvm-mca-tests/X86}, copies of LLVM's
 * {@code llvm/test/tools/llvm-mca/X86/} under the Apache License v2.0 with LLVM Exceptions): each RUN line's options
 * on its file. Each run prints the sections llvm-mca-19 prints for the same options ({@code golden-sections.txt},
 * written from llvm-mca-19's output by this test with {@code -Dbasalt.mcaGolden=FILE}), or is refused by name (exit
 * 2 and a reason). The test writes its report, every case with its outcome, to {@code target/llvm-mca-tests.md}.
 */
class LlvmMcaTestsTest {

    /** One RUN line: the file (relative to the tests' folder) and llvm-mca's options in it. */
    record Case(String file, List<String> options) {
        String key() {
            return file + " | " + String.join(" ", options);
        }
    }

    private static Path root() throws URISyntaxException {
        return Path.of(LlvmMcaTestsTest.class.getResource("/llvm-mca-tests/X86").toURI()).getParent();
    }

    /** Every RUN line of every copied test that runs llvm-mca on the file itself. */
    static List<Case> cases(Path root) throws IOException {
        List<Case> out = new ArrayList<>();
        List<Path> files;
        try (Stream<Path> s = Files.walk(root.resolve("X86"))) {
            files = s.filter(p -> p.toString().endsWith(".s")).sorted().toList();
        }
        for (Path f : files) {
            String joined = Files.readString(f, StandardCharsets.UTF_8).replace("\\\n# RUN:", " ");
            for (String line : joined.split("\n")) {
                if (!line.startsWith("# RUN:") || !line.contains("llvm-mca")) {
                    continue;
                }
                String command = line.substring("# RUN:".length());
                for (String part : command.split("\\|")) {
                    List<String> tokens = new ArrayList<>(List.of(part.trim().split("\\s+")));
                    int at = tokens.indexOf("llvm-mca");
                    if (at < 0) {
                        continue;
                    }
                    List<String> options = new ArrayList<>();
                    boolean onFile = false;
                    for (String t : tokens.subList(at + 1, tokens.size())) {
                        if (t.equals("<") || t.equals("%s")) {
                            onFile |= t.equals("%s");
                        } else if (t.startsWith("-") && !t.contains("%")) {
                            options.add(t);
                        } else {
                            options.add(t);
                        }
                    }
                    if (onFile && options.stream().noneMatch(o -> o.contains("%") || o.startsWith(">")
                            || o.equals("2>&1") || o.startsWith("2>"))) {
                        out.add(new Case(root.relativize(f).toString(), options));
                    }
                }
            }
        }
        return out;
    }

    private static String llvmMca(Path root, Case c) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("llvm-mca-19"));
        cmd.addAll(c.options());
        cmd.add(root.resolve(c.file()).toString());
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS));
        return p.exitValue() == 0 ? String.join("\n", McaSections.of(out)) : "error: llvm-mca-19 exit "
                + p.exitValue();
    }

    /** The golden sections: per case key, llvm-mca-19's sections (one per line) or its error. */
    private static Map<String, String> golden(Path root) throws IOException {
        Map<String, String> out = new LinkedHashMap<>();
        String key = null;
        StringBuilder value = new StringBuilder();
        for (String line : Files.readAllLines(root.resolve("golden-sections.txt"), StandardCharsets.UTF_8)) {
            if (line.startsWith("== ")) {
                if (key != null) {
                    out.put(key, value.toString().strip());
                }
                key = line.substring(3);
                value.setLength(0);
            } else if (!line.startsWith("#")) {
                value.append(line).append('\n');
            }
        }
        if (key != null) {
            out.put(key, value.toString().strip());
        }
        return out;
    }

    @Test
    void everyRunLinePrintsLlvmMcasSectionsOrIsRefusedByName() throws Exception {
        Path root = root();
        List<Case> cases = cases(root);
        String write = System.getProperty("basalt.mcaGolden");
        if (write != null) {
            Assumptions.assumeTrue(CliRun.onPath("llvm-mca-19"), "llvm-mca-19 is needed to write the golden file");
            StringBuilder g = new StringBuilder("# llvm-mca-19's sections (McaSections) for each RUN line of the "
                    + "copied tests, written by LlvmMcaTestsTest -Dbasalt.mcaGolden=FILE\n");
            for (Case c : cases) {
                g.append("== ").append(c.key()).append('\n').append(llvmMca(root, c)).append('\n');
            }
            Files.writeString(Path.of(write), g.toString());
        }
        Map<String, String> golden = golden(root);
        boolean live = CliRun.onPath("llvm-mca-19");
        int files = (int) cases.stream().map(Case::file).distinct().count();
        assertTrue(files >= 60, "only " + files + " llvm-mca tests copied");
        List<String> report = new ArrayList<>();
        List<String> wrong = new ArrayList<>();
        int matched = 0;
        int refused = 0;
        int beyond = 0; // llvm-mca-19 itself fails (Znver4/partially-overlapping-group-resources.s: a crash)
        for (Case c : cases) {
            String expected = golden.get(c.key());
            assertTrue(expected != null, "no golden sections for " + c.key());
            if (live) {
                assertEquals(expected, llvmMca(root, c), "golden-sections.txt is stale for " + c.key());
            }
            List<String> args = new ArrayList<>(List.of("mca"));
            args.addAll(c.options());
            args.add(root.resolve(c.file()).toString());
            CliRun run = CliRun.of(args.toArray(String[]::new));
            String outcome;
            if (run.exit() == 2 && !run.err().isBlank() && run.out().isEmpty()) {
                refused++;
                outcome = "refused: " + run.err().lines().findFirst().orElse("").replace(root.toString() + "/", "");
            } else if (run.exit() == 0 && expected.startsWith("error:")) {
                beyond++;
                outcome = "runs where llvm-mca-19 fails (" + expected + ")";
            } else if (run.exit() == 0 && String.join("\n", McaSections.of(run.out())).equals(expected)) {
                matched++;
                outcome = "same sections";
            } else {
                outcome = "DIFFERENT (exit " + run.exit() + ")";
                wrong.add(c.key() + ": exit " + run.exit() + " " + run.err().lines().findFirst().orElse("")
                        + "\nexpected:\n" + expected + "\ngot:\n" + String.join("\n", McaSections.of(run.out())));
            }
            report.add("| `" + c.file() + "` | `" + String.join(" ", c.options()) + "` | " + outcome.replace("|", "\\|")
                    + " |");
        }
        Path out = Path.of("target", "llvm-mca-tests.md");
        Files.createDirectories(out.getParent());
        Files.writeString(out, "llvm-mca's x86 tests under basalt mca: " + files + " files, " + cases.size()
                + " RUN lines, " + matched + " with llvm-mca-19's sections, " + refused + " refused by name, " + beyond
                + " run where llvm-mca-19 fails\n\n"
                + "| file | options | outcome |\n|---|---|---|\n" + String.join("\n", report) + "\n");
        assertEquals(List.of(), wrong);
        assertEquals(cases.size(), matched + refused + beyond, "every RUN line matched or refused by name");
        // 56 of the 80 RUN lines printed llvm-mca-19's sections on 2026-12-05: fewer is a regression.
        assertTrue(matched >= 56, matched + " of " + cases.size() + " RUN lines matched");
    }
}
