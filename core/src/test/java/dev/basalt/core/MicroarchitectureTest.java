package dev.basalt.core;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MicroarchitectureTest {
    @Test
    void parsesLlvmNamesAndAliases() {
        assertEquals(Microarchitecture.HASWELL, Microarchitecture.parse("haswell"));
        assertEquals(Microarchitecture.HASWELL, Microarchitecture.parse("HSW"));
        assertEquals(Microarchitecture.SKYLAKE, Microarchitecture.parse(" skl "));
        assertEquals(Microarchitecture.IVYBRIDGE, Microarchitecture.parse("IvyBridge"));
        assertEquals("skylake", Microarchitecture.SKYLAKE.toString());
    }

    @Test
    void rejectsUnknownNamesListingTheValidOnes() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Microarchitecture.parse("zen6"));
        assertTrue(e.getMessage().contains("'zen6'") && e.getMessage().contains("haswell (hsw)")
                && e.getMessage().contains("znver5 (zen5)"), e.getMessage());
    }

    @Test
    void theZenDescriptorsSayWhereEachNumberComesFrom() {
        for (String name : new String[] {"znver4", "znver5"}) {
            CpuDescriptor d = Microarchitecture.parse(name).descriptor();
            for (String field : new String[] {"dispatchWidth", "robSize", "schedulerSize", "loadLatency", "llvmMcaPorts",
                    "rows", "core.memoryRenaming, core.storeForwardLatency", "core.lockCycles"}) {
                org.junit.jupiter.api.Assertions.assertFalse(d.sources().getOrDefault(field, "").isBlank(),
                        name + " names no source for " + field);
            }
        }
        assertTrue(Microarchitecture.parse("znver5").descriptor().measured().isPresent());
        assertTrue(Microarchitecture.parse("znver4").descriptor().measured().isEmpty());
    }
}
