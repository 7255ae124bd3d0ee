package dev.basalt.datasets;

import dev.basalt.decoder.Instruction;
import dev.basalt.decoder.Operand;
import dev.basalt.decoder.Register;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Ithemal's token sequence of one instruction (DESIGN.md §6): prefixes, the mnemonic, {@code <S>} and the
 * operands it reads, {@code <D>} and the operands it writes, {@code <E>}. Registers by name (upper-case,
 * explicit and implicit alike, an AVX-512 opmask too); a memory operand — or a {@code lea} address — as
 * {@code <M>} segment (only {@code FS}/{@code GS}), base, index (or {@code _NO_REGISTER_}) and
 * {@code _DISPLACEMENT_} when there is one, then {@code </M>}; an immediate as {@code _IMMEDIATE_}. An operand
 * that is read and written appears in both lists; a stored-to memory operand is a destination, and since
 * its address registers are read it is a source only if the memory is read as well.
 */
public final class IthemalTokenizer {

    public static final String SOURCES = "<S>";
    public static final String DESTINATIONS = "<D>";
    public static final String END = "<E>";
    public static final String MEMORY_OPEN = "<M>";
    public static final String MEMORY_CLOSE = "</M>";
    /** Tokens every Ithemal vocabulary reserves (after the out-of-vocabulary token). */
    public static final List<String> RESERVED;

    static {
        List<String> r = new ArrayList<>(Tokens.STRUCTURAL);
        r.addAll(List.of(SOURCES, DESTINATIONS, END, MEMORY_OPEN, MEMORY_CLOSE));
        RESERVED = List.copyOf(r);
    }

    private IthemalTokenizer() {
    }

    /** The tokens of one instruction. */
    public static List<String> tokens(Instruction insn) {
        List<String> t = new ArrayList<>(16);
        insn.prefixes().stream().map(Enum::name).sorted().forEach(t::add);
        t.add(insn.mnemonic().toUpperCase(Locale.ROOT));
        t.add(SOURCES);
        for (Operand o : insn.operands()) {
            if (o instanceof Operand.RegisterOperand r && (r.action().read() || r.action().conditionalRead())) {
                t.add(name(r.register()));
            } else if (o instanceof Operand.MemoryOperand m && (m.action().read() || m.action().conditionalRead())) {
                address(t, m.segment(), m.base(), m.index(), m.displacement());
            } else if (o instanceof Operand.AddressOperand a) {
                address(t, a.segment(), a.base(), a.index(), a.displacement());
            } else if (o instanceof Operand.ImmediateOperand) {
                t.add(Tokens.IMMEDIATE);
            }
        }
        t.add(DESTINATIONS);
        for (Operand o : insn.operands()) {
            if (o instanceof Operand.RegisterOperand r && r.action().writes()) { // conditional writes too
                t.add(name(r.register()));
            } else if (o instanceof Operand.MemoryOperand m && m.action().writes()) {
                address(t, m.segment(), m.base(), m.index(), m.displacement());
            }
        }
        t.add(END);
        return t;
    }

    private static void address(List<String> t, Register segment, Register base, Register index, long disp) {
        t.add(MEMORY_OPEN);
        if (segment.name().equals("fs") || segment.name().equals("gs")) { // the others are flat in 64-bit mode
            t.add(name(segment));
        }
        t.add(base.isPresent() ? name(base) : Tokens.NO_REGISTER);
        t.add(index.isPresent() ? name(index) : Tokens.NO_REGISTER);
        if (disp != 0) {
            t.add(Tokens.DISPLACEMENT);
        }
        t.add(MEMORY_CLOSE);
    }

    private static String name(Register r) {
        return r.name().toUpperCase(Locale.ROOT);
    }
}
