package dev.basalt.difftune;

import dev.basalt.simulator.params.InstructionParams;
import dev.basalt.simulator.params.SimulatorParams;
import dev.basalt.simulator.Simulator;
import dev.basalt.datasets.Metrics;
import dev.basalt.decoder.BasicBlock;
import dev.basalt.decoder.Instruction;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.function.IntConsumer;

/**
 * Polishes a table with the <i>real</i> simulator (after the surrogate's gradient steps, DESIGN.md §7): for each
 * instruction form of the training blocks, most frequent first, try changing one value of its row (latency,
 * micro-ops, read-advance or one port group's cycles: ±1, ×½, ×¾, ×1½, ×2) or going back to the default row,
 * re-simulate only the training blocks that use the form, and keep the change that lowers their summed
 * relative error the most. A pass visits every form; after each pass the validation MAPE decides whether to go
 * on (it must improve) or to return the previous pass's table.
 *
 * <p>Before the single forms, each pass tries the same moves (×½, ×¾, ×1½, ×2 of every latency, every micro-op
 * count or every port's cycles) on whole families — all forms of one mnemonic with the same prefixes — judged
 * on every training block that uses any of them: forms too rare to tune alone then follow their siblings.
 *
 * <p>Why both: the surrogate's gradients move all rows at once but see the simulator only through a smooth
 * approximation, and rounding its real-valued table to integers loses part of the gain; the search sees the
 * true, discrete simulator, but one row at a time. Deterministic (candidates are tried in a fixed order, and
 * a tie keeps the earlier one).
 */
public final class SimulatorRefiner {

    /**
     * @param passes    maximum passes over the forms
     * @param minBlocks a form must appear in at least this many training blocks to be changed (fewer is
     *                  fitting noise)
     * @param minGain   a change must lower the summed relative error of the form's blocks by this share
     * @param shrinkage the evidence a change must bring per unit of distance from the imported row (summed
     *                  relative error per doubling of a value): a form few blocks use stays near its default
     */
    public record Settings(int passes, int minBlocks, double minGain, double shrinkage) {
        public static Settings defaults() {
            return new Settings(3, 3, 0.002, 0.1);
        }
    }

    /**
     * Why a row changed: the training blocks that use the form, their summed relative error before and after,
     * and the same on the held-out (validation) blocks that use it, which must have improved too.
     */
    public record Evidence(String form, int trainBlocks, double trainBefore, double trainAfter, int heldOutBlocks,
                           double heldOutBefore, double heldOutAfter) {
    }

    /** Per pass: the training and validation MAPE after it, and the rows changed. */
    public record Pass(int pass, double trainMape, double validationMape, int changed) {
    }

    private final Settings settings;
    private final Simulator.Options options;
    private final SimulatorParams defaults;
    private final Map<String, Evidence> evidence = new TreeMap<>();

    public SimulatorRefiner(Settings settings, Simulator.Options options, SimulatorParams defaults) {
        this.settings = settings;
        this.options = options;
        this.defaults = defaults;
    }

    /** The evidence of every row the last {@link #refine} changed, by form (the latest change of each). */
    public Map<String, Evidence> evidence() {
        return java.util.Collections.unmodifiableMap(evidence);
    }

    /** Real-simulator predictions of {@code blocks} with {@code table} (in parallel, in block order). */
    public static double[] simulate(SimulatorParams table, List<BasicBlock> blocks, Simulator.Options options) {
        Simulator sim = new Simulator(table);
        return blocks.parallelStream().mapToDouble(b -> sim.run(b, options).cyclesPerIteration()).toArray();
    }


    /**
     * Refines {@code start}.
     *
     * @param onPass   called after each pass
     * @param progress called with the forms visited so far in the current pass
     * @return the best table (by validation MAPE) among {@code start} and the passes' results
     */
    public SimulatorParams refine(SimulatorParams start, List<BasicBlock> train, double[] trainMeasured,
                                  List<BasicBlock> validation, double[] validationMeasured, Consumer<Pass> onPass,
                                  IntConsumer progress) {
        return refine(start, null, train, trainMeasured, validation, validationMeasured, onPass, progress);
    }

