package dev.basalt.difftune;

import dev.basalt.decoder.Instruction;
import dev.basalt.decoder.Operand;
import dev.basalt.simulator.params.InstructionParams;

import java.util.Set;

/**
 * What a tuned row may claim about a CPU (DESIGN.md §11, "tuning that stays physical"): the rules every
 * candidate row of {@link SimulatorRefiner} must pass, whatever it does to the training error. A table is a claim
 * about a CPU; these are the claims the public measurements of Haswell, Skylake and Ivy Bridge rule out.
 */
public final class Plausibility {

    /** Integer ALU operations that take one cycle on register and immediate operands on these CPUs. */
    static final Set<String> SINGLE_CYCLE_ALU = Set.of("ADD", "SUB", "AND", "OR", "XOR", "CMP", "TEST", "INC", "DEC",
            "NEG", "NOT", "MOV", "LEA", "MOVZX", "MOVSX", "MOVSXD", "SETZ", "SETNZ", "SETB", "SETNB", "SETL",
            "SETNL", "SETLE", "SETNLE", "SETS", "SETNS", "SETO", "SETNO", "SETP", "SETNP");

    /**
     * Integer ALU operations whose memory forms ({@code ADD m64, r64}, {@code CMP r32, m32}) are the register form's
     * one-cycle operation beside a load and, for a read-modify-write, a store.
     */
    static final Set<String> ALU_OPERATIONS = Set.of("ADD", "SUB", "AND", "OR", "XOR", "CMP", "TEST", "INC", "DEC",
            "NEG", "NOT");

    /** Shifts, one cycle by an immediate count (by {@code CL} they take more micro-ops). */
    static final Set<String> SHIFTS = Set.of("SHL", "SHR", "SAR");

    /** Data moves between registers and memory: a load or store of them is the memory path and nothing else. */
    static final java.util.regex.Pattern MOVES = java.util.regex.Pattern.compile("V?(MOV(AP[SD]|UP[SD]|SS|SD|D|Q|"
            + "DQA|DQU|DQA32|DQA64|DQU8|DQU16|DQU32|DQU64|DDUP|SHDUP|SLDUP|HPS|LPS|HPD|LPD|NTDQA|NTPS|NTPD|NTDQ|NTI|"
            + "ZX|SX|SXD)?|LDDQU|BROADCASTS[SD]|PBROADCAST[BWDQ]|BROADCASTF128|BROADCASTI128)");

    /** Floating-point adds, multiplies, minima and maxima: one fully pipelined micro-op of fixed latency. */
    static final java.util.regex.Pattern FP_ARITHMETIC = java.util.regex.Pattern.compile(
            "V?(ADD|SUB|MUL|MIN|MAX)(SS|SD|PS|PD)");

    private Plausibility() {
    }

    /**
     * Whether {@code row} keeps what a data move claims: a load ({@code MOVSD xmm, m64}) at most a cycle above its
     * imported latency (its result is the load path's, which the core's parameters hold), a store
     * ({@code MOV m16, r16}) with its imported micro-ops and at most a cycle more latency (what happens to the data
     * later — forwarding, renaming, a failed forward — is the core's, not the row's). The Zen 5 search once gave
     * {@code MOVSD xmm, m64} 24 cycles and {@code MOVSS m32, xmm} 9 micro-ops, standing in for forwarding into vector
     * registers and memory renaming the machine then modelled wrongly.
     */
    public static boolean dataMoveAsImported(String form, InstructionParams row, InstructionParams defaultRow) {
        String[] parts = form.split(" ", 2);
        if (parts.length < 2 || !MOVES.matcher(parts[0]).matches()) {
            return true;
        }
        String[] ops = parts[1].split(", ");
        if (ops.length != 2) {
            return true;
        }
        boolean store = ops[0].matches("m\\d+");
        boolean load = !store && ops[1].matches("m\\d+");
        if (store) {
            return row.uops() == defaultRow.uops() && row.latency() <= defaultRow.latency() + 1;
        }
        return !load || row.latency() <= defaultRow.latency() + 1;
    }

