package dev.basalt.simulator;

import dev.basalt.simulator.params.CoreParams;
import dev.basalt.simulator.params.Fences;
import dev.basalt.simulator.params.SimulatorParams;
import dev.basalt.core.Microarchitecture;
import dev.basalt.decoder.BasicBlock;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One hand-computed block per mechanism of the second-generation machine (DESIGN.md §11), on the bundled
 * llvm-mca Haswell table, each also run with its mechanism off.
 */
class SecondGenerationTest {

    private static final SimulatorParams HSW = SimulatorParams.bundled(Microarchitecture.HASWELL);
    private static final SimulatorParams IVB = SimulatorParams.bundled(Microarchitecture.IVYBRIDGE);
    private final Simulator haswell = new Simulator(HSW);
    private final Simulator.Options all = Simulator.Options.defaults();

    private double cycles(Simulator sim, String hex, Simulator.Options options) {
        return sim.run(BasicBlock.fromHex(hex), options).cyclesPerIteration();
    }

    @Test
    void aLengthChangingPrefixStallsThePredecoder() {
        // add ax, 0x1234 (66 05 34 12: the 66 prefix shrinks the immediate to 16 bits) then dec r15 (49 ff cf):
        // 7 bytes an iteration. Each iteration's LCP stalls the predecoder 3 cycles, and a 16-byte window
        // costs 1 cycle per 16 / 7 iterations: 3 + 7 / 16 = 3.4375 cycles per iteration.
        String block = "6605341249ffcf";
        assertEquals(3.4375, cycles(haswell, block, all), 1e-9);
        Bottleneck b = haswell.bottleneck(BasicBlock.fromHex(block), all);
        assertEquals(Bottleneck.Kind.FRONT_END, b.kind(), b.describe());
        // Without the front end only the two 1-cycle chains (ax, r15) remain.
        assertEquals(1.0, cycles(haswell, block, all.without(true, false, false, false, false)), 1e-9);
    }

    @Test
    void anIndexedLoadOpTakesTwoIssueSlotsOnHaswell() {
        // vpaddd xmm, xmm, [rax+rbx]: a three-operand form with an indexed address is unlaminated on Haswell —
        // one fused micro-op in the decoders, two at the renamer. Four of them: 8 slots / 4 = 2 cycles of issue.
        String indexed = "c5f1fe0418c5f1fe1418c5f1fe0418c5f1fe1418";
        assertEquals(2.0, haswell.bottleneck(BasicBlock.fromHex(indexed), all).dispatchBound(), 1e-9);
        // [rax] alone stays micro-fused: 4 slots, 1 cycle.
        assertEquals(1.0, haswell.bottleneck(BasicBlock.fromHex("c5f1fe00c5f1fe00c5f1fe00c5f1fe00"), all)
                .dispatchBound(), 1e-9);
        // add rax, [rbx+rcx]: two operands, the destination also a source — fused on Haswell, not on Ivy Bridge.
        assertEquals(0.25, haswell.bottleneck(BasicBlock.fromHex("4803040b"), all).dispatchBound(), 1e-9);
        assertEquals(0.5, new Simulator(IVB).bottleneck(BasicBlock.fromHex("4803040b"), all).dispatchBound(), 1e-9);
        // Without micro-fusion every load+operation takes two slots.
        assertEquals(2.0, haswell.bottleneck(BasicBlock.fromHex("c5f1fe00c5f1fe00c5f1fe00c5f1fe00"),
                all.without(false, true, false, false, false)).dispatchBound(), 1e-9);
    }

    @Test
    void anEliminatedMoveCostsNoLatency() {
        // mov rax, rbx; add rbx, rax: the loop-carried chain through rbx is the move and the add. Eliminated,
        // the move costs nothing: 1 cycle per iteration (one move a cycle, within the 4 slots per 2 cycles).
        String block = "4889d84801c3";
        assertEquals(1.0, cycles(haswell, block, all), 1e-9);
        // Executed, it adds its 1-cycle latency: 2 cycles per iteration.
        assertEquals(2.0, cycles(haswell, block, all.without(false, false, true, false, false)), 1e-9);
    }

    @Test
    void aLoadOfAStoredAddressWaitsForForwarding() {
        // mov [rsp+8], rax; mov rax, [rsp+8]: rax goes through memory each iteration. The store completes a
        // cycle after rax is ready (its latency 1), forwarding takes 4 more: the load's data, and rax, 5 cycles
        // after the store's data — 5 cycles per iteration.
        String block = "4889442408488b442408";
        assertEquals(5.0, cycles(haswell, block, all), 1e-9);
        // Without forwarding the load waits for the store (1 cycle), then its own 5-cycle latency.
        assertEquals(6.0, cycles(haswell, block, all.without(false, false, false, false, true)), 1e-9);
    }

