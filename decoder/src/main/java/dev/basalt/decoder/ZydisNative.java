package dev.basalt.decoder;

import com.sun.jna.Pointer;

/**
 * The Zydis 4.0 C functions Basalt calls, bound with JNA direct mapping (registered by {@link Zydis}).
 *
 * <p>Pointer arguments are passed as raw {@code long} addresses into memory that Basalt allocated and sized
 * itself: that avoids a {@code Pointer} allocation per call on the decode hot path. Every length passed is
 * the true size of the buffer behind the address, so Zydis never reads or writes past it.
 */
final class ZydisNative {

    private ZydisNative() {
    }

    static native long ZydisGetVersion();

    static native int ZydisDecoderInit(long decoder, int machineMode, int stackWidth);

    static native int ZydisDecoderDecodeFull(long decoder, long buffer, long length, long instruction,
                                             long operands);

    static native int ZydisFormatterInit(long formatter, int style);

    static native int ZydisFormatterSetProperty(long formatter, int property, long value);

    static native int ZydisFormatterFormatInstruction(long formatter, long instruction, long operands,
                                                      byte operandCount, long buffer, long length,
                                                      long runtimeAddress, long userData);

    static native int ZydisEncoderDecodedInstructionToEncoderRequest(long instruction, long operands,
                                                                     byte operandCountVisible, long request);

    static native int ZydisEncoderEncodeInstruction(long request, long buffer, long length);

    static native Pointer ZydisMnemonicGetString(int mnemonic);

    static native Pointer ZydisRegisterGetString(int register);

    static native int ZydisRegisterGetClass(int register);

    static native short ZydisRegisterGetWidth(int machineMode, int register);

    static native int ZydisRegisterGetLargestEnclosing(int machineMode, int register);

    static native Pointer ZydisCategoryGetString(int category);

    static native Pointer ZydisISASetGetString(int isaSet);

    static native Pointer ZydisISAExtGetString(int isaExt);
}
