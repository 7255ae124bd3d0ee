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

    /** A size option (when given) below its least accepted value: bad input naming the option and the range. */
    static void atLeast(String option, Integer value, int least) {
        if (value != null && value < least) {
            throw new BadInputException(option + " must be at least " + least + ", got " + value);
        }
    }

    /** A rate option (when given) that is not a finite positive number: bad input naming the option. */
    static void positive(String option, Double value) {
        if (value != null && (!(value > 0) || value.isInfinite())) {
            throw new BadInputException(option + " must be a positive number, got " + value);
        }
    }

    /** A {@code --format} value this command does not print: bad input listing the ones it does. */
    static void format(String value, String... accepted) {
        if (!java.util.List.of(accepted).contains(value)) {
            String last = accepted[accepted.length - 1];
            String rest = String.join(", ", java.util.Arrays.copyOf(accepted, accepted.length - 1));
            throw new BadInputException("unknown --format '" + value + "': use " + rest + " or " + last);
        }
    }
}
