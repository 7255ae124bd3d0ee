package dev.basalt.simulator.bounds;

import dev.basalt.simulator.facts.BlockFacts;
import dev.basalt.simulator.facts.InstructionShape;
import dev.basalt.simulator.facts.RunModel;
import dev.basalt.simulator.params.CoreParams;

/**
 * The front end's bounds of {@link Bounds}: the predecoder and the decoders over the block's layout until it
 * repeats, and the delivery of a loop the micro-op cache or the loop stream detector feeds.
 */
final class FrontEndBounds {

    private FrontEndBounds() {
    }

    /**
     * A loop fed by the micro-op cache or the loop stream detector ({@link Pipeline#deliver}): a cycle delivers up to
     * the source's width of fused micro-ops and none after the taken jump, so an iteration takes its micro-ops ÷
     * the width, rounded up; the loop stream detector also issues no two iterations in one cycle, so its issue
     * slots count the same way.
     */
    static double delivery(BlockFacts p) {
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
    static double predecoder(BlockFacts p) {
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
    static double decoders(BlockFacts p) {
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
}
