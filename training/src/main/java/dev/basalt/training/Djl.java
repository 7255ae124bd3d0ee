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
        Engine e = Engine.getEngine("PyTorch");
        if (!PYTORCH_VERSION.equals(e.getVersion())) {
            throw new IllegalStateException("DJL's PyTorch engine is version " + e.getVersion() + ", Basalt needs the "
                    + "bundled " + PYTORCH_VERSION + " (pytorch-native-cpu linux-x86_64)");
        }
        return e;
    }
}
