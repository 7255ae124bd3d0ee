package dev.basalt.datasets;

import dev.basalt.core.Microarchitecture;
import org.junit.jupiter.api.Test;

import java.io.StringReader;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Malformed block files load what can be loaded and report every other row precisely. */
class BlockFilesTest {

    private static BlockFiles.Loaded labelled(String content) {
        return BlockFiles.read(new StringReader(content), "test.csv", Optional.of(Microarchitecture.HASWELL));
    }

    @Test
    void everyKindOfBadRowIsReportedWithLineAndReason() {
        String content = String.join("\n",
                "4889de,100",                 // 1 ok
                "4889c2",                     // 2 missing throughput column
                "4c89ff,abc",                 // 3 non-numeric
                "4c89ff,-5",                  // 4 negative
                "4c89ff,NaN",                 // 5 NaN
                "48zzde,100",                 // 6 non-hex
                "4889d,100",                  // 7 odd number of digits
                "4889de06,100",               // 8 invalid opcode: decodes no further
                "4889de,250",                 // 9 duplicate of line 1
                "",                           // 10 blank: ignored
                "4c89ff,100,7",               // 11 extra column
                "4c89ff,0",                   // 12 zero
                "4c89ff,1e400",               // 13 overflow
                ",100",                       // 14 empty hex
                "4c89ff,200.5");              // 15 ok
        BlockFiles.Loaded r = labelled(content);
        LoadSummary s = r.summary();
        assertEquals(14, s.rowsRead(), s.toString());
        assertEquals(2, s.rowsKept());
        List<String> got = s.issues().stream().map(i -> i.line() + " " + i.reason()).toList();
        assertEquals(List.of("2 MISSING_COLUMN", "3 NON_NUMERIC_THROUGHPUT", "4 NON_POSITIVE_THROUGHPUT",
                "5 NON_FINITE_THROUGHPUT", "6 NOT_HEX", "7 NOT_HEX", "8 DECODE_FAILURE", "9 DUPLICATE",
                "11 EXTRA_COLUMNS", "12 NON_POSITIVE_THROUGHPUT", "13 NON_FINITE_THROUGHPUT", "14 MISSING_COLUMN"),
                got);
        assertTrue(s.issues().get(6).detail().contains("byte offset 3"), s.issues().get(6).detail());
        assertTrue(s.issues().get(1).detail().contains("'abc'"), s.issues().get(1).detail());
        assertEquals(1.0, r.blocks().get(0).throughput(Microarchitecture.HASWELL).orElseThrow(), 0);
        assertEquals(2.005, r.blocks().get(1).throughput(Microarchitecture.HASWELL).orElseThrow(), 1e-12);
        assertEquals(Map.of(SkipReason.MISSING_COLUMN, 2L, SkipReason.NON_NUMERIC_THROUGHPUT, 1L,
                SkipReason.NON_POSITIVE_THROUGHPUT, 2L, SkipReason.NON_FINITE_THROUGHPUT, 2L, SkipReason.NOT_HEX, 2L,
                SkipReason.DECODE_FAILURE, 1L, SkipReason.DUPLICATE, 1L, SkipReason.EXTRA_COLUMNS, 1L),
                s.skippedByReason());
    }

    @Test
    void headerBomAndCrlf() {
        BlockFiles.Loaded r = labelled("\uFEFFhex,cycles_per_100_iterations\r\n4889de,101.5\r\n4889c2,99\r\n");
        assertEquals(2, r.summary().rowsRead());
        assertEquals(2, r.summary().rowsKept());
        assertEquals(1.015, r.blocks().get(0).throughput(Microarchitecture.HASWELL).orElseThrow(), 1e-12);
        // Without a header, a BOM before the first block is still stripped.
        BlockFiles.Loaded noHeader = labelled("\uFEFF4889de,100\r\n");
        assertEquals(1, noHeader.summary().rowsKept(), noHeader.summary().toString());
    }

    @Test
    void aQuoteNeverClosedEndsTheRowsWithAnIssueNamingItsLine() {
        // found by CsvFuzzTest: commons-csv throws on an unclosed quote; the rows before it stand, the rest is one issue
        BlockFiles.Loaded r = labelled("4889de,100\n4889c2,99\n\"4801d8,3\n4801c8,1\n");
        assertEquals(2, r.summary().rowsKept());
        assertEquals(1, r.summary().issues().size(), r.summary().toString());
        assertEquals(SkipReason.MALFORMED_CSV, r.summary().issues().get(0).reason());
        assertEquals(3, r.summary().issues().get(0).line());
    }

    @Test
    void emptyFile() {
        BlockFiles.Loaded r = labelled("");
        assertEquals(0, r.summary().rowsRead());
        assertEquals(0, r.blocks().size());
        assertEquals("test.csv: 0 rows read, 0 kept, 0 skipped", r.summary().toString());
    }

    @Test
    void plainBlockLists() {
        BlockFiles.Loaded r = BlockFiles.read(new StringReader("4889de\n48 89 C2\n4889de4889c2,0.000012\nzz\n"),
                "list.txt", Optional.empty());
        assertEquals(4, r.summary().rowsRead());
        assertEquals(3, r.summary().rowsKept());
        assertEquals(List.of("4889de", "4889c2", "4889de4889c2"), r.blocks().stream().map(LabelledBlock::hex).toList());
        assertEquals(SkipReason.NOT_HEX, r.summary().issues().get(0).reason());
        assertEquals(4, r.summary().issues().get(0).line());
    }
}
