package dev.basalt.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

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
}
