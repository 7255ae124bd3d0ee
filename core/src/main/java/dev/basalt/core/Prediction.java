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
 * @param notes              what the user should know before trusting the number: instructions whose cost no
 *                           estimator models ({@link UnmodelledInstructions}), table rows the simulator lacked;
 *                           empty when nothing is known to be wrong
 * @param intervals          prediction intervals at several levels, by increasing level (a learned model's, from
 *                           its calibration); empty when the estimator gives none
 * @param source             which estimator's number this is: {@link Source#ASKED} when the estimator asked
 *                           answered itself, else the one it handed the block to and why
 */
public record Prediction(double cyclesPerIteration, List<Double> contributions, double baseline,
                         Map<String, Double> details, List<String> notes, List<Interval> intervals, Source source) {

    public Prediction {
        if (!Double.isFinite(baseline)) {
            throw new IllegalArgumentException("baseline must be finite, got " + baseline);
        }
        if (!(cyclesPerIteration >= 0) || Double.isInfinite(cyclesPerIteration)) {
            throw new IllegalArgumentException("cycles per iteration must be finite and >= 0, got "
                    + cyclesPerIteration);
        }
        contributions = List.copyOf(contributions);
        details = details instanceof Details ? details // immutable and ordered already
                : java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(details));
        notes = List.copyOf(notes);
        intervals = List.copyOf(intervals);
        java.util.Objects.requireNonNull(source, "source");
    }

    /** A prediction the estimator asked made itself. */
    public Prediction(double cyclesPerIteration, List<Double> contributions, double baseline,
                      Map<String, Double> details, List<String> notes, List<Interval> intervals) {
        this(cyclesPerIteration, contributions, baseline, details, notes, intervals, Source.ASKED);
    }

    /** This prediction as made by {@code by}. */
    public Prediction withSource(Source by) {
        return new Prediction(cyclesPerIteration, contributions, baseline, details, notes, intervals, by);
    }

    /** Which estimator made it, {@code asked} when the estimator asked answered itself. */
    public Source source(String asked) {
        return source.orAsked(asked);
    }

    /** A prediction without intervals. */
    public Prediction(double cyclesPerIteration, List<Double> contributions, double baseline,
                      Map<String, Double> details, List<String> notes) {
        this(cyclesPerIteration, contributions, baseline, details, notes, List.of());
    }

    /** A prediction with details and no notes. */
    public Prediction(double cyclesPerIteration, List<Double> contributions, double baseline,
                      Map<String, Double> details) {
        this(cyclesPerIteration, contributions, baseline, details, List.of());
    }

    /** This prediction with {@code more} notes after its own. */
    public Prediction withNotes(List<String> more) {
        if (more.isEmpty()) {
            return this;
        }
        List<String> all = new java.util.ArrayList<>(notes);
        all.addAll(more);
        return new Prediction(cyclesPerIteration, contributions, baseline, details, all, intervals, source);
    }

    /** This prediction with {@code levels} as its intervals. */
    public Prediction withIntervals(List<Interval> levels) {
        return new Prediction(cyclesPerIteration, contributions, baseline, details, notes, levels, source);
    }

    /** The interval at {@code level}, when the estimator gives one. */
    public java.util.Optional<Interval> interval(double level) {
        return intervals.stream().filter(i -> Math.abs(i.level() - level) < 1e-9).findFirst();
    }

    /** The 90% interval ({@link Interval#DEFAULT_LEVEL}), when the estimator gives one. */
    public java.util.Optional<Interval> interval() {
        return interval(Interval.DEFAULT_LEVEL);
    }

    /** The notes as one line ({@code ""} without any), for a CSV cell or a JSON value. */
    public String note() {
        return String.join("; ", notes);
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
