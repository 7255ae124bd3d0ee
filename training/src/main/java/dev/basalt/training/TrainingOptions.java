package dev.basalt.training;

import java.util.EnumSet;
import java.util.Set;

/**
 * The model options of {@code basalt train}, each null when not given (the model's configuration default then
 * applies). A {@link TrainableProvider} says which of them its model uses and maps them onto its configuration
 * record.
 *
 * @param hidden       vector width
 * @param embedding    token embedding width
 * @param iterations   message-passing steps
 * @param learningRate Adam learning rate
 * @param epochs       maximum epochs
 * @param seed         seed of initialisation and shuffling
 * @param prior        name of the analytical prior estimator, or {@code none}
 * @param hybrid       whether the network also takes the prior's per-instruction statistics
 */
public record TrainingOptions(Integer hidden, Integer embedding, Integer iterations, Double learningRate,
                              Integer epochs, Long seed, String prior, Boolean hybrid) {

    /** One model option: a component of the record. */
    public enum Option {
        /** {@link #hidden()}. */
        HIDDEN,
        /** {@link #embedding()}. */
        EMBEDDING,
        /** {@link #iterations()}. */
        ITERATIONS,
        /** {@link #learningRate()}. */
        LEARNING_RATE,
        /** {@link #epochs()}. */
        EPOCHS,
        /** {@link #seed()}. */
        SEED,
        /** {@link #prior()}. */
        PRIOR,
        /** {@link #hybrid()}. */
        HYBRID
    }

    /** No option given. */
    public static TrainingOptions none() {
        return new TrainingOptions(null, null, null, null, null, null, null, null);
    }

    /** The options given. */
    public Set<Option> given() {
        Set<Option> given = EnumSet.noneOf(Option.class);
        for (Option o : Option.values()) {
            if (value(o) != null) {
                given.add(o);
            }
        }
        return given;
    }

    private Object value(Option option) {
        return switch (option) {
            case HIDDEN -> hidden;
            case EMBEDDING -> embedding;
            case ITERATIONS -> iterations;
            case LEARNING_RATE -> learningRate;
            case EPOCHS -> epochs;
            case SEED -> seed;
            case PRIOR -> prior;
            case HYBRID -> hybrid;
        };
    }

    /** {@link #hidden()}, or {@code absent} when not given. */
    public int hidden(int absent) {
        return hidden != null ? hidden : absent;
    }

    /** {@link #embedding()}, or {@code absent} when not given. */
    public int embedding(int absent) {
        return embedding != null ? embedding : absent;
    }

    /** {@link #iterations()}, or {@code absent} when not given. */
    public int iterations(int absent) {
        return iterations != null ? iterations : absent;
    }

    /** {@link #learningRate()}, or {@code absent} when not given. */
    public double learningRate(double absent) {
        return learningRate != null ? learningRate : absent;
    }

    /** {@link #epochs()}, or {@code absent} when not given. */
    public int epochs(int absent) {
        return epochs != null ? epochs : absent;
    }

    /** {@link #seed()}, or {@code absent} when not given. */
    public long seed(long absent) {
        return seed != null ? seed : absent;
    }

    /** {@link #hybrid()}, or {@code absent} when not given. */
    public boolean hybrid(boolean absent) {
        return hybrid != null ? hybrid : absent;
    }

    /** {@link #prior()}, or {@code absent} when not given. */
    public String prior(String absent) {
        return prior != null ? prior : absent;
    }
}
