package dev.basalt.cli;

import dev.basalt.core.Microarchitecture;
import dev.basalt.datasets.BlockFiles;
import dev.basalt.datasets.Dataset;
import dev.basalt.datasets.LabelledBlock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DatasetCommandTest {

    private static CliRun run(String... args) {
        return CliRun.of(args);
    }

    @Test
    void statsOfTheBundledSampleWithHistogram(@TempDir Path dir) throws Exception {
        Path png = dir.resolve("hist.png");
        CliRun r = run("dataset", "stats", "--plot", png.toString());
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().contains("29073 distinct blocks"), r.out());
        assertTrue(r.out().contains("bundled hsw.csv: 10000 rows read, 10000 kept, 0 skipped"), r.out());
        // haswell: 10,000 blocks, and its median throughput as the data says.
        double[] hsw = Dataset.bundled().labelled(Microarchitecture.HASWELL).stream()
                .mapToDouble(b -> b.throughput(Microarchitecture.HASWELL).orElseThrow()).toArray();
        String median = String.format(java.util.Locale.ROOT, "%.2f", dev.basalt.datasets.Metrics.percentile(hsw, 50));
        String line = r.out().lines().filter(l -> l.startsWith("haswell")).findFirst().orElseThrow();
        assertTrue(line.contains(" 10000 ") && line.contains(" " + median + " "), line);
        byte[] head = java.util.Arrays.copyOf(Files.readAllBytes(png), 8);
        assertArrayEquals(new byte[] {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'}, head);
    }

    @Test
    void splitWritesBhiveCsvsThatReadBackToTheSameData(@TempDir Path dir) throws Exception {
        CliRun r = run("dataset", "split", "--out", dir.toString(), "--mcpu", "skl");
        assertEquals(0, r.exit(), r.err());
        Map<String, Double> back = new HashMap<>();
        int rows = 0;
        for (String split : new String[] {"train", "validation", "test"}) {
            BlockFiles.Loaded l = BlockFiles.readLabelled(dir.resolve(split).resolve("skl.csv"),
                    Microarchitecture.SKYLAKE);
            assertEquals(0, l.summary().rowsSkipped());
            rows += l.blocks().size();
            for (LabelledBlock b : l.blocks()) {
                back.put(b.hex(), b.throughput(Microarchitecture.SKYLAKE).orElseThrow());
            }
        }
        assertEquals(10_000, rows);
        for (LabelledBlock b : Dataset.bundled().labelled(Microarchitecture.SKYLAKE)) {
            assertEquals(b.throughput(Microarchitecture.SKYLAKE).orElseThrow(), back.get(b.hex()), 1e-9);
        }
        assertTrue(Files.notExists(dir.resolve("train").resolve("hsw.csv")), "only the requested CPU");
    }

    @Test
    void badCpuOrFileExitsTwo() {
        CliRun r = run("dataset", "stats", "--mcpu", "zen6");
        assertEquals(2, r.exit());
        assertTrue(r.err().startsWith("basalt dataset stats: Invalid value for option '--mcpu' (CPU): unknown "
                + "microarchitecture 'zen6'"), r.err());
        assertEquals(2, r.err().lines().count(), "one line and a pointer to --help: " + r.err());
        CliRun f = run("dataset", "--data", "hsw=/nonexistent/hsw.csv", "stats");
        assertEquals(2, f.exit());
        assertTrue(f.err().contains("/nonexistent/hsw.csv"), f.err());
    }
}
