package dev.basalt.decoder;

import dev.basalt.decoder.AsmStatement.Imm;
import dev.basalt.decoder.AsmStatement.Mem;
import dev.basalt.decoder.AsmStatement.Operand;
import dev.basalt.decoder.AsmStatement.Reg;
import dev.basalt.decoder.AsmStatement.Target;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Turns one {@link AsmStatement} into machine code with Zydis' encoder: resolves the mnemonic (condition-code
 * synonyms, AT&T's size suffixes and names, llvm's comparison pseudo-ops such as {@code cmpltps}), fills a
 * {@code ZydisEncoderRequest} and encodes it. Where the text leaves a memory operand's size open (AT&T without
 * a suffix, {@code lea}), the sizes the instruction can have are tried in turn: Zydis accepts only the right one.
 */
final class AsmEncoder {

    // ZydisEncoderRequest's field offsets are EncoderRequest's; these are the values put in them.
    private static final int TYPE_REGISTER = 1;
    private static final int TYPE_MEMORY = 2;
    private static final int TYPE_IMMEDIATE = 4;
    private static final int ADDRESS_SIZE_64 = 3;
    private static final int BRANCH_SHORT = 1;
    private static final int BRANCH_NEAR = 2;
    private static final int BRANCH_WIDTH_8 = 1;
    private static final int BRANCH_WIDTH_32 = 3;
    private static final int[] SIZE_HINTS = {0, 1, 2, 0, 3, 0, 0, 0, 4};  // bytes → ZydisOperandSizeHint

    /** Memory operand sizes to try when the text does not give one, most common first. */
    private static final int[] ANY_SIZE = {8, 4, 16, 32, 2, 1, 64, 10, 6, 0, 28, 14, 108, 94, 512};

    private static final Map<String, String> CONDITIONS = Map.ofEntries(Map.entry("e", "z"), Map.entry("ne", "nz"),
            Map.entry("ae", "nb"), Map.entry("nae", "b"), Map.entry("c", "b"), Map.entry("nc", "nb"),
            Map.entry("a", "nbe"), Map.entry("na", "be"), Map.entry("g", "nle"), Map.entry("ge", "nl"),
            Map.entry("nge", "l"), Map.entry("ng", "le"), Map.entry("pe", "p"), Map.entry("po", "np"));
    private static final List<String> SSE_PREDICATES = List.of("eq", "lt", "le", "unord", "neq", "nlt", "nle", "ord");
    private static final List<String> AVX_PREDICATES = List.of("eq", "lt", "le", "unord", "neq", "nlt", "nle", "ord",
            "eq_uq", "nge", "ngt", "false", "neq_oq", "ge", "gt", "true", "eq_os", "lt_oq", "le_oq", "unord_s",
            "neq_us", "nlt_uq", "nle_uq", "ord_s", "eq_us", "nge_uq", "ngt_uq", "false_os", "neq_os", "ge_oq",
            "gt_oq", "true_us");
    private static final Map<String, Integer> PCLMUL = Map.of("lqlq", 0x00, "hqlq", 0x01, "lqhq", 0x10,
            "hqhq", 0x11);
    /** AT&T names that are not Intel names plus a size suffix. */
    private static final Map<String, String> ATT_NAMES = Map.ofEntries(Map.entry("cltq", "cdqe"),
            Map.entry("cqto", "cqo"), Map.entry("cltd", "cdq"), Map.entry("cwtl", "cwde"), Map.entry("cwtd", "cwd"),
            Map.entry("cbtw", "cbw"), Map.entry("movslq", "movsxd"), Map.entry("movsl", "movsd"),
            Map.entry("cmpsl", "cmpsd"), Map.entry("stosl", "stosd"), Map.entry("lodsl", "lodsd"),
            Map.entry("scasl", "scasd"), Map.entry("insl", "insd"), Map.entry("outsl", "outsd"),
            Map.entry("movabsq", "mov"), Map.entry("movabsl", "mov"), Map.entry("movabsb", "mov"),
            Map.entry("movabsw", "mov"), Map.entry("movabs", "mov"), Map.entry("iretq", "iretq"),
            Map.entry("sysretq", "sysret"),
            Map.entry("fildll", "fild"), Map.entry("fistpll", "fistp"), Map.entry("fisttpll", "fisttp"),
            Map.entry("fildq", "fild"), Map.entry("wait", "fwait"),
            Map.entry("fucompi", "fucomip"), Map.entry("fcompi", "fcomip"), Map.entry("fistpq", "fistp"),
            Map.entry("fisttpq", "fisttp"));

    /** Instructions whose operand size in 64-bit mode defaults to 64 bits (objdump prints no suffix for them). */
    private static final Set<String> DEFAULT_64 = Set.of("push", "pop", "call", "jmp");
    private static final Set<String> SHIFTS = Set.of("sar", "shl", "shr", "sal", "rol", "ror", "rcl", "rcr");
    private static final Set<String> STRING_OPS = Set.of("movs", "cmps", "stos", "lods", "scas", "ins", "outs");

