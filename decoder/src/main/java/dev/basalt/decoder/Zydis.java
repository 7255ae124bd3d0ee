package dev.basalt.decoder;

import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;
import com.sun.jna.Pointer;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The loaded Zydis 4.0 library: decoding and formatting, plus name tables read once at load time.
 *
 * <p>Each call decodes one instruction with {@code ZydisDecoderDecodeFull} into a per-thread native buffer
 * holding the 328-byte {@code ZydisDecodedInstruction} followed by its 80-byte operands, then copies
 * {@code 328 + 80 × operand_count} bytes to the Java heap in one bulk copy and reads fields at their C
 * offsets (checked against the headers of {@code libzydis-dev} 4.0 and by {@code ZydisLayoutTest}). Names of
 * mnemonics and registers come from tables filled at load, so a decode makes exactly two JNI calls.
 *
 * <p>Thread-safe: the decoder and formatter structs are only read by Zydis after initialisation; the
 * scratch buffers are per thread.
 */
final class Zydis {

    /** Largest block accepted, in bytes. BHive's largest block is 2,095 bytes. */
    static final int MAX_BLOCK_BYTES = 16 * 1024;

    private static final String LIBRARY_NAME = "libZydis.so.4.0";
    private static final String INSTALL_HINT = "install it with 'sudo apt-get install libzydis4.0' (Debian/Ubuntu),"
            + " or point BASALT_ZYDIS_LIB (or -Dbasalt.zydis.lib) at a Zydis 4.0 libZydis.so";

    // Zydis 4.0 enum values and struct layout (x86-64).
    private static final int MACHINE_MODE_LONG_64 = 0;
    private static final int STACK_WIDTH_64 = 2;
    private static final int FORMATTER_STYLE_INTEL = 1;
    private static final int PROP_FORCE_SIZE = 0;
    private static final int PROP_FORCE_RELATIVE_BRANCHES = 3;
    private static final int PROP_FORCE_RELATIVE_RIPREL = 4;
    private static final int PROP_ADDR_PADDING_ABSOLUTE = 9;
    private static final int PROP_DISP_PADDING = 13;
    private static final int PROP_HEX_UPPERCASE = 24;
    private static final int PROP_IMM_PADDING = 16;
    private static final int PADDING_DISABLED = 0;
    private static final int STATUS_FAILURE_BIT = 0x80000000;
    static final int INSTRUCTION_SIZE = 328;
    static final int OPERAND_SIZE = 80;
    static final int MAX_OPERANDS = 10;
    private static final int MNEMONIC_MAX = 1754;
    private static final int REGISTER_MAX = 265;
    private static final int CATEGORY_MAX = 108;
    private static final int ISA_SET_MAX = 182;
    private static final int ISA_EXT_MAX = 88;

    // ZydisDecodedInstruction field offsets.
    private static final int I_MNEMONIC = 4;
    private static final int I_LENGTH = 8;
    private static final int I_OPERAND_COUNT = 24;
    private static final int I_OPERAND_COUNT_VISIBLE = 25;
    private static final int I_ATTRIBUTES = 32;
    private static final int I_CPU_FLAGS = 40;
    private static final int I_CATEGORY = 92;
    private static final int I_ISA_SET = 96;
    private static final int I_ISA_EXT = 100;
    private static final int I_RAW_DISP_SIZE = 272;
    private static final int I_RAW_IMM0_SIZE = 296;
    private static final int I_RAW_IMM1_SIZE = 320;
    // ZydisDecodedOperand field offsets.
    private static final int O_VISIBILITY = 4;
    private static final int O_ACTIONS = 8;
    private static final int O_ENCODING = 12;
    private static final int O_SIZE = 16;
    private static final int O_TYPE = 32;
    private static final int O_REG = 40;
    private static final int O_MEM_TYPE = 40;
    private static final int O_MEM_SEGMENT = 44;
    private static final int O_MEM_BASE = 48;
    private static final int O_MEM_INDEX = 52;
    private static final int O_MEM_SCALE = 56;
    private static final int O_MEM_DISP = 72;
    private static final int O_IMM_SIGNED = 40;
    private static final int O_IMM_RELATIVE = 41;
    private static final int O_IMM_VALUE = 48;
    private static final int O_PTR_OFFSET = 44;

