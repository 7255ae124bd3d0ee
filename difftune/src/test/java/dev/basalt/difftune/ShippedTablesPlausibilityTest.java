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

    /** Every CPU with a shipped tuned table: BHive's and those Basalt measured (Zen 5, the Xeon 6). */
    private static List<Microarchitecture> tunedCpus() {
        java.util.Set<Microarchitecture> cpus = new java.util.LinkedHashSet<>(Microarchitecture.measured());
        cpus.addAll(Microarchitecture.hostMeasured());
        return List.copyOf(cpus);
    }

    @Test
    void registerOnlyAluFormsHaveLatencyOneInEveryShippedTunedTable() {
        int checked = 0;
        List<String> wrong = new ArrayList<>();
        for (Microarchitecture m : tunedCpus()) {
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
        for (Microarchitecture m : tunedCpus()) {
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
        for (Microarchitecture m : tunedCpus()) {
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

    /**
     * Rows tuned before the data-move and floating-point rules existed, each standing in for something the machine
     * did not model then (Haswell's and the Xeon 6's tables, tuned earlier); a new row breaking a rule fails. Zen 5's
     * table, retuned under the rules, has none.
     */
    private static final java.util.Set<String> TUNED_BEFORE_THE_RULES = java.util.Set.of(
            "haswell MOVDQA xmm, m128", "graniterapids MOV m8, i8", "graniterapids MOVQ m64, mm",
            "graniterapids MOVQ xmm, m64", "graniterapids MOVSD xmm, m64", "graniterapids MOVSS m32, xmm",
            "graniterapids MOVZX r32, m16", "graniterapids VBROADCASTSD ymm, m64", "graniterapids SUBPD xmm, xmm",
            "graniterapids VADDPD ymm, ymm, ymm");

    /**
     * A data move keeps its memory path and a floating-point add, multiply, minimum or maximum its pipe
     * (Plausibility's rules): no Zen 5 row stands in for forwarding or renaming any more.
     */
    @Test
    void dataMovesAndFloatingPointArithmeticKeepTheirPaths() {
        List<String> wrong = new ArrayList<>();
        int[] checked = {0};
        forEachTunedRow((m, form, before, row) -> {
            checked[0]++;
            if ((!Plausibility.dataMoveAsImported(form, row, before)
                    || !Plausibility.fpArithmeticAsImported(form, row, before))
                    && !TUNED_BEFORE_THE_RULES.contains(m + " " + form)) {
                wrong.add(m + " " + form + ": " + before + " -> " + row);
            }
        });
        assertTrue(checked[0] > 1000, "only " + checked[0] + " rows checked");
        assertEquals(List.of(), wrong);
        InstructionParams movsd = new InstructionParams(1, 8, 0, Map.of("cd", 1));
        assertFalse(Plausibility.dataMoveAsImported("MOVSD xmm, m64", new InstructionParams(1, 24, 0, Map.of("cd", 1)),
                movsd));
        assertTrue(Plausibility.dataMoveAsImported("MOVSD xmm, m64", new InstructionParams(1, 7, 0, Map.of("cd", 1)),
                movsd));
        InstructionParams store = new InstructionParams(1, 1, 0, Map.of("cd", 1));
        assertFalse(Plausibility.dataMoveAsImported("MOVSS m32, xmm", new InstructionParams(9, 4, 0, Map.of("cd", 1)),
                store));
        InstructionParams addss = new InstructionParams(1, 3, 0, Map.of("ab", 1));
        assertFalse(Plausibility.fpArithmeticAsImported("ADDSS xmm, xmm", new InstructionParams(1, 5, 0,
                Map.of("ab", 2)), addss));
        assertTrue(Plausibility.fpArithmeticAsImported("ADDSS xmm, xmm", new InstructionParams(1, 2, 0,
                Map.of("ab", 1)), addss));
        assertTrue(Plausibility.fpArithmeticAsImported("ADDSS xmm, m32", new InstructionParams(1, 12, 4,
                Map.of("ab", 1)), addss), "memory forms are the load's and the operation's");
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
