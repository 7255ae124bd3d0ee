package dev.basalt.ithemal;

import dev.basalt.core.EstimatorProvider;
import dev.basalt.core.ThroughputEstimator;

import java.io.IOException;
import java.util.List;

/** {@code ithemal}: the bundled Ithemal model, for {@code Estimators}. */
public final class IthemalProvider implements EstimatorProvider {
    @Override
    public List<String> names() {
        return List.of("ithemal");
    }

    @Override
    public ThroughputEstimator load(String name) throws IOException {
        return IthemalModel.bundled();
    }
}
