package dev.basalt.training;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * A network's trainable arrays by name, in creation order (the order of the model file and of the trainer),
 * initialised from a {@link SplittableRandom} rather than the engine's random state so that a seed fixes them.
 */
public final class Parameters {

    private final NDManager manager;
    private final Map<String, NDArray> arrays = new LinkedHashMap<>();

    /** Arrays are created in (and closed with) {@code manager}. */
    public Parameters(NDManager manager) {
        this.manager = manager;
    }

    /** A new array uniform in ±{@code bound}, drawn from {@code rnd} in row-major order. */
    public NDArray uniform(String name, SplittableRandom rnd, double bound, long... shape) {
        Shape s = new Shape(shape);
        float[] v = new float[(int) s.size()];
        for (int i = 0; i < v.length; i++) {
            v[i] = (float) ((2 * rnd.nextDouble() - 1) * bound);
        }
        return add(name, manager.create(v, s));
    }

    /**
     * A new array normal with mean 0 and standard deviation {@code std}, drawn from {@code rnd} in row-major order
     * (Box–Muller, one pair of draws a value).
     */
    public NDArray normal(String name, SplittableRandom rnd, double std, long... shape) {
        Shape s = new Shape(shape);
        float[] v = new float[(int) s.size()];
        for (int i = 0; i < v.length; i++) {
            double u = 1.0 - rnd.nextDouble();
            double w = rnd.nextDouble();
            v[i] = (float) (Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * w) * std);
        }
        return add(name, manager.create(v, s));
    }

    /** A new array of ones. */
    public NDArray ones(String name, long... shape) {
        return add(name, manager.ones(new Shape(shape)));
    }

    /** A new array of zeros. */
    public NDArray zeros(String name, long... shape) {
        return add(name, manager.zeros(new Shape(shape)));
    }

    /** Adds {@code a} as a trainable array. */
    public NDArray add(String name, NDArray a) {
        a.setRequiresGradient(true);
        arrays.put(name, a);
        return a;
    }

    /** The array called {@code name}. */
    public NDArray get(String name) {
        NDArray a = arrays.get(name);
        if (a == null) {
            throw new IllegalArgumentException("no parameter " + name);
        }
        return a;
    }

    /** Every array, in creation order (live: the trainer updates them in place). */
    public Map<String, NDArray> map() {
        return arrays;
    }

    /** Leaky ReLU with slope 0.1, the activation of every Basalt network. */
    public static NDArray leaky(NDArray x) {
        return x.getNDArrayInternal().leakyRelu(0.1f); // one native call where max(x, 0.1x) took two
    }
}
