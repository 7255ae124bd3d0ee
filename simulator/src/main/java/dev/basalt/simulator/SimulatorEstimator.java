package dev.basalt.simulator;

import dev.basalt.simulator.bounds.Bounds;
import dev.basalt.simulator.facts.BlockFacts;
import dev.basalt.simulator.facts.EncodingFacts;
import dev.basalt.simulator.facts.RunModel;
import dev.basalt.simulator.params.RowSource;
import dev.basalt.simulator.params.SimulatorParams;
import dev.basalt.core.Microarchitecture;
import dev.basalt.core.Prediction;
import dev.basalt.core.ThroughputEstimator;
import dev.basalt.decoder.BasicBlock;

import java.util.Map;
import java.util.Set;

/**
 * The simulator as a {@link ThroughputEstimator}: the bundled llvm-mca-derived tables (or given ones), 100
 * iterations, stack engine on. Its per-instruction contributions are the average cycles each instruction
 * waited from dispatch to issue, scaled to sum to the prediction. Thread-safe.
 */
public final class SimulatorEstimator implements LoopAware, dev.basalt.core.InstructionStatistics {

    private final String name;
    private final Map<Microarchitecture, Simulator> simulators;
    // Per CPU whose integer divides' time depends on the values: the same machine on the slowest values, for the
    // interval of a block whose values are not known (Dividers#slowOperands).
    private final Map<Microarchitecture, Simulator> slowest;
    private final Simulator.Options options;

    public SimulatorEstimator(String name, Map<Microarchitecture, SimulatorParams> tables, Simulator.Options options) {
        this.name = name;
        this.simulators = new java.util.TreeMap<>();
        this.slowest = new java.util.TreeMap<>();
        EncodingFacts.Cache encodings = new EncodingFacts.Cache(); // what the bytes say: the same on every CPU
        tables.forEach((m, p) -> {
            simulators.put(m, new Simulator(p, encodings, m));
            if (!p.core().dividers().slowOperands().isEmpty()) {
                slowest.put(m, new Simulator(p.withCore(p.core().withDividers(p.core().dividers().slowest())),
                        encodings, m));
            }
        });
        this.options = options;
    }

    private SimulatorEstimator(String name, SimulatorEstimator from, Simulator.Options options) {
        this.name = name;
        this.simulators = from.simulators;
        this.slowest = from.slowest;
        this.options = options;
    }

    @Override
    public SimulatorEstimator withLoopMode(Simulator.LoopMode mode) {
        return new SimulatorEstimator(name, this, options.withLoopMode(mode));
    }

    @Override
    public SimulatorEstimator withMemory(Simulator.MemoryModel model) {
        return new SimulatorEstimator(name, this, options.withMemory(model));
    }

    @Override
    public Simulator.Options options() {
        return options;
    }

    @Override
    public Simulator.FrontEnd frontEnd(BasicBlock block, Microarchitecture uarch) {
        checkSupported(block, uarch);
        Simulator.checkLoopMode(block, options);
        return simulators.get(uarch).frontEnd(block, options);
    }

    /**
     * {@code simulator}: the simulator's standard tables ({@link SimulatorParams#standard}: tuned where tuning
     * beat the llvm-mca defaults) with the stack engine and memory dependencies on.
     */
    public static SimulatorEstimator standard() {
        return standard("simulator", Simulator.Options.defaults());
    }

    /** The standard tables under another name and run options (an ablation: one mechanism off). */
    public static SimulatorEstimator standard(String name, Simulator.Options options) {
        Map<Microarchitecture, SimulatorParams> t = new java.util.TreeMap<>();
        for (Microarchitecture m : Microarchitecture.all()) { // every CPU this build has a table for
            SimulatorParams.imported(m).ifPresent(imported -> t.put(m, SimulatorParams.standard(m)));
        }
        return new SimulatorEstimator(name, t, options);
    }

