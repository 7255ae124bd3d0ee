/**
 * The Ithemal hierarchical LSTM estimator (DESIGN.md §6).
 */
package dev.basalt.ithemal;
