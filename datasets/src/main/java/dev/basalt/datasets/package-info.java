/**
 * Labelled blocks and honest evaluation (DESIGN.md §4): BHive file loading with row-level reports
 * ({@link dev.basalt.datasets.BlockFiles}), CPU-joined data sets with the bundled BHive sample
 * ({@link dev.basalt.datasets.Dataset}), hash-based splits ({@link dev.basalt.datasets.SplitScheme}), filters,
 * vocabularies, and the metrics every report uses ({@link dev.basalt.datasets.Metrics},
 * {@link dev.basalt.datasets.Evaluation}).
 */
package dev.basalt.datasets;
