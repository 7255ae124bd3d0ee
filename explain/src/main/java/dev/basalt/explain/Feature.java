package dev.basalt.explain;

import dev.basalt.decoder.DependencyKind;

import java.util.Objects;

/**
 * A feature of a basic block that an anchor can fix (COMET's feature kinds). Features are named after the
 * original block's instruction indices; a perturbation preserves a feature or breaks it.
 */
public sealed interface Feature extends Comparable<Feature>
        permits Feature.Inst, Feature.Dep, Feature.NumInsts {

    /** COMET-style name: {@code inst_3}, {@code dep(1,3,RAW)}, {@code num_insts}. */
    String name();

    /**
     * Sort order: instructions, then dependencies (RAW before WAW before WAR between the same two instructions),
     * then the count. Also the order of preference between features that perturbations cannot tell apart.
     */
    @Override
    default int compareTo(Feature o) {
        int c = Integer.compare(rank(), o.rank());
        return c != 0 ? c : sortKey().compareTo(o.sortKey());
    }

    /** Kind order used by {@link #compareTo}. */
    int rank();

    /** Order within a kind. */
    String sortKey();

    /** Instruction {@code index} is present and keeps its mnemonic (its operands may change). */
    record Inst(int index) implements Feature {
        public Inst {
            if (index < 0) {
                throw new IllegalArgumentException("instruction index must be >= 0, got " + index);
            }
        }

        @Override
        public String name() {
            return "inst_" + index;
        }

        @Override
        public int rank() {
            return 0;
        }

        @Override
        public String sortKey() {
            return String.format("%06d", index);
        }
    }

    /**
     * The dependency of the given kind from {@code producer} to {@code consumer} (on any resource, within the
     * iteration or across the loop back-edge) still exists.
     */
    record Dep(int producer, int consumer, DependencyKind kind) implements Feature {
        public Dep {
            Objects.requireNonNull(kind, "kind");
            if (producer < 0 || consumer < 0 || producer == consumer) {
                throw new IllegalArgumentException("a dependency feature joins two different instructions, got "
                        + producer + "->" + consumer);
            }
        }

        @Override
        public String name() {
            return "dep(" + producer + "," + consumer + "," + kind + ")";
        }

        @Override
        public int rank() {
            return 1;
        }

        @Override
        public String sortKey() {
            return String.format("%06d-%06d-%d", producer, consumer, kind == DependencyKind.RAW ? 0
                    : kind == DependencyKind.WAW ? 1 : 2);
        }
    }

    /** No instruction was deleted. */
    record NumInsts() implements Feature {
        @Override
        public String name() {
            return "num_insts";
        }

        @Override
        public int rank() {
            return 2;
        }

        @Override
        public String sortKey() {
            return "";
        }
    }
}
