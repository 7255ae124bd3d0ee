package dev.basalt.simulator.harness;

import static dev.basalt.simulator.harness.BhiveMemory.INIT;
import static dev.basalt.simulator.harness.BhiveMemory.RBP;
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
     * computes: a move of a known register or an immediate, an {@code lea} of known registers, a zero idiom, a 4-
     * or 8-byte load (a 64-bit {@code pop} too) from a known address no store of the block writes (the page's
     * filling), and rsp through {@code push}, {@code pop} and {@code add}/{@code sub} of an immediate, the stack
     * slots of push and pop being accesses like others. Any other
     * write makes a register unknown, and so does a value that differs between the second and third runs (an
     * {@code add rdi, 8}). Which loads a store overlaps depends on the values, so the runs repeat until the stores'
     * addresses settle. Only the operands' base and index registers are kept from the runs: an address is all
     * anything asks of them.
     */
    static long[] addressesOf(Program prog, long[] stride) {
        int n = prog.n;
        int accesses = prog.firstAccess[n];
        long[] address = new long[accesses];
        java.util.Arrays.fill(address, UNKNOWN);
        if (!prog.memory) { // nothing to place: no address needed
            return address;
        }
        boolean loadsFollowed = false;
        for (int i = 0; i < n; i++) {
            loadsFollowed |= prog.follow(i) instanceof Load || prog.follow(i) instanceof Pop;
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
                                    && keepsFilling(prog.steps[i].data().value(value, known, stored), address[a],
                                    access[k].bytes());
                        }
                    }
                    Step step = prog.steps[i];
                    int[] writes = step.writes();
                    if (writes.length > 0) {
                        // Every write of an instruction reads the registers as they were before it.
                        Follow follow = prog.follow(i);
                        long v = follow == null ? UNKNOWN : follow.value(value, known, stored);
                        for (int slot : writes) {
                            if (slot == step.followedSlot() && v != UNKNOWN) {
                                value[slot] = v;
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
        long value(long[] value, int known, long[] stored);
    }

    /** A constant: an immediate, a zero idiom. */
    record Constant(long v) implements Follow {
        public long value(long[] value, int known, long[] stored) {
            return v;
        }
    }

    /** {@code mov} of a register of the same width. */
    record Copy(int from, long mask) implements Follow {
        public long value(long[] value, int known, long[] stored) {
            return from >= 0 && (known & (1 << from)) != 0 ? value[from] & mask : UNKNOWN;
        }
    }

    /** {@code movzx}/{@code movsx}/{@code movsxd} of a register's low {@code bits} (from bit {@code shift}). */
    record Extend(int from, int shift, int bits, boolean signed, long mask) implements Follow {
        public long value(long[] value, int known, long[] stored) {
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

        public long value(long[] value, int known, long[] stored) {
            long a = m.address(value, known);
            if (a == UNKNOWN || storedBy(stored, a & 4095, m.sizeBits() / 8)) {
                return UNKNOWN;
            }
            long v = filling(a & 4095, bytes);
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
        public long value(long[] value, int known, long[] stored) {
            if (guess && slot.m().address(value, known) == UNKNOWN) {
                return INIT;
            }
            return slot.value(value, known, stored);
        }
    }

    /** {@code add} or {@code sub} of an immediate to rsp (a frame's allocation): rsp + {@code delta}. */
    record StackAdjust(long delta) implements Follow {
        public long value(long[] value, int known, long[] stored) {
            return (known & (1 << RSP)) != 0 ? value[RSP] + delta : UNKNOWN;
        }
    }

    /** {@code add} or {@code sub} ({@code sign} -1) of register {@code from} (-1: of {@code imm}) to {@code to}. */
    record Sum(int to, int from, long imm, long sign, long mask) implements Follow {
        public long value(long[] value, int known, long[] stored) {
            if ((known & (1 << to)) == 0 || from >= 0 && (known & (1 << from)) == 0) {
                return UNKNOWN;
            }
            return (value[to] + sign * (from >= 0 ? value[from] : imm)) & mask;
        }
    }

    /** {@code lea}: displacement, base, index times scale. */
    record Lea(long displacement, int base, int index, int scale, long mask) implements Follow {
        public long value(long[] value, int known, long[] stored) {
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

    private static boolean storedBy(long[] stored, long offset, int size) {
        for (int k = 0; k < stored.length; k += 2) {
            if (overlaps(stored[k], (int) stored[k + 1], offset, size)) {
                return true;
            }
        }
        return false;
    }
}
