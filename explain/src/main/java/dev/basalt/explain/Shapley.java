package dev.basalt.explain;

import dev.basalt.core.Microarchitecture;
import dev.basalt.core.Prediction;
import dev.basalt.core.ThroughputEstimator;
import dev.basalt.decoder.BasicBlock;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * Per-instruction contributions in cycles for any estimator: a sampled Shapley estimate over instruction
 * deletion. The value of a set S of instructions is the model's prediction for the block made of S alone, in
 * the original order and bytes (the empty block: 0 cycles). For each sampled permutation, instructions are
 * added one by one and each is credited with the change it causes; antithetic pairs (a permutation and its
 * reverse) halve the variance for the same cost. Every permutation's credits add up to v(all) − v(∅), so
 * the estimate satisfies efficiency exactly (up to floating-point rounding), however few permutations.
 * A permutation of n instructions costs queries about n(n+1)/2 instructions, so a large block gets fewer
 * permutations: as many antithetic pairs as keep the instructions queried within {@link #INSTRUCTION_BUDGET}
 * (at least one pair, at most the configured number) — all 32 up to 223 instructions, 16 at 300, 6 at 512.
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
     * Instructions in the sub-blocks of the permutations sampled for one block, at most: a learned model's
     * query time grows with them (a hybrid GRANITE simulates each sub-block for its prior), and 800,000 take about
     * a minute and a half on two busy cores.
     */
    public static final long INSTRUCTION_BUDGET = 800_000;

    /**
     * Attributions.
     *
     * @param contributions per instruction, in cycles, in block order
     * @param prediction    the model's prediction for the whole block
     * @param emptyValue    the value of the empty block (0)
     * @param queries       distinct sub-blocks the model was asked about
     * @param permutations  permutations sampled (fewer than configured for a large block: {@link #permutations})
     */
    public record Result(List<Double> contributions, double prediction, double emptyValue, int queries,
                         int permutations) {
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

    private final Config config;

    public Shapley(Config config) {
        this.config = config;
    }

    public Config config() {
        return config;
    }

    /**
     * The permutations sampled for a block of {@code n} instructions: the configured number rounded up to an even
     * one, less as many antithetic pairs as it takes to stay within {@link #INSTRUCTION_BUDGET}, at least two.
     */
    public int permutations(int n) {
        long pairCost = (long) n * (n + 1); // a permutation's prefixes and its reverse's, in instructions
        long fit = Math.max(1, INSTRUCTION_BUDGET / Math.max(1, pairCost));
        return 2 * (int) Math.min((config.permutations() + 1) / 2, fit);
    }

    /** Attributes {@code model}'s prediction for {@code block} on {@code uarch} to its instructions. */
    public Result attribute(BasicBlock block, Microarchitecture uarch, ThroughputEstimator model) {
        int n = block.size();
        SplittableRandom random = new SplittableRandom(config.seed());
        int pairs = permutations(n) / 2;
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
        // Every prefix of every permutation, queried once each, streamed to the model in bounded batches (the
        // sub-blocks are made as their batch fills, so only one batch of them exists at a time).
        Map<BitSet, Double> value = new HashMap<>();
        QueryBatches<BitSet> queries = new QueryBatches<>(model, uarch, value::put);
        Set<BitSet> queued = new HashSet<>();
        for (int[] perm : permutations) {
            BitSet s = new BitSet(n);
            for (int i : perm) {
                s.set(i);
                BitSet key = (BitSet) s.clone();
                if (queued.add(key)) {
                    queries.add(key, key.cardinality() == n ? block : subBlock(block, key));
                }
            }
        }
        queries.flush();
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
        return new Result(contributions, value.get(all), 0, queries.queries(), permutations.size());
    }

    /** The block made of the instructions in {@code keep}, in order, with their original bytes. */
    static BasicBlock subBlock(BasicBlock block, BitSet keep) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(block.length());
        keep.stream().forEach(i -> out.writeBytes(block.instruction(i).bytes()));
        return BasicBlock.fromBytes(out.toByteArray());
    }
}
