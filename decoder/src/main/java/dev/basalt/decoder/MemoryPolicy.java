package dev.basalt.decoder;

/** How the dependency graph decides that two memory accesses may touch the same address. */
public enum MemoryPolicy {
    /**
     * Accesses alias when their address expressions are identical (segment, base, index, scale,
     * displacement; RIP-relative ones when they resolve to the same address) and no instruction between them
     * changes the base or index register. Precise for the common spill/reload and store-forwarding patterns,
     * blind to overlaps between different expressions. The default.
     */
    SAME_EXPRESSION,
    /** Every store may feed every later load (GRANITE's choice): conservative, never misses a dependency. */
    ALL_ALIAS
}
