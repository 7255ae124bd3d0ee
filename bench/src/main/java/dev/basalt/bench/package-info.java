/**
 * JMH benchmarks of Basalt's hot paths and accuracy reports (DESIGN.md §9).
 */
package dev.basalt.bench;
