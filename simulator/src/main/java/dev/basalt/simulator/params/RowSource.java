package dev.basalt.simulator.params;

/** Where the row an instruction form resolves to comes from ({@link RowLookup}). */
public enum RowSource {
    /** The form's own row in {@link SimulatorParams#forms()}. */
    FORM,
    /** The row of the form's mnemonic in {@link SimulatorParams#mnemonics()}: the form has no row. */
    MNEMONIC,
    /** {@link SimulatorParams#generic()}: neither the form nor its mnemonic has a row. */
    GENERIC;

    /** The lower-case word, as {@code basalt simulate} prints it: {@code generic} for {@link #GENERIC}. */
    @Override
    public String toString() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }

    /** A note per form that had no row of its own ({@code fallbacks}: form → where its row came from). */
    public static void addFallbackNotes(java.util.List<String> notes, java.util.Map<String, RowSource> fallbacks) {
        fallbacks.forEach((form, source) -> notes.add("no table row for " + form + ": "
                + (source == MNEMONIC ? "its mnemonic's row was used"
                : "a generic row (one integer micro-op, latency 1) was used")));
    }
}
