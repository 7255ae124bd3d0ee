package dev.basalt.datasets;

import java.util.Objects;

/**
 * One skipped row: where it is and why.
 *
 * @param file   the file (or bundled resource) name
 * @param line   1-based line number of the row
 * @param reason the reason class
 * @param detail the specific problem, with the offending value
 */
public record RowIssue(String file, long line, SkipReason reason, String detail) {
    public RowIssue {
        Objects.requireNonNull(file, "file");
        Objects.requireNonNull(reason, "reason");
        Objects.requireNonNull(detail, "detail");
    }

    @Override
    public String toString() {
        return file + ":" + line + ": " + reason + ": " + detail;
    }
}
