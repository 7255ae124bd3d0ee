package dev.basalt.ithemal;

/**
 * Every hyper-parameter of an Ithemal model and its training, in one place (saved with the weights).
 *
 * @param embedding         token embedding width
 * @param hidden            hidden width of both LSTMs
 * @param learningRate      Adam learning rate
 * @param epochs            maximum epochs
 * @param batchInstructions instructions per batch
 * @param clipNorm          global gradient-norm clipping bound
 * @param patience          early stopping: epochs without a better validation MAPE
 * @param seed              seed of initialisation and shuffling
 * @param prior             analytical estimator whose prediction the network corrects, or null/"none"
 *                          (DESIGN.md §5, "Analytical prior")
 * @param lrDecay           learning-rate factor after {@code lrPatience} epochs without improvement
 * @param lrPatience        epochs without improvement before each decay
 * @param hybrid            whether each instruction vector also takes the prior's statistics of that instruction
 *                          ({@code core.InstructionStatistics}); needs such a prior. Absent from a file: false.
 */
public record IthemalConfig(int embedding, int hidden, double learningRate, int epochs, int batchInstructions,
                            double clipNorm, int patience, long seed, String prior, double lrDecay,
                            int lrPatience, boolean hybrid) {

    public IthemalConfig {
        if (embedding < 1 || hidden < 1 || epochs < 0 || batchInstructions < 1 || patience < 1 || lrPatience < 1) {
            throw new IllegalArgumentException("invalid Ithemal configuration: " + embedding + "/" + hidden + "/"
                    + epochs + "/" + batchInstructions + "/" + patience + "/" + lrPatience);
        }
        if (!(learningRate > 0) || !(clipNorm > 0) || !(lrDecay > 0 && lrDecay <= 1)) {
            throw new IllegalArgumentException("learning rate and clip norm must be > 0, decay in (0, 1]");
        }
        if (prior != null && (prior.isBlank() || prior.equals("none"))) {
            prior = null;
        }
        if (hybrid && prior == null) {
            throw new IllegalArgumentException("hybrid inputs are the prior's statistics: a hybrid Ithemal needs a "
                    + "prior");
        }
    }

    /** A configuration as before hybrid inputs existed (none). */
    public IthemalConfig(int embedding, int hidden, double learningRate, int epochs, int batchInstructions,
                         double clipNorm, int patience, long seed, String prior, double lrDecay, int lrPatience) {
        this(embedding, hidden, learningRate, epochs, batchInstructions, clipNorm, patience, seed, prior, lrDecay,
                lrPatience, false);
    }

    /** Whether the network learns a correction of {@link #prior()}'s prediction. */
    public boolean hasPrior() {
        return prior != null;
    }

    /**
     * The shipped model's settings: DESIGN.md §6 with widths cut to 64 for a 2-core CPU (256 in the original),
     * Adam, and the analytical bounds as the prior, which make up for the width: as accurate a prior as the cycle
     * simulator (test MAPE 6.35% against 6.39% on Haswell) at a tenth of its cost, which a prediction pays on every
     * CPU of the model (the simulator prior alone held inference below 4,000 blocks/s on two cores).
     */
    public static IthemalConfig defaults() {
        return new IthemalConfig(64, 64, 1e-3, 40, 2000, 5.0, 8, 42, "bounds", 0.5, 2, true);
    }
}
