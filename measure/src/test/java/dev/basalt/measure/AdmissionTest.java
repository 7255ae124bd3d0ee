package dev.basalt.measure;

import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The checks before execution, on a made-up host; nothing runs. */
class AdmissionTest {

    private static HostCpu host(String... features) {
        return new HostCpu("GenuineIntel", 6, 85, 4, "test", "0x1", "Linux", true, Set.of(features), "tsc", "ymm",
                "on");
    }

    private static final HostCpu AVX2_HOST = host("sse", "sse2", "pni", "ssse3", "sse4_1", "sse4_2", "popcnt", "avx",
            "avx2", "fma", "bmi1", "bmi2", "abm", "cmov", "lahf_lm", "cx16", "fpu", "mmx");

    private static String refusal(String hex, HostCpu host) {
        Admission.Verdict v = Admission.check(hex, host);
        return assertInstanceOf(Admission.Refused.class, v, hex).reason();
    }

    @Test
    void aFinalDirectBranchIsDroppedAsBHiveDoes() {
        Admission.Admitted a = assertInstanceOf(Admission.Admitted.class, Admission.check("4801d875fb", AVX2_HOST));
        assertTrue(a.droppedBranch());
        assertArrayEquals(new byte[] {0x48, 0x01, (byte) 0xd8}, a.code());
    }

    @Test
    void aBlockLongerThanTheHarnessTakesIsRefused() {
        assertTrue(refusal("4801d8".repeat(1366), AVX2_HOST).contains("longer than the 4096 bytes"));
        assertInstanceOf(Admission.Admitted.class, Admission.check("4801d8".repeat(1365), AVX2_HOST));
    }

    @Test
    void avx512IsRefusedWhereTheHostLacksIt() {
        // vaddps zmm0, zmm0, zmm1
        assertTrue(refusal("62f17c4858c1", AVX2_HOST).contains("needs avx512f"), refusal("62f17c4858c1", AVX2_HOST));
        // vaddps xmm0, xmm0, xmm1 (EVEX.128): AVX-512 VL as well
        Admission.Verdict withF = Admission.check("62f17c0858c1", host("avx512f", "avx"));
        assertTrue(assertInstanceOf(Admission.Refused.class, withF).reason().contains("avx512vl"));
        assertInstanceOf(Admission.Admitted.class, Admission.check("62f17c0858c1", host("avx512f", "avx512vl")));
    }

    @Test
    void lzcntNeedsItsBitBecauseWithoutItTheBytesRunAsBsr() {
        assertTrue(refusal("f3480fbdc3", host("sse")).contains("abm"));
        assertInstanceOf(Admission.Admitted.class, Admission.check("f3480fbdc3", AVX2_HOST));
    }

    @Test
    void stackMovesLowerTheUnrollOrAreRefused() {
        // push rax: -8 a copy, so at most 1 MiB / 8 copies
        Admission.Admitted push = assertInstanceOf(Admission.Admitted.class, Admission.check("50", AVX2_HOST));
        assertEquals(-8, push.stackPerCopy());
        assertEquals(131_072, push.mostCopies());
        // add rsp, 0xfe8 (a function's epilogue): 257 copies fit
        Admission.Admitted add = assertInstanceOf(Admission.Admitted.class, Admission.check("4881c4e80f0000",
                AVX2_HOST));
        assertEquals(257, add.mostCopies());
        assertEquals(257 - 257 % 2, MeasureConfig.defaults().unrolls(7, add.mostCopies())[1]);
        assertTrue(refusal("4881ec00000001", AVX2_HOST).contains("stack window"));
        // mov rsp, rbp: not a constant, runs (the page limit guards it)
        assertInstanceOf(Admission.Admitted.class, Admission.check("4889ec", AVX2_HOST));
    }

    @Test
    void unrollsAreThousandCopiesForSmallBlocksAndFitSixteenKiB() {
        MeasureConfig c = MeasureConfig.defaults();
        assertArrayEquals(new int[] {500, 1000}, c.unrolls(3, Integer.MAX_VALUE));
        assertArrayEquals(new int[] {500, 1000}, c.unrolls(16, Integer.MAX_VALUE));
        assertArrayEquals(new int[] {102, 204}, c.unrolls(80, Integer.MAX_VALUE));
        assertArrayEquals(new int[] {1, 2}, c.unrolls(10_000, Integer.MAX_VALUE));
    }

    @Test
    void hostFactsComeFromCpuidAndXcr0() {
        // An AMD Zen 4 as a KVM guest reports it, with AVX-512 state enabled in XCR0 (0xe7).
        Map<String, String> facts = Map.of(
                "cpuid.0.0", "00000010,68747541,444d4163,69746e65",
                "cpuid.1.0", "00a10f11,00000800,fffa3203,178bfbff",
                "cpuid.7.0", "00000000,f1bf07ab,00405fce,00000000",
                "cpuid.80000001.0", "00a10f11,40000000,00000121,2fd3fbff",
                "xcr0", "e7", "timer", "tsc", "vectors", "zmm", "seccomp", "on");
        HostCpu h = HostCpu.of(facts);
        assertEquals("AuthenticAMD", h.vendor());
        assertEquals(25, h.family());
        assertEquals(17, h.model());
        assertEquals(1, h.stepping());
        assertTrue(h.virtualized());
        assertTrue(h.features().containsAll(Set.of("avx2", "avx512f", "avx512vl", "bmi2", "abm", "sse4_2")));
        // The same CPU with the OS not saving AVX-512 state: no AVX-512 instruction may run.
        Map<String, String> masked = new java.util.HashMap<>(facts);
        masked.put("xcr0", "7");
        assertTrue(HostCpu.of(masked).features().stream().noneMatch(f -> f.startsWith("avx512")));
        assertTrue(HostCpu.of(masked).features().contains("avx2"));
    }
}
