package dev.basalt.simulator.harness;

import java.util.Arrays;

/**
 * Address translation for memory that moves to new pages every iteration — in BHive's harness, a stack that moves
 * ({@code add rsp, 40; pop ×6}): each iteration reads or writes bytes a stride further, and a new page misses the
 * first-level data TLB. The block's other accesses stay on the pages of the first iteration, whose translations
 * are warm in steady state, and are not looked at.
 *
 * <p>A missing page's translation arrives {@link CoreParams#pageWalkCycles()} after its first access; until then
 * loads of it are looked up in the second-level TLB, one a cycle, and a store whose address is looked up in the
 * walk's first half is replayed: its data micro-op holds its port a second cycle. Accesses of a moving block thus
 * run at about half their rate for a while after each new page. That is how BHive's measurements move with the
 * stride, about 8 cycles a new page on Haswell, Skylake and Ivy Bridge alike: six pops take 3 cycles when the stack
 * moves 72 bytes an iteration, 3.5 at 248, 4.9 at 936 and one a cycle (6.0) once every iteration meets a new page;
 * six pushes 6.1 at 72 bytes, 6.8 at 408 and 9.4 at 2,216, two cycles each at 8,200. Loads fit a 16-cycle window
 * and stores half of it (the train split's stride series); the shape is fitted, not published. The first-level TLB
 * holds {@link #ENTRIES} pages, least recently used out first.
 */
public final class Translation {

    /** First-level data TLB entries for 4 KiB pages: 64 on Sandy Bridge to Skylake. */
    static final int ENTRIES = 64;

    private final long[][] moving; // per instruction: {address in iteration 2, bytes it moves an iteration}, or null
    private final int n;
    private final int walkCycles;
    private final Tlb ready; // page → first cycle its translation is in the first-level TLB
    private long lookupFree; // the first cycle the second-level TLB takes another lookup
    private final boolean[] replayed; // per pipeline slot: whether the store instance is replayed
    // Per instruction: the iterations on the page it last found translated, and since when it is.
    private final long[] lastFrom;
    private final long[] lastTo;
    private final long[] lastReady;
    private final int[] lastEntry; // per instruction: the TLB entry of the page it last looked up (a hint)

    private Translation(long[][] moving, int n, int walkCycles, int slots) {
        this.moving = moving;
        this.n = n;
        this.walkCycles = walkCycles;
        this.replayed = new boolean[slots];
        this.lastFrom = new long[moving.length];
        this.lastTo = new long[moving.length];
        this.lastReady = new long[moving.length];
        this.lastEntry = new int[moving.length];
        Arrays.fill(lastFrom, Long.MAX_VALUE); // nothing remembered yet
        this.ready = new Tlb();
    }

    /**
     * The block's translation, or null when none of its memory moves or the CPU has no such rule (0 cycles);
     * {@code slots}, the pipeline's ring of instances (a power of two).
     */
    public static Translation of(long[][] moving, int n, int walkCycles, int slots) {
        return moving == null || walkCycles <= 0 ? null : new Translation(moving, n, walkCycles, slots);
    }

    /** Whether instance {@code j} (instruction {@code i}) may access memory in cycle {@code now}. */
    public boolean free(int j, int i, long now) {
        return lookupFree <= now || !pending(j, i, now);
    }

