package dev.basalt.datasets;

import dev.basalt.decoder.BasicBlock;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Exact token sequences for hand-picked instructions (DESIGN.md §6). */
class IthemalTokenizerTest {

    private static List<String> tokens(String hex) {
        BasicBlock b = BasicBlock.fromHex(hex);
        assertEquals(1, b.size(), hex + " is one instruction");
        return IthemalTokenizer.tokens(b.instruction(0));
    }

    private static List<String> split(String s) {
        return List.of(s.split(" "));
    }

    @Test
    void memoryOperandWithIndexAndDisplacement() {
        // mov rax, qword ptr [rbx+rcx*8+0x10]
        assertEquals(split("MOV <S> <M> RBX RCX _DISPLACEMENT_ </M> <D> RAX <E>"), tokens("488b44cb10"));
    }

    @Test
    void memoryOperandWithoutIndexReadAndWritten() {
        // add qword ptr [rdi], rsi: the memory is a source and a destination; flags are hidden operands
        assertEquals(split("ADD <S> <M> RDI _NO_REGISTER_ </M> RSI <D> <M> RDI _NO_REGISTER_ </M> RFLAGS <E>"),
                tokens("480137"));
    }

    @Test
    void storeIsADestinationOnly() {
        // mov qword ptr [rsp+8], rax
        assertEquals(split("MOV <S> RAX <D> <M> RSP _NO_REGISTER_ _DISPLACEMENT_ </M> <E>"), tokens("4889442408"));
    }

    @Test
    void implicitOperands() {
        // mul rcx reads rax, writes rdx:rax and the flags
        assertEquals(split("MUL <S> RCX RAX <D> RAX RDX RFLAGS <E>"), tokens("48f7e1"));
    }

    @Test
    void immediateAndLeaAddress() {
        // lea rdi, [rbx+8] ; add eax, 5
        assertEquals(split("LEA <S> <M> RBX _NO_REGISTER_ _DISPLACEMENT_ </M> <D> RDI <E>"), tokens("488d7b08"));
        assertEquals(split("ADD <S> EAX _IMMEDIATE_ <D> EAX RFLAGS <E>"), tokens("83c005"));
    }

    @Test
    void prefixes() {
        // lock add dword ptr [rax], 1
        assertEquals(split("LOCK ADD <S> <M> RAX _NO_REGISTER_ </M> _IMMEDIATE_ <D> <M> RAX _NO_REGISTER_ </M> RFLAGS <E>"),
                tokens("f0830001"));
    }

    @Test
    void avx512Opmask() {
        // vaddps zmm1{k1}, zmm2, zmm3: merge-masking keeps zmm1's masked-off lanes, so zmm1 is read (and
        // conditionally written); the opmask k1 is read
        assertEquals(split("VADDPS <S> ZMM1 K1 ZMM2 ZMM3 <D> ZMM1 <E>"), tokens("62f16c4958cb"));
        // vaddps zmm1{k1}{z}, zmm2, zmm3: zero-masking does not read zmm1
        assertEquals(split("VADDPS <S> K1 ZMM2 ZMM3 <D> ZMM1 <E>"), tokens("62f16cc958cb"));
    }
}
