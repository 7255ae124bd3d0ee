package dev.basalt.explain;

import dev.basalt.core.Microarchitecture;
import dev.basalt.core.Prediction;
import dev.basalt.core.ThroughputEstimator;
import dev.basalt.decoder.BasicBlock;

import java.util.ArrayList;
import java.util.List;
import java.util.function.ObjDoubleConsumer;

/**
 * An explanation's model queries, streamed in bounded batches: blocks are {@linkplain #add added} one at a time
 * and go to {@link ThroughputEstimator#predictAll} together whenever the next one would take the batch past
 * {@link #MAX_BLOCKS} blocks or {@link #MAX_INSTRUCTIONS} instructions; each answer goes to the sink with the
 * key it was added with. What a learned model holds at once — the batch's graphs or token lists and every
 * array of its forward pass — is then bounded whatever the size of the block explained: GRANITE runs a batch as
 * one forward pass, and Shapley's 256-block batches of a 300-instruction block's sub-blocks (38,000
 * instructions) took it to 8 GB resident. A block's instructions count once however often it repeats; a
 * block larger than the instruction bound goes alone ({@link Explainer#MAX_INSTRUCTIONS} keeps explained
 * blocks below it). Not thread-safe: one per search.
 *
 * @param <K> what an answer is filed under (a subset of instructions, a block's hex)
 */
final class QueryBatches<K> {

    /** Blocks per model query: enough for a learned model's batches. */
    static final int MAX_BLOCKS = 256;
    /**
     * Instructions per model query. Blocks of up to 16 instructions never reach it in Shapley (256 sub-blocks of
     * at most 16 instructions), nor blocks of up to 64 in anchors (a batch of 64 perturbations, none longer than
     * the block), so their batches, and with them their explanations, are what they were before this bound.
     */
    static final int MAX_INSTRUCTIONS = 4096;

    private final ThroughputEstimator model;
    private final Microarchitecture uarch;
    private final ObjDoubleConsumer<K> sink;
    private final int maxBlocks;
    private final int maxInstructions;
    private final List<K> keys = new ArrayList<>();
    private final List<BasicBlock> blocks = new ArrayList<>();
    private int instructions;
    private int queries;

    /** Batches of at most {@link #MAX_BLOCKS} blocks and {@link #MAX_INSTRUCTIONS} instructions. */
    QueryBatches(ThroughputEstimator model, Microarchitecture uarch, ObjDoubleConsumer<K> sink) {
        this(model, uarch, sink, MAX_BLOCKS, MAX_INSTRUCTIONS);
    }

    QueryBatches(ThroughputEstimator model, Microarchitecture uarch, ObjDoubleConsumer<K> sink, int maxBlocks,
                 int maxInstructions) {
        if (maxBlocks < 1 || maxInstructions < 1) {
            throw new IllegalArgumentException("batch bounds must be >= 1, got " + maxBlocks + " blocks, "
                    + maxInstructions + " instructions");
        }
        this.model = model;
        this.uarch = uarch;
        this.sink = sink;
        this.maxBlocks = maxBlocks;
        this.maxInstructions = maxInstructions;
    }

    /** Queues {@code block}; the batch before it is queried first when {@code block} would overfill it. */
    void add(K key, BasicBlock block) {
        if (!blocks.isEmpty() && (blocks.size() == maxBlocks || instructions + block.size() > maxInstructions)) {
            flush();
        }
        keys.add(key);
        blocks.add(block);
        instructions += block.size();
    }

    /** Queries what is queued (nothing when nothing is). */
    void flush() {
        if (blocks.isEmpty()) {
            return;
        }
        List<Prediction> predictions = model.predictAll(blocks, uarch);
        for (int k = 0; k < keys.size(); k++) {
            sink.accept(keys.get(k), predictions.get(k).cyclesPerIteration());
        }
        queries += blocks.size();
        keys.clear();
        blocks.clear();
        instructions = 0;
    }

    /** Blocks queried so far (flushed ones). */
    int queries() {
        return queries;
    }
}
