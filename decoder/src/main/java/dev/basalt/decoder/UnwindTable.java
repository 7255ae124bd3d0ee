package dev.basalt.decoder;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The function ranges an x86-64 ELF file's unwind table lists: every FDE (frame description entry) of its
 * {@code .eh_frame} section gives the start and the size of the code it describes — nearly every function of a
 * program built with unwind information (the default of gcc and clang on x86-64), stripped or not. Read by the
 * format of the Linux Standard Base's "Exception Frames" (the DWARF call frame format with the GNU pointer
 * encodings); only what locates the code is decoded, not the unwind instructions.
 *
 * <p>Bad data is bad input: a record whose length, pointer encoding or range does not fit is an {@link IOException}
 * naming the section offset, never a crash, and the reading stays within the section's bytes.
 */
public final class UnwindTable {

    private UnwindTable() {
    }

    /** One FDE's code: its start address and size in bytes. */
    public record Range(long start, long size) {
    }

    // Pointer encodings (DW_EH_PE_*): the format in the low four bits, how it applies in the next three.
    private static final int OMIT = 0xff;
    private static final int ABSPTR = 0x00;
    private static final int ULEB128 = 0x01;
    private static final int UDATA2 = 0x02;
    private static final int UDATA4 = 0x03;
    private static final int UDATA8 = 0x04;
    private static final int SLEB128 = 0x09;
    private static final int SDATA2 = 0x0a;
    private static final int SDATA4 = 0x0b;
    private static final int SDATA8 = 0x0c;
    private static final int PCREL = 0x10;
    private static final int DATAREL = 0x30;

    /**
     * The FDEs of an {@code .eh_frame} section whose bytes are {@code bytes}, loaded at {@code address}, in the
     * order they appear; {@code dataAddress} is the address {@code datarel} pointers count from ({@code .got}'s, or
     * 0 when the file has none — x86-64's compilers do not emit them for code addresses).
     *
     * @param file what to name in messages
     * @throws IOException when a record is malformed (its offset in the section named)
     */
    public static List<Range> ranges(byte[] bytes, long address, long dataAddress, String file) throws IOException {
        ByteBuffer buf = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        Map<Integer, Integer> fdeEncoding = new HashMap<>(); // CIE offset -> its 'R' pointer encoding
        List<Range> out = new ArrayList<>();
        int at = 0;
        while (at + 4 <= bytes.length) {
            int start = at;
            long length = Integer.toUnsignedLong(buf.getInt(at));
            at += 4;
            if (length == 0) {
                break; // the terminator
            }
            if (length == 0xffffffffL) {
                if (at + 8 > bytes.length) {
                    throw bad(file, start, "a 64-bit length past the section's end");
                }
                length = buf.getLong(at);
                at += 8;
            }
            if (length < 4 || length > bytes.length - at) {
                throw bad(file, start, "a record of " + length + " bytes where " + (bytes.length - at) + " remain");
            }
            int end = (int) (at + length);
            int idAt = at;
            long id = Integer.toUnsignedLong(buf.getInt(at));
            at += 4;
            if (id == 0) {
                fdeEncoding.put(start, cieEncoding(buf, at, end, file, start));
            } else {
                int cie = (int) (idAt - id); // the CIE pointer counts back from its own field
                Integer encoding = fdeEncoding.get(cie);
                if (cie < 0 || encoding == null) {
                    throw bad(file, start, "an FDE whose CIE pointer (" + id + ") names no CIE before it");
                }
                long[] begin = pointer(buf, at, end, encoding, address, dataAddress, file, start);
                long[] range = pointer(buf, (int) begin[1], end, encoding & 0x0f, address, dataAddress, file, start);
                if (range[0] < 0 || range[0] > Integer.MAX_VALUE) {
                    throw bad(file, start, "an FDE of " + range[0] + " bytes of code");
                }
                if (range[0] > 0) {
                    out.add(new Range(begin[0], range[0]));
                }
            }
            at = end;
        }
        return out;
    }

