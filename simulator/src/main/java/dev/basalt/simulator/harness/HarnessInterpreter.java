package dev.basalt.simulator.harness;

import static dev.basalt.simulator.harness.BhiveMemory.INIT;
import static dev.basalt.simulator.harness.BhiveMemory.RBP;
import static dev.basalt.simulator.harness.BhiveMemory.RDX;
import static dev.basalt.simulator.harness.BhiveMemory.RSP;
import static dev.basalt.simulator.harness.BhiveMemory.UNKNOWN;
import static dev.basalt.simulator.harness.BhiveMemory.overlaps;

import dev.basalt.simulator.harness.BhiveMemory.Harness;
import dev.basalt.simulator.harness.BhiveMemory.Program;
import dev.basalt.simulator.harness.BhiveMemory.Step;
import dev.basalt.simulator.harness.StepCompiler.Access;

/**
 * {@link BhiveMemory}'s interpreter: the runs of a {@link Program} from the harness's registers over unrolled
 * iterations, following the values its steps compute ({@link Follow}), which give every memory operand's address.
 */
final class HarnessInterpreter {

    private HarnessInterpreter() {
    }

    /**
     * The address of every memory operand of the block ({@link Program#firstAccess} numbers them), or
     * {@link BhiveMemory#UNKNOWN}, from the registers holding a known value before its instruction, the same in every
     * iteration after the first. The block runs three times from the harness's registers, following what it
     * computes: a move of a known register or an immediate, an {@code lea} of known registers, a zero idiom,
     * {@code add}/{@code sub} of a register, an immediate or a load, {@code cdq}/{@code cqo}, an integer divide's
     * quotient and remainder, a load (a 64-bit {@code pop} too) from a known address — the page's filling, or what a
     * store of the block wrote there before it ({@link Page}) — and rsp through {@code push}, {@code pop} and
     * {@code add}/{@code sub} of an immediate, the stack slots of push and pop being accesses like others. Any other
     * write makes a register unknown, and so does a value that differs between the second and third runs (an
     * {@code add rdi, 8}). Which loads a store overlaps depends on the values, so the runs repeat until the stores'
     * addresses settle. Only the operands' base and index registers are kept from the runs, and the divides'
     * quotients ({@link Program#quotientBits}): an address is all anything else asks of them.
     */
    static long[] addressesOf(Program prog, long[] stride) {
        int n = prog.n;
        int accesses = prog.firstAccess[n];
        long[] address = new long[accesses];
        java.util.Arrays.fill(address, UNKNOWN);
        if (!prog.memory && !prog.divides) { // nothing to place, no divider's values to find
            return address;
        }
        boolean loadsFollowed = false;
        for (int i = 0; i < n; i++) {
            loadsFollowed |= prog.follow(i) instanceof Load || prog.follow(i) instanceof Pop
                    || prog.follow(i) instanceof Divide d && d.at() != null || prog.follow(i) instanceof SumLoad;
        }
        // The second run's base and index values at each operand (UNKNOWN: not known), to compare with the third's.
        long[] secondBase = new long[accesses];
        long[] secondIndex = new long[accesses];
        long[] stored = new long[0]; // {page offset, bytes} pairs of the stores at known addresses
        // Per operand, whether it stores what the page already holds there (the filling): such a store changes no
        // value a load of the block can see (a copy of a pointer loaded from the page back into it).
        boolean[] keeps = new boolean[accesses];
        long[] value = new long[16];
        for (int round = 0; round < 4; round++) {
            int known = harness(value, prog.harness);
            Page page = new Page(stored);
            boolean anyMoving = false;
            for (int run = 0; run < 4; run++) {
                if (run == 3 && !anyMoving) {
                    break; // a fourth run only checks that moving addresses keep their stride
                }
                for (int i = 0; i < n; i++) {
                    Access[] access = prog.steps[i].access();
                    for (int k = 0, a = prog.firstAccess[i]; run > 0 && k < access.length; k++, a++) {
                        long base = register(access[k].base(), value, known);
                        long index = register(access[k].index(), value, known);
                        if (run == 3) {
                            // Moving for good only by the same stride again: a value loaded from the page can
                            // move an address once and then settle (eax = [rax + 36] - 117 lands on one offset).
                            if (prog.moving[a] != 0
                                    && access[k].address(base, index) - prog.movingFrom[a] != prog.moving[a]) {
                                prog.moving[a] = 0;
                            }
                        } else if (run == 1) {
                            secondBase[a] = base;
                            secondIndex[a] = index;
                        } else {
                            // Known in both runs with the same value, or not known.
                            address[a] = access[k].address(base == secondBase[a] ? base : UNKNOWN,
                                    index == secondIndex[a] ? index : UNKNOWN);
                            long thirdRun = access[k].address(base, index);
                            long secondRun = access[k].address(secondBase[a], secondIndex[a]);
                            prog.moving[a] = thirdRun != UNKNOWN && secondRun != UNKNOWN && !access[k].hidden()
                                    ? thirdRun - secondRun : 0;
                            prog.movingFrom[a] = thirdRun;
                            anyMoving |= prog.moving[a] != 0;
                            if (address[a] == UNKNOWN) {
                                // Moving by a multiple of the page from one iteration to the next (p += stride, the
                                // stride a register holding 0x2324000): another virtual page every iteration, the
                                // same bytes of the one physical page — its offset is known.
                                long third = access[k].address(base, index);
                                long second = access[k].address(secondBase[a], secondIndex[a]);
                                if (third != UNKNOWN && second != UNKNOWN && ((third - second) & 4095) == 0) {
                                    address[a] = third;
                                    stride[a] = third - second;
                                }
                            }
                            keeps[a] = access[k].store() && address[a] != UNKNOWN && prog.steps[i].data() != null
                                    && keepsFilling(prog.steps[i].data().value(value, known, page), address[a],
                                    access[k].bytes());
                        }
                    }
                    Step step = prog.steps[i];
                    for (Access m : access) {
                        long at = m.store() && !m.hidden() ? m.address(value, known) : UNKNOWN;
                        if (at != UNKNOWN) { // what it writes, for the loads after it (Page)
                            page.write(at & 4095, m.bytes(),
                                    step.data() == null ? UNKNOWN : step.data().value(value, known, page));
                        }
                    }
                    int[] writes = step.writes();
                    if (writes.length > 0) {
                        // Every write of an instruction reads the registers as they were before it.
                        Follow follow = prog.follow(i);
                        long v;
                        long remainder = UNKNOWN;
                        if (follow instanceof Divide d) { // one division gives the quotient, remainder and size
                            java.math.BigInteger[] qr = d.divide(value, known, page);
                            v = qr == null ? UNKNOWN : d.low(qr[0]);
                            remainder = qr == null ? UNKNOWN : d.low(qr[1]);
                            if (run > 0) {
                                prog.divided(i, run, qr == null ? -1 : qr[0].abs().bitLength());
                            }
                        } else {
                            v = follow == null ? UNKNOWN : follow.value(value, known, page);
                        }
                        for (int slot : writes) {
                            if (slot == step.followedSlot() && v != UNKNOWN) {
                                value[slot] = v;
                                known |= 1 << slot;
                            } else if (slot == RDX && remainder != UNKNOWN) {
                                value[slot] = remainder;
                                known |= 1 << slot;
                            } else {
                                known &= ~(1 << slot);
                            }
                        }
                    }
                    value[RSP] += step.stackDelta(); // a push or pop moves rsp (known or not: then unused)
                }
            }
            if (!loadsFollowed) {
                break; // the stores' addresses change nothing the runs follow
            }
            long[] stores = storeRanges(prog, address, keeps);
            if (java.util.Arrays.equals(stores, stored)) {
                break;
            }
            stored = stores;
        }
        return address;
    }

