package dev.basalt.simulator.pipeline;

import dev.basalt.simulator.facts.InstructionShape;
import dev.basalt.simulator.facts.RunModel;

/**
 * Fetch, predecode and decode (the legacy decoders), or a loop's micro-ops from the micro-op cache or the loop
 * stream detector: from the block's bytes to the micro-op queue. See {@link Pipeline}.
 */
final class FetchStage {

    private final Pipeline pl; // each method copies it to a local: C1, which ./basalt runs, reloads a field

    FetchStage(Pipeline pl) {
        this.pl = pl;
    }

    /** Predecodes from the current aligned window into the instruction queue (see {@link Pipeline}). */
    void predecode() {
        Pipeline pl = this.pl;
        if (pl.predecodeNext >= pl.total || pl.source != RunModel.UopSource.LEGACY) {
            return;
        }
        if (pl.predecodeStall > 0) {
            pl.predecodeStall--;
            return;
        }
        int i = pl.predecodeInsn; // predecodeNext's instruction and iteration, kept as it advances (no division)
        int k = pl.predecodeIteration;
        boolean sliding = pl.core.slidingFetch();
        // Sliding: this cycle's bytes follow the last cycle's, so an instruction split between them completes now.
        long windowEnd = sliding ? Math.max(pl.fetchEnd, k * pl.blockBytes + pl.offset[i]) + pl.fetchBytes
                : (pl.window + 1) * pl.core.predecodeBytes();
        int marked = 0;
        int width = pl.core.predecodeWidth();
        while (pl.predecodeNext < pl.total && marked < width
                && pl.predecodeNext - pl.decodeNext < pl.core.instructionQueue()
                && k * pl.blockBytes + pl.offset[i] + pl.shape[i].length() - 1 < windowEnd
                && pl.predecodeNext - pl.nextRetire + 2 * pl.n < pl.predecoded.length) {
            pl.born(pl.predecodeNext, i, k);
            pl.predecoded[pl.predecodeNext & pl.mask] = pl.now;
            if (pl.shape[i].lengthChanging()) {
                pl.predecodeStall += pl.core.lcpPenalty();
            }
            pl.predecodeNext++;
            if (++i == pl.n) {
                i = 0;
                k++;
            }
            marked++;
        }
        pl.predecodeInsn = i;
        pl.predecodeIteration = k;
        if (sliding) {
            // Stopped by the window, the next cycle's bytes follow this cycle's (the instruction split between them
            // completes then); stopped by anything else (the width, a full queue), they start at the next instruction.
            long next = k * pl.blockBytes + pl.offset[i];
            boolean split = marked < width && pl.predecodeNext < pl.total && next + pl.shape[i].length() - 1 >= windowEnd;
            pl.fetchEnd = split ? windowEnd : next;
            return;
        }
        long address = k * pl.blockBytes + pl.offset[i];
        if (pl.predecodeNext >= pl.total || address + pl.shape[i].length() - 1 >= windowEnd) {
            if (marked == width && pl.predecodeNext < pl.total && address + pl.shape[i].opcodeOffset() < windowEnd) {
                pl.predecodeStall++; // its opcode is in this window, but all its slots are used
            }
            pl.window++;
        }
    }

    /** Decodes from the instruction queue into the micro-op queue (see {@link Pipeline}). */
    void decode() {
        Pipeline pl = this.pl;
        if (!pl.options.frontEnd() || pl.microcodeBusyUntil > pl.now) {
            return;
        }
        if (pl.source != RunModel.UopSource.LEGACY) {
            deliver();
            return;
        }
        int count = 0;
        int uops = 0;
        int immediates = 0;
        int mostImmediates = pl.core.decodeImmediates() > 0 ? pl.core.decodeImmediates() : Integer.MAX_VALUE;
        while (pl.decodeNext < pl.predecodeNext && count < pl.core.decoders()
                && pl.predecoded[pl.decodeNext & pl.mask] < pl.now) {
            int i = pl.insnOf[pl.decodeNext & pl.mask];
            InstructionShape s = pl.shape[i];
            int u = s.decodeUops();
            if (pl.fusedTail[i]) { // decoded with its flag setter, by the same decoder
                pl.decoded[pl.decodeNext++ & pl.mask] = pl.now;
                continue;
            }
            int next = pl.decodeNext + 1;
            if (next < pl.total && pl.fusedTail[i + 1 == pl.n ? 0 : i + 1]
                    && (next >= pl.predecodeNext || pl.predecoded[next & pl.mask] >= pl.now)) {
                return; // a flag setter waits for the jump it fuses with
            }
            if (pl.queuedUops + u > pl.core.uopQueue() && pl.queuedUops > 0) {
                return;
            }
            if (s.microcoded()) {
                if (count > 0) {
                    return;
                }
                // Switch to the microcode sequencer and back; it delivers msUopsPerCycle micro-ops a cycle.
                long last = pl.now + pl.core.msSwitchCycles()
                        + (u + pl.core.msUopsPerCycle() - 1) / pl.core.msUopsPerCycle() - 1;
                pl.decoded[pl.decodeNext++ & pl.mask] = last;
                pl.queuedUops += u;
                pl.microcodeBusyUntil = last + 1;
                return;
            }
            if (count > 0 && (s.complex() || uops + u > pl.core.decodeUops())) {
                return;
            }
            if (s.immediateField() && immediates++ >= mostImmediates) {
                return; // this cycle's immediate fields are used (ImmediateFields)
            }
            pl.decoded[pl.decodeNext++ & pl.mask] = pl.now;
            pl.queuedUops += u;
            uops += u;
            count++;
            // the jump fused with it comes along
            if (pl.decodeNext < pl.total && pl.fusedTail[i + 1 == pl.n ? 0 : i + 1]) {
                pl.decoded[pl.decodeNext++ & pl.mask] = pl.now;
            }
            if (s.decodedAlone()) {
                return; // nothing after it this cycle (pop r12 before Skylake)
            }
        }
    }

    /**
     * A loop's micro-ops from the micro-op cache or the loop stream detector, in place of predecoding and
     * decoding: up to the source's width a cycle ({@code dsbUopsPerCycle}, or the issue width for the LSD),
     * the taken jump at the end of an iteration ending the cycle's delivery.
     */
    private void deliver() {
        Pipeline pl = this.pl;
        int width = pl.source == RunModel.UopSource.DSB ? pl.core.loop().dsbUopsPerCycle() : pl.core.issueWidth();
        int uops = 0;
        while (pl.decodeNext < pl.total && pl.decodeNext - pl.nextRetire + 2 * pl.n < pl.predecoded.length) {
            int i = pl.decodeNext % pl.n;
            int u = pl.shape[i].decodeUops();
            if (pl.queuedUops + u > pl.core.uopQueue() && pl.queuedUops > 0 || uops + u > width && uops > 0) {
                return;
            }
            pl.born(pl.decodeNext, i, pl.decodeNext / pl.n);
            pl.predecoded[pl.decodeNext & pl.mask] = pl.now;
            pl.decoded[pl.decodeNext & pl.mask] = pl.now;
            pl.queuedUops += u;
            uops += u;
            pl.decodeNext++;
            pl.predecodeNext = pl.decodeNext;
            if (i == pl.n - 1 && (pl.source == RunModel.UopSource.DSB || pl.decodeNext / pl.n % pl.lsdCopies == 0)) {
                return; // a taken jump ends the cycle's delivery (the LSD's at the end of its unrolled copies)
            }
        }
    }
}
