package dev.basalt.datasets;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * What loading one file did: rows read (a header row is not counted), rows kept, and every skipped row with
 * its reason.
 *
 * @param file     file or resource name
 * @param rowsRead data rows read
 * @param rowsKept rows that became blocks
 * @param issues   every skipped row, in file order
 */
public record LoadSummary(String file, long rowsRead, long rowsKept, List<RowIssue> issues) {

    public LoadSummary {
        Objects.requireNonNull(file, "file");
        issues = List.copyOf(issues);
        if (rowsRead != rowsKept + issues.size()) {
            throw new IllegalArgumentException("rows read (" + rowsRead + ") must equal kept (" + rowsKept
                    + ") plus skipped (" + issues.size() + ")");
        }
    }

    /** Skipped rows counted by reason (reasons with no rows are absent). */
    public Map<SkipReason, Long> skippedByReason() {
        Map<SkipReason, Long> m = new EnumMap<>(SkipReason.class);
        for (RowIssue i : issues) {
            m.merge(i.reason(), 1L, Long::sum);
        }
        return m;
    }

    /** Number of skipped rows. */
    public long rowsSkipped() {
        return issues.size();
    }

    /** One line: {@code hsw.csv: 10000 rows read, 9998 kept, 2 skipped (DECODE_FAILURE 1, DUPLICATE 1)}. */
    @Override
    public String toString() {
        String reasons = skippedByReason().entrySet().stream().map(e -> e.getKey() + " " + e.getValue())
                .collect(Collectors.joining(", "));
        return file + ": " + rowsRead + " rows read, " + rowsKept + " kept, " + rowsSkipped() + " skipped"
                + (reasons.isEmpty() ? "" : " (" + reasons + ")");
    }
}
