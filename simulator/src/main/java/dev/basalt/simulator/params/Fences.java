package dev.basalt.simulator.params;

/**
 * How often a fence can execute: its reciprocal throughput, which on Intel cores is far longer than its micro-ops'
 * ports or latency say (a row imported from llvm-mca gives {@code mfence} two or three micro-ops of a cycle or
 * two). A fence of a kind executes no sooner than this many cycles after the previous one of that kind, as uiCA
 * blocks an instruction with a measured throughput for that many cycles; what it waits for before and what waits
 * for it is the scheduler's ordering (the pipeline's execute stage). {@code cpuid} is an execution fence here, but its own
 * cost (one to two hundred cycles of microcode) is its row's.
 *
 * <p>The numbers are the reciprocal throughputs of Agner Fog's instruction tables for each CPU, listed in {@link
 * CoreParams#defaults}; BHive's own measurements agree where a block isolates one ({@code mfence; add rsp, 8}:
 * 33.50 cycles on Skylake; {@code mfence; setg al; movzx eax, al}: 38.26 on Ivy Bridge).
 *
 * @param loadFence   cycles between two {@code lfence}s (0: no such limit)
 * @param memoryFence cycles between two {@code mfence}s
 * @param storeFence  cycles between two {@code sfence}s
 */
public record Fences(int loadFence, int memoryFence, int storeFence) {

    /** An execution fence: {@code lfence}, or {@code cpuid}, which serializes. */
    public static final int LOAD_FENCE = 1;
    /** {@code mfence}: an execution fence with a locked instruction's cost. */
    public static final int MFENCE = 2;
    /** {@code sfence}. */
    public static final int STORE_FENCE = 3;

    /** No limit beyond the rows': tables of CPUs whose fences were never measured. */
    public static final Fences NONE = new Fences(0, 0, 0);

    public Fences {
        if (loadFence < 0 || memoryFence < 0 || storeFence < 0) {
            throw new IllegalArgumentException("fence cycles must be >= 0: " + loadFence + ", " + memoryFence + ", "
                    + storeFence);
        }
    }

    /** Whether no fence is limited. */
    public boolean hasNone() {
        return loadFence == 0 && memoryFence == 0 && storeFence == 0;
    }

    /** The cycles of fence {@code kind} ({@link #LOAD_FENCE}, ...; 0: not a fence). */
    public int cycles(int kind) {
        return switch (kind) {
            case LOAD_FENCE -> loadFence;
            case MFENCE -> memoryFence;
            case STORE_FENCE -> storeFence;
            default -> 0;
        };
    }
}
