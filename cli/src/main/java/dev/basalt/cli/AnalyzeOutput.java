package dev.basalt.cli;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.basalt.core.Microarchitecture;
import dev.basalt.core.Prediction;
import dev.basalt.core.ThroughputEstimator;
import dev.basalt.decoder.BasicBlock;
import dev.basalt.decoder.ControlFlow;
import dev.basalt.decoder.ElfCode;
import dev.basalt.decoder.Instruction;
import dev.basalt.decoder.PerfSamples;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.PriorityQueue;
import java.util.stream.Collectors;

/**
 * Where {@code basalt analyze}'s rows go as they are made, function by function: the text report keeps only its top
 * lists; CSV is written at once; JSON's lists go through temporary files, one pair per CPU, and are copied into the
 * document at the end. So a program of any size is analyzed in bounded memory, and CSV and JSON list their loops and
 * blocks in address order (sort them by any column), the text report by cost or by share of a profile's samples.
 */
abstract sealed class AnalyzeOutput implements AutoCloseable {

    /** One block of one function, with what the model and the bounds make of it, and its profile samples. */
    record Row(String function, ControlFlow.Block block, Optional<Prediction> prediction, String bottleneck,
               long samples) {

        double cycles() {
            return prediction.map(Prediction::cyclesPerIteration).orElse(Double.NaN);
        }
    }

    /** One loop of one function: its blocks' rows. */
    record LoopRow(String function, ControlFlow.Loop loop, List<Row> rows) {

        /** A loop of one block is that block as a loop body; a longer loop, the sum of its blocks' cycles. */
        double cycles() {
            return rows.stream().mapToDouble(Row::cycles).sum();
        }

        String bottleneck() {
            return rows.stream().filter(r -> !Double.isNaN(r.cycles())).max(Comparator.comparingDouble(Row::cycles))
                    .map(Row::bottleneck).orElse("");
        }

        long samples() {
            return rows.stream().mapToLong(Row::samples).sum();
        }

        boolean predicted() {
            return rows.stream().noneMatch(r -> r.prediction().isEmpty());
        }

        /**
         * Who answered for the loop's blocks: their estimator when one answered them all, else the estimators
         * joined with {@code +}, the asked one's reasons and unknown forms together.
         */
        dev.basalt.core.Source source(String asked) {
            List<dev.basalt.core.Source> all = rows.stream().flatMap(r -> r.prediction().stream())
                    .map(p -> p.source(asked)).distinct().toList();
            if (all.size() == 1) {
                return all.get(0);
            }
            List<dev.basalt.core.Source> handedOn = all.stream().filter(dev.basalt.core.Source::isFallback).toList();
            return new dev.basalt.core.Source(all.stream().map(dev.basalt.core.Source::estimator).distinct()
                    .collect(java.util.stream.Collectors.joining("+")), handedOn.isEmpty() ? "" : asked,
                    handedOn.stream().map(dev.basalt.core.Source::reason).distinct()
                            .collect(java.util.stream.Collectors.joining("; ")),
                    handedOn.stream().flatMap(h -> h.unknownForms().stream()).distinct().toList());
        }
    }

    /** What every output says about the run. */
    record Header(Path file, ElfCode.Functions found, ThroughputEstimator estimator, List<Microarchitecture> cpus,
                  Optional<PerfSamples.Counts> samples, Path profile) {
    }

    final PrintWriter out;
    final Header header;
    // counted on the first CPU (every CPU sees the same code)
    int functions;
    long instructions;
    long skipped;
    long blocks;
    long loops;
    long sampledInBlocks;

    AnalyzeOutput(PrintWriter out, Header header) {
        this.out = out;
        this.header = header;
    }

    static AnalyzeOutput of(String format, PrintWriter out, Header header, int top) throws IOException {
        return switch (format) {
            case "csv" -> new Csv(out, header);
            case "json" -> new Json(out, header);
            default -> new Text(out, header, top);
        };
    }

