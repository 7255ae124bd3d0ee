package dev.basalt.datasets;

import dev.basalt.decoder.BasicBlock;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;

/**
 * The application each bundled BHive block comes from (BHive's {@code sources/*.csv}: OpenBLAS, Eigen, gzip,
 * SQLite, TensorFlow, FFmpeg, Embree; "several" when a block occurs in more than one), for reports that break
 * accuracy down by category. Stored as {@code bhive/sources.csv}: the first 12 hex digits of the SHA-256 of
 * the block's lower-case hex, then the application (see {@code PROVENANCE.md} for the command that wrote it).
 * Immutable and thread-safe.
 */
public final class BlockSources {

    private static final String RESOURCE = "bhive/sources.csv";

    private final Map<String, String> byKey;

    private BlockSources(Map<String, String> byKey) {
        this.byKey = byKey;
    }

    private static final class Holder {
        static final BlockSources BUNDLED = load();
    }

    /** The table for the bundled sample (loaded once). */
    public static BlockSources bundled() {
        return Holder.BUNDLED;
    }

    private static BlockSources load() {
        Map<String, String> map = new HashMap<>();
        try (InputStream in = BlockSources.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                return new BlockSources(Map.of());
            }
            BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
            for (String line = r.readLine(); line != null; line = r.readLine()) {
                int comma = line.indexOf(',');
                if (line.startsWith("#") || comma < 0) {
                    continue;
                }
                map.put(line.substring(0, comma), line.substring(comma + 1).trim());
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + RESOURCE, e);
        }
        return new BlockSources(Map.copyOf(map));
    }

    /** The key a block is stored under: 12 hex digits of the SHA-256 of its lower-case hex. */
    public static String key(String hex) {
        try {
            byte[] h = MessageDigest.getInstance("SHA-256").digest(hex.toLowerCase(java.util.Locale.ROOT)
                    .getBytes(StandardCharsets.US_ASCII));
            return HexFormat.of().formatHex(h, 0, 6);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }

    /** The application a block comes from, when known. */
    public Optional<String> of(BasicBlock block) {
        return Optional.ofNullable(byKey.get(key(block.hex())));
    }

    /** Number of blocks with a known source. */
    public int size() {
        return byKey.size();
    }
}