    /**
     * Refines {@code start}, also trying each form's row from {@code proposals} (e.g. the surrogate-learned
     * table) as a candidate: the surrogate proposes, the simulator decides.
     *
     * @param proposals a table whose rows are extra candidates, or null
     */
    public SimulatorParams refine(SimulatorParams start, SimulatorParams proposals, List<BasicBlock> train,
                                  double[] trainMeasured, List<BasicBlock> validation, double[] validationMeasured,
                                  Consumer<Pass> onPass, IntConsumer progress) {
        Simulator proposer = proposals == null ? null : new Simulator(proposals);
        // Which training blocks use each form; forms by how many blocks use them.
        Map<String, List<Integer>> users = new TreeMap<>();
        for (int b = 0; b < train.size(); b++) {
            for (String f : new LinkedHashSet<>(train.get(b).instructions().stream().map(Instruction::form).toList())) {
                users.computeIfAbsent(f, k -> new ArrayList<>()).add(b);
            }
        }
        Map<String, List<Integer>> heldOutUsers = new TreeMap<>();
        Map<String, Instruction> example = new TreeMap<>();
        for (int b = 0; b < validation.size(); b++) {
            for (String f : new LinkedHashSet<>(validation.get(b).instructions().stream().map(Instruction::form)
                    .toList())) {
                heldOutUsers.computeIfAbsent(f, k -> new ArrayList<>()).add(b);
            }
        }
        train.forEach(b -> b.instructions().forEach(i -> example.putIfAbsent(i.form(), i)));
        evidence.clear();
        List<String> forms = new ArrayList<>(users.keySet());
        forms.sort(Comparator.comparingInt((String f) -> -users.get(f).size()).thenComparing(f -> f));
        // Families: every form of a mnemonic (in the table or in the blocks) moves together, so that forms too
        // rare to tune alone (IDIV r32 beside IDIV r64) follow their siblings.
        Map<String, java.util.TreeSet<String>> families = new TreeMap<>();
        for (String f : start.forms().keySet()) {
            families.computeIfAbsent(family(f), k -> new java.util.TreeSet<>()).add(f);
        }
        for (String f : forms) {
            families.computeIfAbsent(family(f), k -> new java.util.TreeSet<>()).add(f);
        }
        families.values().removeIf(fs -> fs.size() < 2 || fs.stream().noneMatch(users::containsKey));
        List<List<String>> units = new ArrayList<>();
        families.values().stream()
                .sorted(Comparator.comparingInt((java.util.TreeSet<String> fs) -> -usersOf(fs, users).size())
                        .thenComparing(java.util.TreeSet::first))
                .forEach(fs -> units.add(List.copyOf(fs)));
        forms.forEach(f -> units.add(List.of(f)));
        Simulator defaultResolver = new Simulator(defaults);
        dev.basalt.simulator.params.CoreParams core = defaults.core();
        String memoryPorts = options.secondGeneration() && !core.loadPorts().isEmpty()
                ? core.loadPorts() + core.storeAddressPorts() + core.storeDataPorts() : "";
        SimulatorParams best = start;
        double bestValidation = Metrics.mape(simulate(start, validation, options), validationMeasured);
        SimulatorParams current = start;
        double[] predicted = simulate(current, train, options);
        for (int pass = 1; pass <= settings.passes(); pass++) {
            Map<String, InstructionParams> rows = new LinkedHashMap<>(current.forms());
            Simulator resolver = new Simulator(current);
            int changed = 0;
            int visited = 0;
            for (List<String> unit : units) {
                visited += unit.size() == 1 ? 1 : 0;
                progress.accept(visited);
                List<Integer> used = usersOf(unit, users);
                if (used.size() < settings.minBlocks()) {
                    continue;
                }
                Map<String, InstructionParams> now = new LinkedHashMap<>();
                for (String f : unit) {
                    now.put(f, rows.containsKey(f) ? rows.get(f) : resolver.resolve(f).row());
                }
                List<Map<String, InstructionParams>> candidates = new ArrayList<>();
                if (unit.size() == 1) {
                    String form = unit.get(0);
                    InstructionParams row = now.get(form);
                    List<InstructionParams> c = candidates(row, defaultResolver.resolve(form).row(),
                            options.secondGeneration());
                    if (proposer != null) {
                        InstructionParams proposed = proposer.resolve(form).row();
                        if (!proposed.equals(row) && !c.contains(proposed)) {
                            c.add(proposed);
                        }
                    }
                    c.forEach(r -> candidates.add(Map.of(form, r)));
                } else {
                    candidates.addAll(familyCandidates(now));
                }
                // Only physically plausible rows (Plausibility), each paying for its distance from the default.
                candidates.removeIf(c -> c.entrySet().stream().anyMatch(e -> !Plausibility.allowed(e.getKey(),
                        example.get(e.getKey()), e.getValue(), defaultResolver.resolve(e.getKey()).row(),
                        defaults.loadLatency(), memoryPorts, options.secondGeneration())));
                double before = 0;
                for (int b : used) {
                    before += Metrics.ape(predicted[b], trainMeasured[b]);
                }
                double beforeCost = before + settings.shrinkage() * distance(now, defaultResolver);
                List<BasicBlock> blocks = used.stream().map(train::get).toList();
                SimulatorParams base = current;
                Map<String, InstructionParams> baseRows = rows;
                double[][] results = candidates.parallelStream().map(c -> {
                    Map<String, InstructionParams> r = new LinkedHashMap<>(baseRows);
                    r.putAll(c);
                    Simulator sim = new Simulator(base.withForms(r));
                    return blocks.stream().mapToDouble(b -> sim.run(b, options).cyclesPerIteration()).toArray();
                }).toArray(double[][]::new);
                // Candidates by penalised training loss, best first; the first whose held-out blocks also
                // improve is taken.
                List<Integer> order = new ArrayList<>();
                double[] cost = new double[candidates.size()];
                double[] trainLoss = new double[candidates.size()];
                for (int c = 0; c < candidates.size(); c++) {
                    double loss = 0;
                    for (int k = 0; k < used.size(); k++) {
                        loss += Metrics.ape(results[c][k], trainMeasured[used.get(k)]);
                    }
                    Map<String, InstructionParams> after = new LinkedHashMap<>(now);
                    after.putAll(candidates.get(c));
                    trainLoss[c] = loss;
                    cost[c] = loss + settings.shrinkage() * distance(after, defaultResolver);
                    if (cost[c] < beforeCost - before * settings.minGain() - 1e-12) {
                        order.add(c);
                    }
                }
                order.sort(Comparator.comparingDouble((Integer c) -> cost[c]).thenComparingInt(c -> c));
                List<Integer> heldOut = usersOf(unit, heldOutUsers);
                int pick = -1;
                double[] heldOutLoss = null;
                for (int c : order.subList(0, Math.min(3, order.size()))) {
                    heldOutLoss = heldOutLoss(heldOut, validation, validationMeasured, current, rows,
                            candidates.get(c));
                    if (heldOutLoss != null && heldOutLoss[1] < heldOutLoss[0] - 1e-12) {
                        pick = c;
                        break;
                    }
                }
                if (pick >= 0) {
                    for (String f : candidates.get(pick).keySet()) {
                        evidence.put(f, new Evidence(f, users.getOrDefault(f, List.of()).size(), before,
                                trainLoss[pick], heldOut.size(), heldOutLoss[0], heldOutLoss[1]));
                    }
                    rows.putAll(candidates.get(pick));
                    current = current.withForms(rows);
                    for (int k = 0; k < used.size(); k++) {
                        predicted[used.get(k)] = results[pick][k];
                    }
                    changed++;
                }
            }
            current = current.withForms(rows);
            double trainMape = Metrics.mape(predicted, trainMeasured);
            double validationMape = Metrics.mape(simulate(current, validation, options), validationMeasured);
            onPass.accept(new Pass(pass, trainMape, validationMape, changed));
            if (validationMape < bestValidation) {
                bestValidation = validationMape;
                best = current;
            } else {
                break; // the search has started to fit the training blocks' noise
            }
            if (changed == 0) {
                break;
            }
        }
        return best;
    }

