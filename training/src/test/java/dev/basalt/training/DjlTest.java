package dev.basalt.training;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** The bundled PyTorch engine loads offline and computes. */
class DjlTest {

    @Test
    void bundledPyTorchRunsOffline() {
        var engine = Djl.engine();
        assertEquals("PyTorch", engine.getEngineName());
        assertEquals("true", System.getProperty("ai.djl.offline"));
        try (NDManager m = engine.newBaseManager()) {
            NDArray x = m.create(new float[] {1, 2, 3, 4}, new ai.djl.ndarray.types.Shape(2, 2));
            NDArray y = x.matMul(x.transpose());
            assertArrayEquals(new float[] {5, 11, 11, 25}, y.toFloatArray());
        }
    }
}
