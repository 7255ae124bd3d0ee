package dev.basalt.difftune;

import dev.basalt.simulator.bounds.CriticalPath;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDArrays;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.Shape;
import dev.basalt.training.Lstm;
import dev.basalt.training.Parameters;
import dev.basalt.training.Rows;

import java.util.SplittableRandom;

/**
 * The surrogate (DESIGN.md §7): an Ithemal-style network whose per-instruction input carries the instruction's
 * parameter row and the global parameters, on top of an analytical bound computed from the same parameters.
 *
 * <p>Instruction vector = Parameters.leaky(W·[bag of its role-tagged token embeddings; row ÷ 10; zero-idiom flag;
 * dispatch width ÷ 10; ROB ÷ 100]); an LSTM runs over a block's instruction vectors; its last state, the logs of
 * the four bounds, the log of the block's simulated cycles with the default table and the globals feed a small
 * MLP giving a log-correction c. Prediction = simulated × bound ÷ bound at the defaults × e^c — the simulator's
 * own cycles with the default table (a per-block constant), scaled by how far the rows move the bound — where
 * bound = max(Σ micro-ops ÷ dispatch width, busiest port's cycles with each group spread evenly over its
 * ports, the loop-carried latency chain — see {@link CriticalPath} — and the front end's cycles, a per-block
 * constant from the second-generation simulator with an ideal back end). The bound is exact for many blocks and
 * gives the gradient with respect to the parameters a direct path; the network learns the rest (port
 * conflicts, the ROB, chains that overlap). Ithemal's token LSTM is replaced by a bag of role-tagged tokens
 * ({@code S:RAX}, {@code D:RAX}, {@code SM:RBX} for a source address register): 5× faster and, with the bound,
 * as faithful here.
 */
final class SurrogateNetwork {

    final SurrogateConfig config;
    final ParameterLayout layout;
    private final Parameters weights;
    private final NDArray portShare;

    /**
     * Creates the network's parameters in {@code weights}, in a fixed order (the order they are saved and updated
     * in), and its constants in {@code manager}.
     */
    SurrogateNetwork(Parameters weights, NDManager manager, SurrogateConfig config, ParameterLayout layout,
                     int vocabulary) {
        this.config = config;
        this.layout = layout;
        this.weights = weights;
        SplittableRandom rnd = new SplittableRandom(config.seed());
        int e = config.embedding();
        int h = config.hidden();
        int in = e + layout.width() + 3;
        weights.uniform("embedding", rnd, 0.5, vocabulary, e);
        weights.uniform("in.w", rnd, Math.sqrt(6.0 / in), in, h);
        weights.zeros("in.b", h);
        double lstm = 1 / Math.sqrt(h);
        weights.uniform("lstm.w_ih", rnd, lstm, 4 * h, h);
        weights.uniform("lstm.w_hh", rnd, lstm, 4 * h, h);
        weights.uniform("lstm.b_ih", rnd, lstm, 4 * h);
        weights.uniform("lstm.b_hh", rnd, lstm, 4 * h);
        weights.uniform("head.w1", rnd, Math.sqrt(6.0 / (h + 7)), h + 7, h);
        weights.zeros("head.b1", h);
        weights.uniform("head.w2", rnd, 0.01 * Math.sqrt(6.0 / h), h, 1); // starts as the scaled simulation
        weights.zeros("head.b2", 1);
        this.portShare = manager.create(layout.portShare(), new Shape(layout.groups().size(), layout.ports().size()));
    }

