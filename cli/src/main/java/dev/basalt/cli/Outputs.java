package dev.basalt.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Whether a command's output could be written, checked before any work (not after minutes of it): the nearest
 * existing folder at or above where the output goes must be a folder in which a file can be created. The check
 * creates and deletes one empty temporary file there, because permissions do not tell (root may "write" to
 * {@code /proc}, and a read-only mount has writable-looking folders). Nothing else is created.
 */
final class Outputs {

    private Outputs() {
    }

    /** {@code file} (given as {@code option}) can be written: it is no folder, and its folder can hold it. */
    static void checkFile(String option, Path file) {
        if (Files.isDirectory(file)) {
            throw new BadInputException(option + " " + file + " is a folder, not a file");
        }
        Path parent = file.toAbsolutePath().getParent();
        checkFolder(option, file, parent == null ? file.toAbsolutePath() : parent);
    }

    /** {@code dir} (given as {@code option}) is, or can be made, a folder that files can be written to. */
    static void checkFolder(String option, Path dir) {
        checkFolder(option, dir, dir.toAbsolutePath());
    }

    private static void checkFolder(String option, Path given, Path folder) {
        Path at = folder;
        while (at != null && !Files.exists(at)) {
            at = at.getParent();
        }
        if (at == null) {
            return;
        }
        if (!Files.isDirectory(at)) {
            throw new BadInputException(option + " " + given + ": " + at + " is a file, not a folder");
        }
        try {
            Files.delete(Files.createTempFile(at, ".basalt-write-check", ".tmp"));
        } catch (IOException | SecurityException e) {
            throw new BadInputException(option + " " + given + ": cannot write in " + at
                    + (e instanceof java.nio.file.AccessDeniedException ? " (permission denied)"
                    : e instanceof java.nio.file.FileSystemException f && f.getReason() != null
                    ? " (" + f.getReason() + ")" : ""));
        }
    }
}