    /**
     * A base or index slot's value: 0 when absent (-1), {@link BhiveMemory#UNKNOWN} when not followed (-2) or not
     * known.
     */
    static long register(int slot, long[] value, int known) {
        return slot == -1 ? 0 : slot < 0 || (known & (1 << slot)) == 0 ? UNKNOWN : value[slot];
    }

    /**
     * The registers as the harness leaves them (all {@link BhiveMemory#INIT}, {@code rsp} and {@code rbp} in the
     * page): the mask.
     */
    private static int harness(long[] value, Harness harness) {
        java.util.Arrays.fill(value, INIT);
        value[RSP] = INIT + 2048;
        value[RBP] = harness == Harness.BASALT ? INIT + 2048 : ((INIT + 2048) >> 5 << 5) - 0x10;
        return 0xffff;
    }

    /** How a followed instruction computes the value it writes ({@link #addressesOf}). */
    sealed interface Follow {
        /** The value written given the registers before, or {@link BhiveMemory#UNKNOWN}. */
        long value(long[] value, int known, Page stored);
    }

    /** A constant: an immediate, a zero idiom. */
    record Constant(long v) implements Follow {
        public long value(long[] value, int known, Page stored) {
            return v;
        }
    }

    /** {@code mov} of a register of the same width. */
    record Copy(int from, long mask) implements Follow {
        public long value(long[] value, int known, Page stored) {
            return from >= 0 && (known & (1 << from)) != 0 ? value[from] & mask : UNKNOWN;
        }
    }

