package dev.basalt.cli;

import dev.basalt.core.Microarchitecture;
import dev.basalt.datasets.Dataset;
import dev.basalt.datasets.LabelledBlock;
import dev.basalt.decoder.BasicBlock;
import dev.basalt.decoder.Instruction;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Blocks given as assembly text: the same predictions as their hex, and bad assembly named by line and column. */
class AssemblyInputTest {

    private static final int BLOCKS = 1000;

    @Test
    void textInTheOtherSyntaxSaysWhichItLooksLike(@TempDir Path dir) throws Exception {
        Path att = Files.writeString(dir.resolve("att.s"), "addq %rbx, %rax\nimulq %rax, %rax\n");
        CliRun asIntel = CliRun.of("predict", "--model", "bounds", "--mcpu", "haswell", "--input", att.toString(),
                "--input-format", "intel");
        assertEquals(2, asIntel.exit());
        assertTrue(asIntel.err().contains("Intel syntax: line 1, column 6: cannot read the operand '%rbx' (this "
                + "looks like AT&T syntax: give --input-format att or leave it out)"), asIntel.err());
        CliRun asAtt = CliRun.of("predict", "--model", "bounds", "--mcpu", "haswell", "--input-format", "att",
                "add rax, rbx");
        assertEquals(2, asAtt.exit());
        assertTrue(asAtt.err().contains("(this looks like Intel syntax: give --input-format intel or leave it out)"),
                asAtt.err());
        // text that is wrong in both says nothing of the other
        CliRun neither = CliRun.of("predict", "--model", "bounds", "--mcpu", "haswell", "--input-format", "intel",
                "addd rax, rbx");
        assertEquals(2, neither.exit());
        assertTrue(!neither.err().contains("looks like"), neither.err());
        // Intel and AT&T in one text: detection picks AT&T for the whole, and the Intel statement fails; say why
        CliRun mixed = CliRun.of("predict", "--model", "bounds", "--mcpu", "haswell",
                "add rax, rbx; imulq (%rax), %rax");
        assertEquals(2, mixed.exit());
        assertTrue(mixed.err().contains("(the text mixes Intel syntax, 'add rax, rbx', and AT&T syntax, 'imulq "
                + "(%rax), %rax': write it in one)"), mixed.err());
        assertEquals(1, mixed.err().lines().count(), mixed.err());
    }

