package dev.basalt.granite;

import dev.basalt.core.EstimatorProvider;
import dev.basalt.core.Microarchitecture;
import dev.basalt.core.ThroughputEstimator;
import dev.basalt.datasets.Vocabulary;
import dev.basalt.decoder.BasicBlock;
import dev.basalt.training.TrainableProvider;
import dev.basalt.training.TrainingOptions;
import dev.basalt.training.TrainingOptions.Option;

import java.io.IOException;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/** {@code granite}: the bundled GRANITE model for {@code Estimators}, and a new one for {@code basalt train}. */
public final class GraniteProvider implements EstimatorProvider, TrainableProvider<GraniteConfig> {
    @Override
    public List<String> names() {
        return List.of(name());
    }

    @Override
    public ThroughputEstimator load(String name) throws IOException {
        return dev.basalt.core.CpuRouted.withOwnModels(name(), GraniteModel.bundled(), GraniteModel::bundled);
    }

    @Override
    public java.util.Optional<ThroughputEstimator> load(java.nio.file.Path file) throws IOException {
        return GraniteModel.reads(file) ? java.util.Optional.of(GraniteModel.load(file)) : java.util.Optional.empty();
    }

    @Override
    public String name() {
        return "granite";
    }

    @Override
    public Set<Option> options() {
        return EnumSet.of(Option.HIDDEN, Option.ITERATIONS, Option.LEARNING_RATE, Option.EPOCHS, Option.SEED,
                Option.PRIOR, Option.HYBRID);
    }

    /** {@link GraniteConfig#defaults()} with the given width, steps, learning rate, epochs, seed, prior, hybrid. */
    @Override
    public GraniteConfig config(TrainingOptions o) {
        GraniteConfig d = GraniteConfig.defaults();
        return new GraniteConfig(o.hidden(d.hidden()), o.iterations(d.steps()), d.mlpHidden(),
                o.learningRate(d.learningRate()), o.epochs(d.epochs()), d.batchInstructions(), d.clipNorm(),
                d.patience(), o.seed(d.seed()), d.memoryPolicy(), o.prior(d.prior()), d.lrDecay(), d.lrPatience(),
                o.hybrid(d.hybrid() && hasPrior(o.prior(d.prior()))), d.averaging());
    }

    @Override
    public Vocabulary vocabulary(GraniteConfig config, List<BasicBlock> trainBlocks) {
        return GraniteModel.vocabulary(trainBlocks, config);
    }

    @Override
    public GraniteModel create(GraniteConfig config, Vocabulary vocabulary, List<Microarchitecture> cpus) {
        return GraniteModel.create(config, vocabulary, cpus);
    }

    /** Hybrid inputs are on by default only with a prior to take them from ({@code --prior none} turns them off). */
    private static boolean hasPrior(String prior) {
        return prior != null && !prior.isBlank() && !prior.equals("none");
    }
}
