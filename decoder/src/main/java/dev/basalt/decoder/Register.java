package dev.basalt.decoder;

import java.util.Objects;

/**
 * One x86-64 register as Zydis names it.
 *
 * <p>{@code enclosingId}/{@code enclosingName} name the largest register that contains this one in 64-bit
 * mode ({@code al}, {@code ax}, {@code eax} → {@code rax}; {@code xmm3} → {@code zmm3}). Dependencies are
 * tracked on the enclosing register. Instances come from the decoder's table, one per register, so they can
 * be compared with {@code ==} as well as {@code equals}.
 *
 * @param id            Zydis' register enum value (0 is {@link #NONE})
 * @param name          lower-case name as Intel syntax prints it ({@code rax}, {@code xmm0}, {@code k1})
 * @param registerClass the register's class
 * @param widthBits     width in bits in 64-bit mode (0 where Zydis gives none)
 * @param enclosingId   id of the largest enclosing register (itself when it is the largest)
 * @param enclosingName name of the largest enclosing register
 */
public record Register(int id, String name, RegisterClass registerClass, int widthBits, int enclosingId,
                       String enclosingName) {

    /** The absent register: the base or index of a memory operand that has none. */
    public static final Register NONE = new Register(0, "none", RegisterClass.INVALID, 0, 0, "none");

    public Register {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(registerClass, "registerClass");
        Objects.requireNonNull(enclosingName, "enclosingName");
        if (id < 0) {
            throw new IllegalArgumentException("register id must be >= 0, got " + id);
        }
    }

    /** True unless this is {@link #NONE}. */
    public boolean isPresent() {
        return id != 0;
    }

    /**
     * True when writing this register leaves part of its enclosing register unchanged, so the write merges
     * with (and so depends on) the old value: 8- and 16-bit general purpose registers. 32-bit GPR writes
     * zero-extend. Vector writes are treated as full writes: SSE and AVX writes to the low lanes do not wait
     * for the upper lanes on the CPUs we model (the upper state is tracked apart from the data).
     */
    public boolean isPartialWrite() {
        return (registerClass == RegisterClass.GPR8 || registerClass == RegisterClass.GPR16) && id != enclosingId;
    }

    /**
     * Every register Zydis knows in 64-bit mode, indexed by id (index 0 is {@link #NONE}).
     *
     * @throws ZydisUnavailableException when the Zydis library cannot be loaded
     */
    public static java.util.List<Register> all() {
        return Zydis.get().registers();
    }

    @Override
    public String toString() {
        return name;
    }
}
