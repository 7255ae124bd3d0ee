package dev.basalt.training;

import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.stream.StreamSupport;

/**
 * Finds trainable models by name, as {@code core.Estimators} finds estimators: every {@link TrainableProvider} on
 * the class path.
 */
public final class Trainables {

    private Trainables() {
    }

    /** The provider of the model called {@code name}, if one is on the class path. */
    public static Optional<TrainableProvider<?>> find(String name) {
        return all().stream().filter(p -> p.name().equals(name)).findFirst();
    }

    /** Every provider on the class path, by name. */
    public static List<TrainableProvider<?>> all() {
        return StreamSupport.stream(ServiceLoader.load(TrainableProvider.class).spliterator(), false)
                .<TrainableProvider<?>>map(p -> p).sorted(Comparator.comparing(TrainableProvider::name)).toList();
    }

    /** The names of every trainable model on the class path, sorted. */
    public static List<String> available() {
        return all().stream().map(TrainableProvider::name).toList();
    }
}
