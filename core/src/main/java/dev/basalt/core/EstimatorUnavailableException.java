package dev.basalt.core;

/**
 * An estimator that exists but cannot run on this machine (an external tool such as llvm-mca-14 is not
 * installed). The message says what is missing and how to install it; callers that evaluate many estimators
 * report it and go on.
 */
public final class EstimatorUnavailableException extends RuntimeException {
    public EstimatorUnavailableException(String message) {
        super(message);
    }
}
