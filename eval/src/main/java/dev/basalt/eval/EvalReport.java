package dev.basalt.eval;

import dev.basalt.datasets.Metrics;
import dev.basalt.core.AtomicFiles;
import dev.basalt.core.Microarchitecture;
import dev.basalt.datasets.BlockSources;
import dev.basalt.datasets.Evaluation;
import dev.basalt.datasets.LabelledBlock;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVPrinter;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;

import javax.imageio.ImageIO;
import java.awt.Color;
import java.awt.Graphics2D;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Writes an {@link Evaluator.Result}: {@code results.md} (the table to paste), {@code results.csv} (every
 * metric), {@code predictions.csv} (every prediction) and three PNG figures — predicted vs measured on
 * log-log axes per estimator and CPU, MAPE by instruction count, MAPE by BHive source application — and, when an
 * estimator gives prediction intervals, their table in {@code results.md} and {@code reliability.png}. Each file
 * is written atomically and only once everything is computed, so an interrupted run leaves no partial file.
 */
public final class EvalReport {

    /** Instruction-count bins of the size plot (upper bounds, inclusive). */
    private static final int[] SIZE_BINS = {1, 2, 4, 8, 16, 32, Integer.MAX_VALUE};
    private static final String[] SIZE_LABELS = {"1", "2", "3-4", "5-8", "9-16", "17-32", "33+"};
    private static final Color[] COLORS = {new Color(0xd2381b), new Color(0x3578e8), new Color(0x2e9e5b),
        new Color(0x8e44ad), new Color(0xe6a23c), new Color(0x555555)};

    private EvalReport() {
    }

    /** The files written, in order. */
    public static List<Path> write(Evaluator.Result r, Path dir, String command, String machine) throws IOException {
        List<Path> files = new ArrayList<>();
        // Render everything first, then write: nothing lands on disk unless all of it could be made.
        Map<String, byte[]> out = new LinkedHashMap<>();
        out.put("results.md", markdown(r, command, machine).getBytes(StandardCharsets.UTF_8));
        out.put("results.csv", summaryCsv(r).getBytes(StandardCharsets.UTF_8));
        out.put("predictions.csv", predictionsCsv(r));
        for (Microarchitecture cpu : r.blocks().keySet()) {
            out.put("scatter-" + cpu.llvmName() + ".png", scatter(r, cpu));
        }
        out.put("mape-by-size.png", bySize(r));
        out.put("mape-by-program.png", bySource(r));
        if (r.rows().stream().anyMatch(x -> x.intervals().isPresent())) {
            out.put("reliability.png", reliability(r));
        }
        for (Map.Entry<String, byte[]> e : out.entrySet()) {
            Path f = dir.resolve(e.getKey());
            byte[] bytes = e.getValue();
            AtomicFiles.write(f, o -> o.write(bytes));
            files.add(f);
        }
        return files;
    }

