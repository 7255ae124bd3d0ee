package dev.basalt.simulator.pipeline;

import dev.basalt.simulator.facts.RunModel;
import dev.basalt.simulator.params.CoreParams;
import dev.basalt.simulator.params.ImmediateElimination;
import dev.basalt.simulator.params.PortGroups;

/**
 * The renamer: issues fused micro-ops from the micro-op queue into the reorder buffer and the scheduler, in
 * order, eliminating moves and zero idioms and binding each micro-op to a port. See {@link Pipeline}.
 */
final class DispatchStage {

    private final Pipeline pl; // each method copies it to a local: C1, which ./basalt runs, reloads a field
    private final CoreParams.PortBinding binding;
    private final int[] alu015; // the members of its port group 0, 1, 5, or null
    private final ImmediateElimination.Renaming immediates; // null: the CPU eliminates no immediates

    DispatchStage(Pipeline pl) {
        this.pl = pl;
        this.immediates = pl.fold == null ? null : new ImmediateElimination.Renaming(pl.core.immediateElimination());
        CoreParams.PortBinding b = pl.core.portBinding();
        this.binding = b != null ? b : pl.context.ports().sixPorts() ? CoreParams.PortBinding.SIX_PORT
                : CoreParams.PortBinding.SLOT_PARITY;
        this.alu015 = pl.context.ports().alu015();
    }

    /** Renames (issues) up to the issue width of fused micro-ops from the micro-op queue, in order. */
    void rename() {
        Pipeline pl = this.pl;
        int slots = pl.idealBackEnd ? Integer.MAX_VALUE : pl.core.issueWidth();
        // binding sees the counts of the cycle's start
        System.arraycopy(pl.queued, 0, pl.queuedAtStart, 0, pl.portCount);
        while (pl.renameNext < pl.total && slots > 0 && (pl.options.frontEnd()
                ? pl.renameNext < pl.decodeNext && pl.decoded[pl.renameNext & pl.mask] < pl.now
                : pl.renameNext - pl.nextRetire + 2 * pl.n < pl.predecoded.length)) {
            int j = pl.renameNext;
            int i = pl.options.frontEnd() ? pl.insnOf[j & pl.mask] : j % pl.n; // born by the front end, or here
            int uops = pl.issueSlots[i];
            if (i == 0 && pl.source == RunModel.UopSource.LSD && slots < pl.core.issueWidth()
                    && (j / pl.n) % pl.lsdCopies == 0) {
                return; // the loop stream detector does not issue two of its (unrolled) loops in one cycle
            }
            if (pl.renamedSlotsOfCurrent == 0) {
                if (uops > slots && uops <= pl.core.issueWidth()) {
                    return; // an instruction's fused micro-ops issue together
                }
                if (!pl.idealBackEnd && !fits(i)) {
                    return;
                }
                if (immediates != null && pl.fold[i] != null && immediates.waits(pl.fold[i], pl.now)) {
                    return; // its elimination waits for the next cycle's slots (ImmediateElimination)
                }
            }
            int take = Math.min(slots, uops - pl.renamedSlotsOfCurrent);
            slots -= take;
            pl.renamedSlotsOfCurrent += take;
            if (pl.renamedSlotsOfCurrent < uops) {
                return; // the rest of this instruction's micro-ops issue next cycle
            }
            pl.renamedSlotsOfCurrent = 0;
            enter(j, i, (pl.idealBackEnd ? 0 : pl.core.issueWidth()) - slots - uops);
            pl.renameNext++;
        }
    }

    /** Whether instruction {@code i} fits in the reorder buffer and scheduler (an empty one takes anything). */
    private boolean fits(int i) {
        Pipeline pl = this.pl;
        boolean robFull = pl.robUops > 0 && pl.robUops + pl.issueSlots[i] > pl.params.robSize();
        boolean schedulerFull = !pl.shape[i].noPort() && pl.schedUops > 0
                && pl.schedUops + pl.unfused[i] > pl.params.schedulerSize();
        return !robFull && !schedulerFull;
    }

    /** Puts renamed instance {@code j} into the reorder buffer and, unless it needs no port, the scheduler. */
    private void enter(int j, int i, int slot) {
        Pipeline pl = this.pl;
        int at = j & pl.mask;
        if (!pl.options.frontEnd()) {
            pl.born(j, i, j / pl.n);
        }
        pl.renamed[at] = pl.now;
        pl.robUops += pl.issueSlots[i];
        if (pl.options.frontEnd()) {
            pl.queuedUops -= pl.shape[i].decodeUops();
        }
        ImmediateElimination.Renaming imm = immediates;
        if (pl.shape[i].noPort()) {
            pl.issued[at] = pl.now;
            pl.done[at] = pl.now;
            if (imm != null) {
                imm.wrote(pl.writes[i]); // a zero idiom: its register holds 0, no offset
            }
            return;
        }
        pl.wake[at] = pl.now + 1;
        pl.earliestWake = Math.min(pl.earliestWake, pl.now + 1);
        pl.scheduler[pl.schedCount++] = j;
        if (imm != null && pl.fold[i] != null && imm.eliminate(pl.fold[i], pl.now)) {
            pl.eliminated[at] = true; // executed by the renamer: no port, no latency (ImmediateElimination)
            return;
        }
        int file = pl.shape[i].moveRegisterFile();
        if (file > 0 && eliminate(file)) {
            pl.eliminated[at] = true;
            if (imm != null && pl.move[i] != null) {
                imm.moved(pl.move[i]);
            } else if (imm != null) {
                imm.wrote(pl.writes[i]);
            }
            return;
        }
        if (imm != null) {
            imm.wrote(pl.writes[i]);
        }
        pl.schedUops += pl.unfused[i];
        if (pl.options.issueTimePorts()) {
            int[] d = pl.demand[i];
            for (int k = 0; k < d.length; k++) {
                if (d[k] < 0) {
                    pl.bound[(j & pl.mask) * pl.maxDemand + k] = -d[k] - 1;
                    k++;
                } else {
                    int port = bindPort(d[k], slot);
                    pl.bound[(j & pl.mask) * pl.maxDemand + k] = port;
                    pl.queued[port]++;
                }
            }
        }
    }