    private static final int MAX_LENGTH = 15;
    private static final List<Integer> LEGACY_PREFIXES = List.of(0x66, 0x67, 0xf0, 0xf2, 0xf3, 0x26, 0x2e, 0x36, 0x3e,
            0x64, 0x65);
    private static final long INERT = AsmParser.SEGMENT_CS | AsmParser.SEGMENT_SS | AsmParser.SEGMENT_DS
            | AsmParser.SEGMENT_ES | AsmParser.DATA16 | AsmParser.REX64;
    private static final Map<Long, Integer> SEGMENT_BYTES = Map.of(AsmParser.SEGMENT_ES, 0x26,
            AsmParser.SEGMENT_CS, 0x2e, AsmParser.SEGMENT_SS, 0x36, AsmParser.SEGMENT_DS, 0x3e);

    private final Zydis zydis = Zydis.get();

    /**
     * Where an instruction goes: its address, the absolute address its branch goes to (a label of the text or a
     * listing's target; null when it has none, or names something outside the text), and the branch width to use
     * (8 or 32 bits; 0 lets Zydis choose the shortest).
     */
    record Placement(long address, Long target, int width) {

        static final Placement NONE = new Placement(0, null, 0);
    }

    /** The machine code of {@code s} where no branch needs placing (see {@link #encode(AsmStatement, Placement)}). */
    byte[] encode(AsmStatement s) {
        return encode(s, Placement.NONE);
    }

    /**
     * The machine code of {@code s} at {@code where}: a branch to a known target gets the displacement that lands
     * on it from the end of its own encoding at the given width.
     *
     * @throws AssemblyException naming the statement's line when no encoding exists (also: a target out of reach
     *                           of an 8-bit displacement)
     */
    byte[] encode(AsmStatement s, Placement where) {
        // Prefixes Zydis will not write: a CS, SS, DS or ES override (meaningless in 64-bit mode, so Zydis refuses
        // it; llvm-mc prints it on padding NOPs), "notrack" (DS), "data16" and "rex64". An assembler writes them.
        long inert = inertPrefixes(s);
        if (inert != 0) {
            List<Operand> ops = s.operands().stream()
                    .map(o -> o instanceof Mem m && (AsmParser.segmentBit(m.segment()) & INERT) != 0
                            ? new Mem(Register.NONE, m.base(), m.index(), m.scale(), m.displacement(), m.size()) : o)
                    .toList();
            int extra = Long.bitCount(inert & ~AsmParser.REX64);
            // A placed branch's displacement counts from its end, which the added bytes move (a branch has no REX
            // for rex64 to join, so that one adds a byte too).
            int added = extra + ((inert & AsmParser.REX64) != 0 ? 1 : 0);
            Placement shifted = where.target() == null ? where
                    : new Placement(where.address() + added, where.target(), where.width());
            byte[] bare = encode(new AsmStatement(s.line(), s.column(), s.prefixes() & ~INERT, s.mnemonic(), ops,
                    s.suffix(), s.address()), shifted);
            if ((inert & AsmParser.REX64) != 0) {
                bare = withRexW(bare, s);
            }
            if (bare.length + extra > MAX_LENGTH) {
                throw new AssemblyException(s.line(), s.column(), "'" + s.mnemonic() + "' with its prefixes would be "
                        + (bare.length + extra) + " bytes; an instruction has at most " + MAX_LENGTH);
            }
            byte[] out = new byte[bare.length + extra];
            int k = 0;
            if ((inert & AsmParser.DATA16) != 0) {
                out[k++] = 0x66;
            }
            for (long bit : new long[] {AsmParser.SEGMENT_ES, AsmParser.SEGMENT_CS, AsmParser.SEGMENT_SS,
                    AsmParser.SEGMENT_DS}) {
                if ((inert & bit) != 0) {
                    out[k++] = (byte) SEGMENT_BYTES.get(bit).intValue();
                }
            }
            System.arraycopy(bare, 0, out, k, bare.length);
            return out;
        }
        List<Candidate> candidates = candidates(s);
        if (candidates.isEmpty()) {
            throw new AssemblyException(s.line(), s.column(), "unknown mnemonic '" + s.mnemonic() + "'");
        }
        String failure = null;
        for (Candidate c : candidates) {
            byte[] bytes = tryEncode(c, s, where);
            if (bytes != null) {
                return bytes;
            }
            failure = failure == null ? c.mnemonic : failure;
        }
        // EVEX forms: Zydis wants the write mask as operand 1; without {k} in the text it is k0, no masking.
        for (Candidate c : candidates) {
            if (!c.operands.isEmpty() && c.operands.size() < EncoderRequest.MAX_OPERANDS) {
                List<Operand> masked = new ArrayList<>(c.operands);
                masked.add(1, new Reg(zydis.registerNamed("k0")));
                byte[] bytes = tryEncode(new Candidate(c.mnemonic, masked, c.memorySizes, c.operandSize,
                        c.extraImmediate), s, where);
                if (bytes != null) {
                    return bytes;
                }
            }
        }
        // "rep ret", "repz ret": a prefix the CPU ignores and Zydis refuses; it is still a byte of the code.
        long repeat = s.prefixes() & (Zydis.ATTRIB_HAS_REP | Zydis.ATTRIB_HAS_REPE | Zydis.ATTRIB_HAS_REPNE);
        if (repeat != 0 && s.operands().stream().noneMatch(o -> o instanceof Target)) {
            AsmStatement bare = new AsmStatement(s.line(), s.column(), s.prefixes() & ~repeat, s.mnemonic(),
                    s.operands(), s.suffix(), s.address());
            byte[] bytes = encode(bare, where);
            byte[] prefixed = new byte[bytes.length + 1];
            prefixed[0] = (byte) ((repeat & Zydis.ATTRIB_HAS_REPNE) != 0 ? 0xf2 : 0xf3);
            System.arraycopy(bytes, 0, prefixed, 1, bytes.length);
            return prefixed;
        }
        String range = immediateOutOfRange(s);
        if (range != null) {
            throw new AssemblyException(s.line(), s.column(), range);
        }
        throw new AssemblyException(s.line(), s.column(), "no encoding of '" + describe(s) + "' exists (as '"
                + failure + "' with these operands)");
    }

