package dev.basalt.measure;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Measurements whose answers follow from the architecture, true on every x86-64 core since 2011 (Sandy Bridge,
 * Bulldozer and later, Golden and Redwood Cove included): a dependent chain of register-register {@code add}s is 1
 * cycle a copy, two of them 2, a chain of 3-cycle {@code imul r64, r64} 3; the same instructions without the
 * dependency are faster; a pointer chase through L1 ({@code mov rax, [rax]}) takes the load-to-use latency, 4 to 5
 * cycles. Each within 3%, measured by the default timer and again with the time-stamp counter forced (the path of
 * every VM without performance counters).
 *
 * <p>No answer here assumes that {@code add rax, 1} costs a cycle: Golden Cove and later Intel P-cores execute it at
 * rename, about four a cycle. It is asserted only as a host fact, between 0.15 and 1.05 cycles.
 */
class KnownAnswersTest {

    private enum Timer { AUTO, TSC }

    private static final Map<Timer, Measurer> MEASURERS = new EnumMap<>(Timer.class);

    @BeforeAll
    static void start() throws IOException {
        Assumptions.assumeTrue(System.getProperty("os.arch", "").matches("amd64|x86_64")
                && System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux"),
                "measuring runs on x86-64 Linux only");
        MEASURERS.put(Timer.AUTO, new Measurer(MeasureConfig.defaults().withJobs(1)));
        MEASURERS.put(Timer.TSC, new Measurer(MeasureConfig.defaults().withJobs(1).withTscOnly(true)));
    }

    @AfterAll
    static void stop() {
        MEASURERS.values().forEach(Measurer::close);
    }

    /**
     * The block's measurement, which must be OK: a VM's neighbours can disturb every try of one block (seen once in
     * CI: four independent adds, spread 0.19 over nine tries), and {@link Measurer} takes such a series again after
     * a pause itself.
     */
    private static double cycles(Timer timer, String hex) throws IOException {
        BlockMeasurement m = MEASURERS.get(timer).measure(hex);
        assertEquals(BlockMeasurement.Status.OK, m.status(), hex + ": " + m);
        return m.cycles();
    }

    private static void near(double expected, double measured, String what) {
        assertTrue(Math.abs(measured - expected) <= 0.03 * expected, String.format(Locale.ROOT,
                "%s: measured %.4f, expected %.2f within 3%%", what, measured, expected));
    }

    @ParameterizedTest
    @ValueSource(strings = {"AUTO", "TSC"})
    void dependentChainsTakeTheirLatency(Timer timer) throws IOException {
        near(1.00, cycles(timer, "4801d8"), "add rax, rbx");
        near(2.00, cycles(timer, "4801d84801c3"), "add rax, rbx; add rbx, rax");
        near(3.00, cycles(timer, "480fafc0"), "imul rax, rax");
        near(3.00, cycles(timer, "486bc003"), "imul rax, rax, 3");
        near(4.00, cycles(timer, "4801d84801d84801d84801d8"), "4 x add rax, rbx");
        near(2.00, cycles(timer, "4829c84831d0"), "sub rax, rcx; xor rax, rdx");
    }

    @ParameterizedTest
    @ValueSource(strings = {"AUTO", "TSC"})
    void independentFormsAreFasterThanDependentOnes(Timer timer) throws IOException {
        double dependentImul = cycles(timer, "486bc003");       // imul rax, rax, 3
        double independentImul = cycles(timer, "486bc303");     // imul rax, rbx, 3
        assertTrue(independentImul < 0.75 * dependentImul, "imul rax, rbx, 3 " + independentImul
                + " vs imul rax, rax, 3 " + dependentImul);
        double dependentAdds = cycles(timer, "4801d84801d84801d84801d8"); // add rax, rbx (x4)
        double independentAdds = cycles(timer, "4801d84801d94801da4801de"); // rax, rcx, rdx, rsi += rbx
        assertTrue(independentAdds < 0.5 * dependentAdds, "four chains " + independentAdds + " vs one "
                + dependentAdds);
        // Each chain is one cycle a copy; four of them need four ALUs to run in one (Sandy and Ivy Bridge have
        // three: 1.33), and Redwood Cove binds them to ports so that they collide (1.18, DESIGN §15).
        assertTrue(independentAdds >= 0.97 && independentAdds <= 1.40, String.format(Locale.ROOT,
                "four independent add chains: measured %.4f, expected 1 to 1.33 cycles", independentAdds));
    }

    @ParameterizedTest
    @ValueSource(strings = {"AUTO", "TSC"})
    void pointerChaseTakesTheLoadToUseLatency(Timer timer) throws IOException {
        double chase = cycles(timer, "488b00"); // mov rax, [rax]: every page holds 0x2324000, a valid address
        assertTrue(chase >= 4 * 0.97 && chase <= 5.5, "mov rax, [rax]: " + chase + ", expected 4 to 5.5");
    }

    /**
     * The clock check's figures, as every run records them: its known answers within 2%, and {@code add rax, 1} as
     * a host fact — at most one cycle (it is a one-cycle add where not eliminated), at least 0.15 (no core
     * eliminates more than six a cycle, its allocation width).
     */
    @ParameterizedTest
    @ValueSource(strings = {"AUTO", "TSC"})
    void theClockCheckPassedAndReportsTheHostsAddImmediate(Timer timer) {
        ClockCheck.Report r = MEASURERS.get(timer).clockCheck();
        assertTrue(r.passed(), r.answersLine());
        for (ClockCheck.Answer a : r.answers()) {
            assertTrue(Math.abs(a.measured() - a.expected()) <= ClockCheck.TOLERANCE * a.expected(), a.toString());
        }
        ClockCheck.Fact add = r.facts().stream().filter(f -> f.block().equals("add rax, 1")).findFirst().orElseThrow();
        assertTrue(add.cycles() >= 0.15 && add.cycles() <= 1.05, "add rax, 1 chain: " + add);
        assertEquals(add.cycles() < 0.9, add.reading().startsWith("immediates eliminated"), add.toString());
    }
}