    /** The Markdown table: one row per estimator, grouped by CPU. */
    public static String markdown(Evaluator.Result r, String command, String machine) {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "Data: %s, split `%s` (hash split 80/10/10). Command: `%s`. Machine: %s."
                + " Blocks/s: wall time of predicting in calls of 1,024 blocks, after 256 untimed blocks of each"
                + " estimator, from a collected heap, with the blocks' dependency graphs built beforehand (what every"
                + " estimator shares).%n%n", r.dataset(),
                r.config().splitName(), command, machine));
        sb.append("| CPU | estimator | blocks predicted | MAPE | median APE | p90 APE | p99 APE | Kendall τ | "
                + "Spearman ρ | blocks/s |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (Evaluator.Row row : r.rows()) {
            if (row.evaluation().isEmpty()) {
                sb.append(String.format(Locale.ROOT, "| %s | %s | 0 / %d | — | — | — | — | — | — | — |%n",
                        row.uarch(), row.estimator(), row.blocks()));
                continue;
            }
            Evaluation e = row.evaluation().get();
            sb.append(String.format(Locale.ROOT, "| %s | %s | %d / %d | %.2f%% | %.2f%% | %.1f%% | %.1f%% | %.4f | "
                            + "%.4f | %,.0f |%n", row.uarch(), row.estimator(), row.predicted(), row.blocks(),
                    100 * e.mape(), 100 * e.medianApe(), 100 * e.p90Ape(), 100 * e.p99Ape(), e.kendallTau(),
                    e.spearmanRho(), row.blocksPerSecond()));
        }
        List<Evaluator.Row> withIntervals = r.rows().stream().filter(x -> x.intervals().isPresent()).toList();
        if (!withIntervals.isEmpty()) {
            double[] levels = withIntervals.get(0).intervals().get().levels();
            sb.append("\nPrediction intervals: the share of blocks whose measurement lies inside the interval at each "
                    + "nominal level (calibration), and the median width of the 90% interval relative to the "
                    + "prediction (sharpness).\n\n| CPU | estimator | blocks");
            StringBuilder rule = new StringBuilder("|---|---|---:");
            for (double l : levels) {
                sb.append(String.format(Locale.ROOT, " | %.0f%%", 100 * l));
                rule.append("|---:");
            }
            sb.append(" | median width (90%) |\n").append(rule).append("|---:|\n");
            for (Evaluator.Row row : withIntervals) {
                Evaluator.IntervalScore sc = row.intervals().get();
                sb.append(String.format(Locale.ROOT, "| %s | %s | %d", row.uarch(), row.estimator(), sc.blocks()));
                for (double l : levels) {
                    sb.append(String.format(Locale.ROOT, " | %.1f%%", 100 * sc.coverageAt(l)));
                }
                sb.append(String.format(Locale.ROOT, " | %.1f%% |%n", 100 * sc.medianWidthAt(0.9)));
            }
        }
        List<String> notes = r.rows().stream().filter(x -> !x.note().isEmpty())
                .map(x -> x.uarch() + " " + x.estimator() + ": " + x.note()).toList();
        if (!notes.isEmpty()) {
            sb.append("\nNotes: ").append(String.join("; ", notes)).append(".\n");
        }
        return sb.toString();
    }

    private static String summaryCsv(Evaluator.Result r) {
        StringBuilder sb = new StringBuilder("mcpu,estimator,blocks,predicted,coverage,mape,median_ape,p90_ape,p95_ape,"
                + "p99_ape,kendall_tau,spearman_rho,blocks_per_second,interval_coverage_90,interval_width_90,note\n");
        for (Evaluator.Row row : r.rows()) {
            Evaluation e = row.evaluation().orElse(null);
            sb.append(String.join(",", row.uarch().llvmName(), row.estimator(), Integer.toString(row.blocks()),
                    Integer.toString(row.predicted()), Double.toString(row.coverage()),
                    e == null ? "" : Double.toString(e.mape()), e == null ? "" : Double.toString(e.medianApe()),
                    e == null ? "" : Double.toString(e.p90Ape()), e == null ? "" : Double.toString(e.p95Ape()),
                    e == null ? "" : Double.toString(e.p99Ape()), e == null ? "" : Double.toString(e.kendallTau()),
                    e == null ? "" : Double.toString(e.spearmanRho()), Double.toString(row.blocksPerSecond()),
                    row.intervals().map(x -> Double.toString(x.coverageAt(0.9))).orElse(""),
                    row.intervals().map(x -> Double.toString(x.medianWidthAt(0.9))).orElse(""),
                    '"' + row.note().replace("\"", "'") + '"')).append('\n');
        }
        return sb.toString();
    }

    private static byte[] predictionsCsv(Evaluator.Result r) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        BlockSources sources = BlockSources.bundled();
        try (CSVPrinter csv = new CSVPrinter(new OutputStreamWriter(bytes, StandardCharsets.UTF_8), CSVFormat.DEFAULT)) {
            csv.printRecord("hex", "mcpu", "estimator", "measured", "predicted", "ape", "instructions", "program",
                    "interval_low", "interval_high");
            for (Map.Entry<Microarchitecture, List<LabelledBlock>> e : r.blocks().entrySet()) {
                Microarchitecture cpu = e.getKey();
                List<LabelledBlock> blocks = e.getValue();
                for (Map.Entry<String, double[]> m : r.predictions().get(cpu).entrySet()) {
                    double[] p = m.getValue();
                    double[][] iv = r.intervals().getOrDefault(cpu, Map.of()).get(m.getKey());
                    for (int i = 0; i < blocks.size(); i++) {
                        LabelledBlock b = blocks.get(i);
                        double measured = b.throughput(cpu).orElseThrow();
                        boolean ok = Double.isFinite(p[i]) && p[i] > 0;
                        double[] range = ok && iv != null ? iv[i] : null;
                        csv.printRecord(b.hex(), cpu.llvmName(), m.getKey(), measured, ok ? p[i] : "",
                                ok ? Metrics.ape(p[i], measured) : "", b.block().size(),
                                sources.of(b.block()).orElse(""), range == null ? "" : range[0],
                                range == null ? "" : range[1]);
                    }
                }
            }
        }
        return bytes.toByteArray();
    }

    private static byte[] scatter(Evaluator.Result r, Microarchitecture cpu) throws IOException {
        List<LabelledBlock> blocks = r.blocks().get(cpu);
        List<BufferedImage> panels = new ArrayList<>();
        for (Map.Entry<String, double[]> m : r.predictions().get(cpu).entrySet()) {
            List<Double> xs = new ArrayList<>();
            List<Double> ys = new ArrayList<>();
            double lo = Double.POSITIVE_INFINITY;
            double hi = 0;
            for (int i = 0; i < blocks.size(); i++) {
                double measured = blocks.get(i).throughput(cpu).orElseThrow();
                double p = m.getValue()[i];
                if (Double.isFinite(p) && p > 0) {
                    xs.add(measured);
                    ys.add(p);
                    lo = Math.min(lo, Math.min(measured, p));
                    hi = Math.max(hi, Math.max(measured, p));
                }
            }
            XYChart chart = new XYChartBuilder().width(420).height(400).title(m.getKey() + " on " + cpu)
                    .xAxisTitle("measured cycles/iteration").yAxisTitle("predicted").build();
            org.knowm.xchart.style.XYStyler st = chart.getStyler();
            st.setXAxisLogarithmic(true);
            st.setYAxisLogarithmic(true);
            st.setLegendVisible(false);
            st.setDefaultSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Scatter);
            st.setMarkerSize(3);
            st.setChartBackgroundColor(Color.WHITE);
            st.setPlotGridLinesVisible(true);
            st.setPlotGridLinesColor(new Color(0xE6E8EE));
            st.setPlotGridLinesStroke(new java.awt.BasicStroke(1f));
            if (!xs.isEmpty()) {
                XYSeries points = chart.addSeries("blocks", xs, ys);
                points.setMarkerColor(new Color(53, 120, 232, 90));
                points.setMarker(SeriesMarkers.CIRCLE);
                XYSeries diagonal = chart.addSeries("y = x", new double[] {lo, hi}, new double[] {lo, hi});
                diagonal.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Line);
                diagonal.setMarker(SeriesMarkers.NONE);
                diagonal.setLineColor(new Color(0xd2381b));
            }
            panels.add(BitmapEncoder.getBufferedImage(chart));
        }
        return png(panels, Math.max(1, panels.size()));
    }

    /** Reliability: empirical against nominal coverage of the intervals, one line per estimator and CPU. */
    private static byte[] reliability(Evaluator.Result r) throws IOException {
        XYChart chart = new XYChartBuilder().width(560).height(480).title("Prediction intervals: reliability")
                .xAxisTitle("nominal coverage (%)").yAxisTitle("measurements inside (%)").build();
        org.knowm.xchart.style.XYStyler st = chart.getStyler();
        st.setChartBackgroundColor(Color.WHITE);
        st.setLegendPosition(Styler.LegendPosition.InsideSE);
        st.setPlotGridLinesColor(new Color(0xE6E8EE));
        XYSeries ideal = chart.addSeries("ideal", new double[] {40, 100}, new double[] {40, 100});
        ideal.setMarker(SeriesMarkers.NONE);
        ideal.setLineColor(Color.GRAY);
        int s = 0;
        for (Evaluator.Row row : r.rows()) {
            if (row.intervals().isEmpty()) {
                continue;
            }
            Evaluator.IntervalScore sc = row.intervals().get();
            double[] x = Arrays.stream(sc.levels()).map(v -> 100 * v).toArray();
            double[] y = Arrays.stream(sc.coverage()).map(v -> 100 * v).toArray();
            XYSeries line = chart.addSeries(row.estimator() + " " + row.uarch().llvmName(), x, y);
            line.setLineColor(COLORS[s % COLORS.length]);
            line.setMarkerColor(COLORS[s++ % COLORS.length]);
        }
        return png(List.of(BitmapEncoder.getBufferedImage(chart)), 1);
    }

    private static byte[] bySize(Evaluator.Result r) throws IOException {
        List<BufferedImage> panels = new ArrayList<>();
        for (Microarchitecture cpu : r.blocks().keySet()) {
            List<LabelledBlock> blocks = r.blocks().get(cpu);
            CategoryChart chart = new CategoryChartBuilder().width(560).height(440).title("MAPE by block size, " + cpu)
                    .xAxisTitle("instructions").yAxisTitle("MAPE (%)").build();
            style(chart);
            int s = 0;
            for (Map.Entry<String, double[]> m : r.predictions().get(cpu).entrySet()) {
                double[] sum = new double[SIZE_BINS.length];
                int[] n = new int[SIZE_BINS.length];
                for (int i = 0; i < blocks.size(); i++) {
                    double p = m.getValue()[i];
                    if (!(Double.isFinite(p) && p > 0)) {
                        continue;
                    }
                    int size = blocks.get(i).block().size();
                    int bin = 0;
                    while (size > SIZE_BINS[bin]) {
                        bin++;
                    }
                    double measured = blocks.get(i).throughput(cpu).orElseThrow();
                    sum[bin] += Metrics.ape(p, measured);
                    n[bin]++;
                }
                List<String> labels = new ArrayList<>();
                List<Double> values = new ArrayList<>();
                for (int b = 0; b < SIZE_BINS.length; b++) {
                    labels.add(SIZE_LABELS[b]);
                    values.add(n[b] == 0 ? 0.0 : 100 * sum[b] / n[b]);
                }
                chart.addSeries(m.getKey(), labels, values).setFillColor(COLORS[s++ % COLORS.length]);
            }
            panels.add(s == 0 ? nothingPredicted(560, 440, "MAPE by block size, " + cpu)
                    : BitmapEncoder.getBufferedImage(chart));
        }
        return png(panels, Math.max(1, panels.size()));
    }

    /**
     * A panel saying a CPU has nothing to plot: every estimator was skipped for it (a chart with no series cannot be
     * drawn).
     */
    private static BufferedImage nothingPredicted(int width, int height, String title) {
        BufferedImage image = new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB);
        java.awt.Graphics2D g = image.createGraphics();
        try {
            g.setColor(Color.WHITE);
            g.fillRect(0, 0, width, height);
            g.setColor(Color.DARK_GRAY);
            g.drawString(title, 20, 30);
            g.drawString("no estimator predicted any block (see the notes in results.md)", 20, height / 2);
        } finally {
            g.dispose();
        }
        return image;
    }

    private static byte[] bySource(Evaluator.Result r) throws IOException {
        BlockSources sources = BlockSources.bundled();
        List<BufferedImage> panels = new ArrayList<>();
        for (Microarchitecture cpu : r.blocks().keySet()) {
            List<LabelledBlock> blocks = r.blocks().get(cpu);
            CategoryChart chart = new CategoryChartBuilder().width(560).height(460)
                    .title("MAPE by source application, " + cpu).xAxisTitle("BHive source (blocks)")
                    .yAxisTitle("MAPE (%)").build();
            style(chart);
            Map<String, Integer> counts = new TreeMap<>();
            for (LabelledBlock b : blocks) {
                counts.merge(sources.of(b.block()).orElse("unknown"), 1, Integer::sum);
            }
            if (counts.isEmpty()) { // no block for this CPU: a chart of no categories cannot be drawn
                panels.add(nothingPredicted(560, 460, "MAPE by source application, " + cpu));
                continue;
            }
            int s = 0;
            for (Map.Entry<String, double[]> m : r.predictions().get(cpu).entrySet()) {
                Map<String, double[]> acc = new TreeMap<>();
                for (int i = 0; i < blocks.size(); i++) {
                    double p = m.getValue()[i];
                    if (!(Double.isFinite(p) && p > 0)) {
                        continue;
                    }
                    double measured = blocks.get(i).throughput(cpu).orElseThrow();
                    double[] a = acc.computeIfAbsent(sources.of(blocks.get(i).block()).orElse("unknown"),
                            k -> new double[2]);
                    a[0] += Metrics.ape(p, measured);
                    a[1]++;
                }
                List<String> labels = new ArrayList<>();
                List<Double> values = new ArrayList<>();
                for (String k : counts.keySet()) {
                    double[] a = acc.getOrDefault(k, new double[2]);
                    labels.add(k + " (" + counts.get(k) + ")");
                    values.add(a[1] == 0 ? 0.0 : 100 * a[0] / a[1]);
                }
                chart.addSeries(m.getKey(), labels, values).setFillColor(COLORS[s++ % COLORS.length]);
            }
            chart.getStyler().setXAxisLabelRotation(35);
            panels.add(s == 0 ? nothingPredicted(560, 460, "MAPE by source application, " + cpu)
                    : BitmapEncoder.getBufferedImage(chart));
        }
        return png(panels, Math.max(1, panels.size()));
    }

    private static void style(CategoryChart chart) {
        org.knowm.xchart.style.CategoryStyler st = chart.getStyler();
        st.setLegendPosition(Styler.LegendPosition.OutsideS);
        st.setLegendLayout(Styler.LegendLayout.Horizontal);
        st.setChartBackgroundColor(Color.WHITE);
        st.setAvailableSpaceFill(0.85);
        st.setOverlapped(false);
    }

    /** Panels side by side, {@code columns} per row, as PNG bytes. */
    private static byte[] png(List<BufferedImage> panels, int columns) throws IOException {
        if (panels.isEmpty()) {
            panels = List.of(new BufferedImage(10, 10, BufferedImage.TYPE_INT_RGB));
        }
        int w = panels.get(0).getWidth();
        int h = panels.get(0).getHeight();
        int rows = (panels.size() + columns - 1) / columns;
        BufferedImage img = new BufferedImage(w * Math.min(columns, panels.size()), h * rows,
                BufferedImage.TYPE_INT_RGB);
        Graphics2D g = img.createGraphics();
        g.setColor(Color.WHITE);
        g.fillRect(0, 0, img.getWidth(), img.getHeight());
        for (int k = 0; k < panels.size(); k++) {
            g.drawImage(panels.get(k), (k % columns) * w, (k / columns) * h, null);
        }
        g.dispose();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ImageIO.write(img, "png", out);
        return out.toByteArray();
    }
}