    /**
     * The untuned llvm-mca tables with the given options: {@code simulator-default} (as llvm-mca runs) or
     * {@code simulator-untuned} (stack engine and memory dependencies on, the prior the shipped learned models
     * were trained with).
     */
    public static SimulatorEstimator bundled(String name, Simulator.Options options) {
        Map<Microarchitecture, SimulatorParams> t = new java.util.TreeMap<>();
        for (Microarchitecture m : Microarchitecture.all()) {
            SimulatorParams.imported(m).ifPresent(p -> t.put(m, p));
        }
        return new SimulatorEstimator(name, t, options);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public Set<Microarchitecture> supported() {
        return java.util.Collections.unmodifiableSet(simulators.keySet()); // asked per block: a view, not a copy
    }

    /**
     * SHA-256 of the run options and, per CPU of {@code cpus} (in CPU order), the table's {@linkplain
     * SimulatorParams#fingerprint() fingerprint}: what a learned model trained on this estimator as its prior
     * pins, to notice when its CPUs' tables change. Empty when a CPU is not supported.
     */
    @Override
    public java.util.Optional<String> fingerprint(java.util.Collection<Microarchitecture> cpus) {
        return fingerprint(simulators, options.fingerprintText(), cpus);
    }

    /** SHA-256 of the options and each CPU's table fingerprint: what determines a simulator's predictions. */
    static java.util.Optional<String> fingerprint(Map<Microarchitecture, Simulator> simulators, String options,
                                                  java.util.Collection<Microarchitecture> cpus) {
        if (!simulators.keySet().containsAll(cpus)) {
            return java.util.Optional.empty();
        }
        StringBuilder content = new StringBuilder(options);
        new java.util.TreeSet<>(cpus).forEach(m -> content.append('\n').append(m.llvmName()).append('=')
                .append(simulators.get(m).params().fingerprint()));
        try {
            byte[] digest = java.security.MessageDigest.getInstance("SHA-256")
                    .digest(content.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8));
            return java.util.Optional.of(java.util.HexFormat.of().formatHex(digest));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required by every Java platform", e);
        }
    }

    /** What limits {@code block} on {@code uarch} in this simulator (see {@link Simulator#bottleneck}). */
    public Bottleneck bottleneck(BasicBlock block, Microarchitecture uarch) {
        checkSupported(block, uarch);
        return simulators.get(uarch).bottleneck(block, options);
    }

    /** The parameter table used for {@code uarch}. */
    public SimulatorParams params(Microarchitecture uarch) {
        checkSupported(uarch);
        return simulators.get(uarch).params();
    }

    /** Predicts the blocks on every core (each run is independent; the order of the results is the blocks'). */
    @Override
    public java.util.List<Prediction> predictAll(java.util.List<BasicBlock> blocks, Microarchitecture uarch) {
        checkSupported(uarch);
        return blocks.parallelStream().map(b -> predict(b, uarch)).toList();
    }

    @Override
    public java.util.List<Prediction> predictFeatures(java.util.List<BasicBlock> blocks, Microarchitecture uarch) {
        checkSupported(uarch);
        return blocks.parallelStream().map(b -> run(b, uarch)).toList();
    }

    @Override
    public Prediction predict(BasicBlock block, Microarchitecture uarch) {
        checkSupported(block, uarch);
        Simulator.checkLoopMode(block, options);
        return run(block, uarch);
    }

    private Prediction run(BasicBlock block, Microarchitecture uarch) {
        Simulator.Result r = simulators.get(uarch).run(block, options);
        double[] wait = r.waitCycles();
        double sum = 0;
        for (double w : wait) {
            sum += w;
        }
        java.util.List<Double> contributions = new java.util.ArrayList<>();
        for (double w : wait) {
            contributions.add(sum > 0 ? r.cyclesPerIteration() * w / sum : r.cyclesPerIteration() / wait.length);
        }
        java.util.List<String> notes = notes(block, r.fallbacks());
        Prediction p = new Prediction(r.cyclesPerIteration(), contributions);
        String divide = valueDependentDivide(block, uarch);
        if (divide != null) {
            // The values divided are not known: the fast end is the prediction, the slowest values the interval's top.
            double slow = slowest.get(uarch).run(block, options).cyclesPerIteration();
            double fast = r.cyclesPerIteration();
            p = p.withIntervals(java.util.List.of(new dev.basalt.core.Interval(dev.basalt.core.Interval.DEFAULT_LEVEL,
                    Math.min(fast, slow), Math.max(fast, slow))));
            notes.add(divide);
        }
        return p.withNotes(notes);
    }

