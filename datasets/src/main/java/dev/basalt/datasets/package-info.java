/**
 * BHive data loading (Apache Commons CSV), deterministic splits, filters, vocabulary and metrics (DESIGN.md §4).
 */
package dev.basalt.datasets;
