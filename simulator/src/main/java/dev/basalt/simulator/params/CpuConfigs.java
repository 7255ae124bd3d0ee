package dev.basalt.simulator.params;

import dev.basalt.simulator.harness.StoreCommit;
import dev.basalt.simulator.params.CoreParams.LoopFrontEnd;
import dev.basalt.simulator.params.CoreParams.PopRspDecoding;
import dev.basalt.simulator.params.CoreParams.PortBinding;
import dev.basalt.simulator.params.CoreParams.Unlamination;

import java.util.List;
import java.util.Map;

/**
 * Each CPU's machine, by name, one parameter a line (as uiCA's {@code microArchConfigs.py} lists its cores): the
 * values a table gets for what it does not say ({@link CoreParams#defaults}), from public descriptions (Intel's
 * optimization manual, AMD's software optimization guides, the uiCA paper §4; DESIGN.md §11, §15) and, where a
 * comment says so, from measurements. The CPU's descriptor lists the sources of every number.
 */
public final class CpuConfigs {

    private CpuConfigs() {
    }

    /** The machine of {@code mcpu}; an unknown CPU gets Haswell's front end without its dividers and fences. */
    static CoreParams of(String mcpu) {
        return switch (mcpu) {
            case "haswell", "broadwell" -> haswell();
            case "skylake", "skylake-avx512", "cascadelake" -> skylake();
            case "graniterapids", "sapphirerapids", "alderlake" -> goldenCove();
            case "ivybridge", "sandybridge" -> ivyBridge();
            case "znver3", "znver2", "znver1" -> zen3();
            case "znver4" -> zen4(false);
            case "znver5" -> zen4(true);
            default -> intel2013().build();
        };
    }

    /**
     * Cycles an x87 microcode assist adds, per assist ({@code X87Assists}): the median, over the blocks with assists,
     * of the measured cycles beyond the simulator's without them — the Xeon 6's training split (386 blocks; quartiles
     * 389 and 413) and BHive's rows of the older Intel cores (Haswell 6 blocks, 314-430 an assist; Ivy Bridge 3,
     * 329-449; Skylake 1), their relatives taking theirs; 0 where not measured (AMD has no such assists: Zen 5's x87
     * blocks run in tens of cycles).
     */
    public static int measuredX87AssistCycles(String mcpu) {
        return switch (mcpu) {
            case "graniterapids", "sapphirerapids", "alderlake" -> 398;
            case "skylake", "skylake-avx512", "cascadelake" -> 383;
            case "haswell", "broadwell" -> 346;
            case "ivybridge", "sandybridge" -> 355;
            default -> 0;
        };
    }

    /**
     * Haswell's front end and back end, the base of the unknown CPUs: 16 bytes predecoded a cycle, four decoders,
     * a 56-entry micro-op queue, four-wide issue and retirement, loads on ports 2 and 3. Page walks: 16 cycles, set
     * from BHive's stride series on the train split (six pops or pushes, the stack moving 72 to 13,000 bytes an
     * iteration; Translation), the same on the three Intel cores.
     */
    private static CoreParamsBuilder intel2013() {
        return CoreParams.builder()
                .predecodeBytes(16).predecodeWidth(5).lcpPenalty(3).instructionQueue(20)
                .decoders(4).decodeUops(4).msSwitchCycles(2).msUopsPerCycle(4).microcodedAbove(4)
                .uopQueue(56).issueWidth(4).retireWidth(4)
                .moveEliminationSlots(4).moveEliminationCycles(2)
                .storeForwardLatency(4).storeForwardFailPenalty(7).lockCycles(19)
                .unlamination(Unlamination.INDEXED_UNLESS_DESTRUCTIVE)
                .loadPorts("23").storeAddressPorts("237").storeDataPorts("4")
                .slowLeaPorts("1").slowLeaLatency(3)
                .falseOutputDependencies(List.of("LZCNT", "POPCNT", "TZCNT"))
                .loop(new LoopFrontEnd(LoopFrontEnd.intelFusion(), "6", 56, LoopFrontEnd.haswellUnrolling(), 4, 32,
                        18, false))
                .dividers(Dividers.NONE).fences(Fences.NONE)
                .pageWalkCycles(16);
    }

    /**
     * Haswell (and Broadwell): binds micro-ops to the least loaded port ({@link PortBinding}), as its BHive rows
     * show; only the complex decoder takes {@code pop rsp} and {@code pop r12}, and ends its group with them.
     */
    static CoreParams haswell() {
        return intel2013()
                .dividers(HASWELL_DIVIDERS).fences(new Fences(4, 33, 5))
                .portBinding(PortBinding.LEAST_LOADED).popRspDecoding(PopRspDecoding.COMPLEX_ALONE)
                .x87AssistCycles(measuredX87AssistCycles("haswell"))
                .build();
    }

