package dev.basalt.measure;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.basalt.core.AtomicFiles;
import dev.basalt.core.Provenance;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVParser;
import org.apache.commons.csv.CSVPrinter;
import org.apache.commons.csv.CSVRecord;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.Reader;
import java.io.StringWriter;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The files of one measurement, {@code --out FILE}:
 * <ul>
 *   <li>{@code FILE} — BHive's CSV, {@code hex,cycles per 100 iterations}, the blocks measured OK, so every command
 *       that reads BHive data reads it;</li>
 *   <li>{@code FILE.blocks.csv} — one row per block, whatever came of it (status, median, minimum, spread, tries,
 *       pages, unrolls, repetitions, calibration, message). It is the journal: appended and flushed block by block,
 *       so an interrupted measurement keeps what it did, and a re-run with the same {@code --out} skips those
 *       blocks (a torn last line is dropped);</li>
 *   <li>{@code FILE.meta.json} — the host, the timer, the method and its settings, the calibration, the counts,
 *       the speed and the provenance.</li>
 * </ul>
 * {@code FILE} and the meta file are written whole, by rename, at the start and the end; the journal is rewritten
 * the same way at the end, in input order.
 */
public final class MeasurementFiles {

    static final String[] COLUMNS = {"hex", "status", "cycles", "min_cycles", "spread", "tries", "pages",
        "unroll_small", "unroll_large", "repetitions", "ticks_per_cycle", "message"};

    private final Path out;
    private final Path journal;
    private final Path meta;
    private final Map<String, BlockMeasurement> done = new LinkedHashMap<>();
    private BufferedWriter appender;

    public MeasurementFiles(Path out) {
        this.out = out;
        this.journal = sibling(out, ".blocks.csv");
        this.meta = sibling(out, ".meta.json");
    }

    private static Path sibling(Path p, String suffix) {
        return p.resolveSibling(p.getFileName() + suffix);
    }

    public Path journal() {
        return journal;
    }

    public Path meta() {
        return meta;
    }

    /** The blocks an earlier run with this {@code --out} finished, keyed by hex. */
    public Map<String, BlockMeasurement> finished() {
        return Map.copyOf(done);
    }

    /**
     * Reads what an earlier run left. Refuses (IllegalStateException, with the reason) when it was measured on
     * another CPU or with another method, which would mix two kinds of numbers in one file.
     */
    public void resume(HostCpu host, ObjectNode method) throws IOException {
        if (Files.exists(meta)) {
            ObjectNode old = (ObjectNode) new ObjectMapper().readTree(meta.toFile());
            HostCpu before = new ObjectMapper().treeToValue(old.get("host"), HostCpu.class);
            if (!before.sameCpu(host)) {
                throw new IllegalStateException(out + " holds measurements of another CPU (" + before.describe()
                        + "); this is " + host.describe() + ": give another --out");
            }
            // Compared as read back from JSON: a long written is an int read.
            ObjectMapper mapper = new ObjectMapper();
            if (!mapper.readTree(mapper.writeValueAsString(method)).equals(old.get("method"))) {
                throw new IllegalStateException(out + " was measured with other settings (" + meta.getFileName()
                        + " has them): give another --out, or the same settings");
            }
        }
        if (!Files.exists(journal)) {
            return;
        }
        truncateTornLine(journal);
        try (Reader r = Files.newBufferedReader(journal, StandardCharsets.UTF_8);
             CSVParser p = CSVFormat.DEFAULT.builder().setHeader().setSkipHeaderRecord(true).build().parse(r)) {
            for (CSVRecord row : p) {
                if (row.size() != COLUMNS.length) {
                    continue;
                }
                BlockMeasurement m = new BlockMeasurement(row.get(0), BlockMeasurement.Status.valueOf(
                        row.get(1).toUpperCase(Locale.ROOT)), number(row.get(2)), number(row.get(3)),
                        number(row.get(4)), Integer.parseInt(row.get(5)), Integer.parseInt(row.get(6)),
                        Integer.parseInt(row.get(7)), Integer.parseInt(row.get(8)), Long.parseLong(row.get(9)),
                        number(row.get(10)), row.get(11));
                done.put(m.hex(), m);
            }
        } catch (IllegalArgumentException | java.io.UncheckedIOException e) {
            throw new IllegalStateException(journal + " is not a journal of basalt measure (" + e.getMessage()
                    + "): give another --out");
        }
    }

    /** Drops a last line without its newline: a run killed while writing it. */
    private static void truncateTornLine(Path file) throws IOException {
        byte[] all = Files.readAllBytes(file);
        int end = all.length;
        while (end > 0 && all[end - 1] != '\n') {
            end--;
        }
        if (end != all.length) {
            try (FileChannel c = FileChannel.open(file, StandardOpenOption.WRITE)) {
                c.truncate(end);
            }
        }
    }

    private static double number(String s) {
        return s.isEmpty() ? Double.NaN : Double.parseDouble(s);
    }

