package dev.basalt.difftune;

import dev.basalt.simulator.params.InstructionParams;
import dev.basalt.simulator.params.SimulatorParams;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * A parameter row as a vector, for the surrogate's input and the trainable table (DESIGN.md §7): columns
 * {@code uops, latency, readAdvance}, then the cycles of every port group the CPU's default table uses (in
 * sorted order; dividers included). Also the valid range of every value, used to clamp learned tables and to
 * check them.
 */
public final class ParameterLayout {

    /** Column of the micro-op count. */
    public static final int UOPS = 0;
    /** Column of the latency. */
    public static final int LATENCY = 1;
    /** Column of the read-advance. */
    public static final int READ_ADVANCE = 2;
    /** Columns before the port groups. */
    public static final int FIXED = 3;

    /** Largest valid micro-op count, latency, read-advance and port cycles (the defaults reach 147 — FNSAVE —, 115, 5, 31). */
    public static final int MAX_UOPS = 256;
    public static final int MAX_LATENCY = 200;
    public static final int MAX_READ_ADVANCE = 10;
    public static final int MAX_PORT_CYCLES = 64;
    /** Valid global widths: llvm-mca's Intel models use 4–6 and 168–224. */
    public static final int MIN_DISPATCH = 1;
    public static final int MAX_DISPATCH = 10;
    public static final int MIN_ROB = 16;
    public static final int MAX_ROB = 512;

    private final List<String> groups;
    private final List<String> ports;

    public ParameterLayout(SimulatorParams defaults) {
        TreeSet<String> g = new TreeSet<>();
        defaults.forms().values().forEach(r -> g.addAll(r.ports().keySet()));
        defaults.mnemonics().values().forEach(r -> g.addAll(r.ports().keySet()));
        g.addAll(defaults.generic().ports().keySet());
        this.groups = List.copyOf(g);
        this.ports = defaults.ports();
    }

    /** Port groups, in column order after {@link #FIXED}. */
    public List<String> groups() {
        return groups;
    }

    /** Columns per row. */
    public int width() {
        return FIXED + groups.size();
    }

    /** The row as a vector (groups this layout does not know are dropped). */
    public float[] encode(InstructionParams row) {
        float[] v = new float[width()];
        v[UOPS] = row.uops();
        v[LATENCY] = row.latency();
        v[READ_ADVANCE] = row.readAdvance();
        row.ports().forEach((g, c) -> {
            int k = groups.indexOf(g);
            if (k >= 0) {
                v[FIXED + k] = c;
            }
        });
        return v;
    }

    /** A vector (e.g. a learned one) as a row: rounded to integers and clamped to the valid ranges. */
    public InstructionParams decode(float[] v, int offset) {
        int uops = clamp(v[offset + UOPS], 1, MAX_UOPS);
        int latency = clamp(v[offset + LATENCY], 0, MAX_LATENCY);
        int readAdvance = clamp(v[offset + READ_ADVANCE], 0, MAX_READ_ADVANCE);
        Map<String, Integer> p = new TreeMap<>();
        for (int k = 0; k < groups.size(); k++) {
            int c = clamp(v[offset + FIXED + k], 0, MAX_PORT_CYCLES);
            if (c > 0) {
                p.put(groups.get(k), c);
            }
        }
        return new InstructionParams(uops, latency, readAdvance, p);
    }

    static int clamp(double x, int lo, int hi) {
        long r = Math.round(x);
        return (int) Math.max(lo, Math.min(hi, r));
    }

    /**
     * Share of each group's cycles that lands on each port when spread evenly over its members: [groups ×
     * ports], row-major, for the surrogate's port-pressure bound. A divider group loads its own divider.
     */
    public float[] portShare() {
        float[] a = new float[groups.size() * ports.size()];
        for (int k = 0; k < groups.size(); k++) {
            String g = groups.get(k);
            List<Integer> members = new ArrayList<>();
            if (g.endsWith("Divider")) {
                members.add(ports.indexOf(g));
            } else {
                for (char c : g.toCharArray()) {
                    members.add(ports.indexOf(String.valueOf(c)));
                }
            }
            members.removeIf(i -> i < 0);
            for (int p : members) {
                a[k * ports.size() + p] = 1f / members.size();
            }
        }
        return a;
    }

    /** Ports (columns of {@link #portShare()}). */
    public List<String> ports() {
        return ports;
    }

    /**
     * Every value of {@code table} outside its valid range, as readable lines (empty when the table is valid).
     */
    public static List<String> outOfRange(SimulatorParams table) {
        List<String> bad = new ArrayList<>();
        if (table.dispatchWidth() < MIN_DISPATCH || table.dispatchWidth() > MAX_DISPATCH) {
            bad.add("dispatchWidth " + table.dispatchWidth());
        }
        if (table.robSize() < MIN_ROB || table.robSize() > MAX_ROB) {
            bad.add("robSize " + table.robSize());
        }
        Map<String, InstructionParams> all = new TreeMap<>(table.forms());
        table.mnemonics().forEach((k, v) -> all.put("mnemonic " + k, v));
        all.put("generic", table.generic());
        all.forEach((form, r) -> {
            if (r.uops() < 0 || r.uops() > MAX_UOPS) {
                bad.add(form + ": uops " + r.uops());
            }
            if (r.latency() < 0 || r.latency() > MAX_LATENCY) {
                bad.add(form + ": latency " + r.latency());
            }
            if (r.readAdvance() < 0 || r.readAdvance() > MAX_READ_ADVANCE) {
                bad.add(form + ": readAdvance " + r.readAdvance());
            }
            r.ports().forEach((g, c) -> {
                if (c < 0 || c > MAX_PORT_CYCLES) { // (a group of unknown ports: refused when the table is made)
                    bad.add(form + ": port group " + g + " " + c);
                }
            });
        });
        return bad;
    }
}
