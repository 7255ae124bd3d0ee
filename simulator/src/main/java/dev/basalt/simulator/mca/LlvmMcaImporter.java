package dev.basalt.simulator.mca;

import dev.basalt.simulator.facts.EncodingFacts;
import dev.basalt.simulator.params.CoreParams;
import dev.basalt.simulator.params.ImmediateElimination;
import dev.basalt.simulator.params.InstructionParams;
import dev.basalt.simulator.params.RowLookup;
import dev.basalt.simulator.params.SimulatorParams;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.basalt.core.CpuDescriptor;
import dev.basalt.core.Microarchitecture;
import dev.basalt.core.Provenance;
import dev.basalt.decoder.BasicBlock;
import dev.basalt.decoder.Instruction;
import dev.basalt.decoder.Operand;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.IntConsumer;

/**
 * Derives default simulator parameters from llvm-mca-14's scheduling model.
 *
 * <p>Blocks go to the tools in batches: {@code llvm-mc-14 --disassemble} turns each instruction (sent as its
 * own bracketed byte group, so the boundaries are Basalt's) into AT&T text; those become one
 * {@code # LLVM-MCA-BEGIN}/{@code END} region per block of one {@code llvm-mca-14 --instruction-tables --json}
 * run, which reports every instruction's micro-ops, latency and per-port pressure. Each occurrence is mapped
 * back to Basalt's instruction form by position; a form gets its most frequent row. Pressure spread evenly
 * over a set of ports becomes that port group ({@code 0.25} on each of ports 0, 1, 5, 6 → one micro-op on
 * group {@code 0156}, {@link ResourceGroups}). A batch that llvm-mca rejects is split in halves until the offending
 * block is found and left out (and counted). The tools run in {@link LlvmMcaRunner}; this class turns their reports
 * into rows, with the fixes some of llvm-mca's models need.
 */
public final class LlvmMcaImporter {

    /**
     * The most micro-ops a row puts on one port group (the tuner's range, {@code ParameterLayout}): llvm-mca's Zen
     * models charge 100 ALU cycles to the instructions they leave unmodelled (microcoded: CPUID, string
     * instructions, x87 transcendentals, system instructions), a stand-in, not a measurement; the import caps it.
     */
    static final int MAX_GROUP_UOPS = 64;
    /** The descriptor unit of llvm-mca's resource for unsupported instructions, whose pressure is dropped. */
    private static final String INVALID_UNIT = "Invalid";
    /** Descriptor units that are memory pipelines (address generation, load/store queue, load and store pipes). */
    private static final java.util.Set<String> MEMORY_UNITS = java.util.Set.of("AGU", "LSU", "Load", "Store");

    private final String llvmMc;
    private final String llvmMca;
    private final LlvmMcaRunner runner;
    private final ObjectMapper json = new ObjectMapper();

    public LlvmMcaImporter(String llvmMc, String llvmMca) {
        this.llvmMc = llvmMc;
        this.llvmMca = llvmMca;
        this.runner = new LlvmMcaRunner(llvmMc, llvmMca);
    }

    /** What an import did. */
    public record Report(SimulatorParams params, long blocks, long blocksImported, long occurrences,
                         long formsImported) {
    }

