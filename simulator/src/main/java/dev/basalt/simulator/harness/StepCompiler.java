package dev.basalt.simulator.harness;

import static dev.basalt.simulator.harness.BhiveMemory.RBP;
import static dev.basalt.simulator.harness.BhiveMemory.RSP;
import static dev.basalt.simulator.harness.BhiveMemory.UNKNOWN;
import static dev.basalt.simulator.harness.HarnessInterpreter.register;

import dev.basalt.decoder.Instruction;
import dev.basalt.decoder.Operand;
import dev.basalt.decoder.RegisterClass;
import dev.basalt.decoder.Visibility;
import dev.basalt.simulator.harness.BhiveMemory.Step;
import dev.basalt.simulator.harness.HarnessInterpreter.Constant;
import dev.basalt.simulator.harness.HarnessInterpreter.Copy;
import dev.basalt.simulator.harness.HarnessInterpreter.Divide;
import dev.basalt.simulator.harness.HarnessInterpreter.Extend;
import dev.basalt.simulator.harness.HarnessInterpreter.Follow;
import dev.basalt.simulator.harness.HarnessInterpreter.Lea;
import dev.basalt.simulator.harness.HarnessInterpreter.Load;
import dev.basalt.simulator.harness.HarnessInterpreter.Pop;
import dev.basalt.simulator.harness.HarnessInterpreter.SignFill;
import dev.basalt.simulator.harness.HarnessInterpreter.StackAdjust;
import dev.basalt.simulator.harness.HarnessInterpreter.Sum;
import dev.basalt.simulator.harness.HarnessInterpreter.SumLoad;
import java.util.ArrayList;
import java.util.List;

/**
 * Compiles one instruction into the {@link Step} that {@link HarnessInterpreter}'s runs follow: the registers it
 * writes, how the followed one gets its value, its memory operands ({@link Access}) and what a store writes.
 */
final class StepCompiler {

    private static final int[] NONE = {};
    private static final Access[] NO_ACCESS = {};

    private StepCompiler() {
    }

    /** Whether {@code insn} writes general-purpose register {@code slot} as an operand it names (or, unless
     *  {@code visibleOnly}, any). */
    private static boolean writesSlot(Instruction insn, int slot, boolean visibleOnly) {
        for (Operand op : insn.operands()) {
            if (op instanceof Operand.RegisterOperand r && slot(r.register()) == slot
                    && (r.action().write() || r.action().conditionalWrite())
                    && (!visibleOnly || r.visibility() != Visibility.HIDDEN)) {
                return true;
            }
        }
        return false;
    }

    /** A general-purpose register's slot (0..15) by its enclosing name; -1 for any other register. */
    static int slot(dev.basalt.decoder.Register r) {
        return switch (r.enclosingName()) {
            case "rax" -> 0;
            case "rbx" -> 1;
            case "rcx" -> 2;
            case "rdx" -> 3;
            case "rsi" -> 4;
            case "rdi" -> 5;
            case "rsp" -> RSP;
            case "rbp" -> RBP;
            case "r8" -> 8;
            case "r9" -> 9;
            case "r10" -> 10;
            case "r11" -> 11;
            case "r12" -> 12;
            case "r13" -> 13;
            case "r14" -> 14;
            case "r15" -> 15;
            default -> -1;
        };
    }

