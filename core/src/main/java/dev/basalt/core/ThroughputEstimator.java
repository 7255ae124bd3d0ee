package dev.basalt.core;

import dev.basalt.decoder.BasicBlock;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Predicts how many cycles per iteration a basic block takes in steady state on a CPU. Every Basalt model
 * (GRANITE, Ithemal, the simulator) implements this. Implementations say in their javadoc whether they are
 * thread-safe.
 */
public interface ThroughputEstimator {

    /** The estimator's name as {@code basalt predict --model} spells it. */
    String name();

    /** The CPUs it can predict for. */
    Set<Microarchitecture> supported();

    /**
     * Predicts one block.
     *
     * @throws IllegalArgumentException if {@code uarch} is not {@linkplain #supported() supported}
     */
    Prediction predict(BasicBlock block, Microarchitecture uarch);

    /** Predicts many blocks; estimators that batch (the neural networks) override this. */
    default List<Prediction> predictAll(List<BasicBlock> blocks, Microarchitecture uarch) {
        List<Prediction> out = new ArrayList<>(blocks.size());
        for (BasicBlock b : blocks) {
            out.add(predict(b, uarch));
        }
        return out;
    }

    /**
     * Predicts many blocks, leaving empty the ones this estimator cannot predict ({@link
     * UnpredictableBlockException}) instead of failing them all; any other exception propagates. Estimators
     * that can tell which blocks failed in one batch (llvm-mca) override this.
     */
    default List<Optional<Prediction>> predictEach(List<BasicBlock> blocks, Microarchitecture uarch) {
        try {
            return predictAll(blocks, uarch).stream().map(Optional::of).toList();
        } catch (UnpredictableBlockException batchFailed) {
            List<Optional<Prediction>> out = new ArrayList<>(blocks.size());
            for (BasicBlock b : blocks) {
                try {
                    out.add(Optional.of(predict(b, uarch)));
                } catch (UnpredictableBlockException e) {
                    out.add(Optional.empty());
                }
            }
            return out;
        }
    }

    /**
     * Predictions used as another model's input features (a learned model's prior, one per CPU head): as
     * {@link #predictAll}, except that a block {@code uarch} cannot run ({@link IsaSupport}) is priced as if it
     * could, since a feature for one CPU's head must exist whenever the block is predicted for another. Never show
     * these to a user as predictions.
     */
    default List<Prediction> predictFeatures(List<BasicBlock> blocks, Microarchitecture uarch) {
        return predictAll(blocks, uarch);
    }

    /** The names of the {@link Prediction#details()} this estimator gives, in order (none by default). */
    default List<String> detailNames() {
        return List.of();
    }

    /**
     * A SHA-256 (hex) of everything that determines this estimator's predictions on {@code cpus} (its tables,
     * weights and options), so that an artifact resting on it, such as a learned model with this estimator as its
     * prior, can tell when it changed — and is not disturbed when a CPU it does not use is added. Empty (the
     * default) when the estimator does not compute one.
     */
    default Optional<String> fingerprint(java.util.Collection<Microarchitecture> cpus) {
        return Optional.empty();
    }

    /** The {@linkplain #fingerprint(java.util.Collection) fingerprint} over every supported CPU. */
    default Optional<String> fingerprint() {
        return fingerprint(supported());
    }

    /**
     * What a user of this estimator should know before trusting its predictions, e.g. that the prior a learned
     * model was trained on has changed since; empty (the default) when there is nothing to say.
     */
    default List<String> warnings() {
        return List.of();
    }

    /**
     * {@link #checkSupported(Microarchitecture)}, and an {@link UnpredictableBlockException} naming the instruction
     * when {@code uarch} does not have every instruction of {@code block} ({@link IsaSupport}): no number for code
     * the CPU cannot run.
     */
    default void checkSupported(BasicBlock block, Microarchitecture uarch) {
        checkSupported(uarch);
        java.util.Optional<String> why = IsaSupport.unsupported(block, uarch);
        if (why.isPresent()) {
            throw new UnpredictableBlockException(why.get());
        }
    }

    /** Fails with a clear message when {@code uarch} is not supported. */
    default void checkSupported(Microarchitecture uarch) {
        if (!supported().contains(uarch)) {
            throw new IllegalArgumentException(name() + " has no model for " + uarch + "; it supports "
                    + supported());
        }
    }
}
