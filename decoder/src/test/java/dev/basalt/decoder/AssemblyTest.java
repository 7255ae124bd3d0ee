package dev.basalt.decoder;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Assembly text to machine code; every expected encoding is what llvm-mc-14 -show-encoding assembles. */
class AssemblyTest {

    private static String one(String text, Assembly.Syntax syntax) {
        List<Assembly.Block> blocks = Assembly.parse(text, syntax);
        assertEquals(1, blocks.size(), () -> "blocks of " + text + ": " + blocks);
        return blocks.get(0).hex();
    }

    @ParameterizedTest(name = "{0} | {1}")
    @CsvSource(delimiter = '|', textBlock = """
            add rax, rbx                                  | addq %rbx, %rax                          | 4801d8
            mov qword ptr [rsp + 8], rax                  | movq %rax, 8(%rsp)                       | 4889442408
            lea rax, [rip + 16]                           | leaq 16(%rip), %rax                      | 488d0510000000
            lock cmpxchg qword ptr [rdx], rcx             | lock cmpxchgq %rcx, (%rdx)               | f0480fb10a
            rep stosq                                     | rep stosq                                | f348ab
            vaddps ymm0, ymm1, ymmword ptr [rax + 4*rbx - 8] | vaddps -8(%rax,%rbx,4), %ymm1, %ymm0  | c5f4584498f8
            mov rax, qword ptr fs:[40]                    | movq %fs:40, %rax                        | 64488b042528000000
            cmpltps xmm0, xmm1                            | cmpltps %xmm1, %xmm0                     | 0fc2c101
            mov eax, 4294967295                           | movl $4294967295, %eax                   | b8ffffffff
            sar rax                                       | sarq %rax                                | 48d1f8
            nop dword ptr [rax]                           | nopl (%rax)                              | 0f1f00
            movsx rax, byte ptr [rsi]                     | movsbq (%rsi), %rax                      | 480fbe06
            vblendvps xmm15, xmm10, xmm14, xmm0           | vblendvps %xmm0, %xmm14, %xmm10, %xmm15  | c443294afe00
            fld tbyte ptr [rsp]                           | fldt (%rsp)                              | db2c24
            fsubp st(1), st                               | fsubrp %st, %st(1)                       | dee9
            cdqe                                          | cltq                                     | 4898
            movzx eax, word ptr [rdi]                     | movzwl (%rdi), %eax                      | 0fb707
            cvtsi2sd xmm0, dword ptr [rax]                | cvtsi2sdl (%rax), %xmm0                  | f20f2a00
            mov eax, DWORD PTR -24[rbp]                   | movl -24(%rbp), %eax                     | 8b45e8
            sal rdx, 3                                    | salq $3, %rdx                            | 48c1e203
            sysretq                                       | sysretq                                  | 480f07
            fnstenv [rax]                                 | fnstenv (%rax)                           | d930
            vaddps zmm1, zmm2, zmm3                       | vaddps %zmm3, %zmm2, %zmm1               | 62f16c4858cb
            imul eax, 3                                   | imull $3, %eax                           | 6bc003
            rep ret                                       | rep ret                                  | f3c3
            nop word ptr cs:[rax + rax]                   | nopw %cs:(%rax,%rax)                     | 2e660f1f0400
            mov eax, dword ptr ds:[rax]                   | movl %ds:(%rax), %eax                    | 3e8b00
            xchg ecx, eax                                 | xchgl %eax, %ecx                         | 91
            xchg eax, eax                                 | xchgl %eax, %eax                         | 87c0
            movq xmm0, qword ptr [r12]                    | movq (%r12), %xmm0                       | f3410f7e0424
            movq qword ptr [r12], xmm0                    | movq %xmm0, (%r12)                       | 66410fd60424
            call fword ptr [rdi]                          | lcalll *(%rdi)                           | ff1f
            notrack jmp rax                               | notrack jmp *%rax                        | 3effe0
            """)
    void intelAndAttEncodeAsLlvmMcAssembles(String intel, String att, String hex) {
        assertEquals(hex, one(intel, Assembly.Syntax.INTEL), intel);
        assertEquals(hex, one(att, Assembly.Syntax.ATT), att);
        if (att.contains("%") || att.contains("$")) {
            assertEquals(Assembly.Syntax.ATT, Assembly.Syntax.detect(att));
        }
        assertEquals(Assembly.Syntax.INTEL, Assembly.Syntax.detect(intel));
    }