    /**
     * Why an instruction with a general-purpose register and an immediate cannot be encoded when the immediate is
     * the cause: wider than the register (or than 32 bits, sign-extended, for a 64-bit one but {@code mov}'s);
     * null otherwise.
     */
    private static String immediateOutOfRange(AsmStatement s) {
        int width = 0;
        String register = null;
        for (AsmStatement.Operand o : s.operands()) {
            if (o instanceof AsmStatement.Reg r && r.register().widthBits() > 0 && r.register().widthBits() <= 64
                    && r.register().registerClass().name().startsWith("GP")) {
                width = r.register().widthBits();
                register = r.register().name();
                break;
            }
        }
        for (AsmStatement.Operand o : s.operands()) {
            if (o instanceof AsmStatement.Imm imm && width > 0) {
                long v = imm.value();
                int bits = width == 64 && !s.mnemonic().startsWith("mov") ? 32 : width;
                boolean fits = bits == 64 || v >= -(1L << (bits - 1)) && v < (1L << bits);
                if (!fits) {
                    return "the immediate " + (v < 0 ? "-0x" + Long.toHexString(-v) : "0x" + Long.toHexString(v))
                            + " does not fit in " + bits + " bits" + (bits == width ? " (the width of " + register + ")"
                            : " (a " + s.mnemonic() + " with a 64-bit register takes a sign-extended 32-bit immediate)");
                }
            }
        }
        return null;
    }

    private static String describe(AsmStatement s) {
        return s.mnemonic() + (s.operands().isEmpty() ? "" : " with " + s.operands().size() + " operand(s)");
    }

    /**
     * {@code bytes} with REX.W set ("rex64 call __tls_get_addr@PLT": gcc's TLS sequence, 48 e8 ...): in the REX
     * byte the encoding has, else in one added after the legacy prefixes, just before the opcode.
     */
    private static byte[] withRexW(byte[] bytes, AsmStatement s) {
        int i = 0;
        while (i < bytes.length && LEGACY_PREFIXES.indexOf(Byte.toUnsignedInt(bytes[i])) >= 0) {
            i++;
        }
        int at = i < bytes.length ? Byte.toUnsignedInt(bytes[i]) : -1;
        if (at == 0xc4 || at == 0xc5 || at == 0x62) {
            throw new AssemblyException(s.line(), s.column(), "rex64 on a VEX or EVEX instruction");
        }
        if (at >= 0x40 && at <= 0x4f) {
            byte[] out = bytes.clone();
            out[i] |= 0x08;
            return out;
        }
        byte[] out = new byte[bytes.length + 1];
        System.arraycopy(bytes, 0, out, 0, i);
        out[i] = 0x48;
        System.arraycopy(bytes, i, out, i + 1, bytes.length - i);
        return out;
    }

    /** The prefixes of {@code s}, written as words or as a memory operand's segment, that Zydis will not write. */
    private static long inertPrefixes(AsmStatement s) {
        long bits = s.prefixes() & INERT;
        for (Operand o : s.operands()) {
            if (o instanceof Mem m) {
                bits |= AsmParser.segmentBit(m.segment()) & INERT;
            }
        }
        return bits;
    }

    /** One way to read the statement: a Zydis mnemonic, the operands, and the sizes to try for open ones. */
    private record Candidate(String mnemonic, List<Operand> operands, int[] memorySizes, int operandSize,
                             Long extraImmediate) {
    }

