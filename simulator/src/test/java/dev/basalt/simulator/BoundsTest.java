package dev.basalt.simulator;

import dev.basalt.simulator.bounds.Bounds;
import dev.basalt.simulator.params.SimulatorParams;
import dev.basalt.core.Microarchitecture;
import dev.basalt.decoder.BasicBlock;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One hand-computed block per analytical bound (DESIGN.md §13), each chosen so that its bound clearly wins, on
 * the bundled llvm-mca Haswell table; and the second machine never runs faster than the bound.
 */
class BoundsTest {

    private final Simulator haswell = new Simulator(SimulatorParams.bundled(Microarchitecture.HASWELL));
    private final Simulator.Options all = Simulator.Options.defaults();

    private Bounds check(String hex, Bounds.Kind winner, double cycles) {
        BasicBlock block = BasicBlock.fromHex(hex);
        Bounds b = haswell.bounds(block, all);
        assertEquals(winner, b.winner(), b.describe());
        assertEquals(cycles, b.cyclesPerIteration(), 1e-9, b.describe());
        double simulated = haswell.run(block, all).cyclesPerIteration();
        assertTrue(simulated >= cycles - 1e-9, "the machine ran faster than its bound: " + simulated);
        for (Bounds.Kind k : Bounds.Kind.values()) { // each bound's parts add up to it
            double sum = 0;
            for (int i = 0; i < block.size(); i++) {
                sum += b.share(k, i);
            }
            assertEquals(b.value(k), sum, 1e-9, k.name());
        }
        return b;
    }

    @Test
    void aLengthChangingPrefixMakesThePredecoderTheBound() {
        // add ax, 0x1234; dec r15: 7 bytes, one length-changing prefix. 16 copies fill 7 windows: a cycle each
        // plus 3 per prefix, 16 * 3 + 7 = 55 cycles per 16 iterations = 3.4375.
        check("6605341249ffcf", Bounds.Kind.PREDECODER, 3.4375);
    }

    @Test
    void aMultiplyChainIsLatencyBound() {
        // imul rax, rax: each iteration waits for the last one's product, 3 cycles.
        Bounds b = check("480fafc0", Bounds.Kind.LATENCY, 3.0);
        assertEquals(List.of(0), b.critical());
    }

    @Test
    void theEstimatorsInstructionStatisticsAreItsBoundsShares() {
        // imul rax, rax; add rbx, rcx: the imul chain (3 cycles) limits the block. The imul is the whole latency
        // bound and on the critical cycle; the add is neither; both say the block is latency-bound.
        SimulatorEstimator e = SimulatorEstimator.standard();
        BasicBlock block = BasicBlock.fromHex("480fafc04801cb");
        float[][] s = e.statistics(block, Microarchitecture.HASWELL);
        List<String> names = e.statisticNames();
        assertEquals(2, s.length);
        assertEquals(names.size(), s[0].length);
        int latency = names.indexOf("share_latency");
        int critical = names.indexOf("on_critical_cycle");
        int limited = names.indexOf("block_limited_by_latency");
        assertEquals(1f, s[0][latency], 1e-6);
        assertEquals(0f, s[1][latency], 1e-6);
        assertEquals(1f, s[0][critical]);
        assertEquals(0f, s[1][critical]);
        assertEquals(1f, s[0][limited]);
        assertEquals(1f, s[1][limited]);
        assertEquals(0f, s[1][names.indexOf("block_limited_by_ports")]);
    }

    @Test
    void sixLoadsAreBoundByTheTwoLoadPorts() {
        // mov rax, [rsi]; mov rbx, [rsi+8]; ... mov r8, [rsi+40]: six loads, ports 2 and 3 only: 6 / 2 = 3.
        Bounds b = check("488b06488b5e08488b4e10488b5618488b7e204c8b4628", Bounds.Kind.PORTS, 3.0);
        assertEquals("23", b.portSet());
        for (int i = 0; i < 6; i++) {
            assertEquals(0.5, b.share(Bounds.Kind.PORTS, i), 1e-9);
        }
    }

    @Test
    void threeMicroOpInstructionsTakeTheComplexDecoderOneACycle() {
        // xchg rax, rbx; xchg rdx, rcx; xchg rsi, rdi: three fused micro-ops each, so only the complex decoder
        // takes one, one a cycle: 3 cycles; issue and ports 9 / 4 = 2.25, each exchange's own chain 2.
        check("4887d84887ca4887fe", Bounds.Kind.DECODERS, 3.0);
    }

    @Test
    void unlaminatedLoadsAndAZeroIdiomAreIssueBound() {
        // Four vpaddd xmm, xmm, [rax+rbx] (unlaminated on Haswell: two issue slots each) and vpxor xmm3, xmm3, xmm3
        // (a zero idiom: a slot, no port): 9 slots / 4 = 2.25, above the ports' 2 (four loads on 2 and 3, four adds
        // on 1 and 5).
        check("c5f1fe0418c5f1fe1418c5f1fe0418c5f1fe1418c5e1efdb", Bounds.Kind.ISSUE, 2.25);
    }

    @Test
    void aCpuWithoutAnInstructionRefusesTheBlockNamingItAsEveryEstimatorDoes() {
        BoundsEstimator bounds = BoundsEstimator.standard();
        // add rax, rcx; vpaddd ymm0, ymm1, ymm2 (AVX2): Haswell runs it, Ivy Bridge does not.
        BasicBlock block = BasicBlock.fromHex("4801c8c5f5fec2");
        assertTrue(bounds.predict(block, Microarchitecture.HASWELL).cyclesPerIteration() > 0);
        String why = dev.basalt.core.IsaSupport.unsupported(block, Microarchitecture.IVYBRIDGE).orElseThrow();
        dev.basalt.core.UnpredictableBlockException refused = org.junit.jupiter.api.Assertions.assertThrows(
                dev.basalt.core.UnpredictableBlockException.class, () -> bounds.predict(block, Microarchitecture.IVYBRIDGE));
        assertEquals(why, refused.getMessage());
        // In loop mode the block (no jump at its end) is refused too, and the missing instruction is named first.
        refused = org.junit.jupiter.api.Assertions.assertThrows(dev.basalt.core.UnpredictableBlockException.class,
                () -> bounds.withLoopMode(Simulator.LoopMode.LOOP).predict(block, Microarchitecture.IVYBRIDGE));
        assertEquals(why, refused.getMessage());
        refused = org.junit.jupiter.api.Assertions.assertThrows(dev.basalt.core.UnpredictableBlockException.class,
                () -> bounds.withLoopMode(Simulator.LoopMode.LOOP).predict(block, Microarchitecture.HASWELL));
        assertEquals(Simulator.LOOP_MODE_REFUSAL, refused.getMessage());
    }
}
