package dev.basalt.simulator.bounds;

import dev.basalt.simulator.facts.BlockFacts;
import dev.basalt.simulator.facts.RunModel;
import dev.basalt.simulator.harness.BhiveMemory;
import dev.basalt.simulator.params.CoreParams;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * A block's throughput as the largest of closed-form bounds, with no cycle loop (DESIGN.md §13, after Facile,
 * Abel, Sharma &amp; Reineke, IISWC 2023). Each bound reads the same per-instruction facts as the second machine
 * ({@link BlockFacts}: lengths, fused and unfused micro-ops, ports, latencies, sources), so with the
 * same mechanisms on the machine can never run faster than any of them.
 *
 * <p>What it holds (each an accessor of the same name):
 * <ul>
 * <li>{@code predecoder}: cycles per iteration of the predecoder over the block laid out from an aligned address
 *     until the layout repeats (0 without a front end);
 * <li>{@code decoders}: cycles per iteration of the decoders' groups (and the microcode sequencer) until they
 *     repeat;
 * <li>{@code delivery}: a loop's micro-ops from the micro-op cache or the loop stream detector ({@code source}): per
 *     iteration, its fused micro-ops ÷ the source's width, rounded up since the taken jump ends a cycle's delivery
 *     (0 for straight-line code and loops the legacy decoders feed, whose predecoder and decoders bounds apply
 *     instead); {@code source}: where the micro-ops come from;
 * <li>{@code issue}: fused micro-ops at the renamer per iteration ÷ the issue width (or, if more, the immediates
 * the renamer eliminates per iteration ÷ those it can a cycle, {@link ImmediateElimination}; the loads of one cache
 * bank ÷ those a cycle can take; the cycles the cache needs to commit the stores, {@link StoreCommit}, whose
 * store-buffer entries the renamer waits for);
 * <li>{@code ports}: the largest (micro-ops whose ports all lie in P) ÷ |P| over sets of ports P; {@code portSet}:
 *     the ports of that P ("0156", or a divider's name);
 * <li>{@code latency}: the maximum cycle ratio of the dependency graph: along a cycle of dependencies, latency ÷
 *     iterations spanned; {@code critical}: the instructions on that cycle, in block order;
 * <li>{@code winner}: the largest bound (ties: latency, ports, issue, decoders, predecoder — the more specific);
 * <li>{@code shares}: per bound ({@link Kind#ordinal()}) and instruction, the instruction's part of that bound in
 *     cycles per iteration (each row adds up to the bound): its bytes of the predecoder's windows, its micro-ops at
 *     the decoders and the renamer, its micro-ops in the binding port set, an equal part of the critical cycle.
 *     Computed on first use: a prediction needs only the winner's row ({@link #contributions()}).
 * </ul>
 *
 * <p>Here: the bounds' composition and shares; the front end's bounds are {@code FrontEndBounds}'s, the ports'
 * (and the port table's spread) {@code PortSpread}'s, the latency's {@code CycleRatio}'s.
 */
public final class Bounds {

    /** The bounds, each a mechanism that can limit a block. */
    public enum Kind {
        PREDECODER, DECODERS, DELIVERY, ISSUE, PORTS, LATENCY
    }

    private static final Kind[] KINDS = Kind.values();

    private final double predecoder;
    private final double decoders;
    private final double delivery;
    private final RunModel.UopSource source;
    private final double issue;
    private final double ports;
    private final String portSet;
    private final double latency;
    private final List<Integer> critical;
    private final Kind winner;
    private final BlockFacts facts; // what the shares are computed from
    private final int portMask; // the ports of portSet
    private volatile double[][] shares; // on first use (a fully built array, so publishing it is safe)
    private volatile double[] portLoads; // on first use, likewise

    private Bounds(double predecoder, double decoders, double delivery, RunModel.UopSource source, double issue,
                   double ports, String portSet, double latency, List<Integer> critical, Kind winner,
                   BlockFacts facts, int portMask) {
        this.predecoder = predecoder;
        this.decoders = decoders;
        this.delivery = delivery;
        this.source = Objects.requireNonNull(source, "source");
        this.issue = issue;
        this.ports = ports;
        this.portSet = Objects.requireNonNull(portSet, "portSet");
        this.latency = latency;
        this.critical = List.copyOf(critical);
        this.winner = Objects.requireNonNull(winner, "winner");
        this.facts = facts;
        this.portMask = portMask;
    }

    public double predecoder() {
        return predecoder;
    }

    public double decoders() {
        return decoders;
    }

    public double delivery() {
        return delivery;
    }

    public RunModel.UopSource source() {
        return source;
    }

    public double issue() {
        return issue;
    }

    public double ports() {
        return ports;
    }

    public String portSet() {
        return portSet;
    }

    public double latency() {
        return latency;
    }

    /** The facts the bounds were computed from (for the views built on them). */
    public BlockFacts facts() {
        return facts;
    }

    public List<Integer> critical() {
        return critical;
    }

    public Kind winner() {
        return winner;
    }

    /**
     * Each port's busy cycles per iteration (dividers included, in the table's port order) with the micro-ops
     * spread over their ports as evenly as they can be: the densest set of ports takes its own micro-ops evenly, the
     * rest of the micro-ops are spread over the other ports the same way, and so on. So the busiest row is the
     * {@link #ports()} bound itself, and a port table and the bound never disagree (llvm-mca's resource-pressure view
     * shows its own scheduler's spread instead).
     */
    public double[] portLoads() {
        double[] loads = portLoads;
        if (loads == null) {
            loads = PortSpread.balancedLoads(facts);
            portLoads = loads;
        }
        return loads.clone();
    }

    /** Per bound ({@link Kind#ordinal()}) and instruction, its part of the bound (a copy). */
    public double[][] shares() {
        double[][] all = allShares();
        double[][] copy = new double[all.length][];
        for (int k = 0; k < all.length; k++) {
            copy[k] = all[k].clone();
        }
        return copy;
    }

    private double[][] allShares() {
        double[][] all = shares;
        if (all == null) {
            all = new double[KINDS.length][];
            for (Kind k : KINDS) {
                all[k.ordinal()] = row(k);
            }
            shares = all;
        }
        return all;
    }

    /** Instruction {@code i}'s part of bound {@code kind}, in cycles per iteration. */
    public double share(Kind kind, int i) {
        return allShares()[kind.ordinal()][i];
    }

    /** Each instruction's part of the winning bound: the instructions behind the prediction. */
    public double[] contributions() {
        double[][] all = shares;
        return all != null ? all[winner.ordinal()].clone() : row(winner);
    }

    /** One bound's shares: each instruction's raw part, scaled to add up to the bound. */
    private double[] row(Kind kind) {
        BlockFacts p = facts;
        double[] row = new double[p.n];
        switch (kind) {
            case PREDECODER -> {
                for (int i = 0; i < p.n; i++) {
                    row[i] = p.shape[i].length();
                }
            }
            case DECODERS, DELIVERY -> {
                for (int i = 0; i < p.n; i++) {
                    row[i] = p.shape[i].decodeUops();
                }
            }
            case ISSUE -> {
                for (int i = 0; i < p.n; i++) {
                    row[i] = p.issueSlots[i];
                }
            }
            case PORTS -> PortSpread.portShares(p, portMask, row);
            case LATENCY -> {
                for (int i : critical) {
                    row[i] = Math.max(1, p.latency[i]);  // a 32-cycle div carries its chain more than an add
                }
            }
        }
        double value = value(kind);
        double sum = 0;
        for (double v : row) {
            sum += v;
        }
        for (int i = 0; i < row.length; i++) {
            row[i] = sum > 0 ? row[i] * value / sum : 0;
        }
        return row;
    }

    @Override
    public String toString() {
        return describe();
    }

    /** The prediction: the largest bound, in cycles per iteration. */
    public double cyclesPerIteration() {
        return Math.max(Math.max(Math.max(predecoder, decoders), delivery), Math.max(issue, Math.max(ports, latency)));
    }

    /** The value of one bound. */
    public double value(Kind kind) {
        return switch (kind) {
            case PREDECODER -> predecoder;
            case DECODERS -> decoders;
            case DELIVERY -> delivery;
            case ISSUE -> issue;
            case PORTS -> ports;
            case LATENCY -> latency;
        };
    }

    /** The largest bound except {@code without} (an ablation: that mechanism not modelled). */
    public double cyclesPerIterationWithout(Kind without) {
        double top = 0;
        for (Kind k : KINDS) {
            if (k != without) {
                top = Math.max(top, value(k));
            }
        }
        return top;
    }

    /** One line for people: {@code predecoder: 3.44 · decoders: 1.00 · issue: 0.50 · ports: 0.50 (0156) · latency: 1.00}. */
    public String describe() {
        String front = source == RunModel.UopSource.LEGACY
                ? String.format(Locale.ROOT, "predecoder: %.2f · decoders: %.2f", predecoder, decoders)
                : String.format(Locale.ROOT, "delivery (%s): %.2f", source.name().toLowerCase(Locale.ROOT), delivery);
        String won = winner.name().toLowerCase(Locale.ROOT);
        return String.format(Locale.ROOT, "%s · issue: %.2f · ports: %.2f (%s) · latency: %.2f %s → %s", front, issue,
                ports, portSet.isEmpty() ? "-" : portSet, latency, critical, won);
    }

    /** The bounds of the block {@code p} was built for (its run is not needed). */
    public static Bounds of(BlockFacts p) {
        boolean legacy = p.source == RunModel.UopSource.LEGACY;
        double predecoder = p.options.frontEnd() && legacy ? FrontEndBounds.predecoder(p) : 0;
        double decoders = p.options.frontEnd() && legacy ? FrontEndBounds.decoders(p) : 0;
        double delivery = p.options.frontEnd() && !legacy ? FrontEndBounds.delivery(p) : 0;
        double uops = 0;
        for (int i = 0; i < p.n; i++) {
            uops += p.issueSlots[i];
        }
        // The renamer also waits for eliminations, loads of one bank, and store-buffer entries the cache frees at
        // its pace (StoreCommit).
        // The renamer waits, too, while microcode handles an x87 assist, which flushes the pipeline (X87Assists).
        double issue = Math.max(Math.max(uops / p.core.issueWidth(), eliminations(p)),
                Math.max(sameBankLoads(p), p.storeCommit)) + p.x87Assists;
        int[] set = new int[1];
        double ports = PortSpread.ports(p, set);
        List<Integer> critical = new ArrayList<>();
        double latency = CycleRatio.latency(p, critical);
        double top = Math.max(Math.max(Math.max(predecoder, decoders), delivery),
                Math.max(issue, Math.max(ports, latency)));
        Kind winner = latency >= top ? Kind.LATENCY : ports >= top ? Kind.PORTS : issue >= top ? Kind.ISSUE
                : delivery >= top && !legacy ? Kind.DELIVERY : decoders >= top ? Kind.DECODERS : Kind.PREDECODER;
        return new Bounds(predecoder, decoders, delivery, p.source, issue, ports,
                p.context.ports().portSetName(set[0]), latency, critical, winner, p, set[0]);
    }

    /**
     * The loads of one cache bank an iteration over those a cycle can make ({@link CoreParams#withSameBankLoads}, in
     * BHive's harness, where every page is one and a page offset one address); 0 when the CPU has no such limit.
     */
    private static double sameBankLoads(BlockFacts p) {
        int limit = p.core.sameBankLoads();
        if (limit == 0 || !p.options.memoryDependencies() || !p.options.harnessMemory(p.loop)) {
            return 0;
        }
        boolean loads = false;
        for (int i = 0; i < p.n && !loads; i++) {
            loads = p.loading[i] && !p.shape[i].noPort();
        }
        if (!loads) {
            return 0; // no load: no need to run the block for its addresses
        }
        int[] count = new int[CoreParams.LOAD_BANK_BITS + 1]; // by bank bits (a few dozen values)
        int most = 0;
        int[] offsets = BhiveMemory.loadOffsets(p.memory);
        for (int i = 0; i < p.n; i++) {
            if (offsets[i] >= 0 && p.loading[i] && !p.shape[i].noPort()) { // a nop's operand is no load
                most = Math.max(most, ++count[offsets[i] & CoreParams.LOAD_BANK_BITS]);
            }
        }
        return most / (double) limit;
    }

    /**
     * The renamer's bound on eliminating immediates ({@link ImmediateElimination}): the folds an iteration eliminates
     * over the eliminations a cycle; 0 for a CPU without them.
     */
    private static double eliminations(BlockFacts p) {
        if (p.executedShare == null) {
            return 0;
        }
        double folds = 0;
        for (int i = 0; i < p.n; i++) {
            if (p.fold[i] != null) {
                folds += 1 - p.executedShare[i];
            }
        }
        return folds / p.core.immediateElimination().perCycle();
    }

    /** What one demand entry puts where: instruction {@code i}'s micro-op (or divider cycles) on the ports of mask. */
    public interface DemandSink {
        void accept(int i, int mask, double amount);
    }

    /** Every port demand of the block's instructions that are not eliminated at rename, in block order. */
    public static void forEachDemand(BlockFacts p, DemandSink sink) {
        PortSpread.forEachDemand(p, sink);
    }
}
