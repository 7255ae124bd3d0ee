package dev.basalt.decoder;

import net.fornwall.jelf.ElfFile;
import net.fornwall.jelf.ElfSection;
import net.fornwall.jelf.ElfSectionHeader;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The executable code of an ELF file (a program or shared library), read with the jelf library: every section
 * of type {@code PROGBITS} with the execute flag ({@code .text}, {@code .plt}, {@code .init}, ...).
 */
public final class ElfCode {

    private ElfCode() {
    }

    /** One executable section: its name, address and bytes. */
    public record Section(String name, long address, byte[] bytes) {
    }

    /** ELF's machine number of x86-64. */
    private static final int EM_X86_64 = 62;
    private static final byte[] MAGIC = {0x7f, 'E', 'L', 'F'};

    /** Whether {@code file} starts like an ELF file (its first four bytes), without reading the rest. */
    public static boolean isElf(Path file) {
        if (!Files.isRegularFile(file)) {
            return false;
        }
        byte[] head = new byte[4];
        try (InputStream in = Files.newInputStream(file)) {
            return in.readNBytes(head, 0, 4) == 4 && java.util.Arrays.equals(head, MAGIC);
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * The executable sections of a 64-bit x86 ELF file.
     *
     * @throws IOException when the file cannot be read, is not ELF, or is ELF for another machine
     */
    public static List<Section> executableSections(Path file) throws IOException {
        long size = Files.size(file);
        ElfFile elf;
        try {
            elf = ElfFile.from(file.toFile());
        } catch (IOException | RuntimeException e) { // ElfException, and what a malformed header makes jelf throw
            throw new IOException(file + ": not a readable ELF file (" + e.getMessage() + ")", e);
        }
        if (elf.is32Bits() || elf.e_machine != EM_X86_64) {
            throw new IOException(file + ": ELF for machine " + elf.e_machine + (elf.is32Bits() ? " (32-bit)" : "")
                    + ", not x86-64");
        }
        List<Section> out = new ArrayList<>();
        try {
            for (int k = 0; k < Short.toUnsignedInt(elf.e_shnum); k++) {
                ElfSection s = elf.getSection(k);
                ElfSectionHeader h = s.header;
                if (h.sh_type == ElfSectionHeader.SHT_PROGBITS && (h.sh_flags & ElfSectionHeader.FLAG_EXEC_INSTR) != 0
                        && h.sh_size > 0) {
                    // A header may claim any size: only bytes the file has are read (and no more than an array holds).
                    if (h.sh_offset < 0 || h.sh_size > size - h.sh_offset || h.sh_size > Integer.MAX_VALUE - 16) {
                        throw new IOException(file + ": section " + h.getName() + " of " + h.sh_size + " bytes at "
                                + h.sh_offset + " lies outside the file (" + size + " bytes)");
                    }
                    out.add(new Section(h.getName(), h.sh_addr, s.getData()));
                }
            }
        } catch (RuntimeException e) { // ElfException included
            throw new IOException(file + ": malformed ELF section table (" + e.getMessage() + ")", e);
        }
        return out;
    }
}
