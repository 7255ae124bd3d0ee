package dev.basalt.decoder;

import java.util.Objects;

/**
 * Something instructions read and write: a register (by its enclosing 64-bit/vector register), a flag group,
 * or memory.
 *
 * @param kind the resource's kind
 * @param name {@code rax}, {@code zmm3}, {@code k1} for registers; {@code CF}, {@code OSZAP}, {@code DF},
 *             {@code SYSFLAGS} for flag groups; {@code mem} (all-alias) or the address expression
 *             (same-expression) for memory: {@code [rsp+0x8]}, {@code fs:[rax]}, and {@code [block+0x1c]} for
 *             a RIP-relative address (offset from the block's first byte)
 */
public record Resource(Kind kind, String name) {

    /** Resource kinds. */
    public enum Kind {
        /** A register file entry, named by its largest enclosing register. */
        REGISTER,
        /**
         * A group of RFLAGS bits renamed together: {@code CF} alone (CPUs rename it apart from the others, so
         * {@code inc} neither waits for nor clobbers it), {@code OSZAP} (OF, SF, ZF, AF, PF), {@code DF}, and
         * {@code SYSFLAGS} (the system flags).
         */
        FLAGS,
        /** Memory. */
        MEMORY
    }

    /** All of memory, as one resource (the all-alias policy). */
    public static final Resource MEMORY = new Resource(Kind.MEMORY, "mem");

    public Resource {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(name, "name");
    }

    @Override
    public String toString() {
        return name;
    }
}
