package dev.basalt.difftune;

import dev.basalt.simulator.params.InstructionParams;
import dev.basalt.simulator.params.SimulatorParams;
import dev.basalt.core.Microarchitecture;
import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Rows as vectors and back, and the valid ranges every shipped table must respect. */
class ParameterLayoutTest {

    @Test
    void everyDefaultRowSurvivesEncodeAndDecode() {
        for (Microarchitecture m : Microarchitecture.measured()) {
            SimulatorParams t = SimulatorParams.bundled(m);
            ParameterLayout layout = new ParameterLayout(t);
            t.forms().forEach((form, row) -> {
                InstructionParams expected = new InstructionParams(Math.max(1, row.uops()), row.latency(),
                        row.readAdvance(), row.ports().entrySet().stream().filter(e -> e.getValue() > 0)
                        .collect(java.util.stream.Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue)));
                assertEquals(expected, layout.decode(layout.encode(row), 0), m + " " + form);
            });
        }
    }

    @Test
    void decodingRoundsAndClamps() {
        ParameterLayout layout = new ParameterLayout(SimulatorParams.bundled(Microarchitecture.HASWELL));
        float[] v = new float[layout.width()];
        v[ParameterLayout.UOPS] = 0.2f;
        v[ParameterLayout.LATENCY] = 3.6f;
        v[ParameterLayout.READ_ADVANCE] = 99f;
        v[ParameterLayout.FIXED + layout.groups().indexOf("0156")] = 1.49f;
        v[ParameterLayout.FIXED + layout.groups().indexOf("23")] = 0.4f;
        InstructionParams r = layout.decode(v, 0);
        assertEquals(new InstructionParams(1, 4, ParameterLayout.MAX_READ_ADVANCE, Map.of("0156", 1)), r);
    }

    @Test
    void shippedTablesAreInRangeAndABadOneIsReported() {
        for (Microarchitecture m : Microarchitecture.measured()) {
            assertEquals(List.of(), ParameterLayout.outOfRange(SimulatorParams.bundled(m)), m.llvmName());
            SimulatorParams.tuned(m).ifPresent(t -> assertEquals(List.of(), ParameterLayout.outOfRange(t), m + " tuned"));
        }
        SimulatorParams hsw = SimulatorParams.bundled(Microarchitecture.HASWELL);
        Map<String, InstructionParams> forms = new LinkedHashMap<>(hsw.forms());
        forms.put("ADD r64, r64", new InstructionParams(1, 500, 0, Map.of("0156", 1, "6", 99)));
        List<String> bad = ParameterLayout.outOfRange(hsw.toBuilder().dispatchWidth(11).forms(forms).provenance(null)
                .build());
        assertEquals(List.of("dispatchWidth 11", "ADD r64, r64: latency 500", "ADD r64, r64: port group 6 99"), bad);
        // A group of a port the table does not have is refused when the table is made, before any range check.
        forms.put("ADD r64, r64", new InstructionParams(1, 1, 0, Map.of("0156", 1, "9", 1)));
        IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> hsw.toBuilder().forms(forms).provenance(null).build());
        assertTrue(e.getMessage().contains("names port group '9', but '9' is not one of its ports"), e.getMessage());
    }

    @Test
    void portShareSpreadsAGroupEvenly() {
        ParameterLayout layout = new ParameterLayout(SimulatorParams.bundled(Microarchitecture.HASWELL));
        float[] a = layout.portShare();
        int ports = layout.ports().size();
        int g = layout.groups().indexOf("0156");
        for (int p = 0; p < ports; p++) {
            String port = layout.ports().get(p);
            assertEquals("0156".contains(port) && port.length() == 1 ? 0.25f : 0f, a[g * ports + p], 1e-6f, port);
        }
        int div = layout.groups().indexOf("Divider");
        assertTrue(div >= 0);
        assertEquals(1f, a[div * ports + layout.ports().indexOf("Divider")], 1e-6f);
    }
}
