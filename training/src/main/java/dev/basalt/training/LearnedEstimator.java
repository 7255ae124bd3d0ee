package dev.basalt.training;

import dev.basalt.core.Provenance;
import dev.basalt.core.ThroughputEstimator;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.IntConsumer;

/**
 * An estimator trained with {@link MultiTaskTrainer} and saved as a {@link ModelFile}: what the training
 * command needs from GRANITE and Ithemal alike. {@link LearnedModel} implements it around a network.
 *
 * @param <L> the labelled example type (the datasets module's {@code LabelledBlock})
 */
public interface LearnedEstimator<L> extends ThroughputEstimator, AutoCloseable {

    /** A one-line description: kind, configuration, vocabulary size. */
    String description();

    /** Trains, stopping early on {@code validation}; returns one record per epoch run. */
    List<MultiTaskTrainer.Epoch> train(List<L> train, List<L> validation, Consumer<MultiTaskTrainer.Epoch> onEpoch,
                                       IntConsumer onBatch);

    /**
     * Trains for at most {@code epochs} epochs from the current weights, stopping early on {@code validation}:
     * pre-training on blocks an analytical estimator labelled, before {@link #train} on measurements.
     */
    List<MultiTaskTrainer.Epoch> pretrain(List<L> train, List<L> validation, int epochs,
                                          Consumer<MultiTaskTrainer.Epoch> onEpoch, IntConsumer onBatch);

    /**
     * A provenance for this model made now by {@code command}: its kind ({@code granite-model}), seed and the prior
     * it rests on, by name and fingerprint. The trainer adds the data and what training reported.
     */
    Provenance newProvenance(String command);

    /** Writes the model with the given provenance, atomically. */
    void save(Path file, Provenance provenance) throws IOException;

    /** The provenance the model was loaded with; empty for a model made in this process. */
    Optional<Provenance> provenance();

    @Override
    void close();
}
