package dev.basalt.decoder;

/**
 * Thrown when assembly text cannot be turned into machine code: a syntax the parser does not know, or an
 * instruction Zydis' encoder has no encoding for. The message names the line and column (both from 1) and the
 * reason; {@link #line()} and {@link #column()} give them to programs.
 */
public final class AssemblyException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    private final int line;
    private final int column;

    public AssemblyException(int line, int column, String reason) {
        super("line " + line + ", column " + column + ": " + reason);
        this.line = line;
        this.column = column;
    }

    /** Line of the text (from 1). */
    public int line() {
        return line;
    }

    /** Column in that line (from 1). */
    public int column() {
        return column;
    }
}
