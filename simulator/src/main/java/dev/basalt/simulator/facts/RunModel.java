package dev.basalt.simulator.facts;

import dev.basalt.simulator.params.RowSource;
import dev.basalt.decoder.BasicBlock;
import dev.basalt.decoder.Instruction;

import java.util.List;
import java.util.Map;

/**
 * The vocabulary of a run, shared by both machines and the bounds: its {@link Options}, how a block runs ({@link
 * LoopMode}, {@link MemoryModel}), where its micro-ops come from ({@link UopSource}) and what a run produced ({@link
 * Result}). {@code Simulator} implements it, so {@code Simulator.Options} and the others name the same types.
 */
public interface RunModel {

    /**
     * Run options. The five mechanisms of the second-generation machine (DESIGN.md §11) can each be turned off;
     * with all of them off and {@code secondGeneration} false the run is the first, llvm-mca-like machine.
     *
     * @param iterations         how many times the block is repeated
     * @param stackEngine        whether push/pop/call/ret rsp updates are free and dependency-free
     * @param memoryDependencies whether a load waits for an earlier store to the same address expression
     * @param secondGeneration   whether the machine has a renamer issuing fused micro-ops and retirement of
     *                           {@link CoreParams} (false: llvm-mca's dispatch width, unfused micro-ops, and
     *                           each switch below ignored)
     * @param frontEnd           predecoder, instruction queue, decoders, microcode sequencer and micro-op queue
     *                           (false: the renamer never waits for instructions — {@code --simple-front-end})
     * @param microFusion        load+operation and store address+data as one fused micro-op
     *                           ({@code --no-micro-fusion})
     * @param moveElimination    register moves renamed away when a slot is free ({@code --no-move-elimination})
     * @param issueTimePorts     ports bound at issue by the least-loaded rule (false: any free port at execution,
     *                           {@code --execute-time-ports})
     * @param storeForwarding    a load of a stored address gets the data by forwarding, {@link
     *                           CoreParams#storeForwardLatency()} after the store's data is ready
     *                           ({@code --no-store-forwarding}: the load waits for the store, then its own latency)
     * @param loopMode           whether the block runs as a loop or unrolled ({@link LoopMode})
     * @param memory             which accesses alias ({@link MemoryModel}; {@code AUTO}: BHive's harness memory for
     *                           straight-line blocks, distinct memory for loops)
     * @param operationLatency   a load+operation's register operands wait for the operation's latency only, its
     *                           register form's, and its load for the row's latency less that ({@link
     *                           LoadOperation}; on by default; off: the row's latency less the table's load latency
     *                           for the operation, as the first tables did)
     */
    public record Options(int iterations, boolean stackEngine, boolean memoryDependencies, boolean secondGeneration,
                          boolean frontEnd, boolean microFusion, boolean moveElimination, boolean issueTimePorts,
                          boolean storeForwarding, LoopMode loopMode, MemoryModel memory,
                          boolean operationLatency) {
        public Options {
            if (iterations < 1 || iterations > 100_000) {
                throw new IllegalArgumentException("iterations must be in 1..100000, got " + iterations);
            }
            loopMode = loopMode == null ? LoopMode.AUTO : loopMode;
            memory = memory == null ? MemoryModel.AUTO : memory;
        }

        /** Every switch given, loop mode and memory {@code AUTO}. */
        public Options(int iterations, boolean stackEngine, boolean memoryDependencies, boolean secondGeneration,
                       boolean frontEnd, boolean microFusion, boolean moveElimination, boolean issueTimePorts,
                       boolean storeForwarding) {
            this(iterations, stackEngine, memoryDependencies, secondGeneration, frontEnd, microFusion, moveElimination,
                    issueTimePorts, storeForwarding, LoopMode.AUTO, MemoryModel.AUTO, false);
        }

        /** These options with another loop mode. */
        public Options withLoopMode(LoopMode mode) {
            return new Options(iterations, stackEngine, memoryDependencies, secondGeneration, frontEnd, microFusion,
                    moveElimination, issueTimePorts, storeForwarding, mode, memory, operationLatency);
        }

        /** These options with another memory model. */
        public Options withMemory(MemoryModel model) {
            return new Options(iterations, stackEngine, memoryDependencies, secondGeneration, frontEnd, microFusion,
                    moveElimination, issueTimePorts, storeForwarding, loopMode, model, operationLatency);
        }

        /**
         * Which memory {@code block} sees under these options: "harness", "distinct", or "none" where loads never
         * wait for stores (the first machine, as llvm-mca).
         */
        public String memoryOf(BasicBlock block) {
            if (!secondGeneration || !memoryDependencies) {
                return "none";
            }
            return harnessMemory(runsAsLoop(block, this)) ? "harness" : "distinct";
        }

        /** Whether a block that runs as a loop ({@code loop}) or not sees BHive's harness memory. */
        public boolean harnessMemory(boolean loop) {
            return memory == MemoryModel.HARNESS || memory == MemoryModel.AUTO && !loop;
        }

        /**
         * What of these options determines predictions, as text: the record's own text, without the memory model
         * when it is {@code AUTO} and without the operation-latency rule when it is off (so that estimators'
         * fingerprints from before they existed still hold).
         */
        public String fingerprintText() {
            return toString().replace(", memory=AUTO", "").replace(", operationLatency=false", "");
        }

        /** The second-generation machine with every mechanism on. */
        public Options(int iterations, boolean stackEngine, boolean memoryDependencies) {
            this(iterations, stackEngine, memoryDependencies, true, true, true, true, true, true, LoopMode.AUTO,
                    MemoryModel.AUTO, true);
        }

        /** For predictions: 100 iterations, stack engine, memory dependencies and every §11 mechanism on. */
        public static Options defaults() {
            return new Options(100, true, true);
        }

        /** As llvm-mca 14 runs by default: 100 iterations, the first machine, loads never alias stores. */
        public static Options llvmMcaCompatible() {
            return new Options(100, false, false, false, false, false, false, false, false);
        }

        /** These options with another iteration count. */
        public Options withIterations(int iterations) {
            return new Options(iterations, stackEngine, memoryDependencies, secondGeneration, frontEnd, microFusion,
                    moveElimination, issueTimePorts, storeForwarding, loopMode, memory, operationLatency);
        }

        /** These options with the named mechanisms off (as the command line's switches say). */
        public Options without(boolean frontEnd, boolean microFusion, boolean moveElimination, boolean issueTimePorts,
                               boolean storeForwarding) {
            return new Options(iterations, stackEngine, memoryDependencies, secondGeneration,
                    this.frontEnd && !frontEnd, this.microFusion && !microFusion,
                    this.moveElimination && !moveElimination, this.issueTimePorts && !issueTimePorts,
                    this.storeForwarding && !storeForwarding, loopMode, memory, operationLatency);
        }

        /** These options with {@link LoadOperation}'s rule on or off. */
        public Options withOperationLatency(boolean on) {
            return new Options(iterations, stackEngine, memoryDependencies, secondGeneration, frontEnd, microFusion,
                    moveElimination, issueTimePorts, storeForwarding, loopMode, memory, on);
        }
    }

