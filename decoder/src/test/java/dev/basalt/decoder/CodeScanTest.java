package dev.basalt.decoder;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Linear-sweep disassembly, and the executable sections of ELF files. */
class CodeScanTest {

    @Test
    void skipsBytesNoInstructionStartsWith() {
        // add rax, rcx; 0x06 (push es: invalid in 64-bit mode); add rax, rcx; then a truncated mov.
        byte[] code = Hex.parse("4801c8064801c848b8");
        List<Instruction> seen = new ArrayList<>();
        CodeScan.Result r = CodeScan.linear(code, 0, code.length, seen::add);
        assertEquals(2, r.instructions());
        assertEquals(3, r.skippedBytes(), "the invalid byte and the two bytes of the truncated mov");
        assertEquals(List.of(0, 4), seen.stream().map(Instruction::offset).toList());
        assertEquals("ADD r64, r64", seen.get(1).form());
        // A sub-range: offsets count from its start.
        List<Instruction> tail = new ArrayList<>();
        CodeScan.linear(code, 4, 7, tail::add);
        assertEquals(List.of(0), tail.stream().map(Instruction::offset).toList());
    }

    @Test
    void readsTheCodeOfTheRunningJavaLauncher() throws IOException {
        Path launcher = Path.of(ProcessHandle.current().info().command().orElseThrow());
        assertTrue(ElfCode.isElf(launcher), launcher + " is an ELF program");
        List<ElfCode.Section> sections = ElfCode.executableSections(launcher);
        assertTrue(sections.stream().anyMatch(s -> s.name().equals(".text")), "sections: " + sections.stream()
                .map(ElfCode.Section::name).toList());
        long instructions = 0;
        long skipped = 0;
        long bytes = 0;
        for (ElfCode.Section s : sections) {
            CodeScan.Result r = CodeScan.linear(s.bytes(), 0, s.bytes().length, i -> { });
            instructions += r.instructions();
            skipped += r.skippedBytes();
            bytes += s.bytes().length;
        }
        assertTrue(instructions > 100, "instructions: " + instructions);
        assertTrue(skipped < bytes / 100, "skipped " + skipped + " of " + bytes + " bytes");
    }

    @Test
    void aFileThatIsNotElfOrIsTruncatedIsRefusedWithItsName(@org.junit.jupiter.api.io.TempDir Path dir)
            throws IOException {
        Path text = Files.writeString(dir.resolve("notes.txt"), "not a program\n");
        assertFalse(ElfCode.isElf(text));
        IOException e = assertThrows(IOException.class, () -> ElfCode.executableSections(text));
        assertTrue(e.getMessage().startsWith(text.toString()), e.getMessage());
        Path launcher = Path.of(ProcessHandle.current().info().command().orElseThrow());
        Path cut = dir.resolve("cut");
        Files.write(cut, java.util.Arrays.copyOf(Files.readAllBytes(launcher), 200));
        assertTrue(ElfCode.isElf(cut));
        IOException t = assertThrows(IOException.class, () -> ElfCode.executableSections(cut));
        assertTrue(t.getMessage().startsWith(cut.toString()), t.getMessage());
        assertFalse(ElfCode.isElf(dir), "a folder is no ELF file");
    }
}
