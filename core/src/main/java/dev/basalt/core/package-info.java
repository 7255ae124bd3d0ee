/**
 * The estimator API every model implements ({@code ThroughputEstimator}, {@code Prediction},
 * {@code Microarchitecture}) and the training pieces the learned models share. Filled in by the GRANITE issue;
 * the foundation only reserves the module so that dependencies point downwards from the start.
 */
package dev.basalt.core;
