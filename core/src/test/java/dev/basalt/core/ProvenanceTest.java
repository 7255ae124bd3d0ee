package dev.basalt.core;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Provenance round-trips through JSON, reads older untyped maps, and knows this build. */
class ProvenanceTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void roundTripsWithTypedFieldsAndDetails() throws Exception {
        Provenance p = Provenance.now("granite-model", "basalt train granite --seed 7")
                .withData("abc123", "SHA-256 of hex, 80/10/10").withSeed(7)
                .withPrior(new Provenance.Prior("simulator", "f00d")).with("epochs", 12).with("testReport", "x,y");
        String text = JSON.writeValueAsString(p);
        assertTrue(text.contains("\"epochs\":12") && !text.contains("details"), text);
        Provenance back = JSON.readValue(text, Provenance.class);
        assertEquals(p, back);
        assertEquals(7L, back.seed());
        assertEquals("f00d", back.prior().fingerprint());
        assertEquals(12, back.detail("epochs").orElseThrow());
    }

    @Test
    void readsAnOlderMapKeepingUnknownFieldsAsDetails() throws Exception {
        Provenance p = JSON.readValue("{\"command\":\"basalt tune\",\"created\":\"2026-11-22T10:00:00Z\","
                + "\"stage\":\"refined\",\"prior\":\"simulator\"}", Provenance.class);
        assertEquals("basalt tune", p.command());
        assertNull(p.prior());
        assertEquals("refined", p.detail("stage").orElseThrow());
        assertEquals("simulator", p.detail("prior").orElseThrow());
        Provenance pinned = p.withPrior(new Provenance.Prior("simulator", "ab12"));
        assertTrue(pinned.detail("prior").isEmpty(), "the typed prior replaces the name-only one");
        assertEquals(pinned, JSON.readValue(JSON.writeValueAsString(pinned), Provenance.class));
    }

    @Test
    void knowsThisBuild() {
        Provenance p = Provenance.now("test", "none");
        assertFalse(p.basaltVersion().isBlank());
        assertFalse(p.basaltVersion().contains("${"), p.basaltVersion());
        assertTrue(p.gitCommit().equals("unknown") || p.gitCommit().matches("[0-9a-f]{40}(-dirty)?"), p.gitCommit());
        assertTrue(p.jvm().contains(System.getProperty("java.version")));
        assertEquals(Map.of(), p.details());
    }
}
