package dev.basalt.simulator.mca;

import dev.basalt.core.CpuDescriptor;
import dev.basalt.core.Microarchitecture;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * How llvm-mca's resources and their pressure become a table's port groups, for {@link LlvmMcaImporter}: resource
 * names to ports, even pressure over ports to one group, and the integer ALU group the import falls back on.
 */
final class ResourceGroups {

    private ResourceGroups() {
    }

    /**
     * The integer ALU ports' group for the generic fallback: the descriptor's {@code ALU} ports, or for the Intel
     * CPUs 0156 (015 where there is no port 6, Ivy Bridge).
     */
    static String aluGroup(List<String> ports, Microarchitecture uarch) {
        List<CpuDescriptor.Port> mapped = uarch.descriptor().llvmMcaPorts();
        if (!mapped.isEmpty()) {
            return mapped.stream().filter(p -> p.unit().equals("ALU")).map(CpuDescriptor.Port::port)
                    .filter(ports::contains).reduce("", String::concat);
        }
        StringBuilder g = new StringBuilder();
        for (String p : List.of("0", "1", "5", "6")) {
            if (ports.contains(p)) {
                g.append(p);
            }
        }
        return g.toString();
    }

    /**
     * An instruction that does not access memory but that llvm-mca puts on address-generation units ({@code lea} in
     * its Zen 4 model) gets the integer ALUs instead: where the machine rebuilds memory micro-ops, AGU groups are
     * memory ports and would leave it no micro-op at all, and Zen executes {@code lea} on its ALUs (AMD's Software
     * Optimization Guide for family 19h, "LEA instruction").
     */
    static Map<String, Integer> aluForAgu(Map<String, Integer> groups, Map<String, String> units, String alu) {
        if (alu.isEmpty()) {
            return groups;
        }
        Map<String, Integer> out = new TreeMap<>();
        groups.forEach((g, n) -> out.merge(!g.isEmpty() && g.chars().allMatch(c -> "AGU".equals(
                units.get(String.valueOf((char) c)))) ? alu : g, n, Integer::sum));
        return out;
    }

    /** {@code HWPort0} → {@code 0}; Ivy Bridge's {@code SBPort23.0/.1} → {@code 2}/{@code 3}; dividers. */
    static String portName(String resource) {
        String r = resource.replace("\u0000", "0").replace("\u0001", "1");
        if (r.endsWith("FPDivider")) {
            return "FPDivider";
        }
        if (r.endsWith("Divider")) {
            return "Divider";
        }
        int p = r.indexOf("Port");
        if (p < 0) {
            return r;
        }
        String rest = r.substring(p + 4);
        if (rest.startsWith("23.")) {
            return rest.endsWith("0") ? "2" : "3";
        }
        return rest;
    }

    /**
     * Even pressure over a set of ports of one unit → one group with that many micro-ops; divider cycles as
     * they are. {@code units} gives each port's unit (absent: one unit for all).
     */
    static Map<String, Integer> groups(Map<String, Double> usage, Map<String, String> units) {
        Map<String, Integer> out = new TreeMap<>();
        Map<String, List<String>> byLevel = new TreeMap<>();
        for (Map.Entry<String, Double> e : usage.entrySet()) {
            if (e.getValue() <= 0) {
                continue;
            }
            if (e.getKey().endsWith("Divider")) {
                out.put(e.getKey(), (int) Math.round(e.getValue()));
            } else {
                byLevel.computeIfAbsent(units.getOrDefault(e.getKey(), "port") + " " + Math.round(e.getValue() * 1e6),
                        k -> new ArrayList<>()).add(e.getKey());
            }
        }
        for (Map.Entry<String, List<String>> e : byLevel.entrySet()) {
            List<String> ps = e.getValue();
            ps.sort(Comparator.naturalOrder());
            long level = Long.parseLong(e.getKey().substring(e.getKey().indexOf(' ') + 1));
            int uops = (int) Math.max(1, Math.round(level / 1e6 * ps.size()));
            out.merge(String.join("", ps), uops, Integer::sum);
        }
        return out;
    }
}
