package dev.basalt.explain;

import dev.basalt.core.Microarchitecture;
import dev.basalt.core.ThroughputEstimator;
import dev.basalt.decoder.BasicBlock;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeSet;

/**
 * COMET-style anchors (DESIGN.md §8): the set of block features with the highest coverage whose precision —
 * the share of perturbations keeping those features whose prediction stays in the original's bucket — is
 * above a threshold, found by the Anchors beam search with a KL-LUCB bandit.
 *
 * <p>Search: first the empty anchor is checked (when even unconstrained perturbations keep the prediction, the
 * answer is "nothing in particular"); then anchors grow by one feature at a time from the beam; among the
 * candidates whose coverage can still beat the best anchor found, KL-LUCB picks the {@code beamSize} with the
 * highest precision (sampling batches of {@code batchSize} until the bounds separate by ε); each pick is then
 * sampled until its precision is confidently above or below the threshold (± {@code epsilonStop}). A
 * candidate's precision counts every labelled perturbation that happens to keep its features, not only those
 * drawn for it (as Anchors does), which saves queries. When no anchor reaches the threshold, the most precise
 * candidate seen is returned with {@link Result#meetsThreshold()} false.
 *
 * <p>Bucket: a perturbed prediction p preserves the original c when |round(p / w) − c / w| &lt; 1, w the bucket
 * width (COMET's rule: half-cycle buckets for the learned models and uiCA, quarter cycles for the crude model).
 * Model queries go through {@link ThroughputEstimator#predictAll} in bounded batches ({@link QueryBatches});
 * identical perturbed blocks are queried once. The query budget shrinks for a large block, so that the
 * instructions queried stay within {@link #INSTRUCTION_BUDGET}: {@code maxQueries} (20,000) up to 20 instructions,
 * 1,333 queries at 300. Deterministic for a given seed. Thread-safe when the estimator is: each call has its own state.
 */
public final class Anchors {

    /**
     * Search settings.
     *
     * @param precisionThreshold precision an anchor must reach (COMET: 0.7)
     * @param delta              KL-LUCB confidence parameter (0.1)
     * @param epsilon            KL-LUCB tolerance between the best candidates (0.15)
     * @param epsilonStop        tolerance when confirming a candidate against the threshold (0.05)
     * @param batchSize          perturbations labelled per bandit pull (64)
     * @param coverageSamples    unconstrained perturbations that estimate coverage (10,000)
     * @param beamSize           candidates kept per anchor size
     * @param bucketWidth        width of a prediction bucket, in cycles (0.5), or a fraction of the original
     *                           prediction when {@code relativeBucket}
     * @param relativeBucket     whether {@code bucketWidth} is relative (0.05 = 5% of the prediction): half a
     *                           cycle is strict for a 40-cycle block, where anchors then need most features
     * @param maxQueries         model queries after which the search stops with what it has (fewer for a block
     *                           of more than 20 instructions: {@link Anchors#INSTRUCTION_BUDGET})
     * @param allowEmpty         whether the empty anchor may be the answer (when unconstrained perturbations
     *                           already keep the prediction); off by default, so an explanation always names
     *                           at least one feature — the one with the highest coverage that is precise enough
     * @param seed               seed of the perturbations
     * @param perturbation       perturbation probabilities
     */
    public record Config(double precisionThreshold, double delta, double epsilon, double epsilonStop, int batchSize,
                         int coverageSamples, int beamSize, double bucketWidth, boolean relativeBucket,
                         int maxQueries, boolean allowEmpty, long seed, Perturber.Config perturbation) {
        public Config {
            if (!(precisionThreshold > 0 && precisionThreshold <= 1) || !(delta > 0 && delta < 1)
                    || !(epsilon > 0) || !(epsilonStop >= 0) || batchSize < 1 || coverageSamples < 1 || beamSize < 1
                    || !(bucketWidth > 0) || maxQueries < batchSize) {
                throw new IllegalArgumentException("invalid anchor settings: " + thisToString(precisionThreshold,
                        delta, epsilon, batchSize, coverageSamples, beamSize, bucketWidth));
            }
        }

        private static String thisToString(double t, double d, double e, int b, int c, int beam, double w) {
            return "threshold " + t + ", delta " + d + ", epsilon " + e + ", batch " + b + ", coverage samples " + c
                    + ", beam " + beam + ", bucket " + w;
        }

        /** COMET's settings with half-cycle buckets. */
        public static Config defaults() {
            return new Config(0.7, 0.1, 0.15, 0.05, 64, 10_000, 1, 0.5, false, 20_000, false, 1L,
                    Perturber.Config.defaults());
        }

        public Config withBucketWidth(double width) {
            return new Config(precisionThreshold, delta, epsilon, epsilonStop, batchSize, coverageSamples, beamSize,
                    width, false, maxQueries, allowEmpty, seed, perturbation);
        }

        /** Buckets of {@code fraction} × the original prediction (0.05: ±2.5%). */
        public Config withRelativeBucket(double fraction) {
            return new Config(precisionThreshold, delta, epsilon, epsilonStop, batchSize, coverageSamples, beamSize,
                    fraction, true, maxQueries, allowEmpty, seed, perturbation);
        }

        /** The bucket width in cycles around a prediction of {@code cycles}. */
        public double bucketCycles(double cycles) {
            return relativeBucket ? Math.max(1e-9, bucketWidth * cycles) : bucketWidth;
        }

        public Config withPrecisionThreshold(double threshold) {
            return new Config(threshold, delta, epsilon, epsilonStop, batchSize, coverageSamples, beamSize,
                    bucketWidth, relativeBucket, maxQueries, allowEmpty, seed, perturbation);
        }

        public Config withSeed(long newSeed) {
            return new Config(precisionThreshold, delta, epsilon, epsilonStop, batchSize, coverageSamples, beamSize,
                    bucketWidth, relativeBucket, maxQueries, allowEmpty, newSeed, perturbation);
        }

        public Config withCoverageSamples(int samples) {
            return new Config(precisionThreshold, delta, epsilon, epsilonStop, batchSize, samples, beamSize,
                    bucketWidth, relativeBucket, maxQueries, allowEmpty, seed, perturbation);
        }
    }

