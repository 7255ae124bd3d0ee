package dev.basalt.simulator.params;

/**
 * The fetch of code too dense for the micro-op cache: a block of {@code instructionsPer64Bytes} or more instructions
 * per 64 bytes of code (an average length of 4 bytes or less, at 16) is fetched and decoded at {@code bytesPerCycle}
 * rather than the core's {@code predecodeBytes}, as if the legacy decoders of the older cores delivered it.
 *
 * <p>Measured on the Xeon 6 (BHive's unrolled harness; the training split of {@code datasets/measured/
 * intel-family6-model167}): register-only blocks of two to seven one-micro-op instructions run at exactly 16 bytes
 * a cycle when their average length is 4 bytes or less and at the width's pace above it, with nothing in between —
 * two instructions of 8 bytes (899 blocks) at 0.50 cycles, of 9 bytes (322 blocks) at 0.34; three of 12 bytes at
 * 0.75, of 13 at 0.50; {@code mov rdx, r12; mov rsi, rbx; mov rdi, rax} at 0.5625. So longer instructions run
 * faster, a step no byte or width limit gives; a 64-byte window of 16 instructions needing more micro-op cache
 * room than a window may have is the reading that fits (DESIGN.md §15 leaves the micro-op cache's geometry open).
 * The step moves up a little for blocks of five or more instructions (17 a window); 16 is the threshold the
 * data prefers over all block sizes. Blocks of one instruction follow it loosely: four-byte ones run at 0.23–0.25
 * cycles (0.25 by the rule; {@code add rax, 1}, {@code lea rax, [rax+1]}: 0.248, 0.250), but a three-byte register
 * move at 0.166 (208 blocks, six a cycle: 18 bytes), which the rule puts at 0.1875. On the training split the rule takes the tuned table from 13.09% to 10.50% MAPE (median 6.18% to
 * 1.09%), and it explains what the decoders' limit on immediate fields ({@link ImmediateFields}) was read from:
 * without that limit the split is at 9.30%.
 *
 * @param instructionsPer64Bytes the density, in instructions per 64 bytes, from which the rule applies
 * @param bytesPerCycle          the bytes fetched a cycle then
 */
public record DenseCode(int instructionsPer64Bytes, int bytesPerCycle) {

    public DenseCode {
        if (instructionsPer64Bytes < 1 || bytesPerCycle < 1) {
            throw new IllegalArgumentException("dense code needs a positive density and fetch width, got "
                    + instructionsPer64Bytes + " instructions per 64 bytes, " + bytesPerCycle + " bytes a cycle");
        }
    }

    /** Whether a block of {@code instructions} instructions in {@code bytes} bytes is dense code. */
    public boolean applies(int instructions, long bytes) {
        return 64L * instructions >= (long) instructionsPer64Bytes * bytes;
    }

    /** The bytes {@code core} fetches a cycle of a block of {@code instructions} instructions in {@code bytes}. */
    public static int fetchBytes(CoreParams core, int instructions, long bytes) {
        DenseCode d = core.denseCode();
        return d != null && d.applies(instructions, bytes) ? d.bytesPerCycle() : core.predecodeBytes();
    }
}