    private List<Candidate> candidates(AsmStatement s) {
        List<Candidate> out = new ArrayList<>();
        String m = s.mnemonic();
        List<Operand> ops = s.operands();
        boolean vectorRegister = ops.stream().anyMatch(o -> o instanceof Reg r && isVector(r.register()));
        // AT&T "movq %rax, %rbx" is mov; with an xmm or mm register it is SSE's movq ("movd" likewise).
        if ((m.equals("movq") || m.equals("movd")) && !vectorRegister) {
            add(out, "mov", ops, m.equals("movq") ? 8 : 4, null);
        }
        // Far indirect call and jmp ("lcalll *(%rdi)", Intel "call fword ptr [rdi]"): the operand is a segment
        // selector after a 2-, 4- or 8-byte offset.
        if (m.matches("l(call|jmp)[wlq]?") && ops.size() == 1 && ops.get(0) instanceof Mem mem && mem.size() == 0) {
            String stem = m.startsWith("lcall") ? "call" : "jmp";
            int offset = m.length() == stem.length() + 1 ? 4 : suffixSize(m);
            add(out, stem, List.of(mem.withSize(offset + 2)), 0, null);
        }
        String att = ATT_NAMES.get(m);
        if (att != null) {
            int size = m.endsWith("ll") || m.endsWith("q") && m.startsWith("fi") ? 8 : suffixSize(m);
            add(out, att, ops, m.startsWith("fi") ? 8 : m.startsWith("movabs") || m.startsWith("sysret") ? size : 0,
                    null);
        }
        Candidate pseudo = comparison(m, ops);
        if (pseudo != null) {
            out.add(pseudo);
        }
        // movzbl, movsbq, movzwl, movswq ...: source size from the first letter after movz/movs
        if (m.length() == 6 && (m.startsWith("movz") || m.startsWith("movs")) && "bw".indexOf(m.charAt(4)) >= 0
                && "wlq".indexOf(m.charAt(5)) >= 0) {
            add(out, m.startsWith("movz") ? "movzx" : "movsx", ops, m.charAt(4) == 'b' ? 1 : 2, null);
        }
        // "nop dword ptr [rax]" is 0f 1f /0, whose ModRM.reg Zydis counts as a second operand; without it the
        // encoder picks the reserved-hint space 0f 18 /4, another instruction.
        if (m.startsWith("nop") && ops.size() == 1 && ops.get(0) instanceof Mem mem) {
            int size = mem.size() > 0 ? mem.size() : suffixSize(m);
            String reg = size == 2 ? "ax" : size == 8 ? "rax" : "eax";
            add(out, "nop", List.of(mem.size() > 0 ? mem : mem.withSize(size == 0 ? 4 : size),
                    new Reg(zydis.registerNamed(reg))), 0, null);
        }
        String direct = condition(m);
        if (zydis.mnemonicId(direct) > 0) {
            add(out, direct, ops, 0, null);
        }
        if (m.equals("movsx")) {
            add(out, "movsxd", ops, 0, null);  // gcc's "movsx rdi, edi"
        }
        if (direct.startsWith("imul") && ops.size() == 2 && ops.get(0) instanceof Reg r && ops.get(1) instanceof Imm) {
            add(out, direct.length() > 4 ? direct.substring(0, 4) : direct, List.of(r, r, ops.get(1)),
                    direct.length() > 4 ? suffixSize(direct) : 0, null);  // "imul eax, 3" is imul eax, eax, 3
        }
        List<Operand> x87 = x87Implicit(direct, ops);
        if (x87 != null) {
            add(out, direct, x87, 0, null);
        }
        // String instructions without size letter (objdump's "stos QWORD PTR es:[rdi], rax"): size from operands
        if (STRING_OPS.contains(m)) {
            int size = ops.stream().mapToInt(AsmEncoder::operandBytes).max().orElse(0);
            String letter = switch (size) {
                case 1 -> "b";
                case 2 -> "w";
                case 4 -> "d";
                case 8 -> "q";
                default -> "";
            };
            if (!letter.isEmpty()) {
                add(out, m + letter, ops, 0, null);
            }
        }
        // AT&T size suffixes: b w l q (s l t for x87; x y for vector conversions)
        for (String suffix : List.of("ll", "b", "w", "l", "q", "s", "t", "x", "y")) {
            if (m.length() > suffix.length() + 1 && m.endsWith(suffix)) {
                String stem = condition(m.substring(0, m.length() - suffix.length()));
                if (zydis.mnemonicId(stem) > 0) {
                    add(out, stem, ops, x87Size(stem, suffix), null);
                }
            }
        }
        return out;
    }

    /** The operands x87 syntax leaves out: {@code fxch} is {@code st1}, {@code faddp} {@code st1, st}. */
    private List<Operand> x87Implicit(String m, List<Operand> ops) {
        if (!m.startsWith("f") || ops.size() > 1) {
            return null;
        }
        Register st0 = zydis.registerNamed("st0");
        Register st1 = zydis.registerNamed("st1");
        if (ops.isEmpty() && m.equals("fxch")) {
            return List.of(new Reg(st1));
        }
        if (ops.isEmpty() && List.of("faddp", "fmulp", "fsubp", "fsubrp", "fdivp", "fdivrp").contains(m)) {
            return List.of(new Reg(st1), new Reg(st0));
        }
        if (ops.size() == 1 && ops.get(0) instanceof Reg r && r.register().name().startsWith("st")
                && List.of("fucomi", "fcomi", "fucomip", "fcomip").contains(m)) {
            return List.of(new Reg(st0), r);
        }
        return null;
    }

