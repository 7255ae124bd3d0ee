package dev.basalt.decoder;

import dev.basalt.decoder.AsmParser.Item;
import dev.basalt.decoder.AsmParser.Label;
import dev.basalt.decoder.AsmParser.Separator;
import dev.basalt.decoder.AsmParser.Statement;
import dev.basalt.decoder.AsmStatement.Operand;
import dev.basalt.decoder.AsmStatement.Target;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Assembly text in, machine code out, with no assembler: each instruction is parsed here and encoded by Zydis'
 * encoder. Reads Intel syntax (as {@code objdump -M intel}, {@code llvm-mc} and {@code gcc -masm=intel -S}
 * print it) and AT&T syntax ({@code gcc -S}, {@code objdump}'s default); skips comments, directives and the
 * address and bytes columns of listings; labels and blank lines separate blocks.
 *
 * <p>Branches: a number is a displacement from the next instruction (as {@code llvm-mc} prints it), or an
 * absolute address on a listing line with an address column ({@code objdump -d}); a label defined in the text
 * resolves to its place, laid out from address 0 (short while in reach, else near, never back); a name not
 * in the text (a call to {@code printf@PLT}) gets a 32-bit displacement of 0, as an assembler leaves a
 * relocation; a symbol in an operand stands as {@code 0x10000000}, which also takes 32 bits.
 * Zydis picks the shortest encoding, so an instruction the original code encoded longer (a
 * 32-bit displacement that fits in 8 bits) comes back shorter: the same instruction, a different length.
 *
 * <pre>{@code
 * List<Assembly.Block> blocks = Assembly.parse("add rax, rbx\nimul rax, rax", Assembly.Syntax.INTEL);
 * BasicBlock block = blocks.get(0).basicBlock();    // 4801d8 480fafc0
 * }</pre>
 */
public final class Assembly {

    /** The two syntaxes of x86 assembly. */
    public enum Syntax {
        INTEL, ATT;

        private static final Pattern ATT_MARKS = Pattern.compile("%[a-z]|\\$-?(0x)?[0-9a-fA-F]|\\$[A-Za-z_.]");

        /**
         * AT&T when an instruction line has {@code %}-registers or {@code $}-immediates, else Intel. Directives,
         * comments and strings are not looked at ({@code .string "%ld"} is no register).
         */
        public static Syntax detect(String text) {
            for (String line : text.split("\\R")) {
                String t = line.strip();
                int hash = t.indexOf('#');
                if (hash >= 0) {
                    t = t.substring(0, hash);
                }
                if (t.startsWith(".") || t.contains("\"")) {
                    continue;
                }
                if (ATT_MARKS.matcher(t).find()) {
                    return ATT;
                }
            }
            return INTEL;
        }
    }

    /**
     * One block of the text: the machine code of consecutive instructions between labels or blank lines.
     *
     * @param firstLine the line of its first instruction (from 1)
     * @param lastLine  the line of its last instruction
     * @param label     the label before it, or empty
     * @param bytes     its machine code
     */
    public record Block(int firstLine, int lastLine, String label, byte[] bytes) {

        public Block {
            bytes = bytes.clone();
        }

        @Override
        public byte[] bytes() {
            return bytes.clone();
        }

        /** The machine code as lower-case hex. */
        public String hex() {
            return Hex.format(bytes);
        }

        /** The decoded block. */
        public BasicBlock basicBlock() {
            return BasicBlock.fromBytes(bytes);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Block b && b.firstLine == firstLine && b.lastLine == lastLine
                    && b.label.equals(label) && java.util.Arrays.equals(b.bytes, bytes);
        }

        @Override
        public int hashCode() {
            return java.util.Objects.hash(firstLine, lastLine, label, java.util.Arrays.hashCode(bytes));
        }

        @Override
        public String toString() {
            return "Block[lines " + firstLine + "-" + lastLine + (label.isEmpty() ? "" : ", " + label) + ": "
                    + hex() + "]";
        }
    }

    private Assembly() {
    }

    /**
     * The blocks of {@code text} (none for text without instructions).
     *
     * @throws AssemblyException naming the line and column of the first statement that cannot be read or encoded
     * @throws ZydisUnavailableException when the Zydis library cannot be loaded
     */
    public static List<Block> parse(String text, Syntax syntax) {
        List<Item> items = new AsmParser(syntax).parse(text);
        List<AsmStatement> statements = new ArrayList<>();
        List<Integer> blockOf = new ArrayList<>();
        List<String> blockLabels = new ArrayList<>();
        Map<String, Integer> labels = new HashMap<>();  // label → index of the statement it precedes
        Map<String, List<Integer>> local = new HashMap<>();  // "1" → every place "1:" is defined, in order
        int block = -1;
        boolean open = false;
        String pendingLabel = "";
        for (Item item : items) {
            if (item instanceof Label l) {
                // gas' numeric local labels ("1:") may be defined again; other names only once
                if (labels.put(l.name(), statements.size()) != null && !l.name().matches("\\d+")) {
                    throw new AssemblyException(l.line(), 1, "label '" + l.name() + "' is already defined");
                }
                if (l.name().matches("\\d+")) {
                    local.computeIfAbsent(l.name(), k -> new ArrayList<>()).add(statements.size());
                }
                open = false;
                if (pendingLabel.isEmpty() || pendingLabel.startsWith(".L") && !l.name().startsWith(".L")) {
                    pendingLabel = l.name();  // "dot:", not gcc's local ".LFE11:" before it or ".LFB11:" after
                }
            } else if (item instanceof Separator) {
                open = false;
            } else if (item instanceof Statement st) {
                if (!open) {
                    block++;
                    open = true;
                    blockLabels.add(pendingLabel);
                    pendingLabel = "";
                }
                statements.add(st.statement());
                blockOf.add(block);
            }
        }
        resolveLocalLabels(statements, labels, local);
        byte[][] code = layout(statements, labels);
        List<Block> blocks = new ArrayList<>();
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        int first = -1;
        for (int i = 0; i < statements.size(); i++) {
            if (first < 0) {
                first = i;
            }
            bytes.writeBytes(code[i]);
            if (i + 1 == statements.size() || !blockOf.get(i + 1).equals(blockOf.get(i))) {
                blocks.add(new Block(statements.get(first).line(), statements.get(i).line(),
                        blockLabels.get(blockOf.get(i)), bytes.toByteArray()));
                bytes.reset();
                first = -1;
            }
        }
        return blocks;
    }

    /**
     * Encodes every statement. A branch to a place (a label of the text, a listing's address) starts short and
     * becomes near when its target is out of an 8-bit displacement's reach, never back; the rounds end when no
     * branch changes, so every displacement is computed from the final lengths (at most one round per branch).
     */
    private static byte[][] layout(List<AsmStatement> statements, Map<String, Integer> labels) {
        AsmEncoder encoder = new AsmEncoder();
        int n = statements.size();
        byte[][] code = new byte[n][];
        int[] width = new int[n];
        for (int i = 0; i < n; i++) {
            AsmStatement s = statements.get(i);
            if (!isBranchToPlace(s) || label(s) != null && !labels.containsKey(label(s))) {
                code[i] = encoder.encode(s);
            } else {
                width[i] = 8;
                code[i] = new byte[2];  // a short branch's length, until the first round places it
            }
        }
        for (int round = 0; ; round++) {
            if (round > n + 1) {
                throw new AssemblyException(statements.get(0).line(), 1, "branch lengths did not settle");
            }
            long[] address = new long[n + 1];
            for (int i = 0; i < n; i++) {
                address[i + 1] = address[i] + code[i].length;
            }
            boolean changed = false;
            for (int i = 0; i < n; i++) {
                if (width[i] == 0) {
                    continue;
                }
                AsmStatement s = statements.get(i);
                long at = s.address() >= 0 ? s.address() : address[i];
                long target = label(s) != null ? address[labels.get(label(s))] : absoluteTarget(s);
                byte[] placed;
                try {
                    placed = encoder.encode(s, new AsmEncoder.Placement(at, target, width[i]));
                } catch (AssemblyException outOfReach) {
                    if (width[i] != 8) {
                        throw outOfReach;
                    }
                    width[i] = 32;
                    placed = encoder.encode(s, new AsmEncoder.Placement(at, target, 32));
                }
                changed |= placed.length != code[i].length;
                code[i] = placed;
            }
            if (!changed) {
                return code;
            }
        }
    }

    /**
     * Points each branch to a local label ({@code 1b}: the last {@code 1:} at or before it; {@code 1f}: the next one
     * after it) at a name of its own for that definition ("1@7": the label before statement 7, a name no text can
     * define), entered in {@code labels}.
     */
    private static void resolveLocalLabels(List<AsmStatement> statements, Map<String, Integer> labels,
                                           Map<String, List<Integer>> local) {
        for (int i = 0; i < statements.size(); i++) {
            AsmStatement s = statements.get(i);
            String ref = label(s);
            if (ref == null || !ref.matches("\\d+[bf]")) {
                continue;
            }
            String name = ref.substring(0, ref.length() - 1);
            boolean back = ref.endsWith("b");
            Integer at = null;
            for (int p : local.getOrDefault(name, List.of())) {
                if (back && p <= i) {
                    at = p;
                } else if (!back && p > i && at == null) {
                    at = p;
                }
            }
            if (at == null) {
                throw new AssemblyException(s.line(), s.column(), "no label '" + name + ":' " + (back ? "before"
                        : "after") + " this line for '" + ref + "'");
            }
            String unique = name + "@" + at;
            labels.put(unique, at);
            List<Operand> ops = s.operands().stream()
                    .map(o -> o instanceof Target t && ref.equals(t.label()) ? new Target(0, unique, false) : o)
                    .toList();
            statements.set(i, new AsmStatement(s.line(), s.column(), s.prefixes(), s.mnemonic(), ops, s.suffix(),
                    s.address()));
        }
    }

    private static long absoluteTarget(AsmStatement s) {
        for (Operand o : s.operands()) {
            if (o instanceof Target t && t.absolute()) {
                return t.value();
            }
        }
        throw new IllegalStateException("no absolute target in " + s);
    }

    private static boolean isBranchToPlace(AsmStatement s) {
        for (Operand o : s.operands()) {
            if (o instanceof Target t && (t.absolute() || t.label() != null)) {
                return true;
            }
        }
        return false;
    }

    private static String label(AsmStatement s) {
        for (Operand o : s.operands()) {
            if (o instanceof Target t && t.label() != null) {
                return t.label();
            }
        }
        return null;
    }

    private static boolean hasLabel(AsmStatement s, Map<String, Integer> labels) {
        String l = label(s);
        return l != null && labels.containsKey(l);
    }
}
