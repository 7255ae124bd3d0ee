package dev.basalt.training;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;

/** A one-layer LSTM over padded sequences with the engine's fused kernel (PyTorch's weight layout and gate order). */
public final class Lstm {

    private Lstm() {
    }

    /**
     * Runs the LSTM over [batch × time × in] from zero state and returns every step's hidden state
     * [batch × time × hidden], owned by {@code m}.
     *
     * @param weights {@code w_ih} [4h × in], {@code w_hh} [4h × h], {@code b_ih} [4h], {@code b_hh} [4h]
     */
    public static NDArray run(NDArray input, NDArray wIh, NDArray wHh, NDArray bIh, NDArray bHh, NDManager m) {
        long batch = input.getShape().get(0);
        long hidden = wHh.getShape().get(1);
        NDArray h0 = m.zeros(new Shape(1, batch, hidden));
        NDArray c0 = m.zeros(new Shape(1, batch, hidden));
        NDList out = input.getNDArrayInternal().lstm(input, new NDList(h0, c0), new NDList(wIh, wHh, bIh, bHh), true,
                1, 0, false, false, true);
        out.attach(m);
        return out.get(0);
    }
}
