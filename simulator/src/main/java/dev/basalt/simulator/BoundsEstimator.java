package dev.basalt.simulator;

import dev.basalt.core.Microarchitecture;
import dev.basalt.core.Prediction;
import dev.basalt.core.ThroughputEstimator;
import dev.basalt.decoder.BasicBlock;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * {@code bounds}: the analytical estimator (DESIGN.md §13) — a block's throughput as the largest of the second
 * machine's closed-form bounds ({@link Bounds}), on the simulator's standard (tuned) tables. Its per-instruction
 * contributions are the instructions' parts of the winning bound. Thread-safe.
 */
public final class BoundsEstimator implements ThroughputEstimator {

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
        tables.forEach((m, p) -> simulators.put(m, new Simulator(p)));
        this.options = options;
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

    @Override
    public Set<Microarchitecture> supported() {
        return new TreeSet<>(simulators.keySet());
    }

    /** The whole breakdown: every bound, the winner and the instructions behind it. */
    public Bounds bounds(BasicBlock block, Microarchitecture uarch) {
        checkSupported(uarch);
        return simulators.get(uarch).bounds(block, options);
    }

    @Override
    public Prediction predict(BasicBlock block, Microarchitecture uarch) {
        Bounds b = bounds(block, uarch);
        List<Double> contributions = new ArrayList<>();
        for (double c : b.contributions()) {
            contributions.add(c);
        }
        java.util.Map<String, Double> details = new java.util.LinkedHashMap<>();
        for (Bounds.Kind k : Bounds.Kind.values()) {
            details.put(k.name().toLowerCase(java.util.Locale.ROOT), b.value(k));
        }
        return new Prediction(b.cyclesPerIteration(), contributions, 0, details);
    }

    /** Every bound, in cycles per iteration: {@code predecoder, decoders, issue, ports, latency}. */
    @Override
    public List<String> detailNames() {
        List<String> names = new ArrayList<>();
        for (Bounds.Kind k : Bounds.Kind.values()) {
            names.add(k.name().toLowerCase(java.util.Locale.ROOT));
        }
        return names;
    }

    @Override
    public List<Prediction> predictAll(List<BasicBlock> blocks, Microarchitecture uarch) {
        checkSupported(uarch);
        return blocks.parallelStream().map(b -> predict(b, uarch)).toList();
    }
}
