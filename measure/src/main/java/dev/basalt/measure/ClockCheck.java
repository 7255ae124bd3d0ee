package dev.basalt.measure;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * What a run measures before it reports anything: known answers that do not depend on the calibration chain's
 * instruction, timed through that chain, and facts about the host's renamer.
 *
 * <p><b>Known answers.</b> A register-register chain of another shape ({@code sub rax, rcx; xor rax, rdx}, two
 * cycles a copy) and {@code imul rax, rax} (three) have these latencies on every x86-64 core since 2011. If either,
 * converted to cycles by the chain, is more than 2% off, the chain does not take the cycles it is said to take on
 * this host — a renamer eliminates it, or it is not the chain it claims — and every figure would be off by the same
 * factor: {@link Measurer} refuses to start ({@link Refused}). A VM's neighbour can disturb one measurement, so an
 * answer gets three attempts and passes when one is within 2%; a wrong clock is off by far more (a folded {@code add
 * rax, 1} by 4x) and fails all three, and the refusal reports the median of the three.
 *
 * <p><b>Host facts.</b> {@code add rax, 1} and a two-move chain, measured the same way: whether this core executes
 * small-immediate adds and register moves at rename. They are what the simulator of this host needs, not errors.
 */
public final class ClockCheck {

    /** How far (relative) a known answer may be from its latency. */
    public static final double TOLERANCE = 0.02;

    private static final int ATTEMPTS = 3;

    /** A block whose cycles per iteration on every x86-64 core since 2011 are known. */
    record Known(String block, String hex, double cycles) {
    }

    static final List<Known> ANSWERS = List.of(
            new Known("sub rax, rcx; xor rax, rdx", "4829c84831d0", 2),
            new Known("imul rax, rax", "480fafc0", 3));

    /** Blocks whose cycles tell what this core's renamer does. */
    static final List<Known> FACTS = List.of(
            new Known("add rax, 1", "4883c001", 1),
            new Known("mov rcx, rax; mov rax, rcx", "4889c14889c8", 2));

    /** One known answer as measured through the chain. */
    public record Answer(String block, String hex, double expected, double measured, boolean ok) {
    }

    /** One host fact: a block, its cycles here, and what they mean. */
    public record Fact(String block, String hex, double cycles, String reading) {
    }

    /** The check's outcome, for the meta file and the run's first lines. */
    public record Report(ClockChain chain, List<Answer> answers, List<Fact> facts) {

        public Report {
            answers = List.copyOf(answers);
            facts = List.copyOf(facts);
        }

        public boolean passed() {
            return answers.stream().allMatch(Answer::ok);
        }

        /**
         * How many cycles a copy of the chain takes here, by the known answers: its claimed cycles times the median
         * of expected over measured. Equal to the claim when the check passes.
         */
        public double chainCyclesHere() {
            double[] f = answers.stream().filter(a -> a.measured() > 0).mapToDouble(a -> a.expected() / a.measured())
                    .sorted().toArray();
            if (f.length == 0) {
                return Double.NaN;
            }
            double median = f.length % 2 == 1 ? f[f.length / 2] : (f[f.length / 2 - 1] + f[f.length / 2]) / 2;
            return chain.cyclesPerCopy() * median;
        }

        /** {@code 'sub rax, rcx; xor rax, rdx' 2.001 (2), 'imul rax, rax' 3.000 (3)}. */
        public String answersLine() {
            return answers.stream().map(a -> String.format(Locale.ROOT, "'%s' %s (%s)", a.block(),
                    measured(a.measured()), plain(a.expected()))).collect(Collectors.joining(", "));
        }

        /** {@code 'add rax, 1' chain: 0.248 cycles — immediates eliminated at rename (about 4.0 a cycle); ...}. */
        public String factsLine() {
            return facts.stream().map(f -> String.format(Locale.ROOT, "'%s' chain: %s cycles — %s", f.block(),
                    measured(f.cycles()), f.reading())).collect(Collectors.joining("; "));
        }

        /** The {@code clock_check} object of the meta file. */
        public ObjectNode json() {
            ObjectMapper mapper = new ObjectMapper();
            ObjectNode root = mapper.createObjectNode();
            root.put("chain", chain.describe());
            root.put("chain_hex", chain.hex());
            root.put("tolerance", TOLERANCE);
            root.put("passed", passed());
            ArrayNode a = root.putArray("known_answers");
            for (Answer x : answers) {
                a.addObject().put("block", x.block()).put("hex", x.hex()).put("expected", x.expected())
                        .put("measured", x.measured()).put("ok", x.ok());
            }
            ArrayNode f = root.putArray("host_facts");
            for (Fact x : facts) {
                f.addObject().put("block", x.block()).put("hex", x.hex()).put("cycles", x.cycles())
                        .put("reading", x.reading());
            }
            return root;
        }
    }

