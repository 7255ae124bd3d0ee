package dev.basalt.datasets;

import dev.basalt.decoder.BasicBlock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class VocabularyTest {

    @Test
    void graniteTokensOfHandPickedInstructions() {
        assertEquals(List.of("MOV", "RSI", "_MEMORY_", "_ADDRESS_", "RSP", "_NO_REGISTER_", "_DISPLACEMENT_"),
                Tokens.granite(BasicBlock.fromHex("488b742430").instruction(0)));
        assertEquals(List.of("LEA", "RAX", "_ADDRESS_", "RBX", "RCX", "_DISPLACEMENT_"),
                Tokens.granite(BasicBlock.fromHex("488d448b08").instruction(0)));
        assertEquals(List.of("ADD", "RAX", "_IMMEDIATE_", "RFLAGS"),
                Tokens.granite(BasicBlock.fromHex("4883c001").instruction(0)));
        assertEquals(List.of("CMPXCHG", "LOCK", "_MEMORY_", "_ADDRESS_", "RDI", "_NO_REGISTER_", "RCX", "RAX",
                "RFLAGS"), Tokens.granite(BasicBlock.fromHex("f0480fb10f").instruction(0)));
    }

    @Test
    void buildIsDeterministicWithUnknownFirst(@TempDir Path dir) throws Exception {
        Dataset d = Dataset.bundled();
        List<String> occurrences = new ArrayList<>();
        d.blocks().forEach(b -> b.block().instructions().forEach(i -> occurrences.addAll(Tokens.granite(i))));
        Vocabulary v = Vocabulary.build(occurrences, Tokens.STRUCTURAL, 1);
        assertEquals(Tokens.UNKNOWN, v.tokens().get(0));
        assertEquals(Tokens.STRUCTURAL, v.tokens().subList(1, 1 + Tokens.STRUCTURAL.size()));
        assertEquals(0, v.id("NOT_A_TOKEN"));
        assertTrue(v.id("MOV") > 0);
        assertEquals(v, Vocabulary.build(occurrences, Tokens.STRUCTURAL, 1));
        // Frequencies are non-increasing after the reserved tokens.
        List<Long> c = v.counts().subList(1 + Tokens.STRUCTURAL.size(), v.size());
        for (int i = 1; i < c.size(); i++) {
            assertTrue(c.get(i - 1) >= c.get(i));
        }
        Vocabulary rare = Vocabulary.build(occurrences, Tokens.STRUCTURAL, 50);
        assertTrue(rare.size() < v.size());
        Path f = dir.resolve("vocab.json");
        v.write(f);
        assertEquals(v, Vocabulary.read(f));
        System.err.println("GRANITE vocabulary of the bundled sample: " + v.size() + " tokens");
    }
}
