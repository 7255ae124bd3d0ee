package dev.basalt.decoder;

/** An instruction could not be encoded: Zydis' encoder has no encoding for the requested combination. */
public final class EncodeException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public EncodeException(String message) {
        super(message);
    }
}
