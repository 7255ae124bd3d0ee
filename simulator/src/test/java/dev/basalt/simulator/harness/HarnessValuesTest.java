package dev.basalt.simulator.harness;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.basalt.decoder.BasicBlock;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The values BHive's harness gives a block, followed through its divides and through what its stores wrote: the
 * quotient and remainder of a divide of known values, and a load of bytes a store of the block wrote, hold known
 * values, so the addresses made of them are known and so are the store→load pairs they make. Blocks from BHive's
 * Haswell and Skylake sets.
 */
class HarnessValuesTest {

    private static BhiveMemory.Program program(String hex) {
        return BhiveMemory.Program.of(BasicBlock.fromHex(hex), BhiveMemory.Harness.BHIVE);
    }

    @Test
    void aStoreAtTheRemaindersAddressFeedsTheLoadOfThatAddress() {
        // mov rax, [rdx+0x20]; xor edx, edx; div qword [r12+8]; mov rax, r13; mov [rcx+rdx*8], rbx;
        // add rax, [r12]; lea rdx, [r12+0x10]; mov [rax], rdx — 0x2324000 / 0x2324000: quotient 1, remainder 0, so
        // the store writes [rcx] = [0x2324000], which the add reads
        BhiveMemory.Program p = program("488b422031d249f77424084c89e848891cd149030424498d542410488910");
        assertEquals(1, p.quotientBits()[2]);
        assertTrue(BhiveMemory.edges(p).contains(new BhiveMemory.Edge(4, 5, false, false)), BhiveMemory.edges(p)
                .toString());
    }

    @Test
    void aSignedDivideOfKnownValuesHasItsQuotientsBits() {
        // lea rax, [r14-0x37]; mov esi, 30; mov r12, rbx; cqo; idiv rsi; ...: (0x2324000 - 0x37) / 30
        BhiveMemory.Program p = program("498d46c9be1e0000004989dc489948f7fe4929c44d85e4498d5c24ff");
        long quotient = (0x2324000L - 0x37) / 30;
        assertEquals(64 - Long.numberOfLeadingZeros(quotient), p.quotientBits()[4]);
        // mov eax, 0x7fffffff; cdq; idiv esi: 0x7fffffff / 0x2324000 = 58, six bits
        assertEquals(6, program("b8ffffff7f99f7fe4439c0").quotientBits()[2]);
        // a dividend that changes every iteration (rax is the last quotient plus 0x2324007) is not known
        assertEquals(-1, program("89c631d24889ef488d441e0748f7f64889c1480fafce").quotientBits()[4]);
    }

    @Test
    void aPointerStoredAndLoadedBackIsFollowed() {
        // mov rax, [r12]; xor edx, edx; mov rax, [rax+0x18]; div qword [rbx+8]; mov [rcx+rdx*8], r12;
        // mov rcx, [rbx]; lea rax, [rbx+0x10]; mov [rcx+r13], rax — rcx loads back the r12 the block stored, so the
        // last store writes 0x4648000: the one physical page's first bytes, which the next iteration's first load
        // reads through another virtual page (no forwarding: partial)
        List<BhiveMemory.Edge> edges = BhiveMemory.edges(program(
                "498b042431d2488b401848f773084c8924d1488b0b488d43104a890429"));
        assertTrue(edges.contains(new BhiveMemory.Edge(7, 0, true, true)), edges.toString());
        assertTrue(edges.contains(new BhiveMemory.Edge(4, 5, false, false)), edges.toString());
    }

    @Test
    void aPointerAddedFromMemoryIsKnown() {
        // mov rax, r13; add rax, [r12]; mov rcx, [rax+8]: 0x2324000 + 0x2324000, so the load reads page offset 8
        assertEquals(8, BhiveMemory.loadOffsets(program("4c89e849030424488b4808"))[2]);
        // sub of a load: mov rax, r13; sub rax, [r12]; mov rcx, [rax+0x18] reads [0x18]
        assertEquals(0x18, BhiveMemory.loadOffsets(program("4c89e8492b0424488b4818"))[2]);
    }

    @Test
    void bytesAStoreOnlyPartlyWroteAreNotKnown() {
        // mov eax, [rax+8]; add eax, 1; test bl, bl; mov [rdx+8], eax — the second iteration loads [0x2324009], four
        // bytes of which the store wrote three: not a value the runs know, so the third iteration's address is not
        // known either, and no store→load pair is made of it
        BhiveMemory.Program p = program("8b400883c00184db894208");
        assertTrue(BhiveMemory.edges(p).isEmpty(), BhiveMemory.edges(p).toString());
        assertEquals(-1, BhiveMemory.loadOffsets(p)[0]);
    }

    @Test
    void thePageReadsTheLastStoreThatHoldsTheBytes() {
        HarnessInterpreter.Page page = new HarnessInterpreter.Page(new long[] {8, 8});
        assertEquals(HarnessInterpreter.filling(8, 8), page.read(8, 8, 8)); // not written yet in these runs
        page.write(8, 8, 0x1122334455667788L);
        assertEquals(0x55667788L, page.read(8, 4, 4));
        assertEquals(0x11223344L, page.read(12, 4, 4));
        page.write(10, 2, BhiveMemory.UNKNOWN);
        assertEquals(BhiveMemory.UNKNOWN, page.read(8, 4, 4));
        assertEquals(0x11223344L, page.read(12, 4, 4));
        assertFalse(page.read(0, 8, 8) == BhiveMemory.UNKNOWN); // another range: the filling
    }
}