    /** Opens the journal for appending (with its header when new). */
    public void open() throws IOException {
        boolean fresh = !Files.exists(journal) || Files.size(journal) == 0;
        appender = Files.newBufferedWriter(journal, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                StandardOpenOption.APPEND);
        if (fresh) {
            appender.write(String.join(",", COLUMNS) + "\n");
            appender.flush();
        }
    }

    /** Appends one block to the journal, flushed at once. */
    public void append(BlockMeasurement m) throws IOException {
        done.put(m.hex(), m);
        appender.write(row(m));
        appender.flush();
    }

    /** The per-block CSV's header line. */
    public static String header() {
        return String.join(",", COLUMNS);
    }

    /** One block as a row of the per-block CSV, with its line break. */
    public static String row(BlockMeasurement m) {
        StringWriter w = new StringWriter();
        try (CSVPrinter p = new CSVPrinter(w, CSVFormat.DEFAULT.builder().setRecordSeparator("\n").build())) {
            p.printRecord(m.hex(), m.status().label(), fmt(m.cycles()), fmt(m.minCycles()), fmt(m.spread()), m.tries(),
                    m.pages(), m.unrollSmall(), m.unrollLarge(), m.repetitions(), fmt(m.ticksPerCycle()), m.message());
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        return w.toString();
    }

    private static String fmt(double v) {
        return Double.isNaN(v) ? "" : String.format(Locale.ROOT, "%.5f", v);
    }

    /**
     * Writes {@code FILE} (the OK blocks, BHive's format) and the journal again, in {@code order} (the input's;
     * blocks of earlier runs not in it follow), each by rename.
     */
    public void finish(List<String> order) throws IOException {
        if (appender != null) {
            appender.close();
            appender = null;
        }
        List<BlockMeasurement> rows = new ArrayList<>();
        Map<String, BlockMeasurement> rest = new LinkedHashMap<>(done);
        for (String hex : order) {
            BlockMeasurement m = rest.remove(hex);
            if (m != null) {
                rows.add(m);
            }
        }
        rows.addAll(rest.values());
        StringBuilder bhive = new StringBuilder();
        StringBuilder blocks = new StringBuilder(String.join(",", COLUMNS)).append('\n');
        for (BlockMeasurement m : rows) {
            if (m.status() == BlockMeasurement.Status.OK) {
                bhive.append(m.hex()).append(',').append(String.format(Locale.ROOT, "%.2f", 100 * m.cycles()))
                        .append('\n');
            }
            blocks.append(row(m));
        }
        AtomicFiles.writeString(journal, blocks.toString());
        AtomicFiles.writeString(out, bhive.toString());
    }

    /** Every block measured so far (this run's and earlier runs'). */
    public List<BlockMeasurement> all() {
        return List.copyOf(done.values());
    }

    /**
     * Writes the meta file: host, method, calibration, the clock check (known answers and host facts), counts, speed
     * and provenance.
     */
    public void writeMeta(HostCpu host, ObjectNode method, ClockCheck.Report clock, String command,
                          double blocksPerSecond, boolean complete, String timerNote) throws IOException {
        ObjectMapper mapper = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
        ObjectNode root = mapper.createObjectNode();
        root.put("kind", "basalt-measurement");
        root.put("complete", complete);
        root.put("csv", out.getFileName().toString());
        root.put("blocks_csv", journal.getFileName().toString());
        root.set("host", mapper.valueToTree(host));
        root.put("timer", host.timer());
        if (!timerNote.isEmpty()) {
            root.put("timer_note", timerNote);
        }
        root.set("method", method);
        List<Double> ratios = new ArrayList<>();
        Map<String, Integer> counts = new LinkedHashMap<>();
        for (BlockMeasurement.Status s : BlockMeasurement.Status.values()) {
            counts.put(s.label(), 0);
        }
        for (BlockMeasurement m : done.values()) {
            counts.merge(m.status().label(), 1, Integer::sum);
            if (m.measured() && !Double.isNaN(m.ticksPerCycle())) {
                ratios.add(m.ticksPerCycle());
            }
        }
        ObjectNode cal = root.putObject("calibration");
        cal.put("chain", clock.chain().describe());
        if (!ratios.isEmpty()) {
            double[] r = ratios.stream().mapToDouble(d -> d).sorted().toArray();
            cal.put("ticks_per_cycle_median", Measurer.median(ratios));
            cal.put("ticks_per_cycle_min", r[0]);
            cal.put("ticks_per_cycle_max", r[r.length - 1]);
            cal.put("ticks_per_cycle_p05", r[(int) (0.05 * (r.length - 1))]);
            cal.put("ticks_per_cycle_p95", r[(int) (0.95 * (r.length - 1))]);
        }
        root.set("clock_check", clock.json());
        ObjectNode c = root.putObject("blocks");
        c.put("total", done.size());
        counts.forEach(c::put);
        if (blocksPerSecond > 0) {
            root.put("blocks_per_second_this_run", blocksPerSecond);
        }
        root.put("date", java.time.Instant.now().toString());
        root.set("provenance", mapper.valueToTree(Provenance.now("basalt-measurement", command)));
        AtomicFiles.writeString(meta, mapper.writeValueAsString(root) + "\n");
    }
}