    /** Whether a move-elimination slot of register file {@code file} is free this cycle (and takes it). */
    private boolean eliminate(int file) {
        Pipeline pl = this.pl;
        int[] count = pl.eliminations[file];
        long[] cycle = pl.eliminationCycle[file];
        int used = 0;
        for (int c = 0; c < count.length; c++) {
            if (cycle[c] > pl.now - count.length) {
                used += count[c];
            }
        }
        if (used >= pl.core.moveEliminationSlots()) {
            return false;
        }
        int at = (int) (pl.now % count.length);
        if (cycle[at] != pl.now) {
            cycle[at] = pl.now;
            count[at] = 0;
        }
        count[at]++;
        return true;
    }

    /**
     * The port a micro-op of port group {@code group} is bound to at renamer slot {@code slot} (that of its
     * instruction's first fused micro-op in this cycle): loads alternate; otherwise by the CPU's {@link
     * CoreParams.PortBinding}: under {@code SLOT_PARITY} the port with the fewest queued micro-ops at the start of
     * the cycle (ties to the higher port), except that odd slots take the second least loaded unless it has 3 or
     * more micro-ops more; under {@code LEAST_LOADED} the port with the fewest now, this cycle's earlier bindings
     * counted (ties to the higher port).
     */
    private int bindPort(int group, int slot) {
        Pipeline pl = this.pl;
        int[] members = pl.context.ports().members(group);
        if (members.length == 1) {
            return members[0];
        }
        if (group == pl.loadGroup) {
            return members[pl.loadTurn++ % members.length];
        }
        if (binding == CoreParams.PortBinding.SIX_PORT) {
            return bindSixPorts(members, slot);
        }
        if (binding == CoreParams.PortBinding.LEAST_LOADED) {
            int best = members[0];
            for (int port : members) { // members ascend, so <= prefers the higher port on ties
                if (pl.queued[port] <= pl.queued[best]) {
                    best = port;
                }
            }
            return best;
        }
        int best = -1;
        int second = -1;
        for (int port : members) { // members ascend, so >= prefers the higher port on ties
            if (best < 0 || pl.queuedAtStart[port] <= pl.queuedAtStart[best]) {
                second = best;
                best = port;
            } else if (second < 0 || pl.queuedAtStart[port] <= pl.queuedAtStart[second]) {
                second = port;
            }
        }
        return slot % 2 == 1 && pl.queuedAtStart[second] - pl.queuedAtStart[best] < 3 ? second : best;
    }

    /**
     * {@link #bindPort} on a six-port core (Sandy Bridge, Ivy Bridge), as uiCA reads it: the least loaded port at the
     * start of the cycle (ties to the lower port) when the ports' loads differ by 3 or more; otherwise, for a micro-op
     * of ports 0, 1 and 5, a fixed order by its issue slot starting from the least loaded port (0: 0 5 1 0; 1: 1 5 0
     * 1; 5: 5 1 0 5), and for any other group the least loaded port in even slots and the most loaded (ties to the
     * higher port) in odd ones.
     */
    private int bindSixPorts(int[] members, int slot) {
        Pipeline pl = this.pl;
        PortGroups ports = pl.context.ports();
        int min = -1;
        int max = -1;
        for (int port : members) {
            int u = pl.queuedAtStart[port];
            if (min < 0 || u < pl.queuedAtStart[min]
                    || u == pl.queuedAtStart[min] && ports.portNumber(port) < ports.portNumber(min)) {
                min = port;
            }
            if (max < 0 || u > pl.queuedAtStart[max]
                    || u == pl.queuedAtStart[max] && ports.portNumber(port) > ports.portNumber(max)) {
                max = port;
            }
        }
        if (pl.queuedAtStart[max] - pl.queuedAtStart[min] >= 3) {
            return min;
        }
        int s = slot & 3;
        if (members.length == 3 && alu015 == members) {
            int[] order = switch (ports.portNumber(min)) {
                case 0 -> ORDER_0;
                case 1 -> ORDER_1;
                default -> ORDER_5;
            };
            return portOf(members, order[s]);
        }
        return s % 2 == 0 ? min : max;
    }

    private static final int[] ORDER_0 = {0, 5, 1, 0};
    private static final int[] ORDER_1 = {1, 5, 0, 1};
    private static final int[] ORDER_5 = {5, 1, 0, 5};

    /** The member of {@code members} numbered {@code number}. */
    private int portOf(int[] members, int number) {
        for (int port : members) {
            if (pl.context.ports().portNumber(port) == number) {
                return port;
            }
        }
        return members[0];
    }
}
