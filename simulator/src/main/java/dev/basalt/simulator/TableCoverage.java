package dev.basalt.simulator;

import dev.basalt.simulator.params.SimulatorParams;
import dev.basalt.decoder.ElfCode;
import dev.basalt.decoder.CodeScan;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntConsumer;
import java.util.stream.Stream;

/**
 * How much of real code a simulator table prices with its own rows: the instruction forms of ELF files'
 * executable sections (linear-sweep disassembly, {@link CodeScan}), counted by occurrence, against the forms a
 * table has. A form without a row falls back to a mnemonic or generic row (and a prediction says so in a note).
 */
public final class TableCoverage {

    private TableCoverage() {
    }

    /** One form's occurrences in the scanned code, with its ISA extension. */
    public record FormCount(String form, long occurrences, String isaExtension) {
    }

    /**
     * What a scan found.
     *
     * @param files        ELF files scanned
     * @param codeBytes    bytes in their executable sections
     * @param instructions instructions decoded
     * @param skippedBytes bytes no instruction starts with (data or padding in the code), skipped
     * @param forms        occurrences per form
     * @param notScanned   files given or found that were not scanned, each with the reason (not ELF, another
     *                     machine, unreadable)
     */
    public record Scan(long files, long codeBytes, long instructions, long skippedBytes,
                       Map<String, FormCount> forms, List<String> notScanned) {
    }

    /** The files {@code paths} stand for: a folder stands for the regular files directly in it, in name order. */
    public static List<Path> files(List<Path> paths) throws IOException {
        List<Path> files = new ArrayList<>();
        for (Path p : paths) {
            if (Files.isDirectory(p)) {
                try (Stream<Path> s = Files.list(p)) {
                    s.filter(Files::isRegularFile).sorted().forEach(files::add);
                }
            } else {
                files.add(p);
            }
        }
        return files;
    }

    /**
     * Scans the executable sections of every x86-64 ELF file among {@code files} (see {@link #files}).
     *
     * @param progress told how many files are done after each one
     */
    public static Scan scan(List<Path> files, IntConsumer progress) {
        Map<String, long[]> counts = new HashMap<>();
        Map<String, String> extension = new HashMap<>();
        List<String> notScanned = new ArrayList<>();
        long scanned = 0;
        long bytes = 0;
        long instructions = 0;
        long skipped = 0;
        int done = 0;
        for (Path f : files) {
            progress.accept(done++);
            if (!ElfCode.isElf(f)) {
                notScanned.add(f + ": not an ELF file");
                continue;
            }
            List<ElfCode.Section> sections;
            try {
                sections = ElfCode.executableSections(f);
            } catch (IOException e) {
                notScanned.add(e.getMessage());
                continue;
            }
            scanned++;
            for (ElfCode.Section s : sections) {
                bytes += s.bytes().length;
                CodeScan.Result r = CodeScan.linear(s.bytes(), 0, s.bytes().length, insn -> {
                    long[] c = counts.get(insn.form());
                    if (c == null) {
                        c = new long[1];
                        counts.put(insn.form(), c);
                        extension.put(insn.form(), insn.isaExtension());
                    }
                    c[0]++;
                });
                instructions += r.instructions();
                skipped += r.skippedBytes();
            }
        }
        progress.accept(done);
        Map<String, FormCount> forms = new HashMap<>();
        counts.forEach((form, c) -> forms.put(form, new FormCount(form, c[0], extension.get(form))));
        return new Scan(scanned, bytes, instructions, skipped, Map.copyOf(forms), List.copyOf(notScanned));
    }

    /**
     * A table's coverage of a scan.
     *
     * @param tableForms the table's forms
     * @param covered    occurrences whose form has a row
     * @param total      all occurrences
     * @param missing    the forms without a row, most frequent first
     */
    public record Coverage(String mcpu, int tableForms, long covered, long total, List<FormCount> missing) {
        /** Covered occurrences in percent (100 for no code). */
        public double percent() {
            return total == 0 ? 100 : 100.0 * covered / total;
        }
    }

    /** {@code table}'s coverage of {@code scan}. */
    public static Coverage of(Scan scan, SimulatorParams table) {
        long covered = 0;
        List<FormCount> missing = new ArrayList<>();
        for (FormCount f : scan.forms().values()) {
            if (table.forms().containsKey(f.form())) {
                covered += f.occurrences();
            } else {
                missing.add(f);
            }
        }
        missing.sort(Comparator.comparingLong(FormCount::occurrences).reversed().thenComparing(FormCount::form));
        return new Coverage(table.mcpu(), table.forms().size(), covered, scan.instructions(), List.copyOf(missing));
    }
}
