package dev.basalt.decoder;

import java.util.List;
import java.util.Set;

/**
 * Builds instruction-form keys, the names the simulator's parameter tables are keyed by.
 *
 * <p>A key is the upper-case mnemonic, preceded by {@code LOCK}/{@code REP}/{@code REPE}/{@code REPNE} when
 * present, followed by the visible operands in Intel order: {@code r8..r64} for general purpose registers,
 * {@code xmm}/{@code ymm}/{@code zmm}/{@code mm}/{@code st}/{@code k}/{@code sreg} for other register files,
 * {@code m}<i>bits</i> for memory ({@code m} alone for an address), {@code i}<i>bits</i> for immediates
 * (encoded size), {@code rel}<i>bits</i> for branch displacements. Implicit operands keep their name
 * ({@code SHL r64, CL}; {@code SHL r64, 1}) since the CPU treats those forms as different instructions.
 * A write mask follows its register: {@code VADDPS zmm {k}, zmm, zmm}. Examples: {@code ADD r64, m64},
 * {@code MOV r32, i32}, {@code LEA r64, m}, {@code REP MOVSB m8, m8}, {@code VFMADD231PS ymm, ymm, m256}.
 */
public final class InstructionForms {

    private InstructionForms() {
    }

    /** The form key of an instruction with the given parts. */
    public static String of(String mnemonic, Set<Prefix> prefixes, List<Operand> operands) {
        StringBuilder sb = new StringBuilder(24);
        if (prefixes.contains(Prefix.LOCK)) {
            sb.append("LOCK ");
        }
        if (prefixes.contains(Prefix.REP)) {
            sb.append("REP ");
        } else if (prefixes.contains(Prefix.REPE)) {
            sb.append("REPE ");
        } else if (prefixes.contains(Prefix.REPNE)) {
            sb.append("REPNE ");
        }
        sb.append(Zydis.upper(mnemonic));
        boolean first = true;
        for (Operand o : operands) {
            if (!o.visibility().isVisible()) {
                continue;
            }
            if (o instanceof Operand.RegisterOperand r && r.isMask()) {
                sb.append(" {k}");
                continue;
            }
            sb.append(first ? " " : ", ");
            first = false;
            sb.append(kind(o));
        }
        return sb.toString();
    }

    private static String kind(Operand o) {
        boolean implicit = o.visibility() == Visibility.IMPLICIT;
        // Java 17: no pattern matching in switch yet, so an instanceof chain over the sealed kinds.
        if (o instanceof Operand.RegisterOperand r) {
            return implicit ? Zydis.upper(r.register().name()) : registerKind(r.register());
        }
        if (o instanceof Operand.MemoryOperand m) {
            return "m" + (m.sizeBits() == 0 ? "" : Integer.toString(m.sizeBits()));
        }
        if (o instanceof Operand.ImmediateOperand i) {
            return implicit ? Long.toString(i.value()) : (i.relative() ? "rel" : "i") + i.sizeBits();
        }
        return "m"; // an address (lea)
    }

    private static String registerKind(Register r) {
        return switch (r.registerClass()) {
            case GPR8 -> "r8";
            case GPR16 -> "r16";
            case GPR32 -> "r32";
            case GPR64 -> "r64";
            case XMM -> "xmm";
            case YMM -> "ymm";
            case ZMM -> "zmm";
            case MMX -> "mm";
            case X87 -> "st";
            case MASK -> "k";
            case SEGMENT -> "sreg";
            case TMM -> "tmm";
            case BOUND -> "bnd";
            case CONTROL -> "cr";
            case DEBUG -> "dr";
            default -> r.name();
        };
    }
}
