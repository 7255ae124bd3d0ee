package dev.basalt.cli;

import dev.basalt.core.AtomicFiles;
import dev.basalt.core.Microarchitecture;
import dev.basalt.datasets.Dataset;
import dev.basalt.datasets.LabelledBlock;
import dev.basalt.datasets.LoadSummary;
import dev.basalt.datasets.Metrics;
import dev.basalt.datasets.RowIssue;
import dev.basalt.datasets.Split;
import dev.basalt.datasets.SplitScheme;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;

/** {@code basalt dataset}: statistics of a labelled data set, and writing its splits. */
@Command(name = "dataset", mixinStandardHelpOptions = true,
        description = "Inspect and split labelled data sets (the bundled BHive sample by default).",
        subcommands = {DatasetCommand.Stats.class, DatasetCommand.SplitFiles.class})
final class DatasetCommand {

    @Option(names = "--data", paramLabel = "CPU=FILE", split = ",",
            description = "BHive CSVs to use instead of the bundled sample, e.g. --data hsw=hsw.csv,skl=skl.csv.")
    Map<String, Path> files;

    @Mixin
    DebugOption debugOption;

    Dataset load() throws IOException {
        return load(files);
    }

    /** The bundled sample, or the given {@code CPU=FILE} BHive CSVs (shared by every command with --data). */
    static Dataset load(Map<String, Path> files) throws IOException {
        if (files == null || files.isEmpty()) {
            return Dataset.bundled();
        }
        Map<Microarchitecture, Path> byCpu = new java.util.TreeMap<>();
        for (Map.Entry<String, Path> e : files.entrySet()) {
            byCpu.put(Microarchitecture.find(e.getKey()).orElseThrow(() -> new BadInputException("--data "
                    + e.getKey() + "=" + e.getValue() + ": unknown CPU '" + e.getKey() + "'")), e.getValue());
        }
        for (Path p : byCpu.values()) {
            ParamsCommand.Import.checkReadable("--data", p);
        }
        Dataset d = Dataset.load("custom", byCpu);
        for (Map.Entry<Microarchitecture, Path> e : byCpu.entrySet()) { // an empty file, or one of bad rows
            if (d.labelled(e.getKey()).isEmpty()) {
                String summary = d.summaries().stream().filter(s -> s.file().contains(e.getValue().getFileName()
                        .toString())).map(s -> ": " + s.rowsRead() + " rows read, none kept" + (s.rowsRead() == 0 ? ""
                        : " (" + s.skippedByReason().entrySet().stream().map(x -> x.getKey() + " " + x.getValue())
                        .collect(java.util.stream.Collectors.joining(", ")) + ")")).findFirst().orElse("");
                throw new BadInputException("--data " + e.getKey().shortName() + "=" + e.getValue() + ": no measured "
                        + "block in it" + summary);
            }
        }
        return d;
    }

    static List<Microarchitecture> cpus(List<Microarchitecture> names) {
        if (names == null || names.isEmpty()) {
            return Microarchitecture.measured();
        }
        return List.copyOf(names);
    }

    /** {@code basalt dataset stats}. */
    @Command(name = "stats", mixinStandardHelpOptions = true,
            description = "Per CPU: blocks per split, load problems, and the throughput distribution in cycles per "
                    + "iteration; --plot also draws a histogram PNG.")
    static final class Stats implements Callable<Integer> {
        @ParentCommand
        DatasetCommand parent;

        @Spec
        CommandSpec spec;

        @Option(names = "--mcpu", split = ",", paramLabel = "CPU", description = "CPUs to report (default: all).")
        List<Microarchitecture> mcpu;

        @Option(names = "--plot", paramLabel = "FILE", description = "Write a throughput histogram (PNG).")
        Path plot;

