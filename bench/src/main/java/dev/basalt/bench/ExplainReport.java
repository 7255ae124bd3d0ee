package dev.basalt.bench;

import dev.basalt.core.Estimators;
import dev.basalt.core.Microarchitecture;
import dev.basalt.core.ThroughputEstimator;
import dev.basalt.decoder.BasicBlock;
import dev.basalt.explain.Explainer;
import dev.basalt.explain.Explanation;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Median wall time and median model queries of one GRANITE explanation (anchors, then Shapley, default
 * settings) over the first 50 Haswell test-split blocks — the figures the explain issue asks for next to
 * {@link ExplainBenchmark}'s JMH timing (JMH cannot count queries).
 *
 * <pre>
 * java -cp bench/target/benchmarks.jar dev.basalt.bench.ExplainReport
 * </pre>
 */
public final class ExplainReport {

    private ExplainReport() {
    }

    private static double median(List<Double> xs) {
        List<Double> s = new ArrayList<>(xs);
        s.sort(null);
        int n = s.size();
        return n % 2 == 1 ? s.get(n / 2) : (s.get(n / 2 - 1) + s.get(n / 2)) / 2;
    }

    public static void main(String[] args) throws Exception {
        ThroughputEstimator granite = Estimators.load("granite");
        Explainer explainer = Explainer.forCpu(Microarchitecture.HASWELL, Explainer.Config.defaults());
        List<BasicBlock> blocks = TestBlocks.haswell(ExplainBenchmark.BLOCKS);
        for (BasicBlock b : blocks.subList(0, 5)) { // warm-up, not counted
            explainer.explain(b, Microarchitecture.HASWELL, granite, Explainer.Method.BOTH);
        }
        List<Double> anchorSeconds = new ArrayList<>();
        List<Double> anchorQueries = new ArrayList<>();
        List<Double> shapleySeconds = new ArrayList<>();
        List<Double> shapleyQueries = new ArrayList<>();
        List<Double> sizes = new ArrayList<>();
        int meets = 0;
        for (BasicBlock b : blocks) {
            Explanation e = explainer.explain(b, Microarchitecture.HASWELL, granite, Explainer.Method.BOTH);
            anchorSeconds.add(e.anchorSeconds());
            anchorQueries.add((double) e.anchor().orElseThrow().queries());
            shapleySeconds.add(e.shapleySeconds());
            shapleyQueries.add((double) e.shapley().orElseThrow().queries());
            sizes.add((double) b.size());
            meets += e.anchor().orElseThrow().meetsThreshold() ? 1 : 0;
        }
        System.out.printf(Locale.ROOT, "GRANITE explanations of %d Haswell test blocks (median %.0f instructions):%n"
                        + "  anchors: median %.2f s (max %.2f s), median %.0f model queries; %d anchors met the "
                        + "precision threshold%n  shapley: median %.3f s (max %.3f s), median %.0f model queries%n",
                blocks.size(), median(sizes), median(anchorSeconds),
                anchorSeconds.stream().mapToDouble(Double::doubleValue).max().orElse(0), median(anchorQueries), meets,
                median(shapleySeconds), shapleySeconds.stream().mapToDouble(Double::doubleValue).max().orElse(0),
                median(shapleyQueries));
        if (granite instanceof AutoCloseable c) {
            c.close();
        }
    }
}
