package dev.basalt.decoder;

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
 * <p>65,536 slots; a colliding store replaces the old entry. Not thread-safe: each thread owns one.
 */
final class InstructionCache {

    private static final int BITS = 16;
    private static final int SIZE = 1 << BITS;
    private static final int MAX_LENGTH = 15;

    /** Instruction length per slot (0: empty), checked first: a compact array that stays in cache. */
    private final byte[] lengths = new byte[SIZE];
    private final byte[][] bytes = new byte[SIZE][];
    private final Instruction[] templates = new Instruction[SIZE];

    private static int slot(long hash) {
        return (int) ((hash * 0x9E3779B97F4A7C15L) >>> (64 - BITS));
    }

    /** The instruction at {@code offset} if cached (a copy with this offset), else null. */
    Instruction lookup(byte[] block, int offset, int length) {
        int max = Math.min(MAX_LENGTH, length - offset);
        long hash = 0;
        for (int n = 1; n <= max; n++) {
            hash = hash * 257 + (block[offset + n - 1] & 0xff) + 1;
            int slot = slot(hash);
            if (lengths[slot] != n) {
                continue;
            }
            byte[] b = bytes[slot];
            if (matches(b, block, offset)) {
                Instruction t = templates[slot];
                return new Instruction(offset, b, t.mnemonic(), t.prefixes(), t.operands(), t.flagsRead(),
                        t.flagsWritten(), t.idiom(), t.isaSet(), t.isaExtension(), t.category(), t.form());
            }
        }
        return null;
    }

    private static boolean matches(byte[] b, byte[] block, int offset) {
        for (int i = 0; i < b.length; i++) {
            if (b[i] != block[offset + i]) {
                return false;
            }
        }
        return true;
    }

    /** Remembers an instruction just decoded. */
    void store(Instruction insn) {
        byte[] b = insn.bytes();
        long hash = 0;
        for (byte x : b) {
            hash = hash * 257 + (x & 0xff) + 1;
        }
        int slot = slot(hash);
        lengths[slot] = (byte) b.length;
        bytes[slot] = b;
        templates[slot] = insn;
    }
}
