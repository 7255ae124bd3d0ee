package dev.basalt.simulator.facts;

import dev.basalt.simulator.params.CoreParams;
import dev.basalt.decoder.BasicBlock;
import dev.basalt.decoder.Instruction;

/**
 * The front end's facts of a block, as uiCA decides them: which adjacent pairs macro-fuse, and where a loop's
 * micro-ops come from (micro-op cache, loop stream detector or legacy decoders). Kept apart from {@link BlockFacts},
 * which asks them once per block and keeps the answers in its fields.
 */
final class FrontEndFacts {

    private FrontEndFacts() {
    }

    /**
     * Whether {@code jump} macro-fuses with {@code first} before it: the CPU's pairs ({@link
     * CoreParams.LoopFrontEnd#macroFusion()}), and never a first instruction with both a memory operand and an
     * immediate, nor a microcoded one.
     */
    static boolean fuses(CoreParams.LoopFrontEnd lf, Instruction first, Instruction jump, InstructionShape shape) {
        if (jump.mnemonic().charAt(0) != 'j' || shape.microcoded() // most pairs: no jump, no string work
                || !lf.fuses(first.mnemonic().toUpperCase(java.util.Locale.ROOT),
                jump.mnemonic().toUpperCase(java.util.Locale.ROOT))) {
            return false;
        }
        boolean memory = false;
        boolean immediate = false;
        for (int oi = 0, on = first.visibleOperands().size(); oi < on; oi++) {
            dev.basalt.decoder.Operand op = first.visibleOperands().get(oi); // indexed: C1 allocates an iterator per loop
            memory |= op instanceof dev.basalt.decoder.Operand.MemoryOperand;
            immediate |= op instanceof dev.basalt.decoder.Operand.ImmediateOperand;
        }
        return !(memory && immediate);
    }

    /** The fused micro-ops of one iteration as the front end delivers them. */
    static int iterationUops(InstructionShape[] shape) {
        int uops = 0;
        for (InstructionShape s : shape) {
            uops += s.decodeUops();
        }
        return uops;
    }

    /**
     * Where a loop's micro-ops come from (as uiCA decides): the micro-op cache when every window of its code fits
     * in the cache's ways and no jump is excluded by the JCC erratum, and then the loop stream detector instead
     * when the CPU has one and the loop fits in it (and holds no microcoded instruction); else the legacy
     * decoders. {@code offset}, {@code shape} and {@code fusedTail} are the block's, per instruction.
     */
    static RunModel.UopSource uopSource(CoreParams.LoopFrontEnd lf, BasicBlock block, int[] offset,
                                        InstructionShape[] shape, boolean[] fusedTail) {
        if (lf.dsbUopsPerCycle() == 0 || !fitsMicroOpCache(lf, block, offset, shape, fusedTail)) {
            return RunModel.UopSource.LEGACY;
        }
        boolean microcoded = false;
        for (InstructionShape s : shape) {
            microcoded |= s.microcoded();
        }
        return lf.lsdUops() > 0 && !microcoded && iterationUops(shape) <= lf.lsdUops() ? RunModel.UopSource.LSD
                : RunModel.UopSource.DSB;
    }

    private static boolean fitsMicroOpCache(CoreParams.LoopFrontEnd lf, BasicBlock block, int[] offset,
                                            InstructionShape[] shape, boolean[] fusedTail) {
        int n = block.size();
        int w = lf.dsbWindowBytes();
        int[] windowUops = new int[(int) ((offset[n - 1] + shape[n - 1].length()) / w) + 1];
        for (int i = 0; i < n; i++) {
            windowUops[offset[i] / w] += shape[i].decodeUops();
            if (lf.jccErratum() && isJump(block.instruction(i))) {
                // The jump, with its flag setter when fused: crossing or ending on a window boundary.
                int first = fusedTail[i] ? i - 1 : i;
                long begin = offset[first];
                long end = offset[i] + shape[i].length(); // one past the last byte
                if (begin / w != (end - 1) / w || end % w == 0) {
                    return false;
                }
            }
        }
        for (int u : windowUops) {
            if (u > lf.dsbWindowUops()) {
                return false;
            }
        }
        return true;
    }

    private static boolean isJump(Instruction insn) {
        String m = insn.mnemonic();
        return m.startsWith("j") || m.startsWith("loop") || m.equals("call") || m.equals("ret");
    }
}
