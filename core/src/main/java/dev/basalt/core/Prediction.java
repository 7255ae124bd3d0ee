package dev.basalt.core;

import java.util.List;

/**
 * A throughput prediction for one block on one CPU.
 *
 * @param cyclesPerIteration steady-state cycles per iteration of the block
 * @param contributions      per-instruction contributions in cycles (in block order), or empty when the
 *                           estimator does not attribute its prediction
 */
public record Prediction(double cyclesPerIteration, List<Double> contributions) {

    public Prediction {
        if (!(cyclesPerIteration >= 0) || Double.isInfinite(cyclesPerIteration)) {
            throw new IllegalArgumentException("cycles per iteration must be finite and >= 0, got "
                    + cyclesPerIteration);
        }
        contributions = List.copyOf(contributions);
    }

    /** A prediction without attribution. */
    public static Prediction of(double cyclesPerIteration) {
        return new Prediction(cyclesPerIteration, List.of());
    }
}
