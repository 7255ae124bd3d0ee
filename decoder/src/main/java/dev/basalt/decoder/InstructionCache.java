package dev.basalt.decoder;

import java.util.Arrays;
import java.util.List;

/**
 * A per-thread, direct-mapped memo of decoded instructions, keyed by each instruction's own bytes.
 *
 * <p>Why: a Zydis decode through JNA costs about half a microsecond, and real code repeats the same
 * instructions endlessly ({@code mov rax, qword ptr [rsp+0x8]}, {@code add rsp, 0x8}, ...).
 *
 * <p>Why it is exact: an x86 decoder reads an instruction's bytes in order and decides after each byte,
 * from the bytes read so far, whether the instruction is complete. So the valid encodings at a position form
 * a prefix-free set, and if the bytes at a position begin with the bytes of an instruction decoded before,
 * decoding there gives that instruction again (only its offset differs). A lookup therefore hashes the first
 * 1, 2, ... 15 bytes at the position and stops at the first slot holding exactly those bytes.
 *
 * <p>Laid out for memory latency, which is what a lookup costs: a probe reads one byte of a 64 KiB length
 * array; a candidate is confirmed against the instruction bytes packed into two longs of a flat array (no
 * pointer to chase); only a hit touches the template instruction. Each slot also keeps the instruction's
 * register effects ({@link InstructionEffects#pack}), so that a dependency graph need not recompute them.
 *
 * <p>65,536 slots; a colliding store replaces the old entry. Not thread-safe: each thread owns one.
 */
final class InstructionCache {

    private static final int BITS = 16;
    private static final int SIZE = 1 << BITS;
    private static final int MAX_LENGTH = 15;

    /** Instruction length per slot (0: empty), checked first: a compact array that stays in cache. */
    private final byte[] lengths = new byte[SIZE];
    /** Per slot, bytes 0-7 and bytes 8-14 of the instruction, little-endian, zero beyond its length. */
    private final long[] keys = new long[2 * SIZE];
    private final Instruction[] templates = new Instruction[SIZE];
    /**
     * The templates' operand lists again: the copy's constructor inspects the list, and loading it from here
     * rather than through the template lets the two memory reads overlap instead of waiting on each other.
     */
    private final Object[] operandLists = new Object[SIZE];
    private final int[][] effects = new int[SIZE][];
    /** Slot of the last successful {@link #lookup}. */
    private int hit;

    private static int slot(long hash) {
        return (int) ((hash * 0x9E3779B97F4A7C15L) >>> (64 - BITS));
    }

    /** The instruction at {@code offset} if cached (a copy with this offset), else null. */
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
            int slot = slot(hash);
            if (lengths[slot] != n || keys[2 * slot] != low || keys[2 * slot + 1] != high) {
                continue;
            }
            hit = slot;
            @SuppressWarnings("unchecked")
            List<Operand> operands = (List<Operand>) operandLists[slot];
            Instruction t = templates[slot];
            return new Instruction(offset, Arrays.copyOfRange(block, offset, offset + n), t.mnemonic(),
                    t.prefixes(), operands, t.flagsRead(), t.flagsWritten(), t.idiom(), t.isaSet(),
                    t.isaExtension(), t.category(), t.form());
        }
        return null;
    }

    /** The packed register effects of the instruction the last successful {@link #lookup} returned. */
    int[] lastEffects() {
        return effects[hit];
    }

    /** Remembers an instruction just decoded, with its packed register effects. */
    void store(Instruction insn, byte[] block, int[] packedEffects) {
        int offset = insn.offset();
        int n = insn.length();
        long hash = 0;
        long low = 0;
        long high = 0;
        for (int k = 0; k < n; k++) {
            int b = block[offset + k] & 0xff;
            hash = hash * 257 + b + 1;
            if (k < 8) {
                low |= (long) b << (8 * k);
            } else {
                high |= (long) b << (8 * (k - 8));
            }
        }
        int slot = slot(hash);
        lengths[slot] = (byte) n;
        keys[2 * slot] = low;
        keys[2 * slot + 1] = high;
        templates[slot] = insn;
        operandLists[slot] = insn.operands();
        effects[slot] = packedEffects;
    }
}