    /** {@code movzx}/{@code movsx}/{@code movsxd} of a register's low {@code bits} (from bit {@code shift}). */
    record Extend(int from, int shift, int bits, boolean signed, long mask) implements Follow {
        public long value(long[] value, int known, Page stored) {
            if ((known & (1 << from)) == 0) {
                return UNKNOWN;
            }
            long v = value[from] >>> shift << (64 - bits);
            return (signed ? v >> (64 - bits) : v >>> (64 - bits)) & mask;
        }
    }

    /**
     * {@code mov} of 4 or 8 bytes, or {@code movzx}/{@code movsx}/{@code movsxd} of 1, 2 or 4 ({@code signed}: sign-
     * extended), from a known address no store of the block writes: the page's filling.
     */
    record Load(Access m, int bytes, long mask, boolean signed) implements Follow {
        Load(Access m, int bytes, long mask) {
            this(m, bytes, mask, false);
        }

        public long value(long[] value, int known, Page stored) {
            long a = m.address(value, known);
            if (a == UNKNOWN) {
                return UNKNOWN;
            }
            long v = stored.read(a & 4095, m.sizeBits() / 8, bytes);
            if (v == UNKNOWN) {
                return UNKNOWN;
            }
            if (signed && bytes < 8) {
                v = v << (64 - 8 * bytes) >> (64 - 8 * bytes);
            }
            return v & mask;
        }
    }

    /**
     * A 64-bit {@code pop}: a {@link Load} of its stack slot; where rsp is not known (after an {@code and rsp, -16})
     * and the block pushes nothing ({@code guess}), still the filling — rsp stays 8-aligned, and every aligned
     * quadword of the page holds {@link BhiveMemory#INIT}.
     */
    record Pop(Load slot, boolean guess) implements Follow {
        public long value(long[] value, int known, Page stored) {
            if (guess && slot.m().address(value, known) == UNKNOWN) {
                return INIT;
            }
            return slot.value(value, known, stored);
        }
    }

    /** {@code add} or {@code sub} of an immediate to rsp (a frame's allocation): rsp + {@code delta}. */
    record StackAdjust(long delta) implements Follow {
        public long value(long[] value, int known, Page stored) {
            return (known & (1 << RSP)) != 0 ? value[RSP] + delta : UNKNOWN;
        }
    }

    /** {@code add} or {@code sub} ({@code sign} -1) of register {@code from} (-1: of {@code imm}) to {@code to}. */
    record Sum(int to, int from, long imm, long sign, long mask) implements Follow {
        public long value(long[] value, int known, Page stored) {
            if ((known & (1 << to)) == 0 || from >= 0 && (known & (1 << from)) == 0) {
                return UNKNOWN;
            }
            return (value[to] + sign * (from >= 0 ? value[from] : imm)) & mask;
        }
    }