    @Test
    void aLoopBranchesBackToItsLabelWithAShortDisplacement() {
        // gcc -O2 -S of "for (i = 0; i < n; i++) s += a[i] * b[i]": the loop body is one block
        String gcc = """
                	.text
                	.p2align 4
                	.globl	dot
                dot:
                	test	rdx, rdx
                	jle	.L4
                	xor	eax, eax
                	pxor	xmm1, xmm1
                	.p2align 4,,10
                .L3:
                	movsd	xmm0, QWORD PTR [rdi+rax*8]   # a[i]
                	mulsd	xmm0, QWORD PTR [rsi+rax*8]
                	add	rax, 1
                	addsd	xmm1, xmm0
                	cmp	rdx, rax
                	jne	.L3
                	movapd	xmm0, xmm1
                	ret
                .L4:
                	pxor	xmm1, xmm1
                	ret
                """;
        List<Assembly.Block> blocks = Assembly.parse(gcc, Assembly.Syntax.detect(gcc));
        // as in the object file: a block ends after each branch and return and starts at each branch target
        assertEquals(5, blocks.size(), blocks::toString);
        assertEquals("dot", blocks.get(0).label());
        // jle .L4 jumps over the 2 instructions after it (6 bytes), the 5 bytes of padding ".p2align 4,,10" puts
        // before .L3 and the 28-byte code from .L3 to the ret: 0x27, as gas assembles it
        assertEquals("4885d27e27", blocks.get(0).hex());
        // the padding runs on from pxor into .L3: gas' 5-byte NOP ends that block, as in the object file
        assertEquals("31c0660fefc9" + "0f1f440000", blocks.get(1).hex());
        // jne .L3 goes back over the 23 bytes from .L3 to its own end: -23 = e9, as gcc's assembler wrote it; the
        // loop is a block of its own, without the exit code after it
        assertEquals("f20f1004c7f20f5904c64883c001f20f58c84839c275e9", blocks.get(2).hex());
        assertEquals(".L3", blocks.get(2).label());
        assertEquals(11, blocks.get(2).firstLine());
        assertTrue(blocks.get(2).loop());
        assertEquals("dot", blocks.get(2).function());
        assertEquals(0x10, blocks.get(2).offset());
        assertEquals("lines 11-16, .L3, dot+0x10, a loop", blocks.get(2).source());
        assertEquals("660f28c1c3", blocks.get(3).hex());
        assertEquals(".L4", blocks.get(4).label());
        // the functions as the object file holds them: dot's 49 bytes, .L3 at 0x10 (padding included), its 23
        // bytes, movapd and ret (5), .L4's 5
        Assembly.Program program = Assembly.assemble(gcc, Assembly.Syntax.INTEL);
        assertEquals(1, program.functions().size());
        assertEquals("dot", program.functions().get(0).name());
        assertEquals(0x10 + 23 + 5 + 5, program.functions().get(0).bytes().length);
    }

    @Test
    void llvmMcaRegionsAreBlocksWithTheirNames() {
        // llvm-mca analyzes a region whole, branches and labels inside it included; a comment line is no separator
        String text = """
                mov rax, 1
                # LLVM-MCA-BEGIN reduce
                top:
                  add rax, rbx
                  # the loop's test
                  dec rcx
                  jnz top
                  imul rax, rax
                # LLVM-MCA-END
                  sub rax, 1
                """;
        List<Assembly.Block> blocks = Assembly.parse(text, Assembly.Syntax.INTEL);
        assertEquals(3, blocks.size(), blocks::toString);
        assertEquals("48c7c001000000", blocks.get(0).hex());
        assertNull(blocks.get(0).region());
        assertEquals("reduce", blocks.get(1).region());
        assertEquals("4801d848ffc975f8480fafc0", blocks.get(1).hex());
        assertEquals(4, blocks.get(1).firstLine());
        assertEquals(8, blocks.get(1).lastLine());
        assertEquals("4883e801", blocks.get(2).hex());
        AssemblyException nested = assertThrows(AssemblyException.class, () -> Assembly.parse(
                "# LLVM-MCA-BEGIN a\nnop\n# LLVM-MCA-BEGIN b\nnop\n", Assembly.Syntax.INTEL));
        assertEquals("line 3, column 1: LLVM-MCA-BEGIN inside the region begun on line 1 (regions do not nest)",
                nested.getMessage());
    }

