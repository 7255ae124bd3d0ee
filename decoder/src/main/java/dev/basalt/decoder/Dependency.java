package dev.basalt.decoder;

import java.util.Objects;

/**
 * One edge of a {@link DependencyGraph}.
 *
 * @param producer    index of the earlier instruction (in the previous iteration when loop-carried)
 * @param consumer    index of the later instruction
 * @param kind        RAW, WAR or WAW
 * @param resource    the register, flag group or memory location involved
 * @param loopCarried true when the producer is in the previous iteration of the block's loop
 */
public record Dependency(int producer, int consumer, DependencyKind kind, Resource resource, boolean loopCarried) {

    public Dependency {
        if (producer < 0 || consumer < 0) {
            throw new IllegalArgumentException("instruction indices must be >= 0, got " + producer + "->" + consumer);
        }
        if (!loopCarried && producer >= consumer) {
            throw new IllegalArgumentException("an edge within one iteration must go forward, got " + producer
                    + "->" + consumer);
        }
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(resource, "resource");
    }

    /** Compact text: {@code 0->2 RAW rax} or {@code 3->0 RAW rax (loop)}. */
    @Override
    public String toString() {
        return producer + "->" + consumer + " " + kind + " " + resource + (loopCarried ? " (loop)" : "");
    }
}
