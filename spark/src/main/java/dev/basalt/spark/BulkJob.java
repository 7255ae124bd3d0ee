package dev.basalt.spark;

import dev.basalt.core.Estimators;
import dev.basalt.core.Interval;
import dev.basalt.core.IsaSupport;
import dev.basalt.core.Microarchitecture;
import dev.basalt.core.Prediction;
import dev.basalt.core.ThroughputEstimator;
import dev.basalt.simulator.LoopAware;
import dev.basalt.simulator.Simulator;
import dev.basalt.decoder.BasicBlock;
import org.apache.spark.api.java.function.MapPartitionsFunction;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Bulk prediction as a Spark job: distinct blocks in (a column {@code hex}), one row per block, CPU and estimator
 * out, in the columns of {@code basalt predict --format csv} that do not depend on a single run ({@link #OUTPUT}).
 * Each partition is predicted in batches through {@link ThroughputEstimator#predictEach}, with one estimator of
 * each name per executor JVM ({@link Loaded}). A block that does not decode or cannot be predicted is an error row
 * with the reason, never dropped.
 */
public final class BulkJob {

    /** The output columns, in order. */
    public static final StructType OUTPUT = new StructType()
            .add("hex", DataTypes.StringType, false)
            .add("mcpu", DataTypes.StringType, false)
            .add("model", DataTypes.StringType, false)
            .add("cycles_per_iteration", DataTypes.DoubleType, true)
            .add("interval_low", DataTypes.DoubleType, true)
            .add("interval_high", DataTypes.DoubleType, true)
            .add("memory", DataTypes.StringType, true)
            .add("note", DataTypes.StringType, true)
            .add("error", DataTypes.StringType, true)
            // who answered: the model, or the estimator it handed the block to (source_reason says why)
            .add("source", DataTypes.StringType, true)
            .add("source_reason", DataTypes.StringType, true);

    /** Blocks per {@code predictEach} call (a learned model is many times faster on a batch). */
    public static final int BATCH = 256;

    private BulkJob() {
    }

    /**
     * What to predict: estimators by name ({@link Estimators#load}), CPUs by LLVM name, and the simulator-based
     * models' memory ({@code auto}, {@code harness} or {@code distinct}: {@link Simulator.MemoryModel}).
     * Serializable: Spark ships it to the executors.
     */
    public record Settings(List<String> models, List<String> cpus, String memory) implements Serializable {
        public Settings {
            models = List.copyOf(models);
            cpus = List.copyOf(cpus);
            memory = memory == null ? "auto" : memory.toLowerCase(Locale.ROOT);
            if (models.isEmpty() || cpus.isEmpty()) {
                throw new IllegalArgumentException("a bulk job needs at least one model and one CPU");
            }
            cpus.forEach(Microarchitecture::parse); // an unknown CPU fails here, on the driver, not on an executor
            Simulator.MemoryModel.valueOf(memory.toUpperCase(Locale.ROOT)); // likewise an unknown memory model
        }

        /** Every model and CPU, memory {@code auto}. */
        public Settings(List<String> models, List<String> cpus) {
            this(models, cpus, "auto");
        }
    }

    /**
     * The distinct values of column {@code hex} of {@code blocks} (lower case, spaces removed: the canonical hex),
     * predicted by every model on every CPU of {@code settings}.
     */
    public static Dataset<Row> predict(Dataset<Row> blocks, Settings settings) {
        Dataset<String> distinct = blocks.select("hex").as(Encoders.STRING())
                .map((org.apache.spark.api.java.function.MapFunction<String, String>) BulkJob::canonical,
                        Encoders.STRING())
                .distinct();
        return distinct.mapPartitions((MapPartitionsFunction<String, Row>) hexes -> predictPartition(hexes, settings),
                Encoders.row(OUTPUT));
    }

    /** Lower case without white space; null and empty stay as they are (error rows). */
    static String canonical(String hex) {
        return hex == null ? "" : hex.replaceAll("\\s+", "").toLowerCase(Locale.ROOT);
    }

    private static Iterator<Row> predictPartition(Iterator<String> hexes, Settings settings) {
        List<String> all = new ArrayList<>();
        hexes.forEachRemaining(all::add);
        List<Row> out = new ArrayList<>();
        for (int from = 0; from < all.size(); from += BATCH) {
            out.addAll(predictBatch(all.subList(from, Math.min(all.size(), from + BATCH)), settings));
        }
        return out.iterator();
    }

    /** The rows of one batch: per block, per model, per CPU. */
    static List<Row> predictBatch(List<String> hexes, Settings settings) {
        List<BasicBlock> decoded = new ArrayList<>();
        String[] errors = new String[hexes.size()];
        BasicBlock[] blocks = new BasicBlock[hexes.size()];
        for (int i = 0; i < hexes.size(); i++) {
            try {
                blocks[i] = BasicBlock.fromHex(hexes.get(i));
                decoded.add(blocks[i]);
            } catch (IllegalArgumentException e) { // DecodeException among them
                errors[i] = e.getMessage();
            }
        }
        List<Row> rows = new ArrayList<>();
        for (String model : settings.models()) {
            ThroughputEstimator estimator = Loaded.estimator(model, settings.memory());
            for (String cpuName : settings.cpus()) {
                Microarchitecture cpu = Microarchitecture.parse(cpuName);
                if (!estimator.supported().contains(cpu)) {
                    for (String hex : hexes) {
                        rows.add(error(hex, cpu, model, model + " has no model for " + cpu.llvmName()));
                    }
                    continue;
                }
                List<Optional<Prediction>> ps = decoded.isEmpty() ? List.of() : estimator.predictEach(decoded, cpu);
                int k = 0;
                for (int i = 0; i < hexes.size(); i++) {
                    if (blocks[i] == null) {
                        rows.add(error(hexes.get(i), cpu, model, errors[i]));
                        continue;
                    }
                    Optional<Prediction> p = ps.get(k++);
                    if (p.isEmpty()) {
                        rows.add(error(hexes.get(i), cpu, model, IsaSupport.unsupported(blocks[i], cpu)
                                .orElse(model + " cannot predict this block on " + cpu.llvmName())));
                        continue;
                    }
                    Optional<Interval> iv = p.get().interval();
                    String note = p.get().note();
                    String memory = estimator instanceof LoopAware aware ? aware.memoryOf(blocks[i], cpu) : null;
                    dev.basalt.core.Source source = p.get().source(model);
                    rows.add(RowFactory.create(hexes.get(i), cpu.llvmName(), model, p.get().cyclesPerIteration(),
                            iv.map(Interval::low).orElse(null), iv.map(Interval::high).orElse(null), memory,
                            note == null || note.isEmpty() ? null : note, null, source.estimator(),
                            source.reason().isEmpty() ? null : source.reason()));
                }
            }
        }
        return rows;
    }

    private static Row error(String hex, Microarchitecture cpu, String model, String reason) {
        return RowFactory.create(hex, cpu.llvmName(), model, null, null, null, null, null, reason, null, null);
    }

    /**
     * One estimator of each name per JVM: an executor's partitions share it (a learned model is a few MB of
     * weights and a native engine; loading it per partition would cost more than predicting). This is the one
     * piece of static state, and it only ever grows by the names a job asks for.
     */
    static final class Loaded {
        private static final Map<String, ThroughputEstimator> BY_NAME = new ConcurrentHashMap<>();

        private Loaded() {
        }

        static ThroughputEstimator estimator(String name, String memory) {
            return BY_NAME.computeIfAbsent(name + " --memory " + memory, key -> {
                ThroughputEstimator e = Estimators.load(name);
                Simulator.MemoryModel m = Simulator.MemoryModel.valueOf(memory.toUpperCase(Locale.ROOT));
                return e instanceof LoopAware aware && m != Simulator.MemoryModel.AUTO ? aware.withMemory(m) : e;
            });
        }
    }
}