    @Test
    void aListingsAddressAndBytesColumnsAreSkippedAndItsTargetsAreAbsolute() {
        String objdump = """
                t.o:     file format elf64-x86-64

                Disassembly of section .text:

                0000000000000000 <dot>:
                  10:	f2 0f 10 04 c7       	movsd  (%rdi,%rax,8),%xmm0
                  15:	f2 0f 59 04 c6       	mulsd  (%rsi,%rax,8),%xmm0
                  1a:	48 83 c0 01          	add    $0x1,%rax
                  1e:	f2 0f 58 c8          	addsd  %xmm0,%xmm1
                  22:	48 39 c2             	cmp    %rax,%rdx
                  25:	75 e9                	jne    10 <dot+0x10>
                  27:	66 2e 0f 1f 84 00 00 	cs nopw 0x0(%rax,%rax,1)
                  2e:	00 00 00
                """;
        List<Assembly.Block> blocks = Assembly.parse(objdump, Assembly.Syntax.ATT);
        // the jne ends the block; the padding after it is a block of the listing's own (the object file's too)
        assertEquals(2, blocks.size(), blocks::toString);
        assertEquals("dot", blocks.get(0).label());
        assertEquals("f20f1004c7f20f5904c64883c001f20f58c84839c275e9", blocks.get(0).hex());
        assertTrue(blocks.get(0).loop());
        assertEquals("dot", blocks.get(0).function());
        assertEquals(0x10, blocks.get(0).offset());
        // a listing's bytes column is the instruction as it was, continuation line included
        assertEquals("662e0f1f840000000000", blocks.get(1).hex());
        // without bytes, the text is encoded: the cs prefix is a byte, written first as gas writes it; 0x0 needs
        // no displacement byte (gas drops it too)
        assertEquals("2e660f1f0400", one("cs nopw 0x0(%rax,%rax,1)", Assembly.Syntax.ATT));
    }

    @Test
    void xchgKeepsTheOrderObjdumpPrints() {
        // 87 /r either way round is the same instruction; objdump prints ModRM.rm first, and gas reads it back so
        String objdump = """
                   0:	41 87 d9             	xchg   %ebx,%r9d
                   3:	44 87 cb             	xchg   %r9d,%ebx
                   6:	48 87 fe             	xchg   %rdi,%rsi
                   9:	48 87 f7             	xchg   %rsi,%rdi
                   c:	91                   	xchg   %eax,%ecx
                """;
        assertEquals("4187d94487cb4887fe4887f791", Assembly.parse(objdump, Assembly.Syntax.ATT).get(0).hex());
        assertEquals("4187d9", one("xchg r9d, ebx", Assembly.Syntax.INTEL));
        assertEquals("4487cb", one("xchg ebx, r9d", Assembly.Syntax.INTEL));
    }

    @Test
    void aCallToASymbolOutsideTheTextLeavesRoomForItsRelocation() {
        assertEquals("e800000000", one("call printf@PLT", Assembly.Syntax.INTEL));
        assertEquals("e900000000", one("jmp elsewhere", Assembly.Syntax.INTEL));
        assertEquals("ebf0", one("jmp -16", Assembly.Syntax.INTEL));  // llvm-mc prints displacements
    }

    @Test
    void labelsBlankLinesAndSemicolonsShapeBlocks() {
        List<Assembly.Block> blocks = Assembly.parse("add rax, rbx; imul rax, rax\nloop: dec rcx\njnz loop\n",
                Assembly.Syntax.INTEL);
        assertEquals(2, blocks.size());
        assertEquals("loop", blocks.get(1).label());
        assertEquals("48ffc975fb", blocks.get(1).hex());  // jnz back over 5 bytes
        List<Assembly.Block> split = Assembly.parse("add rax, rbx; imul rax, rax\n\nnext:\ndec rcx\n",
                Assembly.Syntax.INTEL);
        assertEquals(2, split.size());
        assertEquals("4801d8480fafc0", split.get(0).hex());
        assertEquals("48ffc9", split.get(1).hex());
        assertEquals("next", split.get(1).label());
        assertTrue(Assembly.parse("  .text\n# nothing\n", Assembly.Syntax.INTEL).isEmpty());
    }