    /**
     * Instance {@code j} (instruction {@code i}) accesses memory in cycle {@code now}: through the second-level TLB
     * when its page is not translated yet, the first access starting the walk. Returns the cycles its data comes
     * later than from a translated page: until the walk's half-way point, when the second-level TLB answers, the
     * physical address is not known (a load whose address depends on the previous iteration's — a jump table's
     * offset added to its base — pays it every iteration).
     */
    public long access(int j, int i, long now) {
        int slot = j & (replayed.length - 1);
        if (!pending(j, i, now)) {
            replayed[slot] = false;
            return 0;
        }
        long page = page(j, i);
        int e = ready.find(page, lastEntry[i]);
        long at;
        if (e >= 0) {
            at = ready.touch(e);
        } else {
            at = now + walkCycles;
            lastEntry[i] = ready.insert(page, at);
        }
        // A store is replayed when it misses in the walk's first half, before the second-level TLB has answered.
        long answered = at - walkCycles / 2;
        replayed[slot] = answered > now;
        lookupFree = now + 1;
        // Only where every iteration meets a new page: a smaller stride meets one every few iterations, its
        // delay spread over them, which a run of the simulator's length would see as noise in its window.
        return Math.abs(moving[i][1]) >= 4096 ? Math.max(0, answered - now) : 0;
    }

    /** Whether store instance {@code j}, writing its data, is replayed (its address missed early in the walk). */
    public boolean replay(int j) {
        return replayed[j & (replayed.length - 1)];
    }

    private boolean pending(int j, int i, long now) {
        if (moving[i] == null) {
            return false;
        }
        int k = j / n;
        if (k >= lastFrom[i] && k <= lastTo[i] && lastReady[i] <= now) {
            return false; // the common case: an iteration on the page this instruction last found translated
        }
        long page = page(j, i);
        int e = ready.find(page, lastEntry[i]);
        if (e < 0) {
            return true;
        }
        lastEntry[i] = e;
        long at = ready.touch(e);
        if (at <= now) {
            remember(i, page, at);
            return false;
        }
        return true;
    }

    /** Remembers that instruction {@code i}'s page {@code page} is translated from {@code at}, and its iterations. */
    private void remember(int i, long page, long at) {
        long[] m = moving[i];
        long low = page * 4096 - m[0]; // (k - 2) * stride must lie in [low, low + 4095]
        long high = low + 4095;
        long from;
        long to;
        if (m[1] > 0) {
            from = -Math.floorDiv(-low, m[1]) + 2;
            to = Math.floorDiv(high, m[1]) + 2;
        } else {
            from = -Math.floorDiv(high, -m[1]) + 2;
            to = Math.floorDiv(-low, -m[1]) + 2;
        }
        lastFrom[i] = from;
        lastTo[i] = to;
        lastReady[i] = at;
    }

    private long page(int j, int i) {
        long[] m = moving[i];
        return Math.floorDiv(m[0] + (long) (j / n - 2) * m[1], 4096);
    }

    /**
     * The first-level TLB's {@link #ENTRIES} pages, least recently used out first: a look-up that finds its page
     * makes it the most recent, as an access-ordered map would, without boxing a page per look-up (the scheduler asks
     * for every waiting access of a moving block, every cycle).
     */
    private static final class Tlb {
        private final long[] pages = new long[ENTRIES];
        private final long[] readyAt = new long[ENTRIES];
        private final long[] used = new long[ENTRIES]; // when each entry was last looked up or filled
        private int size;
        private long clock;

        /** The entry holding {@code page}, or -1; {@code hint}, the entry it was in last, is tried first. */
        int find(long page, int hint) {
            if (hint < size && pages[hint] == page) {
                return hint;
            }
            for (int e = 0; e < size; e++) {
                if (pages[e] == page) {
                    return e;
                }
            }
            return -1;
        }

        /** Entry {@code e} is looked up: it becomes the most recently used; its page's ready cycle. */
        long touch(int e) {
            used[e] = ++clock;
            return readyAt[e];
        }

        /** Fills an entry with {@code page}, ready at {@code at}, evicting the least recently used when full. */
        int insert(long page, long at) {
            int e = size;
            if (size == ENTRIES) {
                e = 0;
                for (int k = 1; k < size; k++) {
                    if (used[k] < used[e]) {
                        e = k;
                    }
                }
            } else {
                size++;
            }
            pages[e] = page;
            readyAt[e] = at;
            used[e] = ++clock;
            return e;
        }
    }
}
