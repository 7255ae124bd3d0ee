/**
 * COMET-style anchors and per-instruction attributions for any estimator (DESIGN.md §8).
 */
package dev.basalt.explain;
