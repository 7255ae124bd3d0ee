package dev.basalt.cli;

import picocli.CommandLine.Option;

/**
 * {@code --debug} and {@code --verbose}, mixed into every command: errors print their stack trace after the
 * one-line message; the libraries' log messages (DJL, warnings and above by default, errors for DJL) show from
 * the info level. {@code --verbose} acts in {@link Basalt#run} before any logger exists: SLF4J's simple logger
 * reads its levels once.
 */
final class DebugOption {
    @Option(names = "--debug", description = "Print stack traces of errors.")
    boolean debug;

    @Option(names = "--verbose", description = "Show the libraries' log messages (DJL, PyTorch) on stderr.")
    boolean verbose;
}
