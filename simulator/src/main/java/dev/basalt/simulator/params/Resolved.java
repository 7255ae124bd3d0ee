package dev.basalt.simulator.params;

/** The parameters a form resolves to, and where they come from ({@link RowLookup#resolve}). */
public record Resolved(InstructionParams row, RowSource source) {
}
