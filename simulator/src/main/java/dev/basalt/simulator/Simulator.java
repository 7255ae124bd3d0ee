package dev.basalt.simulator;

import dev.basalt.decoder.BasicBlock;
import dev.basalt.decoder.Idiom;
import dev.basalt.decoder.Instruction;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.Map;
import java.util.Objects;

/**
 * A cycle-level out-of-order core, as two machines behind one facade: the second generation ({@link Pipeline},
 * DESIGN.md §11: front end, renamer, ports bound at issue, memory) and the first, llvm-mca-compatible one
 * ({@link dev.basalt.simulator.firstgen.FirstGeneration}), chosen by {@link Options#secondGeneration()}. Besides
 * a run, the facade gives what is derived from the same facts: the analytical {@link #bounds}, the
 * {@link #bottleneck}, the front end's choices ({@link #frontEnd}), and the row an instruction form resolves to
 * ({@link #resolve}).
 *
 * <p>What an instruction waits for is its {@link Sources}. With the stack engine on, the {@code rsp} updates of
 * push, pop, call and ret cost nothing and create no dependency (uiCA models this; llvm-mca does not).
 *
 * <p>Deterministic; thread-safe (a run allocates its own state).
 */
public final class Simulator {

    private final SimulatorParams params;
    private final PortGroups ports;
    private final BhiveMemory.Harness harness;

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
        // A CPU Basalt measured itself was measured in basalt measure's harness, the others in BHive's.
        this.harness = dev.basalt.core.Microarchitecture.find(params.mcpu())
                .filter(m -> dev.basalt.core.Microarchitecture.hostMeasured().contains(m))
                .map(m -> BhiveMemory.Harness.BASALT).orElse(BhiveMemory.Harness.BHIVE);
        this.falseOutput = params.core().falseOutputDependencies().stream()
                .map(m -> m.toLowerCase(java.util.Locale.ROOT)).collect(java.util.stream.Collectors.toUnmodifiableSet());
        // Hash maps for lookups (the table's own maps are sorted, for readable JSON) and port demands
        // precomputed for every row, so that a run does no string work beyond one lookup per instruction.
        this.forms = new java.util.HashMap<>(params.forms());
        this.mnemonics = new java.util.HashMap<>(params.mnemonics());
        this.ports = new PortGroups(params);
        long longest = 0;  // the most cycles one instance of any row can hold the machine: its latency and ports
        for (InstructionParams row : allRows(params)) {
            long busy = row.latency();
            for (int cycles : row.ports().values()) {
                busy += cycles;
            }
            longest = Math.max(longest, busy);
        }
        this.cyclesPerInstance = 1000 + longest;
        this.adderLatency = resolve("ADDSD xmm, xmm").row().latency();
    }

    private static List<InstructionParams> allRows(SimulatorParams params) {
        List<InstructionParams> rows = new ArrayList<>(params.forms().values());
        rows.addAll(params.mnemonics().values());
        rows.add(params.generic());
        return rows;
    }

    /** How many cycles a run may take per instruction instance before it is taken as never finishing. */
    private final long cyclesPerInstance;
    private final int adderLatency;

    /** The FP adder's latency, {@code ADDSD xmm, xmm}'s row: what a conversion's merged value takes (MergeOperand). */
    int adderLatency() {
        return adderLatency;
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
    /** Whose harness's memory layout the block's addresses follow ({@link BhiveMemory.Harness}). */
    BhiveMemory.Harness harness() {
        return harness;
    }

    public PortGroups ports() {
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
     * @param loopMode           whether the block runs as a loop or unrolled ({@link LoopMode})
     * @param memory             which accesses alias ({@link MemoryModel}; {@code AUTO}: BHive's harness memory for
     *                           straight-line blocks, distinct memory for loops)
     * @param operationLatency   a load+operation's register operands wait for the operation's latency only, its
     *                           register form's, and its load for the row's latency less that ({@link
     *                           LoadOperation}; on by default; off: the row's latency less the table's load latency
     *                           for the operation, as before issue 37)
     */
    public record Options(int iterations, boolean stackEngine, boolean memoryDependencies, boolean secondGeneration,
                          boolean frontEnd, boolean microFusion, boolean moveElimination, boolean issueTimePorts,
                          boolean storeForwarding, LoopMode loopMode, MemoryModel memory,
                          boolean operationLatency) {
        public Options {
            if (iterations < 1 || iterations > 100_000) {
                throw new IllegalArgumentException("iterations must be in 1..100000, got " + iterations);
            }
            loopMode = loopMode == null ? LoopMode.AUTO : loopMode;
            memory = memory == null ? MemoryModel.AUTO : memory;
        }

        /** Every switch given, loop mode and memory {@code AUTO}. */
        public Options(int iterations, boolean stackEngine, boolean memoryDependencies, boolean secondGeneration,
                       boolean frontEnd, boolean microFusion, boolean moveElimination, boolean issueTimePorts,
                       boolean storeForwarding) {
            this(iterations, stackEngine, memoryDependencies, secondGeneration, frontEnd, microFusion, moveElimination,
                    issueTimePorts, storeForwarding, LoopMode.AUTO, MemoryModel.AUTO, false);
        }

        /** These options with another loop mode. */
        public Options withLoopMode(LoopMode mode) {
            return new Options(iterations, stackEngine, memoryDependencies, secondGeneration, frontEnd, microFusion,
                    moveElimination, issueTimePorts, storeForwarding, mode, memory, operationLatency);
        }

        /** These options with another memory model. */
        public Options withMemory(MemoryModel model) {
            return new Options(iterations, stackEngine, memoryDependencies, secondGeneration, frontEnd, microFusion,
                    moveElimination, issueTimePorts, storeForwarding, loopMode, model, operationLatency);
        }

        /**
         * Which memory {@code block} sees under these options: "harness", "distinct", or "none" where loads never
         * wait for stores (the first machine, as llvm-mca).
         */
        public String memoryOf(BasicBlock block) {
            if (!secondGeneration || !memoryDependencies) {
                return "none";
            }
            return harnessMemory(runsAsLoop(block, this)) ? "harness" : "distinct";
        }

        /** Whether a block that runs as a loop ({@code loop}) or not sees BHive's harness memory. */
        public boolean harnessMemory(boolean loop) {
            return memory == MemoryModel.HARNESS || memory == MemoryModel.AUTO && !loop;
        }

        /**
         * What of these options determines predictions, as text: the record's own text, without the memory model
         * when it is {@code AUTO} and without the operation-latency rule when it is off (so that estimators'
         * fingerprints from before they existed still hold).
         */
        public String fingerprintText() {
            return toString().replace(", memory=AUTO", "").replace(", operationLatency=false", "");
        }

        /** The second-generation machine with every mechanism on. */
        public Options(int iterations, boolean stackEngine, boolean memoryDependencies) {
            this(iterations, stackEngine, memoryDependencies, true, true, true, true, true, true, LoopMode.AUTO,
                    MemoryModel.AUTO, true);
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
                    moveElimination, issueTimePorts, storeForwarding, loopMode, memory, operationLatency);
        }

        /** These options with the named mechanisms off (as the command line's switches say). */
        public Options without(boolean frontEnd, boolean microFusion, boolean moveElimination, boolean issueTimePorts,
                               boolean storeForwarding) {
            return new Options(iterations, stackEngine, memoryDependencies, secondGeneration,
                    this.frontEnd && !frontEnd, this.microFusion && !microFusion,
                    this.moveElimination && !moveElimination, this.issueTimePorts && !issueTimePorts,
                    this.storeForwarding && !storeForwarding, loopMode, memory, operationLatency);
        }

        /** These options with {@link LoadOperation}'s rule on or off. */
        public Options withOperationLatency(boolean on) {
            return new Options(iterations, stackEngine, memoryDependencies, secondGeneration, frontEnd, microFusion,
                    moveElimination, issueTimePorts, storeForwarding, loopMode, memory, on);
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
     * Which memory accesses alias. {@code HARNESS}: as in BHive's measurements, every register holds BHive's
     * value and every page maps to one, so two accesses alias when those values put them at the same address
     * ({@link BhiveMemory}) — the semantics of the measurements the tables were tuned on. {@code DISTINCT}: as in
     * real code, uiCA and llvm-mca, two accesses alias only when the code proves it — the same base, index, scale
     * and displacement with the registers unchanged in between (the dependency graph's same-expression edges); a
     * copy loop {@code load [rsi]; store [rdi]} then carries no store→load chain. {@code AUTO}: harness memory for
     * straight-line blocks, distinct memory for loops (a user's loop body is real code).
     */
    public enum MemoryModel {
        AUTO, HARNESS, DISTINCT
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
        if (options.secondGeneration()) {
            return bottleneck(r.cyclesPerIteration(), bounds(block, options));
        }
        // the first machine (llvm-mca's): its own chain, dispatch width and the ports its run used
        int n = block.size();
        double uops = 0;
        float[] latency = new float[n];
        float[] readAdvance = new float[n];
        boolean[] stackOp = Sources.stackOps(block);
        for (int i = 0; i < n; i++) {
            InstructionParams row = resolve(block.instruction(i).form()).row();
            uops += Math.max(1, row.uops());
            latency[i] = block.instruction(i).idiom() == Idiom.ZERO ? 0f : Math.max(0, row.latency());
            readAdvance[i] = Math.max(0, row.readAdvance());
        }
        double dispatch = uops / params.dispatchWidth();
        double frontEnd = frontEndBound(block, options);
        double port = 0;
        String busiest = "";
        double[] pc = r.portCycles();
        for (int p = 0; p < pc.length; p++) {
            if (pc[p] > port) {
                port = pc[p];
                busiest = params.ports().get(p);
            }
        }
        double chain = 0;
        List<Integer> onChain = new ArrayList<>();
        float[][] c = CriticalPath.coefficients(block,
                Sources.of(block, options, stackOp, BhiveMemory.Program.of(block, harness), falseOutput), latency,
                readAdvance);
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
     * The second machine's bottleneck: the winner of its analytical bounds, so what it names, the bounds printed
     * beside it and the port table ({@link Bounds#portLoads()}) are the same numbers.
     */
    static Bottleneck bottleneck(double cyclesPerIteration, Bounds b) {
        Bounds.Kind won = b.winner();
        Bottleneck.Kind kind = switch (won) {
            case LATENCY -> Bottleneck.Kind.DEPENDENCY_CHAIN;
            case PORTS -> Bottleneck.Kind.PORT_PRESSURE;
            case ISSUE -> Bottleneck.Kind.DISPATCH_WIDTH;
            default -> Bottleneck.Kind.FRONT_END;
        };
        String resource = switch (won) {
            case PREDECODER -> "predecoder";
            case DECODERS -> "decoders";
            case DELIVERY -> b.source() == UopSource.LSD ? "loop stream detector" : "micro-op cache";
            case ISSUE -> "issue width";
            case PORTS -> (b.portSet().length() > 1 && !b.portSet().contains(",") ? "ports " : "port ") + b.portSet();
            case LATENCY -> "dependency chain";
        };
        List<Integer> instructions = new ArrayList<>();
        if (won == Bounds.Kind.LATENCY) {
            instructions.addAll(b.critical());
        } else {
            double[] share = b.shares()[won.ordinal()];
            for (int i = 0; i < share.length; i++) {
                if (share[i] > 0) {
                    instructions.add(i);
                }
            }
        }
        double frontEnd = Math.max(Math.max(b.predecoder(), b.decoders()), b.delivery());
        return new Bottleneck(kind, cyclesPerIteration, frontEnd, b.issue(), b.ports(), b.portSet(), b.latency(),
                b.critical(), resource, instructions);
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

    /**
     * Fails a run of {@code total} instances of {@code block} that reached cycle {@code now}: no instruction takes
     * 1,000 cycles, so a run that long is a bug of a machine, not a block.
     */
    public void checkRunLength(long now, long total, BasicBlock block) {
        // a table may hold an instruction for thousands of cycles (a fuzzed one held port 0 for 8,256): the limit
        // grows with the longest row, so only a machine that never finishes trips it
        if (now > cyclesPerInstance * total + 100_000L) {
            throw new IllegalStateException("simulation of " + block.hex() + " did not finish");
        }
    }

    /** Simulates {@code block}: the cycle loop of the class description over one {@code Run}. */
    public Result run(BasicBlock block, Options options) {
        if (options.secondGeneration()) {
            Pipeline pipeline = new Pipeline(this, block, options, false, scratch.get());
            Result r = pipeline.run();
            if (!pipeline.periodic()) {
                // No steady state in the run: it measured its last iterations, a transient that can come out a
                // fraction of a cycle under a bound no steady state goes below; the bound is the better estimate.
                double floor = bounds(block, options).cyclesPerIteration();
                if (r.cyclesPerIteration() < floor) {
                    r = new Result(floor, r.totalCycles(), r.portCycles(), r.waitCycles(), r.fallbacks(),
                            r.timeline());
                }
            }
            return r;
        }
        return new dev.basalt.simulator.firstgen.FirstGeneration(this, block, options).run();
    }
}
