package dev.basalt.decoder;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The samples a {@code perf script} text holds for one ELF file, counted by the file's own addresses (those
 * {@link ElfCode} gives its code), so that a program's analysis can rank its loops and blocks by where the program
 * spent its time.
 *
 * <p>{@code perf script}'s default lines are read — {@code comm tid [cpu] time: [period] event: ip sym+off (dso)} —
 * and, with call graphs ({@code perf record -g}), the first frame under each sample. A sample's address in the file
 * comes from its symbol and offset when the file names that symbol; else from the mapping of the file that holds
 * it ({@code perf script --show-mmap-events}: start, length and file offset); else, for a program loaded where it
 * was linked (not position-independent), the sample's own address. A call graph's frame is printed relative to
 * its file's mapping (perf 6.1: the address less the mapping's start plus its file offset), so its address is the
 * one the file offset has. Memory grows with the file's distinct sampled
 * addresses, not with the text's length.
 */
public final class PerfSamples {

    /**
     * The file's samples.
     *
     * @param byAddress samples per address of the file's code
     * @param total     samples of every program and library in the text
     * @param inFile    samples in the file (mapped or not)
     * @param unmapped  samples in the file whose address could not be found (a position-independent file without
     *                  symbols for them, profiled without {@code --show-mmap-events})
     * @param others    samples per other file, the largest first (at most ten), to say what the profile holds
     */
    public record Counts(NavigableMap<Long, Long> byAddress, long total, long inFile, long unmapped,
                         Map<String, Long> others) {

        /** The samples at addresses {@code [from, to)}. */
        public long between(long from, long to) {
            long n = 0;
            for (long c : byAddress.subMap(from, true, to, false).values()) {
                n += c;
            }
            return n;
        }

        /** The samples mapped to an address of the file. */
        public long mapped() {
            return inFile - unmapped;
        }
    }

    private PerfSamples() {
    }

    // the time stamp ends the sample's prefix (comm, tid, cpu): "1234.567890:"
    private static final Pattern TIME = Pattern.compile("\\s(\\d+\\.\\d+):");
    // after the time: an optional period, the event ("cpu-clock:", "cycles:u:"), the ip, the symbol, "(dso)"
    private static final Pattern SAMPLE = Pattern.compile(
            "^\\s*(?:\\d+\\s+)?\\S+:\\s+(\\p{XDigit}+)\\s+(.*?)\\s*\\(([^()]*)\\)\\s*$");
    // a call graph's frame: "\t  55d0c0a01139 main+0x10 (/tmp/a.out)"
    private static final Pattern FRAME = Pattern.compile("^\\s+(\\p{XDigit}+)\\s+(.*?)\\s*\\(([^()]*)\\)\\s*$");
    // "... PERF_RECORD_MMAP2 6893/6893: [0x558b50111000(0x1000) @ 0x1000 fe:00 2187615 0]: r-xp /tmp/prof/hot"
    private static final Pattern MMAP = Pattern.compile(
            "PERF_RECORD_MMAP2?\\s.*?\\[0x(\\p{XDigit}+)\\(0x(\\p{XDigit}+)\\) @ (?:0x)?(\\p{XDigit}+)[^\\]]*\\]:"
                    + "\\s+(\\S+)\\s+(.+?)\\s*$");
    private static final Pattern SYMBOL = Pattern.compile("^(.+?)\\+0x(\\p{XDigit}+)$");

    /** A mapping of the file into a process: {@code [start, start + length)} holds file offset {@code offset}. */
    private record Mapping(long start, long length, long offset) {
    }

