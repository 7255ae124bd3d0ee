package dev.basalt.training;

import ai.djl.engine.Engine;

/**
 * The deep-learning engine the learned models use: DJL's PyTorch engine with the CPU build of PyTorch
 * that ships as a Maven artifact ({@code pytorch-native-cpu}, classifier {@code linux-x86_64}), so nothing is
 * downloaded at run time. {@link #engine()} sets DJL's offline switch before DJL first looks for an engine.
 */
public final class Djl {

    /** The PyTorch version the bundled native build must report. */
    public static final String PYTORCH_VERSION = "2.7.1";

    private Djl() {
    }

    /**
     * The PyTorch engine, offline.
     *
     * @throws IllegalStateException if the engine is missing or is not the bundled PyTorch build
     */
    public static Engine engine() {
        // Must be set before DJL resolves its engine: without it DJL may try to fetch a matching native build.
        if (System.getProperty("ai.djl.offline") == null) {
            System.setProperty("ai.djl.offline", "true");
        }
        firstUseNotice(cacheDir()).ifPresent(System.err::println);
        Engine e = Engine.getEngine("PyTorch");
        if (!PYTORCH_VERSION.equals(e.getVersion())) {
            throw new IllegalStateException("DJL's PyTorch engine is version " + e.getVersion() + ", Basalt needs the "
                    + "bundled " + PYTORCH_VERSION + " (pytorch-native-cpu linux-x86_64)");
        }
        return e;
    }

    /**
     * Runs the engine's operators on {@code threads} threads (PyTorch's intra-op threads; by default one per core)
     * from now on, in this process. For work made of many small forward passes, such as an explanation's model
     * queries: on two cores with other work running, two threads per operator mostly wait for each other (a
     * GRANITE Shapley attribution of a 217-instruction block, 8 permutations: 82 s with two threads, 18 s with
     * one).
     */
    public static void intraOpThreads(int threads) {
        if (threads < 1) {
            throw new IllegalArgumentException("threads must be >= 1, got " + threads);
        }
        engine();
        ai.djl.pytorch.jni.JniUtils.setNumThreads(threads);
    }

    /** Where DJL unpacks its native libraries: {@code DJL_CACHE_DIR} (property or environment), else ~/.djl.ai. */
    static java.nio.file.Path cacheDir() {
        String dir = System.getProperty("DJL_CACHE_DIR", System.getenv("DJL_CACHE_DIR"));
        return dir != null ? java.nio.file.Path.of(dir) : java.nio.file.Path.of(System.getProperty("user.home"), ".djl.ai");
    }

    /**
     * The line announcing that PyTorch's native library is about to be unpacked under {@code cache} (the first use
     * on this machine: about 430 MB, silently otherwise), or empty when this version is already there.
     */
    static java.util.Optional<String> firstUseNotice(java.nio.file.Path cache) {
        java.nio.file.Path pytorch = cache.resolve("pytorch");
        try (java.util.stream.Stream<java.nio.file.Path> versions = java.nio.file.Files.list(pytorch)) {
            if (versions.anyMatch(v -> v.getFileName().toString().startsWith(PYTORCH_VERSION + "-"))) {
                return java.util.Optional.empty();
            }
        } catch (java.io.IOException | RuntimeException notYet) {
            // no such folder yet: the first use
        }
        return java.util.Optional.of("basalt: first use of the learned models here: unpacking PyTorch " + PYTORCH_VERSION
                + "'s native library (about 430 MB) into " + pytorch + "; later runs reuse it");
    }
}
