package dev.basalt.bench;

import dev.basalt.core.Estimators;
import dev.basalt.core.Microarchitecture;
import dev.basalt.core.ThroughputEstimator;
import dev.basalt.datasets.Dataset;
import dev.basalt.datasets.LabelledBlock;
import dev.basalt.decoder.BasicBlock;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Inference of the bundled learned models ({@code Estimators.load(model)}) on the Haswell blocks of the bundled
 * sample, decoded in setup, prior included: {@code batch64} predicts 64 blocks per call (score per block, so
 * blocks/s); {@code single} is one block per call (sample time: p50 latency).
 *
 * <pre>
 * java -jar bench/target/benchmarks.jar InferenceBenchmark -rf json -rff docs/jmh-inference.json
 * </pre>
 */
@State(Scope.Thread)
@Warmup(iterations = 2, time = 5)
@Measurement(iterations = 3, time = 5)
@Fork(1)
public class InferenceBenchmark {

    private static final int BATCH = 64;

    @Param({"granite", "ithemal"})
    public String model;

    private ThroughputEstimator estimator;
    private List<BasicBlock> blocks;
    private int next;

    @Setup
    public void setup() {
        estimator = Estimators.load(model);
        blocks = Dataset.bundled().labelled(Microarchitecture.HASWELL).stream().map(LabelledBlock::block).toList();
    }

    @TearDown
    public void close() throws Exception {
        if (estimator instanceof AutoCloseable c) {
            c.close();
        }
    }

    @Benchmark
    @BenchmarkMode(Mode.Throughput)
    @OutputTimeUnit(TimeUnit.SECONDS)
    @OperationsPerInvocation(BATCH)
    public Object batch64() {
        if (next + BATCH > blocks.size()) {
            next = 0;
        }
        List<BasicBlock> batch = blocks.subList(next, next + BATCH);
        next += BATCH;
        return estimator.predictAll(batch, Microarchitecture.HASWELL);
    }

    @Benchmark
    @BenchmarkMode(Mode.SampleTime)
    @OutputTimeUnit(TimeUnit.MILLISECONDS)
    public Object single() {
        BasicBlock b = blocks.get(next);
        next = next + 1 == blocks.size() ? 0 : next + 1;
        return estimator.predict(b, Microarchitecture.HASWELL);
    }
}
