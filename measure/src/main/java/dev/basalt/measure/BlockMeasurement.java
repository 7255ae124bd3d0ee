package dev.basalt.measure;

import java.util.Objects;

/**
 * One block's measurement on the host.
 *
 * @param hex              the block as given (lower-case hex)
 * @param status           what came of it
 * @param cycles           cycles per iteration: the median of the tries that agree (of all tries when UNSTABLE;
 *                         NaN for ERROR and REFUSED)
 * @param minCycles        the smallest of those tries
 * @param spread           the tries' interquartile range over their median
 * @param tries            valid tries
 * @param pages            distinct 4 KiB pages the block touched in one run of the large unroll
 * @param unrollSmall      copies in the small unroll
 * @param unrollLarge      copies in the large unroll
 * @param repetitions      times the loop of copies ran per timed run
 * @param ticksPerCycle    the calibration: timer ticks per core cycle (1 with a core-cycle counter)
 * @param message          why a block failed or was refused, or what was dropped ("" when nothing)
 */
public record BlockMeasurement(String hex, Status status, double cycles, double minCycles, double spread, int tries,
                               int pages, int unrollSmall, int unrollLarge, long repetitions, double ticksPerCycle,
                               String message) {

    /** What came of a block. */
    public enum Status {
        /** Measured: more than half of its tries agree within the limit. */
        OK,
        /** Measured, but its tries still did not agree after the most tries: not in the BHive CSV. */
        UNSTABLE,
        /** It ran and failed: a fault, an illegal instruction, a divide error, its time limit. */
        ERROR,
        /** Not run: the checks before execution refused it. */
        REFUSED;

        public String label() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    public BlockMeasurement {
        Objects.requireNonNull(hex, "hex");
        Objects.requireNonNull(status, "status");
        message = message == null ? "" : message;
    }

    static BlockMeasurement failed(String hex, Status status, String message, int pages) {
        return new BlockMeasurement(hex, status, Double.NaN, Double.NaN, Double.NaN, 0, pages, 0, 0, 0, Double.NaN,
                message);
    }

    /** Whether it has a number (OK or UNSTABLE). */
    public boolean measured() {
        return status == Status.OK || status == Status.UNSTABLE;
    }
}
