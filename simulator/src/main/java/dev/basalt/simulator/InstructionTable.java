package dev.basalt.simulator;

import dev.basalt.simulator.bounds.Bounds;
import dev.basalt.simulator.facts.BlockFacts;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The per-instruction view of a block (llvm-mca's instruction info and resource pressure by instruction, uiCA's
 * table): for each instruction its micro-ops, latency, the ports its micro-ops go to with the cycles per iteration
 * each takes there, and the instructions it reads from. The ports are those of the analytical bounds' balanced
 * spread ({@link Bounds#portLoads()}): each set of ports that is equally loaded takes its micro-ops, spread so that
 * every port of it ends at the same level, so the columns add up to the port table and its busiest row to the port
 * bound — the table, the bound and the bottleneck tell one story.
 */
public final class InstructionTable {

    /**
     * One instruction's row.
     *
     * @param unfused    micro-ops at the ports (unfused domain)
     * @param fused      issue slots: fused-domain micro-ops at the renamer (0 for an eliminated move)
     * @param latency    cycles from its inputs to its result (its load's included)
     * @param portCycles per port of the table, the cycles per iteration its micro-ops take there
     * @param sources    what it reads from: {@code {producer, iterations back, kind}} with kind 0 a register,
     *                   1 memory (a store), 2 an address register
     */
    public record Row(int unfused, int fused, int latency, double[] portCycles, List<int[]> sources) {

        public Row {
            portCycles = portCycles.clone();
            sources = List.copyOf(sources);
        }

        @Override
        public double[] portCycles() {
            return portCycles.clone();
        }
    }

    private InstructionTable() {
    }

    /** The rows of the block {@code bounds} were computed for, in block order. */
    public static List<Row> of(Bounds bounds) {
        BlockFacts p = bounds.facts();
        int ports = p.context.params().ports().size();
        double[] level = bounds.portLoads();
        // each demand entry: its instruction, its ports (mask) and what it puts on them
        List<int[]> entries = new ArrayList<>();  // {instruction, mask}
        List<Double> amounts = new ArrayList<>();
        Bounds.forEachDemand(p, (i, mask, amount) -> {
            entries.add(new int[] {i, mask});
            amounts.add(amount);
        });
        double[][] cycles = new double[p.n][ports];
        // Ports at one level form a set that takes exactly the entries whose ports lie within it and the ports of
        // higher levels; spread them by a max flow so each of its ports ends at the level.
        boolean[] assigned = new boolean[entries.size()];
        double[] levels = Arrays.stream(level).filter(v -> v > 0).distinct().sorted().toArray();
        int higher = 0;  // ports of the levels done so far (the densest first)
        for (int li = levels.length - 1; li >= 0; li--) {
            int set = 0;
            for (int port = 0; port < ports; port++) {
                if (Math.abs(level[port] - levels[li]) <= 1e-12) {
                    set |= 1 << port;
                }
            }
            List<Integer> mine = new ArrayList<>();
            for (int q = 0; q < entries.size(); q++) {
                int m = entries.get(q)[1];
                if (!assigned[q] && (m & set) != 0 && (m & ~(set | higher)) == 0) {
                    mine.add(q);
                    assigned[q] = true;
                }
            }
            spread(mine, entries, amounts, set, levels[li], ports, cycles);
            higher |= set;
        }
        List<Row> rows = new ArrayList<>(p.n);
        for (int i = 0; i < p.n; i++) {
            List<int[]> sources = new ArrayList<>();
            for (int k = p.start[i]; k < p.start[i + 1]; k++) {
                sources.add(new int[] {p.producers[2 * k], p.producers[2 * k + 1],
                        p.memorySource[k] ? 1 : p.addressSource[k] ? 2 : 0});
            }
            rows.add(new Row(p.unfused[i], p.issueSlots[i], p.latency[i], cycles[i], sources));
        }
        return rows;
    }

    /**
     * Puts the entries {@code mine} on the ports of {@code set}, each port ending at {@code level}, and adds each
     * entry's part to its instruction's row. Each entry starts spread evenly over its ports in the set; the spread
     * is then scaled port by port toward the level (matrix scaling), so entries alike stay alike — three multiplies
     * on ports 0 and 1 each put half on each — and the ports come out at the level the decomposition found.
     */
    private static void spread(List<Integer> mine, List<int[]> entries, List<Double> amounts, int set, double level,
                               int ports, double[][] cycles) {
        int m = mine.size();
        double[][] w = new double[m][ports];
        for (int a = 0; a < m; a++) {
            int mask = entries.get(mine.get(a))[1] & set;
            int count = Integer.bitCount(mask);
            for (int port = 0; port < ports; port++) {
                if ((mask & (1 << port)) != 0) {
                    w[a][port] = amounts.get(mine.get(a)) / count;
                }
            }
        }
        for (int round = 0; round < 200; round++) {
            double[] load = new double[ports];
            for (double[] row : w) {
                for (int port = 0; port < ports; port++) {
                    load[port] += row[port];
                }
            }
            double worst = 0;
            for (int port = 0; port < ports; port++) {
                if ((set & (1 << port)) != 0) {
                    worst = Math.max(worst, Math.abs(load[port] - level));
                }
            }
            if (worst <= 1e-12 * Math.max(1, level)) {
                break;
            }
            for (int a = 0; a < m; a++) {
                double total = 0;
                for (int port = 0; port < ports; port++) {
                    if (w[a][port] > 0) {
                        w[a][port] *= level / load[port];
                        total += w[a][port];
                    }
                }
                double amount = amounts.get(mine.get(a));
                for (int port = 0; port < ports; port++) {
                    w[a][port] *= amount / total;
                }
            }
        }
        settle(w, mine, entries, set, level, ports);
        for (int a = 0; a < m; a++) {
            int i = entries.get(mine.get(a))[0];
            for (int port = 0; port < ports; port++) {
                cycles[i][port] += w[a][port];
            }
        }
    }

    /**
     * Scaling converges slowly where some entry must leave a port altogether; what it leaves over is moved exactly:
     * from a port above the level, along a path of entries that can shift their micro-ops from one of their ports to
     * another, to a port below it.
     */
    private static void settle(double[][] w, List<Integer> mine, List<int[]> entries, int set, double level,
                               int ports) {
        int m = w.length;
        for (int round = 0; round < 10 * ports * (m + 1); round++) {
            double[] load = new double[ports];
            for (double[] row : w) {
                for (int port = 0; port < ports; port++) {
                    load[port] += row[port];
                }
            }
            int from = -1;
            for (int port = 0; port < ports; port++) {
                if ((set & (1 << port)) != 0 && load[port] > level + 1e-11 * Math.max(1, level)
                        && (from < 0 || load[port] > load[from])) {
                    from = port;
                }
            }
            if (from < 0) {
                return;
            }
            // breadth first over ports: port x reaches port y through an entry with micro-ops on x that may use y
            int[] viaEntry = new int[ports];
            int[] viaPort = new int[ports];
            java.util.Arrays.fill(viaEntry, -2);
            viaEntry[from] = -1;
            java.util.ArrayDeque<Integer> queue = new java.util.ArrayDeque<>(List.of(from));
            int to = -1;
            while (!queue.isEmpty() && to < 0) {
                int x = queue.poll();
                for (int a = 0; a < m && to < 0; a++) {
                    if (w[a][x] <= 1e-15) {
                        continue;
                    }
                    int mask = entries.get(mine.get(a))[1] & set;
                    for (int y = 0; y < ports; y++) {
                        if ((mask & (1 << y)) != 0 && viaEntry[y] == -2) {
                            viaEntry[y] = a;
                            viaPort[y] = x;
                            queue.add(y);
                            if (load[y] < level - 1e-12 * Math.max(1, level)) {
                                to = y;
                                break;
                            }
                        }
                    }
                }
            }
            if (to < 0) {
                return;  // nothing can move: the level was not reachable (it is, by the decomposition)
            }
            double move = Math.min(load[from] - level, level - load[to]);
            for (int y = to; y != from; y = viaPort[y]) {
                move = Math.min(move, w[viaEntry[y]][viaPort[y]]);
            }
            for (int y = to; y != from; y = viaPort[y]) {
                w[viaEntry[y]][viaPort[y]] -= move;
                w[viaEntry[y]][y] += move;
            }
        }
    }
}
