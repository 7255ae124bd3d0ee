package dev.basalt.simulator.facts;

import dev.basalt.simulator.harness.BhiveMemory;
import dev.basalt.simulator.params.InstructionParams;
import dev.basalt.simulator.params.PortGroups;
import dev.basalt.simulator.params.Resolved;
import dev.basalt.simulator.params.RowLookup;
import dev.basalt.simulator.params.SimulatorParams;
import dev.basalt.core.Microarchitecture;
import dev.basalt.decoder.BasicBlock;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * One CPU as every machine sees it: its table, its rows by form, its ports and port groups, the harness its
 * measurements were taken in, and the per-instruction facts shared across runs. Both machines and the bounds take
 * it; {@code Simulator} is the facade over one.
 */
public final class CpuContext {

    private final SimulatorParams params;
    private final RowLookup rows;
    private final PortGroups ports;
    private final BhiveMemory.Harness harness;
    private final InstructionFacts.Cache facts;
    /** {@link CoreParams#falseOutputDependencies()} as the decoder's (lower-case) mnemonics. */
    private final Set<String> falseOutput;
    /** How many cycles a run may take per instruction instance before it is taken as never finishing. */
    private final long cyclesPerInstance;
    private final int adderLatency;

    /** The context of {@code params}'s CPU, keeping its per-instruction facts in {@code facts}. */
    public CpuContext(SimulatorParams params, InstructionFacts.Cache facts) {
        this.facts = facts;
        this.params = Objects.requireNonNull(params, "params");
        // A CPU Basalt measured itself was measured in basalt measure's harness, the others in BHive's.
        this.harness = Microarchitecture.find(params.mcpu())
                .filter(m -> Microarchitecture.hostMeasured().contains(m))
                .map(m -> BhiveMemory.Harness.BASALT).orElse(BhiveMemory.Harness.BHIVE);
        this.falseOutput = params.core().falseOutputDependencies().stream()
                .map(m -> m.toLowerCase(Locale.ROOT)).collect(Collectors.toUnmodifiableSet());
        // Rows by form and port demands precomputed for every row, so that a run does no string work beyond one
        // lookup per instruction.
        this.rows = new RowLookup(params);
        this.ports = new PortGroups(params);
        long longest = 0;  // the most cycles one instance of any row can hold the machine: its latency and ports
        for (InstructionParams row : allRows(params)) {
            long busy = row.latency();
            for (int cycles : row.ports().values()) {
                busy += cycles;
            }
            longest = Math.max(longest, busy);
        }
        this.cyclesPerInstance = 1000 + longest;
        this.adderLatency = resolve("ADDSD xmm, xmm").row().latency();
    }

    private static List<InstructionParams> allRows(SimulatorParams params) {
        List<InstructionParams> rows = new ArrayList<>(params.forms().values());
        rows.addAll(params.mnemonics().values());
        rows.add(params.generic());
        return rows;
    }

    /** The parameter table. */
    public SimulatorParams params() {
        return params;
    }

    /** The table's rows by form, with their fallbacks. */
    public RowLookup rows() {
        return rows;
    }

    /** Looks up an instruction form with the per-mnemonic and generic fallbacks ({@link RowLookup}). */
    public Resolved resolve(String form) {
        return rows.resolve(form);
    }

    /** The CPU's ports and port groups, and each row's port demands. */
    public PortGroups ports() {
        return ports;
    }

    /** Whose harness's memory layout the block's addresses follow ({@link BhiveMemory.Harness}). */
    public BhiveMemory.Harness harness() {
        return harness;
    }

    /** Per-instruction facts of the second machine, kept by decoding. */
    public InstructionFacts.Cache facts() {
        return facts;
    }

    /** The mnemonics whose writes wait for their destination's old value (false output dependencies). */
    public Set<String> falseOutput() {
        return falseOutput;
    }

    /** The FP adder's latency, {@code ADDSD xmm, xmm}'s row: what a conversion's merged value takes (MergeOperand). */
    public int adderLatency() {
        return adderLatency;
    }

    /**
     * Fails a run of {@code total} instances of {@code block} that reached cycle {@code now}: no instruction takes
     * 1,000 cycles, so a run that long is a bug of a machine, not a block.
     */
    public void checkRunLength(long now, long total, BasicBlock block) {
        // a table may hold an instruction for thousands of cycles (a fuzzed one held port 0 for 8,256): the limit
        // grows with the longest row, so only a machine that never finishes trips it
        if (now > cyclesPerInstance * total + 100_000L) {
            throw new IllegalStateException("simulation of " + block.hex() + " did not finish");
        }
    }
}
