package dev.basalt.simulator;

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
 */
public record InstructionParams(int uops, int latency, int readAdvance, Map<String, Integer> ports) {

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
    }
}
