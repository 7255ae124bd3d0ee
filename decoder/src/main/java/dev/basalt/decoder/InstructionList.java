package dev.basalt.decoder;

import java.util.AbstractList;
import java.util.Objects;
import java.util.RandomAccess;

/** A decoded block's instructions: an immutable list over an exact-size array (one object fewer than a wrapper). */
final class InstructionList extends AbstractList<Instruction> implements RandomAccess {

    private final Instruction[] items;

    InstructionList(Instruction[] items) {
        this.items = items;
    }

    @Override
    public Instruction get(int index) {
        return items[Objects.checkIndex(index, items.length)];
    }

    @Override
    public int size() {
        return items.length;
    }
}
