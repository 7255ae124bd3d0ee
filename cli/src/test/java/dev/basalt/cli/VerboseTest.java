package dev.basalt.cli;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The libraries' log lines are silent by default and shown with {@code --verbose}. Each run is its own JVM: the
 * simple logger reads its levels once per process.
 */
class VerboseTest {

    private static String[] run(String... args) throws Exception {
        String javaBin = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        java.util.List<String> cmd = new java.util.ArrayList<>(java.util.List.of(javaBin, "-cp",
                System.getProperty("java.class.path"), Basalt.class.getName()));
        cmd.addAll(java.util.List.of(args));
        Process p = new ProcessBuilder(cmd).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), err);
        return new String[] {out, err};
    }

    @Test
    void granitePredictsQuietlyUnlessAskedToTalk() throws Exception {
        String[] quiet = run("predict", "--mcpu", "haswell", "--format", "csv", "4801d8");
        assertFalse(quiet[1].contains("ai.djl"), "no library log lines by default: " + quiet[1]);
        String[] verbose = run("predict", "--verbose", "--mcpu", "haswell", "--format", "csv", "4801d8");
        assertTrue(verbose[1].contains("INFO ai.djl"), "DJL's info lines with --verbose: " + verbose[1]);
        assertEquals(quiet[0], verbose[0], "the same predictions either way");
    }
}
