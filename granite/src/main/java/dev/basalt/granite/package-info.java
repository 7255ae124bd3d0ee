/**
 * The GRANITE graph neural network estimator (DESIGN.md §5).
 */
package dev.basalt.granite;