    /**
     * An anchor.
     *
     * @param features       the anchored features, sorted (empty: no feature is needed)
     * @param prediction     the model's prediction for the block
     * @param precision      estimated precision
     * @param precisionLow   its lower confidence bound
     * @param coverage       share of unconstrained perturbations that keep the features
     * @param meetsThreshold whether the precision reached the threshold
     * @param queries        model queries made (distinct perturbed blocks)
     * @param samples        labelled perturbations
     * @param bucket         the bucket width used, in cycles
     */
    public record Result(List<Feature> features, double prediction, double precision, double precisionLow,
                         double coverage, boolean meetsThreshold, int queries, int samples, double bucket) {
        public Result {
            features = List.copyOf(features);
        }
    }

    /**
     * Instructions in the perturbed blocks one search may query, at most (the block's size times its queries): a
     * learned model's query time grows with them (a hybrid GRANITE simulates each block for its prior), and a
     * search over a 300-instruction block spends as long again outside the model.
     */
    public static final long INSTRUCTION_BUDGET = 400_000;

    private final Config config;
    private final MnemonicPool pool;

    public Anchors(Config config, MnemonicPool pool) {
        this.config = config;
        this.pool = pool;
    }

    public Config config() {
        return config;
    }

    /** Explains {@code model}'s prediction for {@code block} on {@code uarch}. */
    public Result explain(BasicBlock block, Microarchitecture uarch, ThroughputEstimator model) {
        return new Search(block, uarch, model).run();
    }

    /** One search: the block's perturbations, their labels and the bandit state. */
    private final class Search {
        final BlockFeatures features;
        final Perturber perturber;
        final Microarchitecture uarch;
        final ThroughputEstimator model;
        final SplittableRandom random;
        final double original;
        final int words;
        final List<long[]> coverage = new ArrayList<>();
        final List<long[]> labelled = new ArrayList<>();
        final List<Boolean> labels = new ArrayList<>();
        final Map<String, Double> cache = new HashMap<>();
        final BitSet searchable;
        /** {@code maxQueries}, or fewer for a large block ({@link #INSTRUCTION_BUDGET}), at least one batch. */
        final int maxQueries;
        int queries;

        Search(BasicBlock block, Microarchitecture uarch, ThroughputEstimator model) {
            this.features = new BlockFeatures(block);
            this.perturber = new Perturber(features, pool, config.perturbation());
            this.uarch = uarch;
            this.model = model;
            this.random = new SplittableRandom(config.seed());
            this.words = (features.size() + 63) / 64;
            this.maxQueries = (int) Math.max(config.batchSize(), Math.min(config.maxQueries(),
                    INSTRUCTION_BUDGET / Math.max(1, block.size())));
            this.original = model.predict(block, uarch).cyclesPerIteration();
            cache.put(block.hex(), original);
            queries = 1;
            SplittableRandom coverageRandom = random.split();
            for (int s = 0; s < config.coverageSamples(); s++) {
                coverage.add(words(features.preserved(perturber.draw(Set.of(), coverageRandom))));
            }
            searchable = distinguishable();
        }

