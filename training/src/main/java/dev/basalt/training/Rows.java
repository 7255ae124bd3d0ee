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
 * About once in a few thousand steps the backward pass still gives a non-finite gradient from finite inputs that
 * a recomputation of the same step does not give; {@link MultiTaskTrainer} recomputes such a step, so the run
 * does not depend on it.
 *
 * <p>Reproducibility: the CPU backward of a gather accumulates with atomic adds when several threads share
 * the work, so {@link MultiTaskTrainer} trains on one PyTorch thread; and every array made from Java data is an
 * engine-owned copy ({@link #constant}), so no result depends on where a Java buffer happens to lie or whether
 * it was collected. Before both, two runs of the same training agreed for 14 epochs and then drifted apart.
 */
public final class Rows {

    private Rows() {
    }

    /**
     * {@code data} as an array in memory the engine owns, owned by {@code m}. Not {@code NDManager.create} alone:
     * DJL's array then <em>aliases</em> a Java buffer that lives as long as that wrapper, while the engine may keep
     * the tensor longer (an index saved for the backward pass, a sparse tensor's coordinates); a collected buffer
     * then reads as garbage. Every array built from Java data that enters a computation goes through here.
     */
    public static NDArray constant(NDManager m, float[] data, Shape shape) {
        return owned(m, m.create(data, shape));
    }

    /** {@link #constant(NDManager, float[], Shape)} for indices. */
    public static NDArray constant(NDManager m, long[] data, Shape shape) {
        return owned(m, m.create(data, shape));
    }

    /**
     * Overwrites {@code target}'s values with {@code values} (row-major), copying in the engine. Not
     * {@code NDArray.set(float[])}: that makes the tensor alias a Java buffer, and the native call behind it prints
     * PyTorch's "AutoNonVariableTypeMode is deprecated" warning to every user's terminal.
     */
    public static void assign(NDArray target, float[] values) {
        withoutGradients(() -> { // an in-place write to a parameter is refused while gradients are recorded
            try (NDManager m = target.getManager().newSubManager()) {
                target.set(new NDIndex(":"), constant(m, values, target.getShape()));
            }
        });
    }

    /**
     * Runs {@code work} on this thread with PyTorch's gradient recording off, as it was before. The switch is per
     * thread and on by default: DJL turns it off only on the thread that starts the engine, so a prediction or a
     * model load on another thread (a Spark task, a parallel stream's worker) would otherwise record a gradient
     * graph for nothing, or be refused an in-place write.
     */
    public static void withoutGradients(Runnable work) {
        boolean was = JniUtils.isGradMode();
        JniUtils.setGradMode(false);
        try {
            work.run();
        } finally {
            JniUtils.setGradMode(was);
        }
    }

    private static NDArray owned(NDManager m, NDArray aliasing) {
        NDArray copy = aliasing.duplicate(); // a clone in the engine's memory
        copy.attach(m);
        aliasing.close();
        return copy;
    }

    /** Rows {@code index[k]} of {@code table} [n × d], as [index.length × d], owned by {@code m}. */
    public static NDArray gather(NDManager m, NDArray table, long[] index) {
        return gather(m, table, index(m, index, table.getShape().get(0)));
    }

    /**
     * {@code index} as an engine array for {@link #gather(NDManager, NDArray, NDArray)}, each checked to be a row of a
     * {@code rows}-row table: made once and used for every gather by the same index in a forward pass.
     */
    public static NDArray index(NDManager m, long[] index, long rows) {
        for (long i : index) {
            if (i < 0 || i >= rows) {
                throw new IndexOutOfBoundsException("row " + i + " of a " + rows + "-row table");
            }
        }
        return constant(m, index, new Shape(index.length));
    }

    /**
     * Rows {@code index} ({@link #index}) of {@code table}, owned by {@code m}. While gradients are recorded, an
     * indexing operator whose backward this class's reproducibility rests on; otherwise PyTorch's embedding lookup,
     * which copies the same rows (the same values, bit for bit) about 8× faster (15 µs against 125 µs for 1,600
     * rows of 64 here).
     */
    public static NDArray gather(NDManager m, NDArray table, NDArray index) {
        NDArray out = JniUtils.isGradMode() ? table.get(new NDIndex("{}", index))
                : JniUtils.embedding((PtNDArray) index, (PtNDArray) table, false);
        out.attach(m); // a parameter table's results would otherwise live as long as the model
        return out;
    }

    /** Sums of the rows of {@code values} [n × d] by segment: row k goes to segment {@code segmentOf[k]}. */
    public static NDArray segmentSum(NDManager m, NDArray values, long[] segmentOf, int segments) {
        if (segmentOf.length == 0) {
            return m.zeros(new Shape(segments, values.getShape().get(1)));
        }
        return segments(m, segmentOf, segments).matMul(values);
    }

    /**
     * The sparse 0/1 [segments × n] matrix that sums rows by segment ({@link #segmentSum}): made once and used for
     * every sum by the same segments in a forward pass. Null for no rows (use {@link #segmentSum(NDManager,
     * NDArray, NDArray, int)}, which gives zeros then).
     */
    public static NDArray segments(NDManager m, long[] segmentOf, int segments) {
        int n = segmentOf.length;
        if (n == 0) {
            return null;
        }
        long[] coordinates = new long[2 * n]; // [2 × n]: row (segment), column (k)
        float[] ones = new float[n];
        for (int k = 0; k < n; k++) {
            if (segmentOf[k] < 0 || segmentOf[k] >= segments) {
                throw new IndexOutOfBoundsException("segment " + segmentOf[k] + " of " + segments);
            }
            coordinates[k] = segmentOf[k];
            coordinates[n + k] = k;
            ones[k] = 1f;
        }
        // Not NDManager.createCoo: it closes its index and value arrays at once while the sparse tensor still
        // shares their memory. Here both are engine-owned copies (constant) kept in m.
        PtNDArray indices = (PtNDArray) constant(m, coordinates, new Shape(2, n));
        PtNDArray entries = (PtNDArray) constant(m, ones, new Shape(n));
        NDArray sparse = JniUtils.createSparseCoo(indices, entries, new Shape(segments, n));
        sparse.attach(m);
        return sparse;
    }

    /** {@code values} summed by the matrix {@link #segments} made, or zeros [segments × d] when it is null. */
    public static NDArray segmentSum(NDManager m, NDArray values, NDArray segments, int count) {
        return segments == null ? m.zeros(new Shape(count, values.getShape().get(1))) : segments.matMul(values);
    }
}
