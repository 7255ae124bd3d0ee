package dev.basalt.simulator;

import dev.basalt.core.Microarchitecture;
import dev.basalt.datasets.Dataset;
import dev.basalt.datasets.LabelledBlock;
import dev.basalt.decoder.BasicBlock;
import dev.basalt.simulator.params.SimulatorParams;
import org.junit.jupiter.api.Test;

import java.util.List;

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

    /** One measured block whose time is its divide's: the CPU, the block, the measurement and what it divides. */
    private record Measured(String cpu, String hex, double cycles, String what) {
    }

    /**
     * Per CPU, blocks measured on BHive's values whose time is one divide's (its latency through a chain, or the
     * divider's occupancy), at least three operand pairs each: BHive's measurements for Haswell, Skylake and Ivy
     * Bridge (the bundled sample), Basalt's for the Xeon 6 and Zen 5 (their measured sets). Each predicted within
     * 10%. (Not yet: Zen 5's 64-bit divide of a 63-bit dividend, 9.42 cycles measured against 7.00 predicted — its
     * latency grows with the quotient's bits, which the table's one row per form does not follow.)
     */
    @Test
    void everyCpusDividerWithinTenPercentOfMeasuredOperandPairs() {
        List<Measured> blocks = List.of(
                new Measured("skylake", "458b2c8f4489e89941f7f839d1", 7.03,
                        "idiv r8d: 0x2324000 / 0x2324000, the divider's occupancy"),
                new Measured("skylake", "410fb7450031d2410fb67d026641f7f74839ce4088bc24f201000066898424f0010000", 6.98,
                        "div r15w: 0x4000 / 0x4000"),
                new Measured("skylake", "488b412831d24c8b0149f7f5498d34d74c8b0e4d85c9", 22.02,
                        "div r13: 0x2324000 / 0x2324000, 64 bits"),
                new Measured("skylake", "31d24531c941f7f489c04885c0", 24.63,
                        "div r12d through eax: 0 / 0x2324000, the latency"),
                new Measured("ivybridge", "4983c0284489e831d28d4d01f7f7498b3889d64c89e2", 9.97,
                        "div edi: 0x2324000 / 0x2324000"),
                new Measured("ivybridge", "b8ffffff7f9941f7fa39c7", 8.00, "idiv r10d: 0x7fffffff / 0x2324000"),
                new Measured("ivybridge", "488b4f0831d24889c849f7f04939d5", 22.02,
                        "div r8: 0x2324000 / 0x2324000, 64 bits"),
                new Measured("graniterapids", "b8ffffff7f99f7fe4439c0", 6.00, "idiv esi: 0x7fffffff / 0x2324000"),
                new Measured("graniterapids", "89d899f7fd85d2", 6.00, "idiv ebp: 0x2324000 / 0x2324000"),
                new Measured("graniterapids", "b904000000489948f7f9", 14.99, "idiv rcx through rax: / 4, the latency"),
                new Measured("graniterapids", "4c89c0489948f7f94885d2", 9.99,
                        "idiv rcx: 0x2324000 / 0x2324000, 64 bits"),
                new Measured("znver5", "89d89941f7f985d2", 6.00, "idiv r9d: 0x2324000 / 0x2324000"),
                new Measured("znver5", "b8ffffff7f99f7fe4439c0", 5.99, "idiv esi: 0x7fffffff / 0x2324000"),
                new Measured("znver5", "31d2f7f189c885d2", 6.00, "div ecx: 0x2324000 / 0x2324000"),
                new Measured("znver5", "4c89c8489948f7f94839c3", 6.98, "idiv rcx: 0x2324000 / 0x2324000, 64 bits"),
                new Measured("znver5", "b904000000489948f7f9", 11.00, "idiv rcx through rax: / 4, the latency"));
        java.util.Map<String, Integer> pairs = new java.util.TreeMap<>();
        List<String> off = new java.util.ArrayList<>();
        for (Measured m : blocks) {
            double p = cycles(Microarchitecture.parse(m.cpu()), BasicBlock.fromHex(m.hex()));
            pairs.merge(m.cpu(), 1, Integer::sum);
            if (Math.abs(p - m.cycles()) > 0.10 * m.cycles()) {
                off.add(m.cpu() + " " + m.what() + ": measured " + m.cycles() + ", predicted " + p);
            }
        }
        assertEquals(List.of(), off);
        assertTrue(pairs.values().stream().allMatch(c -> c >= 3), pairs.toString());
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
