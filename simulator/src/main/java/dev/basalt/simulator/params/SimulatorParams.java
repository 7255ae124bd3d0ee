package dev.basalt.simulator.params;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.basalt.core.AtomicFiles;
import dev.basalt.core.Microarchitecture;
import dev.basalt.core.Provenance;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * One CPU's simulator parameters (DESIGN.md §7), stored as one human-readable JSON file.
 *
 * @param mcpu          llvm-mca CPU name
 * @param dispatchWidth micro-ops dispatched per cycle
 * @param robSize       reorder-buffer entries (micro-ops)
 * @param schedulerSize scheduler entries (micro-ops waiting to issue)
 * @param loadLatency   cycles of a load (informational: load latency is part of each form's latency)
 * @param ports         the execution ports ("0".."7") and dividers ("Divider", "FPDivider")
 * @param forms         parameters per instruction form ({@code ADD r64, m64})
 * @param mnemonics     fallback per mnemonic ({@code ADD}), for forms not in {@code forms}
 * @param generic       fallback for anything else
 * @param provenance    how the table was made (typed: command, version, data, seed; details: source, stage,
 *                      counts); an older file's untyped map reads as details
 * @param schemaVersion the table format: 1 (no {@code core}; read with {@link CoreParams#defaults}) or 2
 *                      ({@link #SCHEMA_VERSION}); a table is always held, and written, as the current version,
 *                      and a newer one than this build knows is refused with a clear error
 * @param core          the machine-wide parameters of the second-generation simulator (front end, renamer,
 *                      retirement, move elimination, store forwarding)
 */
public record SimulatorParams(String mcpu, int dispatchWidth, int robSize, int schedulerSize, int loadLatency,
                              List<String> ports, Map<String, InstructionParams> forms,
                              Map<String, InstructionParams> mnemonics, InstructionParams generic,
                              Provenance provenance, int schemaVersion, CoreParams core) {

    /** The table format this build writes and reads; version 1 tables (no {@code core}) are read with defaults. */
    public static final int SCHEMA_VERSION = 2;

    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT)
            .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS);

    public SimulatorParams {
        Objects.requireNonNull(mcpu, "mcpu");
        if (dispatchWidth < 1 || robSize < 1 || schedulerSize < 1 || loadLatency < 0) {
            throw new IllegalArgumentException("dispatch width, ROB and scheduler sizes must be >= 1, got "
                    + dispatchWidth + ", " + robSize + ", " + schedulerSize);
        }
        if (robSize > CoreParams.MAX_ENTRIES || schedulerSize > CoreParams.MAX_ENTRIES) {
            throw new IllegalArgumentException("ROB and scheduler sizes must be <= " + CoreParams.MAX_ENTRIES
                    + ", got " + robSize + ", " + schedulerSize);
        }
        ports = List.copyOf(ports);
        forms = java.util.Collections.unmodifiableMap(new TreeMap<>(forms));
        mnemonics = java.util.Collections.unmodifiableMap(new TreeMap<>(mnemonics));
        Objects.requireNonNull(generic, "generic");
        provenance = provenance == null ? Provenance.of(Map.of()) : provenance;
        if (schemaVersion > SCHEMA_VERSION) {
            throw new IllegalArgumentException("simulator table for " + mcpu + " has schema version " + schemaVersion
                    + ", newer than this build reads (" + SCHEMA_VERSION + "): use a newer Basalt");
        }
        core = core == null ? CoreParams.defaults(mcpu) : core;
        if (core.dividers().hasNone()) { // a table written before dividers' timings existed: the CPU's
            core = core.withDividers(CoreParams.defaults(mcpu).dividers());
        }
        if (core.dividers().microOps().isEmpty() && core.dividers().slowOperands().isEmpty()) {
            // A table written before divides' micro-op counts and slow ends: the CPU's.
            core = core.withDividers(core.dividers().completedBy(CoreParams.defaults(mcpu).dividers()));
        }
        if (core.fences().hasNone()) { // likewise fences' cycles
            core = core.withFences(CoreParams.defaults(mcpu).fences());
        }
        if (core.pageWalkCycles() == null) { // and the page walks
            core = core.withPageWalkCycles(CoreParams.defaults(mcpu).pageWalkCycles());
        }
        if (core.x87AssistCycles() == null) { // and the x87 unit's assists
            core = core.withX87AssistCycles(CoreParams.defaults(mcpu).x87AssistCycles());
        }
        if (core.dirtyUpperMerge() == null) { // and the harness's dirty upper vector state
            core = core.withDirtyUpperMerge(CoreParams.defaults(mcpu).dirtyUpperMerge());
        }
        if (core.vectorForwardCycles() == null) { // and forwarding into vector registers
            core = core.withVectorForwardCycles(CoreParams.defaults(mcpu).vectorForwardCycles());
        }
        if (core.ripComplexDecode() == null) { // and how RIP-relative forms decode
            core = core.withRipComplexDecode(CoreParams.defaults(mcpu).ripComplexDecode());
        }
        if (core.portBinding() == null) { // and the port binding, where the CPU has its own
            core = core.withPortBinding(CoreParams.defaults(mcpu).portBinding());
        }
        if (core.popRspDecoding() == null) { // and how pop rsp / pop r12 decode, where the CPU has a rule
            core = core.withPopRspDecoding(CoreParams.defaults(mcpu).popRspDecoding());
        }
        if (core.immediateElimination() == null) { // and Golden Cove's renamer and fetch, where the CPU has them
            CoreParams d = CoreParams.defaults(mcpu);
            core = core.withImmediateElimination(d.immediateElimination());
            if (d.immediateElimination() != null) {
                core = core.withFetch(d.slidingFetch(), d.decodeImmediates(), d.denseCode())
                        .withForwardToWaitingLoads(d.forwardToWaitingLoads()).withSameBankLoads(d.sameBankLoads())
                        .withStoreCommit(d.storeCommit()).withRmwForwardLatency(d.rmwForwardLatency());
            }
        }
        schemaVersion = SCHEMA_VERSION;
        checkPorts(mcpu, ports, forms, mnemonics, generic, core);
    }

    /**
     * Every port group a row or the core names must be made of this table's ports: a whole port name
     * ("Divider") or single-character names ("0156"). An unknown one used to be accepted and silently unused.
     */
    private static void checkPorts(String mcpu, List<String> ports, Map<String, InstructionParams> forms,
                                   Map<String, InstructionParams> mnemonics, InstructionParams generic,
                                   CoreParams core) {
        java.util.function.BiConsumer<String, String> check = (where, group) -> {
            if (group.isEmpty() || ports.contains(group)) {
                return;
            }
            for (char c : group.toCharArray()) {
                if (!ports.contains(String.valueOf(c))) {
                    throw new IllegalArgumentException("simulator table for " + mcpu + ": " + where + " names port group '"
                            + group + "', but '" + c + "' is not one of its ports " + ports);
                }
            }
        };
        forms.forEach((form, row) -> row.ports().keySet().forEach(g -> check.accept("form '" + form + "'", g)));
        mnemonics.forEach((m, row) -> row.ports().keySet().forEach(g -> check.accept("mnemonic '" + m + "'", g)));
        generic.ports().keySet().forEach(g -> check.accept("the generic row", g));
        check.accept("core loadPorts", core.loadPorts());
        check.accept("core storeAddressPorts", core.storeAddressPorts());
        check.accept("core storeDataPorts", core.storeDataPorts());
        check.accept("core slowLeaPorts", core.slowLeaPorts());
    }

    /** A table with the given core parameters' defaults for its CPU (as a version 1 table reads). */
    public SimulatorParams(String mcpu, int dispatchWidth, int robSize, int schedulerSize, int loadLatency,
                           List<String> ports, Map<String, InstructionParams> forms,
                           Map<String, InstructionParams> mnemonics, InstructionParams generic, Provenance provenance) {
        this(mcpu, dispatchWidth, robSize, schedulerSize, loadLatency, ports, forms, mnemonics, generic, provenance,
                SCHEMA_VERSION, null);
    }

    /**
     * The bundled default table for a CPU (imported from llvm-mca-14; see its provenance).
     *
     * @throws IllegalStateException when this build has no table for the CPU
     */
    public static SimulatorParams bundled(Microarchitecture uarch) {
        return imported(uarch).orElseThrow(() -> new IllegalStateException("no bundled simulator parameters for "
                + uarch + " (params/" + uarch.llvmName() + ".json)"));
    }

    /** The bundled table imported from llvm-mca-14 for a CPU, if this build has one. */
    public static java.util.Optional<SimulatorParams> imported(Microarchitecture uarch) {
        return resource("/dev/basalt/simulator/params/" + uarch.llvmName() + ".json");
    }

    /**
     * The tuned table shipped for a CPU ({@code basalt tune}; see its provenance), if there is one.
     */
    public static java.util.Optional<SimulatorParams> tuned(Microarchitecture uarch) {
        return resource("/dev/basalt/simulator/params/" + uarch.llvmName() + "-tuned.json");
    }

    private static java.util.Optional<SimulatorParams> resource(String resource) {
        try (InputStream in = SimulatorParams.class.getResourceAsStream(resource)) {
            return in == null ? java.util.Optional.empty() : java.util.Optional.of(JSON.readValue(in, SimulatorParams.class));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read bundled " + resource + ": " + e.getMessage(), e);
        }
    }

    /**
     * The simulator's default table for a CPU: the shipped tuned table where tuning chose it over the llvm-mca
     * defaults on the validation split (its provenance's {@code stage} is not the defaults), else the defaults.
     */
    public static SimulatorParams standard(Microarchitecture uarch) {
        return tuned(uarch).filter(t -> !"llvm-mca defaults".equals(t.provenance().detail("stage").orElse(null)))
                .orElseGet(() -> bundled(uarch));
    }

    /** Reads a table written by {@link #write}. */
    public static SimulatorParams read(Path file) throws IOException {
        return read(java.nio.file.Files.readAllBytes(file), file.toString());
    }

    /** Reads a table from its bytes; {@code name} names it in errors. */
    public static SimulatorParams read(byte[] bytes, String name) throws IOException {
        try {
            return JSON.readValue(bytes, SimulatorParams.class);
        } catch (com.fasterxml.jackson.databind.exc.ValueInstantiationException e) { // a table that breaks a rule
            throw new IOException(name + ": " + (e.getCause() != null ? e.getCause().getMessage()
                    : e.getOriginalMessage()), e);
        } catch (com.fasterxml.jackson.core.JacksonException e) {
            throw new IOException(name + " is not a simulator parameter file: " + e.getOriginalMessage(), e);
        }
    }

    /**
     * SHA-256 (hex) of everything in the table that the simulator reads — not its provenance — so two tables
     * with the same fingerprint simulate alike whoever made them and when.
     */
    public String fingerprint() {
        Map<String, Object> content = new TreeMap<>();
        content.put("mcpu", mcpu);
        content.put("machine", List.of(dispatchWidth, robSize, schedulerSize, loadLatency));
        content.put("ports", ports);
        content.put("forms", forms);
        content.put("mnemonics", mnemonics);
        content.put("generic", generic);
        content.put("core", core);
        try {
            byte[] digest = java.security.MessageDigest.getInstance("SHA-256").digest(JSON.writeValueAsBytes(content));
            return java.util.HexFormat.of().formatHex(digest);
        } catch (java.security.NoSuchAlgorithmException | com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException("cannot fingerprint the table for " + mcpu, e);
        }
    }

    /** Writes the table as JSON, atomically. */
    public void write(Path file) throws IOException {
        byte[] bytes = JSON.writeValueAsBytes(this);
        AtomicFiles.write(file, out -> out.write(bytes));
    }

    /** This table with another dispatch width. */
    public SimulatorParams withDispatchWidth(int dispatchWidth) {
        return toBuilder().dispatchWidth(dispatchWidth).build();
    }

    /** This table with another reorder-buffer size. */
    public SimulatorParams withRobSize(int robSize) {
        return toBuilder().robSize(robSize).build();
    }

    /** This table with another scheduler size. */
    public SimulatorParams withSchedulerSize(int schedulerSize) {
        return toBuilder().schedulerSize(schedulerSize).build();
    }

    /** This table with other per-form rows (instead of its own, not added to them). */
    public SimulatorParams withForms(Map<String, InstructionParams> forms) {
        return toBuilder().forms(forms).build();
    }

    /** This table with other per-mnemonic fallback rows. */
    public SimulatorParams withMnemonics(Map<String, InstructionParams> mnemonics) {
        return toBuilder().mnemonics(mnemonics).build();
    }

    /** This table with another generic fallback row. */
    public SimulatorParams withGeneric(InstructionParams generic) {
        return toBuilder().generic(generic).build();
    }

    /** This table with other core parameters. */
    public SimulatorParams withCore(CoreParams core) {
        return toBuilder().core(core).build();
    }

    /** This table with another provenance. */
    public SimulatorParams withProvenance(Provenance provenance) {
        return toBuilder().provenance(provenance).build();
    }

    /**
     * A copy of this table to change several components at once, validated and copied once by {@link Builder#build}:
     * {@code table.toBuilder().dispatchWidth(6).forms(rows).build()}. For one change, the {@code with…} methods.
     */
    public Builder toBuilder() {
        return new Builder(this);
    }

    /** Changes to a copy of a table; see {@link #toBuilder}. The CPU, load latency and ports stay the table's. */
    public static final class Builder {
        private final SimulatorParams from;
        private int dispatchWidth;
        private int robSize;
        private int schedulerSize;
        private Map<String, InstructionParams> forms;
        private Map<String, InstructionParams> mnemonics;
        private InstructionParams generic;
        private Provenance provenance;
        private CoreParams core;

        private Builder(SimulatorParams from) {
            this.from = from;
            this.dispatchWidth = from.dispatchWidth;
            this.robSize = from.robSize;
            this.schedulerSize = from.schedulerSize;
            this.forms = from.forms;
            this.mnemonics = from.mnemonics;
            this.generic = from.generic;
            this.provenance = from.provenance;
            this.core = from.core;
        }

        public Builder core(CoreParams core) {
            this.core = core;
            return this;
        }

        public Builder dispatchWidth(int dispatchWidth) {
            this.dispatchWidth = dispatchWidth;
            return this;
        }

        public Builder robSize(int robSize) {
            this.robSize = robSize;
            return this;
        }

        public Builder schedulerSize(int schedulerSize) {
            this.schedulerSize = schedulerSize;
            return this;
        }

        public Builder forms(Map<String, InstructionParams> forms) {
            this.forms = forms;
            return this;
        }

        public Builder mnemonics(Map<String, InstructionParams> mnemonics) {
            this.mnemonics = mnemonics;
            return this;
        }

        public Builder generic(InstructionParams generic) {
            this.generic = generic;
            return this;
        }

        public Builder provenance(Provenance provenance) {
            this.provenance = provenance;
            return this;
        }

        /** The table (validated and copied by the record's constructor). */
        public SimulatorParams build() {
            return new SimulatorParams(from.mcpu, dispatchWidth, robSize, schedulerSize, from.loadLatency, from.ports,
                    forms, mnemonics, generic, provenance, SCHEMA_VERSION, core);
        }
    }
}