    /**
     * Imports parameters for {@code uarch} from the instructions of {@code blocks}.
     *
     * @param command  the command line that asked for it (recorded in the table's provenance)
     * @param progress called with the number of blocks done so far
     */
    public Report run(List<BasicBlock> blocks, Microarchitecture uarch, String command, IntConsumer progress)
            throws IOException, InterruptedException {
        Map<String, Map<InstructionParams, Integer>> byForm = new HashMap<>();
        List<String> ports = new ArrayList<>();
        long imported = 0;
        long occurrences = 0;
        for (int start = 0; start < blocks.size(); start += LlvmMcaRunner.BATCH) {
            List<BasicBlock> batch = blocks.subList(start, Math.min(blocks.size(), start + LlvmMcaRunner.BATCH));
            List<List<String>> asm = runner.disassemble(batch);
            List<BasicBlock> ok = new ArrayList<>();
            List<List<String>> okAsm = new ArrayList<>();
            for (int k = 0; k < batch.size(); k++) {
                if (asm.get(k) != null) {
                    ok.add(batch.get(k));
                    okAsm.add(asm.get(k));
                }
            }
            for (Collected c : tables(ok, okAsm, uarch)) {
                if (ports.isEmpty()) {
                    ports.addAll(c.ports);
                }
                for (int i = 0; i < c.block.size(); i++) {
                    byForm.computeIfAbsent(c.block.instruction(i).form(), f -> new HashMap<>())
                            .merge(c.rows.get(i), 1, Integer::sum);
                    occurrences++;
                }
                imported++;
            }
            progress.accept(Math.min(blocks.size(), start + LlvmMcaRunner.BATCH));
        }
        if (!ports.isEmpty()) {
            // Units the CPU has beyond llvm-mca's model of it (Zen 5's fourth AGU under llvm-mca-19's Zen 4 model)
            // are ports of the table too, for the rules that name them (CoreParams' load and store ports).
            for (CpuDescriptor.Port p : uarch.descriptor().llvmMcaPorts()) {
                if (!ports.contains(p.port()) && !p.unit().equals(INVALID_UNIT)) {
                    ports.add(p.port());
                }
            }
        }
        Map<String, InstructionParams> forms = new TreeMap<>();
        Map<String, Map<InstructionParams, Integer>> byMnemonic = new HashMap<>();
        for (Map.Entry<String, Map<InstructionParams, Integer>> e : byForm.entrySet()) {
            forms.put(e.getKey(), mostFrequent(e.getValue()));
            Map<InstructionParams, Integer> m = byMnemonic.computeIfAbsent(RowLookup.mnemonicOf(e.getKey()),
                    k -> new HashMap<>());
            e.getValue().forEach((row, n) -> m.merge(row, n, Integer::sum));
        }
        Map<String, InstructionParams> mnemonics = new TreeMap<>();
        byMnemonic.forEach((k, v) -> mnemonics.put(k, mostFrequent(v)));
        CpuDescriptor machine = uarch.descriptor();
        Provenance provenance = Provenance.now("simulator-table", command)
                .with("source", llvmMca + " --instruction-tables, disassembly by " + llvmMc)
                .with("blocks", blocks.size())
                .with("blocksImported", imported)
                .with("instructionOccurrences", occurrences)
                .with("machine", "dispatch width, ROB and scheduler sizes of " + uarch
                + "'s CPU descriptor; read-advance " + machine.loadLatency()
                + " on the register sources of load-op forms");
        SimulatorParams params = new SimulatorParams(uarch.llvmName(), machine.dispatchWidth(), machine.robSize(),
                machine.schedulerSize(), machine.loadLatency(), ports, forms, mnemonics,
                new InstructionParams(1, 1, 0, Map.of(ResourceGroups.aluGroup(ports, uarch), 1)), provenance);
        return new Report(params, blocks.size(), imported, occurrences, forms.size());
    }

    /**
     * Adds to {@code base} a row for each form of {@code instances} (one-instruction blocks, e.g. from
     * {@link dev.basalt.decoder.InstructionSpace#sweep()}) that {@code base} lacks, imported as {@link #run} does;
     * every row and mnemonic row of {@code base} stays as it is, so a tuned table keeps its tuning and its
     * predictions of the blocks it already covered.
     *
     * @param command the command line that asked for it (added to the table's provenance)
     */
    public Report addForms(SimulatorParams base, List<BasicBlock> instances, Microarchitecture uarch, String command,
                           IntConsumer progress) throws IOException, InterruptedException {
        List<BasicBlock> missing = instances.stream()
                .filter(b -> b.size() == 1 && !base.forms().containsKey(b.instruction(0).form()))
                .toList();
        if (missing.isEmpty()) { // nothing to add (running llvm-mca on nothing made a table without ports)
            return new Report(base, 0, 0, 0, 0);
        }
        Report r = run(missing, uarch, command, progress);
        if (r.formsImported() > 0 && !r.params().ports().equals(base.ports())) {
            throw new IllegalArgumentException("the table's ports " + base.ports() + " are not llvm-mca's for "
                    + uarch + " " + r.params().ports() + ": is it a table of another CPU?");
        }
        Map<String, InstructionParams> forms = new TreeMap<>(base.forms());
        r.params().forms().forEach(forms::putIfAbsent);
        Map<String, InstructionParams> mnemonics = new TreeMap<>(base.mnemonics());
        r.params().mnemonics().forEach(mnemonics::putIfAbsent);
        Provenance provenance = base.provenance()
                .with("formsAdded", r.formsImported())
                .with("formsAddedBy", command)
                .with("formsAddedFrom", llvmMca + " --instruction-tables, one instance per form, "
                        + "disassembly by " + llvmMc);
        SimulatorParams params = base.toBuilder().forms(forms).mnemonics(mnemonics).provenance(provenance).build();
        return new Report(params, r.blocks(), r.blocksImported(), r.occurrences(), r.formsImported());
    }

