package dev.basalt.datasets;

import dev.basalt.core.Microarchitecture;
import dev.basalt.decoder.BasicBlock;
import dev.basalt.decoder.DecodeException;
import dev.basalt.decoder.Hex;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVParser;
import org.apache.commons.csv.CSVRecord;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Reads block files: BHive CSVs ({@code hex,cycles_per_100_iterations}) and plain block lists (one hex per
 * line, optionally followed by other columns such as BHive's static frequency, which are ignored).
 *
 * <p>Rows are parsed with Apache Commons CSV. A first row whose columns are not of the expected types
 * ({@code hex,throughput}, say) is a header and is neither counted nor kept. A UTF-8 byte-order mark and
 * CRLF line endings are accepted; blank lines are ignored. Every other row is either kept or reported in the
 * {@link LoadSummary} with its line and reason — one bad row never aborts a load. Throughputs are converted
 * from BHive's cycles per 100 iterations to cycles per iteration.
 */
public final class BlockFiles {

    private static final CSVFormat FORMAT = CSVFormat.DEFAULT.builder().setIgnoreEmptyLines(false)
            .setIgnoreSurroundingSpaces(true).setTrim(true).build();
    private static final Pattern DECIMAL = Pattern.compile("[+-]?(\\d+\\.?\\d*|\\.\\d+)([eE][+-]?\\d+)?");

    private BlockFiles() {
    }

    /** Blocks read from one file, and what happened to every row. */
    public record Loaded(List<LabelledBlock> blocks, LoadSummary summary) {
        public Loaded {
            blocks = List.copyOf(blocks);
        }
    }

    /** Reads a BHive CSV of measurements on {@code uarch}. */
    public static Loaded readLabelled(Path file, Microarchitecture uarch) throws IOException {
        try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            return read(r, file.toString(), Optional.of(uarch));
        }
    }

    /** Reads a plain block list (or any CSV whose first column is the block). */
    public static Loaded readUnlabelled(Path file) throws IOException {
        try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            return read(r, file.toString(), Optional.empty());
        }
    }

    /**
     * Reads rows from {@code reader}; {@code name} names the source in reports. With a {@code uarch} the rows
     * must be {@code hex,cycles_per_100_iterations}; without one only the first column is used.
     */
    public static Loaded read(Reader reader, String name, Optional<Microarchitecture> uarch) {
        List<LabelledBlock> blocks = new ArrayList<>();
        List<RowIssue> issues = new ArrayList<>();
        Map<String, Long> firstLine = new HashMap<>();
        long rows = 0;
        try (CSVParser parser = FORMAT.parse(reader)) {
            java.util.Iterator<CSVRecord> records = parser.iterator();
            while (true) {
                CSVRecord rec;
                try {
                    if (!records.hasNext()) {
                        break;
                    }
                    rec = records.next();
                } catch (UncheckedIOException broken) {
                    if (!(broken.getCause() instanceof org.apache.commons.csv.CSVException)) {
                        throw broken;
                    }
                    // a quote never closed: the rows before it stand, the rest is one issue, named
                    rows++;
                    issues.add(new RowIssue(name, parser.getRecordNumber() + 1, SkipReason.MALFORMED_CSV,
                            "the CSV syntax breaks here (" + broken.getCause().getMessage() + "): the rest of the "
                                    + "file is not read"));
                    break;
                }
                long line = rec.getRecordNumber(); // one record per line: blank lines are kept as records
                String hexField = rec.size() > 0 ? rec.get(0) : "";
                if (line == 1 && hexField.startsWith("\uFEFF")) {
                    hexField = hexField.substring(1).trim();
                }
                if (rec.size() == 1 && hexField.isEmpty()) {
                    continue; // blank line
                }
                if (line == 1 && isHeader(hexField, rec, uarch.isPresent())) {
                    continue;
                }
                rows++;
                RowIssue issue = null;
                if (uarch.isPresent() && rec.size() < 2) {
                    issue = new RowIssue(name, line, SkipReason.MISSING_COLUMN,
                            "expected hex,cycles_per_100_iterations but found 1 column '" + abbreviate(hexField)
                                    + "'");
                } else if (uarch.isPresent() && rec.size() > 2) {
                    issue = new RowIssue(name, line, SkipReason.EXTRA_COLUMNS, "expected 2 columns, found "
                            + rec.size());
                } else if (hexField.isEmpty()) {
                    issue = new RowIssue(name, line, SkipReason.MISSING_COLUMN, "empty hex column");
                }
                double cycles = Double.NaN;
                if (issue == null && uarch.isPresent()) {
                    String t = rec.get(1);
                    String lower = t.toLowerCase(Locale.ROOT);
                    if (t.isEmpty()) {
                        issue = new RowIssue(name, line, SkipReason.MISSING_COLUMN, "empty throughput column");
                    } else if (lower.matches("[+-]?(nan|inf|infinity)")) {
                        issue = new RowIssue(name, line, SkipReason.NON_FINITE_THROUGHPUT, "throughput '" + t
                                + "' is not finite");
                    } else if (!DECIMAL.matcher(t).matches()) {
                        issue = new RowIssue(name, line, SkipReason.NON_NUMERIC_THROUGHPUT, "throughput '"
                                + abbreviate(t) + "' is not a number");
                    } else {
                        cycles = Double.parseDouble(t);
                        if (Double.isInfinite(cycles)) {
                            issue = new RowIssue(name, line, SkipReason.NON_FINITE_THROUGHPUT, "throughput '"
                                    + abbreviate(t) + "' overflows a double");
                        } else if (!(cycles > 0)) {
                            issue = new RowIssue(name, line, SkipReason.NON_POSITIVE_THROUGHPUT, "throughput "
                                    + t + " is not positive");
                        }
                    }
                }
                BasicBlock block = null;
                if (issue == null) {
                    byte[] bytes = null;
                    try {
                        bytes = Hex.parse(hexField);
                    } catch (DecodeException e) {
                        issue = new RowIssue(name, line, SkipReason.NOT_HEX, "'" + abbreviate(hexField) + "': "
                                + e.getMessage());
                    }
                    if (bytes != null) {
                        try {
                            block = BasicBlock.fromBytes(bytes);
                        } catch (DecodeException e) {
                            issue = new RowIssue(name, line, SkipReason.DECODE_FAILURE, abbreviate(hexField)
                                    + ": " + e.getMessage());
                        }
                    }
                }
                if (issue == null) {
                    Long earlier = firstLine.putIfAbsent(block.hex(), line);
                    if (earlier != null) {
                        issue = new RowIssue(name, line, SkipReason.DUPLICATE, "same block as line " + earlier
                                + " (the first is kept)");
                    }
                }
                if (issue != null) {
                    issues.add(issue);
                    continue;
                }
                blocks.add(uarch.isPresent()
                        ? new LabelledBlock(block, Map.of(uarch.get(), cycles / 100.0))
                        : LabelledBlock.unlabelled(block));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + name + ": " + e.getMessage(), e);
        }
        return new Loaded(blocks, new LoadSummary(name, rows, blocks.size(), issues));
    }

    /** A first row is a header when none of its columns has the type a data row would have there. */
    private static boolean isHeader(String first, CSVRecord rec, boolean labelled) {
        boolean hex;
        try {
            Hex.parse(first);
            hex = true;
        } catch (DecodeException e) {
            hex = false;
        }
        boolean number = rec.size() > 1 && DECIMAL.matcher(rec.get(1)).matches();
        return !hex && (!labelled || !number) && first.chars().allMatch(c -> Character.isLetter(c) || c == '_'
                || c == ' ' || c == '-');
    }

    private static String abbreviate(String s) {
        return s.length() <= 48 ? s : s.substring(0, 45) + "...";
    }
}
