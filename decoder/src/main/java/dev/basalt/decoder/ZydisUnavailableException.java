package dev.basalt.decoder;

/** Thrown when the Zydis 4.0 shared library cannot be loaded; the message says how to install it. */
public final class ZydisUnavailableException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    ZydisUnavailableException(String message) {
        super(message);
    }
}
