package dev.basalt.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.basalt.decoder.BasicBlock;
import dev.basalt.decoder.DecodeException;
import dev.basalt.decoder.Dependency;
import dev.basalt.decoder.DependencyGraph;
import dev.basalt.decoder.Instruction;
import dev.basalt.decoder.MemoryPolicy;
import dev.basalt.decoder.Operand;
import dev.basalt.decoder.Resource;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;

/** {@code basalt decode}: instructions, reads/writes and dependency edges of blocks given as hex. */
@Command(name = "decode", mixinStandardHelpOptions = true,
        description = {"Decode x86-64 basic blocks given as hex (BHive style) and print each instruction "
            + "(offset, bytes, Intel syntax), what it reads and writes, and the block's dependency edges.",
            "Blocks that fail to decode are reported on stderr (input and byte offset) and the exit code is 2; "
                + "the other blocks are still printed."})
final class DecodeCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Parameters(arity = "0..*", paramLabel = "BLOCK", description = "Blocks as hex or assembly, e.g. "
            + "4889de4889c24c89ff "
            + "(quote a block that contains spaces).")
    List<String> arguments;

    @Mixin
    BlockInput blockInput;

    @Option(names = "--json", description = "Print JSON (an array with one object per block); the same as "
            + "--format json.")
    boolean json;

    @Option(names = "--format", defaultValue = "text", description = "text, json or csv (one row per instruction), "
            + "as in the other commands "
            + "(default ${DEFAULT-VALUE}).")
    String format;

    @Option(names = "--memory", defaultValue = "same-expression", paramLabel = "POLICY",
            converter = MemoryPolicyConverter.class,
            description = "Memory aliasing: same-expression (default) or all-alias.")
    MemoryPolicy memoryPolicy;

    @Mixin
    DebugOption debugOption;

    @Override
    public Integer call() throws java.io.IOException {
        List<String> blocks = blockInput.blocks(arguments);
        if (blocks.isEmpty()) {
            throw new BadInputException("no blocks: give hex arguments or --input FILE");
        }
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        ObjectMapper mapper = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
        ArrayNode array = mapper.createArrayNode();
        BadInputException.format(format, "text", "json", "csv");
        boolean asJson = json || format.equals("json");
        boolean asCsv = !asJson && format.equals("csv");
        if (asCsv) {
            out.println("hex,index,offset,bytes,instruction,form,reads,writes");
        }
        boolean failed = false;
        for (int k = 0; k < blocks.size(); k++) {
            String input = blocks.get(k);
            BasicBlock block;
            try {
                block = BasicBlock.fromHex(input);
            } catch (DecodeException e) {
                err.println("basalt decode: input " + (k + 1) + " '" + abbreviate(input) + "': " + e.getMessage());
                if (debugOption.debug) {
                    e.printStackTrace(err);
                }
                failed = true;
                continue;
            }
            DependencyGraph graph = block.dependencyGraph(memoryPolicy);
            if (asJson) {
                array.add(toJson(mapper, block, graph));
            } else if (asCsv) {
                // One row per instruction; the dependency edges are in text and json.
                for (int i = 0; i < block.size(); i++) {
                    Instruction insn = block.instruction(i);
                    out.println(String.join(",", block.hex(), Integer.toString(i), Integer.toString(insn.offset()),
                            insn.hex(), PredictCommand.csvCell(insn.intelSyntax()), PredictCommand.csvCell(insn.form()),
                            PredictCommand.csvCell(names(graph.reads(i)).replace(',', ' ')),
                            PredictCommand.csvCell(names(graph.writes(i)).replace(',', ' '))));
                }
            } else {
                printText(out, block, graph);
            }
        }
        if (asJson) {
            out.println(dev.basalt.core.ReportJson.pretty(array));
        }
        out.flush();
        return failed ? Basalt.EXIT_BAD_INPUT : 0;
    }

    /** A block as an error names it: at most 60 characters. */
    static String abbreviate(String s) {
        return s.length() <= 60 ? s : s.substring(0, 57) + "...";
    }

    /** Whether a block was printed as text already: blocks are separated by a blank line, not followed by one. */
    private boolean printedBlock;

    private void printText(PrintWriter out, BasicBlock block, DependencyGraph graph) {
        if (printedBlock) {
            out.println();
        }
        printedBlock = true;
        out.printf("block %s: %d bytes, %d instructions%n", abbreviate(block.hex()), block.length(), block.size());
        List<String[]> rows = new ArrayList<>();
        rows.add(new String[] {"#", "offset", "bytes", "instruction", "form", "reads", "writes"});
        for (int i = 0; i < block.size(); i++) {
            Instruction insn = block.instruction(i);
            rows.add(new String[] {Integer.toString(i), Integer.toString(insn.offset()), spaced(insn.hex()),
                insn.intelSyntax() + idiomNote(insn), insn.form(), names(graph.reads(i)), names(graph.writes(i))});
        }
        int[] widths = new int[rows.get(0).length];
        for (String[] r : rows) {
            for (int c = 0; c < r.length; c++) {
                widths[c] = Math.max(widths[c], r[c].length());
            }
        }
        for (String[] r : rows) {
            StringBuilder sb = new StringBuilder("  ");
            for (int c = 0; c < r.length; c++) {
                sb.append(String.format("%-" + widths[c] + "s", r[c]));
                if (c < r.length - 1) {
                    sb.append("  ");
                }
            }
            out.println(sb.toString().stripTrailing());
        }
        out.printf("  dependencies (%d, memory %s; loop = from the previous iteration):%n", graph.edges().size(),
                MemoryPolicyConverter.name(graph.memoryPolicy()));
        for (Dependency d : graph.edges()) {
            out.printf("    %d -> %d  %s  %s%s%n", d.producer(), d.consumer(), d.kind(), d.resource().name(),
                    d.loopCarried() ? "  (loop)" : "");
        }
    }

    private static String idiomNote(Instruction insn) {
        return switch (insn.idiom()) {
            case ZERO -> "  ; zero idiom";
            case ONES -> "  ; ones idiom";
            default -> "";
        };
    }

    private static String spaced(String hex) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < hex.length(); i += 2) {
            if (i > 0) {
                sb.append(' ');
            }
            sb.append(hex, i, i + 2);
        }
        return sb.toString();
    }

    private static String names(List<Resource> resources) {
        return resources.isEmpty() ? "-" : resources.stream().map(Resource::name).collect(Collectors.joining(","));
    }

    private static ObjectNode toJson(ObjectMapper mapper, BasicBlock block, DependencyGraph graph) {
        ObjectNode b = mapper.createObjectNode();
        b.put("hex", block.hex());
        b.put("bytes", block.length());
        b.put("memory_policy", MemoryPolicyConverter.name(graph.memoryPolicy()));
        ArrayNode insns = b.putArray("instructions");
        for (int i = 0; i < block.size(); i++) {
            Instruction insn = block.instruction(i);
            ObjectNode n = insns.addObject();
            n.put("index", i);
            n.put("offset", insn.offset());
            n.put("bytes", insn.hex());
            n.put("text", insn.intelSyntax());
            n.put("mnemonic", insn.mnemonic());
            n.put("form", insn.form());
            ArrayNode prefixes = n.putArray("prefixes");
            insn.prefixes().stream().map(p -> p.name().toLowerCase(java.util.Locale.ROOT)).sorted()
                    .forEach(prefixes::add);
            ArrayNode ops = n.putArray("operands");
            for (Operand o : insn.operands()) {
                ops.add(operandJson(mapper, o));
            }
            n.put("flags_read", insn.flagsRead().toString());
            n.put("flags_written", insn.flagsWritten().toString());
            n.put("idiom", insn.idiom().name().toLowerCase(java.util.Locale.ROOT));
            n.put("isa_set", insn.isaSet());
            ArrayNode reads = n.putArray("reads");
            graph.reads(i).forEach(r -> reads.add(r.name()));
            ArrayNode writes = n.putArray("writes");
            graph.writes(i).forEach(r -> writes.add(r.name()));
        }
        ArrayNode deps = b.putArray("dependencies");
        for (Dependency d : graph.edges()) {
            ObjectNode n = deps.addObject();
            n.put("producer", d.producer());
            n.put("consumer", d.consumer());
            n.put("kind", d.kind().name());
            n.put("resource", d.resource().name());
            n.put("resource_kind", d.resource().kind().name().toLowerCase(java.util.Locale.ROOT));
            n.put("loop_carried", d.loopCarried());
        }
        return b;
    }

    private static ObjectNode operandJson(ObjectMapper mapper, Operand o) {
        ObjectNode n = mapper.createObjectNode();
        if (o instanceof Operand.RegisterOperand r) {
            n.put("kind", r.isMask() ? "mask" : "register");
            n.put("register", r.register().name());
        } else if (o instanceof Operand.MemoryOperand m) {
            n.put("kind", "memory");
            n.put("address", m.addressText());
        } else if (o instanceof Operand.AddressOperand a) {
            n.put("kind", "address");
            n.put("address", a.addressText());
        } else if (o instanceof Operand.ImmediateOperand i) {
            n.put("kind", i.relative() ? "relative" : "immediate");
            n.put("value", i.value());
        }
        n.put("size", o.sizeBits());
        n.put("action", o.action().toString());
        n.put("visibility", o.visibility().name().toLowerCase(java.util.Locale.ROOT));
        return n;
    }
}
