package dev.basalt.simulator;

import dev.basalt.core.Microarchitecture;
import dev.basalt.datasets.Dataset;
import dev.basalt.datasets.LabelledBlock;
import dev.basalt.decoder.BasicBlock;
import dev.basalt.simulator.params.SimulatorParams;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An integer divide of 8, 16 or 32 bits is microcode of about ten micro-ops on Haswell and Skylake (Agner Fog's
 * instruction tables; Dividers#microOps), not the 32 or 66 that llvm-mca's rows give it, which made a block of one
 * division front-end bound at twice the time BHive measured.
 */
class IntegerDividerTest {

    private static double cycles(Microarchitecture cpu, BasicBlock block) {
        return new Simulator(SimulatorParams.standard(cpu)).run(block, Simulator.Options.defaults())
                .cyclesPerIteration();
    }

    /** Blocks BHive measured on Haswell, each one division of BHive's operands (0x2324000) a fresh iteration. */
    @Test
    void measuredHaswellDivisionsOfTheHarnesssOperands() {
        // xor edx, edx; mov eax, r15d; div r14d; test edx, edx — quotient 1, measured 8.97
        assertEquals(8.97, cycles(Microarchitecture.HASWELL, BasicBlock.fromHex("31d24489f841f7f685d2")), 0.9);
        // mov eax, 2147483647; cdq; idiv esi; cmp eax, r8d — quotient 58, measured 8.01
        assertEquals(8.01, cycles(Microarchitecture.HASWELL, BasicBlock.fromHex("b8ffffff7f99f7fe4439c0")), 0.8);
        // mov eax, 1; div ecx with edx zeroed, quotient 0 (Agner Fog: reciprocal throughput 9 to 11)
        double small = cycles(Microarchitecture.HASWELL, BasicBlock.fromHex("b80100000031d2f7f1"));
        assertTrue(small >= 9 - 0.05 && small <= 11 + 0.05, "div ecx of a small dividend: " + small);
    }

    /**
     * Every bundled BHive block with a narrow integer divide (15 on Haswell, 12 on Skylake): their MAPE was 31.4% and
     * 69.0% on the rows' micro-op counts, and is 12.5% and 6.6% on the CPUs'.
     */
    @Test
    void narrowDividesOfTheBundledSample() {
        double[] limit = {0.15, 0.10};
        Microarchitecture[] cpus = {Microarchitecture.HASWELL, Microarchitecture.SKYLAKE};
        for (int c = 0; c < cpus.length; c++) {
            Simulator sim = new Simulator(SimulatorParams.standard(cpus[c]));
            double sum = 0;
            int count = 0;
            for (LabelledBlock b : Dataset.bundled().labelled(cpus[c])) {
                boolean narrow = false;
                for (int i = 0; i < b.block().size(); i++) {
                    String form = b.block().instruction(i).form();
                    narrow |= form.matches("I?DIV [rm](8|16|32)");
                }
                if (!narrow) {
                    continue;
                }
                double p = sim.run(b.block(), Simulator.Options.defaults()).cyclesPerIteration();
                double m = b.throughput(cpus[c]).getAsDouble();
                sum += Math.abs(p - m) / m;
                count++;
            }
            assertTrue(count >= 8, cpus[c].llvmName() + ": " + count + " blocks");
            double mape = sum / count;
            assertTrue(mape < limit[c], cpus[c].llvmName() + ": narrow divides' MAPE " + mape + " over " + count);
        }
    }

    /**
     * In a loop the values divided are not known: the prediction takes the divide's fast end and its interval runs to
     * the slow end, covering the range Agner Fog measured for a 64-bit {@code div} (Haswell 32–96 cycles, Skylake
     * 35–88, Ivy Bridge 29–94), with a note that names the instruction. Under BHive's harness the values are known
     * and no interval is given.
     */
    @Test
    void aLoopsDivideOfUnknownValuesCarriesItsRange() {
        BasicBlock loop = BasicBlock.fromHex("31d248f7f149ffc875f6"); // xor edx, edx; div rcx; dec r8d; jnz
        int[][] range = {{32, 96}, {35, 88}, {29, 94}};
        Microarchitecture[] cpus = {Microarchitecture.HASWELL, Microarchitecture.SKYLAKE, Microarchitecture.IVYBRIDGE};
        SimulatorEstimator sim = SimulatorEstimator.standard();
        for (int c = 0; c < cpus.length; c++) {
            dev.basalt.core.Prediction p = sim.predict(loop, cpus[c]);
            assertEquals(range[c][0], p.cyclesPerIteration(), 0.05, cpus[c].llvmName());
            dev.basalt.core.Interval iv = p.interval().orElseThrow();
            assertTrue(iv.low() <= range[c][0] + 0.05 && iv.high() >= range[c][1] - 0.05,
                    cpus[c].llvmName() + ": " + iv);
            assertTrue(p.notes().stream().anyMatch(n -> n.startsWith("div (DIV r64)")), p.notes().toString());
        }
        // The same divide unrolled under the harness: values known, no interval.
        BasicBlock unrolled = BasicBlock.fromHex("31d248f7f1");
        assertTrue(sim.predict(unrolled, Microarchitecture.SKYLAKE).interval().isEmpty());
    }
}
