package dev.basalt.training;

import ai.djl.ndarray.NDManager;
import dev.basalt.core.Microarchitecture;
import dev.basalt.core.Provenance;
import dev.basalt.datasets.Vocabulary;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.IntStream;

/**
 * What every DJL-backed Basalt model (GRANITE, Ithemal, DiffTune's surrogate) has around its network: the
 * configuration it is saved with, its vocabulary and the CPUs of its heads, the engine manager that owns its
 * {@link Parameters} (closed with the model), and its {@link ModelFile}: save, load from bytes (closing the model
 * when its weights do not fit), load the copy bundled beside a class, and the provenance it was loaded with.
 *
 * <p>A subclass creates its network from {@link #parameters()} in its constructor, in a fixed order (the order of
 * the model file), and serialises its forward passes on the model ({@code synchronized}).
 *
 * @param <C> what the model file stores as the configuration (the model's configuration record)
 */
public abstract class DjlModel<C> implements AutoCloseable {

    /**
     * A kind of model file.
     *
     * @param name       the format written into the file ({@code basalt-granite-1}); a file of another format
     *                   is refused
     * @param kind       the model kind for messages ({@code GRANITE})
     * @param configType the configuration's class, for reading it back
     */
    public record Format<C>(String name, String kind, Class<C> configType) {
        public Format {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(kind, "kind");
            Objects.requireNonNull(configType, "configType");
        }
    }

    /** Makes a model (with fresh parameters, then filled from the file) from what its file says. */
    @FunctionalInterface
    public interface Factory<C, M extends DjlModel<C>> {
        M create(C config, Vocabulary vocabulary, List<Microarchitecture> cpus, Provenance provenance);
    }

    private final Format<C> format;
    private final C config;
    private final Vocabulary vocabulary;
    private final List<Microarchitecture> cpus;
    private final Provenance provenance;
    /** SHA-256 of the model file it was loaded from; null for a model made in this process. */
    private volatile String fileDigest;
    private final NDManager manager;
    private final Parameters parameters;
    // Set once after training or loading; a prediction reads it.
    private volatile Calibration calibration;

    /**
     * A model with an empty parameter set for the subclass to fill.
     *
     * @param provenance what the model file says about how the model was made, or null for a new model
     */
    protected DjlModel(Format<C> format, C config, Vocabulary vocabulary, List<Microarchitecture> cpus,
                       Provenance provenance) {
        this.format = Objects.requireNonNull(format, "format");
        this.config = Objects.requireNonNull(config, "config");
        this.vocabulary = Objects.requireNonNull(vocabulary, "vocabulary");
        this.cpus = List.copyOf(cpus);
        this.provenance = provenance;
        this.manager = Djl.engine().newBaseManager();
        this.parameters = new Parameters(manager);
    }

    /** The configuration the model was made with, as its file stores it. */
    protected final C savedConfig() {
        return config;
    }

    public Vocabulary vocabulary() {
        return vocabulary;
    }

    /** The CPUs of the model's heads, in head order. */
    public List<Microarchitecture> cpus() {
        return cpus;
    }

    /** How the model was made, as its file says; empty for a model made in this process and not loaded. */
    public Optional<Provenance> provenance() {
        return Optional.ofNullable(provenance);
    }

    /** The model's prediction intervals, when it was calibrated (by training with enough validation blocks). */
    public Optional<Calibration> calibration() {
        return Optional.ofNullable(calibration);
    }

    /** Sets the model's prediction intervals (null: none). */
    protected final void calibrate(Calibration c) {
        if (c != null && c.heads().size() != cpus.size()) {
            throw new IllegalArgumentException("calibration has " + c.heads().size() + " heads, the model "
                    + cpus.size());
        }
        this.calibration = c;
    }

    /** The model's file format. */
    protected final Format<C> format() {
        return format;
    }

    /** The network's parameters (owned by the model, in the order of the model file). */
    protected final Parameters parameters() {
        return parameters;
    }

    /** The model's engine manager: a forward pass's intermediates go in a sub-manager of it. */
    protected final NDManager manager() {
        return manager;
    }

    /**
     * Saves the model as one file, atomically: its format, configuration, CPUs, vocabulary, {@code provenance} and
     * calibration in {@code model.json}, every parameter in {@code weights.bin} (see {@link ModelFile}).
     */
    public synchronized void save(Path file, Provenance provenance) throws IOException {
        ModelFile.write(file, format.name(), config, cpus, vocabulary, Objects.requireNonNull(provenance,
                "provenance"), calibration, parameters.map());
    }

    /**
     * Loads a model file.
     *
     * @throws IOException naming the file and what is wrong with it (not a model of this format, truncated, a
     *                     parameter missing or of the wrong shape)
     */
    protected static <C, M extends DjlModel<C>> M load(Path file, Format<C> format, Factory<C, M> factory)
            throws IOException {
        return load(Files.readAllBytes(file), file.toString(), format, factory);
    }

    /**
     * Loads the model file {@code resource} found beside {@code owner} (a model shipped with Basalt).
     *
     * @throws IOException when this build has no such resource, or as {@link #load(Path, Format, Factory)}
     */
    protected static <C, M extends DjlModel<C>> M bundled(Class<?> owner, String resource, Format<C> format,
                                                          Factory<C, M> factory) throws IOException {
        try (InputStream in = owner.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IOException("no bundled " + format.kind() + " model (" + resource + ") in this build");
            }
            return load(in.readAllBytes(), "bundled " + resource, format, factory);
        }
    }

    /** SHA-256 (hex) of the model file this model was loaded from: weights, configuration, calibration. */
    protected Optional<String> fileDigest() {
        return Optional.ofNullable(fileDigest);
    }

    private static String sha256(byte[] bytes) {
        try {
            return java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java has SHA-256", e);
        }
    }

    /** Loads a model from the bytes of a model file; {@code name} names it in errors. */
    protected static <C, M extends DjlModel<C>> M load(byte[] bytes, String name, Format<C> format,
                                                       Factory<C, M> factory) throws IOException {
        ModelFile.Loaded<C, Vocabulary> f = ModelFile.read(bytes, name, format.kind(), format.name(),
                format.configType(), Vocabulary.class);
        M model = factory.create(f.config(), f.vocabulary(), f.cpus(), f.provenance());
        ((DjlModel<C>) model).fileDigest = sha256(bytes);
        try {
            ModelFile.readWeights(f.weights(), model.parameters().map(), name);
            model.calibrate(f.calibration());
        } catch (IOException | RuntimeException e) {
            model.close();
            throw e;
        }
        return model;
    }

    /**
     * Batches for forward passes over examples padded to their batch's longest: example indices sorted by size
     * (stably), cut into runs of at most {@code maxInstructions} instructions (an example larger than that goes
     * alone).
     *
     * @param sizes each example's instruction count
     */
    protected static List<List<Integer>> bySize(int[] sizes, int maxInstructions) {
        List<Integer> order = IntStream.range(0, sizes.length).boxed()
                .sorted(Comparator.comparingInt(i -> sizes[i])).toList();
        List<List<Integer>> batches = new ArrayList<>();
        int from = 0;
        while (from < order.size()) {
            int to = from;
            int instructions = 0;
            while (to < order.size() && (to == from || instructions + sizes[order.get(to)] <= maxInstructions)) {
                instructions += sizes[order.get(to++)];
            }
            batches.add(order.subList(from, to));
            from = to;
        }
        return batches;
    }

    @Override
    public void close() {
        manager.close();
    }
}
