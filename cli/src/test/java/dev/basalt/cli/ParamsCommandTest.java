package dev.basalt.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.basalt.core.Microarchitecture;
import dev.basalt.simulator.params.InstructionParams;
import dev.basalt.simulator.params.SimulatorParams;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code basalt params import} on bad input: one line naming the file and the reason, and no table written. */
class ParamsCommandTest {

    @Test
    void aMissingOrEmptyBlocksFileIsBadInputAndWritesNoTable(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("t.json");
        Path missing = dir.resolve("missing.csv");
        CliRun r = CliRun.of("params", "import", "--mcpu", "haswell", "--blocks", missing.toString(), "--out",
                out.toString());
        assertEquals(2, r.exit());
        assertEquals("basalt params import: --blocks " + missing + ": no such file, or not readable",
                r.err().lines().findFirst().orElseThrow());
        Path empty = dir.resolve("empty.csv");
        Files.writeString(empty, "");
        CliRun e = CliRun.of("params", "import", "--mcpu", "haswell", "--blocks", empty.toString(), "--out",
                out.toString());
        assertEquals(2, e.exit());
        assertEquals("basalt params import: --blocks: no block in " + empty + " decoded: nothing to import",
                e.err().lines().filter(l -> l.startsWith("basalt")).findFirst().orElseThrow());
        assertFalse(Files.exists(out));
    }

    @Test
    void importNeedsBlocksOrAllFormsAndABaseOnlyWithAllForms(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("t.json");
        CliRun none = CliRun.of("params", "import", "--mcpu", "haswell", "--out", out.toString());
        assertEquals(2, none.exit());
        assertEquals("basalt params import: nothing to import: give --blocks FILE, --all-forms, or both",
                none.err().lines().findFirst().orElseThrow());
        Path base = dir.resolve("base.json");
        SimulatorParams.imported(Microarchitecture.SKYLAKE).orElseThrow().write(base);
        CliRun noAll = CliRun.of("params", "import", "--mcpu", "skylake", "--base", base.toString(), "--out",
                out.toString());
        assertEquals(2, noAll.exit());
        assertTrue(noAll.err().contains("a base table is added to by --all-forms"), noAll.err());
        CliRun other = CliRun.of("params", "import", "--mcpu", "haswell", "--all-forms", "--base", base.toString(),
                "--out", out.toString());
        assertEquals(2, other.exit());
        assertEquals("basalt params import: --base " + base + " is a table for skylake, not haswell",
                other.err().lines().findFirst().orElseThrow());
        Path junk = Files.writeString(dir.resolve("junk.json"), "{\"mcpu\": 3");
        CliRun bad = CliRun.of("params", "import", "--mcpu", "haswell", "--all-forms", "--base", junk.toString(),
                "--out", out.toString());
        assertEquals(2, bad.exit());
        assertTrue(bad.err().startsWith("basalt params import: --base " + junk + ": not a simulator table"), bad.err());
        assertFalse(Files.exists(out));
    }

    /** How the bundled tables got their extra forms, re-run on a few forms taken out: the same rows come back. */
    @Test
    void allFormsRestoresTheBundledRowsThatWereTakenOut(@TempDir Path dir) throws Exception {
        if (!CliRun.onPath("llvm-mca-14") || !CliRun.onPath("llvm-mc-14")) {
            System.err.println("SKIPPED ParamsCommandTest.allForms: llvm-mca-14/llvm-mc-14 not installed "
                    + "(apt-get install llvm-14)");
            org.junit.jupiter.api.Assumptions.abort("llvm-14 tools not installed");
        }
        SimulatorParams bundled = SimulatorParams.bundled(Microarchitecture.HASWELL);
        List<String> takenOut = List.of("AESENC xmm, xmm", "JNZ rel8", "LOCK ADD m64, r64", "VPMULLD ymm, ymm, ymm");
        java.util.Map<String, InstructionParams> fewer = new java.util.TreeMap<>(bundled.forms());
        takenOut.forEach(fewer::remove);
        Path base = dir.resolve("base.json");
        bundled.withForms(fewer).write(base);
        Path out = dir.resolve("out.json");
        CliRun r = CliRun.of("params", "import", "--mcpu", "haswell", "--all-forms", "--base", base.toString(),
                "--out", out.toString());
        assertEquals(0, r.exit(), r.err());
        SimulatorParams restored = SimulatorParams.read(out);
        assertEquals(bundled.forms(), restored.forms());
        assertEquals(4L, ((Number) restored.provenance().detail("formsAdded").orElseThrow()).longValue());
    }

    @Test
    void coverageCountsTheFormsOfElfCodeAndRefusesAMissingPath(@TempDir Path dir) throws Exception {
        Path launcher = Path.of(ProcessHandle.current().info().command().orElseThrow());
        Files.writeString(dir.resolve("readme.txt"), "no code here");
        Files.copy(launcher, dir.resolve("launcher"));
        CliRun r = CliRun.of("params", "coverage", "--mcpu", "haswell", "--top", "3", dir.toString());
        assertEquals(0, r.exit(), r.err());
        List<String> lines = r.out().lines().toList();
        assertTrue(lines.get(0).startsWith("1 ELF files, "), lines.get(0));
        java.util.regex.Matcher m = java.util.regex.Pattern
                .compile("haswell: [0-9,]+ forms, ([0-9.]+)% of occurrences have their own row").matcher(lines.get(1));
        assertTrue(m.matches(), lines.get(1));
        assertTrue(Double.parseDouble(m.group(1)) >= 99.5, lines.get(1));
        Path missing = dir.resolve("nothing");
        CliRun bad = CliRun.of("params", "coverage", missing.toString());
        assertEquals(2, bad.exit());
        assertEquals("basalt params coverage: " + missing + ": no such file or folder",
                bad.err().lines().findFirst().orElseThrow());
    }
}
