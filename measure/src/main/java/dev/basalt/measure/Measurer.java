package dev.basalt.measure;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * Measures blocks on this machine, BHive's way (Chen et al., IISWC 2019), in child processes ({@link Harness}).
 *
 * <p><b>Method.</b> A block runs straight-line, unrolled twice — as many copies as fit in 16 KiB, at most 1,000, and
 * half as many ({@link MeasureConfig#unrolls}: BHive's 100 and 200 leave too much of a run's fixed cost in the
 * result) — and its cycles per iteration are the difference of the two runs over the
 * difference of copies, so the fixed costs of a run cancel. Each run starts from BHive's state: every general
 * register but rsp/rbp = 0x2324000, rsp = rbp = 0x2324800, flags clear, MXCSR with FTZ and DAZ, x87 reset, every
 * vector register at its full width filled with the 32-bit pattern 0x3fc00000 (float 1.5; as doubles ~0.125 — normal,
 * non-zero); every page the block touches is mapped, on its fault, to one physical page filled with the value
 * 0x2324000 (so a pointer loaded from memory is again a valid address and every access hits L1). A timed run
 * repeats that BHive run — initial state, then the copies — in a loop (a counter in memory, one taken branch per
 * repetition) until a difference of the two unrolls lasts about
 * {@code targetTicks} timer ticks: a KVM guest's time-stamp counter here advances 26 ticks at a time, so a short
 * difference is mostly rounding. Setting the state and the loop cost the same at both unrolls and cancel; each
 * repetition starts from BHive's registers and a refilled page, so a block touches the same pages and reads the same
 * values however often it is repeated.
 *
 * <p><b>Timer.</b> The core-cycle counter where the kernel gives one to user space; otherwise the time-stamp counter,
 * which counts at a fixed rate while the core's clock moves: a calibration chain of known latency ({@link
 * ClockChain}: {@code add rax, rcx}, one cycle on every x86-64 core since 2011 — a register-register chain, because
 * Golden Cove and later Intel P-cores execute {@code add rax, 1} at rename, four a cycle) is measured the same way,
 * interleaved with the block in every round (calibration small, block small, calibration large, block large), and a
 * try whose calibration drifted between its first and second half by more than 2% is re-done. A run during which the
 * child was switched out (getrusage's context-switch counts, a software count the kernel keeps without performance
 * counters) or a page was mapped is rejected and its round repeated.
 *
 * <p><b>Clock check.</b> Before a {@code Measurer} measures anything, its constructor times known answers that do
 * not depend on the chain's instruction, and the host's renamer facts ({@link ClockCheck}); if the answers are more
 * than 2% off, the chain is not what it claims on this host and the constructor throws {@link ClockCheck.Refused}.
 *
 * <p><b>Statistics.</b> A try is {@code rounds} rounds (BHive: 16), the first discarded, each unroll's minimum kept.
 * A block gets {@code tries} tries, each calibrated on its own; it is measured when more than half of its tries agree
 * within {@code maxSpread} of one another ({@link #agreeing}), and its value is their median; otherwise more tries,
 * up to {@code maxTries}. Those tries are a series; a block whose series does not agree gets another after a
 * pause, three series at most, since what disturbs a host's tries (a burst of work on the other vCPU or beside the
 * VM) lasts longer than a series; one whose last series still does not agree is {@link
 * BlockMeasurement.Status#UNSTABLE}, reported (the median of that series' tries) but not written to the BHive
 * file. The spread reported is the interquartile range of all the series' tries over their median.
 *
 * <p>A {@code Measurer} is used by one thread at a time ({@link #measureAll} runs its own, one per child).
 */
public final class Measurer implements AutoCloseable {

    /** Progress: one phase with its total, then the number of blocks done. */
    public interface Listener {
        void phase(String name, long total);

        void progress(long done);
    }

    private static final int CALIBRATION_SMALL = 500;
    private static final int CALIBRATION_LARGE = 1000;
    private static final int MAX_REPETITIONS = 100_000;
    // An unstable block gets this many series of tries at most, the n-th after a pause of n times PAUSE_MILLIS.
    private static final int SERIES = 3;
    private static final long PAUSE_MILLIS = 150;

    private final MeasureConfig config;
    private final List<Harness> harnesses = new ArrayList<>();
    private final HostCpu host;
    private final String timerNote;
    private final ClockCheck.Report clockCheck;

    /**
     * Starts the first child, reads the host from it and checks the clock ({@link ClockCheck}). A core-cycle counter
     * must count the calibration chain at one tick a cycle (within 5%); one that does not (a counter the kernel
     * moved, a hypervisor's odd one) is not trusted, and every child times with the calibrated time-stamp counter
     * instead ({@link #timerNote()}).
     *
     * @throws ClockCheck.Refused when the known answers, timed by the configured chain, are more than 2% off: the
     *                            chain does not take its cycles on this host, and nothing may be measured with it
     */
    public Measurer(MeasureConfig config) throws IOException {
        Path executable = Harness.executable();
        Harness first = new Harness(executable, 0, config.seccomp(), config.tscOnly());
        try {
            HostCpu found = HostCpu.of(first.info());
            String note = "";
            if (found.timer().equals("core-cycles")) {
                double ratio = calibrationRatio(first, config.clock());
                if (!(Math.abs(ratio - 1) <= 0.05)) {
                    first.close();
                    config = config.withTscOnly(true);
                    first = new Harness(executable, 0, config.seccomp(), true);
                    found = HostCpu.of(first.info());
                    note = String.format(Locale.ROOT, "the core-cycle counter counted %.3f a cycle of the calibration "
                            + "chain; timing with the time-stamp counter instead", ratio);
                }
            }
            Admission.Verdict runnable = Admission.check(config.clock().hex(), found);
            if (runnable instanceof Admission.Refused r) {
                throw new ClockChain.NotRunnable("'" + config.clock().assembly() + "' cannot be the clock: it "
                        + r.reason());
            }
            Admission.Admitted a = (Admission.Admitted) runnable;
            if (a.droppedBranch() || a.stackPerCopy() != 0 || a.code().length != config.clock().code().length) {
                throw new ClockChain.NotRunnable("'" + config.clock().assembly() + "' cannot be the clock: a clock "
                        + "chain may neither branch nor move rsp");
            }
            this.config = config;
            this.host = found;
            this.timerNote = note;
            Harness checked = first;
            this.clockCheck = ClockCheck.run(config.clock(), hex -> measure(hex, checked));
            if (!clockCheck.passed()) {
                throw new ClockCheck.Refused(found, clockCheck);
            }
        } catch (IOException | RuntimeException e) {
            first.close();
            throw e;
        }
        harnesses.add(first);
        int cpus = Math.max(1, Runtime.getRuntime().availableProcessors());
        for (int i = 1; i < config.jobs(); i++) {
            harnesses.add(new Harness(executable, i % cpus, config.seccomp(), config.tscOnly()));
        }
    }

    /** The known answers and host facts measured when this {@code Measurer} started (they passed). */
    public ClockCheck.Report clockCheck() {
        return clockCheck;
    }

    /** Why the timer is not the one the host offers, or "". */
    public String timerNote() {
        return timerNote;
    }

    /**
     * Ticks a cycle of the calibration chain, the chain measured as a block with itself as the clock and its
     * cycles taken from its own claim: 1 for a sound core-cycle counter.
     */
    private static double calibrationRatio(Harness h, ClockChain clock) throws IOException {
        byte[] chain = clock.code();
        Harness.Reply reply = h.measure(new Harness.Request(chain, CALIBRATION_SMALL, CALIBRATION_LARGE, chain,
                CALIBRATION_SMALL, CALIBRATION_LARGE, 16, 16, 20, 20_000, MAX_REPETITIONS), 20);
        if (!(reply instanceof Harness.Run run)) {
            return Double.NaN;
        }
        Try t = evaluate(run, new int[] {CALIBRATION_SMALL, CALIBRATION_LARGE}, clock.cyclesPerCopy());
        return t == null ? Double.NaN : t.ticksPerCycle();
    }

    public HostCpu host() {
        return host;
    }

    public MeasureConfig config() {
        return config;
    }

    /** Measures one block on the first child. */
    public BlockMeasurement measure(String hex) throws IOException {
        return measure(hex, harnesses.get(0));
    }

    /**
     * Measures {@code hexes} on every child at once, handing each result to {@code sink} (from the workers' threads,
     * one at a time) as it is done.
     */
    public void measureAll(List<String> hexes, Consumer<BlockMeasurement> sink, Listener listener)
            throws IOException {
        AtomicInteger next = new AtomicInteger();
        AtomicInteger done = new AtomicInteger();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        listener.phase("measure", hexes.size());
        List<Thread> threads = new ArrayList<>();
        for (Harness h : harnesses) {
            Thread t = new Thread(() -> {
                try {
                    for (int i = next.getAndIncrement(); i < hexes.size() && failure.get() == null;
                         i = next.getAndIncrement()) {
                        BlockMeasurement m = measure(hexes.get(i), h);
                        synchronized (sink) {
                            sink.accept(m);
                            listener.progress(done.incrementAndGet());
                        }
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            }, "basalt-measure-" + threads.size());
            threads.add(t);
            t.start();
        }
        for (Thread t : threads) {
            try {
                t.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted", e);
            }
        }
        Throwable f = failure.get();
        if (f instanceof IOException io) {
            throw io;
        }
        if (f instanceof UncheckedIOException u) {
            throw u.getCause();
        }
        if (f instanceof RuntimeException r) {
            throw r;
        }
        if (f instanceof Error e) {
            throw e;
        }
    }

    private BlockMeasurement measure(String hex, Harness harness) throws IOException {
        String canonical = canonical(hex);
        byte[] code;
        String note = "";
        int length;
        int mostCopies = Integer.MAX_VALUE;
        if (config.staticChecks()) {
            Admission.Verdict v = Admission.check(canonical, host);
            if (v instanceof Admission.Refused r) {
                return BlockMeasurement.failed(canonical, BlockMeasurement.Status.REFUSED, r.reason(), 0);
            }
            Admission.Admitted a = (Admission.Admitted) v;
            code = a.code();
            mostCopies = a.mostCopies();
            note = a.droppedBranch() ? "final branch dropped" : "";
        } else {
            code = java.util.HexFormat.of().parseHex(canonical);
        }
        length = code.length;
        int[] unroll = config.unrolls(length, mostCopies);
        Harness.Request request = new Harness.Request(code, unroll[0], unroll[1], config.clock().code(),
                CALIBRATION_SMALL, CALIBRATION_LARGE, config.rounds(), config.maxPages(), config.timeLimitSeconds(),
                config.targetTicks(), MAX_REPETITIONS);
        String text = note;
        return untilStable(SERIES, () -> series(canonical, harness, request, unroll, text), Measurer::pause);
    }

    /** One series of a block's tries. */
    @FunctionalInterface
    interface Series {
        BlockMeasurement take() throws IOException;
    }

    /** A pause before the n-th series (n from 1). */
    @FunctionalInterface
    interface Pause {
        void before(int series) throws IOException;
    }

    /** Series after series, a pause before each but the first, until one is not unstable or {@code most} ran. */
    static BlockMeasurement untilStable(int most, Series series, Pause pause) throws IOException {
        BlockMeasurement m = series.take();
        for (int n = 1; n < most && m.status() == BlockMeasurement.Status.UNSTABLE; n++) {
            pause.before(n);
            m = series.take();
        }
        return m;
    }

    /**
     * One series of tries of a block: tries until more than half agree (or the most tries), each calibrated on its
     * own. A failure ends the block; an unstable series is tried again by {@link #measure(String, Harness)}.
     */
    private BlockMeasurement series(String canonical, Harness harness, Harness.Request request, int[] unroll,
                                    String note) throws IOException {
        List<Double> values = new ArrayList<>();
        List<Double> ratios = new ArrayList<>();
        int pages = 0;
        long reps = 0;
        int attempts = 0;
        while (values.size() < config.maxTries() && attempts < 2 * config.maxTries()) {
            attempts++;
            Harness.Reply reply = harness.measure(request, config.timeLimitSeconds());
            if (reply instanceof Harness.Failure f) {
                return BlockMeasurement.failed(canonical, BlockMeasurement.Status.ERROR, f.reason(), 0);
            }
            Harness.Run run = (Harness.Run) reply;
            pages = run.pages();
            reps = run.blockRepetitions();
            Try t = evaluate(run, unroll, config.clock().cyclesPerCopy());
            if (t == null) {
                continue; // drifted, or too few clean rounds: re-done
            }
            values.add(t.cycles());
            ratios.add(t.ticksPerCycle());
            if (values.size() >= config.tries() && agreeing(values, config.maxSpread()).size() * 2 > values.size()) {
                break;
            }
        }
        if (values.isEmpty()) {
            return BlockMeasurement.failed(canonical, BlockMeasurement.Status.UNSTABLE, "no try gave a clean "
                    + "measurement (the clock drifted or the child was switched out in every try)", pages);
        }
        List<Double> agreeing = agreeing(values, config.maxSpread());
        BlockMeasurement.Status status = values.size() >= config.tries() && agreeing.size() * 2 > values.size()
                ? BlockMeasurement.Status.OK : BlockMeasurement.Status.UNSTABLE;
        List<Double> kept = status == BlockMeasurement.Status.OK ? agreeing : values;
        return new BlockMeasurement(canonical, status, median(kept), kept.stream().mapToDouble(d -> d).min()
                .orElse(Double.NaN), spread(values), values.size(), pages, unroll[0], unroll[1], reps, median(ratios), note);
    }

    /**
     * Waits before another series of an unstable block's tries: what disturbs a host's tries for a while lasts tens
     * of milliseconds or more (in CI, 30 tries in a row of one block, about 0.1 s), and every try of a series taken
     * during it disagrees.
     */
    private static void pause(int series) throws IOException {
        try {
            Thread.sleep(PAUSE_MILLIS * series);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }

    /**
     * What determines the numbers, for the meta file and for a resumed run to check it measures the same way:
     * the timer mode, the unroll rule, rounds, tries, spread limit, target ticks, page limit, initial state.
     */
    public com.fasterxml.jackson.databind.node.ObjectNode method() {
        com.fasterxml.jackson.databind.node.ObjectNode m = new com.fasterxml.jackson.databind.ObjectMapper()
                .createObjectNode();
        m.put("name", "BHive (Chen et al., IISWC 2019): two unrolls, their difference over the difference of copies");
        m.put("unrolls", "the most copies that fit in " + config.maxCodeBytes() + " bytes, at most "
                + MeasureConfig.MAX_UNROLL + ", and half as many");
        m.put("calibration_chain", config.clock().describe());
        m.put("calibration_unrolls", CALIBRATION_SMALL + " and " + CALIBRATION_LARGE);
        m.put("timer_mode", config.tscOnly() ? "tsc (forced)" : "core cycles where the kernel gives them, else tsc");
        m.put("rounds", config.rounds());
        m.put("first_round_discarded", true);
        m.put("tries", config.tries());
        m.put("max_tries", config.maxTries());
        m.put("max_spread", config.maxSpread());
        m.put("agreement", "measured when more than half of the tries lie within max_spread of one another; the "
                + "value is their median");
        m.put("target_ticks", config.targetTicks());
        m.put("max_pages", config.maxPages());
        m.put("calibration_drift_limit", 0.02);
        m.put("initial_state", "GPRs 0x2324000, rsp=rbp 0x2324800, flags 0, MXCSR 0x9fc0 (FTZ, DAZ), fninit, "
                + "vector registers at full width = 32-bit lanes 0x3fc00000; every touched page mapped to one "
                + "physical page filled with the 64-bit value 0x2324000; all of it set again before every repetition");
        m.put("static_checks", config.staticChecks());
        return m;
    }

    /** A block's hex as the files key it: lower case, no spaces or {@code 0x} prefixes. */
    public static String canonical(String hex) {
        return hex.replaceAll("0[xX]|\\s", "").toLowerCase(java.util.Locale.ROOT);
    }

    /** One try's cycles per iteration and calibration. */
    record Try(double cycles, double ticksPerCycle) {
    }

    /**
     * A try's value from its rounds (the first discarded), or null when it cannot be trusted: fewer than four clean
     * rounds, a calibration that drifted by more than 2% between the two halves, or no positive difference.
     *
     * @param clockCycles the cycles one copy of the calibration chain takes
     */
    static Try evaluate(Harness.Run run, int[] unroll, double clockCycles) {
        int k = run.kept();
        if (k < 4) {
            return null;
        }
        double firstHalf = ratio(run, 1, 1 + (k - 1) / 2, clockCycles);
        double secondHalf = ratio(run, 1 + (k - 1) / 2, k, clockCycles);
        double ratio = ratio(run, 1, k, clockCycles);
        if (!(ratio > 0) || Math.abs(firstHalf - secondHalf) > 0.02 * ratio) {
            return null;
        }
        long small = min(run, 1, 1, k);
        long large = min(run, 3, 1, k);
        double ticksPerIteration = (double) (large - small) / ((unroll[1] - unroll[0]) * (double) run.blockRepetitions());
        double cycles = ticksPerIteration / ratio;
        return cycles > 0 ? new Try(cycles, ratio) : null;
    }

    private static double ratio(Harness.Run run, int from, int to, double clockCycles) {
        long small = min(run, 0, from, to);
        long large = min(run, 2, from, to);
        return (double) (large - small)
                / ((CALIBRATION_LARGE - CALIBRATION_SMALL) * clockCycles * (double) run.calibrationRepetitions());
    }

    private static long min(Harness.Run run, int slot, int from, int to) {
        long m = Long.MAX_VALUE;
        for (int r = from; r < to; r++) {
            m = Math.min(m, run.ticks()[4 * r + slot]);
        }
        return m;
    }

    static double median(List<Double> values) {
        double[] v = values.stream().mapToDouble(d -> d).sorted().toArray();
        int n = v.length;
        return n == 0 ? Double.NaN : n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    }

    /**
     * The largest set of values within {@code tolerance} (relative) of one another. A try disturbed from outside —
     * a busy sibling thread on the host, a slower clock for a millisecond — is off by 5% to 600% here while the
     * undisturbed ones agree within a few tenths of a percent; the median of all tries still leans towards the
     * disturbed ones when two of five are, the largest agreeing set does not.
     */
    static List<Double> agreeing(List<Double> values, double tolerance) {
        double[] v = values.stream().mapToDouble(d -> d).sorted().toArray();
        int bestFrom = 0;
        int bestTo = v.length == 0 ? 0 : 1;
        for (int from = 0, to = 0; from < v.length; from++) {
            while (to < v.length && v[to] <= v[from] * (1 + tolerance)) {
                to++;
            }
            if (to - from > bestTo - bestFrom) {
                bestFrom = from;
                bestTo = to;
            }
        }
        List<Double> out = new ArrayList<>();
        for (int i = bestFrom; i < bestTo; i++) {
            out.add(v[i]);
        }
        return out;
    }

    /** The interquartile range over the median (0 for one value). */
    static double spread(List<Double> values) {
        double[] v = values.stream().mapToDouble(d -> d).sorted().toArray();
        if (v.length < 2) {
            return 0;
        }
        double q1 = quantile(v, 0.25);
        double q3 = quantile(v, 0.75);
        return (q3 - q1) / median(values);
    }

    private static double quantile(double[] sorted, double q) {
        double pos = q * (sorted.length - 1);
        int lo = (int) Math.floor(pos);
        int hi = Math.min(sorted.length - 1, lo + 1);
        return sorted[lo] + (pos - lo) * (sorted[hi] - sorted[lo]);
    }

    @Override
    public void close() {
        harnesses.forEach(Harness::close);
    }

    @Override
    public String toString() {
        return "Measurer" + Arrays.asList(config, host);
    }
}
