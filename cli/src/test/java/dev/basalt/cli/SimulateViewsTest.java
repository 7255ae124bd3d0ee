package dev.basalt.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code simulate --view instructions} and {@code --view timeline}, on blocks whose numbers are worked out by hand. */
class SimulateViewsTest {

    @Test
    void theInstructionTableSpreadsEachMicroOpOverItsPortsAsThePortBoundDoes() throws Exception {
        // three independent vmulps ymm on Haswell: one micro-op each on port 0 or 1, latency 5. Spread evenly, each
        // puts 0.5 on port 0 and 0.5 on port 1; the ports carry 1.5 each, the port bound.
        String hex = "c5ec59cbc5d459e6c4c13c59f9";
        JsonNode table = table("haswell", hex);
        assertEquals(3, table.size());
        for (JsonNode row : table) {
            assertEquals(1, row.get("unfused_uops").asInt(), row.toString());
            assertEquals(1, row.get("fused_uops").asInt(), row.toString());
            assertEquals(5, row.get("latency").asInt(), row.toString());
            assertEquals(0.5, row.get("port_cycles").get("0").asDouble(), 1e-9, row.toString());
            assertEquals(0.5, row.get("port_cycles").get("1").asDouble(), 1e-9, row.toString());
            assertEquals(2, row.get("port_cycles").size(), row.toString());
        }
        CliRun text = CliRun.of("simulate", "--view", "instructions", "--mcpu", "haswell", hex);
        assertTrue(text.out().contains("ports, cycles/iteration") && text.out().contains("1.50   1.50"), text.out());
        CliRun csv = CliRun.of("simulate", "--view", "instructions", "--mcpu", "haswell", "--format", "csv", hex);
        List<String> lines = csv.out().strip().lines().toList();
        assertEquals(SimulateViews.INSTRUCTIONS_CSV, lines.get(0));
        assertEquals(4, lines.size(), csv.out());
        assertTrue(lines.get(1).contains(",0:0.50 1:0.50,"), lines.get(1));
    }

    /** The instruction table of one block on one CPU, as json. */
    private static JsonNode table(String cpu, String hex) throws Exception {
        CliRun r = CliRun.of("simulate", "--view", "instructions", "--mcpu", cpu, "--format", "json", hex);
        assertEquals(0, r.exit(), r.err());
        return new ObjectMapper().readTree(r.out()).get(0).get("instruction_table");
    }

    @Test
    void theInstructionTableNamesWhatEachInstructionReads() throws Exception {
        // mov rax, [rdi]; add rax, rbx; mov [rdi], rax: the add reads the load's rax, the store the add's
        JsonNode table = table("skylake", "488b074801d8488907");
        boolean addReadsLoad = false;
        for (JsonNode read : table.get(1).get("reads")) {
            addReadsLoad |= read.get("from").asInt() == 0 && read.get("kind").asText().equals("register")
                    && read.get("iterations_back").asInt() == 0;
        }
        assertTrue(addReadsLoad, table.get(1).toString());
    }

    @Test
    void theTimelineKeepsEachInstanceInStageOrderAndAFusedJumpWithItsPartner() throws Exception {
        // add rax, 1; imul rbx, rbx; dec rcx; jnz: on Skylake a 3-cycle imul chain, the dec/jnz pair macro-fused
        String loop = "4883c001480fafdb48ffc975f3";
        CliRun r = CliRun.of("simulate", "--view", "timeline", "--mcpu", "skylake", "--format", "json", loop);
        assertEquals(0, r.exit(), r.err());
        JsonNode rows = new ObjectMapper().readTree(r.out()).get(0).get("timeline_view");
        assertTrue(rows.size() >= 16, rows.toString());
        int lastRetired = -1;
        int[] imulDone = new int[rows.size() / 4];
        for (int k = 0; k < rows.size(); k++) {
            JsonNode row = rows.get(k);
            int[] stages = {row.get("decoded").asInt(), row.get("issued").asInt(), row.get("dispatched").asInt(),
                    row.get("executed").asInt(), row.get("retired").asInt()};
            for (int s = 1; s < stages.length; s++) {
                assertTrue(stages[s] >= stages[s - 1], "stages in order: " + row);
            }
            assertTrue(stages[4] >= lastRetired, "retired in order: " + row);
            lastRetired = stages[4];
            if (row.get("index").asInt() == 3) {
                JsonNode dec = rows.get(k - 1);
                assertEquals(dec.get("executed").asInt(), row.get("executed").asInt(), "jnz runs with its dec: " + row);
                assertEquals(dec.get("dispatched").asInt(), row.get("dispatched").asInt(), row.toString());
            }
            if (row.get("index").asInt() == 1 && row.get("iteration").asInt() < imulDone.length) {
                imulDone[row.get("iteration").asInt()] = stages[3];
            }
        }
        for (int it = 1; it < imulDone.length; it++) {
            assertEquals(3, imulDone[it] - imulDone[it - 1], "the imul chain: 3 cycles an iteration");
        }
        CliRun text = CliRun.of("simulate", "--view", "timeline", "--mcpu", "skylake", loop);
        for (String line : text.out().lines().toList()) {
            assertTrue(line.length() <= 120, "fits a terminal: " + line);
        }
        assertTrue(text.out().contains("imul rbx, rbx") && text.out().contains("(macro-fused with 2)"), text.out());
        CliRun bad = CliRun.of("simulate", "--mcpu", "haswell", "--view", "pipeline", loop);
        assertEquals(2, bad.exit());
        assertEquals("basalt simulate: unknown --view 'pipeline': use summary, instructions or timeline",
                bad.err().lines().findFirst().orElse(""));
    }
}
