package dev.basalt.explain;

import dev.basalt.core.Microarchitecture;
import dev.basalt.decoder.BasicBlock;
import dev.basalt.decoder.Dependency;
import dev.basalt.simulator.Bottleneck;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Everything Basalt can say about why a model predicts what it does for one block: the anchor, the
 * per-instruction attributions (sampled Shapley, and the model's own when it has them) and, for the
 * simulator, the bottleneck it observed.
 *
 * @param block               the block
 * @param model               the estimator's name
 * @param uarch               the CPU
 * @param prediction          predicted cycles per iteration
 * @param modelContributions  the model's own per-instruction contributions (empty when it has none)
 * @param modelBaseline       the part of the prediction the model attributes to no instruction
 * @param anchor              the anchor, when asked for
 * @param shapley             the Shapley attributions, when asked for
 * @param bottleneck          the simulator's bottleneck (simulator estimators only)
 * @param bounds              the analytical bounds (the {@code bounds} estimator and the simulator's)
 * @param anchorSeconds       wall time of the anchor search
 * @param shapleySeconds      wall time of the Shapley estimate
 * @param notes               what the prediction says of itself (a fallback to the prior, an unmodelled instruction)
 * @param source              which estimator's number {@code prediction} is (the model's, or what it handed the block
 *                            to and why)
 */
public record Explanation(BasicBlock block, String model, Microarchitecture uarch, double prediction,
                          List<Double> modelContributions, double modelBaseline, Optional<Anchors.Result> anchor,
                          Optional<Shapley.Result> shapley, Optional<Bottleneck> bottleneck,
                          Optional<dev.basalt.simulator.bounds.Bounds> bounds, double anchorSeconds, double shapleySeconds,
                          List<String> notes, dev.basalt.core.Source source) {

    public Explanation {
        notes = List.copyOf(notes);
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(block, "block");
        Objects.requireNonNull(model, "model");
        Objects.requireNonNull(uarch, "uarch");
        modelContributions = List.copyOf(modelContributions);
        Objects.requireNonNull(anchor, "anchor");
        Objects.requireNonNull(shapley, "shapley");
        Objects.requireNonNull(bottleneck, "bottleneck");
        Objects.requireNonNull(bounds, "bounds");
    }

    /**
     * The per-instruction contributions to show: Shapley's when computed (comparable across models), else the
     * model's own; empty when there are neither.
     */
    public List<Double> contributions() {
        return shapley.map(Shapley.Result::contributions).orElse(modelContributions);
    }

    /** The block's dependencies within one iteration and across the back-edge. */
    public List<Dependency> dependencies() {
        return block.dependencyGraph().edges();
    }
}
