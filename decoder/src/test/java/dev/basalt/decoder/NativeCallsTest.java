package dev.basalt.decoder;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** The two bindings of the decoding hot path (JNA and the foreign-function API) decode identically. */
class NativeCallsTest {

    private static final NativeCalls JNA = new NativeCalls.Jna();


    private static void assumeForeignAccess() {
        assumeTrue(ModuleLayer.boot().findModule("jdk.incubator.foreign").isPresent(),
                "SKIPPED: this JVM runs without --add-modules jdk.incubator.foreign, so only JNA is available");
    }

    @Test
    void testsRunThroughTheForeignFunctionApi() {
        assumeForeignAccess();
        assertEquals("panama", BasicBlock.nativeBinding());
    }

    @Test
    void jnaAndPanamaDecodeRealBlocksIdentically() throws Exception {
        assumeForeignAccess();
        Zydis z = Zydis.get();
        int instructions = 0;
        for (String hex : TestBlocks.bhiveSample()) {
            byte[] bytes = Hex.parse(hex);
            List<Instruction> viaDefault = z.decode(bytes, bytes.length, false);
            List<Instruction> viaJna = z.decode(bytes, bytes.length, false, JNA);
            TestBlocks.assertSameInstructions(viaJna, viaDefault, hex);
            instructions += viaJna.size();
        }
        assertTrue(instructions > 5_000, "compared " + instructions + " instructions");
    }

    @Test
    void jnaAndPanamaRejectBadBytesAlike() {
        assumeForeignAccess();
        Zydis z = Zydis.get();
        SplittableRandom rnd = new SplittableRandom(20261122L);
        int rejected = 0;
        for (int t = 0; t < 20_000; t++) {
            byte[] bytes = new byte[1 + rnd.nextInt(24)];
            rnd.nextBytes(bytes);
            DecodeException viaJna = null;
            List<Instruction> decoded = null;
            try {
                decoded = z.decode(bytes, bytes.length, false, JNA);
            } catch (DecodeException e) {
                viaJna = e;
            }
            if (viaJna == null) {
                List<Instruction> viaDefault = z.decode(bytes, bytes.length, false);
                TestBlocks.assertSameInstructions(decoded, viaDefault, Hex.format(bytes));
            } else {
                DecodeException viaDefault = assertThrows(DecodeException.class,
                        () -> z.decode(bytes, bytes.length, false));
                assertEquals(viaJna.getMessage(), viaDefault.getMessage(), Hex.format(bytes));
                rejected++;
            }
        }
        assertTrue(rejected > 1_000, "only " + rejected + " random strings were rejected");
    }
}