    /**
     * Predicted cycles per iteration [blocks × 1].
     *
     * @param rows    [instructions × layout width] parameter rows (raw units)
     * @param globals [blocks × 2] dispatch width and ROB size
     */
    NDArray forward(SurrogateBatch b, NDArray rows, NDArray globals, NDManager m) {
        int h = config.hidden();
        NDArray bag = Rows.segmentSum(m, Rows.gather(m, w("embedding"), b.tokens), b.tokenInstruction, b.instructions);
        NDArray zero = m.create(b.zeroIdiom, new Shape(b.instructions, 1));
        NDArray scale = m.create(new float[] {0.1f, 0.01f}, new Shape(1, 2));
        NDArray scaledGlobals = globals.mul(scale);
        NDArray perInstructionGlobals = Rows.gather(m, scaledGlobals, b.instructionBlock);
        NDArray x = NDArrays.concat(new NDList(bag, rows.mul(0.1f), zero, perInstructionGlobals), 1);
        x = Parameters.leaky(x.matMul(w("in.w")).add(w("in.b")));
        NDArray sequence = Rows.gather(m, x, b.blockInstructions).reshape(b.blocks, b.maxInstructions, h);
        NDArray states = Lstm.run(sequence, w("lstm.w_ih"), w("lstm.w_hh"), w("lstm.b_ih"), w("lstm.b_hh"), m);
        NDArray last = Rows.gather(m, states.reshape(-1, h), b.lastInstruction);
        // The analytical bounds, with the given rows and with the default table's.
        NDArray bounds = bounds(b, rows, b.chain, globals, m);
        NDArray bound = bounds.max(new int[] {1}, true).maximum(0.1f);
        NDArray defaultRows = m.create(b.defaultRows, rows.getShape());
        NDArray defaultBound = bounds(b, defaultRows, b.defaultChain, globals, m).max(new int[] {1}, true)
                .maximum(0.1f);
        NDArray simulated = m.create(b.simulated, new Shape(b.blocks, 1)).maximum(0.01f);
        NDArray features = NDArrays.concat(new NDList(last, bounds.add(1f).log(), simulated.add(1f).log(),
                scaledGlobals), 1);
        NDArray correction = Parameters.leaky(features.matMul(w("head.w1")).add(w("head.b1"))).matMul(w("head.w2"))
                .add(w("head.b2"));
        // The simulator's own cycles with the default table, scaled by how far the rows move the bound: exact
        // where the rows are the defaults, with the gradient of the bound elsewhere; the network corrects.
        return simulated.mul(bound.div(defaultBound)).mul(correction.clip(-5f, 5f).exp());
    }

    /**
     * [blocks × 4]: micro-ops ÷ width (the second machine: its issue bound), the busiest port, the loop-carried
     * chain with {@code chainCoefficients}, the front end.
     */
    private NDArray bounds(SurrogateBatch b, NDArray rows, float[] chainCoefficients, NDArray globals, NDManager m) {
        NDArray zero = m.create(b.zeroIdiom, new Shape(b.instructions, 1));
        NDArray live = zero.neg().add(1f);
        NDArray uops = b.issue != null ? m.create(b.issue, new Shape(b.blocks, 1))
                : Rows.segmentSum(m, rows.get(new NDIndex(":, 0:1")).maximum(1f), b.instructionBlock, b.blocks)
                .div(globals.get(new NDIndex(":, 0:1")).maximum(1f));
        NDArray groupCycles = Rows.segmentSum(m, rows.get(new NDIndex(":, " + ParameterLayout.FIXED + ":")).mul(live),
                b.instructionBlock, b.blocks);
        NDArray ports = groupCycles.matMul(portShare).max(new int[] {1}, true);
        NDArray coefficients = m.create(chainCoefficients, new Shape(b.instructions, 2));
        NDArray latency = rows.get(new NDIndex(":, 1:3")).mul(NDArrays.concat(new NDList(live, zero.neg().add(1f)), 1));
        NDArray signs = m.create(new float[] {1f, -1f}, new Shape(1, 2));
        NDArray chain = Rows.segmentSum(m, latency.mul(coefficients).mul(signs).sum(new int[] {1}, true),
                b.instructionBlock, b.blocks);
        NDArray frontEnd = m.create(b.frontEnd, new Shape(b.blocks, 1));
        return NDArrays.concat(new NDList(uops, ports, chain, frontEnd), 1).maximum(0f);
    }

    private NDArray w(String name) {
        return weights.get(name);
    }
}
