package dev.basalt.datasets;

import dev.basalt.core.Microarchitecture;

import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * Accuracy of one estimator on one CPU's blocks of one data set split. Every figure names what it was
 * measured on (DESIGN.md §1). Errors are fractions (0.1 = 10%); the text forms print them as percentages.
 *
 * @param estimator   the estimator's name
 * @param dataset     the data set's name
 * @param split       the split (or "all")
 * @param uarch       the CPU
 * @param blocks      number of blocks
 * @param mape        mean APE
 * @param medianApe   median APE (the 50th percentile)
 * @param p90Ape      90th percentile of APE
 * @param p95Ape      95th percentile of APE
 * @param p99Ape      99th percentile of APE
 * @param kendallTau  Kendall's τ-b between predicted and measured
 * @param spearmanRho Spearman's ρ between predicted and measured
 */
public record Evaluation(String estimator, String dataset, String split, Microarchitecture uarch, int blocks,
                         double mape, double medianApe, double p90Ape, double p95Ape, double p99Ape,
                         double kendallTau, double spearmanRho) {

    public Evaluation {
        Objects.requireNonNull(estimator, "estimator");
        Objects.requireNonNull(dataset, "dataset");
        Objects.requireNonNull(split, "split");
        Objects.requireNonNull(uarch, "uarch");
    }

    /** Computes every metric from paired predictions and measurements (cycles per iteration). */
    public static Evaluation of(String estimator, String dataset, String split, Microarchitecture uarch,
                                double[] predicted, double[] measured) {
        double[] ape = Metrics.ape(predicted, measured);
        return new Evaluation(estimator, dataset, split, uarch, measured.length,
                java.util.Arrays.stream(ape).average().orElseThrow(), Metrics.percentile(ape, 50),
                Metrics.percentile(ape, 90), Metrics.percentile(ape, 95), Metrics.percentile(ape, 99),
                Metrics.kendallTauB(predicted, measured), Metrics.spearmanRho(predicted, measured));
    }

    /** One line for a terminal. */
    public String toText() {
        return String.format(Locale.ROOT, "%s on %s/%s, %s (%d blocks): MAPE %.2f%%, median APE %.2f%%, "
                        + "APE p90 %.1f%% p95 %.1f%% p99 %.1f%%, Kendall tau %.4f, Spearman rho %.4f", estimator,
                dataset, split, uarch, blocks, 100 * mape, 100 * medianApe, 100 * p90Ape, 100 * p95Ape,
                100 * p99Ape, kendallTau, spearmanRho);
    }

    /** A Markdown table of evaluations, ready to paste. */
    public static String markdownTable(List<Evaluation> rows) {
        StringBuilder sb = new StringBuilder();
        sb.append("| estimator | CPU | data set | split | blocks | MAPE | median APE | p90 APE | p95 APE | p99 APE"
                + " | Kendall τ | Spearman ρ |\n");
        sb.append("|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (Evaluation e : rows) {
            sb.append(String.format(Locale.ROOT, "| %s | %s | %s | %s | %d | %.2f%% | %.2f%% | %.1f%% | %.1f%% "
                            + "| %.1f%% | %.4f | %.4f |%n", e.estimator, e.uarch, e.dataset, e.split, e.blocks,
                    100 * e.mape, 100 * e.medianApe, 100 * e.p90Ape, 100 * e.p95Ape, 100 * e.p99Ape,
                    e.kendallTau, e.spearmanRho));
        }
        return sb.toString();
    }

    /** CSV with a header row; errors as fractions, full precision. */
    public static String csv(List<Evaluation> rows) {
        StringBuilder sb = new StringBuilder("estimator,uarch,dataset,split,blocks,mape,median_ape,p90_ape,"
                + "p95_ape,p99_ape,kendall_tau,spearman_rho\n");
        for (Evaluation e : rows) {
            sb.append(String.join(",", e.estimator, e.uarch.llvmName(), e.dataset, e.split,
                    Integer.toString(e.blocks), Double.toString(e.mape), Double.toString(e.medianApe),
                    Double.toString(e.p90Ape), Double.toString(e.p95Ape), Double.toString(e.p99Ape),
                    Double.toString(e.kendallTau), Double.toString(e.spearmanRho))).append('\n');
        }
        return sb.toString();
    }
}