    /**
     * A memory operand, compiled: segment usable (ds, ss, es), displacement, base and index slots (-1: absent,
     * -2: a register not followed, such as rip), whether they are 32-bit, scale, bytes, and its use.
     */
    record Access(boolean segment, long displacement, int base, boolean base32, int index, boolean index32,
                          int scale, int bytes, int sizeBits, boolean load, boolean store, boolean hidden) {

        static Access of(Operand.MemoryOperand m) {
            String seg = m.segment().name();
            return new Access(seg.equals("ds") || seg.equals("ss") || seg.equals("es"), m.displacement(),
                    followed(m.base()), m.base().widthBits() == 32, followed(m.index()), m.index().widthBits() == 32,
                    m.scale(), Math.max(1, m.sizeBits() / 8), m.sizeBits(), m.action().readsOldValue(),
                    m.action().write() || m.action().conditionalWrite(), m.visibility() == Visibility.HIDDEN);
        }

        /** This hidden stack slot of a push or pop as an access at rsp + {@code displacement}. */
        Access stackSlot(long displacement) {
            return new Access(segment, displacement, base, base32, index, index32, scale, bytes, sizeBits, load,
                    store, false);
        }

        private static int followed(dev.basalt.decoder.Register r) {
            return !r.isPresent() ? -1 : r.registerClass() == RegisterClass.IP || slot(r) < 0 ? -2 : slot(r);
        }

        /** Its address given registers {@code known} with {@code value}, or {@link BhiveMemory#UNKNOWN}. */
        long address(long[] value, int known) {
            return address(register(base, value, known), register(index, value, known));
        }

        /**
         * Its address given its base's and index's values ({@link HarnessInterpreter#register}: 0 when absent,
         * {@link BhiveMemory#UNKNOWN} when not known), or {@link BhiveMemory#UNKNOWN}.
         */
        long address(long baseValue, long indexValue) {
            if (!segment || baseValue == UNKNOWN || indexValue == UNKNOWN) {
                return UNKNOWN;
            }
            return displacement + (base32 ? baseValue & 0xffffffffL : baseValue)
                    + (index32 ? indexValue & 0xffffffffL : indexValue) * scale;
        }
    }

    /**
     * What a store writes, when the runs can follow it: {@code mov} to memory of a register as wide as the
     * operand (4 or 8 bytes) or of an immediate, {@code push} of a 64-bit register or an immediate; else null.
     */
    static Follow dataOf(Instruction insn) {
        String mnemonic = insn.mnemonic();
        List<Operand> ops = insn.visibleOperands();
        if (mnemonic.equals("mov") && ops.size() == 2 && ops.get(0) instanceof Operand.MemoryOperand m) {
            int bits = m.sizeBits();
            long mask = bits >= 64 ? -1L : (1L << bits) - 1;
            if (ops.get(1) instanceof Operand.RegisterOperand r && r.register().widthBits() == bits
                    && (bits == 32 || bits == 64) && slot(r.register()) >= 0) {
                return new Copy(slot(r.register()), mask);
            }
            if (ops.get(1) instanceof Operand.ImmediateOperand imm && bits > 0) {
                return new Constant(imm.value() & mask);
            }
        }
        if (mnemonic.equals("push") && ops.size() == 1) {
            if (ops.get(0) instanceof Operand.RegisterOperand r && r.register().widthBits() == 64
                    && slot(r.register()) >= 0) {
                return new Copy(slot(r.register()), -1L);
            }
            if (ops.get(0) instanceof Operand.ImmediateOperand imm) {
                return new Constant(imm.value());
            }
        }
        return null;
    }

