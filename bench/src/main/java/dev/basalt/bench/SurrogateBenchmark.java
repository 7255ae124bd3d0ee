package dev.basalt.bench;

import dev.basalt.core.Microarchitecture;
import dev.basalt.datasets.Dataset;
import dev.basalt.datasets.LabelledBlock;
import dev.basalt.decoder.BasicBlock;
import dev.basalt.difftune.ParameterSampler;
import dev.basalt.simulator.Simulator;
import dev.basalt.simulator.params.SimulatorParams;
import dev.basalt.difftune.SurrogateConfig;
import dev.basalt.difftune.SurrogateData;
import dev.basalt.difftune.SurrogateModel;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The DiffTune surrogate's inference (the network {@code basalt tune} trains, default configuration) on
 * sampled (block, parameter table) pairs from the bundled Haswell blocks, 256 samples per call (score per
 * sample, so samples/s). The weights are freshly initialised — speed does not depend on their values — so the
 * benchmark needs no tuning run.
 *
 * <pre>
 * java -jar bench/target/benchmarks.jar SurrogateBenchmark -rf json -rff docs/jmh-surrogate.json
 * </pre>
 */
@State(Scope.Thread)
@Warmup(iterations = 2, time = 5)
@Measurement(iterations = 3, time = 5)
@Fork(1)
public class SurrogateBenchmark {

    private static final int BATCH = 256;
    private static final int SAMPLES = 4096;

    private SurrogateModel surrogate;
    private List<SurrogateData.Sample> samples;
    private Map<String, BasicBlock> blocks;
    private int next;

    @Setup
    public void setup() {
        List<BasicBlock> all = Dataset.bundled().labelled(Microarchitecture.HASWELL).stream()
                .map(LabelledBlock::block).toList();
        ParameterSampler sampler = new ParameterSampler(SimulatorParams.bundled(Microarchitecture.HASWELL));
        samples = new ArrayList<>(SAMPLES);
        for (int i = 0; i < SAMPLES; i++) {
            samples.add(SurrogateData.sample(all, sampler, Simulator.Options.defaults(), 1L, i));
        }
        blocks = new HashMap<>();
        all.forEach(b -> blocks.put(b.hex(), b));
        surrogate = SurrogateModel.create(SurrogateConfig.defaults(), SurrogateModel.vocabulary(all),
                Microarchitecture.HASWELL, Simulator.Options.defaults());
    }

    @TearDown
    public void close() {
        surrogate.close();
    }

    private List<SurrogateData.Sample> batch() {
        if (next + BATCH > samples.size()) {
            next = 0;
        }
        List<SurrogateData.Sample> b = samples.subList(next, next + BATCH);
        next += BATCH;
        return b;
    }

    @Benchmark
    @BenchmarkMode(Mode.Throughput)
    @OutputTimeUnit(TimeUnit.SECONDS)
    @OperationsPerInvocation(BATCH)
    public double[] surrogate() {
        return surrogate.predict(batch(), blocks);
    }
}