    /**
     * Reads a {@code perf script} text.
     *
     * @param in     the text, read line by line
     * @param source names the text in messages (a file name)
     * @param file   the ELF file whose samples are counted, as the profile names it (its real path or its name)
     * @param found  the file's functions, symbols and placements ({@link ElfCode#functions(Path)})
     * @throws IOException when the text cannot be read, or holds no sample at all (it is not {@code perf script}'s)
     */
    public static Counts read(BufferedReader in, String source, Path file, ElfCode.Functions found)
            throws IOException {
        Path real = real(file);
        Map<String, Long> symbols = new HashMap<>();
        for (ElfCode.Function f : found.exported()) {
            symbols.putIfAbsent(f.name(), f.address());
        }
        if (!found.stripped()) {
            for (ElfCode.Function f : found.functions()) {
                symbols.putIfAbsent(f.name(), f.address());
            }
        }
        Map<String, Boolean> ours = new HashMap<>();  // dso name -> is it the file (asked once per name)
        List<Mapping> mappings = new ArrayList<>();
        TreeMap<Long, Long> byAddress = new TreeMap<>();
        Map<String, Long> others = new HashMap<>();
        long total = 0;
        long inFile = 0;
        long unmapped = 0;
        boolean awaitingFrame = false;
        String line;
        int number = 0;
        StringBuilder buffer = new StringBuilder();
        while ((line = line(in, buffer)) != null) {
            number++;
            if (line.length() > MAX_LINE) {
                throw new IOException(source + ":" + number + ": a line of more than " + MAX_LINE
                        + " characters; not a perf script text");
            }
            if (line.contains("PERF_RECORD_MMAP")) {
                Matcher m = MMAP.matcher(line);
                if (m.find() && m.group(4).contains("x")
                        && ours.computeIfAbsent(m.group(5), d -> same(d, file, real))) {
                    try {
                        mappings.add(new Mapping(Long.parseUnsignedLong(m.group(1), 16),
                                Long.parseUnsignedLong(m.group(2), 16), Long.parseUnsignedLong(m.group(3), 16)));
                    } catch (NumberFormatException e) {
                        throw new IOException(source + ":" + number + ": a mapping with an address past 64 bits");
                    }
                }
                awaitingFrame = false;
                continue;
            }
            Matcher m = null;
            boolean relative = false;
            if (awaitingFrame) {
                Matcher frame = FRAME.matcher(line);
                if (frame.find()) {
                    m = frame;
                    relative = true;
                }
                awaitingFrame = false;
            } else if (!line.startsWith("\t")) {  // a call graph's frames start with a tab
                Matcher time = TIME.matcher(line);
                if (time.find()) {
                    String rest = line.substring(time.end());
                    Matcher sample = SAMPLE.matcher(rest);
                    if (sample.find()) {
                        m = sample;
                    } else if (rest.trim().endsWith(":")) {
                        awaitingFrame = true;  // a call graph follows: its first frame is the sample's
                    }
                }
            }
            if (m == null) {
                continue;
            }
            total++;
            String dso = m.group(3);
            if (!ours.computeIfAbsent(dso, d -> same(d, file, real))) {
                others.merge(dso, 1L, Long::sum);
                continue;
            }
            inFile++;
            long ip;
            try {
                ip = Long.parseUnsignedLong(m.group(1), 16);
            } catch (NumberFormatException e) {
                throw new IOException(source + ":" + number + ": a sample address past 64 bits: " + m.group(1));
            }
            OptionalLong address = address(ip, relative, m.group(2), symbols, mappings, found.placements());
            if (address.isPresent()) {
                byAddress.merge(address.getAsLong(), 1L, Long::sum);
            } else {
                unmapped++;
            }
        }
        if (total == 0) {
            throw new IOException(source + ": no sample in it; is it the text `perf script` prints (perf record -e "
                    + "cpu-clock …; perf script --show-mmap-events > FILE)?");
        }
        Map<String, Long> largest = new java.util.LinkedHashMap<>();
        others.entrySet().stream()
                .sorted(Map.Entry.<String, Long>comparingByValue().reversed().thenComparing(Map.Entry.comparingByKey()))
                .limit(10).forEach(e -> largest.put(e.getKey(), e.getValue()));
        return new Counts(java.util.Collections.unmodifiableNavigableMap(byAddress), total, inFile, unmapped,
                java.util.Collections.unmodifiableMap(largest));
    }

    /** Reads a {@code perf script} text file ({@link #read(BufferedReader, String, Path, ElfCode.Functions)}). */
    public static Counts read(Path text, Path file, ElfCode.Functions found) throws IOException {
        try (BufferedReader in = Files.newBufferedReader(text, java.nio.charset.StandardCharsets.ISO_8859_1)) {
            return read(in, text.toString(), file, found);
        }
    }

