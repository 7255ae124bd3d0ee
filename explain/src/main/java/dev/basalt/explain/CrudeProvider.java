package dev.basalt.explain;

import dev.basalt.core.EstimatorProvider;
import dev.basalt.core.ThroughputEstimator;

import java.util.List;

/** Makes {@link CrudeModel} loadable as {@code crude} (Haswell only), to try explanations on a known answer. */
public final class CrudeProvider implements EstimatorProvider {
    @Override
    public List<String> names() {
        return List.of("crude");
    }

    @Override
    public ThroughputEstimator load(String name) {
        return CrudeModel.haswell();
    }
}
