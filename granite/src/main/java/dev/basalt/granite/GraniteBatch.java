package dev.basalt.granite;

import dev.basalt.datasets.Vocabulary;
import dev.basalt.training.LearnedModel;

import java.util.List;

/**
 * Several block graphs packed into flat index arrays, the form the network consumes: node and edge indices
 * are offset so that the graphs form one disconnected graph; {@code nodeGraph}, {@code edgeGraph} and
 * {@code instructionGraph} say which block each belongs to.
 */
final class GraniteBatch implements LearnedModel.Batch {

    final int graphs;
    final long[] tokens;
    final long[] edgeTypes;
    final long[] senders;
    final long[] receivers;
    final long[] nodeGraph;
    final long[] edgeGraph;
    final long[] instructionNodes;
    final long[] instructionGraph;
    /** log(1 + count) of each vocabulary token per graph, row-major [graphs × vocabulary]. */
    final float[] tokenCounts;
    final int vocabulary;
    /** Tokens not in the vocabulary (mapped to id 0), counted rather than fatal. */
    final int unknownTokens;
    /** The prior estimator's cycles per iteration, row-major [graphs × heads], or null without a prior. */
    final float[] prior;
    /** Per node, the prior's statistics of its instruction (zeros for other nodes), row-major [nodes × width]. */
    final float[] nodeStatistics;
    final int statisticsWidth;

    /** @param statistics per graph, its instructions' statistics (Priors.statistics), or null */
    GraniteBatch(List<GraniteGraph> graphs, Vocabulary vocab, float[] prior, List<float[][]> statistics) {
        this.prior = prior;
        this.graphs = graphs.size();
        this.vocabulary = vocab.size();
        int nodes = 0;
        int edges = 0;
        int insns = 0;
        for (GraniteGraph g : graphs) {
            nodes += g.nodes().size();
            edges += g.edges().size();
            insns += g.instructionNodes().size();
        }
        tokens = new long[nodes];
        nodeGraph = new long[nodes];
        edgeTypes = new long[edges];
        senders = new long[edges];
        receivers = new long[edges];
        edgeGraph = new long[edges];
        instructionNodes = new long[insns];
        instructionGraph = new long[insns];
        tokenCounts = new float[this.graphs * vocabulary];
        int n = 0;
        int e = 0;
        int i = 0;
        int unknown = 0;
        for (int gi = 0; gi < graphs.size(); gi++) {
            GraniteGraph g = graphs.get(gi);
            int offset = n;
            int[] counts = new int[vocabulary];
            for (GraniteGraph.Node node : g.nodes()) {
                int id = vocab.id(node.token());
                if (id == 0) {
                    unknown++;
                }
                counts[id]++;
                tokens[n] = id;
                nodeGraph[n++] = gi;
            }
            for (int v = 0; v < vocabulary; v++) {
                tokenCounts[gi * vocabulary + v] = (float) Math.log1p(counts[v]);
            }
            for (GraniteGraph.Edge edge : g.edges()) {
                edgeTypes[e] = edge.type().ordinal();
                senders[e] = offset + edge.sender();
                receivers[e] = offset + edge.receiver();
                edgeGraph[e++] = gi;
            }
            for (int node : g.instructionNodes()) {
                instructionNodes[i] = offset + node;
                instructionGraph[i++] = gi;
            }
        }
        unknownTokens = unknown;
        statisticsWidth = statistics == null || statistics.isEmpty() || statistics.get(0).length == 0 ? 0
                : statistics.get(0)[0].length;
        nodeStatistics = statistics == null ? null : new float[nodes * statisticsWidth];
        if (statistics != null) {
            int offset = 0;
            for (int gi = 0; gi < graphs.size(); gi++) {
                GraniteGraph g = graphs.get(gi);
                List<Integer> insnNodes = g.instructionNodes();
                float[][] s = statistics.get(gi);
                for (int k = 0; k < insnNodes.size(); k++) {
                    System.arraycopy(s[k], 0, nodeStatistics, (offset + insnNodes.get(k)) * statisticsWidth,
                            statisticsWidth);
                }
                offset += g.nodes().size();
            }
        }
    }

    int nodes() {
        return tokens.length;
    }

    @Override
    public int unknownTokens() {
        return unknownTokens;
    }
}
