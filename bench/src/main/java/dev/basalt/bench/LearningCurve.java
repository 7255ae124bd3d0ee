package dev.basalt.bench;

import dev.basalt.core.Estimators;
import dev.basalt.core.Microarchitecture;
import dev.basalt.core.Prediction;
import dev.basalt.core.ThroughputEstimator;
import dev.basalt.datasets.Dataset;
import dev.basalt.datasets.LabelledBlock;
import dev.basalt.datasets.Metrics;
import dev.basalt.datasets.Split;
import dev.basalt.datasets.SplitScheme;
import dev.basalt.decoder.BasicBlock;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.style.markers.SeriesMarkers;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * A learning curve: models trained on more and more labels of a CPU Basalt measured ({@code basalt train ...
 * --max-train N}), each scored on that CPU's test split; writes a Markdown table and a PNG plot of test MAPE against
 * the number of training labels.
 *
 * <pre>java -cp bench/target/benchmarks.jar dev.basalt.bench.LearningCurve CPU OUT.png N=MODEL_FILE...</pre>
 */
public final class LearningCurve {

    private LearningCurve() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 3) {
            System.err.println("usage: LearningCurve CPU OUT.png N=MODEL_FILE...");
            System.exit(2);
        }
        Microarchitecture cpu = Microarchitecture.parse(args[0]);
        Path png = Path.of(args[1]);
        List<LabelledBlock> test = Dataset.measured(cpu).blocks(SplitScheme.defaults(), Split.TEST);
        List<BasicBlock> blocks = test.stream().map(LabelledBlock::block).toList();
        double[] measured = test.stream().mapToDouble(b -> b.throughput(cpu).orElseThrow()).toArray();
        List<Double> xs = new ArrayList<>();
        List<Double> ys = new ArrayList<>();
        StringBuilder md = new StringBuilder(String.format(Locale.ROOT,
                "| training labels | test MAPE | Kendall τ | test blocks |%n|---:|---:|---:|---:|%n"));
        for (int i = 2; i < args.length; i++) {
            String[] kv = args[i].split("=", 2);
            int labels = Integer.parseInt(kv[0]);
            ThroughputEstimator model = Estimators.load(kv[1]);
            List<Optional<Prediction>> ps = model.predictEach(blocks, cpu);
            List<Double> p = new ArrayList<>();
            List<Double> m = new ArrayList<>();
            for (int k = 0; k < ps.size(); k++) {
                if (ps.get(k).isPresent()) {
                    p.add(ps.get(k).get().cyclesPerIteration());
                    m.add(measured[k]);
                }
            }
            double[] pa = p.stream().mapToDouble(Double::doubleValue).toArray();
            double[] ma = m.stream().mapToDouble(Double::doubleValue).toArray();
            double mape = Metrics.mape(pa, ma);
            xs.add((double) labels);
            ys.add(100 * mape);
            md.append(String.format(Locale.ROOT, "| %,d | %.2f%% | %.4f | %,d |%n", labels, 100 * mape,
                    Metrics.kendallTauB(pa, ma), pa.length));
            if (model instanceof AutoCloseable c) {
                c.close();
            }
        }
        XYChart chart = new XYChartBuilder().width(720).height(440)
                .title("GRANITE on " + cpu.descriptor().description() + ": test MAPE by training labels")
                .xAxisTitle("training labels (log scale)").yAxisTitle("test MAPE (%)").build();
        chart.getStyler().setXAxisLogarithmic(true);
        chart.getStyler().setLegendVisible(false);
        chart.addSeries("GRANITE", xs, ys).setMarker(SeriesMarkers.CIRCLE);
        Files.createDirectories(png.toAbsolutePath().getParent());
        BitmapEncoder.saveBitmap(chart, png.toString(), BitmapEncoder.BitmapFormat.PNG);
        System.out.print(md);
    }
}
