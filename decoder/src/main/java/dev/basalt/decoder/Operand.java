package dev.basalt.decoder;

import java.util.Objects;

/**
 * One operand of an {@link Instruction}, explicit or implicit, as Zydis decodes it.
 *
 * <p>The four kinds are closed: a register, a memory access, an immediate, and an address computed without a
 * memory access (the source of {@code lea}).
 */
public sealed interface Operand
        permits Operand.RegisterOperand, Operand.MemoryOperand, Operand.ImmediateOperand, Operand.AddressOperand {

    /** Whether the operand is encoded/printed. */
    Visibility visibility();

    /** Logical size in bits (0 where it has none, as for an address). */
    int sizeBits();

    /** What the instruction does to the operand. */
    Action action();

    /**
     * A register operand.
     *
     * @param register   the register exactly as named by the instruction ({@code al}, not {@code rax})
     * @param action     read/write
     * @param visibility explicit, implicit or hidden
     * @param isMask     true for the AVX-512 opmask that writes-masks the destination ({@code {k1}})
     */
    record RegisterOperand(Register register, Action action, Visibility visibility, boolean isMask)
            implements Operand {
        public RegisterOperand {
            Objects.requireNonNull(register, "register");
            Objects.requireNonNull(action, "action");
            Objects.requireNonNull(visibility, "visibility");
        }

        @Override
        public int sizeBits() {
            return register.widthBits();
        }

        @Override
        public String toString() {
            return isMask ? "{" + register.name() + "}" : register.name();
        }
    }

    /**
     * A memory access.
     *
     * @param segment      segment register ({@code ds}/{@code ss} by default, {@code fs}/{@code gs} when
     *                     overridden)
     * @param base         base register or {@link Register#NONE}
     * @param index        index register or {@link Register#NONE} (a vector register for gathers)
     * @param scale        index scale: 0 without index, else 1, 2, 4 or 8
     * @param displacement signed displacement (0 when absent)
     * @param sizeBits     size of the access in bits
     * @param action       read, write or both
     * @param visibility   explicit, implicit or hidden
     */
    record MemoryOperand(Register segment, Register base, Register index, int scale, long displacement,
                         int sizeBits, Action action, Visibility visibility) implements Operand {
        public MemoryOperand {
            Objects.requireNonNull(segment, "segment");
            Objects.requireNonNull(base, "base");
            Objects.requireNonNull(index, "index");
            Objects.requireNonNull(action, "action");
            Objects.requireNonNull(visibility, "visibility");
            if (scale != 0 && scale != 1 && scale != 2 && scale != 4 && scale != 8) {
                throw new IllegalArgumentException("scale must be 0, 1, 2, 4 or 8, got " + scale);
            }
        }

        /** The address expression in Intel syntax, e.g. {@code [rsp+rax*4+0x30]} or {@code fs:[rax]}. */
        public String addressText() {
            return Operand.addressText(segment, base, index, scale, displacement);
        }

        @Override
        public String toString() {
            return "m" + sizeBits + addressText();
        }
    }

    /**
     * An immediate.
     *
     * @param value      the value, sign-extended when {@code signed}
     * @param sizeBits   encoded size in bits (8, 16, 32 or 64)
     * @param signed     whether Zydis decoded it as signed
     * @param relative   whether it is a branch displacement relative to the next instruction
     * @param visibility explicit or implicit (the {@code 1} of {@code shl rax, 1} is implicit)
     */
    record ImmediateOperand(long value, int sizeBits, boolean signed, boolean relative, Visibility visibility)
            implements Operand {
        public ImmediateOperand {
            Objects.requireNonNull(visibility, "visibility");
        }

        @Override
        public Action action() {
            return Action.READ;
        }

        @Override
        public String toString() {
            return "0x" + Long.toHexString(value);
        }
    }

    /**
     * An address computed but not accessed: the source of {@code lea} (and the MPX {@code mib} form). Its
     * base and index registers are read.
     *
     * @param segment      segment register
     * @param base         base register or {@link Register#NONE}
     * @param index        index register or {@link Register#NONE}
     * @param scale        0 without index, else 1, 2, 4 or 8
     * @param displacement signed displacement
     * @param visibility   explicit in practice
     */
    record AddressOperand(Register segment, Register base, Register index, int scale, long displacement,
                          Visibility visibility) implements Operand {
        public AddressOperand {
            Objects.requireNonNull(segment, "segment");
            Objects.requireNonNull(base, "base");
            Objects.requireNonNull(index, "index");
            Objects.requireNonNull(visibility, "visibility");
        }

        @Override
        public int sizeBits() {
            return 0;
        }

        @Override
        public Action action() {
            return Action.READ;
        }

        /** The address expression in Intel syntax. */
        public String addressText() {
            return Operand.addressText(segment, base, index, scale, displacement);
        }

        @Override
        public String toString() {
            return "agen" + addressText();
        }
    }

    /** Intel-style address text; default segments ({@code ds}, {@code ss}) are left out. */
    private static String addressText(Register segment, Register base, Register index, int scale, long disp) {
        StringBuilder sb = new StringBuilder(24);
        String seg = segment.name();
        if (segment.isPresent() && !seg.equals("ds") && !seg.equals("ss")) {
            sb.append(seg).append(':');
        }
        sb.append('[');
        boolean any = false;
        if (base.isPresent()) {
            sb.append(base.name());
            any = true;
        }
        if (index.isPresent()) {
            if (any) {
                sb.append('+');
            }
            sb.append(index.name()).append('*').append(scale);
            any = true;
        }
        if (disp != 0 || !any) {
            if (disp < 0 && any) {
                sb.append("-0x").append(Long.toHexString(-disp));
            } else {
                if (any) {
                    sb.append('+');
                }
                sb.append("0x").append(Long.toHexString(disp));
            }
        }
        return sb.append(']').toString();
    }
}
