package dev.basalt.explain;

import dev.basalt.core.Microarchitecture;
import dev.basalt.decoder.BasicBlock;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The explained block's size limit. */
class ExplainerTest {

    private static BasicBlock adds(int n) {
        return BasicBlock.fromHex("4801d8".repeat(n)); // add rax, rbx
    }

    @Test
    void blocksUpToTheLimitAreTakenAndLargerOnesRefusedNamingBoth() {
        assertEquals(512, Explainer.MAX_INSTRUCTIONS);
        assertTrue(Explainer.tooLarge(adds(Explainer.MAX_INSTRUCTIONS)).isEmpty());
        assertTrue(Explainer.tooLarge(ExplainTestData.largestHaswellTest()).isEmpty());
        assertEquals("block of 513 instructions: explain takes at most 512 (predict and simulate take larger ones)",
                Explainer.tooLarge(adds(513)).orElseThrow());
        Explainer explainer = new Explainer(Explainer.Config.defaults(), ExplainTestData.pool());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> explainer.explain(adds(600),
                Microarchitecture.HASWELL, CrudeModel.haswell(), Explainer.Method.SHAPLEY));
        assertTrue(e.getMessage().startsWith("block of 600 instructions"), e.getMessage());
    }
}
