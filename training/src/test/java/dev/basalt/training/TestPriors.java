package dev.basalt.training;

import dev.basalt.core.EstimatorProvider;
import dev.basalt.core.Microarchitecture;
import dev.basalt.core.Prediction;
import dev.basalt.core.ThroughputEstimator;
import dev.basalt.decoder.BasicBlock;

import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Priors for the tests (registered in this module's test resources): {@code fingerprinted}, one cycle an
 * instruction with the fingerprint {@link #FINGERPRINT}, and {@code unfingerprinted}, the same without one.
 */
public final class TestPriors implements EstimatorProvider {

    /** The fingerprint of {@code fingerprinted}. */
    static final String FINGERPRINT = "ab12" + "0".repeat(60);

    @Override
    public List<String> names() {
        return List.of("fingerprinted", "unfingerprinted");
    }

    @Override
    public ThroughputEstimator load(String name) {
        return new ThroughputEstimator() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public Set<Microarchitecture> supported() {
                return Set.copyOf(Microarchitecture.all());
            }

            @Override
            public Prediction predict(BasicBlock block, Microarchitecture uarch) {
                return Prediction.of(block.size());
            }

            @Override
            public Optional<String> fingerprint(java.util.Collection<Microarchitecture> cpus) {
                return name.equals("fingerprinted") ? Optional.of(FINGERPRINT) : Optional.empty();
            }
        };
    }
}
