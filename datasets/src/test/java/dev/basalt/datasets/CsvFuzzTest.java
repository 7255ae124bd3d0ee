package dev.basalt.datasets;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.basalt.core.Microarchitecture;

import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * Fuzzing (Jazzer) of the BHive CSV reader ({@code --data}, {@code --input}, {@code basalt measure}'s files): any
 * text reads into blocks and named row issues — no exception at all, since a bad row is reported, not thrown.
 */
class CsvFuzzTest {

    @FuzzTest(maxDuration = "65m")
    void csv(byte[] input) {
        String text = new String(input, StandardCharsets.UTF_8);
        BlockFiles.read(new StringReader(text), "fuzz.csv", Optional.of(Microarchitecture.HASWELL));
        BlockFiles.read(new StringReader(text), "fuzz.csv", Optional.empty());
    }
}