        @Override
        public Integer call() throws IOException {
            PrintWriter out = spec.commandLine().getOut();
            if (plot != null) {
                Outputs.checkFile("--plot", plot);
            }
            List<Microarchitecture> cpus = cpus(mcpu);
            Dataset d = parent.load();
            SplitScheme scheme = SplitScheme.defaults();
            out.printf("data set %s: %d distinct blocks; split %.0f/%.0f/%.0f by hash of the block%n", d.name(),
                    d.blocks().size(), 100 * scheme.train(), 100 * scheme.validation(), 100 * scheme.test());
            for (LoadSummary s : d.summaries()) {
                out.println("  " + s);
                for (RowIssue i : s.issues()) {
                    out.println("    " + i);
                }
            }
            out.println();
            out.printf("%-10s %7s %7s %7s %7s %8s %9s %7s %7s %7s %7s %7s %9s%n", "cpu", "blocks", "train", "valid",
                    "test", "decode!", "min", "p10", "p25", "p50", "p75", "p90", "max");
            Map<Microarchitecture, double[]> values = new java.util.TreeMap<>();
            for (Microarchitecture m : cpus) {
                List<LabelledBlock> blocks = d.labelled(m);
                if (blocks.isEmpty()) {
                    out.printf("%-10s no blocks%n", m);
                    continue;
                }
                long[] perSplit = new long[Split.values().length];
                blocks.forEach(b -> perSplit[scheme.of(b).ordinal()]++);
                double[] t = blocks.stream().mapToDouble(b -> b.throughput(m).orElseThrow()).sorted().toArray();
                values.put(m, t);
                long decodeFailures = d.summaries().stream()
                        .filter(s -> s.file().contains(m.shortName()) || s.file().contains(m.llvmName()))
                        .mapToLong(s -> s.skippedByReason().getOrDefault(dev.basalt.datasets.SkipReason.DECODE_FAILURE,
                                0L)).sum();
                out.printf(Locale.ROOT, "%-10s %7d %7d %7d %7d %8d %9.2f %7.2f %7.2f %7.2f %7.2f %7.2f %9.2f%n", m,
                        blocks.size(), perSplit[0], perSplit[1], perSplit[2], decodeFailures, t[0],
                        Metrics.percentile(t, 10), Metrics.percentile(t, 25), Metrics.percentile(t, 50),
                        Metrics.percentile(t, 75), Metrics.percentile(t, 90), t[t.length - 1]);
            }
            out.println("(throughput in cycles per iteration; decode! = rows that did not decode)");
            if (plot != null) {
                writeHistogram(plot, values);
                out.println("histogram written to " + plot);
            }
            out.flush();
            return 0;
        }

        /** Blocks per throughput bin (powers of two of cycles per iteration), one series per CPU. */
        private static void writeHistogram(Path file, Map<Microarchitecture, double[]> values) throws IOException {
            System.setProperty("java.awt.headless", "true");
            int bins = 14; // [0.125, 0.25), ..., [512, 1024), and the tails folded into the end bins
            List<String> labels = new ArrayList<>();
            for (int b = 0; b < bins; b++) {
                double lo = Math.pow(2, b - 3);
                labels.add(lo < 1 ? String.format(Locale.ROOT, "%.3g", lo) : String.format(Locale.ROOT, "%.0f", lo));
            }
            CategoryChart chart = new CategoryChartBuilder().width(900).height(500)
                    .title("BHive throughput distribution").xAxisTitle("cycles per iteration (bin start, log2 bins)")
                    .yAxisTitle("blocks").build();
            chart.getStyler().setOverlapped(false);
            chart.getStyler().setLegendPosition(org.knowm.xchart.style.Styler.LegendPosition.InsideNE);
            for (Map.Entry<Microarchitecture, double[]> e : values.entrySet()) {
                List<Integer> counts = new ArrayList<>();
                for (int b = 0; b < bins; b++) {
                    counts.add(0);
                }
                for (double v : e.getValue()) {
                    int b = (int) Math.floor(Math.log(v) / Math.log(2)) + 3;
                    b = Math.max(0, Math.min(bins - 1, b));
                    counts.set(b, counts.get(b) + 1);
                }
                chart.addSeries(e.getKey().llvmName(), labels, counts);
            }
            byte[] png = BitmapEncoder.getBitmapBytes(chart, BitmapEncoder.BitmapFormat.PNG);
            AtomicFiles.write(file, o -> o.write(png));
        }
    }

    /** {@code basalt dataset split}. */
    @Command(name = "split", mixinStandardHelpOptions = true,
            description = "Write the train/validation/test splits as BHive CSVs: DIR/<split>/<cpu>.csv "
                    + "(hex,cycles_per_100_iterations).")
    static final class SplitFiles implements Callable<Integer> {
        @ParentCommand
        DatasetCommand parent;

        @Spec
        CommandSpec spec;

        @Option(names = "--out", required = true, paramLabel = "DIR", description = "Output folder.")
        Path out;

        @Option(names = "--mcpu", split = ",", paramLabel = "CPU", description = "CPUs to write (default: all).")
        List<Microarchitecture> mcpu;

        @Override
        public Integer call() throws IOException {
            PrintWriter pw = spec.commandLine().getOut();
            Outputs.checkFolder("--out", out);
            Dataset d = parent.load();
            SplitScheme scheme = SplitScheme.defaults();
            for (Microarchitecture m : cpus(mcpu)) {
                for (Split s : Split.values()) {
                    StringBuilder sb = new StringBuilder();
                    int rows = 0;
                    for (LabelledBlock b : d.labelled(m)) {
                        if (scheme.of(b) == s) {
                            sb.append(b.hex()).append(',').append(String.format(Locale.ROOT, "%.6f",
                                    b.throughput(m).orElseThrow() * 100)).append('\n');
                            rows++;
                        }
                    }
                    Path file = out.resolve(s.label()).resolve(m.shortName() + ".csv");
                    AtomicFiles.writeString(file, sb.toString());
                    pw.printf("%-32s %6d blocks%n", file, rows);
                }
            }
            pw.flush();
            return 0;
        }
    }
}
