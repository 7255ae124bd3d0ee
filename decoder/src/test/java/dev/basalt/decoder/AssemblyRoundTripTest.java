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
        if (!TestBlocks.onPath(LLVM_MC)) {
            System.err.println("SKIPPED AssemblyRoundTripTest: " + LLVM_MC
                    + " is not installed (apt-get install llvm-14)");
            Assumptions.abort(LLVM_MC + " is not installed");
        }
        Optional<Path> sources = TestBlocks.unlabelledSources();
        List<String> blocks = sources.isPresent() ? TestBlocks.unlabelledBlocks(sources.get())
                : TestBlocks.bhiveSample();
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
        causes.entrySet().stream().sorted((a, b) -> b.getValue() - a.getValue()).forEach(e -> report
                .append(String.format("%6d  %s%n        e.g. %s%n", e.getValue(), e.getKey(),
                        examples.get(e.getKey()))));
        Path file = Path.of("target", "assembly-round-trip-" + syntax.name().toLowerCase() + ".txt");
        Files.createDirectories(file.getParent());
        Files.writeString(file, report.toString(), StandardCharsets.UTF_8);
        System.err.println("assembly round trip " + report.toString().lines().findFirst().orElse("") + " (details: "
                + file.toAbsolutePath() + ")");
        assertTrue(share >= 99.5, report.toString());
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
