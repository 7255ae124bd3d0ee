/**
 * What every part of Basalt shares: {@link dev.basalt.core.Microarchitecture}, atomic file writing, and (from
 * the GRANITE issue on) the {@code ThroughputEstimator} API and the shared training pieces.
 */
package dev.basalt.core;
