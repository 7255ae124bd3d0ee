package dev.basalt.cli;

import dev.basalt.datasets.Metrics;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.imageio.ImageIO;
import java.awt.image.BufferedImage;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code basalt eval} end to end on the bundled Haswell test split (simulators only, to stay quick). */
class EvalCommandTest {

    @Test
    void writesTablesPredictionsAndPlotsWhoseFiguresAgree(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("eval");
        CliRun r = CliRun.of("eval", "--models", "simulator,simulator-default,llvm-mca", "--mcpu", "haswell",
                "--out", out.toString());
        assertEquals(0, r.exit(), r.err());
        for (String f : List.of("results.md", "results.csv", "predictions.csv", "scatter-haswell.png",
                "mape-by-size.png", "mape-by-program.png")) {
            assertTrue(Files.size(out.resolve(f)) > 0, f);
        }
        try (var files = Files.list(out)) {
            assertEquals(6, files.count(), "nothing else, no temporary files");
        }
        // predictions.csv: one row per block and estimator; recomputing MAPE from it gives results.csv's figure.
        Map<String, List<double[]>> byModel = new TreeMap<>();
        int rows = 0;
        try (Reader in = Files.newBufferedReader(out.resolve("predictions.csv"))) {
            for (CSVRecord rec : CSVFormat.DEFAULT.builder().setHeader().setSkipHeaderRecord(true).build().parse(in)) {
                rows++;
                if (!rec.get("predicted").isEmpty()) {
                    byModel.computeIfAbsent(rec.get("estimator"), k -> new ArrayList<>()).add(new double[] {
                        Double.parseDouble(rec.get("predicted")), Double.parseDouble(rec.get("measured"))});
                }
            }
        }
        boolean llvmMca = byModel.containsKey("llvm-mca");
        int blocks = byModel.get("simulator").size();
        assertTrue(blocks > 900, "Haswell test split: " + blocks);
        assertEquals(3 * blocks, rows);
        try (Reader in = Files.newBufferedReader(out.resolve("results.csv"))) {
            for (CSVRecord rec : CSVFormat.DEFAULT.builder().setHeader().setSkipHeaderRecord(true).build().parse(in)) {
                String m = rec.get("estimator");
                if (m.equals("llvm-mca") && !llvmMca) {
                    assertTrue(rec.get("note").contains("skipped"), rec.toString());
                    continue;
                }
                List<double[]> pm = byModel.get(m);
                double[] p = pm.stream().mapToDouble(x -> x[0]).toArray();
                double[] y = pm.stream().mapToDouble(x -> x[1]).toArray();
                assertEquals(Metrics.mape(p, y), Double.parseDouble(rec.get("mape")), 1e-12, m);
                assertEquals(pm.size(), Integer.parseInt(rec.get("predicted")), m);
            }
        }
        String md = Files.readString(out.resolve("results.md"));
        assertTrue(md.contains("| HASWELL | simulator | " + blocks + " / " + blocks + " |")
                || md.contains("| haswell | simulator | " + blocks + " / " + blocks + " |"), md);
        BufferedImage scatter = ImageIO.read(out.resolve("scatter-haswell.png").toFile());
        assertNotNull(scatter);
        assertEquals(3 * 420, scatter.getWidth(), "one panel per estimator");
        assertTrue(r.out().contains("| estimator |") || r.out().contains("estimator"), r.out());
    }

    /**
     * The bundled learned models' 90% intervals hold on the test split of every CPU: 85–95% of measurements inside
     * (the bar), as results.csv says and as predictions.csv recomputes; the reliability plot is written.
     */
    @Test
    void learnedModelsIntervalsAreCalibratedOnEveryCpu(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("eval");
        CliRun r = CliRun.of("eval", "--models", "granite,ithemal", "--mcpu", "haswell,skylake,ivybridge", "--out",
                out.toString());
        assertEquals(0, r.exit(), r.err());
        assertNotNull(ImageIO.read(out.resolve("reliability.png").toFile()));
        Map<String, int[]> inside = new TreeMap<>(); // estimator mcpu -> inside, total
        try (Reader in = Files.newBufferedReader(out.resolve("predictions.csv"))) {
            for (CSVRecord rec : CSVFormat.DEFAULT.builder().setHeader().setSkipHeaderRecord(true).build().parse(in)) {
                double y = Double.parseDouble(rec.get("measured"));
                double low = Double.parseDouble(rec.get("interval_low"));
                double high = Double.parseDouble(rec.get("interval_high"));
                assertTrue(low <= Double.parseDouble(rec.get("predicted")), rec.toString());
                int[] c = inside.computeIfAbsent(rec.get("estimator") + " " + rec.get("mcpu"), k -> new int[2]);
                c[0] += y >= low && y <= high ? 1 : 0;
                c[1]++;
            }
        }
        assertEquals(6, inside.size(), inside.keySet().toString());
        try (Reader in = Files.newBufferedReader(out.resolve("results.csv"))) {
            for (CSVRecord rec : CSVFormat.DEFAULT.builder().setHeader().setSkipHeaderRecord(true).build().parse(in)) {
                int[] c = inside.get(rec.get("estimator") + " " + rec.get("mcpu"));
                double coverage = Double.parseDouble(rec.get("interval_coverage_90"));
                assertEquals((double) c[0] / c[1], coverage, 1e-12, rec.toString());
                assertTrue(coverage >= 0.85 && coverage <= 0.95, rec.toString());
                assertTrue(Double.parseDouble(rec.get("interval_width_90")) > 0, rec.toString());
            }
        }
        assertTrue(Files.readString(out.resolve("results.md")).contains("median width (90%)"));
    }

