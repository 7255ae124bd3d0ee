package dev.basalt.decoder;

/**
 * Thrown when bytes or hex text are not a decodable basic block. The message names the byte offset and the
 * reason; {@link #byteOffset()} gives the offset to programs.
 */
public final class DecodeException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    private final int byteOffset;

    public DecodeException(int byteOffset, String reason) {
        super("at byte offset " + byteOffset + ": " + reason);
        this.byteOffset = byteOffset;
    }

    /** Offset in the block (in bytes, from 0) where decoding failed. */
    public int byteOffset() {
        return byteOffset;
    }
}
