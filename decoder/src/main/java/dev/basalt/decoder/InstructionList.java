package dev.basalt.decoder;

import java.util.AbstractList;
import java.util.Objects;
import java.util.RandomAccess;

/**
 * A decoded block's instructions: an immutable list over an exact-size array, which also carries the packed
 * register effects the decoder's {@link InstructionCache} already knew for each instruction, so that
 * {@link DependencyGraph} can skip recomputing them (entries are null where unknown).
 */
final class InstructionList extends AbstractList<Instruction> implements RandomAccess {

    private final Instruction[] items;
    private final int[][] effects;

    InstructionList(Instruction[] items, int[][] effects) {
        if (items.length != effects.length) {
            throw new IllegalArgumentException(items.length + " instructions but " + effects.length + " effects");
        }
        this.items = items;
        this.effects = effects;
    }

    @Override
    public Instruction get(int index) {
        return items[Objects.checkIndex(index, items.length)];
    }

    @Override
    public int size() {
        return items.length;
    }

    /** The packed effects of instruction {@code i} ({@link InstructionEffects#pack}), or null if unknown. */
    int[] effects(int i) {
        return effects[i];
    }
}