    @Test
    void gccsSymbolFormsAreRead() {
        // "8+sym(%rip)", gcc -masm=intel's "call [QWORD PTR 24[rax]]", TLS "fs:tls@tpoff"; a ';' or '#' inside a
        // string is not a separator or a comment. Lengths as gas's, each symbol as 0x10000000 (+ its offset).
        String att = "movq 8+log(%rip), %rax\n.string \"x; y # z\"\nmovl %fs:tls@tpoff, %eax\ncall *24(%rax)\n";
        String intel = "mov rax, QWORD PTR log[rip+8]\nmov eax, DWORD PTR fs:tls@tpoff\ncall [QWORD PTR 24[rax]]\n";
        assertEquals("488b0508000010648b042500000010ff5018", one(att, Assembly.Syntax.ATT));
        assertEquals("488b0508000010648b042500000010ff5018", one(intel, Assembly.Syntax.INTEL));
        // gcc -fPIC's TLS call: "data16" and "rex64" are bytes of the instructions, as gas writes them
        assertEquals("66488d3d00000010" + "48e800000000",
                one("data16 leaq tls@tlsgd(%rip), %rdi\nrex64\ncall __tls_get_addr@PLT\n", Assembly.Syntax.ATT));
    }

    @Test
    void localLabelsGoToTheLastDefinitionBeforeOrTheNextAfter() {
        // as gas assembles it: 1b from "jnz" is the first "1:", from the last "jmp" the second; 1f the second
        String text = """
                1:
                  decq %rcx
                  jnz 1b
                  jmp 1f
                  nop
                1:
                  jmp 1b
                """;
        List<Assembly.Block> blocks = Assembly.parse(text, Assembly.Syntax.ATT);
        assertEquals(List.of("48ffc975fb", "eb01", "90", "ebfe"), blocks.stream().map(Assembly.Block::hex).toList());
        AssemblyException missing = assertThrows(AssemblyException.class,
                () -> Assembly.parse("1:\n  jmp 1f\n", Assembly.Syntax.ATT));
        assertEquals("line 2, column 3: no label '1:' after this line for '1f'", missing.getMessage());
    }

    @Test
    void errorsNameTheLineAndColumn() {
        AssemblyException unknown = assertThrows(AssemblyException.class,
                () -> Assembly.parse("add rax, rbx\n  frobnicate rax", Assembly.Syntax.INTEL));
        assertEquals(2, unknown.line());
        assertEquals(3, unknown.column());
        assertTrue(unknown.getMessage().contains("unknown mnemonic 'frobnicate'"), unknown.getMessage());

        AssemblyException operand = assertThrows(AssemblyException.class,
                () -> Assembly.parse("mov rax, qword ptr [rax + ]", Assembly.Syntax.INTEL));
        assertEquals(1, operand.line());
        assertTrue(operand.getMessage().startsWith("line 1, column 10: cannot read"), operand.getMessage());

        AssemblyException bracket = assertThrows(AssemblyException.class,
                () -> Assembly.parse("mov rax, qword ptr [rax", Assembly.Syntax.INTEL));
        assertTrue(bracket.getMessage().contains("unclosed"), bracket.getMessage());

        AssemblyException impossible = assertThrows(AssemblyException.class,
                () -> Assembly.parse("add rax, ebx", Assembly.Syntax.INTEL));
        assertTrue(impossible.getMessage().contains("no encoding"), impossible.getMessage());

        AssemblyException att = assertThrows(AssemblyException.class,
                () -> Assembly.parse("movq %rax, %rbz", Assembly.Syntax.ATT));
        assertTrue(att.getMessage().contains("unknown register '%rbz'"), att.getMessage());
    }

