package dev.basalt.simulator;

import dev.basalt.decoder.BasicBlock;
import dev.basalt.decoder.Instruction;
import dev.basalt.decoder.Operand;
import dev.basalt.decoder.RegisterClass;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Which loads read what which stores wrote when the block runs as BHive measured it (its timing harness,
 * {@code run_test.nasm}): every general-purpose register starts at {@code 0x2324000} except {@code rsp}
 * ({@code 0x2324800}) and {@code rbp} ({@code 0x23247f0}), every memory page maps to one physical page filled with
 * that value in every quadword, so two accesses whose addresses agree modulo 4096 touch the same bytes.
 *
 * <p>An address is known when its base and index registers hold known values ({@link #knownRegisters}). Other
 * writes (an {@code add rdi, 8}, whose value changes every iteration) make a register unknown, and accesses
 * through it are left to the dependency graph's same-expression rule. Known
 * loads depend on the last known store before them (in the previous iteration when it comes later in the
 * block) that overlaps them; {@code partial} marks a load that the store does not contain, whose data cannot
 * be forwarded.
 */
final class BhiveMemory {

    static final long INIT = 0x2324000L;

    /** A load's producer store: instruction indices, whether from the previous iteration, whether partial. */
    record Edge(int store, int load, boolean loopCarried, boolean partial) {
    }

    private BhiveMemory() {
    }

    /** The store→load dependencies the harness's memory layout creates between known addresses. */
    static List<Edge> edges(BasicBlock block) {
        int n = block.size();
        Map<String, Long> values = knownRegisters(block);
        long[] address = new long[n];
        int[] size = new int[n];
        boolean[] loads = new boolean[n];
        boolean[] stores = new boolean[n];
        for (int i = 0; i < n; i++) {
            address[i] = -1;
            for (Operand op : block.instruction(i).operands()) {
                if (op instanceof Operand.MemoryOperand m && m.visibility() != dev.basalt.decoder.Visibility.HIDDEN) {
                    Long a = address(m, values);
                    if (a != null) {
                        address[i] = a & 4095;
                        size[i] = Math.max(1, m.sizeBits() / 8);
                        loads[i] |= m.action().readsOldValue();
                        stores[i] |= m.action().write() || m.action().conditionalWrite();
                    }
                }
            }
        }
        List<Edge> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            if (!loads[i]) {
                continue;
            }
            for (int back = 1; back <= n; back++) { // the last overlapping store before i, cyclically
                int s = ((i - back) % n + n) % n;
                if (stores[s] && overlaps(address[s], size[s], address[i], size[i])) {
                    boolean contained = contains(address[s], size[s], address[i], size[i]);
                    out.add(new Edge(s, i, s >= i, !contained));
                    break;
                }
            }
        }
        return out;
    }

    /**
     * Registers (by enclosing name) whose value is the same known number every iteration (after the first): those
     * the block never writes keep the harness's value; one the block writes is known when every instruction
     * writing it computes a known value and they agree — a move of a known register or an immediate, an
     * {@code lea} of known registers, a zero idiom, or a 4- or 8-byte load from a known address no store of the
     * block writes (the page's filling). Settled by iterating until nothing changes.
     */
    static Map<String, Long> knownRegisters(BasicBlock block) {
        Map<String, Long> known = new HashMap<>();
        for (String r : new String[] {"rax", "rbx", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11", "r12", "r13",
                "r14", "r15"}) {
            known.put(r, INIT);
        }
        known.put("rsp", INIT + 2048);
        known.put("rbp", ((INIT + 2048) >> 5 << 5) - 0x10);
        Map<String, List<Instruction>> writers = new HashMap<>();
        for (Instruction insn : block.instructions()) {
            for (Operand op : insn.operands()) {
                if (op instanceof Operand.RegisterOperand r && (r.action().write() || r.action().conditionalWrite())) {
                    writers.computeIfAbsent(r.register().enclosingName(), k -> new ArrayList<>()).add(insn);
                }
            }
        }
        writers.keySet().forEach(known::remove);
        boolean changed = true;
        while (changed) {
            changed = false;
            for (Map.Entry<String, List<Instruction>> e : writers.entrySet()) {
                if (known.containsKey(e.getKey())) {
                    continue;
                }
                Long value = null;
                boolean ok = true;
                for (Instruction w : e.getValue()) {
                    Long v = valueWritten(w, e.getKey(), known, block);
                    if (v == null || (value != null && !value.equals(v))) {
                        ok = false;
                        break;
                    }
                    value = v;
                }
                if (ok && value != null) {
                    known.put(e.getKey(), value);
                    changed = true;
                }
            }
        }
        return known;
    }

    /** The value {@code insn} leaves in register {@code reg} given {@code known} registers, or null when not known. */
    private static Long valueWritten(Instruction insn, String reg, Map<String, Long> known, BasicBlock block) {
        List<Operand> ops = insn.visibleOperands();
        if (ops.size() != 2 || !(ops.get(0) instanceof Operand.RegisterOperand d)
                || !d.register().enclosingName().equals(reg)) {
            return null; // flags or hidden writes of other registers, or an instruction we do not follow
        }
        for (Operand op : insn.operands()) { // it must write nothing else we track
            if (op != d && op instanceof Operand.RegisterOperand r && r.register().registerClass() != RegisterClass.FLAGS
                    && (r.action().write() || r.action().conditionalWrite())) {
                return null;
            }
        }
        int width = d.register().widthBits();
        if (width != 32 && width != 64) {
            return null; // a partial write keeps bits we would have to track
        }
        long mask = width == 32 ? 0xffffffffL : -1L;
        Operand src = ops.get(1);
        if (insn.idiom() == dev.basalt.decoder.Idiom.ZERO) {
            return 0L;
        }
        switch (insn.mnemonic()) {
            case "mov" -> {
                if (src instanceof Operand.RegisterOperand s && (s.register().widthBits() == width)) {
                    Long v = known.get(s.register().enclosingName());
                    return v == null ? null : v & mask;
                }
                if (src instanceof Operand.ImmediateOperand i) {
                    return i.value() & mask;
                }
                if (src instanceof Operand.MemoryOperand m && m.sizeBits() >= 32) {
                    Long a = address(m, known);
                    if (a == null || storedBy(block, known, a & 4095, m.sizeBits() / 8)) {
                        return null;
                    }
                    return filling(a & 4095, width / 8) & mask;
                }
                return null;
            }
            case "lea" -> {
                if (src instanceof Operand.AddressOperand a) {
                    long v = a.displacement();
                    if (a.base().isPresent()) {
                        Long b = known.get(a.base().enclosingName());
                        if (b == null || a.base().registerClass() == RegisterClass.IP) {
                            return null;
                        }
                        v += b;
                    }
                    if (a.index().isPresent()) {
                        Long x = known.get(a.index().enclosingName());
                        if (x == null) {
                            return null;
                        }
                        v += x * a.scale();
                    }
                    return v & mask;
                }
                return null;
            }
            default -> {
                return null;
            }
        }
    }

    /** The bytes at page offset {@code offset} of the page filled with {@link #INIT} quadwords, little-endian. */
    static long filling(long offset, int bytes) {
        long v = 0;
        for (int k = bytes - 1; k >= 0; k--) {
            long at = (offset + k) & 4095;
            v = (v << 8) | ((INIT >>> (8 * (at & 7))) & 0xff);
        }
        return v;
    }

    private static boolean storedBy(BasicBlock block, Map<String, Long> known, long offset, int size) {
        for (Instruction insn : block.instructions()) {
            for (Operand op : insn.operands()) {
                if (op instanceof Operand.MemoryOperand m && (m.action().write() || m.action().conditionalWrite())) {
                    Long a = address(m, known);
                    if (a != null && overlaps(a & 4095, Math.max(1, m.sizeBits() / 8), offset, size)) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    /** The address of a memory operand, or null when a register of it is unknown or it is RIP- or segment-based. */
    static Long address(Operand.MemoryOperand m, Map<String, Long> known) {
        String seg = m.segment().name();
        if (!seg.equals("ds") && !seg.equals("ss") && !seg.equals("es")) {
            return null;
        }
        long a = m.displacement();
        if (m.base().isPresent()) {
            Long b = known.get(m.base().enclosingName());
            if (b == null || m.base().registerClass() == RegisterClass.IP) {
                return null;
            }
            a += m.base().widthBits() == 32 ? b & 0xffffffffL : b;
        }
        if (m.index().isPresent()) {
            Long x = known.get(m.index().enclosingName());
            if (x == null) {
                return null;
            }
            a += (m.index().widthBits() == 32 ? x & 0xffffffffL : x) * m.scale();
        }
        return a;
    }

    private static boolean overlaps(long a, int as, long b, int bs) {
        return a < b + bs && b < a + as;
    }

    private static boolean contains(long a, int as, long b, int bs) {
        return a <= b && b + bs <= a + as;
    }
}
