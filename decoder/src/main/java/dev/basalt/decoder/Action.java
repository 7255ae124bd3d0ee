package dev.basalt.decoder;

/**
 * What an instruction does to an operand. Conditional reads and writes (the destination of {@code cmovcc},
 * the count register of {@code rep movsb}) are kept apart from unconditional ones because a conditional
 * write must keep the old value when it does not happen, which makes it a read too.
 *
 * @param read             read unconditionally
 * @param write            written unconditionally
 * @param conditionalRead  read only under a condition
 * @param conditionalWrite written only under a condition
 */
public record Action(boolean read, boolean write, boolean conditionalRead, boolean conditionalWrite) {

    private static final Action[] BY_MASK = new Action[16];

    static {
        for (int m = 0; m < 16; m++) {
            BY_MASK[m] = new Action((m & 1) != 0, (m & 2) != 0, (m & 4) != 0, (m & 8) != 0);
        }
    }

    /** Read, unconditionally. */
    public static final Action READ = BY_MASK[1];
    /** Written, unconditionally. */
    public static final Action WRITE = BY_MASK[2];
    /** Read then written. */
    public static final Action READ_WRITE = BY_MASK[3];

    /** The action for a Zydis {@code ZydisOperandActions} mask (bits: read 1, write 2, cond. read 4, cond. write 8). */
    static Action ofNative(int mask) {
        return BY_MASK[mask & 15];
    }

    /** True if the old value may be used: a read, a conditional read or a conditional write. */
    public boolean readsOldValue() {
        return read || conditionalRead || conditionalWrite;
    }

    /** True if the operand may be written. */
    public boolean writes() {
        return write || conditionalWrite;
    }

    /** Short form as in Zydis' tables: {@code r}, {@code w}, {@code rw}, {@code cr}, {@code rcw}, ... */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder(4);
        if (read) {
            sb.append('r');
        }
        if (conditionalRead) {
            sb.append("cr");
        }
        if (write) {
            sb.append('w');
        }
        if (conditionalWrite) {
            sb.append("cw");
        }
        return sb.length() == 0 ? "-" : sb.toString();
    }
}