    @Test
    void predictionsFromLlvmMcTextEqualThoseFromTheHex(@TempDir Path dir) throws Exception {
        Assumptions.assumeTrue(CliRun.onPath("llvm-mc-14"), "llvm-mc-14 is not installed (apt-get install llvm-14)");
        List<String> hex = Dataset.bundled().labelled(Microarchitecture.HASWELL).stream().limit(BLOCKS)
                .map(LabelledBlock::hex).toList();
        Path hexFile = Files.writeString(dir.resolve("blocks.txt"), String.join("\n", hex) + "\n");
        for (String syntax : List.of("intel", "att")) {
            String listing = llvmMc(hex, syntax, dir);
            Path asm = Files.writeString(dir.resolve("blocks-" + syntax + ".s"),
                    listing.replaceAll("(?m)^\\s*hlt\\s*$", ""));
            // What llvm-mc's own assembler writes for the same text: the hex an assembler makes of this assembly
            Path assembled = Files.writeString(dir.resolve("assembled-" + syntax + ".txt"),
                    String.join("\n", llvmMcAssemble(listing, syntax, dir)) + "\n");
            for (String model : List.of("simulator", "granite")) {
                List<String[]> fromHex = rows(CliRun.of("predict", "--model", model, "--mcpu", "haswell", "--format",
                        "csv", "--input", hexFile.toString()));
                List<String[]> fromAsm = rows(CliRun.of("predict", "--model", model, "--mcpu", "haswell", "--format",
                        "csv", "--input", asm.toString()));
                List<String[]> fromAssembler = rows(CliRun.of("predict", "--model", model, "--mcpu", "haswell",
                        "--format", "csv", "--input", assembled.toString()));
                int asAssembler = 0;
                assertEquals(BLOCKS, fromAsm.size(), syntax + " " + model);
                int sameBytes = 0;
                int samePrediction = 0;
                List<String> reencoded = new ArrayList<>();
                for (int i = 0; i < BLOCKS; i++) {
                    String original = fromHex.get(i)[0];
                    String again = fromAsm.get(i)[0];
                    reencoded.add(again);
                    if (original.equals(again)) {
                        sameBytes++;
                        assertEquals(fromHex.get(i)[4], fromAsm.get(i)[4], original);
                    } else {
                        // llvm-mc's text does not say how long a padding NOP, a displacement or an immediate was
                        // ("nop dword ptr [rax]" is 3, 4 or 7 bytes, "push 71" 2 or 5): the same instructions must
                        // come back, shorter where the original chose a longer encoding.
                        assertSameInstructions(original, again);
                    }
                    if (fromHex.get(i)[4].equals(fromAsm.get(i)[4])) {
                        samePrediction++;
                    }
                    if (fromAssembler.get(i)[4].equals(fromAsm.get(i)[4])) {
                        asAssembler++;
                    }
                }
                // ... and the assembly path adds nothing of its own: its blocks predict as their own hex does.
                Path reencodedFile = Files.writeString(dir.resolve("reencoded.txt"), String.join("\n", reencoded));
                List<String[]> fromReencoded = rows(CliRun.of("predict", "--model", model, "--mcpu", "haswell",
                        "--format", "csv", "--input", reencodedFile.toString()));
                for (int i = 0; i < BLOCKS; i++) {
                    assertEquals(fromReencoded.get(i)[4], fromAsm.get(i)[4], reencoded.get(i));
                }
                System.err.printf("assembly input (%s, %s): %d of %d blocks re-encode to the same bytes, %d predict"
                        + " the same as the original hex (the rest: padding NOPs and a push immediate whose length the text does not say),"
                        + " %d the same as the hex llvm-mc's own assembler writes for the text%n", syntax, model,
                        sameBytes, BLOCKS, samePrediction, asAssembler);
                assertTrue(sameBytes >= 0.95 * BLOCKS, syntax + ": " + sameBytes);
                assertEquals(BLOCKS, asAssembler, syntax + " " + model + ": as llvm-mc's assembler");
            }
        }
    }

    private static void assertSameInstructions(String originalHex, String againHex) {
        List<Instruction> a = BasicBlock.fromHex(originalHex).instructions();
        List<Instruction> b = BasicBlock.fromHex(againHex).instructions();
        assertEquals(a.size(), b.size(), originalHex + " vs " + againHex);
        for (int k = 0; k < a.size(); k++) {
            assertEquals(a.get(k).intelSyntax(), b.get(k).intelSyntax(), originalHex + " vs " + againHex);
            assertTrue(b.get(k).length() <= a.get(k).length(), originalHex + " vs " + againHex);
        }
    }

    @Test
    void anArgumentMayBeAssemblyInEitherSyntax() {
        CliRun hex = CliRun.of("predict", "--model", "simulator", "--mcpu", "haswell", "--format", "csv",
                "4801d8480fafc0");
        CliRun intel = CliRun.of("predict", "--model", "simulator", "--mcpu", "haswell", "--format", "csv",
                "add rax, rbx; imul rax, rax");
        CliRun att = CliRun.of("predict", "--model", "simulator", "--mcpu", "haswell", "--format", "csv",
                "addq %rbx, %rax\nimulq %rax, %rax");
        assertEquals(0, intel.exit(), intel.err());
        assertEquals(hex.out(), intel.out());
        assertEquals(hex.out(), att.out());
        CliRun forced = CliRun.of("decode", "--input-format", "intel", "add rax, rbx");
        assertTrue(forced.out().contains("add rax, rbx"), forced.out());
    }

    @Test
    void badAssemblyIsNamedByLineAndColumn(@TempDir Path dir) throws Exception {
        CliRun unknown = CliRun.of("predict", "--model", "simulator", "add rax, rbx; frob rax");
        assertEquals(2, unknown.exit());
        assertTrue(unknown.err().contains("block argument 1, Intel syntax: line 1, column 15: unknown mnemonic 'frob'"),
                unknown.err());
        Path file = Files.writeString(dir.resolve("loop.s"), "loop:\n  addq %rbx, %rax\n  decq %rcx\n  jnz lop\n"
                + "  movq (%rax,%rbx,3), %rcx\n");
        CliRun bad = CliRun.of("simulate", "--mcpu", "haswell", "--input", file.toString());
        assertEquals(2, bad.exit());
        assertTrue(bad.err().contains("--input " + file + ", AT&T syntax: line 5, column 8: scale 3"), bad.err());
        CliRun hexOnly = CliRun.of("predict", "--model", "simulator", "--input-format", "hex", "add rax, rbx");
        assertEquals(2, hexOnly.exit());
        CliRun format = CliRun.of("predict", "--input-format", "masm", "4801d8");
        assertEquals(2, format.exit());
        assertTrue(format.err().contains("--input-format must be hex, intel, att or auto, got 'masm'"), format.err());
    }

