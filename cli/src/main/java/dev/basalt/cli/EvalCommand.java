package dev.basalt.cli;

import dev.basalt.eval.EvalReport;
import dev.basalt.eval.Evaluator;
import dev.basalt.core.Microarchitecture;
import dev.basalt.datasets.Dataset;
import dev.basalt.datasets.Split;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import dev.basalt.simulator.mca.LlvmMcaEstimator;
import dev.basalt.simulator.Simulator;
import dev.basalt.simulator.SimulatorEstimator;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;

/**
 * {@code basalt eval}: every estimator on the same blocks, with the same metrics, written as a Markdown table,
 * CSVs and PNG plots.
 */
@Command(name = "eval", mixinStandardHelpOptions = true,
        description = "Measure estimators on the same blocks: MAPE, median and percentile APE, Kendall's tau, "
                + "Spearman's rho, coverage and speed per CPU; writes results.md, results.csv, predictions.csv and "
                + "PNG plots.")
final class EvalCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--models", split = ",", defaultValue = "granite,ithemal,simulator,bounds,simulator-default,llvm-mca",
            description = "Comma-separated estimators (any of basalt predict's models or model files, and llvm-mca "
                    + "for llvm-mca-14 itself); default ${DEFAULT-VALUE}.")
    List<String> models;

    @Option(names = "--mcpu", paramLabel = "CPU", split = ",", description = "CPUs, comma-separated or repeated ("
            + DefaultCpus.HELP + "); a CPU Basalt measured, such as znver5, is scored on its own data set.")
    List<Microarchitecture> mcpu;

    @Option(names = "--split", defaultValue = "test", description = "train, validation, test or all (default "
            + "${DEFAULT-VALUE}).")
    String split;

    @Option(names = "--out", paramLabel = "DIR", defaultValue = "eval-results", description = "Output folder (default "
            + "${DEFAULT-VALUE}).")
    Path out;

    @Option(names = "--llvm-mca", defaultValue = "llvm-mca-14", description = "llvm-mca command (default "
            + "${DEFAULT-VALUE}).")
    String llvmMca;

    @Option(names = "--llvm-mc", defaultValue = "llvm-mc-14", description = "llvm-mc command (default "
            + "${DEFAULT-VALUE}).")
    String llvmMc;

    @Mixin
    MachineSwitches switches;

    @Option(names = "--memory", defaultValue = "auto", paramLabel = "MODEL", converter = MemoryModels.class,
            description = "For simulator and simulator-untuned: auto (harness memory for straight-line blocks, as "
                    + "BHive measured them; distinct for loops), harness or distinct (named in the results); default "
                    + "${DEFAULT-VALUE}.")
    Simulator.MemoryModel memory;

    @Mixin
    DebugOption debugOption;

    static Optional<Split> parseSplit(String s) {
        if (s.equalsIgnoreCase("all")) {
            return Optional.empty();
        }
        for (Split x : Split.values()) {
            if (x.name().equalsIgnoreCase(s)) {
                return Optional.of(x);
            }
        }
        throw new BadInputException("unknown split '" + s + "': use train, validation, test or all");
    }

    static String machine() {
        String cpu = "unknown CPU";
        try {
            cpu = Files.readAllLines(Path.of("/proc/cpuinfo")).stream().filter(l -> l.startsWith("model name"))
                    .map(l -> l.substring(l.indexOf(':') + 1).trim()).findFirst().orElse(cpu);
        } catch (java.io.IOException notLinux) {
            // no /proc/cpuinfo: the report names the CPU less precisely
        }
        return String.format(Locale.ROOT, "%s, %d hardware threads, %d GB, Java %s", cpu,
                Runtime.getRuntime().availableProcessors(),
                Math.round(((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory
                        .getOperatingSystemMXBean()).getTotalMemorySize() / 1e9), System.getProperty("java.version"));
    }

    /**
     * The estimator of a model name: --llvm-mc/--llvm-mca choose the commands behind llvm-mca, and the machine
     * switches and {@code --memory} change {@code simulator} and {@code simulator-untuned} (named with them).
     */
    private dev.basalt.core.ThroughputEstimator load(String name) {
        if (name.equals(LlvmMcaEstimator.NAME)) {
            return new LlvmMcaEstimator(llvmMc, llvmMca);
        }
        boolean memoryChosen = memory != Simulator.MemoryModel.AUTO;
        if ((switches.any() || memoryChosen) && (name.equals("simulator") || name.equals("simulator-untuned"))) {
            String named = (name + " " + switches.describe()).strip()
                    + (memoryChosen ? " --memory " + memory.name().toLowerCase(Locale.ROOT) : ""); // its fingerprint's name
            Simulator.Options options = switches.apply(Simulator.Options.defaults()).withMemory(memory);
            return name.equals("simulator") ? SimulatorEstimator.standard(named, options)
                    : SimulatorEstimator.bundled(named, options);
        }
        return dev.basalt.core.Estimators.load(name);
    }

    /**
     * Whether the results could be written under {@code dir}, checked before any work (not after minutes of it):
     * it is a writable directory, or the nearest existing folder above it is.
     */
    static void checkOut(Path dir) {
        Outputs.checkFolder("--out", dir);
    }

    /**
     * A model that is no estimator's name must be a model file {@code basalt train} wrote: loaded once here, so that
     * a missing or foreign file is bad input before any work.
     */
    private static void checkModelFile(String m, List<String> known) {
        Path file = Path.of(m);
        if (!Files.exists(file) && m.contains("/")) {
            throw new BadInputException("--models " + m + ": no such model file");
        }
        if (!Files.exists(file)) {
            throw new BadInputException("unknown model '" + m + "': use " + String.join(", ", known)
                    + ", or the path of a model file basalt train wrote");
        }
        try {
            dev.basalt.core.ThroughputEstimator e = dev.basalt.core.Estimators.loadFile(file);
            if (e instanceof AutoCloseable c) {
                c.close();
            }
        } catch (IllegalArgumentException | java.io.UncheckedIOException e) {
            String why = e.getMessage().startsWith(m + ": ") ? e.getMessage().substring(m.length() + 2) : e.getMessage();
            throw new BadInputException("--models " + m + ": " + why);
        } catch (Exception closing) {
            throw new IllegalStateException("closing " + m + " failed", closing);
        }
    }

    @Override
    public Integer call() throws Exception {
        PrintWriter o = spec.commandLine().getOut();
        checkOut(out); // first: where the results go, before loading any model
        Optional<Split> chosenSplit = parseSplit(split);
        List<String> known = dev.basalt.core.Estimators.available();
        for (String m : models) {
            if (m.isBlank()) {
                throw new BadInputException("--models '" + String.join(",", models) + "': an empty model name (a "
                        + "stray comma?)");
            }
            if (!known.contains(m)) {
                checkModelFile(m, known);
            }
        }
        List<Microarchitecture> cpus = DefaultCpus.resolve(mcpu, DefaultCpus.shipped(), spec.commandLine().getErr(),
                "basalt eval");
        Dataset data = Dataset.bundled();
        for (Microarchitecture m : cpus) { // a CPU Basalt measured is scored on its own measurements
            if (m.descriptor().measured().isPresent()) {
                data = data.plus(Dataset.measured(m));
            }
        }
        for (Microarchitecture m : cpus) { // a CPU with no measured block would give an empty result
            boolean any = data.labelled(m).stream().anyMatch(b -> chosenSplit.isEmpty()
                    || dev.basalt.datasets.SplitScheme.defaults().of(b) == chosenSplit.get());
            if (!any) {
                throw new BadInputException("--mcpu " + m + ": no measured blocks for it"
                        + (chosenSplit.isEmpty() ? "" : " in the " + split + " split") + " (measured: "
                        + String.join(", ", java.util.stream.Stream.concat(Microarchitecture.measured().stream(),
                                Microarchitecture.hostMeasured().stream()).map(Microarchitecture::llvmName)
                                .toList()) + ")");
            }
        }
        Evaluator.Config config = new Evaluator.Config(models, cpus, chosenSplit);
        long t0 = System.nanoTime();
        Evaluator.Result result;
        try (ProgressBars bars = new ProgressBars(o)) {
            // --llvm-mc/--llvm-mca choose the commands behind the llvm-mca estimator.
            result = Evaluator.run(data, config, this::load, bars);
        }
        String command = "basalt eval --models " + String.join(",", models) + " --mcpu "
                + String.join(",", cpus.stream().map(Microarchitecture::llvmName).toList()) + " --split " + split
                + (switches.any() ? " " + switches.describe() : "")
                + (memory != Simulator.MemoryModel.AUTO ? " --memory " + memory.name().toLowerCase(Locale.ROOT) : "")
                + (models.contains(LlvmMcaEstimator.NAME) && (!llvmMca.equals("llvm-mca-14") || !llvmMc.equals(
                        "llvm-mc-14")) ? " --llvm-mca " + llvmMca + " --llvm-mc " + llvmMc : "");
        String machine = machine();
        List<Path> files = EvalReport.write(result, out, command, machine);
        o.println();
        o.print(Files.readString(out.resolve("results.md")));
        o.printf(Locale.ROOT, "%nwrote %s in %.1f min%n", String.join(", ", files.stream().map(Path::toString)
                .toList()), (System.nanoTime() - t0) / 60e9);
        return 0;
    }
}
