package dev.basalt.simulator;

import dev.basalt.simulator.bounds.Bounds;
import dev.basalt.simulator.facts.BlockFacts;
import dev.basalt.simulator.facts.EncodingFacts;
import dev.basalt.simulator.params.SimulatorParams;
import dev.basalt.core.Microarchitecture;
import dev.basalt.core.Prediction;
import dev.basalt.decoder.BasicBlock;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * {@code bounds}: the analytical estimator (DESIGN.md §13) — a block's throughput as the largest of the second
 * machine's closed-form bounds ({@link Bounds}), on the simulator's standard (tuned) tables. Its per-instruction
 * contributions are the instructions' parts of the winning bound. Thread-safe.
 */
public final class BoundsEstimator implements LoopAware, dev.basalt.core.InstructionStatistics.Shared {

    /** The name it is registered under. */
    public static final String NAME = "bounds";

    private final String name;
    private final Map<Microarchitecture, Simulator> simulators = new TreeMap<>();
    private final Simulator.Options options;

    public BoundsEstimator(String name, Map<Microarchitecture, SimulatorParams> tables, Simulator.Options options) {
        if (!options.secondGeneration()) {
            throw new IllegalArgumentException("bounds are those of the second machine: " + options);
        }
        this.name = name;
        EncodingFacts.Cache encodings = new EncodingFacts.Cache(); // what the bytes say: the same on every CPU
        tables.forEach((m, p) -> simulators.put(m, new Simulator(p, encodings, m)));
        this.options = options;
    }

    private BoundsEstimator(String name, Map<Microarchitecture, Simulator> simulators, Simulator.Options options,
                            boolean shared) { // (shared: tells it from the public constructor, same erasure)
        this.name = name;
        this.simulators.putAll(simulators);
        this.options = options;
    }

    @Override
    public BoundsEstimator withLoopMode(Simulator.LoopMode mode) {
        return new BoundsEstimator(name, simulators, options.withLoopMode(mode), true);
    }

    @Override
    public BoundsEstimator withMemory(Simulator.MemoryModel model) {
        return new BoundsEstimator(name, simulators, options.withMemory(model), true);
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

    /** {@code bounds} on the standard tables with every mechanism on. */
    public static BoundsEstimator standard() {
        Map<Microarchitecture, SimulatorParams> t = new TreeMap<>();
        for (Microarchitecture m : Microarchitecture.all()) {
            SimulatorParams.imported(m).ifPresent(imported -> t.put(m, SimulatorParams.standard(m)));
        }
        return new BoundsEstimator(NAME, t, Simulator.Options.defaults());
    }

    @Override
    public String name() {
        return name;
    }

    /** As the simulator's: its options and tables (the bounds read the same tables), under another name. */
    @Override
    public java.util.Optional<String> fingerprint(java.util.Collection<Microarchitecture> cpus) {
        return SimulatorEstimator.fingerprint(simulators, options.fingerprintText() + "\n" + NAME, cpus);
    }

    @Override
    public Set<Microarchitecture> supported() {
        return java.util.Collections.unmodifiableSet(simulators.keySet()); // asked per block: a view, not a copy
    }

    /** The whole breakdown: every bound, the winner and the instructions behind it. */
    public Bounds bounds(BasicBlock block, Microarchitecture uarch) {
        checkSupported(block, uarch);
        Simulator.checkLoopMode(block, options);
        return simulators.get(uarch).bounds(block, options);
    }

    @Override
    public Prediction predict(BasicBlock block, Microarchitecture uarch) {
        checkSupported(uarch);
        if (options.loopMode() == Simulator.LoopMode.LOOP) {
            checkSupported(block, uarch); // an instruction the CPU lacks is named before the loop mode's refusal
        }
        Simulator.checkLoopMode(block, options);
        BlockFacts facts = new BlockFacts(simulators.get(uarch).context(), block, options);
        if (!facts.runs) {
            checkSupported(block, uarch); // the facts found an instruction the CPU lacks: the refusal names it
        }
        return prediction(facts);
    }

    @Override
    public List<Prediction> predictFeatures(List<BasicBlock> blocks, Microarchitecture uarch) {
        checkSupported(uarch);
        return blocks.parallelStream().map(b -> run(b, uarch)).toList();
    }

    private Prediction run(BasicBlock block, Microarchitecture uarch) {
        return prediction(new BlockFacts(simulators.get(uarch).context(), block, options));
    }

    private static Prediction prediction(BlockFacts facts) {
        Bounds b = Bounds.of(facts);
        double[] shares = b.contributions();
        Double[] contributions = new Double[shares.length];
        for (int i = 0; i < shares.length; i++) {
            contributions[i] = shares[i];
        }
        double[] values = new double[KINDS.length];
        for (int k = 0; k < KINDS.length; k++) {
            values[k] = b.value(KINDS[k]);
        }
        return new Prediction(b.cyclesPerIteration(), List.of(contributions), 0, DETAILS.with(values))
                .withNotes(facts.notes());
    }

    /** As the simulator's statistics (each bound's share, the critical cycle, the limiting bound), from these bounds. */
    @Override
    public List<String> statisticNames() {
        return SimulatorEstimator.STATISTICS;
    }

    @Override
    public float[][] statistics(BasicBlock block, Microarchitecture uarch) {
        return featured(block, uarch).statistics();
    }

    /** The cycles and the statistics from one breakdown (what a learned model on this prior reads of a block). */
    @Override
    public Featured featured(BasicBlock block, Microarchitecture uarch) {
        checkSupported(uarch);
        Bounds b = simulators.get(uarch).bounds(block, options);
        return new Featured(b.cyclesPerIteration(), SimulatorEstimator.statistics(b, block.size()));
    }

    /** Every bound, in cycles per iteration: {@code predecoder, decoders, issue, ports, latency}. */
    @Override
    public List<String> detailNames() {
        return DETAIL_NAMES;
    }

    private static final Bounds.Kind[] KINDS = Bounds.Kind.values();
    private static final List<String> DETAIL_NAMES = java.util.Arrays.stream(KINDS)
            .map(k -> k.name().toLowerCase(java.util.Locale.ROOT)).toList();
    private static final dev.basalt.core.Details.Names DETAILS = dev.basalt.core.Details.names(DETAIL_NAMES);

    @Override
    public List<Prediction> predictAll(List<BasicBlock> blocks, Microarchitecture uarch) {
        checkSupported(uarch);
        return blocks.parallelStream().map(b -> predict(b, uarch)).toList();
    }
}
