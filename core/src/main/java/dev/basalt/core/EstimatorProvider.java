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

    /**
     * Loads a model file of this provider's kind (one {@code basalt train} wrote), or empty when {@code file} is
     * another kind's. A file of its kind that cannot be read is an {@link IOException} naming the file.
     */
    default java.util.Optional<ThroughputEstimator> load(java.nio.file.Path file) throws IOException {
        return java.util.Optional.empty();
    }
}
