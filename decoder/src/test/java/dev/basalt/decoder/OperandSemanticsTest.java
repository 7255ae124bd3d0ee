package dev.basalt.decoder;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.Arrays;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * What each instruction reads and writes, for forms chosen because they are easy to get wrong: implicit
 * operands, partial registers, conditional writes, flags, string ops, masks, idioms. Encodings come from
 * llvm-mc-14; expected reads and writes were checked by hand against the Intel SDM, volume 2.
 */
class OperandSemanticsTest {

    @ParameterizedTest(name = "{1}")
    @CsvSource(delimiter = '|', quoteCharacter = '"', textBlock = """
        # hex                | Intel syntax                                   | form                     | reads                                  | writes                        | idiom
        48f7e1               | mul rcx                                        | MUL r64                  | rcx rax                                | rax rdx CF OSZAP              | NONE
        48f7f1               | div rcx                                        | DIV r64                  | rcx rax rdx                            | rax rdx CF OSZAP              | NONE
        480fafc3             | imul rax, rbx                                  | IMUL r64, r64            | rax rbx                                | rax CF OSZAP                  | NONE
        f6e1                 | mul cl                                         | MUL r8                   | rcx rax                                | rax CF OSZAP                  | NONE
        f7f9                 | idiv ecx                                       | IDIV r32                 | rcx rax rdx                            | rax rdx CF OSZAP              | NONE
        486bc30c             | imul rax, rbx, 0xc                             | IMUL r64, r64, i8        | rbx                                    | rax CF OSZAP                  | NONE
        50                   | push rax                                       | PUSH r64                 | rax rsp                                | rsp [rsp]                     | NONE
        5b                   | pop rbx                                        | POP r64                  | rsp [rsp]                              | rbx rsp                       | NONE
        ff7708               | push qword ptr [rdi+0x8]                       | PUSH m64                 | rdi rsp [rdi+0x8]                      | rsp [rsp]                     | NONE
        9c                   | pushfq                                         | PUSHFQ                   | rsp CF OSZAP DF SYSFLAGS               | rsp [rsp]                     | NONE
        99                   | cdq                                            | CDQ                      | rax                                    | rdx                           | NONE
        4899                 | cqo                                            | CQO                      | rax                                    | rdx                           | NONE
        4898                 | cdqe                                           | CDQE                     | rax                                    | rax                           | NONE
        f3a4                 | rep movsb                                      | REP MOVSB                | rcx rsi rdi DF [rsi] es:[rdi]          | rcx rsi rdi es:[rdi]          | NONE
        f348ab               | rep stosq                                      | REP STOSQ                | rcx rdi rax DF es:[rdi]                | rcx rdi es:[rdi]              | NONE
        f3a6                 | repe cmpsb                                     | REPE CMPSB               | rcx rsi rdi DF OSZAP [rsi] es:[rdi]    | rcx rsi rdi CF OSZAP          | NONE
        ac                   | lodsb                                          | LODSB                    | rax rsi DF [rsi]                       | rax rsi                       | NONE
        ae                   | scasb                                          | SCASB                    | rax rdi DF es:[rdi]                    | rdi CF OSZAP                  | NONE
        0f44c1               | cmovz eax, ecx                                 | CMOVZ r32, r32           | rax rcx OSZAP                          | rax                           | NONE
        480f4207             | cmovb rax, qword ptr [rdi]                     | CMOVB r64, m64           | rax rdi CF [rdi]                       | rax                           | NONE
        0f94c0               | setz al                                        | SETZ r8                  | rax OSZAP                              | rax                           | NONE
        0f9207               | setb byte ptr [rdi]                            | SETB m8                  | rdi CF                                 | [rdi]                         | NONE
        48d3e0               | shl rax, cl                                    | SHL r64, CL              | rax rcx CF OSZAP                       | rax CF OSZAP                  | NONE
        d3fa                 | sar edx, cl                                    | SAR r32, CL              | rdx rcx CF OSZAP                       | rdx CF OSZAP                  | NONE
        48c1e003             | shl rax, 0x3                                   | SHL r64, i8              | rax                                    | rax CF OSZAP                  | NONE
        4893                 | xchg rbx, rax                                  | XCHG r64, RAX            | rax rbx                                | rax rbx                       | NONE
        8707                 | xchg dword ptr [rdi], eax                      | XCHG m32, r32            | rdi rax [rdi]                          | rax [rdi]                     | NONE
        f0480fb10f           | lock cmpxchg qword ptr [rdi], rcx              | LOCK CMPXCHG m64, r64    | rdi rcx rax [rdi]                      | rax CF OSZAP [rdi]            | NONE
        f00fc107             | lock xadd dword ptr [rdi], eax                 | LOCK XADD m32, r32       | rdi rax [rdi]                          | rax CF OSZAP [rdi]            | NONE
        f0480fc70f           | lock cmpxchg16b xmmword ptr [rdi]              | LOCK CMPXCHG16B m128     | rdi rax rbx rcx rdx [rdi]              | rax rdx OSZAP [rdi]           | NONE
        488d448b08           | lea rax, [rbx+rcx*4+0x8]                       | LEA r64, m               | rbx rcx                                | rax                           | NONE
        8d0510000000         | lea eax, [rip+0x10]                            | LEA r32, m               | ""                                     | rax                           | NONE
        0fb6c3               | movzx eax, bl                                  | MOVZX r32, r8            | rbx                                    | rax                           | NONE
        480fbf06             | movsx rax, word ptr [rsi]                      | MOVSX r64, m16           | rsi [rsi]                              | rax                           | NONE
        4863c1               | movsxd rax, ecx                                | MOVSXD r64, r32          | rcx                                    | rax                           | NONE
        88c4                 | mov ah, al                                     | MOV r8, r8               | rax                                    | rax                           | NONE
        b005                 | mov al, 0x5                                    | MOV r8, i8               | rax                                    | rax                           | NONE
        00dc                 | add ah, bl                                     | ADD r8, r8               | rax rbx                                | rax CF OSZAP                  | NONE
        6689d8               | mov ax, bx                                     | MOV r16, r16             | rax rbx                                | rax                           | NONE
        64488b042528000000   | mov rax, qword ptr fs:[0x28]                   | MOV r64, m64             | fs fs:[0x28]                           | rax                           | NONE
        c5f458c2             | vaddps ymm0, ymm1, ymm2                        | VADDPS ymm, ymm, ymm     | zmm1 zmm2                              | zmm0                          | NONE
        c4e275b807           | vfmadd231ps ymm0, ymm1, ymmword ptr [rdi]      | VFMADD231PS ymm, ymm, m256 | zmm0 zmm1 rdi [rdi]                  | zmm0                          | NONE
        62f1744958c2         | vaddps zmm0 {k1}, zmm1, zmm2                   | VADDPS zmm {k}, zmm, zmm | zmm0 k1 zmm1 zmm2                      | zmm0                          | NONE
        62f174c958c2         | vaddps zmm0 {k1} {z}, zmm1, zmm2               | VADDPS zmm {k}, zmm, zmm | k1 zmm1 zmm2                           | zmm0                          | NONE
        62f17c491007         | vmovups zmm0 {k1}, zmmword ptr [rdi]           | VMOVUPS zmm {k}, m512    | zmm0 k1 rdi [rdi]                      | zmm0                          | NONE
        62f17d4876c8         | vpcmpeqd k1, zmm0, zmm0                        | VPCMPEQD k, zmm, zmm     | zmm0                                   | k1                            | NONE
        c4e26d92048f         | vgatherdps ymm0, dword ptr [rdi+ymm1*4], ymm2  | VGATHERDPS ymm, m32, ymm | zmm0 rdi zmm1 zmm2 [rdi+ymm1*4]        | zmm0 zmm2                     | NONE
        c5f892c8             | kmovw k1, eax                                  | KMOVW k, r32             | rax                                    | k1                            | NONE
        c4e2e0f2c1           | andn rax, rbx, rcx                             | ANDN r64, r64, r64       | rbx rcx                                | rax CF OSZAP                  | NONE
        31c0                 | xor eax, eax                                   | XOR r32, r32             | ""                                     | rax CF OSZAP                  | ZERO
        4829c9               | sub rcx, rcx                                   | SUB r64, r64             | ""                                     | rcx CF OSZAP                  | ZERO
        660fefdb             | pxor xmm3, xmm3                                | PXOR xmm, xmm            | ""                                     | zmm3                          | ZERO
        c5f1efc1             | vpxor xmm0, xmm1, xmm1                         | VPXOR xmm, xmm, xmm      | ""                                     | zmm0                          | ZERO
        c5dc57dc             | vxorps ymm3, ymm4, ymm4                        | VXORPS ymm, ymm, ymm     | ""                                     | zmm3                          | ZERO
        660f76d2             | pcmpeqd xmm2, xmm2                             | PCMPEQD xmm, xmm         | ""                                     | zmm2                          | ONES
        0f57c1               | xorps xmm0, xmm1                               | XORPS xmm, xmm           | zmm0 zmm1                              | zmm0                          | NONE
        480fa3c1             | bt rcx, rax                                    | BT r64, r64              | rcx rax                                | CF OSZAP                      | NONE
        0fab07               | bts dword ptr [rdi], eax                       | BTS m32, r32             | rdi rax [rdi]                          | CF OSZAP [rdi]                | NONE
        4811d8               | adc rax, rbx                                   | ADC r64, r64             | rax rbx CF                             | rax CF OSZAP                  | NONE
        19c0                 | sbb eax, eax                                   | SBB r32, r32             | rax CF                                 | rax CF OSZAP                  | NONE
        48ffc0               | inc rax                                        | INC r64                  | rax                                    | rax OSZAP                     | NONE
        48f7d0               | not rax                                        | NOT r64                  | rax                                    | rax                           | NONE
        48f7d8               | neg rax                                        | NEG r64                  | rax                                    | rax CF OSZAP                  | NONE
        fd                   | std                                            | STD                      | ""                                     | DF                            | NONE
        488344240801         | add qword ptr [rsp+0x8], 0x1                   | ADD m64, i8              | rsp [rsp+0x8]                          | CF OSZAP [rsp+0x8]            | NONE
        """)
    void readsAndWrites(String hex, String text, String form, String reads, String writes, Idiom idiom) {
        BasicBlock block = BasicBlock.fromHex(hex);
        assertEquals(1, block.size(), "one instruction");
        Instruction insn = block.instruction(0);
        DependencyGraph graph = block.dependencyGraph();
        assertEquals(text, insn.intelSyntax());
        assertEquals(form, insn.form());
        assertEquals(idiom, insn.idiom());
        assertEquals(set(reads), names(graph.reads(0).stream().map(Resource::name)), "reads of " + text);
        assertEquals(set(writes), names(graph.writes(0).stream().map(Resource::name)), "writes of " + text);
    }

    private static Set<String> set(String spaceSeparated) {
        return spaceSeparated == null || spaceSeparated.isBlank() ? Set.of()
                : new TreeSet<>(Arrays.asList(spaceSeparated.trim().split("\\s+")));
    }

    private static Set<String> names(java.util.stream.Stream<String> s) {
        return s.collect(Collectors.toCollection(TreeSet::new));
    }
}
