package dev.basalt.simulator;

import dev.basalt.simulator.mca.LlvmMcaEstimator;
import dev.basalt.simulator.params.SimulatorParams;
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

    /**
     * A simulator table ({@code basalt tune}, {@code basalt calibrate}, {@code basalt params import}) as the
     * simulator on that table for its one CPU, with the standard options.
     */
    @Override
    public java.util.Optional<dev.basalt.core.ThroughputEstimator> load(java.nio.file.Path file)
            throws java.io.IOException {
        if (!file.getFileName().toString().endsWith(".json")) {
            return java.util.Optional.empty();
        }
        SimulatorParams table = SimulatorParams.read(file);
        dev.basalt.core.Microarchitecture cpu = dev.basalt.core.Microarchitecture.parse(table.mcpu());
        return java.util.Optional.of(new SimulatorEstimator("simulator:" + file.getFileName(),
                java.util.Map.of(cpu, table), Simulator.Options.defaults()));
    }
}