    /**
     * Tunes the machine-wide parameters whose values the public descriptions leave open (store-forwarding
     * latency, move-elimination slots and window, microcode-sequencer switch, length-changing-prefix stall), one
     * value ±1 at a time, keeping a change only when it lowers the training MAPE and the validation MAPE by at least
     * {@link #CORE_MIN_GAIN}.
     *
     * @param onChange called with a line per accepted change
     */
    public SimulatorParams refineCore(SimulatorParams table, List<BasicBlock> train, double[] trainMeasured,
                                      List<BasicBlock> validation, double[] validationMeasured,
                                      Consumer<String> onChange) {
        if (!options.secondGeneration()) {
            return table;
        }
        SimulatorParams current = table;
        double trainMape = Metrics.mape(simulate(current, train, options), trainMeasured);
        double validationMape = Metrics.mape(simulate(current, validation, options), validationMeasured);
        boolean improved = true;
        for (int round = 0; round < 3 && improved; round++) {
            improved = false;
            for (int which = 0; which < 5; which++) {
                for (int delta : new int[] {-1, 1}) {
                    dev.basalt.simulator.params.CoreParams c = current.core();
                    int[] v = {c.storeForwardLatency(), c.moveEliminationSlots(), c.moveEliminationCycles(),
                            c.msSwitchCycles(), c.lcpPenalty()};
                    v[which] += delta;
                    if (v[which] < (which == 2 ? 1 : 0) || v[which] > 12) {
                        continue;
                    }
                    dev.basalt.simulator.params.CoreParams changed = c.toBuilder().storeForwardLatency(v[0])
                            .moveEliminationSlots(v[1]).moveEliminationCycles(v[2]).msSwitchCycles(v[3])
                            .lcpPenalty(v[4]).build();
                    SimulatorParams candidate = current.withCore(changed);
                    double t = Metrics.mape(simulate(candidate, train, options), trainMeasured);
                    if (t >= trainMape - 1e-6) {
                        continue;
                    }
                    double val = Metrics.mape(simulate(candidate, validation, options), validationMeasured);
                    if (val < validationMape - CORE_MIN_GAIN) {
                        onChange.accept(String.format(java.util.Locale.ROOT,
                                "core %s %d -> %d: training MAPE %.2f%% -> %.2f%%, validation %.2f%% -> %.2f%%",
                                CORE_NAMES[which], which == 0 ? c.storeForwardLatency() : which == 1
                                        ? c.moveEliminationSlots() : which == 2 ? c.moveEliminationCycles()
                                        : which == 3 ? c.msSwitchCycles() : c.lcpPenalty(), v[which],
                                100 * trainMape, 100 * t, 100 * validationMape, 100 * val));
                        current = candidate;
                        trainMape = t;
                        validationMape = val;
                        improved = true;
                    }
                }
            }
        }
        return current;
    }

