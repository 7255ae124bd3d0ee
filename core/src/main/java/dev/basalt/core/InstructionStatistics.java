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
}
