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

        Map<String, Double> measured = new HashMap<>();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(open("unlabelled.csv"),
                StandardCharsets.US_ASCII))) {
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
}
