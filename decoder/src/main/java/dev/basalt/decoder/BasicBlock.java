package dev.basalt.decoder;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * A decoded basic block: its bytes, its instructions and its {@link DependencyGraph}.
 *
 * <p>A final class rather than a record only so that it can cache its dependency graph, built on first use
 * (most callers need it, some never do, and it costs as much as decoding). Equality is by bytes.
 * Immutable and thread-safe.
 *
 * <pre>{@code
 * BasicBlock block = BasicBlock.fromHex("4889de4889c24c89ff");
 * block.instructions().get(0).intelSyntax();   // "mov rsi, rbx"
 * block.dependencyGraph().edges();              // RAW/WAR/WAW edges, loop-carried ones flagged
 * }</pre>
 */
public final class BasicBlock {

    private final byte[] bytes;
    private final List<Instruction> instructions;
    private volatile DependencyGraph graph;

    private BasicBlock(byte[] bytes, List<Instruction> instructions) {
        this.bytes = bytes;
        this.instructions = instructions;
    }

    /**
     * Decodes a block from hex text (BHive style: {@code 4889de}, any case, optional whitespace and
     * {@code 0x}).
     *
     * @throws DecodeException             naming the byte offset when the text or the machine code is bad
     * @throws ZydisUnavailableException   when the Zydis library cannot be loaded
     */
    public static BasicBlock fromHex(String hex) {
        return fromBytes(Hex.parse(hex));
    }

    /**
     * Decodes a block from machine code. The whole array must decode into whole instructions.
     *
     * @throws DecodeException             naming the byte offset when the bytes are not valid x86-64 code
     * @throws ZydisUnavailableException   when the Zydis library cannot be loaded
     */
    public static BasicBlock fromBytes(byte[] bytes) {
        Objects.requireNonNull(bytes, "bytes");
        byte[] copy = bytes.clone();
        return new BasicBlock(copy, Zydis.get().decode(copy, copy.length));
    }

    /**
     * How the decoder calls Zydis: {@code "panama"} (the foreign-function API, when the JVM runs with
     * {@code --add-modules jdk.incubator.foreign --enable-native-access=ALL-UNNAMED}) or {@code "jna"}.
     * Both decode identically; panama makes each native call about ten times cheaper.
     *
     * @throws ZydisUnavailableException when the Zydis library cannot be loaded
     */
    public static String nativeBinding() {
        return Zydis.get().binding();
    }

    /** The instructions in order. */
    public List<Instruction> instructions() {
        return instructions;
    }

    /** Instruction {@code i}. */
    public Instruction instruction(int i) {
        return instructions.get(i);
    }

    /** Number of instructions. */
    public int size() {
        return instructions.size();
    }

    /** A copy of the machine code. */
    public byte[] bytes() {
        return bytes.clone();
    }

    /** Length in bytes. */
    public int length() {
        return bytes.length;
    }

    /** Lower-case hex, as BHive writes it. */
    public String hex() {
        return Hex.format(bytes);
    }

    /** The dependency graph under {@link MemoryPolicy#SAME_EXPRESSION}, built once. */
    public DependencyGraph dependencyGraph() {
        DependencyGraph g = graph;
        if (g == null) {
            g = DependencyGraph.build(instructions, MemoryPolicy.SAME_EXPRESSION);
            graph = g; // benign race: every thread builds an equal graph
        }
        return g;
    }

    /** The dependency graph under the given memory policy (built on each call for the non-default policy). */
    public DependencyGraph dependencyGraph(MemoryPolicy policy) {
        return policy == MemoryPolicy.SAME_EXPRESSION ? dependencyGraph() : DependencyGraph.build(instructions, policy);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof BasicBlock other && Arrays.equals(bytes, other.bytes);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(bytes);
    }

    @Override
    public String toString() {
        return hex();
    }
}
