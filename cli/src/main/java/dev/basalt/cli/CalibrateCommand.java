package dev.basalt.cli;

import dev.basalt.core.Microarchitecture;
import dev.basalt.core.Provenance;
import dev.basalt.datasets.Dataset;
import dev.basalt.datasets.LabelledBlock;
import dev.basalt.datasets.Metrics;
import dev.basalt.datasets.Split;
import dev.basalt.datasets.SplitScheme;
import dev.basalt.decoder.BasicBlock;
import dev.basalt.difftune.MachineSearch;
import dev.basalt.difftune.SimulatorRefiner;
import dev.basalt.difftune.SurrogateConfig;
import dev.basalt.difftune.Tuner;
import dev.basalt.measure.BlockMeasurement;
import dev.basalt.measure.ClockCheck;
import dev.basalt.measure.HostCpu;
import dev.basalt.measure.MeasureConfig;
import dev.basalt.measure.MeasurementFiles;
import dev.basalt.measure.Measurer;
import dev.basalt.simulator.params.SimulatorParams;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * {@code basalt calibrate}: a simulator table for the machine it runs on. It identifies the host CPU, starts from
 * the closest CPU Basalt ships, measures a seeded sample of real-code blocks (BHive's, from the bundled data) with
 * {@code basalt measure}'s harness, measures part of the held-out sample again for the noise floor, tunes the start
 * table on the training part (DiffTune, as {@code basalt tune}), and writes the table with a report of its held-out
 * accuracy before and after. Every step resumes: the measurements are journalled, the tuner keeps its samples.
 */
@Command(name = "calibrate", mixinStandardHelpOptions = true,
        description = "Fit a simulator table to this machine: identify the CPU, measure a sample of real-code blocks "
                + "here (it executes them, in a child process), tune the closest shipped CPU's table to them, and "
                + "report held-out accuracy before and after. Re-running with the same --out resumes.")
final class CalibrateCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--out", required = true, paramLabel = "DIR", description = "Folder for the measurements, the "
            + "tuner's work, the table (<cpu>-calibrated.json) and report.md.")
    Path out;

    @Option(names = "--blocks", defaultValue = "3000", paramLabel = "N", description = "Blocks to measure (default "
            + "${DEFAULT-VALUE}; BHive's hash split makes about a tenth of them held out).")
    int blocks;

    @Option(names = "--from", paramLabel = "CPU", description = "Shipped CPU whose table to start from (default: the "
            + "closest to this host).")
    Microarchitecture from;

    @Option(names = "--untuned", description = "Start from the CPU's imported (untuned) table instead of its "
            + "tuned one.")
    boolean untuned;

    @Option(names = "--noise-blocks", defaultValue = "300", paramLabel = "N", description = "Held-out blocks measured "
            + "a second time for the noise floor (default ${DEFAULT-VALUE}).")
    int noiseBlocks;

    @Option(names = "--samples", defaultValue = "20000", paramLabel = "N", description = "Simulated samples for "
            + "the tuner's surrogate (default ${DEFAULT-VALUE}).")
    int samples;

    @Option(names = "--passes", defaultValue = "6", paramLabel = "N", description = "Real-simulator refinement "
            + "passes (default ${DEFAULT-VALUE}).")
    int passes;

    @Option(names = "--seed", defaultValue = "1", description = "Seed of the block sample and the tuner "
            + "(default ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--jobs", paramLabel = "N", description = "Blocks measured at once (default: every CPU).")
    Integer jobs;

    @Option(names = "--keep-machine", description = "Tune the start table's rows only, on its own machine (no search "
            + "of widths, ports, fetch, eliminations, forwarding and reorder buffer first).")
    boolean keepMachine;

    @Option(names = "--measurements", paramLabel = "FILE", description = "Fit to blocks measured already — a BHive "
            + "CSV as basalt measure writes it, its FILE.meta.json beside it naming the host — instead of measuring "
            + "here: nothing is executed, so it runs on any machine. --blocks of them are used (a seeded sample).")
    Path measurements;

    @Mixin
    ClockOption clockOption;

    @Mixin
    DebugOption debugOption;

    @Override
    public Integer call() throws Exception {
        PrintWriter o = spec.commandLine().getOut();
        BadInputException.atLeast("--blocks", blocks, 100);
        BadInputException.atLeast("--noise-blocks", noiseBlocks, 0);
        BadInputException.atLeast("--samples", samples, 1000);
        BadInputException.atLeast("--passes", passes, 0);
        BadInputException.atLeast("--jobs", jobs, 1);
        if (measurements == null && (!System.getProperty("os.arch", "").matches("amd64|x86_64")
                || !System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux"))) {
            throw new IOException("basalt calibrate measures on x86-64 Linux only (this is "
                    + System.getProperty("os.name") + " " + System.getProperty("os.arch") + "); --measurements FILE "
                    + "fits to blocks measured elsewhere");
        }
        Outputs.checkFolder("--out", out);
        MeasureConfig config = clockOption.apply(MeasureConfig.defaults());
        Given given = measurements == null ? null : given(measurements, blocks, seed); // bad input before any file
        Files.createDirectories(out);
        long t0 = System.nanoTime();
        if (jobs != null) {
            config = config.withJobs(jobs);
        }
        String command = "basalt " + String.join(" ", spec.commandLine().getParseResult().originalArgs());
        SplitScheme scheme = SplitScheme.defaults();
        Map<String, BlockMeasurement> measured;
        Map<String, BlockMeasurement> again;
        HostCpu host;
        Microarchitecture start;
        List<String> sample;
        if (given != null) {
            sample = given.sample();
            measured = given.measured();
            again = Map.of();
            host = given.host();
            start = from != null ? from : closest(host);
            o.printf("host: %s, as %s says; no block is executed%n", host.describe(), given.meta().getFileName());
            o.printf("start: %s (%s)%s%n", start.llvmName(), start.descriptor().description(),
                    from != null ? ", as --from asks" : closestWhy(host, start));
            o.printf("%d of the %d blocks of %s%n", sample.size(), given.total(), measurements);
            o.flush();
        } else {
            sample = sample(blocks, seed);
            try (Measurer measurer = open(config, command); ProgressBars bars = new ProgressBars(spec.commandLine()
                    .getErr())) {
                host = measurer.host();
                start = from != null ? from : closest(host);
                o.printf("host: %s; timer %s%n", host.describe(), host.timer());
                ClockOption.print(o, "", measurer.clockCheck());
                o.printf("start: %s (%s)%s%n", start.llvmName(), start.descriptor().description(),
                        from != null ? ", as --from asks" : closestWhy(host, start));
                o.flush();
                Map<String, BlockMeasurement> here = measure(measurer, sample, out.resolve("measurements.csv"),
                        command, bars);
                measured = here;
                List<String> heldOut = sample.stream().filter(h -> scheme.of(h) == Split.TEST
                        && here.get(h).status() == BlockMeasurement.Status.OK).limit(noiseBlocks).toList();
                again = heldOut.isEmpty() ? Map.of()
                        : measure(measurer, heldOut, out.resolve("noise.csv"), command, bars);
            }
        }
        double[] noise = noise(measured, again);
        List<LabelledBlock> train = new ArrayList<>();
        List<LabelledBlock> validation = new ArrayList<>();
        List<LabelledBlock> test = new ArrayList<>();
        for (String hex : sample) {
            BlockMeasurement m = measured.get(hex);
            if (m == null || m.status() != BlockMeasurement.Status.OK) {
                continue;
            }
            LabelledBlock b = new LabelledBlock(BasicBlock.fromHex(hex), Map.of(start, m.cycles()));
            switch (scheme.of(hex)) {
                case TRAIN -> train.add(b);
                case VALIDATION -> validation.add(b);
                default -> test.add(b);
            }
        }
        if (train.isEmpty() || validation.isEmpty() || test.isEmpty()) {
            throw new BadInputException("--blocks " + blocks + ": too few blocks measured to tune and hold out ("
                    + train.size() + " training, " + validation.size() + " validation, " + test.size() + " test)");
        }
        SimulatorParams initial = untuned ? SimulatorParams.bundled(start) : SimulatorParams.standard(start);
        MachineSearch.Result machine = null;
        Microarchitecture labelled = start;
        double startHeldOut = dev.basalt.datasets.Metrics.mape(dev.basalt.difftune.SimulatorRefiner.simulate(initial,
                test.stream().map(LabelledBlock::block).toList(), dev.basalt.simulator.Simulator.Options.defaults()),
                test.stream().mapToDouble(b -> b.throughput(labelled).getAsDouble()).toArray());
        if (!keepMachine) {
            Microarchitecture cpu = start;
            o.printf("searching the machine of %s's table on %d training blocks (validation %d)%n", start.llvmName(),
                    Math.min(MACHINE_BLOCKS, train.size()), validation.size());
            o.flush();
            machine = MachineSearch.search(initial, train.stream().map(LabelledBlock::block).toList(),
                    train.stream().mapToDouble(b -> b.throughput(cpu).getAsDouble()).toArray(),
                    validation.stream().map(LabelledBlock::block).toList(),
                    validation.stream().mapToDouble(b -> b.throughput(cpu).getAsDouble()).toArray(), MACHINE_BLOCKS,
                    dev.basalt.simulator.Simulator.Options.defaults(), line -> {
                        o.println("  " + line);
                        o.flush();
                    });
            initial = machine.table();
        }
        Tuner.Config defaults = Tuner.Config.defaults();
        SurrogateConfig s = defaults.surrogate();
        Tuner.Config tuning = new Tuner.Config(samples, Math.max(500, samples / 10), seed,
                new SurrogateConfig(s.embedding(), s.hidden(), s.learningRate(), s.epochs(), s.batchInstructions(),
                        s.clipNorm(), s.patience(), s.seed()),
                defaults.learner(), new SimulatorRefiner.Settings(passes, defaults.refiner().minBlocks(),
                defaults.refiner().minGain(), defaults.refiner().shrinkage()));
        o.printf("tuning %s's %s table on %d blocks measured %s (validation %d, held out %d)%n", start.llvmName(),
                untuned ? "imported" : "shipped", train.size(), measurements == null ? "here" : "in " + measurements,
                validation.size(), test.size());
        o.flush();
        Tuner.Report report;
        try (ProgressBars bars = new ProgressBars(o)) {
            report = Tuner.tune(start, initial, train.stream().map(LabelledBlock::block).toList(), train, validation,
                    test, tuning, out.resolve("tune-work"), bars);
        }
        Tuner.Stage first = report.stages().get(0);
        Tuner.Stage chosen = report.stages().stream()
                .filter(st -> st.name().equals(report.tuned().provenance().detail("stage").orElse(null)))
                .findFirst().orElse(report.stages().get(report.stages().size() - 1));
        double minutes = (System.nanoTime() - t0) / 60e9;
        Path table = out.resolve(start.llvmName() + "-calibrated.json");
        Provenance provenance = Provenance.now("simulator-table", command)
                .withSeed(seed)
                .with("host", host.describe())
                .with("timer", host.timer())
                .with("blocksMeasured", measured.values().stream().filter(BlockMeasurement::measured).count())
                .with("noiseFloorMape", noise[0])
                .with("heldOutMapeBefore", startHeldOut)
                .with("heldOutMapeOnMachineFound", first.testMape())
                .with("heldOutMapeAfter", chosen.testMape())
                .with("startTable", (untuned ? "imported " : "shipped ") + start.llvmName())
                .with("machine", machine == null ? "the start table's (--keep-machine)" : machine.choices().toString())
                .with("calibrationMinutes", minutes);
        for (Map.Entry<String, Object> d : report.tuned().provenance().details().entrySet()) {
            provenance = provenance.with(d.getKey(), d.getValue());
        }
        report.tuned().withProvenance(provenance).write(table);
        String md = report(host, start, measured, train.size(), validation.size(), test.size(), noise, first, chosen,
                report, minutes, command, table, machine, startHeldOut);
        dev.basalt.core.AtomicFiles.writeString(out.resolve("report.md"), md);
        o.println();
        o.print(md);
        o.flush();
        return 0;
    }

    /** Training blocks the machine search simulates for each candidate. */
    private static final int MACHINE_BLOCKS = 2000;

    /** Blocks measured elsewhere: the seeded sample of them, as measurements, and the host their meta names. */
    private record Given(List<String> sample, Map<String, BlockMeasurement> measured, HostCpu host, Path meta,
                         int total) {
    }

    /**
     * {@code file} (a BHive CSV of basalt measure, its meta beside it) as calibrate's measurements: up to {@code n}
     * of its blocks, ordered by SHA-256 of seed and hex as {@link #sample} orders the bundled ones.
     */
    static Given given(Path file, int n, long seed) throws IOException {
        Path meta = Path.of(file + ".meta.json");
        if (!Files.isRegularFile(meta)) {
            throw new BadInputException("--measurements " + file + ": no " + meta.getFileName() + " beside it (the "
                    + "host the blocks were measured on: basalt measure writes it)");
        }
        HostCpu host;
        try {
            com.fasterxml.jackson.databind.JsonNode root = new com.fasterxml.jackson.databind.ObjectMapper()
                    .readTree(meta.toFile());
            host = new com.fasterxml.jackson.databind.ObjectMapper().treeToValue(root.get("host"), HostCpu.class);
        } catch (IOException | IllegalArgumentException | NullPointerException e) {
            throw new BadInputException("--measurements " + meta + ": not the meta file of basalt measure ("
                    + e.getMessage() + ")");
        }
        if (host == null) {
            throw new BadInputException("--measurements " + meta + ": it names no host");
        }
        dev.basalt.datasets.BlockFiles.Loaded loaded;
        try {
            loaded = dev.basalt.datasets.BlockFiles.readLabelled(file, Microarchitecture.SKYLAKE);
        } catch (java.io.UncheckedIOException | IllegalArgumentException e) {
            throw new BadInputException("--measurements " + file + ": " + e.getMessage());
        }
        Map<String, Double> cycles = new LinkedHashMap<>();
        for (LabelledBlock b : loaded.blocks()) {
            cycles.putIfAbsent(b.hex(), b.throughput(Microarchitecture.SKYLAKE).getAsDouble());
        }
        if (cycles.isEmpty()) {
            throw new BadInputException("--measurements " + file + ": no measured block in it");
        }
        List<String> sample = seeded(new ArrayList<>(cycles.keySet()), n, seed);
        Map<String, BlockMeasurement> measured = new LinkedHashMap<>();
        for (String h : sample) {
            double c = cycles.get(h);
            measured.put(h, new BlockMeasurement(h, BlockMeasurement.Status.OK, c, c, 0, 1, 0, 0, 0, 0, Double.NaN,
                    "measured elsewhere"));
        }
        return new Given(sample, measured, host, meta, cycles.size());
    }

    /**
     * The measurer, once its clock check passed. When it fails, the folder gets only {@code calibrate.log}, saying
     * why, and the command exits 1: nothing was measured, so nothing else is written.
     */
    private Measurer open(MeasureConfig config, String command) throws IOException {
        try {
            return ClockOption.open(config);
        } catch (ClockCheck.Refused e) {
            dev.basalt.core.AtomicFiles.writeString(out.resolve("calibrate.log"), java.time.Instant.now() + " "
                    + command + "\n" + e.getMessage() + "\n");
            throw e;
        }
    }

    /**
     * The closest shipped CPU: the one Basalt measured on this very CPU (vendor, family, model), else by vendor and
     * family (AMD family 26 is Zen 5, family 25 Zen 3 or, from model 0x10, Zen 4; Intel's cores with SERIALIZE are
     * Golden Cove or later, Granite Rapids' family; older ones by model), else Skylake.
     */
    static Microarchitecture closest(HostCpu host) {
        String folder = folderOf(host);
        for (Microarchitecture m : Microarchitecture.hostMeasured()) {
            if (m.descriptor().measured().orElse("").equals(folder)) {
                return m;
            }
        }
        if (host.vendor().equals("AuthenticAMD")) {
            if (host.family() >= 26) {
                return Microarchitecture.parse("znver5");
            }
            if (host.family() == 25) {
                return Microarchitecture.parse(host.model() >= 0x10 ? "znver4" : "znver3");
            }
            return Microarchitecture.parse("znver3");
        }
        if (host.vendor().equals("GenuineIntel") && host.family() == 6 && host.features().contains("serialize")) {
            // Golden Cove and later (Alder Lake, Sapphire Rapids and their successors) introduced SERIALIZE; a
            // hypervisor may report another model number (the Xeon 6 of Basalt's data set says 167, Rocket Lake's).
            return Microarchitecture.parse("graniterapids");
        }
        if (host.vendor().equals("GenuineIntel") && host.family() == 6) {
            return switch (host.model()) {
                case 0x3a, 0x3e, 0x2a, 0x2d -> Microarchitecture.IVYBRIDGE;
                case 0x3c, 0x3f, 0x45, 0x46, 0x3d, 0x47, 0x4f, 0x56 -> Microarchitecture.HASWELL;
                default -> Microarchitecture.SKYLAKE;
            };
        }
        return Microarchitecture.SKYLAKE;
    }

    /** The folder name Basalt's measured data sets use for a CPU: {@code amd-family26-model2}. */
    static String folderOf(HostCpu host) {
        String vendor = switch (host.vendor()) {
            case "AuthenticAMD" -> "amd";
            case "GenuineIntel" -> "intel";
            default -> host.vendor().toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]", "");
        };
        return vendor + "-family" + host.family() + "-model" + host.model();
    }

    private static String closestWhy(HostCpu host, Microarchitecture start) {
        return start.descriptor().measured().orElse("").equals(folderOf(host))
                ? ", measured by Basalt on this CPU (" + folderOf(host) + ")"
                : ", the closest shipped CPU to " + folderOf(host) + " (" + start.evidence() + ")";
    }

    /**
     * A seeded sample of {@code n} distinct real-code blocks: the bundled BHive blocks, ordered by SHA-256 of seed
     * and hex, the first {@code n}.
     */
    static List<String> sample(int n, long seed) {
        return seeded(new ArrayList<>(Dataset.bundled().blocks().stream().map(LabelledBlock::hex).toList()), n, seed);
    }

    /** The first {@code n} of {@code hexes} ordered by SHA-256 of seed and hex. */
    private static List<String> seeded(List<String> hexes, int n, long seed) {
        Map<String, String> key = new LinkedHashMap<>();
        try {
            MessageDigest md = MessageDigest.getInstance("SHA-256");
            for (String h : hexes) {
                key.put(h, HexFormat.of().formatHex(md.digest((seed + ":" + h).getBytes(StandardCharsets.US_ASCII))));
            }
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        hexes.sort(Comparator.comparing(key::get));
        return List.copyOf(hexes.subList(0, Math.min(n, hexes.size())));
    }

    /** Measures {@code hexes} into {@code file} (resuming what it already holds), as {@code basalt measure} does. */
    private static Map<String, BlockMeasurement> measure(Measurer measurer, List<String> hexes, Path file,
                                                         String command, ProgressBars bars) throws IOException {
        MeasurementFiles files = new MeasurementFiles(file);
        try {
            files.resume(measurer.host(), measurer.method());
        } catch (IllegalStateException e) {
            throw new BadInputException("--out " + e.getMessage());
        }
        Map<String, BlockMeasurement> before = files.finished();
        List<String> todo = hexes.stream().filter(h -> !before.containsKey(h)).toList();
        files.writeMeta(measurer.host(), measurer.method(), measurer.clockCheck(), command, 0, false,
                measurer.timerNote());
        files.open();
        long t0 = System.nanoTime();
        measurer.measureAll(todo, m -> {
            try {
                files.append(m);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }, bars);
        double seconds = (System.nanoTime() - t0) / 1e9;
        files.finish(hexes);
        files.writeMeta(measurer.host(), measurer.method(), measurer.clockCheck(), command,
                todo.isEmpty() ? 0 : todo.size() / seconds, true, measurer.timerNote());
        return files.finished();
    }

    /** MAPE between the two measurements of the blocks measured twice, and how many there were. */
    private static double[] noise(Map<String, BlockMeasurement> first, Map<String, BlockMeasurement> second) {
        List<Double> a = new ArrayList<>();
        List<Double> b = new ArrayList<>();
        for (Map.Entry<String, BlockMeasurement> e : second.entrySet()) {
            BlockMeasurement m = first.get(e.getKey());
            if (m != null && m.status() == BlockMeasurement.Status.OK
                    && e.getValue().status() == BlockMeasurement.Status.OK) {
                a.add(e.getValue().cycles());
                b.add(m.cycles());
            }
        }
        if (a.isEmpty()) {
            return new double[] {Double.NaN, 0};
        }
        return new double[] {Metrics.mape(a.stream().mapToDouble(Double::doubleValue).toArray(),
                b.stream().mapToDouble(Double::doubleValue).toArray()), a.size()};
    }

    private static String report(HostCpu host, Microarchitecture start, Map<String, BlockMeasurement> measured,
                                 int train, int validation, int test, double[] noise, Tuner.Stage first,
                                 Tuner.Stage chosen, Tuner.Report report, double minutes, String command, Path table,
                                 MachineSearch.Result machine, double startHeldOut) {
        long ok = measured.values().stream().filter(m -> m.status() == BlockMeasurement.Status.OK).count();
        StringBuilder sb = new StringBuilder();
        sb.append("# basalt calibrate: ").append(folderOf(host)).append("\n\n");
        sb.append("- host: ").append(host.describe()).append("; timer ").append(host.timer()).append('\n');
        sb.append("- start: ").append(start.llvmName()).append(" (").append(start.evidence()).append(")\n");
        sb.append(String.format(Locale.ROOT, "- blocks: %d measured, %d ok (training %d, validation %d, held out "
                + "%d)%n", measured.size(), ok, train, validation, test));
        sb.append(Double.isNaN(noise[0]) ? "- noise floor: not measured here (--noise-blocks 0, or --measurements)\n"
                : String.format(Locale.ROOT, "- noise floor: %.2f%% MAPE between two measurements of %d held-out "
                + "blocks%n", 100 * noise[0], (int) noise[1]));
        if (machine != null) {
            sb.append(String.format(Locale.ROOT, "- machine found (training MAPE %.2f%% -> %.2f%%, validation %.2f%% "
                    + "-> %.2f%%): %s%n", 100 * machine.trainBefore(), 100 * machine.trainAfter(),
                    100 * machine.validationBefore(), 100 * machine.validationAfter(), machine.choices()));
        }
        sb.append(String.format(Locale.ROOT, "- held-out MAPE: %.2f%% before, %.2f%% after (%s%.2f%%; Kendall tau "
                + "%.4f -> %.4f); %d rows changed%n", 100 * startHeldOut, 100 * chosen.testMape(),
                machine == null ? "the start table's rows tuned from " : "on the machine found, before its rows: ",
                100 * first.testMape(), first.testTau(), chosen.testTau(), report.changes().size()));
        sb.append(String.format(Locale.ROOT, "- wall time: %.1f min%n", minutes));
        sb.append("- command: `").append(command).append("`\n\n");
        sb.append("Use it:\n\n```sh\n");
        sb.append("basalt predict --model ").append(table).append(" BLOCK\n");
        sb.append("basalt simulate --mcpu ").append(start.llvmName()).append(" --params ").append(table)
                .append(" BLOCK\n```\n");
        return sb.toString();
    }
}
