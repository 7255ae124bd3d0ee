package dev.basalt.cli;

import dev.basalt.core.EstimatorUnavailableException;
import dev.basalt.core.Microarchitecture;
import dev.basalt.decoder.DecodeException;
import dev.basalt.decoder.ZydisUnavailableException;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.util.List;
import picocli.CommandLine.Command;

/**
 * The {@code basalt} command. Each subcommand is its own class; this one only wires them and maps failures
 * to exit codes: 0 success; 2 bad user input — a usage error, a {@link BadInputException} (a command's check
 * of what it was given) or a {@link DecodeException} (bytes the user gave that are not x86-64); 1 anything
 * else, which is an internal or environment error, never the user's (one line; {@code --debug}, a
 * {@link DebugOption} every command mixes in, adds the stack trace). CPU names convert in one place
 * ({@link Microarchitecture#parse}), so a bad {@code --mcpu} is a usage error naming the option.
 */
@Command(name = "basalt", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = "Throughput of x86-64 basic blocks: decode, predict, simulate, train, evaluate.",
        subcommands = {DecodeCommand.class, DatasetCommand.class, SimulateCommand.class, PredictCommand.class,
            AnalyzeCommand.class,
            ParamsCommand.class, TrainCommand.class, TuneCommand.class, ExplainCommand.class, EvalCommand.class,
            MeasureCommand.class, CalibrateCommand.class, ServeCommand.class, McaCommand.class,
            CommandLine.HelpCommand.class})
public final class Basalt {

    /** Exit code for bad input or usage. */
    static final int EXIT_BAD_INPUT = 2;
    /** Exit code for internal and environment errors. */
    static final int EXIT_ERROR = 1;

    public static void main(String[] args) {
        System.exit(run(args));
    }

    /**
     * The top-level help's footer: {@code basalt bulk}, then every CPU with what backs it (Basalt's own
     * measurements, BHive's, or llvm-mca's tables only), from the CPU descriptors.
     */
    private static String[] footer() {
        List<String> lines = new java.util.ArrayList<>(List.of("", "  bulk      Predict many blocks on Apache Spark "
                + "(basalt bulk --help).", "", "CPUs (--mcpu; name, aliases, what backs it):"));
        int name = Microarchitecture.all().stream().mapToInt(m -> m.llvmName().length()).max().orElse(10);
        int aliases = Microarchitecture.all().stream().mapToInt(m -> String.join(", ", m.descriptor().aliases())
                .length()).max().orElse(14);
        for (Microarchitecture m : Microarchitecture.all()) {
            lines.add(String.format(java.util.Locale.ROOT, "  %-" + name + "s %-" + aliases + "s %s: %s",
                    m.llvmName(), String.join(", ", m.descriptor().aliases()), m.descriptor().description(),
                    m.evidence()));
        }
        return lines.toArray(String[]::new);
    }

    /** Runs the command line and returns its exit code. */
    public static int run(String... args) {
        return run(new PrintWriter(System.out, true), new PrintWriter(System.err, true), args);
    }

    /** The command line as {@code basalt} runs it: its commands, options and help (the manual pages are made of it). */
    static CommandLine commandLine() {
        CommandLine cl = new CommandLine(new Basalt());
        cl.getCommandSpec().usageMessage().footer(footer());
        // basalt mca reads llvm-mca's command line itself (McaArguments): picocli passes it through whole.
        cl.getSubcommands().get("mca").setUnmatchedOptionsArePositionalParams(true);
        return cl;
    }

