package dev.basalt.core;

import java.util.List;
import java.util.Objects;

/**
 * Which estimator produced a prediction's number, and, when it is not the one asked for, why: a learned model
 * outside its training range answers with its prior's cycles, a model without a head for a CPU hands it to the
 * simulator. Scripts read it to tell a learned number from a fallback.
 *
 * @param estimator    the estimator whose number it is ({@code granite}, {@code simulator}, ...); empty for "the
 *                     estimator that was asked", which the caller names ({@link #orAsked(String)})
 * @param fallbackFrom the estimator that was asked and handed the block on; empty when it answered itself
 * @param reason       why it handed the block on; empty when it answered itself
 * @param unknownForms the instruction forms (tokens) the asked estimator was never trained on, when those are why
 */
public record Source(String estimator, String fallbackFrom, String reason, List<String> unknownForms) {

    /** The estimator that was asked answered itself (named by whoever asked). */
    public static final Source ASKED = new Source("", "", "", List.of());

    public Source {
        Objects.requireNonNull(estimator, "estimator");
        Objects.requireNonNull(fallbackFrom, "fallbackFrom");
        Objects.requireNonNull(reason, "reason");
        unknownForms = List.copyOf(unknownForms);
    }

    /** {@code from} handed the block to {@code estimator} because of {@code reason}. */
    public static Source fallback(String estimator, String from, String reason, List<String> unknownForms) {
        return new Source(estimator, from, reason, unknownForms);
    }

    /** Whether another estimator answered in place of the one asked. */
    public boolean isFallback() {
        return !fallbackFrom.isEmpty();
    }

    /** This source with the estimator named: {@code asked} when it answered itself. */
    public Source orAsked(String asked) {
        return estimator.isEmpty() ? new Source(asked, fallbackFrom, reason, unknownForms) : this;
    }
}
