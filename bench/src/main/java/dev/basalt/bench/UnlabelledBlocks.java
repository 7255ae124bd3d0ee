package dev.basalt.bench;

import dev.basalt.decoder.Hex;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The unlabelled BHive blocks (about 125,000 distinct), the standard workload of the speed benchmarks. They
 * are not bundled (23 MB); the folder is {@code -Dbasalt.unlabelled.dir=...}, by default
 * {@code ../shared/datasets/bhive-unlabelled/sources} relative to the working directory.
 */
final class UnlabelledBlocks {

    private UnlabelledBlocks() {
    }

    static Path directory() {
        return Path.of(System.getProperty("basalt.unlabelled.dir", "../shared/datasets/bhive-unlabelled/sources"));
    }

    /** Distinct blocks as machine code, in file-name then line order. */
    static List<byte[]> load() {
        Path dir = directory();
        if (!Files.isDirectory(dir)) {
            throw new IllegalStateException("unlabelled BHive sources not found at " + dir.toAbsolutePath()
                    + "; pass -Dbasalt.unlabelled.dir=DIR (the folder of <application>.csv files)");
        }
        Set<String> hexes = new LinkedHashSet<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".csv")).sorted().toList()) {
                for (String line : Files.readAllLines(f, StandardCharsets.US_ASCII)) {
                    int comma = line.indexOf(',');
                    String hex = (comma < 0 ? line : line.substring(0, comma)).trim();
                    if (!hex.isEmpty()) {
                        hexes.add(hex);
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        List<byte[]> blocks = new ArrayList<>(hexes.size());
        for (String h : hexes) {
            blocks.add(Hex.parse(h));
        }
        return blocks;
    }
}