    /** Seconds spent inside llvm-mca by {@link #llvmMcaThroughput} calls so far ({@link LlvmMcaRunner}). */
    public double llvmMcaSeconds() {
        return runner.llvmMcaSeconds();
    }

    /** llvm-mca's own throughput of each block ({@link LlvmMcaRunner#llvmMcaThroughput}). */
    public double[] llvmMcaThroughput(List<BasicBlock> blocks, Microarchitecture uarch, int iterations)
            throws IOException, InterruptedException {
        return runner.llvmMcaThroughput(blocks, uarch, iterations);
    }

    private static InstructionParams mostFrequent(Map<InstructionParams, Integer> rows) {
        return rows.entrySet().stream()
                .max(Comparator.<Map.Entry<InstructionParams, Integer>>comparingInt(Map.Entry::getValue)
                        .thenComparing(e -> e.getKey().toString(), Comparator.reverseOrder()))
                .orElseThrow().getKey();
    }

    private record Collected(BasicBlock block, List<InstructionParams> rows, List<String> ports) {
    }

    /** Runs llvm-mca on the blocks, splitting the batch when llvm-mca rejects it. */
    private List<Collected> tables(List<BasicBlock> blocks, List<List<String>> asm, Microarchitecture uarch)
            throws IOException, InterruptedException {
        if (blocks.isEmpty()) {
            return List.of();
        }
        String report = runner.instructionTables(asm, uarch);
        if (report != null) {
            List<Collected> out = parse(report, blocks, uarch);
            if (out != null) {
                return out;
            }
        }
        if (blocks.size() == 1) {
            return List.of();
        }
        int half = blocks.size() / 2;
        List<Collected> out = new ArrayList<>(tables(blocks.subList(0, half), asm.subList(0, half), uarch));
        out.addAll(tables(blocks.subList(half, blocks.size()), asm.subList(half, asm.size()), uarch));
        return out;
    }