    /** A CIE's FDE pointer encoding (its augmentation's 'R'; absolute pointers without one). */
    private static int cieEncoding(ByteBuffer buf, int at, int end, String file, int record) throws IOException {
        if (at >= end) {
            throw bad(file, record, "a CIE without a version");
        }
        int version = Byte.toUnsignedInt(buf.get(at++));
        if (version != 1 && version != 3 && version != 4) {
            throw bad(file, record, "a CIE of version " + version + " (1, 3 or 4 expected)");
        }
        StringBuilder augmentation = new StringBuilder();
        while (true) {
            if (at >= end) {
                throw bad(file, record, "a CIE whose augmentation string does not end");
            }
            byte c = buf.get(at++);
            if (c == 0) {
                break;
            }
            augmentation.append((char) (c & 0xff));
        }
        String aug = augmentation.toString();
        if (aug.contains("eh")) {
            at += 8; // the GNU eh_data pointer
        }
        if (version == 4) {
            at += 2; // address size and segment selector size
        }
        at = skipLeb(buf, at, end, file, record); // code alignment
        at = skipLeb(buf, at, end, file, record); // data alignment
        at = version == 1 ? at + 1 : skipLeb(buf, at, end, file, record); // return address register
        if (!aug.startsWith("z")) {
            return ABSPTR;
        }
        long[] dataLength = uleb(buf, at, end, file, record);
        at = (int) dataLength[1];
        int dataEnd = (int) Math.min(end, at + dataLength[0]);
        int encoding = ABSPTR;
        for (int k = 1; k < aug.length(); k++) {
            char c = aug.charAt(k);
            if (at > dataEnd) {
                throw bad(file, record, "a CIE whose augmentation data is shorter than its string says");
            }
            switch (c) {
                case 'R' -> encoding = Byte.toUnsignedInt(buf.get(checked(at++, dataEnd, file, record)));
                case 'L' -> at++; // the LSDA's encoding
                case 'P' -> {
                    int personality = Byte.toUnsignedInt(buf.get(checked(at++, dataEnd, file, record)));
                    at = (int) pointer(buf, at, dataEnd, personality & 0x7f, 0, 0, file, record)[1];
                }
                case 'S', 'B', 'G' -> { }
                default -> throw bad(file, record, "a CIE with the unknown augmentation '" + aug + "'");
            }
        }
        if (encoding == OMIT || (encoding & 0x0f) == 0x05 || (encoding & 0x0f) > SDATA8) {
            throw bad(file, record, "a CIE with the FDE pointer encoding 0x" + Integer.toHexString(encoding));
        }
        return encoding;
    }

    private static int checked(int at, int end, String file, int record) throws IOException {
        if (at >= end) {
            throw bad(file, record, "a CIE whose augmentation data is shorter than its string says");
        }
        return at;
    }

    /** A pointer of {@code encoding} at {@code at}: {value, the offset after it}. */
    private static long[] pointer(ByteBuffer buf, int at, int end, int encoding, long address, long dataAddress,
                                  String file, int record) throws IOException {
        int format = encoding & 0x0f;
        long value;
        int next;
        if (format == ULEB128 || format == SLEB128) {
            long[] v = format == ULEB128 ? uleb(buf, at, end, file, record) : sleb(buf, at, end, file, record);
            value = v[0];
            next = (int) v[1];
        } else {
            int bytes = switch (format) {
                case ABSPTR, UDATA8, SDATA8 -> 8;
                case UDATA4, SDATA4 -> 4;
                case UDATA2, SDATA2 -> 2;
                default -> throw bad(file, record, "a pointer of encoding 0x" + Integer.toHexString(encoding));
            };
            if (at < 0 || at + bytes > end) {
                throw bad(file, record, "a pointer past the record's end");
            }
            value = bytes == 8 ? buf.getLong(at) : bytes == 4 ? buf.getInt(at) : buf.getShort(at);
            if (format == UDATA4 || format == UDATA2) { // unsigned: the bits as read, without the sign
                value &= bytes == 4 ? 0xffffffffL : 0xffffL;
            }
            next = at + bytes;
        }
        switch (encoding & 0x70) {
            case 0 -> { }
            case PCREL -> value += address + at;
            case DATAREL -> value += dataAddress;
            default -> throw bad(file, record, "a pointer applied as 0x" + Integer.toHexString(encoding & 0x70));
        }
        return new long[] {value, next};
    }

    private static int skipLeb(ByteBuffer buf, int at, int end, String file, int record) throws IOException {
        return (int) uleb(buf, at, end, file, record)[1];
    }

    private static long[] uleb(ByteBuffer buf, int at, int end, String file, int record) throws IOException {
        long value = 0;
        int shift = 0;
        while (true) {
            if (at >= end || shift > 63) {
                throw bad(file, record, "a LEB128 number past the record's end");
            }
            int b = Byte.toUnsignedInt(buf.get(at++));
            value |= (long) (b & 0x7f) << shift;
            shift += 7;
            if ((b & 0x80) == 0) {
                return new long[] {value, at};
            }
        }
    }

    private static long[] sleb(ByteBuffer buf, int at, int end, String file, int record) throws IOException {
        long value = 0;
        int shift = 0;
        int b;
        do {
            if (at >= end || shift > 63) {
                throw bad(file, record, "a LEB128 number past the record's end");
            }
            b = Byte.toUnsignedInt(buf.get(at++));
            value |= (long) (b & 0x7f) << shift;
            shift += 7;
        } while ((b & 0x80) != 0);
        if (shift < 64 && (b & 0x40) != 0) {
            value |= -1L << shift;
        }
        return new long[] {value, at};
    }

    private static IOException bad(String file, int offset, String what) {
        return new IOException(file + ": malformed .eh_frame at offset 0x" + Integer.toHexString(offset) + ": "
                + what);
    }
}
