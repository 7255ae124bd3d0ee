package dev.basalt.simulator;

import dev.basalt.simulator.params.InstructionParams;
import dev.basalt.simulator.params.RowSource;
import dev.basalt.simulator.params.SimulatorParams;
import dev.basalt.decoder.BasicBlock;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Hand-computed blocks on a small hand-written machine: 4-wide dispatch, ALU ports 0/1/5/6, one store-data
 * port 4, a divider. Expected values are what the machine must do in steady state; the simulator adds a
 * few cycles of pipeline fill and drain over 1,000 iterations, hence the tolerance.
 */
class SimulatorTest {

    private static final InstructionParams ALU = new InstructionParams(1, 1, 0, Map.of("0156", 1));
    private static final SimulatorParams MACHINE = new SimulatorParams("test", 4, 192, 60, 5,
            List.of("Divider", "0", "1", "2", "3", "4", "5", "6", "7"),
            Map.of("ADD r64, i8", ALU, "ADD r32, r32", ALU, "XOR r32, r32", ALU,
                    "IMUL r64, r64", new InstructionParams(1, 3, 0, Map.of("1", 1)),
                    "MOV m64, r64", new InstructionParams(1, 1, 0, Map.of("23", 1, "4", 1)),
                    "DIV r64", new InstructionParams(1, 4, 0, Map.of("0", 1, "Divider", 10))),
            Map.of(), ALU, null);
    private static final Simulator SIM = new Simulator(MACHINE);
    private static final Simulator.Options OPTIONS = new Simulator.Options(1000, true, true);

    private static double cycles(String hex) {
        return SIM.run(BasicBlock.fromHex(hex), OPTIONS).cyclesPerIteration();
    }

    @Test
    void latencyOneChain() {
        assertEquals(1.0, cycles("4883c001"), 0.01); // add rax, 1
    }

    @Test
    void latencyThreeChain() {
        assertEquals(3.0, cycles("480fafc0"), 0.01); // imul rax, rax
    }

    @Test
    void fourAndFiveIndependentAddsOnAFourWideMachine() {
        // add rax,1; add rbx,1; add rcx,1; add rdx,1 (+ add rsi,1)
        assertEquals(1.0, cycles("4883c0014883c3014883c1014883c201"), 0.01);
        assertEquals(1.25, cycles("4883c0014883c3014883c1014883c2014883c601"), 0.01);
    }

    @Test
    void storeBound() {
        // mov [rdi], rax; mov [rsi], rbx; mov [rdx], rcx: three stores, one store-data port
        assertEquals(3.0, cycles("48890748891e48890a"), 0.01);
    }

    @Test
    void dividerBound() {
        // div rcx: latency 4 through rax/rdx, but the divider is busy 10 cycles
        assertEquals(10.0, cycles("48f7f1"), 0.02);
    }

    @Test
    void zeroIdiomBreaksTheChain() {
        // imul rax,rax alone is a 3-cycle chain; with xor eax,eax before it the chain restarts every
        // iteration and port 1 (one imul per cycle) is the limit.
        assertEquals(3.0, cycles("480fafc0"), 0.01);
        assertEquals(1.0, cycles("31c0480fafc0"), 0.01);
    }

    @Test
    void fallbacksAreReported() {
        Simulator.Result r = SIM.run(BasicBlock.fromHex("4889de"), OPTIONS); // MOV r64, r64 is not in the table
        assertEquals(Map.of("MOV r64, r64", RowSource.GENERIC), r.fallbacks());
        assertTrue(r.cyclesPerIteration() > 0);
    }

    @Test
    void formsResolveToTheirRowThenTheMnemonicsThenTheGenericOne() {
        SimulatorParams table = MACHINE.withMnemonics(Map.of("MOV", ALU));
        Simulator sim = new Simulator(table);
        assertEquals(RowSource.FORM, sim.resolve("ADD r64, i8").source());
        assertEquals(RowSource.MNEMONIC, sim.resolve("LOCK MOV r64, r64").source());
        assertEquals(RowSource.GENERIC, sim.resolve("NOP").source());
        assertEquals(List.of("form", "mnemonic", "generic"),
                java.util.Arrays.stream(RowSource.values()).map(Object::toString).toList());
    }

    @Test
    void instructionWiderThanTheSchedulerStillRuns() {
        SimulatorParams tiny = MACHINE.withSchedulerSize(8)
                .withForms(Map.of("DIV r64", new InstructionParams(20, 4, 0, Map.of("0", 20))));
        // div rcx: 20 micro-ops on port 0 through an 8-entry scheduler: port 0 busy 20 cycles per div.
        assertEquals(20.0, new Simulator(tiny).run(BasicBlock.fromHex("48f7f1"), new Simulator.Options(200, true, true))
                .cyclesPerIteration(), 0.5);
    }

    @Test
    void threadSafeWithTheBundledTables() throws Exception {
        SimulatorEstimator estimator = SimulatorEstimator.standard();
        List<BasicBlock> blocks = SampleBlocks.haswell(400);
        double[] single = blocks.stream().mapToDouble(b -> estimator.predict(b,
                dev.basalt.core.Microarchitecture.SKYLAKE).cyclesPerIteration()).toArray();
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(4);
        try {
            List<java.util.concurrent.Future<double[]>> runs = new java.util.ArrayList<>();
            for (int t = 0; t < 4; t++) {
                runs.add(pool.submit(() -> blocks.stream().mapToDouble(b -> estimator.predict(b,
                        dev.basalt.core.Microarchitecture.SKYLAKE).cyclesPerIteration()).toArray()));
            }
            for (java.util.concurrent.Future<double[]> f : runs) {
                org.junit.jupiter.api.Assertions.assertArrayEquals(single, f.get());
            }
        } finally {
            pool.shutdown();
        }
    }

    @Test
    void deterministic() {
        String hex = "488b5c2408488b7c241031d24889de";
        Simulator.Result a = SIM.run(BasicBlock.fromHex(hex), OPTIONS);
        Simulator.Result b = SIM.run(BasicBlock.fromHex(hex), OPTIONS);
        assertEquals(a.totalCycles(), b.totalCycles());
    }
}
