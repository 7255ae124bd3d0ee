package dev.basalt.training;

import dev.basalt.core.ThroughputEstimator;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.IntConsumer;

/**
 * An estimator trained with {@link MultiTaskTrainer} and saved as a {@link ModelFile}: what the training
 * command needs from GRANITE and Ithemal alike.
 *
 * @param <L> the labelled example type (the datasets module's {@code LabelledBlock})
 */
public interface LearnedEstimator<L> extends ThroughputEstimator, AutoCloseable {

    /** A one-line description: kind, configuration, vocabulary size. */
    String description();

    /** Trains, stopping early on {@code validation}; returns one record per epoch run. */
    List<MultiTaskTrainer.Epoch> train(List<L> train, List<L> validation, Consumer<MultiTaskTrainer.Epoch> onEpoch,
                                       IntConsumer onBatch);

    /** Writes the model with the given provenance, atomically. */
    void save(Path file, Map<String, Object> provenance) throws IOException;

    @Override
    void close();
}