    /** Skylake: a 64-entry micro-op queue, no loop stream detector, the JCC erratum's micro-op cache rule. */
    static CoreParams skylake() {
        return intel2013()
                .instructionQueue(25).decodeUops(5).uopQueue(64)
                .lockCycles(18)
                .falseOutputDependencies(List.of("POPCNT"))
                .loop(new LoopFrontEnd(LoopFrontEnd.intelFusion(), "6", 0, Map.of(), 6, 32, 18, true))
                .dividers(SKYLAKE_DIVIDERS).fences(new Fences(4, 33, 6))
                .popRspDecoding(PopRspDecoding.COMPLEX)
                .x87AssistCycles(measuredX87AssistCycles("skylake"))
                .build();
    }

    /**
     * Ivy Bridge (and Sandy Bridge): six ports, every indexed form unlaminated, stores' addresses on the load
     * ports, cache banks; binds to the least loaded port as Haswell does (its BHive rows).
     */
    static CoreParams ivyBridge() {
        return intel2013()
                .moveEliminationCycles(3).lockCycles(22).cacheBanks(true)
                .unlamination(Unlamination.INDEXED).storeAddressPorts("23")
                .loop(new LoopFrontEnd(LoopFrontEnd.intelFusion(), "5", 56, Map.of(), 4, 32, 18, false))
                .dividers(IVY_BRIDGE_DIVIDERS).fences(new Fences(4, 36, 6))
                .portBinding(PortBinding.LEAST_LOADED).popRspDecoding(PopRspDecoding.COMPLEX_ALONE)
                .x87AssistCycles(measuredX87AssistCycles("ivybridge"))
                .build();
    }

    /**
     * Golden Cove and its successors (Raptor Cove, Redwood Cove; DESIGN.md §15 and the descriptor's sources): 32
     * bytes fetched and 6 instructions decoded a cycle (one complex decoder), a 144-entry micro-op queue, 6-wide
     * allocation, 8-wide retirement, moves eliminated 6 a cycle, loads on 2, 3 and 11, store addresses on 7 and 8,
     * store data on 4 and 9 (LLVM 19's labels), no false output dependencies, and no slow three-component lea
     * (measured: lea rbx, [rax+rbx+8] carries a chain at 1.00 cycle). It also eliminates small immediates at rename
     * ({@link ImmediateElimination}: offsets in [-1024, 1024), five a cycle: measured on the Xeon 6, inc rax chains
     * at 5.2 a cycle), fetches code of 16 instructions or more per 64 bytes at 16 bytes a cycle ({@link DenseCode}),
     * takes two loads a cycle of one cache bank, commits two stores a cycle only of one line ({@link StoreCommit})
     * and forwards a store to a read-modify-write's load in 5 cycles (3.16 to a plain load). No limit on immediate
     * fields: dense code explains the blocks that limit was read from. RIP-relative stores, leas and forms with an
     * immediate go to the complex decoder: measured on the Xeon 6, lea r64, [rip+X], stores to [rip+X] and
     * cmp/test/mov/add [rip+X], imm run at 1.00 cycle each, two of them at 2.00, where loads from [rip+X] run three
     * a cycle.
     */
    static CoreParams goldenCove() {
        return intel2013()
                .predecodeBytes(32).predecodeWidth(6).instructionQueue(50)
                .decoders(6).decodeUops(6).uopQueue(144).issueWidth(6).retireWidth(8)
                .moveEliminationSlots(6).moveEliminationCycles(1)
                .storeForwardLatency(2).lockCycles(18)
                .loadPorts("23b").storeAddressPorts("78").storeDataPorts("49")
                .slowLeaPorts("").slowLeaLatency(1)
                .falseOutputDependencies(List.of())
                .loop(new LoopFrontEnd(LoopFrontEnd.intelFusion(), "06", 0, Map.of(), 8, 64, 18, false))
                .dividers(GOLDEN_COVE_DIVIDERS)
                .popRspDecoding(PopRspDecoding.COMPLEX)
                .immediateElimination(new ImmediateElimination(5, 1024))
                .slidingFetch(true).decodeImmediates(0).denseCode(new DenseCode(16, 16))
                .forwardToWaitingLoads(true).sameBankLoads(2).storeCommit(new StoreCommit(2))
                .rmwForwardLatency(5)
                .x87AssistCycles(measuredX87AssistCycles("graniterapids"))
                .ripComplexDecode(true)
                .build();
    }

    /** Zen 1 to 3: 32 bytes fetched a cycle, four decoders, six-wide dispatch, no page-walk rule measured. */
    static CoreParams zen3() {
        return amd()
                .predecodeBytes(32).predecodeWidth(4).decodeUops(4)
                .issueWidth(6).moveEliminationSlots(4).moveEliminationCycles(2)
                .storeForwardLatency(6).lockCycles(0)
                .loop(LoopFrontEnd.NONE)
                .build();
    }

