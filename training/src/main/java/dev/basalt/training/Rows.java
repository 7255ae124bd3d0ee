package dev.basalt.training;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.Shape;
import ai.djl.pytorch.engine.PtNDArray;
import ai.djl.pytorch.jni.JniUtils;

/**
 * Row gathers and segment sums for the learned models.
 *
 * <p>Segment sums are products with a sparse 0/1 matrix: a dense [nodes × edges] matrix made epochs 4× slower.
 * Of the formulations we tried (sparse products, {@code torch.gather}, padded gathers with dense one-hot
 * products) this one gave the fewest non-finite gradients — about one batch in a thousand, from finite inputs,
 * not reproducible, so most likely native memory reuse in the engine; {@link MultiTaskTrainer} skips such a
 * batch and counts it.
 *
 * <p>Reproducibility: the CPU backward of a gather accumulates with atomic adds when several threads share
 * the work, so {@link MultiTaskTrainer} trains on one PyTorch thread.
 */
public final class Rows {

    private Rows() {
    }

    /** Rows {@code index[k]} of {@code table} [n × d], as [index.length × d], owned by {@code m}. */
    public static NDArray gather(NDManager m, NDArray table, long[] index) {
        long rows = table.getShape().get(0);
        for (long i : index) {
            if (i < 0 || i >= rows) {
                throw new IndexOutOfBoundsException("row " + i + " of a " + rows + "-row table");
            }
        }
        NDArray out = table.get(new NDIndex("{}", m.create(index)));
        out.attach(m); // a parameter table's results would otherwise live as long as the model
        return out;
    }

    /** Sums of the rows of {@code values} [n × d] by segment: row k goes to segment {@code segmentOf[k]}. */
    public static NDArray segmentSum(NDManager m, NDArray values, long[] segmentOf, int segments) {
        int n = segmentOf.length;
        if (n == 0) {
            return m.zeros(new Shape(segments, values.getShape().get(1)));
        }
        long[] columns = new long[n];
        float[] ones = new float[n];
        for (int k = 0; k < n; k++) {
            if (segmentOf[k] < 0 || segmentOf[k] >= segments) {
                throw new IndexOutOfBoundsException("segment " + segmentOf[k] + " of " + segments);
            }
            columns[k] = k;
            ones[k] = 1f;
        }
        // Not NDManager.createCoo: it closes its index and value arrays at once while the sparse tensor still
        // shares their Java-owned memory, which the collector may then free (we saw garbage indices). Here both
        // arrays stay in m for as long as the sparse tensor can be used.
        PtNDArray indices = (PtNDArray) m.create(new long[][] {segmentOf, columns});
        PtNDArray entries = (PtNDArray) m.create(ones);
        return JniUtils.createSparseCoo(indices, entries, new Shape(segments, n)).matMul(values);
    }
}
