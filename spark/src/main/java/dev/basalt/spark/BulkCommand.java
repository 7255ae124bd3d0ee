package dev.basalt.spark;

import dev.basalt.core.Estimators;
import dev.basalt.core.Microarchitecture;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * {@code basalt bulk}: predicts every distinct block of a CSV or Parquet input with one or more estimators on one or
 * more CPUs, on Spark ({@code local[*]} by default, embedded; a cluster through {@code spark-submit}), and writes
 * one row per block, CPU and estimator ({@link BulkJob#OUTPUT}). The output folder appears whole or not at all: it
 * is written beside its final name and renamed when the job has succeeded.
 */
@Command(name = "basalt bulk", mixinStandardHelpOptions = true, version = "basalt bulk 0.1.0",
        description = "Predict many blocks on Apache Spark (embedded local mode by default).")
public final class BulkCommand implements Callable<Integer> {

    @Option(names = "--input", required = true, paramLabel = "PATH", description = "Blocks: a CSV file or folder "
            + "(BHive's hex,cycles_per_100_iterations, or one hex per line) or Parquet (a column hex, and optionally "
            + "cycles_per_iteration measured).")
    Path input;

    @Option(names = "--output", required = true, paramLabel = "DIR", description = "Folder to write (must not "
            + "exist).")
    Path output;

    @Option(names = "--models", split = ",", paramLabel = "MODEL", description = "Estimators (default: "
            + "${DEFAULT-VALUE}, every command's default).", defaultValue = "granite")
    List<String> models;

    @Option(names = "--mcpu", split = ",", paramLabel = "CPU", description = "CPUs (default: ${DEFAULT-VALUE}: every "
            + "measured CPU, as the other commands on a machine Basalt has not measured; a cluster's machines are not "
            + "the ones the blocks are for).", defaultValue = "haswell,skylake,ivybridge,znver5,graniterapids")
    List<String> cpus;

    @Option(names = "--memory", paramLabel = "MODEL", description = "For the simulator-based models: auto (harness "
            + "memory for straight-line blocks, distinct for loops), harness or distinct, as in basalt predict; "
            + "default ${DEFAULT-VALUE}. The output's memory column says which each block saw.", defaultValue = "auto")
    String memory;

    @Option(names = "--format", paramLabel = "FORMAT", description = "parquet or csv (default: ${DEFAULT-VALUE}).",
            defaultValue = "parquet")
    String format;

    @Option(names = "--input-format", paramLabel = "FORMAT", description = "csv or parquet (default: by the "
            + "file name: .parquet is Parquet, anything else CSV).")
    String inputFormat;

    @Option(names = "--measured-on", paramLabel = "CPU", description = "The CPU the input's throughputs were "
            + "measured on, for the summary's MAPE (default: from a BHive file name such as hsw.csv; else no MAPE).")
    String measuredOn;

    @Option(names = "--master", description = "Spark master (default: ${DEFAULT-VALUE}; ignored under "
            + "spark-submit, which sets its own).", defaultValue = "local[*]")
    String master;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /** Bad input: one clear message, exit 2. */
    static final class BadInput extends RuntimeException {
        BadInput(String message) {
            super(message);
        }
    }

    public static void main(String[] args) {
        System.exit(run(new PrintWriter(System.out, true), new PrintWriter(System.err, true), args));
    }

    /** Runs the command; returns its exit code (0, 1 for an internal error, 2 for bad input). */
    public static int run(PrintWriter out, PrintWriter err, String... args) {
        CommandLine cl = new CommandLine(new BulkCommand()).setOut(out).setErr(err);
        cl.setExecutionExceptionHandler((e, line, parsed) -> {
            if (e instanceof BadInput) {
                err.println("basalt bulk: " + e.getMessage());
                return 2;
            }
            err.println("basalt bulk: internal error: " + e);
            return 1;
        });
        return cl.execute(args);
    }

    @Override
    public Integer call() throws IOException {
        PrintWriter o = spec.commandLine().getOut();
        // Every option checked before Spark starts.
        if (!Files.exists(input)) {
            throw new BadInput("--input " + input + ": no such file or folder");
        }
        if (Files.exists(output)) {
            throw new BadInput("--output " + output + " exists; give a new folder (nothing is overwritten)");
        }
        Path parent = output.toAbsolutePath().getParent();
        if (parent == null || !Files.isDirectory(parent) || !Files.isWritable(parent)) {
            throw new BadInput("--output " + output + ": its parent folder " + parent + " is not a writable folder");
        }
        String outFormat = format.toLowerCase(Locale.ROOT);
        if (!outFormat.equals("parquet") && !outFormat.equals("csv")) {
            throw new BadInput("--format '" + format + "': parquet or csv");
        }
        String inFormat = inputFormat != null ? inputFormat.toLowerCase(Locale.ROOT)
                : input.getFileName().toString().endsWith(".parquet") ? "parquet" : "csv";
        if (!inFormat.equals("parquet") && !inFormat.equals("csv")) {
            throw new BadInput("--input-format '" + inputFormat + "': csv or parquet");
        }
        for (String c : cpus) {
            try {
                Microarchitecture.parse(c);
            } catch (IllegalArgumentException e) {
                throw new BadInput("--mcpu '" + c + "': " + e.getMessage());
            }
        }
        if (!List.of("auto", "harness", "distinct").contains(memory.toLowerCase(Locale.ROOT))) {
            throw new BadInput("--memory '" + memory + "': auto, harness or distinct");
        }
        for (String m : models) {
            try {
                Estimators.load(m);
            } catch (IllegalArgumentException e) {
                throw new BadInput("--models '" + m + "': " + e.getMessage());
            }
        }
        String measuredCpu = measuredCpu();
        long t0 = System.nanoTime();
        SparkSession.Builder builder = SparkSession.builder().appName("basalt bulk")
                .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "true");
        // Under spark-submit the master is already chosen (spark.master); --master is for the embedded run.
        boolean submitted = System.getProperty("spark.master") != null;
        SparkSession spark = (submitted ? builder : builder.master(master)).getOrCreate();
        String runsOn = spark.sparkContext().master();
        Path partial = parent.resolve("." + output.getFileName() + ".partial-" + Long.toHexString(System.nanoTime()));
        try {
            double started = (System.nanoTime() - t0) / 1e9;
            Dataset<Row> blocks = read(spark, inFormat).cache();
            long rows = blocks.count();
            Dataset<Row> predictions = BulkJob.predict(blocks, new BulkJob.Settings(models, cpus, memory)).cache();
            var writer = predictions.coalesce(Math.max(1, (int) Math.min(64, rows / 100_000 + 1))).write();
            if (outFormat.equals("csv")) {
                writer.option("header", "true").csv(partial.toString());
            } else {
                writer.parquet(partial.toString());
            }
            Files.move(partial, output, StandardCopyOption.ATOMIC_MOVE);
            double written = (System.nanoTime() - t0) / 1e9;
            summarize(o, blocks, predictions, rows, measuredCpu);
            double total = (System.nanoTime() - t0) / 1e9;
            o.printf(Locale.ROOT, "wrote %s (%s) in %.1f s: %.1f s starting Spark (%s), %.1f s reading, predicting and "
                    + "writing, %.1f s the summary%n", output, outFormat, total, started, runsOn, written - started,
                    total - written);
            return 0;
        } finally {
            deleteQuietly(partial);
            spark.stop();
        }
    }

    /** The LLVM name of the CPU the input was measured on, or null when not known. */
    private String measuredCpu() {
        if (measuredOn != null) {
            try {
                return Microarchitecture.parse(measuredOn).llvmName();
            } catch (IllegalArgumentException e) {
                throw new BadInput("--measured-on '" + measuredOn + "': " + e.getMessage());
            }
        }
        String file = input.getFileName().toString();
        return Microarchitecture.measured().stream().filter(m -> file.equals(m.shortName() + ".csv")).findFirst()
                .map(Microarchitecture::llvmName).orElse(null);
    }

    /** Blocks as rows {@code hex, measured} (measured: cycles per iteration, or null). */
    private Dataset<Row> read(SparkSession spark, String inFormat) {
        if (inFormat.equals("parquet")) {
            Dataset<Row> p = spark.read().parquet(input.toString());
            List<String> columns = List.of(p.columns());
            if (!columns.contains("hex")) {
                throw new BadInput("--input " + input + ": a Parquet input needs a column 'hex'; it has " + columns);
            }
            Column measured = columns.contains("cycles_per_iteration")
                    ? functions.col("cycles_per_iteration").cast("double") : functions.lit(null).cast("double");
            return p.select(functions.col("hex").cast("string").as("hex"), measured.as("measured"));
        }
        // BHive's CSV (hex, cycles per 100 iterations) or a list of hex; a header line is a block that does not
        // decode, so it is kept as an error row like any other line that is not a block.
        Dataset<Row> csv = spark.read().option("header", "false").option("mode", "PERMISSIVE").csv(input.toString());
        Column measured = csv.columns().length > 1
                ? functions.col("_c1").cast("double").divide(100) : functions.lit(null).cast("double");
        return csv.select(functions.col("_c0").as("hex"), measured.as("measured"));
    }

    /**
     * Rows read, distinct blocks, errors; per model and CPU: blocks predicted, mean, and on the CPU the input was
     * measured on ({@code measuredCpu}, null for none) the MAPE against its measurements.
     */
    private static void summarize(PrintWriter o, Dataset<Row> blocks, Dataset<Row> predictions, long rows,
                                  String measuredCpu) {
        // One pass over the predictions; the measurements are joined in only when there is a CPU they belong to.
        Dataset<Row> joined = predictions.withColumn("measured", functions.lit(null).cast("double"));
        if (measuredCpu != null) {
            Dataset<Row> measured = blocks.where(functions.col("measured").isNotNull().and(functions.col("measured")
                            .gt(0)))
                    .select(functions.lower(functions.regexp_replace(functions.col("hex"), "\\s+", "")).as("m_hex"),
                            functions.col("measured"))
                    .groupBy("m_hex").agg(functions.avg("measured").as("measured"));
            joined = predictions.join(measured, predictions.col("hex").equalTo(measured.col("m_hex"))
                    .and(predictions.col("mcpu").equalTo(functions.lit(measuredCpu))), "left");
        }
        List<Row> stats = joined.groupBy("model", "mcpu")
                .agg(functions.count(functions.col("cycles_per_iteration")).as("n"),
                        functions.avg("cycles_per_iteration").as("mean"),
                        functions.avg(functions.abs(functions.col("cycles_per_iteration").minus(functions.col(
                                "measured"))).divide(functions.col("measured"))).as("mape"),
                        functions.count(functions.when(functions.col("cycles_per_iteration").isNotNull(),
                                functions.col("measured"))).as("measured"),
                        functions.count(functions.lit(1)).as("rows"),
                        functions.count(functions.col("error")).as("errors"))
                .orderBy("model", "mcpu").collectAsList();
        // Every distinct block has one row per model and CPU.
        long distinct = stats.isEmpty() ? 0 : stats.get(0).getLong(6);
        long errors = stats.stream().mapToLong(r -> r.getLong(7)).sum();
        o.printf(Locale.ROOT, "%d rows read, %d distinct blocks, %d error rows (kept, with their reason)%n", rows,
                distinct, errors);
        o.println("model       mcpu          predicted   mean cycles   MAPE (blocks measured)");
        for (Row r : stats) {
            o.printf(Locale.ROOT, "%-11s %-12s %10d   %11.3f   %s%n", r.getString(0), r.getString(1), r.getLong(2),
                    r.isNullAt(3) ? Double.NaN : r.getDouble(3),
                    r.isNullAt(4) || r.getLong(5) == 0 ? "-" : String.format(Locale.ROOT, "%.2f%% (%d)", 100 * r.getDouble(4),
                            r.getLong(5)));
        }
    }

    private static void deleteQuietly(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (var walk = Files.walk(dir)) {
            List<Path> all = new ArrayList<>(walk.toList());
            java.util.Collections.reverse(all);
            for (Path p : all) {
                Files.deleteIfExists(p);
            }
        } catch (IOException ignored) {
            // a leftover hidden partial folder is harmless; the output folder itself was never created
        }
    }
}
