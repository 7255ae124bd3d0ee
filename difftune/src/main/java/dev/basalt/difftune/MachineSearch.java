package dev.basalt.difftune;

import dev.basalt.datasets.Metrics;
import dev.basalt.decoder.BasicBlock;
import dev.basalt.simulator.params.CoreParams;
import dev.basalt.simulator.params.CoreParamsBuilder;
import dev.basalt.simulator.params.DenseCode;
import dev.basalt.simulator.params.ImmediateElimination;
import dev.basalt.simulator.params.InstructionParams;
import dev.basalt.simulator.Simulator;
import dev.basalt.simulator.params.SimulatorParams;
import dev.basalt.simulator.harness.StoreCommit;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.function.BiFunction;

/**
 * The machine of a table fitted to measurements, before its rows are: a discrete search over what {@link
 * dev.basalt.difftune.Tuner} cannot reach — widths, how many integer ALUs, load and store-data ports, the fetch and
 * dense code, loads of one bank a cycle, stores of two lines a cycle, the renamer's eliminations, store forwarding
 * (to a plain load and to a read-modify-write), how RIP-relative forms decode, the reorder buffer — scored by the
 * real simulator on measured training blocks and kept only where the validation blocks agree. DiffTune learned a
 * CPU's global parameters beside its rows; these are discrete, and a few hundred simulations of a few thousand
 * blocks find them in seconds.
 *
 * <p>Coordinate descent: each dimension in turn takes the value that lowers the training MAPE most with the others
 * fixed, if the validation MAPE does not rise; two rounds. A new ALU or load port joins the table's integer-ALU
 * group (the generic row's group: {@code 0156} becomes {@code 0156x}) or its load ports.
 */
public final class MachineSearch {

    private MachineSearch() {
    }

    /** One dimension: its name, its values, and how a table takes a value. */
    record Dimension(String name, List<String> values, BiFunction<SimulatorParams, String, SimulatorParams> apply) {
    }

    /**
     * What the search found.
     *
     * @param table   the start table with the machine found (its rows unchanged but for new ports)
     * @param choices each dimension's value, in the search's order
     */
    public record Result(SimulatorParams table, Map<String, String> choices, double trainBefore, double trainAfter,
                         double validationBefore, double validationAfter) {
    }

