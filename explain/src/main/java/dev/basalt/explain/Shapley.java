package dev.basalt.explain;

import dev.basalt.core.Microarchitecture;
import dev.basalt.core.Prediction;
import dev.basalt.core.ThroughputEstimator;
import dev.basalt.decoder.BasicBlock;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Per-instruction contributions in cycles for any estimator: a sampled Shapley estimate over instruction
 * deletion. The value of a set S of instructions is the model's prediction for the block made of S alone, in
 * the original order and bytes (the empty block: 0 cycles). For each sampled permutation, instructions are
 * added one by one and each is credited with the change it causes; antithetic pairs (a permutation and its
 * reverse) halve the variance for the same cost. Every permutation's credits add up to v(all) − v(∅), so
 * the estimate satisfies efficiency exactly (up to floating-point rounding), however few permutations.
 * Deterministic for a seed. Thread-safe when the estimator is: each call has its own state.
 */
public final class Shapley {

    /**
     * @param permutations sampled permutations (rounded up to an even number: antithetic pairs)
     * @param seed         seed of the permutations
     */
    public record Config(int permutations, long seed) {
        public Config {
            if (permutations < 1) {
                throw new IllegalArgumentException("permutations must be >= 1, got " + permutations);
            }
        }

        public static Config defaults() {
            return new Config(32, 1L);
        }
    }

    /**
     * Attributions.
     *
     * @param contributions per instruction, in cycles, in block order
     * @param prediction    the model's prediction for the whole block
     * @param emptyValue    the value of the empty block (0)
     * @param queries       distinct sub-blocks the model was asked about
     */
    public record Result(List<Double> contributions, double prediction, double emptyValue, int queries) {
        public Result {
            contributions = List.copyOf(contributions);
        }

        /** Index of the largest contribution. */
        public int top() {
            int best = 0;
            for (int i = 1; i < contributions.size(); i++) {
                if (contributions.get(i) > contributions.get(best)) {
                    best = i;
                }
            }
            return best;
        }
    }

    /** Blocks per model query: enough for a learned model's batches, few enough to bound memory. */
    static final int QUERY_BATCH = 256;

    private final Config config;

    public Shapley(Config config) {
        this.config = config;
    }

    public Config config() {
        return config;
    }

    /** Attributes {@code model}'s prediction for {@code block} on {@code uarch} to its instructions. */
    public Result attribute(BasicBlock block, Microarchitecture uarch, ThroughputEstimator model) {
        int n = block.size();
        SplittableRandom random = new SplittableRandom(config.seed());
        int pairs = (config.permutations() + 1) / 2;
        List<int[]> permutations = new ArrayList<>(2 * pairs);
        for (int p = 0; p < pairs; p++) {
            int[] perm = new int[n];
            for (int i = 0; i < n; i++) {
                perm[i] = i;
            }
            for (int i = n - 1; i > 0; i--) {
                int j = random.nextInt(i + 1);
                int t = perm[i];
                perm[i] = perm[j];
                perm[j] = t;
            }
            int[] reverse = new int[n];
            for (int i = 0; i < n; i++) {
                reverse[i] = perm[n - 1 - i];
            }
            permutations.add(perm);
            permutations.add(reverse);
        }
        // Every prefix of every permutation, queried once each in one batch.
        Map<BitSet, Integer> subsets = new LinkedHashMap<>();
        for (int[] perm : permutations) {
            BitSet s = new BitSet(n);
            for (int i : perm) {
                s.set(i);
                subsets.putIfAbsent((BitSet) s.clone(), subsets.size());
            }
        }
        // Queried in bounded batches: a permutation of 300 instructions has 300 prefixes, each a block of up to
        // 300 instructions with its dependency graph, and holding all 32 permutations' at once took gigabytes.
        Map<BitSet, Double> value = new HashMap<>();
        List<BitSet> pending = new ArrayList<>(QUERY_BATCH);
        List<BasicBlock> blocks = new ArrayList<>(QUERY_BATCH);
        int left = subsets.size();
        for (BitSet s : subsets.keySet()) {
            pending.add(s);
            blocks.add(s.cardinality() == n ? block : subBlock(block, s));
            left--;
            if (blocks.size() == QUERY_BATCH || left == 0) {
                List<Prediction> predictions = model.predictAll(blocks, uarch);
                for (int k = 0; k < pending.size(); k++) {
                    value.put(pending.get(k), predictions.get(k).cyclesPerIteration());
                }
                pending.clear();
                blocks.clear();
            }
        }
        double[] sum = new double[n];
        for (int[] perm : permutations) {
            BitSet s = new BitSet(n);
            double before = 0;
            for (int i : perm) {
                s.set(i);
                double after = value.get(s);
                sum[i] += after - before;
                before = after;
            }
        }
        List<Double> contributions = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            contributions.add(sum[i] / permutations.size());
        }
        BitSet all = new BitSet(n);
        all.set(0, n);
        return new Result(contributions, value.get(all), 0, subsets.size());
    }

    /** The block made of the instructions in {@code keep}, in order, with their original bytes. */
    static BasicBlock subBlock(BasicBlock block, BitSet keep) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(block.length());
        keep.stream().forEach(i -> out.writeBytes(block.instruction(i).bytes()));
        return BasicBlock.fromBytes(out.toByteArray());
    }
}
