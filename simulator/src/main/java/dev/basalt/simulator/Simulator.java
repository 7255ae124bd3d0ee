package dev.basalt.simulator;

import dev.basalt.decoder.BasicBlock;
import dev.basalt.decoder.Idiom;
import dev.basalt.decoder.Instruction;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Set;
import java.util.Map;
import java.util.Objects;

/**
 * A cycle-level, llvm-mca-style out-of-order core: the block repeated {@code iterations} times goes through
 * dispatch → wait for operands → issue to ports → execute → retire in order.
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
 * <p>What an instruction waits for is its {@link Sources}. With the stack engine on, the {@code rsp} updates of
 * push, pop, call and ret cost nothing and create no dependency (uiCA models this; llvm-mca does not).
 *
 * <p>Deterministic; thread-safe (a run allocates its own state).
 */
public final class Simulator {

    /** The port demands of a zero idiom: none. */
    private static final int[] NO_DEMAND = new int[0];

    private final SimulatorParams params;
    private final PortGroups ports;

    public Simulator(SimulatorParams params) {
        this(params, new InstructionFacts.Cache());
    }

    /**
     * A simulator of {@code cpu} sharing its encodings' facts with others' ({@link EncodingFacts}): an estimator's
     * simulators, one per CPU, compute what the bytes say once; its facts also say whether {@code cpu} runs each
     * instruction ({@link InstructionFacts#runs()}).
     */
    Simulator(SimulatorParams params, EncodingFacts.Cache encodings, dev.basalt.core.Microarchitecture cpu) {
        this(params, new InstructionFacts.Cache(encodings, cpu));
    }

    /** A simulator keeping its per-instruction facts in {@code facts} (tests bound it tightly). */
    Simulator(SimulatorParams params, InstructionFacts.Cache facts) {
        this.facts = facts;
        this.params = Objects.requireNonNull(params, "params");
        this.falseOutput = params.core().falseOutputDependencies().stream()
                .map(m -> m.toLowerCase(java.util.Locale.ROOT)).collect(java.util.stream.Collectors.toUnmodifiableSet());
        // Hash maps for lookups (the table's own maps are sorted, for readable JSON) and port demands
        // precomputed for every row, so that a run does no string work beyond one lookup per instruction.
        this.forms = new java.util.HashMap<>(params.forms());
        this.mnemonics = new java.util.HashMap<>(params.mnemonics());
        this.ports = new PortGroups(params);
    }

    private final Map<String, InstructionParams> forms;
    private final Map<String, InstructionParams> mnemonics;
    // Each thread's reusable arrays for the second machine's runs (a run is single-threaded and not nested).
    private final ThreadLocal<Pipeline.Scratch> scratch = ThreadLocal.withInitial(Pipeline.Scratch::new);
    private final InstructionFacts.Cache facts;
    /** {@link CoreParams#falseOutputDependencies()} as the decoder's (lower-case) mnemonics. */
    private final Set<String> falseOutput;

    /** Per-instruction facts of the second machine, kept by decoding. */
    Set<String> falseOutput() {
        return falseOutput;
    }

    InstructionFacts.Cache facts() {
        return facts;
    }

    /** The parameter table in use. */
    public SimulatorParams params() {
        return params;
    }

    /** The CPU's ports and port groups, and each row's port demands. */
    PortGroups ports() {
        return ports;
    }

