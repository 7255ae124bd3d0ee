package dev.basalt.core;

import dev.basalt.decoder.BasicBlock;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Which instructions no estimator models, by Zydis' categories and a few mnemonics. */
class UnmodelledInstructionsTest {

    private static String reason(String hex) {
        return UnmodelledInstructions.reason(BasicBlock.fromHex(hex).instruction(0)).orElse("");
    }

    @Test
    void systemIoKernelUndefinedAndSerializingInstructionsAreNamed() {
        assertTrue(reason("0f30").contains("privileged or system"), "wrmsr");
        assertTrue(reason("0f32").contains("privileged or system"), "rdmsr");
        assertTrue(reason("f4").contains("privileged or system"), "hlt");
        assertTrue(reason("fa").contains("privileged or system"), "cli");
        assertTrue(reason("0f05").contains("kernel"), "syscall");
        assertTrue(reason("cd80").contains("kernel"), "int 0x80");
        assertTrue(reason("ec").contains("port I/O"), "in al, dx");
        assertTrue(reason("6e").contains("port I/O"), "outsb");
        assertTrue(reason("0f0b").contains("undefined"), "ud2");
        assertTrue(reason("0fa2").contains("serializing"), "cpuid");
        assertTrue(reason("0f31").contains("counter"), "rdtsc");
        assertTrue(reason("0f01c1").contains("virtualization"), "vmcall");
    }

    @Test
    void ordinaryInstructionsAreNot() {
        for (String hex : List.of("4801d8", "488b07", "0faee8", "f390", "c5fd58c1", "4883c001", "9c", "e800000000")) {
            assertEquals("", reason(hex), hex);
        }
    }

    @Test
    void aBlockGetsOneNotePerSuchInstructionInOrder() {
        List<String> notes = UnmodelledInstructions.notes(BasicBlock.fromHex("4801d80f314801d80fa2"));
        assertEquals(2, notes.size(), notes.toString());
        assertTrue(notes.get(0).startsWith("instruction 1 (rdtsc)"), notes.get(0));
        assertTrue(notes.get(1).startsWith("instruction 3 (cpuid)"), notes.get(1));
        assertEquals(List.of(), UnmodelledInstructions.notes(BasicBlock.fromHex("4801d8488b07")));
    }

    @Test
    void valueAndCalleeDependentFormsSayWhatTheNumberLeavesOut() {
        // pause; rep movsb; call rel32; call rax; ret; jmp rax — and a direct jmp, which says nothing
        List<String> notes = UnmodelledInstructions.notes(BasicBlock.fromHex("f390" + "f3a4" + "e800000000" + "ffd0"
                + "c3"));
        assertEquals(5, notes.size(), notes.toString());
        assertTrue(notes.get(0).startsWith("instruction 0 (pause) is its latency differs by CPU generation")
                && notes.get(0).contains("140"), notes.get(0));
        assertTrue(notes.get(1).startsWith("instruction 1 (rep movsb") && notes.get(1).contains("rcx times"),
                notes.get(1));
        assertTrue(notes.get(2).contains("the callee is not in the block") && !notes.get(2).contains("run time"),
                notes.get(2));
        assertTrue(notes.get(3).contains("the callee is not in the block") && notes.get(3).contains("run time"),
                notes.get(3));
        assertTrue(notes.get(4).startsWith("instruction 4 (ret) is a return"), notes.get(4));
        assertEquals(1, UnmodelledInstructions.notes(BasicBlock.fromHex("ffe0")).size(), "jmp rax");
        assertEquals(List.of(), UnmodelledInstructions.notes(BasicBlock.fromHex("4801d8eb00")), "a direct jmp");
        // movsb without rep is one pass: nothing to say
        assertEquals(List.of(), UnmodelledInstructions.notes(BasicBlock.fromHex("a4")));
    }
}
