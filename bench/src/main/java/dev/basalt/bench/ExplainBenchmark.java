package dev.basalt.bench;

import dev.basalt.core.Estimators;
import dev.basalt.core.Microarchitecture;
import dev.basalt.core.ThroughputEstimator;
import dev.basalt.decoder.BasicBlock;
import dev.basalt.explain.Explainer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
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
 * One explanation of a GRANITE prediction per operation (default settings: anchors with 10,000 coverage
 * perturbations, batches of 64, δ 0.1, ε 0.15, precision 0.7; Shapley with 32 permutations), over the first
 * 50 Haswell test-split blocks of the bundled sample, each measured once in file order (single-shot: the JMH
 * percentiles are over the 50 blocks, so p50 is the median explanation time the explain issue asks for).
 *
 * <pre>
 * java -jar bench/target/benchmarks.jar ExplainBenchmark -rf json -rff docs/jmh-explain.json
 * </pre>
 */
@State(Scope.Thread)
@Warmup(iterations = 5, batchSize = 1)
@Measurement(iterations = ExplainBenchmark.BLOCKS, batchSize = 1)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(1)
public class ExplainBenchmark {

    static final int BLOCKS = 50;

    @Param({"anchors", "shapley"})
    public String method;

    @Param({"granite"})
    public String model;

    private ThroughputEstimator estimator;
    private Explainer explainer;
    private Explainer.Method m;
    private List<BasicBlock> blocks;
    private int next;

    @Setup
    public void setup() {
        estimator = Estimators.load(model);
        explainer = Explainer.forCpu(Microarchitecture.HASWELL, Explainer.Config.defaults());
        m = Explainer.Method.parse(method);
        blocks = TestBlocks.haswell(BLOCKS);
        next = BLOCKS - 5; // the 5 warm-up shots explain the last 5 blocks; measurement starts at block 0
    }

    @TearDown
    public void close() throws Exception {
        if (estimator instanceof AutoCloseable c) {
            c.close();
        }
    }

    @Benchmark
    public Object explain() {
        BasicBlock b = blocks.get(next % BLOCKS);
        next++;
        return explainer.explain(b, Microarchitecture.HASWELL, estimator, m);
    }
}
