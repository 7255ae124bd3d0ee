package dev.basalt.core;

import java.util.List;
import java.util.Map;

/**
 * A throughput prediction for one block on one CPU.
 *
 * @param cyclesPerIteration steady-state cycles per iteration of the block
 * @param contributions      per-instruction contributions in cycles (in block order), or empty when the
 *                           estimator does not attribute its prediction
 * @param baseline           cycles not attributed to any one instruction — an analytical prior that a learned
 *                           model corrects — so that, with contributions, cycles = baseline + Σ contributions
 *                           (up to clamping a negative sum to zero); 0 for most estimators
 * @param details            named numbers the estimator explains its prediction with, in its order (the
 *                           analytical estimator's bounds: {@code predecoder}, {@code decoders}, ...); empty for
 *                           most estimators ({@link ThroughputEstimator#detailNames()} lists them)
 */
public record Prediction(double cyclesPerIteration, List<Double> contributions, double baseline,
                         Map<String, Double> details) {

    public Prediction {
        if (!Double.isFinite(baseline)) {
            throw new IllegalArgumentException("baseline must be finite, got " + baseline);
        }
        if (!(cyclesPerIteration >= 0) || Double.isInfinite(cyclesPerIteration)) {
            throw new IllegalArgumentException("cycles per iteration must be finite and >= 0, got "
                    + cyclesPerIteration);
        }
        contributions = List.copyOf(contributions);
        details = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(details));
    }

    /** A prediction with a baseline and no details. */
    public Prediction(double cyclesPerIteration, List<Double> contributions, double baseline) {
        this(cyclesPerIteration, contributions, baseline, Map.of());
    }

    /** A prediction whose contributions add up to it (no baseline). */
    public Prediction(double cyclesPerIteration, List<Double> contributions) {
        this(cyclesPerIteration, contributions, 0);
    }

    /** A prediction without attribution. */
    public static Prediction of(double cyclesPerIteration) {
        return new Prediction(cyclesPerIteration, List.of());
    }
}