    @Test
    void anObjdumpListingIsReadAsAssemblyWithoutBeingTold(@TempDir Path dir) throws Exception {
        Assumptions.assumeTrue(CliRun.onPath("objdump"), "objdump is not installed");
        Path listing = dir.resolve("true.lst");
        Process p = new ProcessBuilder("objdump", "-d", "/bin/true").redirectOutput(listing.toFile()).start();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0);
        CliRun auto = CliRun.of("decode", "--format", "csv", "--input", listing.toString());
        CliRun att = CliRun.of("decode", "--format", "csv", "--input-format", "att", "--input", listing.toString());
        assertEquals(0, att.exit(), att.err());
        assertEquals(att.out(), auto.out(), auto.err());
        assertTrue(auto.out().lines().count() > 100, "a listing of /bin/true has many instructions");
    }

    private static List<String[]> rows(CliRun run) {
        assertEquals(0, run.exit(), run.err());
        return run.out().lines().skip(1).map(l -> l.split(",", -1)).toList();
    }

    /** llvm-mc-14's disassembly of each block, blocks separated by blank lines. */
    private static String llvmMc(List<String> hex, String syntax, Path dir) throws Exception {
        StringBuilder in = new StringBuilder();
        for (String h : hex) {
            in.append('[');
            for (int k = 0; k < h.length(); k += 2) {
                in.append(k == 0 ? "" : " ").append("0x").append(h, k, k + 2);
            }
            in.append("] [0xf4]\n");
        }
        Path input = Files.writeString(dir.resolve("bytes.txt"), in);
        Path output = dir.resolve("llvm-mc.s");
        Process p = new ProcessBuilder("llvm-mc-14", "--disassemble", "-triple=x86_64-unknown-linux-gnu",
                "--output-asm-variant=" + (syntax.equals("intel") ? 1 : 0), input.toString())
                .redirectOutput(output.toFile()).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        assertTrue(p.waitFor(120, TimeUnit.SECONDS));
        // hlt marks the end of each block; the caller makes it a blank line, as blocks are separated in a user's file
        return Files.readString(output);
    }

    /** The hex llvm-mc-14's assembler writes for each block of {@code listing} (blocks ended by hlt). */
    private static List<String> llvmMcAssemble(String listing, String syntax, Path dir) throws Exception {
        Path input = Files.writeString(dir.resolve("to-assemble.s"),
                (syntax.equals("intel") ? ".intel_syntax noprefix\n" : "") + listing);
        Path output = dir.resolve("assembled.txt");
        Process p = new ProcessBuilder("llvm-mc-14", "-triple=x86_64-unknown-linux-gnu", "--show-encoding",
                input.toString()).redirectOutput(output.toFile()).redirectError(ProcessBuilder.Redirect.DISCARD)
                .start();
        assertTrue(p.waitFor(120, TimeUnit.SECONDS));
        List<String> blocks = new ArrayList<>();
        StringBuilder block = new StringBuilder();
        java.util.regex.Pattern encoding = java.util.regex.Pattern.compile("encoding: \\[([^]]*)]");
        for (String line : Files.readAllLines(output)) {
            java.util.regex.Matcher m = encoding.matcher(line);
            if (m.find()) {
                StringBuilder bytes = new StringBuilder();
                for (String b : m.group(1).split(",")) {
                    bytes.append(String.format("%02x", Integer.parseInt(b.substring(2), 16)));
                }
                if (bytes.toString().equals("f4")) {
                    blocks.add(block.toString());
                    block.setLength(0);
                } else {
                    block.append(bytes);
                }
            }
        }
        assertEquals(hexCount(listing), blocks.size());
        return blocks;
    }

    private static int hexCount(String listing) {
        return (int) listing.lines().filter(l -> l.strip().equals("hlt")).count();
    }
}