        /**
         * The features worth searching over: of features preserved in exactly the same coverage samples (the
         * perturbations cannot tell them apart, such as the RAW and WAW edges of {@code add rax, rbx} after a
         * write of {@code rax}), only the first in {@link Feature} order stays a candidate, so ties between
         * look-alikes are not broken by sampling noise; a feature that every perturbation keeps is no
         * candidate at all (anchoring it is the same as anchoring nothing).
         */
        BitSet distinguishable() {
            Map<BitSet, Integer> columns = new HashMap<>();
            BitSet out = new BitSet(features.size());
            for (int f = 0; f < features.size(); f++) {
                BitSet column = new BitSet(coverage.size());
                int word = f >>> 6;
                long mask = 1L << (f & 63);
                for (int s = 0; s < coverage.size(); s++) {
                    if ((coverage.get(s)[word] & mask) != 0) {
                        column.set(s);
                    }
                }
                if (column.cardinality() == coverage.size()) {
                    continue; // kept by every perturbation (num_insts of a one-instruction block): says nothing
                }
                if (columns.putIfAbsent(column, f) == null) {
                    out.set(f);
                }
            }
            return out;
        }

        long[] words(BitSet b) {
            return java.util.Arrays.copyOf(b.toLongArray(), words);
        }

        boolean preserves(double p) {
            double w = config.bucketCycles(original);
            return Math.abs(Math.rint(p / w) - original / w) < 1;
        }

        static boolean covers(long[] sample, long[] anchor) {
            for (int k = 0; k < anchor.length; k++) {
                if ((anchor[k] & ~sample[k]) != 0) {
                    return false;
                }
            }
            return true;
        }

        double coverage(long[] anchor) {
            int n = 0;
            for (long[] s : coverage) {
                if (covers(s, anchor)) {
                    n++;
                }
            }
            return (double) n / coverage.size();
        }

        /** Draws and labels one batch of perturbations keeping {@code anchor}. */
        void sample(BitSet anchor) {
            Set<Feature> fixed = Set.copyOf(features.features(anchor));
            List<Perturbation> batch = new ArrayList<>(config.batchSize());
            for (int s = 0; s < config.batchSize(); s++) {
                batch.add(perturber.draw(fixed, random));
            }
            QueryBatches<String> toQuery = new QueryBatches<>(model, uarch, cache::put);
            Set<String> queued = new HashSet<>();
            for (Perturbation p : batch) {
                String hex = p.block().hex();
                if (!cache.containsKey(hex) && queued.add(hex)) {
                    toQuery.add(hex, p.block());
                }
            }
            toQuery.flush();
            queries += toQuery.queries();
            for (Perturbation p : batch) {
                labelled.add(words(features.preserved(p)));
                labels.add(preserves(cache.get(p.block().hex())));
            }
        }

        /** [samples keeping the anchor, of which preserved]. */
        int[] counts(long[] anchor) {
            int n = 0;
            int pos = 0;
            for (int s = 0; s < labelled.size(); s++) {
                if (covers(labelled.get(s), anchor)) {
                    n++;
                    if (labels.get(s)) {
                        pos++;
                    }
                }
            }
            return new int[] {n, pos};
        }

        /**
         * Whether another batch fits the query budget ({@link #maxQueries}). Samples are capped too (at four times
         * the query budget): a small block has few distinct perturbations, so most samples hit the cache and cost
         * no query.
         */
        boolean budgetLeft() {
            return queries + config.batchSize() <= maxQueries
                    && labelled.size() + config.batchSize() <= 4L * maxQueries;
        }

        /** Candidate state. */
        final class Candidate {
            final BitSet bits;
            final long[] key;
            final double coverage;
            int n;
            int pos;

            Candidate(BitSet bits) {
                this.bits = bits;
                this.key = words(bits);
                this.coverage = Search.this.coverage(key);
            }

            void refresh() {
                int[] c = counts(key);
                n = c[0];
                pos = c[1];
            }

            double mean() {
                return n == 0 ? 0 : (double) pos / n;
            }

            void pull() {
                sample(bits);
                refresh();
            }
        }

