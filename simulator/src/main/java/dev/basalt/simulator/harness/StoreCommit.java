package dev.basalt.simulator.harness;

/**
 * How retired stores reach the data cache: one a cycle, in program order, or up to {@code sameLine} a cycle when
 * they write one cache line (Ice Lake's and Golden Cove's two store ports share the cache's write port unless both
 * stores hit one line). The store buffer drains at that pace after retirement, so when it is slower than the rest
 * of the machine the buffer fills and allocation waits: in the steady state an iteration takes at least the cycles
 * its stores need to commit ({@link #cyclesPerIteration}), which the simulator and the bounds take as a floor.
 *
 * <p>Measured on the Xeon 6 (BHive's unrolled harness, every register 0x2324000, so the stores' lines are known;
 * the training split of {@code datasets/measured/intel-family6-model167}): of the register-and-store blocks whose
 * two stores would otherwise bound them at 1.00 cycle, 1,023 whose stores share a line run at 1.00 and 33 at 2.00;
 * of those whose stores lie in lines 64 bytes or more apart, 239 run at 2.00 and none at 1.00 — {@code mov [rbx],
 * imm} to {@code [rbx+0x80]}, {@code [rbx+0x200]}, {@code [rbx+0x280]} at 4.00; {@code [rbp-0xa8], [rbp-0x78],
 * [rbp-0xb0], [rbp-0x80]}, two lines alternating, at 4.00; {@code [rsp+0x80], [rsp+0x70], [rsp+0x78],
 * [rsp+0x7c]} at 3.00. Over the 3,250 store-bound blocks of known addresses this takes the error from 12.1% to 4.1%.
 * Stores of neighbouring lines pair in 35 of 84 blocks, which the rule does not explain. DESIGN.md §15's "4 stores
 * to different lines: 2.00" disagrees with these blocks (see docs/code-structure.md).
 *
 * @param sameLine stores of one cache line committed a cycle (at least 1)
 */
public record StoreCommit(int sameLine) {

    /** Iterations the commit order is followed for: enough for any pairing across iterations to repeat. */
    private static final int ITERATIONS = 64;

    public StoreCommit {
        if (sameLine < 1) {
            throw new IllegalArgumentException("stores of one line committed a cycle must be at least 1, got "
                    + sameLine);
        }
    }

    /**
     * Cycles per iteration the cache needs for the stores at page offsets {@code offsets} (in program order; -1: not
     * known) that move {@code strides} bytes an iteration (a push's slot with the stack): each cycle takes the oldest
     * store and up to {@code sameLine - 1} more that follow it in the same line.
     */
    public double cyclesPerIteration(long[] offsets, long[] strides) {
        if (offsets.length == 0) {
            return 0;
        }
        long cycles = 0;
        long line = 0;
        int inCycle = sameLine; // nothing committed yet: the first store opens a cycle
        for (int k = 0; k < ITERATIONS; k++) {
            for (int s = 0; s < offsets.length; s++) {
                long l = offsets[s] < 0 ? -1 : ((offsets[s] + k * strides[s]) & 4095) >> 6;
                if (inCycle < sameLine && (l < 0 || line < 0 || l == line)) {
                    inCycle++;
                    line = l < 0 ? line : l;
                } else {
                    cycles++;
                    inCycle = 1;
                    line = l;
                }
            }
        }
        return cycles / (double) ITERATIONS;
    }
}
