package dev.basalt.decoder;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Function boundaries from the unwind table ({@code .eh_frame}) of a stripped program: the same functions, at the
 * same addresses and sizes, as its symbol table gave before {@code strip}; and malformed records refused by offset.
 */
class UnwindTableTest {

    private static void run(Path dir, String... command) throws Exception {
        Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertTrue(p.waitFor(120, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), String.join(" ", command) + ": " + out);
    }

    @Test
    void aStrippedProgramsFunctionsAreItsSymbolTablesOnes(@TempDir Path dir) throws Exception {
        Assumptions.assumeTrue(TestBlocks.onPath("gcc") && TestBlocks.onPath("strip"), "gcc and strip are needed (apt-get install gcc)");
        Files.writeString(dir.resolve("p.c"), String.join("\n",
                "#include <stdio.h>",
                "__attribute__((noinline)) unsigned crc(const unsigned char *p, long n) {",
                "  unsigned c = ~0u; for (long i = 0; i < n; i++) { c ^= p[i];",
                "    for (int k = 0; k < 8; k++) c = (c >> 1) ^ (0xedb88320u & -(c & 1)); } return ~c; }",
                "__attribute__((noinline)) long sum(const long *a, long n) {",
                "  long s = 0; for (long i = 0; i < n; i++) s += a[i]; return s; }",
                "int main(int argc, char **argv) { long a[4] = {argc, 2, 3, 4};",
                "  printf(\"%u %ld\\n\", crc((const unsigned char *) argv[0], 4), sum(a, 4)); return 0; }", ""));
        run(dir, "gcc", "-O2", "-o", "p", "p.c");
        ElfCode.Functions symbols = ElfCode.functions(dir.resolve("p"));
        assertEquals(ElfCode.Boundaries.SYMBOLS, symbols.boundaries());
        run(dir, "strip", "-o", "p.stripped", "p");
        ElfCode.Functions unwind = ElfCode.functions(dir.resolve("p.stripped"));
        assertTrue(unwind.stripped());
        assertEquals(ElfCode.Boundaries.UNWIND_TABLE, unwind.boundaries());
        Map<Long, Integer> found = new TreeMap<>();
        unwind.functions().forEach(f -> found.put(f.address(), f.bytes().length));
        for (String name : List.of("crc", "sum", "main")) {
            ElfCode.Function f = symbols.functions().stream().filter(g -> g.name().equals(name)).findFirst()
                    .orElseThrow();
            assertEquals(f.bytes().length, found.get(f.address()), name + " at 0x" + Long.toHexString(f.address()));
        }
        // Named as a disassembler names what it does not know: by address.
        assertTrue(unwind.functions().stream().allMatch(f -> f.name().equals("fun_" + Long.toHexString(f.address()))));
        // lld types .eh_frame SHT_X86_64_UNWIND (libLLVM-19 is linked so), GNU ld SHT_PROGBITS: the same table.
        Path lld = dir.resolve("p.unwind-typed");
        Files.write(lld, retyped(Files.readAllBytes(dir.resolve("p.stripped")), ".eh_frame", 0x70000001));
        ElfCode.Functions typed = ElfCode.functions(lld);
        assertEquals(ElfCode.Boundaries.UNWIND_TABLE, typed.boundaries());
        assertEquals(unwind.functions().stream().map(ElfCode.Function::address).toList(),
                typed.functions().stream().map(ElfCode.Function::address).toList());
    }

    /** An ELF file's bytes with the named section's sh_type changed (64-bit, little-endian headers). */
    private static byte[] retyped(byte[] elf, String section, int type) {
        java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(elf).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        long shoff = b.getLong(0x28);
        int size = Short.toUnsignedInt(b.getShort(0x3A));
        int count = Short.toUnsignedInt(b.getShort(0x3C));
        int names = Short.toUnsignedInt(b.getShort(0x3E));
        long strtab = b.getLong((int) (shoff + (long) names * size + 0x18));
        for (int k = 0; k < count; k++) {
            int at = (int) (shoff + (long) k * size);
            int name = (int) (strtab + b.getInt(at));
            int end = name;
            while (elf[end] != 0) {
                end++;
            }
            if (new String(elf, name, end - name, java.nio.charset.StandardCharsets.US_ASCII).equals(section)) {
                b.putInt(at + 4, type);
                return elf;
            }
        }
        throw new AssertionError("no section " + section);
    }

    @Test
    void malformedRecordsAreRefusedByOffset() {
        // A CIE (version 1, augmentation "zR", pcrel|sdata4), then an FDE whose length runs past the section.
        byte[] cie = {0x14, 0, 0, 0, 0, 0, 0, 0, 1, 'z', 'R', 0, 1, 0x78, 0x10, 1, 0x1b, 0, 0, 0, 0, 0, 0, 0};
        byte[] bad = new byte[cie.length + 8];
        System.arraycopy(cie, 0, bad, 0, cie.length);
        bad[cie.length] = 0x40; // 64 bytes claimed, 4 there
        IOException e = assertThrows(IOException.class, () -> UnwindTable.ranges(bad, 0x1000, 0, "p"));
        assertTrue(e.getMessage().contains("offset 0x18"), e.getMessage());
        // An FDE pointing back to no CIE.
        byte[] orphan = {0x10, 0, 0, 0, 0x7f, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
        IOException o = assertThrows(IOException.class, () -> UnwindTable.ranges(orphan, 0x1000, 0, "p"));
        assertTrue(o.getMessage().contains("offset 0x0") && o.getMessage().contains("names no CIE"), o.getMessage());
        // The terminator, and nothing: no functions.
        assertEquals(List.of(), assertDoesNotThrow(() -> UnwindTable.ranges(new byte[] {0, 0, 0, 0}, 0, 0, "p")));
    }
}
