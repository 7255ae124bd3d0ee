package dev.basalt.simulator.bounds;

import dev.basalt.simulator.facts.BlockFacts;
import dev.basalt.simulator.facts.MergeOperand;
import dev.basalt.simulator.params.CoreParams;
import java.util.List;

/**
 * The latency bound of {@link Bounds}: the maximum cycle ratio of the dependency graph (Karp), over the
 * instructions of its cyclic strongly connected components (Tarjan), and the cycle that attains it.
 */
final class CycleRatio {

    private CycleRatio() {
    }

    /**
     * The latency bound: the maximum cycle ratio of the dependency graph, each edge weighing what the second
     * machine waits along it (a producer's latency less the consumer's read-advance; for a load+operation, the
     * load's latency only on its address sources; store forwarding on memory sources; nothing for an
     * eliminated move), each loop-carried edge one iteration. Karp's maximum mean cycle over paths that cross
     * k iteration boundaries: D_k(v) is the heaviest such path ending at v.
     */
    static double latency(BlockFacts p, List<Integer> critical) {
        int n = p.n;
        CoreParams c = p.core;
        if (!anyLoopCarried(p)) {
            return 0; // every edge runs forward in the block: no cycle
        }
        // Every cycle lies within one strongly connected component, so Karp needs only the instructions of those
        // that hold one: in block order, ord[j] is the j-th of them and idx[v] its place (-1: on no cycle).
        boolean[] onCycle = cycleNodes(p);
        int[] idx = new int[n];
        int m = 0;
        for (int v = 0; v < n; v++) {
            idx[v] = onCycle[v] ? m++ : -1;
        }
        if (m == 0) {
            return 0;
        }
        int[] ord = new int[m];
        int maxDistance = 1;
        double[] w = new double[p.producers.length / 2]; // each source's weight, once
        for (int v = 0; v < n; v++) {
            if (idx[v] < 0) {
                continue;
            }
            ord[idx[v]] = v;
            for (int k = p.start[v]; k < p.start[v + 1]; k++) {
                if (idx[p.producers[2 * k]] >= 0) {
                    maxDistance = Math.max(maxDistance, p.producers[2 * k + 1]);
                    w[k] = weight(p, c, v, k);
                }
            }
        }
        int layers = m * maxDistance; // Karp's N: the nodes of the graph with unit transit edges
        double minus = Double.NEGATIVE_INFINITY;
        double[] d = new double[(layers + 1) * m]; // d[layer * m + j]
        int[] from = new int[(layers + 1) * m]; // the deciding producer's (layer * m + j), or -1
        java.util.Arrays.fill(d, m, d.length, minus); // layer 0: every node starts at 0
        java.util.Arrays.fill(from, -1);
        for (int layer = 0; layer <= layers; layer++) {
            for (int j = 0; j < m; j++) {
                int v = ord[j];
                int at = layer * m + j;
                for (int k = p.start[v]; k < p.start[v + 1]; k++) {
                    int u = p.producers[2 * k];
                    int back = p.producers[2 * k + 1];
                    if (idx[u] < 0 || layer - back < 0 || back == 0 && u >= v) {
                        continue;
                    }
                    double du = d[(layer - back) * m + idx[u]];
                    if (du == minus) {
                        continue;
                    }
                    double t = du + w[k];
                    if (t > d[at]) {
                        d[at] = t;
                        from[at] = (layer - back) * m + idx[u];
                    }
                }
            }
        }
        double best = 0;
        int bestNode = -1;
        for (int j = 0; j < m; j++) {
            double last = d[layers * m + j];
            if (last == minus) {
                continue;
            }
            double worst = Double.POSITIVE_INFINITY;
            for (int k = 0; k < layers; k++) {
                if (d[k * m + j] != minus) {
                    worst = Math.min(worst, (last - d[k * m + j]) / (layers - k));
                }
            }
            if (worst != Double.POSITIVE_INFINITY && worst > best + 1e-12) {
                best = worst;
                bestNode = j;
            }
        }
        if (bestNode >= 0) { // follow the deciding producers back: the first node met twice closes the cycle
            int[] seenAt = new int[m]; // position in the path + 1 (0: not met)
            int[] path = new int[layers + 2];
            int length = 0;
            int at = layers * m + bestNode;
            while (at >= 0) {
                int j = at % m;
                if (seenAt[j] > 0) {
                    boolean[] cycle = new boolean[n];
                    for (int q = seenAt[j] - 1; q < length; q++) {
                        cycle[ord[path[q]]] = true;
                    }
                    for (int v = 0; v < n; v++) {
                        if (cycle[v]) {
                            critical.add(v);
                        }
                    }
                    break;
                }
                path[length++] = j;
                seenAt[j] = length;
                at = from[at];
            }
        }
        return best;
    }