    static Step shape(Instruction insn) {
        String mnemonic = insn.mnemonic();
        // push and pop: the stack engine moves rsp by the operand's size, followed here (stackDelta) so that
        // a pop finds what a push of the block stored; the stack slot they access is a memory operand like
        // any other. (pop rsp, whose result replaces the stack engine's, is left unknown.)
        boolean push = mnemonic.equals("push");
        boolean stackOp = push || mnemonic.equals("pop") && !writesSlot(insn, RSP, true);
        int stackDelta = 0;
        int[] w = new int[insn.operands().size()];
        int count = 0;
        List<Access> accesses = null;
        boolean visible = false;
        boolean load = false;
        boolean store = false;
        for (int oi = 0, on = insn.operands().size(); oi < on; oi++) {
            Operand op = insn.operands().get(oi); // indexed: C1 allocates an iterator per loop
            if (op instanceof Operand.RegisterOperand r && r.register().registerClass() != RegisterClass.FLAGS
                    && (r.action().write() || r.action().conditionalWrite()) && slot(r.register()) >= 0
                    && !(stackOp && slot(r.register()) == RSP && r.visibility() == Visibility.HIDDEN)) {
                w[count++] = slot(r.register());
            }
            if (op instanceof Operand.MemoryOperand m) {
                if (accesses == null) {
                    accesses = new ArrayList<>(2);
                }
                boolean stackSlot = stackOp && m.visibility() == Visibility.HIDDEN && slot(m.base()) == RSP;
                Access a = Access.of(m);
                if (stackSlot) {
                    stackDelta = push ? -a.bytes() : a.bytes();
                    a = a.stackSlot(push ? -a.bytes() : 0); // a push writes below the rsp it reads
                }
                accesses.add(a);
                if (m.visibility() != Visibility.HIDDEN || stackSlot) {
                    visible = true;
                    load |= m.action().readsOldValue();
                    store |= m.action().write() || m.action().conditionalWrite();
                }
            }
        }
        int[] writes = count == 0 ? NONE : java.util.Arrays.copyOf(w, count);
        Access[] access = accesses == null ? NO_ACCESS : accesses.toArray(new Access[0]);
        boolean zero = insn.idiom() == dev.basalt.decoder.Idiom.ZERO;
        List<Operand> visibleOps = insn.visibleOperands();
        if ((mnemonic.equals("add") || mnemonic.equals("sub")) && visibleOps.size() == 2
                && visibleOps.get(0) instanceof Operand.RegisterOperand d && d.register().widthBits() == 64
                && slot(d.register()) == RSP && visibleOps.get(1) instanceof Operand.ImmediateOperand imm) {
            long delta = mnemonic.equals("add") ? imm.value() : -imm.value();
            return new Step(writes, RSP, new StackAdjust(delta), 0, access, visible, load, store);
        }
        if (mnemonic.equals("cdq") || mnemonic.equals("cqo") || mnemonic.equals("cdqe")) {
            // the sign of eax (rax) spread into edx (rdx), or eax sign-extended into rax: a signed divide's dividend
            boolean intoRdx = !mnemonic.equals("cdqe");
            return new Step(writes, intoRdx ? BhiveMemory.RDX : 0, new SignFill(mnemonic.equals("cdq") ? 32 : 64,
                    intoRdx), 0, access, visible, load, store);
        }
        if ((mnemonic.equals("div") || mnemonic.equals("idiv")) && visibleOps.size() == 1) {
            // rdx:rax (edx:eax) by the operand: the quotient to rax, the remainder to rdx, both followed — a store
            // whose address holds the remainder then has a known address, and the divider its values (Dividers)
            Operand src = visibleOps.get(0);
            int bits = src instanceof Operand.RegisterOperand r ? r.register().widthBits()
                    : src instanceof Operand.MemoryOperand m ? m.sizeBits() : 0;
            boolean ok = bits == 32 || bits == 64;
            int from = src instanceof Operand.RegisterOperand r ? slot(r.register()) : -1;
            Load divisorAt = src instanceof Operand.MemoryOperand m
                    ? new Load(Access.of(m), bits / 8, bits == 64 ? -1L : 0xffffffffL) : null;
            if (ok && (from >= 0 || divisorAt != null)) {
                return new Step(writes, 0, new Divide(bits, mnemonic.equals("idiv"), from, divisorAt), 0, access,
                        visible, load, store);
            }
            return new Step(writes, -1, null, 0, access, visible, load, store);
        }
        boolean sum = (mnemonic.equals("add") || mnemonic.equals("sub")) && visibleOps.size() == 2
                && (visibleOps.get(1) instanceof Operand.RegisterOperand
                || visibleOps.get(1) instanceof Operand.ImmediateOperand
                || visibleOps.get(1) instanceof Operand.MemoryOperand);
        boolean extending = mnemonic.equals("movzx") || mnemonic.equals("movsx") || mnemonic.equals("movsxd");
        if (!mnemonic.equals("mov") && !mnemonic.equals("lea") && !mnemonic.equals("pop") && !zero && !sum
                && !extending) {
            // the common case: an instruction whose result we do not follow
            return new Step(writes, -1, null, stackDelta, access, visible, load, store);
        }
        List<Operand> ops = visibleOps;
        if (mnemonic.equals("pop")) {
            // a pop's value is a load like mov's: the page's filling unless a store of the block wrote there
            boolean followed = stackDelta == 8 && ops.size() == 1 && ops.get(0) instanceof Operand.RegisterOperand p
                    && p.register().widthBits() == 64 && slot(p.register()) >= 0;
            return followed
                    ? new Step(writes, slot(((Operand.RegisterOperand) ops.get(0)).register()),
                            new Pop(new Load(access[access.length - 1], 8, -1L), true), stackDelta, access,
                            visible, load, store)
                    : new Step(writes, -1, null, stackDelta, access, visible, load, store);
        }
        if (ops.size() != 2 || !(ops.get(0) instanceof Operand.RegisterOperand d) || slot(d.register()) < 0) {
            return new Step(writes, -1, null, 0, access, visible, load, store); // another shape: unknown
        }
        for (int oi = 0, on = insn.operands().size(); oi < on; oi++) { // it must write nothing else we track
            Operand op = insn.operands().get(oi); // indexed: C1 allocates an iterator per loop
            if (op != d && op instanceof Operand.RegisterOperand r
                    && r.register().registerClass() != RegisterClass.FLAGS
                    && (r.action().write() || r.action().conditionalWrite())) {
                return new Step(writes, -1, null, 0, access, visible, load, store);
            }
        }
        int width = d.register().widthBits();
        if (width != 32 && width != 64) { // a partial write keeps bits we would have to track
            return new Step(writes, -1, null, 0, access, visible, load, store);
        }
        long mask = width == 32 ? 0xffffffffL : -1L;
        Operand src = ops.get(1);
        Follow follow = null;
        if (zero) {
            follow = new Constant(0);
        } else if (mnemonic.equals("mov")) {
            if (src instanceof Operand.RegisterOperand s && s.register().widthBits() == width) {
                follow = new Copy(slot(s.register()), mask);
            } else if (src instanceof Operand.ImmediateOperand imm) {
                follow = new Constant(imm.value() & mask);
            } else if (src instanceof Operand.MemoryOperand m && m.sizeBits() >= 32) {
                follow = new Load(Access.of(m), width / 8, mask);
            }
        } else if (extending) {
            // a table's entry loaded and extended: a jump table's offset added to its base moves the base by
            // the filling (0x2324000) every iteration, onto another page
            boolean signed = !mnemonic.equals("movzx");
            if (src instanceof Operand.MemoryOperand m && m.sizeBits() < width) {
                follow = new Load(Access.of(m), m.sizeBits() / 8, mask, signed);
            } else if (src instanceof Operand.RegisterOperand r && slot(r.register()) >= 0
                    && r.register().widthBits() < width) {
                String name = r.register().name();
                boolean high = name.length() == 2 && name.charAt(1) == 'h'; // ah, bh, ch, dh: bits 8-15
                follow = new Extend(slot(r.register()), high ? 8 : 0, r.register().widthBits(), signed, mask);
            }
        } else if (sum) {
            // add/sub of a register, an immediate or a load: followed so that a pointer stepping by a register
            // that holds 0x2324000 keeps its page offset (the address's value still changes between runs: not
            // known), and a pointer loaded and added to one is known
            long sign = mnemonic.equals("add") ? 1 : -1;
            if (src instanceof Operand.RegisterOperand s && s.register().widthBits() == width
                    && slot(s.register()) >= 0) {
                follow = new Sum(slot(d.register()), slot(s.register()), 0, sign, mask);
            } else if (src instanceof Operand.ImmediateOperand imm) {
                follow = new Sum(slot(d.register()), -1, imm.value(), sign, mask);
            } else if (src instanceof Operand.MemoryOperand m && m.sizeBits() == width) {
                follow = new SumLoad(slot(d.register()), new Load(Access.of(m), width / 8, mask), sign, mask);
            }
        } else if (mnemonic.equals("lea") && src instanceof Operand.AddressOperand a) {
            follow = new Lea(a.displacement(), Access.followed(a.base()), Access.followed(a.index()), a.scale(),
                    mask);
        }
        return new Step(writes, slot(d.register()), follow, 0, access, visible, load, store);
    }
}