    /** A machine-wide change must lower the validation MAPE by this much (0.05 points): not noise. */
    static final double CORE_MIN_GAIN = 0.0005;

    private static final String[] CORE_NAMES = {"storeForwardLatency", "moveEliminationSlots",
            "moveEliminationCycles", "msSwitchCycles", "lcpPenalty"};

    /**
     * The held-out evidence for a change: the summed relative error of the validation blocks that use the
     * changed forms, with the current rows and with {@code change}; null when no held-out block uses them.
     */
    private double[] heldOutLoss(List<Integer> heldOut, List<BasicBlock> validation, double[] measured,
                                 SimulatorParams current, Map<String, InstructionParams> rows,
                                 Map<String, InstructionParams> change) {
        if (heldOut.isEmpty()) {
            return null;
        }
        Map<String, InstructionParams> changed = new LinkedHashMap<>(rows);
        changed.putAll(change);
        Simulator before = new Simulator(current.withForms(rows));
        Simulator after = new Simulator(current.withForms(changed));
        double[] loss = new double[2];
        for (int b : heldOut) {
            loss[0] += Metrics.ape(before.run(validation.get(b), options).cyclesPerIteration(), measured[b]);
            loss[1] += Metrics.ape(after.run(validation.get(b), options).cyclesPerIteration(), measured[b]);
        }
        return loss;
    }

    /**
     * How far rows are from their defaults: summed over every value (latency, read-advance, each port group's
     * cycles) of |log2((value + 1) / (default + 1))|, so doubling a latency of 3 costs 0.87 and one of 20 about 1.
     */
    static double distance(Map<String, InstructionParams> rows, Simulator defaults) {
        double d = 0;
        for (Map.Entry<String, InstructionParams> e : rows.entrySet()) {
            InstructionParams r = e.getValue();
            InstructionParams o = defaults.resolve(e.getKey()).row();
            d += logRatio(r.latency(), o.latency()) + logRatio(r.readAdvance(), o.readAdvance());
            java.util.Set<String> groups = new java.util.TreeSet<>(r.ports().keySet());
            groups.addAll(o.ports().keySet());
            for (String g : groups) {
                d += logRatio(r.ports().getOrDefault(g, 0), o.ports().getOrDefault(g, 0));
            }
        }
        return d;
    }

    private static double logRatio(int a, int b) {
        return Math.abs(Math.log((a + 1.0) / (b + 1.0)) / Math.log(2));
    }

    /**
     * The family of a form: its mnemonic with its prefixes ({@code LOCK CMPXCHG} and {@code CMPXCHG} differ by
     * a lock's cost, so they must not move together).
     */
    static String family(String form) {
        int space = form.indexOf(' ', form.startsWith("LOCK ") || form.startsWith("REP") ? form.indexOf(' ') + 1 : 0);
        return space < 0 ? form : form.substring(0, space);
    }

