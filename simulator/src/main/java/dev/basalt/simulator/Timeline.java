package dev.basalt.simulator;

import dev.basalt.decoder.BasicBlock;

import java.util.ArrayList;
import java.util.List;

/**
 * A run's timeline as people read it (llvm-mca's {@code -timeline}, uiCA's trace): per instance of the first
 * ones, its iteration and index and the cycle of each stage — predecoded, decoded, issued (renamed into the
 * scheduler), dispatched (to a port), executed, retired; -1 where it skipped a stage (micro-ops from the micro-op
 * cache or the loop stream detector). A macro-fused jump is one micro-op with its flag-setting instruction: from
 * decode on its stages are that instruction's, and the two retire together.
 */
public final class Timeline {

    /** The columns of a row, in order. */
    public static final List<String> COLUMNS = List.of("iteration", "index", "predecoded", "decoded", "issued",
            "dispatched", "executed", "retired");

    private Timeline() {
    }

    /** The rows of {@code r}'s timeline for {@code block}, run with front end {@code fe}. */
    public static List<int[]> rows(BasicBlock block, Simulator.Result r, Simulator.FrontEnd fe) {
        List<int[]> rows = new ArrayList<>();
        for (int[] t : r.timeline()) {
            rows.add(new int[] {t[0] / block.size(), t[0] % block.size(), t[1], t[2], t[3], t[4], t[5], t[6]});
        }
        for (int k = 1; k < rows.size(); k++) {
            int[] row = rows.get(k);
            int[] before = rows.get(k - 1);
            if (fe.fusedPairs().contains(row[1] - 1) && before[1] == row[1] - 1) {
                for (int stage = 3; stage <= 6; stage++) {
                    row[stage] = before[stage];
                }
                row[7] = Math.max(row[7], before[7]);
                before[7] = row[7];
            }
        }
        return rows;
    }
}
