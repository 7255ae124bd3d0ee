package dev.basalt.cli;

/** Bad user input found by a command (an unreadable file, say): exit code 2 and one line on stderr. */
final class BadInputException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    BadInputException(String message) {
        super(message);
    }
}
