package dev.basalt.measure;

import dev.basalt.decoder.Instruction;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Which CPUID features (Linux's names, as {@link HostCpu#features()}) an instruction needs, from the decoder's ISA
 * set. The decoder says what an instruction <em>is</em>; CPUID says what the host runs. An ISA set this table does
 * not know is refused rather than guessed: running an instruction the CPU lacks would measure a fault, or worse,
 * the older instruction the encoding decays to ({@code lzcnt} runs as {@code bsr} without ABM).
 */
final class Isa {

    private Isa() {
    }

    /** ISA sets every x86-64 CPU runs (as the instruction, or as the hint NOP it decays to). */
    private static final Set<String> EVERYWHERE = Set.of("I86", "I186", "I286REAL", "I386", "I486", "I486REAL",
            "PENTIUMREAL", "PPRO", "LONGMODE", "FAT_NOP", "PREFETCH_NOP", "PAUSE", "CET", "MPX", "CLDEMOTE",
            "RDPMC", "I286PROTECTED");

    private static final Map<String, List<String>> NEEDS = Map.ofEntries(
            Map.entry("CMOV", List.of("cmov")), Map.entry("FCMOV", List.of("fpu", "cmov")),
            Map.entry("X87", List.of("fpu")), Map.entry("LAHF", List.of("lahf_lm")),
            Map.entry("CMPXCHG16B", List.of("cx16")), Map.entry("PENTIUMMMX", List.of("mmx")),
            Map.entry("FXSAVE", List.of("fxsr")), Map.entry("FXSAVE64", List.of("fxsr")),
            Map.entry("SSE", List.of("sse")), Map.entry("SSEMXCSR", List.of("sse")),
            Map.entry("SSE_PREFETCH", List.of("sse")), Map.entry("SSE2", List.of("sse2")),
            Map.entry("SSE2MMX", List.of("sse2")), Map.entry("SSE3", List.of("pni")),
            Map.entry("SSE3X87", List.of("pni")), Map.entry("SSSE3", List.of("ssse3")),
            Map.entry("SSSE3MMX", List.of("ssse3")), Map.entry("SSE4", List.of("sse4_1")),
            Map.entry("SSE42", List.of("sse4_2")), Map.entry("POPCNT", List.of("popcnt")),
            Map.entry("SSE4A", List.of("sse4a")), Map.entry("AVX", List.of("avx")), Map.entry("AVX2", List.of("avx2")),
            Map.entry("AVX2GATHER", List.of("avx2")), Map.entry("AVXAES", List.of("avx", "aes")),
            Map.entry("AVX_GFNI", List.of("avx", "gfni")), Map.entry("AVX_VNNI", List.of("avx_vnni")),
            Map.entry("AVX_IFMA", List.of("avx_ifma")), Map.entry("AVX_NE_CONVERT", List.of("avx_ne_convert")),
            Map.entry("AVX_VNNI_INT8", List.of("avx_vnni_int8")), Map.entry("AVX_VNNI_INT16", List.of("avx_vnni_int16")),
            Map.entry("F16C", List.of("f16c")), Map.entry("FMA", List.of("fma")), Map.entry("FMA4", List.of("fma4")),
            Map.entry("XOP", List.of("xop")), Map.entry("AES", List.of("aes")),
            Map.entry("PCLMULQDQ", List.of("pclmulqdq")), Map.entry("VAES", List.of("avx", "vaes")),
            Map.entry("VPCLMULQDQ", List.of("avx", "vpclmulqdq")), Map.entry("SHA", List.of("sha_ni")),
            Map.entry("GFNI", List.of("gfni")), Map.entry("BMI1", List.of("bmi1")), Map.entry("BMI2", List.of("bmi2")),
            Map.entry("ADOX_ADCX", List.of("adx")), Map.entry("LZCNT", List.of("abm")),
            Map.entry("MOVBE", List.of("movbe")), Map.entry("RDRAND", List.of("rdrand")),
            Map.entry("RDSEED", List.of("rdseed")), Map.entry("RDTSCP", List.of("rdtscp")),
            Map.entry("RDPID", List.of("rdpid")), Map.entry("CLFSH", List.of("clflush")),
            Map.entry("CLFLUSHOPT", List.of("clflushopt")), Map.entry("CLWB", List.of("clwb")),
            Map.entry("CLZERO", List.of("clzero")), Map.entry("PREFETCHWT1", List.of("prefetchwt1")),
            Map.entry("MOVDIR", List.of("movdiri")), Map.entry("XSAVE", List.of("xsave")),
            Map.entry("XSAVEC", List.of("xsavec")), Map.entry("XSAVEOPT", List.of("xsaveopt")),
            Map.entry("PKU", List.of("pku")), Map.entry("RDWRFSGS", List.of("fsgsbase")),
            Map.entry("SERIALIZE", List.of("serialize")), Map.entry("AMD3DNOW", List.of("3dnow")),
            Map.entry("RDPRU", List.of("rdpru")), Map.entry("SHA512", List.of("sha512")),
            Map.entry("SM3", List.of("sm3")), Map.entry("SM4", List.of("sm4")),
            Map.entry("CMPCCXADD", List.of("cmpccxadd")), Map.entry("RAO_INT", List.of("rao_int")),
            Map.entry("TBM", List.of("tbm")), Map.entry("AMX_TILE", List.of("amx_tile")),
            Map.entry("AMX_BF16", List.of("amx_bf16")), Map.entry("AMX_INT8", List.of("amx_int8")),
            Map.entry("AMX_FP16", List.of("amx_fp16")));

    /** AVX-512 ISA set prefixes (before {@code _128}, {@code _512}, {@code _SCALAR}, {@code _KOP}) and their features. */
    private static final Map<String, List<String>> AVX512 = Map.ofEntries(
            Map.entry("AVX512F", List.of("avx512f")), Map.entry("AVX512BW", List.of("avx512bw")),
            Map.entry("AVX512DQ", List.of("avx512dq")), Map.entry("AVX512CD", List.of("avx512cd")),
            Map.entry("AVX512ER", List.of("avx512er")), Map.entry("AVX512PF", List.of("avx512pf")),
            Map.entry("AVX512_4FMAPS", List.of("avx512_4fmaps")), Map.entry("AVX512_4VNNIW", List.of("avx512_4vnniw")),
            Map.entry("AVX512_BF16", List.of("avx512_bf16")), Map.entry("AVX512_BITALG", List.of("avx512_bitalg")),
            Map.entry("AVX512_FP16", List.of("avx512_fp16")), Map.entry("AVX512_GFNI", List.of("avx512f", "gfni")),
            Map.entry("AVX512_IFMA", List.of("avx512ifma")), Map.entry("AVX512_VAES", List.of("avx512f", "vaes")),
            Map.entry("AVX512_VBMI", List.of("avx512vbmi")), Map.entry("AVX512_VBMI2", List.of("avx512_vbmi2")),
            Map.entry("AVX512_VNNI", List.of("avx512_vnni")),
            Map.entry("AVX512_VP2INTERSECT", List.of("avx512_vp2intersect")),
            Map.entry("AVX512_VPCLMULQDQ", List.of("avx512f", "vpclmulqdq")),
            Map.entry("AVX512_VPOPCNTDQ", List.of("avx512_vpopcntdq")));

    /**
     * Why the host cannot run {@code i} — the first feature it needs that {@code features} lacks — or empty when it
     * can.
     */
    static Optional<String> missing(Instruction i, Set<String> features) {
        String set = i.isaSet();
        if (EVERYWHERE.contains(set)) {
            return Optional.empty();
        }
        List<String> needs = needs(set);
        if (needs == null) {
            return Optional.of("is of ISA set " + set + ", and Basalt does not know which CPUID bit reports it");
        }
        return needs.stream().filter(f -> !features.contains(f)).findFirst().map(f -> "needs " + f + " (ISA set "
                + set + "), which this CPU does not offer to user code (CPUID, XCR0"
                + (f.startsWith("amx") ? "; AMX also needs a permission the harness does not ask for" : "") + ")");
    }

    /** The features ISA set {@code set} needs, or null when unknown. */
    static List<String> needs(String set) {
        List<String> direct = NEEDS.get(set);
        if (direct != null) {
            return direct;
        }
        if (!set.startsWith("AVX512")) {
            return null;
        }
        int cut = set.lastIndexOf('_');
        String suffix = cut > 0 ? set.substring(cut + 1) : "";
        String base = cut > 0 && List.of("128", "256", "512", "SCALAR", "KOP").contains(suffix)
                ? set.substring(0, cut) : set;
        List<String> features = AVX512.get(base);
        if (features == null) {
            return null;
        }
        if (suffix.equals("128") || suffix.equals("256")) {
            return java.util.stream.Stream.concat(features.stream(), java.util.stream.Stream.of("avx512vl")).toList();
        }
        return features;
    }
}
