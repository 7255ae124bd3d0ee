package dev.basalt.decoder;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Bad machine code gives a {@link DecodeException} naming the byte offset, and never crashes the JVM. */
class BadInputTest {

    @Test
    void emptyBlock() {
        DecodeException e = assertThrows(DecodeException.class, () -> BasicBlock.fromBytes(new byte[0]));
        assertEquals(0, e.byteOffset());
    }

    @Test
    void truncatedInstructionAfterAGoodOne() {
        // mov rsi, rbx; then the first 3 of mov rsi, [rsp+0x30]'s 5 bytes
        DecodeException e = assertThrows(DecodeException.class, () -> BasicBlock.fromHex("4889de488b74"));
        assertEquals(3, e.byteOffset());
        assertTrue(e.getMessage().contains("truncated"), e.getMessage());
    }

    @Test
    void invalidOpcode() {
        // 0x06 (push es) does not exist in 64-bit mode
        DecodeException e = assertThrows(DecodeException.class, () -> BasicBlock.fromHex("4889de06"));
        assertEquals(3, e.byteOffset());
        assertTrue(e.getMessage().contains("invalid instruction encoding"), e.getMessage());
    }

    @Test
    void tooLongInstruction() {
        // 15 operand-size prefixes before a nop: 16 bytes, over the 15-byte limit
        DecodeException e = assertThrows(DecodeException.class,
                () -> BasicBlock.fromHex("66".repeat(15) + "90"));
        assertEquals(0, e.byteOffset());
    }

    @Test
    void hundredKilobytes() {
        byte[] nops = new byte[100 * 1024];
        java.util.Arrays.fill(nops, (byte) 0x90);
        DecodeException e = assertThrows(DecodeException.class, () -> BasicBlock.fromBytes(nops));
        assertEquals(Zydis.MAX_BLOCK_BYTES, e.byteOffset());
        assertTrue(e.getMessage().contains("102400 bytes"), e.getMessage());
    }

    @Test
    void largestAllowedBlockDecodes() {
        byte[] nops = new byte[Zydis.MAX_BLOCK_BYTES];
        java.util.Arrays.fill(nops, (byte) 0x90);
        assertEquals(Zydis.MAX_BLOCK_BYTES, BasicBlock.fromBytes(nops).size());
    }

    @Test
    void callerArrayIsCopied() {
        byte[] bytes = {0x48, (byte) 0x89, (byte) 0xde};
        BasicBlock b = BasicBlock.fromBytes(bytes);
        bytes[2] = 0;
        assertEquals("4889de", b.hex());
    }

    /**
     * 200,000 random byte strings (1..48 bytes) and random mutations of real BHive blocks: each either
     * decodes into instructions that exactly tile the bytes or throws a DecodeException with an offset
     * inside the block. A native read past a buffer would crash the JVM and fail the whole run.
     */
    @Test
    void randomAndMutatedBytesNeverCrash() throws Exception {
        SplittableRandom rnd = new SplittableRandom(20261122L);
        List<String> real = TestBlocks.bhiveSample();
        int decoded = 0;
        int rejected = 0;
        for (int n = 0; n < 200_000; n++) {
            byte[] bytes;
            if (n % 2 == 0) {
                bytes = new byte[1 + rnd.nextInt(48)];
                for (int k = 0; k < bytes.length; k++) {
                    bytes[k] = (byte) rnd.nextInt(256);
                }
            } else {
                bytes = mutate(Hex.parse(real.get(rnd.nextInt(real.size()))), rnd);
            }
            try {
                BasicBlock b = BasicBlock.fromBytes(bytes);
                int end = 0;
                for (Instruction i : b.instructions()) {
                    assertEquals(end, i.offset());
                    end += i.length();
                }
                assertEquals(bytes.length, end);
                b.dependencyGraph();
                decoded++;
            } catch (DecodeException e) {
                assertTrue(e.byteOffset() >= 0 && e.byteOffset() < Math.max(1, bytes.length), e.getMessage());
                rejected++;
            }
        }
        assertEquals(200_000, decoded + rejected);
        assertTrue(decoded > 10_000 && rejected > 10_000, "both outcomes exercised: " + decoded + "/" + rejected);
    }

    private static byte[] mutate(byte[] block, SplittableRandom rnd) {
        byte[] b = block.clone();
        int edits = 1 + rnd.nextInt(4);
        for (int e = 0; e < edits; e++) {
            switch (rnd.nextInt(3)) {
                case 0 -> b[rnd.nextInt(b.length)] = (byte) rnd.nextInt(256);
                case 1 -> b = java.util.Arrays.copyOf(b, Math.max(1, b.length - 1 - rnd.nextInt(Math.min(4, b.length))));
                default -> {
                    byte[] longer = java.util.Arrays.copyOf(b, b.length + 1);
                    longer[b.length] = (byte) rnd.nextInt(256);
                    b = longer;
                }
            }
        }
        return b;
    }
}
