package dev.basalt.cli;

/** Bad user input found by a command (an unreadable file, say): exit code 2 and one line on stderr. */
final class BadInputException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    BadInputException(String message) {
        super(message);
    }

    /**
     * Builds something from the user's values; the {@link IllegalArgumentException} with which a library
     * rejects one of them becomes bad input naming the options it came from.
     */
    static <T> T check(String options, java.util.function.Supplier<T> make) {
        try {
            return make.get();
        } catch (IllegalArgumentException e) {
            throw new BadInputException(options + ": " + e.getMessage());
        }
    }
}