    /** One function's loops and blocks on CPU {@code cpu} (an index into the header's CPUs). */
    final void accept(int cpu, ControlFlow flow, List<LoopRow> loopRows, List<Row> rows) {
        if (cpu == 0) {
            functions++;
            instructions += flow.instructions();
            skipped += flow.skippedBytes();
            blocks += rows.size();
            loops += loopRows.size();
            rows.forEach(r -> sampledInBlocks += r.samples());
        }
        write(cpu, loopRows, rows);
    }

    abstract void write(int cpu, List<LoopRow> loopRows, List<Row> rows);

    /** Ends the output; returns its one-line summary. */
    abstract String finish() throws IOException;

    @Override
    public void close() throws IOException {
    }

    String summary() {
        String s = String.format(Locale.ROOT, "%s%s: %s, %s, %s, %s, %s skipped", header.file(),
                switch (header.found().boundaries()) {
                    case UNWIND_TABLE -> " (stripped: functions from the unwind table, .eh_frame)";
                    case SECTIONS -> " (stripped: each executable section analyzed whole)";
                    case SYMBOLS -> "";
                }, count(functions, "function"), count(instructions, "instruction"), count(blocks, "block"),
                count(loops, "loop"), count(skipped, "byte"));
        return header.samples().map(c -> s + "\n" + profileLine(c)).orElse(s);
    }

    /** {@code 1 loop}, {@code 2 loops}, {@code 1,024 blocks}. */
    private static String count(long n, String word) {
        return String.format(Locale.ROOT, "%,d %s%s", n, word, n == 1 ? "" : "s");
    }

    private String profileLine(PerfSamples.Counts c) {
        return String.format(Locale.ROOT, "profile %s: %,d of its %,d samples in %s (%.1f%%), %,d of them in the "
                        + "blocks analyzed%s", header.profile(), c.inFile(), c.total(), header.file().getFileName(),
                100.0 * c.inFile() / c.total(), sampledInBlocks,
                c.unmapped() > 0 ? String.format(Locale.ROOT, "; %,d at addresses not found (profile with perf "
                        + "script --show-mmap-events)", c.unmapped()) : "");
    }

    /** A row's share of the file's samples. */
    double share(long samples) {
        return header.samples().map(c -> (double) samples / c.inFile()).orElse(Double.NaN);
    }

    static String firstInstructions(BasicBlock b, int n) {
        String s = b.instructions().stream().limit(n).map(Instruction::intelSyntax).collect(Collectors.joining("; "));
        return b.size() > n ? s + "; …" : s;
    }

    static String hex(long address) {
        return String.format(Locale.ROOT, "0x%x", address);
    }

    static String refusal(Row r, ThroughputEstimator estimator, Microarchitecture mcpu) {
        return dev.basalt.core.IsaSupport.unsupported(r.block().block(), mcpu)
                .orElse(estimator.name() + " cannot predict this block on " + mcpu);
    }

    /** The text report: per CPU, the top innermost loops and the top blocks, by cost or by share of samples. */
    static final class Text extends AnalyzeOutput {

        private final int top;
        private final List<Top<LoopRow>> inner = new ArrayList<>();
        private final List<Top<Row>> byCost = new ArrayList<>();
        private final long[] innermost;
        private final long[] sampledLoops;
        private final long[] sampledBlocks;

        Text(PrintWriter out, Header header, int top) {
            super(out, header);
            this.top = top;
            boolean profiled = header.samples().isPresent();
            for (int k = 0; k < header.cpus().size(); k++) {
                inner.add(new Top<>(top, profiled ? Comparator.comparingLong(LoopRow::samples)
                        .thenComparing(byCycles(LoopRow::cycles)) : byCycles(LoopRow::cycles)));
                byCost.add(new Top<>(top, profiled ? Comparator.comparingLong(Row::samples)
                        .thenComparing(byCycles(Row::cycles)) : byCycles(Row::cycles)));
            }
            innermost = new long[header.cpus().size()];
            sampledLoops = new long[header.cpus().size()];
            sampledBlocks = new long[header.cpus().size()];
        }

