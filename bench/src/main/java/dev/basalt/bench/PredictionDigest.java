package dev.basalt.bench;

import dev.basalt.core.Estimators;
import dev.basalt.core.Interval;
import dev.basalt.core.Microarchitecture;
import dev.basalt.core.Prediction;
import dev.basalt.core.ThroughputEstimator;
import dev.basalt.datasets.Dataset;
import dev.basalt.datasets.LabelledBlock;
import dev.basalt.decoder.BasicBlock;
import dev.basalt.simulator.BoundsEstimator;
import dev.basalt.simulator.Simulator;
import dev.basalt.simulator.SimulatorEstimator;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.IntStream;

/**
 * One SHA-256 over every analytical prediction Basalt makes on its own data: the cycles, contributions, baseline,
 * details, notes and intervals of {@code simulator}, {@code bounds}, {@code simulator-default} and {@code
 * simulator-untuned}, under both memory semantics (BHive's harness and distinct real-code memory), for every CPU
 * each supports, on every block of the bundled BHive sample and of that CPU's measured data set. A refactoring
 * of the simulator keeps this digest; a change of behaviour changes it (and the per-part digests say where).
 *
 * <pre>
 * mvn -q -o -B package -DskipTests -pl bench -am
 * java -cp bench/target/benchmarks.jar dev.basalt.bench.PredictionDigest
 * </pre>
 */
public final class PredictionDigest {

    static final List<String> ESTIMATORS = List.of("simulator", "bounds", "simulator-default", "simulator-untuned");

    private PredictionDigest() {
    }

    public static void main(String[] args) throws Exception {
        long start = System.nanoTime();
        List<BasicBlock> sample = Dataset.bundled().blocks().stream().map(LabelledBlock::block).toList();
        Map<Microarchitecture, List<BasicBlock>> measured = new LinkedHashMap<>();
        for (Microarchitecture m : Microarchitecture.hostMeasured()) {
            measured.put(m, Dataset.measured(m).blocks().stream().map(LabelledBlock::block).toList());
        }
        MessageDigest all = sha256();
        long predictions = 0;
        for (String name : ESTIMATORS) {
            ThroughputEstimator base = Estimators.load(name);
            for (Simulator.MemoryModel memory : List.of(Simulator.MemoryModel.HARNESS,
                    Simulator.MemoryModel.DISTINCT)) {
                ThroughputEstimator est = withMemory(base, memory);
                for (Microarchitecture m : Microarchitecture.all()) {
                    if (!est.supported().contains(m)) {
                        continue;
                    }
                    List<BasicBlock> blocks = new ArrayList<>(sample);
                    blocks.addAll(measured.getOrDefault(m, List.of()));
                    String part = digest(est, m, blocks);
                    predictions += blocks.size();
                    System.out.printf("%-18s %-9s %-14s %7d blocks  %s%n", name, memory, m, blocks.size(), part);
                    all.update((name + " " + memory + " " + m + " " + part + "\n").getBytes(StandardCharsets.UTF_8));
                }
            }
        }
        System.out.printf("SHA-256 of %d predictions: %s (%.0f s)%n", predictions,
                HexFormat.of().formatHex(all.digest()), (System.nanoTime() - start) / 1e9);
    }

    private static ThroughputEstimator withMemory(ThroughputEstimator e, Simulator.MemoryModel memory) {
        if (e instanceof SimulatorEstimator s) {
            return s.withMemory(memory);
        }
        if (e instanceof BoundsEstimator b) {
            return b.withMemory(memory);
        }
        throw new IllegalStateException(e.name() + " has no memory semantics to choose");
    }

    /** The digest of one estimator's predictions of {@code blocks}, in order (computed in parallel chunks). */
    private static String digest(ThroughputEstimator est, Microarchitecture m, List<BasicBlock> blocks) {
        int chunk = 512;
        int chunks = (blocks.size() + chunk - 1) / chunk;
        byte[][] parts = new byte[chunks][];
        IntStream.range(0, chunks).parallel().forEach(c -> {
            List<BasicBlock> some = blocks.subList(c * chunk, Math.min(blocks.size(), (c + 1) * chunk));
            MessageDigest d = sha256();
            List<Optional<Prediction>> ps = est.predictEach(some, m);
            for (int i = 0; i < some.size(); i++) {
                d.update((some.get(i).hex() + " " + ps.get(i).map(PredictionDigest::line).orElse("unpredictable")
                        + "\n").getBytes(StandardCharsets.UTF_8));
            }
            parts[c] = d.digest();
        });
        MessageDigest d = sha256();
        for (byte[] p : parts) {
            d.update(p);
        }
        return HexFormat.of().formatHex(d.digest());
    }

    /** Everything a prediction says, exactly (doubles in their shortest exact decimal form). */
    static String line(Prediction p) {
        StringBuilder s = new StringBuilder();
        s.append(p.cyclesPerIteration()).append(" | ").append(p.baseline()).append(" |");
        for (double c : p.contributions()) {
            s.append(' ').append(c);
        }
        s.append(" |");
        p.details().forEach((k, v) -> s.append(' ').append(k).append('=').append(v));
        s.append(" |");
        for (String n : p.notes()) {
            s.append(' ').append(n.replace('\n', ' ')).append(';');
        }
        s.append(" |");
        for (Interval i : p.intervals()) {
            s.append(' ').append(i.level()).append(':').append(i.low()).append('-').append(i.high());
        }
        return s.toString();
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
