package dev.basalt.simulator.bounds;

import dev.basalt.simulator.facts.BlockFacts;
import dev.basalt.simulator.facts.InstructionShape;
import dev.basalt.simulator.facts.MergeOperand;
import dev.basalt.simulator.facts.RunModel;
import dev.basalt.simulator.harness.BhiveMemory;
import dev.basalt.simulator.params.CoreParams;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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
            loads = balancedLoads();
            portLoads = loads;
        }
        return loads.clone();
    }

    private double[] balancedLoads() {
        BlockFacts p = facts;
        int portCount = p.context.params().ports().size();
        double[] load = new double[portCount];
        List<int[]> masks = new ArrayList<>();  // {mask} per entry, with its amount beside
        List<Double> amounts = new ArrayList<>();
        forEachDemand(p, (i, mask, amount) -> {
            masks.add(new int[] {mask});
            amounts.add(amount);
        });
        int union = 0;
        for (int[] m : masks) {
            union |= m[0];
        }
        int remaining = union;
        while (remaining != 0) {
            double best = -1;
            int bestSet = 0;
            // the densest set is a union of the entries' own (remaining) port sets, as in ports(): enumerate those
            // unions when the distinct sets are few, else every subset of the remaining ports
            List<Integer> distinct = new ArrayList<>();
            for (int[] mask : masks) {
                int m = mask[0] & remaining;
                if (m != 0 && !distinct.contains(m)) {
                    distinct.add(m);
                }
            }
            List<Integer> candidates = new ArrayList<>();
            if (distinct.size() <= Math.min(12, Integer.bitCount(remaining))) {
                java.util.Set<Integer> seen = new java.util.HashSet<>();
                for (int choice = 1; choice < 1 << distinct.size(); choice++) {
                    int set = 0;
                    for (int q = 0; q < distinct.size(); q++) {
                        if ((choice & (1 << q)) != 0) {
                            set |= distinct.get(q);
                        }
                    }
                    if (seen.add(set)) {
                        candidates.add(set);
                    }
                }
            } else {
                for (int set = remaining; set != 0; set = (set - 1) & remaining) {
                    candidates.add(set);
                }
            }
            for (int set : candidates) {
                double sum = 0;
                for (int q = 0; q < masks.size(); q++) {
                    int m = masks.get(q)[0] & remaining;
                    if (m != 0 && (m & ~set) == 0) {
                        sum += amounts.get(q);
                    }
                }
                double density = sum / Integer.bitCount(set);
                // the densest; among equals the largest set, so equal ports share a level
                if (density > best + 1e-12 || Math.abs(density - best) <= 1e-12
                        && Integer.bitCount(set) > Integer.bitCount(bestSet)) {
                    best = density;
                    bestSet = set;
                }
            }
            for (int port = 0; port < portCount; port++) {
                if ((bestSet & (1 << port)) != 0) {
                    load[port] = best;
                }
            }
            remaining &= ~bestSet;
        }
        return load;
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
            case PORTS -> portShares(p, portMask, row);
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

    /** One line for people: {@code predecoder 3.44 · decoders 1.00 · issue 0.50 · ports 0.50 (0156) · latency 1.00}. */
    public String describe() {
        String front = source == RunModel.UopSource.LEGACY
                ? String.format(Locale.ROOT, "predecoder %.2f · decoders %.2f", predecoder, decoders)
                : String.format(Locale.ROOT, "%s %.2f", source.name().toLowerCase(Locale.ROOT), delivery);
        String won = winner == Kind.DELIVERY ? source.name().toLowerCase(Locale.ROOT)
                : winner.name().toLowerCase(Locale.ROOT);
        return String.format(Locale.ROOT, "%s · issue %.2f · ports %.2f (%s) · latency %.2f %s → %s", front, issue,
                ports, portSet.isEmpty() ? "-" : portSet, latency, critical, won);
    }

    /** The bounds of the block {@code p} was built for (its run is not needed). */
    public static Bounds of(BlockFacts p) {
        boolean legacy = p.source == RunModel.UopSource.LEGACY;
        double predecoder = p.options.frontEnd() && legacy ? predecoder(p) : 0;
        double decoders = p.options.frontEnd() && legacy ? decoders(p) : 0;
        double delivery = p.options.frontEnd() && !legacy ? delivery(p) : 0;
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
        double ports = ports(p, set);
        List<Integer> critical = new ArrayList<>();
        double latency = latency(p, critical);
        double top = Math.max(Math.max(Math.max(predecoder, decoders), delivery),
                Math.max(issue, Math.max(ports, latency)));
        Kind winner = latency >= top ? Kind.LATENCY : ports >= top ? Kind.PORTS : issue >= top ? Kind.ISSUE
                : delivery >= top && !legacy ? Kind.DELIVERY : decoders >= top ? Kind.DECODERS : Kind.PREDECODER;
        return new Bounds(predecoder, decoders, delivery, p.source, issue, ports,
                p.context.ports().portSetName(set[0]), latency, critical, winner, p, set[0]);
    }

    /**
     * A loop fed by the micro-op cache or the loop stream detector ({@link Pipeline#deliver}): a cycle delivers up to
     * the source's width of fused micro-ops and none after the taken jump, so an iteration takes its micro-ops ÷
     * the width, rounded up; the loop stream detector also issues no two iterations in one cycle, so its issue
     * slots count the same way.
     */
    private static double delivery(BlockFacts p) {
        boolean lsd = p.source == RunModel.UopSource.LSD;
        int width = lsd ? p.core.issueWidth() : p.core.loop().dsbUopsPerCycle();
        int uops = p.iterationUops();
        double cycles = Math.ceil(uops / (double) width);
        if (lsd) { // it issues its unrolled copies as one: a cycle's group ends only at their end
            int copies = p.lsdCopies();
            int slots = 0;
            for (int s : p.issueSlots) {
                slots += s;
            }
            cycles = Math.ceil((double) Math.max(uops, slots) * copies / p.core.issueWidth()) / copies;
        }
        return cycles;
    }

    /**
     * The predecoder (DESIGN.md §11, {@link Pipeline#predecode}): each aligned window takes a cycle per (up to)
     * {@code predecodeWidth} instructions ending in it (at least one), {@code lcpPenalty} per length-changing
     * prefix, and one more when its last cycle used every slot while the next instruction's opcode lies in it.
     * The layout repeats after windowBytes / gcd(block bytes, windowBytes) copies of the block.
     */
    private static double predecoder(BlockFacts p) {
        CoreParams c = p.core;
        if (c.slidingFetch()) { // a window starting at each cycle's first instruction: bytes and width alone
            long bytes = 0;
            int lcp = 0;
            for (int i = 0; i < p.n; i++) {
                bytes += p.shape[i].length();
                lcp += p.shape[i].lengthChanging() ? 1 : 0;
            }
            return Math.max(bytes / (double) p.fetchBytes, p.n / (double) c.predecodeWidth())
                    + lcp * c.lcpPenalty();
        }
        long bytes = p.blockBytes;
        int w = c.predecodeBytes();
        int copies = (int) (w / gcd(bytes, w));
        long windows = copies * bytes / w;
        int total = copies * p.n;
        long cycles = 0;
        int j = 0; // the next instance: instruction at of the copy starting at byte base
        int at = 0;
        long base = 0;
        int width = c.predecodeWidth();
        for (long window = 0; window < windows; window++) {
            long windowEnd = (window + 1) * w;
            int marked = 0;
            int lcp = 0;
            while (j < total && base + p.offset[at] + p.shape[at].length() - 1 < windowEnd) {
                marked++;
                if (p.shape[at].lengthChanging()) {
                    lcp++;
                }
                j++;
                if (++at == p.n) {
                    at = 0;
                    base += bytes;
                }
            }
            cycles += Math.max(1, (marked + width - 1) / width) + (long) lcp * c.lcpPenalty();
            if (marked > 0 && marked % width == 0 && base + p.offset[at] + p.shape[at].opcodeOffset() < windowEnd) {
                cycles++; // its opcode is in this window, but all the last cycle's slots are used
            }
        }
        return cycles / (double) copies;
    }

    private static long gcd(long a, long b) {
        return b == 0 ? a : gcd(b, a % b);
    }

    /**
     * The decoders ({@link Pipeline#decode}) fed without pause: a cycle's group starts on the complex decoder and
     * takes up to {@code decoders} instructions and {@code decodeUops} fused micro-ops, the later ones single
     * micro-op instructions only; a microcoded instruction takes the switch and its micro-ops at the sequencer's
     * rate alone. Groups are formed until one starts at an instruction a group started at before.
     */
    private static double decoders(BlockFacts p) {
        CoreParams c = p.core;
        int n = p.n;
        long[] seenCycles = new long[n];
        long[] seenAt = new long[n];
        java.util.Arrays.fill(seenAt, -1);
        long cycles = 0;
        long j = 0;
        int at = 0; // j % n
        while (true) {
            if (seenAt[at] >= 0) {
                return (cycles - seenCycles[at]) / (double) ((j - seenAt[at]) / n);
            }
            seenAt[at] = j;
            seenCycles[at] = cycles;
            InstructionShape first = p.shape[at];
            if (first.microcoded()) {
                int u = first.decodeUops();
                cycles += c.msSwitchCycles() + (u + c.msUopsPerCycle() - 1) / c.msUopsPerCycle();
                j++;
                at = at + 1 == n ? 0 : at + 1;
                continue;
            }
            int count = 0;
            int uops = 0;
            int immediates = 0;
            int mostImmediates = c.decodeImmediates() > 0 ? c.decodeImmediates() : Integer.MAX_VALUE;
            while (count < c.decoders()) {
                InstructionShape s = p.shape[at];
                int u = s.decodeUops();
                if (count > 0 && (s.microcoded() || s.complex() || uops + u > c.decodeUops())) {
                    break;
                }
                if (s.immediateField() && immediates++ >= mostImmediates) {
                    break;
                }
                uops += u;
                count++;
                j++;
                at = at + 1 == n ? 0 : at + 1;
                if (p.fusedTail[at]) { // the jump fused with it takes no decoder of its own
                    j++;
                    at = at + 1 == n ? 0 : at + 1;
                }
                if (s.decodedAlone()) {
                    break; // nothing after it this cycle
                }
            }
            cycles++;
        }
    }

    /**
     * The port bound, exact for an ideal scheduler: over every set P of ports, the micro-ops that can only use
     * ports of P need (their count) ÷ |P| cycles; a divider's busy cycles count on the divider alone.
     */
    private static double ports(BlockFacts p, int[] bestSetOut) {
        int entries = 0;
        for (int[] d : p.demand) {
            entries += d.length;
        }
        int[] masks = new int[entries]; // the distinct port sets, in order of first use, and their micro-ops
        double[] amounts = new double[entries];
        int[] distinct = new int[1];
        forEachDemand(p, (i, mask, amount) -> {
            int q = 0;
            while (q < distinct[0] && masks[q] != mask) {
                q++;
            }
            if (q == distinct[0]) {
                masks[distinct[0]++] = mask;
            }
            amounts[q] += amount;
        });
        int k = distinct[0];
        // The best P is a union of the micro-ops' own port sets (any other P holds no more micro-ops than the
        // union of the sets inside it, on no fewer ports), and a block has few distinct sets. Candidates: the
        // unions of the distinct sets when they are few, else every subset of the ports used.
        int union = 0;
        for (int q = 0; q < k; q++) {
            union |= masks[q];
        }
        boolean unions = k <= Integer.bitCount(union);
        double total = 0;
        for (int q = 0; q < k; q++) {
            total += amounts[q];
        }
        // In union mode, the union of choice's sets: that of choice less its lowest member, and that member's.
        int[] unionOf = unions ? new int[1 << k] : null;
        double best = 0;
        int bestSet = 0;
        int next = union;
        for (int choice = 1; unions ? choice < 1 << k : next != 0; choice++) {
            int set;
            if (unions) {
                set = unionOf[choice & (choice - 1)] | masks[Integer.numberOfTrailingZeros(choice)];
                unionOf[choice] = set;
            } else {
                set = next;
                next = (next - 1) & union;
            }
            int size = Integer.bitCount(set);
            if (total / size < best) {
                continue; // even every micro-op on these ports would not reach the best (a partial sum of
                          // non-negative terms never exceeds the whole sum, in floating point too)
            }
            double load = 0;
            for (int q = 0; q < k; q++) {
                if ((masks[q] & ~set) == 0) {
                    load += amounts[q];
                }
            }
            double bound = load / size;
            if (bound > best || bound == best && bound > 0 && Integer.bitCount(set) < Integer.bitCount(bestSet)) {
                best = bound;
                bestSet = set;
            }
        }
        bestSetOut[0] = bestSet;
        return best;
    }

    /** Each instruction's micro-ops (a divider: its busy cycles) whose ports all lie in {@code bestSet}, into share. */
    private static void portShares(BlockFacts p, int bestSet, double[] share) {
        for (int i = 0; i < p.n && bestSet != 0; i++) {
            if (eliminated(p, i)) {
                continue;
            }
            int[] d = p.demand[i];
            for (int e = 0; e < d.length; e += d[e] < 0 ? 2 : 1) {
                if ((demandMask(p, d, e) & ~bestSet) == 0) {
                    share[i] += demandAmount(d, e) * executedShare(p, i);
                }
            }
        }
    }

    /** The share of iterations instruction i executes in: below 1 for a fold the renamer eliminates. */
    private static double executedShare(BlockFacts p, int i) {
        return p.executedShare == null ? 1 : p.executedShare[i];
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
        Map<Integer, Integer> count = new java.util.HashMap<>();
        int most = 0;
        int[] offsets = BhiveMemory.loadOffsets(p.memory);
        for (int i = 0; i < p.n; i++) {
            if (offsets[i] >= 0 && p.loading[i] && !p.shape[i].noPort()) { // a nop's operand is no load
                most = Math.max(most, count.merge(offsets[i] & CoreParams.LOAD_BANK_BITS, 1, Integer::sum));
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
        for (int i = 0; i < p.n; i++) {
            if (eliminated(p, i)) {
                continue;
            }
            int[] d = p.demand[i];
            double share = executedShare(p, i);
            for (int e = 0; e < d.length; e += d[e] < 0 ? 2 : 1) {
                sink.accept(i, demandMask(p, d, e), demandAmount(d, e) * share);
            }
        }
    }

    /** Whether instruction i's micro-ops are eliminated at rename (as long as elimination slots last). */
    private static boolean eliminated(BlockFacts p, int i) {
        return p.options.moveElimination() && p.shape[i].moveRegisterFile() > 0;
    }

    /** The ports of demand entry e: a port group's, or a divider's (a negative entry, its busy cycles after it). */
    private static int demandMask(BlockFacts p, int[] d, int e) {
        return d[e] < 0 ? 1 << (-d[e] - 1) : p.context.ports().groupMask(d[e]);
    }

    /** What demand entry e puts on its ports: one micro-op, or a divider's busy cycles. */
    private static double demandAmount(int[] d, int e) {
        return d[e] < 0 ? d[e + 1] : 1;
    }

    /**
     * The latency bound: the maximum cycle ratio of the dependency graph, each edge weighing what the second
     * machine waits along it (a producer's latency less the consumer's read-advance; for a load+operation, the
     * load's latency only on its address sources; store forwarding on memory sources; nothing for an
     * eliminated move), each loop-carried edge one iteration. Karp's maximum mean cycle over paths that cross
     * k iteration boundaries: D_k(v) is the heaviest such path ending at v.
     */
    private static double latency(BlockFacts p, List<Integer> critical) {
        int n = p.n;
        CoreParams c = p.core;
        if (!anyLoopCarried(p)) {
            return 0; // every edge runs forward in the block: no cycle
        }
        // Every cycle lies within one strongly connected component, so Karp needs only the instructions of those
        // that hold one: in block order, ord[j] is the j-th of them and idx[v] its place (-1: on no cycle).
        boolean[] onCycle = cycleNodes(p);
        int[] idx = new int[n];
        int m = 0;
        for (int v = 0; v < n; v++) {
            idx[v] = onCycle[v] ? m++ : -1;
        }
        if (m == 0) {
            return 0;
        }
        int[] ord = new int[m];
        int maxDistance = 1;
        double[] w = new double[p.producers.length / 2]; // each source's weight, once
        for (int v = 0; v < n; v++) {
            if (idx[v] < 0) {
                continue;
            }
            ord[idx[v]] = v;
            for (int k = p.start[v]; k < p.start[v + 1]; k++) {
                if (idx[p.producers[2 * k]] >= 0) {
                    maxDistance = Math.max(maxDistance, p.producers[2 * k + 1]);
                    w[k] = weight(p, c, v, k);
                }
            }
        }
        int layers = m * maxDistance; // Karp's N: the nodes of the graph with unit transit edges
        double minus = Double.NEGATIVE_INFINITY;
        double[] d = new double[(layers + 1) * m]; // d[layer * m + j]
        int[] from = new int[(layers + 1) * m]; // the deciding producer's (layer * m + j), or -1
        java.util.Arrays.fill(d, m, d.length, minus); // layer 0: every node starts at 0
        java.util.Arrays.fill(from, -1);
        for (int layer = 0; layer <= layers; layer++) {
            for (int j = 0; j < m; j++) {
                int v = ord[j];
                int at = layer * m + j;
                for (int k = p.start[v]; k < p.start[v + 1]; k++) {
                    int u = p.producers[2 * k];
                    int back = p.producers[2 * k + 1];
                    if (idx[u] < 0 || layer - back < 0 || back == 0 && u >= v) {
                        continue;
                    }
                    double du = d[(layer - back) * m + idx[u]];
                    if (du == minus) {
                        continue;
                    }
                    double t = du + w[k];
                    if (t > d[at]) {
                        d[at] = t;
                        from[at] = (layer - back) * m + idx[u];
                    }
                }
            }
        }
        double best = 0;
        int bestNode = -1;
        for (int j = 0; j < m; j++) {
            double last = d[layers * m + j];
            if (last == minus) {
                continue;
            }
            double worst = Double.POSITIVE_INFINITY;
            for (int k = 0; k < layers; k++) {
                if (d[k * m + j] != minus) {
                    worst = Math.min(worst, (last - d[k * m + j]) / (layers - k));
                }
            }
            if (worst != Double.POSITIVE_INFINITY && worst > best + 1e-12) {
                best = worst;
                bestNode = j;
            }
        }
        if (bestNode >= 0) { // follow the deciding producers back: the first node met twice closes the cycle
            int[] seenAt = new int[m]; // position in the path + 1 (0: not met)
            int[] path = new int[layers + 2];
            int length = 0;
            int at = layers * m + bestNode;
            while (at >= 0) {
                int j = at % m;
                if (seenAt[j] > 0) {
                    boolean[] cycle = new boolean[n];
                    for (int q = seenAt[j] - 1; q < length; q++) {
                        cycle[ord[path[q]]] = true;
                    }
                    for (int v = 0; v < n; v++) {
                        if (cycle[v]) {
                            critical.add(v);
                        }
                    }
                    break;
                }
                path[length++] = j;
                seenAt[j] = length;
                at = from[at];
            }
        }
        return best;
    }

    /**
     * The instructions on a cycle of the latency bound's graph (the sources Karp follows): the members of its
     * strongly connected components with more than one instruction or a source from themselves (Tarjan's
     * algorithm, iterative, along sources from consumer to producer: the same components).
     */
    private static boolean[] cycleNodes(BlockFacts p) {
        int n = p.n;
        int[] index = new int[n];
        int[] low = new int[n];
        java.util.Arrays.fill(index, -1);
        boolean[] onStack = new boolean[n];
        int[] stack = new int[n];
        int sp = 0;
        int[] callNode = new int[n];
        int[] callSource = new int[n];
        boolean[] onCycle = new boolean[n];
        int counter = 0;
        for (int root = 0; root < n; root++) {
            if (index[root] >= 0) {
                continue;
            }
            int depth = 0;
            callNode[0] = root;
            callSource[0] = p.start[root];
            index[root] = low[root] = counter++;
            stack[sp++] = root;
            onStack[root] = true;
            while (depth >= 0) {
                int v = callNode[depth];
                int k = callSource[depth];
                int end = p.shape[v].noPort() ? p.start[v] : p.start[v + 1]; // done at rename: waits for nothing
                if (k < end) {
                    callSource[depth] = k + 1;
                    int u = p.producers[2 * k];
                    if (p.producers[2 * k + 1] == 0 && u >= v) {
                        continue;
                    }
                    if (index[u] < 0) {
                        index[u] = low[u] = counter++;
                        stack[sp++] = u;
                        onStack[u] = true;
                        callNode[++depth] = u;
                        callSource[depth] = p.start[u];
                    } else if (onStack[u]) {
                        low[v] = Math.min(low[v], index[u]);
                    }
                    continue;
                }
                if (low[v] == index[v]) { // v roots a component: the stack down to v
                    int top = sp;
                    do {
                        onStack[stack[--sp]] = false;
                    } while (stack[sp] != v);
                    boolean cycle = top - sp > 1;
                    for (int q = p.start[v]; q < end && !cycle; q++) {
                        cycle = p.producers[2 * q] == v; // its own source, from an earlier iteration
                    }
                    for (int q = sp; q < top && cycle; q++) {
                        onCycle[stack[q]] = true;
                    }
                }
                if (--depth >= 0) {
                    int parent = callNode[depth];
                    low[parent] = Math.min(low[parent], low[v]);
                }
            }
        }
        return onCycle;
    }

    /** Whether any source comes from an earlier iteration (only then can the graph have a cycle). */
    private static boolean anyLoopCarried(BlockFacts p) {
        for (int k = 1; k < p.producers.length; k += 2) {
            if (p.producers[k] > 0) {
                return true;
            }
        }
        return false;
    }

    /** What consumer {@code v} waits along its source {@code k}, from the producer's result to its own. */
    private static double weight(BlockFacts p, CoreParams c, int v, int k) {
        int loadLatency = p.loadLatency[v];
        int lat = p.latency[v];
        boolean eliminated = p.options.moveElimination() && p.shape[v].moveRegisterFile() > 0;
        if (eliminated) {
            lat = 0;
        }
        if (p.executedShare != null && p.fold[v] != null) { // a fold has its latency only when it executes
            return lat * p.executedShare[v];
        }
        int opLatency = p.loading[v] ? (eliminated ? 0 : p.opLatency[v]) : lat; // a two-step instruction's second step
        int loadStep = p.loading[v] ? loadLatency : 1;
        if (p.memorySource[k] && p.renamed(v, p.producers[2 * k], k)) { // renamed: the data a cycle before the store
            return -1 + (p.twoStep[v] ? opLatency : Math.max(0, lat - p.context.params().loadLatency()));
        }
        if (p.memorySource[k]) { // forwarded from a store: its data arrives storeForwardLatency after the store
            double arrive = p.options.storeForwarding()
                    ? (p.storing[v] && p.twoStep[v] ? c.rmwForwardCycles() : c.storeForwardLatency()) - loadLatency
                            + (p.partialSource[k] ? c.storeForwardFailPenalty() : 0)
                    : 0;
            return arrive + (p.twoStep[v] ? loadStep + opLatency : lat);
        }
        if (p.twoStep[v]) {
            return p.addressSource[k] ? loadStep + opLatency
                    : opLatency - (p.mergeSource[k] ? MergeOperand.early(opLatency, p.mergeCycles[v]) : 0);
        }
        return lat - p.readAdvance[v] - (p.mergeSource[k] ? MergeOperand.early(lat, p.mergeCycles[v]) : 0);
    }
}
