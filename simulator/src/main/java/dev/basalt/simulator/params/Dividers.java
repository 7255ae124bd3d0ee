package dev.basalt.simulator.params;

import java.util.Map;
import java.util.TreeMap;

/**
 * Dividers whose time depends on the values divided. Intel's integer dividers take longer the more quotient bits
 * there are (a 64-bit {@code div} on Skylake: 35 to 88 cycles), and the FP divider and square root take their
 * shortest time on simple operands; a table row, imported from llvm-mca, holds one number, often the slow end.
 * In BHive's harness every register starts at {@code 0x2324000} (26 significant bits) and a block that divided
 * its way to a quotient too large for the destination faulted and was never measured, so the quotients it
 * divides are small: the fast end of the measured range applies. Under harness memory ({@link
 * RunModel.MemoryModel}) a form named here takes this latency and holds the divider this many cycles; elsewhere
 * (a user's loop, whose values are not known) the row's stand.
 *
 * <p>The numbers are the lower ends of the latency and reciprocal-throughput ranges of Agner Fog's instruction
 * tables for each CPU (the ends uiCA takes from uops.info's too), listed in {@link CoreParams#defaults}; a table
 * may carry its own.
 *
 * @param smallOperands per register form ({@code DIV r64}, {@code DIVSD xmm, xmm}), its timing on small operands
 */
public record Dividers(Map<String, Timing> smallOperands) {

    /** No value-dependent timings: every divider takes its row's. */
    public static final Dividers NONE = new Dividers(Map.of());

    /**
     * @param latency cycles from the operands to the result
     * @param cycles  cycles the divider unit is held (the reciprocal throughput); 0 leaves the row's
     */
    public record Timing(int latency, int cycles) {
        public Timing {
            if (latency < 1 || cycles < 0) {
                throw new IllegalArgumentException("divider timing out of range: latency " + latency + ", cycles "
                        + cycles);
            }
        }
    }

    public Dividers {
        smallOperands = smallOperands == null ? Map.of() : java.util.Collections.unmodifiableMap(
                new TreeMap<>(smallOperands));
    }

    /** Whether no form is named. */
    public boolean hasNone() {
        return smallOperands.isEmpty();
    }

    /**
     * The timing of {@code form} on small operands, or null: its own entry, else, for a form that loads its divisor
     * ({@code DIV m64}), its register form's ({@link LoadOperation#registerForm}) with the load latency added.
     */
    public Timing of(String form, int loadLatency) {
        Timing t = smallOperands.get(form);
        if (t != null || smallOperands.isEmpty()) {
            return t;
        }
        String register = LoadOperation.registerForm(form);
        Timing r = register == null ? null : smallOperands.get(register);
        return r == null ? null : new Timing(r.latency() + loadLatency, r.cycles());
    }

    /**
     * {@code ops} (a demand list: port groups, a divider as {@code -unit-1, cycles}, the memory micro-ops last) with
     * divider {@code unit} held {@code cycles}: its entry's cycles replaced, or the entry put first when the row holds
     * no divider (llvm-mca's Haswell and Skylake rows spread an integer division's microcode over the ALU ports
     * instead) — first, because a load+operation's list ends with its address micro-ops, which the machine splits off.
     */
    public static int[] holding(int[] ops, int unit, int cycles) {
        for (int k = 0; k < ops.length; k++) {
            if (ops[k] < 0) {
                int[] out = ops.clone();
                out[k + 1] = cycles;
                return out;
            }
        }
        int[] out = new int[ops.length + 2];
        out[0] = unit;
        out[1] = cycles;
        System.arraycopy(ops, 0, out, 2, ops.length);
        return out;
    }

    /** Timings from {@code form, latency, cycles} triples. */
    public static Dividers of(Object... triples) {
        Map<String, Timing> m = new TreeMap<>();
        for (int k = 0; k < triples.length; k += 3) {
            m.put((String) triples[k], new Timing((Integer) triples[k + 1], (Integer) triples[k + 2]));
        }
        return new Dividers(m);
    }
}
