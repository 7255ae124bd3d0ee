package dev.basalt.granite;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDArrays;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.Shape;
import dev.basalt.training.Parameters;
import dev.basalt.training.Rows;

import java.util.SplittableRandom;

/**
 * The GRANITE network (DESIGN.md §5) over a {@link GraniteBatch}.
 *
 * <p>Encoder: learned embeddings of node tokens and edge types, and a linear layer over the bag of tokens
 * for the global vector. Core: one graph-network block applied {@code steps} times — each edge from
 * [edge, sender, receiver, global], each node from [sum of incoming edges, node, global], the global from
 * [sum of edges, sum of nodes, global]; each update an MLP (leaky-ReLU 0.1 hidden layers, linear output)
 * followed by a residual connection and layer normalisation. Readout: the instruction nodes go through a
 * shared dense layer and then one small MLP head per CPU that outputs each instruction's contribution in
 * cycles; a block's prediction is the sum of its instructions' contributions.
 *
 * <p>Parameters are the model's {@link Parameters}, initialised from {@code seed} with Java's
 * {@link SplittableRandom} (so initialisation does not depend on the engine's random state). Every intermediate
 * of a forward pass lives in the caller's per-batch manager.
 */
final class GraniteNetwork {

    static final int EDGE_TYPES = GraniteGraph.EdgeType.values().length;

    final GraniteConfig config;
    final int vocabulary;
    final int heads;
    final int statisticsWidth;
    private final Parameters weights;

    /**
     * Creates the network's parameters in {@code weights}, in a fixed order (the order they are saved and updated
     * in).
     */
    GraniteNetwork(Parameters weights, GraniteConfig config, int vocabulary, int heads, int statisticsWidth) {
        this.config = config;
        this.statisticsWidth = statisticsWidth;
        this.vocabulary = vocabulary;
        this.heads = heads;
        this.weights = weights;
        SplittableRandom rnd = new SplittableRandom(config.seed());
        int h = config.hidden();
        he("node.embedding", rnd, vocabulary, h);
        he("edge.embedding", rnd, EDGE_TYPES, h);
        he("global.w", rnd, vocabulary, h);
        weights.zeros("global.b", h);
        if (config.hasPrior()) {
            he("prior.w", rnd, heads, h);
        }
        mlp("edge", rnd, 4 * h);
        mlp("node", rnd, 3 * h);
        mlp("global", rnd, 3 * h);
        for (String ln : new String[] {"edge.ln", "node.ln", "global.ln"}) {
            weights.ones(ln + ".gamma", h);
            weights.zeros(ln + ".beta", h);
        }
        he("readout.w", rnd, h, h);
        weights.zeros("readout.b", h);
        for (int c = 0; c < heads; c++) {
            he("head" + c + ".w1", rnd, h, h);
            weights.zeros("head" + c + ".b1", h);
            // With a prior the network starts as the prior (contributions ≈ 0) and learns its corrections.
            he("head" + c + ".w2", rnd, h, 1, config.hasPrior() ? 0.01 : 1.0);
            weights.zeros("head" + c + ".b2", 1);
        }
        if (statisticsWidth > 0) { // last, so that the other parameters start as without it
            he("statistics.w", rnd, statisticsWidth, h);
        }
    }

    private void mlp(String name, SplittableRandom rnd, int in) {
        int h = config.hidden();
        int width = in;
        for (int layer = 0; layer <= config.mlpHidden(); layer++) {
            he(name + ".w" + layer, rnd, width, h);
            weights.zeros(name + ".b" + layer, h);
            width = h;
        }
    }

    private void he(String name, SplittableRandom rnd, int rows, int cols) {
        he(name, rnd, rows, cols, 1.0);
    }

    /** He initialisation for the leaky-ReLU layers, scaled by {@code gain}. */
    private void he(String name, SplittableRandom rnd, int rows, int cols, double gain) {
        weights.normal(name, rnd, gain * Math.sqrt(2.0 / rows), rows, cols);
    }

    private NDArray p(String name) {
        return weights.get(name);
    }

    private NDArray mlp(String name, NDArray x) {
        return mlpAfterFirst(name, x.matMul(p(name + ".w0")));
    }

    /** The rest of MLP {@code name} once its first layer's product {@code first} (no bias yet) is known. */
    private NDArray mlpAfterFirst(String name, NDArray first) {
        NDArray x = first.add(p(name + ".b0"));
        for (int layer = 1; layer <= config.mlpHidden(); layer++) {
            x = Parameters.leaky(x).matMul(p(name + ".w" + layer)).add(p(name + ".b" + layer));
        }
        return x;
    }

