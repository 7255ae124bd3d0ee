package dev.basalt.cli;

import picocli.CommandLine.Option;

/** {@code --debug}, mixed into every command: errors print their stack trace after the one-line message. */
final class DebugOption {
    @Option(names = "--debug", description = "Print stack traces of errors.")
    boolean debug;
}
