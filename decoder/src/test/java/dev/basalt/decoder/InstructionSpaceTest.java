package dev.basalt.decoder;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The sweep of the encoding space: every form once, with an instance that decodes to it. */
class InstructionSpaceTest {

    private static List<InstructionSpace.Form> sweep;
    private static Map<String, InstructionSpace.Form> byForm;

    @BeforeAll
    static void sweepOnce() {
        sweep = InstructionSpace.sweep();
        byForm = sweep.stream().collect(Collectors.toMap(InstructionSpace.Form::form, Function.identity()));
    }

    @Test
    void findsTheFormsThatBhiveNeverHad() {
        // BHive's blocks hold 1,050 forms and no branch; the sweep finds thousands, branches and crypto included.
        assertTrue(sweep.size() > 3500, "forms: " + sweep.size());
        for (String f : List.of("JNZ rel8", "JNZ rel32", "JMP rel32", "CALL rel32", "RET", "AESENC xmm, xmm",
                "AESENCLAST xmm, xmm", "PCLMULQDQ xmm, xmm, i8", "CRC32 r64, r64", "LZCNT r64, r64", "TZCNT r32, r32",
                "POPCNT r64, m64", "MULX r64, r64, r64", "VPMULLD ymm, ymm, ymm", "VPSUBD ymm, ymm, ymm",
                "PADDQ xmm, xmm", "LFENCE", "MFENCE", "CPUID", "XCHG r64, RAX", "ROR r64, 1",
                "VBLENDVPS xmm, xmm, xmm, xmm", "LOCK ADD m64, r64", "REP MOVSB")) {
            assertTrue(byForm.containsKey(f), f + " missing from the sweep");
        }
    }

    @Test
    void eachInstanceDecodesToItsFormAndIsNoZeroIdiom() {
        for (InstructionSpace.Form f : sweep) {
            BasicBlock b = BasicBlock.fromBytes(f.instance().bytes());
            assertEquals(1, b.size(), f.form());
            assertEquals(f.form(), b.instruction(0).form());
        }
        // Different registers, so that llvm-mca prices the instruction and not the zero idiom.
        assertNotEquals(Idiom.ZERO, byForm.get("SUB r64, r64").instance().idiom());
        assertNotEquals(Idiom.ZERO, byForm.get("VPXOR ymm, ymm, ymm").instance().idiom());
        assertEquals("AVX2", byForm.get("VPSUBD ymm, ymm, ymm").isaExtension());
    }

    @Test
    void sweepIsDeterministic() {
        List<String> again = InstructionSpace.sweep().stream()
                .map(f -> f.form() + " " + f.instance().hex()).toList();
        assertEquals(sweep.stream().map(f -> f.form() + " " + f.instance().hex()).toList(), again);
    }
}