    /**
     * Run options. The five mechanisms of the second-generation machine (DESIGN.md §11) can each be turned off;
     * with all of them off and {@code secondGeneration} false the run is the first, llvm-mca-like machine.
     *
     * @param iterations         how many times the block is repeated
     * @param stackEngine        whether push/pop/call/ret rsp updates are free and dependency-free
     * @param memoryDependencies whether a load waits for an earlier store to the same address expression
     * @param secondGeneration   whether the machine has a renamer issuing fused micro-ops and retirement of
     *                           {@link CoreParams} (false: llvm-mca's dispatch width, unfused micro-ops, and
     *                           each switch below ignored)
     * @param frontEnd           predecoder, instruction queue, decoders, microcode sequencer and micro-op queue
     *                           (false: the renamer never waits for instructions — {@code --simple-front-end})
     * @param microFusion        load+operation and store address+data as one fused micro-op
     *                           ({@code --no-micro-fusion})
     * @param moveElimination    register moves renamed away when a slot is free ({@code --no-move-elimination})
     * @param issueTimePorts     ports bound at issue by the least-loaded rule (false: any free port at execution,
     *                           {@code --execute-time-ports})
     * @param storeForwarding    a load of a stored address gets the data by forwarding, {@link
     *                           CoreParams#storeForwardLatency()} after the store's data is ready
     *                           ({@code --no-store-forwarding}: the load waits for the store, then its own latency)
     */
    public record Options(int iterations, boolean stackEngine, boolean memoryDependencies, boolean secondGeneration,
                          boolean frontEnd, boolean microFusion, boolean moveElimination, boolean issueTimePorts,
                          boolean storeForwarding, LoopMode loopMode) {
        public Options {
            if (iterations < 1 || iterations > 100_000) {
                throw new IllegalArgumentException("iterations must be in 1..100000, got " + iterations);
            }
            loopMode = loopMode == null ? LoopMode.AUTO : loopMode;
        }

        /** Every switch given, loop mode {@link LoopMode#AUTO}. */
        public Options(int iterations, boolean stackEngine, boolean memoryDependencies, boolean secondGeneration,
                       boolean frontEnd, boolean microFusion, boolean moveElimination, boolean issueTimePorts,
                       boolean storeForwarding) {
            this(iterations, stackEngine, memoryDependencies, secondGeneration, frontEnd, microFusion, moveElimination,
                    issueTimePorts, storeForwarding, LoopMode.AUTO);
        }

        /** These options with another loop mode. */
        public Options withLoopMode(LoopMode mode) {
            return new Options(iterations, stackEngine, memoryDependencies, secondGeneration, frontEnd, microFusion,
                    moveElimination, issueTimePorts, storeForwarding, mode);
        }

        /** The second-generation machine with every mechanism on. */
        public Options(int iterations, boolean stackEngine, boolean memoryDependencies) {
            this(iterations, stackEngine, memoryDependencies, true, true, true, true, true, true);
        }

        /** For predictions: 100 iterations, stack engine, memory dependencies and every §11 mechanism on. */
        public static Options defaults() {
            return new Options(100, true, true);
        }

        /** As llvm-mca 14 runs by default: 100 iterations, the first machine, loads never alias stores. */
        public static Options llvmMcaCompatible() {
            return new Options(100, false, false, false, false, false, false, false, false);
        }

        /** These options with another iteration count. */
        public Options withIterations(int iterations) {
            return new Options(iterations, stackEngine, memoryDependencies, secondGeneration, frontEnd, microFusion,
                    moveElimination, issueTimePorts, storeForwarding, loopMode);
        }

        /** These options with the named mechanisms off (as the command line's switches say). */
        public Options without(boolean frontEnd, boolean microFusion, boolean moveElimination, boolean issueTimePorts,
                               boolean storeForwarding) {
            return new Options(iterations, stackEngine, memoryDependencies, secondGeneration,
                    this.frontEnd && !frontEnd, this.microFusion && !microFusion,
                    this.moveElimination && !moveElimination, this.issueTimePorts && !issueTimePorts,
                    this.storeForwarding && !storeForwarding, loopMode);
        }
    }

    /**
     * How a block runs (DESIGN.md §12): as a loop body whose last instruction branches back to its start, taken
     * every iteration, or as BHive's straight-line code, unrolled back to back. {@code AUTO} runs a block that
     * ends in a branch to its own start as a loop, any other block unrolled.
     */
    public enum LoopMode {
        AUTO, LOOP, UNROLL
    }

    /**
     * Where a block's micro-ops come from: the legacy decoders (always, for straight-line code), the decoded
     * micro-op cache (DSB) or the loop stream detector (LSD).
     */
    public enum UopSource {
        LEGACY, DSB, LSD
    }

