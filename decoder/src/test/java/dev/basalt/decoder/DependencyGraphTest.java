package dev.basalt.decoder;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Dependency graphs of small blocks, every edge derived by hand (the derivation of each is in the comment
 * above it: "p" is a position in the two unrolled copies, so p >= n is the next iteration).
 */
class DependencyGraphTest {

    private static final MemoryPolicy SE = MemoryPolicy.SAME_EXPRESSION;
    private static final MemoryPolicy AA = MemoryPolicy.ALL_ALIAS;

    static Stream<Arguments> blocks() {
        return Stream.of(
            // mov rax,[rdi]; add rax,rcx; mov [rdi],rax — load-op-store. The store reads back into the next
            // iteration's load (RAW [rdi] loop) and overwrites what the load read (WAR 0->2).
            Arguments.of("load-op-store", "488b074801c8488907", SE, List.of(
                "0->1 RAW rax", "0->1 WAW rax", "0->2 WAR [rdi]", "1->2 RAW rax",
                "2->0 RAW [rdi] loop", "2->0 WAR rax loop", "1->0 WAW rax loop",
                "1->1 WAW CF loop", "1->1 WAW OSZAP loop", "2->2 WAW [rdi] loop")),
            // lea rax,[rax+rbx*2] — a one-instruction loop-carried chain through rax.
            Arguments.of("lea chain", "488d0458", SE, List.of("0->0 RAW rax loop", "0->0 WAW rax loop")),
            // mov al,[rsi]; movzx ecx,al; mov ah,1 — 8-bit writes merge into rax, so they read it.
            Arguments.of("partial-register merges", "8a060fb6c8b401", SE, List.of(
                "0->1 RAW rax", "0->2 RAW rax", "1->2 WAR rax", "0->2 WAW rax",
                "2->0 RAW rax loop", "2->0 WAW rax loop", "1->1 WAW rcx loop")),
            // add rax,rbx; adc rcx,rdx; setc r8b — a carry chain; CF and OSZAP are separate resources.
            Arguments.of("flag chain", "4801d84811d1410f92c0", SE, List.of(
                "0->1 RAW CF", "0->1 WAW CF", "0->1 WAW OSZAP", "1->2 RAW CF",
                "0->0 RAW rax loop", "0->0 WAW rax loop", "2->0 WAR CF loop", "1->0 WAW CF loop",
                "1->0 WAW OSZAP loop", "1->1 RAW rcx loop", "1->1 WAW rcx loop", "2->2 RAW r8 loop",
                "2->2 WAW r8 loop")),
            // mov [rsp+8],rax; mov rbx,[rsp+8]; mov rcx,[rsp+16] — store->load only for the same expression...
            Arguments.of("store->load, same expression", "4889442408488b5c2408488b4c2410", SE, List.of(
                "0->1 RAW [rsp+0x8]", "1->0 WAR [rsp+0x8] loop", "0->0 WAW [rsp+0x8] loop",
                "1->1 WAW rbx loop", "2->2 WAW rcx loop")),
            // ...and to both loads when everything may alias.
            Arguments.of("store->load, all alias", "4889442408488b5c2408488b4c2410", AA, List.of(
                "0->1 RAW mem", "0->2 RAW mem", "1->0 WAR mem loop", "2->0 WAR mem loop", "0->0 WAW mem loop",
                "1->1 WAW rbx loop", "2->2 WAW rcx loop")),
            // mov [rdi],rax; add rdi,8; mov rbx,[rdi] — rdi moves between store and load: not the same
            // address; but the load of iteration i and the store of i+1 both use rdi+8 (WAR [rdi] loop).
            Arguments.of("base register changes, same expression", "4889074883c708488b1f", SE, List.of(
                "0->1 WAR rdi", "1->2 RAW rdi", "1->0 RAW rdi loop", "2->0 WAR [rdi] loop", "1->1 RAW rdi loop",
                "2->1 WAR rdi loop", "1->1 WAW rdi loop", "1->1 WAW CF loop", "1->1 WAW OSZAP loop",
                "2->2 WAW rbx loop")),
            Arguments.of("base register changes, all alias", "4889074883c708488b1f", AA, List.of(
                "0->1 WAR rdi", "0->2 RAW mem", "1->2 RAW rdi", "1->0 RAW rdi loop", "2->0 WAR mem loop",
                "0->0 WAW mem loop", "1->1 RAW rdi loop", "2->1 WAR rdi loop", "1->1 WAW rdi loop",
                "1->1 WAW CF loop", "1->1 WAW OSZAP loop", "2->2 WAW rbx loop")),
            // xor eax,eax; add eax,ecx; add ecx,eax — the zero idiom reads nothing, so rax's chain restarts
            // each iteration; rcx carries across iterations.
            Arguments.of("zero idiom", "31c001c801c1", SE, List.of(
                "0->1 RAW rax", "0->1 WAW rax", "0->1 WAW CF", "0->1 WAW OSZAP", "1->2 RAW rax", "1->2 WAR rcx",
                "1->2 WAW CF", "1->2 WAW OSZAP", "2->0 WAR rax loop", "1->0 WAW rax loop", "2->0 WAW CF loop",
                "2->0 WAW OSZAP loop", "2->1 RAW rcx loop", "2->2 RAW rcx loop", "2->2 WAW rcx loop")),
            // push rbx; pop rbx — the rsp chain; [rsp] of push and pop are different addresses for the
            // same-expression policy (rsp moved), the same memory for all-alias.
            Arguments.of("push/pop, same expression", "535b", SE, List.of(
                "0->1 RAW rsp", "0->1 WAR rbx", "0->1 WAW rsp", "1->0 RAW rbx loop", "1->0 RAW rsp loop",
                "1->0 WAW rsp loop", "1->1 WAW rbx loop")),
            Arguments.of("push/pop, all alias", "535b", AA, List.of(
                "0->1 RAW mem", "0->1 RAW rsp", "0->1 WAR rbx", "0->1 WAW rsp", "1->0 RAW rbx loop",
                "1->0 RAW rsp loop", "1->0 WAR mem loop", "1->0 WAW rsp loop", "0->0 WAW mem loop",
                "1->1 WAW rbx loop")),
            // mul rcx; add rax,rdx — mul's implicit rax/rdx.
            Arguments.of("mul implicit operands", "48f7e14801d0", SE, List.of(
                "0->1 RAW rax", "0->1 RAW rdx", "0->1 WAW rax", "0->1 WAW CF", "0->1 WAW OSZAP",
                "1->0 RAW rax loop", "1->0 WAW rax loop", "1->0 WAR rdx loop", "0->0 WAW rdx loop",
                "1->0 WAW CF loop", "1->0 WAW OSZAP loop")),
            // cmp rdi,rsi; cmovl rdi,rsi — cmov reads its destination and SF/OF.
            Arguments.of("cmov", "4839f7480f4cfe", SE, List.of(
                "0->1 RAW OSZAP", "0->1 WAR rdi", "1->0 RAW rdi loop", "0->0 WAW CF loop", "1->0 WAR OSZAP loop",
                "0->0 WAW OSZAP loop", "1->1 RAW rdi loop", "1->1 WAW rdi loop")),
            // vfmadd231ps ymm0,ymm1,[rdi]; add rdi,32 — the accumulator chain through zmm0.
            Arguments.of("FMA accumulator", "c4e275b8074883c720", SE, List.of(
                "0->1 WAR rdi", "0->0 RAW zmm0 loop", "1->0 RAW rdi loop", "0->0 WAW zmm0 loop",
                "1->1 RAW rdi loop", "1->1 WAW rdi loop", "1->1 WAW CF loop", "1->1 WAW OSZAP loop")),
            // shl rax,cl; test rax,rax — a shift by cl keeps the old flags when cl = 0, so it reads them.
            Arguments.of("shift by cl reads flags", "48d3e04885c0", SE, List.of(
                "0->1 RAW rax", "0->1 WAW CF", "0->1 WAW OSZAP", "0->0 RAW rax loop", "1->0 RAW CF loop",
                "1->0 RAW OSZAP loop", "1->0 WAR rax loop", "0->0 WAW rax loop", "1->0 WAW CF loop",
                "1->0 WAW OSZAP loop")),
            // shr cl,4; test ecx,ecx — cl is the shifted value, the count an immediate: no flags read.
            Arguments.of("shift of cl by an immediate reads no flags", "c0e90485c9", SE, List.of(
                "0->1 RAW rcx", "0->1 WAW CF", "0->1 WAW OSZAP", "0->0 RAW rcx loop", "1->0 WAR rcx loop",
                "0->0 WAW rcx loop", "1->0 WAW CF loop", "1->0 WAW OSZAP loop")),
            // bsr rax,rsi; add rax,rdi — bsr keeps its destination when the source is zero, so it reads it.
            Arguments.of("bsr reads its destination", "480fbdc64801f8", SE, List.of(
                "0->1 RAW rax", "0->1 WAW rax", "0->1 WAW CF", "0->1 WAW OSZAP", "1->0 RAW rax loop",
                "1->0 WAW rax loop", "1->0 WAW CF loop", "1->0 WAW OSZAP loop")),
            // add rax,1; inc rbx; adc rcx,0 — inc leaves CF alone, so adc's carry comes from the add.
            Arguments.of("inc does not write CF", "4883c00148ffc34883d100", SE, List.of(
                "0->1 WAW OSZAP", "0->2 RAW CF", "0->2 WAW CF", "1->2 WAW OSZAP", "0->0 RAW rax loop",
                "0->0 WAW rax loop", "2->0 WAW CF loop", "2->0 WAW OSZAP loop", "1->1 RAW rbx loop",
                "1->1 WAW rbx loop", "2->2 RAW rcx loop", "2->2 WAW rcx loop")),
            // mov eax,[rip+0x10]; mov [rip+0xa],ecx — both resolve to block offset 0x16.
            Arguments.of("RIP-relative same address", "8b0510000000890d0a000000", SE, List.of(
                "0->1 WAR [block+0x16]", "1->0 RAW [block+0x16] loop", "0->0 WAW rax loop",
                "1->1 WAW [block+0x16] loop")),
            // kmovw k1,edi; vaddps zmm0{k1},zmm1,zmm2 — merge masking reads the old zmm0 and the mask.
            Arguments.of("AVX-512 merge masking", "c5f892cf62f1744958c2", SE, List.of(
                "0->1 RAW k1", "1->0 WAR k1 loop", "0->0 WAW k1 loop", "1->1 RAW zmm0 loop",
                "1->1 WAW zmm0 loop")),
            // cqo; idiv rcx — cqo feeds rdx to idiv, idiv's quotient feeds the next cqo.
            Arguments.of("cqo + idiv", "489948f7f9", SE, List.of(
                "0->1 RAW rdx", "0->1 WAR rax", "0->1 WAW rdx", "1->0 RAW rax loop", "1->0 WAW rdx loop",
                "1->1 RAW rax loop", "1->1 WAW rax loop", "1->1 WAW CF loop", "1->1 WAW OSZAP loop")),
            // A real BHive block: mov rbx,[rsp+8]; mov rdi,[rsp+0x10]; xor edx,edx; mov rsi,rbx.
            Arguments.of("BHive block", "488b5c2408488b7c241031d24889de", SE, List.of(
                "0->3 RAW rbx", "3->0 WAR rbx loop", "0->0 WAW rbx loop", "1->1 WAW rdi loop",
                "2->2 WAW CF loop", "2->2 WAW OSZAP loop", "2->2 WAW rdx loop", "3->3 WAW rsi loop")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("blocks")
    void edgesMatchHandDerivation(String name, String hex, MemoryPolicy policy, List<String> expected) {
        DependencyGraph graph = BasicBlock.fromHex(hex).dependencyGraph(policy);
        List<String> actual = graph.edges().stream().map(DependencyGraphTest::text).sorted().toList();
        assertEquals(expected.stream().sorted().toList(), actual, name);
        assertEquals(actual.size(), actual.stream().distinct().count(), "no duplicate edges");
    }

    static String text(Dependency d) {
        return d.producer() + "->" + d.consumer() + " " + d.kind() + " " + d.resource().name()
                + (d.loopCarried() ? " loop" : "");
    }

    @Test
    void hardCodedRegisterIdsMatchZydis() {
        assertEquals("cl", Zydis.get().register(InstructionEffects.CL).name());
        assertEquals("rsi", Zydis.get().register(InstructionEffects.RSI).name());
        assertEquals("rdi", Zydis.get().register(InstructionEffects.RDI).name());
    }

    @Test
    void edgesOnRealBlocksAreWellFormed() throws Exception {
        for (String hex : TestBlocks.bhiveSample()) {
            BasicBlock block = BasicBlock.fromHex(hex);
            for (MemoryPolicy policy : MemoryPolicy.values()) {
                DependencyGraph g = block.dependencyGraph(policy);
                for (Dependency d : g.edges()) {
                    assertTrue(d.consumer() < block.size() && d.producer() < block.size(), hex + " " + d);
                    assertTrue(d.loopCarried() || d.producer() < d.consumer(), hex + " " + d);
                    if (d.kind() == DependencyKind.RAW) {
                        assertTrue(g.writes(d.producer()).contains(d.resource()), hex + " producer writes " + d);
                        assertTrue(g.reads(d.consumer()).contains(d.resource()), hex + " consumer reads " + d);
                    }
                }
            }
            // All-alias sees every memory dependency that same-expression sees, and more.
            long se = block.dependencyGraph(SE).edges().stream().filter(d -> d.resource().kind()
                    == Resource.Kind.MEMORY).count();
            long aa = block.dependencyGraph(AA).edges().stream().filter(d -> d.resource().kind()
                    == Resource.Kind.MEMORY).count();
            assertTrue(aa >= se || se == 0, hex);
        }
    }
}
