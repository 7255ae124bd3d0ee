package dev.basalt.decoder;

import dev.basalt.decoder.AsmStatement.Imm;
import dev.basalt.decoder.AsmStatement.Mem;
import dev.basalt.decoder.AsmStatement.Operand;
import dev.basalt.decoder.AsmStatement.Reg;
import dev.basalt.decoder.AsmStatement.Target;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads assembly text line by line, in Intel or AT&T syntax as compilers, {@code objdump} and {@code llvm-mc}
 * print it, into {@link AsmStatement}s, labels and block separators. Comments ({@code #}, {@code //}, and
 * {@code <symbol>} annotations of listings), directives and the address and bytes columns of listings are
 * skipped; {@code ;} separates statements on one line.
 */
final class AsmParser {

    /** What a line holds. */
    sealed interface Item permits Label, Separator, Statement, Directive, Region {
    }

    /**
     * A directive that places code without being code: a section change ({@code .text}, {@code .section},
     * {@code .pushsection}, {@code .popsection}, {@code .previous}) or an alignment ({@code .p2align}, {@code .balign},
     * {@code .align}). Lower-case name with its dot, and the text after it.
     */
    record Directive(String name, String arguments, int line) implements Item {
    }

    /** A label: ends the block before it; branches may name it. */
    record Label(String name, int line, long address) implements Item {

        Label(String name, int line) {
            this(name, line, -1);
        }
    }

    /** A blank line or a line that ends a block without naming it (a listing's section header). */
    record Separator(int line) implements Item {
    }

    /**
     * One instruction; {@code listed} holds a listing's bytes for it ({@code objdump -d}'s bytes column, with its
     * continuation lines), empty when the text has none.
     */
    record Statement(AsmStatement statement, byte[] listed) implements Item {

        Statement(AsmStatement statement) {
            this(statement, new byte[0]);
        }
    }

    /**
     * An llvm-mca region marker: the comment {@code # LLVM-MCA-BEGIN name} ({@code begin}, its name possibly empty)
     * or {@code # LLVM-MCA-END}.
     */
    record Region(String name, boolean begin, int line) implements Item {
    }

    private static final Pattern LISTING = Pattern.compile("^\\s*([0-9a-fA-F]+):\\s+((?:[0-9a-fA-F]{2}(?:\\s|$))*)");
    private static final Pattern OBJDUMP_SYMBOL = Pattern.compile("^\\s*([0-9a-fA-F]+)\\s+<([^>]+)>:\\s*$");
    private static final Pattern REGION = Pattern.compile("(?:#|//|;)\\s*LLVM-MCA-(BEGIN|END)\\b\\s*(.*)$");
    private static final Pattern LABEL = Pattern.compile("^\\s*([A-Za-z_.$@][\\w.$@]*|\\d+)\\s*:\\s*$");
    private static final Pattern LABEL_THEN_TEXT = Pattern.compile("^\\s*([A-Za-z_.$@][\\w.$@]*|\\d+)\\s*:\\s*(?=\\S)");
    private static final Pattern PTR = Pattern.compile("^([a-z]+)\\s+ptr\\s+");
    private static final Pattern SEGMENT = Pattern.compile("^([a-z]s)\\s*:\\s*");
    private static final Map<String, Integer> SIZE_WORDS = Map.ofEntries(Map.entry("byte", 1),
            Map.entry("word", 2), Map.entry("dword", 4), Map.entry("fword", 6), Map.entry("qword", 8),
            Map.entry("mmword", 8), Map.entry("tbyte", 10), Map.entry("xword", 10), Map.entry("xmmword", 16),
            Map.entry("oword", 16), Map.entry("ymmword", 32), Map.entry("zmmword", 64));

    static final long SEGMENT_CS = 1L << 37;
    static final long SEGMENT_SS = 1L << 38;
    static final long SEGMENT_DS = 1L << 39;
    static final long SEGMENT_ES = 1L << 40;
    private static final long SEGMENT_FS = 1L << 41;
    private static final long SEGMENT_GS = 1L << 42;
    /** Zydis' "has operand-size prefix" bit, used here for the word {@code data16}: a 66 byte written as such. */
    static final long DATA16 = 1L << 43;
    /** Zydis' "has address-size prefix" bit, used here for the word {@code rex64}: REX.W added to the encoding. */
    static final long REX64 = 1L << 44;
    /**
     * Prefix words and their bits ({@code notrack} is the DS byte); words that name no prefix we encode
     * ({@code addr32}, {@code {vex3}}) carry 0.
     */
    private static final Map<String, Long> PREFIXES = Map.ofEntries(Map.entry("lock", Zydis.ATTRIB_HAS_LOCK),
            Map.entry("rep", Zydis.ATTRIB_HAS_REP), Map.entry("repe", Zydis.ATTRIB_HAS_REPE),
            Map.entry("repz", Zydis.ATTRIB_HAS_REPE), Map.entry("repne", Zydis.ATTRIB_HAS_REPNE),
            Map.entry("repnz", Zydis.ATTRIB_HAS_REPNE), Map.entry("bnd", Zydis.ATTRIB_HAS_BND),
            Map.entry("xacquire", Zydis.ATTRIB_HAS_XACQUIRE), Map.entry("xrelease", Zydis.ATTRIB_HAS_XRELEASE),
            Map.entry("data16", DATA16), Map.entry("data32", 0L), Map.entry("addr32", 0L), Map.entry("rex64", REX64),
            Map.entry("rex", 0L), Map.entry("rex.w", 0L), Map.entry("notrack", SEGMENT_DS), Map.entry("{vex}", 0L),
            Map.entry("{vex3}", 0L), Map.entry("{evex}", 0L), Map.entry("cs", SEGMENT_CS),
            Map.entry("ds", SEGMENT_DS), Map.entry("es", SEGMENT_ES), Map.entry("ss", SEGMENT_SS),
            Map.entry("fs", SEGMENT_FS), Map.entry("gs", SEGMENT_GS));

    private static final java.util.Set<String> PLACING_DIRECTIVES = java.util.Set.of(".text", ".data", ".bss",
            ".section", ".pushsection", ".popsection", ".previous", ".p2align", ".balign", ".align");

    /** Data directives that put numbers in place, by the bytes each number takes. */
    private static final Map<String, Integer> DATA_WIDTHS = Map.of(".byte", 1, ".value", 2, ".word", 2, ".short", 2,
            ".2byte", 2, ".long", 4, ".int", 4, ".4byte", 4, ".quad", 8, ".8byte", 8);

    private final Assembly.Syntax syntax;
    private final Zydis zydis = Zydis.get();

    AsmParser(Assembly.Syntax syntax) {
        this.syntax = syntax;
    }

    /** Zydis' bit for a segment override by {@code segment}. */
    static long segmentBit(Register segment) {
        return switch (segment.name()) {
            case "cs" -> SEGMENT_CS;
            case "ss" -> SEGMENT_SS;
            case "ds" -> SEGMENT_DS;
            case "es" -> SEGMENT_ES;
            case "fs" -> SEGMENT_FS;
            case "gs" -> SEGMENT_GS;
            default -> 0L;
        };
    }

    /** Every item of {@code text}, in order. */
    List<Item> parse(String text) {
        List<Item> items = new ArrayList<>();
        String[] lines = (text.startsWith("\uFEFF") ? text.substring(1) : text).split("\\R", -1);
        long pendingPrefixes = 0;
        int[] pendingAt = null;  // line and column of prefixes on a line of their own, until their instruction
        for (int i = 0; i < lines.length; i++) {
            int lineNo = i + 1;
            String raw = lines[i];
            Matcher symbol = OBJDUMP_SYMBOL.matcher(raw);
            if (symbol.matches()) {
                checkNoPrefix(pendingAt);
                items.add(new Label(symbol.group(2), lineNo, symbol.group(1).length() <= 16
                        ? Long.parseUnsignedLong(symbol.group(1), 16) : -1));  // more digits: no address
                continue;
            }
            Matcher region = REGION.matcher(raw);
            if (region.find()) {
                checkNoPrefix(pendingAt);
                items.add(new Region(region.group(2).strip(), region.group(1).equals("BEGIN"), lineNo));
            }
            String body = stripComment(raw);
            long address = -1;
            int offset = 0;
            byte[] listed = new byte[0];
            Matcher listing = LISTING.matcher(body);
            if (listing.find() && looksLikeListing(body, listing) && listing.group(1).length() <= 16) {
                address = Long.parseUnsignedLong(listing.group(1), 16);
                offset = listing.end();
                String bytes = listing.group(2).replaceAll("\\s", "");
                listed = bytes.isEmpty() ? new byte[0] : Hex.parse(bytes);  // "10:\t" and the text: no bytes given
                if (body.substring(offset).isBlank()) {
                    // a listing's continuation line: more bytes of the instruction above
                    if (!items.isEmpty() && items.get(items.size() - 1) instanceof Statement st
                            && st.listed().length > 0) {
                        byte[] joined = java.util.Arrays.copyOf(st.listed(), st.listed().length + listed.length);
                        System.arraycopy(listed, 0, joined, st.listed().length, listed.length);
                        items.set(items.size() - 1, new Statement(st.statement(), joined));
                    }
                    continue;
                }
            }
            if (body.isBlank()) {
                checkNoPrefix(pendingAt);
                if (raw.isBlank()) {
                    items.add(new Separator(lineNo));  // a blank line ends a block; a comment line does not
                }
                continue;
            }
            Matcher label = LABEL.matcher(body);
            if (label.matches()) {
                checkNoPrefix(pendingAt);
                items.add(new Label(label.group(1), lineNo));
                continue;
            }
            Matcher inline = LABEL_THEN_TEXT.matcher(body);
            if (body.contains("file format")) {
                items.add(new Separator(lineNo));  // objdump's "t.o:     file format elf64-x86-64"
                continue;
            } else if (offset == 0 && inline.find()) {
                checkNoPrefix(pendingAt);
                items.add(new Label(inline.group(1), lineNo));  // "loop: dec rcx"
                offset = inline.end();
            } else if (body.trim().endsWith(":")) {
                items.add(new Separator(lineNo));  // "Disassembly of section .text:", "file.o:  file format ..."
                continue;
            }
            // ';' separates statements (gas); columns stay those of the whole line.
            int start = offset;
            while (start <= body.length()) {
                int end = outsideQuotes(body, ";", start);
                if (end < 0) {
                    end = body.length();
                }
                String part = body.substring(start, end);
                if (!part.isBlank()) {
                    String trimmed = part.strip();
                    if (trimmed.startsWith(".")) {
                        String[] words = trimmed.split("\\s+", 2);
                        String name = words[0].toLowerCase(Locale.ROOT);
                        if (PLACING_DIRECTIVES.contains(name)) {
                            items.add(new Directive(name, words.length > 1 ? words[1] : "", lineNo));
                        } else if (DATA_WIDTHS.containsKey(name)) {
                            byte[] data = data(DATA_WIDTHS.get(name), words.length > 1 ? words[1] : "");
                            if (data != null) {  // bytes in the code, such as gcc's ".value 0x6666" of a TLS call
                                int column = start + part.indexOf(trimmed.charAt(0)) + 1;
                                items.add(new Statement(new AsmStatement(lineNo, column, 0, name, List.of(), "",
                                        address), data));
                            }
                        }
                        start = end + 1;
                        continue;  // other directives say nothing about the code
                    }
                    int column = start + part.indexOf(trimmed.charAt(0)) + 1;
                    AsmStatement s = statement(trimmed, lineNo, column, pendingPrefixes, address);
                    if (s == null) {
                        pendingPrefixes |= prefixBits(trimmed);  // a prefix on a line of its own
                        pendingAt = new int[] {lineNo, column};
                    } else {
                        pendingPrefixes = 0;
                        pendingAt = null;
                        items.add(new Statement(s, listed));
                        listed = new byte[0];  // "rep; movsb" on a listing line: its bytes go with the first
                    }
                }
                start = end + 1;
            }
        }
        checkNoPrefix(pendingAt);
        return items;
    }

    /** The little-endian bytes of a data directive's numbers, or null when one is not a number (a symbol). */
    private static byte[] data(int width, String arguments) {
        if (arguments.isBlank()) {
            return null;
        }
        String[] values = arguments.split(",");
        byte[] out = new byte[values.length * width];
        for (int k = 0; k < values.length; k++) {
            Long v = number(values[k]);
            if (v == null) {
                return null;
            }
            for (int b = 0; b < width; b++) {
                out[k * width + b] = (byte) (v >>> (8 * b));
            }
        }
        return out;
    }

    /** Prefixes on a line of their own must be followed by their instruction, not by a label or the end. */
    private static void checkNoPrefix(int[] pendingAt) {
        if (pendingAt != null) {
            throw new AssemblyException(pendingAt[0], pendingAt[1], "a prefix with no instruction after it");
        }
    }

    /** An address column is followed by bytes or a tab (objdump), never by an operand list. */
    private static boolean looksLikeListing(String body, Matcher m) {
        return !m.group(2).isEmpty() || body.charAt(m.end() - 1) == '\t';
    }

    /** Where {@code token} first occurs in {@code s} from {@code from}, not inside a "string" literal; -1 if not. */
    private static int outsideQuotes(String s, String token, int from) {
        boolean quoted = false;
        for (int i = from; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' && (i == 0 || s.charAt(i - 1) != '\\')) {
                quoted = !quoted;
            } else if (!quoted && s.startsWith(token, i)) {
                return i;
            }
        }
        return -1;
    }

    private static String stripComment(String line) {
        int cut = line.length();
        int hash = outsideQuotes(line, "#", 0);
        if (hash >= 0) {
            cut = hash;
        }
        int slashes = outsideQuotes(line, "//", 0);
        if (slashes >= 0 && slashes < cut) {
            cut = slashes;
        }
        String s = line.substring(0, cut);
        // objdump's "<symbol+0x10>" after a branch target
        int lt = s.indexOf('<');
        if (lt >= 0 && s.indexOf('>', lt) > lt) {
            s = s.substring(0, lt);
        }
        return s.stripTrailing();
    }

    /**
     * Lower case, character by character: positions in it are positions in {@code text} (String.toLowerCase may
     * change the length: 'İ' becomes two characters, and a column found in one would cut the other wrong).
     */
    static String sameLengthLowerCase(String text) {
        char[] chars = text.toCharArray();
        for (int i = 0; i < chars.length; i++) {
            chars[i] = Character.toLowerCase(chars[i]);
        }
        return new String(chars);
    }

    private static long prefixBits(String words) {
        long bits = 0;
        for (String w : words.toLowerCase(Locale.ROOT).split("\\s+")) {
            bits |= PREFIXES.getOrDefault(w, 0L);
        }
        return bits;
    }

    /** The statement of one instruction, or null when the text holds prefixes only. */
    private AsmStatement statement(String text, int line, int column, long pending, long address) {
        String lower = sameLengthLowerCase(text);
        int pos = 0;
        long prefixes = pending;
        while (true) {
            int end = wordEnd(lower, pos);
            String word = lower.substring(pos, end);
            if (!PREFIXES.containsKey(word)) {
                break;
            }
            // "cs" or "fs" alone as the first word is a prefix; as a mnemonic there is none of those names.
            prefixes |= PREFIXES.get(word);
            pos = skipSpace(lower, end);
            if (pos >= lower.length()) {
                return null;
            }
        }
        int end = wordEnd(lower, pos);
        String mnemonic = lower.substring(pos, end);
        if (!mnemonic.matches("[a-z][a-z0-9_]*")) {
            throw new AssemblyException(line, column + pos, "expected a mnemonic, found '" + text.substring(pos,
                    end) + "'");
        }
        int opStart = skipSpace(lower, end);
        List<Operand> operands = new ArrayList<>();
        List<int[]> spans = split(lower, opStart, line, column);
        for (int[] span : spans) {
            String op = text.substring(span[0], span[1]).strip();
            int opColumn = column + span[0] + (text.substring(span[0], span[1]).indexOf(op.isEmpty() ? " " : op));
            if (op.isEmpty()) {
                throw new AssemblyException(line, opColumn, "empty operand");
            }
            operands.add(syntax == Assembly.Syntax.ATT ? att(op, mnemonic, line, opColumn, address)
                    : intel(op, mnemonic, line, opColumn, address));
        }
        if (syntax == Assembly.Syntax.ATT && operands.size() > 1 && !keepsAttOrder(mnemonic)) {
            java.util.Collections.reverse(operands);
            mnemonic = attX87Reversal(mnemonic, operands);
        }
        return new AsmStatement(line, column + pos, prefixes, mnemonic, operands, "", address);
    }

    /**
     * AT&T's historical quirk (kept by gas and llvm): with a destination {@code st(i)} other than {@code st}, the
     * register forms of {@code fsub}/{@code fsubr} and {@code fdiv}/{@code fdivr} (and their pops) swap names.
     */
    private static String attX87Reversal(String mnemonic, List<Operand> operands) {
        if (!(mnemonic.startsWith("fsub") || mnemonic.startsWith("fdiv")) || !(operands.get(0) instanceof Reg r)
                || !r.register().name().startsWith("st") || r.register().name().equals("st0")) {
            return mnemonic;
        }
        String op = mnemonic.substring(0, 4);
        String rest = mnemonic.substring(4);
        return switch (rest) {
            case "" -> op + "r";
            case "r" -> op;
            case "p" -> op + "rp";
            case "rp" -> op + "p";
            default -> mnemonic;
        };
    }

    /** AT&T keeps Intel's order for instructions whose operands are all immediates ({@code enter $8, $0}). */
    private static boolean keepsAttOrder(String mnemonic) {
        return mnemonic.startsWith("enter");
    }

    private static int wordEnd(String s, int from) {
        int i = from;
        while (i < s.length() && !Character.isWhitespace(s.charAt(i))) {
            i++;
        }
        return i;
    }

    private static int skipSpace(String s, int from) {
        int i = from;
        while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
            i++;
        }
        return i;
    }

    /** Splits an operand list at commas outside brackets, parentheses and braces. */
    private static List<int[]> split(String s, int from, int line, int column) {
        List<int[]> spans = new ArrayList<>();
        if (from >= s.length()) {
            return spans;
        }
        int depth = 0;
        int start = from;
        for (int i = from; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '[' || c == '(' || c == '{') {
                depth++;
            } else if (c == ']' || c == ')' || c == '}') {
                depth--;
                if (depth < 0) {
                    throw new AssemblyException(line, column + i, "unbalanced '" + c + "'");
                }
            } else if (c == ',' && depth == 0) {
                spans.add(new int[] {start, i});
                start = i + 1;
            }
        }
        if (depth != 0) {
            throw new AssemblyException(line, column + s.length(), "unclosed bracket or parenthesis");
        }
        spans.add(new int[] {start, s.length()});
        return spans;
    }

    static boolean isBranch(String mnemonic) {
        return mnemonic.startsWith("j") || mnemonic.startsWith("call") || mnemonic.startsWith("loop")
                || mnemonic.equals("xbegin");
    }

    private Register register(String name) {
        String n = name.toLowerCase(Locale.ROOT).replace(" ", "");
        if (n.equals("riz") || n.equals("eiz")) {
            return Register.NONE;  // llvm's name for "no index" in a SIB byte
        }
        if (n.equals("st")) {
            n = "st0";
        } else if (n.startsWith("st(") && n.endsWith(")")) {
            n = "st" + n.substring(3, n.length() - 1);
        }
        return zydis.registerOrNull(n);
    }

    // ---------------------------------------------------------------- Intel

    private Operand intel(String op, String mnemonic, int line, int column, long address) {
        String s = op.toLowerCase(Locale.ROOT).strip();
        if (s.startsWith("[") && s.endsWith("]") && PTR.matcher(s.substring(1)).find()) {
            s = s.substring(1, s.length() - 1).strip();  // gcc's "call [QWORD PTR 24[rax]]"
        }
        if (s.startsWith("{") || s.contains("{")) {
            throw new AssemblyException(line, column, "AVX-512 decorations ('" + op + "') are not supported");
        }
        int size = 0;
        Matcher ptr = PTR.matcher(s);
        if (ptr.find()) {
            Integer bytes = SIZE_WORDS.get(ptr.group(1));
            if (bytes == null) {
                throw new AssemblyException(line, column, "unknown operand size '" + ptr.group(1) + " ptr'");
            }
            size = bytes;
            s = s.substring(ptr.end()).strip();
        }
        if (s.startsWith("offset ")) {
            s = s.substring(7).strip();
            if (s.startsWith("flat:")) {
                s = s.substring(5);
            }
            return new Imm(symbolOffset(s, line, column));
        }
        Register segment = Register.NONE;
        Matcher seg = SEGMENT.matcher(s);
        if (seg.find() && register(seg.group(1)) != null) {
            segment = register(seg.group(1));
            s = s.substring(seg.end());
        }
        int bracket = s.indexOf('[');
        if (bracket >= 0) {
            if (!s.endsWith("]")) {
                throw new AssemblyException(line, column, "text after ']' in '" + op + "'");
            }
            String symbol = s.substring(0, bracket).strip();  // gcc's "x[rip]", "x+8[rip]"
            Mem m = intelAddress(s.substring(bracket + 1, s.length() - 1), op, line, column);
            long extra = symbol.isEmpty() ? 0 : symbolOffset(symbol, line, column);
            return new Mem(segment, m.base(), m.index(), m.scale(), m.displacement() + extra, size);
        }
        Register r = register(s);
        if (r != null && segment == Register.NONE && size == 0) {
            return new Reg(r);
        }
        Long value = number(s);
        if (value == null && (segment.isPresent() || size > 0)
                && SYMBOL_NAME.matcher(s.replaceFirst("[+-]\\w+$", "")).matches()) {
            value = symbolOffset(s, line, column);  // gcc's "DWORD PTR fs:tls@tpoff", "QWORD PTR x+8"
        }
        if (segment.isPresent() || size > 0) {
            if (value == null) {
                throw new AssemblyException(line, column, "cannot read the address '" + op + "'");
            }
            return new Mem(segment, Register.NONE, Register.NONE, 0, value, size);  // objdump's "fs:0x28"
        }
        if (isBranch(mnemonic)) {
            if (address >= 0 && s.matches("(0x)?[0-9a-f]+")) {
                return new Target(hexOrNumber(s), null, true);
            }
            if (value != null) {
                // A listing prints targets as absolute addresses, in hex even without "0x".
                return address >= 0 ? new Target(hexOrNumber(s), null, true) : new Target(value, null, false);
            }
            if (s.matches("[a-z_.$@][\\w.$@]*(@plt)?")) {
                return new Target(0, op.strip().replaceFirst("(?i)@plt$", ""), false);  // labels keep their case
            }
            if (s.matches("\\d+[bf]")) {
                return new Target(0, s, false);  // gas' local label "1b" (the last "1:" before), "1f" (the next)
            }
        }
        if (value != null) {
            return new Imm(value);
        }
        throw new AssemblyException(line, column, "cannot read the operand '" + op + "'");
    }

    private Mem intelAddress(String inside, String op, int line, int column) {
        Register base = Register.NONE;
        Register index = Register.NONE;
        int scale = 0;
        long disp = 0;
        String s = inside.replace(" ", "").replace("\t", "");
        if (s.isEmpty()) {
            throw new AssemblyException(line, column, "empty address in '" + op + "'");
        }
        int i = 0;
        while (i < s.length()) {
            int sign = 1;
            char c = s.charAt(i);
            if (c == '+' || c == '-') {
                sign = c == '-' ? -1 : 1;
                i++;
            }
            int j = i;
            while (j < s.length() && s.charAt(j) != '+' && s.charAt(j) != '-') {
                j++;
            }
            String term = s.substring(i, j);
            i = j;
            if (term.isEmpty()) {
                throw new AssemblyException(line, column, "cannot read the address '" + op + "'");
            }
            int star = term.indexOf('*');
            if (star >= 0) {
                String a = term.substring(0, star);
                String b = term.substring(star + 1);
                Register r = register(a) != null ? register(a) : register(b);
                Long k = number(register(a) != null ? b : a);
                if (r == null || k == null || sign < 0) {
                    throw new AssemblyException(line, column, "cannot read the scaled index '" + term + "' in '"
                            + op + "'");
                }
                index = r;
                scale = checkedScale(k, op, line, column);
                continue;
            }
            Register r = register(term);
            if (r != null && sign > 0) {
                if (!base.isPresent()) {
                    base = r;
                } else if (!index.isPresent()) {
                    index = r;
                    scale = 1;
                } else {
                    throw new AssemblyException(line, column, "three registers in the address '" + op + "'");
                }
                continue;
            }
            Long value = number(term);
            if (value == null && sign > 0 && SYMBOL_NAME.matcher(term).matches()) {
                value = SYMBOL;  // "[rip + .LC0]", "[rip + x@GOTPCREL]"
            }
            if (value == null) {
                throw new AssemblyException(line, column, "cannot read '" + term + "' in the address '" + op + "'");
            }
            disp += sign * value;
        }
        return new Mem(Register.NONE, base, index, scale, disp, 0);
    }

    private static int checkedScale(long k, String op, int line, int column) {
        if (k != 1 && k != 2 && k != 4 && k != 8) {
            throw new AssemblyException(line, column, "scale " + k + " in '" + op + "' is not 1, 2, 4 or 8");
        }
        return (int) k;
    }

    /**
     * What stands for a symbol's address, which this text does not give: a value that needs the 32 bits an
     * assembler leaves for the symbol's relocation, so that the instruction has the length it will have.
     */
    static final long SYMBOL = 0x1000_0000L;
    private static final Pattern LEADING_NUMBER = Pattern.compile("(\\d+|0x[0-9a-f]+)\\+([a-z_.$].*)");
    private static final Pattern SYMBOL_NAME = Pattern.compile("[a-z_.$][\\w.$]*(@[a-z]+)?");

    /** A displacement or immediate that may name a symbol: "-24", "x", "x+8" (the symbol stands as {@link #SYMBOL}). */
    private static long symbolOffset(String symbol, int line, int column) {
        Long whole = number(symbol);
        if (whole != null) {
            return whole;  // gcc -masm=intel's "DWORD PTR -24[rbp]"
        }
        Matcher lead = LEADING_NUMBER.matcher(symbol);
        if (lead.matches()) {  // gcc's "8+log_gzhead(%rip)"
            Long offset = number(lead.group(1));
            if (offset == null) {
                throw new AssemblyException(line, column, "the number '" + lead.group(1) + "' in '" + symbol
                        + "' does not fit in 64 bits");
            }
            return offset + symbolOffset(lead.group(2), line, column);
        }
        int plus = Math.max(symbol.lastIndexOf('+'), symbol.lastIndexOf('-'));
        if (plus > 0) {
            Long v = number(symbol.substring(plus + 1));
            if (v != null) {
                return SYMBOL + (symbol.charAt(plus) == '-' ? -v : v);
            }
        }
        return SYMBOL;
    }

    /** A number: decimal, 0x hex, or hex with an h suffix; negative with '-'. Null when it is none. */
    static Long number(String text) {
        String s = text.strip().toLowerCase(Locale.ROOT);
        boolean negative = false;
        if (s.startsWith("-")) {
            negative = true;
            s = s.substring(1).strip();
        } else if (s.startsWith("+")) {
            s = s.substring(1).strip();
        }
        try {
            long v;
            if (s.startsWith("0x")) {
                v = Long.parseUnsignedLong(s.substring(2), 16);
            } else if (s.endsWith("h") && s.length() > 1 && Character.isDigit(s.charAt(0))) {
                v = Long.parseUnsignedLong(s.substring(0, s.length() - 1), 16);
            } else if (s.matches("\\d+")) {
                v = Long.parseUnsignedLong(s);
            } else {
                return null;
            }
            return negative ? -v : v;
        } catch (NumberFormatException e) {
            return null;
        }
    }

    private static long hexOrNumber(String s) {
        String t = s.strip().toLowerCase(Locale.ROOT);
        if (t.matches("[0-9a-f]{1,16}")) {
            return Long.parseUnsignedLong(t, 16);
        }
        Long v = number(t);
        return v == null ? 0 : v;
    }

    // ---------------------------------------------------------------- AT&T

    private static final Pattern ATT_MEMORY = Pattern.compile(
            "^(?:%([a-z]s)\\s*:)?\\s*([^(]*?)\\s*(?:\\((.*)\\))?$");

    private Operand att(String op, String mnemonic, int line, int column, long address) {
        String s = op.toLowerCase(Locale.ROOT).strip();
        if (s.contains("{")) {
            throw new AssemblyException(line, column, "AVX-512 decorations ('" + op + "') are not supported");
        }
        if (s.startsWith("*")) {
            s = s.substring(1).strip();  // indirect branch
        } else if (isBranch(mnemonic) && !s.startsWith("%") && !s.startsWith("$") && !s.contains("(")) {
            if (address >= 0 && s.matches("(0x)?[0-9a-f]+")) {
                return new Target(hexOrNumber(s), null, true);  // a listing's absolute target, hex
            }
            Long value = number(s);
            if (value != null) {
                return address >= 0 ? new Target(hexOrNumber(s), null, true) : new Target(value, null, false);
            }
            if (s.matches("[a-z_.$@][\\w.$@]*(@plt)?")) {
                return new Target(0, op.strip().replaceFirst("(?i)@plt$", ""), false);  // labels keep their case
            }
            if (s.matches("\\d+[bf]")) {
                return new Target(0, s, false);  // gas' local label "1b" (the last "1:" before), "1f" (the next)
            }
        }
        if (s.startsWith("$")) {
            String v = s.substring(1).strip();
            Long value = number(v);
            if (value == null && !v.matches("[a-z_.$@][\\w.$@+\\-]*")) {
                throw new AssemblyException(line, column, "cannot read the immediate '" + op + "'");
            }
            return new Imm(value == null ? symbolOffset(v, line, column) : value);
        }
        if (s.startsWith("%") && !s.contains(":") && !s.contains("(") || s.startsWith("%st(")) {
            Register r = register(s.substring(1));
            if (r == null) {
                throw new AssemblyException(line, column, "unknown register '" + op + "'");
            }
            return new Reg(r);
        }
        Matcher m = ATT_MEMORY.matcher(s);
        if (!m.matches()) {
            throw new AssemblyException(line, column, "cannot read the operand '" + op + "'");
        }
        Register segment = Register.NONE;
        if (m.group(1) != null) {
            segment = register(m.group(1));
            if (segment == null) {
                throw new AssemblyException(line, column, "unknown segment in '" + op + "'");
            }
        }
        long disp = 0;
        String d = m.group(2);
        if (!d.isEmpty()) {
            Long value = number(d);
            if (value == null) {
                if (!d.matches("(\\d+\\+)?[a-z_.$@][\\w.$@+\\-]*(@[a-z]+)?")) {
                    throw new AssemblyException(line, column, "cannot read the displacement '" + d + "' in '" + op
                            + "'");
                }
                value = symbolOffset(d, line, column);  // "x+8(%rip)": the symbol's place is unknown here
            }
            disp = value;
        }
        Register base = Register.NONE;
        Register index = Register.NONE;
        int scale = 0;
        if (m.group(3) != null) {
            String[] parts = m.group(3).split(",", -1);
            if (parts.length > 3) {
                throw new AssemblyException(line, column, "cannot read the address '" + op + "'");
            }
            base = attRegister(parts[0], op, line, column);
            if (parts.length > 1) {
                index = attRegister(parts[1], op, line, column);
                scale = 1;
            }
            if (parts.length > 2) {
                Long k = number(parts[2]);
                if (k == null) {
                    throw new AssemblyException(line, column, "cannot read the scale in '" + op + "'");
                }
                scale = checkedScale(k, op, line, column);
            }
        } else if (d.isEmpty()) {
            throw new AssemblyException(line, column, "cannot read the operand '" + op + "'");
        }
        return new Mem(segment, base, index, scale, disp, 0);
    }

    private Register attRegister(String text, String op, int line, int column) {
        String t = text.strip();
        if (t.isEmpty()) {
            return Register.NONE;
        }
        Register r = t.startsWith("%") ? register(t.substring(1)) : null;
        if (r == null) {
            throw new AssemblyException(line, column, "unknown register '" + t + "' in '" + op + "'");
        }
        return r;
    }
}