    @Test
    void aLockedReadModifyWriteIsAFence() {
        // lock add dword ptr [rsi], 1 alone: it takes lockCycles (Haswell 19, Ivy Bridge 22: BHive's blocks of one
        // locked instruction) and the next one starts only when it has finished.
        assertEquals(19.0, cycles(haswell, "f0830601", all), 1e-9);
        assertEquals(22.0, cycles(new Simulator(IVB), "f0830601", all), 1e-9);
        // Then mov rax, [rdi+0x40]: the younger load waits for the lock, the next lock for the older load — the
        // load's 5 cycles are added: 24.
        String block = "f0830601488b4740";
        assertEquals(19.0 + HSW.loadLatency(), cycles(haswell, block, all), 1e-9);
        // Without the rule the add is an ordinary read-modify-write: its row's latency on the [rsi] chain.
        CoreParams c = HSW.core();
        CoreParams noLock = c.toBuilder().lockCycles(0).build();
        double plain = cycles(new Simulator(HSW.withCore(noLock)), block, all);
        assertTrue(plain < 10, "without the rule: " + plain);
    }

    @Test
    void sfenceOrdersStoresButNotLoads() {
        // The ordering alone, with a fence allowed every cycle (Fences(1, 1, 1)): mov [rdi], rcx; sfence. The fence
        // waits for the older store and the next store for the fence: the store's address micro-op, its data
        // micro-op a cycle later, done a cycle after that (latency 1), then sfence's latency 2 — 4 cycles an
        // iteration instead of the store port's 1.
        Simulator ordering = new Simulator(HSW.withCore(HSW.core().withFences(new Fences(1, 1, 1))));
        assertEquals(4.0, cycles(ordering, "48890f0faef8", all), 1e-9);
        assertEquals(1.0, cycles(ordering, "48890f", all), 1e-9);
        // Loads pass it: mov rax, [rdi]; sfence runs at one fence a cycle (waiting for the fence's latency 2 each
        // iteration, a load would take 2 or more).
        assertEquals(1.0, cycles(ordering, "488b070faef8", all), 1e-9);
        // On Haswell an sfence executes once every 5 cycles (Agner Fog's reciprocal throughput): that paces both.
        assertEquals(5.0, cycles(haswell, "48890f0faef8", all), 1e-9);
        assertEquals(5.0, cycles(haswell, "488b070faef8", all), 1e-9);
    }

    @Test
    void ivyBridgeLoadsConflictInACacheBank() {
        // mov rdi, [rbx+0x80]; mov edx, r10d; xor esi, esi; mov rax, [rdi]. In BHive's harness rbx and every
        // quadword of the page hold 0x2324000, so the loads read page offsets 0x080 and 0x000: the same 4-byte bank
        // (address bits 2-5 are 0) of different line sets (bits 6-11). On Ivy Bridge two such loads cannot share a
        // cycle, and oldest first they alternate: 2 cycles an iteration (BHive measured 1.95). Haswell has no
        // banks: 1 cycle (measured 0.99).
        String block = "488bbb80000000448bd231f6488b07";
        assertEquals(2.0, cycles(new Simulator(IVB), block, all), 1e-9);
        assertEquals(1.0, cycles(haswell, block, all), 1e-9);
    }

    @Test
    void harnessValuesFollowCopiesAndPops() {
        // mov rax, [rsi]; mov [rsp+0xc0], rax; lea rax, [rsp+0xc0]; mov rdi, [rsp+0x20]; mov rsi, rax. From the
        // second iteration on rsi holds rsp+0xc0 (copied through rax, which the load also writes), so the load
        // reads what the previous iteration stored: rax is ready at t, the store completes at t+1, forwarding
        // gives the next load its data at t+5 — 5 cycles an iteration (BHive measured 4.98).
        assertEquals(5.0, cycles(haswell, "488b0648898424c0000000488d8424c0000000488b7c24204889c6", all), 1e-9);
        // add [rbp+0x18], rbx; pop rbx; pop rbp; pop r12. The pops read the page's filling, so rbp holds 0x2324000
        // in every iteration and the add is a read-modify-write chain through one address (BHive measured 6.96);
        // without the harness's memory the chain is not seen, and four loads on two load ports take 2 cycles.
        String pops = "48015d185b5d415c";
        assertEquals(6.0, cycles(haswell, pops, all), 1e-9);
        assertEquals(2.0, cycles(haswell, pops, new Simulator.Options(100, true, false)), 1e-9);
    }

    @Test
    void theCompatibleModeIsTheFirstMachine() {
        // llvm-mca's model of the LCP block: no front end, so only the 1-cycle chains.
        assertEquals(1.0, cycles(haswell, "6605341249ffcf", Simulator.Options.llvmMcaCompatible()), 0.03);
    }
}
