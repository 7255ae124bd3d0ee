package dev.basalt.difftune;

import dev.basalt.core.Microarchitecture;
import dev.basalt.simulator.params.InstructionParams;
import dev.basalt.simulator.params.SimulatorParams;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The shipped tuned tables claim nothing these CPUs cannot do (DESIGN.md §11): every register-only integer ALU
 * form keeps latency 1, and no form that executes somewhere lost all its ports.
 */
class ShippedTablesPlausibilityTest {

    @Test
    void registerOnlyAluFormsHaveLatencyOneInEveryShippedTunedTable() {
        int checked = 0;
        List<String> wrong = new ArrayList<>();
        for (Microarchitecture m : Microarchitecture.measured()) {
            SimulatorParams tuned = SimulatorParams.tuned(m).orElse(null);
            if (tuned == null) {
                continue;
            }
            for (Map.Entry<String, InstructionParams> e : tuned.forms().entrySet()) {
                if (Plausibility.isSingleCycleAlu(e.getKey())) {
                    checked++;
                    if (e.getValue().latency() != 1) {
                        wrong.add(m + " " + e.getKey() + " latency " + e.getValue().latency());
                    }
                }
            }
        }
        assertTrue(checked > 100, "only " + checked + " forms checked");
        assertEquals(List.of(), wrong);
    }

    /** Each shipped tuned row with the imported row of its form (CPU, form, imported, tuned). */
    private interface TunedRow {
        void accept(Microarchitecture cpu, String form, InstructionParams imported, InstructionParams tuned);
    }

    private static void forEachTunedRow(TunedRow check) {
        for (Microarchitecture m : Microarchitecture.measured()) {
            SimulatorParams tuned = SimulatorParams.tuned(m).orElse(null);
            SimulatorParams imported = SimulatorParams.imported(m).orElse(null);
            if (tuned == null || imported == null) {
                continue;
            }
            tuned.forms().forEach((form, row) -> {
                InstructionParams before = imported.forms().get(form);
                if (before != null) {
                    check.accept(m, form, before, row);
                }
            });
        }
    }

    /**
     * A memory form of an integer ALU operation keeps its imported latency and ALU port cycles (its operation is the
     * register form's one cycle; the memory micro-ops come from the operands).
     */
    @Test
    void aluMemoryFormsKeepTheirOperation() {
        List<String> wrong = new ArrayList<>();
        int[] checked = {0};
        for (Microarchitecture m : Microarchitecture.measured()) {
            SimulatorParams tuned = SimulatorParams.tuned(m).orElse(null);
            SimulatorParams imported = SimulatorParams.imported(m).orElse(null);
            if (tuned == null || imported == null) {
                continue;
            }
            dev.basalt.simulator.params.CoreParams core = tuned.core();
            String memoryPorts = core.loadPorts().isEmpty() ? ""
                    : core.loadPorts() + core.storeAddressPorts() + core.storeDataPorts();
            tuned.forms().forEach((form, row) -> {
                InstructionParams before = imported.forms().get(form);
                if (before != null && Plausibility.isAluMemoryForm(form)) {
                    checked[0]++;
                    if (!Plausibility.aluPartAsImported(row, before, memoryPorts)) {
                        wrong.add(m + " " + form + ": " + before + " -> " + row);
                    }
                }
            });
        }
        assertTrue(checked[0] > 100, "only " + checked[0] + " forms checked");
        assertEquals(List.of(), wrong);
    }

    @Test
    void noTunedFormLostAllItsPorts() {
        forEachTunedRow((m, form, before, row) -> {
            if (!before.ports().isEmpty()) {
                assertFalse(row.ports().isEmpty(), m + " " + form + " lost all its ports");
            }
        });
    }

    /** Only a form imported at latency 0 (a zero idiom, an eliminated move) may have its result at once. */
    @Test
    void noTunedFormWentToLatencyZero() {
        List<String> wrong = new ArrayList<>();
        forEachTunedRow((m, form, before, row) -> {
            if (before.latency() >= 1 && row.latency() < 1) {
                wrong.add(m + " " + form + " latency " + before.latency() + " -> " + row.latency());
            }
        });
        assertEquals(List.of(), wrong);
        InstructionParams shl = new InstructionParams(3, 3, 0, Map.of("06", 3));
        assertFalse(Plausibility.allowed("SHL r64, CL", null, new InstructionParams(3, 0, 0, Map.of("06", 3)), shl, 5,
                "", true));
        assertTrue(Plausibility.allowed("SHL r64, CL", null, new InstructionParams(3, 1, 0, Map.of("06", 3)), shl, 5,
                "", true));
    }

    @Test
    void theRuleKnowsWhichFormsAreRegisterOnlyAlu() {
        assertTrue(Plausibility.isSingleCycleAlu("CMP r64, i32"));
        assertTrue(Plausibility.isSingleCycleAlu("OR r8, i8"));
        assertTrue(Plausibility.isSingleCycleAlu("LEA r64, m"));
        assertTrue(Plausibility.isSingleCycleAlu("SHR r32, i8"));
        assertFalse(Plausibility.isSingleCycleAlu("CMP m64, i32"));
        assertFalse(Plausibility.isSingleCycleAlu("SHL r64, CL"));
        assertFalse(Plausibility.isSingleCycleAlu("IMUL r64, r64"));
        assertFalse(Plausibility.isSingleCycleAlu("MOV xmm, xmm"));
    }
}
