package dev.basalt.granite;

import dev.basalt.decoder.BasicBlock;
import dev.basalt.decoder.MemoryPolicy;
import org.junit.jupiter.api.Test;

import java.util.List;

import static dev.basalt.granite.GraniteGraph.EdgeType.ADDRESS_BASE;
import static dev.basalt.granite.GraniteGraph.EdgeType.ADDRESS_DISPLACEMENT;
import static dev.basalt.granite.GraniteGraph.EdgeType.INPUT_OPERAND;
import static dev.basalt.granite.GraniteGraph.EdgeType.OUTPUT_OPERAND;
import static dev.basalt.granite.GraniteGraph.EdgeType.STRUCTURAL;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** Hand-drawn graphs: every node and edge listed. */
class GraniteGraphTest {

    private static List<String> nodes(GraniteGraph g) {
        return g.nodes().stream().map(n -> n.kind() + ":" + n.token()).toList();
    }

    private static List<String> edges(GraniteGraph g) {
        return g.edges().stream().map(e -> e.sender() + "->" + e.receiver() + " " + e.type()).toList();
    }

    @Test
    void leaWithBaseAndDisplacement() {
        GraniteGraph g = GraniteGraph.of(BasicBlock.fromHex("488d7b08"), MemoryPolicy.ALL_ALIAS); // lea rdi,[rbx+8]
        assertEquals(List.of("INSTRUCTION:LEA", "ADDRESS:_ADDRESS_", "REGISTER:RBX", "IMMEDIATE:_DISPLACEMENT_",
                "REGISTER:RDI"), nodes(g));
        assertEquals(List.of("2->1 " + ADDRESS_BASE, "3->1 " + ADDRESS_DISPLACEMENT, "1->0 " + INPUT_OPERAND,
                "0->4 " + OUTPUT_OPERAND), edges(g));
    }

    @Test
    void readModifyWriteFromMemory() {
        GraniteGraph g = GraniteGraph.of(BasicBlock.fromHex("480306"), MemoryPolicy.ALL_ALIAS); // add rax,[rsi]
        assertEquals(List.of("INSTRUCTION:ADD", "REGISTER:RAX", "ADDRESS:_ADDRESS_", "REGISTER:RSI",
                "MEMORY:_MEMORY_", "REGISTER:RAX", "REGISTER:RFLAGS"), nodes(g));
        assertEquals(List.of("1->0 " + INPUT_OPERAND, "3->2 " + ADDRESS_BASE, "2->0 " + INPUT_OPERAND,
                "4->0 " + INPUT_OPERAND, "0->5 " + OUTPUT_OPERAND, "0->6 " + OUTPUT_OPERAND), edges(g));
    }

    @Test
    void partialRegisterWriteMergesWithTheOldValue() {
        GraniteGraph g = GraniteGraph.of(BasicBlock.fromHex("b005"), MemoryPolicy.ALL_ALIAS); // mov al, 5
        assertEquals(List.of("INSTRUCTION:MOV", "REGISTER:AL", "IMMEDIATE:_IMMEDIATE_", "REGISTER:AL"), nodes(g));
        assertEquals(List.of("1->0 " + INPUT_OPERAND, "2->0 " + INPUT_OPERAND, "0->3 " + OUTPUT_OPERAND), edges(g));
    }

    @Test
    void storeThenLoadSharesTheMemoryValue() {
        // mov [rdi], rax; mov rbx, [rdi]
        for (MemoryPolicy policy : MemoryPolicy.values()) {
            GraniteGraph g = GraniteGraph.of(BasicBlock.fromHex("488907488b1f"), policy);
            assertEquals(List.of("INSTRUCTION:MOV", "ADDRESS:_ADDRESS_", "REGISTER:RDI", "REGISTER:RAX",
                    "MEMORY:_MEMORY_", "INSTRUCTION:MOV", "ADDRESS:_ADDRESS_", "REGISTER:RBX"), nodes(g), policy.name());
            assertEquals(List.of("2->1 " + ADDRESS_BASE, "1->0 " + INPUT_OPERAND, "3->0 " + INPUT_OPERAND,
                    "0->4 " + OUTPUT_OPERAND, "0->5 " + STRUCTURAL, "2->6 " + ADDRESS_BASE, "6->5 " + INPUT_OPERAND,
                    "4->5 " + INPUT_OPERAND, "5->7 " + OUTPUT_OPERAND), edges(g), policy.name());
        }
    }

    @Test
    void differentAddressesOnlyShareMemoryUnderAllAlias() {
        // mov [rdi], rax; mov rbx, [rsi]
        GraniteGraph all = GraniteGraph.of(BasicBlock.fromHex("488907488b1e"), MemoryPolicy.ALL_ALIAS);
        GraniteGraph same = GraniteGraph.of(BasicBlock.fromHex("488907488b1e"), MemoryPolicy.SAME_EXPRESSION);
        assertEquals(1, all.count(GraniteGraph.NodeKind.MEMORY));
        assertEquals(2, same.count(GraniteGraph.NodeKind.MEMORY), "the load reads a fresh memory value");
        assertEquals(java.util.Map.of("INSTRUCTION", 2L), java.util.Map.of("INSTRUCTION",
                all.count(GraniteGraph.NodeKind.INSTRUCTION)));
    }
}
