package dev.basalt.simulator;

import dev.basalt.decoder.BasicBlock;
import dev.basalt.decoder.Dependency;
import dev.basalt.decoder.DependencyKind;
import dev.basalt.decoder.Idiom;
import dev.basalt.decoder.Instruction;
import dev.basalt.decoder.Resource;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A cycle-level, llvm-mca-style out-of-order core: the block repeated {@code iterations} times goes through
 * dispatch → wait for operands → issue to ports → execute → retire in order.
 *
 * <p>Each cycle, in this order: (1) retire, in program order, every finished instruction at the head of the
 * reorder buffer; (2) issue, oldest first, every dispatched instruction whose sources are ready (each
 * producer finished, less the consumer's read-advance) and whose port demands can all be met this cycle —
 * a port-group micro-op takes a free member port for one cycle (the least used one, then the lowest), a
 * divider stays busy for its cycles; the instruction finishes {@code latency} cycles after issue;
 * (3) dispatch, in program order, up to {@code dispatchWidth} micro-ops while the reorder buffer and the
 * scheduler have room (an instruction wider than the dispatch width takes several cycles). Zero idioms use
 * no port and finish at dispatch. Throughput = cycles until the last instruction retires / iterations.
 *
 * <p>Sources come from the block's {@link dev.basalt.decoder.DependencyGraph} RAW edges (registers and flags,
 * and, when enabled, memory under the same-expression policy), loop-carried ones linking iteration
 * <i>k−1</i> to <i>k</i>. With the stack engine on, the {@code rsp} updates of push, pop, call and ret cost
 * nothing and create no dependency (uiCA models this; llvm-mca does not).
 *
 * <p>Deterministic; thread-safe (a run allocates its own state).
 */
public final class Simulator {

    private final SimulatorParams params;
    private final int portCount;
    // Port groups by name and by index; filled in the constructor and only read afterwards (final fields
    // publish them safely to every thread).
    private final Map<String, Integer> groupIds = new java.util.HashMap<>();
    private final List<int[]> groupList = new ArrayList<>();

    public Simulator(SimulatorParams params) {
        this.params = Objects.requireNonNull(params, "params");
        this.portCount = params.ports().size();
        // Hash maps for lookups (the table's own maps are sorted, for readable JSON) and port demands
        // precomputed for every row, so that a run does no string work beyond one lookup per instruction.
        this.forms = new java.util.HashMap<>(params.forms());
        this.mnemonics = new java.util.HashMap<>(params.mnemonics());
        this.demands = new java.util.IdentityHashMap<>();
        for (InstructionParams row : params.forms().values()) {
            demands.put(row, demandList(row));
        }
        for (InstructionParams row : params.mnemonics().values()) {
            demands.put(row, demandList(row));
        }
        demands.put(params.generic(), demandList(params.generic()));
    }

    private final Map<String, InstructionParams> forms;
    private final Map<String, InstructionParams> mnemonics;
    private final Map<InstructionParams, int[]> demands;

    /** The parameter table in use. */
    public SimulatorParams params() {
        return params;
    }

    /**
     * Run options.
     *
     * @param iterations         how many times the block is repeated
     * @param stackEngine        whether push/pop/call/ret rsp updates are free and dependency-free
     * @param memoryDependencies whether a load waits for an earlier store to the same address expression
     */
    public record Options(int iterations, boolean stackEngine, boolean memoryDependencies) {
        public Options {
            if (iterations < 1 || iterations > 100_000) {
                throw new IllegalArgumentException("iterations must be in 1..100000, got " + iterations);
            }
        }

        /** For predictions: 100 iterations, stack engine and memory dependencies on. */
        public static Options defaults() {
            return new Options(100, true, true);
        }

        /** As llvm-mca 14 runs by default: 100 iterations, no stack engine, loads never alias stores. */
        public static Options llvmMcaCompatible() {
            return new Options(100, false, false);
        }
    }

