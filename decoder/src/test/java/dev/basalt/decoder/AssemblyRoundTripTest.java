package dev.basalt.decoder;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Assembly round trip: every block, disassembled by {@code llvm-mc-14} into Intel and into AT&T syntax, parsed and
 * encoded by {@link Assembly}, decodes to the same instructions (Zydis' Intel text of each: mnemonic and operands)
 * as the original bytes. Runs over every distinct unlabelled BHive block (about 125,000) when {@code ../shared}
 * is present, else over the 1,000 bundled sample blocks; writes the failures by cause to
 * {@code target/assembly-round-trip-<syntax>.txt}.
 *
 * <p>Not counted as a difference: the operand order of {@code xchg}, which commutes (llvm-mc prints
 * {@code 87 /r}'s operands the other way round from Zydis).
 */
class AssemblyRoundTripTest {

    private static final String LLVM_MC = "llvm-mc-14";
    /** Between blocks: hlt, in its own bracket group so that a truncated block cannot swallow it. */
    private static final String MARKER = "hlt";

    @ParameterizedTest
    @EnumSource(Assembly.Syntax.class)
    void llvmMcTextReassemblesToTheSameInstructions(Assembly.Syntax syntax) throws Exception {
        List<String> blocks = blocksIfLlvmMc();
        List<String> texts = disassemble(blocks, syntax);
        Map<String, Integer> causes = new TreeMap<>();
        Map<String, String> examples = new LinkedHashMap<>();
        int same = 0;
        int sameBytes = 0;
        for (int i = 0; i < blocks.size(); i++) {
            String cause = null;
            String detail = "";
            try {
                BasicBlock original = BasicBlock.fromHex(blocks.get(i));
                List<Assembly.Block> parsed = Assembly.parse(texts.get(i), syntax);
                BasicBlock again = parsed.size() == 1 ? parsed.get(0).basicBlock() : null;
                if (again == null) {
                    cause = parsed.size() + " blocks instead of 1";
                } else if (again.size() != original.size()) {
                    cause = "instruction count " + again.size() + " instead of " + original.size();
                } else {
                    for (int k = 0; k < again.size() && cause == null; k++) {
                        String want = text(original.instruction(k));
                        String got = text(again.instruction(k));
                        if (!want.equals(got)) {
                            cause = "different instruction: " + want.split(" ")[0];
                            detail = original.instruction(k).hex() + " " + want + " came back as "
                                    + again.instruction(k).hex() + " " + got;
                        }
                    }
                    if (cause == null && parsed.get(0).hex().equals(blocks.get(i))) {
                        sameBytes++;
                    }
                }
            } catch (DecodeException e) {
                cause = "the original bytes do not decode";
                detail = e.getMessage();
            } catch (AssemblyException e) {
                cause = e.getMessage().replaceFirst("^line \\d+, column \\d+: ", "").replaceAll("'[^']*'", "'…'");
                detail = e.getMessage();
            }
            if (cause == null) {
                same++;
            } else {
                causes.merge(cause, 1, Integer::sum);
                examples.putIfAbsent(cause, blocks.get(i) + ": " + detail + "\n    " + texts.get(i).strip()
                        .replace("\n", "\n    "));
            }
        }
        double share = 100.0 * same / blocks.size();
        StringBuilder report = new StringBuilder(String.format("%s: %d of %d blocks (%.3f%%) re-assemble to the same"
                + " instructions, %d of them to the same bytes; %d failures by cause:%n", syntax, same,
                blocks.size(), share, sameBytes, blocks.size() - same));
        report(report, causes, examples, "assembly round trip", "assembly-round-trip-" + syntax);
        assertTrue(share >= 99.5, report.toString());
    }

    /**
     * The bytes are those an assembler writes for the same text: llvm-mc-14's own assembler, given llvm-mc's text of
     * every block, writes the bytes we write for all but a handful. The exception allowed is xchg of two registers,
     * which either way round is the same instruction of the same length: llvm-mc puts the first operand in ModRM.reg,
     * gas (and we, so that objdump's listings come back byte for byte) in ModRM.rm. Where the original bytes differ
     * from both (a padding NOP's length, a zero displacement), the text did not say them.
     */
    @ParameterizedTest
    @EnumSource(Assembly.Syntax.class)
    void encodesLlvmMcTextAsLlvmMcsOwnAssemblerDoes(Assembly.Syntax syntax) throws Exception {
        List<String> blocks = blocksIfLlvmMc();
        List<String> texts = disassemble(blocks, syntax);
        List<String> reference = assemble(texts, syntax);
        Map<String, Integer> causes = new TreeMap<>();
        Map<String, String> examples = new LinkedHashMap<>();
        int same = 0;
        int originalSame = 0;
        int xchg = 0;
        for (int i = 0; i < blocks.size(); i++) {
            String want = reference.get(i);
            originalSame += want.equals(blocks.get(i)) ? 1 : 0;
            String cause = null;
            String got = "";
            try {
                List<Assembly.Block> parsed = Assembly.parse(texts.get(i), syntax);
                got = parsed.stream().map(Assembly.Block::hex).reduce("", String::concat);
                if (!got.equals(want)) {
                    cause = want.contains("?") ? "a relocation in llvm-mc's bytes (a branch to a number)"
                            : onlyXchgOperandsSwapped(want, got) ? null : "different bytes";
                    xchg += cause == null ? 1 : 0;
                }
            } catch (AssemblyException e) {
                cause = "we refuse the text: " + e.getMessage().replaceFirst("^line \\d+, column \\d+: ", "")
                        .replaceAll("'[^']*'", "'…'");
            }
            if (cause == null) {
                same += got.equals(want) ? 1 : 0;
            } else {
                causes.merge(cause, 1, Integer::sum);
                examples.putIfAbsent(cause, "llvm-mc " + want + ", we " + got + "\n    " + texts.get(i).strip()
                        .replace("\n", "\n    "));
            }
        }
        int other = causes.values().stream().mapToInt(Integer::intValue).sum();
        StringBuilder report = new StringBuilder(String.format("%s: %d of %d blocks encode to llvm-mc's own bytes"
                + " for the same text, %d more but for xchg's register order; %d others by cause (llvm-mc's bytes"
                + " equal the original for %d):%n", syntax, same, blocks.size(), xchg, other, originalSame));
        report(report, causes, examples, "assembly vs llvm-mc's assembler", "assembly-as-llvm-mc-" + syntax);
        assertTrue(other <= blocks.size() / 10_000, report.toString());
        assertTrue(xchg <= blocks.size() / 1_000, report.toString());
    }

    /** Every unlabelled block when ../shared is here, else the bundled 1,000; skips the test without llvm-mc. */
    private static List<String> blocksIfLlvmMc() throws IOException {
        if (!TestBlocks.onPath(LLVM_MC)) {
            System.err.println("SKIPPED AssemblyRoundTripTest: " + LLVM_MC
                    + " is not installed (apt-get install llvm-14)");
            Assumptions.abort(LLVM_MC + " is not installed");
        }
        Optional<Path> sources = TestBlocks.unlabelledSources();
        return sources.isPresent() ? TestBlocks.unlabelledBlocks(sources.get()) : TestBlocks.bhiveSample();
    }

    /** Appends the causes, largest first; writes the report to target/NAME.txt and its first line to stderr. */
    private static void report(StringBuilder report, Map<String, Integer> causes, Map<String, String> examples,
                               String title, String name) throws IOException {
        causes.entrySet().stream().sorted((a, b) -> b.getValue() - a.getValue()).forEach(e -> report
                .append(String.format("%6d  %s%n        e.g. %s%n", e.getValue(), e.getKey(),
                        examples.get(e.getKey()))));
        Path file = Path.of("target", name.toLowerCase() + ".txt");
        Files.createDirectories(file.getParent());
        Files.writeString(file, report.toString(), StandardCharsets.UTF_8);
        System.err.println(title + " " + report.toString().lines().findFirst().orElse("") + " (details: "
                + file.toAbsolutePath() + ")");
    }

    /** Whether two encodings are the same instructions, of the same lengths, but for xchg's operands' order. */
    private static boolean onlyXchgOperandsSwapped(String a, String b) {
        if (a.length() != b.length()) {
            return false;
        }
        try {
            BasicBlock x = BasicBlock.fromHex(a);
            BasicBlock y = BasicBlock.fromHex(b);
            if (x.size() != y.size()) {
                return false;
            }
            boolean swapped = false;
            for (int k = 0; k < x.size(); k++) {
                Instruction i = x.instruction(k);
                Instruction j = y.instruction(k);
                if (i.length() != j.length() || !text(i).equals(text(j))) {
                    return false;
                }
                swapped |= !i.hex().equals(j.hex());
                if (!i.hex().equals(j.hex()) && !i.intelSyntax().startsWith("xchg")) {
                    return false;
                }
            }
            return swapped;
        } catch (DecodeException e) {
            return false;
        }
    }

    /**
     * llvm-mc-14's assembly of each text, in one process ({@code --show-encoding}); a byte it leaves to a
     * relocation is {@code ??}. A line it refuses leaves its instruction out of that block.
     */
    private static List<String> assemble(List<String> texts, Assembly.Syntax syntax) throws Exception {
        StringBuilder input = new StringBuilder(syntax == Assembly.Syntax.INTEL ? ".intel_syntax noprefix\n" : "");
        for (String t : texts) {
            input.append(t).append('\t').append(MARKER).append('\n');
        }
        Path in = Files.createTempFile("basalt-asm", ".s");
        Path out = Files.createTempFile("basalt-asm", ".txt");
        try {
            Files.writeString(in, input);
            Process p = new ProcessBuilder(LLVM_MC, "-triple=x86_64-unknown-linux-gnu", "--show-encoding",
                    in.toString()).redirectOutput(out.toFile()).redirectError(ProcessBuilder.Redirect.DISCARD).start();
            if (!p.waitFor(300, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException("llvm-mc timed out");
            }
            List<String> blocks = new ArrayList<>(texts.size());
            StringBuilder block = new StringBuilder();
            java.util.regex.Pattern encoding = java.util.regex.Pattern.compile("encoding: \\[([^]]*)]");
            for (String line : Files.readAllLines(out)) {
                java.util.regex.Matcher m = encoding.matcher(line);
                if (!m.find()) {
                    continue;
                }
                StringBuilder bytes = new StringBuilder();
                for (String b : m.group(1).split(",")) {
                    bytes.append(b.startsWith("0x") ? String.format("%02x", Integer.parseInt(b.substring(2), 16))
                            : "??");
                }
                if (bytes.toString().equals("f4")) {
                    blocks.add(block.toString());
                    block.setLength(0);
                } else {
                    block.append(bytes);
                }
            }
            if (blocks.size() != texts.size()) {
                throw new IOException("llvm-mc assembled " + blocks.size() + " blocks for " + texts.size());
            }
            return blocks;
        } finally {
            Files.deleteIfExists(in);
            Files.deleteIfExists(out);
        }
    }

    /** Zydis' Intel text; xchg's two operands sorted, since they commute. */
    private static String text(Instruction i) {
        String t = i.intelSyntax().replaceAll("\\s+", " ");
        if (t.startsWith("xchg ") && t.contains(", ")) {
            String[] ops = t.substring(5).split(", ");
            java.util.Arrays.sort(ops);
            return "xchg " + String.join(", ", ops);
        }
        return t;
    }

    /** llvm-mc's text of each block, in one process: each block and each marker is its own bracket group. */
    private static List<String> disassemble(List<String> blocks, Assembly.Syntax syntax) throws Exception {
        StringBuilder input = new StringBuilder(blocks.size() * 40);
        for (String hex : blocks) {
            input.append('[');
            for (int k = 0; k < hex.length(); k += 2) {
                input.append(k == 0 ? "" : " ").append("0x").append(hex, k, k + 2);
            }
            input.append("] [0xf4]\n");
        }
        Path in = Files.createTempFile("basalt-asm", ".txt");
        Path out = Files.createTempFile("basalt-asm", ".s");
        try {
            Files.writeString(in, input);
            Process p = new ProcessBuilder(LLVM_MC, "--disassemble", "-triple=x86_64-unknown-linux-gnu",
                    "--output-asm-variant=" + (syntax == Assembly.Syntax.INTEL ? 1 : 0), in.toString())
                    .redirectOutput(out.toFile()).redirectError(ProcessBuilder.Redirect.DISCARD).start();
            if (!p.waitFor(300, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException("llvm-mc timed out");
            }
            List<String> texts = new ArrayList<>(blocks.size());
            StringBuilder block = new StringBuilder();
            for (String line : Files.readAllLines(out)) {
                if (line.strip().equals(MARKER)) {
                    texts.add(block.toString());
                    block.setLength(0);
                } else if (!line.strip().startsWith(".")) {
                    block.append(line).append('\n');
                }
            }
            if (texts.size() != blocks.size()) {
                throw new IOException("llvm-mc printed " + texts.size() + " blocks for " + blocks.size());
            }
            return texts;
        } finally {
            Files.deleteIfExists(in);
            Files.deleteIfExists(out);
        }
    }
}