    /** Training blocks that use any of {@code forms}, in order. */
    private static List<Integer> usersOf(java.util.Collection<String> forms, Map<String, List<Integer>> users) {
        java.util.TreeSet<Integer> out = new java.util.TreeSet<>();
        forms.forEach(f -> out.addAll(users.getOrDefault(f, List.of())));
        return new ArrayList<>(out);
    }

    /** One scaling applied to every row of a family: latency, micro-ops or all port cycles ×½, ×¾, ×1½, ×2. */
    static List<Map<String, InstructionParams>> familyCandidates(Map<String, InstructionParams> rows) {
        List<Map<String, InstructionParams>> out = new ArrayList<>();
        for (double f : new double[] {0.5, 0.75, 1.5, 2.0}) {
            for (int what = 0; what < 3; what++) {
                Map<String, InstructionParams> c = new LinkedHashMap<>();
                for (Map.Entry<String, InstructionParams> e : rows.entrySet()) {
                    InstructionParams r = e.getValue();
                    c.put(e.getKey(), switch (what) {
                        case 0 -> new InstructionParams(r.uops(), scale(r.latency(), f, 0, ParameterLayout.MAX_LATENCY),
                                r.readAdvance(), r.ports());
                        case 1 -> new InstructionParams(scale(r.uops(), f, 1, ParameterLayout.MAX_UOPS), r.latency(),
                                r.readAdvance(), r.ports());
                        default -> {
                            Map<String, Integer> p = new TreeMap<>();
                            r.ports().forEach((g, v) -> {
                                int n = scale(v, f, 0, ParameterLayout.MAX_PORT_CYCLES);
                                if (n > 0) {
                                    p.put(g, n);
                                }
                            });
                            yield new InstructionParams(r.uops(), r.latency(), r.readAdvance(), p);
                        }
                    });
                }
                if (!c.equals(rows)) {
                    out.add(c);
                }
            }
        }
        return out;
    }

    private static int scale(int v, double f, int lo, int hi) {
        return (int) Math.max(lo, Math.min(hi, Math.round(v * f)));
    }

    /** Values near {@code v}: ±1, and ×½, ×¾, ×1½, ×2 (rounded) to cross long distances (a divide, a lock) in few passes. */
    static int[] moves(int v, int lo, int hi) {
        java.util.TreeSet<Integer> out = new java.util.TreeSet<>();
        for (int c : new int[] {v - 1, v + 1, (int) Math.round(v * 0.5), (int) Math.round(v * 0.75),
                (int) Math.round(v * 1.5), v * 2}) {
            if (c >= lo && c <= hi && c != v) {
                out.add(c);
            }
        }
        return out.stream().mapToInt(Integer::intValue).toArray();
    }

    /**
     * Rows one move away from {@code row} (one value changed), and the default row. The second-generation
     * machine counts micro-ops from the port groups, so {@code fixedUops} leaves the row's micro-op count.
     */
    static List<InstructionParams> candidates(InstructionParams row, InstructionParams defaultRow, boolean fixedUops) {
        LinkedHashSet<InstructionParams> out = new LinkedHashSet<>();
        int lat = row.latency();
        for (int l : moves(lat, 0, ParameterLayout.MAX_LATENCY)) {
            out.add(new InstructionParams(row.uops(), l, row.readAdvance(), row.ports()));
        }
        for (int u : fixedUops ? new int[0] : moves(row.uops(), 1, ParameterLayout.MAX_UOPS)) {
            out.add(new InstructionParams(u, lat, row.readAdvance(), row.ports()));
        }
        for (int a : moves(row.readAdvance(), 0, ParameterLayout.MAX_READ_ADVANCE)) {
            out.add(new InstructionParams(row.uops(), lat, a, row.ports()));
        }
        for (String g : row.ports().keySet()) {
            for (int c : moves(row.ports().get(g), 0, ParameterLayout.MAX_PORT_CYCLES)) {
                Map<String, Integer> p = new TreeMap<>(row.ports());
                if (c == 0) {
                    p.remove(g);
                } else {
                    p.put(g, c);
                }
                out.add(new InstructionParams(row.uops(), lat, row.readAdvance(), p));
            }
        }
        out.add(defaultRow);
        out.remove(row);
        return new ArrayList<>(out);
    }
}