        // a row that cannot be predicted (NaN) ranks last
        private static <T> Comparator<T> byCycles(java.util.function.ToDoubleFunction<T> cycles) {
            return Comparator.comparingDouble(t -> Double.isNaN(cycles.applyAsDouble(t)) ? -1
                    : cycles.applyAsDouble(t));
        }

        @Override
        void write(int cpu, List<LoopRow> loopRows, List<Row> rows) {
            boolean profiled = header.samples().isPresent();
            for (LoopRow l : loopRows) {
                if (l.loop().innermost()) {
                    innermost[cpu]++;
                    if (!profiled || l.samples() > 0) {
                        sampledLoops[cpu] += profiled ? 1 : 0;
                        inner.get(cpu).add(l);
                    }
                }
            }
            for (Row r : rows) {
                if (!profiled || r.samples() > 0) {
                    sampledBlocks[cpu] += profiled ? 1 : 0;
                    byCost.get(cpu).add(r);
                }
            }
        }

        @Override
        String finish() {
            String summary = summary();
            out.println(summary);
            boolean profiled = header.samples().isPresent();
            for (int k = 0; k < header.cpus().size(); k++) {
                if (k > 0) {
                    out.println();
                }
                Microarchitecture cpu = header.cpus().get(k);
                out.println("model " + header.estimator().name() + " on " + cpu
                        + "; cycles per iteration of each block as a loop body;"
                        + " of a loop of several blocks, the sum of its blocks (every path once: an upper estimate)");
                out.println("a loop: a branch back to a block at or before its own (within one function), with the "
                        + "blocks between that the header reaches and that reach the branch; innermost: no loop inside"
                        + " it" + (profiled ? "; share: of the file's samples in the profile" : ""));
                out.println();
                List<LoopRow> loopList = inner.get(k).sorted();
                out.println(profiled
                        ? "innermost loops by share of samples (" + sampledLoops[k] + " sampled of " + innermost[k]
                        + "):" : "innermost loops (" + innermost[k] + " of " + loops + "):");
                out.printf(Locale.ROOT, "  %-18s %-24s %6s %6s %s%10s  %-10s %s%n", "header", "function", "blocks",
                        "instr", profiled ? " share " : "", "cycles", "bottleneck", "instructions");
                for (LoopRow l : loopList) {
                    out.printf(Locale.ROOT, "  %#-18x %-24s %6d %6d %s%s  %-10s %s%n", l.loop().header(),
                            shorten(l.function()), l.loop().blocks().size(), l.loop().instructions(),
                            profiled ? percent(l.samples()) : "", cycles(l.cycles()), l.bottleneck(),
                            firstInstructions(l.rows().get(0).block().block(), 3));
                }
                long listed = profiled ? sampledLoops[k] : innermost[k];
                if (listed > top) {
                    out.println("  … " + (listed - top) + " more (--top, or --format csv for all loops)");
                }
                out.println();
                List<Row> rows = byCost.get(k).sorted();
                out.println(profiled ? "blocks by share of samples (" + sampledBlocks[k] + " sampled of " + blocks
                        + "):" : "blocks by cost (" + blocks + "):");
                out.printf(Locale.ROOT, "  %-18s %-24s %6s %s%10s  %-10s %s%n", "address", "function", "instr",
                        profiled ? " share " : "", "cycles", "bottleneck", "instructions");
                for (Row r : rows) {
                    out.printf(Locale.ROOT, "  %#-18x %-24s %6d %s%s  %-10s %s%n", r.block().address(),
                            shorten(r.function()), r.block().block().size(), profiled ? percent(r.samples()) : "",
                            cycles(r.cycles()), r.bottleneck(), firstInstructions(r.block().block(), 3));
                    r.prediction().ifPresent(p -> p.notes().forEach(n -> out.println("      note: " + n)));
                }
                long listedBlocks = profiled ? sampledBlocks[k] : blocks;
                if (listedBlocks > top) {
                    out.println("  … " + (listedBlocks - top) + " more (--top, or --format csv for all)");
                }
            }
            return summary;
        }

