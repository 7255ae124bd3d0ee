package dev.basalt.core;

import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;

/**
 * A prediction's {@link Prediction#details() details} as an immutable map in its names' order, over a shared list of
 * names and an array of values: what an estimator that gives the same named values for every block (the bounds, a
 * simulator's counters) hands {@link Prediction}, which keeps it as it is. Why: a linked hash map with its entries
 * and boxed values for each of millions of predictions was a fifth of what the bounds allocate per block.
 */
public final class Details extends AbstractMap<String, Double> {

    private final List<String> names;
    private final double[] values;

    private Details(List<String> names, double[] values) {
        this.names = names;
        this.values = values;
    }

    /** The names of an estimator's details, in order, checked once: {@link #with} makes each prediction's map. */
    public static final class Names {
        private final List<String> names;

        private Names(List<String> names) {
            this.names = names;
        }

        /** The details' names in order. */
        public List<String> list() {
            return names;
        }

        /** The map from these names to {@code values} (as many, copied). */
        public Map<String, Double> with(double... values) {
            if (values.length != names.size()) {
                throw new IllegalArgumentException(names.size() + " names " + names + " for " + values.length
                        + " values");
            }
            return new Details(names, values.clone());
        }
    }

    /**
     * Names for details.
     *
     * @throws IllegalArgumentException when a name repeats
     */
    public static Names names(List<String> names) {
        List<String> n = List.copyOf(names);
        if (Set.copyOf(n).size() != n.size()) {
            throw new IllegalArgumentException("repeated name in " + n);
        }
        return new Names(n);
    }

    @Override
    public int size() {
        return values.length;
    }

    @Override
    public boolean containsKey(Object key) {
        return names.contains(key);
    }

    @Override
    public Double get(Object key) {
        int k = names.indexOf(key);
        return k < 0 ? null : values[k];
    }

    @Override
    public Set<Entry<String, Double>> entrySet() {
        return new AbstractSet<>() {
            @Override
            public int size() {
                return values.length;
            }

            @Override
            public Iterator<Entry<String, Double>> iterator() {
                return new Iterator<>() {
                    private int next;

                    @Override
                    public boolean hasNext() {
                        return next < values.length;
                    }

                    @Override
                    public Entry<String, Double> next() {
                        if (next >= values.length) {
                            throw new NoSuchElementException();
                        }
                        int k = next++;
                        return new SimpleImmutableEntry<>(names.get(k), values[k]);
                    }
                };
            }
        };
    }
}