    /**
     * Whether {@code block} runs as a loop under {@code options} (always false on the first machine, which has no
     * front end).
     *
     * @throws IllegalArgumentException for {@link LoopMode#LOOP} when the block does not end in a jump
     */
    public static boolean runsAsLoop(BasicBlock block, Options options) {
        if (!options.secondGeneration()) {
            return false;
        }
        return switch (options.loopMode()) {
            case UNROLL -> false;
            case AUTO -> branchesBackToStart(block);
            case LOOP -> {
                if (!endsInJump(block)) {
                    throw new IllegalArgumentException("loop mode: the block does not end in a jump back to its "
                            + "start (its last instruction is " + block.instruction(block.size() - 1).form() + ")");
                }
                yield true;
            }
        };
    }

    /**
     * Refuses a block that {@link LoopMode#LOOP} cannot run (it does not end in a jump), as a block the
     * estimator cannot predict.
     */
    static void checkLoopMode(BasicBlock block, Options options) {
        if (options.loopMode() == LoopMode.LOOP && options.secondGeneration() && !endsInJump(block)) {
            throw new dev.basalt.core.UnpredictableBlockException(LOOP_MODE_REFUSAL);
        }
    }

    /** Why {@link LoopMode#LOOP} refuses a block. */
    public static final String LOOP_MODE_REFUSAL = "--mode loop: the block does not end in a jump back to its start";

    /** Whether the last instruction is a relative jump, conditional or not. */
    public static boolean endsInJump(BasicBlock block) {
        Instruction last = block.instruction(block.size() - 1);
        String m = last.mnemonic();
        if (!m.startsWith("j") && !m.startsWith("loop")) {
            return false;
        }
        for (int oi = 0, on = last.operands().size(); oi < on; oi++) {
            dev.basalt.decoder.Operand op = last.operands().get(oi); // indexed: C1 allocates an iterator per loop
            if (op instanceof dev.basalt.decoder.Operand.ImmediateOperand imm && imm.relative()) {
                return true;
            }
        }
        return false;
    }

    /** Whether the last instruction is a relative jump whose target is the block's first byte. */
    static boolean branchesBackToStart(BasicBlock block) {
        if (!endsInJump(block)) {
            return false;
        }
        Instruction last = block.instruction(block.size() - 1);
        for (int oi = 0, on = last.operands().size(); oi < on; oi++) {
            dev.basalt.decoder.Operand op = last.operands().get(oi); // indexed: C1 allocates an iterator per loop
            if (op instanceof dev.basalt.decoder.Operand.ImmediateOperand imm && imm.relative()) {
                return last.offset() + last.length() + imm.value() == 0;
            }
        }
        return false;
    }

    /**
     * What a run produced.
     *
     * @param cyclesPerIteration total cycles / iterations
     * @param totalCycles        cycles until the last instruction retired
     * @param portCycles         busy cycles per port (same order as {@link SimulatorParams#ports()}) per iteration
     * @param waitCycles         per instruction of the block: average cycles from dispatch to issue
     * @param fallbacks          instruction forms that had no row of their own, with where the row used came
     *                           from ({@link RowSource#MNEMONIC} or {@link RowSource#GENERIC})
     * @param timeline           for the first instances: instance, then the cycles of predecode, decode, dispatch
     *                           (rename), issue (to a port), done and retire; -1 where the machine has no such
     *                           stage (the first machine has no front end)
     */
    public record Result(double cyclesPerIteration, long totalCycles, double[] portCycles, double[] waitCycles,
                         Map<String, RowSource> fallbacks, List<int[]> timeline) {
    }

    /** Where the row an instruction form resolves to comes from. */
    public enum RowSource {
        /** The form's own row in {@link SimulatorParams#forms()}. */
        FORM,
        /** The row of the form's mnemonic in {@link SimulatorParams#mnemonics()}: the form has no row. */
        MNEMONIC,
        /** {@link SimulatorParams#generic()}: neither the form nor its mnemonic has a row. */
        GENERIC;

        /** The lower-case word, as {@code basalt simulate} prints it: {@code generic} for {@link #GENERIC}. */
        @Override
        public String toString() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /** The parameters a form resolves to, and where they come from. */
    public record Resolved(InstructionParams row, RowSource source) {
    }

