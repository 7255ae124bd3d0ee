package dev.basalt.training;

import java.util.Comparator;
import java.util.List;
import java.util.ServiceLoader;
import java.util.stream.StreamSupport;

/**
 * Finds trainable models by name, as {@code core.Estimators} finds estimators: every {@link TrainableProvider} on
 * the class path.
 */
public final class Trainables {

    private Trainables() {
    }

    /**
     * The provider of the model called {@code name}.
     *
     * @throws IllegalArgumentException naming the trainable models when {@code name} is none of them
     */
    public static TrainableProvider<?> find(String name) {
        List<TrainableProvider<?>> all = all();
        return all.stream().filter(p -> p.name().equals(name)).findFirst().orElseThrow(() ->
                new IllegalArgumentException("unknown model '" + name + "': " + (all.isEmpty()
                        ? "no trainable model is on the class path"
                        : "the trainable models are " + String.join(", ", available()))));
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
