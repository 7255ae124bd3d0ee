package dev.basalt.explain;

import dev.basalt.decoder.BasicBlock;
import dev.basalt.decoder.EncoderRequest;
import dev.basalt.decoder.Instruction;
import dev.basalt.decoder.Operand;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Property test of the perturbation engine over real test-split blocks and random anchors. */
class PerturberTest {

    /** Visible operands naming the stack pointer. */
    private static int stackPointers(Instruction insn) {
        int n = 0;
        for (Operand o : insn.visibleOperands()) {
            if (o instanceof Operand.RegisterOperand r && r.register().enclosingName().equals("rsp")) {
                n++;
            } else if (o instanceof Operand.MemoryOperand m && m.base().enclosingName().equals("rsp")) {
                n++;
            }
        }
        return n;
    }

    @Test
    void everyPerturbationIsRealCodeThatReEncodesAndKeepsItsAnchor() {
        List<BasicBlock> blocks = ExplainTestData.haswellTest().subList(0, 150);
        SplittableRandom random = new SplittableRandom(7);
        int perturbations = 0;
        int changedInstructions = 0;
        int deleted = 0;
        int swapped = 0;
        int originals = 0;
        for (BasicBlock block : blocks) {
            BlockFeatures features = new BlockFeatures(block);
            Perturber perturber = new Perturber(features, ExplainTestData.pool(), Perturber.Config.defaults());
            for (int s = 0; s < 30; s++) {
                // A random anchor of 0-2 features.
                Set<Feature> anchor = new TreeSet<>();
                int size = random.nextInt(3);
                for (int k = 0; k < size; k++) {
                    anchor.add(features.feature(random.nextInt(features.size())));
                }
                Perturbation p = perturber.draw(anchor, random);
                perturbations++;
                // Decodes: the perturbed block is a BasicBlock decoded from its bytes, and decodes again the same.
                BasicBlock again = BasicBlock.fromBytes(p.block().bytes());
                assertEquals(p.block().size(), again.size());
                for (int k = 0; k < p.block().size(); k++) {
                    Instruction insn = p.block().instruction(k);
                    Instruction original = block.instruction(p.originOf(k));
                    if (p.isChanged(k)) {
                        changedInstructions++;
                        // Re-encodes to the same bytes.
                        assertArrayEquals(insn.bytes(), EncoderRequest.of(insn).encode(), insn + " in " + p.block());
                        // Never renames a visible register to or from the stack pointer (a mnemonic swap may
                        // change implicit ones: pop r64 -> neg r64).
                        assertEquals(stackPointers(original), stackPointers(insn), original + " -> " + insn);
                        swapped += insn.mnemonic().equals(original.mnemonic()) ? 0 : 1;
                    } else {
                        assertArrayEquals(original.bytes(), insn.bytes());
                    }
                }
                deleted += block.size() - p.block().size();
                originals += block.size();
                // Keeps the anchored features.
                BitSet kept = features.preserved(p);
                for (Feature f : anchor) {
                    assertTrue(kept.get(features.indexOf(f)), f.name() + " lost in " + p.block() + " from " + block);
                }
            }
        }
        System.out.printf("PerturberTest: %d perturbations of %d blocks: %.1f%% of instructions deleted, %.1f%% "
                        + "re-encoded (%d with another mnemonic)%n", perturbations, blocks.size(),
                100.0 * deleted / originals, 100.0 * changedInstructions / originals, swapped);
        // The engine really perturbs: about a third deleted and a sixth changed when nothing is anchored.
        assertTrue(deleted > originals / 6, "deleted " + deleted + " of " + originals);
        assertTrue(changedInstructions > originals / 20, "changed " + changedInstructions + " of " + originals);
        assertTrue(swapped > changedInstructions / 10, "swapped " + swapped);
    }

    @Test
    void theSameSeedGivesTheSamePerturbations() {
        BasicBlock block = ExplainTestData.haswellTest().get(5);
        Perturber perturber = new Perturber(new BlockFeatures(block), ExplainTestData.pool(),
                Perturber.Config.defaults());
        List<String> a = new ArrayList<>();
        List<String> b = new ArrayList<>();
        SplittableRandom r1 = new SplittableRandom(3);
        SplittableRandom r2 = new SplittableRandom(3);
        for (int s = 0; s < 50; s++) {
            a.add(perturber.draw(Set.of(), r1).block().hex());
            b.add(perturber.draw(Set.of(), r2).block().hex());
        }
        assertEquals(a, b);
        assertTrue(a.stream().distinct().count() > 10, "50 draws gave only " + a.stream().distinct().count()
                + " distinct blocks");
    }

    @Test
    void anAnchoredCountDeletesNothingAndAnAnchoredInstructionKeepsItsMnemonic() {
        // add rax, rbx; add rcx, rdx; div rsi; add r8, r9 (div reads rdx:rax, writes rax and rdx)
        BasicBlock block = BasicBlock.fromHex("4801d84801d148f7f64d01c8");
        BlockFeatures features = new BlockFeatures(block);
        Perturber perturber = new Perturber(features, ExplainTestData.pool(), Perturber.Config.defaults());
        SplittableRandom random = new SplittableRandom(11);
        Set<Feature> anchor = Set.of(new Feature.NumInsts(), new Feature.Inst(2));
        int swappedElsewhere = 0;
        for (int s = 0; s < 500; s++) {
            Perturbation p = perturber.draw(anchor, random);
            assertEquals(4, p.block().size());
            assertArrayEquals(new int[] {0, 1, 2, 3}, p.origin());
            assertEquals("div", p.block().instruction(2).mnemonic());
            swappedElsewhere += p.block().instruction(0).mnemonic().equals("add") ? 0 : 1;
        }
        assertTrue(swappedElsewhere > 20, "instruction 0 was swapped only " + swappedElsewhere + " times in 500");
        assertEquals("[inst_0, inst_1, inst_2, inst_3, dep(0,2,RAW), dep(1,2,WAR), num_insts]",
                features.features().stream().map(Feature::name).toList().toString());
        assertEquals(List.of(0, 1, 2, 3), Arrays.stream(perturber.identity().origin()).boxed().toList());
    }
}
