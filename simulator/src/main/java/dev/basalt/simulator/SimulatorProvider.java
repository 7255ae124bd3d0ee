package dev.basalt.simulator;

import dev.basalt.core.EstimatorProvider;
import dev.basalt.core.ThroughputEstimator;

import java.util.List;

/**
 * The simulator's estimators for {@code Estimators}: {@code simulator} (standard, i.e. tuned, tables; stack engine
 * and memory dependencies on), {@code simulator-default} (the untuned llvm-mca tables, run as llvm-mca runs them),
 * {@code simulator-untuned} (the untuned tables with the stack engine and memory dependencies on) and
 * {@code bounds} (the analytical bounds of the second machine on the standard tables, {@link Bounds}) and
 * {@code llvm-mca} (llvm-mca-14 itself, when it is installed).
 */
public final class SimulatorProvider implements EstimatorProvider {
    @Override
    public List<String> names() {
        return List.of("simulator", "simulator-default", "simulator-untuned", BoundsEstimator.NAME, LlvmMcaEstimator.NAME);
    }

    @Override
    public ThroughputEstimator load(String name) {
        return switch (name) {
            case "simulator-default" -> SimulatorEstimator.bundled(name, Simulator.Options.llvmMcaCompatible());
            case LlvmMcaEstimator.NAME -> LlvmMcaEstimator.standard();
            case BoundsEstimator.NAME -> BoundsEstimator.standard();
            case "simulator-untuned" -> SimulatorEstimator.bundled(name, Simulator.Options.defaults());
            default -> SimulatorEstimator.standard();
        };
    }
}