        private String percent(long samples) {
            return String.format(Locale.ROOT, "%5.1f%% ", 100 * share(samples));
        }

        private static String cycles(double c) {
            return Double.isNaN(c) ? "     error" : String.format(Locale.ROOT, "%10.2f", c);
        }

        private static String shorten(String name) {
            return name.length() <= 24 ? name : name.substring(0, 23) + "…";
        }
    }

    /** The {@code n} greatest items by an order, ties to the one seen first; memory holds {@code n}, not all. */
    static final class Top<T> {

        private record Entry<T>(T item, long seen) {
        }

        private final int n;
        private final Comparator<Entry<T>> order;
        private final PriorityQueue<Entry<T>> heap;  // the least of the kept at its head
        private long seen;

        Top(int n, Comparator<T> by) {
            this.n = n;
            Comparator<Entry<T>> byItem = Comparator.comparing(Entry::item, by);
            this.order = byItem.thenComparing(Comparator.comparingLong((Entry<T> e) -> e.seen()).reversed());
            this.heap = new PriorityQueue<>(Math.max(1, n), order);
        }

        void add(T item) {
            Entry<T> e = new Entry<>(item, seen++);
            if (n == 0) {
                return;
            }
            if (heap.size() < n) {
                heap.add(e);
            } else if (order.compare(e, heap.peek()) > 0) {
                heap.poll();
                heap.add(e);
            }
        }

        /** The kept items, greatest first. */
        List<T> sorted() {
            List<Entry<T>> all = new ArrayList<>(heap);
            all.sort(order.reversed());
            return all.stream().map(Entry::item).toList();
        }
    }

    /** CSV, one line per loop and per block as they come (loops of a function, then its blocks; CPU by CPU). */
    static final class Csv extends AnalyzeOutput {

        private final List<String> versions;

        Csv(PrintWriter out, Header header) {
            super(out, header);
            versions = header.cpus().stream().map(c -> PredictCommand.version(header.estimator(), c)).toList();
            out.println("kind,function,address,blocks,instructions,hex,mcpu,model,model_version,cycles_per_iteration,"
                    + "interval_low,interval_high,bottleneck,note,error,source,source_reason,samples,share");
        }

        @Override
        void write(int cpu, List<LoopRow> loopRows, List<Row> rows) {
            Microarchitecture mcpu = header.cpus().get(cpu);
            String model = header.estimator().name();
            String version = versions.get(cpu);
            for (LoopRow l : loopRows) {
                boolean ok = l.predicted();
                dev.basalt.core.Source source = ok ? l.source(model) : null;
                Optional<dev.basalt.core.Interval> iv = l.rows().size() == 1
                        ? l.rows().get(0).prediction().flatMap(Prediction::interval) : Optional.empty();
                out.println(String.join(",", l.loop().innermost() ? "innermost_loop" : "loop",
                        PredictCommand.csvCell(l.function()), hex(l.loop().header()),
                        String.valueOf(l.loop().blocks().size()), String.valueOf(l.loop().instructions()),
                        l.loop().blocks().size() == 1 ? l.loop().blocks().get(0).block().hex() : "", mcpu.llvmName(),
                        model, version, ok ? number(l.cycles()) : "",
                        iv.map(i -> number(i.low())).orElse(""), iv.map(i -> number(i.high())).orElse(""),
                        l.bottleneck(), "", ok ? "" : "a block of the loop cannot be predicted",
                        ok ? PredictCommand.csvCell(source.estimator()) : "",
                        ok ? PredictCommand.csvCell(source.reason()) : "",
                        samples(l.samples()), shareCell(l.samples())));
            }
            for (Row r : rows) {
                Prediction p = r.prediction().orElse(null);
                dev.basalt.core.Source source = p == null ? null : p.source(model);
                out.println(String.join(",", "block", PredictCommand.csvCell(r.function()), hex(r.block().address()),
                        "1", String.valueOf(r.block().block().size()), r.block().block().hex(), mcpu.llvmName(), model,
                        version, p == null ? "" : number(p.cyclesPerIteration()),
                        p == null ? "" : p.interval().map(iv -> number(iv.low())).orElse(""),
                        p == null ? "" : p.interval().map(iv -> number(iv.high())).orElse(""),
                        r.bottleneck(), p == null ? "" : PredictCommand.csvCell(p.note()),
                        p == null ? PredictCommand.csvCell(refusal(r, header.estimator(), mcpu)) : "",
                        p == null ? "" : PredictCommand.csvCell(source.estimator()),
                        p == null ? "" : PredictCommand.csvCell(source.reason()),
                        samples(r.samples()), shareCell(r.samples())));
            }
        }

