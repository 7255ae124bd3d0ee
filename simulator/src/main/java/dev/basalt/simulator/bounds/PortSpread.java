package dev.basalt.simulator.bounds;

import dev.basalt.simulator.facts.BlockFacts;
import java.util.ArrayList;
import java.util.List;

/**
 * The ports of {@link Bounds}: the port bound over sets of ports, each instruction's part of it, and the
 * micro-ops spread over their ports for the port table ({@link Bounds#portLoads()}), all from the same demand
 * entries.
 */
final class PortSpread {

    private PortSpread() {
    }

    /** Every port demand of the block's instructions that are not eliminated at rename, in block order. */
    static void forEachDemand(BlockFacts p, Bounds.DemandSink sink) {
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

    /**
     * The port bound, exact for an ideal scheduler: over every set P of ports, the micro-ops that can only use
     * ports of P need (their count) ÷ |P| cycles; a divider's busy cycles count on the divider alone.
     */
    static double ports(BlockFacts p, int[] bestSetOut) {
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
    static void portShares(BlockFacts p, int bestSet, double[] share) {
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

    /** The port table behind {@link Bounds#portLoads()}: the densest set of ports first, then the rest. */
    static double[] balancedLoads(BlockFacts p) {
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

    /** The share of iterations instruction i executes in: below 1 for a fold the renamer eliminates. */
    private static double executedShare(BlockFacts p, int i) {
        return p.executedShare == null ? 1 : p.executedShare[i];
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
}
