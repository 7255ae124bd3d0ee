package dev.basalt.training;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.basalt.core.Interval;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A learned model's training range: the values at least 20 blocks reach, and what falls outside. */
class TrainingRangeTest {

    @Test
    void theRangeEndsWhereFewerThanTwentyBlocksReach() {
        // 100 blocks of 1..100 instructions, the prior giving 2 cycles an instruction on head 0; head 1 labels
        // only the even blocks.
        int n = 100;
        int[] sizes = new int[n];
        float[][] prior = new float[n][2];
        double[][] labels = new double[n][2];
        for (int i = 0; i < n; i++) {
            sizes[i] = i + 1;
            prior[i][0] = 2f * (i + 1);
            prior[i][1] = 3f * (i + 1);
            labels[i][0] = 1;
            labels[i][1] = i % 2 == 0 ? 1 : Double.NaN;
        }
        TrainingRange r = TrainingRange.of(sizes, prior, labels, "bounds");
        // The 20th largest of 1..100 is 81; of head 1's labelled blocks (1, 3, ..., 99) the 20th largest is 61.
        assertEquals(81, r.maxInstructions());
        assertArrayEquals(new double[] {162, 183}, r.maxPrior(), 1e-9);
        assertNull(r.outside(81, 162, 0));
        assertTrue(r.outside(82, 10, 0).startsWith("82 instructions, more than the 81"), r.outside(82, 10, 0));
        assertTrue(r.outside(10, 184, 1).startsWith("bounds gives 184.00 cycles, more than the 183.00"));
        assertNull(r.outside(10, 170, 1), "each head has its own");
        assertNotNull(r.outside(10, 170, 0));
    }

    @Test
    void itTravelsWithTheCalibrationAndWidensItsIntervals() throws Exception {
        Calibration c = new Calibration(new double[] {0.5, 0.9}, List.of(new Calibration.Head(new double[] {0.1},
                new double[][] {{-0.05, -0.1}, {-0.1, -0.2}}, new double[][] {{0.05, 0.1}, {0.1, 0.3}})),
                new int[] {200}, null).withRange(new TrainingRange(50, new double[] {30}, "bounds"));
        ObjectMapper json = new ObjectMapper();
        Calibration back = json.readValue(json.writeValueAsBytes(c), Calibration.class);
        assertNotNull(back.range());
        assertEquals(50, back.range().maxInstructions());
        // Outside the range: the widest bin's log-ratios doubled, around the value given.
        List<Interval> w = back.widened(0, 100);
        assertEquals(100 * Math.exp(-0.4), w.get(1).low(), 1e-9);
        assertEquals(100 * Math.exp(0.6), w.get(1).high(), 1e-9);
        // A file written before ranges existed reads with none.
        Calibration old = json.readValue("{\"levels\":[0.9],\"heads\":[{\"edges\":[],\"low\":[[-0.1]],"
                + "\"high\":[[0.1]]}],\"blocks\":[100]}", Calibration.class);
        assertNull(old.range());
    }
}
