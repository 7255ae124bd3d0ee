package dev.basalt.core;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.ServiceLoader;
import java.util.TreeSet;

/**
 * Loads estimators by name: {@code Estimators.load("granite")} returns the bundled GRANITE model,
 * {@code "simulator"} the llvm-mca-style simulator with its standard tables, and so on for every model module
 * on the class path.
 */
public final class Estimators {

    private Estimators() {
    }

    /**
     * The named estimator with its bundled weights or tables.
     *
     * @throws IllegalArgumentException naming the available estimators when {@code name} is unknown
     * @throws UncheckedIOException     when its bundled data cannot be read
     */
    public static ThroughputEstimator load(String name) {
        for (EstimatorProvider p : ServiceLoader.load(EstimatorProvider.class)) {
            if (p.names().contains(name)) {
                try {
                    return p.load(name);
                } catch (IOException e) {
                    throw new UncheckedIOException("cannot load estimator " + name + ": " + e.getMessage(), e);
                }
            }
        }
        java.nio.file.Path file = java.nio.file.Path.of(name);
        if (name.contains("/") || name.contains(".") || java.nio.file.Files.exists(file)) {
            return loadFile(file);
        }
        throw new IllegalArgumentException("unknown model '" + name + "': available are " + String.join(", ",
                available()) + ", or the path of a model file");
    }

    /**
     * The model in {@code file}, written by {@code basalt train} (any kind a module on the class path reads).
     *
     * @throws IllegalArgumentException naming the file when it is missing, a folder, or no module's model
     */
    public static ThroughputEstimator loadFile(java.nio.file.Path file) {
        if (!java.nio.file.Files.exists(file)) {
            throw new IllegalArgumentException(file + ": no such model file");
        }
        if (!java.nio.file.Files.isRegularFile(file)) {
            throw new IllegalArgumentException(file + ": is a directory, not a model file");
        }
        for (EstimatorProvider p : ServiceLoader.load(EstimatorProvider.class)) {
            try {
                java.util.Optional<ThroughputEstimator> e = p.load(file);
                if (e.isPresent()) {
                    return e.get();
                }
            } catch (IOException e) {
                throw new IllegalArgumentException(e.getMessage(), e);
            }
        }
        throw new IllegalArgumentException(file + ": not a model file any estimator here reads (basalt train "
                + "writes them)");
    }

    /** Names of every estimator on the class path, sorted. */
    public static List<String> available() {
        TreeSet<String> names = new TreeSet<>();
        ServiceLoader.load(EstimatorProvider.class).forEach(p -> names.addAll(p.names()));
        return List.copyOf(names);
    }
}
