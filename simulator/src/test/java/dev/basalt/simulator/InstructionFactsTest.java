package dev.basalt.simulator;

import dev.basalt.core.Microarchitecture;
import dev.basalt.decoder.BasicBlock;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The per-decoding facts caches change nothing but speed, stay within their bound, and may be shared between CPUs'
 * simulators for what the bytes alone say.
 */
class InstructionFactsTest {

    private static final List<BasicBlock> BLOCKS = SampleBlocks.haswell(200);

    private static String everything(Simulator sim, BasicBlock b) {
        Simulator.Options o = Simulator.Options.defaults();
        Simulator.Result r = sim.run(b, o);
        Bounds x = sim.bounds(b, o);
        return r.cyclesPerIteration() + " " + Arrays.toString(r.portCycles()) + " " + Arrays.toString(r.waitCycles())
                + " " + r.fallbacks() + " " + x.describe() + " " + Arrays.deepToString(x.shares());
    }

    @Test
    void aTinyCacheGivesWhatAFullOneGives() {
        SimulatorParams table = SimulatorParams.standard(Microarchitecture.HASWELL);
        Simulator full = new Simulator(table);
        InstructionFacts.Cache tiny = new InstructionFacts.Cache(3);
        Simulator bounded = new Simulator(table, tiny);
        for (BasicBlock b : BLOCKS) {
            String first = everything(full, b);
            assertEquals(first, everything(full, b), "cached facts (second run) on " + b.hex());
            assertEquals(first, everything(bounded, b), "facts of a cache that keeps 3 decodings on " + b.hex());
            assertTrue(tiny.forSwitches(Simulator.Options.defaults()).size() <= 3, "the cache outgrew its bound");
        }
    }

    @Test
    void simulatorsOfTwoCpusSharingTheirEncodingsGiveWhatEachGivesAlone() {
        EncodingFacts.Cache shared = new EncodingFacts.Cache();
        // Skylake first, so that Haswell's simulator finds every encoding's facts made by another CPU's.
        Simulator skylake = new Simulator(SimulatorParams.standard(Microarchitecture.SKYLAKE), shared, Microarchitecture.SKYLAKE);
        Simulator haswell = new Simulator(SimulatorParams.standard(Microarchitecture.HASWELL), shared, Microarchitecture.HASWELL);
        Simulator skylakeAlone = new Simulator(SimulatorParams.standard(Microarchitecture.SKYLAKE));
        Simulator haswellAlone = new Simulator(SimulatorParams.standard(Microarchitecture.HASWELL));
        for (BasicBlock b : BLOCKS) {
            assertEquals(everything(skylakeAlone, b), everything(skylake, b), "Skylake on " + b.hex());
        }
        int encodings = shared.size();
        assertTrue(encodings > 100, "the blocks' encodings: " + encodings);
        for (BasicBlock b : BLOCKS) {
            assertEquals(everything(haswellAlone, b), everything(haswell, b), "Haswell on " + b.hex());
        }
        assertEquals(encodings, shared.size(), "Haswell's simulator computed encodings' facts Skylake's had made");
    }

    @Test
    void oneWalkOverTheOperandsFindsWhatEachHelperFinds() {
        int checked = 0;
        for (BasicBlock b : SampleBlocks.haswell(400)) {
            for (int i = 0; i < b.size(); i++) {
                dev.basalt.decoder.Instruction insn = b.instruction(i);
                EncodingFacts e = EncodingFacts.of(insn);
                String what = insn + " in " + b.hex();
                assertEquals(InstructionShape.loads(insn), e.loads(), what);
                assertEquals(InstructionShape.stores(insn), e.stores(), what);
                assertEquals(InstructionShape.locked(insn), e.locked(), what);
                assertEquals(InstructionShape.slowLea(insn), e.slowLea(), what);
                assertEquals(InstructionShape.usesStackPointer(insn), e.usesStackPointer(), what);
                assertEquals(InstructionShape.writesStackPointer(insn), e.writesStackPointer(), what);
                assertEquals(InstructionShape.lengthChanging(insn), e.lengthChanging(), what);
                assertEquals(InstructionShape.opcodeOffset(insn.bytes()), e.opcodeOffset(), what);
                assertEquals(InstructionShape.moveRegisterFile(insn), e.moveRegisterFile(), what);
                // Micro-fusion and unlamination read every memory operand, hidden ones too; unlamination the last.
                boolean reads = false;
                boolean writes = false;
                boolean indexed = false;
                for (dev.basalt.decoder.Operand op : insn.operands()) {
                    if (op instanceof dev.basalt.decoder.Operand.MemoryOperand m) {
                        reads |= m.action().readsOldValue();
                        writes |= m.action().write() || m.action().conditionalWrite();
                        indexed = m.index().isPresent();
                    }
                }
                List<dev.basalt.decoder.Operand> visible = insn.visibleOperands();
                boolean destructive = visible.size() == 2
                        && visible.get(0) instanceof dev.basalt.decoder.Operand.RegisterOperand r
                        && r.action().readsOldValue() && r.action().write()
                        && visible.get(1) instanceof dev.basalt.decoder.Operand.MemoryOperand;
                assertEquals(List.of(reads, writes, indexed, destructive),
                        List.of(e.readsMemory(), e.writesMemory(), e.indexedMemory(), e.destructive()), what);
                checked++;
            }
        }
        assertTrue(checked > 2000, "instructions checked: " + checked);
    }
}
