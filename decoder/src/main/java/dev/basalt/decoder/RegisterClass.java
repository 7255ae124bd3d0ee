package dev.basalt.decoder;

/** Register classes, in Zydis 4.0's {@code ZydisRegisterClass} order (the ordinal is the native value). */
public enum RegisterClass {
    /** No register ({@link Register#NONE}). */
    INVALID,
    /** 8-bit general purpose registers, including the high-byte registers {@code ah..bh}. */
    GPR8,
    /** 16-bit general purpose registers. */
    GPR16,
    /** 32-bit general purpose registers (a write zero-extends into the 64-bit register). */
    GPR32,
    /** 64-bit general purpose registers. */
    GPR64,
    /** x87 stack registers {@code st0..st7}. */
    X87,
    /** MMX registers. */
    MMX,
    /** 128-bit vector registers. */
    XMM,
    /** 256-bit vector registers. */
    YMM,
    /** 512-bit vector registers. */
    ZMM,
    /** AMX tile registers. */
    TMM,
    /** The flags register in its 16/32/64-bit forms. */
    FLAGS,
    /** The instruction pointer in its 16/32/64-bit forms. */
    IP,
    /** Segment registers. */
    SEGMENT,
    /** Descriptor table registers. */
    TABLE,
    /** Test registers. */
    TEST,
    /** Control registers. */
    CONTROL,
    /** Debug registers. */
    DEBUG,
    /** AVX-512 opmask registers {@code k0..k7}. */
    MASK,
    /** MPX bound registers. */
    BOUND,
    /** Registers Zydis puts in no class (MXCSR, x87 control/status, ...). */
    OTHER;

    static RegisterClass ofNative(int value) {
        RegisterClass[] all = values();
        return value >= 0 && value < OTHER.ordinal() ? all[value] : OTHER;
    }

    /** True for the general purpose register classes. */
    public boolean isGpr() {
        return this == GPR8 || this == GPR16 || this == GPR32 || this == GPR64;
    }

    /** True for XMM, YMM and ZMM. */
    public boolean isVector() {
        return this == XMM || this == YMM || this == ZMM;
    }
}
