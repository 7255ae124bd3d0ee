package dev.basalt.datasets;

/** Why a row of a block file was not kept. */
public enum SkipReason {
    /** The row has no hex column, or a labelled file's row has no throughput column. */
    MISSING_COLUMN,
    /** The row has more columns than the format allows. */
    EXTRA_COLUMNS,
    /** The hex column is not hex (non-hex characters or an odd number of digits). */
    NOT_HEX,
    /** The throughput is not a number. */
    NON_NUMERIC_THROUGHPUT,
    /** The throughput is NaN or infinite. */
    NON_FINITE_THROUGHPUT,
    /** The throughput is zero or negative. */
    NON_POSITIVE_THROUGHPUT,
    /** The hex is well-formed but is not decodable x86-64 machine code. */
    DECODE_FAILURE,
    /** The CSV syntax breaks here (a quote never closed): the rest of the file cannot be read as rows. */
    MALFORMED_CSV,
    /** The same block appeared earlier in the same file (the first row is kept). */
    DUPLICATE,
    /** The row is blank. */
    BLANK
}
