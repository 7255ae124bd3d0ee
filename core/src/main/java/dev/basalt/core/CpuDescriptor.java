package dev.basalt.core;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * What Basalt knows of one CPU, read from its descriptor resource {@code dev/basalt/core/cpus/<name>.json}
 * (listed in {@code cpus/index.txt}): adding a CPU is adding such a file, its simulator table and, when there
 * are measurements, its data — no code.
 *
 * @param name          the llvm-mca {@code -mcpu} name, which is also Basalt's name for the CPU
 * @param aliases       other accepted names (BHive's short name first, when it has one)
 * @param description   a human name ("Intel Haswell")
 * @param bhiveFile     the bundled BHive sample's file name without {@code .csv}, or null when no measurements
 *                      are bundled for this CPU
 * @param measurements  the folder of the project's own measurements of this CPU under the datasets module's
 *                      {@code measured/} resources, named by the CPU they were measured on
 *                      ({@code amd-family26-model2}), or null when Basalt has not measured it
 * @param dispatchWidth llvm-mca-14's dispatch width for the CPU (micro-ops per cycle)
 * @param robSize       llvm-mca-14's reorder buffer (micro-ops)
 * @param schedulerSize the scheduler entries the simulator models (llvm-mca-14's largest buffer)
 * @param loadLatency   cycles of a load: the read-advance of a load-op form's register sources
 * @param llvmMcaPorts  how llvm-mca-14's resources map onto the simulator's one-character port names, each with
 *                      the unit it belongs to (micro-ops spread evenly over ports of one unit form one port
 *                      group); empty for the Intel CPUs, whose {@code HWPort0}-style names are read by rule
 * @param notes         what backs the data and what does not (shown with predictions for the CPU)
 * @param isaExtensions the instruction set extensions the CPU has, by the decoder's (Zydis') names
 *                      ({@code AVX2}, {@code BMI1}, ...); a block with an instruction of another extension is
 *                      refused for this CPU ({@link IsaSupport}). Empty: not known, nothing is refused.
 * @param sources       where each number of the CPU's description comes from, by what it describes (a
 *                      descriptor field or a {@code CoreParams} value); empty for the CPUs described before it
 */
public record CpuDescriptor(String name, List<String> aliases, String description, String bhiveFile,
                            String measurements, int dispatchWidth, int robSize, int schedulerSize, int loadLatency,
                            List<Port> llvmMcaPorts, String notes, java.util.Set<String> isaExtensions,
                            Map<String, String> sources) {

    /**
     * One llvm-mca resource as the simulator sees it.
     *
     * @param resource llvm-mca-14's resource name ({@code Zn3ALU0}; sub-units as {@code Zn3LSU.0})
     * @param port     the simulator's port name, one character
     * @param unit     the kind of unit ({@code ALU}, {@code AGU}, ...)
     */
    public record Port(String resource, String port, String unit) {
        public Port {
            Objects.requireNonNull(resource, "resource");
            Objects.requireNonNull(unit, "unit");
            if (port == null || port.length() != 1) {
                throw new IllegalArgumentException("port of " + resource + " must be one character, got " + port);
            }
        }
    }

    public CpuDescriptor {
        if (name == null || name.isBlank() || !name.equals(name.toLowerCase(java.util.Locale.ROOT))) {
            throw new IllegalArgumentException("a CPU name must be lower-case and non-empty, got '" + name + "'");
        }
        aliases = aliases == null ? List.of() : List.copyOf(aliases);
        llvmMcaPorts = llvmMcaPorts == null ? List.of() : List.copyOf(llvmMcaPorts);
        if (dispatchWidth < 1 || robSize < 1 || schedulerSize < 1 || loadLatency < 0) {
            throw new IllegalArgumentException(name + ": dispatch width, ROB and scheduler sizes must be >= 1 and "
                    + "the load latency >= 0, got " + dispatchWidth + ", " + robSize + ", " + schedulerSize + ", "
                    + loadLatency);
        }
        notes = notes == null ? "" : notes;
        isaExtensions = isaExtensions == null ? java.util.Set.of() : java.util.Set.copyOf(isaExtensions);
        sources = sources == null ? Map.of() : java.util.Collections.unmodifiableMap(new java.util.TreeMap<>(sources));
    }

    /** The bundled measurements' file name, if this CPU has any. */
    public Optional<String> bhive() {
        return Optional.ofNullable(bhiveFile);
    }

    /** The folder of Basalt's own measurements of this CPU, if it has any. */
    public Optional<String> measured() {
        return Optional.ofNullable(measurements);
    }

    /** The port of an llvm-mca resource, from {@link #llvmMcaPorts}. */
    public Optional<Port> port(String llvmMcaResource) {
        return llvmMcaPorts.stream().filter(p -> p.resource().equals(llvmMcaResource)).findFirst();
    }

    /** Descriptor fields as a map, for tables' provenance. */
    public Map<String, Object> machine() {
        return Map.of("dispatchWidth", dispatchWidth, "robSize", robSize, "schedulerSize", schedulerSize,
                "loadLatency", loadLatency);
    }
}
