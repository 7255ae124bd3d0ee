package dev.basalt.measure;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The machine measurements are taken on, as the harness's CPUID reads it (not as the JVM guesses): vendor, family,
 * model and stepping, the brand string, the microcode revision where {@code /proc/cpuinfo} shows it, the kernel,
 * whether a hypervisor runs underneath, and the instruction-set features the CPU reports <em>and</em> the operating
 * system enables (AVX needs XCR0's SSE and AVX state, AVX-512 its opmask and upper-ZMM state). A hypervisor may mask
 * features (AVX-512 on some cloud VMs): what CPUID says here is what a block may use.
 *
 * @param features  Linux's names for the features ({@code avx2}, {@code avx512f}, {@code sse4_1}, ...)
 * @param timer     {@code core-cycles} (a perf cycles counter read with rdpmc) or {@code tsc}
 * @param vectors   the width the harness fills vector registers at: {@code xmm}, {@code ymm} or {@code zmm}
 * @param seccomp   {@code on}, {@code off} or {@code unavailable}
 */
public record HostCpu(String vendor, int family, int model, int stepping, String modelName, String microcode,
                      String kernel, boolean virtualized, Set<String> features, String timer, String vectors,
                      String seccomp) {

    public HostCpu {
        features = java.util.Collections.unmodifiableSortedSet(new TreeSet<>(features)); // sorted: files stay stable
    }

    /** One feature bit: CPUID leaf and subleaf, register (0 eax .. 3 edx), bit, Linux's name. */
    private record Bit(int leaf, int subleaf, int register, int bit, String name) {
    }

    // Bits from the Intel SDM (vol. 2A, CPUID) and AMD's APM (vol. 3, appendix E); names as /proc/cpuinfo's.
    private static final Bit[] BITS = {
        new Bit(1, 0, 2, 0, "pni"), new Bit(1, 0, 2, 1, "pclmulqdq"), new Bit(1, 0, 2, 3, "monitor"),
        new Bit(1, 0, 2, 9, "ssse3"), new Bit(1, 0, 2, 12, "fma"), new Bit(1, 0, 2, 13, "cx16"),
        new Bit(1, 0, 2, 19, "sse4_1"), new Bit(1, 0, 2, 20, "sse4_2"), new Bit(1, 0, 2, 22, "movbe"),
        new Bit(1, 0, 2, 23, "popcnt"), new Bit(1, 0, 2, 25, "aes"), new Bit(1, 0, 2, 26, "xsave"),
        new Bit(1, 0, 2, 28, "avx"), new Bit(1, 0, 2, 29, "f16c"), new Bit(1, 0, 2, 30, "rdrand"),
        new Bit(1, 0, 3, 0, "fpu"), new Bit(1, 0, 3, 4, "tsc"), new Bit(1, 0, 3, 8, "cx8"),
        new Bit(1, 0, 3, 15, "cmov"), new Bit(1, 0, 3, 19, "clflush"), new Bit(1, 0, 3, 23, "mmx"),
        new Bit(1, 0, 3, 24, "fxsr"), new Bit(1, 0, 3, 25, "sse"), new Bit(1, 0, 3, 26, "sse2"),
        new Bit(7, 0, 1, 0, "fsgsbase"), new Bit(7, 0, 1, 3, "bmi1"), new Bit(7, 0, 1, 4, "hle"),
        new Bit(7, 0, 1, 5, "avx2"), new Bit(7, 0, 1, 8, "bmi2"), new Bit(7, 0, 1, 10, "invpcid"),
        new Bit(7, 0, 1, 11, "rtm"), new Bit(7, 0, 1, 14, "mpx"), new Bit(7, 0, 1, 16, "avx512f"),
        new Bit(7, 0, 1, 17, "avx512dq"), new Bit(7, 0, 1, 18, "rdseed"), new Bit(7, 0, 1, 19, "adx"),
        new Bit(7, 0, 1, 20, "smap"), new Bit(7, 0, 1, 21, "avx512ifma"), new Bit(7, 0, 1, 23, "clflushopt"),
        new Bit(7, 0, 1, 24, "clwb"), new Bit(7, 0, 1, 26, "avx512pf"), new Bit(7, 0, 1, 27, "avx512er"),
        new Bit(7, 0, 1, 28, "avx512cd"), new Bit(7, 0, 1, 29, "sha_ni"), new Bit(7, 0, 1, 30, "avx512bw"),
        new Bit(7, 0, 1, 31, "avx512vl"),
        new Bit(7, 0, 2, 0, "prefetchwt1"), new Bit(7, 0, 2, 1, "avx512vbmi"), new Bit(7, 0, 2, 3, "pku"),
        new Bit(7, 0, 2, 5, "waitpkg"), new Bit(7, 0, 2, 6, "avx512_vbmi2"), new Bit(7, 0, 2, 8, "gfni"),
        new Bit(7, 0, 2, 9, "vaes"), new Bit(7, 0, 2, 10, "vpclmulqdq"), new Bit(7, 0, 2, 11, "avx512_vnni"),
        new Bit(7, 0, 2, 12, "avx512_bitalg"), new Bit(7, 0, 2, 14, "avx512_vpopcntdq"),
        new Bit(7, 0, 2, 22, "rdpid"), new Bit(7, 0, 2, 25, "cldemote"), new Bit(7, 0, 2, 27, "movdiri"),
        new Bit(7, 0, 2, 28, "movdir64b"), new Bit(7, 0, 2, 29, "enqcmd"),
        new Bit(7, 0, 3, 2, "avx512_4vnniw"), new Bit(7, 0, 3, 3, "avx512_4fmaps"), new Bit(7, 0, 3, 5, "uintr"),
        new Bit(7, 0, 3, 8, "avx512_vp2intersect"), new Bit(7, 0, 3, 14, "serialize"),
        new Bit(7, 0, 3, 16, "tsxldtrk"), new Bit(7, 0, 3, 22, "amx_bf16"), new Bit(7, 0, 3, 23, "avx512_fp16"),
        new Bit(7, 0, 3, 24, "amx_tile"), new Bit(7, 0, 3, 25, "amx_int8"),
        new Bit(7, 1, 0, 0, "sha512"), new Bit(7, 1, 0, 1, "sm3"), new Bit(7, 1, 0, 2, "sm4"),
        new Bit(7, 1, 0, 3, "rao_int"), new Bit(7, 1, 0, 4, "avx_vnni"), new Bit(7, 1, 0, 5, "avx512_bf16"),
        new Bit(7, 1, 0, 7, "cmpccxadd"), new Bit(7, 1, 0, 21, "amx_fp16"), new Bit(7, 1, 0, 23, "avx_ifma"),
        new Bit(7, 1, 3, 4, "avx_vnni_int8"), new Bit(7, 1, 3, 5, "avx_ne_convert"),
        new Bit(7, 1, 3, 10, "avx_vnni_int16"), new Bit(7, 1, 3, 14, "prefetchi"),
        new Bit(0xd, 1, 0, 0, "xsaveopt"), new Bit(0xd, 1, 0, 1, "xsavec"), new Bit(0xd, 1, 0, 3, "xsaves"),
        new Bit(0x80000001, 0, 2, 0, "lahf_lm"), new Bit(0x80000001, 0, 2, 5, "abm"),
        new Bit(0x80000001, 0, 2, 6, "sse4a"), new Bit(0x80000001, 0, 2, 8, "3dnowprefetch"),
        new Bit(0x80000001, 0, 2, 11, "xop"), new Bit(0x80000001, 0, 2, 16, "fma4"),
        new Bit(0x80000001, 0, 2, 21, "tbm"), new Bit(0x80000001, 0, 2, 29, "mwaitx"),
        new Bit(0x80000001, 0, 3, 27, "rdtscp"), new Bit(0x80000001, 0, 3, 29, "lm"),
        new Bit(0x80000001, 0, 3, 30, "3dnowext"), new Bit(0x80000001, 0, 3, 31, "3dnow"),
        new Bit(0x80000008, 0, 1, 0, "clzero"), new Bit(0x80000008, 0, 1, 4, "rdpru"),
    };

    /** Features that need register state the OS must enable in XCR0: AVX's (bits 1-2) and AVX-512's (5-7). */
    private static boolean needsAvxState(String f) {
        return f.startsWith("avx") || f.equals("fma") || f.equals("f16c") || f.equals("vaes")
                || f.equals("vpclmulqdq") || f.equals("xop") || f.equals("fma4") || f.equals("gfni");
    }

    /** The host from the harness's {@code info} facts (CPUID leaves, XCR0) and the kernel's files. */
    static HostCpu of(Map<String, String> facts) {
        int[] leaf0 = leaf(facts, 0, 0);
        int[] leaf1 = leaf(facts, 1, 0);
        String vendor = ascii(leaf0[1], leaf0[3], leaf0[2]);
        int baseFamily = (leaf1[0] >>> 8) & 0xf;
        int family = baseFamily == 0xf ? baseFamily + ((leaf1[0] >>> 20) & 0xff) : baseFamily;
        int model = (leaf1[0] >>> 4) & 0xf;
        if (baseFamily == 0xf || baseFamily == 6) {
            model |= ((leaf1[0] >>> 16) & 0xf) << 4;
        }
        int stepping = leaf1[0] & 0xf;
        StringBuilder brand = new StringBuilder();
        for (int l = 0x80000002; l <= 0x80000004; l++) {
            int[] r = leaf(facts, l, 0);
            brand.append(ascii(r[0], r[1], r[2], r[3]));
        }
        long xcr0 = Long.parseLong(facts.getOrDefault("xcr0", "0"), 16);
        boolean avxState = (xcr0 & 0x6) == 0x6;
        boolean avx512State = (xcr0 & 0xe6) == 0xe6;
        Set<String> features = new TreeSet<>();
        for (Bit b : BITS) {
            int[] r = leaf(facts, b.leaf(), b.subleaf());
            if ((r[b.register()] >>> b.bit() & 1) == 0) {
                continue;
            }
            if (needsAvxState(b.name()) && !avxState || b.name().startsWith("avx512") && !avx512State) {
                continue; // the CPU has it, the OS does not save its registers: it faults
            }
            features.add(b.name());
        }
        // AMX needs the kernel's per-process permission (arch_prctl), which the harness does not ask for.
        features.removeIf(f -> f.startsWith("amx"));
        boolean virtualized = (leaf1[2] >>> 31 & 1) == 1;
        return new HostCpu(vendor, family, model, stepping, brand.toString().trim(), readMicrocode(),
                System.getProperty("os.name") + " " + System.getProperty("os.version"), virtualized, features,
                facts.getOrDefault("timer", "tsc"), facts.getOrDefault("vectors", "xmm"),
                facts.getOrDefault("seccomp", "off"));
    }

    /** {@code family 25, model 17 (0x19/0x11)}-style description. */
    public String describe() {
        return String.format(Locale.ROOT, "%s family %d model %d stepping %d (0x%x/0x%x)%s, %s", vendor, family,
                model, stepping, family, model, modelName.isEmpty() ? "" : " \"" + modelName + "\"",
                virtualized ? "virtualized" : "bare metal");
    }

    /** Whether two hosts are the same CPU for measuring (vendor, family, model, stepping, features). */
    public boolean sameCpu(HostCpu other) {
        return vendor.equals(other.vendor) && family == other.family && model == other.model
                && stepping == other.stepping && features.equals(other.features);
    }

    private static int[] leaf(Map<String, String> facts, int leaf, int subleaf) {
        String v = facts.get(String.format(Locale.ROOT, "cpuid.%x.%x", leaf, subleaf));
        int[] r = new int[4];
        if (v != null) {
            String[] parts = v.split(",");
            for (int i = 0; i < 4 && i < parts.length; i++) {
                r[i] = Integer.parseUnsignedInt(parts[i].trim(), 16);
            }
        }
        return r;
    }

    private static String ascii(int... words) {
        StringBuilder sb = new StringBuilder();
        for (int w : words) {
            for (int i = 0; i < 4; i++) {
                char c = (char) (w >>> (8 * i) & 0xff);
                if (c != 0) {
                    sb.append(c);
                }
            }
        }
        return sb.toString();
    }

    private static String readMicrocode() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
                if (line.startsWith("microcode")) {
                    return line.substring(line.indexOf(':') + 1).trim();
                }
            }
        } catch (IOException | RuntimeException e) {
            // not readable: unknown
        }
        return "unknown";
    }
}