    private static final int OPERAND_TYPE_REGISTER = 1;
    private static final int OPERAND_TYPE_MEMORY = 2;
    private static final int OPERAND_TYPE_POINTER = 3;
    private static final int OPERAND_TYPE_IMMEDIATE = 4;
    private static final int MEMOP_TYPE_AGEN = 2;
    private static final int MEMOP_TYPE_MIB = 3;
    private static final int OPERAND_ENCODING_MASK = 6;
    private static final int REGISTER_K0 = 248;

    static final long ATTRIB_HAS_LOCK = 0x8000000L;
    static final long ATTRIB_HAS_REP = 0x10000000L;
    static final long ATTRIB_HAS_REPE = 0x20000000L;
    static final long ATTRIB_HAS_REPNE = 0x40000000L;
    static final long ATTRIB_HAS_BND = 0x80000000L;
    static final long ATTRIB_HAS_XACQUIRE = 0x100000000L;
    static final long ATTRIB_HAS_XRELEASE = 0x200000000L;

    /** Either the loaded library or the reason it could not be loaded; computed once, on first use. */
    private static final class Holder {
        static final Object RESULT = load();
    }

    private final Memory decoder;
    /** How {@code ZydisDecoderDecodeFull} is called: JNA, or the foreign-function API when the JVM allows it. */
    private final NativeCalls calls;
    private final long decoderAddress;
    private final Memory formatter;
    private final String[] mnemonics;
    private final Map<String, Integer> mnemonicIds = new java.util.HashMap<>();
    private final Register[] registers;
    private final Map<String, Register> registersByName = new java.util.HashMap<>();
    private final String[] categories;
    private final String[] isaSets;
    private final String[] isaExts;
    /** Zydis points {@code cpu_flags} at static per-definition tables, so a few hundred entries cover all. */
    private final Map<Long, FlagSet[]> flagsByTable = new ConcurrentHashMap<>();
    private final ThreadLocal<Scratch> scratch = ThreadLocal.withInitial(Scratch::new);

    /** Per-thread native buffers and the heap copy of the decoded instruction. */
    private static final class Scratch {
        final Memory input = new Memory(MAX_BLOCK_BYTES);
        final Memory out = new Memory(INSTRUCTION_SIZE + OPERAND_SIZE * MAX_OPERANDS);
        final Memory text = new Memory(256);
        final Memory request = new Memory(EncoderRequest.SIZE);
        /** Encoder output (15 bytes at most) followed by the 8-byte in/out length. */
        final Memory encoded = new Memory(16 + 8);
        final ByteBuffer outView = out.getByteBuffer(0, out.size()).order(ByteOrder.LITTLE_ENDIAN);
        final byte[] copy = new byte[(int) out.size()];
        final ByteBuffer heap = ByteBuffer.wrap(copy).order(ByteOrder.LITTLE_ENDIAN);
        final long inputAddress = Pointer.nativeValue(input);
        final long outAddress = Pointer.nativeValue(out);
        final long textAddress = Pointer.nativeValue(text);
        final InstructionCache cache = new InstructionCache();
        /** A block's instructions while it is decoded (one per byte at most). */
        final Instruction[] instructions = new Instruction[MAX_BLOCK_BYTES];
        /** Whether the block's bytes are already in {@link #input} (copied lazily, on the first cache miss). */
        boolean inputLoaded;
    }

