package dev.basalt.simulator;

import dev.basalt.core.Microarchitecture;
import dev.basalt.decoder.BasicBlock;
import org.junit.jupiter.api.Test;

import java.util.Locale;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What Golden Cove and its successors add to the machine ({@code graniterapids}), each mechanism against the blocks
 * DESIGN.md §15 lists as measured on the Xeon 6 of the data set (BHive's unrolled harness, the register-register
 * clock): rename-time elimination of immediates ({@link ImmediateElimination}), the decoders' limit on immediate
 * fields and the sliding fetch window ({@link ImmediateFields}), forwarding to a waiting load, 5-cycle loads, and the
 * widths. Each figure must be within 10% of the measurement, on the imported table (no tuning), and the analytical
 * bounds must follow the same rules (never above the run).
 */
class GoldenCoveTest {

    private static final Microarchitecture GNR = Microarchitecture.parse("graniterapids");
    private static final Simulator SIM = new Simulator(SimulatorParams.bundled(GNR));

    private static double cycles(String asm) {
        return SIM.run(block(asm), Simulator.Options.defaults()).cyclesPerIteration();
    }

    private static double bound(String asm) {
        return SIM.bounds(block(asm), Simulator.Options.defaults()).cyclesPerIteration();
    }

    private static BasicBlock block(String asm) {
        if (asm.matches("[0-9a-f]+")) {
            return BasicBlock.fromHex(asm);
        }
        return BasicBlock.fromHex(dev.basalt.decoder.Assembly.parse(asm, dev.basalt.decoder.Assembly.Syntax.INTEL)
                .get(0).hex());
    }

    /** The run within 10% of the measured figure, and the bounds not above the run. */
    private static void measured(double measured, String asm) {
        double c = cycles(asm);
        assertTrue(Math.abs(c - measured) <= 0.10 * measured, String.format(Locale.ROOT,
                "%s: simulated %.3f, measured %.3f on the Xeon 6", asm, c, measured));
        double b = bound(asm);
        assertTrue(b <= c + 1.0 / 64 + 1e-9, String.format(Locale.ROOT, "%s: bound %.3f above the run %.3f", asm, b,
                c));
    }

    @Test
    void theCoreIsGoldenCovesAndOthersAreNot() {
        CoreParams c = SimulatorParams.bundled(GNR).core();
        assertEquals(6, c.issueWidth());
        assertEquals(8, c.retireWidth());
        assertEquals(6, c.decoders());
        assertEquals(512, SimulatorParams.bundled(GNR).robSize());
        assertEquals("23b", c.loadPorts());
        assertEquals("78", c.storeAddressPorts());
        assertEquals("49", c.storeDataPorts());
        assertEquals(5, SimulatorParams.bundled(GNR).loadLatency());
        assertEquals(new ImmediateElimination(5, 1024), c.immediateElimination());
        for (String older : new String[] {"haswell", "skylake", "ivybridge", "znver5"}) {
            CoreParams o = CoreParams.defaults(older);
            assertNull(o.immediateElimination(), older);
            assertTrue(!o.slidingFetch() && o.decodeImmediates() == 0 && !o.forwardToWaitingLoads()
                    && o.sameAddressLoads() == 0, older);
        }
    }

    @Test
    void smallImmediatesAreEliminatedAtRename() {
        measured(0.248, "add rax, 1");
        measured(0.248, "sub rax, 1");
        measured(0.250, "lea rax, [rax+1]");
        measured(0.192, "inc rax");
        measured(1.248, "add rax, 1; add rax, 1; add rax, 1; add rax, 1; add rax, 1");
        measured(1.501, "add rax, 1; add rax, 1; add rax, 1; add rax, 1; add rax, 1; add rax, 1");
        // The offset a register carries: 1023 twice leaves the range, so every other add executes; 1024 never fits.
        measured(0.503, "add rax, 1023");
        measured(1.000, "add rax, 1024");
        // 32-bit forms are not eliminated.
        measured(1.000, "add eax, 1");
        // A consumer of a register with an offset pays nothing.
        measured(2.998, "imul rax, rax; add rax, 1");
        measured(1.001, "add rax, rcx; add rax, 1");
    }