    @Test
    void aBranchOutOfShortReachBecomesNearAndEveryDisplacementLands() {
        // 20 jumps, each over 125 nops to the label just after the next jump: only the lengths of the later
        // jumps decide whether an earlier one still fits in 8 bits (llvm-mc-14 assembles the same bytes).
        StringBuilder text = new StringBuilder();
        for (int i = 1; i <= 20; i++) {
            text.append("jmp .L").append(i).append('\n');
            text.append("nop\n".repeat(125));
            text.append(".L").append(i - 1 == 0 ? "x" : String.valueOf(i - 1)).append(":\n");
        }
        text.append("nop\n.L20:\nret\n");
        List<Assembly.Block> blocks = Assembly.parse(text.toString(), Assembly.Syntax.INTEL);
        byte[] code = new byte[blocks.stream().mapToInt(b -> b.bytes().length).sum()];
        int at = 0;
        java.util.Map<String, Integer> labelAt = new java.util.HashMap<>();
        for (Assembly.Block b : blocks) {
            labelAt.put(b.label(), at);
            System.arraycopy(b.bytes(), 0, code, at, b.bytes().length);
            at += b.bytes().length;
        }
        // every jump lands on its label
        int offset = 0;
        for (int i = 1; i <= 20; i++) {
            Instruction jmp = BasicBlock.fromBytes(java.util.Arrays.copyOfRange(code, offset, code.length)).instruction(0);
            long target = offset + jmp.length() + ((Operand.ImmediateOperand) jmp.operands().get(0)).value();
            assertEquals((long) labelAt.get(".L" + i), target, "jmp .L" + i + " at " + offset);
            offset += jmp.length() + 125;
        }
    }

    @Test
    void whatAnAssemblerWouldRefuseIsRefused() {
        AssemblyException ambiguous = assertThrows(AssemblyException.class,
                () -> Assembly.parse("add $1, (%rax)", Assembly.Syntax.ATT));
        assertTrue(ambiguous.getMessage().contains("ambiguous operand size"), ambiguous.getMessage());
        assertEquals("4883442408ff".length(), one("addq $-1, 8(%rsp)", Assembly.Syntax.ATT).length());
        AssemblyException twice = assertThrows(AssemblyException.class,
                () -> Assembly.parse("a:\nnop\na:\nnop\n", Assembly.Syntax.INTEL));
        assertEquals(3, twice.line());
        assertTrue(twice.getMessage().contains("label 'a' is already defined"), twice.getMessage());
        AssemblyException prefix = assertThrows(AssemblyException.class,
                () -> Assembly.parse("lock\n\nnext:\nadd dword ptr [rax], 1", Assembly.Syntax.INTEL));
        assertEquals(1, prefix.line());
        assertTrue(prefix.getMessage().contains("a prefix with no instruction after it"), prefix.getMessage());
        assertThrows(AssemblyException.class, () -> Assembly.parse("and rax, 0xffffffff", Assembly.Syntax.INTEL),
                "0xffffffff is no sign-extended 32-bit immediate of a 64-bit and");
        assertEquals("push qword ptr [rip+0x10]", Assembly.parse("push 0x10(%rip)", Assembly.Syntax.ATT).get(0)
                .basicBlock().instruction(0).intelSyntax(), "push defaults to 64 bits, as gas reads objdump's text");
    }

    @Test
    void aSymbolTakesTheThirtyTwoBitsOfItsRelocation() {
        // llvm-mc-14 assembles each with a 4-byte field for the symbol's relocation; its stand-in is 0x10000000
        assertEquals("8b8000000010", one("movl arr(%rax), %eax", Assembly.Syntax.ATT));
        assertEquals("6800000010", one("pushq $foo", Assembly.Syntax.ATT));
        assertEquals("480508000010", one("addq $foo+8, %rax", Assembly.Syntax.ATT));
        assertEquals("488d3d00000010", one("lea rdi, [rip + .LC0]", Assembly.Syntax.INTEL));
        assertEquals("bf00000010", one("mov edi, OFFSET FLAT:.LC0", Assembly.Syntax.INTEL));
        assertEquals("8b45e8", one("mov eax, DWORD PTR -24[rbp]", Assembly.Syntax.INTEL), "a number is no symbol");
    }
}
