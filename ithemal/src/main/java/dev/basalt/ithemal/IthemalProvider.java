package dev.basalt.ithemal;

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

/** {@code ithemal}: the bundled Ithemal model for {@code Estimators}, and a new one for {@code basalt train}. */
public final class IthemalProvider implements EstimatorProvider, TrainableProvider<IthemalConfig> {
    @Override
    public List<String> names() {
        return List.of(name());
    }

    @Override
    public ThroughputEstimator load(String name) throws IOException {
        return dev.basalt.core.CpuRouted.withOwnModels(name(), IthemalModel.bundled(), IthemalModel::bundled);
    }

    @Override
    public java.util.Optional<ThroughputEstimator> load(java.nio.file.Path file) throws IOException {
        return IthemalModel.reads(file) ? java.util.Optional.of(IthemalModel.load(file)) : java.util.Optional.empty();
    }

    @Override
    public String name() {
        return "ithemal";
    }

    @Override
    public Set<Option> options() {
        return EnumSet.of(Option.EMBEDDING, Option.HIDDEN, Option.LEARNING_RATE, Option.EPOCHS, Option.SEED,
                Option.PRIOR, Option.HYBRID);
    }

    /** {@link IthemalConfig#defaults()} with the given widths, learning rate, epochs, seed, prior and hybrid. */
    @Override
    public IthemalConfig config(TrainingOptions o) {
        IthemalConfig d = IthemalConfig.defaults();
        return new IthemalConfig(o.embedding(d.embedding()), o.hidden(d.hidden()), o.learningRate(d.learningRate()),
                o.epochs(d.epochs()), d.batchInstructions(), d.clipNorm(), d.patience(), o.seed(d.seed()),
                o.prior(d.prior()), d.lrDecay(), d.lrPatience(), o.hybrid(d.hybrid() && hasPrior(o.prior(d.prior()))));
    }

    @Override
    public Vocabulary vocabulary(IthemalConfig config, List<BasicBlock> trainBlocks) {
        return IthemalModel.vocabulary(trainBlocks);
    }

    @Override
    public IthemalModel create(IthemalConfig config, Vocabulary vocabulary, List<Microarchitecture> cpus) {
        return IthemalModel.create(config, vocabulary, cpus);
    }

    /** Hybrid inputs are on by default only with a prior to take them from ({@code --prior none} turns them off). */
    private static boolean hasPrior(String prior) {
        return prior != null && !prior.isBlank() && !prior.equals("none");
    }
}
