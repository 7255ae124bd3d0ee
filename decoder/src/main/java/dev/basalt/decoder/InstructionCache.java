package dev.basalt.decoder;

import java.util.Arrays;
import java.util.List;

/**
 * A per-thread, direct-mapped memo of {@link Decoding}s, keyed by each instruction's own bytes.
 *
 * <p>Why: a Zydis decode costs far more than a lookup (about 0.3 microseconds through the foreign-function
 * API, 0.6 through JNA, plus reading the result), and real code repeats the same instructions endlessly
 * ({@code mov rax, qword ptr [rsp+0x8]}, {@code add rsp, 0x8}, ...). A hit costs one small
 * {@link Instruction} (offset plus the shared decoding).
 *
 * <p>Why it is exact: an x86 decoder reads an instruction's bytes in order and decides after each byte,
 * from the bytes read so far, whether the instruction is complete. So the valid encodings at a position form
 * a prefix-free set, and if the bytes at a position begin with the bytes of an instruction decoded before,
 * decoding there gives that instruction again (only its offset differs). A lookup therefore hashes the first
 * 1, 2, ... 15 bytes at the position and stops at the first slot holding exactly those bytes.
 *
 * <p>Laid out for memory latency, which is what a lookup costs: a probe reads two adjacent bytes (the set's
 * two slots) of a 64 KiB length array; a candidate is confirmed against the instruction bytes packed into two
 * longs of a flat array (no pointer to chase); a hit does not touch the decoding itself.
 *
 * <p>65,536 slots in 32,768 sets of two: a store into a full set replaces the entry used less recently, so
 * frequent instructions stay (on the unlabelled BHive blocks: 80% of instructions hit on a first pass and 83%
 * when the set is decoded again, against 77% and 80.5% with one slot per set). Not thread-safe: each thread
 * owns one.
 */
final class InstructionCache {

    private static final int BITS = 16;
    private static final int SIZE = 1 << BITS;
    /** Two slots (ways) per set; a set is chosen by the hash. */
    private static final int SET_BITS = BITS - 1;
    private static final int MAX_LENGTH = 15;

    /** Instruction length per slot (0: empty), checked first: a compact array that stays in cache. */
    private final byte[] lengths = new byte[SIZE];
    /** Per slot, bytes 0-7 and bytes 8-14 of the instruction, little-endian, zero beyond its length. */
    private final long[] keys = new long[2 * SIZE];
    private final Decoding[] decodings = new Decoding[SIZE];
    /** Per set, the way used last (hit or stored): a store replaces the other one. */
    private final byte[] recent = new byte[SIZE >> 1];
    /** Length of the instruction the last successful {@link #lookup} returned. */
    private int hitLength;

    private static int set(long hash) {
        return (int) ((hash * 0x9E3779B97F4A7C15L) >>> (64 - SET_BITS));
    }

    /** The instruction at {@code offset} if its bytes are cached, else null. */
    Instruction lookup(byte[] block, int offset, int length) {
        int max = Math.min(MAX_LENGTH, length - offset);
        long hash = 0;
        long low = 0;
        long high = 0;
        for (int n = 1; n <= max; n++) {
            int b = block[offset + n - 1] & 0xff;
            hash = hash * 257 + b + 1;
            if (n <= 8) {
                low |= (long) b << (8 * (n - 1));
            } else {
                high |= (long) b << (8 * (n - 9));
            }
            int set = set(hash);
            for (int slot = 2 * set; slot < 2 * set + 2; slot++) {
                if (lengths[slot] == n && keys[2 * slot] == low && keys[2 * slot + 1] == high) {
                    hitLength = n;
                    recent[set] = (byte) slot;
                    return new Instruction(offset, decodings[slot]);
                }
            }
        }
        return null;
    }

    /** The length of the instruction the last successful {@link #lookup} returned. */
    int hitLength() {
        return hitLength;
    }

    /** Remembers a decoding just made. */
    void store(Decoding decoding) {
        byte[] bytes = decoding.rawBytes();
        long hash = 0;
        long low = 0;
        long high = 0;
        for (int k = 0; k < bytes.length; k++) {
            int b = bytes[k] & 0xff;
            hash = hash * 257 + b + 1;
            if (k < 8) {
                low |= (long) b << (8 * k);
            } else {
                high |= (long) b << (8 * (k - 8));
            }
        }
        int set = set(hash);
        int slot = lengths[2 * set] == 0 ? 2 * set : lengths[2 * set + 1] == 0 ? 2 * set + 1
                : 2 * set + (1 - (recent[set] & 1));
        recent[set] = (byte) slot;
        lengths[slot] = (byte) bytes.length;
        keys[2 * slot] = low;
        keys[2 * slot + 1] = high;
        decodings[slot] = decoding;
    }
}
