package dev.basalt.cli;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A mistyped command is a usage error (exit 2) that names the command meant, even when --help follows it. */
class UnknownCommandTest {

    @Test
    void aMistypedCommandIsRefusedWithTheNearestOne() {
        CliRun typo = CliRun.of("prdict", "4801d8");
        assertEquals(2, typo.exit());
        assertEquals("basalt: unknown command 'prdict'; did you mean predict?", typo.err().lines().findFirst()
                .orElseThrow());
        CliRun help = CliRun.of("mcaa", "--help");
        assertEquals(2, help.exit(), "not the general help and success");
        assertTrue(help.err().startsWith("basalt: unknown command 'mcaa'; did you mean mca?"), help.err());
        assertEquals("", help.out());
        CliRun far = CliRun.of("xyzzy");
        assertEquals(2, far.exit());
        assertFalse(far.err().contains("did you mean"), far.err());
    }

    @Test
    void aTypoIsAFewEditsAway() {
        assertTrue(Basalt.typo("explian", "explain"), "two letters swapped: one edit");
        assertTrue(Basalt.typo("simualte", "simulate"));
        assertTrue(Basalt.typo("tun", "tune"));
        assertFalse(Basalt.typo("xyzzy", "analyze"));
        assertFalse(Basalt.typo("mc", "measure"));
        assertFalse(Basalt.typo("ab", "mca"), "a short word: one edit at most");
    }
}