    /** Runs the command line with the given output streams and returns its exit code (for tests, embedding). */
    public static int run(PrintWriter out, PrintWriter err, String... args) {
        if (java.util.Arrays.asList(args).contains("--verbose")) {
            // System properties win over simplelogger.properties, which keeps the default quiet.
            System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "info");
            System.setProperty("org.slf4j.simpleLogger.log.ai.djl", "info");
        }
        CommandLine cl = commandLine();
        cl.setOut(out);
        cl.setErr(err);
        java.util.concurrent.atomic.AtomicBoolean saidHost = new java.util.concurrent.atomic.AtomicBoolean();
        cl.registerConverter(Microarchitecture.class, name -> {
            // Options that take a list split at commas before converting; a comma here is a list given to a
            // one-CPU option.
            if (name.contains(",")) {
                throw new CommandLine.TypeConversionException("'" + name + "' is a list, but this command takes one "
                        + "CPU (run it once per CPU)");
            }
            if (name.trim().equalsIgnoreCase("host")) {
                return host(err, saidHost);
            }
            try {
                return Microarchitecture.parse(name);
            } catch (IllegalArgumentException e) {
                throw new CommandLine.TypeConversionException(e.getMessage() + ", or host");
            }
        });
        // A usage error is one line naming the command and the option, and where to read more (not the help).
        cl.setParameterExceptionHandler((e, args1) -> {
            CommandLine cmd = e.getCommandLine();
            cmd.getErr().println(cmd.getCommandSpec().qualifiedName() + ": " + e.getMessage());
            cmd.getErr().println("(" + cmd.getCommandSpec().qualifiedName() + " --help lists the options)");
            return EXIT_BAD_INPUT;
        });
        cl.setExecutionExceptionHandler((e, cmd, parsed) -> {
            boolean debug = parsed.hasMatchedOption("--debug")
                    || parsed.subcommands().stream().anyMatch(p -> p.hasMatchedOption("--debug"));
            boolean user = e instanceof BadInputException || e instanceof DecodeException;
            // Environment errors (a missing library or tool, an unreadable file) are not bugs; anything else is.
            boolean environment = e instanceof ZydisUnavailableException || e instanceof EstimatorUnavailableException
                    || e instanceof java.io.IOException || e instanceof java.io.UncheckedIOException;
            cmd.getErr().println(cmd.getCommandSpec().qualifiedName() + ": "
                    + (user || environment ? "" : "internal error: ")
                    + describe(e) + (user || debug ? "" : " (--debug prints the stack trace)"));
            if (debug) {
                e.printStackTrace(cmd.getErr());
            }
            return user ? EXIT_BAD_INPUT : EXIT_ERROR;
        });
        if (args.length > 0 && !args[0].startsWith("-") && !cl.getSubcommands().containsKey(args[0])) {
            // An unknown command is a usage error, with the nearest ones (picocli would print the general help and
            // exit 0 when --help follows it)
            List<String> near = cl.getSubcommands().keySet().stream().filter(c -> typo(args[0], c)).sorted().toList();
            err.println("basalt: unknown command '" + args[0] + "'" + (near.isEmpty() ? ""
                    : "; did you mean " + String.join(" or ", near.subList(0, Math.min(3, near.size()))) + "?"));
            err.println("(basalt --help lists the commands)");
            err.flush();
            return EXIT_BAD_INPUT;
        }
        return cl.execute(args);
    }

    /**
     * {@code --mcpu host}: the shipped CPU closest to this machine's (from {@code /proc/cpuinfo}: vendor, family,
     * model, flags; as {@code basalt calibrate} chooses), said once on stderr with what backs it.
     */
    private static Microarchitecture host(PrintWriter err, java.util.concurrent.atomic.AtomicBoolean said) {
        dev.basalt.measure.HostCpu cpu = HostCpuInfo.read().orElseThrow(() -> new CommandLine.TypeConversionException(
                "host: /proc/cpuinfo does not say which CPU this is; name one"));
        Microarchitecture m = CalibrateCommand.closest(cpu);
        if (!said.getAndSet(true)) {
            boolean measuredHere = m.descriptor().measured().orElse("").equals(CalibrateCommand.folderOf(cpu));
            err.println("basalt: --mcpu host: this machine is " + cpu.describe() + "; " + (measuredHere
                    ? m.llvmName() + " was measured by Basalt on this CPU"
                    : "it runs as " + m.llvmName() + ", the closest shipped CPU (" + m.evidence() + "); `basalt "
                    + "calibrate` measures this machine and tunes a table to it"));
            err.flush();
        }
        return m;
    }

    /**
     * Whether {@code typed} is {@code command} mistyped: at most two edits (a letter left out, added, changed, or two
     * swapped) for a word of four letters or more, one for a shorter one.
     */
    static boolean typo(String typed, String command) {
        int n = typed.length();
        int m = command.length();
        int[][] d = new int[n + 1][m + 1];
        for (int i = 0; i <= n; i++) {
            for (int j = 0; j <= m; j++) {
                if (i == 0 || j == 0) {
                    d[i][j] = i + j;
                    continue;
                }
                int change = typed.charAt(i - 1) == command.charAt(j - 1) ? 0 : 1;
                d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + change);
                if (i > 1 && j > 1 && typed.charAt(i - 1) == command.charAt(j - 2)
                        && typed.charAt(i - 2) == command.charAt(j - 1)) {
                    d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
                }
            }
        }
        return d[n][m] <= (Math.min(n, m) >= 4 ? 2 : 1);
    }

    private static String describe(Throwable e) {
        String m = e.getMessage();
        return m == null ? e.getClass().getSimpleName() : m;
    }
}
