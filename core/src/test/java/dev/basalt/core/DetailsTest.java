package dev.basalt.core;

import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Details over shared names: a map like any other, in order, immutable, and kept as it is by a prediction. */
class DetailsTest {

    private static final Details.Names NAMES = Details.names(List.of("predecoder", "ports", "latency"));

    @Test
    void itIsTheOrderedMapOfItsNamesAndValues() {
        double[] values = {3.25, 1.0, 7.0};
        Map<String, Double> d = NAMES.with(values);
        values[0] = 99; // copied: the caller's array may change
        Map<String, Double> expected = new LinkedHashMap<>();
        expected.put("predecoder", 3.25);
        expected.put("ports", 1.0);
        expected.put("latency", 7.0);
        assertEquals(expected, d);
        assertEquals(expected.hashCode(), d.hashCode());
        assertEquals(List.copyOf(expected.keySet()), List.copyOf(d.keySet()));
        assertEquals(expected.toString(), d.toString());
        assertEquals(7.0, d.get("latency"));
        assertNull(d.get("issue"));
        assertThrows(UnsupportedOperationException.class, () -> d.put("issue", 1.0));
        assertThrows(UnsupportedOperationException.class, () -> d.entrySet().iterator().next().setValue(2.0));
    }

    @Test
    void aPredictionKeepsItAndEqualsOneMadeFromAnyMap() {
        Map<String, Double> d = NAMES.with(3.25, 1.0, 7.0);
        Prediction p = new Prediction(7.0, List.of(1.0), 0, d);
        assertSame(d, p.details());
        assertEquals(new Prediction(7.0, List.of(1.0), 0, new LinkedHashMap<>(d)), p);
    }

    @Test
    void badNamesOrValuesAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> Details.names(List.of("a", "a")));
        assertThrows(IllegalArgumentException.class, () -> NAMES.with(1.0, 2.0));
    }
}
