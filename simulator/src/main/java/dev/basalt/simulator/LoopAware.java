package dev.basalt.simulator;

import dev.basalt.core.Microarchitecture;
import dev.basalt.core.ThroughputEstimator;
import dev.basalt.decoder.BasicBlock;

/**
 * An estimator built on the simulator's machine, which can run a block as a loop or unrolled (DESIGN.md §12) and
 * say how its front end ran it.
 */
public interface LoopAware extends ThroughputEstimator {

    /** This estimator with another loop mode ({@link Simulator.LoopMode#AUTO} by default). */
    LoopAware withLoopMode(Simulator.LoopMode mode);

    /** This estimator with another memory model ({@link Simulator.MemoryModel#AUTO} by default). */
    LoopAware withMemory(Simulator.MemoryModel model);

    /** The simulator options it runs with (loop mode, memory model, the machine's switches). */
    Simulator.Options options();

    /** The memory model it runs with. */
    default Simulator.MemoryModel memory() {
        return options().memory();
    }

    /**
     * Which memory {@code block} sees on {@code uarch}: "harness" or "distinct" (AUTO resolved by loop or not), or
     * "none" where loads never wait for stores (the llvm-mca-compatible machine): {@link Simulator.Options#memoryOf}.
     */
    default String memoryOf(BasicBlock block, Microarchitecture uarch) {
        return options().memoryOf(block);
    }

    /** How the front end runs {@code block} on {@code uarch}: loop or unrolled, micro-op source, fused pairs. */
    Simulator.FrontEnd frontEnd(BasicBlock block, Microarchitecture uarch);
}
