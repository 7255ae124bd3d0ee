package dev.basalt.decoder;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Checks each ZydisDecodedInstruction / ZydisDecodedOperand field offset Basalt reads, on instructions whose
 * every field is known: a wrong offset shows up as a wrong register, size, displacement or flag here.
 */
class ZydisLayoutTest {

    private static Instruction one(String hex) {
        BasicBlock b = BasicBlock.fromHex(hex);
        assertEquals(1, b.size(), hex);
        return b.instruction(0);
    }

    @Test
    void movFromStackSlot() {
        Instruction i = one("488b742430");
        assertEquals("mov", i.mnemonic());
        assertEquals(5, i.length());
        assertEquals("mov rsi, qword ptr [rsp+0x30]", i.intelSyntax());
        assertEquals("MOV r64, m64", i.form());
        assertEquals("I86", i.isaSet());
        assertEquals("BASE", i.isaExtension());
        assertEquals("DATAXFER", i.category());
        assertEquals(2, i.operands().size());
        Operand.RegisterOperand dst = (Operand.RegisterOperand) i.operands().get(0);
        assertEquals("rsi", dst.register().name());
        assertEquals(RegisterClass.GPR64, dst.register().registerClass());
        assertEquals(64, dst.sizeBits());
        assertEquals(Action.WRITE, dst.action());
        assertEquals(Visibility.EXPLICIT, dst.visibility());
        Operand.MemoryOperand src = (Operand.MemoryOperand) i.operands().get(1);
        assertEquals("rsp", src.base().name());
        assertSame(Register.NONE, src.index());
        assertEquals(0, src.scale());
        assertEquals(0x30, src.displacement());
        assertEquals(64, src.sizeBits());
        assertEquals("ss", src.segment().name());
        assertEquals(Action.READ, src.action());
        assertTrue(i.flagsRead().isEmpty());
        assertTrue(i.flagsWritten().isEmpty());
        assertEquals(Set.of(), i.prefixes());
    }

    /** The encoded displacement's size, read from Zydis' raw fields: a zero disp8 counts, an immediate does not. */
    @Test
    void displacementSizes() {
        assertEquals(8, one("0f1f4000").displacementBits());        // nop dword ptr [rax+0x0]
        assertEquals(8, one("488b742430").displacementBits());      // mov rsi, [rsp+0x30]
        assertEquals(32, one("0f1f840000000000").displacementBits()); // nop dword ptr [rax+rax*1+0x0]
        assertEquals(0, one("4883c001").displacementBits());        // add rax, 1
        assertEquals(0, one("488b00").displacementBits());          // mov rax, [rax]
        assertEquals(32, one("488b0500100000").displacementBits()); // mov rax, [rip+0x1000]
    }

    @Test
    void negativeDisplacementIndexAndScale() {
        Operand.MemoryOperand m = (Operand.MemoryOperand) one("488b44cdf8").operands().get(1); // [rbp+rcx*8-0x8]
        assertEquals("rbp", m.base().name());
        assertEquals("rcx", m.index().name());
        assertEquals(8, m.scale());
        assertEquals(-8, m.displacement());
        assertEquals("[rbp+rcx*8-0x8]", m.addressText());
    }

    @Test
    void vsibIndexIsAVectorRegister() {
        Instruction i = one("c4e26d92048f"); // vgatherdps ymm0, [rdi+ymm1*4], ymm2
        Operand.MemoryOperand m = (Operand.MemoryOperand) i.operands().get(1);
        assertEquals("ymm1", m.index().name());
        assertEquals(4, m.scale());
        assertEquals("AVX2GATHER", i.isaSet());
    }

    @Test
    void immediatesSignAndSize() {
        Operand.ImmediateOperand imm32 = (Operand.ImmediateOperand) one("b878563412").operands().get(1);
        assertEquals(0x12345678L, imm32.value());
        assertEquals(32, imm32.sizeBits());
        assertFalse(imm32.relative());
        Operand.ImmediateOperand imm8 = (Operand.ImmediateOperand) one("4883c0f8").operands().get(1); // add rax,-8
        assertEquals(-8L, imm8.value());
        assertEquals(8, imm8.sizeBits());
        assertTrue(imm8.signed());
        Instruction call = one("e810000000");
        Operand.ImmediateOperand rel = (Operand.ImmediateOperand) call.operands().get(0);
        assertTrue(rel.relative());
        assertEquals(0x10, rel.value());
        assertEquals("CALL rel32", call.form());
    }

    @Test
    void flagsTestedAndWritten() {
        Instruction adc = one("4811d8");
        assertEquals(FlagSet.of(CpuFlag.CF), adc.flagsRead());
        assertEquals(FlagSet.of(CpuFlag.CF, CpuFlag.PF, CpuFlag.AF, CpuFlag.ZF, CpuFlag.SF, CpuFlag.OF),
                adc.flagsWritten());
        Instruction inc = one("48ffc0");
        assertFalse(inc.flagsWritten().contains(CpuFlag.CF));
        assertTrue(inc.flagsWritten().contains(CpuFlag.ZF));
        assertEquals(FlagSet.of(CpuFlag.DF), one("fd").flagsWritten()); // std
        assertEquals("CF|ZF", FlagSet.of(CpuFlag.ZF, CpuFlag.CF).toString());
    }

    @Test
    void prefixes() {
        assertEquals(Set.of(Prefix.LOCK), one("f0480fb10f").prefixes());
        assertEquals(Set.of(Prefix.REP), one("f3a4").prefixes());
        assertEquals(Set.of(Prefix.REPNE), one("f2ae").prefixes()); // repne scasb
        // f3 on a non-string instruction is a mandatory prefix (movss), not rep.
        Instruction movss = one("f30f1001");
        assertEquals("movss", movss.mnemonic());
        assertEquals(Set.of(), movss.prefixes());
    }

    @Test
    void registerTable() {
        Zydis z = Zydis.get();
        List<Register> regs = z.registers();
        Register al = regs.stream().filter(r -> r.name().equals("al")).findFirst().orElseThrow();
        Register ah = regs.stream().filter(r -> r.name().equals("ah")).findFirst().orElseThrow();
        Register eax = regs.stream().filter(r -> r.name().equals("eax")).findFirst().orElseThrow();
        Register xmm7 = regs.stream().filter(r -> r.name().equals("xmm7")).findFirst().orElseThrow();
        assertEquals("rax", al.enclosingName());
        assertEquals("rax", ah.enclosingName());
        assertEquals("rax", eax.enclosingName());
        assertEquals("zmm7", xmm7.enclosingName());
        assertEquals(8, ah.widthBits());
        assertEquals(32, eax.widthBits());
        assertEquals(128, xmm7.widthBits());
        assertTrue(al.isPartialWrite());
        assertFalse(eax.isPartialWrite());
        assertFalse(xmm7.isPartialWrite());
    }

    @Test
    void instructionValueSemantics() {
        Instruction a = one("4889de");
        Instruction b = one("4889de");
        assertEquals(a, b);
        assertEquals(a.hashCode(), b.hashCode());
        byte[] bytes = a.bytes();
        bytes[0] = 0;
        assertEquals("4889de", a.hex(), "bytes() is a copy");
    }
}