    /**
     * The note of the first integer divide of {@code block} whose time on {@code uarch} depends on values the run does
     * not know (a loop, or memory other than the harness's), or null.
     */
    private String valueDependentDivide(BasicBlock block, Microarchitecture uarch) {
        Simulator slow = slowest.get(uarch);
        if (slow == null || !options.secondGeneration()
                || options.harnessMemory(RunModel.runsAsLoop(block, options))) {
            return null;
        }
        dev.basalt.simulator.params.Dividers dividers = simulators.get(uarch).params().core().dividers();
        for (int i = 0; i < block.size(); i++) {
            dev.basalt.decoder.Instruction insn = block.instruction(i);
            if (BlockFacts.integerDivide(insn) && dividers.valueDependent(insn.form())) {
                dev.basalt.simulator.params.Dividers.Timing[] range = dividers.range(insn.form());
                return String.format(java.util.Locale.ROOT, "%s (%s) takes %d to %d cycles by the values it divides"
                        + " (%d to %d between divisions), which are not known here: the cycles take the fast end,"
                        + " the interval runs to the slow end", insn.mnemonic(), insn.form(), range[0].latency(),
                        range[1].latency(), range[0].cycles(), range[1].cycles());
            }
        }
        return null;
    }

    /**
     * Each instruction's part of the bottleneck: the winning analytical bound's shares, scaled to the prediction —
     * the attribution that tells the same story as {@link #bottleneck} (the run's waits, which {@link #predict}'s
     * contributions are, credit an instruction for waiting on a slow one: an add after a div).
     */
    public java.util.List<Double> bottleneckShares(BasicBlock block, Microarchitecture uarch) {
        Simulator sim = simulators.get(uarch);
        if (!options.secondGeneration()) {
            return run(block, uarch).contributions();
        }
        double result = sim.run(block, options).cyclesPerIteration();
        double[] shares = sim.bounds(block, options).contributions();
        double sum = 0;
        for (double v : shares) {
            sum += v;
        }
        java.util.List<Double> out = new java.util.ArrayList<>();
        for (double v : shares) {
            out.add(sum > 0 ? v * result / sum : result / shares.length);
        }
        return out;
    }

    /** The statistics {@link #statistics} gives: each bound's share, the critical cycle, the limiting bound. */
    static final java.util.List<String> STATISTICS = statisticNames(Bounds.Kind.values());

    private static java.util.List<String> statisticNames(Bounds.Kind[] kinds) {
        java.util.List<String> names = new java.util.ArrayList<>();
        for (Bounds.Kind k : kinds) {
            names.add("share_" + k.name().toLowerCase(java.util.Locale.ROOT));
        }
        names.add("on_critical_cycle");
        for (Bounds.Kind k : kinds) {
            names.add("block_limited_by_" + k.name().toLowerCase(java.util.Locale.ROOT));
        }
        return java.util.List.copyOf(names);
    }

    @Override
    public java.util.List<String> statisticNames() {
        return STATISTICS;
    }

    /**
     * From the analytical bounds on this estimator's tables and options (DESIGN.md §13): per instruction, its
     * share of each bound as a fraction of the block's predicted cycles, whether it lies on the critical
     * dependency cycle, and which bound limits the block (the same for every instruction).
     */
    @Override
    public float[][] statistics(BasicBlock block, Microarchitecture uarch) {
        checkSupported(uarch);
        return statistics(simulators.get(uarch).bounds(block, options), block.size());
    }

    /** {@link #statistics} of a block of {@code size} instructions from its bounds {@code b}. */
    static float[][] statistics(Bounds b, int size) {
        Bounds.Kind[] kinds = Bounds.Kind.values();
        double total = b.cyclesPerIteration();
        float[][] out = new float[size][STATISTICS.size()];
        for (int i = 0; i < size; i++) {
            for (int k = 0; k < kinds.length; k++) {
                out[i][k] = total > 0 ? (float) (b.share(kinds[k], i) / total) : 0f;
                out[i][kinds.length + 1 + k] = b.winner() == kinds[k] ? 1f : 0f;
            }
        }
        for (int i : b.critical()) {
            out[i][kinds.length] = 1f;
        }
        return out;
    }

    /** What a user should know of {@code block}'s number: unmodelled instructions, forms without a table row. */
    public static java.util.List<String> notes(BasicBlock block,
                                               java.util.Map<String, RowSource> fallbacks) {
        java.util.List<String> notes = new java.util.ArrayList<>(dev.basalt.core.UnmodelledInstructions.notes(block));
        RowSource.addFallbackNotes(notes, fallbacks);
        return notes;
    }
}
