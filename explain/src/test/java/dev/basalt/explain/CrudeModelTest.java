package dev.basalt.explain;

import dev.basalt.core.Microarchitecture;
import dev.basalt.decoder.BasicBlock;
import dev.basalt.decoder.DependencyKind;
import org.junit.jupiter.api.Test;

import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The crude model against values worked out by hand from the bundled Haswell table (haswell.json: ADD r64, r64
 * = 1 micro-op on 0156 → 0.25; DIV r64 = 32 micro-ops, 21 cycles on 01 and 12 on 56 → max(32/4, 21/2, 12/2) =
 * 10.5; IMUL r64, r64 = 1 cycle on port 1 → 1).
 */
class CrudeModelTest {

    private final CrudeModel crude = CrudeModel.haswell();

    @Test
    void aDivFedByAnAddIsThePairTerm() {
        // add rax, rbx; add rcx, rdx; div rsi; add r8, r9: the RAW pair 0 -> 2 (rax) costs 0.25 + 10.5.
        BasicBlock b = BasicBlock.fromHex("4801d84801d148f7f64d01c8");
        assertEquals(0.25, crude.reciprocalThroughput(b.instruction(0)), 1e-12);
        assertEquals(10.5, crude.reciprocalThroughput(b.instruction(2)), 1e-12);
        assertEquals(10.75, crude.predict(b, Microarchitecture.HASWELL).cyclesPerIteration(), 1e-12);
        assertEquals(Set.of(new Feature.Dep(0, 2, DependencyKind.RAW)), crude.trueExplanation(b));
    }

    @Test
    void tiesKeepEveryArgMaxFeature() {
        // add r8, r9; imul rax, rax; add rcx, rdx; add rsi, rdi: 4 / 4 = 1 = imul's reciprocal throughput.
        BasicBlock b = BasicBlock.fromHex("4d01c8480fafc04801d14801fe");
        assertEquals(1.0, crude.predict(b, Microarchitecture.HASWELL).cyclesPerIteration(), 1e-12);
        assertEquals(Set.of(new Feature.Inst(1), new Feature.NumInsts()), crude.trueExplanation(b));
    }

    @Test
    void onlyHaswellIsSupported() {
        BasicBlock b = BasicBlock.fromHex("4801d8");
        assertThrows(IllegalArgumentException.class, () -> crude.predict(b, Microarchitecture.SKYLAKE));
    }
}