    private List<Collected> parse(String text, List<BasicBlock> blocks, Microarchitecture uarch) throws IOException {
        JsonNode root = json.readTree(text);
        List<String> ports = new ArrayList<>();
        Map<String, String> units = new HashMap<>();
        for (JsonNode n : root.path("TargetInfo").path("Resources")) {
            String resource = n.asText().replace("\u0000", "0").replace("\u0001", "1").replace("\u0002", "2");
            java.util.Optional<CpuDescriptor.Port> mapped = uarch.descriptor().port(resource);
            if (mapped.isEmpty() && !uarch.descriptor().llvmMcaPorts().isEmpty()) {
                throw new IOException("llvm-mca resource " + resource + " of " + uarch + " is not in its CPU "
                        + "descriptor's llvmMcaPorts");
            }
            String port = mapped.map(CpuDescriptor.Port::port).orElseGet(() -> ResourceGroups.portName(resource));
            ports.add(port);
            units.put(port, mapped.map(CpuDescriptor.Port::unit).orElse("port"));
        }
        // Where the machine rebuilds memory micro-ops from the operands (CoreParams' load and store ports), the
        // memory pipelines' pressure stays out of the rows: else a load would count once as llvm-mca's AGU, LSU
        // and load-pipe cycles and again as the machine's load micro-op, and a load-op form's load could not be
        // told from its operation.
        boolean rebuilt = memoryRebuilt(uarch);
        JsonNode regions = root.path("CodeRegions");
        if (regions.size() != blocks.size()) {
            return null;
        }
        List<Collected> out = new ArrayList<>();
        for (int k = 0; k < blocks.size(); k++) {
            JsonNode region = regions.get(k);
            JsonNode infos = region.path("InstructionInfoView").path("InstructionList");
            BasicBlock b = blocks.get(k);
            if (infos.size() != b.size()) {
                continue;
            }
            List<Map<String, Double>> pressure = new ArrayList<>();
            for (int i = 0; i < b.size(); i++) {
                pressure.add(new TreeMap<>());
            }
            for (JsonNode p : region.path("ResourcePressureView").path("ResourcePressureInfo")) {
                int i = p.path("InstructionIndex").asInt();
                boolean memory = i < b.size() && accessesMemory(b.instruction(i), infos.get(i));
                String port = ports.get(p.path("ResourceIndex").asInt());
                if (INVALID_UNIT.equals(units.get(port))) {
                    continue; // llvm-mca's stand-in for what its model does not support (SPRPortInvalid)
                }
                if (i < b.size() && !(rebuilt && memory && MEMORY_UNITS.contains(units.get(port)))) {
                    pressure.get(i).merge(port,
                            p.path("ResourceUsage").asDouble(), Double::sum);
                }
            }
            List<InstructionParams> rows = new ArrayList<>();
            for (int i = 0; i < b.size(); i++) {
                JsonNode info = infos.get(i);
                boolean loadOp = info.path("mayLoad").asBoolean() && hasRegisterSource(b.instruction(i));
                Map<String, Integer> groups = ResourceGroups.groups(pressure.get(i), units);
                if (rebuilt && !accessesMemory(b.instruction(i), info)) {
                    groups = ResourceGroups.aluForAgu(groups, units, ResourceGroups.aluGroup(ports, uarch));
                }
                groups.replaceAll((g, n) -> g.endsWith("Divider") ? n : Math.min(n, MAX_GROUP_UOPS));
                int uops = info.path("NumMicroOpcodes").asInt();
                if (uops == 0 && renameEliminated(b.instruction(i), info)) {
                    // llvm-mca's Golden Cove model (Sapphire and Granite Rapids) gives the forms that core can
                    // execute at rename (add/sub of a small immediate, inc, dec, register moves) no micro-op and no
                    // port, but their latency. Whether one is eliminated depends on its immediate, the offset
                    // already pending and the renamer's slots (ImmediateElimination, move elimination): the row is
                    // the instruction when it executes, one ALU micro-op.
                    uops = 1;
                    groups = new TreeMap<>(Map.of(ResourceGroups.aluGroup(ports, uarch), 1));
                }
                int latency = info.path("Latency").asInt();
                int store = runner.plainStoreLatency(uarch);
                if (info.path("mayStore").asBoolean() && store > 1 && latency >= store) {
                    // llvm-mca's Golden Cove model charges every store 12 cycles (a store-to-load round trip of
                    // its source tables), where Basalt's machine keeps forwarding in CoreParams: the row's latency
                    // is when the data is written — 1 for a store, its load and operation for a read-modify-write
                    // (Skylake's rows: 1 and 7).
                    latency = latency - store + 1 + (info.path("mayLoad").asBoolean()
                            ? uarch.descriptor().loadLatency() : 0);
                }
                if (store > 1 && latency == 0 && uops > 0 && !accessesMemory(b.instruction(i), info)
                        && ImmediateElimination.writtenRegisters(b.instruction(i)).length > 0
                        && !EncodingFacts.of(b.instruction(i)).noPort()) {
                    // It also gives register moves and movzx latency 0, its rename-time elimination; Basalt's
                    // renamer eliminates moves itself when it can (measured: movzx rax, al chains at 1.00 cycle).
                    latency = 1;
                }
                if (store > 1 && latency >= 3 && fastAdder(b.instruction(i))) {
                    // Its floating-point adds take 3 cycles; the Xeon 6 measures 2 (addss, addsd, vaddps ymm and
                    // vsubps xmm chains at 2.00; DESIGN.md §15), the fast adders of Golden Cove. 512-bit adds keep
                    // the row's (measured 3.49, noisy).
                    latency--;
                }
                if (store > 1 && latency == 4 && b.instruction(i).mnemonic().equals("mul")
                        && b.instruction(i).operands().get(0).sizeBits() == 64) {
                    // And mul r64 4 cycles, where the Xeon 6 measures 3 (a mul rcx chain through rax at 3.00).
                    latency = 3;
                }
                if (store > 1 && b.instruction(i).mnemonic().equals("fxch")) {
                    // And fxch 15 micro-ops and 17 cycles, a microcoded row, where the Xeon 6 runs fxch st1 at 1.00
                    // cycle an iteration, two fxch at 2.00 and three at 3.00 (each on the chain through st0): one
                    // ALU micro-op of one cycle.
                    uops = 1;
                    latency = 1;
                    groups = new TreeMap<>(Map.of(ResourceGroups.aluGroup(ports, uarch), 1));
                }
                if (store > 1 && b.instruction(i).mnemonic().equals("lea") && groups.size() == 1) {
                    // The same model puts every lea on port 1 alone; Golden Cove runs lea on its integer ALUs (one
                    // of 1 micro-op: the measured blocks with a lea were predicted 16% slow on port 1 alone).
                    groups = new TreeMap<>(Map.of(ResourceGroups.aluGroup(ports, uarch),
                            groups.values().iterator().next()));
                }
                rows.add(new InstructionParams(uops, latency, loadOp ? uarch.descriptor().loadLatency() : 0, groups));
            }
            out.add(new Collected(b, rows, ports.stream().filter(p -> !INVALID_UNIT.equals(units.get(p)))
                    .distinct().toList()));
        }
        return out;
    }

