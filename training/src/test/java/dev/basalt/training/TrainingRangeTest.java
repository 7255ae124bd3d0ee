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
        // 60 instructions at 170 cycles: 2.83 an instruction, under head 1's 3 for blocks that long.
        assertNull(r.outside(60, 170, 1), "each head has its own");
        assertNotNull(r.outside(60, 170, 0));
    }

    @Test
    void aLengthAndASlownessEachSeenButNeverTogetherAreOutside() throws Exception {
        // 100 blocks of 1..100 instructions at half a cycle an instruction, and 100 of 5 instructions at 50 cycles:
        // 81 instructions and 50 cycles are each reached by 20 blocks, but no long block is slow.
        int n = 200;
        int[] sizes = new int[n];
        float[][] prior = new float[n][1];
        double[][] labels = new double[n][1];
        for (int i = 0; i < n; i++) {
            sizes[i] = i < 100 ? i + 1 : 5;
            prior[i][0] = i < 100 ? (i + 1) / 2f : 50f;
            labels[i][0] = 1;
        }
        TrainingRange r = TrainingRange.of(sizes, prior, labels, "simulator");
        assertEquals(81, r.maxInstructions());
        assertArrayEquals(new double[] {50}, r.maxPrior(), 1e-9);
        assertNull(r.outside(60, 30, 0), "half a cycle an instruction, as the long blocks");
        assertNull(r.outside(5, 40, 0), "8 cycles an instruction over 5, under the short blocks' 10");
        String why = r.outside(60, 40, 0);
        assertNotNull(why, "0.67 cycles an instruction over 60 instructions: no block that long is that slow");
        assertTrue(why.startsWith("simulator gives 0.67 cycles an instruction over 60 instructions, more than the "
                + "0.50 that 20 or more training blocks of 60 or more instructions reach"), why);
        // The staircase: 10 cycles an instruction up to length 5 (the short blocks and 15 more), then the long
        // blocks' half cycle.
        assertEquals(10, r.maxCyclesPerInstruction()[0][4], 1e-9);
        assertEquals(0.5, r.maxCyclesPerInstruction()[0][5], 1e-9);
        // It travels in the file.
        ObjectMapper json = new ObjectMapper();
        TrainingRange back = json.readValue(json.writeValueAsBytes(r), TrainingRange.class);
        assertEquals(why, back.outside(60, 40, 0));
    }

    @Test
    void moreOfABlockOnItsCriticalCycleThanTrainingBlocksOfItsLengthIsOutside() throws Exception {
        // 100 blocks of 1..100 instructions with a fifth of them on the prior's critical cycle, and 30 blocks of 3
        // instructions all on it (a short chain); the prior gives a cycle an instruction throughout.
        int n = 130;
        int[] sizes = new int[n];
        float[][] prior = new float[n][1];
        float[][] share = new float[n][1];
        double[][] labels = new double[n][1];
        for (int i = 0; i < n; i++) {
            sizes[i] = i < 100 ? i + 1 : 3;
            prior[i][0] = sizes[i];
            share[i][0] = i < 100 ? 0.2f : 1f;
            labels[i][0] = 1;
        }
        TrainingRange r = TrainingRange.of(sizes, prior, labels, "simulator", share);
        assertNull(r.outside(3, 3, 0, 1.0), "three instructions all on the chain: seen 30 times");
        assertNull(r.outside(10, 10, 0, 0.2));
        assertNull(r.outside(10, 10, 0, Double.NaN), "a share not known is not checked");
        String why = r.outside(10, 10, 0, 1.0);
        assertEquals("100% of its 10 instructions on simulator's critical cycle, more than the 20% that 20 or more "
                + "training blocks of 10 or more instructions reach", why);
        ObjectMapper json = new ObjectMapper();
        assertEquals(why, json.readValue(json.writeValueAsBytes(r), TrainingRange.class).outside(10, 10, 0, 1.0));
        // Without statistics (a model that does not take them) there is no such table and no such check.
        assertNull(TrainingRange.of(sizes, prior, labels, "bounds").maxCriticalShare());
        assertNull(TrainingRange.of(sizes, prior, labels, "bounds").outside(10, 10, 0, 1.0));
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
        // A range written before the per-length check existed reads without it, and checks the rest.
        TrainingRange older = json.readValue("{\"maxInstructions\":50,\"maxPrior\":[30],\"priorName\":\"bounds\"}",
                TrainingRange.class);
        assertNull(older.maxCyclesPerInstruction());
        assertNull(older.outside(50, 30, 0));
        assertNotNull(older.outside(51, 30, 0));
    }
}
