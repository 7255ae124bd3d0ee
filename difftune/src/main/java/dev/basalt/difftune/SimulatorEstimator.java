package dev.basalt.difftune;

import dev.basalt.core.Microarchitecture;
import dev.basalt.core.Prediction;
import dev.basalt.core.ThroughputEstimator;
import dev.basalt.decoder.BasicBlock;

import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

/**
 * The simulator as a {@link ThroughputEstimator}: the bundled llvm-mca-derived tables (or given ones), 100
 * iterations, stack engine on. Its per-instruction contributions are the average cycles each instruction
 * waited from dispatch to issue, scaled to sum to the prediction. Thread-safe.
 */
public final class SimulatorEstimator implements ThroughputEstimator {

    private final String name;
    private final Map<Microarchitecture, Simulator> simulators;
    private final Simulator.Options options;

    public SimulatorEstimator(String name, Map<Microarchitecture, SimulatorParams> tables, Simulator.Options options) {
        this.name = name;
        this.simulators = new EnumMap<>(Microarchitecture.class);
        tables.forEach((m, p) -> simulators.put(m, new Simulator(p)));
        this.options = options;
    }

    /** The bundled default tables for every CPU, with the stack engine on ({@code simulator}). */
    public static SimulatorEstimator bundled() {
        return bundled("simulator", Simulator.Options.defaults());
    }

    /** The bundled tables with the given options (e.g. {@code simulator-default}: llvm-mca compatible). */
    public static SimulatorEstimator bundled(String name, Simulator.Options options) {
        Map<Microarchitecture, SimulatorParams> t = new EnumMap<>(Microarchitecture.class);
        for (Microarchitecture m : Microarchitecture.values()) {
            t.put(m, SimulatorParams.bundled(m));
        }
        return new SimulatorEstimator(name, t, options);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public Set<Microarchitecture> supported() {
        return simulators.isEmpty() ? Set.of() : EnumSet.copyOf(simulators.keySet());
    }

    @Override
    public Prediction predict(BasicBlock block, Microarchitecture uarch) {
        checkSupported(uarch);
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
        return new Prediction(r.cyclesPerIteration(), contributions);
    }
}