    /** Scalar or packed single or double add or subtract, SSE or AVX, of at most 256 bits. */
    private static boolean fastAdder(Instruction insn) {
        if (!insn.mnemonic().matches("v?(add|sub)[sp][sd]")) {
            return false;
        }
        for (var op : insn.operands()) {
            if (op.sizeBits() > 256) {
                return false;
            }
        }
        return true;
    }

    /**
     * Whether llvm-mca gives {@code insn} no micro-op because its model eliminates it at rename: an integer
     * instruction of latency 1 or more that touches no memory, is no zero idiom, no NOP and no branch.
     */
    private static boolean renameEliminated(Instruction insn, JsonNode info) {
        EncodingFacts f = EncodingFacts.of(insn);
        return !accessesMemory(insn, info) && !f.noPort() && info.path("Latency").asInt() >= 1
                && !insn.category().equals("COND_BR") && !insn.category().equals("UNCOND_BR")
                && !insn.mnemonic().equals("nop");
    }

    /**
     * Whether an instruction reads or writes memory: llvm-mca says so, or Basalt's decoder does (llvm-mca does not
     * flag some, such as {@code enqcmd}).
     */
    private static boolean accessesMemory(Instruction insn, JsonNode info) {
        if (info.path("mayLoad").asBoolean() || info.path("mayStore").asBoolean()) {
            return true;
        }
        EncodingFacts f = EncodingFacts.of(insn);
        return f.loads() > 0 || f.stores();
    }

    /**
     * Whether {@code uarch}'s imported rows leave memory micro-ops to the machine: its descriptor names llvm-mca's
     * memory units and its machine has load ports (Zen 4 and 5). Such rows are not llvm-mca's any more, so the
     * llvm-mca-compatible first machine does not reproduce llvm-mca on them.
     */
    public static boolean memoryRebuilt(Microarchitecture uarch) {
        return !CoreParams.defaults(uarch.llvmName()).loadPorts().isEmpty() && uarch.descriptor().llvmMcaPorts()
                .stream().anyMatch(p -> MEMORY_UNITS.contains(p.unit()));
    }

    /** True if a visible register operand is read (the operand a load-op instruction may read late). */
    private static boolean hasRegisterSource(Instruction insn) {
        for (Operand o : insn.operands()) {
            if (o instanceof Operand.RegisterOperand r && r.visibility().isVisible() && r.action().readsOldValue()) {
                return true;
            }
        }
        return false;
    }
}