        private String samples(long n) {
            return header.samples().isPresent() ? String.valueOf(n) : "";
        }

        private String shareCell(long n) {
            return header.samples().isPresent() ? String.format(Locale.ROOT, "%.6f", share(n)) : "";
        }

        private static String number(double v) {
            return String.format(Locale.ROOT, "%.4f", v);
        }

        @Override
        String finish() {
            return summary().replace('\n', ';');
        }
    }

    /**
     * JSON: the file's figures, then per CPU its loops and blocks. The lists are written to temporary files as they
     * come (one compact object a line) and copied into the document at the end, the figures before them.
     */
    static final class Json extends AnalyzeOutput {

        private final ObjectMapper mapper = dev.basalt.core.ReportJson.mapper();
        private final List<Path> loopFiles = new ArrayList<>();
        private final List<Path> blockFiles = new ArrayList<>();
        private final List<BufferedWriter> loopWriters = new ArrayList<>();
        private final List<BufferedWriter> blockWriters = new ArrayList<>();

        Json(PrintWriter out, Header header) throws IOException {
            super(out, header);
            try {
                for (int k = 0; k < header.cpus().size(); k++) {
                    loopFiles.add(Files.createTempFile("basalt-analyze-loops", ".jsonl"));
                    loopWriters.add(Files.newBufferedWriter(loopFiles.get(k), StandardCharsets.UTF_8));
                    blockFiles.add(Files.createTempFile("basalt-analyze-blocks", ".jsonl"));
                    blockWriters.add(Files.newBufferedWriter(blockFiles.get(k), StandardCharsets.UTF_8));
                }
            } catch (IOException e) {
                close();
                throw new IOException("cannot write temporary files for the JSON lists in "
                        + System.getProperty("java.io.tmpdir") + ": " + e.getMessage(), e);
            }
        }

        @Override
        void write(int cpu, List<LoopRow> loopRows, List<Row> rows) {
            Microarchitecture mcpu = header.cpus().get(cpu);
            boolean profiled = header.samples().isPresent();
            try {
                for (LoopRow l : loopRows) {
                    ObjectNode n = mapper.createObjectNode();
                    n.put("function", l.function());
                    n.put("header", hex(l.loop().header()));
                    n.put("latch", hex(l.loop().latch()));
                    n.put("innermost", l.loop().innermost());
                    ArrayNode addresses = n.putArray("block_addresses");
                    l.loop().blocks().forEach(b -> addresses.add(hex(b.address())));
                    n.put("instructions", l.loop().instructions());
                    if (l.predicted()) {
                        n.put("cycles_per_iteration", l.cycles());
                        n.set("source", dev.basalt.core.ReportJson.source(l.source(header.estimator().name())));
                    } else {
                        n.put("error", "a block of the loop cannot be predicted");
                    }
                    n.put("bottleneck", l.bottleneck());
                    if (profiled) {
                        n.put("samples", l.samples());
                        n.put("share", share(l.samples()));
                    }
                    line(loopWriters.get(cpu), n);
                }
                for (Row r : rows) {
                    ObjectNode n = mapper.createObjectNode();
                    n.put("function", r.function());
                    n.put("address", hex(r.block().address()));
                    n.put("hex", r.block().block().hex());
                    n.put("instructions", r.block().block().size());
                    if (r.prediction().isPresent()) {
                        Prediction p = r.prediction().get();
                        n.put("cycles_per_iteration", p.cyclesPerIteration());
                        p.interval().ifPresent(iv -> {
                            n.put("interval_low", iv.low());
                            n.put("interval_high", iv.high());
                        });
                        n.put("bottleneck", r.bottleneck());
                        n.put("note", p.note());
                        n.set("source", dev.basalt.core.ReportJson.source(p.source(header.estimator().name())));
                    } else {
                        n.put("error", refusal(r, header.estimator(), mcpu));
                    }
                    if (profiled) {
                        n.put("samples", r.samples());
                        n.put("share", share(r.samples()));
                    }
                    line(blockWriters.get(cpu), n);
                }
            } catch (IOException e) {
                throw new UncheckedIOException("writing the JSON lists' temporary files", e);
            }
        }

