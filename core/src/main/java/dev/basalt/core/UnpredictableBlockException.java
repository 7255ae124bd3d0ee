package dev.basalt.core;

/**
 * An estimator could not predict one block (llvm-mca-14 rejected it, for example). Distinct from a bug: an
 * evaluation counts such a block against the estimator's coverage and goes on, while any other exception
 * propagates.
 */
public final class UnpredictableBlockException extends RuntimeException {
    public UnpredictableBlockException(String message) {
        super(message);
    }
}
