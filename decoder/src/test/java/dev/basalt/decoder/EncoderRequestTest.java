package dev.basalt.decoder;

import org.junit.jupiter.api.Test;

import java.util.HexFormat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The encoder binding: every request field Basalt reads or writes, checked by encoding changed instructions
 * whose bytes come from llvm-mc-14 ({@code echo 'sub rax, rbx' | llvm-mc-14 -x86-asm-syntax=intel -show-encoding}).
 */
class EncoderRequestTest {

    private static EncoderRequest request(String hex) {
        return EncoderRequest.of(BasicBlock.fromHex(hex).instruction(0));
    }

    private static String hex(byte[] bytes) {
        return HexFormat.of().formatHex(bytes);
    }

    private static Register reg(String name) {
        return Register.all().stream().filter(r -> r.name().equals(name)).findFirst().orElseThrow();
    }

    @Test
    void anUnchangedRequestReEncodesTheSameBytes() {
        for (String hex : new String[] {"4801d8", "488b742430", "c5ec58cb", "6b47080c", "f0480fb111", "62f1f54958c2"}) {
            assertEquals(hex, hex(request(hex).encode()), hex);
        }
    }

    @Test
    void mnemonicRegisterAndAddressChangesEncodeAsLlvmMcDoes() {
        EncoderRequest add = request("4801d8"); // add rax, rbx
        assertEquals("add", add.mnemonic());
        assertEquals(2, add.operandCount());
        assertEquals(EncoderRequest.Kind.REGISTER, add.kind(0));
        assertEquals("rax", add.register(0).name());
        assertEquals("rbx", add.register(1).name());
        assertEquals("4829d8", hex(add.withMnemonic("sub").encode()));          // sub rax, rbx
        assertEquals("4901d9", hex(add.withRegister(0, reg("r9")).encode()));  // add r9, rbx

        EncoderRequest mov = request("488b742430"); // mov rsi, qword ptr [rsp+0x30]
        assertEquals(EncoderRequest.Kind.MEMORY, mov.kind(1));
        assertEquals("rsp", mov.base(1).name());
        assertEquals(Register.NONE, mov.index(1));
        assertEquals(0x30, mov.displacement(1));
        assertEquals("488b748b30", hex(mov.withAddress(1, reg("rbx"), reg("rcx"), 4, 0x30).encode()));

        assertEquals("c5ec59cb", hex(request("c5ec58cb").withMnemonic("vmulps").encode())); // vmulps ymm1, ymm2, ymm3
        EncoderRequest imul = request("6b47080c"); // imul eax, dword ptr [rdi+8], 12
        assertEquals(EncoderRequest.Kind.IMMEDIATE, imul.kind(2));
        assertEquals(12, imul.immediate(2));
        assertEquals(8, imul.displacement(1));
    }

    @Test
    void aChangeTheIsaDoesNotAllowFailsWithAnEncodeException() {
        EncoderRequest add = request("4801d8");
        // add rax, xmm1 does not exist
        EncodeException e = assertThrows(EncodeException.class, () -> add.withRegister(1, reg("xmm1")).encode());
        assertEquals(true, e.getMessage().contains("no encoding"));
        assertThrows(IllegalArgumentException.class, () -> add.withMnemonic("nosuchthing"));
        assertThrows(IllegalArgumentException.class, () -> add.base(0));
        assertThrows(IndexOutOfBoundsException.class, () -> add.kind(2));
    }
}