    @Test
    void theBoundsFollowTheOffsets() {
        ImmediateElimination rule = new ImmediateElimination(5, 1024);
        ImmediateElimination.Fold[] fold = {ImmediateElimination.of(block("add rax, 127").instruction(0))};
        ImmediateElimination.Fold[] none = {null};
        int[][] writes = {{0}};
        assertEquals(1 / 9.0, rule.executedShare(fold, none, writes)[0], 1e-3, "127: one in nine executes");
        fold[0] = ImmediateElimination.of(block("add rax, 1023").instruction(0));
        assertEquals(0.5, rule.executedShare(fold, none, writes)[0], 1e-3, "1023: every other one");
        fold[0] = ImmediateElimination.of(block("add rax, 1").instruction(0));
        assertTrue(rule.executedShare(fold, none, writes)[0] < 0.001, "1: once in 1,024");
        assertEquals(0.5, bound("add rax, 1023"), 1e-3);
        assertNull(ImmediateElimination.of(block("add eax, 1").instruction(0)));
        assertNull(ImmediateElimination.of(block("add rax, [rbx]").instruction(0)));
        assertEquals(new ImmediateElimination.Fold(1, 3, -8),
                ImmediateElimination.of(block("lea rcx, [rbx-8]").instruction(0)));
        assertNull(ImmediateElimination.of(block("lea rcx, [rbx+rax+8]").instruction(0)));
    }

    @Test
    void theDecodersTakeFourImmediateFieldsACycleFromASlidingWindow() {
        String nop4 = "0f1f4000";
        String nop8 = "0f1f840000000000";
        measured(1.99, nop4.repeat(8));
        measured(1.50, nop4.repeat(6));
        measured(3.00, nop4.repeat(12));
        measured(1.00, nop8.repeat(4));
        measured(0.50, nop8.repeat(2));
        measured(1.13, ("66" + nop8).repeat(4));
        measured(2.00, "90".repeat(12));
        measured(0.166, "mov rcx, rax");
        measured(0.168, "mov ecx, eax");
        measured(0.168, "xor eax, eax");
        assertTrue(ImmediateFields.has(block(nop4).instruction(0)), "a zero disp8 is a field");
        assertTrue(ImmediateFields.has(block("add rax, 1").instruction(0)));
        assertTrue(!ImmediateFields.has(block("inc rax").instruction(0)));
    }

    @Test
    void storesForwardToWaitingLoadsAndLoadsTakeFiveCycles() {
        measured(3.16, "mov [rsp+8], rax; mov rax, [rsp+8]");
        measured(3.32, "mov [rsp], rax; mov rax, [rsp]");
        measured(0.50, "mov [rsp+8], rax; mov rcx, [rsp+8]");
        measured(4.99, "mov rax, [rax]");
        measured(5.00, "mov rax, [rax+8]");
        measured(5.00, "mov rax, [rax+rbx*8]");
        measured(2.00, "mov [rbx], rax; mov [rbx+64], rax; mov [rbx+128], rax; mov [rbx+192], rax");
    }

    /**
     * Three load ports, but two loads a cycle of one address (in BHive's harness every page is the same one): three
     * and four loads of [rbx] at 1.51 and 2.01. (Four loads of four lines, [rbx] to [rbx+192], measured 2.03, which
     * this rule does not explain: the model gives 1.33.)
     */
    @Test
    void twoLoadsACycleOfOneAddress() {
        measured(1.51, "mov rax, [rbx]; mov rcx, [rbx]; mov rdx, [rbx]");
        measured(2.01, "mov rax, [rbx]; mov rcx, [rbx]; mov rdx, [rbx]; mov rsi, [rbx]");
        assertEquals(2, SimulatorParams.bundled(GNR).core().sameAddressLoads());
        // Loads of three addresses take the three ports: [rbx], [rbx+64], [rbx+128] in one cycle.
        assertEquals(1.0, cycles("mov rax, [rbx]; mov rcx, [rbx+64]; mov rdx, [rbx+128]"), 0.02);
    }

    @Test
    void movesAndZeroIdiomsNeedNoPort() {
        measured(0.369, "mov rcx, rax; mov rax, rcx");
        measured(1.00, "movzx rax, al");
        measured(1.00, "movsx rax, ax");
        measured(6.00, "add rax, rax; add rax, rax; add rax, rax; add rax, rax; add rax, rax; add rax, rax");
    }
}
