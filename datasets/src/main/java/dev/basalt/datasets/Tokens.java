package dev.basalt.datasets;

import dev.basalt.decoder.Instruction;
import dev.basalt.decoder.Operand;
import dev.basalt.decoder.Register;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** The node tokens of GRANITE's block graph (DESIGN.md §5), per instruction. */
public final class Tokens {

    /** Out-of-vocabulary token, always id 0. */
    public static final String UNKNOWN = "_UNKNOWN_";
    public static final String IMMEDIATE = "_IMMEDIATE_";
    public static final String ADDRESS = "_ADDRESS_";
    public static final String MEMORY = "_MEMORY_";
    public static final String NO_REGISTER = "_NO_REGISTER_";
    public static final String DISPLACEMENT = "_DISPLACEMENT_";
    /** The structural tokens, in a fixed order (they get the first ids after {@link #UNKNOWN}). */
    public static final List<String> STRUCTURAL = List.of(IMMEDIATE, ADDRESS, MEMORY, NO_REGISTER, DISPLACEMENT);

    private Tokens() {
    }

    /**
     * Tokens of the nodes one instruction contributes: its mnemonic and prefixes (upper-case), each register
     * operand's name (upper-case), {@code _MEMORY_} and {@code _ADDRESS_} for a memory operand with its base and
     * index register names (or {@code _NO_REGISTER_}) and {@code _DISPLACEMENT_}, {@code _ADDRESS_} for an
     * address ({@code lea}), {@code _IMMEDIATE_} for an immediate.
     */
    public static List<String> granite(Instruction insn) {
        List<String> t = new ArrayList<>(8);
        t.add(insn.mnemonic().toUpperCase(Locale.ROOT));
        insn.prefixes().stream().map(Enum::name).sorted().forEach(t::add);
        for (Operand o : insn.operands()) {
            if (o instanceof Operand.RegisterOperand r) {
                t.add(name(r.register()));
            } else if (o instanceof Operand.MemoryOperand m) {
                t.add(MEMORY);
                address(t, m.base(), m.index(), m.displacement());
            } else if (o instanceof Operand.AddressOperand a) {
                address(t, a.base(), a.index(), a.displacement());
            } else {
                t.add(IMMEDIATE);
            }
        }
        return t;
    }

    private static void address(List<String> t, Register base, Register index, long disp) {
        t.add(ADDRESS);
        t.add(base.isPresent() ? name(base) : NO_REGISTER);
        t.add(index.isPresent() ? name(index) : NO_REGISTER);
        if (disp != 0) {
            t.add(DISPLACEMENT);
        }
    }

    private static String name(Register r) {
        return r.name().toUpperCase(Locale.ROOT);
    }
}