    /**
     * Whether {@code row} keeps what a register-only floating-point add, multiply, minimum or maximum claims: its
     * imported micro-ops and port cycles (the pipes are fully pipelined), its latency within a cycle of the imported
     * one (Zen 5 adds in 2 cycles where llvm-mca's Zen 4 model says 3). The Zen 5 search once gave {@code ADDSS xmm,
     * xmm} latency 5 and two cycles of both adders.
     */
    public static boolean fpArithmeticAsImported(String form, InstructionParams row, InstructionParams defaultRow) {
        String[] parts = form.split(" ", 2);
        if (parts.length < 2 || !FP_ARITHMETIC.matcher(parts[0]).matches() || parts[1].matches(".*\\bm\\d+.*")) {
            return true;
        }
        return row.uops() == defaultRow.uops() && row.ports().equals(defaultRow.ports())
                && Math.abs(row.latency() - defaultRow.latency()) <= 1;
    }

    /**
     * Whether {@code row} is a plausible row for {@code form}.
     * <ul>
     * <li>A register-only integer ALU form ({@link #isSingleCycleAlu}: the ALU operations, moves and extensions,
     *     the one-flag-group {@code SETcc}, shifts by an immediate) has latency 1.</li>
     * <li>On the second-generation machine, read-advance stays imported (load+operation forms execute in two
     *     steps) and port groups of memory ports only stay imported (memory micro-ops come from the operands):
     *     changing them would change nothing but the table.</li>
     * <li>A form that executes somewhere keeps at least one port group (an emptied port set is an instruction that
     *     costs nothing, which no CPU has).</li>
     * <li>A form that loads ({@code example} reads memory) has at least the load latency: its result cannot come
     *     before its data.</li>
     * <li>A form imported with a latency of a cycle or more keeps at least one: only a zero idiom or an eliminated
     *     move (imported at 0) has its result at once (the Skylake search once took {@code SHL r64, CL} to 0).</li>
     * <li>A memory form of an integer ALU operation ({@link #isAluMemoryForm}) keeps its imported latency and the
     *     imported cycles of its non-memory port groups: its operation is the register form's one-cycle micro-op,
     *     its load and store the memory rules' (the Haswell search once gave {@code ADD m64, r64} two ALU cycles
     *     and {@code CMP r32, m32} latency 12, standing in for memory effects the machine did not model).</li>
     * <li>A data move keeps its memory path ({@link #dataMoveAsImported}) and a floating-point add, multiply, minimum
     *     or maximum its pipe ({@link #fpArithmeticAsImported}).</li>
     * </ul>
     *
     * @param example     an instruction of the form (to see its operands), or null
     * @param defaultRow  the form's imported row
     * @param loadLatency the table's load latency
     * @param memoryPorts the ports of memory micro-ops (load, store address, store data; empty when the machine
     *                    uses the imported groups as they are)
     * @param secondGeneration whether the table is for the second-generation machine
     */
    public static boolean allowed(String form, Instruction example, InstructionParams row, InstructionParams defaultRow,
                                  int loadLatency, String memoryPorts, boolean secondGeneration) {
        if (isSingleCycleAlu(form) && row.latency() != 1) {
            return false;
        }
        if (defaultRow.latency() >= 1 && row.latency() < 1) {
            return false;
        }
        if (secondGeneration && row.readAdvance() != defaultRow.readAdvance()) {
            return false; // the second machine executes a load+operation in two steps instead
        }
        if (!memoryPorts.isEmpty()) { // the second machine rebuilds memory micro-ops from the operands
            java.util.Set<String> groups = new java.util.TreeSet<>(row.ports().keySet());
            groups.addAll(defaultRow.ports().keySet());
            for (String g : groups) {
                if (g.chars().allMatch(c -> memoryPorts.indexOf(c) >= 0)
                        && !row.ports().getOrDefault(g, 0).equals(defaultRow.ports().getOrDefault(g, 0))) {
                    return false;
                }
            }
        }
        if (!defaultRow.ports().isEmpty() && row.ports().isEmpty()) {
            return false;
        }
        if (isAluMemoryForm(form) && !aluPartAsImported(row, defaultRow, memoryPorts)) {
            return false;
        }
        if (!dataMoveAsImported(form, row, defaultRow) || !fpArithmeticAsImported(form, row, defaultRow)) {
            return false;
        }
        return example == null || !loads(example) || row.latency() >= Math.min(loadLatency, defaultRow.latency());
    }

