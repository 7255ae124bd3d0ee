package dev.basalt.difftune;

import dev.basalt.simulator.params.InstructionParams;
import dev.basalt.simulator.params.SimulatorParams;
import dev.basalt.simulator.Simulator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;

/**
 * Draws random simulator tables for training the surrogate (DESIGN.md §7), seeded.
 *
 * <p>DiffTune drew every entry uniformly from small ranges (latency 0–5, micro-ops 0–5, 0–2 random single
 * ports with 0–2 cycles, read-advance 0–5, dispatch width 1–10, ROB 50–250). Since we start parameter
 * learning from the llvm-mca defaults rather than from random tables, half of the rows keep their default
 * and the rest are drawn from DiffTune's ranges widened to include the default (a divide's latency of 20
 * stays reachable): the surrogate then learns the neighbourhood it will be used in, and the rest of the space.
 * Port groups are drawn from the groups the CPU's defaults use, so sampled tables stay simulatable.
 *
 * <p>For the second-generation machine, which counts micro-ops from the port groups, executes loads+operations in
 * two steps and rebuilds memory micro-ops from the operands, a sampled row keeps its default micro-op count,
 * read-advance and memory-port groups and draws only compute-port groups: the surrogate then sees only the
 * variations the simulator reads.
 */
public final class ParameterSampler {

    /** Chance that a row keeps its default values. */
    static final double KEEP_DEFAULT = 0.5;

    private final SimulatorParams defaults;
    private final Simulator resolver;
    private final List<String> groups;
    private final String memoryPorts;

    /** A sampler for the first (llvm-mca-like) machine. */
    public ParameterSampler(SimulatorParams defaults) {
        this(defaults, false);
    }

    /** A sampler for the machine of {@code options}. */
    public ParameterSampler(SimulatorParams defaults, Simulator.Options options) {
        this(defaults, options.secondGeneration());
    }

    private ParameterSampler(SimulatorParams defaults, boolean secondGeneration) {
        this.defaults = defaults;
        this.resolver = new Simulator(defaults);
        dev.basalt.simulator.params.CoreParams core = defaults.core();
        this.memoryPorts = secondGeneration && !core.loadPorts().isEmpty()
                ? core.loadPorts() + core.storeAddressPorts() + core.storeDataPorts() : "";
        java.util.TreeSet<String> g = new java.util.TreeSet<>();
        defaults.forms().values().forEach(r -> g.addAll(r.ports().keySet()));
        g.removeIf(s -> s.contains("Divider") || (!memoryPorts.isEmpty() && memoryOnly(s)));
        this.groups = List.copyOf(g);
    }

    private boolean memoryOnly(String group) {
        return group.chars().allMatch(c -> memoryPorts.indexOf(c) >= 0);
    }

    /** A sampled row for {@code form} (resolved through the defaults' fallbacks first). */
    public InstructionParams row(String form, SplittableRandom rnd) {
        InstructionParams d = resolver.resolve(form).row();
        if (rnd.nextDouble() < KEEP_DEFAULT) {
            return d;
        }
        int uops = 1 + rnd.nextInt(Math.max(5, d.uops()));
        int latency = rnd.nextInt(Math.max(5, d.latency()) + 1);
        int readAdvance = rnd.nextInt(Math.max(5, d.readAdvance()) + 1);
        boolean second = !memoryPorts.isEmpty();
        if (second) { // what the second machine does not read stays as it is
            uops = d.uops();
            readAdvance = d.readAdvance();
        }
        Map<String, Integer> ports = new TreeMap<>();
        int count = rnd.nextInt(3);
        for (int k = 0; k < count; k++) {
            ports.merge(groups.get(rnd.nextInt(groups.size())), rnd.nextInt(3), Integer::sum);
        }
        d.ports().forEach((p, c) -> {
            if (p.contains("Divider") || (second && memoryOnly(p))) {
                ports.put(p, c); // dividers are rare and long; keep them (and memory groups on the second machine)
            }
        });
        return new InstructionParams(uops, latency, readAdvance, ports);
    }

    /**
     * A table with sampled rows for {@code forms} (every other form keeps its default) and sampled global
     * widths, drawn from {@code seed}.
     */
    public SimulatorParams sample(List<String> forms, long seed) {
        SimulatorParams only = sampleOnly(forms, seed);
        Map<String, InstructionParams> rows = new LinkedHashMap<>(defaults.forms());
        rows.putAll(only.forms());
        return only.withForms(rows);
    }

    /**
     * The same draw as {@link #sample} but a table holding only {@code forms}' rows, and at their defaults the
     * register forms of those with a memory operand ({@link dev.basalt.simulator.params.LoadOperation}: a load+operation
     * takes its operation's latency from that row): enough to simulate a block made of those forms, and much
     * cheaper to build (the full table has about a thousand forms).
     */
    public SimulatorParams sampleOnly(List<String> forms, long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        Map<String, InstructionParams> rows = new LinkedHashMap<>();
        for (String f : new java.util.TreeSet<>(forms)) {
            rows.put(f, row(f, rnd));
        }
        // A load+operation's operation latency is its register form's row (LoadOperation): that row comes along at
        // its default, so that the recorded rows and the defaults still give the same run.
        for (String f : new java.util.TreeSet<>(forms)) {
            String register = dev.basalt.simulator.params.LoadOperation.registerForm(f);
            if (register != null && !rows.containsKey(register) && defaults.forms().containsKey(register)) {
                rows.put(register, defaults.forms().get(register));
            }
        }
        int dispatch = rnd.nextDouble() < KEEP_DEFAULT ? defaults.dispatchWidth() : 1 + rnd.nextInt(10);
        int rob = rnd.nextDouble() < KEEP_DEFAULT ? defaults.robSize() : 50 + rnd.nextInt(201);
        return defaults.toBuilder().dispatchWidth(dispatch).robSize(rob).forms(rows)
                .provenance(dev.basalt.core.Provenance.of(Map.of("sampled", "ParameterSampler seed " + seed)))
                .build();
    }
}
