package dev.basalt.simulator.params;

/**
 * A load+operation instruction ({@code addpd xmm1, [rsi]}, {@code vfmadd231pd ymm1, ymm4, [rsi]}, {@code add rax,
 * [rdi]}) runs in two steps: the load, when its address is ready, then the operation, when the loaded data and the
 * register operands are. The register operands therefore wait only for the <em>operation's</em> latency — the same
 * instruction's latency with a register in place of the memory operand — and the load's latency lies on the address
 * path alone. Without this rule the machine took the operation's latency as the row's latency less the integer
 * load latency, which charged a vector load's longer latency to the register chain: the FMA reduction above ran at 7
 * cycles an iteration on Haswell (5 on the machine), {@code addpd xmm1, [rsi]} at 4 (3).
 *
 * <p>The register form is found in the CPU's table by the form key ({@code VFMADD231PD ymm, ymm, m256} →
 * {@code VFMADD231PD ymm, ymm, ymm}); an instruction whose register form the table lacks keeps the old rule.
 */
public final class LoadOperation {

    private LoadOperation() {
    }

    /**
     * The form key of {@code form} with its memory operand as a register of the same size and kind: a vector register
     * when the form names one ({@code m128} → {@code xmm}, {@code m256} → {@code ymm}, {@code m512} → {@code zmm}, a
     * smaller one → {@code xmm}), else a general register ({@code m64} → {@code r64}); null when it has no plain
     * memory operand or one no register can stand for (x87's {@code m80}, a broadcast).
     */
    public static String registerForm(String form) {
        int space = form.indexOf(' ');
        if (space < 0) {
            return null;
        }
        String[] operands = form.substring(space + 1).split(", ");
        String vector = null;
        for (String o : operands) {
            if (o.equals("xmm") || o.equals("ymm") || o.equals("zmm")) {
                vector = vector == null || o.compareTo(vector) > 0 ? o : vector;
            }
        }
        boolean replaced = false;
        StringBuilder out = new StringBuilder(form.substring(0, space + 1));
        for (int k = 0; k < operands.length; k++) {
            String o = operands[k];
            String r = o;
            if (o.matches("m(8|16|32|64|128|256|512)")) {
                int bits = Integer.parseInt(o.substring(1));
                if (vector != null) {
                    r = bits == 512 ? "zmm" : bits == 256 ? "ymm" : "xmm";
                } else if (bits <= 64) {
                    r = "r" + bits;
                } else {
                    return null;
                }
                replaced = true;
            } else if (o.startsWith("m")) {
                return null; // m80, a broadcast, an address without a size: no register form
            }
            out.append(k > 0 ? ", " : "").append(r);
        }
        return replaced ? out.toString() : null;
    }

    /** The latency of {@code form}'s register form in the table of {@code rows}, or -1 when the table has none. */
    public static int operationLatency(RowLookup rows, String form) {
        String register = registerForm(form);
        if (register == null) {
            return -1;
        }
        Resolved r = rows.resolve(register);
        return r.source() == RowSource.FORM ? r.row().latency() : -1;
    }
}
