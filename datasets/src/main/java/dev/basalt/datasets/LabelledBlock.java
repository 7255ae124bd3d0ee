package dev.basalt.datasets;

import dev.basalt.core.Microarchitecture;
import dev.basalt.decoder.BasicBlock;

import java.util.Map;
import java.util.Objects;
import java.util.OptionalDouble;

/**
 * A decoded block and its measured throughputs, in cycles per iteration, keyed by CPU (a block may carry
 * labels for some CPUs only).
 *
 * @param block        the decoded block
 * @param throughputs  cycles per iteration by CPU; each value finite and positive
 */
public record LabelledBlock(BasicBlock block, Map<Microarchitecture, Double> throughputs) {

    public LabelledBlock {
        Objects.requireNonNull(block, "block");
        throughputs.forEach((m, v) -> {
            if (!(v > 0) || Double.isInfinite(v)) {
                throw new IllegalArgumentException("throughput of " + block.hex() + " on " + m
                        + " must be finite and > 0, got " + v);
            }
        });
        throughputs = Map.copyOf(throughputs);
    }

    /** An unlabelled block. */
    public static LabelledBlock unlabelled(BasicBlock block) {
        return new LabelledBlock(block, Map.of());
    }

    /** The block's hex, its identity in data sets. */
    public String hex() {
        return block.hex();
    }

    /** Cycles per iteration on {@code uarch}, if measured there. */
    public OptionalDouble throughput(Microarchitecture uarch) {
        Double v = throughputs.get(uarch);
        return v == null ? OptionalDouble.empty() : OptionalDouble.of(v);
    }

    /** True if the block has a label for {@code uarch}. */
    public boolean hasLabel(Microarchitecture uarch) {
        return throughputs.containsKey(uarch);
    }

    /** This block with one more (or a replaced) label. */
    public LabelledBlock withLabel(Microarchitecture uarch, double cyclesPerIteration) {
        Map<Microarchitecture, Double> m = new java.util.TreeMap<>();
        m.putAll(throughputs);
        m.put(uarch, cyclesPerIteration);
        return new LabelledBlock(block, m);
    }

    /** Labels for multi-task training: [block][cpu] cycles per iteration, NaN where a block has no label. */
    public static double[][] labels(java.util.List<LabelledBlock> blocks, java.util.List<Microarchitecture> cpus) {
        double[][] labels = new double[blocks.size()][cpus.size()];
        for (int i = 0; i < blocks.size(); i++) {
            for (int c = 0; c < cpus.size(); c++) {
                labels[i][c] = blocks.get(i).throughput(cpus.get(c)).orElse(Double.NaN);
            }
        }
        return labels;
    }
}
