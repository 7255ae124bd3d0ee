package dev.basalt.simulator.params;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * A CPU's ports as the simulators use them: the port groups its table names ("0156", "23", "Divider"), each by an
 * index, with its member ports and their bit mask; every row's port demands as a flat list (a group index per
 * micro-op, a divider as the pair -(port + 1), busy cycles), as imported and as the second machine rebuilds them
 * ({@link #microOps}); the groups some rules name (an ALU micro-op, a slow {@code lea}, a taken branch, the load
 * and store ports); and {@link #reserve}, which binds one instruction's micro-ops to free ports in a cycle.
 * Built once per {@code Simulator}; only read afterwards (final fields publish it safely to every thread).
 */
public final class PortGroups {

    private final List<String> portNames;
    private final int portCount;
    private final Map<String, Integer> groupIds = new java.util.HashMap<>();
    private final List<int[]> groupList = new ArrayList<>();
    private final Map<InstructionParams, int[]> demands;
    private final Map<InstructionParams, int[]> computeDemands;
    private final int loadGroup;
    private final int storeAddressGroup;
    private final int storeDataGroup;
    private final int aluGroup;
    private final int slowLeaGroup;
    private final int takenBranchGroup;
    private final int[] groupMasks;
    private final int[] portNumbers; // per port, its number, or -1 (a divider)
    private final int[] alu015;
    private final boolean sixPorts;
    // Names by mask, made on first use (the bounds name their binding set per block).
    private final String[] portSetNames;

    public PortGroups(SimulatorParams params) {
        this.portNames = params.ports();
        this.portCount = portNames.size();
        this.portSetNames = new String[portCount <= 14 ? 1 << portCount : 0];
        // Port demands precomputed for every row, so that a run does no string work beyond one lookup per
        // instruction.
        this.demands = new java.util.IdentityHashMap<>();
        for (InstructionParams row : params.forms().values()) {
            demands.put(row, demandList(row));
        }
        for (InstructionParams row : params.mnemonics().values()) {
            demands.put(row, demandList(row));
        }
        demands.put(params.generic(), demandList(params.generic()));
        // The second generation's micro-ops: a row's non-memory port groups, with the memory micro-ops rebuilt
        // from each instruction's operands (see microOps).
        CoreParams core = params.core();
        this.computeDemands = new java.util.IdentityHashMap<>();
        if (core.loadPorts().isEmpty()) {
            loadGroup = storeAddressGroup = storeDataGroup = -1;
        } else {
            String memoryPorts = core.loadPorts() + core.storeAddressPorts() + core.storeDataPorts();
            loadGroup = groupIndex(core.loadPorts());
            storeAddressGroup = groupIndex(core.storeAddressPorts());
            storeDataGroup = groupIndex(core.storeDataPorts());
            for (InstructionParams row : demands.keySet().toArray(new InstructionParams[0])) {
                computeDemands.put(row, computeDemandList(row, memoryPorts));
            }
        }
        int[] generic = demands.get(params.generic());
        this.aluGroup = generic.length > 0 && generic[0] >= 0 ? generic[0] : -1;
        this.slowLeaGroup = core.slowLeaPorts().isEmpty() ? -1 : groupIds.getOrDefault(core.slowLeaPorts(), -1);
        this.takenBranchGroup = core.loop().takenBranchPorts().isEmpty() ? -1
                : groupIndex(core.loop().takenBranchPorts());
        this.portNumbers = new int[portCount];
        for (int p = 0; p < portCount; p++) {
            String name = portNames.get(p);
            portNumbers[p] = name.length() == 1 && Character.isDigit(name.charAt(0)) ? name.charAt(0) - '0' : -1;
        }
        this.sixPorts = java.util.Arrays.stream(portNumbers).filter(n -> n >= 0).count() == 6;
        int[] alu = null;
        for (int[] m : groupList) {
            if (m.length == 3 && java.util.Arrays.stream(m).map(p -> portNumbers[p]).sorted().boxed().toList()
                    .equals(List.of(0, 1, 5))) {
                alu = m;
            }
        }
        this.alu015 = sixPorts ? alu : null;
        this.groupMasks = new int[groupList.size()]; // every group exists by now
        for (int g = 0; g < groupMasks.length; g++) {
            for (int port : groupList.get(g)) {
                groupMasks[g] |= 1 << port;
            }
        }
    }

    /**
     * Whether the CPU has six execution ports (Sandy Bridge, Ivy Bridge: 0, 1, 5 and 2, 3, 4), whose renamer binds
     * micro-ops to ports by another rule than the eight-port cores' (uiCA's reading of them, in the dispatch stage).
     */
    public boolean sixPorts() {
        return sixPorts;
    }

    /** On a six-port core, the members of its port group of ports 0, 1 and 5 (the integer ALUs), or null. */
    public int[] alu015() {
        return alu015;
    }

    /** Port {@code index}'s number ("5" → 5), or -1 for a port not named by a digit (a divider). */
    public int portNumber(int index) {
        return portNumbers[index];
    }

    /** How many ports the CPU has. */
    public int portCount() {
        return portCount;
    }

    /** The port group of a taken jump (the CPU's {@code takenBranchPorts}), or -1 to keep the row's. */
    public int takenBranchGroup() {
        return takenBranchGroup;
    }

    /**
     * A row's port demands as a flat list: for each micro-op, a port-group index; a divider as the pair
     * -(divider port + 1), busy cycles.
     */
    public int[] demand(InstructionParams row) {
        return demands.get(row);
    }

    /** The member ports of port group {@code group} (an index from {@link #demand}). */
    public int[] members(int group) {
        return groupList.get(group);
    }

    /**
     * The name of a set of ports given as a bit mask: the ports' names run together when all are digits
     * ({@code 0156}), else joined by commas ({@code 0,DIV}); empty for none. Kept per mask (at most 2^ports).
     */
    public String portSetName(int mask) {
        if (mask >= 0 && mask < portSetNames.length) {
            // Racing threads store equal strings; a String is safe to publish without a lock.
            String name = portSetNames[mask];
            if (name == null) {
                name = buildPortSetName(mask);
                portSetNames[mask] = name;
            }
            return name;
        }
        return buildPortSetName(mask);
    }

    private String buildPortSetName(int mask) {
        StringBuilder name = new StringBuilder();
        for (int port = 0; port < portCount; port++) {
            if ((mask & (1 << port)) != 0) {
                String s = portNames.get(port);
                name.append(name.length() > 0 && (s.length() > 1 || !Character.isDigit(
                        name.charAt(name.length() - 1))) ? "," : "").append(s);
            }
        }
        return name.toString();
    }

    /** The member ports of port group {@code group} as a bit mask (bit p: port p). */
    public int groupMask(int group) {
        return groupMasks[group];
    }

    /** The port demand of one integer ALU micro-op (the generic row's first group), or -1 when it has none. */
    public int aluGroup() {
        return aluGroup;
    }

    /** The port group of a slow (three-component) {@code lea}, or -1 when the CPU has none. */
    public int slowLeaGroup() {
        return slowLeaGroup;
    }

    /** Whether the CPU names its load ports, so that {@link #microOps} rebuilds memory micro-ops. */
    public boolean hasLoadPorts() {
        return loadGroup >= 0;
    }

    /** The index of port group {@code name} ("23"), or -1 when no row uses it. */
    public int groupOf(String name) {
        return groupIds.getOrDefault(name, -1);
    }

    /**
     * One micro-op per port set (DESIGN.md §11): the row's port groups without its memory ports, then, from the
     * instruction's operands, a store-data and a store-address micro-op for a store and a load micro-op per
     * memory read (the address micro-ops last). The imported rows merged memory and compute micro-ops by their port pressure ("23" twice and
     * "7" for a store, "0123" for a load and a convert); a group of both keeps its compute ports, its count
     * scaled by their share. With the stack engine, a push, pop, call or ret loses its rsp-update micro-op.
     * Where the CPU names no load ports, the row's groups as imported.
     */
    public int[] microOps(InstructionParams row, int loads, boolean store, boolean stackUpdateFree) {
        int[] compute = computeDemands.get(row);
        if (compute == null) {
            return demands.get(row);
        }
        int skip = -1;
        if (stackUpdateFree) {
            for (int k = 0; k < compute.length && skip < 0; k++) {
                if (compute[k] < 0) {
                    k++;
                } else {
                    skip = k;
                }
            }
        }
        int[] out = new int[compute.length - (skip >= 0 ? 1 : 0) + (store ? 2 : 0) + loads];
        int at = 0;
        for (int k = 0; k < compute.length; k++) {
            if (k != skip) {
                out[at++] = compute[k];
            }
        }
        if (store) { // data, then address: the address micro-ops (store address, loads) come last
            out[at++] = storeDataGroup;
            out[at++] = storeAddressGroup;
        }
        for (int k = 0; k < loads; k++) {
            out[at++] = loadGroup;
        }
        return out;
    }

    private int[] computeDemandList(InstructionParams row, String memoryPorts) {
        List<Integer> out = new ArrayList<>();
        for (Map.Entry<String, Integer> e : row.ports().entrySet()) {
            String group = e.getKey();
            if (group.endsWith("Divider")) {
                int[] members = membersOf(group);
                if (members.length > 0) {
                    out.add(-(members[0] + 1));
                    out.add(e.getValue());
                }
                continue;
            }
            StringBuilder compute = new StringBuilder();
            for (char c : group.toCharArray()) {
                if (memoryPorts.indexOf(c) < 0) {
                    compute.append(c);
                }
            }
            if (compute.length() == 0 || membersOf(compute.toString()).length == 0) {
                continue;
            }
            int count = compute.length() == group.length() ? e.getValue()
                    : Math.max(1, Math.round(e.getValue() * compute.length() / (float) group.length()));
            int id = groupIndex(compute.toString());
            for (int k = 0; k < count; k++) {
                out.add(id);
            }
        }
        return out.stream().mapToInt(Integer::intValue).toArray();
    }

    private int[] demandList(InstructionParams row) {
        List<Integer> out = new ArrayList<>();
        for (Map.Entry<String, Integer> e : row.ports().entrySet()) {
            int[] members = membersOf(e.getKey());
            if (members.length == 0) {
                continue;
            }
            if (e.getKey().endsWith("Divider")) {
                out.add(-(members[0] + 1));
                out.add(e.getValue());
            } else {
                for (int k = 0; k < e.getValue(); k++) {
                    out.add(groupIndex(e.getKey()));
                }
            }
        }
        return out.stream().mapToInt(Integer::intValue).toArray();
    }

    private int groupIndex(String group) {
        return groupIds.computeIfAbsent(group, g -> {
            groupList.add(membersOf(g));
            return groupList.size() - 1;
        });
    }

    /** The demand entry ({@code -unit-1}) of the divider port named {@code name}, or 0 when the table has none. */
    public int dividerUnit(String name) {
        int at = portNames.indexOf(name);
        return at < 0 ? 0 : -(at + 1);
    }

    /** Port indices of a group name: "0156" → ports 0, 1, 5, 6; "Divider" → the divider. */
    private int[] membersOf(String group) {
        List<String> ports = portNames;
        if (group.endsWith("Divider")) {
            int idx = ports.indexOf(group);
            return idx < 0 ? new int[0] : new int[] {idx};
        }
        List<Integer> m = new ArrayList<>();
        for (char c : group.toCharArray()) {
            int idx = ports.indexOf(String.valueOf(c));
            if (idx >= 0) {
                m.add(idx);
            }
        }
        return m.stream().mapToInt(Integer::intValue).toArray();
    }

    /**
     * Reserves every demand this cycle, or nothing. A group micro-op takes a member port that is free now,
     * preferring one not yet taken by this instruction, then the least used; when an instruction has more
     * micro-ops on a group than it has free members, a port takes several and stays busy that many cycles.
     */
    public boolean reserve(int[] demand, long[] portFree, long[] portUse, long[] portBusy, long now, long[] taken) {
        if (demand.length == 0) {
            return true;
        }
        Arrays.fill(taken, 0);
        for (int k = 0; k < demand.length; k++) {
            int d = demand[k];
            if (d < 0) {
                int port = -d - 1;
                if (portFree[port] > now) {
                    return false;
                }
                taken[port] += demand[++k];
                continue;
            }
            int best = -1;
            for (int port : groupList.get(d)) {
                if (portFree[port] > now) {
                    continue;
                }
                if (best < 0 || taken[port] < taken[best]
                        || (taken[port] == taken[best] && portUse[port] < portUse[best])) {
                    best = port;
                }
            }
            if (best < 0) {
                return false;
            }
            taken[best]++;
        }
        for (int p = 0; p < portCount; p++) {
            if (taken[p] > 0) {
                portFree[p] = now + taken[p];
                portUse[p] += taken[p];
                portBusy[p] += taken[p];
            }
        }
        return true;
    }

    /** Micro-ops of a demand list that take a port slot (a divider pair counts none). */
    public static int portMicroOps(int[] demand) {
        int count = 0;
        for (int k = 0; k < demand.length; k++) {
            if (demand[k] < 0) {
                k++;
            } else {
                count++;
            }
        }
        return count;
    }
}