    /**
     * What a run produced.
     *
     * @param cyclesPerIteration total cycles / iterations
     * @param totalCycles        cycles until the last instruction retired
     * @param portCycles         busy cycles per port (same order as {@link SimulatorParams#ports()}) per iteration
     * @param waitCycles         per instruction of the block: average cycles from dispatch to issue
     * @param fallbacks          instruction forms that had no row of their own, with the row used
     *                           ("mnemonic" or "generic")
     * @param timeline           dispatch, issue, done and retire cycles of the first instances (for display)
     */
    public record Result(double cyclesPerIteration, long totalCycles, double[] portCycles, double[] waitCycles,
                         Map<String, String> fallbacks, List<int[]> timeline) {
    }

    /** The parameters a form resolves to, and from where ("form", "mnemonic" or "generic"). */
    public record Resolved(InstructionParams row, String source) {
    }

    /** Looks up an instruction form with the per-mnemonic and generic fallbacks. */
    public Resolved resolve(String form) {
        InstructionParams p = forms.get(form);
        if (p != null) {
            return new Resolved(p, "form");
        }
        p = mnemonics.get(mnemonicOf(form));
        if (p != null) {
            return new Resolved(p, "mnemonic");
        }
        return new Resolved(params.generic(), "generic");
    }

    /** The mnemonic of a form key, without prefixes: {@code LOCK CMPXCHG m64, r64} → {@code CMPXCHG}. */
    static String mnemonicOf(String form) {
        String[] words = form.split(" ");
        for (String w : words) {
            if (!w.equals("LOCK") && !w.equals("REP") && !w.equals("REPE") && !w.equals("REPNE")) {
                return w.endsWith(",") ? w.substring(0, w.length() - 1) : w;
            }
        }
        return form;
    }

