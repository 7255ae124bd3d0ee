package dev.basalt.training;

import com.code_intelligence.jazzer.junit.FuzzTest;

import java.io.IOException;

/**
 * Fuzzing (Jazzer) of the model file container ({@code --model FILE}: a zip of {@code model.json} and
 * {@code weights.bin}): any bytes split into the two parts or fail with an {@link IOException} naming why (not a zip,
 * cut short, a part missing, a part inflating past 512 MB).
 */
class ModelFileFuzzTest {

    @FuzzTest(maxDuration = "65m")
    void modelFile(byte[] input) {
        try {
            ModelFile.read(input, "fuzz.granite", "GRANITE");
        } catch (IOException expected) {
            // the documented answer
        }
    }
}
