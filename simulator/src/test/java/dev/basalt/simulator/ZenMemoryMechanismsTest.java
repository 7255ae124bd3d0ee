package dev.basalt.simulator;

import dev.basalt.core.Microarchitecture;
import dev.basalt.decoder.BasicBlock;
import dev.basalt.simulator.params.SimulatorParams;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVRecord;
import org.junit.jupiter.api.Test;

import java.io.InputStreamReader;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * AMD's store-to-load paths against blocks measured on a Zen 4 ({@code zen4-memory-probes.csv}, BHive's harness):
 * the memory file renames 32- and 64-bit general-purpose pairs through the same registers (1 cycle an iteration),
 * other pairs forward (7), forwarding into a vector register takes the vector load path (10), and a load its store
 * does not contain waits for the store to reach the cache (19); and in the harness, whose vector registers are filled
 * at full width, a legacy SSE write to an xmm register merges into the dirty upper bits, so {@code movss xmm0, [rdi];
 * mulss xmm0, xmm0} is a chain of 4 cycles where the VEX forms run at 0.5. The imported znver4 table's rows, untuned,
 * with the core's mechanisms: each mechanism block within 15% of its measurement.
 */
class ZenMemoryMechanismsTest {

    private static List<CSVRecord> probes() throws Exception {
        try (Reader in = new InputStreamReader(ZenMemoryMechanismsTest.class.getResourceAsStream("zen4-memory-probes.csv"),
                StandardCharsets.UTF_8)) {
            return CSVFormat.DEFAULT.builder().setCommentMarker('#').setHeader().setSkipHeaderRecord(true).build()
                    .parse(in).getRecords();
        }
    }

    @Test
    void everyMemoryMechanismBlockWithinFifteenPercentOfZen4() throws Exception {
        Simulator zen4 = new Simulator(SimulatorParams.bundled(Microarchitecture.parse("znver4")));
        Map<String, Integer> checked = new TreeMap<>();
        List<String> off = new ArrayList<>();
        for (CSVRecord r : probes()) {
            // Rows' values are the tables'; moving pages and a legacy zero idiom's merge are not modelled yet.
            if (!java.util.Set.of("renamed", "forwarded", "vector-forwarded", "failed-forward", "dirty-upper")
                    .contains(r.get("kind"))) {
                continue;
            }
            double measured = Double.parseDouble(r.get("cycles"));
            double predicted = zen4.run(BasicBlock.fromHex(r.get("hex")), Simulator.Options.defaults())
                    .cyclesPerIteration();
            checked.merge(r.get("kind"), 1, Integer::sum);
            if (Math.abs(predicted - measured) > 0.15 * measured) {
                off.add(r.get("assembly") + ": measured " + measured + ", predicted " + predicted);
            }
        }
        assertEquals(List.of(), off);
        assertTrue(checked.getOrDefault("renamed", 0) >= 5 && checked.getOrDefault("forwarded", 0) >= 3
                && checked.getOrDefault("vector-forwarded", 0) >= 5 && checked.getOrDefault("failed-forward", 0) >= 4
                && checked.getOrDefault("dirty-upper", 0) >= 10,
                checked.toString());
    }

    /** Without the rule that limits renaming, the 16-bit pair and the pair through another register would be 1. */
    @Test
    void renamingTakesOnlyWideGeneralPurposePairsThroughTheSameRegisters() {
        Simulator zen4 = new Simulator(SimulatorParams.bundled(Microarchitecture.parse("znver4")));
        double wide = zen4.run(BasicBlock.fromHex("488906488b06"), Simulator.Options.defaults()).cyclesPerIteration();
        double narrow = zen4.run(BasicBlock.fromHex("668906668b06"), Simulator.Options.defaults()).cyclesPerIteration();
        double other = zen4.run(BasicBlock.fromHex("488906488b07"), Simulator.Options.defaults()).cyclesPerIteration();
        assertEquals(1.0, wide, 0.05, "mov [rsi], rax; mov rax, [rsi]: renamed");
        assertTrue(narrow > 5, "mov [rsi], ax; mov ax, [rsi]: forwarded, measured 8.12; predicted " + narrow);
        assertTrue(other > 5, "mov [rsi], rax; mov rax, [rdi]: forwarded, measured 6.94; predicted " + other);
    }

    /**
     * The plain dot-product loop ({@code movss} load, {@code mulss} from memory, an {@code addss} chain) on the shipped
     * znver5 table, in real code's memory: one {@code addss} a cycle-3 chain, 3 cycles an iteration. The latency 3 is
     * Zen 5's own set's: {@code addsd xmm2, xmm1; movapd xmm0, xmm2} 3.03 cycles and {@code mulss xmm4, xmm1; movaps
     * xmm0, xmm4} 3.03 (the move eliminated). Under BHive's harness the legacy load's merge into the dirty upper bits
     * lengthens it ({@code CoreParams#dirtyUpperMerge}), so the harness and real code differ by a mechanism, not by
     * the rows.
     */
    @Test
    void theDotProductLoopOnZen5RunsAtItsAddChainsLatency() {
        SimulatorParams zen5 = SimulatorParams.standard(Microarchitecture.parse("znver5"));
        for (String form : List.of("ADDSS xmm, xmm", "ADDSD xmm, xmm", "MULSS xmm, xmm")) {
            assertEquals(3, zen5.forms().get(form).latency(), form);
        }
        Simulator sim = new Simulator(zen5);
        for (String[] chain : new String[][] {{"f20f58d1660f28c2", "3.025"}, {"f30f59e10f28c4", "3.0338"}}) {
            assertEquals(Double.parseDouble(chain[1]), sim.run(BasicBlock.fromHex(chain[0]), Simulator.Options
                    .defaults()).cyclesPerIteration(), 0.1, chain[0]);
        }
        // loop: movss xmm1, [rdi+rax*4]; mulss xmm1, [rsi+rax*4]; addss xmm0, xmm1; add rax, 1; cmp rax, rdx; jne loop
        BasicBlock dot = BasicBlock.fromHex("f30f100c87f30f590c86f30f58c14883c0014839d075e9");
        Simulator.Options realCode = Simulator.Options.defaults().withMemory(Simulator.MemoryModel.DISTINCT);
        assertEquals(3.0, sim.run(dot, realCode).cyclesPerIteration(), 0.05);
    }
}
