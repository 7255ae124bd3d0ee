package dev.basalt.cli;

import dev.basalt.decoder.Assembly;
import dev.basalt.decoder.AssemblyException;
import picocli.CommandLine.Option;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * {@code --input FILE} and {@code --input-format}, mixed into every command that reads blocks. Blocks are hex (a
 * BHive CSV, whose first column is the hex, or one hex block per line) or assembly text in Intel or AT&T syntax
 * (compiler {@code -S} output, {@code objdump}/{@code llvm-mc} listings; labels and blank lines separate blocks,
 * {@code ;} instructions), encoded by {@link Assembly}; {@code -} reads standard input. The blocks come after
 * those given as arguments. Everything is turned into hex here, so the commands see one form.
 */
final class BlockInput {

    private static final Pattern HEX = Pattern.compile("\\s*(0[xX])?[0-9a-fA-F]+(\\s+(0[xX])?[0-9a-fA-F]+)*\\s*");

    /** A listing's address column ("401000:"), symbol line ("0000… <main>:") or header ("file format"): no hex. */
    private static final Pattern LISTING_LINE = Pattern.compile("^[0-9a-fA-F]+:|<[^>]*>|file format");
    private static final Pattern BHIVE_ROW = Pattern.compile("\\S+,\\s*[0-9.eE+-]+\\s*");

    @Option(names = "--input", paramLabel = "FILE", description = "Blocks to read: a BHive CSV, one hex per line, or"
            + " assembly; - reads standard input.")
    Path input;

    @Option(names = "--input-format", defaultValue = "auto", paramLabel = "FORMAT", description = "hex, intel, att"
            + " or auto (default ${DEFAULT-VALUE}: hex when every block is hex digits, else assembly, AT&T when it"
            + " has %%registers or $immediates).")
    String inputFormat;

    /**
     * One block to predict and where it comes from, for a person: {@code block argument 2},
     * {@code loop.s: lines 11-16, .L3, dot+0x10, a loop}, {@code blocks.csv:12}.
     */
    record Input(String hex, String source) {
    }

    /** {@code arguments}, then the blocks of {@code --input}, as hex; bad input is named (file, line, column). */
    List<String> blocks(List<String> arguments) throws IOException {
        return inputs(arguments).stream().map(Input::hex).toList();
    }

