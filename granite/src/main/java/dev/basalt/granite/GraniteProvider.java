package dev.basalt.granite;

import dev.basalt.core.EstimatorProvider;
import dev.basalt.core.ThroughputEstimator;

import java.io.IOException;
import java.util.List;

/** {@code granite}: the bundled GRANITE model, for {@code Estimators}. */
public final class GraniteProvider implements EstimatorProvider {
    @Override
    public List<String> names() {
        return List.of("granite");
    }

    @Override
    public ThroughputEstimator load(String name) throws IOException {
        return GraniteModel.bundled();
    }
}
