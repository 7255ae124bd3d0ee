package dev.basalt.cli;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Without a loadable Zydis, the CLI says how to install it in one line (checked in a separate JVM). */
class MissingZydisTest {

    @Test
    void oneLineWithTheInstallCommand() throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder pb = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                Basalt.class.getName(), "decode", "4889de");
        pb.environment().put("BASALT_ZYDIS_LIB", "/nonexistent/libZydis.so.4.0");
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertEquals(1, p.exitValue(), err);
        assertEquals("", out);
        assertEquals(1, err.strip().lines().count(), err);
        assertTrue(err.contains("sudo apt-get install libzydis4.0") && err.contains("/nonexistent/libZydis.so.4.0"),
                err);
    }
}
