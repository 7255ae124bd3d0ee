package dev.basalt.simulator;

import dev.basalt.simulator.params.SimulatorParams;
import dev.basalt.core.IsaSupport;
import dev.basalt.core.Microarchitecture;
import dev.basalt.decoder.BasicBlock;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Small loops (DESIGN.md §12), each with the throughput derived by hand from published facts, on Haswell,
 * Skylake and Ivy Bridge; the simulator on the standard tables must match within 2%, and the bounds may not
 * exceed it. Each loop ends in a jump back to its start, so {@code auto} mode runs it as a loop. The bytes
 * were encoded with llvm-mc-14 once (the assembly is in each case).
 *
 * <p>Facts used (Intel's optimization manual; the uiCA paper §4; uops.info): issue width 4 fused micro-ops a
 * cycle; a taken branch executes on port 6 (Haswell, Skylake) or 5 (Ivy Bridge), one a cycle; integer ALU
 * ports 0156 (015 on Ivy Bridge); two load ports, one store-data port; CMP/TEST/ADD/SUB/AND/INC/DEC fuse with a
 * directly following conditional jump (TEST/AND with every condition, CMP/ADD/SUB not with O/S/P, INC/DEC not
 * with the carry ones either, and not a first instruction with a memory operand and an immediate); a zero
 * idiom and an eliminated move need no port; latencies as in the tables (imul 3, popcnt/lzcnt/tzcnt/bsf/crc32
 * 3, aesenc 7 on Haswell and 4 on Skylake, vaddps 3/4/3, vfmadd 5/4, adc 2/1/2); POPCNT, LZCNT and TZCNT wait
 * for their destination on Haswell (only POPCNT on Skylake; on Ivy Bridge LZCNT/TZCNT run as BSR/BSF, which
 * read it); the JCC erratum keeps a jump that ends on a 32-byte boundary out of Skylake's micro-op cache, so
 * such a loop is decoded by the legacy decoders (16 bytes predecoded a cycle); the loop stream detector (Ivy
 * Bridge, Haswell: at most 56 micro-ops), the micro-op cache widths (4, 4, 6) and Haswell's unrolling are uiCA's;
 * a fence executes no sooner than its reciprocal throughput after the previous one (Agner Fog's tables: lfence 4;
 * mfence 33, 36 on Ivy Bridge; sfence 5 on Haswell, 6 on Skylake and Ivy Bridge).
 * {@code NO}: the CPU does not have the instruction (the estimators refuse the block); {@code UNCHECKED}: no
 * published fact was checked.
 */
class LoopSuiteTest {

    private static final double NO = Double.NaN;
    /** No published fact checked for this CPU (Ivy Bridge's AESENC latency is given as 7 and as 8). */
    private static final double UNCHECKED = -1;

    record Loop(String name, String hex, String asm, double haswell, double skylake, double ivyBridge) {
        @Override
        public String toString() {
            return name + ": " + asm;
        }
    }

    static Stream<Loop> loops() {
        return Stream.of(
                // Loop control: the fused dec/jnz is one micro-op on the taken-branch port; dec's chain is 1.
                new Loop("dec-jnz", "48ffc975fb", "dec rcx; jnz", 1, 1, 1),
                new Loop("sub-jnz", "4883e90175fa", "sub rcx, 1; jnz", 1, 1, 1),
                // inc (ALU) + fused cmp/jne (branch port): 2 micro-ops, inc's chain 1.
                new Loop("cmp-jne", "48ffc04839c875f8", "inc rax; cmp rax, rcx; jne", 1, 1, 1),
                new Loop("test-jnz", "4801d84885c075f8", "add rax, rbx; test rax, rax; jnz", 1, 1, 1),
                // Three adds + the fused branch: 4 micro-ops, one issue cycle; on Ivy Bridge 4 micro-ops on ports
                // 0, 1, 5 (the branch on 5): 4/3.
                new Loop("three-adds", "4801d84801da4801de48ffc975f2", "add rax, rbx; add rdx, rbx; add rsi, rbx; "
                        + "dec rcx; jnz", 1, 1, 4.0 / 3),
                // A taken jmp on the branch port, add's chain 1.
                new Loop("jmp-loop", "4801d8ebfb", "add rax, rbx; jmp", 1, 1, 1),
                // INC does not fuse with JB, CMP not with JS: two micro-ops, still one taken branch a cycle.
                new Loop("inc-jb", "48ffc072fb", "inc rax; jb", 1, 1, 1),
                new Loop("cmp-js", "4839d878fb", "cmp rax, rbx; js", 1, 1, 1),
                // cmp [m], imm does not fuse; cmp [m], reg does: either way one load and one branch a cycle.
                new Loop("cmp-mem-imm", "48833f0175fa", "cmp qword ptr [rdi], 1; jne", 1, 1, 1),
                new Loop("cmp-mem-reg", "48390775fb", "cmp qword ptr [rdi], rax; jne", 1, 1, 1),
                // Latency chains.
                new Loop("imul-chain", "480fafc048ffc975f7", "imul rax, rax; dec rcx; jnz", 3, 3, 3),
                new Loop("bsf-chain", "480fbcc048ffc975f7", "bsf rax, rax; dec rcx; jnz", 3, 3, 3),
                new Loop("crc32-chain", "f2480f38f1c348ffc975f5", "crc32 rax, rbx; dec rcx; jnz", 3, 3, 3),
                // adc reads the carry the other adc wrote (dec leaves CF alone): two adcs a chain per iteration.
                new Loop("adc-chain", "4811d84811da48ffc975f5", "adc rax, rbx; adc rdx, rbx; dec rcx; jnz", 4, 2, 4),
                new Loop("aesenc-chain", "660f38dcc148ffc975f6", "aesenc xmm0, xmm1; dec rcx; jnz", 7, 4, UNCHECKED),
                new Loop("vaddps-chain", "c5fc58c148ffc975f7", "vaddps ymm0, ymm0, ymm1; dec rcx; jnz", 3, 4, 3),
                new Loop("fma-chain", "c4e275b8c248ffc975f6", "vfmadd231ps ymm0, ymm1, ymm2; dec rcx; jnz", 5, 4,
                        NO),
                // False output dependencies.
                new Loop("popcnt-chain", "f3480fb8c348ffc975f6", "popcnt rax, rbx; dec rcx; jnz", 3, 3, 3),
                new Loop("lzcnt-chain", "f3480fbdc348ffc975f6", "lzcnt rax, rbx; dec rcx; jnz", 3, 1, 3),
                new Loop("tzcnt-chain", "f3480fbcc348ffc975f6", "tzcnt rax, rbx; dec rcx; jnz", 3, 1, 3),
                // xor eax, eax (a zero idiom, no port) breaks popcnt's chain: port 1 once a cycle.
                new Loop("popcnt-xor", "31c0f3480fb8c348ffc975f4", "xor eax, eax; popcnt rax, rbx; dec rcx; jnz", 1,
                        1, 1),
                new Loop("xor-zero", "31c048ffc975f9", "xor eax, eax; dec rcx; jnz", 1, 1, 1),
                // Eliminated moves: no port, no latency; the branch paces it.
                new Loop("mov-elim", "4889d84889c348ffc975f5", "mov rax, rbx; mov rbx, rax; dec rcx; jnz", 1, 1, 1),
                // A partial write merges: mov al, [m] waits for add's eax and add for the merge: 1 + 1.
                new Loop("partial-reg", "8a0701c048ffc975f7", "mov al, byte ptr [rdi]; add eax, eax; dec rcx; jnz",
                        2, 2, 2),
                // Memory: loads on two ports, stores on one.
                new Loop("load-add", "48030748ffc975f8", "add rax, qword ptr [rdi]; dec rcx; jnz", 1, 1, 1),
                new Loop("two-loads", "488b07488b1648ffc975f5", "mov rax, [rdi]; mov rdx, [rsi]; dec rcx; jnz", 1, 1,
                        1),
                new Loop("four-loads", "488b07488b164c8b47084c8b4e0848ffc975ed", "four independent loads; dec rcx; "
                        + "jnz", 2, 2, 2),
                new Loop("indexed-load", "488b04cf48ffc975f7", "mov rax, qword ptr [rdi+rcx*8]; dec rcx; jnz", 1, 1,
                        1),
                new Loop("store", "48890748ffc975f8", "mov qword ptr [rdi], rax; dec rcx; jnz", 1, 1, 1),
                // Memory in a loop is distinct (Simulator.MemoryModel): rsi and rdi are different pointers, so the copy
                // carries no store→load chain — one store a cycle (BHive's harness, where both hold 0x2324000,
                // chains it through store forwarding: 6). Four fused micro-ops (load, add, store, dec/jnz).
                new Loop("copy", "488b064801d848890748ffc975f2", "mov rax, [rsi]; add rax, rbx; mov [rdi], rax; dec rcx;"
                        + " jnz", 1, 1, 1),
                // A read-modify-write of another array, both pointers advancing: no chain; six fused micro-ops (the
                // load, add [m] as load+add and store, two pointer adds, dec/jnz): Haswell's loop stream detector
                // unrolls 5 copies, ceil(6·5/4)/5 = 1.6; Skylake's micro-op cache then its 4-wide renamer, 1.5; Ivy
                // Bridge's detector does not unroll, ceil(6/4) = 2.
                new Loop("rmw-other-array", "488b064801074883c6084883c70848ffc975ed", "mov rax, [rsi]; add [rdi], rax; "
                        + "add rsi, 8; add rdi, 8; dec rcx; jnz", 1.6, 1.5, 2),
                // Accumulating through one address is a real chain in any memory model: store, forward to the next
                // load (the tables' store-forwarding latency), add: 6 on Haswell and Ivy Bridge, 5 on Skylake.
                new Loop("accumulate-one-address", "48010748ffc975f8", "add [rdi], rax; dec rcx; jnz", 6, 5, 6),
                // Vector throughput: vpaddd ymm on ports 1, 5 (Haswell) or 0, 1, 5 (Skylake); AVX2 is not Ivy
                // Bridge's.
                new Loop("vpaddd-ymm", "c5f5fec2c5f5fedac5f5fee248ffc975ef", "three independent vpaddd ymm; dec rcx; "
                        + "jnz", 1.5, 1, NO),
                // vpmulld ymm: two micro-ops on port 0 (Haswell), on ports 0 and 1 (Skylake).
                new Loop("vpmulld-ymm", "c4e27540c248ffc975f6", "vpmulld ymm0, ymm1, ymm2; dec rcx; jnz", 2, 1, NO),
                // Each imul reads its own destination: two chains of 3, side by side.
                new Loop("two-imuls", "480fafc3480fafd348ffc975f3", "imul rax, rbx; imul rdx, rbx; dec rcx; jnz", 3,
                        3, 3),
                // Shifts by an immediate run on ports 0 and 6 (0 and 5 on Ivy Bridge), with the branch: 4 on 2.
                new Loop("three-shifts", "48c1e00548c1e20548c1e60548ffc975ef", "shl rax, 5; shl rdx, 5; shl rsi, 5; "
                        + "dec rcx; jnz", 2, 2, 2),
                // A three-component lea: latency 3 on port 1.
                new Loop("slow-lea", "488d44580848ffc975f6", "lea rax, [rax+rbx*2+8]; dec rcx; jnz", 3, 3, 3),
                new Loop("add-chain3", "4801d84801d84801d848ffc975f2", "add rax, rbx (three times, one chain); dec rcx;"
                        + " jnz", 3, 3, 3),
                new Loop("vpaddd-xmm-chain", "c5f9fec148ffc975f7", "vpaddd xmm0, xmm0, xmm1; dec rcx; jnz", 1, 1, 1),
                // Two branches an iteration: cmp/je (to the next instruction, so never leaving the body) and dec/jnz,
                // each fused. Haswell and Skylake run a not-taken branch on port 0 or 6 and the taken one on 6: one
                // iteration a cycle; Ivy Bridge runs every branch on port 5: two cycles.
                new Loop("two-branches", "4801d84839d0740048ffc975f3", "add rax, rbx; cmp rax, rdx; je +0; dec rcx; "
                        + "jnz", 1, 1, 2),
                // Fences: each one's reciprocal throughput paces the loop; the store before mfence (one a cycle) and
                // the loop control fit inside it.
                new Loop("lfence", "0faee848ffc975f8", "lfence; dec rcx; jnz", 4, 4, 4),
                new Loop("mfence", "0faef048ffc975f8", "mfence; dec rcx; jnz", 33, 33, 36),
                new Loop("sfence", "0faef848ffc975f8", "sfence; dec rcx; jnz", 5, 6, 6),
                new Loop("store-mfence", "4889070faef048ffc975f5", "mov qword ptr [rdi], rax; mfence; dec rcx; jnz",
                        33, 33, 36),
                // TEST and AND fuse with every condition.
                new Loop("test-jz", "a80174fc", "test al, 1; jz", 1, 1, 1),
                new Loop("and-jle", "4821d87efb", "and rax, rbx; jle", 1, 1, 1),
                // Fused, four micro-ops issue in one cycle (unfused they would be five); on Ivy Bridge the three adds
                // and the branch share ports 0, 1, 5.
                new Loop("fused-four", "4801d84801da4801de4839cf75f2", "add rax, rbx; add rdx, rbx; add rsi, rbx; "
                        + "cmp rdi, rcx; jne", 1, 1, 4.0 / 3),
                // Where the micro-ops come from, with NOPs (no port) so that only the front end counts. n fused
                // micro-ops an iteration. Haswell's loop stream detector holds U copies of a small loop and issues
                // them as one, 4 a cycle (U = 6 for 5 micro-ops, 5 for 6, 4 for 7: ceil(n·U/4)/U); Ivy Bridge's
                // does not unroll (ceil(n/4)); Skylake's micro-op cache delivers 6 a cycle, none after the taken
                // jump (ceil(n/6)), and its renamer issues 4 a cycle (n/4).
                new Loop("nop4", "9090909048ffc975f7", "nop (4 times); dec rcx; jnz", 8.0 / 6, 1.25, 2),
                new Loop("nop5", "909090909048ffc975f6", "nop (5 times); dec rcx; jnz", 8.0 / 5, 1.5, 2),
                new Loop("nop6", "90909090909048ffc975f5", "nop (6 times); dec rcx; jnz", 7.0 / 4, 2, 2),
                // The JCC erratum: the jnz ends on byte 32, so Skylake decodes this loop with the legacy decoders:
                // two 16-byte windows, two predecode cycles. Haswell and Ivy Bridge replay it from the loop stream
                // detector: 4 micro-ops a cycle (Ivy Bridge: 4 on ports 0, 1, 5).
                new Loop("jcc-erratum", "48b8887766554433221148ba88776655443322114881c34433221148ffc975e0",
                        "movabs rax, imm64; movabs rdx, imm64; add rbx, imm32; dec rcx; jnz", 1, 2, 4.0 / 3),
                // The same with add rbx, 1: the jnz ends on byte 29, and Skylake's micro-op cache holds the loop.
                new Loop("no-erratum", "48b8887766554433221148ba88776655443322114883c30148ffc975e3",
                        "movabs rax, imm64; movabs rdx, imm64; add rbx, 1; dec rcx; jnz", 1, 1, 4.0 / 3)
        );
    }

    @ParameterizedTest
    @MethodSource("loops")
    void simulatorMatchesTheHandDerivedThroughput(Loop loop) {
        BasicBlock block = BasicBlock.fromHex(loop.hex());
        assertTrue(Simulator.branchesBackToStart(block), loop.name() + " ends in a jump back to its start");
        double[] expected = {loop.haswell(), loop.skylake(), loop.ivyBridge()};
        List<Microarchitecture> cpus = List.of(Microarchitecture.HASWELL, Microarchitecture.SKYLAKE,
                Microarchitecture.IVYBRIDGE);
        for (int c = 0; c < cpus.size(); c++) {
            Microarchitecture cpu = cpus.get(c);
            if (expected[c] == UNCHECKED) {
                continue;
            }
            if (Double.isNaN(expected[c])) {
                assertTrue(IsaSupport.unsupported(block, cpu).isPresent(), loop.name() + " on " + cpu);
                continue;
            }
            Simulator sim = new Simulator(SimulatorParams.standard(cpu));
            Simulator.Options options = Simulator.Options.defaults();
            double cycles = sim.run(block, options).cyclesPerIteration();
            assertEquals(expected[c], cycles, expected[c] * 0.02, loop.name() + " on " + cpu + " ("
                    + sim.frontEnd(block, options).describe() + ")");
            double bound = sim.bounds(block, options).cyclesPerIteration();
            assertTrue(bound <= cycles + 1.0 / 64, loop.name() + " on " + cpu + ": bound " + bound + " above the "
                    + "run's " + cycles);
        }
    }
}