    /** Looks up an instruction form with the per-mnemonic and generic fallbacks. */
    public Resolved resolve(String form) {
        InstructionParams p = forms.get(form);
        if (p != null) {
            return new Resolved(p, RowSource.FORM);
        }
        p = mnemonics.get(mnemonicOf(form));
        if (p != null) {
            return new Resolved(p, RowSource.MNEMONIC);
        }
        return new Resolved(params.generic(), RowSource.GENERIC);
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
     * The bottleneck of {@code block}: runs it, then compares what it measured with the bounds — the front end
     * alone (the second-generation machine with an ideal back end; 0 without a front end), the issue (dispatch)
     * width, the busiest port, the loop-carried latency chain ({@link CriticalPath}) — and names the largest
     * (ties go to the chain, then ports, then the issue width: the more specific explanation).
     */
    public Bottleneck bottleneck(BasicBlock block, Options options) {
        Result r = run(block, options);
        int n = block.size();
        double uops = 0;
        float[] latency = new float[n];
        float[] readAdvance = new float[n];
        boolean[] stackOp = Sources.stackOps(block);
        boolean second = options.secondGeneration();
        List<int[]> portDemands = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Instruction insn = block.instruction(i);
            InstructionParams row = resolve(insn.form()).row();
            boolean zero = insn.idiom() == Idiom.ZERO;
            if (second) {
                int[] ops = microOps(insn, row, stackOp[i], options);
                InstructionShape shape = shapeOf(insn, row, ops, options);
                uops += shape.issueUops();
                if (!shape.noPort() && shape.moveRegisterFile() == 0) {
                    portDemands.add(ops);
                }
            } else {
                uops += Math.max(1, row.uops());
            }
            latency[i] = zero ? 0f : Math.max(0, row.latency());
            readAdvance[i] = Math.max(0, row.readAdvance());
        }
        double dispatch = uops / (second ? params.core().issueWidth() : params.dispatchWidth());
        double frontEnd = frontEndBound(block, options);
        double port = 0;
        String busiest = "";
        double[] pc = second ? balancedPortLoad(portDemands) : r.portCycles();
        for (int p = 0; p < pc.length; p++) {
            if (pc[p] > port) {
                port = pc[p];
                busiest = params.ports().get(p);
            }
        }
        float[][] c = CriticalPath.coefficients(block, Sources.of(block, options, stackOp, null, falseOutput), latency,
                readAdvance);
        double chain = 0;
        List<Integer> onChain = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            chain += c[0][i] * latency[i] - c[1][i] * readAdvance[i];
            if (c[0][i] > 0) {
                onChain.add(i);
            }
        }
        double top = Math.max(Math.max(chain, port), Math.max(dispatch, frontEnd));
        Bottleneck.Kind kind = chain >= top ? Bottleneck.Kind.DEPENDENCY_CHAIN
                : port >= top ? Bottleneck.Kind.PORT_PRESSURE
                : dispatch >= top ? Bottleneck.Kind.DISPATCH_WIDTH : Bottleneck.Kind.FRONT_END;
        return new Bottleneck(kind, r.cyclesPerIteration(), frontEnd, dispatch, port, busiest, Math.max(0, chain),
                onChain);
    }

    /**
     * The analytical bounds of {@code block} on the second machine under {@code options} ({@link Bounds}): no
     * cycle loop; the machine itself never runs faster than any of them.
     */
    public Bounds bounds(BasicBlock block, Options options) {
        if (!options.secondGeneration()) {
            throw new IllegalArgumentException("bounds are those of the second machine: options " + options);
        }
        return Bounds.of(new BlockFacts(this, block, options));
    }

    /**
     * How the front end runs a block (DESIGN.md §12).
     *
     * @param loop       whether it runs as a loop (else unrolled, as BHive's straight-line code)
     * @param source     where its micro-ops come from
     * @param fusedPairs the macro-fused pairs, each as the index of its flag-setting instruction
     */
    public record FrontEnd(boolean loop, UopSource source, List<Integer> fusedPairs) {
        public FrontEnd {
            fusedPairs = List.copyOf(fusedPairs);
        }