    /** The dimensions searched, over a table's machine. */
    static List<Dimension> dimensions() {
        List<Dimension> d = new ArrayList<>();
        d.add(new Dimension("issue width", List.of("4", "5", "6", "8"), (t, v) -> {
            int w = Integer.parseInt(v);
            CoreParams c = t.core();
            return t.toBuilder().dispatchWidth(w)
                    .core(c.toBuilder().issueWidth(w).retireWidth(Math.max(c.retireWidth(), w)).build()).build();
        }));
        d.add(new Dimension("decoders", List.of("4", "5", "6"), (t, v) -> {
            int n = Integer.parseInt(v);
            CoreParams c = t.core();
            return t.withCore(c.toBuilder().decoders(n).decodeUops(Math.max(c.decodeUops(), n))
                    .predecodeWidth(Math.max(c.predecodeWidth(), n)).build());
        }));
        d.add(new Dimension("fetch", List.of("16 bytes, aligned", "32 bytes, aligned", "32 bytes, sliding"),
                (t, v) -> t.withCore(t.core().toBuilder().predecodeBytes(v.startsWith("16") ? 16 : 32)
                        .slidingFetch(v.endsWith("sliding")).build())));
        d.add(new Dimension("immediate fields decoded a cycle", List.of("any", "4"),
                (t, v) -> t.withCore(t.core().toBuilder().decodeImmediates(v.equals("any") ? 0 : 4).build())));
        d.add(new Dimension("integer ALUs", List.of("as the table", "one more"),
                (t, v) -> v.equals("one more") ? withAluPort(t) : t));
        d.add(new Dimension("load ports", List.of("as the table", "one more"),
                (t, v) -> v.equals("one more") ? withLoadPort(t) : t));
        d.add(new Dimension("store-data ports", List.of("as the table", "one more"),
                (t, v) -> v.equals("one more") ? withStoreDataPort(t) : t));
        d.add(new Dimension("dense code", List.of("as the table", "16 bytes a cycle"),
                (t, v) -> v.equals("as the table") ? t
                        : t.withCore(t.core().toBuilder().denseCode(new DenseCode(16, 16)).build())));
        d.add(new Dimension("loads of one bank a cycle", List.of("as the table", "2"),
                (t, v) -> v.equals("as the table") ? t : t.withCore(t.core().withSameBankLoads(2))));
        d.add(new Dimension("stores of two lines a cycle", List.of("as the table", "1"),
                (t, v) -> v.equals("as the table") ? t : t.withCore(t.core().withStoreCommit(new StoreCommit(2)))));
        d.add(new Dimension("immediates eliminated at rename", List.of("no", "yes"),
                (t, v) -> t.withCore(t.core().withImmediateElimination(v.equals("yes")
                        ? new ImmediateElimination(5, 1024) : null))));
        d.add(new Dimension("store forwarding", List.of("as the table", "2 cycles to a waiting load",
                "3 cycles to a waiting load"), (t, v) -> v.equals("as the table") ? t
                : t.withCore(t.core().toBuilder().storeForwardLatency(v.startsWith("2") ? 2 : 3)
                        .forwardToWaitingLoads(true).build())));
        d.add(new Dimension("forwarding to a read-modify-write", List.of("as the table", "5 cycles"),
                (t, v) -> v.equals("as the table") ? t : t.withCore(t.core().withRmwForwardLatency(5))));
        d.add(new Dimension("RIP-relative stores, leas and immediates", List.of("as the table", "complex decoder"),
                (t, v) -> v.equals("as the table") ? t : t.withCore(t.core().withRipComplexDecode(true))));
        d.add(new Dimension("reorder buffer", List.of("as the table", "352", "512"),
                (t, v) -> v.equals("as the table") ? t : t.withRobSize(Integer.parseInt(v))));
        d.add(new Dimension("three-component lea", List.of("as the table", "like any lea"),
                (t, v) -> v.equals("as the table") ? t
                        : t.withCore(t.core().toBuilder().slowLeaPorts("").slowLeaLatency(1).build())));
        return d;
    }

    /**
     * Searches {@code start}'s machine on {@code train} (at most {@code maxBlocks} of them, the first), checked on
     * {@code validation}; {@code log} gets a line per accepted change.
     */
    public static Result search(SimulatorParams start, List<BasicBlock> train, double[] trainMeasured,
                                List<BasicBlock> validation, double[] validationMeasured, int maxBlocks,
                                Simulator.Options options, Consumer<String> log) {
        int n = Math.min(maxBlocks, train.size());
        List<BasicBlock> t = train.subList(0, n);
        double[] tm = java.util.Arrays.copyOf(trainMeasured, n);
        SimulatorParams best = start;
        double trainBefore = Metrics.mape(SimulatorRefiner.simulate(start, t, options), tm);
        double validationBefore = Metrics.mape(SimulatorRefiner.simulate(start, validation, options),
                validationMeasured);
        double bestTrain = trainBefore;
        double bestValidation = validationBefore;
        List<Dimension> dims = dimensions();
        Map<String, String> choices = new LinkedHashMap<>();
        dims.forEach(d -> choices.put(d.name(), "as the table"));
        for (int round = 0; round < 2; round++) {
            boolean changed = false;
            for (Dimension d : dims) {
                String bestValue = null;
                SimulatorParams bestTable = null;
                double roundTrain = bestTrain;
                for (String v : d.values()) {
                    SimulatorParams candidate;
                    try {
                        candidate = d.apply().apply(best, v);
                    } catch (IllegalArgumentException e) {
                        continue; // a value this table cannot take
                    }
                    if (candidate.equals(best)) {
                        continue;
                    }
                    double m = Metrics.mape(SimulatorRefiner.simulate(candidate, t, options), tm);
                    if (m < roundTrain - 1e-4) {
                        roundTrain = m;
                        bestValue = v;
                        bestTable = candidate;
                    }
                }
                if (bestTable == null) {
                    continue;
                }
                double v = Metrics.mape(SimulatorRefiner.simulate(bestTable, validation, options), validationMeasured);
                if (v <= bestValidation + 1e-4) {
                    log.accept(String.format(Locale.ROOT, "%s: %s (training MAPE %.2f%% -> %.2f%%, validation "
                            + "%.2f%% -> %.2f%%)", d.name(), bestValue, 100 * bestTrain, 100 * roundTrain,
                            100 * bestValidation, 100 * v));
                    best = bestTable;
                    bestTrain = roundTrain;
                    bestValidation = v;
                    choices.put(d.name(), bestValue);
                    changed = true;
                }
            }
            if (!changed) {
                break;
            }
        }
        return new Result(best, choices, trainBefore, bestTrain, validationBefore, bestValidation);
    }