    /**
     * The bottleneck of {@code block}: runs it, then compares what it measured with the three bounds — the
     * dispatch width, the busiest port, the loop-carried latency chain ({@link CriticalPath}) — and names the
     * largest (ties go to the chain, then ports: the more specific explanation).
     */
    public Bottleneck bottleneck(BasicBlock block, Options options) {
        Result r = run(block, options);
        int n = block.size();
        double uops = 0;
        float[] latency = new float[n];
        float[] readAdvance = new float[n];
        for (int i = 0; i < n; i++) {
            Instruction insn = block.instruction(i);
            InstructionParams row = resolve(insn.form()).row();
            boolean zero = insn.idiom() == Idiom.ZERO;
            uops += Math.max(1, row.uops());
            latency[i] = zero ? 0f : Math.max(0, row.latency());
            readAdvance[i] = Math.max(0, row.readAdvance());
        }
        double dispatch = uops / params.dispatchWidth();
        double port = 0;
        String busiest = "";
        double[] pc = r.portCycles();
        for (int p = 0; p < pc.length; p++) {
            if (pc[p] > port) {
                port = pc[p];
                busiest = params.ports().get(p);
            }
        }
        float[][] c = CriticalPath.coefficients(block, sources(block, options, stackOps(block)), latency, readAdvance);
        double chain = 0;
        List<Integer> onChain = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            chain += c[0][i] * latency[i] - c[1][i] * readAdvance[i];
            if (c[0][i] > 0) {
                onChain.add(i);
            }
        }
        Bottleneck.Kind kind = chain >= port && chain >= dispatch ? Bottleneck.Kind.DEPENDENCY_CHAIN
                : port >= dispatch ? Bottleneck.Kind.PORT_PRESSURE : Bottleneck.Kind.DISPATCH_WIDTH;
        return new Bottleneck(kind, r.cyclesPerIteration(), dispatch, port, busiest, Math.max(0, chain), onChain);
    }

    /** Simulates {@code block}. */
    public Result run(BasicBlock block, Options options) {
        int n = block.size();
        int total = n * options.iterations();
        // Per instruction of the block: parameters, port demands, producers.
        InstructionParams[] rows = new InstructionParams[n];
        Map<String, String> fallbacks = new LinkedHashMap<>();
        boolean[] zeroIdiom = new boolean[n];
        boolean[] stackOp = stackOps(block);
        for (int i = 0; i < n; i++) {
            Instruction insn = block.instruction(i);
            Resolved r = resolve(insn.form());
            rows[i] = r.row();
            if (!r.source().equals("form")) {
                fallbacks.put(insn.form(), r.source());
            }
            zeroIdiom[i] = insn.idiom() == Idiom.ZERO;
        }
        Sources src = sources(block, options, stackOp);
        int[] prodCount = src.start();
        int[] prod = src.producers();
        int[][] demands = new int[n][];
        for (int i = 0; i < n; i++) {
            int[] known = this.demands.get(rows[i]);
            demands[i] = zeroIdiom[i] ? new int[0] : known; // every resolvable row was precomputed
        }
        long[] dispatched = new long[total];
        long[] issued = new long[total];
        long[] done = new long[total];
        Arrays.fill(issued, -1);
        Arrays.fill(done, Long.MAX_VALUE);
        long[] portFree = new long[portCount];
        long[] portUse = new long[portCount];
        long[] portBusy = new long[portCount];
        long[] taken = new long[portCount];
        int width = params.dispatchWidth();
        int[] scheduler = new int[Math.max(1, params.schedulerSize()) + total];
        int schedCount = 0;
        int schedUops = 0;
        int robUops = 0;
        int nextDispatch = 0;
        int nextRetire = 0;
        int dispatchedUopsOfCurrent = 0;
        long now = 0;
        List<int[]> timeline = new ArrayList<>();
        long guard = 0;
        long[] iterationRetired = new long[options.iterations()];
        long finalCycles = -1;
        int simulatedIterations = options.iterations();
        while (nextRetire < total) {
            // (1) retire
            while (nextRetire < total && done[nextRetire] <= now && nextRetire < nextDispatch) {
                robUops -= Math.max(1, rows[nextRetire % n].uops());
                if (timeline.size() < Math.min(total, 64)) {
                    timeline.add(new int[] {nextRetire, (int) dispatched[nextRetire], (int) issued[nextRetire],
                            (int) done[nextRetire], (int) now});
                }
                nextRetire++;
                if (nextRetire % n == 0) {
                    int k = nextRetire / n - 1;
                    iterationRetired[k] = now;
                    long projected = steadyState(iterationRetired, k, options.iterations());
                    if (projected >= 0) {
                        finalCycles = projected + 1;
                        simulatedIterations = k + 1;
                        break;
                    }
                }
            }
            if (finalCycles >= 0) {
                break;
            }
            // (2) issue, oldest first
            int keep = 0;
            for (int s = 0; s < schedCount; s++) {
                int j = scheduler[s];
                int i = j % n;
                if (dispatched[j] < now && ready(j, i, n, prodCount, prod, rows[i].readAdvance(), done, now)
                        && reserve(demands[i], portFree, portUse, portBusy, now, taken)) {
                    issued[j] = now;
                    done[j] = now + rows[i].latency();
                    schedUops -= Math.max(1, rows[i].uops());
                } else {
                    scheduler[keep++] = j;
                }
            }
            schedCount = keep;
            // (3) dispatch, in order
            int slots = width;
            while (nextDispatch < total && slots > 0) {
                int i = nextDispatch % n;
                int uops = Math.max(1, rows[i].uops());
                int remaining = uops - dispatchedUopsOfCurrent;
                // An instruction with more micro-ops than the buffer holds still goes into an empty one.
                if (dispatchedUopsOfCurrent == 0 && ((robUops > 0 && robUops + uops > params.robSize())
                        || (!zeroIdiom[i] && schedUops > 0 && schedUops + uops > params.schedulerSize()))) {
                    break;
                }
                int take = Math.min(slots, remaining);
                slots -= take;
                dispatchedUopsOfCurrent += take;
                if (dispatchedUopsOfCurrent < uops) {
                    break; // the rest of this instruction's micro-ops go next cycle
                }
                dispatchedUopsOfCurrent = 0;
                dispatched[nextDispatch] = now;
                robUops += uops;
                if (zeroIdiom[i]) {
                    issued[nextDispatch] = now;
                    done[nextDispatch] = now;
                } else {
                    scheduler[schedCount++] = nextDispatch;
                    schedUops += uops;
                }
                nextDispatch++;
            }
            now++;
            if (++guard > 1000L * total + 100_000L) { // no instruction takes 1,000 cycles: a bug, not a block
                throw new IllegalStateException("simulation of " + block.hex() + " did not finish");
            }
        }
        long totalCycles = finalCycles >= 0 ? finalCycles : now;
        double iterations = simulatedIterations; // statistics are per simulated iteration
        double[] portCycles = new double[portCount];
        for (int p = 0; p < portCount; p++) {
            portCycles[p] = portBusy[p] / iterations;
        }
        double[] wait = new double[n];
        for (int j = 0; j < simulatedIterations * n; j++) {
            wait[j % n] += (issued[j] - dispatched[j]) / iterations;
        }
        return new Result(totalCycles / (double) options.iterations(), totalCycles, portCycles, wait, fallbacks,
                timeline);
    }

    /**
     * Each instruction's producers, flattened: for instruction i, pairs (producer, loop-carried 0/1) at
     * {@code producers[2k], producers[2k+1]} for k in {@code start[i] .. start[i+1]}.
     */
    public record Sources(int[] start, int[] producers) {
    }

    /** The RAW sources the simulator waits for under {@code options} (what the surrogate's latency chain uses). */
    public static Sources sources(BasicBlock block, Options options) {
        return sources(block, options, stackOps(block));
    }

    /** Whether each instruction is a push, pop, call or ret (whose rsp update the stack engine absorbs). */
    static boolean[] stackOps(BasicBlock block) {
        boolean[] stackOp = new boolean[block.size()];
        for (int i = 0; i < stackOp.length; i++) {
            String m = block.instruction(i).mnemonic();
            stackOp[i] = m.equals("push") || m.equals("pop") || m.equals("call") || m.equals("ret");
        }
        return stackOp;
    }

    /** The RAW sources the simulator waits for under {@code options}. */
    static Sources sources(BasicBlock block, Options options, boolean[] stackOp) {
        int n = block.size();
        int[] prodCount = new int[n + 1];
        List<Dependency> sources = new ArrayList<>();
        for (Dependency d : block.dependencyGraph().edges()) {
            if (d.kind() != DependencyKind.RAW) {
                continue;
            }
            if (d.resource().kind() == Resource.Kind.MEMORY && !options.memoryDependencies()) {
                continue;
            }
            if (options.stackEngine() && d.resource().name().equals("rsp") && stackOp[d.producer()]) {
                continue;
            }
            sources.add(d);
            prodCount[d.consumer() + 1]++;
        }
        for (int i = 0; i < n; i++) {
            prodCount[i + 1] += prodCount[i];
        }
        int[] prod = new int[2 * sources.size()];
        int[] fill = Arrays.copyOf(prodCount, n);
        for (Dependency d : sources) {
            int at = fill[d.consumer()]++;
            prod[2 * at] = d.producer();
            prod[2 * at + 1] = d.loopCarried() ? 1 : 0;
        }
        return new Sources(prodCount, prod);
    }

    /**
     * Once the core is in a steady state, the rest of the run is known: if the last iterations retired at
     * exactly periodic times (period W ≤ 8 iterations, the same cycle delta over consecutive windows spanning
     * at least 24 iterations), the retire cycle of the final iteration is extrapolated and the run
     * stops early. Returns that cycle, or -1 to keep simulating. The result equals a full run whenever the
     * schedule is truly periodic, which it is once buffers and ports have settled.
     */
    private static long steadyState(long[] retired, int k, int iterations) {
        int last = iterations - 1;
        if (k < 24 || k >= last) {
            return -1;
        }
        for (int w = 1; w <= 8; w++) {
            int windows = Math.max(3, (24 + w - 1) / w); // at least 24 iterations agree, whatever the period
            if (k < windows * w) {
                break;
            }
            long d = retired[k] - retired[k - w];
            boolean periodic = true;
            for (int m = 1; m < windows && periodic; m++) {
                periodic = retired[k - m * w] - retired[k - (m + 1) * w] == d;
            }
            if (periodic) {
                int anchor = k - ((k - last % w + w) % w); // the iteration <= k congruent to the last mod w
                return retired[anchor] + (long) ((last - anchor) / w) * d;
            }
        }
        return -1;
    }

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

    /** Port demands as a flat list: for each micro-op, a group index; dividers encoded as -(cycles + 1) pairs. */
    private int[] demandList(InstructionParams row) {
        List<Integer> out = new ArrayList<>();
        for (Map.Entry<String, Integer> e : row.ports().entrySet()) {
            int[] members = membersOf(e.getKey());
            if (members.length == 0) {
                continue;
            }
            if (e.getKey().endsWith("Divider")) {
                out.add(-(members[0] + 1));
                out.add(e.getValue());
            } else {
                for (int k = 0; k < e.getValue(); k++) {
                    out.add(groupIndex(e.getKey()));
                }
            }
        }
        return out.stream().mapToInt(Integer::intValue).toArray();
    }

    private int groupIndex(String group) {
        return groupIds.computeIfAbsent(group, g -> {
            groupList.add(membersOf(g));
            return groupList.size() - 1;
        });
    }

    /** Port indices of a group name: "0156" → ports 0, 1, 5, 6; "Divider" → the divider. */
    private int[] membersOf(String group) {
        List<String> ports = params.ports();
        if (group.endsWith("Divider")) {
            int idx = ports.indexOf(group);
            return idx < 0 ? new int[0] : new int[] {idx};
        }
        List<Integer> m = new ArrayList<>();
        for (char c : group.toCharArray()) {
            int idx = ports.indexOf(String.valueOf(c));
            if (idx >= 0) {
                m.add(idx);
            }
        }
        return m.stream().mapToInt(Integer::intValue).toArray();
    }

    /**
     * Reserves every demand this cycle, or nothing. A group micro-op takes a member port that is free now,
     * preferring one not yet taken by this instruction, then the least used; when an instruction has more
     * micro-ops on a group than it has free members, a port takes several and stays busy that many cycles.
     */
    private boolean reserve(int[] demand, long[] portFree, long[] portUse, long[] portBusy, long now, long[] taken) {
        if (demand.length == 0) {
            return true;
        }
        Arrays.fill(taken, 0);
        for (int k = 0; k < demand.length; k++) {
            int d = demand[k];
            if (d < 0) {
                int port = -d - 1;
                if (portFree[port] > now) {
                    return false;
                }
                taken[port] += demand[++k];
                continue;
            }
            int best = -1;
            for (int port : groupList.get(d)) {
                if (portFree[port] > now) {
                    continue;
                }
                if (best < 0 || taken[port] < taken[best]
                        || (taken[port] == taken[best] && portUse[port] < portUse[best])) {
                    best = port;
                }
            }
            if (best < 0) {
                return false;
            }
            taken[best]++;
        }
        for (int p = 0; p < portCount; p++) {
            if (taken[p] > 0) {
                portFree[p] = now + taken[p];
                portUse[p] += taken[p];
                portBusy[p] += taken[p];
            }
        }
        return true;
    }
}
