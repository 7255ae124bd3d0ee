package dev.basalt.core;

import dev.basalt.decoder.BasicBlock;

import java.util.List;

/**
 * An estimator that says, per instruction, what its mechanism makes of a block: which bound each instruction
 * feeds and by how much, whether it lies on the critical dependency cycle, which mechanism limits the block. The
 * learned models take these as inputs beside the tokens (their <em>hybrid</em> inputs), so that they learn
 * corrections of the mechanism rather than of a bare number.
 */
public interface InstructionStatistics {

    /** The statistics' names, in the order {@link #statistics} gives them. */
    List<String> statisticNames();

    /**
     * The statistics of each instruction of {@code block} on {@code cpu}: [instructions][{@link
     * #statisticNames()}.size()]. Never refused for an instruction the CPU lacks (a learned model's other heads
     * need them), like {@link ThroughputEstimator#predictFeatures}.
     */
    float[][] statistics(BasicBlock block, Microarchitecture cpu);

    /**
     * An estimator whose cycles and statistics come from one computation (the bounds: one breakdown gives both), so
     * that a learned model's inputs cost one computation per block and CPU, not two.
     */
    interface Shared extends InstructionStatistics {

        /** A block's cycles (as {@link ThroughputEstimator#predictFeatures} gives them) and its statistics. */
        record Featured(double cycles, float[][] statistics) {
        }

        /** {@code block}'s cycles and statistics on {@code cpu}, never refused, like {@link #statistics}. */
        Featured featured(BasicBlock block, Microarchitecture cpu);
    }
}