        Result run() {
            double tau = config.precisionThreshold();
            double beta = Math.log(1 / config.delta());
            Candidate empty = new Candidate(new BitSet());
            empty.pull();
            if (config.allowEmpty()) {
                confirm(empty, beta);
            }
            if (config.allowEmpty() && empty.mean() >= tau && KlBounds.lower(empty.mean(), beta / empty.n) > tau - config.epsilonStop()) {
                return result(empty, true);
            }
            Candidate best = null;
            List<Candidate> beam = List.of(empty);
            List<Candidate> seen = new ArrayList<>();
            Map<BitSet, Candidate> all = new HashMap<>();
            for (int size = 1; size <= features.size() && budgetLeft(); size++) {
                List<Candidate> candidates = new ArrayList<>();
                for (Candidate parent : beam) {
                    for (int f = 0; f < features.size(); f++) {
                        if (parent.bits.get(f) || !searchable.get(f)) {
                            continue;
                        }
                        BitSet b = (BitSet) parent.bits.clone();
                        b.set(f);
                        if (all.containsKey(b)) {
                            continue;
                        }
                        Candidate c = new Candidate(b);
                        all.put(b, c);
                        if (best == null || c.coverage > best.coverage) {
                            candidates.add(c);
                        }
                    }
                }
                if (candidates.isEmpty()) {
                    break;
                }
                List<Candidate> chosen = klLucb(candidates);
                seen.addAll(chosen);
                for (Candidate c : chosen) {
                    confirm(c, beta);
                    boolean valid = c.mean() >= tau
                            && KlBounds.lower(c.mean(), beta / Math.max(1, c.n)) > tau - config.epsilonStop();
                    if (valid && (best == null || c.coverage > best.coverage)) {
                        best = c;
                    }
                }
                if (best != null && best.coverage >= 1) {
                    break;
                }
                beam = chosen;
            }
            if (best != null) {
                return result(best, true);
            }
            seen.forEach(Candidate::refresh);
            Candidate top = seen.stream().max(Comparator.comparingDouble(Candidate::mean)
                    .thenComparingDouble(c -> c.coverage)).orElse(empty);
            return result(top, false);
        }

        /** Samples a candidate until its precision is confidently on one side of the threshold. */
        void confirm(Candidate c, double beta) {
            double tau = config.precisionThreshold();
            double stop = config.epsilonStop();
            c.refresh();
            if (c.n == 0) {
                c.pull();
            }
            for (int round = 0; round < 40 && budgetLeft(); round++) {
                double mean = c.mean();
                double lb = KlBounds.lower(mean, beta / c.n);
                double ub = KlBounds.upper(mean, beta / c.n);
                if ((mean >= tau && lb < tau - stop) || (mean < tau && ub >= tau + stop)) {
                    c.pull();
                } else {
                    return;
                }
            }
        }

        /** KL-LUCB: the {@code beamSize} candidates with the highest precision, to within ε. */
        List<Candidate> klLucb(List<Candidate> candidates) {
            for (Candidate c : candidates) {
                c.refresh();
                if (c.n == 0 && budgetLeft()) {
                    c.pull();
                }
            }
            int top = Math.min(config.beamSize(), candidates.size());
            List<Candidate> order = new ArrayList<>(candidates);
            for (int t = 1; budgetLeft(); t++) {
                candidates.forEach(Candidate::refresh);
                order.sort(Comparator.comparingDouble(Candidate::mean).reversed()
                        .thenComparing(Comparator.comparingDouble((Candidate c) -> c.coverage).reversed()));
                if (top == order.size()) {
                    break;
                }
                double beta = KlBounds.beta(candidates.size(), t, config.delta());
                Candidate weakest = null;
                double weakestLb = Double.POSITIVE_INFINITY;
                for (Candidate c : order.subList(0, top)) {
                    double lb = KlBounds.lower(c.mean(), beta / Math.max(1, c.n));
                    if (lb < weakestLb) {
                        weakestLb = lb;
                        weakest = c;
                    }
                }
                Candidate strongest = null;
                double strongestUb = Double.NEGATIVE_INFINITY;
                for (Candidate c : order.subList(top, order.size())) {
                    double ub = KlBounds.upper(c.mean(), beta / Math.max(1, c.n));
                    if (ub > strongestUb) {
                        strongestUb = ub;
                        strongest = c;
                    }
                }
                if (strongestUb - weakestLb <= config.epsilon()) {
                    break;
                }
                weakest.pull();
                if (budgetLeft()) {
                    strongest.pull();
                }
            }
            return List.copyOf(order.subList(0, top));
        }

        Result result(Candidate c, boolean meets) {
            c.refresh();
            double beta = Math.log(1 / config.delta());
            double lb = c.n == 0 ? 0 : KlBounds.lower(c.mean(), beta / c.n);
            return new Result(List.copyOf(new TreeSet<>(features.features(c.bits))), original, c.mean(), lb,
                    c.coverage, meets, queries, labelled.size(), config.bucketCycles(original));
        }
    }
}