    /**
     * Zen 4 and Zen 5 (AMD's Software Optimization Guides for families 19h and 1Ah; Zen 5 as measured here,
     * README "Measuring on this machine"): one 4-wide decoder cluster per thread fed 16 bytes a cycle (BHive's
     * unrolled code, too large for the op cache: 7-byte instructions run at 0.44 cycles each), no
     * length-changing-prefix stall, more than two macro-ops microcoded, dispatch 6 (Zen 4) or 8 (Zen 5), memory
     * micro-ops on the AGUs (three on Zen 4, four on Zen 5: port n) with store data on the two store pipes, memory
     * renaming beside a 5-cycle forwarding latency, no false output dependencies, fusion of a flag-setting ALU
     * instruction with any conditional jump, an op cache and no loop buffer.
     */
    static CoreParams zen4(boolean zen5) {
        return amd()
                .predecodeBytes(16).predecodeWidth(6).decodeUops(6)
                .issueWidth(zen5 ? 8 : 6).moveEliminationSlots(6).moveEliminationCycles(1)
                .storeForwardLatency(5).lockCycles(19)
                .loadPorts(zen5 ? "456n" : "456").storeAddressPorts(zen5 ? "456n" : "456").storeDataPorts("lm")
                .loop(new LoopFrontEnd(amdFusion(), "", 0, Map.of(), 8, 64, 12, false))
                .memoryRenaming(true).vectorForwardCycles(3).dirtyUpperMerge(zen5 ? 2 : 1)
                // Zen 4 measured here: a 16-bit store and the 64-bit load of its address, 19 cycles an iteration.
                // Zen 5's measured blocks fit the shared 7 better (validation split: 6.42% against 6.67% with 12).
                .storeForwardFailPenalty(zen5 ? 7 : 12)
                .build();
    }

    // What the Zen cores share: no length-changing-prefix stall, microcode above two macro-ops, no unlamination,
    // no slow lea, no false output dependencies; page walks not measured.
    private static CoreParamsBuilder amd() {
        return CoreParams.builder()
                .lcpPenalty(0).instructionQueue(24).decoders(4)
                .msSwitchCycles(2).msUopsPerCycle(4).microcodedAbove(2)
                .uopQueue(64).retireWidth(8)
                .storeForwardFailPenalty(7)
                .unlamination(Unlamination.NONE)
                .loadPorts("").storeAddressPorts("").storeDataPorts("")
                .slowLeaPorts("").slowLeaLatency(1)
                .falseOutputDependencies(List.of())
                .dividers(Dividers.NONE).fences(Fences.NONE)
                .pageWalkCycles(0);
    }

    /** AMD Zen (Software Optimization Guide, "Branch Fusion"): CMP, TEST and the ALU forms fuse with any jcc. */
    static Map<String, List<String>> amdFusion() {
        List<String> all = List.of("JB", "JBE", "JL", "JLE", "JNB", "JNBE", "JNL", "JNLE", "JNO", "JNP", "JNS",
                "JNZ", "JO", "JP", "JS", "JZ");
        Map<String, List<String>> out = new java.util.TreeMap<>();
        for (String first : List.of("CMP", "TEST", "ADD", "SUB", "AND", "OR", "XOR", "INC", "DEC")) {
            out.put(first, all);
        }
        return out;
    }

