package dev.basalt.spark;

import dev.basalt.core.Estimators;
import dev.basalt.core.Microarchitecture;
import dev.basalt.core.Prediction;
import dev.basalt.core.ThroughputEstimator;
import dev.basalt.datasets.Dataset;
import dev.basalt.datasets.LabelledBlock;
import dev.basalt.decoder.BasicBlock;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The bulk job in Spark's {@code local[2]} mode on real blocks of the bundled sample: every estimator's rows equal
 * the library's own predictions of the same blocks (what {@code basalt predict} prints), duplicates are predicted
 * once, and bad rows are kept as error rows with their reason.
 */
class BulkJobTest {

    private static SparkSession spark;

    @BeforeAll
    static void start() {
        spark = SparkSession.builder().master("local[2]").appName("basalt-bulk-test")
                .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "4").getOrCreate();
    }

    @AfterAll
    static void stop() {
        if (spark != null) {
            spark.stop();
        }
    }

    @Test
    void predictionsEqualTheLibrarysRowForRowAndBadRowsAreKept() {
        List<String> hexes = new ArrayList<>(Dataset.bundled().labelled(Microarchitecture.HASWELL).stream().limit(300)
                .map(LabelledBlock::hex).toList());
        hexes.add(hexes.get(0).toUpperCase(java.util.Locale.ROOT)); // the same block again, in capitals
        hexes.add("4889zz");                                        // not hex
        hexes.add("62f17548fec2");                                  // AVX-512: not a Haswell instruction
        List<Row> in = hexes.stream().map(h -> RowFactory.create(h)).toList();
        StructType schema = new StructType().add("hex", DataTypes.StringType, true);
        List<String> models = List.of("simulator", "bounds", "granite", "ithemal", "crude");
        List<Row> out = BulkJob.predict(spark.createDataFrame(in, schema),
                new BulkJob.Settings(models, List.of("haswell", "skylake"))).collectAsList();

        int distinct = 300 + 2; // the capitalised copy is the same block
        assertEquals(distinct * models.size() * 2, out.size());
        Map<String, Row> byKey = new HashMap<>();
        out.forEach(r -> byKey.put(r.getString(0) + "/" + r.getString(1) + "/" + r.getString(2), r));
        List<BasicBlock> blocks = hexes.subList(0, 300).stream().map(BasicBlock::fromHex).toList();
        for (String model : models) {
            ThroughputEstimator e = Estimators.load(model);
            for (Microarchitecture cpu : List.of(Microarchitecture.HASWELL, Microarchitecture.SKYLAKE)) {
                if (!e.supported().contains(cpu)) { // crude: Haswell only; an error row per block, as predict gives
                    Row r = byKey.get(blocks.get(0).hex() + "/" + cpu.llvmName() + "/" + model);
                    assertTrue(r.isNullAt(3) && r.getString(8).equals(model + " has no model for " + cpu.llvmName()),
                            r.toString());
                    continue;
                }
                List<Prediction> expected = e.predictAll(blocks, cpu);
                for (int i = 0; i < blocks.size(); i++) {
                    Row r = byKey.get(blocks.get(i).hex() + "/" + cpu.llvmName() + "/" + model);
                    assertNotNull(r, model + " " + cpu + " " + blocks.get(i).hex());
                    assertNull(r.get(8), r.toString());
                    // the simulator-based models say which memory a block saw (straight-line here: BHive's harness)
                    assertEquals(model.equals("simulator") || model.equals("bounds") ? "harness" : null, r.get(6),
                            r.toString());
                    // As basalt predict prints them (4 decimals): a learned model's batches differ between the two
                    // runs, which may move the float's last bits.
                    assertEquals(expected.get(i).cyclesPerIteration(), r.getDouble(3), 1e-4, r.toString());
                    if (expected.get(i).interval().isPresent()) {
                        assertEquals(expected.get(i).interval().get().low(), r.getDouble(4), 1e-4, r.toString());
                    } else {
                        assertTrue(r.isNullAt(4), r.toString());
                    }
                }
            }
        }
        Row notHex = byKey.get("4889zz/haswell/granite");
        assertTrue(notHex.isNullAt(3) && notHex.getString(8).contains("not a hex digit"), notHex.toString());
        Row avx512 = byKey.get("62f17548fec2/haswell/simulator");
        assertTrue(avx512.isNullAt(3) && avx512.getString(8).contains("is not an instruction of haswell"),
                avx512.toString());
    }
}
