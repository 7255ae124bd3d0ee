package dev.basalt.decoder;

/**
 * The one Zydis function on the decoding hot path, {@code ZydisDecoderDecodeFull}, behind the binding that
 * calls it. JNA ({@link ZydisNative}) always works; the JDK's foreign-function API (incubating in Java 17) makes
 * the same call about ten times cheaper (~25 ns against ~350 ns here) when the JVM runs with
 * {@code --add-modules jdk.incubator.foreign --enable-native-access=ALL-UNNAMED}. Pointers are raw addresses
 * of buffers Basalt allocated and sized itself.
 */
interface NativeCalls {

    /** {@code ZydisDecoderDecodeFull(decoder, buffer, length, instruction, operands)}: a ZyanStatus. */
    int decodeFull(long decoder, long buffer, long length, long instruction, long operands);

    /** Copies {@code bytes[0, length)} to the native buffer {@code memory}, whose address is {@code address}. */
    void copyIn(byte[] bytes, int length, long address, com.sun.jna.Memory memory);

    /** Which binding this is ("jna" or "panama"), for logs and benchmarks. */
    String name();

    /** Through JNA direct mapping. */
    final class Jna implements NativeCalls {
        @Override
        public int decodeFull(long decoder, long buffer, long length, long instruction, long operands) {
            return ZydisNative.ZydisDecoderDecodeFull(decoder, buffer, length, instruction, operands);
        }

        @Override
        public void copyIn(byte[] bytes, int length, long address, com.sun.jna.Memory memory) {
            memory.write(0, bytes, 0, length);
        }

        @Override
        public String name() {
            return "jna";
        }
    }
}