    /** {@code add} or {@code sub} ({@code sign} -1) of a load ({@link Load}) to register {@code to}. */
    record SumLoad(int to, Load m, long sign, long mask) implements Follow {
        public long value(long[] value, int known, Page stored) {
            long v = (known & (1 << to)) == 0 ? UNKNOWN : m.value(value, known, stored);
            return v == UNKNOWN ? UNKNOWN : (value[to] + sign * v) & mask;
        }
    }

    /**
     * {@code div} or {@code idiv} ({@code signed}) of {@code bits} (32 or 64): rdx:rax (edx:eax) by register {@code
     * from} or the load {@code at} (null for a register). Its {@link #value} is the quotient, {@link #divide} gives
     * the quotient and the remainder; a division by zero or whose quotient does not fit faulted, and BHive kept no
     * block that faults, so its values are not known.
     */
    record Divide(int bits, boolean signed, int from, Load at) implements Follow {
        public long value(long[] value, int known, Page stored) {
            java.math.BigInteger[] qr = divide(value, known, stored);
            return qr == null ? UNKNOWN : low(qr[0]);
        }

        /** The register value of a quotient or remainder: its low {@code bits}. */
        long low(java.math.BigInteger v) {
            return v.longValue() & mask();
        }

        private long mask() {
            return bits == 64 ? -1L : 0xffffffffL;
        }

        /** The quotient and the remainder, or null when an operand is not known or the quotient would not fit. */
        java.math.BigInteger[] divide(long[] value, int known, Page stored) {
            if ((known & 1) == 0 || (known & (1 << RDX)) == 0) {
                return null;
            }
            long d = from >= 0 ? ((known & (1 << from)) == 0 ? UNKNOWN : value[from]) : at.value(value, known, stored);
            if (d == UNKNOWN) {
                return null;
            }
            java.math.BigInteger divisor;
            java.math.BigInteger dividend;
            if (bits == 32) {
                long both = (value[RDX] & 0xffffffffL) << 32 | value[0] & 0xffffffffL;
                dividend = signed ? java.math.BigInteger.valueOf(both) : unsigned(both);
                divisor = java.math.BigInteger.valueOf(signed ? (int) d : d & 0xffffffffL);
            } else {
                java.math.BigInteger hi = signed ? java.math.BigInteger.valueOf(value[RDX]) : unsigned(value[RDX]);
                dividend = hi.shiftLeft(64).or(unsigned(value[0]));
                divisor = signed ? java.math.BigInteger.valueOf(d) : unsigned(d);
            }
            if (divisor.signum() == 0) {
                return null;
            }
            java.math.BigInteger[] qr = dividend.divideAndRemainder(divisor); // truncating, as the CPU does
            java.math.BigInteger limit = java.math.BigInteger.ONE.shiftLeft(signed ? bits - 1 : bits);
            boolean fits = signed ? qr[0].compareTo(limit) < 0 && qr[0].compareTo(limit.negate()) >= 0
                    : qr[0].compareTo(limit) < 0;
            return fits ? qr : null;
        }

        private static java.math.BigInteger unsigned(long v) {
            return new java.math.BigInteger(Long.toUnsignedString(v));
        }
    }

    /**
     * {@code cdq} ({@code bits} 32) and {@code cqo} (64): eax's (rax's) sign in every bit of edx (rdx); {@code cdqe}
     * ({@code intoRdx} false): eax sign-extended into rax.
     */
    record SignFill(int bits, boolean intoRdx) implements Follow {
        public long value(long[] value, int known, Page stored) {
            if ((known & 1) == 0) {
                return UNKNOWN;
            }
            if (!intoRdx) {
                return (long) (int) value[0];
            }
            return bits == 64 ? value[0] >> 63 : ((int) value[0] >> 31) & 0xffffffffL;
        }
    }