    /** Thrown by {@link Measurer}'s constructor when the check fails: no block is measured. */
    public static final class Refused extends IOException {

        private final transient Report report;

        Refused(HostCpu host, Report report) {
            super(message(host, report));
            this.report = report;
        }

        public Report report() {
            return report;
        }

        private static String message(HostCpu host, Report r) {
            String failed = r.answers().stream().filter(a -> !a.ok()).map(a -> String.format(Locale.ROOT,
                    "'%s' measured %s cycles, expected %s", a.block(), measured(a.measured()), plain(a.expected())))
                    .collect(Collectors.joining(" and "));
            double here = r.chainCyclesHere();
            double claimed = r.chain().cyclesPerCopy();
            String why = here < claimed
                    ? "this core runs it faster: its renamer eliminates it (a move, or an add of a small immediate on "
                    + "Golden Cove and later Intel P-cores)"
                    : "it is slower than it is said to be";
            return String.format(Locale.ROOT, "clock check failed on %s: timed by the calibration chain '%s', taken "
                            + "as %s a copy, %s (more than %.0f%% off). The chain takes about %.2f cycles a copy "
                            + "here, not %s — %s — so every figure would be %.2fx too %s. Nothing was measured or "
                            + "written. The default chain is '%s' (1 cycle); --clock-chain CHAIN=CYCLES chooses "
                            + "another.",
                    host.describe(), r.chain().assembly(), plural(claimed), failed, 100 * TOLERANCE, here,
                    plain(claimed), why, here < claimed ? claimed / here : here / claimed,
                    here < claimed ? "large" : "small", ClockChain.REGISTER_ADD.assembly());
        }
    }

    /** One measurement of a block: what {@link Measurer} does for any block. */
    @FunctionalInterface
    interface Probe {
        BlockMeasurement measure(String hex) throws IOException;
    }

    private ClockCheck() {
    }

    /** Measures the known answers and the host facts through {@code probe}, which times with {@code chain}. */
    static Report run(ClockChain chain, Probe probe) throws IOException {
        List<Answer> answers = new ArrayList<>();
        for (Known k : ANSWERS) {
            double measured = Double.NaN;
            boolean ok = false;
            List<Double> tried = new ArrayList<>();
            for (int attempt = 0; attempt < ATTEMPTS && !ok; attempt++) {
                BlockMeasurement m = probe.measure(k.hex());
                measured = m.cycles();
                ok = m.status() == BlockMeasurement.Status.OK
                        && Math.abs(measured - k.cycles()) <= TOLERANCE * k.cycles();
                if (m.measured() && measured > 0) {
                    tried.add(measured);
                }
            }
            // A failed answer reports the median of its attempts: one disturbed attempt must not set the factor
            // the refusal prints.
            answers.add(new Answer(k.block(), k.hex(), k.cycles(), ok ? measured : Measurer.median(tried), ok));
        }
        List<Fact> facts = new ArrayList<>();
        for (Known k : FACTS) {
            BlockMeasurement m = probe.measure(k.hex());
            facts.add(new Fact(k.block(), k.hex(), m.cycles(), reading(k, m.cycles())));
        }
        return new Report(chain, answers, facts);
    }

    /** What a host fact's cycles say about the renamer. */
    static String reading(Known k, double cycles) {
        boolean immediate = k.hex().equals("4883c001");
        if (!(cycles > 0)) {
            return "not measured";
        }
        if (cycles >= 0.97 * k.cycles()) {
            return immediate ? "not eliminated: a one-cycle ALU add" : "not eliminated: each move takes a cycle";
        }
        String rate = String.format(Locale.ROOT, "about %.1f a cycle", k.cycles() / cycles);
        if (cycles < 0.9 * k.cycles()) {
            return (immediate ? "immediates eliminated at rename (" : "register moves eliminated at rename (") + rate
                    + ")";
        }
        return (immediate ? "immediates partly eliminated at rename (" : "register moves partly eliminated (") + rate
                + ")";
    }

    /** A measured figure: three decimals, as {@code basalt measure} prints cycles. */
    static String measured(double v) {
        return Double.isNaN(v) ? "nothing" : String.format(Locale.ROOT, "%.3f", v);
    }

    /** A stated latency: {@code 3}, {@code 0.5}. */
    static String plain(double v) {
        return v == Math.rint(v) ? Long.toString((long) v) : Double.toString(v);
    }

    private static String plural(double cycles) {
        return plain(cycles) + (cycles == 1 ? " cycle" : " cycles");
    }
}
