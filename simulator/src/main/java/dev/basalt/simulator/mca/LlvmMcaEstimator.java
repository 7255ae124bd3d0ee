package dev.basalt.simulator.mca;

import dev.basalt.core.EstimatorUnavailableException;
import dev.basalt.core.IsaSupport;
import dev.basalt.core.Microarchitecture;
import dev.basalt.core.Prediction;
import dev.basalt.core.ThroughputEstimator;
import dev.basalt.core.UnpredictableBlockException;
import dev.basalt.decoder.BasicBlock;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * {@code llvm-mca}: llvm-mca-14 itself as an estimator, 100 iterations, llvm-mca's default options. A batch of
 * blocks is one llvm-mca run with a region per block (disassembled to AT&amp;T text by llvm-mc-14, since
 * llvm-mca reads assembly), so it pays one process start per batch, not per block. A block llvm-mc or
 * llvm-mca rejects is an {@link UnpredictableBlockException} ({@link #predictEach} leaves it empty).
 * Thread-safe (each call runs its own processes).
 */
public final class LlvmMcaEstimator implements ThroughputEstimator {

    /** The estimator's name. */
    public static final String NAME = "llvm-mca";
    private static final int ITERATIONS = 100;

    private final String llvmMc;
    private final String llvmMca;

    /**
     * llvm-mca through the given commands.
     *
     * @throws EstimatorUnavailableException when either command does not run here
     */
    public LlvmMcaEstimator(String llvmMc, String llvmMca) {
        for (String c : List.of(llvmMc, llvmMca)) {
            if (!LlvmMcaRunner.available(c)) {
                throw new EstimatorUnavailableException(c + " is not installed (apt-get install llvm-14)");
            }
        }
        this.llvmMc = llvmMc;
        this.llvmMca = llvmMca;
    }

    /** llvm-mca through {@code llvm-mc-14} and {@code llvm-mca-14}. */
    public static LlvmMcaEstimator standard() {
        return new LlvmMcaEstimator("llvm-mc-14", "llvm-mca-14");
    }

    @Override
    public String name() {
        return NAME;
    }

    /** Every CPU with a descriptor: llvm-mca-14 knows each of them by its {@code -mcpu} name. */
    @Override
    public Set<Microarchitecture> supported() {
        return new java.util.TreeSet<>(Microarchitecture.all());
    }

    @Override
    public Prediction predict(BasicBlock block, Microarchitecture uarch) {
        return predictAll(List.of(block), uarch).get(0);
    }

    @Override
    public List<Prediction> predictAll(List<BasicBlock> blocks, Microarchitecture uarch) {
        List<Optional<Prediction>> each = predictEach(blocks, uarch);
        List<Prediction> out = new ArrayList<>(each.size());
        for (int i = 0; i < each.size(); i++) {
            int at = i;
            out.add(each.get(i).orElseThrow(() -> new UnpredictableBlockException(
                    "llvm-mca-14 cannot run block " + blocks.get(at).hex() + " on " + uarch)));
        }
        return out;
    }

    @Override
    public List<Optional<Prediction>> predictEach(List<BasicBlock> blocks, Microarchitecture uarch) {
        checkSupported(uarch);
        double[] cycles;
        try {
            cycles = new LlvmMcaRunner(llvmMc, llvmMca).llvmMcaThroughput(blocks, uarch, ITERATIONS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new UncheckedIOException(new InterruptedIOException("interrupted while running " + llvmMca));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run " + llvmMca + ": " + e.getMessage(), e);
        }
        List<Optional<Prediction>> out = new ArrayList<>(cycles.length);
        for (int k = 0; k < cycles.length; k++) {
            double c = cycles[k];
            boolean runs = IsaSupport.unsupported(blocks.get(k), uarch).isEmpty();
            out.add(runs && Double.isFinite(c) && c >= 0 ? Optional.of(Prediction.of(c)
                    .withNotes(dev.basalt.core.UnmodelledInstructions.notes(blocks.get(k)))) : Optional.empty());
        }
        return out;
    }
}