    private static int suffixSize(String m) {
        return switch (m.charAt(m.length() - 1)) {
            case 'b' -> 1;
            case 'w' -> 2;
            case 'l' -> 4;
            case 'q' -> 8;
            default -> 0;
        };
    }

    /** The memory size an AT&T suffix gives: integer or x87 (float and integer forms differ). */
    private static int x87Size(String stem, String suffix) {
        boolean x87 = stem.startsWith("f");
        boolean x87Integer = stem.startsWith("fi");
        return switch (suffix) {
            case "b" -> 1;
            case "w" -> 2;
            case "l" -> x87 && !x87Integer ? 8 : 4;
            case "q", "ll" -> 8;
            case "s" -> x87Integer ? 2 : 4;
            case "t" -> 10;
            case "x" -> 16;
            case "y" -> 32;
            default -> 0;
        };
    }

    private void add(List<Candidate> out, String mnemonic, List<Operand> ops, int size, Long extraImmediate) {
        List<Operand> operands = dropImplicit(mnemonic, ops);
        out.add(new Candidate(mnemonic, operands, sizes(operands, size), size, extraImmediate));
        if (extraImmediate == null && operands.size() == 1 && SHIFTS.contains(mnemonic)) {
            // "sar rax": the count 1 is implicit in the text but an operand for Zydis
            out.add(new Candidate(mnemonic, operands, sizes(operands, size), size, 1L));
        }
    }

    /** String instructions' operands are implicit: llvm prints them, the encoder wants none. */
    private static List<Operand> dropImplicit(String mnemonic, List<Operand> ops) {
        String stem = mnemonic.length() > 1 ? mnemonic.substring(0, mnemonic.length() - 1) : mnemonic;
        if (!STRING_OPS.contains(stem) || "bwdq".indexOf(mnemonic.charAt(mnemonic.length() - 1)) < 0
                || ops.isEmpty()) {
            return ops;
        }
        for (Operand o : ops) {
            boolean implicit = o instanceof Mem mem && !mem.index().isPresent() && mem.displacement() == 0
                    && (mem.base().name().endsWith("di") || mem.base().name().endsWith("si"))
                    || o instanceof Reg r && r.register().registerClass().name().startsWith("GPR")
                    && (r.register().enclosingName().equals("rax") || r.register().enclosingName().equals("rdx"));
            if (!implicit) {
                return ops;
            }
        }
        return List.of();
    }

    private static int[] sizes(List<Operand> operands, int hint) {
        boolean open = operands.stream().anyMatch(o -> o instanceof Mem m && m.size() == 0);
        if (!open) {
            return new int[] {-1};
        }
        Set<Integer> order = new LinkedHashSet<>();
        if (hint > 0) {
            order.add(hint);
        }
        for (Operand o : operands) {
            if (o instanceof Reg r && r.register().widthBits() > 0) {
                order.add(r.register().widthBits() / 8);
            }
        }
        for (int s : ANY_SIZE) {
            order.add(s);
        }
        return order.stream().mapToInt(Integer::intValue).toArray();
    }

    private static int operandBytes(Operand o) {
        if (o instanceof Mem m) {
            return m.size();
        }
        if (o instanceof Reg r) {
            return r.register().widthBits() / 8;
        }
        return 0;
    }

    private static boolean isVector(Register r) {
        String c = r.registerClass().name();
        return c.equals("XMM") || c.equals("YMM") || c.equals("ZMM") || c.equals("MMX");
    }

    /** Intel's canonical name where synonyms exist: condition codes ({@code jne} → {@code jnz}), {@code sal}. */
    private static String condition(String m) {
        if (m.equals("sal")) {
            return "shl";  // the same instruction (/4); Zydis names the /6 alias only
        }
        for (String head : List.of("cmov", "set", "j")) {
            if (m.startsWith(head)) {
                String cc = CONDITIONS.get(m.substring(head.length()));
                if (cc != null) {
                    return head + cc;
                }
            }
        }
        return m;
    }

    /** llvm's comparison pseudo-ops: cmpltps, vcmpneq_oqsd, pclmulhqlqdq → the instruction plus a predicate. */
    private Candidate comparison(String m, List<Operand> ops) {
        for (String type : List.of("ps", "pd", "ss", "sd")) {
            for (boolean vex : new boolean[] {false, true}) {
                String head = vex ? "vcmp" : "cmp";
                if (m.startsWith(head) && m.endsWith(type) && m.length() > head.length() + 2) {
                    String pred = m.substring(head.length(), m.length() - 2);
                    int k = (vex ? AVX_PREDICATES : SSE_PREDICATES).indexOf(pred);
                    if (k >= 0) {
                        return candidate(head + type, ops, (long) k);
                    }
                }
            }
        }
        for (String head : List.of("pclmul", "vpclmul")) {
            if (m.startsWith(head) && m.endsWith("dq") && m.length() == head.length() + 6) {
                Integer k = PCLMUL.get(m.substring(head.length(), head.length() + 4));
                if (k != null) {
                    return candidate(head + "qdq", ops, (long) k);
                }
            }
        }
        return null;
    }

