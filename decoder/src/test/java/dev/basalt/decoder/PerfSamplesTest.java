package dev.basalt.decoder;

import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.StringReader;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code perf script} text mapped to a file's addresses, on lines as perf 6.1 prints them (taken from profiles of a
 * gcc-built program on this machine, addresses kept): by symbol, by mapping, by the address of a program loaded where it
 * was linked, and by a call graph's relative frame.
 */
class PerfSamplesTest {

    // A position-independent program: .text at file offset 0x1040, address 0x1040; dot at 0x11d0 (72 bytes).
    private static final ElfCode.Functions PIE = new ElfCode.Functions(
            List.of(new ElfCode.Function("main", 0x1060, new byte[0x60]),
                    new ElfCode.Function("dot", 0x11d0, new byte[0x48])),
            false, Set.of(), List.of(), ElfCode.Boundaries.SYMBOLS,
            List.of(new ElfCode.Placement(0x1040, 0x1040, 0x1f6)));

    // The same, stripped: its functions from the unwind table, no names.
    private static final ElfCode.Functions STRIPPED = new ElfCode.Functions(
            List.of(new ElfCode.Function("fun_11d0", 0x11d0, new byte[0x48])), true, Set.of(0x11d0L), List.of(),
            ElfCode.Boundaries.UNWIND_TABLE, List.of(new ElfCode.Placement(0x1040, 0x1040, 0x1f6)));

    // Linked at 0x401040 (text at file offset 0x1040): it runs at its own addresses.
    private static final ElfCode.Functions FIXED = new ElfCode.Functions(
            List.of(new ElfCode.Function("fun_4011c0", 0x4011c0, new byte[0x48])), true, Set.of(0x4011c0L),
            List.of(), ElfCode.Boundaries.UNWIND_TABLE, List.of(new ElfCode.Placement(0x1040, 0x401040, 0x1f6)));

    private static PerfSamples.Counts read(String text, String file, ElfCode.Functions found) throws IOException {
        return PerfSamples.read(new BufferedReader(new StringReader(text)), "perf.txt", Path.of(file), found);
    }

    @Test
    void aSampleIsPlacedByItsSymbolAndOffset() throws IOException {
        String text = """
                             hot  6893 60083.068959:     250000 cpu-clock:      7f5ca19f762a handle_amd+0xa (/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2)
                             hot  6893 60083.069438:     250000 cpu-clock:      558b501111f2 dot+0x22 (/tmp/prof/hot)
                             hot  6893 60083.069685:     250000 cpu-clock:      558b501111f2 dot+0x22 (/tmp/prof/hot)
                             hot  6893 60083.069935:     250000 cpu-clock:      558b501110a6 main+0x46 (/tmp/prof/hot)
                             hot  6893 60083.070185:     250000 cpu-clock:  ffffffff815a7cb7 filemap_map_pages+0x1d7 ([kernel.kallsyms])
                """;
        PerfSamples.Counts c = read(text, "/tmp/prof/hot", PIE);
        assertEquals(5, c.total());
        assertEquals(3, c.inFile());
        assertEquals(0, c.unmapped());
        assertEquals(Map.of(0x11f2L, 2L, 0x10a6L, 1L), c.byAddress());
        assertEquals(2, c.between(0x11d0, 0x1218));
        assertEquals(0, c.between(0x11d0, 0x11f2), "the end of a range is not in it");
        assertEquals(Set.of("/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2", "[kernel.kallsyms]"),
                c.others().keySet());
    }

    @Test
    void anUnnamedSampleIsPlacedByTheMappingThatHoldsIt() throws IOException {
        // 0x558b501111f2 - 0x558b50111000 + 0x1000 = file offset 0x11f2, address 0x11f2
        String text = """
                    hot-stripped  7867 60326.298725: PERF_RECORD_MMAP2 7867/7867: [0x558b50111000(0x1000) @ 0x1000 fe:00 2187615 557253333]: r-xp /tmp/prof/hot-stripped
                    hot-stripped  7867 60326.298760: PERF_RECORD_MMAP2 7867/7867: [0x7f5ca19e1000(0x2000) @ 0 00:00 0 0]: r-xp [vdso]
                    hot-stripped  7867 60326.299506:     250000 cpu-clock:      558b501111f2 [unknown] (/tmp/prof/hot-stripped)
                    hot-stripped  7867 60326.299758:     250000 cpu-clock:      558b501111e9 [unknown] (/tmp/prof/hot-stripped)
                """;
        PerfSamples.Counts c = read(text, "/tmp/prof/hot-stripped", STRIPPED);
        assertEquals(Map.of(0x11f2L, 1L, 0x11e9L, 1L), c.byAddress());
        // without the mapping (perf script without --show-mmap-events) the samples are counted, not placed
        PerfSamples.Counts without = read(text.lines().filter(l -> !l.contains("MMAP")).reduce("", (a, b) -> a + b
                + "\n"), "/tmp/prof/hot-stripped", STRIPPED);
        assertEquals(2, without.inFile());
        assertEquals(2, without.unmapped());
        assertEquals(0, without.mapped());
    }

    @Test
    void aProgramLoadedWhereItWasLinkedAndACallGraphsFrames() throws IOException {
        String plain = """
                       hot-nopie  7990 60330.737350:     250000 cpu-clock:            4011e2 [unknown] (/tmp/prof/hot-nopie)
                """;
        assertEquals(Map.of(0x4011e2L, 1L), read(plain, "/tmp/prof/hot-nopie", FIXED).byAddress());
        // perf record -g: the first frame is the sample, printed relative to the mapping (file offset 0x11e2)
        String graph = """
                hot-nopie  7990 60330.737350:     250000 cpu-clock:\s
                \t            11e2 [unknown] (/tmp/prof/hot-nopie)
                \t               0 [unknown] ([unknown])

                hot-nopie  7990 60330.737599:     250000 cpu-clock:\s
                \tffffffff82250979 _raw_spin_unlock_irqrestore+0x19 ([kernel.kallsyms])
                \tffffffff815bd47b folio_batch_move_lru+0xbb ([kernel.kallsyms])

                """;
        PerfSamples.Counts c = read(graph, "/tmp/prof/hot-nopie", FIXED);
        assertEquals(2, c.total(), "one sample per call graph, not per frame");
        assertEquals(Map.of(0x4011e2L, 1L), c.byAddress());
    }

    @Test
    void aTextWithoutSamplesOrWithAnEndlessLineIsRefusedByName() {
        IOException none = assertThrows(IOException.class, () -> read("hello\nworld\n", "/bin/ls", PIE));
        assertTrue(none.getMessage().startsWith("perf.txt: no sample in it"), none.getMessage());
        IOException endless = assertThrows(IOException.class, () -> read("x".repeat(1 << 20), "/bin/ls", PIE));
        assertTrue(endless.getMessage().startsWith("perf.txt:1: a line of more than"), endless.getMessage());
        IOException wide = assertThrows(IOException.class, () -> read(
                "  a  1 2.5:  1 cpu-clock:  1ffffffffffffffff x (/tmp/prof/hot)\n", "/tmp/prof/hot", PIE));
        assertTrue(wide.getMessage().startsWith("perf.txt:1: a sample address past 64 bits"), wide.getMessage());
    }
}