    /**
     * The instructions on a cycle of the latency bound's graph (the sources Karp follows): the members of its
     * strongly connected components with more than one instruction or a source from themselves (Tarjan's
     * algorithm, iterative, along sources from consumer to producer: the same components).
     */
    private static boolean[] cycleNodes(BlockFacts p) {
        int n = p.n;
        int[] index = new int[n];
        int[] low = new int[n];
        java.util.Arrays.fill(index, -1);
        boolean[] onStack = new boolean[n];
        int[] stack = new int[n];
        int sp = 0;
        int[] callNode = new int[n];
        int[] callSource = new int[n];
        boolean[] onCycle = new boolean[n];
        int counter = 0;
        for (int root = 0; root < n; root++) {
            if (index[root] >= 0) {
                continue;
            }
            int depth = 0;
            callNode[0] = root;
            callSource[0] = p.start[root];
            index[root] = low[root] = counter++;
            stack[sp++] = root;
            onStack[root] = true;
            while (depth >= 0) {
                int v = callNode[depth];
                int k = callSource[depth];
                int end = p.shape[v].noPort() ? p.start[v] : p.start[v + 1]; // done at rename: waits for nothing
                if (k < end) {
                    callSource[depth] = k + 1;
                    int u = p.producers[2 * k];
                    if (p.producers[2 * k + 1] == 0 && u >= v) {
                        continue;
                    }
                    if (index[u] < 0) {
                        index[u] = low[u] = counter++;
                        stack[sp++] = u;
                        onStack[u] = true;
                        callNode[++depth] = u;
                        callSource[depth] = p.start[u];
                    } else if (onStack[u]) {
                        low[v] = Math.min(low[v], index[u]);
                    }
                    continue;
                }
                if (low[v] == index[v]) { // v roots a component: the stack down to v
                    int top = sp;
                    do {
                        onStack[stack[--sp]] = false;
                    } while (stack[sp] != v);
                    boolean cycle = top - sp > 1;
                    for (int q = p.start[v]; q < end && !cycle; q++) {
                        cycle = p.producers[2 * q] == v; // its own source, from an earlier iteration
                    }
                    for (int q = sp; q < top && cycle; q++) {
                        onCycle[stack[q]] = true;
                    }
                }
                if (--depth >= 0) {
                    int parent = callNode[depth];
                    low[parent] = Math.min(low[parent], low[v]);
                }
            }
        }
        return onCycle;
    }

    /** Whether any source comes from an earlier iteration (only then can the graph have a cycle). */
    private static boolean anyLoopCarried(BlockFacts p) {
        for (int k = 1; k < p.producers.length; k += 2) {
            if (p.producers[k] > 0) {
                return true;
            }
        }
        return false;
    }

    /** What consumer {@code v} waits along its source {@code k}, from the producer's result to its own. */
    private static double weight(BlockFacts p, CoreParams c, int v, int k) {
        int loadLatency = p.loadLatency[v];
        int lat = p.latency[v];
        boolean eliminated = p.options.moveElimination() && p.shape[v].moveRegisterFile() > 0;
        if (eliminated) {
            lat = 0;
        }
        if (p.executedShare != null && p.fold[v] != null) { // a fold has its latency only when it executes
            return lat * p.executedShare[v];
        }
        int opLatency = p.loading[v] ? (eliminated ? 0 : p.opLatency[v]) : lat; // a two-step instruction's second step
        int loadStep = p.loading[v] ? loadLatency : 1;
        if (p.memorySource[k] && p.renamed(v, p.producers[2 * k], k)) { // renamed: the data a cycle before the store
            return -1 + (p.twoStep[v] ? opLatency : Math.max(0, lat - p.context.params().loadLatency()));
        }
        if (p.memorySource[k]) { // forwarded from a store: its data arrives storeForwardLatency after the store
            double arrive = p.options.storeForwarding()
                    ? (p.storing[v] && p.twoStep[v] ? c.rmwForwardCycles() : c.storeForwardLatency()) - loadLatency
                            + p.forwardExtra[v]
                            + (p.partialSource[k] ? c.storeForwardFailPenalty() : 0)
                    : 0;
            return arrive + (p.twoStep[v] ? loadStep + opLatency : lat);
        }
        if (p.twoStep[v]) {
            return p.addressSource[k] ? loadStep + opLatency
                    : opLatency - (p.mergeSource[k] ? early(p, v, opLatency) : 0);
        }
        return lat - p.readAdvance[v] - (p.mergeSource[k] ? early(p, v, lat) : 0);
    }

    // As the pipeline's: a merge into dirty upper bits takes its cycles even past the instruction's own latency.
    private static int early(BlockFacts p, int v, int latency) {
        return p.dirtyMerge[v] ? latency - p.mergeCycles[v] : MergeOperand.early(latency, p.mergeCycles[v]);
    }
}
