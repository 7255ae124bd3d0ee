package dev.basalt.training;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.PriorityQueue;

/**
 * Where a learned model has seen enough measured blocks to be trusted: the instruction count, per head the
 * prior's cycles, and per head and length the prior's cycles per instruction, each the value at least
 * {@link #SEEN} of its training and validation blocks reach. Past any, the network extrapolates — GRANITE gave 74
 * cycles for 100 dependent {@code add}s and 59.8 for 200; the Zen 5 model, whose training blocks reach 256
 * instructions and 200 cycles, gave 95 and 167, for a length and a slowness each seen but never together — so the
 * model predicts its prior's cycles instead, with an interval twice as wide, and says so in a note.
 *
 * @param maxInstructions         the instruction count at least {@link #SEEN} blocks reach
 * @param maxPrior                per head, the prior's cycles per iteration at least {@link #SEEN} labelled blocks
 *                                reach
 * @param priorName               the prior's name, for the note
 * @param maxCyclesPerInstruction per head, for each length n from 1 to {@code maxInstructions} (index n − 1), the
 *                                prior's cycles per instruction at least {@link #SEEN} labelled blocks of n or
 *                                more instructions reach; null in files written before it existed (not checked)
 * @param maxCriticalShare        per head, for each length n as above, the share of a block's instructions on its
 *                                prior's critical cycle (the prior's {@code on_critical_cycle} statistic) at least
 *                                {@link #SEEN} labelled blocks of n or more instructions reach; null for a model
 *                                that does not take the prior's statistics, and in files written before it existed.
 *                                A chain of dependent {@code add}s has every instruction on it; no 20 Zen 5 training
 *                                blocks of 20 or more instructions have even 0.9 of theirs (Zen 5's model gave 26,
 *                                32 and 38 cycles for 30, 40 and 50 of them, each length and slowness seen before)
 */
