package dev.basalt.decoder;

import java.io.ByteArrayOutputStream;
import java.util.HexFormat;

/** Parses BHive-style hex text into bytes. */
public final class Hex {

    private Hex() {
    }

    /**
     * Parses hex text: digits in either case, optional whitespace anywhere, and an optional {@code 0x} at the
     * start of each whitespace-separated group ({@code 4889de}, {@code 48 89 DE}, {@code 0x48 0x89 0xde}).
     *
     * @throws DecodeException naming the byte offset for empty text, a non-hex character or an odd number of
     *                         digits
     */
    public static byte[] parse(String text) {
        if (text == null) {
            throw new DecodeException(0, "no input (null)");
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(text.length() / 2);
        int high = -1;
        boolean groupStart = true;
        int n = text.length();
        for (int i = 0; i < n; i++) {
            char c = text.charAt(i);
            if (Character.isWhitespace(c)) {
                // Like xxd -r -p, a digit pair split by whitespace ("4 8") is still one byte.
                groupStart = true;
                continue;
            }
            if (groupStart && c == '0' && i + 1 < n && (text.charAt(i + 1) == 'x' || text.charAt(i + 1) == 'X')
                    && high < 0) {
                i++;
                groupStart = false;
                continue;
            }
            groupStart = false;
            int d = Character.digit(c, 16);
            if (d < 0 || c > 'f') {
                throw new DecodeException(out.size(), "'" + printable(c) + "' at character " + (i + 1)
                        + " is not a hex digit");
            }
            if (high < 0) {
                high = d;
            } else {
                out.write((high << 4) | d);
                high = -1;
            }
        }
        if (high >= 0) {
            throw new DecodeException(out.size(), "odd number of hex digits: the last byte has only one digit");
        }
        if (out.size() == 0) {
            throw new DecodeException(0, "empty input: no hex digits");
        }
        return out.toByteArray();
    }

    /** Lower-case hex of the bytes, no separators (BHive's form). */
    public static String format(byte[] bytes) {
        return HexFormat.of().formatHex(bytes);
    }

    private static String printable(char c) {
        return c >= 0x20 && c < 0x7f ? String.valueOf(c) : String.format("\\u%04x", (int) c);
    }
}
