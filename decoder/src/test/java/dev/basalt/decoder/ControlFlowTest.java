package dev.basalt.decoder;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Blocks and loops of hand-written code, laid out by {@link Assembly} and cut by {@link ControlFlow}. */
class ControlFlowTest {

    private static ControlFlow flow(String text) {
        List<Assembly.Function> functions = Assembly.assemble(text, Assembly.Syntax.INTEL).functions();
        assertEquals(1, functions.size());
        return ControlFlow.of(functions.get(0).bytes(), 0);
    }

    @Test
    void aLoopIsTheBlocksOnAPathFromItsHeaderBackToItsBranch() {
        // the exit path inside the loop's range (mov; ret) does not come back to the back edge: not the loop's
        ControlFlow f = flow("""
                .Ltop:
                  add rax, 1
                  cmp rax, rdi
                  jne .Lcont
                  mov eax, 1
                  ret
                .Lcont:
                  dec rcx
                  jnz .Ltop
                """);
        assertEquals(3, f.blocks().size(), f.blocks().toString());
        assertEquals(1, f.loops().size());
        ControlFlow.Loop loop = f.loops().get(0);
        assertEquals(2, loop.blocks().size(), loop.blocks().toString());
        assertEquals(0, loop.header());
        assertEquals(5, loop.instructions(), "add, cmp, jne; dec, jnz");
        assertTrue(loop.innermost());
    }

    @Test
    void aCounterReadGoesOnInItsBlockAndAHaltEndsIt() {
        // rdtsc is a system instruction to Zydis, but control goes on: code that times itself is one block
        ControlFlow timed = flow("""
                .Ltop:
                  rdtsc
                  add rax, rdx
                  rdtscp
                  rdpmc
                  dec rcx
                  jnz .Ltop
                """);
        assertEquals(1, timed.blocks().size(), timed.blocks().toString());
        assertEquals(6, timed.blocks().get(0).block().size());
        assertEquals(1, timed.loops().size());
        // hlt stops the core: what follows is another block
        ControlFlow halted = flow("""
                  add rax, rdx
                  hlt
                  add rax, rdx
                  ret
                """);
        assertEquals(2, halted.blocks().size(), halted.blocks().toString());
    }

    @Test
    void paddingAfterAJumpIsNoPartOfTheLoopAndABranchBackItDoesNotReachIsNoLoop() {
        // jmp over aligned padding into the loop: the padding (gas' NOPs) is not reached from the header
        ControlFlow f = flow("""
                .Ltop:
                  add rax, 1
                  jmp .Lbody
                  .p2align 4
                .Lbody:
                  dec rcx
                  jnz .Ltop
                """);
        assertEquals(1, f.loops().size());
        assertEquals(2, f.loops().get(0).blocks().size(), f.loops().get(0).blocks().toString());
        assertEquals(4, f.loops().get(0).instructions());
        // a branch back into code the target cannot come back from (it returns first) is not a loop
        ControlFlow none = flow("""
                .Lfirst:
                  add rax, 1
                  ret
                .Lsecond:
                  dec rcx
                  jnz .Lfirst
                """);
        assertFalse(none.loops().stream().anyMatch(l -> l.header() == 0), none.loops().toString());
    }
    /**
     * A stripped program (Debian's gzip) analyzed function by function from its unwind table: a function's entry is a
     * loop header only when a branch of the function goes back to it. Analyzed section-wide, gzip's top "innermost
     * loop" was a function's prologue ({@code push r14; push r13; ...}), reached by a branch of the code before it.
     */
    @Test
    void aStrippedProgramsFunctionEntriesAreLoopHeadersOnlyByTheirOwnBackEdges() throws Exception {
        java.nio.file.Path gzip = java.nio.file.Path.of("/usr/bin/gzip");
        org.junit.jupiter.api.Assumptions.assumeTrue(java.nio.file.Files.isReadable(gzip), "no /usr/bin/gzip");
        ElfCode.Functions found = ElfCode.functions(gzip);
        org.junit.jupiter.api.Assumptions.assumeTrue(found.boundaries() == ElfCode.Boundaries.UNWIND_TABLE,
                "/usr/bin/gzip here is not stripped with an unwind table");
        int loops = 0;
        for (ElfCode.Function f : found.functions()) {
            ControlFlow flow = ControlFlow.of(f.bytes(), f.address(), found.knownStarts());
            for (ControlFlow.Loop l : flow.loops()) {
                loops++;
                assertTrue(l.header() >= f.address() && l.latch() < f.address() + f.bytes().length,
                        "loop outside its function " + f.name() + ": " + l);
                if (l.header() == f.address()) {
                    // its latch branches back to the entry, within the function
                    ControlFlow.Block latch = l.blocks().stream().filter(b -> b.address() == l.latch()).findFirst()
                            .orElseThrow();
                    assertEquals(f.address(), latch.target(), f.name() + ": " + l);
                }
            }
        }
        assertTrue(loops > 100, loops + " loops");
    }
}
