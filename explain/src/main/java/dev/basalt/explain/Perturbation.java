package dev.basalt.explain;

import dev.basalt.decoder.BasicBlock;

import java.util.Arrays;
import java.util.Objects;

/**
 * One perturbed version of a block.
 *
 * @param block   the perturbed block (real machine code: every changed instruction was re-encoded by Zydis)
 * @param origin  for each instruction of {@code block}, the index of the original instruction it came from
 * @param changed for each instruction of {@code block}, whether it was re-encoded (mnemonic or operands changed)
 */
public record Perturbation(BasicBlock block, int[] origin, boolean[] changed) {

    public Perturbation {
        Objects.requireNonNull(block, "block");
        if (origin.length != block.size() || changed.length != block.size()) {
            throw new IllegalArgumentException("origin and changed need one entry per instruction of the block");
        }
        origin = origin.clone();
        changed = changed.clone();
    }

    @Override
    public int[] origin() {
        return origin.clone();
    }

    @Override
    public boolean[] changed() {
        return changed.clone();
    }

    /** Original index of perturbed instruction {@code k}. */
    public int originOf(int k) {
        return origin[k];
    }

    /** Whether perturbed instruction {@code k} was re-encoded. */
    public boolean isChanged(int k) {
        return changed[k];
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Perturbation p && block.equals(p.block) && Arrays.equals(origin, p.origin)
                && Arrays.equals(changed, p.changed);
    }

    @Override
    public int hashCode() {
        return block.hashCode() * 31 + Arrays.hashCode(origin);
    }
}
