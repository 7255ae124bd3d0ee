package dev.basalt.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code basalt simulate}: a hand-checkable block, and user errors that are exit 2 with one line naming the option. */
class SimulateCommandTest {

    @Test
    void aDependencyChainOfThreeImulsTakesNineCyclesAnIteration() {
        // imul rax, rax (3 cycles on every Intel table) three times on one register: a 9-cycle loop-carried chain.
        CliRun r = CliRun.of("simulate", "--mcpu", "haswell", "--untuned", "480fafc0480fafc0480fafc0");
        assertEquals(0, r.exit(), r.err());
        // 9 per iteration plus the pipeline's fill and drain spread over the 100 iterations.
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("haswell: ([0-9.]+) cycles/iteration").matcher(r.out());
        assertTrue(m.find(), r.out());
        double cycles = Double.parseDouble(m.group(1));
        assertTrue(cycles >= 9.0 && cycles <= 9.1, r.out());
        assertTrue(r.out().contains(" 1=3.00 "), "the three imuls use port 1: " + r.out());
    }

    @Test
    void badValuesAreExitTwoNamingTheOption(@TempDir Path dir) throws Exception {
        CliRun iterations = CliRun.of("simulate", "--iterations", "0", "4889de");
        assertEquals(2, iterations.exit());
        assertTrue(iterations.err().startsWith("basalt simulate: --iterations: iterations must be in 1..100000"),
                iterations.err());
        assertEquals(1, iterations.err().lines().count(), iterations.err());

        Path notATable = dir.resolve("table.json");
        Files.writeString(notATable, "{\"hello\": 1}");
        CliRun params = CliRun.of("simulate", "--params", notATable.toString(), "4889de");
        assertEquals(2, params.exit());
        assertTrue(params.err().startsWith("basalt simulate: --params " + notATable), params.err());

        CliRun cpu = CliRun.of("simulate", "--mcpu", "pentium", "4889de");
        assertEquals(2, cpu.exit());
        assertTrue(cpu.err().startsWith("basalt simulate: Invalid value for option '--mcpu'"), cpu.err());
    }
}
