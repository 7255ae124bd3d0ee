package dev.basalt.simulator.params;

import dev.basalt.simulator.harness.StoreCommit;
import java.util.List;
import java.util.Map;

/**
 * One CPU's machine-wide parameters of the second-generation simulator (DESIGN.md §11): front end, renamer,
 * retirement, move elimination, store forwarding. They live in the table's JSON next to the per-form rows
 * ({@code "core"}); a table written before they existed (schema version 1) gets {@link #defaults(String)}.
 *
 * @param predecodeBytes        bytes of the aligned window the predecoder reads per cycle (16)
 * @param predecodeWidth        instructions the predecoder marks per cycle (5)
 * @param lcpPenalty            predecoder stall cycles per length-changing prefix (3)
 * @param instructionQueue      instructions the queue between predecoder and decoders holds
 * @param decoders              decoders (the first one complex, the others simple)
 * @param decodeUops            fused micro-ops the decoders deliver per cycle
 * @param msSwitchCycles        stall cycles for switching to the microcode sequencer and back
 * @param msUopsPerCycle        fused micro-ops the microcode sequencer delivers per cycle
 * @param microcodedAbove       instructions of more fused micro-ops than this come from the microcode sequencer
 * @param uopQueue              fused micro-ops the decoded-micro-op queue (IDQ) holds
 * @param issueWidth            fused micro-ops the renamer issues per cycle into reorder buffer and scheduler
 * @param retireWidth           fused micro-ops retired per cycle
 * @param moveEliminationSlots  register moves the renamer can eliminate within {@code moveEliminationCycles}
 *                              (per register file: general-purpose and vector); 0 turns elimination off
 * @param moveEliminationCycles the window, in cycles, over which {@code moveEliminationSlots} count
 * @param storeForwardLatency   cycles from a store's completion (its row's latency after its data is ready) until
 *                              a load of the same address has the data
 * @param unlamination          which micro-fused forms the renamer splits again
 * @param loadPorts             the port group of load micro-ops, which alternate between its ports ("23");
 *                              empty: the rows' port groups are used as imported, memory micro-ops included
 * @param storeAddressPorts     the port group of store-address micro-ops ("237"; "23" before Haswell)
 * @param storeDataPorts        the port group of store-data micro-ops ("4")
 * @param slowLeaPorts          the port group of a three-component {@code lea} (base, index and displacement),
 *                              which also takes {@code slowLeaLatency} cycles; empty: no such rule
 * @param slowLeaLatency        the latency of a three-component {@code lea}
 * @param storeForwardFailPenalty cycles a load waits beyond forwarding when the store it reads cannot forward to it
 *                              (the store does not contain the load, or wrote another virtual page that BHive's
 *                              harness maps to the same physical one): the data must first reach the cache, which
 *                              a store writes this many cycles after it retires, stores in program order, one a
 *                              cycle; the load waits for both
 * @param lockCycles            cycles a locked read-modify-write ({@code lock} prefix, or {@code xchg} with memory)
 *                              takes once it executes, which it does only as the oldest instruction in flight;
 *                              younger memory accesses wait for it (0: no such rule)
 * @param cacheBanks            whether two loads in one cycle conflict when their addresses agree in bits 2–5
 *                              (the same 4-byte bank of the first-level data cache) but not in bits 6–11 (Sandy
 *                              Bridge and Ivy Bridge; Haswell removed the restriction): the second waits a cycle
 * @param falseOutputDependencies mnemonics (upper case) whose destination register the CPU reads although the
 *                              instruction does not: it waits for the register's previous writer (POPCNT, LZCNT,
 *                              TZCNT on Haswell; POPCNT only on Skylake; none on AMD). Empty when absent.
 * @param loop                  branches, macro-fusion and where a loop's micro-ops come from (DESIGN.md §12);
 *                              {@link LoopFrontEnd#NONE} when absent
 * @param dividers              dividers' timings on the small operands of BHive's harness ({@link Dividers});
 *                              absent: the CPU's {@link #defaults}, when the table is read
 * @param fences                how often each kind of fence can execute ({@link Fences}); absent: the CPU's
 *                              {@link #defaults}, when the table is read
 * @param memoryRenaming        whether a load of an address a store just wrote gets the stored register's value as
 *                              soon as the store has it, without the forwarding latency (AMD's memory file, Zen 2
 *                              on), when the registers that address both depend on are not written in the block
 *                              (the file matches a store and a load by base register and displacement; implicit
 *                              stack-pointer updates do not count). Otherwise {@code storeForwardLatency} applies.
 * @param pageWalkCycles        cycles from the first access to a page missing from the first-level data TLB until
 *                              its translation is there, for memory that moves to a new page every so many
 *                              iterations ({@link Translation}; in BHive's harness a moving stack): until then loads
 *                              of the page are looked up in the second-level TLB, one a cycle, and stores translated
 *                              in its first half are replayed (0: no such rule; null, absent from a table: the CPU's
 *                              {@link #defaults}, when the table is read)
 * @param portBinding           how the renamer binds a micro-op that several ports can run to one of them
 *                              ({@link PortBinding}); null, absent from a table: the CPU's {@link #defaults}, when
 *                              the table is read, and for a CPU without one the rule its ports imply (six numbered
 *                              ports: {@link PortBinding#SIX_PORT}, else {@link PortBinding#SLOT_PARITY})
 * @param popRspDecoding        which decoders take {@code pop rsp} and {@code pop r12} (opcode 5C), one micro-op
 *                              ({@link PopRspDecoding}); null, absent from a table: the CPU's {@link #defaults}, when
 *                              the table is read, and any decoder for a CPU without one
 * @param immediateElimination  how the renamer executes small immediates ({@link ImmediateElimination}); null: it
 *                              does not (every core before Golden Cove)
 * @param slidingFetch          whether the predecoder's window of {@code predecodeBytes} starts at the next
 *                              instruction each cycle (Golden Cove: six three-byte instructions a cycle) rather than
 *                              stepping through aligned windows (the older cores' 16-byte windows)
 * @param decodeImmediates      instructions with an immediate or displacement the decoders deliver a cycle at most
 *                              ({@link ImmediateFields}; 0: no such limit)
 * @param forwardToWaitingLoads whether a load that reads a store has the data {@code storeForwardLatency} after the
 *                              store completes even when it issued earlier ({@link #withForwardToWaitingLoads})
 * @param sameBankLoads         loads of one cache bank (address bits 2–5, {@link #LOAD_BANK_BITS}) that can execute
 *                              in one cycle, in BHive's harness (0: no limit; {@link #withSameBankLoads})
 * @param denseCode             the fetch of code too dense for the micro-op cache ({@link DenseCode}; null: no such
 *                              rule)
 * @param storeCommit           how many stores of one cache line the cache takes a cycle ({@link StoreCommit}; null:
 *                              no such rule)
 * @param rmwForwardLatency     cycles from a store's completion until a read-modify-write's load has its data
 *                              ({@link #withRmwForwardLatency}; 0: {@code storeForwardLatency}, as for any load)
 * @param x87AssistCycles       cycles an x87 microcode assist (stack fault, unnormal or NaN operand) adds to an
 *                              iteration in BHive's harness ({@link X87Assists}; 0: none; null, absent from a table:
 *                              the CPU's {@link #defaults}, when the table is read)
 * @param ripComplexDecode      whether an instruction with a RIP-relative memory operand that stores, is a {@code lea} or
 *                              carries an immediate is decoded by the complex decoder alone (Golden Cove: one a cycle;
 *                              null, absent from a table: the CPU's {@link #defaults}, when the table is read)
 * @param vectorForwardCycles   cycles a load writing a vector register waits beyond {@code storeForwardLatency} for
 *                              forwarded data, which takes the vector load path as data from the cache does (Zen 4,
 *                              measured: a {@code movss} store and load round trip 10 cycles, an integer one 7, a
 *                              vector load 3 cycles slower than an integer one; 0: none; null, absent from a table:
 *                              the CPU's {@link #defaults}, when the table is read)
 * @param dirtyUpperMerge       in BHive's harness as Basalt measured this CPU (every vector register filled at its
 *                              full width, so its upper bits are dirty), the cycles a legacy SSE instruction that
 *                              writes an xmm register takes to merge into the upper bits: it waits for the
 *                              register's previous value and its result comes this many cycles after it at the
 *                              earliest — loads and moves too. Zen 4, measured: {@code movss xmm0, [rdi]; mulss
 *                              xmm0, xmm0} 4.13 cycles an iteration (1), the VEX forms 0.50, after {@code
 *                              vzeroupper} 1.00; Zen 5's set: {@code movaps xmm0, xmm2; mulss xmm0, xmm2} 5.0 with a
 *                              multiply of 3 (2) (null, absent from a table: the CPU's {@link #defaults}; 0: no such
 *                              rule)
 */
