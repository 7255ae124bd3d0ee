package dev.basalt.datasets;

import java.util.Locale;

/** The three disjoint parts of a data set. */
public enum Split {
    /** Fitted on. */
    TRAIN,
    /** Used for early stopping and model selection. */
    VALIDATION,
    /** Only for the final report. */
    TEST;

    /** Lower-case name, as on the command line and in file names. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Parses {@code train}, {@code validation} (or {@code val}) or {@code test}. */
    public static Split parse(String s) {
        String n = s.trim().toLowerCase(Locale.ROOT);
        return switch (n) {
            case "train" -> TRAIN;
            case "validation", "val", "valid" -> VALIDATION;
            case "test" -> TEST;
            default -> throw new IllegalArgumentException("unknown split '" + s + "': use train, validation or test");
        };
    }
}