    /**
     * Rows {@code part}·h to (part+1)·h of MLP {@code name}'s first weight (the block one input part meets), a
     * view owned by {@code m} (left to the parameter's manager it would live as long as the model).
     */
    private NDArray firstRows(NDManager m, String name, int part) {
        int h = config.hidden();
        NDArray rows = p(name + ".w0").get(new NDIndex("{}:{}", part * h, (part + 1) * h));
        rows.attach(m);
        return rows;
    }

    private NDArray layerNorm(String name, NDArray x) {
        return x.getNDArrayInternal().layerNorm(x, new Shape(config.hidden()), p(name + ".gamma"), p(name + ".beta"),
                1e-5f).singletonOrThrow();
    }

    /**
     * Runs the network.
     *
     * @return {block predictions [graphs × heads], instruction contributions [instructions × heads]}
     */
    NDList forward(GraniteBatch b, NDManager batch) {
        int nodes = b.nodes();
        // Gathers and sums are sparse products (Rows explains why: reproducible gradients, and speed).
        NDArray x = Rows.gather(batch, p("node.embedding"), b.tokens);
        if (statisticsWidth > 0) { // hybrid inputs: an instruction node also starts from what the prior saw in it
            x = x.add(Rows.constant(batch, b.nodeStatistics, new Shape(nodes, statisticsWidth)).matMul(p("statistics.w")));
        }
        NDArray e = Rows.gather(batch, p("edge.embedding"), b.edgeTypes);
        NDArray g = Rows.constant(batch, b.tokenCounts, new Shape(b.graphs, b.vocabulary)).matMul(p("global.w"))
                .add(p("global.b"));
        NDArray prior = null;
        if (config.hasPrior()) {
            prior = Rows.constant(batch, b.prior, new Shape(b.graphs, heads));
            g = g.add(prior.add(1f).log().matMul(p("prior.w")));
        }
        // Each step gathers and sums by the same indices: their engine arrays are made once.
        NDArray senders = Rows.index(batch, b.senders, nodes);
        NDArray receivers = Rows.index(batch, b.receivers, nodes);
        NDArray edgeGraph = Rows.index(batch, b.edgeGraph, b.graphs);
        NDArray nodeGraph = Rows.index(batch, b.nodeGraph, b.graphs);
        NDArray byReceiver = Rows.segments(batch, b.receivers, nodes);
        NDArray byEdgeGraph = Rows.segments(batch, b.edgeGraph, b.graphs);
        NDArray byNodeGraph = Rows.segments(batch, b.nodeGraph, b.graphs);
        for (int step = 0; step < config.steps(); step++) {
            // The first layer of an update is linear in each part of its input, so each part meets its block of
            // the weight before the gather: [edge, sender, receiver, global]·W as e·W0 + gather(x·W1) + … costs
            // nodes × h² where the concatenation cost edges × 4h².
            NDArray edgeFirst = e.matMul(firstRows(batch, "edge", 0))
                    .add(Rows.gather(batch, x.matMul(firstRows(batch, "edge", 1)), senders))
                    .add(Rows.gather(batch, x.matMul(firstRows(batch, "edge", 2)), receivers))
                    .add(Rows.gather(batch, g.matMul(firstRows(batch, "edge", 3)), edgeGraph));
            e = layerNorm("edge.ln", e.add(mlpAfterFirst("edge", edgeFirst)));
            NDArray nodeFirst = Rows.segmentSum(batch, e, byReceiver, nodes).matMul(firstRows(batch, "node", 0))
                    .add(x.matMul(firstRows(batch, "node", 1)))
                    .add(Rows.gather(batch, g.matMul(firstRows(batch, "node", 2)), nodeGraph));
            x = layerNorm("node.ln", x.add(mlpAfterFirst("node", nodeFirst)));
            NDArray globalIn = NDArrays.concat(new NDList(Rows.segmentSum(batch, e, byEdgeGraph, b.graphs),
                    Rows.segmentSum(batch, x, byNodeGraph, b.graphs), g), 1);
            g = layerNorm("global.ln", g.add(mlp("global", globalIn)));
        }
        NDArray instructions = Rows.gather(batch, x, b.instructionNodes);
        NDArray shared = Parameters.leaky(instructions.matMul(p("readout.w")).add(p("readout.b")));
        NDList perHead = new NDList();
        for (int c = 0; c < heads; c++) {
            perHead.add(Parameters.leaky(shared.matMul(p("head" + c + ".w1")).add(p("head" + c + ".b1")))
                    .matMul(p("head" + c + ".w2")).add(p("head" + c + ".b2")));
        }
        NDArray contributions = perHead.size() == 1
                ? perHead.get(0) // DJL's concat of one array drops it from the gradient graph
                : NDArrays.concat(perHead, 1);                   // [I, C]
        NDArray blocks = Rows.segmentSum(batch, contributions, b.instructionGraph, b.graphs); // [G, C]
        if (prior != null) {
            blocks = blocks.add(prior);
        }
        return new NDList(blocks, contributions);
    }
}
