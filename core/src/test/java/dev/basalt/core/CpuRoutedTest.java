package dev.basalt.core;

import dev.basalt.decoder.BasicBlock;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Optional;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link CpuRouted}: each CPU's calls reach the estimator that has it (the first, when two do), the CPUs are the
 * union, and a CPU none has is refused by name.
 */
class CpuRoutedTest {

    /** An estimator that answers {@code cycles} for its CPUs and remembers it was asked. */
    private static final class Fixed implements ThroughputEstimator, AutoCloseable {
        final double cycles;
        final Set<Microarchitecture> cpus;
        boolean closed;

        Fixed(double cycles, Set<Microarchitecture> cpus) {
            this.cycles = cycles;
            this.cpus = cpus;
        }

        @Override
        public String name() {
            return "fixed";
        }

        @Override
        public Set<Microarchitecture> supported() {
            return cpus;
        }

        @Override
        public Prediction predict(BasicBlock block, Microarchitecture uarch) {
            checkSupported(uarch);
            return Prediction.of(cycles);
        }

        @Override
        public Optional<String> fingerprint(java.util.Collection<Microarchitecture> cpus) {
            return Optional.of("f" + cycles);
        }

        @Override
        public void close() {
            closed = true;
        }
    }

    @Test
    void eachCpuGoesToItsEstimator() throws Exception {
        Microarchitecture zen5 = Microarchitecture.parse("znver5");
        Fixed intel = new Fixed(1.0, Set.of(Microarchitecture.HASWELL, Microarchitecture.SKYLAKE));
        Fixed zen = new Fixed(2.0, Set.of(zen5, Microarchitecture.SKYLAKE));
        CpuRouted r = new CpuRouted("granite", List.of(intel, zen));
        BasicBlock b = BasicBlock.fromHex("4801d8");
        assertEquals("granite", r.name());
        assertEquals(Set.of(Microarchitecture.HASWELL, Microarchitecture.SKYLAKE, zen5), r.supported());
        assertEquals(1.0, r.predict(b, Microarchitecture.HASWELL).cyclesPerIteration());
        assertEquals(1.0, r.predict(b, Microarchitecture.SKYLAKE).cyclesPerIteration(), "the first one wins");
        assertEquals(2.0, r.predictAll(List.of(b, b), zen5).get(1).cyclesPerIteration());
        assertEquals(Optional.of("f1.0+f2.0"), r.fingerprint(List.of(Microarchitecture.HASWELL, zen5)));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> r.predict(b, Microarchitecture.IVYBRIDGE));
        assertTrue(e.getMessage().contains("ivybridge"), e.getMessage());
        r.close();
        assertTrue(intel.closed && zen.closed);
    }

    /** A CPU's own model goes before a head of the main model for that CPU; the main model keeps the others. */
    @Test
    void aCpusOwnModelGoesBeforeTheMainModelsHead() throws Exception {
        Microarchitecture zen5 = Microarchitecture.parse("znver5");
        Fixed main = new Fixed(1.0, Set.of(Microarchitecture.HASWELL, zen5));
        Fixed own = new Fixed(2.0, Set.of(zen5));
        ThroughputEstimator r = CpuRouted.withOwnModels("granite", main,
                cpu -> cpu.equals(zen5) ? Optional.of(own) : Optional.empty());
        BasicBlock b = BasicBlock.fromHex("4801d8");
        assertEquals(2.0, r.predict(b, zen5).cyclesPerIteration());
        assertEquals(1.0, r.predict(b, Microarchitecture.HASWELL).cyclesPerIteration());
        assertEquals(Set.of(Microarchitecture.HASWELL, zen5), r.supported());
        // Listed in Basalt's order of CPUs, not by precedence (basalt predict prints them in this order).
        assertEquals(List.of(Microarchitecture.HASWELL, zen5), List.copyOf(r.supported()));
        // No CPU with a model of its own: the main model itself.
        assertSame(main, CpuRouted.withOwnModels("granite", main, cpu -> Optional.empty()));
    }
}
