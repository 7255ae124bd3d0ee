package dev.basalt.decoder;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class HexTest {

    private static final byte[] EXPECTED = {0x48, (byte) 0x89, (byte) 0xde};

    @ParameterizedTest
    @ValueSource(strings = {"4889de", "4889DE", "48 89 de", "0x4889de", "0x48 0x89 0xDE", "  48\t89\nde  ",
        "0X48 89 0xde"})
    void acceptsBhiveStyleVariants(String text) {
        assertArrayEquals(EXPECTED, Hex.parse(text));
    }

    @Test
    void roundTrip() {
        assertEquals("4889de", Hex.format(Hex.parse("48 89 DE")));
    }

    @Test
    void errorsNameTheByteOffset() {
        DecodeException odd = assertThrows(DecodeException.class, () -> Hex.parse("4889d"));
        assertEquals(2, odd.byteOffset());
        assertTrue(odd.getMessage().contains("odd number of hex digits"), odd.getMessage());

        DecodeException bad = assertThrows(DecodeException.class, () -> Hex.parse("4889zz"));
        assertEquals(2, bad.byteOffset());
        assertTrue(bad.getMessage().contains("'z' at character 5"), bad.getMessage());

        DecodeException empty = assertThrows(DecodeException.class, () -> Hex.parse("  "));
        assertEquals(0, empty.byteOffset());
        assertTrue(empty.getMessage().contains("empty"), empty.getMessage());

        // Unicode digits are digits to Character.digit but not hex to us.
        assertThrows(DecodeException.class, () -> Hex.parse("48\u0663\u0663"));
        assertThrows(DecodeException.class, () -> Hex.parse("0x"));
        assertThrows(DecodeException.class, () -> Hex.parse(null));
    }
}
