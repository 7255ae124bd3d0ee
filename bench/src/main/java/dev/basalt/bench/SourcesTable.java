package dev.basalt.bench;

import dev.basalt.core.AtomicFiles;
import dev.basalt.datasets.BlockSources;
import dev.basalt.datasets.Dataset;
import dev.basalt.datasets.LabelledBlock;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * Writes {@code datasets/src/main/resources/dev/basalt/datasets/bhive/sources.csv}: the application each
 * bundled block comes from, read from BHive's {@code sources/*.csv} (the unlabelled set, not bundled).
 *
 * <pre>
 * java -cp bench/target/benchmarks.jar dev.basalt.bench.SourcesTable \
 *     ../shared/datasets/bhive-unlabelled/sources datasets/src/main/resources/dev/basalt/datasets/bhive/sources.csv
 * </pre>
 */
public final class SourcesTable {

    private SourcesTable() {
    }

    /** {@code openblas-dgemm.goto} → {@code openblas}; {@code eigen-matmat} → {@code eigen}. */
    static String application(String file) {
        String name = file.endsWith(".csv") ? file.substring(0, file.length() - 4) : file;
        int dash = name.indexOf('-');
        return dash > 0 ? name.substring(0, dash) : name;
    }

    public static void main(String[] args) throws IOException {
        if (args.length != 2) {
            System.err.println("usage: SourcesTable SOURCES_DIR OUT_CSV");
            System.exit(2);
        }
        Path dir = Path.of(args[0]);
        Map<String, TreeSet<String>> apps = new HashMap<>();
        List<Path> files;
        try (Stream<Path> s = Files.list(dir)) {
            files = s.filter(p -> p.toString().endsWith(".csv")).sorted().toList();
        }
        for (Path f : files) {
            String app = application(f.getFileName().toString());
            for (String line : Files.readAllLines(f)) {
                int comma = line.indexOf(',');
                String hex = (comma < 0 ? line : line.substring(0, comma)).trim().toLowerCase(java.util.Locale.ROOT);
                if (!hex.isEmpty()) {
                    apps.computeIfAbsent(hex, k -> new TreeSet<>()).add(app);
                }
            }
        }
        Map<String, String> out = new TreeMap<>();
        int found = 0;
        int total = 0;
        for (LabelledBlock b : Dataset.bundled().blocks()) {
            total++;
            TreeSet<String> a = apps.get(b.hex());
            if (a != null) {
                found++;
                out.put(BlockSources.key(b.hex()), a.size() == 1 ? a.first() : "several");
            }
        }
        StringBuilder sb = new StringBuilder("# Application of each bundled BHive block (key = first 12 hex digits of "
                + "SHA-256 of the block's hex), from BHive's sources/*.csv.\n# Written by: java -cp "
                + "bench/target/benchmarks.jar dev.basalt.bench.SourcesTable " + dir + " " + args[1] + "\n# "
                + found + " of " + total + " bundled blocks found in " + files.size() + " source files.\n");
        out.forEach((k, v) -> sb.append(k).append(',').append(v).append('\n'));
        AtomicFiles.writeString(Path.of(args[1]), sb.toString());
        Map<String, Integer> counts = new TreeMap<>();
        out.values().forEach(v -> counts.merge(v, 1, Integer::sum));
        System.out.println(found + " of " + total + " bundled blocks have a source: " + counts);
    }
}
