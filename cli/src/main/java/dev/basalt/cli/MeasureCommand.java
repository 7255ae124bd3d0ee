package dev.basalt.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.basalt.measure.BlockMeasurement;
import dev.basalt.measure.MeasureConfig;
import dev.basalt.measure.MeasurementFiles;
import dev.basalt.measure.Measurer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * {@code basalt measure}: runs blocks on this machine, BHive's way, and writes BHive's CSV with a per-block CSV and a
 * meta file beside it ({@link Measurer} says how; {@link MeasurementFiles} what is written). It executes the blocks
 * it is given, in a child process.
 */
@Command(name = "measure", mixinStandardHelpOptions = true,
        description = "Measure cycles per iteration of blocks on this machine (BHive's method, in a child process; "
                + "it executes the blocks).")
final class MeasureCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Parameters(arity = "0..*", paramLabel = "BLOCK", description = "Blocks as hex or assembly.")
    List<String> blocks = new ArrayList<>();

    @Mixin
    BlockInput blockInput;

    @Option(names = "--out", required = true, paramLabel = "FILE", description = "BHive CSV to write (hex, cycles "
            + "per 100 iterations); FILE.blocks.csv and FILE.meta.json beside it. A re-run with the same FILE skips "
            + "the blocks it already has.")
    Path out;

    @Option(names = "--format", defaultValue = "text", description = "What to print per block: text, csv or json "
            + "(default ${DEFAULT-VALUE}).")
    String format;

    @Option(names = "--jobs", paramLabel = "N", description = "Blocks measured at once, each child on its own CPU "
            + "(default: every CPU).")
    Integer jobs;

    @Option(names = "--timer", defaultValue = "auto", paramLabel = "TIMER", description = "auto (the core-cycle "
            + "counter where the kernel gives one, else the time-stamp counter calibrated by --clock-chain) or "
            + "tsc (always the calibrated time-stamp counter); default ${DEFAULT-VALUE}.")
    String timer;

    @Option(names = "--tries", paramLabel = "N", description = "Tries per block, each calibrated on its own "
            + "(default 5; up to three times as many while they disagree by more than 2%%, and then, after a "
            + "pause, up to two more such series before the block is called unstable).")
    Integer tries;

    @Option(names = "--time-limit", paramLabel = "SECONDS", description = "Seconds one try of a block may run before "
            + "its child is killed (default 20).")
    Integer timeLimit;

    @Mixin
    ClockOption clockOption;

    @Mixin
    DebugOption debugOption;

    @Override
    public Integer call() throws Exception {
        PrintWriter outText = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        BadInputException.format(format, "text", "csv", "json");
        if (!timer.equals("auto") && !timer.equals("tsc")) {
            throw new BadInputException("unknown --timer '" + timer + "': use auto or tsc");
        }
        BadInputException.atLeast("--jobs", jobs, 1);
        BadInputException.atLeast("--tries", tries, 1);
        BadInputException.atLeast("--time-limit", timeLimit, 1);
        if (!System.getProperty("os.arch", "").matches("amd64|x86_64")
                || !System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux")) {
            throw new java.io.IOException("basalt measure runs on x86-64 Linux only (this is "
                    + System.getProperty("os.name") + " " + System.getProperty("os.arch") + ")");
        }
        Outputs.checkFile("--out", out);
        List<String> inputs = blockInput.blocks(blocks);
        if (inputs.isEmpty()) {
            throw new BadInputException("no blocks: give hex arguments or --input FILE");
        }
        // One row per distinct block: duplicates in the input are measured once.
        List<String> order = new ArrayList<>(new LinkedHashSet<>(inputs.stream().map(Measurer::canonical).toList()));
        MeasureConfig config = MeasureConfig.defaults();
        if (jobs != null) {
            config = config.withJobs(jobs);
        }
        if (tries != null) {
            config = config.withTries(tries, Math.max(tries, 3 * tries));
        }
        if (timeLimit != null) {
            config = config.withTimeLimitSeconds(timeLimit);
        }
        config = clockOption.apply(config.withTscOnly(timer.equals("tsc")));
        String command = "basalt " + String.join(" ", spec.commandLine().getParseResult().originalArgs());
        ObjectMapper mapper = new ObjectMapper();
        ArrayNode json = mapper.createArrayNode();
        MeasurementFiles files = new MeasurementFiles(out);
        try (Measurer measurer = ClockOption.open(config); ProgressBars bars = new ProgressBars(err)) {
            try {
                files.resume(measurer.host(), measurer.method());
            } catch (IllegalStateException e) {
                throw new BadInputException("--out " + e.getMessage());
            }
            Map<String, BlockMeasurement> before = files.finished();
            List<String> todo = order.stream().filter(h -> !before.containsKey(h)).toList();
            err.println("basalt measure: " + measurer.host().describe() + "; timer " + measurer.host().timer()
                    + "; " + config.jobs() + (config.jobs() == 1 ? " child" : " children") + ", seccomp "
                    + measurer.host().seccomp() + "; " + todo.size() + " blocks to measure"
                    + (order.size() > todo.size() ? " (" + (order.size() - todo.size()) + " already in " + out + ")"
                    : ""));
            if (!measurer.timerNote().isEmpty()) {
                err.println("basalt measure: note: " + measurer.timerNote());
            }
            ClockOption.print(err, "basalt measure: ", measurer.clockCheck());
            err.flush();
            files.writeMeta(measurer.host(), measurer.method(), measurer.clockCheck(), command, 0, false,
                    measurer.timerNote());
            files.open();
            if (format.equals("csv")) {
                outText.println(MeasurementFiles.header());
            }
            long start = System.nanoTime();
            measurer.measureAll(todo, m -> {
                try {
                    files.append(m);
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            }, bars);
            double seconds = (System.nanoTime() - start) / 1e9;
            bars.close();
            double rate = todo.isEmpty() ? 0 : todo.size() / seconds;
            files.finish(order);
            files.writeMeta(measurer.host(), measurer.method(), measurer.clockCheck(), command, rate, true,
                    measurer.timerNote());
            Map<String, BlockMeasurement> all = files.finished();
            int[] counts = new int[BlockMeasurement.Status.values().length];
            String firstFailure = null;
            for (String hex : order) {
                BlockMeasurement m = all.get(hex);
                counts[m.status().ordinal()]++;
                if (firstFailure == null && (m.status() == BlockMeasurement.Status.ERROR
                        || m.status() == BlockMeasurement.Status.REFUSED)) {
                    firstFailure = "'" + DecodeCommand.abbreviate(hex) + "': " + m.message();
                }
                switch (format) {
                    case "csv" -> outText.print(csvRow(m));
                    case "json" -> json.add(json(mapper, m));
                    default -> outText.println(text(m));
                }
            }
            if (format.equals("json")) {
                outText.println(dev.basalt.core.ReportJson.pretty(json));
            }
            outText.flush();
            err.println(String.format(Locale.ROOT, "basalt measure: %d blocks: %d ok, %d unstable, %d errors, %d "
                            + "refused; %d measured now in %.1f s (%.1f blocks/s on %d %s); wrote %s, %s, %s",
                    order.size(), counts[0], counts[1], counts[2], counts[3], todo.size(), seconds, rate,
                    config.jobs(), config.jobs() == 1 ? "core" : "cores", out, files.journal(), files.meta()));
            if (firstFailure != null) {
                err.println("basalt measure: " + (counts[2] + counts[3]) + " of " + order.size() + " blocks could not "
                        + "be measured (their rows say why); the first: " + firstFailure);
            }
            err.flush();
            return counts[2] + counts[3] > 0 ? Basalt.EXIT_BAD_INPUT : 0;
        }
    }

    private static String csvRow(BlockMeasurement m) {
        return MeasurementFiles.row(m);
    }

    private static String text(BlockMeasurement m) {
        if (!m.measured()) {
            return m.hex() + "  " + m.status().label() + ": " + m.message();
        }
        return String.format(Locale.ROOT, "%s  %8.3f cycles/iteration  (min %.3f, spread %.1f%%, %d tries, %d "
                        + "pages)%s%s", m.hex(), m.cycles(), m.minCycles(), 100 * m.spread(), m.tries(), m.pages(),
                m.status() == BlockMeasurement.Status.UNSTABLE ? "  unstable" : "",
                m.message().isEmpty() ? "" : "  " + m.message());
    }

    private static ObjectNode json(ObjectMapper mapper, BlockMeasurement m) {
        ObjectNode n = mapper.createObjectNode();
        n.put("hex", m.hex());
        n.put("status", m.status().label());
        if (m.measured()) {
            n.put("cycles_per_iteration", m.cycles());
            n.put("min_cycles", m.minCycles());
            n.put("spread", m.spread());
            n.put("tries", m.tries());
            n.put("unroll_small", m.unrollSmall());
            n.put("unroll_large", m.unrollLarge());
            n.put("repetitions", m.repetitions());
            n.put("ticks_per_cycle", m.ticksPerCycle());
        }
        n.put("pages", m.pages());
        n.put("message", m.message());
        return n;
    }
}
