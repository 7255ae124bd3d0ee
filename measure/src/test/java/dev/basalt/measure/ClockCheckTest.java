package dev.basalt.measure;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.List;
import java.util.Locale;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The clock check refuses a calibration chain that does not take the cycles it claims: one whose latency is
 * misstated, and one this host's renamer folds. Without the check, both would measure every block off by the same
 * factor, exit 0 and say nothing (as {@code add rax, 1} did on Redwood Cove: 4.02x).
 */
class ClockCheckTest {

    private static void onX86Linux() {
        Assumptions.assumeTrue(System.getProperty("os.arch", "").matches("amd64|x86_64")
                && System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux"),
                "measuring runs on x86-64 Linux only");
    }

    private static ClockCheck.Refused refusal(ClockChain chain) {
        MeasureConfig config = MeasureConfig.defaults().withJobs(1).withClock(chain);
        return assertThrows(ClockCheck.Refused.class, () -> new Measurer(config).close(),
                chain.describe() + " was accepted as a clock");
    }

    /** {@code imul rax, rax} said to be one cycle: the clock is three times too fast, on every x86-64 core. */
    @Test
    void aChainSaidToBeFasterThanItIsIsRefused() {
        onX86Linux();
        ClockCheck.Refused e = refusal(new ClockChain("imul rax, rax", "480fafc0", 1));
        ClockCheck.Report r = e.report();
        assertTrue(!r.passed());
        // The answers read three times too fast: the chain is about three cycles here.
        assertEquals(3.0, r.chainCyclesHere(), 0.1, r.answersLine());
        String m = e.getMessage();
        assertTrue(m.startsWith("clock check failed on "), m);
        assertTrue(m.contains(procCpuinfo()), "the message names the host (" + procCpuinfo() + "): " + m);
        assertTrue(m.contains("expected 2") && m.contains("'imul rax, rax'"), "expected and measured answers: " + m);
        assertTrue(m.contains("Nothing was measured"), m);
    }

    /**
     * A chain this host executes at rename: {@code add rax, 1} where immediates are eliminated (Golden Cove and
     * later), otherwise a two-move chain where moves are (Zen, Intel since Ivy Bridge), each said to take the
     * cycles it would without elimination. The host facts of a default run say which this host folds.
     */
    @Test
    void aChainTheHostFoldsIsRefused() throws IOException {
        onX86Linux();
        List<ClockCheck.Fact> facts;
        try (Measurer m = new Measurer(MeasureConfig.defaults().withJobs(1))) {
            facts = m.clockCheck().facts();
        }
        ClockCheck.Fact folded = facts.stream().filter(f -> f.reading().contains("eliminated at rename"))
                .findFirst().orElse(null);
        Assumptions.assumeTrue(folded != null, "this host folds neither add rax, 1 nor a register move: " + facts);
        ClockCheck.Known known = ClockCheck.FACTS.stream().filter(k -> k.hex().equals(folded.hex())).findFirst()
                .orElseThrow();
        ClockCheck.Refused e = refusal(new ClockChain(known.block(), known.hex(), known.cycles()));
        // The check's estimate of the chain agrees with the host fact within 10%.
        assertEquals(folded.cycles(), e.report().chainCyclesHere(), 0.1 * folded.cycles(), e.getMessage());
    }

    /**
     * A wrong clock fails every attempt, and the refusal reports the median of the attempts: a neighbour that
     * disturbs one of the three (here the last imul reads 2.6% low) does not move the factor it prints.
     */
    @Test
    void aFailedAnswerReportsTheMedianOfItsAttempts() throws IOException {
        java.util.Map<String, java.util.Deque<Double>> readings = java.util.Map.of(
                "4829c84831d0", new java.util.ArrayDeque<>(List.of(0.667, 0.668, 0.650)),
                "480fafc0", new java.util.ArrayDeque<>(List.of(1.001, 0.999, 0.974)),
                "4883c001", new java.util.ArrayDeque<>(List.of(0.333)),
                "4889c14889c8", new java.util.ArrayDeque<>(List.of(0.667)));
        ClockCheck.Report r = ClockCheck.run(new ClockChain("imul rax, rax", "480fafc0", 1), hex -> {
            double c = readings.get(hex).removeFirst();
            return new BlockMeasurement(hex, BlockMeasurement.Status.OK, c, c, 0, 5, 0, 50, 100, 1, 1, "");
        });
        assertTrue(!r.passed());
        assertEquals(List.of(0.667, 0.999), r.answers().stream().map(ClockCheck.Answer::measured).toList());
        assertEquals(3.0, r.chainCyclesHere(), 0.005, r.answersLine());
        readings.values().forEach(q -> assertTrue(q.isEmpty(), "every attempt taken: " + readings));
        // A passing answer stops at its first good attempt and reports it.
        ClockCheck.Report ok = ClockCheck.run(ClockChain.REGISTER_ADD, hex -> {
            double c = hex.equals("480fafc0") ? 3.01 : hex.equals("4829c84831d0") ? 2.0 : 1.0;
            return new BlockMeasurement(hex, BlockMeasurement.Status.OK, c, c, 0, 5, 0, 50, 100, 1, 1, "");
        });
        assertTrue(ok.passed(), ok.answersLine());
        assertEquals(3.01, ok.answers().get(1).measured());
    }

    @Test
    void aChainThatCannotRunIsNoClock() {
        onX86Linux();
        MeasureConfig config = MeasureConfig.defaults().withJobs(1).withClock(ClockChain.parse("syscall=1"));
        ClockChain.NotRunnable e = assertThrows(ClockChain.NotRunnable.class, () -> new Measurer(config).close());
        assertTrue(e.getMessage().contains("enters the kernel"), e.getMessage());
        MeasureConfig stack = MeasureConfig.defaults().withJobs(1).withClock(ClockChain.parse("push rax=1"));
        assertThrows(ClockChain.NotRunnable.class, () -> new Measurer(stack).close());
    }

    @Test
    void chainsParseFromHexOrAssembly() {
        ClockChain asm = ClockChain.parse("imul rax, rax=3");
        assertEquals("480fafc0", asm.hex());
        assertEquals(3, asm.cyclesPerCopy());
        assertEquals("imul rax, rax (3 cycles per copy)", asm.describe());
        assertEquals("add rax, rcx (1 cycle per copy)", ClockChain.parse("4801c8=1").describe());
        for (String bad : List.of("add rax, rcx", "add rax, rcx=", "add rax, rcx=fast", "add rax, rcx=0",
                "nosuch rax=1", "0fff=1", "=1")) {
            assertThrows(IllegalArgumentException.class, () -> ClockChain.parse(bad), bad);
        }
    }

    /** {@code family 25 model 17}, as the kernel's /proc/cpuinfo has it: the host, read without the harness. */
    private static String procCpuinfo() {
        try {
            List<String> lines = java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/cpuinfo"));
            String family = lines.stream().filter(l -> l.startsWith("cpu family")).findFirst().orElseThrow();
            String model = lines.stream().filter(l -> l.matches("model\\s*:.*")).findFirst().orElseThrow();
            return "family " + family.replaceAll(".*:\\s*", "") + " model " + model.replaceAll(".*:\\s*", "");
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
