package dev.basalt.decoder;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The per-thread instruction cache is an optimisation only: results are identical with and without it. */
class InstructionCacheTest {


    @Test
    void cachedDecodingEqualsFreshDecoding() throws Exception {
        List<String> blocks = new java.util.ArrayList<>(TestBlocks.bhiveSample());
        // Twice, so that the second pass is served from the cache.
        blocks.addAll(TestBlocks.bhiveSample());
        int instructions = 0;
        for (String hex : blocks) {
            byte[] bytes = Hex.parse(hex);
            List<Instruction> fresh = Zydis.get().decode(bytes, bytes.length, false);
            List<Instruction> cached = Zydis.get().decode(bytes, bytes.length, true);
            TestBlocks.assertSameInstructions(fresh, cached, hex);
            instructions += fresh.size();
        }
        assertTrue(instructions > 10_000, "compared " + instructions + " instructions");
    }

    @Test
    void sharedDecodingsGiveTheSameGraphsAsFreshOnes() throws Exception {
        int edges = 0;
        List<String> sample = TestBlocks.bhiveSample();
        for (int pass = 0; pass < 2; pass++) { // the second pass is served from the cache
            for (String hex : sample) {
                BasicBlock block = BasicBlock.fromHex(hex);
                for (MemoryPolicy policy : MemoryPolicy.values()) {
                    // Decoded without the cache: new decodings, with effects and memory accesses of their own.
                    byte[] bytes = block.bytes();
                    DependencyGraph fresh = DependencyGraph.of(Zydis.get().decode(bytes, bytes.length, false), policy);
                    assertEquals(fresh.edges(), block.dependencyGraph(policy).edges(), hex + " " + policy);
                    edges += fresh.edgeCount();
                }
            }
        }
        assertTrue(edges > 50_000, "compared " + edges + " edges");
    }

    @Test
    void inlineAndArrayEffectsGiveTheSameGraphs() throws Exception {
        int edges = 0;
        for (String hex : TestBlocks.bhiveSample()) {
            BasicBlock block = BasicBlock.fromHex(hex);
            for (MemoryPolicy policy : MemoryPolicy.values()) {
                DependencyGraph viaArrays = DependencyGraph.build(block.instructions(), policy, false);
                assertEquals(viaArrays.edges(), block.dependencyGraph(policy).edges(), hex + " " + policy);
                edges += viaArrays.edgeCount();
            }
        }
        assertTrue(edges > 25_000, "compared " + edges + " edges");
    }

    @Test
    void sameBytesAtDifferentOffsetsKeepTheirOwnOffset() {
        BasicBlock b = BasicBlock.fromHex("4889de4889de4889de");
        assertEquals(List.of(0, 3, 6), b.instructions().stream().map(Instruction::offset).toList());
    }
}
