package dev.basalt.simulator.params;

import java.util.HashMap;
import java.util.Map;

/**
 * A table's rows by instruction form, with the per-mnemonic and generic fallbacks. Hash maps (the table's own maps
 * are sorted, for readable JSON), so that a run does no string work beyond one lookup per instruction.
 */
public final class RowLookup {

    private final SimulatorParams params;
    private final Map<String, InstructionParams> forms;
    private final Map<String, InstructionParams> mnemonics;

    public RowLookup(SimulatorParams params) {
        this.params = params;
        this.forms = new HashMap<>(params.forms());
        this.mnemonics = new HashMap<>(params.mnemonics());
    }

    /** Looks up an instruction form with the per-mnemonic and generic fallbacks. */
    public Resolved resolve(String form) {
        InstructionParams p = forms.get(form);
        if (p != null) {
            return new Resolved(p, RowSource.FORM);
        }
        p = mnemonics.get(mnemonicOf(form));
        if (p != null) {
            return new Resolved(p, RowSource.MNEMONIC);
        }
        return new Resolved(params.generic(), RowSource.GENERIC);
    }

    /** The mnemonic of a form key, without prefixes: {@code LOCK CMPXCHG m64, r64} → {@code CMPXCHG}. */
    public static String mnemonicOf(String form) {
        String[] words = form.split(" ");
        for (String w : words) {
            if (!w.equals("LOCK") && !w.equals("REP") && !w.equals("REPE") && !w.equals("REPNE")) {
                return w.endsWith(",") ? w.substring(0, w.length() - 1) : w;
            }
        }
        return form;
    }
}
