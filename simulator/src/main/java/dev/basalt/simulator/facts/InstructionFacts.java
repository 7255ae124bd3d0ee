package dev.basalt.simulator.facts;

import dev.basalt.simulator.harness.BhiveMemory;
import dev.basalt.simulator.params.Dividers;
import dev.basalt.simulator.params.LoadOperation;
import dev.basalt.simulator.params.PortGroups;
import dev.basalt.simulator.params.Resolved;
import dev.basalt.decoder.Decoding;
import dev.basalt.decoder.Instruction;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What the second machine knows of one instruction wherever it sits: its table row, micro-ops (before any
 * stack-synchronisation micro-op), shape, latencies and the operand facts the machine asks for. They depend only
 * on the instruction's bytes, the table and four switches, so a simulator keeps them per {@link Decoding}
 * ({@link Cache}): real code repeats the same instructions endlessly, and the bounds, which read nothing else,
 * then cost little more than their arithmetic. The encoding's facts ({@link EncodingFacts}) are copied in flat
 * rather than referred to: {@link BlockFacts} reads them for every instruction of every block, and each object it
 * must reach is a likely cache miss.
 *
 * @param resolved           the table row and where it came from
 * @param ops                demand list (port groups; a divider as {@code -unit-1, cycles})
 * @param shape              lengths, fused micro-ops, decoder and port facts ({@link InstructionShape})
 * @param latency            the row's latency
 * @param readAdvance        the row's read-advance
 * @param slowLea            a three-component {@code lea} ({@link InstructionShape#slowLea})
 * @param loads              memory operands read
 * @param stores             whether it writes memory
 * @param locked             a locked read-modify-write ({@link InstructionShape#locked})
 * @param stackOp            push, pop, call or ret: rsp updated by the stack engine
 * @param usesStackPointer   whether it names rsp otherwise (operand or address)
 * @param writesStackPointer whether it writes rsp as an operand
 * @param memory             what BHive's harness values follow through it ({@link BhiveMemory.Step})
 * @param unmodelled         why no estimator prices it ({@link dev.basalt.core.UnmodelledInstructions}), or null
 * @param fence              which fence it is ({@link Fences#LOAD_FENCE}, ...), or 0
 * @param runs               whether the CPU of the simulator's cache runs it ({@link dev.basalt.core.IsaSupport}; true
 *                           when the cache names no CPU)
 * @param operationLatency   for an instruction that loads, its register form's latency ({@link LoadOperation}), or -1
 * @param smallOperands      a divider's timing on the small operands of BHive's harness ({@link Dividers}), or null
 * @param dividerUnit        with {@code smallOperands}, the divider unit it holds as a demand entry ({@code -unit-1}),
 *                           or 0 when the table has no such unit
 */
public record InstructionFacts(Resolved resolved, int[] ops, InstructionShape shape, int latency, int readAdvance,
                        boolean slowLea, int loads, boolean stores, boolean locked, boolean stackOp,
                        boolean usesStackPointer, boolean writesStackPointer, BhiveMemory.Step memory,
                        String unmodelled, int fence, boolean runs, int operationLatency,
                        Dividers.Timing smallOperands, int dividerUnit) {

    static InstructionFacts of(CpuContext context, Instruction insn, RunModel.Options options) {
        return of(context, insn, options, context.facts().encodings().get(insn));
    }

    /** The facts of {@code insn}, whose encoding's are {@code e}: what the simulator's table adds to them. */
    static InstructionFacts of(CpuContext context, Instruction insn, RunModel.Options options, EncodingFacts e) {
        Resolved r = context.resolve(insn.form());
        int[] ops = context.ports().microOps(r.row(), e.loads(), e.stores(), options.stackEngine() && e.stackOp());
        InstructionShape shape = InstructionShape.of(e, insn.length(), r.row(), Math.max(1, PortGroups.portMicroOps(ops)),
                context.params().core(), options.microFusion(), options.moveElimination());
        Dividers dividers = context.params().core().dividers();
        Dividers.Timing small = dividers.of(insn.form(), context.params().loadLatency());
        int latency = r.row().latency();
        int microcode = small == null ? 0 : dividers.microOpsOf(insn.form());
        int unit = context.ports().dividerUnit("Divider");
        int operationLatency = e.loads() > 0 ? LoadOperation.operationLatency(context.rows(), insn.form()) : -1;
        if (microcode > 0 && options.secondGeneration() && unit < 0 && context.ports().aluGroup() >= 0
                && context.ports().hasLoadPorts() && small.cycles() > 0) {
            // The CPU's micro-op count, whatever the row (Dividers): memory micro-ops are the list's last.
            int[] memory = java.util.Arrays.copyOfRange(ops, ops.length - e.loads(), ops.length);
            ops = Dividers.microcoded(unit, small.cycles(), context.ports().aluGroup(), microcode, memory);
            shape = InstructionShape.of(e, insn.length(), r.row(), Math.max(1, PortGroups.portMicroOps(ops)),
                    context.params().core(), options.microFusion(), options.moveElimination());
            latency = small.latency();
            operationLatency = -1; // its latency is the load's plus the division's, not the register row's
        }
        return new InstructionFacts(r, ops, shape, latency, r.row().readAdvance(), e.slowLea(), e.loads(),
                e.stores(), e.locked(), e.stackOp(), e.usesStackPointer(), e.writesStackPointer(), e.memory(),
                e.unmodelled(), e.fence(), context.facts().cpu() == null
                        || dev.basalt.core.IsaSupport.runs(insn, context.facts().cpu()),
                operationLatency, small,
                small == null ? 0 : context.ports().dividerUnit(insn.mnemonic().matches("i?div") ? "Divider"
                        : "FPDivider"));
    }

    /**
     * A simulator's facts by decoding, one map per combination of the switches they depend on, over the encodings'
     * facts it may share with other simulators ({@link EncodingFacts.Cache}). Bounded: past {@link #LIMIT}
     * decodings (by default) a map starts again (facts are recomputed, never different), so a bulk job over
     * millions of blocks holds no more than a few megabytes.
     */
    public static final class Cache {
        static final int LIMIT = 1 << 16;
        @SuppressWarnings("unchecked")
        private final Map<Decoding, InstructionFacts>[] bySwitches = new Map[16];
        private final int limit;
        private final EncodingFacts.Cache encodings;
        private final dev.basalt.core.Microarchitecture cpu; // whose instruction set the facts check, or null

        public Cache() {
            this(LIMIT);
        }

        /** A cache of at most {@code limit} decodings per combination of switches. */
        public Cache(int limit) {
            this(limit, new EncodingFacts.Cache(limit), null);
        }

        /**
         * A cache over {@code encodings}, which other simulators' caches may share, for a simulator of {@code cpu}
         * (null: none named).
         */
        public Cache(EncodingFacts.Cache encodings, dev.basalt.core.Microarchitecture cpu) {
            this(LIMIT, encodings, cpu);
        }

        private Cache(int limit, EncodingFacts.Cache encodings, dev.basalt.core.Microarchitecture cpu) {
            this.limit = limit;
            this.encodings = encodings;
            this.cpu = cpu;
            for (int k = 0; k < bySwitches.length; k++) {
                // Sized for a data set's worth of encodings (BHive's 10,000 blocks of a CPU hold 21,111), so that
                // filling it does not grow it step by step while several threads insert (its table is allocated
                // at the first insertion: the switch combinations never used cost nothing).
                bySwitches[k] = new ConcurrentHashMap<>(Math.min(limit, 1 << 15));
            }
        }

        EncodingFacts.Cache encodings() {
            return encodings;
        }

        /** The CPU whose instruction set {@link InstructionFacts#runs()} checks, or null. */
        dev.basalt.core.Microarchitecture cpu() {
            return cpu;
        }

        /**
         * The map for {@code options}' stack engine, micro-fusion, move elimination and second-machine switches (the
         * last for divides' micro-ops, Dividers#microOps).
         */
        public Map<Decoding, InstructionFacts> forSwitches(RunModel.Options options) {
            return bySwitches[(options.stackEngine() ? 1 : 0) | (options.microFusion() ? 2 : 0)
                    | (options.moveElimination() ? 4 : 0) | (options.secondGeneration() ? 8 : 0)];
        }

        InstructionFacts get(Map<Decoding, InstructionFacts> map, CpuContext context, Instruction insn,
                             RunModel.Options options) {
            InstructionFacts f = map.get(insn.decoding());
            if (f == null) {
                f = InstructionFacts.of(context, insn, options);
                if (map.size() >= limit) {
                    map.clear();
                }
                map.put(insn.decoding(), f);
            }
            return f;
        }
    }
}
