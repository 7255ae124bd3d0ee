package dev.basalt.explain;

import dev.basalt.decoder.BasicBlock;
import dev.basalt.decoder.Dependency;
import dev.basalt.decoder.DependencyGraph;
import dev.basalt.decoder.DependencyKind;
import dev.basalt.decoder.Resource;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The candidate features of one block — {@code inst_i} for every instruction, {@code dep(i,j,T)} for every
 * dependency from an instruction to a later one within the iteration (as COMET; a loop-carried edge j → i
 * mostly mirrors a forward one between the same two instructions and would only add look-alike candidates),
 * and {@code num_insts} — each with a bit index, and which of them a perturbation preserves. WAR and WAW
 * edges on flags are left out (nearly every pair of arithmetic instructions has them and the CPU renames
 * flags), and so are WAR/WAW edges between two instructions that also have a RAW edge: the RAW one is the
 * dependency that costs time, the others are name dependencies renaming removes, and as features they are
 * near-copies of it. Immutable.
 */
public final class BlockFeatures {

    private final BasicBlock block;
    private final List<Feature> features;
    private final Map<Feature, Integer> index = new HashMap<>();

    public BlockFeatures(BasicBlock block) {
        this.block = block;
        TreeSet<Feature> all = new TreeSet<>();
        for (int i = 0; i < block.size(); i++) {
            all.add(new Feature.Inst(i));
        }
        all.addAll(dependencies(block.dependencyGraph(), null, true));
        all.add(new Feature.NumInsts());
        features = List.copyOf(all);
        for (int k = 0; k < features.size(); k++) {
            index.put(features.get(k), k);
        }
    }

    /**
     * Dependency features of a graph, with indices mapped through {@code origin} (null = identity); with
     * {@code candidates}, without the edges that are no candidate features (see the class comment).
     */
    private static Set<Feature.Dep> dependencies(DependencyGraph graph, int[] origin, boolean candidates) {
        Set<Feature.Dep> out = new HashSet<>();
        Set<Long> rawPairs = new HashSet<>();
        for (Dependency d : graph.edges(DependencyKind.RAW)) {
            if (!d.loopCarried()) {
                rawPairs.add(((long) d.producer() << 32) | d.consumer());
            }
        }
        for (Dependency d : graph.edges()) {
            if (candidates && d.kind() != DependencyKind.RAW && rawPairs.contains(((long) d.producer() << 32) | d.consumer())) {
                continue;
            }
            if (d.loopCarried() || (candidates && d.kind() != DependencyKind.RAW
                    && d.resource().kind() == Resource.Kind.FLAGS)) {
                continue;
            }
            int p = origin == null ? d.producer() : origin[d.producer()];
            int c = origin == null ? d.consumer() : origin[d.consumer()];
            if (p != c) {
                out.add(new Feature.Dep(p, c, d.kind()));
            }
        }
        return out;
    }

    /** The block. */
    public BasicBlock block() {
        return block;
    }

    /** All features, sorted. */
    public List<Feature> features() {
        return features;
    }

    /** Number of features. */
    public int size() {
        return features.size();
    }

    /** The bit index of a feature. @throws IllegalArgumentException when the block has no such feature */
    public int indexOf(Feature f) {
        Integer k = index.get(f);
        if (k == null) {
            throw new IllegalArgumentException(f.name() + " is not a feature of this block");
        }
        return k;
    }

    /** The feature at bit index {@code k}. */
    public Feature feature(int k) {
        return features.get(k);
    }

    /** The bit set of some features. */
    public BitSet bits(Collection<? extends Feature> fs) {
        BitSet b = new BitSet(features.size());
        for (Feature f : fs) {
            b.set(indexOf(f));
        }
        return b;
    }

    /** The features of a bit set, sorted. */
    public List<Feature> features(BitSet bits) {
        List<Feature> out = new ArrayList<>(bits.cardinality());
        bits.stream().forEach(k -> out.add(features.get(k)));
        return out;
    }

    /** Which features {@code p} preserves (bit k set = feature k preserved). */
    public BitSet preserved(Perturbation p) {
        BitSet out = new BitSet(features.size());
        int n = block.size();
        boolean allPresent = p.block().size() == n;
        int[] origin = p.origin();
        for (int k = 0; k < origin.length; k++) {
            int i = origin[k];
            if (p.block().instruction(k).mnemonic().equals(block.instruction(i).mnemonic())) {
                out.set(indexOf(new Feature.Inst(i)));
            }
        }
        for (Feature.Dep d : dependencies(p.block().dependencyGraph(), origin, false)) {
            Integer k = index.get(d);
            if (k != null) {
                out.set(k);
            }
        }
        if (allPresent) {
            out.set(indexOf(new Feature.NumInsts()));
        }
        return out;
    }
}
