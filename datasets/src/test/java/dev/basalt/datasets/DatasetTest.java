package dev.basalt.datasets;

import dev.basalt.core.Microarchitecture;
import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DatasetTest {

    private static List<String> resourceLines(String name) throws Exception {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(
                Dataset.class.getResourceAsStream("bhive/" + name), StandardCharsets.US_ASCII))) {
            return r.lines().toList();
        }
    }

    @Test
    void bundledSampleLoadsAllThreeFilesWithEveryRowAccountedFor() throws Exception {
        long start = System.nanoTime();
        Dataset d = Dataset.bundled();
        double seconds = (System.nanoTime() - start) / 1e9;
        System.err.printf("loaded the bundled BHive sample in %.2f s:%n", seconds);
        d.summaries().forEach(s -> System.err.println("  " + s));
        d.summaries().forEach(x -> x.issues().forEach(i -> System.err.println("    skipped " + i)));
        assertEquals(3, d.summaries().size());
        Set<String> distinct = new HashSet<>();
        for (Microarchitecture m : Microarchitecture.measured()) {
            List<String> lines = resourceLines(m.shortName() + ".csv");
            LoadSummary s = d.summaries().stream().filter(x -> x.file().contains(m.shortName())).findFirst()
                    .orElseThrow();
            assertEquals(10_000, lines.size());
            assertEquals(lines.size(), s.rowsRead(), s.toString());
            assertEquals(s.rowsRead(), s.rowsKept() + s.rowsSkipped());
            assertEquals(s.rowsKept(), d.labelled(m).size(), "every kept row is a label on " + m);
            s.issues().forEach(i -> assertTrue(!i.detail().isBlank() && i.line() >= 1, i.toString()));
            for (String l : lines) {
                distinct.add(l.substring(0, l.indexOf(',')));
            }
        }
        long skippedOrDuplicateHex = d.summaries().stream().mapToLong(LoadSummary::rowsSkipped).sum();
        assertTrue(d.blocks().size() <= distinct.size() && d.blocks().size() >= distinct.size() - skippedOrDuplicateHex);
        // The first row of hsw.csv, in cycles per iteration.
        String[] first = resourceLines("hsw.csv").get(0).split(",");
        LabelledBlock b = d.blocks().stream().filter(x -> x.hex().equals(first[0])).findFirst().orElseThrow();
        assertEquals(Double.parseDouble(first[1]) / 100, b.throughput(Microarchitecture.HASWELL).orElseThrow(), 1e-12);
    }

    @Test
    void blocksInSeveralFilesCarrySeveralLabels() {
        Dataset d = Dataset.bundled();
        long multi = d.blocks().stream().filter(b -> b.throughputs().size() > 1).count();
        long labels = d.blocks().stream().mapToLong(b -> b.throughputs().size()).sum();
        long kept = d.summaries().stream().mapToLong(LoadSummary::rowsKept).sum();
        assertEquals(kept, labels, "each kept row is exactly one label");
        assertTrue(multi > 0, "some blocks were measured on more than one CPU");
    }

    @Test
    void filters() {
        Dataset d = Dataset.bundled();
        Dataset cheap = d.filter(Filters.throughputBetween(0, 2));
        assertTrue(cheap.blocks().stream().allMatch(b -> b.throughputs().values().stream().allMatch(v -> v <= 2)));
        assertTrue(cheap.blocks().size() < d.blocks().size() && cheap.blocks().size() > 0);
        Dataset small = d.filter(Filters.instructionsBetween(1, 4));
        assertTrue(small.blocks().stream().allMatch(b -> b.block().size() <= 4));
        Dataset clean = d.filter(Filters.notMayAlias());
        assertTrue(clean.blocks().stream().noneMatch(b -> Filters.isMayAlias(b.hex())));
        assertTrue(clean.blocks().size() < d.blocks().size(), "the sample contains may-alias blocks");
        assertEquals(d.fingerprint(), Dataset.bundled().fingerprint());
    }
}
