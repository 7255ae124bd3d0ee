package dev.basalt.bench;

import dev.basalt.decoder.BasicBlock;
import dev.basalt.decoder.DecodeException;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Decoding and dependency-graph construction over the ~125,000 unlabelled BHive blocks, single thread.
 *
 * <p>Each invocation handles the next block of the set (cycling), so the primary score is blocks/s; the
 * {@code instructions} auxiliary counter gives instructions/s. Three levels, JMH-samples style:
 * {@code copyBytes} is the baseline (touching the input only), {@code decode} is Zydis decoding into
 * {@code Instruction} records, {@code decodeAndGraph} adds the dependency graph (the target:
 * at least 1,000,000 instructions/s).
 *
 * <p>Run from the repository root:
 * <pre>
 * mvn -q -DskipTests package -pl bench -am
 * java -jar bench/target/benchmarks.jar DecodeBenchmark -rf json -rff bench/target/jmh-decode.json
 * </pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 5)
@Measurement(iterations = 5, time = 5)
@Fork(1)
@Threads(1)
public class DecodeBenchmark {

    private List<byte[]> blocks;
    private int next;

    /** Counts instructions, reported by JMH as instructions/s next to the blocks/s score. */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.OPERATIONS)
    public static class Counters {
        /** Instructions handled. */
        public long instructions;

        @Setup(Level.Iteration)
        public void reset() {
            instructions = 0;
        }
    }

    @Setup
    public void load() {
        blocks = UnlabelledBlocks.load();
        System.out.println("native binding: " + BasicBlock.nativeBinding());
    }

    private byte[] nextBlock() {
        byte[] b = blocks.get(next);
        next = next + 1 == blocks.size() ? 0 : next + 1;
        return b;
    }

    /** Baseline: hands the bytes to the black hole, the floor of what any decoder can cost here. */
    @Benchmark
    public void copyBytes(Blackhole bh) {
        bh.consume(nextBlock().clone());
    }

    /** Zydis decode into instruction records. */
    @Benchmark
    public void decode(Counters c, Blackhole bh) {
        try {
            BasicBlock b = BasicBlock.fromBytes(nextBlock());
            c.instructions += b.size();
            bh.consume(b);
        } catch (DecodeException e) {
            bh.consume(e); // one corrupt block in BHive
        }
    }

    /** Decode plus the dependency graph (same-expression memory policy). */
    @Benchmark
    public void decodeAndGraph(Counters c, Blackhole bh) {
        try {
            BasicBlock b = BasicBlock.fromBytes(nextBlock());
            c.instructions += b.size();
            bh.consume(b.dependencyGraph());
        } catch (DecodeException e) {
            bh.consume(e);
        }
    }

    /** {@link #decode} with Zydis called through Java 17's foreign-function API instead of JNA. */
    @Benchmark
    @Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.foreign", "--enable-native-access=ALL-UNNAMED",
        "-Dbasalt.native=panama"})
    public void decodePanama(Counters c, Blackhole bh) {
        decode(c, bh);
    }

    /** {@link #decodeAndGraph} through the foreign-function API. */
    @Benchmark
    @Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.foreign", "--enable-native-access=ALL-UNNAMED",
        "-Dbasalt.native=panama"})
    public void decodeAndGraphPanama(Counters c, Blackhole bh) {
        decodeAndGraph(c, bh);
    }

    public static void main(String[] args) throws Exception {
        org.openjdk.jmh.Main.main(new String[] {DecodeBenchmark.class.getSimpleName()});
    }
}
