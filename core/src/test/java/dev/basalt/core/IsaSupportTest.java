package dev.basalt.core;

import dev.basalt.decoder.BasicBlock;
import org.junit.jupiter.api.Test;

import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** No number for code the CPU cannot run: the descriptors' ISA extensions, and the hint encodings every CPU runs. */
class IsaSupportTest {

    private static Optional<String> why(String hex, Microarchitecture cpu) {
        return IsaSupport.unsupported(BasicBlock.fromHex(hex), cpu);
    }

    @Test
    void avx512IsNoInstructionOfTheseCpusAndTheReasonNamesItAndTheCpu() {
        // add rax, rcx; vpaddd zmm0, zmm1, zmm2
        assertEquals(Optional.of("VPADDD zmm, zmm, zmm (AVX512EVEX, at byte 3) is not an instruction of haswell "
                + "(Intel Haswell)"), why("4801c862f17548fec2", Microarchitecture.HASWELL));
        for (String cpu : new String[] {"skylake", "ivybridge", "znver3"}) {
            assertTrue(why("62f17548fec2", Microarchitecture.parse(cpu)).isPresent(), cpu);
        }
    }

    @Test
    void ivyBridgeHasNeitherAvx2NorFmaNorBmi2() {
        String vpaddYmm = "c5f5fec2";          // vpaddd ymm0, ymm1, ymm2 (AVX2)
        String fma = "c4e2f1a8c2";             // vfmadd213pd xmm0, xmm1, xmm2
        String mulx = "c4e2fbf6c1";            // mulx rax, rax, rcx (BMI2)
        for (String hex : new String[] {vpaddYmm, fma, mulx}) {
            assertTrue(why(hex, Microarchitecture.IVYBRIDGE).isPresent(), hex);
            assertEquals(Optional.empty(), why(hex, Microarchitecture.HASWELL), hex);
        }
        assertEquals(Optional.empty(), why("c5f458c2", Microarchitecture.IVYBRIDGE), "vaddps ymm (AVX) runs");
    }

    @Test
    void hintEncodingsRunEverywhere() {
        // tzcnt runs as rep bsf, lzcnt as rep bsr on a CPU without them; endbr64 is a NOP before CET.
        for (String hex : new String[] {"f3480fbcc1", "f3480fbdc1", "f30f1efa"}) {
            assertEquals(Optional.empty(), why(hex, Microarchitecture.IVYBRIDGE), hex);
        }
        // But a BMI1 instruction with its own encoding does not: andn rax, rbx, rcx.
        assertTrue(why("c4e2e0f2c1", Microarchitecture.IVYBRIDGE).isPresent());
    }
}
