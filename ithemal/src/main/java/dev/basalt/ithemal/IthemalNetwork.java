package dev.basalt.ithemal;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDArrays;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import dev.basalt.training.Lstm;
import dev.basalt.training.Parameters;
import dev.basalt.training.Rows;

import java.util.SplittableRandom;

/**
 * Ithemal's hierarchical LSTM (DESIGN.md §6): token embeddings → token LSTM (its state after an instruction's
 * last token is the instruction's vector) → instruction LSTM over a block's instruction vectors (its last
 * state is the block's vector) → one small MLP head per CPU. Parameter names and gate order follow PyTorch's
 * LSTM ({@code w_ih}, {@code w_hh}, {@code b_ih}, {@code b_hh}; input, forget, cell, output).
 *
 * <p>Parameters are initialised from {@code seed} with {@link SplittableRandom} (not the engine's random
 * state), as PyTorch initialises LSTMs: uniform in ±1/√hidden.
 */
final class IthemalNetwork {

    final IthemalConfig config;
    final int heads;
    final int statisticsWidth;
    private final Parameters weights;

    /**
     * Creates the network's parameters in {@code weights}, in a fixed order (the order they are saved and updated
     * in).
     */
    IthemalNetwork(Parameters weights, IthemalConfig config, int vocabulary, int heads, int statisticsWidth) {
        this.config = config;
        this.statisticsWidth = statisticsWidth;
        this.heads = heads;
        this.weights = weights;
        SplittableRandom rnd = new SplittableRandom(config.seed());
        int e = config.embedding();
        int h = config.hidden();
        double lstm = 1 / Math.sqrt(h);
        weights.uniform("embedding", rnd, 1.0, vocabulary, e);
        for (String name : new String[] {"token", "instruction"}) {
            int in = name.equals("token") ? e : h;
            weights.uniform(name + ".w_ih", rnd, lstm, 4 * h, in);
            weights.uniform(name + ".w_hh", rnd, lstm, 4 * h, h);
            weights.uniform(name + ".b_ih", rnd, lstm, 4 * h);
            weights.uniform(name + ".b_hh", rnd, lstm, 4 * h);
        }
        if (config.hasPrior()) {
            weights.uniform("prior.w", rnd, 1 / Math.sqrt(heads), heads, h);
        }
        for (int c = 0; c < heads; c++) {
            weights.uniform("head" + c + ".w1", rnd, Math.sqrt(6.0 / h), h, h);
            weights.zeros("head" + c + ".b1", h);
            // With a prior the network starts as the prior (correction ≈ 0).
            weights.uniform("head" + c + ".w2", rnd, (config.hasPrior() ? 0.01 : 1) * Math.sqrt(6.0 / h), h, 1);
            weights.zeros("head" + c + ".b2", 1);
        }
        if (statisticsWidth > 0) { // last, so that the other parameters start as without it
            weights.uniform("statistics.w", rnd, 1 / Math.sqrt(statisticsWidth), statisticsWidth, h);
        }
    }

    private NDArray lstm(String name, NDArray input, NDManager m) {
        return Lstm.run(input, w(name + ".w_ih"), w(name + ".w_hh"), w(name + ".b_ih"), w(name + ".b_hh"), m);
    }

    /** Block predictions [blocks × heads] in cycles per iteration. */
    NDArray forward(IthemalBatch b, NDManager m) {
        int h = config.hidden();
        // Gathers are sparse products: reproducible gradients (see Rows).
        NDArray embedded = Rows.gather(m, w("embedding"), b.tokens);
        NDArray tokenStates = lstm("token", embedded.reshape(b.instructions, b.maxTokens, config.embedding()), m);
        NDArray instructions = Rows.gather(m, tokenStates.reshape(-1, h), b.lastToken);
        if (statisticsWidth > 0) { // hybrid inputs: what the prior saw in each instruction
            instructions = instructions.add(Rows.constant(m, b.statistics, new Shape(b.instructions, statisticsWidth))
                    .matMul(w("statistics.w")));
        }
        NDArray sequence = Rows.gather(m, instructions, b.blockInstructions).reshape(b.blocks, b.maxInstructions, h);
        NDArray blockStates = lstm("instruction", sequence, m);
        NDArray block = Rows.gather(m, blockStates.reshape(-1, h), b.lastInstruction);
        NDArray prior = null;
        if (config.hasPrior()) {
            prior = Rows.constant(m, b.prior, new Shape(b.blocks, heads));
            block = block.add(prior.add(1f).log().matMul(w("prior.w")));
        }
        NDList perHead = new NDList();
        for (int c = 0; c < heads; c++) {
            perHead.add(Parameters.leaky(block.matMul(w("head" + c + ".w1")).add(w("head" + c + ".b1")))
                    .matMul(w("head" + c + ".w2")).add(w("head" + c + ".b2")));
        }
        NDArray out = perHead.size() == 1
                ? perHead.get(0) // DJL's concat of one array drops it from the gradient graph
                : NDArrays.concat(perHead, 1);
        return prior == null ? out : out.add(prior);
    }

    private NDArray w(String name) {
        return weights.get(name);
    }
}
