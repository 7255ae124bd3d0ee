package dev.basalt.decoder;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Instruction boundaries agree with {@code llvm-mc-14 --disassemble} on real BHive blocks.
 *
 * <p>Runs on a seeded sample of 5,000 distinct blocks of the unlabelled BHive sources; {@code
 * -Dbasalt.llvmmc.blocks=all} runs the full sweep over every distinct block (about 125,000).
 *
 * <p>How agreement is checked: {@code -show-encoding} prints the encoding llvm-mc would <em>emit</em>, not
 * the bytes it consumed (a 5-byte {@code nop dword ptr [rax+rax*1]} is shown re-encoded in 4), so lengths
 * cannot be read off its output. Instead each instruction Basalt decoded is sent as its own bracketed group
 * ({@code [0x48 0x89 0xde]}), which llvm-mc disassembles on its own: the group is exactly one llvm-mc
 * instruction if and only if llvm-mc's instruction at that offset has the same length (a shorter one leaves
 * a second instruction in the group, a longer one runs off its end with a warning). Since the groups tile
 * the block, one line per group and no warning means identical boundaries. Blocks go 500 to a process, one
 * block per input line; a batch with any mismatch is redone one block per process to find the culprits,
 * which are written with both decodings to {@code target/llvm-mc-agreement.txt}.
 *
 * <p>One presentation difference is normalised, not counted: llvm-mc prints a redundant legacy prefix that
 * it cannot attach to the following instruction as a line of its own ({@code data16}, {@code rep}, ...),
 * where Zydis folds it into the instruction; the bytes are the same instruction to the CPU.
 */
class LlvmMcAgreementTest {

    private static final String LLVM_MC = "llvm-mc-14";
    private static final int BATCH = 500;
    private static final List<String> PREFIX_LINES = List.of("data16", "data32", "rep", "repne", "repe", "lock",
            "cs", "ds", "ss", "es", "fs", "gs", "addr32", "rex64", "rex", "notrack", "xacquire", "xrelease");

    @Test
    void instructionBoundariesMatchLlvmMc() throws Exception {
        Optional<Path> sources = TestBlocks.unlabelledSources();
        if (!TestBlocks.onPath(LLVM_MC)) {
            System.err.println("SKIPPED LlvmMcAgreementTest: " + LLVM_MC + " is not installed (apt-get install llvm-14)");
            Assumptions.abort(LLVM_MC + " is not installed");
        }
        if (sources.isEmpty()) {
            System.err.println("SKIPPED LlvmMcAgreementTest: unlabelled BHive sources not found under "
                    + System.getProperty("basalt.shared.dir") + "/datasets/bhive-unlabelled/sources");
            Assumptions.abort("unlabelled BHive sources not found");
        }
        List<String> blocks = TestBlocks.unlabelledBlocks(sources.get());
        String wanted = System.getProperty("basalt.llvmmc.blocks", "5000");
        if (!wanted.equals("all")) {
            Collections.shuffle(blocks, new Random(42));
            blocks = blocks.subList(0, Math.min(blocks.size(), Integer.parseInt(wanted)));
        }
        List<String> disagreements = new ArrayList<>();
        List<String> bothReject = new ArrayList<>();
        int agreed = 0;
        long instructions = 0;
        for (int start = 0; start < blocks.size(); start += BATCH) {
            List<String> batch = blocks.subList(start, Math.min(blocks.size(), start + BATCH));
            List<BasicBlock> decoded = new ArrayList<>();
            List<String> decodedHex = new ArrayList<>();
            for (String hex : batch) {
                try {
                    decoded.add(BasicBlock.fromHex(hex));
                    decodedHex.add(hex);
                } catch (DecodeException e) {
                    // Both reject it at the same byte: that is agreement too (BHive has one such corrupt block).
                    int llvmOffset = llvmFirstInvalidOffset(hex);
                    if (llvmOffset == e.byteOffset()) {
                        agreed++;
                        bothReject.add(hex + " (both reject at byte offset " + llvmOffset + ")");
                    } else {
                        disagreements.add(hex + "\n  basalt:  DecodeException " + e.getMessage() + "\n  llvm-mc: "
                                + llvmStream(hex));
                    }
                }
            }
            boolean batchAgrees = llvmAgrees(decoded);
            for (int k = 0; k < decoded.size(); k++) {
                BasicBlock b = decoded.get(k);
                if (batchAgrees || llvmAgrees(List.of(b))) {
                    agreed++;
                    instructions += b.size();
                } else {
                    disagreements.add(decodedHex.get(k) + "\n  basalt:  " + b.instructions().stream()
                            .map(i -> i.length() + ":" + i.intelSyntax()).toList() + "\n  llvm-mc: "
                            + llvmStream(decodedHex.get(k)));
                }
            }
        }
        Path report = Path.of("target", "llvm-mc-agreement.txt");
        Files.createDirectories(report.getParent());
        String summary = String.format("%d of %d blocks agree (%.4f%%), %d instructions, %d rejected by both;"
                + " %d disagreements%n", agreed, blocks.size(), 100.0 * agreed / blocks.size(), instructions,
                bothReject.size(), disagreements.size());
        Files.writeString(report, summary + String.join("\n", bothReject) + "\n" + String.join("\n", disagreements)
                + "\n", StandardCharsets.UTF_8);
        System.err.println("llvm-mc agreement: " + summary.trim() + " (details: " + report.toAbsolutePath() + ")");
        assertEquals(List.of(), disagreements, summary);
    }