public record TrainingRange(int maxInstructions, double[] maxPrior, String priorName,
                            double[][] maxCyclesPerInstruction, double[][] maxCriticalShare) {

    /** How many blocks must lie at or beyond a value for it to count as seen. */
    public static final int SEEN = 20;

    @JsonCreator
    public TrainingRange(@JsonProperty("maxInstructions") int maxInstructions,
                         @JsonProperty("maxPrior") double[] maxPrior, @JsonProperty("priorName") String priorName,
                         @JsonProperty("maxCyclesPerInstruction") double[][] maxCyclesPerInstruction,
                         @JsonProperty("maxCriticalShare") double[][] maxCriticalShare) {
        if (maxInstructions < 1 || maxPrior == null) {
            throw new IllegalArgumentException("training range needs an instruction count >= 1 and prior ranges");
        }
        for (double[][] perLength : new double[][][] {maxCyclesPerInstruction, maxCriticalShare}) {
            for (int c = 0; perLength != null && c < perLength.length; c++) {
                if (perLength[c] == null || perLength[c].length != maxInstructions) {
                    throw new IllegalArgumentException("training range needs, per head, a value for every length "
                            + "up to " + maxInstructions);
                }
            }
        }
        this.maxInstructions = maxInstructions;
        this.maxPrior = maxPrior.clone();
        this.priorName = priorName == null ? "prior" : priorName;
        this.maxCyclesPerInstruction = copy(maxCyclesPerInstruction);
        this.maxCriticalShare = copy(maxCriticalShare);
    }

    /** A range without the per-length checks (as files written before they existed read). */
    public TrainingRange(int maxInstructions, double[] maxPrior, String priorName) {
        this(maxInstructions, maxPrior, priorName, null, null);
    }

    private static double[][] copy(double[][] table) {
        return table == null ? null : Arrays.stream(table).map(double[]::clone).toArray(double[][]::new);
    }

    @Override
    public double[] maxPrior() {
        return maxPrior.clone();
    }

    @Override
    public double[][] maxCyclesPerInstruction() {
        return copy(maxCyclesPerInstruction);
    }

    @Override
    public double[][] maxCriticalShare() {
        return copy(maxCriticalShare);
    }

    /**
     * The range of blocks of {@code sizes} instructions whose prior gave {@code prior[block][head]} and which are
     * labelled where {@code labels[block][head]} is not NaN.
     */
    static TrainingRange of(int[] sizes, float[][] prior, double[][] labels, String priorName) {
        return of(sizes, prior, labels, priorName, null);
    }

    /**
     * {@link #of(int[], float[][], double[][], String)} with, per block and head, the share of its instructions on
     * the prior's critical cycle ({@code criticalShare}; null: the model takes no statistics, no such check).
     */
    static TrainingRange of(int[] sizes, float[][] prior, double[][] labels, String priorName,
                            float[][] criticalShare) {
        int heads = labels.length == 0 ? 0 : labels[0].length;
        double[] maxPrior = new double[heads];
        for (int c = 0; c < heads; c++) {
            int head = c;
            double[] seen = java.util.stream.IntStream.range(0, labels.length)
                    .filter(i -> !Double.isNaN(labels[i][head])).mapToDouble(i -> prior[i][head]).sorted().toArray();
            maxPrior[c] = seen.length == 0 ? 0 : seen[Math.max(0, seen.length - SEEN)];
        }
        int[] s = sizes.clone();
        Arrays.sort(s);
        int maxInstructions = s.length == 0 ? 1 : Math.max(1, s[Math.max(0, s.length - SEEN)]);
        double[][] perInstruction = new double[heads][];
        double[][] critical = criticalShare == null ? null : new double[heads][];
        for (int c = 0; c < heads; c++) {
            int head = c;
            perInstruction[c] = perLength(sizes, i -> (double) prior[i][head] / sizes[i], labels, c, maxInstructions);
            if (critical != null) {
                critical[c] = perLength(sizes, i -> criticalShare[i][head], labels, c, maxInstructions);
            }
        }
        return new TrainingRange(maxInstructions, maxPrior, priorName, perInstruction, critical);
    }

    /**
     * For each length n in 1..{@code max}, the {@link #SEEN}-th largest {@code value} among head {@code head}'s
     * labelled blocks of n or more instructions (0 when fewer are labelled): lengths from the longest down, each
     * adding its blocks to a running top {@link #SEEN}.
     */
    private static double[] perLength(int[] sizes, java.util.function.IntToDoubleFunction value, double[][] labels,
                                      int head, int max) {
        int longest = Math.max(max, Arrays.stream(sizes).max().orElse(1));
        List<List<Double>> byLength = new ArrayList<>();
        for (int n = 0; n <= longest; n++) {
            byLength.add(new ArrayList<>());
        }
        for (int i = 0; i < sizes.length; i++) {
            if (!Double.isNaN(labels[i][head]) && sizes[i] > 0) {
                byLength.get(sizes[i]).add(value.applyAsDouble(i));
            }
        }
        PriorityQueue<Double> top = new PriorityQueue<>(); // the SEEN largest so far, smallest first
        double[] out = new double[max];
        for (int n = longest; n >= 1; n--) {
            for (double v : byLength.get(n)) {
                top.add(v);
                if (top.size() > SEEN) {
                    top.poll();
                }
            }
            if (n <= max) {
                out[n - 1] = top.size() < SEEN ? 0 : top.peek();
            }
        }
        return out;
    }

    /** Why a block of {@code instructions} whose prior gives {@code prior} on {@code head} is outside, or null. */
    public String outside(int instructions, double prior, int head) {
        return outside(instructions, prior, head, Double.NaN);
    }

    /**
     * {@link #outside(int, double, int)}, also checking the share of the block's instructions on the prior's
     * critical cycle ({@code criticalShare}; NaN: unknown, not checked).
     */
    public String outside(int instructions, double prior, int head, double criticalShare) {
        if (instructions > maxInstructions) {
            return String.format(Locale.ROOT, "%d instructions, more than the %d that %d or more training blocks "
                    + "reach", instructions, maxInstructions, SEEN);
        }
        if (head < maxPrior.length && prior > maxPrior[head]) {
            return String.format(Locale.ROOT, "%s gives %.2f cycles, more than the %.2f that %d or more training "
                    + "blocks reach", priorName, prior, maxPrior[head], SEEN);
        }
        if (maxCyclesPerInstruction != null && head < maxCyclesPerInstruction.length && instructions >= 1
                && prior / instructions > maxCyclesPerInstruction[head][instructions - 1]) {
            return String.format(Locale.ROOT, "%s gives %.2f cycles an instruction over %d instructions, more than "
                    + "the %.2f that %d or more training blocks of %d or more instructions reach", priorName,
                    prior / instructions, instructions, maxCyclesPerInstruction[head][instructions - 1], SEEN,
                    instructions);
        }
        if (maxCriticalShare != null && head < maxCriticalShare.length && instructions >= 1
                && !Double.isNaN(criticalShare) && criticalShare > maxCriticalShare[head][instructions - 1]) {
            return String.format(Locale.ROOT, "%.0f%% of its %d instructions on %s's critical cycle, more than the "
                    + "%.0f%% that %d or more training blocks of %d or more instructions reach", 100 * criticalShare,
                    instructions, priorName, 100 * maxCriticalShare[head][instructions - 1], SEEN, instructions);
        }
        return null;
    }
}