        private void line(BufferedWriter w, ObjectNode n) throws IOException {
            w.write(mapper.writeValueAsString(n));
            w.newLine();
        }

        @Override
        String finish() throws IOException {
            for (BufferedWriter w : loopWriters) {
                w.close();
            }
            for (BufferedWriter w : blockWriters) {
                w.close();
            }
            JsonGenerator g = mapper.getFactory().createGenerator(new java.io.Writer() {
                @Override
                public void write(char[] buf, int off, int len) {
                    out.write(buf, off, len);
                }

                @Override
                public void flush() {
                    out.flush();
                }

                @Override
                public void close() {
                }
            });
            // one loop or block a line (each list's items are compact objects, as they were written)
            g.setPrettyPrinter(new com.fasterxml.jackson.core.util.DefaultPrettyPrinter()
                    .withArrayIndenter(com.fasterxml.jackson.core.util.DefaultIndenter.SYSTEM_LINEFEED_INSTANCE));
            g.writeStartObject();
            g.writeStringField("file", header.file().toString());
            g.writeBooleanField("stripped", header.found().stripped());
            g.writeStringField("function_boundaries", header.found().boundaries().name().toLowerCase(Locale.ROOT));
            g.writeNumberField("functions", functions);
            g.writeNumberField("instructions", instructions);
            g.writeNumberField("blocks", blocks);
            g.writeNumberField("loops", loops);
            g.writeNumberField("skipped_bytes", skipped);
            if (header.samples().isPresent()) {
                PerfSamples.Counts c = header.samples().get();
                g.writeObjectFieldStart("profile");
                g.writeStringField("file", header.profile().toString());
                g.writeNumberField("samples", c.total());
                g.writeNumberField("in_file", c.inFile());
                g.writeNumberField("unmapped", c.unmapped());
                g.writeNumberField("in_blocks", sampledInBlocks);
                g.writeEndObject();
            }
            g.writeArrayFieldStart("results");
            for (int k = 0; k < header.cpus().size(); k++) {
                Microarchitecture mcpu = header.cpus().get(k);
                g.writeStartObject();
                g.writeStringField("mcpu", mcpu.llvmName());
                g.writeStringField("model", header.estimator().name());
                g.writeStringField("model_version", PredictCommand.version(header.estimator(), mcpu));
                copy(g, "loop_list", loopFiles.get(k));
                copy(g, "block_list", blockFiles.get(k));
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeEndObject();
            g.flush();
            out.println();
            return summary().replace('\n', ';');
        }

        private static void copy(JsonGenerator g, String name, Path lines) throws IOException {
            g.writeArrayFieldStart(name);
            try (BufferedReader in = Files.newBufferedReader(lines, StandardCharsets.UTF_8)) {
                String line;
                while ((line = in.readLine()) != null) {
                    g.writeRawValue(line);
                }
            }
            g.writeEndArray();
        }

        @Override
        public void close() throws IOException {
            for (BufferedWriter w : loopWriters) {
                w.close();
            }
            for (BufferedWriter w : blockWriters) {
                w.close();
            }
            for (Path p : loopFiles) {
                Files.deleteIfExists(p);
            }
            for (Path p : blockFiles) {
                Files.deleteIfExists(p);
            }
        }
    }
}
