package dev.basalt.simulator;

import dev.basalt.simulator.bounds.Bounds;
import dev.basalt.simulator.bounds.CriticalPath;
import dev.basalt.simulator.facts.BlockFacts;
import dev.basalt.simulator.facts.CpuContext;
import dev.basalt.simulator.facts.EncodingFacts;
import dev.basalt.simulator.facts.InstructionFacts;
import dev.basalt.simulator.facts.InstructionShape;
import dev.basalt.simulator.facts.RunModel;
import dev.basalt.simulator.facts.Sources;
import dev.basalt.simulator.harness.BhiveMemory;
import dev.basalt.simulator.params.InstructionParams;
import dev.basalt.simulator.params.PortGroups;
import dev.basalt.simulator.params.Resolved;
import dev.basalt.simulator.params.SimulatorParams;
import dev.basalt.simulator.pipeline.Pipeline;
import dev.basalt.simulator.pipeline.Scratch;
import dev.basalt.decoder.BasicBlock;
import dev.basalt.decoder.Idiom;
import dev.basalt.decoder.Instruction;

import java.util.ArrayList;
import java.util.List;

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
public final class Simulator implements RunModel {

    private final CpuContext context;
    // Each thread's reusable arrays for the second machine's runs (a run is single-threaded and not nested).
    private final ThreadLocal<Scratch> scratch = ThreadLocal.withInitial(Scratch::new);

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
        this.context = new CpuContext(params, facts);
    }

    /** The CPU as the machines see it. */
    public CpuContext context() {
        return context;
    }

    /** The parameter table in use. */
    public SimulatorParams params() {
        return context.params();
    }

    /** The CPU's ports and port groups, and each row's port demands. */
    public PortGroups ports() {
        return context.ports();
    }

    /**
     * Whether {@code block} runs as a loop under {@code options} ({@link RunModel#runsAsLoop}).
     *
     * @throws IllegalArgumentException for {@link LoopMode#LOOP} when the block does not end in a jump
     */
    public static boolean runsAsLoop(BasicBlock block, Options options) {
        return RunModel.runsAsLoop(block, options);
    }

    /** Whether the last instruction is a relative jump, conditional or not ({@link RunModel#endsInJump}). */
    public static boolean endsInJump(BasicBlock block) {
        return RunModel.endsInJump(block);
    }

    /** Whether the last instruction is a relative jump to the block's first byte. */
    static boolean branchesBackToStart(BasicBlock block) {
        return RunModel.branchesBackToStart(block);
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

    /** Looks up an instruction form with the per-mnemonic and generic fallbacks ({@link RowLookup}). */
    public Resolved resolve(String form) {
        return context.resolve(form);
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
            double[] used = r.portCycles();
            int busiest = 0;
            for (int p = 1; p < used.length; p++) {
                busiest = used[p] > used[busiest] ? p : busiest;
            }
            Bottleneck b = bottleneck(r.cyclesPerIteration(), bounds(block, options));
            return used.length == 0 || !options.issueTimePorts() ? b
                    : b.withBinding(params().ports().get(busiest), used[busiest]);
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
        double dispatch = uops / params().dispatchWidth();
        double frontEnd = frontEndBound(block, options);
        double port = 0;
        String busiest = "";
        double[] pc = r.portCycles();
        for (int p = 0; p < pc.length; p++) {
            if (pc[p] > port) {
                port = pc[p];
                busiest = params().ports().get(p);
            }
        }
        double chain = 0;
        List<Integer> onChain = new ArrayList<>();
        float[][] c = CriticalPath.coefficients(block,
                Sources.of(block, options, stackOp, BhiveMemory.Program.of(block, context.harness()), context.falseOutput(),
                        context.params().core().mergesDirtyUpper()), latency,
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
            case DELIVERY -> b.source() == UopSource.LSD ? "delivery from the loop stream detector (lsd)"
                    : "delivery from the micro-op cache (dsb)";
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
        return Bounds.of(new BlockFacts(context, block, options));
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
                case LSD -> "the loop stream detector (lsd)";
                case DSB -> "the micro-op cache (dsb)";
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
        BlockFacts f = new BlockFacts(context, block, options);
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
     * The issue bound of the second machine: fused micro-ops per iteration at the renamer ÷ its issue width — the
     * bounds' own issue term ({@link Bounds#issue()}), computed in that one place.
     */
    public double issueBound(BasicBlock block, Options options) {
        return bounds(block, options).issue();
    }

    /**
     * Cycles per iteration the front end alone needs for {@code block} (the second machine with an ideal back
     * end): the front-end bound of {@link #bottleneck}, 0 when {@code options} model no front end.
     */
    public double frontEndBound(BasicBlock block, Options options) {
        return options.secondGeneration() && options.frontEnd()
                ? new Pipeline(context, block, options, true, scratch.get()).run().cyclesPerIteration() : 0;
    }

    /** Fails a run that has not finished in time ({@link CpuContext#checkRunLength}). */
    public void checkRunLength(long now, long total, BasicBlock block) {
        context.checkRunLength(now, total, block);
    }

    /**
     * Simulates {@code block} on the second machine for exactly the options' iterations, every one of them, keeping
     * every instance's stage cycles in the result's timeline ({@link Timeline#rows}): what the statistics of
     * {@code basalt mca} count. Slower than {@link #run} (no stop at a steady state); its cycles per iteration are the
     * run's total over its iterations.
     *
     * @throws IllegalArgumentException for first-generation options, which keep no timeline
     */
    public Result trace(BasicBlock block, Options options) {
        if (!options.secondGeneration()) {
            throw new IllegalArgumentException("only the second-generation machine keeps a timeline");
        }
        return new Pipeline(context, block, options, false, scratch.get(), true).run();
    }

    /** Simulates {@code block}: the cycle loop of the class description over one {@code Run}. */
    public Result run(BasicBlock block, Options options) {
        if (options.secondGeneration()) {
            Pipeline pipeline = new Pipeline(context, block, options, false, scratch.get());
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
        return new dev.basalt.simulator.firstgen.FirstGeneration(context, block, options).run();
    }
}
