/**
 * The GRANITE graph neural network estimator (DESIGN.md §5). So far: {@link dev.basalt.granite.GraniteGraph},
 * the block-to-graph builder; the network, training and the bundled model come with the rest of the GRANITE
 * issue.
 */
package dev.basalt.granite;
