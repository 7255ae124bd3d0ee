package dev.basalt.decoder;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * What Zydis' encoder needs to produce one instruction: the mnemonic, prefixes and visible operands, as the
 * 400-byte C {@code ZydisEncoderRequest}. Immutable; each {@code with…} returns a changed copy, and
 * {@link #encode()} asks Zydis for the machine code (Zydis chooses the shortest encoding).
 *
 * <p>This is how explanations perturb blocks and stay real machine code: take an instruction's request,
 * change its mnemonic, a register or an address component, and encode it; a change the ISA does not allow
 * fails with an {@link EncodeException} instead of producing bytes.
 *
 * <pre>{@code
 * EncoderRequest r = EncoderRequest.of(BasicBlock.fromHex("4801d8").instruction(0));   // add rax, rbx
 * r.withMnemonic("sub").encode();                                                         // 4829d8
 * }</pre>
 */
public final class EncoderRequest {

    /** {@code sizeof(ZydisEncoderRequest)} in Zydis 4.0 on x86-64. */
    static final int SIZE = 400;
    /** {@code ZYDIS_ENCODER_MAX_OPERANDS}. */
    public static final int MAX_OPERANDS = 5;
    // Field offsets (checked against the libzydis-dev 4.0 headers; EncoderRequestTest exercises the first ones,
    // AssemblyTest the rest through AsmEncoder, which builds requests from text).
    static final int R_MNEMONIC = 8;
    static final int R_PREFIXES = 16;
    static final int R_BRANCH_TYPE = 24;
    static final int R_BRANCH_WIDTH = 28;
    static final int R_ADDRESS_SIZE_HINT = 32;
    static final int R_OPERAND_SIZE_HINT = 36;
    static final int R_OPERAND_COUNT = 40;
    static final int R_OPERANDS = 48;
    static final int OPERAND_SIZE = 64;
    static final int O_TYPE = 0;
    static final int O_REG = 4;
    static final int O_REG_IS4 = 8;
    static final int O_MEM_BASE = 16;
    static final int O_MEM_INDEX = 20;
    static final int O_MEM_SCALE = 24;
    static final int O_MEM_DISP = 32;
    static final int O_MEM_SIZE = 40;
    static final int O_IMM = 56;

    /** The kind of an encoder operand (Zydis' {@code ZydisOperandType}). */
    public enum Kind { UNUSED, REGISTER, MEMORY, POINTER, IMMEDIATE }

    private final byte[] raw;

    private EncoderRequest(byte[] raw) {
        this.raw = raw;
    }

    /**
     * The request that re-creates {@code instruction}.
     *
     * @throws EncodeException when Zydis cannot express it as a request (rare: some implicit-operand forms)
     */
    public static EncoderRequest of(Instruction instruction) {
        return new EncoderRequest(Zydis.get().request(instruction.bytes()));
    }

    private ByteBuffer view() {
        return ByteBuffer.wrap(raw).order(ByteOrder.LITTLE_ENDIAN);
    }

    private EncoderRequest with(int offset, int value) {
        byte[] copy = raw.clone();
        ByteBuffer.wrap(copy).order(ByteOrder.LITTLE_ENDIAN).putInt(offset, value);
        return new EncoderRequest(copy);
    }

    private static int operand(int k, int field) {
        return R_OPERANDS + OPERAND_SIZE * k + field;
    }

    private void checkIndex(int k) {
        if (k < 0 || k >= operandCount()) {
            throw new IndexOutOfBoundsException("operand " + k + " of a request with " + operandCount());
        }
    }

    /** Lower-case mnemonic. */
    public String mnemonic() {
        return Zydis.get().mnemonic(view().getInt(R_MNEMONIC));
    }

    /** Number of operands (the instruction's visible ones). */
    public int operandCount() {
        return Math.min(MAX_OPERANDS, Byte.toUnsignedInt(raw[R_OPERAND_COUNT]));
    }

    /** The kind of operand {@code k}. */
    public Kind kind(int k) {
        checkIndex(k);
        int type = view().getInt(operand(k, O_TYPE));
        return type >= 0 && type < Kind.values().length ? Kind.values()[type] : Kind.UNUSED;
    }

    /** The register of register operand {@code k}. */
    public Register register(int k) {
        requireKind(k, Kind.REGISTER);
        return Zydis.get().register(view().getInt(operand(k, O_REG)));
    }

    /** The base register of memory operand {@code k} ({@link Register#NONE} when absent). */
    public Register base(int k) {
        requireKind(k, Kind.MEMORY);
        return Zydis.get().register(view().getInt(operand(k, O_MEM_BASE)));
    }

    /** The index register of memory operand {@code k} ({@link Register#NONE} when absent). */
    public Register index(int k) {
        requireKind(k, Kind.MEMORY);
        return Zydis.get().register(view().getInt(operand(k, O_MEM_INDEX)));
    }

    /** The scale of memory operand {@code k}. */
    public int scale(int k) {
        requireKind(k, Kind.MEMORY);
        return Byte.toUnsignedInt(raw[operand(k, O_MEM_SCALE)]);
    }

    /** The displacement of memory operand {@code k}. */
    public long displacement(int k) {
        requireKind(k, Kind.MEMORY);
        return view().getLong(operand(k, O_MEM_DISP));
    }

    /** The value of immediate operand {@code k}. */
    public long immediate(int k) {
        requireKind(k, Kind.IMMEDIATE);
        return view().getLong(operand(k, O_IMM));
    }

    private void requireKind(int k, Kind kind) {
        if (kind(k) != kind) {
            throw new IllegalArgumentException("operand " + k + " is " + kind(k) + ", not " + kind);
        }
    }

    /** The same request with another mnemonic. @throws IllegalArgumentException for an unknown name */
    public EncoderRequest withMnemonic(String mnemonic) {
        int id = Zydis.get().mnemonicId(mnemonic);
        if (id < 0) {
            throw new IllegalArgumentException("Zydis has no mnemonic '" + mnemonic + "'");
        }
        return with(R_MNEMONIC, id);
    }

    /** The same request with register operand {@code k} replaced. */
    public EncoderRequest withRegister(int k, Register register) {
        requireKind(k, Kind.REGISTER);
        return with(operand(k, O_REG), register.id());
    }

    /** The same request with the address of memory operand {@code k} replaced. */
    public EncoderRequest withAddress(int k, Register base, Register index, int scale, long displacement) {
        requireKind(k, Kind.MEMORY);
        if (scale != 0 && scale != 1 && scale != 2 && scale != 4 && scale != 8) {
            throw new IllegalArgumentException("scale must be 0, 1, 2, 4 or 8, got " + scale);
        }
        byte[] copy = raw.clone();
        ByteBuffer b = ByteBuffer.wrap(copy).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(operand(k, O_MEM_BASE), base.id());
        b.putInt(operand(k, O_MEM_INDEX), index.id());
        b.put(operand(k, O_MEM_SCALE), (byte) (index.isPresent() ? scale : 0));
        b.putLong(operand(k, O_MEM_DISP), displacement);
        return new EncoderRequest(copy);
    }

    /**
     * The machine code for this request.
     *
     * @throws EncodeException when the ISA has no such instruction
     */
    public byte[] encode() {
        return Zydis.get().encode(raw);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof EncoderRequest other && Arrays.equals(raw, other.raw);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(raw);
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder(mnemonic());
        for (int k = 0; k < operandCount(); k++) {
            sb.append(k == 0 ? " " : ", ").append(switch (kind(k)) {
                case REGISTER -> register(k).name();
                case MEMORY -> "[" + base(k).name() + "+" + index(k).name() + "*" + scale(k) + "+" + displacement(k)
                        + "]";
                case IMMEDIATE -> "0x" + Long.toHexString(immediate(k));
                default -> kind(k).name().toLowerCase(java.util.Locale.ROOT);
            });
        }
        return sb.toString();
    }
}