    /** As {@link #blocks}, each with its source. */
    List<Input> inputs(List<String> arguments) throws IOException {
        String format = inputFormat == null ? "auto" : inputFormat.toLowerCase(Locale.ROOT);
        if (!List.of("hex", "intel", "att", "auto").contains(format)) {
            throw new BadInputException("--input-format must be hex, intel, att or auto, got '" + inputFormat + "'");
        }
        List<Input> blocks = new ArrayList<>();
        int position = 0;
        for (String argument : arguments == null ? List.<String>of() : arguments) {
            position++;
            if (format.equals("hex") || format.equals("auto") && looksLikeHex(argument)) {
                blocks.add(new Input(argument, "block argument " + position));
            } else {
                List<Assembly.Block> assembled = assemble(argument, format, "block argument " + position);
                if (assembled.isEmpty()) {
                    throw new BadInputException("block argument " + position + " ('" + argument + "') holds no "
                            + "instruction");
                }
                String where = "block argument " + position;
                assembled.forEach(b -> blocks.add(new Input(b.hex(), assembled.size() == 1 ? where
                        : where + ": " + b.source())));
            }
        }
        if (input == null) {
            return blocks;
        }
        List<String> lines;
        if (input.toString().equals("-")) {
            lines = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).lines().toList();
        } else {
            if (Files.isDirectory(input)) {
                throw new BadInputException("--input " + input + " is a directory, not a file of blocks");
            }
            if (!Files.isReadable(input)) {
                throw new BadInputException("cannot read input file " + input + " (no such file, or not readable)");
            }
            lines = readText(input, "--input " + input).lines().toList();
        }
        String name = input.toString().equals("-") ? "standard input" : input.toString();
        // auto: hex when most lines are hex or BHive rows ("<hex>,<cycles>"): a bad row among them is an error row
        // of its own, not a reason to read the file as assembly.
        if (!lines.isEmpty() && lines.get(0).startsWith("\uFEFF")) {
            lines = new ArrayList<>(lines);
            lines.set(0, lines.get(0).substring(1));  // a byte-order mark is no part of the text
        }
        long hexLines = lines.stream().map(String::trim).filter(t -> !t.isEmpty())
                .filter(t -> !LISTING_LINE.matcher(t).find())
                .filter(t -> looksLikeHex(firstColumn(t)) || BHIVE_ROW.matcher(t).matches()).count();
        long otherLines = lines.stream().map(String::trim).filter(t -> !t.isEmpty()).count() - hexLines;
        if (format.equals("hex") || format.equals("auto") && (hexLines > otherLines || otherLines == 0)) {
            for (int l = 0; l < lines.size(); l++) {
                String t = lines.get(l).trim();
                if (!t.isEmpty()) {
                    blocks.add(new Input(firstColumn(t), name + ":" + (l + 1)));
                }
            }
            return blocks;
        }
        List<Assembly.Block> assembled = assemble(String.join("\n", lines), format, "--input " + name);
        if (assembled.isEmpty()) {
            throw new BadInputException("--input " + name + " holds no instruction (neither hex nor assembly)");
        }
        assembled.forEach(b -> blocks.add(new Input(b.hex(), name + ": " + b.source())));
        return blocks;
    }

    /**
     * A text file's characters. Not UTF-8 is no reason to refuse a file: a Latin-1 byte in a comment is read as a
     * replacement character, and one in an instruction fails there, naming its line and column. A file with NUL
     * bytes is binary, not text.
     */
    static String readText(Path file, String where) throws IOException {
        byte[] bytes = Files.readAllBytes(file);
        boolean elf = bytes.length >= 4 && bytes[0] == 0x7f && bytes[1] == 'E' && bytes[2] == 'L' && bytes[3] == 'F';
        for (int i = 0; i < bytes.length && !elf; i++) {
            if (bytes[i] == 0) {
                throw new BadInputException(where + " is not UTF-8 text (a NUL byte at offset " + i + ": a binary "
                        + "file?): give a BHive CSV, one hex block per line, or assembly (for a program, basalt analyze)");
            }
        }
        if (elf) {
            throw new BadInputException(where + " is not UTF-8 text (an ELF file): give a BHive CSV, one hex block per "
                    + "line, or assembly (for a program, basalt analyze)");
        }
        return StandardCharsets.UTF_8.newDecoder().onMalformedInput(java.nio.charset.CodingErrorAction.REPLACE)
                .onUnmappableCharacter(java.nio.charset.CodingErrorAction.REPLACE)
                .decode(java.nio.ByteBuffer.wrap(bytes)).toString();
    }

    /**
     * The functions of an assembly file or listing, as an object file would hold them (for {@code basalt analyze}):
     * each symbol's code, with gas' alignment padding.
     */
    static dev.basalt.decoder.ElfCode.Functions functions(Path file) throws IOException {
        if (!Files.isReadable(file)) {
            throw new BadInputException("cannot read " + file + " (no such file, or not readable)");
        }
        byte[] head = Files.readAllBytes(file);
        for (int i = 0; i < head.length; i++) {
            if (head[i] == 0) {
                throw new BadInputException(file + " is not an ELF file (it does not start with 0x7f 'ELF'), nor "
                        + "assembly text (a NUL byte at offset " + i + ")");
            }
        }
        String text = readText(file, file.toString());
        Assembly.Syntax syntax = Assembly.Syntax.detect(text);
        Assembly.Program program;
        try {
            program = Assembly.assemble(text, syntax);
        } catch (AssemblyException e) {
            throw new BadInputException(file + " is not an ELF file (it does not start with 0x7f 'ELF'), nor "
                    + (syntax == Assembly.Syntax.ATT ? "AT&T" : "Intel") + " assembly: " + e.getMessage());
        }
        List<dev.basalt.decoder.ElfCode.Function> functions = program.functions().stream()
                .map(f -> new dev.basalt.decoder.ElfCode.Function(f.name().isEmpty() ? f.section() : f.name(),
                        f.address(), f.bytes())).toList();
        return new dev.basalt.decoder.ElfCode.Functions(functions, false, java.util.Set.of());
    }

    /**
     * Hex unless it reads as assembly: assembly starts with a letter, a dot or an underscore (a mnemonic, prefix,
     * label or directive) and is not all hex digits. So {@code 4889xx} and the empty string stay hex, and fail as
     * hex, naming the byte offset; {@code fadd} is hex.
     */
    private static boolean looksLikeHex(String argument) {
        String t = argument.strip();
        if (t.isEmpty() || HEX.matcher(t).matches()) {
            return true;
        }
        char c = t.charAt(0);
        return !(Character.isLetter(c) || c == '.' || c == '_');
    }

    private static String firstColumn(String line) {
        return line.contains(",") ? line.substring(0, line.indexOf(',')).trim() : line;
    }

    /** The blocks of assembly text; an error names {@code where} and the line and column. */
    private static List<Assembly.Block> assemble(String text, String format, String where) {
        Assembly.Syntax syntax = switch (format) {
            case "intel" -> Assembly.Syntax.INTEL;
            case "att" -> Assembly.Syntax.ATT;
            default -> Assembly.Syntax.detect(text);
        };
        try {
            return Assembly.parse(text, syntax);
        } catch (AssemblyException e) {
            throw new BadInputException(where + ", " + name(syntax) + " syntax: " + e.getMessage()
                    + (e.getMessage().contains("\uFFFD") ? " (\uFFFD stands for a byte that is not UTF-8: the file is in "
                    + "another encoding)" : "") + otherSyntax(text, syntax, format));
        }
    }

    /**
     * When the text mixes the two syntaxes (one statement that reads only as Intel, another only as AT&T), says so
     * with one of each: detection picked one syntax for the whole text, and the other statements then fail in ways
     * that do not name the cause.
     */
    private static String mixed(String text) {
        String intelOnly = null;
        String attOnly = null;
        for (String statement : text.split("[;\n]")) {
            String st = statement.strip();
            if (st.isEmpty() || st.endsWith(":")) {
                continue;
            }
            boolean intel = parses(st, Assembly.Syntax.INTEL);
            boolean att = parses(st, Assembly.Syntax.ATT);
            if (intel && !att && intelOnly == null) {
                intelOnly = st;
            } else if (att && !intel && attOnly == null) {
                attOnly = st;
            }
        }
        return intelOnly == null || attOnly == null ? ""
                : " (the text mixes Intel syntax, '" + intelOnly + "', and AT&T syntax, '" + attOnly + "': write it in"
                + " one)";
    }

    private static boolean parses(String statement, Assembly.Syntax syntax) {
        try {
            Assembly.parse(statement, syntax);
            return true;
        } catch (IllegalArgumentException e) {  // an AssemblyException, or a statement the encoder refuses
            return false;
        }
    }

    private static String name(Assembly.Syntax syntax) {
        return syntax == Assembly.Syntax.ATT ? "AT&T" : "Intel";
    }

    /**
     * When text that fails in one syntax reads whole in the other, says so: a user who gave {@code --input-format
     * intel} to AT&T text (or whose Intel text has a {@code $} that made it look like AT&T) is told which to give.
     */
    private static String otherSyntax(String text, Assembly.Syntax failed, String format) {
        Assembly.Syntax other = failed == Assembly.Syntax.ATT ? Assembly.Syntax.INTEL : Assembly.Syntax.ATT;
        try {
            Assembly.parse(text, other);
        } catch (AssemblyException e) {
            return format.equals("auto") ? mixed(text) : "";
        }
        return " (this looks like " + name(other) + " syntax: give --input-format "
                + other.name().toLowerCase(java.util.Locale.ROOT) + (format.equals("auto") ? "" : " or leave it out")
                + ")";
    }
}
