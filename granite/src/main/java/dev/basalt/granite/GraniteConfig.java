package dev.basalt.granite;

import dev.basalt.decoder.MemoryPolicy;

/**
 * Every hyper-parameter of a GRANITE model and its training, in one place (saved with the weights).
 *
 * @param hidden       width of node, edge and global vectors
 * @param steps        message-passing steps (one shared set of update networks applied {@code steps} times)
 * @param mlpHidden    hidden layers in each update network
 * @param learningRate Adam learning rate
 * @param epochs       maximum epochs
 * @param batchInstructions instructions per batch (batches are bounded by instruction count)
 * @param clipNorm     gradient clipping: the global gradient norm is scaled down to at most this
 * @param patience     early stopping: epochs without a better validation MAPE before stopping
 * @param seed         seed of weight initialisation and shuffling
 * @param memoryPolicy memory aliasing used when building graphs
 * @param prior        name of an analytical estimator ({@code Estimators.load}) whose prediction the network
 *                     corrects, or {@code null}/"none" for the pure GRANITE network (see DESIGN.md §5, "prior")
 * @param lrDecay      learning-rate factor applied after {@code lrPatience} epochs without a better validation
 *                     MAPE (1 = constant rate)
 * @param lrPatience   epochs without improvement before each decay
 * @param hybrid       whether instruction nodes also take the prior's per-instruction statistics (each bound's
 *                     share, the critical cycle, the limiting bound, per CPU: {@code core.InstructionStatistics});
 *                     needs a prior that gives them. A model file without the field reads as false.
 * @param averaging    decay per training step of an exponential moving average of the weights (Polyak
 *                     averaging): the averaged weights are the ones validated, kept and shipped; 0 keeps the
 *                     weights of the last step. A model file without the field reads as 0.
 */
public record GraniteConfig(int hidden, int steps, int mlpHidden, double learningRate, int epochs,
                            int batchInstructions, double clipNorm, int patience, long seed,
                            MemoryPolicy memoryPolicy, String prior, double lrDecay, int lrPatience, boolean hybrid,
                            double averaging) {

    public GraniteConfig {
        if (hidden < 1 || steps < 0 || mlpHidden < 0 || epochs < 0 || batchInstructions < 1 || patience < 1) {
            throw new IllegalArgumentException("invalid GRANITE configuration: " + hidden + "/" + steps + "/"
                    + mlpHidden + "/" + epochs + "/" + batchInstructions + "/" + patience);
        }
        if (!(lrDecay > 0 && lrDecay <= 1) || lrPatience < 1) {
            throw new IllegalArgumentException("learning-rate decay must be in (0, 1] with patience >= 1");
        }
        if (!(learningRate > 0) || !(clipNorm > 0)) {
            throw new IllegalArgumentException("learning rate and clip norm must be > 0");
        }
        java.util.Objects.requireNonNull(memoryPolicy, "memoryPolicy");
        if (prior != null && (prior.isBlank() || prior.equals("none"))) {
            prior = null;
        }
        if (!(averaging >= 0 && averaging < 1)) {
            throw new IllegalArgumentException("weight averaging decay must be in [0, 1), got " + averaging);
        }
        if (hybrid && prior == null) {
            throw new IllegalArgumentException("hybrid inputs are the prior's statistics: a hybrid GRANITE needs a "
                    + "prior");
        }
    }

    /** A configuration as before weight averaging existed (none). */
    public GraniteConfig(int hidden, int steps, int mlpHidden, double learningRate, int epochs, int batchInstructions,
                         double clipNorm, int patience, long seed, MemoryPolicy memoryPolicy, String prior,
                         double lrDecay, int lrPatience, boolean hybrid) {
        this(hidden, steps, mlpHidden, learningRate, epochs, batchInstructions, clipNorm, patience, seed, memoryPolicy,
                prior, lrDecay, lrPatience, hybrid, 0);
    }

    /** A configuration as before hybrid inputs existed (none). */
    public GraniteConfig(int hidden, int steps, int mlpHidden, double learningRate, int epochs, int batchInstructions,
                         double clipNorm, int patience, long seed, MemoryPolicy memoryPolicy, String prior,
                         double lrDecay, int lrPatience) {
        this(hidden, steps, mlpHidden, learningRate, epochs, batchInstructions, clipNorm, patience, seed, memoryPolicy,
                prior, lrDecay, lrPatience, false);
    }

    /** This configuration with hybrid inputs on or off. */
    public GraniteConfig withHybrid(boolean on) {
        return new GraniteConfig(hidden, steps, mlpHidden, learningRate, epochs, batchInstructions, clipNorm, patience,
                seed, memoryPolicy, prior, lrDecay, lrPatience, on, averaging);
    }

    /** Whether the network learns a correction of {@link #prior()}'s prediction. */
    public boolean hasPrior() {
        return prior != null;
    }

    /**
     * The shipped model's settings: DESIGN.md §5 scaled to a 2-core CPU — 64 wide and 3 steps (128 × 4 took
     * about 2.5 minutes an epoch here against 0.5) — with the cycle simulator (the tuned tables) as the prior and
     * its per-instruction statistics as hybrid inputs. The prior was the analytical bounds while they were as
     * accurate as the simulator at a tenth of its cost; once the simulator had mechanisms the bounds lack (page
     * translation, the stack engine's sources, merges), the same network on the simulator reached 3.84 / 4.46 /
     * 4.58% test MAPE where it reached 4.33 / 5.12 / 5.40% on the bounds (2026-11-28, the tables of then), at
     * about a quarter of the bounds prior's speed. The weights are averaged over the steps of the training on
     * measurements (decay 0.99, about the last 100 steps, an epoch): the network's correction of the prior then
     * varies less from block to block, and blocks of nearly the same throughput stay in order — without it the
     * network ranked Haswell's test blocks worse than its own prior (Kendall τ 0.906 against 0.928) while halving
     * the large errors.
     */
    public static GraniteConfig defaults() {
        return new GraniteConfig(64, 3, 2, 1e-3, 40, 2000, 5.0, 8, 42, MemoryPolicy.ALL_ALIAS, "simulator", 0.5, 2,
                true, 0.99);
    }
}
