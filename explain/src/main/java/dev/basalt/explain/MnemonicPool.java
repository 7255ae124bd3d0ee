package dev.basalt.explain;

import dev.basalt.decoder.Instruction;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Mnemonics grouped by operand signature, for swapping an instruction's mnemonic for another that takes the
 * same operands ({@code ADD r64, m64} ↔ {@code SUB r64, m64}). Built from instruction-form keys, so the pool
 * holds only combinations that a parameter table knows; the perturber still re-encodes every swap and
 * redraws the ones Zydis rejects, and those {@link #admits} refuses: an instruction the CPU does not have, or one
 * no estimator prices (privileged, I/O, ...), would make a perturbation no model can answer for. Immutable.
 */
public final class MnemonicPool {

    private static final List<String> PREFIXES = List.of("LOCK", "REP", "REPE", "REPNE");

    private final Map<String, List<String>> bySignature;
    private final java.util.function.Predicate<Instruction> admits;

    private MnemonicPool(Map<String, List<String>> bySignature, java.util.function.Predicate<Instruction> admits) {
        this.bySignature = bySignature;
        this.admits = admits;
    }

    /**
     * The pool of {@code uarch}: the forms of its table, admitting only instructions it has
     * ({@link dev.basalt.core.IsaSupport}) that some estimator prices ({@link dev.basalt.core.UnmodelledInstructions}).
     */
    public static MnemonicPool forCpu(Collection<String> forms, dev.basalt.core.Microarchitecture uarch) {
        MnemonicPool all = of(forms);
        return new MnemonicPool(all.bySignature, insn -> dev.basalt.core.IsaSupport.runs(insn, uarch)
                && dev.basalt.core.UnmodelledInstructions.reason(insn).isEmpty());
    }

    /** Whether a perturbation may put {@code insn} in a block. */
    public boolean admits(Instruction insn) {
        return admits.test(insn);
    }

    /** A pool from form keys such as {@code ADD r64, m64} (the keys of a simulator parameter table). */
    public static MnemonicPool of(Collection<String> forms) {
        Map<String, TreeSet<String>> groups = new TreeMap<>();
        for (String form : forms) {
            String[] parts = split(form);
            if (parts != null) {
                groups.computeIfAbsent(parts[0], k -> new TreeSet<>()).add(parts[1].toLowerCase(Locale.ROOT));
            }
        }
        Map<String, List<String>> out = new TreeMap<>();
        groups.forEach((sig, names) -> out.put(sig, List.copyOf(names)));
        return new MnemonicPool(out, insn -> true);
    }

    /** {signature, mnemonic} of a form key, or null for an empty key. */
    private static String[] split(String form) {
        String[] words = form.split(" ", -1);
        StringBuilder prefix = new StringBuilder();
        int k = 0;
        while (k < words.length && PREFIXES.contains(words[k])) {
            prefix.append(words[k++]).append(' ');
        }
        if (k >= words.length || words[k].isEmpty()) {
            return null;
        }
        String mnemonic = words[k];
        String rest = String.join(" ", java.util.Arrays.asList(words).subList(k + 1, words.length));
        return new String[] {prefix + "_ " + rest, mnemonic};
    }

    /** The operand signature of an instruction: its form key with the mnemonic blanked. */
    public static String signature(Instruction instruction) {
        String[] parts = split(instruction.form());
        return parts == null ? "" : parts[0];
    }

    /** Other mnemonics with the same operand signature as {@code instruction} (never its own). */
    public List<String> alternatives(Instruction instruction) {
        List<String> all = bySignature.getOrDefault(signature(instruction), List.of());
        List<String> out = new ArrayList<>(all.size());
        for (String m : all) {
            if (!m.equals(instruction.mnemonic())) {
                out.add(m);
            }
        }
        return out;
    }

    /** Number of signatures. */
    public int size() {
        return bySignature.size();
    }
}
