package dev.basalt.explain;

import dev.basalt.core.Microarchitecture;
import dev.basalt.core.Prediction;
import dev.basalt.core.ThroughputEstimator;
import dev.basalt.decoder.BasicBlock;
import dev.basalt.simulator.Bottleneck;
import dev.basalt.simulator.SimulatorEstimator;
import dev.basalt.simulator.params.SimulatorParams;

import java.util.List;
import java.util.Optional;

/**
 * Explains predictions of any {@link ThroughputEstimator}: anchors, Shapley attributions, and the simulator's
 * bottleneck when the estimator is the simulator.
 *
 * <pre>{@code
 * Explainer explainer = Explainer.forCpu(Microarchitecture.HASWELL, Explainer.Config.defaults());
 * Explanation e = explainer.explain(BasicBlock.fromHex("4889de4889c24c89ff"), Microarchitecture.HASWELL,
 *         Estimators.load("granite"), Explainer.Method.BOTH);
 * e.anchor().get().features();   // e.g. [num_insts]
 * }</pre>
 *
 * Thread-safe: each call builds its own search state.
 */
public final class Explainer {

    /**
     * The largest block explained, in instructions. Memory is bounded below it whatever the block (model queries
     * go in {@link QueryBatches}), but the work is not: Shapley's queries grow with the square of the block's
     * size and anchors' features with its dependencies. {@link #explain} refuses a larger block.
     */
    public static final int MAX_INSTRUCTIONS = 512;

    /** What to compute. */
    public enum Method {
        ANCHORS, SHAPLEY, BOTH;

        /** Parses {@code anchors}, {@code shapley} or {@code both}. */
        public static Method parse(String s) {
            for (Method m : values()) {
                if (m.name().equalsIgnoreCase(s.trim())) {
                    return m;
                }
            }
            throw new IllegalArgumentException("unknown method '" + s + "': use anchors, shapley or both");
        }

        boolean anchors() {
            return this != SHAPLEY;
        }

        boolean shapley() {
            return this != ANCHORS;
        }
    }

    /** Settings of both methods. */
    public record Config(Anchors.Config anchors, Shapley.Config shapley) {
        public static Config defaults() {
            return new Config(Anchors.Config.defaults(), Shapley.Config.defaults());
        }
    }

    private final Config config;
    private final MnemonicPool pool;

    public Explainer(Config config, MnemonicPool pool) {
        this.config = config;
        this.pool = pool;
    }

    /** An explainer whose mnemonic swaps come from the forms of the CPU's bundled simulator table. */
    public static Explainer forCpu(Microarchitecture uarch, Config config) {
        return new Explainer(config, MnemonicPool.forCpu(SimulatorParams.bundled(uarch).forms().keySet(), uarch));
    }

    public Config config() {
        return config;
    }

    /**
     * Why {@code block} cannot be explained — more than {@link #MAX_INSTRUCTIONS} instructions — or empty when it
     * can.
     */
    public static Optional<String> tooLarge(BasicBlock block) {
        return block.size() <= MAX_INSTRUCTIONS ? Optional.empty() : Optional.of("block of " + block.size()
                + " instructions: explain takes at most " + MAX_INSTRUCTIONS + " (predict and simulate take larger"
                + " ones)");
    }

    /**
     * Explains {@code model}'s prediction for {@code block} on {@code uarch}.
     *
     * @throws IllegalArgumentException when the block is {@linkplain #tooLarge too large} or the model has no
     *                                  head for {@code uarch}
     */
    public Explanation explain(BasicBlock block, Microarchitecture uarch, ThroughputEstimator model, Method method) {
        tooLarge(block).ifPresent(why -> {
            throw new IllegalArgumentException(why);
        });
        model.checkSupported(uarch);
        Prediction p = model.predict(block, uarch);
        Optional<Anchors.Result> anchor = Optional.empty();
        Optional<Shapley.Result> shapley = Optional.empty();
        double anchorSeconds = 0;
        double shapleySeconds = 0;
        if (method.anchors()) {
            long t = System.nanoTime();
            anchor = Optional.of(new Anchors(config.anchors(), pool).explain(block, uarch, model));
            anchorSeconds = (System.nanoTime() - t) / 1e9;
        }
        if (method.shapley()) {
            long t = System.nanoTime();
            shapley = Optional.of(new Shapley(config.shapley()).attribute(block, uarch, model));
            shapleySeconds = (System.nanoTime() - t) / 1e9;
        }
        Optional<Bottleneck> bottleneck = model instanceof SimulatorEstimator sim
                ? Optional.of(sim.bottleneck(block, uarch)) : Optional.empty();
        Optional<dev.basalt.simulator.bounds.Bounds> bounds = model instanceof dev.basalt.simulator.BoundsEstimator be
                ? Optional.of(be.bounds(block, uarch)) : Optional.empty();
        // the simulator's own attribution is its bottleneck's: the same story as the bottleneck line
        List<Double> own = model instanceof SimulatorEstimator sim ? sim.bottleneckShares(block, uarch)
                : p.contributions();
        return new Explanation(block, model.name(), uarch, p.cyclesPerIteration(), own, p.baseline(),
                anchor, shapley, bottleneck, bounds, anchorSeconds, shapleySeconds, p.notes(),
                p.source(model.name()));
    }
}
