/**
 * The llvm-mca-style simulator, its parameter tables and DiffTune-style parameter learning (DESIGN.md §7).
 */
package dev.basalt.difftune;