    private Zydis() {
        calls = bind();
        decoder = new Memory(64);
        decoderAddress = Pointer.nativeValue(decoder);
        formatter = new Memory(1024);
        check(ZydisNative.ZydisDecoderInit(Pointer.nativeValue(decoder), MACHINE_MODE_LONG_64, STACK_WIDTH_64),
                "ZydisDecoderInit");
        check(ZydisNative.ZydisFormatterInit(Pointer.nativeValue(formatter), FORMATTER_STYLE_INTEL),
                "ZydisFormatterInit");
        // Print like llvm-mc/objdump: explicit operand sizes, RIP-relative and branch operands relative to the
        // instruction, no zero padding of hex numbers.
        long f = Pointer.nativeValue(formatter);
        check(ZydisNative.ZydisFormatterSetProperty(f, PROP_FORCE_SIZE, 1), "force size");
        check(ZydisNative.ZydisFormatterSetProperty(f, PROP_FORCE_RELATIVE_BRANCHES, 1), "relative branches");
        check(ZydisNative.ZydisFormatterSetProperty(f, PROP_FORCE_RELATIVE_RIPREL, 1), "relative riprel");
        check(ZydisNative.ZydisFormatterSetProperty(f, PROP_DISP_PADDING, PADDING_DISABLED), "disp padding");
        check(ZydisNative.ZydisFormatterSetProperty(f, PROP_IMM_PADDING, PADDING_DISABLED), "imm padding");
        check(ZydisNative.ZydisFormatterSetProperty(f, PROP_ADDR_PADDING_ABSOLUTE, PADDING_DISABLED), "addr padding");
        check(ZydisNative.ZydisFormatterSetProperty(f, PROP_HEX_UPPERCASE, 0), "lower-case hex");
        mnemonics = new String[MNEMONIC_MAX + 1];
        for (int i = 0; i <= MNEMONIC_MAX; i++) {
            mnemonics[i] = string(ZydisNative.ZydisMnemonicGetString(i), "invalid");
            if (i > 0) {
                mnemonicIds.putIfAbsent(mnemonics[i], i);
            }
        }
        registers = new Register[REGISTER_MAX + 1];
        registers[0] = Register.NONE;
        String[] names = new String[REGISTER_MAX + 1];
        for (int i = 1; i <= REGISTER_MAX; i++) {
            names[i] = string(ZydisNative.ZydisRegisterGetString(i), "reg" + i);
        }
        for (int i = 1; i <= REGISTER_MAX; i++) {
            int enclosing = ZydisNative.ZydisRegisterGetLargestEnclosing(MACHINE_MODE_LONG_64, i);
            if (enclosing <= 0 || enclosing > REGISTER_MAX) {
                enclosing = i;
            }
            registers[i] = new Register(i, names[i], RegisterClass.ofNative(ZydisNative.ZydisRegisterGetClass(i)),
                    Short.toUnsignedInt(ZydisNative.ZydisRegisterGetWidth(MACHINE_MODE_LONG_64, i)), enclosing,
                    names[enclosing]);
            registersByName.putIfAbsent(names[i], registers[i]);
        }
        categories = table(CATEGORY_MAX, 0);
        isaSets = table(ISA_SET_MAX, 1);
        isaExts = table(ISA_EXT_MAX, 2);
    }

