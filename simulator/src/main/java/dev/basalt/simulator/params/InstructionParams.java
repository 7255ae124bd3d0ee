package dev.basalt.simulator.params;

import com.fasterxml.jackson.annotation.JsonInclude;

import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * The simulator's parameters for one instruction form.
 *
 * @param uops        micro-ops (dispatch slots and reorder-buffer entries)
 * @param latency     cycles from issue until the result can be read
 * @param readAdvance cycles before the producer finishes that a register source may already be read (the
 *                    register operand of a load-op instruction is read late)
 * @param ports       execution resources: port group ("0156", "23", "4", ...) → micro-ops issued to one of the
 *                    group's ports, each holding that port for one cycle; "Divider"/"FPDivider" → cycles the
 *                    divider stays busy
 * @param fusedUops   fused-domain micro-ops (front end, renamer, reorder buffer) when the table states them; null
 *                    when the simulator derives them from the form by its micro-fusion rule (DESIGN.md §11): a
 *                    load and the operation using it, and a store's address and data, are one fused micro-op
 */
public record InstructionParams(int uops, int latency, int readAdvance, Map<String, Integer> ports,
                                @JsonInclude(JsonInclude.Include.NON_NULL) Integer fusedUops) {

    public InstructionParams {
        // A table is a claim about a CPU: no instruction holds ports or takes cycles by the ten thousand, and
        // the simulator sizes its per-instance arrays by a row's micro-ops, so an absurd row must not reach it.
        if (uops < 0 || latency < 0 || readAdvance < 0 || uops > MAX_UOPS || latency > MAX_CYCLES
                || readAdvance > MAX_CYCLES) {
            throw new IllegalArgumentException("uops must be in 0.." + MAX_UOPS + " and latency, readAdvance in 0.."
                    + MAX_CYCLES + ", got " + uops + ", " + latency + ", " + readAdvance);
        }
        Objects.requireNonNull(ports, "ports");
        long microOps = 0;
        for (Map.Entry<String, Integer> e : ports.entrySet()) {
            Integer v = e.getValue();
            if (v == null || v < 0 || v > MAX_CYCLES) {
                throw new IllegalArgumentException("port group " + e.getKey() + " holds " + v + " cycles, not in 0.."
                        + MAX_CYCLES);
            }
            microOps += e.getKey().endsWith("Divider") ? 0 : v;
        }
        if (microOps > MAX_UOPS) {
            throw new IllegalArgumentException("the port groups issue " + microOps + " micro-ops, more than "
                    + MAX_UOPS);
        }
        ports = java.util.Collections.unmodifiableMap(new TreeMap<>(ports));
        if (fusedUops != null && (fusedUops < 1 || fusedUops > Math.max(1, uops))) {
            throw new IllegalArgumentException("fusedUops must be in 1.." + Math.max(1, uops) + ", got " + fusedUops);
        }
    }

    /** The most micro-ops a row may issue (the longest microcoded rows in the shipped tables have ~150). */
    public static final int MAX_UOPS = 1024;
    /** The most cycles a row's latency or a port group's hold may be. */
    public static final int MAX_CYCLES = 65_536;

    /** A row whose fused micro-ops the simulator derives by rule. */
    public InstructionParams(int uops, int latency, int readAdvance, Map<String, Integer> ports) {
        this(uops, latency, readAdvance, ports, null);
    }
}
