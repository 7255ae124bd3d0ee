package dev.basalt.granite;

import dev.basalt.datasets.Tokens;
import dev.basalt.decoder.BasicBlock;
import dev.basalt.decoder.Idiom;
import dev.basalt.decoder.Instruction;
import dev.basalt.decoder.MemoryPolicy;
import dev.basalt.decoder.Operand;
import dev.basalt.decoder.Register;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * The graph GRANITE reads a block as (DESIGN.md §5, after Sýkora et al. 2022).
 *
 * <p>Walk the instructions in order, keeping the current value node of every register (by enclosing
 * register: writing {@code eax} makes a new {@code rax} value) and of every memory alias group. An input
 * register links its current value node (created on first read); a memory operand or {@code lea} address
 * creates an address node fed by its base, index and segment values and a displacement node, and the
 * address feeds the instruction; a memory input also links the group's current memory node; an immediate is
 * a node of its own; every output creates a new value node, which becomes current. 8/16-bit register writes
 * merge with the old value, so they are inputs too; dependency-breaking idioms have no register inputs.
 * Consecutive instructions are linked by structural edges; prefixes are nodes linked to their instruction.
 * Data dependencies are thus paths instruction → value → instruction.
 *
 * @param nodes            every node, in creation order
 * @param edges            every edge, in creation order
 * @param instructionNodes the node of each instruction, in block order
 */
public record GraniteGraph(List<Node> nodes, List<Edge> edges, List<Integer> instructionNodes) {

    /** Node kinds. */
    public enum NodeKind { INSTRUCTION, REGISTER, IMMEDIATE, ADDRESS, MEMORY, PREFIX }

    /** Edge types (each has a learned embedding). */
    public enum EdgeType {
        STRUCTURAL, INPUT_OPERAND, OUTPUT_OPERAND, ADDRESS_BASE, ADDRESS_INDEX, ADDRESS_SEGMENT,
        ADDRESS_DISPLACEMENT, INSTRUCTION_PREFIX
    }

    /** A node and its token. */
    public record Node(NodeKind kind, String token) {
        public Node {
            Objects.requireNonNull(kind, "kind");
            Objects.requireNonNull(token, "token");
        }
    }

    /** A directed, typed edge between node indices. */
    public record Edge(int sender, int receiver, EdgeType type) {
        public Edge {
            Objects.requireNonNull(type, "type");
        }
    }

    public GraniteGraph {
        nodes = List.copyOf(nodes);
        edges = List.copyOf(edges);
        instructionNodes = List.copyOf(instructionNodes);
    }

    /** The bag of tokens: how many nodes carry each token (GRANITE's graph-level feature). */
    public Map<String, Integer> tokenCounts() {
        Map<String, Integer> m = new TreeMap<>();
        for (Node n : nodes) {
            m.merge(n.token(), 1, Integer::sum);
        }
        return m;
    }

    /** Number of edges of a type. */
    public long count(EdgeType type) {
        return edges.stream().filter(e -> e.type() == type).count();
    }

    /** Number of nodes of a kind. */
    public long count(NodeKind kind) {
        return nodes.stream().filter(n -> n.kind() == kind).count();
    }

    /** Builds the graph of a block; memory inputs link the last store of their alias group under {@code policy}. */
    public static GraniteGraph of(BasicBlock block, MemoryPolicy policy) {
        Builder b = new Builder(policy);
        for (Instruction insn : block.instructions()) {
            b.add(insn);
        }
        return new GraniteGraph(b.nodes, b.edges, b.instructionNodes);
    }

    private static final class Builder {
        final MemoryPolicy policy;
        final List<Node> nodes = new ArrayList<>();
        final List<Edge> edges = new ArrayList<>();
        final List<Integer> instructionNodes = new ArrayList<>();
        final Map<Integer, Integer> registerValue = new HashMap<>(); // enclosing register id -> node
        final Map<String, Integer> memoryValue = new HashMap<>();    // alias group -> node

        Builder(MemoryPolicy policy) {
            this.policy = policy;
        }

        int node(NodeKind kind, String token) {
            nodes.add(new Node(kind, token));
            return nodes.size() - 1;
        }

        void edge(int from, int to, EdgeType type) {
            edges.add(new Edge(from, to, type));
        }

