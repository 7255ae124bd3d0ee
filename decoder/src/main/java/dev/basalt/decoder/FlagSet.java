package dev.basalt.decoder;

import java.util.EnumSet;
import java.util.Set;
import java.util.StringJoiner;

/**
 * An immutable set of {@link CpuFlag}s as an RFLAGS bit mask (the value type is an int so that decoding a
 * block allocates no set per instruction).
 *
 * @param bits RFLAGS bit mask; only bits of defined {@link CpuFlag}s may be set
 */
public record FlagSet(int bits) {

    /** The empty set. */
    public static final FlagSet EMPTY = new FlagSet(0);

    private static final int ALL_BITS;

    static {
        int all = 0;
        for (CpuFlag f : CpuFlag.values()) {
            all |= f.mask();
        }
        ALL_BITS = all;
    }

    public FlagSet {
        if ((bits & ~ALL_BITS) != 0) {
            throw new IllegalArgumentException("undefined flag bits in mask 0x" + Integer.toHexString(bits));
        }
    }

    /** The set of the given flags. */
    public static FlagSet of(CpuFlag... flags) {
        int b = 0;
        for (CpuFlag f : flags) {
            b |= f.mask();
        }
        return new FlagSet(b);
    }

    public boolean contains(CpuFlag flag) {
        return (bits & flag.mask()) != 0;
    }

    public boolean isEmpty() {
        return bits == 0;
    }

    /** True if this set and {@code other} share a flag. */
    public boolean intersects(FlagSet other) {
        return (bits & other.bits) != 0;
    }

    /** The flags as a (new, mutable) {@link EnumSet}. */
    public Set<CpuFlag> toSet() {
        EnumSet<CpuFlag> s = EnumSet.noneOf(CpuFlag.class);
        for (CpuFlag f : CpuFlag.values()) {
            if (contains(f)) {
                s.add(f);
            }
        }
        return s;
    }

    /** Flags in bit order joined with {@code |}, e.g. {@code CF|ZF}; {@code -} when empty. */
    @Override
    public String toString() {
        if (bits == 0) {
            return "-";
        }
        StringJoiner j = new StringJoiner("|");
        for (CpuFlag f : CpuFlag.values()) {
            if (contains(f)) {
                j.add(f.name());
            }
        }
        return j.toString();
    }
}
