package dev.basalt.simulator.params;

import com.fasterxml.jackson.annotation.JsonInclude;
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
 * <p>An integer divide is microcode: one micro-op holds the divider, the others run on the ALU ports, and how many
 * there are is a fact of the CPU that no operand changes (Haswell's {@code DIV r32} is 10, its {@code IDIV r64} 59).
 * llvm-mca's Haswell and Skylake rows give a 32-bit form the 64-bit form's count, three to seven times too many,
 * which made a block of one 32-bit division front-end bound at twice its measured time. A form with a count here
 * is built from it in every memory model: the divider held its small-operand cycles, the rest on the ALU ports,
 * its latency the small-operand one ({@link #microOps}).
 *
 * @param smallOperands per register form ({@code DIV r64}, {@code DIVSD xmm, xmm}), its timing on small operands
 * @param microOps      per integer register form ({@code DIV r32}), its micro-ops (fused and unfused alike); a form
 *                      that loads its divisor has one more
 * @param slowOperands  per register form that {@code smallOperands} names, its timing on the operands that take
 *                      longest (the upper ends of the same tables' ranges): where the values are not known (a
 *                      user's loop) the prediction takes the fast end and its interval reaches this one
 */
public record Dividers(Map<String, Timing> smallOperands,
                       // Left out when empty, so that a table without them keeps its fingerprint.
                       @JsonInclude(JsonInclude.Include.NON_EMPTY) Map<String, Integer> microOps,
                       @JsonInclude(JsonInclude.Include.NON_EMPTY) Map<String, Timing> slowOperands) {

    /** No value-dependent timings: every divider takes its row's. */
    public static final Dividers NONE = new Dividers(Map.of(), Map.of(), Map.of());

    /** Timings without micro-op counts or slow ends. */
    public Dividers(Map<String, Timing> smallOperands) {
        this(smallOperands, Map.of(), Map.of());
    }

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
        microOps = microOps == null ? Map.of() : java.util.Collections.unmodifiableMap(new TreeMap<>(microOps));
        slowOperands = slowOperands == null ? Map.of() : java.util.Collections.unmodifiableMap(
                new TreeMap<>(slowOperands));
        for (Map.Entry<String, Timing> e : slowOperands.entrySet()) {
            Timing fast = smallOperands.get(e.getKey());
            if (fast == null || e.getValue().latency() < fast.latency() || e.getValue().cycles() < fast.cycles()) {
                throw new IllegalArgumentException("divider " + e.getKey() + ": slow end " + e.getValue()
                        + " without a small-operand timing or faster than it (" + fast + ")");
            }
        }
        for (Map.Entry<String, Integer> e : microOps.entrySet()) {
            if (e.getValue() < 1 || e.getValue() > InstructionParams.MAX_UOPS || !smallOperands.containsKey(e.getKey())) {
                throw new IllegalArgumentException("divider " + e.getKey() + ": " + e.getValue()
                        + " micro-ops, out of range or without a small-operand timing");
            }
        }
    }

    /**
     * The micro-ops of integer divide {@code form} in the CPU ({@code DIV m32}: its register form's, without the
     * load), or 0 when not named.
     */
    public int microOpsOf(String form) {
        Integer u = microOps.get(form);
        if (u == null && !microOps.isEmpty()) {
            String register = LoadOperation.registerForm(form);
            u = register == null ? null : microOps.get(register);
        }
        return u == null ? 0 : u;
    }

    /** These timings and counts, with {@code defaults}' for the forms these do not name. */
    public Dividers completedBy(Dividers defaults) {
        Map<String, Timing> t = new TreeMap<>(defaults.smallOperands);
        t.putAll(smallOperands);
        Map<String, Integer> u = new TreeMap<>(defaults.microOps);
        u.putAll(microOps);
        Map<String, Timing> slow = new TreeMap<>();
        defaults.slowOperands.forEach((form, timing) -> {
            if (t.get(form).equals(defaults.smallOperands.get(form))) { // a slow end only over the same fast end
                slow.put(form, timing);
            }
        });
        slow.putAll(slowOperands);
        return new Dividers(t, u, slow);
    }

    /** These timings with micro-op counts from {@code form, microOps} pairs. */
    public Dividers withMicroOps(Object... pairs) {
        Map<String, Integer> m = new TreeMap<>(microOps);
        for (int k = 0; k < pairs.length; k += 2) {
            m.put((String) pairs[k], (Integer) pairs[k + 1]);
        }
        return new Dividers(smallOperands, m, slowOperands);
    }

    /** These timings with slow ends from {@code form, latency, cycles} triples. */
    public Dividers withSlowOperands(Object... triples) {
        Map<String, Timing> m = new TreeMap<>(slowOperands);
        m.putAll(of(triples).smallOperands);
        return new Dividers(smallOperands, microOps, m);
    }

    /** The dividers as they run on the slowest operands: each slow end in place of its fast one. */
    public Dividers slowest() {
        Map<String, Timing> t = new TreeMap<>(smallOperands);
        t.putAll(slowOperands);
        return new Dividers(t, microOps, Map.of());
    }

    /** Whether {@code form}'s time depends on the values divided ({@code DIV m64}: its register form's). */
    public boolean valueDependent(String form) {
        if (slowOperands.isEmpty()) {
            return false;
        }
        if (slowOperands.containsKey(form)) {
            return true;
        }
        String register = LoadOperation.registerForm(form);
        return register != null && slowOperands.containsKey(register);
    }

    /** {@code form}'s fast and slow timings ({@code DIV m64}: its register form's), for notes; null when not named. */
    public Timing[] range(String form) {
        String f = smallOperands.containsKey(form) ? form : LoadOperation.registerForm(form);
        if (f == null || !smallOperands.containsKey(f)) {
            return null;
        }
        return new Timing[] {smallOperands.get(f), slowOperands.getOrDefault(f, smallOperands.get(f))};
    }

    /**
     * The demand list of an integer divide of {@code uops} micro-ops: one holding divider {@code unit} for {@code
     * cycles}, the others on {@code alu}, then the row's memory micro-ops ({@code memory}, the last entries of a
     * demand list).
     */
    public static int[] microcoded(int unit, int cycles, int alu, int uops, int[] memory) {
        int[] out = new int[2 + (uops - 1) + memory.length];
        out[0] = unit;
        out[1] = cycles;
        java.util.Arrays.fill(out, 2, 2 + uops - 1, alu);
        System.arraycopy(memory, 0, out, 1 + uops, memory.length);
        return out;
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
