package dev.basalt.simulator.firstgen;

import dev.basalt.simulator.params.RowSource;
import dev.basalt.simulator.params.Resolved;
import dev.basalt.decoder.BasicBlock;
import dev.basalt.decoder.Idiom;
import dev.basalt.decoder.Instruction;
import dev.basalt.simulator.params.PortGroups;
import dev.basalt.simulator.facts.RunModel;
import dev.basalt.simulator.facts.CpuContext;
import dev.basalt.simulator.facts.Sources;
import dev.basalt.simulator.facts.SteadyState;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The first, llvm-mca-compatible machine: a cycle-level, llvm-mca-style out-of-order core. The block repeated
 * {@code iterations} times goes through dispatch → wait for operands → issue to ports → execute → retire in order.
 *
 * <p>{@link #run} runs named stages over one state object, a {@code Run}. Its constructor is the setup: each
 * instruction's row (its form's, else its mnemonic's, else the generic one; every fallback is reported), its
 * sources and its port demands. Then each cycle, in this order: (1) {@code retire}, in program order, every
 * finished instruction at the head of the reorder buffer; (2) {@code issue}, oldest first, every dispatched
 * instruction whose sources are ready (each producer finished, less the consumer's read-advance) and whose port
 * demands can all be met this cycle — a port-group micro-op takes a free member port for one cycle (the least
 * used one, then the lowest), a divider stays busy for its cycles; the instruction finishes {@code latency}
 * cycles after issue; (3) {@code dispatch}, in program order, up to {@code dispatchWidth} micro-ops while the
 * reorder buffer and the scheduler have room (an instruction wider than the dispatch width takes several
 * cycles); then {@code tick} ends the cycle (and fails on a run far longer than any block takes). Zero idioms
 * use no port and finish at dispatch. Once whole iterations retire at periodic cycles, {@code retire} stops
 * the loop and extrapolates the rest ({@link SteadyState}). {@code result} gives the statistics: throughput =
 * cycles until the last instruction retires / iterations, port pressure and waiting per iteration.
 *
 * <p>With llvm-mca-14's tables and options ({@code simulator-default}) it is llvm-mca's model
 * ({@code LlvmMcaFidelityTest}). It is a package of its own, over the simulator's public facts: rows
 * ({@code Simulator.resolve}), port groups ({@link PortGroups}), sources ({@link Sources}) and the steady state
 * ({@link SteadyState}); {@code Simulator.run} hands it the runs of {@code Options.secondGeneration() == false}.
 */
public final class FirstGeneration {

    /** The port demands of a zero idiom: none. */
    private static final int[] NO_DEMAND = new int[0];

    private final CpuContext context;
    private final Run run;

    public FirstGeneration(CpuContext context, BasicBlock block, RunModel.Options options) {
        this.context = context;
        this.run = new Run(block, options);
    }

    /** The cycle loop: retire, issue, dispatch, tick, until every instance retired or the steady state is known. */
    public RunModel.Result run() {
        while (run.running()) {
            run.retire();
            if (run.extrapolated()) {
                break;
            }
            run.issue();
            run.dispatch();
            run.tick();
        }
        return run.result();
    }

    /** Whether every producer of instance {@code j} (instruction {@code i}) has finished, less the read-advance. */
    private static boolean ready(int j, int i, int n, int[] start, int[] prod, int readAdvance, long[] done,
                                 long now) {
        int iteration = j / n;
        for (int k = start[i]; k < start[i + 1]; k++) {
            int iter = iteration - prod[2 * k + 1];
            if (iter < 0) {
                continue; // the first iteration's loop-carried inputs are ready
            }
            long d = done[iter * n + prod[2 * k]];
            if (d == Long.MAX_VALUE || d - readAdvance > now) {
                return false;
            }
        }
        return true;
    }

    /**
     * One run's state, with the stages of the cycle loop as its methods (see the class description). A new
     * stage is a new method, called from {@link FirstGeneration#run}, and the fields it keeps.
     */
    private final class Run {

        private final BasicBlock block;
        private final RunModel.Options options;
        private final int n;
        private final int total;
        // Setup, per instruction of the block: its row's micro-ops (at least 1), latency and read-advance, zero
        // idiom or not, port demands, and producers (as in Sources: start[i] .. start[i + 1] index pairs in
        // producers).
        private final int[] uops;
        private final int[] latency;
        private final int[] readAdvance;
        private final boolean[] zeroIdiom;
        private final int[][] portDemand;
        private final int[] start;
        private final int[] producers;
        private final Map<String, RowSource> fallbacks = new LinkedHashMap<>();
        // Per instance j (instruction j % n of iteration j / n): cycles of dispatch, issue and done (-1 and
        // Long.MAX_VALUE until then).
        private final long[] dispatched;
        private final long[] issued;
        private final long[] done;
        // Ports: busy until, micro-ops taken (to pick the least used), busy cycles (statistics), and the
        // micro-ops the instruction being issued takes on each.
        private final long[] portFree = new long[context.ports().portCount()];
        private final long[] portUse = new long[context.ports().portCount()];
        private final long[] portBusy = new long[context.ports().portCount()];
        private final long[] taken = new long[context.ports().portCount()];
        // Dispatch: the scheduler's instances (oldest first), micro-ops in scheduler and reorder buffer.
        private final int[] scheduler;
        private int schedCount;
        private int schedUops;
        private int robUops;
        private int nextDispatch;
        private int dispatchedUopsOfCurrent;
        // Retire: each iteration's retire cycle (for the steady state), the timeline of the first instances.
        private int nextRetire;
        private final long[] iterationRetired;
        private final List<int[]> timeline = new ArrayList<>();
        private final int timelineSize;
        private long finalCycles = -1;
        private int simulatedIterations;
        private long now;

        /** Setup: resolves each instruction's row, its sources under {@code options} and its port demands. */
        Run(BasicBlock block, RunModel.Options options) {
            this.block = block;
            this.options = options;
            this.n = block.size();
            this.total = n * options.iterations();
            this.uops = new int[n];
            this.latency = new int[n];
            this.readAdvance = new int[n];
            this.zeroIdiom = new boolean[n];
            this.portDemand = new int[n][];
            for (int i = 0; i < n; i++) {
                Instruction insn = block.instruction(i);
                Resolved r = context.resolve(insn.form());
                if (r.source() != RowSource.FORM) {
                    fallbacks.put(insn.form(), r.source());
                }
                uops[i] = Math.max(1, r.row().uops());
                latency[i] = r.row().latency();
                readAdvance[i] = r.row().readAdvance();
                zeroIdiom[i] = insn.idiom() == Idiom.ZERO;
                portDemand[i] = zeroIdiom[i] ? NO_DEMAND : context.ports().demand(r.row()); // every row was precomputed
            }
            Sources src = Sources.of(block, options, Sources.stackOps(block));
            this.start = src.start();
            this.producers = src.producers();
            this.dispatched = new long[total];
            this.issued = new long[total];
            this.done = new long[total];
            Arrays.fill(issued, -1);
            Arrays.fill(done, Long.MAX_VALUE);
            this.scheduler = new int[Math.max(1, context.params().schedulerSize()) + total];
            this.iterationRetired = new long[options.iterations()];
            this.timelineSize = Math.min(total, 64);
            this.simulatedIterations = options.iterations();
        }

        /** Whether an instance is still to retire. */
        boolean running() {
            return nextRetire < total;
        }

        /** Whether the steady state was reached and the rest of the run extrapolated. */
        boolean extrapolated() {
            return finalCycles >= 0;
        }

        /**
         * (1) Retires, in program order, every finished instance at the head of the reorder buffer; stops at
         * the end of an iteration from which the steady state extrapolates the run.
         */
        void retire() {
            while (nextRetire < total && done[nextRetire] <= now && nextRetire < nextDispatch) {
                robUops -= uops[nextRetire % n];
                if (timeline.size() < timelineSize) {
                    timeline.add(new int[] {nextRetire, -1, -1, (int) dispatched[nextRetire],
                            (int) issued[nextRetire], (int) done[nextRetire], (int) now});
                }
                nextRetire++;
                if (nextRetire % n == 0 && iterationRetired(nextRetire / n - 1)) {
                    return;
                }
            }
        }

        /** Records that iteration {@code k} retired now; whether the steady state gives the run's end. */
        private boolean iterationRetired(int k) {
            iterationRetired[k] = now;
            long projected = SteadyState.steadyState(iterationRetired, k, options.iterations());
            if (projected < 0) {
                return false;
            }
            finalCycles = projected + 1;
            simulatedIterations = k + 1;
            return true;
        }

        /** (2) Issues, oldest first, every instance dispatched before this cycle whose sources and ports are ready. */
        void issue() {
            // The simulator's hottest loop: what it reads on every entry in locals, and ready and reserve given
            // arrays, not fields, keep it as fast as when the cycle loop was one method (some 15% faster).
            int[] scheduler = this.scheduler;
            long[] dispatched = this.dispatched;
            long[] done = this.done;
            long now = this.now;
            int n = this.n;
            int count = schedCount;
            int keep = 0;
            for (int s = 0; s < count; s++) {
                int j = scheduler[s];
                int i = j % n;
                if (dispatched[j] < now && ready(j, i, n, start, producers, readAdvance[i], done, now)
                        && context.ports().reserve(portDemand[i], portFree, portUse, portBusy, now, taken)) {
                    issued[j] = now;
                    done[j] = now + latency[i];
                    schedUops -= uops[i];
                } else {
                    scheduler[keep++] = j;
                }
            }
            schedCount = keep;
        }

        /**
         * (3) Dispatches, in program order, up to the dispatch width of micro-ops while the reorder buffer and
         * the scheduler have room; an instruction wider than what is left continues next cycle.
         */
        void dispatch() {
            int slots = context.params().dispatchWidth();
            while (nextDispatch < total && slots > 0) {
                int i = nextDispatch % n;
                if (dispatchedUopsOfCurrent == 0 && !fits(i)) {
                    break;
                }
                int take = Math.min(slots, uops[i] - dispatchedUopsOfCurrent);
                slots -= take;
                dispatchedUopsOfCurrent += take;
                if (dispatchedUopsOfCurrent < uops[i]) {
                    break; // the rest of this instruction's micro-ops go next cycle
                }
                dispatchedUopsOfCurrent = 0;
                enter(nextDispatch++, i);
            }
        }

        /** Whether instruction {@code i} fits; one with more micro-ops than a buffer holds goes into an empty one. */
        private boolean fits(int i) {
            boolean robFull = robUops > 0 && robUops + uops[i] > context.params().robSize();
            boolean schedulerFull = !zeroIdiom[i] && schedUops > 0 && schedUops + uops[i] > context.params().schedulerSize();
            return !robFull && !schedulerFull;
        }

        /** Puts dispatched instance {@code j} into the reorder buffer, and into the scheduler unless a zero idiom. */
        private void enter(int j, int i) {
            dispatched[j] = now;
            robUops += uops[i];
            if (zeroIdiom[i]) {
                issued[j] = now;
                done[j] = now;
            } else {
                scheduler[schedCount++] = j;
                schedUops += uops[i];
            }
        }

        /** Ends the cycle. */
        void tick() {
            now++;
            context.checkRunLength(now, total, block);
        }

        /** The statistics, per simulated iteration (all of them, or those up to the steady state). */
        RunModel.Result result() {
            long totalCycles = finalCycles >= 0 ? finalCycles : now;
            double iterations = simulatedIterations;
            double[] portCycles = new double[context.ports().portCount()];
            for (int p = 0; p < context.ports().portCount(); p++) {
                portCycles[p] = portBusy[p] / iterations;
            }
            double[] wait = new double[n];
            for (int j = 0; j < simulatedIterations * n; j++) {
                wait[j % n] += (issued[j] - dispatched[j]) / iterations;
            }
            return new RunModel.Result(totalCycles / (double) options.iterations(), totalCycles, portCycles, wait, fallbacks,
                    timeline);
        }
    }
}