    /** The table with one more port in its integer-ALU group (the generic row's): every row of that group gets it. */
    static SimulatorParams withAluPort(SimulatorParams t) {
        String alu = t.generic().ports().keySet().stream().filter(g -> !g.endsWith("Divider")).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no integer ALU group"));
        String port = newPort(t.ports());
        String grown = alu + port;
        return withPort(t, port, g -> g.equals(alu) ? grown : g, t.core());
    }

    /** The table with one more load port. */
    static SimulatorParams withLoadPort(SimulatorParams t) {
        return withMemoryPort(t, "load", t.core().loadPorts(), (b, ports) -> b.loadPorts(ports));
    }

    /** {@code t} with one more store-data port (a second store a cycle: Ice Lake and later). */
    static SimulatorParams withStoreDataPort(SimulatorParams t) {
        return withMemoryPort(t, "store-data", t.core().storeDataPorts(), (b, ports) -> b.storeDataPorts(ports));
    }

    // A new port joins the core's memory ports of one kind; the rows keep theirs (the core places memory micro-ops).
    private static SimulatorParams withMemoryPort(SimulatorParams t, String kind, String ports,
                                                  java.util.function.BiConsumer<CoreParamsBuilder, String> set) {
        if (ports.isEmpty()) {
            throw new IllegalArgumentException("the table names no " + kind + " ports");
        }
        String port = newPort(t.ports());
        CoreParamsBuilder b = t.core().toBuilder();
        set.accept(b, ports + port);
        return withPort(t, port, g -> g, b.build());
    }

    private static String newPort(List<String> ports) {
        for (char ch : "abcdefghijklmnopqrstuvwxyz".toCharArray()) {
            if (!ports.contains(String.valueOf(ch))) {
                return String.valueOf(ch);
            }
        }
        throw new IllegalArgumentException("no port name left");
    }

    private static SimulatorParams withPort(SimulatorParams t, String port,
                                            java.util.function.UnaryOperator<String> group, CoreParams core) {
        List<String> ports = new ArrayList<>(t.ports());
        ports.add(port);
        return new SimulatorParams(t.mcpu(), t.dispatchWidth(), t.robSize(), t.schedulerSize(), t.loadLatency(), ports,
                rows(t.forms(), group), rows(t.mnemonics(), group), row(t.generic(), group), t.provenance(),
                t.schemaVersion(), core);
    }

    private static Map<String, InstructionParams> rows(Map<String, InstructionParams> rows,
                                                       java.util.function.UnaryOperator<String> group) {
        Map<String, InstructionParams> out = new TreeMap<>();
        rows.forEach((k, r) -> out.put(k, row(r, group)));
        return out;
    }

    private static InstructionParams row(InstructionParams r, java.util.function.UnaryOperator<String> group) {
        Map<String, Integer> ports = new TreeMap<>();
        r.ports().forEach((g, u) -> ports.merge(group.apply(g), u, Integer::sum));
        return new InstructionParams(r.uops(), r.latency(), r.readAdvance(), ports, r.fusedUops());
    }
}
