package dev.basalt.training;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;

import java.util.Arrays;
import java.util.Locale;

/**
 * Where a learned model has seen enough measured blocks to be trusted: the instruction count and, per head, the
 * prior's cycles below which at least {@link #SEEN} of its training and validation blocks lie at or above. Past
 * either, the network extrapolates — GRANITE gave 74 cycles for 100 dependent {@code add}s and 59.8 for 200 —
 * so the model predicts its prior's cycles instead, with an interval twice as wide, and says so in a note.
 *
 * @param maxInstructions the instruction count at least {@link #SEEN} blocks reach
 * @param maxPrior        per head, the prior's cycles per iteration at least {@link #SEEN} labelled blocks reach
 * @param priorName       the prior's name, for the note
 */
public record TrainingRange(int maxInstructions, double[] maxPrior, String priorName) {

    /** How many blocks must lie at or beyond a value for it to count as seen. */
    public static final int SEEN = 20;

    @JsonCreator
    public TrainingRange(@JsonProperty("maxInstructions") int maxInstructions,
                         @JsonProperty("maxPrior") double[] maxPrior, @JsonProperty("priorName") String priorName) {
        if (maxInstructions < 1 || maxPrior == null) {
            throw new IllegalArgumentException("training range needs an instruction count >= 1 and prior ranges");
        }
        this.maxInstructions = maxInstructions;
        this.maxPrior = maxPrior.clone();
        this.priorName = priorName == null ? "prior" : priorName;
    }

    @Override
    public double[] maxPrior() {
        return maxPrior.clone();
    }

    /**
     * The range of blocks of {@code sizes} instructions whose prior gave {@code prior[block][head]} and which are
     * labelled where {@code labels[block][head]} is not NaN.
     */
    static TrainingRange of(int[] sizes, float[][] prior, double[][] labels, String priorName) {
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
        return new TrainingRange(s.length == 0 ? 1 : Math.max(1, s[Math.max(0, s.length - SEEN)]), maxPrior,
                priorName);
    }

    /** Why a block of {@code instructions} whose prior gives {@code prior} on {@code head} is outside, or null. */
    public String outside(int instructions, double prior, int head) {
        if (instructions > maxInstructions) {
            return String.format(Locale.ROOT, "%d instructions, more than the %d that %d or more training blocks "
                    + "reach", instructions, maxInstructions, SEEN);
        }
        if (head < maxPrior.length && prior > maxPrior[head]) {
            return String.format(Locale.ROOT, "%s gives %.2f cycles, more than the %.2f that %d or more training "
                    + "blocks reach", priorName, prior, maxPrior[head], SEEN);
        }
        return null;
    }
}
