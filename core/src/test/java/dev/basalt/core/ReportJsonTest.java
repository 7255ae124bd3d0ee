package dev.basalt.core;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Reported JSON carries no binary noise: six decimals, no negative zero, large and special values untouched. */
class ReportJsonTest {

    @Test
    void numbersAreWrittenToSixDecimals() throws Exception {
        ObjectNode n = ReportJson.mapper().createObjectNode();
        n.put("zero", 8.76e-17);       // a sum of attributions that is 0
        n.put("negative", -1.2e-9);
        n.put("share", 1.0 / 700);     // 0.0014285714285714286
        n.put("cycles", 0.1 + 0.2);    // 0.30000000000000004
        n.put("large", 123456789012.5);
        n.put("exact", 3.0);
        n.put("count", 42);
        assertEquals("{\"zero\":0.0,\"negative\":0.0,\"share\":0.001429,\"cycles\":0.3,\"large\":1.234567890125E11,"
                + "\"exact\":3.0,\"count\":42}", ReportJson.mapper().writeValueAsString(n));
        assertEquals(Double.NaN, ReportJson.round(Double.NaN));
        assertEquals("0.0", Double.toString(ReportJson.round(-0.0)));
        assertEquals(-2.5, ReportJson.round(-2.5000000001));
    }
}
