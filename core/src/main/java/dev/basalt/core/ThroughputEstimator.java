package dev.basalt.core;

import dev.basalt.decoder.BasicBlock;

import java.util.ArrayList;
import java.util.List;
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

    /** Fails with a clear message when {@code uarch} is not supported. */
    default void checkSupported(Microarchitecture uarch) {
        if (!supported().contains(uarch)) {
            throw new IllegalArgumentException(name() + " has no model for " + uarch + "; it supports "
                    + supported());
        }
    }
}
