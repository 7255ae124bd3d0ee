package dev.basalt.explain;

import dev.basalt.core.Microarchitecture;
import dev.basalt.core.Prediction;
import dev.basalt.core.ThroughputEstimator;
import dev.basalt.decoder.BasicBlock;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * An estimator that passes every call to another and records the size of each batch it is asked about; with a
 * {@code split} of k, it asks the other about each batch k blocks at a time (0: the batch as it is).
 */
final class CountingEstimator implements ThroughputEstimator {

    private final ThroughputEstimator inner;
    private final int split;
    /** Per {@link #predictAll} call: {blocks, instructions}. */
    final List<int[]> batches = new ArrayList<>();

    CountingEstimator(ThroughputEstimator inner, int split) {
        this.inner = inner;
        this.split = split;
    }

    @Override
    public String name() {
        return inner.name();
    }

    @Override
    public Set<Microarchitecture> supported() {
        return inner.supported();
    }

    @Override
    public Prediction predict(BasicBlock block, Microarchitecture uarch) {
        return predictAll(List.of(block), uarch).get(0);
    }

    @Override
    public List<Prediction> predictAll(List<BasicBlock> blocks, Microarchitecture uarch) {
        batches.add(new int[] {blocks.size(), blocks.stream().mapToInt(BasicBlock::size).sum()});
        if (split == 0) {
            return inner.predictAll(blocks, uarch);
        }
        List<Prediction> out = new ArrayList<>(blocks.size());
        for (int from = 0; from < blocks.size(); from += split) {
            out.addAll(inner.predictAll(blocks.subList(from, Math.min(blocks.size(), from + split)), uarch));
        }
        return out;
    }

    int maxBlocks() {
        return batches.stream().mapToInt(b -> b[0]).max().orElse(0);
    }

    int maxInstructions() {
        return batches.stream().mapToInt(b -> b[1]).max().orElse(0);
    }

    int blocks() {
        return batches.stream().mapToInt(b -> b[0]).sum();
    }

    int instructions() {
        return batches.stream().mapToInt(b -> b[1]).sum();
    }
}
