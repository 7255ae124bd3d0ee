package dev.basalt.spark;

import dev.basalt.core.Estimators;
import dev.basalt.core.Microarchitecture;
import dev.basalt.core.Prediction;
import dev.basalt.datasets.Dataset;
import dev.basalt.datasets.LabelledBlock;
import dev.basalt.decoder.BasicBlock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code basalt bulk} end to end in {@code local[2]}: a BHive CSV in, a CSV folder out that appears whole, a summary
 * with MAPE against the input's measurements, bad rows kept and counted; bad options refused before Spark starts.
 */
class BulkCommandTest {

    record Run(int exit, String out, String err) {
    }

    static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exit = BulkCommand.run(new PrintWriter(out, true), new PrintWriter(err, true), args);
        return new Run(exit, out.toString(), err.toString());
    }

    @Test
    void predictsABhiveCsvIntoAFolderWithASummary(@TempDir Path dir) throws Exception {
        List<LabelledBlock> sample = Dataset.bundled().labelled(Microarchitecture.HASWELL).stream().limit(200).toList();
        List<String> lines = new ArrayList<>();
        for (LabelledBlock b : sample) {
            lines.add(b.hex() + "," + String.format(Locale.ROOT, "%.2f",
                    100 * b.throughput(Microarchitecture.HASWELL).orElseThrow()));
        }
        lines.add(lines.get(0)); // a duplicate row: one block
        lines.add("not-a-block,100");
        Path input = dir.resolve("hsw.csv");
        Files.write(input, lines);
        Path output = dir.resolve("out");
        Run r = run("--input", input.toString(), "--output", output.toString(), "--models", "simulator,bounds",
                "--mcpu", "haswell", "--format", "csv", "--master", "local[2]");
        assertEquals(0, r.exit(), r.err() + r.out());
        assertTrue(r.out().contains("202 rows read, 201 distinct blocks, 2 error rows (kept, with their reason)"),
                r.out());
        assertTrue(r.out().matches("(?s).*simulator +haswell +200 +[0-9.]+ +[0-9.]+% \\(200\\).*"), r.out());
        // The folder holds CSV parts with a header; every row is there, and equals the library's prediction.
        List<String> rows = new ArrayList<>();
        try (var parts = Files.list(output)) {
            for (Path p : parts.filter(p -> p.getFileName().toString().startsWith("part-")).sorted().toList()) {
                List<String> l = Files.readAllLines(p);
                assertEquals("hex,mcpu,model,cycles_per_iteration,interval_low,interval_high,memory,note,error,source,source_reason", l.get(0));
                rows.addAll(l.subList(1, l.size()));
            }
        }
        assertEquals(201 * 2, rows.size());
        Map<String, String> byKey = new HashMap<>();
        rows.forEach(l -> byKey.put(l.split(",", -1)[0] + "/" + l.split(",", -1)[2], l));
        List<Prediction> expected = Estimators.load("simulator").predictAll(
                sample.stream().map(LabelledBlock::block).toList(), Microarchitecture.HASWELL);
        for (int i = 0; i < sample.size(); i++) {
            String[] cells = byKey.get(sample.get(i).hex() + "/simulator").split(",", -1);
            assertEquals(expected.get(i).cyclesPerIteration(), Double.parseDouble(cells[3]), 1e-9, sample.get(i).hex());
        }
        String bad = byKey.get("not-a-block/bounds");
        assertTrue(bad.contains(",,,,") && bad.contains("not a hex digit"), bad);
        // No partial folder is left beside it.
        try (var siblings = Files.list(dir)) {
            assertEquals(List.of("hsw.csv", "out"), siblings.map(p -> p.getFileName().toString()).sorted().toList());
        }
        assertTrue(BasicBlock.fromHex(sample.get(0).hex()).size() > 0);
    }

    @Test
    void badOptionsAreRefusedBeforeSparkStarts(@TempDir Path dir) throws Exception {
        Path input = dir.resolve("in.csv");
        Files.writeString(input, "4801d8\n");
        Path existing = Files.createDirectory(dir.resolve("exists"));
        Run missing = run("--input", dir.resolve("missing.csv").toString(), "--output", dir.resolve("o").toString());
        assertEquals(2, missing.exit());
        assertTrue(missing.err().contains("--input " + dir.resolve("missing.csv") + ": no such file"), missing.err());
        Run overwrite = run("--input", input.toString(), "--output", existing.toString());
        assertEquals(2, overwrite.exit());
        assertTrue(overwrite.err().contains("exists; give a new folder"), overwrite.err());
        Run model = run("--input", input.toString(), "--output", dir.resolve("o").toString(), "--models", "nosuch");
        assertEquals(2, model.exit());
        assertTrue(model.err().contains("--models 'nosuch': unknown model"), model.err());
        Run cpu = run("--input", input.toString(), "--output", dir.resolve("o").toString(), "--mcpu", "nosuch");
        assertEquals(2, cpu.exit());
        assertTrue(cpu.err().startsWith("basalt bulk: --mcpu 'nosuch'"), cpu.err());
        assertFalse(Files.exists(dir.resolve("o")));
    }

    @Test
    void readsParquetAndLeavesNoFolderWhenItFails(@TempDir Path dir) throws Exception {
        Path good = dir.resolve("blocks.parquet");
        Path bad = dir.resolve("nohex.parquet");
        org.apache.spark.sql.SparkSession s = org.apache.spark.sql.SparkSession.builder().master("local[1]")
                .config("spark.ui.enabled", "false").getOrCreate();
        try {
            org.apache.spark.sql.types.StructType schema = new org.apache.spark.sql.types.StructType()
                    .add("hex", "string").add("cycles_per_iteration", "double");
            s.createDataFrame(List.of(org.apache.spark.sql.RowFactory.create("4801d8", 1.0),
                    org.apache.spark.sql.RowFactory.create("4801d84801c3", 2.0)), schema).write().parquet(good.toString());
            s.createDataFrame(List.of(org.apache.spark.sql.RowFactory.create("4801d8", 1.0)), new org.apache.spark.sql
                    .types.StructType().add("block", "string").add("x", "double")).write().parquet(bad.toString());
        } finally {
            s.stop();
        }
        Run ok = run("--input", good.toString(), "--output", dir.resolve("out").toString(), "--mcpu", "haswell",
                "--models", "simulator", "--measured-on", "haswell", "--master", "local[1]");
        assertEquals(0, ok.exit(), ok.err());
        assertTrue(ok.out().contains("2 rows read, 2 distinct blocks, 0 error rows"), ok.out());
        assertTrue(ok.out().matches("(?s).*simulator +haswell +2 +1\\.500 +0\\.00% \\(2\\).*"), ok.out());
        // A Parquet input without a hex column fails once Spark has read its schema: exit 2, and no output folder,
        // partial or whole.
        Run failed = run("--input", bad.toString(), "--output", dir.resolve("out2").toString(), "--mcpu", "haswell",
                "--master", "local[1]");
        assertEquals(2, failed.exit(), failed.err());
        assertTrue(failed.err().contains("needs a column 'hex'"), failed.err());
        try (var siblings = Files.list(dir)) {
            assertEquals(List.of("blocks.parquet", "nohex.parquet", "out"),
                    siblings.map(p -> p.getFileName().toString()).sorted().toList());
        }
    }
}
