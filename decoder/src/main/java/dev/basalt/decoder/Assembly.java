package dev.basalt.decoder;

import dev.basalt.decoder.AsmParser.Directive;
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
     * One block of the text: the machine code of consecutive instructions as a compiler and an assembler see a
     * basic block — it ends after every branch, call or return and before every branch target — or one llvm-mca
     * region whole.
     *
     * @param firstLine the line of its first instruction (from 1)
     * @param lastLine  the line of its last instruction
     * @param label     the label before it, or empty
     * @param bytes     its machine code (with the alignment padding an assembler puts in it, as in the object file)
     * @param function  the symbol it lies in ({@code main}, a listing's {@code <main>}), or empty
     * @param offset    its address from that symbol's (or in its section, when there is no symbol)
     * @param region    the name of the llvm-mca region it is ({@code # LLVM-MCA-BEGIN name}), or null when none
     * @param loop      whether its last instruction branches back to its first: a loop of one block
     */
    public record Block(int firstLine, int lastLine, String label, byte[] bytes, String function, long offset,
                        String region, boolean loop) {

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

        /**
         * Where it comes from, for a person: {@code lines 11-17, .L3, dot+0x10, region "x", a loop}; the parts that
         * are known.
         */
        public String source() {
            StringBuilder b = new StringBuilder(firstLine == lastLine ? "line " + firstLine
                    : "lines " + firstLine + "-" + lastLine);
            if (!label.isEmpty()) {
                b.append(", ").append(label);
            }
            if (!function.isEmpty() && !function.equals(label)) {
                b.append(", ").append(function).append(offset == 0 ? "" : "+0x" + Long.toHexString(offset));
            } else if (!function.isEmpty() && offset != 0) {
                b.append("+0x").append(Long.toHexString(offset));
            }
            if (region != null) {
                b.append(", region \"").append(region).append('"');
            }
            if (loop) {
                b.append(", a loop");
            }
            return b.toString();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Block b && b.firstLine == firstLine && b.lastLine == lastLine
                    && b.label.equals(label) && java.util.Arrays.equals(b.bytes, bytes) && b.function.equals(function)
                    && b.offset == offset && java.util.Objects.equals(b.region, region) && b.loop == loop;
        }

        @Override
        public int hashCode() {
            return java.util.Objects.hash(firstLine, lastLine, label, java.util.Arrays.hashCode(bytes), function,
                    offset, region, loop);
        }

        @Override
        public String toString() {
            return "Block[" + source() + ": " + hex() + "]";
        }
    }

    /**
     * The code of one symbol as an object file holds it: from its label to the next symbol's (or its section's
     * end), with the alignment padding gas would put in it, so that {@link ControlFlow} cuts it as it cuts the
     * object file's function.
     *
     * @param name    the symbol, or empty for code before any symbol
     * @param section its section
     * @param address its address: in its section, or a listing's address
     * @param bytes   its machine code
     */
    public record Function(String name, String section, long address, byte[] bytes) {

        public Function {
            bytes = bytes.clone();
        }

        @Override
        public byte[] bytes() {
            return bytes.clone();
        }
    }

    /** A text's functions (its code as an object file holds it) and its blocks. */
    public record Program(List<Function> functions, List<Block> blocks) {

        public Program {
            functions = List.copyOf(functions);
            blocks = List.copyOf(blocks);
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
        return assemble(text, syntax).blocks();
    }

    /**
     * The functions and blocks of {@code text}. Blocks are cut as in an object file (see {@link ControlFlow}):
     * after each branch, call and return, at each branch target and symbol; a blank line also ends one (hand-written
     * blocks), a comment does not; an llvm-mca region ({@code # LLVM-MCA-BEGIN name} … {@code # LLVM-MCA-END}) is one
     * block whatever it holds, as llvm-mca analyzes it. Alignment padding is gas' NOPs: in the block before it when
     * that block runs into it, else a block of its own, left out of the blocks (it is no code of the text's).
     *
     * @throws AssemblyException naming the line and column of the first statement that cannot be read or encoded
     */
    public static Program assemble(String text, Syntax syntax) {
        List<Item> items = new AsmParser(syntax).parse(text);
        List<AsmStatement> statements = new ArrayList<>();
        List<byte[]> listed = new ArrayList<>();
        Map<String, Integer> labels = new HashMap<>();  // label → index of the statement it precedes
        Map<String, List<Integer>> local = new HashMap<>();  // "1" → every place "1:" is defined, in order
        Map<Integer, String> labelAt = new HashMap<>();  // statement → the label a person would call it by
        Map<Integer, String> symbolAt = new HashMap<>();  // statement → the symbol that starts there
        Map<String, Long> symbolAddress = new HashMap<>();
        java.util.Set<Integer> breaks = new java.util.HashSet<>();  // statements a blank line or a section starts
        List<Integer> regionOf = new ArrayList<>();  // statement → its region's number, -1 outside
        List<String> regionNames = new ArrayList<>();
        Placing placing = new Placing();
        boolean open = false;
        String pendingLabel = "";
        String pendingSymbol = null;
        int region = -1;
        int regionLine = 0;
        for (Item item : items) {
            if (item instanceof Directive d) {
                open &= !placing.apply(d);  // code in another section is not the block's next instruction
            } else if (item instanceof Label l) {
                placing.label(l.name());
                // gas' numeric local labels ("1:") may be defined again; other names only once
                if (labels.put(l.name(), statements.size()) != null && !l.name().matches("\\d+")) {
                    throw new AssemblyException(l.line(), 1, "label '" + l.name() + "' is already defined");
                }
                if (l.name().matches("\\d+")) {
                    local.computeIfAbsent(l.name(), k -> new ArrayList<>()).add(statements.size());
                }
                if (isSymbol(l.name())) {
                    pendingSymbol = l.name();
                    if (l.address() >= 0) {
                        symbolAddress.put(l.name(), l.address());  // a listing's "0000000000001139 <main>:"
                    }
                }
                if (pendingLabel.isEmpty() || pendingLabel.startsWith(".L") && !l.name().startsWith(".L")) {
                    pendingLabel = l.name();  // "dot:", not gcc's local ".LFE11:" before it or ".LFB11:" after
                }
            } else if (item instanceof Separator) {
                open = false;
            } else if (item instanceof AsmParser.Region r) {
                if (r.begin() && region >= 0) {
                    throw new AssemblyException(r.line(), 1, "LLVM-MCA-BEGIN inside the region begun on line "
                            + regionLine + " (regions do not nest)");
                }
                if (r.begin()) {
                    region = regionNames.size();
                    regionNames.add(r.name());
                } else {
                    region = -1;
                }
                regionLine = r.line();
                open = false;
            } else if (item instanceof Statement st) {
                if (st.statement().mnemonic().startsWith(".") && !placing.inCode()) {
                    continue;  // data in a data section: no code
                }
                int index = statements.size();
                if (!open) {
                    breaks.add(index);
                    open = true;
                }
                if (!pendingLabel.isEmpty()) {
                    labelAt.put(index, pendingLabel);
                }
                if (pendingSymbol != null) {
                    symbolAt.put(index, pendingSymbol);
                }
                pendingLabel = "";
                pendingSymbol = null;
                statements.add(st.statement());
                listed.add(st.listed());
                regionOf.add(region);
                placing.statement();
            }
        }
        resolveLocalLabels(statements, labels, local);
        int n = statements.size();
        byte[][] code = layout(statements, labels, placing, listed);
        long[] address = placing.addresses(code);
        boolean listing = n > 0 && statements.stream().allMatch(st -> st.address() >= 0);
        if (listing) {
            for (int i = 0; i < n; i++) {
                address[i] = statements.get(i).address();
            }
        }
        // Each symbol's code, padding included, as in the object file; statement i lies at pieceOf[i], offsetOf[i].
        List<Piece> pieces = new ArrayList<>();
        Map<String, Piece> current = new HashMap<>();
        int[] pieceOf = new int[n];
        int[] offsetOf = new int[n];
        for (int i = 0; i < n; i++) {
            String section = listing ? "" : placing.sectionOf.get(i);
            Piece p = current.get(section);
            long gap = p == null ? 0 : address[i] - p.end();
            // padding is materialized as gas' NOPs up to 64 KiB; a larger alignment (.p2align 30) starts the code
            // after it anew rather than filling a gigabyte
            if (p == null || symbolAt.containsKey(i) || gap < 0 || gap > 0 && listing || gap > MAX_PADDING) {
                String name = symbolAt.getOrDefault(i, p == null ? "" : p.name);
                p = new Piece(name, section, address[i],
                        symbolAt.containsKey(i) ? symbolAddress.getOrDefault(name, address[i]) : p == null ? address[i]
                        : p.base);
                pieces.add(p);
                current.put(section, p);
            } else if (gap > 0) {
                p.pad((int) gap, i);
            }
            pieceOf[i] = pieces.indexOf(p);
            offsetOf[i] = p.bytes.size();
            p.add(i, code[i]);
        }
        List<Function> functions = pieces.stream().map(Piece::function).toList();
        // blocks: cut as the object file's are, and where the text cuts them; a region is one block
        List<Block> blocks = new ArrayList<>();
        List<Integer> blockStart = new ArrayList<>();
        for (int pi = 0; pi < pieces.size(); pi++) {
            Piece p = pieces.get(pi);
            java.util.Set<Integer> leaders = new java.util.HashSet<>();
            for (int k = 0; k < p.statements.size(); k++) {
                int i = p.statements.get(k);
                boolean regionBound = i > 0 && !regionOf.get(i).equals(regionOf.get(i - 1));
                if (breaks.contains(i) || regionBound || labelAt.containsKey(i) && !listing
                        && isSymbol(labelAt.get(i))) {
                    leaders.add(offsetOf[i]);
                }
            }
            ControlFlow flow = ControlFlow.of(p.bytes.toByteArray(), p.address, java.util.Set.of(), leaders);
            for (ControlFlow.Block cb : flow.blocks()) {
                int from = (int) (cb.address() - p.address);
                int to = from + cb.block().bytes().length;
                List<Integer> inside = new ArrayList<>();
                for (int k = 0; k < p.statements.size(); k++) {
                    int off = p.offsets.get(k);
                    if (off >= from && off < to) {
                        inside.add(p.statements.get(k));
                    }
                }
                if (inside.isEmpty()) {
                    continue;  // alignment padding after a branch: no code of the text's
                }
                int first = inside.get(0);
                int last = inside.get(inside.size() - 1);
                blocks.add(new Block(statements.get(first).line(), statements.get(last).line(),
                        labelAt.getOrDefault(first, ""), cb.block().bytes(), p.name,
                        cb.address() - (p.name.isEmpty() ? 0 : p.base),
                        regionOf.get(first) < 0 ? null : regionNames.get(regionOf.get(first)), cb.isSelfLoop()));
                blockStart.add(first);
            }
        }
        // text order; then each region's blocks made one
        Integer[] order = new Integer[blocks.size()];
        for (int k = 0; k < order.length; k++) {
            order[k] = k;
        }
        java.util.Arrays.sort(order, java.util.Comparator.comparingInt(blockStart::get));
        List<Block> ordered = new ArrayList<>();
        int lastStart = 0;
        for (int k : order) {
            Block b = blocks.get(k);
            Block before = ordered.isEmpty() ? null : ordered.get(ordered.size() - 1);
            int id = regionOf.get(blockStart.get(k));
            if (id >= 0 && before != null && id == regionOf.get(ordered.size() == 0 ? 0 : lastStart)) {
                ByteArrayOutputStream joined = new ByteArrayOutputStream();
                joined.writeBytes(before.bytes);
                joined.writeBytes(b.bytes);
                byte[] all = joined.toByteArray();
                ordered.set(ordered.size() - 1, new Block(before.firstLine(), b.lastLine(), before.label(), all,
                        before.function(), before.offset(), before.region(), false));
            } else {
                ordered.add(b);
                lastStart = blockStart.get(k);
            }
        }
        return new Program(functions, ordered);
    }

    /** A label that names a symbol (a function), not gcc's or clang's local {@code .L} labels or gas' {@code 1:}. */
    private static boolean isSymbol(String label) {
        return !label.startsWith(".L") && !label.matches("\\d+(@\\d+)?");
    }

    /** One symbol's code being laid out. */
    private static final class Piece {
        final String name;
        final String section;
        final long address;
        /** Where its symbol is: its first instruction's address, or a listing's symbol line's. */
        final long base;
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final List<Integer> statements = new ArrayList<>();
        final List<Integer> offsets = new ArrayList<>();

        Piece(String name, String section, long address, long base) {
            this.name = name;
            this.section = section;
            this.address = address;
            this.base = base;
        }

        long end() {
            return address + bytes.size();
        }

        void add(int statement, byte[] code) {
            statements.add(statement);
            offsets.add(bytes.size());
            bytes.writeBytes(code);
        }

        /** {@code n} bytes of alignment padding, as gas fills code: 11-byte NOPs, then one of the rest's length. */
        void pad(int n, int before) {
            for (int left = n; left > 0; ) {
                int k = Math.min(left, NOPS.length);
                bytes.writeBytes(NOPS[k - 1]);
                left -= k;
            }
        }

        Function function() {
            return new Function(name, section, address, bytes.toByteArray());
        }
    }

    /** Most alignment padding laid out as NOPs; more starts a new piece of code. */
    private static final long MAX_PADDING = 1 << 16;

    /** gas' NOPs for x86-64 code alignment, by length (1 to 11 bytes). */
    private static final byte[][] NOPS = {
        Hex.parse("90"), Hex.parse("6690"), Hex.parse("0f1f00"), Hex.parse("0f1f4000"), Hex.parse("0f1f440000"),
        Hex.parse("660f1f440000"), Hex.parse("0f1f8000000000"), Hex.parse("0f1f840000000000"),
        Hex.parse("660f1f840000000000"), Hex.parse("662e0f1f840000000000"), Hex.parse("66662e0f1f840000000000"),
    };

    /**
     * Encodes every statement. A branch to a place (a label of the text, a listing's address) starts short and
     * becomes near when its target is out of an 8-bit displacement's reach, never back; the passes end when no
     * length or address changes, so every displacement is computed from the final addresses.
     */
    private static byte[][] layout(List<AsmStatement> statements, Map<String, Integer> labels, Placing placing,
                                   List<byte[]> listed) {
        AsmEncoder encoder = new AsmEncoder();
        int n = statements.size();
        byte[][] code = new byte[n][];
        int[] width = new int[n];
        for (int i = 0; i < n; i++) {
            AsmStatement s = statements.get(i);
            // A label of another section (gcc's cold code in .text.unlikely) is as far as a symbol of another file:
            // the assembler leaves its distance to the linker, in 32 bits.
            if (listed.get(i).length > 0) {
                code[i] = listed.get(i);  // a listing's own bytes are the instruction
            } else if (!isBranchToPlace(s) || label(s) != null && (!labels.containsKey(label(s))
                    || !placing.sameSection(i, label(s), labels.get(label(s)), n))) {
                code[i] = encoder.encode(s);
            } else {
                width[i] = 8;
                code[i] = new byte[2];  // a short branch's length, until the first round places it
            }
        }
        // As gas relaxes: each pass walks the code in order with the addresses of this pass behind it and, ahead,
        // those of the last pass moved by what this pass has grown so far — unless an alignment lies between,
        // which may absorb the growth (gas then keeps the last pass's address); done when a pass changes nothing.
        long[] old = placing.addresses(code);
        for (int round = 0; ; round++) {
            if (round > 2 * n + 4) {
                throw new AssemblyException(statements.get(0).line(), 1, "branch lengths did not settle");
            }
            Map<String, Long> ends = new HashMap<>();
            long[] address = new long[n + 1];
            boolean changed = false;
            for (int i = 0; i < n; i++) {
                long here = placing.start(i, ends);
                address[i] = here;
                changed |= here != old[i];
                if (width[i] != 0) {
                    AsmStatement s = statements.get(i);
                    long at = s.address() >= 0 ? s.address() : here;
                    long target;
                    if (label(s) == null) {
                        target = absoluteTarget(s);
                    } else {
                        int j = labels.get(label(s));
                        long stretch = here - old[i];
                        if (j <= i) {
                            target = j < i ? address[j] : here;
                        } else if (stretch > 0 && placing.alignedBetween(i, j)) {
                            // not moved; should that put it behind the branch, it is taken as just after it
                            target = Math.max(old[j], here + code[i].length);
                        } else {
                            target = old[j] + stretch;
                        }
                    }
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
                placing.end(i, ends, here + code[i].length);
            }
            address[n] = placing.last(ends);
            if (!changed) {
                return code;
            }
            old = address;
        }
    }

    /**
     * Where statements go: the section of each (a section's code starts at 0, as in an object file) and the
     * alignments before it, kept from the directives so that branch distances come out as an assembler's do,
     * though the padding itself is not code of any block.
     */
    private static final class Placing {

        private String section = ".text";
        private String previous = ".text";
        private final java.util.ArrayDeque<String> pushed = new java.util.ArrayDeque<>();
        private final Map<String, List<long[]>> pendingAlignments = new HashMap<>();
        final List<String> sectionOf = new ArrayList<>();
        private final List<List<long[]>> alignmentsOf = new ArrayList<>();
        private final Map<String, String> labelSection = new HashMap<>();
        /** How many statements up to each one (itself included) have alignments before them. */
        private final List<Integer> alignedUpTo = new ArrayList<>();

        /** Applies a directive; true when it changed the section. */
        boolean apply(Directive d) {
            String before = section;
            switch (d.name()) {
                case ".text", ".data", ".bss" -> enter(d.name());
                case ".section" -> enter(d.arguments().split("[,\\s]", 2)[0].replace("\"", ""));
                case ".pushsection" -> {
                    pushed.push(section);
                    enter(d.arguments().split("[,\\s]", 2)[0].replace("\"", ""));
                }
                case ".popsection" -> {
                    if (!pushed.isEmpty()) {
                        enter(pushed.pop());
                    }
                }
                case ".previous" -> enter(previous);
                default -> pendingAlignments.computeIfAbsent(section, k -> new ArrayList<>()).add(alignment(d));
            }
            return !section.equals(before);
        }

        private void enter(String name) {
            if (!name.equals(section)) {
                previous = section;
                section = name;
            }
        }

        /** {boundary, most bytes of padding} of .p2align 4,,10 (16, 10), .balign 8 and .align 8 (8, unbounded). */
        private static long[] alignment(Directive d) {
            String[] args = d.arguments().split(",", -1);
            Long value = AsmParser.number(args[0]);
            Long max = args.length > 2 && !args[2].isBlank() ? AsmParser.number(args[2]) : Long.valueOf(Long.MAX_VALUE);
            long boundary = value == null ? 0 : d.name().equals(".p2align") ? (value >= 0 && value < 31 ? 1L << value
                    : 0) : value;
            if (boundary <= 0 || Long.bitCount(boundary) != 1 || max == null) {
                throw new AssemblyException(d.line(), 1, "cannot read the alignment '" + d.name() + " "
                        + d.arguments() + "'");
            }
            return new long[] {boundary, max};
        }

        /** Whether the current section holds code (.text, .text.unlikely, .init, …): where data bytes are code. */
        boolean inCode() {
            return section.startsWith(".text") || section.equals(".init") || section.equals(".fini");
        }

        void label(String name) {
            labelSection.put(name, section);
        }

        void statement() {
            sectionOf.add(section);
            List<long[]> pending = pendingAlignments.remove(section);
            alignmentsOf.add(pending == null ? List.of() : pending);
            alignedUpTo.add((alignedUpTo.isEmpty() ? 0 : alignedUpTo.get(alignedUpTo.size() - 1))
                    + (pending == null ? 0 : 1));
        }

        /** Whether the label at statement {@code target} is where statement {@code from} can reach it directly. */
        boolean sameSection(int from, String label, int target, int n) {
            String where = labelSection.getOrDefault(label, sectionOf.get(from));
            return where.equals(sectionOf.get(from)) && (target >= n || sectionOf.get(target).equals(where));
        }

        /** The address of each statement in its section, and (last) the end of the last statement's section. */
        long[] addresses(byte[][] code) {
            int n = code.length;
            long[] address = new long[n + 1];
            Map<String, Long> ends = new HashMap<>();
            for (int i = 0; i < n; i++) {
                address[i] = start(i, ends);
                end(i, ends, address[i] + code[i].length);
            }
            address[n] = last(ends);
            return address;
        }

        /** Whether an alignment comes before any statement after {@code i} up to {@code j}. */
        boolean alignedBetween(int i, int j) {
            return alignedUpTo.get(Math.min(j, alignedUpTo.size() - 1)) > alignedUpTo.get(i);
        }

        /** Where statement {@code i} starts: after what its section holds so far ({@code ends}), aligned. */
        long start(int i, Map<String, Long> ends) {
            long at = ends.getOrDefault(sectionOf.get(i), 0L);
            for (long[] a : alignmentsOf.get(i)) {
                long padding = Math.floorMod(-at, a[0]);
                at += padding <= a[1] ? padding : 0;
            }
            return at;
        }

        void end(int i, Map<String, Long> ends, long end) {
            ends.put(sectionOf.get(i), end);
        }

        /** The end of the last statement's section: where a label after the last statement is. */
        long last(Map<String, Long> ends) {
            return sectionOf.isEmpty() ? 0 : ends.get(sectionOf.get(sectionOf.size() - 1));
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
