package dev.basalt.difftune;

import dev.basalt.core.EstimatorProvider;
import dev.basalt.core.ThroughputEstimator;

import java.util.List;

/**
 * The simulator's estimators for {@code Estimators}: {@code simulator} (standard, i.e. tuned, tables; stack engine
 * and memory dependencies on), {@code simulator-default} (the untuned llvm-mca tables, run as llvm-mca runs them)
 * and {@code simulator-untuned} (the untuned tables with the stack engine and memory dependencies on).
 */
public final class SimulatorProvider implements EstimatorProvider {
    @Override
    public List<String> names() {
        return List.of("simulator", "simulator-default", "simulator-untuned");
    }

    @Override
    public ThroughputEstimator load(String name) {
        return switch (name) {
            case "simulator-default" -> SimulatorEstimator.bundled(name, Simulator.Options.llvmMcaCompatible());
            case "simulator-untuned" -> SimulatorEstimator.bundled(name, Simulator.Options.defaults());
            default -> SimulatorEstimator.standard();
        };
    }
}