    private Candidate candidate(String mnemonic, List<Operand> ops, Long extra) {
        return new Candidate(mnemonic, ops, sizes(ops, 0), 0, extra);
    }

    private byte[] tryEncode(Candidate c, AsmStatement s, Placement where) {
        int id = zydis.mnemonicId(c.mnemonic);
        if (id <= 0) {
            return null;
        }
        List<Operand> ops = new ArrayList<>(c.operands);
        if (c.extraImmediate != null) {
            ops.add(new Imm(c.extraImmediate));
        }
        if (ops.size() > EncoderRequest.MAX_OPERANDS) {
            return null;
        }
        if (c.mnemonic.equals("xchg") && ops.size() == 2 && ops.get(0) instanceof Reg a
                && ops.get(1) instanceof Reg b) {
            if (a.equals(b) && a.register().name().equals("eax")) {
                // 90 would be nop; xchg eax, eax clears rax's upper half, so it is 87 c0, as assemblers write it
                return new byte[] {(byte) 0x87, (byte) 0xc0};
            }
            if (!a.equals(b)) {
                return xchg(id, c, s, ops, where);
            }
        }
        boolean open = c.memorySizes[0] != -1 && c.operandSize == 0;
        List<byte[]> found = new ArrayList<>();
        List<Integer> foundSizes = new ArrayList<>();
        for (int size : c.memorySizes) {
            byte[] bytes = encodeSized(id, c, s, ops, size, where);
            if (bytes != null && (!open || size == 8 && DEFAULT_64.contains(c.mnemonic))) {
                return bytes;  // push/pop/call/jmp on memory are 64-bit unless the text says otherwise, as in gas
            }
            if (bytes != null) {
                found.add(bytes);
                foundSizes.add(size);
            }
        }
        if (found.isEmpty()) {
            return null;
        }
        // The text gave no size: the sizes that encode must all be the same instruction (lea, SSE forms), else the
        // text is ambiguous, as an assembler would say, rather than guessed. Of equally short forms, the one
        // encoded at the size the instruction accesses: what the text with that size written out gives
        // (AT&T "movq (%r12), %xmm0" as Intel "movq xmm0, qword ptr [r12]": f3 41 0f 7e, not 66 49 0f 6e).
        Set<String> meanings = new java.util.TreeSet<>();
        byte[] shortest = found.get(0);
        int shortestSize = foundSizes.get(0);
        for (int k = 0; k < found.size(); k++) {
            Instruction decoded = BasicBlock.fromBytes(found.get(k)).instruction(0);
            meanings.add(decoded.intelSyntax());
            int length = found.get(k).length;
            if (length < shortest.length || length == shortest.length && shortestSize != accessedBytes(decoded)
                    && foundSizes.get(k) == accessedBytes(decoded)) {
                shortest = found.get(k);
                shortestSize = foundSizes.get(k);
            }
        }
        if (meanings.size() > 1) {
            throw new AssemblyException(s.line(), s.column(), "ambiguous operand size of '" + s.mnemonic()
                    + "': say it (a suffix such as 'l' or 'q', or 'dword ptr'); it could be " + meanings);
        }
        return shortest;
    }

    /** The size in bytes of the first memory operand {@code i} accesses, or 0. */
    private static int accessedBytes(Instruction i) {
        for (dev.basalt.decoder.Operand o : i.operands()) {
            if (o instanceof dev.basalt.decoder.Operand.MemoryOperand m) {
                return m.sizeBits() / 8;
            }
        }
        return 0;
    }

    /**
     * xchg of two registers commutes, and Zydis may put either in ModRM.rm, or miss the one-byte form with the
     * accumulator. As gas and llvm-mc do: the shortest form, and among equals the one with the first operand
     * written in ModRM.rm, so the bytes decode (and print) in the order the text gave.
     */
    private byte[] xchg(int id, Candidate c, AsmStatement s, List<Operand> ops, Placement where) {
        byte[] asWritten = encodeSized(id, c, s, ops, c.memorySizes[0], where);
        byte[] swapped = encodeSized(id, c, s, List.of(ops.get(1), ops.get(0)), c.memorySizes[0], where);
        if (asWritten == null || swapped == null) {
            return asWritten == null ? swapped : asWritten;
        }
        if (asWritten.length != swapped.length) {
            return asWritten.length < swapped.length ? asWritten : swapped;
        }
        Register first = ((Reg) ops.get(0)).register();
        var printed = (dev.basalt.decoder.Operand.RegisterOperand) BasicBlock.fromBytes(asWritten).instruction(0)
                .operands().get(0);
        return printed.register().equals(first) ? asWritten : swapped;
    }