        int readRegister(Register r) {
            return registerValue.computeIfAbsent(r.enclosingId(), k -> node(NodeKind.REGISTER, upper(r.name())));
        }

        void add(Instruction insn) {
            int self = node(NodeKind.INSTRUCTION, upper(insn.mnemonic()));
            if (!instructionNodes.isEmpty()) {
                edge(instructionNodes.get(instructionNodes.size() - 1), self, EdgeType.STRUCTURAL);
            }
            instructionNodes.add(self);
            insn.prefixes().stream().map(Enum::name).sorted()
                    .forEach(p -> edge(node(NodeKind.PREFIX, p), self, EdgeType.INSTRUCTION_PREFIX));
            boolean idiom = insn.idiom() != Idiom.NONE;
            List<Runnable> outputs = new ArrayList<>();
            for (Operand o : insn.operands()) {
                if (o instanceof Operand.RegisterOperand r) {
                    Register reg = r.register();
                    boolean merge = r.action().writes() && reg.isPartialWrite();
                    if (!idiom && (r.action().readsOldValue() || merge)) {
                        edge(readRegister(reg), self, EdgeType.INPUT_OPERAND);
                    }
                    if (r.action().writes()) {
                        outputs.add(() -> {
                            int v = node(NodeKind.REGISTER, upper(reg.name()));
                            edge(self, v, EdgeType.OUTPUT_OPERAND);
                            registerValue.put(reg.enclosingId(), v);
                        });
                    }
                } else if (o instanceof Operand.MemoryOperand m) {
                    int address = address(m.segment(), m.base(), m.index(), m.displacement());
                    edge(address, self, EdgeType.INPUT_OPERAND);
                    String group = policy == MemoryPolicy.ALL_ALIAS ? "mem" : groupKey(m);
                    if (m.action().readsOldValue()) {
                        int mem = memoryValue.computeIfAbsent(group, k -> node(NodeKind.MEMORY, Tokens.MEMORY));
                        edge(mem, self, EdgeType.INPUT_OPERAND);
                    }
                    if (m.action().writes()) {
                        outputs.add(() -> {
                            int v = node(NodeKind.MEMORY, Tokens.MEMORY);
                            edge(self, v, EdgeType.OUTPUT_OPERAND);
                            memoryValue.put(group, v);
                        });
                    }
                } else if (o instanceof Operand.AddressOperand a) {
                    edge(address(a.segment(), a.base(), a.index(), a.displacement()), self, EdgeType.INPUT_OPERAND);
                } else {
                    edge(node(NodeKind.IMMEDIATE, Tokens.IMMEDIATE), self, EdgeType.INPUT_OPERAND);
                }
            }
            // Outputs after all inputs: an instruction reads the old value of what it overwrites.
            outputs.forEach(Runnable::run);
        }

        int address(Register segment, Register base, Register index, long displacement) {
            int address = node(NodeKind.ADDRESS, Tokens.ADDRESS);
            if (base.isPresent() && base.registerClass() != dev.basalt.decoder.RegisterClass.IP) {
                edge(readRegister(base), address, EdgeType.ADDRESS_BASE);
            }
            if (index.isPresent()) {
                edge(readRegister(index), address, EdgeType.ADDRESS_INDEX);
            }
            String seg = segment.name();
            if (segment.isPresent() && (seg.equals("fs") || seg.equals("gs"))) {
                edge(readRegister(segment), address, EdgeType.ADDRESS_SEGMENT);
            }
            if (displacement != 0) {
                edge(node(NodeKind.IMMEDIATE, Tokens.DISPLACEMENT), address, EdgeType.ADDRESS_DISPLACEMENT);
            }
            return address;
        }

        /** Same address expression over the same register values: the current value nodes name them. */
        String groupKey(Operand.MemoryOperand m) {
            Integer base = m.base().isPresent() ? registerValue.get(m.base().enclosingId()) : null;
            Integer index = m.index().isPresent() ? registerValue.get(m.index().enclosingId()) : null;
            return m.segment().name() + "|" + m.base().name() + "#" + base + "|" + m.index().name() + "#" + index
                    + "*" + m.scale() + "|" + m.displacement();
        }

        static String upper(String s) {
            return s.toUpperCase(Locale.ROOT);
        }
    }
}
