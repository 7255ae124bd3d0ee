package dev.basalt.difftune;

import dev.basalt.core.EstimatorProvider;
import dev.basalt.core.ThroughputEstimator;

import java.util.List;

/** {@code simulator} (stack engine on) and {@code simulator-default} (as llvm-mca runs) for {@code Estimators}. */
public final class SimulatorProvider implements EstimatorProvider {
    @Override
    public List<String> names() {
        return List.of("simulator", "simulator-default");
    }

    @Override
    public ThroughputEstimator load(String name) {
        return name.equals("simulator-default")
                ? SimulatorEstimator.bundled("simulator-default", Simulator.Options.llvmMcaCompatible())
                : SimulatorEstimator.bundled();
    }
}