    /**
     * The binding for the decoding hot path: {@code -Dbasalt.native=jna|panama|auto} (default auto: the
     * foreign-function API when the JVM runs with it enabled, else JNA). Asking for panama where it cannot
     * work is an error rather than a silent fallback, so that a benchmark measures what it says.
     */
    private static NativeCalls bind() {
        String wanted = System.getProperty("basalt.native", "auto");
        if (!wanted.equals("jna") && !wanted.equals("panama") && !wanted.equals("auto")) {
            throw new IllegalStateException("basalt.native must be jna, panama or auto, got '" + wanted + "'");
        }
        if (wanted.equals("jna")) {
            return new NativeCalls.Jna();
        }
        String why;
        if (ModuleLayer.boot().findModule("jdk.incubator.foreign").isEmpty()) {
            why = "the JVM was not started with --add-modules jdk.incubator.foreign";
        } else {
            try {
                // Reflection, so that this class links without the incubating module.
                return (NativeCalls) Class.forName("dev.basalt.decoder.PanamaCalls").getDeclaredConstructor()
                        .newInstance();
            } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
                Throwable cause = e instanceof ExceptionInInitializerError eie && eie.getCause() != null ? eie.getCause()
                        : e instanceof java.lang.reflect.InvocationTargetException ite ? ite.getCause() : e;
                why = "the foreign-function API is unavailable (" + cause + "); it needs"
                        + " --enable-native-access=ALL-UNNAMED";
            }
        }
        if (wanted.equals("panama")) {
            throw new IllegalStateException("-Dbasalt.native=panama: " + why);
        }
        return new NativeCalls.Jna();
    }

    /** The binding the decoding hot path uses ("jna" or "panama"). */
    String binding() {
        return calls.name();
    }

    private static String[] table(int max, int which) {
        String[] t = new String[max + 1];
        for (int i = 0; i <= max; i++) {
            Pointer p = switch (which) {
                case 0 -> ZydisNative.ZydisCategoryGetString(i);
                case 1 -> ZydisNative.ZydisISASetGetString(i);
                default -> ZydisNative.ZydisISAExtGetString(i);
            };
            t[i] = string(p, "INVALID");
        }
        return t;
    }

    private static String string(Pointer p, String fallback) {
        return p == null ? fallback : p.getString(0, StandardCharsets.US_ASCII.name()).intern();
    }

    /** Where the library is loaded from: {@code -Dbasalt.zydis.lib}, else {@code BASALT_ZYDIS_LIB}, else the soname. */
    static String libraryPath() {
        String override = System.getProperty("basalt.zydis.lib");
        if (override == null || override.isBlank()) {
            override = System.getenv("BASALT_ZYDIS_LIB");
        }
        return override == null || override.isBlank() ? LIBRARY_NAME : override;
    }

    private static Object load() {
        String path = libraryPath();
        try {
            NativeLibrary lib = NativeLibrary.getInstance(path);
            Native.register(ZydisNative.class, lib);
            long version = ZydisNative.ZydisGetVersion();
            int major = (int) (version >>> 48) & 0xffff;
            int minor = (int) (version >>> 32) & 0xffff;
            if (major != 4 || minor != 0) {
                return new ZydisUnavailableException("Zydis at " + path + " is version " + major + "." + minor
                        + ", Basalt needs 4.0: " + INSTALL_HINT);
            }
            return new Zydis();
        } catch (LinkageError | IllegalStateException e) {
            // JNA's message lists every place it tried, one per line; the first line says enough.
            String why = String.valueOf(e.getMessage()).lines().findFirst().orElse("").replaceAll("[:.]\\s*$", "");
            return new ZydisUnavailableException("Zydis 4.0 (" + path + ") cannot be loaded (" + why + "): "
                    + INSTALL_HINT);
        }
    }

    /** The loaded library. @throws ZydisUnavailableException if it cannot be loaded */
    static Zydis get() {
        Object r = Holder.RESULT;
        if (r instanceof Zydis z) {
            return z;
        }
        ZydisUnavailableException cause = (ZydisUnavailableException) r;
        throw new ZydisUnavailableException(cause.getMessage());
    }

    private static void check(int status, String what) {
        if ((status & STATUS_FAILURE_BIT) != 0) {
            throw new IllegalStateException(what + " failed with status 0x" + Integer.toHexString(status));
        }
    }

    /** The register with the given Zydis id. */
    Register register(int id) {
        if (id < 0 || id > REGISTER_MAX) {
            throw new IllegalArgumentException("no Zydis register with id " + id);
        }
        return registers[id];
    }

    /** The register Intel syntax calls {@code name} (lower case), or null when there is none. */
    Register registerOrNull(String name) {
        return registersByName.get(name);
    }

    /** The register Intel syntax calls {@code name} (lower case). @throws IllegalArgumentException if none */
    Register registerNamed(String name) {
        Register r = registersByName.get(name);
        if (r == null) {
            throw new IllegalArgumentException("no register named " + name);
        }
        return r;
    }

    /** All registers, indexed by Zydis id. */
    List<Register> registers() {
        return List.of(registers);
    }

    /** Decodes a whole block; bytes beyond {@code length} are never read. */
    InstructionList decode(byte[] bytes, int length) {
        return decode(bytes, length, true);
    }

    /**
     * Decodes a whole block. With {@code useCache}, an instruction whose bytes were decoded before on this
     * thread is copied from the per-thread {@link InstructionCache} instead of decoded again (the result is
     * identical: an x86 decoding depends only on the bytes it consumes).
     */
    InstructionList decode(byte[] bytes, int length, boolean useCache) {
        return decode(bytes, length, useCache, calls);
    }

    /** {@link #decode(byte[], int, boolean)} through the given binding (tests compare the two). */
    InstructionList decode(byte[] bytes, int length, boolean useCache, NativeCalls via) {
        if (length == 0) {
            throw new DecodeException(0, "empty block: no bytes to decode");
        }
        if (length > MAX_BLOCK_BYTES) {
            throw new DecodeException(MAX_BLOCK_BYTES, "block is " + length + " bytes, more than the "
                    + MAX_BLOCK_BYTES + "-byte limit for one basic block");
        }
        Scratch s = scratch.get();
        s.inputLoaded = false;
        Instruction[] out = s.instructions;
        int count = 0;
        int offset = 0;
        try {
            while (offset < length) {
                if (useCache) {
                    Instruction cached = s.cache.lookup(bytes, offset, length);
                    if (cached != null) {
                        out[count++] = cached;
                        offset += s.cache.hitLength(); // not cached.length(): that would wait on the decoding
                        continue;
                    }
                }
                if (!s.inputLoaded) {
                    via.copyIn(bytes, length, s.inputAddress, s.input);
                    s.inputLoaded = true;
                }
                int status = via.decodeFull(decoderAddress, s.inputAddress + offset, length - offset, s.outAddress,
                        s.outAddress + INSTRUCTION_SIZE);
                if ((status & STATUS_FAILURE_BIT) != 0) {
                    throw new DecodeException(offset, reason(status, length - offset));
                }
                int operandCount = Math.min(MAX_OPERANDS, Byte.toUnsignedInt(s.outView.get(I_OPERAND_COUNT)));
                s.outView.get(0, s.copy, 0, INSTRUCTION_SIZE + OPERAND_SIZE * operandCount);
                Decoding decoding = read(s.heap, bytes, offset, operandCount);
                if (useCache) {
                    s.cache.store(decoding);
                }
                Instruction insn = new Instruction(offset, decoding);
                out[count++] = insn;
                offset += insn.length();
            }
            return new InstructionList(java.util.Arrays.copyOf(out, count));
        } finally {
            // The scratch arrays must not keep a block's instructions alive.
            java.util.Arrays.fill(out, 0, count, null);
        }
    }

    /** Decodes the first instruction of {@code bytes} (1..15 of them) into this thread's scratch buffers. */
    private Scratch decodeOne(byte[] bytes) {
        if (bytes.length == 0 || bytes.length > 15) {
            throw new DecodeException(0, "an x86 instruction is 1..15 bytes, got " + bytes.length);
        }
        Scratch s = scratch.get();
        s.input.write(0, bytes, 0, bytes.length);
        int status = calls.decodeFull(decoderAddress, s.inputAddress, bytes.length,
                s.outAddress, s.outAddress + INSTRUCTION_SIZE);
        if ((status & STATUS_FAILURE_BIT) != 0) {
            throw new DecodeException(0, reason(status, bytes.length));
        }
        return s;
    }

    /**
     * The decoding of the first instruction in {@code bytes} (1..15 of them; bytes after it are ignored), not
     * cached: for sweeps over the encoding space, where almost every candidate is new, and most are invalid
     * (hence {@code null} rather than an exception for those).
     *
     * @return the decoding, or {@code null} when no instruction starts with these bytes
     */
    Decoding decodeFirst(byte[] bytes) {
        if (bytes.length == 0 || bytes.length > 15) {
            throw new IllegalArgumentException("an x86 instruction is 1..15 bytes, got " + bytes.length);
        }
        Scratch s = scratch.get();
        s.input.write(0, bytes, 0, bytes.length);
        int status = calls.decodeFull(decoderAddress, s.inputAddress, bytes.length,
                s.outAddress, s.outAddress + INSTRUCTION_SIZE);
        if ((status & STATUS_FAILURE_BIT) != 0) {
            return null;
        }
        int operandCount = Math.min(MAX_OPERANDS, Byte.toUnsignedInt(s.outView.get(I_OPERAND_COUNT)));
        s.outView.get(0, s.copy, 0, INSTRUCTION_SIZE + OPERAND_SIZE * operandCount);
        return read(s.heap, bytes, 0, operandCount);
    }

    /**
     * Decodes {@code code[from, to)} front to back, giving each instruction (offset relative to {@code from})
     * to {@code sink}; a byte no instruction starts with is skipped. Uses this thread's instruction cache.
     *
     * @return the number of bytes skipped
     */
    long scan(byte[] code, int from, int to, java.util.function.Consumer<Instruction> sink) {
        Scratch s = scratch.get();
        long skipped = 0;
        int offset = from;
        while (offset < to) {
            Instruction cached = s.cache.lookup(code, offset, to);
            if (cached != null) {
                sink.accept(new Instruction(offset - from, cached.decoding()));
                offset += s.cache.hitLength();
                continue;
            }
            int n = Math.min(15, to - offset);
            s.input.write(0, code, offset, n);
            int status = calls.decodeFull(decoderAddress, s.inputAddress, n, s.outAddress,
                    s.outAddress + INSTRUCTION_SIZE);
            if ((status & STATUS_FAILURE_BIT) != 0) {
                skipped++;
                offset++;
                continue;
            }
            int operandCount = Math.min(MAX_OPERANDS, Byte.toUnsignedInt(s.outView.get(I_OPERAND_COUNT)));
            s.outView.get(0, s.copy, 0, INSTRUCTION_SIZE + OPERAND_SIZE * operandCount);
            Decoding decoding = read(s.heap, code, offset, operandCount);
            s.cache.store(decoding);
            sink.accept(new Instruction(offset - from, decoding));
            offset += decoding.length();
        }
        return skipped;
    }

    /** Formats one instruction (its bytes) in Intel syntax. */
    String format(byte[] bytes, long runtimeAddress) {
        Scratch s = decodeOne(bytes);
        int operandCount = Math.min(MAX_OPERANDS, Byte.toUnsignedInt(s.outView.get(I_OPERAND_COUNT)));
        check(ZydisNative.ZydisFormatterFormatInstruction(Pointer.nativeValue(formatter), s.outAddress,
                s.outAddress + INSTRUCTION_SIZE, (byte) operandCount, s.textAddress, s.text.size(), runtimeAddress,
                0L), "ZydisFormatterFormatInstruction");
        return s.text.getString(0, StandardCharsets.US_ASCII.name());
    }

    /**
     * The encoder request that re-creates one instruction ({@code ZydisEncoderDecodedInstructionToEncoderRequest}
     * over its visible operands), as the 400 bytes of the C struct.
     *
     * @throws DecodeException when the bytes are not one valid instruction
     * @throws EncodeException when Zydis cannot express the instruction as an encoder request
     */
    byte[] request(byte[] bytes) {
        Scratch s = decodeOne(bytes);
        if (Byte.toUnsignedInt(s.outView.get(I_LENGTH)) != bytes.length) {
            throw new DecodeException(Byte.toUnsignedInt(s.outView.get(I_LENGTH)), "more than one instruction");
        }
        int visible = Math.min(MAX_OPERANDS, Byte.toUnsignedInt(s.outView.get(I_OPERAND_COUNT_VISIBLE)));
        long request = Pointer.nativeValue(s.request);
        s.request.clear();
        int status = ZydisNative.ZydisEncoderDecodedInstructionToEncoderRequest(s.outAddress,
                s.outAddress + INSTRUCTION_SIZE, (byte) visible, request);
        if ((status & STATUS_FAILURE_BIT) != 0) {
            throw new EncodeException("Zydis cannot turn " + Hex.format(bytes) + " into an encoder request (status 0x"
                    + Integer.toHexString(status) + ")");
        }
        return s.request.getByteArray(0, EncoderRequest.SIZE);
    }

    /**
     * Encodes one request (the 400 bytes of a {@code ZydisEncoderRequest}). Zydis validates every field
     * (mnemonic, operand count, register ids) before it uses them, and writes at most the 15 bytes it is given.
     *
     * @throws EncodeException when no encoding of the request exists
     */
    byte[] encode(byte[] request) {
        if (request.length != EncoderRequest.SIZE) {
            throw new IllegalArgumentException("an encoder request is " + EncoderRequest.SIZE + " bytes");
        }
        Scratch s = scratch.get();
        s.request.write(0, request, 0, request.length);
        s.encoded.setLong(16, 15);
        long out = Pointer.nativeValue(s.encoded);
        int status = ZydisNative.ZydisEncoderEncodeInstruction(Pointer.nativeValue(s.request), out, out + 16);
        if ((status & STATUS_FAILURE_BIT) != 0) {
            throw new EncodeException("no encoding exists for this request (Zydis status 0x"
                    + Integer.toHexString(status) + ")");
        }
        long length = s.encoded.getLong(16);
        if (length <= 0 || length > 15) {
            throw new EncodeException("Zydis returned an encoding of " + length + " bytes");
        }
        return s.encoded.getByteArray(0, (int) length);
    }

    /** Zydis' id of a mnemonic, or -1 when there is none of that name. */
    int mnemonicId(String mnemonic) {
        Integer id = mnemonicIds.get(mnemonic);
        return id == null ? -1 : id;
    }

    /** The name of a Zydis mnemonic id ("invalid" outside the table). */
    String mnemonic(int id) {
        return mnemonics[bounded(id, MNEMONIC_MAX)];
    }

    private static String reason(int status, int remaining) {
        return switch (status) {
            case 0x80200000 -> "truncated instruction: the block ends after " + remaining
                    + " byte(s) of an incomplete instruction";
            case 0x80200001 -> "invalid instruction encoding (no x86-64 instruction starts with these bytes)";
            case 0x80200002 -> "instruction longer than the 15-byte x86 limit";
            case 0x80200003 -> "invalid register in the instruction's encoding";
            case 0x80200004 -> "lock prefix on an instruction that does not accept it";
            case 0x80200005 -> "legacy prefix not allowed before a VEX/EVEX/XOP instruction";
            case 0x80200006 -> "REX prefix not allowed before a VEX/EVEX/XOP instruction";
            case 0x80200007 -> "invalid opcode map";
            case 0x80200008 -> "malformed EVEX prefix";
            case 0x80200009 -> "malformed MVEX prefix";
            case 0x8020000a -> "invalid opmask register";
            default -> "Zydis could not decode the instruction (status 0x" + Integer.toHexString(status) + ")";
        };
    }

    private Decoding read(ByteBuffer b, byte[] block, int offset, int operandCount) {
        int length = Byte.toUnsignedInt(b.get(I_LENGTH));
        byte[] insnBytes = new byte[length];
        System.arraycopy(block, offset, insnBytes, 0, length);
        String mnemonic = mnemonics[bounded(b.getInt(I_MNEMONIC), MNEMONIC_MAX)];
        long attributes = b.getLong(I_ATTRIBUTES);
        Operand[] operands = new Operand[operandCount];
        int kept = 0;
        int immediateIndex = 0;
        for (int k = 0; k < operandCount; k++) {
            int base = INSTRUCTION_SIZE + OPERAND_SIZE * k;
            Visibility visibility = Visibility.ofNative(b.getInt(base + O_VISIBILITY));
            Action action = Action.ofNative(b.get(base + O_ACTIONS));
            int size = Short.toUnsignedInt(b.getShort(base + O_SIZE));
            int type = b.getInt(base + O_TYPE);
            boolean mask = b.getInt(base + O_ENCODING) == OPERAND_ENCODING_MASK;
            if (type == OPERAND_TYPE_REGISTER && mask && b.getInt(base + O_REG) == REGISTER_K0) {
                continue; // EVEX lists k0 in the mask slot when there is no masking: not an operand at all
            }
            operands[kept++] = switch (type) {
                case OPERAND_TYPE_REGISTER -> new Operand.RegisterOperand(registers[bounded(b.getInt(base + O_REG),
                        REGISTER_MAX)], action, visibility, mask);
                case OPERAND_TYPE_MEMORY -> {
                    int memType = b.getInt(base + O_MEM_TYPE);
                    Register seg = registers[bounded(b.getInt(base + O_MEM_SEGMENT), REGISTER_MAX)];
                    Register mb = registers[bounded(b.getInt(base + O_MEM_BASE), REGISTER_MAX)];
                    Register mi = registers[bounded(b.getInt(base + O_MEM_INDEX), REGISTER_MAX)];
                    int scale = mi.isPresent() ? Byte.toUnsignedInt(b.get(base + O_MEM_SCALE)) : 0;
                    long disp = b.getLong(base + O_MEM_DISP);
                    yield memType == MEMOP_TYPE_AGEN || memType == MEMOP_TYPE_MIB
                            ? new Operand.AddressOperand(seg, mb, mi, scale, disp, visibility)
                            : new Operand.MemoryOperand(seg, mb, mi, scale, disp, size, action, visibility);
                }
                case OPERAND_TYPE_IMMEDIATE -> {
                    int encodedBits = visibility == Visibility.EXPLICIT && immediateIndex < 2
                            ? Byte.toUnsignedInt(b.get(immediateIndex++ == 0 ? I_RAW_IMM0_SIZE : I_RAW_IMM1_SIZE))
                            : 0;
                    yield new Operand.ImmediateOperand(b.getLong(base + O_IMM_VALUE), encodedBits > 0 ? encodedBits
                            : size, b.get(base + O_IMM_SIGNED) != 0, b.get(base + O_IMM_RELATIVE) != 0, visibility);
                }
                case OPERAND_TYPE_POINTER -> new Operand.ImmediateOperand(
                        Integer.toUnsignedLong(b.getInt(base + O_PTR_OFFSET)), 32, false, false, visibility);
                default -> throw new DecodeException(offset, "Zydis returned an operand of unknown type "
                        + b.getInt(base + O_TYPE));
            };
        }
        FlagSet[] flags = flags(b.getLong(I_CPU_FLAGS));
        List<Operand> operandList = List.of(kept == operandCount ? operands : java.util.Arrays.copyOf(operands, kept));
        Set<Prefix> prefixes = prefixes(attributes);
        Idiom idiom = Idioms.classify(mnemonic, operandList);
        return new Decoding(insnBytes, mnemonic, prefixes, operandList, flags[0], flags[1], idiom,
                isaSets[bounded(b.getInt(I_ISA_SET), ISA_SET_MAX)], isaExts[bounded(b.getInt(I_ISA_EXT), ISA_EXT_MAX)],
                categories[bounded(b.getInt(I_CATEGORY), CATEGORY_MAX)],
                InstructionForms.of(mnemonic, prefixes, operandList), Byte.toUnsignedInt(b.get(I_RAW_DISP_SIZE)));
    }

    private static int bounded(int value, int max) {
        return value < 0 || value > max ? 0 : value;
    }

    private FlagSet[] flags(long table) {
        if (table == 0) {
            return new FlagSet[] {FlagSet.EMPTY, FlagSet.EMPTY};
        }
        return flagsByTable.computeIfAbsent(table, address -> {
            int[] m = new Pointer(address).getIntArray(0, 5); // tested, modified, set_0, set_1, undefined
            int defined = FlagSet.of(CpuFlag.values()).bits();
            return new FlagSet[] {new FlagSet(m[0] & defined), new FlagSet((m[1] | m[2] | m[3] | m[4]) & defined)};
        });
    }

    private static Set<Prefix> prefixes(long a) {
        if ((a & (ATTRIB_HAS_LOCK | ATTRIB_HAS_REP | ATTRIB_HAS_REPE | ATTRIB_HAS_REPNE | ATTRIB_HAS_BND
                | ATTRIB_HAS_XACQUIRE | ATTRIB_HAS_XRELEASE)) == 0) {
            return Set.of();
        }
        EnumSet<Prefix> p = EnumSet.noneOf(Prefix.class);
        if ((a & ATTRIB_HAS_LOCK) != 0) {
            p.add(Prefix.LOCK);
        }
        if ((a & ATTRIB_HAS_REP) != 0) {
            p.add(Prefix.REP);
        }
        if ((a & ATTRIB_HAS_REPE) != 0) {
            p.add(Prefix.REPE);
        }
        if ((a & ATTRIB_HAS_REPNE) != 0) {
            p.add(Prefix.REPNE);
        }
        if ((a & ATTRIB_HAS_BND) != 0) {
            p.add(Prefix.BND);
        }
        if ((a & ATTRIB_HAS_XACQUIRE) != 0) {
            p.add(Prefix.XACQUIRE);
        }
        if ((a & ATTRIB_HAS_XRELEASE) != 0) {
            p.add(Prefix.XRELEASE);
        }
        return Set.copyOf(p);
    }

    /** Upper-case mnemonic, for form keys. */
    static String upper(String mnemonic) {
        return mnemonic.toUpperCase(Locale.ROOT);
    }
}
