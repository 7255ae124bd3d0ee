package dev.basalt.cli;

import picocli.CommandLine;

import java.io.PrintWriter;
import picocli.CommandLine.Command;

/**
 * The {@code basalt} command. Each subcommand is its own class; this one only wires them and maps failures
 * to exit codes: 0 success, 1 an internal or environment error (one line, stack trace with {@code --debug}),
 * 2 bad input or bad usage.
 */
@Command(name = "basalt", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = "Throughput of x86-64 basic blocks: decode, predict, simulate, train, evaluate.",
        subcommands = {DecodeCommand.class, DatasetCommand.class, SimulateCommand.class, PredictCommand.class,
            ParamsCommand.class, TrainCommand.class, TuneCommand.class, ExplainCommand.class, EvalCommand.class,
            CommandLine.HelpCommand.class})
public final class Basalt {

    /** Exit code for bad input or usage. */
    static final int EXIT_BAD_INPUT = 2;
    /** Exit code for internal and environment errors. */
    static final int EXIT_ERROR = 1;

    public static void main(String[] args) {
        System.exit(run(args));
    }

    /** Runs the command line and returns its exit code. */
    public static int run(String... args) {
        return run(new PrintWriter(System.out, true), new PrintWriter(System.err, true), args);
    }

    /** Runs the command line with the given output streams and returns its exit code (for tests, embedding). */
    public static int run(PrintWriter out, PrintWriter err, String... args) {
        CommandLine cl = new CommandLine(new Basalt());
        cl.setOut(out);
        cl.setErr(err);
        cl.setExecutionExceptionHandler((e, cmd, parsed) -> {
            boolean debug = parsed.hasMatchedOption("--debug")
                    || parsed.subcommands().stream().anyMatch(p -> p.hasMatchedOption("--debug"));
            cmd.getErr().println(cmd.getCommandSpec().qualifiedName() + ": " + describe(e));
            if (debug) {
                e.printStackTrace(cmd.getErr());
            }
            // Bad user input (an unknown CPU name, an unreadable file) is exit 2, like a usage error.
            return e instanceof IllegalArgumentException || e instanceof BadInputException
                    || e instanceof java.nio.file.NoSuchFileException ? EXIT_BAD_INPUT : EXIT_ERROR;
        });
        return cl.execute(args);
    }

    private static String describe(Throwable e) {
        String m = e.getMessage();
        return m == null ? e.getClass().getSimpleName() : m;
    }
}
