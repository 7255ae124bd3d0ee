package dev.basalt.simulator;

import dev.basalt.decoder.BasicBlock;
import dev.basalt.decoder.Decoding;
import dev.basalt.decoder.Instruction;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What the second machine knows of a block before it runs it: per instruction its place, shape, micro-ops and
 * ports, latencies, and the sources it waits for (register, memory and the harness's store→load pairs). The
 * machine's run ({@link Pipeline}) and the analytical bounds ({@link Bounds}) read the same facts, so with the
 * same mechanisms on the run can never beat a bound; the bounds need nothing else, and so cost a fraction of a run.
 *
 * <p>A {@code Pipeline} is a run over these facts (it extends this class, so that its cycle loop reads them as
 * its own fields).
 */
class BlockFacts {

    final Simulator simulator;
    final CoreParams core;
    final Simulator.Options options;
    final BasicBlock block;
    final int n;
    final long blockBytes;
    // Per instruction of the block.
    final InstructionFacts[] facts;
    final int[] offset;
    final InstructionShape[] shape;
    final int[] unfused;
    final int[] latency;
    final int[] readAdvance;
    final int[][] demand;
    final int[] issueSlots; // fused micro-ops at the renamer and in the reorder buffer
    final boolean[] stackOp; // push, pop, call, ret
    // Instructions preceded by a stack-synchronisation micro-op: one more issue slot and ALU micro-op, and
    // their rsp arrives a cycle later.
    final boolean[] stackSync;
    // Load+operation instructions and stores execute in two steps, as their unfused micro-ops do: the address
    // micro-ops (loads, store address: the last addressUops of demand) when the address is ready, the rest
    // when the loaded data and the other sources are.
    final boolean[] twoStep;
    final int[] addressUops;
    final boolean[] loading;
    final boolean[] locked; // locked read-modify-writes
    final boolean[] memoryAccess;
    // Sources, in consumer order (Simulator.Sources).
    final int[] start;
    final int[] producers;
    final boolean[] memorySource;
    final boolean[] addressSource;
    final boolean[] partialSource; // a store→load source whose store does not contain the load
    final Map<String, Simulator.RowSource> fallbacks; // forms the table has no row of, in block order
    final BhiveMemory.Program memory; // the block compiled for BHive's harness values
    final int maxDemand;

    BlockFacts(Simulator simulator, BasicBlock block, Simulator.Options options) {
        this.simulator = simulator;
        this.core = simulator.params().core();
        this.options = options;
        this.block = block;
        this.n = block.size();
        this.facts = new InstructionFacts[n];
        this.offset = new int[n];
        this.shape = new InstructionShape[n];
        this.unfused = new int[n];
        this.latency = new int[n];
        this.readAdvance = new int[n];
        this.demand = new int[n][];
        this.issueSlots = new int[n];
        this.stackOp = new boolean[n];
        this.twoStep = new boolean[n];
        this.addressUops = new int[n];
        this.loading = new boolean[n];
        this.locked = new boolean[n];
        this.memoryAccess = new boolean[n];
        // Per-instruction facts come from the simulator's cache (InstructionFacts); only what depends on the
        // block — the stack engine's synchronisation micro-ops, the sources — is added here.
        Map<Decoding, InstructionFacts> known = simulator.facts().forSwitches(options);
        boolean[] usesStack = new boolean[n];
        BhiveMemory.Step[] steps = new BhiveMemory.Step[n];
        for (int i = 0; i < n; i++) {
            facts[i] = simulator.facts().get(known, simulator, block.instruction(i), options);
            steps[i] = facts[i].memory();
            stackOp[i] = facts[i].stackOp();
            usesStack[i] = facts[i].usesStackPointer();
        }
        this.stackSync = options.stackEngine() ? InstructionShape.stackSyncs(stackOp, usesStack) : new boolean[n];
        int alu = simulator.aluGroup();
        int slowLea = simulator.slowLeaGroup();
        int widest = 0;
        long bytes = 0;
        Map<String, Simulator.RowSource> missing = Map.of();
        for (int i = 0; i < n; i++) {
            Instruction insn = block.instruction(i);
            InstructionFacts f = facts[i];
            if (f.resolved().source() != Simulator.RowSource.FORM) {
                if (missing.isEmpty()) {
                    missing = new LinkedHashMap<>();
                }
                missing.put(insn.form(), f.resolved().source());
            }
            offset[i] = insn.offset();
            bytes = Math.max(bytes, insn.offset() + (long) insn.length());
            int[] ops = f.ops();
            if (stackSync[i] && alu >= 0) { // the sync micro-op, on an ALU port, before the rest
                int[] withSync = new int[ops.length + 1];
                withSync[0] = alu;
                System.arraycopy(ops, 0, withSync, 1, ops.length);
                ops = withSync;
            }
            unfused[i] = Math.max(1, Simulator.portMicroOps(ops));
            shape[i] = stackSync[i] && alu < 0 // (every table has an ALU group; this keeps the rule whole)
                    ? InstructionShape.of(insn, f.resolved().row(), Math.max(1, unfused[i] - 1), core,
                    options.microFusion(), options.moveElimination())
                    : f.shape();
            issueSlots[i] = shape[i].issueUops() + (stackSync[i] ? 1 : 0);
            latency[i] = f.latency();
            readAdvance[i] = f.readAdvance();
            if (slowLea >= 0 && f.slowLea()) { // its own unit and latency, whatever the row
                ops = new int[] {slowLea};
                unfused[i] = 1;
                latency[i] = Math.max(latency[i], core.slowLeaLatency());
            }
            demand[i] = shape[i].noPort() ? new int[0] : ops;
            int loads = simulator.hasLoadPorts() ? f.loads() : 0;
            int address = loads + (simulator.hasLoadPorts() && f.stores() ? 1 : 0);
            twoStep[i] = address > 0 && !shape[i].noPort() && Simulator.portMicroOps(ops) > address;
            addressUops[i] = shape[i].noPort() ? 0 : address;
            loading[i] = loads > 0;
            widest = Math.max(widest, demand[i].length);
            if (core.lockCycles() > 0) {
                locked[i] = f.locked();
                memoryAccess[i] = f.loads() > 0 || f.stores();
                if (locked[i]) {
                    latency[i] = Math.max(latency[i], core.lockCycles());
                }
            }
        }
        this.fallbacks = missing;
        this.blockBytes = Math.max(1, bytes);
        this.maxDemand = Math.max(1, widest);
        this.memory = new BhiveMemory.Program(block, steps);
        Simulator.Sources src = Simulator.sources(block, options, stackOp, memory, simulator.falseOutput());
        this.start = src.start();
        this.producers = src.producers();
        this.memorySource = src.memory();
        this.addressSource = src.address();
        this.partialSource = src.partial();
        // A load that also reads a register as data (a partial write merging into it: mov ax, [m]) executes in
        // two steps too: the merge waits for the old value, the load does not.
        for (int i = 0; i < n; i++) {
            for (int k = start[i]; k < start[i + 1] && loading[i] && !twoStep[i] && addressUops[i] > 0; k++) {
                twoStep[i] = !memorySource[k] && !addressSource[k];
            }
        }
    }

    /**
     * What a user should know of this block's numbers ({@link dev.basalt.core.Prediction#notes()}): each
     * instruction no estimator prices, then each form the table has no row for.
     */
    java.util.List<String> notes() {
        java.util.List<String> notes = new java.util.ArrayList<>();
        for (int i = 0; i < n; i++) {
            if (facts[i].unmodelled() != null) {
                notes.add(dev.basalt.core.UnmodelledInstructions.note(i, block.instruction(i), facts[i].unmodelled()));
            }
        }
        SimulatorEstimator.addFallbackNotes(notes, fallbacks);
        return notes;
    }
}