    /** Whether {@code path} starts as a {@code perf.data} file does ("PERFILE2"), not as its script's text. */
    public static boolean isPerfData(Path path) {
        byte[] head = new byte[8];
        try (java.io.InputStream in = Files.newInputStream(path)) {
            return in.readNBytes(head, 0, 8) == 8 && new String(head, java.nio.charset.StandardCharsets.US_ASCII)
                    .equals("PERFILE2");
        } catch (IOException e) {
            return false;
        }
    }

    /** Longer lines are not perf script's (a sample line is a few hundred characters, a C++ symbol a few thousand). */
    private static final int MAX_LINE = 1 << 16;

    /** The next line, or at most {@link #MAX_LINE} + 1 characters of it (then the text is refused). */
    private static String line(BufferedReader in, StringBuilder buffer) throws IOException {
        buffer.setLength(0);
        int c;
        while ((c = in.read()) != -1) {
            if (c == '\n') {
                break;
            }
            if (buffer.length() <= MAX_LINE) {
                buffer.append((char) c);
            } else {
                return buffer.toString();
            }
        }
        if (c == -1 && buffer.length() == 0) {
            return null;
        }
        int end = buffer.length();
        return end > 0 && buffer.charAt(end - 1) == '\r' ? buffer.substring(0, end - 1) : buffer.toString();
    }

    private static OptionalLong address(long ip, boolean relative, String symbol, Map<String, Long> symbols, List<Mapping> mappings,
                                        List<ElfCode.Placement> placements) {
        Matcher s = SYMBOL.matcher(symbol);
        if (s.matches()) {
            String name = s.group(1);
            int at = name.indexOf('@');  // a versioned name: memcpy@@GLIBC_2.14
            Long base = symbols.get(at > 0 ? name.substring(0, at) : name);
            if (base != null) {
                try {
                    return OptionalLong.of(base + Long.parseUnsignedLong(s.group(2), 16));
                } catch (NumberFormatException e) {
                    return OptionalLong.empty();
                }
            }
        }
        if (relative) {
            // a call graph's frames are printed relative to their file's mapping: the offset in the file
            for (ElfCode.Placement p : placements) {
                OptionalLong a = p.addressOf(ip);
                if (a.isPresent()) {
                    return a;
                }
            }
            return OptionalLong.empty();
        }
        for (Mapping m : mappings) {
            if (ip - m.start >= 0 && ip - m.start < m.length) {
                long offset = ip - m.start + m.offset;
                for (ElfCode.Placement p : placements) {
                    OptionalLong a = p.addressOf(offset);
                    if (a.isPresent()) {
                        return a;
                    }
                }
            }
        }
        // A program loaded where it was linked runs at its own addresses. A position-independent one runs far from
        // them (0x55…, 0x7f…), so an address inside its sections is not taken for one of them by chance.
        if (mappings.isEmpty()) {
            for (ElfCode.Placement p : placements) {
                if (ip - p.address() >= 0 && ip - p.address() < p.size() && p.address() >= 0x10000) {
                    return OptionalLong.of(ip);
                }
            }
        }
        return OptionalLong.empty();
    }

    private static boolean same(String dso, Path file, Path real) {
        if (dso.isEmpty() || dso.startsWith("[")) {
            return false;  // [kernel.kallsyms], [vdso], [unknown]
        }
        try {
            Path d = Path.of(dso);
            if (d.equals(file) || d.equals(real)) {
                return true;
            }
            Optional<Path> r = Optional.ofNullable(real(d));
            return r.isPresent() && r.get().equals(real)
                    || d.getFileName() != null && real != null && d.getFileName().equals(real.getFileName());
        } catch (java.nio.file.InvalidPathException e) {
            return false;
        }
    }

    private static Path real(Path p) {
        try {
            return p.toRealPath();
        } catch (IOException | SecurityException e) {
            return p.toAbsolutePath().normalize();
        }
    }
}