public record CoreParams(int predecodeBytes, int predecodeWidth, int lcpPenalty, int instructionQueue, int decoders,
                         int decodeUops, int msSwitchCycles, int msUopsPerCycle, int microcodedAbove, int uopQueue,
                         int issueWidth, int retireWidth, int moveEliminationSlots, int moveEliminationCycles,
                         int storeForwardLatency, Unlamination unlamination, String loadPorts,
                         String storeAddressPorts, String storeDataPorts, String slowLeaPorts, int slowLeaLatency,
                         int storeForwardFailPenalty, int lockCycles, boolean cacheBanks,
                         List<String> falseOutputDependencies, LoopFrontEnd loop, Dividers dividers,
                         Fences fences,
                         // Left out of the JSON when false, so tables (and fingerprints) of CPUs without it stay as
                         // they were before it existed.
                         @com.fasterxml.jackson.annotation.JsonInclude(
                                 com.fasterxml.jackson.annotation.JsonInclude.Include.NON_DEFAULT)
                         boolean memoryRenaming,
                         // Null when absent: the CPU's defaults, when the table is read. Left out when 0 (off).
                         @com.fasterxml.jackson.annotation.JsonInclude(
                                 com.fasterxml.jackson.annotation.JsonInclude.Include.NON_DEFAULT)
                         Integer pageWalkCycles,
                         // Null when absent: the CPU's defaults, when the table is read. Left out when null.
                         @com.fasterxml.jackson.annotation.JsonInclude(
                                 com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL)
                         PortBinding portBinding,
                         // Null when absent: the CPU's defaults, when the table is read. Left out when null.
                         @com.fasterxml.jackson.annotation.JsonInclude(
                                 com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL)
                         PopRspDecoding popRspDecoding,
                         // Null when the CPU has none (every core before Golden Cove). Left out when null.
                         @com.fasterxml.jackson.annotation.JsonInclude(
                                 com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL)
                         ImmediateElimination immediateElimination,
                         // Left out of the JSON when false / 0, so older tables stay as they were.
                         @com.fasterxml.jackson.annotation.JsonInclude(
                                 com.fasterxml.jackson.annotation.JsonInclude.Include.NON_DEFAULT)
                         boolean slidingFetch,
                         @com.fasterxml.jackson.annotation.JsonInclude(
                                 com.fasterxml.jackson.annotation.JsonInclude.Include.NON_DEFAULT)
                         int decodeImmediates,
                         @com.fasterxml.jackson.annotation.JsonInclude(
                                 com.fasterxml.jackson.annotation.JsonInclude.Include.NON_DEFAULT)
                         boolean forwardToWaitingLoads,
                         @com.fasterxml.jackson.annotation.JsonInclude(
                                 com.fasterxml.jackson.annotation.JsonInclude.Include.NON_DEFAULT)
                         int sameBankLoads,
                         // Null when the CPU has no such rule. Left out when null.
                         @com.fasterxml.jackson.annotation.JsonInclude(
                                 com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL)
                         DenseCode denseCode,
                         // Null when stores commit one a cycle whatever their lines. Left out when null.
                         @com.fasterxml.jackson.annotation.JsonInclude(
                                 com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL)
                         StoreCommit storeCommit,
                         // Left out when 0 (storeForwardLatency applies), so older tables stay as they were.
                         @com.fasterxml.jackson.annotation.JsonInclude(
                                 com.fasterxml.jackson.annotation.JsonInclude.Include.NON_DEFAULT)
                         int rmwForwardLatency,
                         // Null when absent: the CPU's defaults, when the table is read. Left out when null.
                         @com.fasterxml.jackson.annotation.JsonInclude(
                                 com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL)
                         Integer x87AssistCycles,
                         // Null when absent: the CPU's defaults, when the table is read. Left out when null.
                         @com.fasterxml.jackson.annotation.JsonInclude(
                                 com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL)
                         Boolean ripComplexDecode,
                         // Null when absent: the CPU's defaults, when the table is read. Left out when null.
                         @com.fasterxml.jackson.annotation.JsonInclude(
                                 com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL)
                         Integer vectorForwardCycles,
                         // Null when absent: the CPU's defaults, when the table is read. Left out when null.
                         @com.fasterxml.jackson.annotation.JsonInclude(
                                 com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL)
                         Integer dirtyUpperMerge) {

    /**
     * Which decoders take {@code pop rsp} and {@code pop r12} (opcode 5C, one micro-op). The uiCA paper (§4) found
     * that only the complex decoder does on Sandy Bridge to Ice Lake, and that before Skylake no other instruction is
     * decoded after it in the same cycle. BHive's Haswell rows show it: {@code xor edi, edi; xor ecx, ecx; pop rbx;
     * pop rbp; mov rax, rdi; mov rdx, rcx; pop r12} runs 2.97 cycles an iteration, and {@code add rsp, 48; xor eax,
     * eax; pop rbx; pop rbp; pop r12; pop r13} 2.99 — the decoders' count with the rule (3 and 3), any decoder
     * giving 1.75 and 2.
     */
    public enum PopRspDecoding {
        /** Any decoder (AMD). */
        ANY,
        /** Only the complex decoder, first in its cycle's group (Skylake). */
        COMPLEX,
        /** Only the complex decoder, and nothing after it in the same cycle (Sandy Bridge to Broadwell). */
        COMPLEX_ALONE
    }

    /**
     * How the renamer binds each micro-op that several ports can run to one port, in the cycle it issues (the
     * uiCA paper §4: a micro-op waits for its bound port even when another is free).
     */
    public enum PortBinding {
        /**
         * uiCA's reading of the eight-port cores: the port with the fewest micro-ops queued at the start of the cycle
         * (ties to the higher port), but an odd issue slot takes the second fewest unless it has 3 or more more — so
         * two micro-ops of one cycle in slots 0 and 2 share a port. BHive's Skylake rows show it: {@code mov rdi,
         * [rsp+144]; add r12, 16; cmp rdi, r12} runs 1.5 cycles an iteration (the add chain loses a cycle whenever
         * the older {@code cmp} it feeds shares its port).
         */
        SLOT_PARITY,
        /**
         * The port with the fewest micro-ops queued, counting those bound earlier in the same cycle (ties to the
         * higher port). BHive's Haswell and Ivy Bridge rows: the same block runs 1.0 cycle an iteration (the
         * {@code cmp} and the next {@code add} do not share a port), 13 rows of it on Haswell at 0.97–1.00 and 11
         * on Ivy Bridge at 0.96–1.01, where Skylake's 14 run at 1.44–1.56. On the train and validation blocks it
         * is 0.19 points closer than slot parity on Haswell and 0.15 closer than the six-port rule on Ivy Bridge.
         */
        LEAST_LOADED,
        /**
         * uiCA's reading of the six-port cores (Sandy Bridge, Ivy Bridge): the dispatch stage's six-port rule (a
         * table may name it; Ivy Bridge's rows are closer to {@code LEAST_LOADED}).
         */
        SIX_PORT
    }

    /**
     * What a CPU does with branches and loops (DESIGN.md §12, the uiCA paper §4).
     *
     * @param macroFusion      per first instruction (upper-case mnemonic: {@code CMP}), the conditional jumps
     *                         ({@code JZ}, ...) it fuses with when directly followed by one: one decoder slot, one
     *                         issue slot, one micro-op on the branch's port
     * @param takenBranchPorts the port group a taken branch executes on ("6"; empty: the row's)
     * @param lsdUops          the largest loop, in fused micro-ops, the loop stream detector replays (0: no LSD,
     *                         or disabled as on Skylake)
     * @param lsdUnrolling     per loop size in fused micro-ops, how many copies of the loop the loop stream detector
     *                         holds and issues as one (Haswell unrolls small loops, the uiCA paper; absent: 1)
     * @param dsbUopsPerCycle  fused micro-ops the decoded-micro-op cache (DSB) delivers a cycle (0: no DSB)
     * @param dsbWindowBytes   the code window the DSB caches by (32 bytes)
     * @param dsbWindowUops    fused micro-ops one window may hold in the DSB (3 ways of 6); a loop with more in one
     *                         window is decoded by the legacy decoders
     * @param jccErratum       whether a jump or macro-fused pair that crosses or ends on a 32-byte boundary is not
     *                         cached in the DSB (Skylake's JCC erratum microcode update)
     */
    public record LoopFrontEnd(Map<String, List<String>> macroFusion, String takenBranchPorts, int lsdUops,
                               Map<Integer, Integer> lsdUnrolling, int dsbUopsPerCycle, int dsbWindowBytes,
                               int dsbWindowUops, boolean jccErratum) {
        /** No loop mechanisms: no fusion, branches on their rows' ports, legacy decoding only. */
        public static final LoopFrontEnd NONE = new LoopFrontEnd(Map.of(), "", 0, Map.of(), 0, 32, 18, false);

        public LoopFrontEnd {
            macroFusion = macroFusion == null ? Map.of() : Map.copyOf(new java.util.TreeMap<>(macroFusion));
            takenBranchPorts = takenBranchPorts == null ? "" : takenBranchPorts;
            lsdUnrolling = lsdUnrolling == null ? Map.of() : Map.copyOf(new java.util.TreeMap<>(lsdUnrolling));
            if (lsdUnrolling.values().stream().anyMatch(u -> u < 1)) {
                throw new IllegalArgumentException("lsdUnrolling: copies must be >= 1, got " + lsdUnrolling);
            }
            if (lsdUops < 0 || dsbUopsPerCycle < 0 || dsbWindowBytes < 1 || dsbWindowUops < 1) {
                throw new IllegalArgumentException("loop front end parameters out of range: lsdUops " + lsdUops
                        + ", dsbUopsPerCycle " + dsbUopsPerCycle + ", dsbWindowBytes " + dsbWindowBytes
                        + ", dsbWindowUops " + dsbWindowUops);
            }
        }

        /** How many copies of a loop of {@code uops} fused micro-ops the loop stream detector issues as one. */
        public int lsdCopies(int uops) {
            return lsdUnrolling.getOrDefault(uops, 1);
        }

        /** Haswell's loop stream detector unrolling (the uiCA paper's measurements): loop size → copies. */
        static Map<Integer, Integer> haswellUnrolling() {
            Map<Integer, Integer> u = new java.util.TreeMap<>();
            for (int uops = 1; uops <= 28; uops++) {
                u.put(uops, uops <= 4 ? 8 : uops == 5 ? 6 : uops == 6 ? 5 : uops <= 8 ? 4 : uops <= 12 ? 3 : 2);
            }
            return u;
        }

        /** Whether a conditional jump (upper-case mnemonic) fuses with the flag-setting instruction before it. */
        public boolean fuses(String first, String jump) {
            List<String> jumps = macroFusion.get(first);
            return jumps != null && jumps.contains(jump);
        }

        /** Sandy Bridge to Skylake (DESIGN.md §12): which flag setters fuse with which conditional jumps. */
        static Map<String, List<String>> intelFusion() {
            List<String> all = List.of("JB", "JBE", "JL", "JLE", "JNB", "JNBE", "JNL", "JNLE", "JNO", "JNP", "JNS",
                    "JNZ", "JO", "JP", "JS", "JZ");
            // CMP, ADD, SUB: not with the overflow, sign and parity jumps; INC, DEC: not with the carry ones either.
            List<String> arithmetic = List.of("JB", "JBE", "JL", "JLE", "JNB", "JNBE", "JNL", "JNLE", "JNZ", "JZ");
            List<String> incDec = List.of("JL", "JLE", "JNL", "JNLE", "JNZ", "JZ");
            return Map.of("TEST", all, "AND", all, "CMP", arithmetic, "ADD", arithmetic, "SUB", arithmetic,
                    "INC", incDec, "DEC", incDec);
        }
    }

    /** Which micro-fused (load+operation, store address+data) forms the renamer splits into two issue slots. */
    public enum Unlamination {
        /** None (AMD, and any CPU without the restriction). */
        NONE,
        /** Every form with an indexed address (Sandy Bridge, Ivy Bridge). */
        INDEXED,
        /**
         * Forms with an indexed address, except a two-operand load+operation whose register destination is also
         * its source ({@code add rax, [rbx+rcx]} stays fused; {@code vaddps ymm0, ymm1, [rbx+rcx]} and stores do
         * not) — Haswell and Skylake.
         */
        INDEXED_UNLESS_DESTRUCTIVE
    }

    /** The address bits that name a cache bank for {@link #sameBankLoads}: 2–5, sixteen banks of four bytes. */
    public static final int LOAD_BANK_BITS = 0x3c;

    /** The most entries a queue or buffer may have (real cores have a few hundred). */
    public static final int MAX_ENTRIES = 4096;

    public CoreParams {
        if (predecodeBytes < 1 || predecodeWidth < 1 || lcpPenalty < 0 || instructionQueue < 1 || decoders < 1
                || decodeUops < 1 || msSwitchCycles < 0 || msUopsPerCycle < 1 || microcodedAbove < 1 || uopQueue < 1
                || issueWidth < 1 || retireWidth < 1 || moveEliminationSlots < 0 || moveEliminationCycles < 1
                || storeForwardLatency < 0 || lockCycles < 0) {
            throw new IllegalArgumentException("core parameters out of range: " + this);
        }
        if (instructionQueue > MAX_ENTRIES || uopQueue > MAX_ENTRIES || predecodeWidth > MAX_ENTRIES) {
            // the simulator's per-instance rings are sized by these queues
            throw new IllegalArgumentException("core queues must hold at most " + MAX_ENTRIES + " entries, got "
                    + "instructionQueue " + instructionQueue + ", uopQueue " + uopQueue + ", predecodeWidth "
                    + predecodeWidth);
        }
        unlamination = unlamination == null ? Unlamination.NONE : unlamination;
        loadPorts = loadPorts == null ? "" : loadPorts;
        storeAddressPorts = storeAddressPorts == null ? "" : storeAddressPorts;
        storeDataPorts = storeDataPorts == null ? "" : storeDataPorts;
        slowLeaPorts = slowLeaPorts == null ? "" : slowLeaPorts;
        falseOutputDependencies = falseOutputDependencies == null ? List.of() : List.copyOf(falseOutputDependencies);
        loop = loop == null ? LoopFrontEnd.NONE : loop;
        dividers = dividers == null ? Dividers.NONE : dividers;
        fences = fences == null ? Fences.NONE : fences;
    }

    /** These parameters with another loop front end. */
    public CoreParams withLoop(LoopFrontEnd loop) {
        return toBuilder().loop(loop).build();
    }

    /** These parameters with other dividers' timings. */
    public CoreParams withDividers(Dividers dividers) {
        return toBuilder().dividers(dividers).build();
    }

    /** These parameters with other fences' cycles. */
    public CoreParams withFences(Fences fences) {
        return toBuilder().fences(fences).build();
    }

    /** These parameters with another page-walk time. */
    public CoreParams withPageWalkCycles(Integer cycles) {
        return toBuilder().pageWalkCycles(cycles).build();
    }

    /** These parameters with another port binding (null: the rule the CPU's ports imply). */
    public CoreParams withPortBinding(PortBinding binding) {
        return toBuilder().portBinding(binding).build();
    }

    /** These parameters with another rule for decoding {@code pop rsp} and {@code pop r12} (null: any decoder). */
    public CoreParams withPopRspDecoding(PopRspDecoding decoding) {
        return toBuilder().popRspDecoding(decoding).build();
    }

    /** These parameters with another rename-time elimination of immediates (null: none). */
    public CoreParams withImmediateElimination(ImmediateElimination elimination) {
        return toBuilder().immediateElimination(elimination).build();
    }

    /**
     * These parameters with another fetch and decode of Golden Cove's kind: a fetch window that slides over the code
     * rather than stepping through aligned windows, at most {@code immediates} instructions with an immediate or
     * displacement decoded a cycle ({@link ImmediateFields}; 0: no limit), and code too dense for the micro-op cache
     * fetched more slowly ({@link DenseCode}; null: no such rule).
     */
    public CoreParams withFetch(boolean sliding, int immediates, DenseCode dense) {
        return toBuilder().slidingFetch(sliding).decodeImmediates(immediates).denseCode(dense).build();
    }

    /**
     * These parameters with another way for a load to get a store's data: whether a load issued before the store it
     * reads completes gets the data {@code storeForwardLatency} after the store completes (it waits in the load
     * buffer; Golden Cove: a store-to-load round trip of 3.16 cycles against a 5-cycle load), rather than issuing
     * then and taking its own load latency.
     */
    public CoreParams withForwardToWaitingLoads(boolean on) {
        return toBuilder().forwardToWaitingLoads(on).build();
    }

    /**
     * These parameters with a limit on loads of one cache bank a cycle (0: none): Golden Cove's three load ports run
     * three loads a cycle of different banks but two of one (measured on the Xeon 6: every block of one load runs at
     * 0.50 cycles or more, 5,925 one-instruction blocks among them; three loads of [rbx] at 1.51; two loads of two
     * addresses at 0.667; four loads of four lines at one offset, [rbx] to [rbx+192], at 2.03). Banks by bits 2–5
     * fit the training split best: 9.19% MAPE against 9.30% for one address, 9.25% for bits 3–5, 9.23% for 2–6.
     */
    public CoreParams withSameBankLoads(int loads) {
        return toBuilder().sameBankLoads(loads).build();
    }

    /** These parameters with another rule for committing stores to the cache ({@link StoreCommit}; null: none). */
    public CoreParams withStoreCommit(StoreCommit commit) {
        return toBuilder().storeCommit(commit).build();
    }

    /**
     * These parameters with another forwarding latency into a read-modify-write's load (0: storeForwardLatency).
     * Golden Cove forwards a store to a plain load in a round trip of 3.16 cycles but to the load of {@code add [m],
     * imm} in about 5.5: measured on the Xeon 6's training split, chains of {@code add}/{@code sub}/{@code or
     * [m], imm} run at 6.4-6.5 cycles (some 300 blocks of one or two instructions), of {@code add [m], reg} at 7.3.
     */
    public CoreParams withRmwForwardLatency(int cycles) {
        return toBuilder().rmwForwardLatency(cycles).build();
    }

    /** These parameters with another cost of an x87 microcode assist ({@link X87Assists}; 0: none). */
    public CoreParams withX87AssistCycles(Integer cycles) {
        return toBuilder().x87AssistCycles(cycles).build();
    }

    /**
     * These parameters with another rule for decoding RIP-relative stores, {@code lea}s and forms with an immediate
     * (true: the complex decoder alone; null: the CPU's default when a table is read).
     */
    public CoreParams withRipComplexDecode(Boolean on) {
        return toBuilder().ripComplexDecode(on).build();
    }

    /** These parameters with another delay of data forwarded into a vector register ({@link #vectorForwardCycles}). */
    public CoreParams withVectorForwardCycles(Integer cycles) {
        return toBuilder().vectorForwardCycles(cycles).build();
    }

    /** These parameters with another rule for legacy SSE writes in the harness ({@link #dirtyUpperMerge}). */
    public CoreParams withDirtyUpperMerge(Integer cycles) {
        return toBuilder().dirtyUpperMerge(cycles).build();
    }

    /** Whether {@link #dirtyUpperMerge} is on (null or 0: off). */
    public boolean mergesDirtyUpper() {
        return dirtyUpperMerge != null && dirtyUpperMerge > 0;
    }

    /** The cycles of {@link #dirtyUpperMerge} (0: off). */
    public int dirtyUpperCycles() {
        return dirtyUpperMerge == null ? 0 : dirtyUpperMerge;
    }

    /** The delay of data forwarded into a vector register (null: none). */
    public int vectorForwardDelay() {
        return vectorForwardCycles == null ? 0 : vectorForwardCycles;
    }

    /** Whether {@link #ripComplexDecode} is on (null: off). */
    public boolean ripRelativeComplex() {
        return Boolean.TRUE.equals(ripComplexDecode);
    }

    /** The forwarding latency into a read-modify-write's load: {@code rmwForwardLatency}, else the plain one. */
    public int rmwForwardCycles() {
        return rmwForwardLatency > 0 ? rmwForwardLatency : storeForwardLatency;
    }

    /** A builder of parameters, every one unset (0, false or null). */
    public static CoreParamsBuilder builder() {
        return new CoreParamsBuilder();
    }

    /** A builder starting from these parameters. */
    public CoreParamsBuilder toBuilder() {
        return new CoreParamsBuilder(this);
    }

    /**
     * The values a table of schema version 1 (no {@code "core"} object), and a table's absent rules, get by CPU: its
     * machine in {@link CpuConfigs}. Unknown CPUs get Haswell's front end without its dividers and fences.
     */
    public static CoreParams defaults(String mcpu) {
        return CpuConfigs.of(mcpu);
    }
}
