package dev.basalt.datasets;

import dev.basalt.core.Microarchitecture;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Locale;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Block filters for {@link Dataset#filter}. (Undecodable blocks never become blocks: the loader reports them
 * as {@link SkipReason#DECODE_FAILURE}.)
 */
public final class Filters {

    private Filters() {
    }

    /** Blocks whose every label lies in [min, max] cycles per iteration (unlabelled blocks pass). */
    public static Predicate<LabelledBlock> throughputBetween(double min, double max) {
        checkRange(min, max);
        return b -> b.throughputs().values().stream().allMatch(v -> v >= min && v <= max);
    }

    /** Blocks whose label on {@code uarch} lies in [min, max] (blocks without that label pass). */
    public static Predicate<LabelledBlock> throughputBetween(Microarchitecture uarch, double min, double max) {
        checkRange(min, max);
        return b -> b.throughput(uarch).stream().allMatch(v -> v >= min && v <= max);
    }

    /** Blocks with between {@code min} and {@code max} instructions (inclusive). */
    public static Predicate<LabelledBlock> instructionsBetween(int min, int max) {
        if (min < 0 || max < min) {
            throw new IllegalArgumentException("need 0 <= min <= max, got " + min + ".." + max);
        }
        return b -> b.block().size() >= min && b.block().size() <= max;
    }

    /** Blocks not in BHive's may-alias list. */
    public static Predicate<LabelledBlock> notMayAlias() {
        Set<String> mayAlias = MayAlias.SET;
        return b -> !mayAlias.contains(b.hex());
    }

    /** Whether BHive lists this block (canonical hex) as possibly disturbed by page aliasing. */
    public static boolean isMayAlias(String canonicalHex) {
        return MayAlias.SET.contains(canonicalHex.toLowerCase(Locale.ROOT));
    }

    private static void checkRange(double min, double max) {
        if (!(min >= 0) || !(max >= min)) {
            throw new IllegalArgumentException("need 0 <= min <= max, got " + min + ".." + max);
        }
    }

    /** BHive's may-alias list, bundled, read once. */
    private static final class MayAlias {
        static final Set<String> SET = load();

        private static Set<String> load() {
            Set<String> s = new HashSet<>();
            try (InputStream in = Filters.class.getResourceAsStream("bhive/may-alias.csv");
                 BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.US_ASCII))) {
                for (String line; (line = r.readLine()) != null; ) {
                    int comma = line.indexOf(',');
                    String hex = (comma < 0 ? line : line.substring(0, comma)).trim().toLowerCase(Locale.ROOT);
                    if (!hex.isEmpty()) {
                        s.add(hex);
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read bundled may-alias.csv", e);
            }
            return Set.copyOf(s);
        }
    }
}