        /** {@code loop, micro-ops from the loop stream detector; macro-fused 2+3} and the like. */
        public String describe() {
            String s = loop ? "loop, micro-ops from " + switch (source) {
                case LSD -> "the loop stream detector (LSD)";
                case DSB -> "the micro-op cache (DSB)";
                case LEGACY -> "the legacy decoders";
            } : "unrolled (straight-line code)";
            return fusedPairs.isEmpty() ? s : s + "; macro-fused " + fusedPairs.stream()
                    .map(i -> i + "+" + (i + 1)).collect(java.util.stream.Collectors.joining(", "));
        }
    }

    /** How the front end runs {@code block} under {@code options}: loop or not, micro-op source, fused pairs. */
    public FrontEnd frontEnd(BasicBlock block, Options options) {
        if (!options.secondGeneration()) {
            return new FrontEnd(false, UopSource.LEGACY, List.of());
        }
        BlockFacts f = new BlockFacts(this, block, options);
        return new FrontEnd(f.loop, f.source, f.fusedPairs());
    }

    /**
     * Each port's cycles per iteration when the micro-ops are spread as evenly as their port sets allow (those
     * with the fewest choices first, each raising its least loaded ports to a common level; micro-ops split
     * across iterations, so six on four ports are 1.5 each): the port bound of the second machine,
     * whose own binding at issue is not always balanced.
     */
    private double[] balancedPortLoad(List<int[]> demandLists) {
        double[] load = new double[ports.portCount()];
        List<int[]> groups = new ArrayList<>();
        for (int[] d : demandLists) {
            for (int k = 0; k < d.length; k++) {
                if (d[k] < 0) {
                    load[-d[k] - 1] += d[++k];
                } else {
                    groups.add(ports.members(d[k]));
                }
            }
        }
        groups.sort(java.util.Comparator.comparingInt(g -> g.length));
        for (int[] members : groups) { // water-filling: raise the least loaded members to a common level
            double[] levels = new double[members.length];
            for (int k = 0; k < members.length; k++) {
                levels[k] = load[members[k]];
            }
            Arrays.sort(levels);
            double level = levels[0] + 1;
            for (int k = 1; k <= members.length; k++) {
                double sum = 0;
                for (int m = 0; m < k; m++) {
                    sum += levels[m];
                }
                level = (sum + 1) / k;
                if (k == members.length || level <= levels[k]) {
                    break;
                }
            }
            for (int p : members) {
                load[p] = Math.max(load[p], level);
            }
        }
        return load;
    }

    /**
     * Whether {@code insn} takes neither port nor latency under {@code options}: a zero idiom, and on the second
     * machine also a NOP and (with move elimination) an eliminable register move — as long as elimination slots
     * last, which an analytical bound does not see.
     */
    public static boolean noExecution(Instruction insn, Options options) {
        if (insn.idiom() == Idiom.ZERO) {
            return true;
        }
        return options.secondGeneration() && (insn.mnemonic().equals("nop")
                || options.moveElimination() && InstructionShape.moveRegisterFile(insn) > 0);
    }

    /**
     * The issue bound of the second machine: fused micro-ops per iteration at the renamer ÷ its issue width (the
     * dispatch bound of {@link #bottleneck} without running the block).
     */
    public double issueBound(BasicBlock block, Options options) {
        boolean[] stackOp = Sources.stackOps(block);
        double slots = 0;
        for (int i = 0; i < block.size(); i++) {
            Instruction insn = block.instruction(i);
            InstructionParams row = resolve(insn.form()).row();
            slots += shapeOf(insn, row, microOps(insn, row, stackOp[i], options), options).issueUops();
        }
        return slots / params.core().issueWidth();
    }

    /** {@link #microOps} of {@code insn} with row {@code row}: its loads, its store, the stack engine's update. */
    int[] microOps(Instruction insn, InstructionParams row, boolean stackOp, Options options) {
        return ports.microOps(row, InstructionShape.loads(insn), InstructionShape.stores(insn),
                options.stackEngine() && stackOp);
    }

