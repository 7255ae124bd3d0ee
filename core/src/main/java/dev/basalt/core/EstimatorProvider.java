package dev.basalt.core;

import java.io.IOException;
import java.util.List;

/**
 * Makes a module's estimators available to {@link Estimators} (found with {@link java.util.ServiceLoader};
 * each module lists its provider in {@code META-INF/services/dev.basalt.core.EstimatorProvider}). This keeps
 * {@code core} free of dependencies on the model modules.
 */
public interface EstimatorProvider {

    /** The names this provider can load. */
    List<String> names();

    /** Loads the named estimator with its bundled default parameters or weights. */
    ThroughputEstimator load(String name) throws IOException;
}
