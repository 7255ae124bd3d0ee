package dev.basalt.datasets;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.zip.GZIPInputStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The data set measured on the developers' host (`basalt measure`, issue 38) is whole and says what it is: its folder
 * names the CPU its metadata records, every measured block has a plausible value and a row among the per-block
 * statistics with status ok and the same cycles, and the counts agree with the metadata.
 */
class MeasuredDataSetTest {

    private static final String DIR = "/dev/basalt/datasets/measured/amd-family26-model2/";

    private static InputStream open(String name) {
        InputStream in = MeasuredDataSetTest.class.getResourceAsStream(DIR + name);
        assertNotNull(in, DIR + name);
        return in;
    }

    @Test
    void theMeasurementsAgreeWithTheirStatisticsAndMetadata() throws IOException {
        JsonNode meta = new ObjectMapper().readTree(open("unlabelled.csv.meta.json"));
        assertEquals("AuthenticAMD", meta.path("host").path("vendor").asText());
        assertEquals(26, meta.path("host").path("family").asInt(), "the folder names family 26");
        assertEquals(2, meta.path("host").path("model").asInt(), "the folder names model 2");
        assertTrue(meta.path("complete").asBoolean());

        Map<String, Double> measured = readMeasurements(open("unlabelled.csv"));
        assertEquals(meta.path("blocks").path("ok").asInt(), measured.size());

        Map<String, Integer> statuses = new HashMap<>();
        Set<String> seen = new HashSet<>();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(new GZIPInputStream(
                open("unlabelled.csv.blocks.csv.gz")), StandardCharsets.UTF_8))) {
            assertTrue(r.readLine().startsWith("hex,status,cycles,"), "header");
            String line;
            while ((line = r.readLine()) != null) {
                String[] f = line.split(",", -1);
                assertTrue(seen.add(f[0]), "one row a block: " + f[0]);
                statuses.merge(f[1], 1, Integer::sum);
                if (f[1].equals("ok")) {
                    Double c = measured.get(f[0]);
                    assertNotNull(c, "an ok block is in the CSV: " + f[0]);
                    assertEquals(c, 100 * Double.parseDouble(f[2]), 0.006, f[0]); // the CSV rounds to 0.01
                } else {
                    assertTrue(!measured.containsKey(f[0]), "only ok blocks in the CSV: " + f[0]);
                }
            }
        }
        JsonNode blocks = meta.path("blocks");
        assertEquals(blocks.path("total").asInt(), seen.size());
        for (String status : new String[] {"ok", "unstable", "error", "refused"}) {
            assertEquals(blocks.path(status).asInt(), statuses.getOrDefault(status, 0).intValue(), status);
        }
    }

    /**
     * The Xeon 6 folder (issue 54): three measured files, each whole against its statistics and metadata, measured
     * on Intel family 6 model 167 with the register-register clock, and loaded together as {@code graniterapids}'s
     * data.
     */
    @Test
    void theXeon6FilesAgreeWithTheirStatisticsAndLoadAsGraniteRapids() throws IOException {
        String dir = "/dev/basalt/datasets/measured/intel-family6-model167/";
        int total = 0;
        Set<String> all = new HashSet<>();
        for (String name : new String[] {"unlabelled", "bhive-sample", "debian-blocks"}) {
            InputStream metaIn = MeasuredDataSetTest.class.getResourceAsStream(dir + name + ".csv.meta.json");
            assertNotNull(metaIn, name);
            JsonNode meta = new ObjectMapper().readTree(metaIn);
            assertEquals("GenuineIntel", meta.path("host").path("vendor").asText());
            assertEquals(6, meta.path("host").path("family").asInt(), "the folder names family 6");
            assertEquals(167, meta.path("host").path("model").asInt(), "the folder names model 167");
            assertTrue(meta.path("calibration").path("chain").asText().startsWith("add rax, rcx"), name
                    + ": measured with the register-register clock");
            Map<String, Double> measured = readMeasurements(
                    MeasuredDataSetTest.class.getResourceAsStream(dir + name + ".csv"));
            // Every measured value is an ok row of the statistics (debian-blocks' rows keep the hex as found, its
            // CSV the hex measured without a final branch: those are checked through the sources map).
            Map<String, String> measuredHex = new HashMap<>();
            if (name.equals("debian-blocks")) {
                try (BufferedReader r = new BufferedReader(new InputStreamReader(new GZIPInputStream(
                        MeasuredDataSetTest.class.getResourceAsStream(dir + "debian-blocks.sources.csv.gz")),
                        StandardCharsets.UTF_8))) {
                    assertTrue(r.readLine().startsWith("hex,measured_hex,"), "header");
                    String line;
                    while ((line = r.readLine()) != null) {
                        String[] f = line.split(",", -1);
                        measuredHex.put(f[0], f[1]);
                    }
                }
            }
            // Blocks found apart may be one block once their final branches are dropped: each was measured, and the
            // CSV keeps one of their values.
            Map<String, java.util.List<Double>> okRows = new HashMap<>();
            try (BufferedReader r = new BufferedReader(new InputStreamReader(new GZIPInputStream(
                    MeasuredDataSetTest.class.getResourceAsStream(dir + name + ".csv.blocks.csv.gz")),
                    StandardCharsets.UTF_8))) {
                assertTrue(r.readLine().startsWith("hex,status,cycles,"), "header");
                String line;
                while ((line = r.readLine()) != null) {
                    String[] f = line.split(",", -1);
                    if (f[1].equals("ok")) {
                        okRows.computeIfAbsent(measuredHex.getOrDefault(f[0], f[0]), h -> new java.util.ArrayList<>())
                                .add(100 * Double.parseDouble(f[2]));
                    }
                }
            }
            for (Map.Entry<String, Double> e : measured.entrySet()) {
                java.util.List<Double> rows = okRows.get(e.getKey());
                assertNotNull(rows, name + ": a measured block has an ok row: " + e.getKey());
                assertTrue(rows.stream().anyMatch(c -> Math.abs(c - e.getValue()) <= 0.006), e.getKey() + ": "
                        + e.getValue() + " vs " + rows); // the CSV rounds to 0.01
            }
            if (!name.equals("debian-blocks")) {
                assertEquals(measured.keySet(), okRows.keySet(), name + ": the CSV holds exactly the ok rows");
                assertTrue(okRows.values().stream().allMatch(v -> v.size() == 1), name + ": one row a block");
            }
            total += measured.size();
            all.addAll(measured.keySet());
        }
        assertEquals(141_863, total);
        dev.basalt.core.Microarchitecture gnr = dev.basalt.core.Microarchitecture.parse("graniterapids");
        assertEquals("measured by Basalt", gnr.evidence());
        Dataset d = Dataset.measured(gnr);
        assertEquals(all.size(), d.labelled(gnr).size(), "the three files joined by hex");
        SplitScheme s = SplitScheme.defaults();
        assertEquals(all.size(), d.blocks(s, Split.TRAIN).size() + d.blocks(s, Split.VALIDATION).size()
                + d.blocks(s, Split.TEST).size());
    }

    @Test
    void theCpuItWasMeasuredOnLoadsItAsItsData() {
        // znver5's descriptor names this folder; the data set is its labels, BHive's hash split over them.
        dev.basalt.core.Microarchitecture zen5 = dev.basalt.core.Microarchitecture.parse("znver5");
        assertEquals(java.util.Optional.of("amd-family26-model2"), zen5.descriptor().measured());
        assertEquals("measured by Basalt", zen5.evidence());
        assertEquals("BHive", dev.basalt.core.Microarchitecture.SKYLAKE.evidence());
        assertEquals("imported only", dev.basalt.core.Microarchitecture.parse("znver4").evidence());
        Dataset d = Dataset.measured(zen5);
        assertEquals(120_564, d.labelled(zen5).size());
        SplitScheme s = SplitScheme.defaults();
        assertEquals(96_304, d.blocks(s, Split.TRAIN).size());
        assertEquals(12_063, d.blocks(s, Split.VALIDATION).size());
        assertEquals(12_197, d.blocks(s, Split.TEST).size());
        // The first row of the CSV: 125.30 cycles per 100 iterations.
        assertEquals(1.2530, d.blocks().get(0).throughput(zen5).getAsDouble(), 1e-9);
        org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> Dataset.measured(dev.basalt.core.Microarchitecture.SKYLAKE));
    }

    /** A BHive CSV of measurements (hex, cycles per 100 iterations), each row checked, each block once. */
    private static Map<String, Double> readMeasurements(java.io.InputStream in) throws java.io.IOException {
        Map<String, Double> measured = new HashMap<>();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.US_ASCII))) {
            String line;
            while ((line = r.readLine()) != null) {
                String[] f = line.split(",");
                assertEquals(2, f.length, line);
                assertTrue(f[0].matches("([0-9a-f]{2})+"), line);
                double cycles = Double.parseDouble(f[1]);
                assertTrue(cycles > 0 && cycles < 1e7, line);
                assertTrue(measured.put(f[0], cycles) == null, "measured once: " + f[0]);
            }
        }
        return measured;
    }
}