    /**
     * How a block runs (DESIGN.md §12): as a loop body whose last instruction branches back to its start, taken
     * every iteration, or as BHive's straight-line code, unrolled back to back. {@code AUTO} runs a block that
     * ends in a branch to its own start as a loop, any other block unrolled.
     */
    public enum LoopMode {
        AUTO, LOOP, UNROLL
    }

    /**
     * Which memory accesses alias. {@code HARNESS}: as in BHive's measurements, every register holds BHive's
     * value and every page maps to one, so two accesses alias when those values put them at the same address
     * ({@link BhiveMemory}) — the semantics of the measurements the tables were tuned on. {@code DISTINCT}: as in
     * real code, uiCA and llvm-mca, two accesses alias only when the code proves it — the same base, index, scale
     * and displacement with the registers unchanged in between (the dependency graph's same-expression edges); a
     * copy loop {@code load [rsi]; store [rdi]} then carries no store→load chain. {@code AUTO}: harness memory for
     * straight-line blocks, distinct memory for loops (a user's loop body is real code).
     */
    public enum MemoryModel {
        AUTO, HARNESS, DISTINCT
    }

    /**
     * Where a block's micro-ops come from: the legacy decoders (always, for straight-line code), the decoded
     * micro-op cache (DSB) or the loop stream detector (LSD).
     */
    public enum UopSource {
        LEGACY, DSB, LSD
    }

    /**
     * Whether {@code block} runs as a loop under {@code options} (always false on the first machine, which has no
     * front end).
     *
     * @throws IllegalArgumentException for {@link LoopMode#LOOP} when the block does not end in a jump
     */
    static boolean runsAsLoop(BasicBlock block, Options options) {
        if (!options.secondGeneration()) {
            return false;
        }
        return switch (options.loopMode()) {
            case UNROLL -> false;
            case AUTO -> branchesBackToStart(block);
            case LOOP -> {
                if (!endsInJump(block)) {
                    throw new IllegalArgumentException("loop mode: the block does not end in a jump back to its "
                            + "start (its last instruction is " + block.instruction(block.size() - 1).form() + ")");
                }
                yield true;
            }
        };
    }

    /** Whether the last instruction is a relative jump, conditional or not. */
    static boolean endsInJump(BasicBlock block) {
        Instruction last = block.instruction(block.size() - 1);
        String m = last.mnemonic();
        if (!m.startsWith("j") && !m.startsWith("loop")) {
            return false;
        }
        for (int oi = 0, on = last.operands().size(); oi < on; oi++) {
            dev.basalt.decoder.Operand op = last.operands().get(oi); // indexed: C1 allocates an iterator per loop
            if (op instanceof dev.basalt.decoder.Operand.ImmediateOperand imm && imm.relative()) {
                return true;
            }
        }
        return false;
    }

    /** Whether the last instruction is a relative jump whose target is the block's first byte. */
    static boolean branchesBackToStart(BasicBlock block) {
        if (!endsInJump(block)) {
            return false;
        }
        Instruction last = block.instruction(block.size() - 1);
        for (int oi = 0, on = last.operands().size(); oi < on; oi++) {
            dev.basalt.decoder.Operand op = last.operands().get(oi); // indexed: C1 allocates an iterator per loop
            if (op instanceof dev.basalt.decoder.Operand.ImmediateOperand imm && imm.relative()) {
                return last.offset() + last.length() + imm.value() == 0;
            }
        }
        return false;
    }

    /**
     * What a run produced.
     *
     * @param cyclesPerIteration total cycles / iterations
     * @param totalCycles        cycles until the last instruction retired
     * @param portCycles         busy cycles per port (same order as {@link SimulatorParams#ports()}) per iteration
     * @param waitCycles         per instruction of the block: average cycles from dispatch to issue
     * @param fallbacks          instruction forms that had no row of their own, with where the row used came
     *                           from ({@link RowSource#MNEMONIC} or {@link RowSource#GENERIC})
     * @param timeline           for the first instances: instance, then the cycles of predecode, decode, dispatch
     *                           (rename), issue (to a port), done and retire; -1 where the machine has no such
     *                           stage (the first machine has no front end)
     */
    public record Result(double cyclesPerIteration, long totalCycles, double[] portCycles, double[] waitCycles,
                         Map<String, RowSource> fallbacks, List<int[]> timeline) {
    }
}