    /**
     * {@code table} with every row that breaks a class rule set to what the rule says (a register-only integer
     * ALU form gets latency 1: the imported {@code XOR r32, r32} row has latency 0 because most of its uses are
     * zero idioms, which never read it, yet {@code xor eax, ebx} takes a cycle). The rows changed go to
     * {@code changed}.
     */
    public static dev.basalt.simulator.params.SimulatorParams repair(dev.basalt.simulator.params.SimulatorParams table,
                                                              java.util.Map<String, String> changed) {
        java.util.Map<String, InstructionParams> rows = new java.util.TreeMap<>(table.forms());
        for (java.util.Map.Entry<String, InstructionParams> e : table.forms().entrySet()) {
            InstructionParams r = e.getValue();
            if (isSingleCycleAlu(e.getKey()) && r.latency() != 1) {
                rows.put(e.getKey(), new InstructionParams(r.uops(), 1, r.readAdvance(), r.ports(), r.fusedUops()));
                changed.put(e.getKey(), "latency " + r.latency() + " -> 1 (register-only integer ALU form)");
            }
        }
        return changed.isEmpty() ? table : table.withForms(rows);
    }

    /**
     * Whether a form is a register-only integer ALU operation ({@code ADD r64, r64}, {@code CMP r32, i8},
     * {@code MOV r64, r64}, {@code LEA r64, m}; not {@code ADD r64, m64}): the forms DESIGN.md §11 fixes at
     * latency 1. {@code LEA}'s one form covers every address; the simple ones take one cycle.
     */
    public static boolean isSingleCycleAlu(String form) {
        String[] parts = form.split(" ", 2);
        if (parts.length < 2) {
            return false;
        }
        boolean shiftByImmediate = SHIFTS.contains(parts[0]) && parts[1].matches(".*, (i8|1)");
        if (!SINGLE_CYCLE_ALU.contains(parts[0]) && !shiftByImmediate) {
            return false;
        }
        for (String operand : parts[1].split(", ")) {
            boolean memory = operand.startsWith("m") && !parts[0].equals("LEA");
            if (memory || operand.startsWith("xmm") || operand.startsWith("ymm") || operand.startsWith("zmm")
                    || operand.startsWith("k") || operand.startsWith("mm")) {
                return false;
            }
        }
        return true;
    }

    /** Whether {@code form} is a memory form of an integer ALU operation ({@code ADD m64, i8}, {@code SUB r64, m64}). */
    public static boolean isAluMemoryForm(String form) {
        String[] parts = form.split(" ", 2);
        if (parts.length < 2 || !ALU_OPERATIONS.contains(parts[0])) {
            return false;
        }
        boolean memory = false;
        for (String operand : parts[1].split(", ")) {
            memory |= operand.matches("m\\d+");
            if (operand.startsWith("xmm") || operand.startsWith("ymm") || operand.startsWith("zmm")
                    || operand.startsWith("k") || operand.startsWith("mm")) {
                return false;
            }
        }
        return memory;
    }

    /**
     * Whether {@code row} has {@code defaultRow}'s latency and the same cycles in every port group that is not made
     * of memory ports only ({@code memoryPorts}; all groups when empty).
     */
    static boolean aluPartAsImported(InstructionParams row, InstructionParams defaultRow, String memoryPorts) {
        if (row.latency() != defaultRow.latency()) {
            return false;
        }
        java.util.Set<String> groups = new java.util.TreeSet<>(row.ports().keySet());
        groups.addAll(defaultRow.ports().keySet());
        for (String g : groups) {
            boolean memoryOnly = !memoryPorts.isEmpty() && g.chars().allMatch(c -> memoryPorts.indexOf(c) >= 0);
            if (!memoryOnly && !row.ports().getOrDefault(g, 0).equals(defaultRow.ports().getOrDefault(g, 0))) {
                return false;
            }
        }
        return true;
    }

    private static boolean loads(Instruction insn) {
        for (Operand op : insn.operands()) {
            if (op instanceof Operand.MemoryOperand m && m.action().readsOldValue()) {
                return true;
            }
        }
        return false;
    }
}
