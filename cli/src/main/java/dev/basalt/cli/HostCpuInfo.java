package dev.basalt.cli;

import dev.basalt.measure.HostCpu;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.Set;

/**
 * This machine's CPU as {@code /proc/cpuinfo} names it (its first processor): enough to choose the closest shipped
 * CPU without starting the measuring harness, which {@code basalt measure} and {@code calibrate} do for the rest.
 */
final class HostCpuInfo {

    private HostCpuInfo() {
    }

    /** This machine's CPU ({@code basalt.cpuinfo} names another file, for tests that must not depend on the host). */
    static Optional<HostCpu> read() {
        return read(Path.of(System.getProperty("basalt.cpuinfo", "/proc/cpuinfo")));
    }

    static Optional<HostCpu> read(Path file) {
        String text;
        try {
            text = Files.readString(file);
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
        java.util.Map<String, String> fields = new java.util.HashMap<>();
        for (String line : text.split("\n")) {
            if (line.isBlank()) {
                break;  // the first processor only
            }
            int colon = line.indexOf(':');
            if (colon > 0) {
                fields.putIfAbsent(line.substring(0, colon).trim(), line.substring(colon + 1).trim());
            }
        }
        try {
            Set<String> flags = Set.of(fields.getOrDefault("flags", "").split("\\s+"));
            return Optional.of(new HostCpu(fields.getOrDefault("vendor_id", ""),
                    Integer.parseInt(fields.getOrDefault("cpu family", "")), Integer.parseInt(fields.get("model")),
                    Integer.parseInt(fields.getOrDefault("stepping", "0")), fields.getOrDefault("model name", ""),
                    fields.getOrDefault("microcode", ""), "", flags.contains("hypervisor"), flags, "", "", ""));
        } catch (NumberFormatException | NullPointerException e) {
            return Optional.empty();
        }
    }
}
