package dev.basalt.core;

/**
 * A prediction interval: the measured throughput is expected inside {@code [low, high]} for a share {@code level}
 * of blocks like this one (calibrated on held-out measurements, see the learned models' {@code Calibration}).
 *
 * @param level nominal coverage, in (0, 1): 0.9 for a 90% interval
 * @param low   lower end, cycles per iteration
 * @param high  upper end, cycles per iteration
 */
public record Interval(double level, double low, double high) {

    /** The level predictions report by default. */
    public static final double DEFAULT_LEVEL = 0.9;

    public Interval {
        if (!(level > 0 && level < 1)) {
            throw new IllegalArgumentException("interval level must lie in (0, 1), got " + level);
        }
        if (!(low >= 0) || !(high >= low) || Double.isInfinite(high)) {
            throw new IllegalArgumentException("interval must be finite with 0 <= low <= high, got [" + low + ", "
                    + high + "]");
        }
    }

    /** Whether {@code value} lies inside. */
    public boolean contains(double value) {
        return value >= low && value <= high;
    }

    /** The width relative to {@code center} (a sharpness measure): (high − low) ÷ center. */
    public double relativeWidth(double center) {
        return (high - low) / center;
    }
}
