package dev.basalt.decoder;

import net.fornwall.jelf.ElfFile;
import net.fornwall.jelf.ElfSection;
import net.fornwall.jelf.ElfSectionHeader;
import net.fornwall.jelf.ElfSymbol;
import net.fornwall.jelf.ElfSymbolTableSection;

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

    /**
     * Where an executable section lies in the file and in the program's addresses: a profile of the running program
     * names a sample by its offset in the mapped file, which this turns into the address the analysis uses.
     */
    public record Placement(long offset, long address, long size) {

        /** The address of file offset {@code at} when it lies in this section. */
        public java.util.OptionalLong addressOf(long at) {
            return at >= offset && at - offset < size ? java.util.OptionalLong.of(address + (at - offset))
                    : java.util.OptionalLong.empty();
        }
    }

    /**
     * One function: its symbol's name, address and bytes. For a stripped file (no {@code .symtab}) each executable
     * section is one "function" named after the section.
     */
    public record Function(String name, long address, byte[] bytes) {
    }

    /**
     * The functions of an ELF file, whether they come from its symbol table, and, for a stripped file, the
     * addresses where its dynamic symbol table says functions start (exported ones).
     */
    public record Functions(List<Function> functions, boolean stripped, java.util.Set<Long> knownStarts,
                            List<Function> exported, Boundaries boundaries, List<Placement> placements) {

        public Functions {
            placements = List.copyOf(placements);
            functions = List.copyOf(functions);
            knownStarts = java.util.Collections.unmodifiableNavigableSet(new java.util.TreeSet<>(knownStarts));
            List<Function> byAddress = new ArrayList<>(exported);
            byAddress.sort(java.util.Comparator.comparingLong(Function::address));
            exported = List.copyOf(byAddress);
            java.util.Objects.requireNonNull(boundaries, "boundaries");
        }

        public Functions(List<Function> functions, boolean stripped, java.util.Set<Long> knownStarts) {
            this(functions, stripped, knownStarts, List.of(), stripped ? Boundaries.SECTIONS : Boundaries.SYMBOLS,
                    List.of());
        }

        /**
         * {@code address} as a person finds it in a stripped file: the exported function it lies in and the offset
         * ({@code crc32+0x1a}), or empty when none holds it.
         */
        public java.util.Optional<String> exportedName(long address) {
            // the last exported function starting at or before the address (exported is in address order): a
            // binary search, asked once per block of a program of hundreds of thousands
            int lo = 0;
            int hi = exported.size() - 1;
            int found = -1;
            while (lo <= hi) {
                int mid = (lo + hi) >>> 1;
                if (exported.get(mid).address() <= address) {
                    found = mid;
                    lo = mid + 1;
                } else {
                    hi = mid - 1;
                }
            }
            for (int k = found; k >= 0 && k > found - 8; k--) { // a few back: sizes may overlap (aliases)
                Function f = exported.get(k);
                if (address >= f.address() && address < f.address() + f.bytes().length) {
                    return java.util.Optional.of(address == f.address() ? f.name()
                            : f.name() + "+0x" + Long.toHexString(address - f.address()));
                }
            }
            return java.util.Optional.empty();
        }
    }

    /** Where a file's function boundaries came from. */
    public enum Boundaries {
        /** The symbol table's sized functions (with the unwind table's for code no symbol covers). */
        SYMBOLS,
        /** The unwind table's FDEs ({@link UnwindTable}): a stripped file built with unwind information. */
        UNWIND_TABLE,
        /** None known: each executable section whole. */
        SECTIONS
    }

    /** The x86-64 ABI's section type for unwind tables, which some linkers give {@code .eh_frame}. */
    private static final int SHT_X86_64_UNWIND = 0x70000001;

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
        List<Section> out = new ArrayList<>();
        for (Indexed s : sections(file.toString(), Files.size(file), open(file))) {
            out.add(s.section);
        }
        return out;
    }

    private record Indexed(int index, Section section, long offset) {
    }

    /**
     * The functions of a 64-bit x86 ELF file: every {@code STT_FUNC} symbol of {@code .symtab} with a size, in an
     * executable section, in address order (one name per address); in a relocatable object the addresses are
     * offsets in their section. A file without {@code .symtab} (stripped) gives its executable sections whole.
     *
     * @throws IOException when the file cannot be read, is not ELF, or is ELF for another machine
     */
    public static Functions functions(Path file) throws IOException {
        ElfFile elf = open(file);
        return functions(elf, sections(file.toString(), Files.size(file), elf), file);
    }

    /**
     * As {@link #functions(Path)}, for an ELF file's bytes (an upload): {@code name} names it in messages. No file is
     * read or written.
     */
    public static Functions functions(byte[] bytes, String name) throws IOException {
        ElfFile elf = open(bytes, name);
        return functions(elf, sections(name, bytes.length, elf), Path.of(name.replaceAll("[^\\w.-]", "_")));
    }

    private static Functions functions(ElfFile elf, List<Indexed> sections, Path file) throws IOException {
        ElfSymbolTableSection symtab;
        ElfSymbolTableSection dynsym;
        try {
            symtab = elf.getSymbolTableSection();
            dynsym = elf.getDynamicSymbolTableSection();
        } catch (RuntimeException e) {
            throw new IOException(file + ": malformed symbol table (" + e.getMessage() + ")", e);
        }
        List<Function> named = symtab == null ? List.of() : named(symtab, sections, file);
        List<UnwindTable.Range> unwind = unwindRanges(elf, file);
        List<Placement> placed = sections.stream()
                .map(s -> new Placement(s.offset, s.section.address(), s.section.bytes().length)).toList();
        if (named.isEmpty()) {
            // Stripped: the unwind table's functions, else the sections whole; a shared library's exported functions
            // still name and mark where functions start.
            java.util.Set<Long> starts = new java.util.HashSet<>();
            List<Function> exported = dynsym == null ? List.of() : named(dynsym, sections, file);
            exported.forEach(f -> starts.add(f.address()));
            List<Function> fromUnwind = fromUnwind(unwind, sections, List.of(), exported);
            if (!fromUnwind.isEmpty()) {
                fromUnwind.forEach(f -> starts.add(f.address()));
                return new Functions(fromUnwind, true, starts, exported, Boundaries.UNWIND_TABLE, placed);
            }
            List<Function> whole = new ArrayList<>();
            for (Indexed s : sections) {
                whole.add(new Function(s.section.name(), s.section.address(), s.section.bytes()));
            }
            return new Functions(whole, true, starts, exported, Boundaries.SECTIONS, placed);
        }
        // A partial symbol table: the unwind table's functions where no symbol covers their start.
        List<Function> all = new ArrayList<>(named);
        all.addAll(fromUnwind(unwind, sections, named, List.of()));
        all.sort(java.util.Comparator.comparingLong(Function::address));
        return new Functions(all, false, java.util.Set.of(), List.of(), Boundaries.SYMBOLS, placed);
    }

    /**
     * The FDE ranges of the file's {@code .eh_frame} (none when it has none, or is a relocatable object, whose FDEs
     * point at their code only through relocations).
     */
    private static List<UnwindTable.Range> unwindRanges(ElfFile elf, Path file) throws IOException {
        if (elf.e_type == 1) { // ET_REL
            return List.of();
        }
        byte[] data = null;
        long address = 0;
        long got = 0;
        try {
            for (int k = 0; k < Short.toUnsignedInt(elf.e_shnum); k++) {
                ElfSection s = elf.getSection(k);
                String name = s.header.getName();
                // lld and some linkers type it SHT_X86_64_UNWIND (libLLVM-19), GNU ld SHT_PROGBITS
                if (".eh_frame".equals(name) && (s.header.sh_type == ElfSectionHeader.SHT_PROGBITS
                        || s.header.sh_type == SHT_X86_64_UNWIND)) {
                    data = s.getData();
                    address = s.header.sh_addr;
                } else if (".got".equals(name)) {
                    got = s.header.sh_addr;
                }
            }
        } catch (RuntimeException e) {
            throw new IOException(file + ": malformed ELF section table (" + e.getMessage() + ")", e);
        }
        return data == null ? List.of() : UnwindTable.ranges(data, address, got, file.toString());
    }

    /**
     * Functions for the unwind table's ranges that lie in an executable section and start inside no function of
     * {@code covered}: named by an exported function starting there, else {@code fun_<address>}; in address order,
     * an overlapping range after the first dropped.
     */
    private static List<Function> fromUnwind(List<UnwindTable.Range> ranges, List<Indexed> sections,
                                             List<Function> covered, List<Function> exported) {
        java.util.Map<Long, String> names = new java.util.HashMap<>();
        exported.forEach(f -> names.putIfAbsent(f.address(), f.name()));
        java.util.TreeMap<Long, Long> taken = new java.util.TreeMap<>();
        covered.forEach(f -> taken.put(f.address(), f.address() + f.bytes().length));
        List<UnwindTable.Range> sorted = new ArrayList<>(ranges);
        sorted.sort(java.util.Comparator.comparingLong(UnwindTable.Range::start));
        List<Function> out = new ArrayList<>();
        for (UnwindTable.Range r : sorted) {
            java.util.Map.Entry<Long, Long> before = taken.floorEntry(r.start());
            if (before != null && r.start() < before.getValue()) {
                continue;
            }
            for (Indexed s : sections) {
                long offset = r.start() - s.section.address();
                if (offset >= 0 && offset < s.section.bytes().length) {
                    long end = Math.min(s.section.bytes().length, offset + r.size());
                    out.add(new Function(names.getOrDefault(r.start(), "fun_" + Long.toHexString(r.start())),
                            r.start(), java.util.Arrays.copyOfRange(s.section.bytes(), (int) offset, (int) end)));
                    taken.put(r.start(), r.start() + (end - offset));
                    break;
                }
            }
        }
        return out;
    }

    /** The sized STT_FUNC symbols of a table that lie in the executable sections, by section then address. */
    private static List<Function> named(ElfSymbolTableSection symtab, List<Indexed> sections, Path file)
            throws IOException {
        // Keyed by section and value: in a relocatable object every section starts at 0 (-ffunction-sections).
        java.util.Map<List<Long>, Function> byAddress = new java.util.TreeMap<>(
                java.util.Comparator.<List<Long>>comparingLong(k -> k.get(0)).thenComparingLong(k -> k.get(1)));
        try {
            for (ElfSymbol sym : symtab.symbols) {
                if (sym.getType() != ElfSymbol.STT_FUNC || sym.st_size <= 0) {
                    continue;
                }
                for (Indexed s : sections) {
                    if (s.index != Short.toUnsignedInt(sym.st_shndx)) {
                        continue;
                    }
                    // In an executable a symbol's value is its address; in a relocatable object (sections at 0),
                    // its offset in the section.
                    long offset = sym.st_value - s.section.address();
                    if (offset < 0 || sym.st_size > s.section.bytes().length - offset) {
                        continue;
                    }
                    byAddress.putIfAbsent(List.of((long) s.index, sym.st_value), new Function(sym.getName(),
                            sym.st_value,
                            java.util.Arrays.copyOfRange(s.section.bytes(), (int) offset,
                                    (int) (offset + sym.st_size))));
                }
            }
        } catch (RuntimeException e) {
            throw new IOException(file + ": malformed symbol table (" + e.getMessage() + ")", e);
        }
        return List.copyOf(byAddress.values());
    }

    private static ElfFile open(Path file) throws IOException {
        if (Files.isDirectory(file)) {
            throw new IOException(file + " is a directory, not an ELF file");
        }
        if (!Files.isReadable(file)) {
            throw new IOException(file + ": no such file, or not readable");
        }
        if (!isElf(file)) {
            throw new IOException(file + " is not an ELF file (it does not start with 0x7f 'ELF')");
        }
        return open(Files.readAllBytes(file), file.toString());
    }

    private static ElfFile open(byte[] bytes, String file) throws IOException {
        if (bytes.length < 4 || bytes[0] != 0x7f || bytes[1] != 'E' || bytes[2] != 'L' || bytes[3] != 'F') {
            throw new IOException(file + " is not an ELF file (it does not start with 0x7f 'ELF')");
        }
        // a 64-bit header that lists no section (e_shnum, little-endian at 60) holds no code to find
        if (bytes.length >= 64 && bytes[4] == 2 && bytes[5] == 1 && bytes[60] == 0 && bytes[61] == 0) {
            throw new IOException(file + " holds no code: an ELF file without sections (e_shnum is 0)");
        }
        if (bytes.length > 5 && bytes[5] != 1) {
            // x86-64 is little-endian; a big-endian header would be parsed (and its tables sized) before the
            // machine check could refuse it
            throw new IOException(file + ": a big-endian ELF file (EI_DATA " + bytes[5] + "), not x86-64");
        }
        checkSectionTable(bytes, file);
        ElfFile elf;
        try {
            elf = ElfFile.from(bytes);
        } catch (RuntimeException e) { // ElfException, and what a malformed header makes jelf throw
            throw new IOException(file + ": not a readable ELF file (" + e.getMessage() + ")", e);
        }
        if (elf.is32Bits() || elf.e_machine != EM_X86_64) {
            throw new IOException(file + ": ELF for machine " + elf.e_machine + (elf.is32Bits() ? " (32-bit)" : "")
                    + ", not x86-64");
        }
        return elf;
    }

    /**
     * Every section's bytes lie in the file, read from the raw headers before the ELF library builds any section: a
     * header claiming gigabytes (of relocations, symbols) would otherwise make it allocate them.
     */
    private static void checkSectionTable(byte[] b, String file) throws IOException {
        boolean wide = b.length > 4 && b[4] == 2;
        if (b.length < (wide ? 64 : 52) || b[5] != 1) {
            return;  // too short for a header, or big-endian: the library refuses it, or the machine check does
        }
        java.nio.ByteBuffer buf = java.nio.ByteBuffer.wrap(b).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        long shoff = wide ? buf.getLong(0x28) : Integer.toUnsignedLong(buf.getInt(0x20));
        int entsize = Short.toUnsignedInt(buf.getShort(wide ? 0x3A : 0x2E));
        int count = Short.toUnsignedInt(buf.getShort(wide ? 0x3C : 0x30));
        if (count == 0) {
            return;
        }
        if (entsize < (wide ? 64 : 40) || shoff < 0 || shoff > b.length
                || (long) entsize * count > b.length - shoff) {
            throw new IOException(file + ": malformed ELF section table (" + count + " headers of " + entsize
                    + " bytes at " + shoff + " do not fit in the file's " + b.length + " bytes)");
        }
        for (int k = 0; k < count; k++) {
            int at = (int) (shoff + (long) k * entsize);
            int type = buf.getInt(at + 4);
            long offset = wide ? buf.getLong(at + 0x18) : Integer.toUnsignedLong(buf.getInt(at + 0x10));
            long size = wide ? buf.getLong(at + 0x20) : Integer.toUnsignedLong(buf.getInt(at + 0x14));
            if (type != 0 && type != 8 && (offset < 0 || size < 0 || offset > b.length || size > b.length - offset)) {
                throw new IOException(file + ": malformed ELF section table (section " + k + " of " + size
                        + " bytes at " + offset + " lies outside the file's " + b.length + " bytes)");
            }
            // hash tables size their arrays from counts in their own bytes: the counts must fit the section
            long needed = -1;
            if (type == 5) {  // SHT_HASH: nbucket, nchain, then both arrays of 4-byte words
                needed = size < 8 ? 8 : 4 * (2 + Integer.toUnsignedLong(buf.getInt((int) offset))
                        + Integer.toUnsignedLong(buf.getInt((int) offset + 4)));
            } else if (type == 0x6ffffff6) {  // SHT_GNU_HASH: nbuckets, symoffset, bloom size, shift
                needed = size < 16 ? 16 : 16 + (wide ? 8 : 4) * Integer.toUnsignedLong(buf.getInt((int) offset + 8))
                        + 4 * Integer.toUnsignedLong(buf.getInt((int) offset));
            }
            if (type == 7) {  // SHT_NOTE: the library allocates each note's name and description by their sizes
                needed = Math.max(12, notesEnd(buf, offset, size));
            }
            if (needed > size) {  // (the library reads the counts even from an empty section)
                if (type == 7) {
                    throw new IOException(file + ": malformed ELF note section (section " + k + " of " + size
                            + " bytes holds notes that need " + needed + ")");
                }
                throw new IOException(file + ": malformed ELF hash table (section " + k + " of " + size
                        + " bytes holds counts that need " + needed + ")");
            }
        }
    }

    /** The bytes a note section's notes need (namesz, descsz, type, then name and description padded to 4). */
    private static long notesEnd(java.nio.ByteBuffer buf, long offset, long size) {
        long at = 0;
        while (at < size) {
            if (size - at < 12) {
                return at + 12;
            }
            long name = Integer.toUnsignedLong(buf.getInt((int) (offset + at)));
            long desc = Integer.toUnsignedLong(buf.getInt((int) (offset + at + 4)));
            at += 12 + (name + 3 & ~3L) + (desc + 3 & ~3L);
        }
        return at;
    }

    private static List<Indexed> sections(String file, long size, ElfFile elf) throws IOException {
        List<Indexed> out = new ArrayList<>();
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
                    out.add(new Indexed(k, new Section(h.getName(), h.sh_addr, s.getData()), h.sh_offset));
                }
            }
        } catch (RuntimeException e) { // ElfException included
            throw new IOException(file + ": malformed ELF section table (" + e.getMessage() + ")", e);
        }
        return out;
    }
}