    // Dividers on small operands (Dividers): the lower ends of the latency and reciprocal-throughput ranges of
    // Agner Fog's instruction tables (2022) for each CPU, the ends uiCA also takes (its min_cycles), for the
    // register forms; a form that loads its divisor adds the load latency (Dividers#of). VEX forms as legacy ones.
    private static final Dividers HASWELL_DIVIDERS = Dividers.of(
            "DIV r32", 22, 9, "DIV r64", 32, 21, "IDIV r32", 22, 8, "IDIV r64", 39, 24,
            "DIVSS xmm, xmm", 10, 7, "DIVSD xmm, xmm", 10, 8, "DIVPS xmm, xmm", 10, 7, "DIVPD xmm, xmm", 10, 8,
            "SQRTSS xmm, xmm", 11, 7, "SQRTSD xmm, xmm", 16, 8, "SQRTPS xmm, xmm", 11, 7, "SQRTPD xmm, xmm", 16, 8,
            "VDIVSS xmm, xmm, xmm", 10, 7, "VDIVSD xmm, xmm, xmm", 10, 8, "VDIVPS xmm, xmm, xmm", 10, 7,
            "VDIVPD xmm, xmm, xmm", 10, 8, "VSQRTSS xmm, xmm, xmm", 11, 7, "VSQRTSD xmm, xmm, xmm", 16, 8,
            "VSQRTPS xmm, xmm", 11, 7, "VSQRTPD xmm, xmm", 16, 8,
            "DIV r8", 22, 9, "DIV r16", 23, 9, "IDIV r8", 23, 8, "IDIV r16", 22, 8)
            // Integer divides' micro-ops, from the same tables (Dividers#microOps). The 64-bit forms' rows are near
            // theirs already (32 and 66 against 36 and 59) and keep them.
            .withMicroOps("DIV r8", 9, "DIV r16", 11, "DIV r32", 10, "IDIV r8", 9, "IDIV r16", 10, "IDIV r32", 9)
            // The upper ends of the same ranges (Dividers#slowOperands): a 64-bit division three times as long.
            .withSlowOperands("DIV r32", 29, 11, "IDIV r32", 29, 11, "DIV r64", 96, 74, "IDIV r64", 103, 81);
    // Skylake's IDIV r32 occupies the divider 7 cycles on BHive's operands (its block of one idiv of 0x2324000 by
    // itself measured 7.03; Agner Fog's lower end is 6).
    private static final Dividers SKYLAKE_DIVIDERS = Dividers.of(
            "DIV r32", 26, 6, "DIV r64", 35, 21, "IDIV r32", 26, 7, "IDIV r64", 42, 24,
            "DIV r8", 23, 6, "DIV r16", 23, 6, "IDIV r8", 24, 6, "IDIV r16", 23, 6,
            "DIVSS xmm, xmm", 11, 3, "DIVSD xmm, xmm", 13, 4, "DIVPS xmm, xmm", 11, 3, "DIVPD xmm, xmm", 13, 4,
            "SQRTSS xmm, xmm", 12, 3, "SQRTSD xmm, xmm", 15, 4, "SQRTPS xmm, xmm", 12, 3, "SQRTPD xmm, xmm", 15, 4,
            "VDIVSS xmm, xmm, xmm", 11, 3, "VDIVSD xmm, xmm, xmm", 13, 4, "VDIVPS xmm, xmm, xmm", 11, 3,
            "VDIVPD xmm, xmm, xmm", 13, 4, "VSQRTSS xmm, xmm, xmm", 12, 3, "VSQRTSD xmm, xmm, xmm", 15, 4,
            "VSQRTPS xmm, xmm", 12, 3, "VSQRTPD xmm, xmm", 15, 4)
            .withMicroOps("DIV r8", 10, "DIV r16", 10, "DIV r32", 10, "IDIV r8", 11, "IDIV r16", 10, "IDIV r32", 10)
            .withSlowOperands("DIV r64", 88, 83, "IDIV r64", 95, 90);
    // Measured on the Xeon 6 (DESIGN.md §15), chains on BHive's values: xor edx, edx; div ecx 11.91 cycles, the same
    // with div rcx 14.99, divsd 12.99, sqrtsd 18.00. The divider's occupancy was not measured: the rows' stand.
    private static final Dividers GOLDEN_COVE_DIVIDERS = Dividers.of(
            "DIV r32", 12, 0, "DIV r64", 15, 0, "DIVSD xmm, xmm", 13, 0, "SQRTSD xmm, xmm", 18, 0);
    // Ivy Bridge's DIV r32 occupies the divider 10 cycles on BHive's operands (its blocks of one div of 0x2324000 by
    // itself measured 9.97 and 9.98; IDIV r32 of 0x7fffffff by it 8.00, as Agner Fog's lower end of 8 for both).
    private static final Dividers IVY_BRIDGE_DIVIDERS = Dividers.of(
            "DIV r32", 19, 10, "DIV r64", 29, 22, "IDIV r32", 19, 8, "IDIV r64", 28, 26,
            "DIVSS xmm, xmm", 10, 7, "DIVSD xmm, xmm", 10, 8, "DIVPS xmm, xmm", 10, 7, "DIVPD xmm, xmm", 10, 8,
            "SQRTSS xmm, xmm", 11, 7, "SQRTSD xmm, xmm", 16, 8, "SQRTPS xmm, xmm", 11, 7, "SQRTPD xmm, xmm", 16, 8,
            "VDIVSS xmm, xmm, xmm", 10, 7, "VDIVSD xmm, xmm, xmm", 10, 8, "VDIVPS xmm, xmm, xmm", 10, 7,
            "VDIVPD xmm, xmm, xmm", 10, 8, "VSQRTSS xmm, xmm, xmm", 11, 7, "VSQRTSD xmm, xmm, xmm", 16, 8,
            "VSQRTPS xmm, xmm", 11, 7, "VSQRTPD xmm, xmm", 16, 8)
            .withSlowOperands("DIV r64", 94, 76, "IDIV r64", 103, 88);
}
