package dev.basalt.training;

import dev.basalt.core.Microarchitecture;
import dev.basalt.datasets.LabelledBlock;
import dev.basalt.datasets.Vocabulary;
import dev.basalt.decoder.BasicBlock;

import java.util.List;
import java.util.Set;

/**
 * Makes a learned model trainable by {@code basalt train} (found by {@link Trainables} with
 * {@link java.util.ServiceLoader}; each model module lists its provider in
 * {@code META-INF/services/dev.basalt.training.TrainableProvider}), so that the command names no model.
 *
 * @param <C> the model's configuration record
 */
public interface TrainableProvider<C> {

    /** The model's name, as {@code basalt train MODEL} spells it. */
    String name();

    /** The {@link TrainingOptions} the model uses; giving any other is an error. */
    Set<TrainingOptions.Option> options();

    /** The model's configuration: its defaults with the given {@code options} in their place. */
    C config(TrainingOptions options);

    /** The vocabulary of the training blocks. */
    Vocabulary vocabulary(C config, List<BasicBlock> trainBlocks);

    /** A freshly initialised model (weights from the configuration's seed) with one head per CPU. */
    LearnedEstimator<LabelledBlock> create(C config, Vocabulary vocabulary, List<Microarchitecture> cpus);

    /** A freshly initialised model for {@code options}, with the vocabulary of {@code trainBlocks}. */
    default LearnedEstimator<LabelledBlock> create(TrainingOptions options, List<BasicBlock> trainBlocks,
                                                   List<Microarchitecture> cpus) {
        C config = config(options);
        return create(config, vocabulary(config, trainBlocks), cpus);
    }
}
