package dev.basalt.datasets;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * Assigns each distinct block to a split by a hash of its hex, so that a block lands in the same split for
 * every CPU, every run and every file order, and adding data never moves a block between splits.
 *
 * <p>The block's canonical (lower-case, no separators) hex is hashed with SHA-256; the first 53 bits, as a
 * fraction in [0, 1), fall into {@code [0, train)}, {@code [train, train + validation)} or the rest.
 *
 * @param train      share of blocks in the training split
 * @param validation share in the validation split (the test split gets the rest)
 */
public record SplitScheme(double train, double validation) {

    /** 80 / 10 / 10. */
    public static SplitScheme defaults() {
        return new SplitScheme(0.8, 0.1);
    }

    public SplitScheme {
        if (!(train > 0) || !(validation >= 0) || !(train + validation < 1)) {
            throw new IllegalArgumentException("split shares must satisfy train > 0, validation >= 0 and train + "
                    + "validation < 1, got train=" + train + ", validation=" + validation);
        }
    }

    /** Share of the test split. */
    public double test() {
        return 1 - train - validation;
    }

    /** The split of the block with this hex (any case; whitespace and 0x are not allowed here). */
    public Split of(String canonicalHex) {
        double u = unit(canonicalHex);
        return u < train ? Split.TRAIN : u < train + validation ? Split.VALIDATION : Split.TEST;
    }

    /** The split of a labelled block. */
    public Split of(LabelledBlock block) {
        return of(block.hex());
    }

    static double unit(String canonicalHex) {
        try {
            byte[] h = MessageDigest.getInstance("SHA-256").digest(canonicalHex.toLowerCase(java.util.Locale.ROOT)
                    .getBytes(StandardCharsets.US_ASCII));
            long bits = 0;
            for (int i = 0; i < 8; i++) {
                bits = (bits << 8) | (h[i] & 0xff);
            }
            return (bits >>> 11) * 0x1.0p-53;
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required by every Java platform", e);
        }
    }
}