    /** {@code lea}: displacement, base, index times scale. */
    record Lea(long displacement, int base, int index, int scale, long mask) implements Follow {
        public long value(long[] value, int known, Page stored) {
            long v = displacement;
            if (base != -1) {
                if (base < 0 || (known & (1 << base)) == 0) {
                    return UNKNOWN;
                }
                v += value[base];
            }
            if (index != -1) {
                if (index < 0 || (known & (1 << index)) == 0) {
                    return UNKNOWN;
                }
                v += value[index] * scale;
            }
            return v & mask;
        }
    }

    /** Whether {@code v}, stored in {@code bytes} bytes at {@code address}, is what the page holds there. */
    private static boolean keepsFilling(long v, long address, int bytes) {
        return v != UNKNOWN && bytes <= 8 && v == filling(address & 4095, bytes);
    }

    /**
     * {page offset, bytes} of every store of the block at a known address that changes the page ({@code keeps}:
     * those that write back its filling do not), given every operand's address.
     */
    private static long[] storeRanges(Program prog, long[] address, boolean[] keeps) {
        long[] out = new long[8];
        int count = 0;
        for (int i = 0; i < prog.n; i++) {
            Access[] access = prog.steps[i].access();
            for (int k = 0; k < access.length; k++) {
                Access m = access[k];
                long a = m.store() && !keeps[prog.firstAccess[i] + k] ? address[prog.firstAccess[i] + k] : UNKNOWN;
                if (a != UNKNOWN) {
                    if (count + 2 > out.length) {
                        out = java.util.Arrays.copyOf(out, out.length * 2);
                    }
                    out[count++] = a & 4095;
                    out[count++] = m.bytes();
                }
            }
        }
        return java.util.Arrays.copyOf(out, count);
    }

    /**
     * The bytes at page offset {@code offset} of the page filled with {@link BhiveMemory#INIT} quadwords,
     * little-endian.
     */
    static long filling(long offset, int bytes) {
        long v = 0;
        for (int k = bytes - 1; k >= 0; k--) {
            long at = (offset + k) & 4095;
            v = (v << 8) | ((INIT >>> (8 * (at & 7))) & 0xff);
        }
        return v;
    }

    /**
     * The one page as the runs see it: the ranges that the block's stores at known addresses change (from the
     * previous round of runs), and what the stores of this round wrote so far, in order: a load of bytes that a
     * store wrote reads what it wrote, when that store's value is known and holds the load's bytes.
     */
    static final class Page {
        private final long[] stored; // {page offset, bytes} pairs
        private long[] log = new long[12]; // {page offset, bytes, value} triples, oldest first
        private int logged;

        Page(long[] stored) {
            this.stored = stored;
        }

        /** A store of {@code bytes} at page offset {@code offset} of value {@code v} (UNKNOWN: not known). */
        void write(long offset, int bytes, long v) {
            if (logged + 3 > log.length) {
                log = java.util.Arrays.copyOf(log, log.length * 2);
            }
            log[logged++] = offset;
            log[logged++] = bytes;
            log[logged++] = v;
        }

        /**
         * The {@code bytes} low bytes of the {@code size} bytes at page offset {@code offset}: the filling where no
         * store of the block writes, what the last store there wrote where it holds them, else UNKNOWN.
         */
        long read(long offset, int size, int bytes) {
            boolean storedThere = false;
            for (int k = 0; k < stored.length; k += 2) {
                storedThere |= overlaps(stored[k], (int) stored[k + 1], offset, size);
            }
            if (!storedThere) {
                return filling(offset, bytes);
            }
            for (int k = logged - 3; k >= 0; k -= 3) {
                long at = log[k];
                int n = (int) log[k + 1];
                if (overlaps(at, n, offset, size)) {
                    if (log[k + 2] == UNKNOWN || offset < at || offset + size > at + n || n > 8) {
                        return UNKNOWN;
                    }
                    long shifted = log[k + 2] >>> (8 * (offset - at));
                    return bytes >= 8 ? shifted : shifted & ((1L << (8 * bytes)) - 1);
                }
            }
            return filling(offset, bytes); // a store of the block writes there, but not yet in these runs
        }
    }
}
