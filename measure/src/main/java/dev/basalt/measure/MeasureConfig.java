package dev.basalt.measure;

/**
 * How {@code basalt measure} measures; the defaults are what the README's figures were measured with.
 *
 * @param jobs            children measuring at once, each pinned to its own CPU
 * @param tscOnly         time with the time-stamp counter even where the kernel gives a core-cycle counter
 * @param seccomp         whether each child installs its system-call filter
 * @param rounds          timed rounds per try (BHive: 16), the first discarded
 * @param tries           tries per block, each with its own calibration; the block's value is their median
 * @param maxTries        tries at most, while no more than half of them agree
 * @param maxSpread       how far (relative) tries may be apart and still agree
 * @param targetTicks     timer ticks each difference of the two unrolls should last (the loop repeats to reach it)
 * @param maxPages        pages a block may touch before it is an error
 * @param maxCodeBytes    the large unroll's code is kept under this
 * @param timeLimitSeconds wall-clock seconds one try may take before its child is killed
 * @param staticChecks    whether blocks are checked before they run (off only in tests of the child's isolation)
 * @param clock           the calibration chain that converts timer ticks into cycles ({@link ClockChain})
 */
public record MeasureConfig(int jobs, boolean tscOnly, boolean seccomp, int rounds, int tries, int maxTries,
                            double maxSpread, long targetTicks, int maxPages, int maxCodeBytes, int timeLimitSeconds,
                            boolean staticChecks, ClockChain clock) {

    public MeasureConfig {
        check(jobs >= 1 && jobs <= 256, "jobs", jobs);
        check(rounds >= 4 && rounds <= 1000, "rounds", rounds);
        check(tries >= 1 && tries <= 100, "tries", tries);
        check(maxTries >= tries && maxTries <= 1000, "maxTries", maxTries);
        check(maxSpread > 0 && maxSpread < 1, "maxSpread", maxSpread);
        check(targetTicks >= 100 && targetTicks <= 100_000_000, "targetTicks", targetTicks);
        check(maxPages >= 1 && maxPages <= 65_536, "maxPages", maxPages);
        check(maxCodeBytes >= 256 && maxCodeBytes <= 4 << 20, "maxCodeBytes", maxCodeBytes);
        check(timeLimitSeconds >= 1 && timeLimitSeconds <= 3600, "timeLimitSeconds", timeLimitSeconds);
        check(clock != null, "clock", clock);
    }

    private static void check(boolean ok, String name, Object value) {
        if (!ok) {
            throw new IllegalArgumentException(name + " out of range: " + value);
        }
    }

    /** Both CPUs of a two-CPU machine (at most as many children as CPUs), timer chosen by the host. */
    public static MeasureConfig defaults() {
        int cpus = Math.max(1, Runtime.getRuntime().availableProcessors());
        return new MeasureConfig(cpus, false, true, 16, 5, 15, 0.02, 20_000, 1024, 16_384, 20, true,
                ClockChain.REGISTER_ADD);
    }

    public MeasureConfig withJobs(int n) {
        return new MeasureConfig(n, tscOnly, seccomp, rounds, tries, maxTries, maxSpread, targetTicks, maxPages,
                maxCodeBytes, timeLimitSeconds, staticChecks, clock);
    }

    public MeasureConfig withTscOnly(boolean tsc) {
        return new MeasureConfig(jobs, tsc, seccomp, rounds, tries, maxTries, maxSpread, targetTicks, maxPages,
                maxCodeBytes, timeLimitSeconds, staticChecks, clock);
    }

    public MeasureConfig withTries(int n, int most) {
        return new MeasureConfig(jobs, tscOnly, seccomp, rounds, n, most, maxSpread, targetTicks, maxPages,
                maxCodeBytes, timeLimitSeconds, staticChecks, clock);
    }

    public MeasureConfig withTimeLimitSeconds(int seconds) {
        return new MeasureConfig(jobs, tscOnly, seccomp, rounds, tries, maxTries, maxSpread, targetTicks, maxPages,
                maxCodeBytes, seconds, staticChecks, clock);
    }

    /**
     * With or without the checks before execution. Without them every block goes to the child as it is: for tests
     * that show what the child survives, never for users (the command line has no such option).
     */
    public MeasureConfig withStaticChecks(boolean on) {
        return new MeasureConfig(jobs, tscOnly, seccomp, rounds, tries, maxTries, maxSpread, targetTicks, maxPages,
                maxCodeBytes, timeLimitSeconds, on, clock);
    }

    /**
     * With another calibration chain. The default, {@code add rax, rcx}, is right on every x86-64 core Basalt knows;
     * another is for a host that folds it, or for a test that shows the clock check refusing a wrong one.
     */
    public MeasureConfig withClock(ClockChain chain) {
        return new MeasureConfig(jobs, tscOnly, seccomp, rounds, tries, maxTries, maxSpread, targetTicks, maxPages,
                maxCodeBytes, timeLimitSeconds, staticChecks, chain);
    }

    /** Copies in the large unroll at most. */
    static final int MAX_UNROLL = 1000;

    /**
     * The two unrolls for a block of {@code length} bytes: as many copies as fit in {@code maxCodeBytes}, at most
     * {@link #MAX_UNROLL}, the small one half the large. BHive's 100 and 200 leave the cost of starting and ending a
     * run a part of the result: a difference of two cycles between the two runs' overheads (the front end restarting
     * after the loop's branch) is 0.02 cycles a copy over 100 copies — 8% of a one-instruction block — and it moved
     * between 0.23, 0.25 and 0.27 from one run to the next here; over 500 copies it is 0.004. A block that moves rsp
     * by a constant gets no more copies than keep rsp in the stack window ({@code mostCopies}).
     */
    int[] unrolls(int length, int mostCopies) {
        int large = Math.max(2, Math.min(Math.min(MAX_UNROLL, mostCopies), maxCodeBytes / Math.max(1, length)));
        large -= large % 2;
        return new int[] {large / 2, large};
    }
}
