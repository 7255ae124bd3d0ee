package dev.basalt.datasets;

import dev.basalt.core.Microarchitecture;

import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * Labelled blocks joined across CPUs by hex: one {@link LabelledBlock} per distinct block, carrying the labels
 * of every file it appeared in. Keeps the {@link LoadSummary} of each file it was read from. Immutable.
 */
public final class Dataset {

    private static final String BUNDLED = "bhive/";
    private static final String MEASURED = "measured/";

    private final String name;
    private final List<LabelledBlock> blocks;
    private final List<LoadSummary> summaries;

    private Dataset(String name, List<LabelledBlock> blocks, List<LoadSummary> summaries) {
        this.name = name;
        this.blocks = List.copyOf(blocks);
        this.summaries = List.copyOf(summaries);
    }

    /** Joins loaded files (blocks by hex, labels merged; a later label for the same CPU is ignored). */
    public static Dataset join(String name, List<BlockFiles.Loaded> files) {
        Map<String, LabelledBlock> byHex = new LinkedHashMap<>();
        List<LoadSummary> summaries = new ArrayList<>();
        for (BlockFiles.Loaded f : files) {
            summaries.add(f.summary());
            for (LabelledBlock b : f.blocks()) {
                byHex.merge(b.hex(), b, Dataset::merge);
            }
        }
        return new Dataset(name, new ArrayList<>(byHex.values()), summaries);
    }

    /** One block's labels from two files: {@code old}'s, and {@code add}'s for the CPUs {@code old} lacks. */
    private static LabelledBlock merge(LabelledBlock old, LabelledBlock add) {
        LabelledBlock merged = old;
        for (Map.Entry<Microarchitecture, Double> e : add.throughputs().entrySet()) {
            if (!merged.hasLabel(e.getKey())) {
                merged = merged.withLabel(e.getKey(), e.getValue());
            }
        }
        return merged;
    }

    /** Reads one BHive CSV per CPU and joins them. */
    public static Dataset load(String name, Map<Microarchitecture, Path> files) throws IOException {
        List<BlockFiles.Loaded> loaded = new ArrayList<>();
        for (Map.Entry<Microarchitecture, Path> e : new java.util.TreeMap<>(files).entrySet()) {
            loaded.add(BlockFiles.readLabelled(e.getValue(), e.getKey()));
        }
        return join(name, loaded);
    }

    /**
     * The bundled BHive sample: 10,000 measured blocks for each of Haswell, Skylake and Ivy Bridge
     * (MIT license; see {@code bhive/PROVENANCE.md} beside this class).
     */
    public static Dataset bundled() {
        List<BlockFiles.Loaded> loaded = new ArrayList<>();
        for (Microarchitecture m : Microarchitecture.measured()) {
            String resource = BUNDLED + m.shortName() + ".csv";
            try (InputStream in = Dataset.class.getResourceAsStream(resource)) {
                if (in == null) {
                    throw new IllegalStateException("bundled data " + resource + " is missing from the jar");
                }
                try (Reader r = new InputStreamReader(in, StandardCharsets.UTF_8)) {
                    loaded.add(BlockFiles.read(r, "bundled " + m.shortName() + ".csv", Optional.of(m)));
                }
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read bundled " + resource, e);
            }
        }
        return join("bhive-sample", loaded);
    }

    /**
     * Basalt's own measurements of {@code uarch} ({@code basalt measure}: real code timed on that CPU; see {@code
     * measured/<folder>/PROVENANCE.md} beside this class), labelled for it. A folder's {@code index.txt} lists its
     * labelled BHive CSVs (BHive's unlabelled blocks, and more); a folder without one has {@code unlabelled.csv}.
     *
     * @throws IllegalArgumentException when Basalt has not measured the CPU
     */
    public static Dataset measured(Microarchitecture uarch) {
        String folder = uarch.descriptor().measured().orElseThrow(() -> new IllegalArgumentException(
                uarch + " has no measurements of Basalt's own; these CPUs do: " + Microarchitecture.hostMeasured()));
        List<BlockFiles.Loaded> loaded = new ArrayList<>();
        for (String file : measuredFiles(folder)) {
            String resource = MEASURED + folder + "/" + file;
            try (InputStream in = Dataset.class.getResourceAsStream(resource)) {
                if (in == null) {
                    throw new IllegalStateException("measured data " + resource + " is missing from the jar");
                }
                try (Reader r = new InputStreamReader(in, StandardCharsets.UTF_8)) {
                    loaded.add(BlockFiles.read(r, "measured " + folder + "/" + file, Optional.of(uarch)));
                }
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read " + resource, e);
            }
        }
        return join("measured-" + folder, loaded);
    }

    /** The labelled files of a measured folder: its {@code index.txt}, else {@code unlabelled.csv}. */
    private static List<String> measuredFiles(String folder) {
        try (InputStream in = Dataset.class.getResourceAsStream(MEASURED + folder + "/index.txt")) {
            if (in == null) {
                return List.of("unlabelled.csv");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().map(String::trim)
                    .filter(l -> !l.isEmpty() && !l.startsWith("#")).toList();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the index of measured/" + folder, e);
        }
    }

    /**
     * This data set and {@code other} as one (blocks by hex, labels merged as {@link #join} merges them; this one's
     * label wins for a CPU both label).
     */
    public Dataset plus(Dataset other) {
        Map<String, LabelledBlock> byHex = new LinkedHashMap<>();
        for (Dataset d : List.of(this, other)) {
            for (LabelledBlock b : d.blocks) {
                byHex.merge(b.hex(), b, Dataset::merge);
            }
        }
        List<LoadSummary> all = new ArrayList<>(summaries);
        all.addAll(other.summaries);
        return new Dataset(name + "+" + other.name, new ArrayList<>(byHex.values()), all);
    }

    /** The data set's name, for reports. */
    public String name() {
        return name;
    }

    /** All blocks, in first-seen order. */
    public List<LabelledBlock> blocks() {
        return blocks;
    }

    /** Blocks of one split under the given scheme. */
    public List<LabelledBlock> blocks(SplitScheme scheme, Split split) {
        return blocks.stream().filter(b -> scheme.of(b) == split).toList();
    }

    /** Blocks labelled for {@code uarch}. */
    public List<LabelledBlock> labelled(Microarchitecture uarch) {
        return blocks.stream().filter(b -> b.hasLabel(uarch)).toList();
    }

    /** How each file was read. */
    public List<LoadSummary> summaries() {
        return summaries;
    }

    /** The blocks that pass {@code filter} (the load summaries are kept). */
    public Dataset filter(Predicate<LabelledBlock> filter) {
        return new Dataset(name, blocks.stream().filter(filter).toList(), summaries);
    }

    /**
     * SHA-256 over the blocks and labels, in order: two data sets with the same fingerprint hold the same
     * data. Recorded in the provenance of trained artifacts.
     */
    public String fingerprint() {
        try {
            MessageDigest md = MessageDigest.getInstance("SHA-256");
            for (LabelledBlock b : blocks) {
                md.update(b.hex().getBytes(StandardCharsets.US_ASCII));
                for (Microarchitecture m : Microarchitecture.all()) {
                    b.throughput(m).ifPresent(v -> md.update((m.shortName() + "=" + v + ";")
                            .getBytes(StandardCharsets.US_ASCII)));
                }
                md.update((byte) '\n');
            }
            return HexFormat.of().formatHex(md.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
