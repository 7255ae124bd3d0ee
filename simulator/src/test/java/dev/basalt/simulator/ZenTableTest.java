package dev.basalt.simulator;

import dev.basalt.simulator.params.InstructionParams;
import dev.basalt.simulator.params.SimulatorParams;
import dev.basalt.core.Microarchitecture;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The imported Zen 5 table ({@code basalt params import --mcpu znver5} from llvm-mca-19) carries none of the AMD
 * import's old defects: no row keeps llvm-mca's memory pipelines (the machine rebuilds a load or store micro-op from
 * the operands on the AGUs and store pipes), so a load+operation's load and operation stay apart; {@code lea}, which
 * llvm-mca puts on the AGUs, runs on the ALUs; and the fourth AGU llvm-mca lacks is a port of the table.
 */
class ZenTableTest {

    private static final Microarchitecture ZEN5 = Microarchitecture.parse("znver5");
    private static final String MEMORY_PORTS = "456nfghijklm";

    @Test
    void noRowKeepsTheMemoryPipelinesAndLoadsStayApartFromOperations() {
        SimulatorParams t = SimulatorParams.bundled(ZEN5);
        assertTrue(t.ports().contains("n"), "Zen 5's fourth AGU");
        assertEquals("456n", t.core().loadPorts());
        assertEquals("lm", t.core().storeDataPorts());
        for (Map.Entry<String, InstructionParams> e : t.forms().entrySet()) {
            if (!e.getKey().matches(".*[ ,]m\\d*(,.*|$)")) {
                continue; // no memory operand (CLZERO RAX writes memory through rax: llvm-mca does not flag it)
            }
            for (String group : e.getValue().ports().keySet()) {
                assertFalse(!group.isEmpty() && group.chars().allMatch(c -> MEMORY_PORTS.indexOf(c) >= 0),
                        e.getKey() + " keeps memory-pipeline group " + group);
            }
        }
        // add r64, m64: one ALU micro-op for the operation; the load is the machine's.
        assertEquals(Map.of("0123", 1), t.forms().get("ADD r64, m64").ports());
        assertEquals(Map.of(), t.forms().get("MOV m64, r64").ports());
        assertEquals(Map.of(), t.forms().get("MOV r64, m64").ports());
        assertEquals(Map.of("0123", 1), t.forms().get("LEA r64, m").ports());
    }
}
