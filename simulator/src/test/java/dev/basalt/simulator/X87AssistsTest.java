package dev.basalt.simulator;

import dev.basalt.simulator.harness.X87Assists;
import dev.basalt.simulator.params.CpuConfigs;
import dev.basalt.simulator.params.SimulatorParams;
import dev.basalt.core.Microarchitecture;
import dev.basalt.decoder.Assembly;
import dev.basalt.decoder.BasicBlock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.Locale;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The x87 unit's microcode assists in BHive's harness ({@link X87Assists}): the events an iteration, worked out by
 * hand from the stack's tags, and the cycles against blocks measured on the Xeon 6 (the training split of
 * {@code datasets/measured/intel-family6-model167}) and BHive's rows of Haswell, Skylake and Ivy Bridge.
 */
class X87AssistsTest {

    private static BasicBlock block(String asm) {
        if (asm.matches("[0-9a-f]+")) {
            return BasicBlock.fromHex(asm);
        }
        return BasicBlock.fromHex(Assembly.parse(asm, Assembly.Syntax.INTEL).get(0).hex());
    }

    /**
     * The events an iteration, by hand. A push without a pop fills the stack in eight iterations, then every push
     * overflows. {@code fstp st0} of an empty stack underflows, stores a NaN to st0 and pops it: again each time.
     * {@code fxch} of an empty register fills both with NaN, so after the first iteration nothing is empty — unless a
     * pop empties st1 again. An 80-bit load of harness memory is an unnormal: compared, an invalid operand; stored,
     * not. An accumulator never loaded is a NaN after its first underflow, and adding to a NaN is an event each time.
     * An unordered compare of a NaN is not one, an ordered one is. Balanced code of ordinary numbers has none.
     */
    @ParameterizedTest(name = "{1}: {0}")
    @CsvSource(delimiter = '|', value = {
            "0 | add rax, 1; mov rcx, [rsp]",
            "1 | fld1; fxch st1",
            "2 | fldz; fld st0",
            "4 | fstp st0; fstp st0; fstp st0; fstp st0",
            "0 | fxch st1",
            "0 | fxch st2; fchs; fxch st2",
            "1 | fstp st0; fxch st1",
            "1 | fld tbyte ptr [rsp+0x60]; fucomip st0, st0",
            "0 | fld tbyte ptr [rbx+0x10]; fstp tbyte ptr [rsp+0x10]",
            "1 | fld qword ptr [rsi]; add rsi, rdx; fmul st0, st0; faddp st1, st0; dec rdi",
            "0 | fxch st1; fucomi st0, st1",
            "1 | fxch st1; fcomi st0, st1",
            "0 | fld qword ptr [rsi]; fmul qword ptr [rdi]; fstp qword ptr [rdx]"})
    void eventsFollowTheStacksTags(double expected, String asm) {
        assertEquals(expected, X87Assists.perIteration(block(asm)), asm);
    }

    /** The simulator's cycles within 10% of the measured ones, and the bounds not above them. */
    private static void measured(String mcpu, double measured, String asm) {
        SimulatorParams table = SimulatorParams.bundled(Microarchitecture.parse(mcpu));
        assertEquals(CpuConfigs.measuredX87AssistCycles(mcpu), table.core().x87AssistCycles(), mcpu + "'s table");
        Simulator sim = new Simulator(table);
        double c = sim.run(block(asm), Simulator.Options.defaults()).cyclesPerIteration();
        assertTrue(Math.abs(c - measured) <= 0.10 * measured, String.format(Locale.ROOT,
                "%s on %s: simulated %.1f, measured %.1f", asm, mcpu, c, measured));
        double b = sim.bounds(block(asm), Simulator.Options.defaults()).cyclesPerIteration();
        assertTrue(b <= c + 1e-9 && b >= 0.9 * measured, String.format(Locale.ROOT,
                "%s on %s: bound %.1f, run %.1f, measured %.1f", asm, mcpu, b, c, measured));
    }

    /**
     * The Xeon 6's blocks of the data set's training split, then BHive's rows: {@code fstp tbyte ptr [rbp]; add rbp,
     * [rsp+24]; cmp rbx, r12} (an empty stack stored) and {@code mov [rsp+8], rsi; fucomi st0, st1} on Haswell,
     * {@code fldz; test rdi, rdi} and {@code push rbx; sub rsp, 176; fld tbyte ptr [rsp+192]; fucomi st0, st0} on
     * Ivy Bridge.
     */
    @ParameterizedTest(name = "{2} on {0}: {1}")
    @CsvSource(delimiter = '|', value = {
            "graniterapids | 409.5  | fld1; fxch st1",
            "graniterapids | 742.8  | fldz; fld st0",
            "graniterapids | 1492.7 | fstp st0; fstp st0; fstp st0; fstp st0",
            "graniterapids | 410.2  | fstp st0; fxch st1",
            "graniterapids | 426.8  | fld tbyte ptr [rsp+0x60]; fucomip st0, st0",
            "graniterapids | 1.00   | fxch st1",
            "haswell       | 356.0  | db7d0048036c24184c39e3",
            "haswell       | 325.6  | 4889742408dbe9",
            "ivybridge     | 329.7  | d9ee4885ff",
            "ivybridge     | 358.0  | 534881ecb0000000dbac24c0000000dbe8"})
    void assistsCostWhatWasMeasured(String mcpu, double measured, String asm) {
        measured(mcpu, measured, asm);
    }

    @Test
    void amdAndRealCodeHaveNone() {
        String asm = "fstp st0; fstp st0; fstp st0; fstp st0";
        Simulator zen5 = new Simulator(SimulatorParams.bundled(Microarchitecture.parse("znver5")));
        assertNull(zen5.params().core().x87AssistCycles());
        assertEquals(0, CpuConfigs.measuredX87AssistCycles("znver5"));
        assertTrue(zen5.run(block(asm), Simulator.Options.defaults()).cyclesPerIteration() < 20);
        // Outside the harness the stack's contents are the program's: no assists are assumed.
        Simulator gnr = new Simulator(SimulatorParams.bundled(Microarchitecture.parse("graniterapids")));
        double real = gnr.run(block(asm), Simulator.Options.defaults().withMemory(Simulator.MemoryModel.DISTINCT))
                .cyclesPerIteration();
        assertTrue(real < 20, "real-code memory: " + real);
    }
}
