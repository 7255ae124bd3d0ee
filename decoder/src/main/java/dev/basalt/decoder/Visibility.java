package dev.basalt.decoder;

/** Whether an operand appears in the instruction's text and encoding (Zydis' operand visibility). */
public enum Visibility {
    /** Encoded in the instruction and printed ({@code rax} in {@code add rax, rbx}). */
    EXPLICIT,
    /** Not encoded but printed ({@code cl} in {@code shl rax, cl}, the memory operands of {@code movsb}). */
    IMPLICIT,
    /** Neither encoded nor printed ({@code rdx} written by {@code mul}, {@code rsp} of {@code push}). */
    HIDDEN;

    static Visibility ofNative(int value) {
        return switch (value) {
            case 1 -> EXPLICIT;
            case 2 -> IMPLICIT;
            default -> HIDDEN;
        };
    }

    /** True for operands that show in Intel syntax (explicit and implicit). */
    public boolean isVisible() {
        return this != HIDDEN;
    }
}
