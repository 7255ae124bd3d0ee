package dev.basalt.simulator;

import dev.basalt.simulator.params.CoreParams;
import dev.basalt.simulator.params.InstructionParams;
import dev.basalt.simulator.params.SimulatorParams;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.basalt.core.Microarchitecture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Copies of a table with changes ({@code with…}, {@code toBuilder}) and the JSON they write. */
class SimulatorParamsTest {

    private static final SimulatorParams HSW = SimulatorParams.bundled(Microarchitecture.HASWELL);
    private static final InstructionParams ROW = new InstructionParams(2, 3, 0, Map.of("0156", 2));

    /** The table with the given components, built positionally. */
    private static SimulatorParams copy(int dispatchWidth, int robSize, int schedulerSize,
                                        Map<String, InstructionParams> forms, Map<String, InstructionParams> mnemonics,
                                        InstructionParams generic, dev.basalt.core.Provenance provenance) {
        return new SimulatorParams(HSW.mcpu(), dispatchWidth, robSize, schedulerSize, HSW.loadLatency(), HSW.ports(),
                forms, mnemonics, generic, provenance);
    }

    @Test
    void eachWitherChangesOnlyItsComponent() {
        int w = HSW.dispatchWidth();
        int rob = HSW.robSize();
        int s = HSW.schedulerSize();
        var f = HSW.forms();
        var m = HSW.mnemonics();
        var g = HSW.generic();
        var p = HSW.provenance();
        assertEquals(copy(6, rob, s, f, m, g, p), HSW.withDispatchWidth(6));
        assertEquals(copy(w, 100, s, f, m, g, p), HSW.withRobSize(100));
        assertEquals(copy(w, rob, 20, f, m, g, p), HSW.withSchedulerSize(20));
        assertEquals(copy(w, rob, s, Map.of("ADD r64, r64", ROW), m, g, p), HSW.withForms(Map.of("ADD r64, r64", ROW)));
        assertEquals(copy(w, rob, s, f, Map.of("ADD", ROW), g, p), HSW.withMnemonics(Map.of("ADD", ROW)));
        assertEquals(copy(w, rob, s, f, m, ROW, p), HSW.withGeneric(ROW));
        dev.basalt.core.Provenance note = dev.basalt.core.Provenance.of(Map.of("note", "x"));
        assertEquals(copy(w, rob, s, f, m, g, note), HSW.withProvenance(note));
    }

    @Test
    void aBuilderChangesSeveralAndValidatesOnBuild() {
        assertEquals(copy(6, 100, HSW.schedulerSize(), Map.of(), HSW.mnemonics(), HSW.generic(), null),
                HSW.toBuilder().dispatchWidth(6).robSize(100).forms(Map.of()).provenance(null).build());
        assertEquals(HSW, HSW.toBuilder().build());
        SimulatorParams.Builder bad = HSW.toBuilder().robSize(0);
        assertThrows(IllegalArgumentException.class, bad::build);
    }

    @Test
    void implausibleRowsAndQueuesAreRefusedBeforeTheyCanSizeTheSimulatorsArrays() {
        // found by fuzzing: a generic row holding "0156" for 10^8 cycles overflowed an array size
        var huge = assertThrows(IllegalArgumentException.class,
                () -> new InstructionParams(1, 1, 0, Map.of("0156", 100_000_000)));
        assertTrue(huge.getMessage().contains("0156"), huge.getMessage());
        assertThrows(IllegalArgumentException.class,
                () -> new InstructionParams(1, 1, 0, Map.of("0", 600, "1", 600)));
        assertThrows(IllegalArgumentException.class, () -> HSW.toBuilder().robSize(1 << 20).build());
        ObjectMapper json = new ObjectMapper();
        var core = (com.fasterxml.jackson.databind.node.ObjectNode) json.valueToTree(HSW.core());
        core.put("uopQueue", 1 << 20);
        var queue = assertThrows(com.fasterxml.jackson.databind.JsonMappingException.class,
                () -> json.treeToValue(core, CoreParams.class));
        assertTrue(queue.getCause() instanceof IllegalArgumentException
                && queue.getCause().getMessage().contains("uopQueue 1048576"), String.valueOf(queue));
        // the shipped tables' longest rows stay well inside the limits
        new InstructionParams(150, 115, 5, Map.of("0156", 150, "Divider", 64));
    }

    @Test
    void theJsonHoldsTheTwelveComponentsAndReadsBack(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("t.json");
        SimulatorParams t = HSW.withDispatchWidth(6);
        t.write(file);
        assertEquals(t, SimulatorParams.read(file));
        List<String> keys = new java.util.ArrayList<>();
        new ObjectMapper().readTree(file.toFile()).fieldNames().forEachRemaining(keys::add);
        assertEquals(List.of("mcpu", "dispatchWidth", "robSize", "schedulerSize", "loadLatency", "ports", "forms",
                "mnemonics", "generic", "provenance", "schemaVersion", "core"), keys);
    }

    @Test
    void aVersionOneTableReadsWithTheCpusCoreDefaultsAndANewerOneIsRefused(@TempDir Path dir) throws Exception {
        ObjectMapper json = new ObjectMapper();
        com.fasterxml.jackson.databind.node.ObjectNode v1 = (com.fasterxml.jackson.databind.node.ObjectNode)
                json.readTree(json.writeValueAsString(HSW));
        v1.remove("schemaVersion");
        v1.remove("core");
        Path old = dir.resolve("v1.json");
        json.writeValue(old.toFile(), v1);
        SimulatorParams read = SimulatorParams.read(old);
        assertEquals(CoreParams.defaults("haswell"), read.core());
        assertEquals(SimulatorParams.SCHEMA_VERSION, read.schemaVersion());
        assertEquals(HSW.forms(), read.forms());

        v1.put("schemaVersion", SimulatorParams.SCHEMA_VERSION + 1);
        Path newer = dir.resolve("v3.json");
        json.writeValue(newer.toFile(), v1);
        java.io.IOException e = assertThrows(java.io.IOException.class, () -> SimulatorParams.read(newer));
        assertTrue(e.getMessage().contains("schema version 3, newer than this build reads (2)"), e.getMessage());
    }

    @Test
    void aPortGroupNamingAnUnknownPortIsRefusedWithTheFormAndThePort(@TempDir Path dir) throws Exception {
        ObjectMapper json = new ObjectMapper();
        com.fasterxml.jackson.databind.node.ObjectNode t = (com.fasterxml.jackson.databind.node.ObjectNode)
                json.readTree(json.writeValueAsString(HSW));
        String form = t.get("forms").fieldNames().next();
        ((com.fasterxml.jackson.databind.node.ObjectNode) t.get("forms").get(form)).putObject("ports").put("09", 1);
        Path bad = dir.resolve("bad.json");
        json.writeValue(bad.toFile(), t);
        java.io.IOException e = assertThrows(java.io.IOException.class, () -> SimulatorParams.read(bad));
        assertEquals(bad + ": simulator table for haswell: form '" + form + "' names port group '09', but '9' is not "
                + "one of its ports " + HSW.ports(), e.getMessage());
    }
}
