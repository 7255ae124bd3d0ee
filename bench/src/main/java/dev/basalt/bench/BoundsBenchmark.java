package dev.basalt.bench;

import dev.basalt.core.Microarchitecture;
import dev.basalt.datasets.Dataset;
import dev.basalt.datasets.LabelledBlock;
import dev.basalt.decoder.BasicBlock;
import dev.basalt.simulator.Simulator;
import dev.basalt.simulator.params.SimulatorParams;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The analytical bounds ({@code Simulator.bounds}, DESIGN.md §13) on the same blocks, table and options as
 * {@link SimulatorBenchmark}'s {@code defaults}: the 10,000 Haswell blocks of the bundled BHive sample, single
 * thread, one block per operation (score = blocks/s).
 *
 * <pre>
 * mvn -q -DskipTests package -pl bench -am
 * java -jar bench/target/benchmarks.jar 'SimulatorBenchmark|BoundsBenchmark' -p options=defaults -rf json -rff docs/jmh-bounds.json
 * </pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 5)
@Measurement(iterations = 5, time = 5)
@Fork(1)
@Threads(1)
public class BoundsBenchmark {

    private List<BasicBlock> blocks;
    private Simulator simulator;
    private int next;

    @Setup
    public void setup() {
        blocks = Dataset.bundled().labelled(Microarchitecture.HASWELL).stream().map(LabelledBlock::block).toList();
        simulator = new Simulator(SimulatorParams.bundled(Microarchitecture.HASWELL));
    }

    @Benchmark
    public double bounds() {
        BasicBlock b = blocks.get(next);
        next = next + 1 == blocks.size() ? 0 : next + 1;
        return simulator.bounds(b, Simulator.Options.defaults()).cyclesPerIteration();
    }
}
