package dev.basalt.simulator;

import dev.basalt.simulator.params.SimulatorParams;
import com.code_intelligence.jazzer.junit.FuzzTest;

import java.io.IOException;

/**
 * Fuzzing (Jazzer) of the simulator parameter file reader ({@code --params}, {@code basalt calibrate}'s and
 * {@code tune}'s tables, a table given as a model file): any bytes are a table or an {@link IOException} naming why
 * not; a table that reads is then used (its fingerprint, a block simulated), which must not fail either.
 */
class ParamsFuzzTest {

    @FuzzTest(maxDuration = "65m")
    void params(byte[] input) {
        SimulatorParams table;
        try {
            table = SimulatorParams.read(input, "fuzz.json");
        } catch (IOException expected) {
            return;  // not JSON, not a table, or a table breaking a rule: the documented answer
        }
        table.fingerprint();
        try {
            new Simulator(table).run(dev.basalt.decoder.BasicBlock.fromHex("4801d8480fafc0"),
                    Simulator.Options.defaults().withIterations(10));
        } catch (IllegalArgumentException expected) {
            // a table the machine cannot run (no port a form names): refused, named
        }
    }
}
