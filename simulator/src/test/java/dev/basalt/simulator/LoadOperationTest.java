package dev.basalt.simulator;

import dev.basalt.simulator.params.LoadOperation;
import dev.basalt.simulator.params.SimulatorParams;
import dev.basalt.core.Microarchitecture;
import dev.basalt.decoder.BasicBlock;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * {@link LoadOperation}: a load+operation's register operands wait for the operation alone. Hand-derived from the
 * CPUs' published latencies (Intel's optimization manual; uops.info): an FMA is 5 cycles on Haswell and 4 on
 * Skylake, a double-precision add 3 on Haswell and Ivy Bridge and 4 on Skylake, an integer add 1; the loaded
 * operand is ready long before (its address never changes), so a reduction through the register runs at the
 * operation's latency. The rule is on by default: with the load's own latency (the row's less the operation's) on the
 * address path it leaves BHive's accuracy as it was (README); off, the register chain pays a vector load's
 * longer latency.
 */
class LoadOperationTest {

    private static double cycles(Microarchitecture cpu, String hex, boolean rule) {
        Simulator sim = new Simulator(SimulatorParams.standard(cpu));
        return sim.run(BasicBlock.fromHex(hex), Simulator.Options.defaults().withOperationLatency(rule))
                .cyclesPerIteration();
    }

    private static double bound(Microarchitecture cpu, String hex, boolean rule) {
        Simulator sim = new Simulator(SimulatorParams.standard(cpu));
        return sim.bounds(BasicBlock.fromHex(hex), Simulator.Options.defaults().withOperationLatency(rule))
                .cyclesPerIteration();
    }

    @Test
    void theRegisterFormNamesTheOperation() {
        assertEquals("VFMADD231PD ymm, ymm, ymm", LoadOperation.registerForm("VFMADD231PD ymm, ymm, m256"));
        assertEquals("ADDPD xmm, xmm", LoadOperation.registerForm("ADDPD xmm, m128"));
        assertEquals("ADDSD xmm, xmm", LoadOperation.registerForm("ADDSD xmm, m64"));
        assertEquals("ADD r64, r64", LoadOperation.registerForm("ADD r64, m64"));
        assertEquals("VINSERTF128 ymm, ymm, xmm", LoadOperation.registerForm("VINSERTF128 ymm, ymm, m128"));
        assertNull(LoadOperation.registerForm("FLD m80"));
        assertNull(LoadOperation.registerForm("ADD r64, r64"));
    }

    @Test
    void aReductionThroughALoadOperationRunsAtTheOperationsLatency() {
        String fma = "c4e2ddb80e48ffc975f6"; // vfmadd231pd ymm1, ymm4, [rsi]; dec rcx; jnz
        String addpd = "660f580e48ffc975f7";   // addpd xmm1, [rsi]; dec rcx; jnz
        String add = "48030748ffc975f8";       // add rax, [rdi]; dec rcx; jnz
        assertEquals(5, cycles(Microarchitecture.HASWELL, fma), 0.1);
        assertEquals(4, cycles(Microarchitecture.SKYLAKE, fma), 0.1);
        assertEquals(3, cycles(Microarchitecture.HASWELL, addpd), 0.1);
        assertEquals(4, cycles(Microarchitecture.SKYLAKE, addpd), 0.1);
        assertEquals(3, cycles(Microarchitecture.IVYBRIDGE, addpd), 0.1);
        for (Microarchitecture cpu : List.of(Microarchitecture.HASWELL, Microarchitecture.SKYLAKE,
                Microarchitecture.IVYBRIDGE)) {
            assertEquals(1, cycles(cpu, add), 0.02, "add rax, [rdi] on " + cpu.llvmName());
        }
        assertEquals(5, bound(Microarchitecture.HASWELL, fma, true), 0.1, "the bounds follow");
        // Off: the vector load's longer latency lands on the register chain.
        assertEquals(7, cycles(Microarchitecture.HASWELL, fma, false), 0.1);
        assertEquals(4, cycles(Microarchitecture.HASWELL, addpd, false), 0.1);
    }

    /** On the address path the load keeps its own latency: load to result is still the row's latency. */
    @Test
    void theAddressPathStillTakesTheWholeRow() {
        String chase = "48030048ffc975f8"; // add rax, [rax]; dec rcx; jnz
        for (Microarchitecture cpu : List.of(Microarchitecture.HASWELL, Microarchitecture.SKYLAKE,
                Microarchitecture.IVYBRIDGE)) {
            int row = SimulatorParams.standard(cpu).forms().get("ADD r64, m64").latency();
            assertEquals(row, cycles(cpu, chase), 0.05, "add rax, [rax] on " + cpu.llvmName());
        }
        // A read-modify-write keeps the table's load latency (its row holds the store too): add [rdi], rax through
        // one address is the store-forwarding chain of the loop suite, unchanged.
        assertEquals(cycles(Microarchitecture.HASWELL, "48010748ffc975f8", false),
                cycles(Microarchitecture.HASWELL, "48010748ffc975f8"), 1e-9);
    }

    private static double cycles(Microarchitecture cpu, String hex) {
        Simulator sim = new Simulator(SimulatorParams.standard(cpu));
        return sim.run(BasicBlock.fromHex(hex), Simulator.Options.defaults()).cyclesPerIteration();
    }
}