    /** The first encoding at memory size {@code size}: immediates as written, then sign-folded; hint, then none. */
    private byte[] encodeSized(int id, Candidate c, AsmStatement s, List<Operand> ops, int size, Placement where) {
        for (List<Operand> variant : immediateVariants(ops, operandBits(c, ops, size))) {
            for (int hint : new int[] {c.operandSize, 0}) {
                try {
                    byte[] bytes = encodeAt(id, s, variant, size, hint, where);
                    if (c.mnemonic.equals("nop")) {
                        return canonicalNop(bytes);
                    }
                    return isMoffs(bytes, s) ? modrmInsteadOfMoffs(id, s, variant, size, hint, bytes) : bytes;
                } catch (EncodeException noSuchForm) {
                    // try the next variant
                }
                if (hint == 0) {
                    break;
                }
            }
        }
        return null;
    }

    /** The instruction's operand width in bits as far as the text says (suffix, register, memory), or 0. */
    private static int operandBits(Candidate c, List<Operand> ops, int memorySize) {
        if (c.operandSize > 0) {
            return 8 * c.operandSize;
        }
        int bits = 0;
        for (Operand o : ops) {
            if (o instanceof Reg r && r.register().registerClass().name().startsWith("GPR")) {
                bits = Math.max(bits, r.register().widthBits());
            } else if (o instanceof Mem m) {
                bits = Math.max(bits, 8 * (m.size() > 0 ? m.size() : Math.max(0, memorySize)));
            }
        }
        return bits;
    }

    /**
     * The operands as written, then with an immediate read as a sign-extended 32-, 16- or 8-bit value: llvm prints
     * {@code mov eax, 4294967295} where the encoder wants -1.
     */
    private static List<List<Operand>> immediateVariants(List<Operand> ops, int operandBits) {
        List<List<Operand>> variants = new ArrayList<>();
        variants.add(ops);
        for (int k = 0; k < ops.size(); k++) {
            if (ops.get(k) instanceof Imm imm) {
                long v = imm.value();
                int[] widths = {32, 16, 8};
                long[] folded = {(int) v, (short) v, (byte) v};
                for (int f = 0; f < folded.length; f++) {
                    long w = folded[f];
                    // only where the operation is that narrow: "and rax, 0xffffffff" is no "and rax, -1"
                    boolean narrow = operandBits == 0 || operandBits <= widths[f];
                    if (narrow && w != v && (v >>> 32 == 0 || v >> 31 == -1) && fitsUnsigned(v, w)) {
                        List<Operand> copy = new ArrayList<>(ops);
                        copy.set(k, new Imm(w));
                        variants.add(copy);
                    }
                }
            }
        }
        return variants;
    }

    /** True when {@code w} is {@code v} truncated to the width at which they agree. */
    private static boolean fitsUnsigned(long v, long w) {
        for (int bits : new int[] {8, 16, 32}) {
            long mask = (1L << bits) - 1;
            if ((v & ~mask) == 0 && (w & mask) == v) {
                return true;
            }
        }
        return false;
    }

    /**
     * {@code 0f 1f /0}, the multi-byte NOP compilers emit, for any of the reserved-NOP opcodes {@code 0f 19..1e}
     * Zydis may choose first: the same ModRM layout, so only the opcode byte changes.
     */
    private static byte[] canonicalNop(byte[] bytes) {
        for (int i = 0; i + 1 < bytes.length; i++) {
            int u = Byte.toUnsignedInt(bytes[i]);
            if (u == 0x0f) {
                int op = Byte.toUnsignedInt(bytes[i + 1]);
                if (op >= 0x19 && op <= 0x1e) {
                    bytes[i + 1] = 0x1f;
                }
                break;
            }
        }
        return bytes;
    }

    /** ModRM.reg of rcx/ecx/cx/cl, the register the moffs workaround encodes with. */
    private static final int MODRM_REG_RCX = 1;

    /** Zydis prefers {@code mov rax, moffs} (with a 0x67 prefix) for absolute addresses; compilers do not. */
    private static boolean isMoffs(byte[] bytes, AsmStatement s) {
        if (s.mnemonic().startsWith("movabs")) {
            return false;
        }
        for (byte b : bytes) {
            int u = Byte.toUnsignedInt(b);
            if (u == 0x67) {
                continue;
            }
            if (u == 0x64 || u == 0x65 || u == 0x66 || (u & 0xf0) == 0x40) {
                continue;  // FS/GS, operand size, REX
            }
            return u >= 0xa0 && u <= 0xa3;
        }
        return false;
    }

    /**
     * The ModRM form of an accumulator move to or from an absolute address: encode it with the C register
     * (which has no moffs form), then set ModRM.reg back to 0, the accumulator.
     */
    private byte[] modrmInsteadOfMoffs(int id, AsmStatement s, List<Operand> ops, int size, int hint, byte[] moffs) {
        List<Operand> swapped = new ArrayList<>(ops);
        for (int k = 0; k < ops.size(); k++) {
            if (ops.get(k) instanceof Reg r && r.register().enclosingName().equals("rax")) {
                String name = r.register().name();
                String c = name.equals("al") ? "cl" : name.replace('a', 'c');
                swapped.set(k, new Reg(zydis.registerNamed(c)));
            }
        }
        try {
            byte[] bytes = zydis.encode(request(id, s, swapped, size, hint, 0, 0));
            for (int i = 0; i + 1 < bytes.length; i++) {
                int u = Byte.toUnsignedInt(bytes[i]);
                if (u >= 0x88 && u <= 0x8b && ((bytes[i + 1] >> 3) & 7) == MODRM_REG_RCX) {
                    bytes[i + 1] = (byte) (bytes[i + 1] & ~0x38);
                    return bytes;
                }
            }
        } catch (EncodeException e) {
            // keep the moffs form
        }
        return moffs;
    }

