package dev.basalt.simulator;

import dev.basalt.simulator.facts.BlockFacts;
import dev.basalt.simulator.params.CoreParams;
import dev.basalt.simulator.params.SimulatorParams;
import dev.basalt.core.Microarchitecture;
import dev.basalt.decoder.BasicBlock;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Memory renaming ({@link CoreParams#memoryRenaming}, Zen): a load of the address a store just wrote, both addressed
 * by registers the block never writes, has the stored register's value as soon as the store has it. Cycles
 * hand-derived on znver5's imported table (a load row's latency is 5, the table's load latency 4, a store's 1, an
 * ALU operation's 1; the forwarding latency 5), beside what the Zen 5 host measured (the project's data set,
 * `basalt measure`).
 */
class MemoryRenamingTest {

    private static final Microarchitecture ZEN5 = Microarchitecture.parse("znver5");

    private static SimulatorParams table(boolean renaming) {
        SimulatorParams t = SimulatorParams.bundled(ZEN5);
        CoreParams c = t.core();
        return t.withCore(c.toBuilder().memoryRenaming(renaming).build());
    }

    private static double cycles(boolean renaming, String hex) {
        return new Simulator(table(renaming)).run(BasicBlock.fromHex(hex), Simulator.Options.defaults())
                .cyclesPerIteration();
    }

    private static double bound(boolean renaming, String hex) {
        return new Simulator(table(renaming)).bounds(BasicBlock.fromHex(hex), Simulator.Options.defaults())
                .cyclesPerIteration();
    }

    @Test
    void zenRenamesMemoryAndIntelDoesNot() {
        assertTrue(SimulatorParams.bundled(ZEN5).core().memoryRenaming());
        assertTrue(CoreParams.defaults("znver4").memoryRenaming());
        assertFalse(CoreParams.defaults("skylake").memoryRenaming());
        assertFalse(CoreParams.defaults("haswell").memoryRenaming());
    }

    @Test
    void aChainThroughAStableAddressCostsOnlyItsOperations() {
        // mov edx, [rax]; lea esi, [rdx-1]; mov [rax], esi. Renamed: the load has the data when the store issues,
        // plus the load row's cycle beyond the table's load latency (5 - 4), then the lea: 2 cycles an iteration
        // (measured 1.00: the tuned load row is 4). Forwarded: the store completes a cycle after it issues, the
        // load's data arrives 5 later and its row adds 1, the lea 1: 8.
        String chain = "8b108d72ff8930";
        assertEquals(2.0, cycles(true, chain), 0.02);
        assertEquals(8.0, cycles(false, chain), 0.02);
        // sub dword [rcx+0x10], 1: the read-modify-write's own operation, 1 cycle (measured 1.00); forwarded, the
        // store's 5-cycle forwarding, the operation and the store: 7.
        String rmw = "83691001";
        assertEquals(1.0, cycles(true, rmw), 0.02);
        assertEquals(7.0, cycles(false, rmw), 0.02);
        // The analytical bounds follow the same rule.
        assertEquals(2.0, bound(true, chain), 0.02);
        assertEquals(1.0, bound(true, rmw), 0.02);
        assertEquals(7.0, bound(false, rmw), 0.02);
    }

    @Test
    void anAddressThroughARegisterTheBlockWritesIsForwarded() {
        // mov rdx, [rsp+0x80]; dec qword [rdx]: rdx is written every iteration, the memory file cannot pair the
        // accesses, the decrement waits for forwarding: 7 cycles with renaming on or off (measured 6.98).
        String hex = "488b94248000000048ff0a";
        assertEquals(7.0, cycles(true, hex), 0.02);
        assertEquals(7.0, cycles(false, hex), 0.02);
    }

    @Test
    void stableAddressesIgnoreTheStackEnginesUpdates() {
        // push rbx; mov rax, [rsp+8]; add rsp, 8: rsp is written explicitly by the add, so no access is stable.
        boolean[] explicit = BlockFacts.stableAddresses(BasicBlock.fromHex("53488b4424084883c408"));
        assertFalse(explicit[1]);
        // push rbx; pop rbx; mov rax, [rsp+8]: only the stack engine moves rsp.
        boolean[] implicit = BlockFacts.stableAddresses(BasicBlock.fromHex("535b488b442408"));
        assertTrue(implicit[2]);
        // mov rdx, [rsp+0x80]; dec qword [rdx]: the second address's register is written by the first.
        boolean[] written = BlockFacts.stableAddresses(BasicBlock.fromHex("488b94248000000048ff0a"));
        assertTrue(written[0]);
        assertFalse(written[1]);
    }
}