    @Test
    void aModelFileIsAModelAndAForeignFileIsBadInput(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("mine.ithemal");
        try (var in = dev.basalt.ithemal.IthemalModel.class.getResourceAsStream("ithemal-default.ithemal")) {
            Files.write(file, in.readAllBytes());
        }
        Path out = dir.resolve("eval");
        CliRun r = CliRun.of("eval", "--models", file.toString(), "--mcpu", "haswell", "--out", out.toString());
        assertEquals(0, r.exit(), r.err());
        assertTrue(Files.readString(out.resolve("results.md")).contains("| haswell | " + file + " | "));
        Path text = dir.resolve("notes.txt");
        Files.writeString(text, "not a model\n");
        CliRun bad = CliRun.of("eval", "--models", text.toString(), "--out", dir.resolve("e2").toString());
        assertEquals(2, bad.exit(), bad.err());
        assertTrue(bad.err().startsWith("basalt eval: --models " + text + ": "), bad.err());
        assertFalse(Files.exists(dir.resolve("e2")));
    }

    @Test
    void anUnknownModelIsBadInputAndWritesNothing(@TempDir Path dir) {
        Path out = dir.resolve("eval");
        CliRun r = CliRun.of("eval", "--models", "simulator,oracle", "--out", out.toString());
        assertEquals(2, r.exit());
        assertTrue(r.err().contains("unknown model 'oracle'"), r.err());
        assertFalse(Files.exists(out));
    }

    @Test
    void aMissingLlvmMcaIsSkippedWithANote(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("eval");
        CliRun r = CliRun.of("eval", "--models", "simulator,llvm-mca", "--mcpu", "ivybridge", "--llvm-mca",
                "no-such-llvm-mca", "--out", out.toString());
        assertEquals(0, r.exit(), r.err());
        String md = Files.readString(out.resolve("results.md"));
        assertTrue(md.contains("llvm-mca | 0 / "), md);
        assertTrue(md.contains("skipped: no-such-llvm-mca is not installed"), md);
    }

    @Test
    void aCpuNoEstimatorPredictsStillGetsItsReportAndPlots(@TempDir Path dir) throws Exception {
        // crude has no Skylake model: nothing to plot for Skylake, which used to end in the chart library's
        // NoSuchElementException; now every file is written, the plots saying why they are empty.
        Path out = dir.resolve("eval");
        CliRun r = CliRun.of("eval", "--models", "crude", "--mcpu", "skylake", "--out", out.toString());
        assertEquals(0, r.exit(), r.err());
        for (String f : List.of("results.md", "results.csv", "predictions.csv", "scatter-skylake.png",
                "mape-by-size.png", "mape-by-program.png")) {
            assertTrue(Files.size(out.resolve(f)) > 0, f);
        }
        assertTrue(Files.readString(out.resolve("results.md")).contains("crude has no model for skylake"));
    }

    @Test
    void anUnwritableOutIsBadInputBeforeAnyWork(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("a-file");
        Files.writeString(file, "x");
        CliRun r = CliRun.of("eval", "--models", "simulator", "--mcpu", "haswell", "--out", file.resolve("eval").toString());
        assertEquals(2, r.exit());
        assertEquals("basalt eval: --out " + file.resolve("eval") + ": " + file + " is a file, not a folder",
                r.err().lines().findFirst().orElseThrow());
        assertEquals("", r.out(), "no work was done");
    }
}
