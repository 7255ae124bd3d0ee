package dev.basalt.simulator;

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
        if (uops < 0 || latency < 0 || readAdvance < 0) {
            throw new IllegalArgumentException("uops, latency and readAdvance must be >= 0, got " + uops + ", "
                    + latency + ", " + readAdvance);
        }
        Objects.requireNonNull(ports, "ports");
        ports.forEach((k, v) -> {
            if (v == null || v < 0) {
                throw new IllegalArgumentException("port group " + k + " has a negative cycle count " + v);
            }
        });
        ports = java.util.Collections.unmodifiableMap(new TreeMap<>(ports));
        if (fusedUops != null && (fusedUops < 1 || fusedUops > Math.max(1, uops))) {
            throw new IllegalArgumentException("fusedUops must be in 1.." + Math.max(1, uops) + ", got " + fusedUops);
        }
    }

    /** A row whose fused micro-ops the simulator derives by rule. */
    public InstructionParams(int uops, int latency, int readAdvance, Map<String, Integer> ports) {
        this(uops, latency, readAdvance, ports, null);
    }
}
