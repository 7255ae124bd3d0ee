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
 * <p>An address is known when its base and index registers hold known values: registers the block never
 * writes, and registers it writes only by 4- or 8-byte loads from known addresses no store of the block
 * writes (they read the page's filling, the same every iteration). Other writes (an {@code add rdi, 8}) make
 * a register unknown, and accesses through it are left to the dependency graph's same-expression rule. Known
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

    /** Registers (by enclosing name) whose value is the same known number every iteration. */
    static Map<String, Long> knownRegisters(BasicBlock block) {
        Map<String, Long> initial = new HashMap<>();
        for (String r : new String[] {"rax", "rbx", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11", "r12", "r13",
                "r14", "r15"}) {
            initial.put(r, INIT);
        }
        initial.put("rsp", INIT + 2048);
        initial.put("rbp", ((INIT + 2048) >> 5 << 5) - 0x10);
        // Registers written by anything but a plain 4- or 8-byte load are unknown everywhere.
        Map<String, Long> known = new HashMap<>(initial);
        List<Instruction> loads = new ArrayList<>();
        for (Instruction insn : block.instructions()) {
            boolean plainLoad = insn.mnemonic().equals("mov") && insn.visibleOperands().size() == 2
                    && insn.visibleOperands().get(0) instanceof Operand.RegisterOperand d
                    && (d.register().registerClass() == RegisterClass.GPR64
                    || d.register().registerClass() == RegisterClass.GPR32)
                    && insn.visibleOperands().get(1) instanceof Operand.MemoryOperand m && m.sizeBits() >= 32;
            for (Operand op : insn.operands()) {
                if (op instanceof Operand.RegisterOperand r && (r.action().write() || r.action().conditionalWrite())) {
                    if (plainLoad && op == insn.visibleOperands().get(0)) {
                        continue;
                    }
                    known.remove(r.register().enclosingName());
                }
            }
            if (plainLoad) {
                loads.add(insn);
            }
        }
        // A register written by loads is known when every such load reads a known address no store writes:
        // then it holds the page's filling there. Until settled, such registers are unknown.
        for (Instruction l : loads) {
            known.remove(((Operand.RegisterOperand) l.visibleOperands().get(0)).register().enclosingName());
        }
        boolean changed = true;
        while (changed) {
            changed = false;
            Map<String, Long> found = new HashMap<>();
            Map<String, Boolean> blocked = new HashMap<>();
            for (Instruction l : loads) {
                Operand.RegisterOperand d = (Operand.RegisterOperand) l.visibleOperands().get(0);
                String reg = d.register().enclosingName();
                if (known.containsKey(reg)) {
                    continue;
                }
                Operand.MemoryOperand m = (Operand.MemoryOperand) l.visibleOperands().get(1);
                Long a = address(m, known);
                if (a == null || storedBy(block, known, a & 4095, m.sizeBits() / 8)) {
                    blocked.put(reg, true);
                    continue;
                }
                long v = filling(a & 4095, d.register().widthBits() / 8);
                Long before = found.putIfAbsent(reg, v);
                if (before != null && before != v) {
                    blocked.put(reg, true);
                }
            }
            for (Map.Entry<String, Long> e : found.entrySet()) {
                if (!blocked.containsKey(e.getKey())) {
                    known.put(e.getKey(), e.getValue());
                    changed = true;
                }
            }
        }
        return known;
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