    /** True if llvm-mc decodes every one of the blocks' instructions, bracketed alone, as one instruction. */
    private static boolean llvmAgrees(List<BasicBlock> blocks) throws Exception {
        return llvmAgreesOnGroups(blocks.stream().map(b -> b.instructions().stream().map(Instruction::hex).toList())
                .toList());
    }

    /** True if llvm-mc decodes each hex group (one list of groups per input line) as exactly one instruction. */
    private static boolean llvmAgreesOnGroups(List<List<String>> lines) throws Exception {
        if (lines.isEmpty()) {
            return true;
        }
        StringBuilder input = new StringBuilder();
        int groups = 0;
        for (List<String> line : lines) {
            for (String hex : line) {
                input.append('[');
                for (int k = 0; k < hex.length(); k += 2) {
                    input.append(k == 0 ? "" : " ").append("0x").append(hex, k, k + 2);
                }
                input.append("] ");
                groups++;
            }
            input.append('\n');
        }
        Output out = run(input.toString());
        return out.err.isBlank() && instructionLines(out.out).size() == groups;
    }

    /** The oracle itself must be able to say no: wrong boundaries are caught both ways. */
    @Test
    void groupCheckRejectsWrongBoundaries() throws Exception {
        Assumptions.assumeTrue(TestBlocks.onPath(LLVM_MC), LLVM_MC + " is not installed");
        assertTrue(llvmAgreesOnGroups(List.of(List.of("0f1f440000", "4889de"))), "5-byte nop, mov");
        assertFalse(llvmAgreesOnGroups(List.of(List.of("4889de90"))), "two instructions in one group");
        assertFalse(llvmAgreesOnGroups(List.of(List.of("0f1f4400", "00"))), "a group ending mid-instruction");
        assertTrue(llvmAgreesOnGroups(List.of(List.of("66662e0f1f840000000000"))), "data16 prefix line merged");
    }

    /** llvm-mc's own decoding of the block as one byte stream, for the report. */
    private static String llvmStream(String hex) throws Exception {
        StringBuilder input = new StringBuilder();
        for (int k = 0; k < hex.length(); k += 2) {
            input.append("0x").append(hex, k, k + 2).append(' ');
        }
        Output out = run(input.toString());
        return instructionLines(out.out) + (out.err.isBlank() ? "" : " [" + out.err.trim().replace('\n', ' ') + "]");
    }

    /** Byte offset of llvm-mc's first "invalid instruction encoding" in the block, or -1 if it has none. */
    private static int llvmFirstInvalidOffset(String hex) throws Exception {
        StringBuilder input = new StringBuilder();
        for (int k = 0; k < hex.length(); k += 2) {
            input.append("0x").append(hex, k, k + 2).append(' '); // 5 characters per byte
        }
        Output out = run(input.toString());
        java.util.regex.Matcher m = java.util.regex.Pattern.compile(":1:(\\d+): warning: invalid instruction encoding")
                .matcher(out.err);
        return m.find() ? (Integer.parseInt(m.group(1)) - 1) / 5 : -1;
    }

    /** Instruction lines of llvm-mc's output, with prefix-only lines merged into the next instruction. */
    private static List<String> instructionLines(String stdout) {
        List<String> lines = new ArrayList<>();
        String prefix = "";
        for (String line : stdout.split("\n")) {
            String asm = line.trim();
            if (asm.isEmpty() || asm.startsWith(".") || asm.startsWith("#")) {
                continue;
            }
            int comment = asm.indexOf('#');
            asm = (comment < 0 ? asm : asm.substring(0, comment)).trim().replaceAll("\\s+", " ");
            if (PREFIX_LINES.contains(asm)) {
                prefix += asm + " ";
                continue;
            }
            lines.add(prefix + asm);
            prefix = "";
        }
        if (!prefix.isEmpty()) {
            lines.add(prefix.trim());
        }
        return lines;
    }

    private record Output(String out, String err) {
    }

    private static Output run(String input) throws Exception {
        Path in = Files.createTempFile("basalt-llvm-mc", ".txt");
        try {
            Files.writeString(in, input);
            Process p = new ProcessBuilder(LLVM_MC, "--disassemble", "-show-encoding",
                    "-triple=x86_64-unknown-linux-gnu", "--output-asm-variant=1", in.toString()).start();
            java.util.concurrent.CompletableFuture<byte[]> err = java.util.concurrent.CompletableFuture.supplyAsync(
                    () -> {
                        try {
                            return p.getErrorStream().readAllBytes();
                        } catch (IOException e) {
                            throw new java.io.UncheckedIOException(e);
                        }
                    });
            byte[] out = p.getInputStream().readAllBytes();
            if (!p.waitFor(120, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException("llvm-mc timed out");
            }
            return new Output(new String(out, StandardCharsets.UTF_8), new String(err.get(), StandardCharsets.UTF_8));
        } finally {
            Files.deleteIfExists(in);
        }
    }
}
