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

    /** How the front end runs {@code block} on {@code uarch}: loop or unrolled, micro-op source, fused pairs. */
    Simulator.FrontEnd frontEnd(BasicBlock block, Microarchitecture uarch);
}