    /** The second machine's shape of {@code insn}, whose micro-ops are {@code ops}. */
    InstructionShape shapeOf(Instruction insn, InstructionParams row, int[] ops, Options options) {
        return InstructionShape.of(insn, row, Math.max(1, portMicroOps(ops)), params.core(), options.microFusion(),
                options.moveElimination());
    }

    /** Micro-ops of a demand list that take a port slot (a divider pair counts none). */
    static int portMicroOps(int[] demand) {
        int count = 0;
        for (int k = 0; k < demand.length; k++) {
            if (demand[k] < 0) {
                k++;
            } else {
                count++;
            }
        }
        return count;
    }

    /**
     * Cycles per iteration the front end alone needs for {@code block} (the second machine with an ideal back
     * end): the front-end bound of {@link #bottleneck}, 0 when {@code options} model no front end.
     */
    public double frontEndBound(BasicBlock block, Options options) {
        return options.secondGeneration() && options.frontEnd()
                ? new Pipeline(this, block, options, true, scratch.get()).run().cyclesPerIteration() : 0;
    }

    /** Simulates {@code block}: the cycle loop of the class description over one {@code Run}. */
    public Result run(BasicBlock block, Options options) {
        if (options.secondGeneration()) {
            return new Pipeline(this, block, options, false, scratch.get()).run();
        }
        Run run = new Run(block, options);
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
     * stage is a new method, called from {@link Simulator#run}, and the fields it keeps.
     */
    private final class Run {

        private final BasicBlock block;
        private final Options options;
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
        private final long[] portFree = new long[ports.portCount()];
        private final long[] portUse = new long[ports.portCount()];
        private final long[] portBusy = new long[ports.portCount()];
        private final long[] taken = new long[ports.portCount()];
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
        Run(BasicBlock block, Options options) {
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
                Resolved r = resolve(insn.form());
                if (r.source() != RowSource.FORM) {
                    fallbacks.put(insn.form(), r.source());
                }
                uops[i] = Math.max(1, r.row().uops());
                latency[i] = r.row().latency();
                readAdvance[i] = r.row().readAdvance();
                zeroIdiom[i] = insn.idiom() == Idiom.ZERO;
                portDemand[i] = zeroIdiom[i] ? NO_DEMAND : ports.demand(r.row()); // every row was precomputed
            }
            Sources src = Sources.of(block, options, Sources.stackOps(block));
            this.start = src.start();
            this.producers = src.producers();
            this.dispatched = new long[total];
            this.issued = new long[total];
            this.done = new long[total];
            Arrays.fill(issued, -1);
            Arrays.fill(done, Long.MAX_VALUE);
            this.scheduler = new int[Math.max(1, params.schedulerSize()) + total];
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
                        && ports.reserve(portDemand[i], portFree, portUse, portBusy, now, taken)) {
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
            int slots = params.dispatchWidth();
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
            boolean robFull = robUops > 0 && robUops + uops[i] > params.robSize();
            boolean schedulerFull = !zeroIdiom[i] && schedUops > 0 && schedUops + uops[i] > params.schedulerSize();
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
            if (now > 1000L * total + 100_000L) { // no instruction takes 1,000 cycles: a bug, not a block
                throw new IllegalStateException("simulation of " + block.hex() + " did not finish");
            }
        }

        /** The statistics, per simulated iteration (all of them, or those up to the steady state). */
        Result result() {
            long totalCycles = finalCycles >= 0 ? finalCycles : now;
            double iterations = simulatedIterations;
            double[] portCycles = new double[ports.portCount()];
            for (int p = 0; p < ports.portCount(); p++) {
                portCycles[p] = portBusy[p] / iterations;
            }
            double[] wait = new double[n];
            for (int j = 0; j < simulatedIterations * n; j++) {
                wait[j % n] += (issued[j] - dispatched[j]) / iterations;
            }
            return new Result(totalCycles / (double) options.iterations(), totalCycles, portCycles, wait, fallbacks,
                    timeline);
        }
    }
}