    /** Encodes once with a zero displacement to learn the length at the width, then with the real one. */
    private byte[] encodeAt(int id, AsmStatement s, List<Operand> ops, int size, int hint, Placement where) {
        Target target = null;
        for (Operand o : ops) {
            if (o instanceof Target t) {
                target = t;
            }
        }
        if (target == null) {
            return zydis.encode(request(id, s, ops, size, hint, 0, 0));
        }
        if (where.target() == null) {
            // A displacement as written (llvm-mc), or a name outside the text: 32 bits for its relocation.
            return target.label() != null ? zydis.encode(request(id, s, ops, size, hint, 0, 32))
                    : zydis.encode(request(id, s, ops, size, hint, target.value(), where.width()));
        }
        int length = zydis.encode(request(id, s, ops, size, hint, 0, where.width())).length;
        return zydis.encode(request(id, s, ops, size, hint, where.target() - (where.address() + length),
                where.width()));
    }

    private byte[] request(int mnemonicId, AsmStatement s, List<Operand> ops, int memorySize, int operandSize,
                           long relative, int branchWidth) {
        ByteBuffer b = ByteBuffer.allocate(EncoderRequest.SIZE).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(EncoderRequest.R_MNEMONIC, mnemonicId);
        long prefixes = s.prefixes();
        if (operandSize > 0 && operandSize < SIZE_HINTS.length) {
            b.putInt(EncoderRequest.R_OPERAND_SIZE_HINT, SIZE_HINTS[operandSize]);
        }
        b.put(EncoderRequest.R_OPERAND_COUNT, (byte) ops.size());
        boolean masked = ops.size() > 1 && ops.get(1) instanceof Reg mask
                && mask.register().registerClass() == RegisterClass.MASK;
        for (int k = 0; k < ops.size(); k++) {
            int o = EncoderRequest.R_OPERANDS + EncoderRequest.OPERAND_SIZE * k;
            Operand op = ops.get(k);
            if (op instanceof Reg r) {
                b.putInt(o + EncoderRequest.O_TYPE, TYPE_REGISTER);
                b.putInt(o + EncoderRequest.O_REG, r.register().id());
                // A fourth register operand (vblendvps) is encoded in the immediate's high nibble: Zydis' is4. Not
                // so in an EVEX form, whose operand 1 is the write mask.
                b.put(o + EncoderRequest.O_REG_IS4, (byte) (k == 3 && !masked ? 1 : 0));
            } else if (op instanceof Mem m) {
                b.putInt(o + EncoderRequest.O_TYPE, TYPE_MEMORY);
                b.putInt(o + EncoderRequest.O_MEM_BASE, m.base().id());
                b.putInt(o + EncoderRequest.O_MEM_INDEX, m.index().id());
                b.put(o + EncoderRequest.O_MEM_SCALE, (byte) (m.index().isPresent() ? Math.max(1, m.scale()) : 0));
                b.putLong(o + EncoderRequest.O_MEM_DISP, m.displacement());
                b.putShort(o + EncoderRequest.O_MEM_SIZE, (short) (m.size() > 0 ? m.size() : Math.max(0, memorySize)));
                prefixes |= AsmParser.segmentBit(m.segment());
                if (m.absolute()) {
                    b.putInt(EncoderRequest.R_ADDRESS_SIZE_HINT, ADDRESS_SIZE_64);
                }
            } else if (op instanceof Imm i) {
                b.putInt(o + EncoderRequest.O_TYPE, TYPE_IMMEDIATE);
                b.putLong(o + EncoderRequest.O_IMM, i.value());
            } else if (op instanceof Target) {
                b.putInt(o + EncoderRequest.O_TYPE, TYPE_IMMEDIATE);
                b.putLong(o + EncoderRequest.O_IMM, relative);
                if (branchWidth == 8) {
                    b.putInt(EncoderRequest.R_BRANCH_TYPE, BRANCH_SHORT);
                    b.putInt(EncoderRequest.R_BRANCH_WIDTH, BRANCH_WIDTH_8);
                } else if (branchWidth == 32) {
                    b.putInt(EncoderRequest.R_BRANCH_TYPE, BRANCH_NEAR);
                    b.putInt(EncoderRequest.R_BRANCH_WIDTH, BRANCH_WIDTH_32);
                }
            }
        }
        b.putLong(EncoderRequest.R_PREFIXES, prefixes & ~INERT);  // written by encode(), not by Zydis
        return b.array();
    }
}
