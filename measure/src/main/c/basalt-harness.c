/*
 * basalt-harness: runs x86-64 basic blocks the way BHive measured them, for `basalt measure`.
 *
 * The JVM never executes a block: it starts this program as a child, sends it requests on standard input and
 * reads the answers on standard output (binary, little-endian; MeasureProtocol.java is the other side). The
 * child may die on any block; the parent then writes an error row and starts a new child.
 *
 * What one MEASURE request does (the method is documented once, in Measurer.java's javadoc):
 *   - generates four functions: the block unrolled u0 and u1 times, and the calibration chain the request carries
 *     (by default `add rax, rcx`: one cycle per copy on every x86-64 core since 2011) unrolled c0 and c1 times;
 *     each reads the timer, runs
 *     `repetitions` times {BHive's initial state (below); the copies}, and reads the timer again;
 *   - runs the u1 and u0 functions once untimed: every page the block touches faults, and the SIGSEGV handler maps
 *     it to the one shared data page and lets the instruction run again (BHive maps on the fault and restarts);
 *   - chooses the repetitions so that a difference of the two unrolls lasts about target_ticks timer ticks;
 *   - then `rounds` timed rounds, each running cal(c0), block(u0), cal(c1), block(u1) with the data page refilled
 *     before each run; a run during which the thread was switched out (getrusage's context switches) or a page
 *     was mapped is rejected and its round repeated.
 * Initial state at each repetition: every GPR = 0x2324000 but rsp = rbp = 0x2324800 (the middle of the page);
 * flags cleared (DF too); x87 reset (fninit); every vector register, at its full width (xmm, ymm or zmm as the OS
 * enables), filled with the 32-bit pattern 0x3fc00000 (float 1.5; as a double 0x3fc000003fc00000 ~ 0.125, both
 * normal and non-zero); the data page holding the 64-bit value 0x2324000 in every word; MXCSR = 0x9fc0 (all
 * exceptions masked, FTZ and DAZ) for the whole run.
 *
 * Isolation: no file descriptor but the pipe (the rest are closed), PR_SET_PDEATHSIG, rlimits on CPU time,
 * address space, file size, core dumps and new files, pinned to one CPU, and a seccomp filter allowing only the
 * system calls below (unless --no-seccomp or the kernel refuses it). A fault the mapping cannot fix, an illegal
 * instruction or a divide error is answered with an error naming the signal, the address and the byte of the
 * block, and the child exits.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/perf_event.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <ucontext.h>
#include <unistd.h>
#include <cpuid.h>

#define PROTOCOL_VERSION 2
#define REQUEST_MAGIC 0x51524d42u  /* "BMRQ" */
#define RESPONSE_MAGIC 0x53524d42u /* "BMRS" */
#define OP_INFO 1
#define OP_MEASURE 2
#define OP_QUIT 3
#define STATUS_OK 0
#define STATUS_BLOCK_ERROR 1
#define STATUS_REQUEST_ERROR 2

#define PAGE 4096ul
#define DATA_ADDRESS 0x2324000ul
#define INITIAL_VALUE 0x2324000ul
#define STACK_ADDRESS (DATA_ADDRESS + PAGE / 2)
#define LOWEST_MAPPABLE 0x10000ul          /* vm.mmap_min_addr's usual value */
#define USER_TOP 0x800000000000ul          /* first address of the kernel's half (48-bit) */
#define MAX_BLOCK_BYTES 4096u
#define MAX_CLOCK_BYTES 64u
#define MAX_CODE_BYTES (8u << 20)
#define MAX_ROUNDS 1000u
#define MAX_PAGES_LIMIT 65536u
#define MAX_REPETITIONS 100000u
#define CODE_BASE 0x3f0000000000ul         /* where the timed functions are placed, far from the data */
#define CODE_SLOT (16ul << 20)

struct request {
    uint32_t magic, op, length, unroll[2], cal_unroll[2], rounds, max_pages, cpu_seconds, target_ticks,
        max_repetitions, clock_length;
};

/* The control page the generated code reads and writes (absolute addresses, through rax). */
struct control {
    uint64_t start, end, saved_rsp;
    uint32_t block_mxcsr, harness_mxcsr;
    uint8_t pad[64 - 32];
    uint8_t vector_pattern[64];
};

enum vector_width { VEC_XMM, VEC_YMM, VEC_ZMM };

static struct control *ctl;
static int memfd = -1;
static uint8_t *page_view;          /* the data page, mapped privately to the harness for refills */
static enum vector_width vector_width = VEC_XMM;
static int use_pmc;                 /* 1: rdpmc of a perf cycles counter; 0: rdtsc */
static uint32_t pmc_index;
static volatile int in_block;       /* the generated code is running: faults are the block's */
static volatile uint32_t faults;    /* pages mapped by the handler since the last reset */
static uint32_t max_pages = 1024;
static uintptr_t mapped[MAX_PAGES_LIMIT];
static volatile uint32_t mapped_count;
static uint8_t *body_start;         /* where the block's first copy starts in the running function */
static uint32_t body_length;        /* the block's length in bytes */
static uint8_t *code_low, *code_high;
static char seccomp_state[32] = "off";

/* ---- raw system calls: the signal handler must not touch errno (thread-local through fs) ---- */

static long raw_syscall6(long n, long a, long b, long c, long d, long e, long f) {
    long ret;
    register long r10 __asm__("r10") = d;
    register long r8 __asm__("r8") = e;
    register long r9 __asm__("r9") = f;
    __asm__ volatile("syscall" : "=a"(ret) : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
                     : "rcx", "r11", "memory");
    return ret;
}

static void write_all(const void *data, size_t n) {
    const uint8_t *p = data;
    while (n > 0) {
        long w = raw_syscall6(SYS_write, 1, (long) p, (long) n, 0, 0, 0);
        if (w == -EINTR) continue;
        if (w <= 0) raw_syscall6(SYS_exit_group, 3, 0, 0, 0, 0, 0);
        p += w;
        n -= (size_t) w;
    }
}

static int read_all(void *data, size_t n) {
    uint8_t *p = data;
    while (n > 0) {
        long r = raw_syscall6(SYS_read, 0, (long) p, (long) n, 0, 0, 0);
        if (r == -EINTR) continue;
        if (r <= 0) return -1;
        p += r;
        n -= (size_t) r;
    }
    return 0;
}

/* ---- responses ---- */

static void respond(int32_t status, uint32_t pages, uint32_t kept, uint32_t rejected, uint32_t block_reps,
                    uint32_t cal_reps, const char *message, const uint64_t *ticks, uint32_t nticks) {
    uint32_t head[8] = {RESPONSE_MAGIC, (uint32_t) status, pages, kept, rejected, block_reps, cal_reps,
                        (uint32_t) strlen(message)};
    write_all(head, sizeof head);
    write_all(message, head[7]);
    if (nticks) write_all(ticks, nticks * sizeof(uint64_t));
}

/* Async-signal-safe formatting for the fault messages. */
struct text { char buf[512]; size_t n; };
static void put(struct text *t, const char *s) {
    while (*s && t->n < sizeof t->buf - 1) t->buf[t->n++] = *s++;
    t->buf[t->n] = 0;
}
static void put_hex(struct text *t, uint64_t v) {
    char d[19]; int i = 18; d[i] = 0;
    do { d[--i] = "0123456789abcdef"[v & 15]; v >>= 4; } while (v && i > 2);
    d[--i] = 'x'; d[--i] = '0';
    put(t, d + i);
}
static void put_dec(struct text *t, uint64_t v) {
    char d[21]; int i = 20; d[i] = 0;
    do { d[--i] = (char) ('0' + v % 10); v /= 10; } while (v);
    put(t, d + i);
}

/* Where in the block `rip` is: " at byte N of the block", or " in the harness's code". */
static void put_where(struct text *t, uintptr_t rip) {
    if (body_start && rip >= (uintptr_t) body_start && rip < (uintptr_t) code_high && body_length) {
        uint64_t at = (rip - (uintptr_t) body_start);
        put(t, " (instruction at byte ");
        put_dec(t, at % body_length);
        put(t, " of the block)");
    } else if (rip >= (uintptr_t) code_low && rip < (uintptr_t) code_high) {
        put(t, " (in the harness's generated code)");
    }
}

static void fatal(int sig, siginfo_t *si, void *context) {
    ucontext_t *uc = context;
    uintptr_t rip = (uintptr_t) uc->uc_mcontext.gregs[REG_RIP];
    uintptr_t addr = (uintptr_t) si->si_addr;
    struct text t = {.n = 0};
    if (!in_block) {
        put(&t, "the harness itself faulted (signal ");
        put_dec(&t, (uint64_t) sig);
        put(&t, "): a block corrupted its memory, or a bug");
    } else if (sig == SIGSEGV && si->si_code == SI_KERNEL) {
        put(&t, "general-protection fault: a non-canonical address, a misaligned SSE/AVX operand or a "
                "privileged instruction");
    } else if (sig == SIGSEGV && addr == rip) {
        put(&t, "jumped to ");
        put_hex(&t, addr);
        put(&t, ", where there is no code to run");
    } else if (sig == SIGSEGV && addr >= USER_TOP) {
        put(&t, "memory access to kernel address ");
        put_hex(&t, addr);
    } else if (sig == SIGSEGV && addr < LOWEST_MAPPABLE) {
        put(&t, "memory access to address ");
        put_hex(&t, addr);
        put(&t, ", below the lowest mappable address (");
        put_hex(&t, LOWEST_MAPPABLE);
        put(&t, ")");
    } else if (sig == SIGSEGV && mapped_count >= max_pages) {
        put(&t, "touches more than ");
        put_dec(&t, max_pages);
        put(&t, " pages (at ");
        put_hex(&t, addr);
        put(&t, ")");
    } else if (sig == SIGSEGV) {
        put(&t, "memory access to ");
        put_hex(&t, addr);
        put(&t, ", which the harness's own code or data holds (cannot be mapped to the data page)");
    } else if (sig == SIGILL) {
        put(&t, "illegal instruction: the CPU does not run it");
    } else if (sig == SIGFPE) {
        put(&t, si->si_code == FPE_INTDIV || si->si_code == FPE_INTOVF
                ? "divide error: division by zero or a quotient too large for its register"
                : "floating-point exception");
    } else if (sig == SIGBUS && si->si_code == SI_KERNEL) {
        put(&t, "stack-segment fault: a non-canonical address through rsp or rbp");
    } else if (sig == SIGBUS) {
        put(&t, "bus error at ");
        put_hex(&t, addr);
    } else if (sig == SIGTRAP) {
        put(&t, "debug trap");
    } else {
        put(&t, "signal ");
        put_dec(&t, (uint64_t) sig);
    }
    if (in_block) put_where(&t, rip);
    uint32_t head[8] = {RESPONSE_MAGIC, STATUS_BLOCK_ERROR, mapped_count, 0, 0, 0, 0, (uint32_t) t.n};
    write_all(head, sizeof head);
    write_all(t.buf, t.n);
    raw_syscall6(SYS_exit_group, 0, 0, 0, 0, 0, 0);
}

/* Maps the faulting page to the data page and lets the instruction run again; anything else is fatal. */
static void on_segv(int sig, siginfo_t *si, void *context) {
    uintptr_t addr = (uintptr_t) si->si_addr;
    if (in_block && si->si_code == SEGV_MAPERR && addr >= LOWEST_MAPPABLE && addr < USER_TOP
        && mapped_count < max_pages) {
        uintptr_t page = addr & ~(PAGE - 1);
        long r = raw_syscall6(SYS_mmap, (long) page, PAGE, PROT_READ | PROT_WRITE,
                              MAP_SHARED | MAP_FIXED_NOREPLACE, memfd, 0);
        if (r == (long) page) {
            mapped[mapped_count++] = page;
            faults++;
            return;
        }
        if (r > 0 && r < -4096L) raw_syscall6(SYS_munmap, r, PAGE, 0, 0, 0, 0); /* an old kernel's hint */
    }
    fatal(sig, si, context);
}

static void unmap_block_pages(void) {
    for (uint32_t i = 0; i < mapped_count; i++) munmap((void *) mapped[i], PAGE);
    mapped_count = 0;
}

/* ---- code generation ---- */

struct emitter { uint8_t *p, *end; };
static void b1(struct emitter *e, uint8_t v) { if (e->p < e->end) *e->p++ = v; }
static void bytes(struct emitter *e, const void *src, size_t n) {
    if ((size_t) (e->end - e->p) >= n) { memcpy(e->p, src, n); e->p += n; } else e->p = e->end;
}
static void imm64(struct emitter *e, uint64_t v) { bytes(e, &v, 8); }
static void imm32(struct emitter *e, uint32_t v) { bytes(e, &v, 4); }
#define EMIT(e, ...) do { static const uint8_t s_[] = {__VA_ARGS__}; bytes(e, s_, sizeof s_); } while (0)

/* mov reg64, imm64 for register number r (0 = rax ... 15 = r15). */
static void mov_imm(struct emitter *e, int r, uint64_t v) {
    b1(e, (uint8_t) (0x48 | (r >> 3)));
    b1(e, (uint8_t) (0xb8 + (r & 7)));
    imm64(e, v);
}

/* Reads the timer into rax and stores it at `slot`: lfence; rdtsc (or rdpmc); rdx:rax -> rax. */
static void read_timer(struct emitter *e, uint64_t *slot) {
    if (use_pmc) { b1(e, 0xb9); imm32(e, pmc_index); }   /* mov ecx, index */
    EMIT(e, 0x0f, 0xae, 0xe8);                           /* lfence */
    if (use_pmc) EMIT(e, 0x0f, 0x33); else EMIT(e, 0x0f, 0x31);
    EMIT(e, 0x48, 0xc1, 0xe2, 0x20, 0x48, 0x09, 0xd0);   /* shl rdx, 32; or rax, rdx */
    EMIT(e, 0x48, 0xa3); imm64(e, (uint64_t) (uintptr_t) slot); /* movabs [slot], rax */
}

/* Loads every vector register from [rax] at the full width the OS enables. */
static void load_vectors(struct emitter *e) {
    if (vector_width == VEC_ZMM) {
        for (int i = 0; i < 32; i++) { /* vmovdqu64 zmm_i, [rax] (EVEX.512.F3.0F.W1 6F) */
            uint8_t p0 = (uint8_t) ((((i >> 3) & 1) ? 0 : 0x80) | 0x40 | 0x20 | (((i >> 4) & 1) ? 0 : 0x10) | 0x01);
            uint8_t insn[] = {0x62, p0, 0xfe, 0x48, 0x6f, (uint8_t) ((i & 7) << 3)};
            bytes(e, insn, sizeof insn);
        }
    } else if (vector_width == VEC_YMM) {
        for (int i = 0; i < 16; i++) { /* vmovdqu ymm_i, [rax] (VEX.256.F3.0F 6F) */
            uint8_t insn[] = {0xc5, (uint8_t) ((i >= 8 ? 0 : 0x80) | 0x78 | 0x04 | 0x02), 0x6f,
                              (uint8_t) ((i & 7) << 3)};
            bytes(e, insn, sizeof insn);
        }
    } else {
        for (int i = 0; i < 16; i++) { /* movdqu xmm_i, [rax] */
            b1(e, 0xf3);
            if (i >= 8) b1(e, 0x44);
            uint8_t insn[] = {0x0f, 0x6f, (uint8_t) ((i & 7) << 3)};
            bytes(e, insn, sizeof insn);
        }
    }
}

/*
 * One timed function: save the harness's registers, read the timer, then *counter repetitions of: BHive's initial
 * state (the data page refilled, x87, vector registers, flags, general registers) and `copies` copies of `body`;
 * read the timer, restore.
 * Each repetition is one BHive run of `copies` copies from the same state, so a block touches the same pages however
 * often it is repeated; the state setting and the loop (dec qword [rip+d]; jnz, the counter in the page after the
 * code) cost the same at both unrolls, so their difference cancels them. Returns where the first copy starts.
 */
static uint8_t *generate(struct emitter *e, const uint8_t *body, uint32_t length, uint32_t copies,
                         uint64_t *counter) {
    EMIT(e, 0x53, 0x55, 0x41, 0x54, 0x41, 0x55, 0x41, 0x56, 0x41, 0x57); /* push rbx, rbp, r12-r15 */
    EMIT(e, 0x48, 0x89, 0xe0, 0x48, 0xa3); imm64(e, (uint64_t) (uintptr_t) &ctl->saved_rsp);
    EMIT(e, 0x48, 0xb8); imm64(e, (uint64_t) (uintptr_t) &ctl->harness_mxcsr);
    EMIT(e, 0x0f, 0xae, 0x18);                              /* stmxcsr [rax] */
    EMIT(e, 0x48, 0xb8); imm64(e, (uint64_t) (uintptr_t) &ctl->block_mxcsr);
    EMIT(e, 0x0f, 0xae, 0x10);                              /* ldmxcsr [rax] */
    read_timer(e, &ctl->start);
    while (((uintptr_t) e->p & 63) != 0) b1(e, 0x90);      /* each repetition starts a cache line */
    uint8_t *loop = e->p;
    /* The data page refilled: rep stosq of 512 words of 0x2324000 through the harness's own view of it. */
    EMIT(e, 0xfc, 0x48, 0xbf); imm64(e, (uint64_t) (uintptr_t) page_view);   /* cld; mov rdi, view */
    mov_imm(e, 0, INITIAL_VALUE);
    EMIT(e, 0xb9, 0x00, 0x02, 0x00, 0x00, 0xf3, 0x48, 0xab);                /* mov ecx, 512; rep stosq */
    EMIT(e, 0xdb, 0xe3);                                    /* fninit */
    EMIT(e, 0x48, 0xb8); imm64(e, (uint64_t) (uintptr_t) ctl->vector_pattern);
    load_vectors(e);
    EMIT(e, 0x31, 0xc0, 0x9e, 0xfc);                        /* xor eax, eax; sahf; cld: every flag clear */
    for (int r = 0; r < 16; r++) mov_imm(e, r, r == 4 || r == 5 ? STACK_ADDRESS : INITIAL_VALUE);
    uint8_t *first = e->p;
    for (uint32_t k = 0; k < copies; k++) bytes(e, body, length);
    EMIT(e, 0x48, 0xff, 0x0d);                              /* dec qword [rip+d] */
    imm32(e, (uint32_t) ((intptr_t) counter - (intptr_t) (e->p + 4)));
    EMIT(e, 0x0f, 0x85);                                    /* jnz loop */
    imm32(e, (uint32_t) ((intptr_t) loop - (intptr_t) (e->p + 4)));
    read_timer(e, &ctl->end);
    EMIT(e, 0x48, 0xa1); imm64(e, (uint64_t) (uintptr_t) &ctl->saved_rsp);
    EMIT(e, 0x48, 0x89, 0xc4);                              /* mov rsp, rax */
    EMIT(e, 0x48, 0xb8); imm64(e, (uint64_t) (uintptr_t) &ctl->harness_mxcsr);
    EMIT(e, 0x0f, 0xae, 0x10);                              /* ldmxcsr [rax] */
    EMIT(e, 0xfc, 0xdb, 0xe3);                              /* cld; fninit */
    if (vector_width != VEC_XMM) EMIT(e, 0xc5, 0xf8, 0x77); /* vzeroupper */
    EMIT(e, 0x41, 0x5f, 0x41, 0x5e, 0x41, 0x5d, 0x41, 0x5c, 0x5d, 0x5b, 0xc3);
    return first;
}

static size_t code_size(uint32_t length, uint32_t copies) {
    return 1024 + (size_t) length * copies;
}

/*
 * A function in fresh pages: written, then made executable and read-only (a block cannot rewrite itself); the
 * page after the code holds its loop counter.
 */
struct function { uint8_t *code, *first; size_t size; uint64_t *counter; };

static int make_function(struct function *f, int slot, const uint8_t *body, uint32_t length, uint32_t copies) {
    f->size = (code_size(length, copies) + PAGE - 1) & ~(PAGE - 1);
    /* The same address for the same function in every request and every child: what the caches and predictors
       index by is then the same from one try to the next. */
    void *at = (void *) (CODE_BASE + (uintptr_t) slot * CODE_SLOT);
    void *m = mmap(at, f->size + PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
                   -1, 0);
    if (m == MAP_FAILED) return -1;
    if (m != at) { munmap(m, f->size + PAGE); return -1; }
    struct emitter e = {m, (uint8_t *) m + f->size};
    f->code = m;
    /* The loop counter in the last line of its page: a store at page offset 0 would 4K-alias the block's loads of
       [0x2324000]. */
    f->counter = (uint64_t *) ((uint8_t *) m + f->size + PAGE - 64);
    f->first = generate(&e, body, length, copies, f->counter);
    if (e.p == e.end || mprotect(m, f->size, PROT_READ | PROT_EXEC) != 0) {
        munmap(m, f->size + PAGE);
        return -1;
    }
    return 0;
}

static void free_function(struct function *f) {
    if (f->code) munmap(f->code, f->size + PAGE);
    f->code = NULL;
}

static void refill_page(void) {
    uint64_t *w = (uint64_t *) page_view;
    for (size_t i = 0; i < PAGE / 8; i++) w[i] = INITIAL_VALUE;
}

static uint64_t context_switches(void) {
    struct rusage u;
    if (getrusage(RUSAGE_THREAD, &u) != 0) return 0;
    return (uint64_t) u.ru_nvcsw + (uint64_t) u.ru_nivcsw;
}

/* Runs one function; 1 when the run is clean (no context switch, no page mapped during it). */
static int run(struct function *f, uint32_t length, uint64_t repetitions, uint64_t *ticks) {
    refill_page();
    *f->counter = repetitions;
    uint64_t switches = context_switches();
    uint32_t before = faults;
    body_start = f->first;
    body_length = length;
    code_low = f->code;
    code_high = f->code + f->size;
    in_block = 1;
    ((void (*)(void)) f->code)();
    in_block = 0;
    *ticks = ctl->end - ctl->start;
    return faults == before && context_switches() == switches;
}

/* ---- requests ---- */

static uint8_t block[MAX_BLOCK_BYTES];
/*
 * The calibration chain comes with every request (the parent chooses it: Measurer's ClockChain). It must be a
 * dependent register-register chain: Golden Cove and later Intel P-cores execute `add r64, imm`, `inc`, `lea r64,
 * [r64+imm]` and `mov r64, imm` at rename, about four a cycle, so an immediate chain would read 4x too fast a clock.
 */
static uint8_t calibration_body[MAX_CLOCK_BYTES];
static uint32_t calibration_length;

/* The smallest of three runs' differences of function b over function a, in timer ticks (at least 1). */
static uint64_t probe(struct function *a, struct function *b, uint32_t length) {
    uint64_t best = UINT64_MAX, ta, tb;
    for (int k = 0; k < 3; k++) {
        run(a, length, 1, &ta);
        run(b, length, 1, &tb);
        if (tb > ta && tb - ta < best) best = tb - ta;
    }
    return best == UINT64_MAX ? 1 : best;
}

static uint64_t repetitions_for(uint64_t target, uint64_t per_repetition, uint64_t most) {
    uint64_t r = (target + per_repetition - 1) / per_repetition;
    return r < 1 ? 1 : r > most ? most : r;
}

static void measure(const struct request *q) {
    static uint64_t ticks[4 * MAX_ROUNDS];
    struct function fn[4] = {{0}};
    const uint8_t *bodies[4] = {calibration_body, block, calibration_body, block};
    uint32_t lengths[4] = {calibration_length, q->length, calibration_length, q->length};
    uint32_t copies[4] = {q->cal_unroll[0], q->unroll[0], q->cal_unroll[1], q->unroll[1]};
    max_pages = q->max_pages;
    unmap_block_pages();
    for (int i = 0; i < 4; i++) {
        if (make_function(&fn[i], i, bodies[i], lengths[i], copies[i]) != 0) {
            for (int j = 0; j < i; j++) free_function(&fn[j]);
            respond(STATUS_REQUEST_ERROR, 0, 0, 0, 0, 0, "cannot allocate the code of a timed run", NULL, 0);
            return;
        }
    }
    struct itimerval limit = {{0, 0}, {q->cpu_seconds, 0}}, off = {{0, 0}, {0, 0}};
    setitimer(ITIMER_PROF, &limit, NULL); /* SIGPROF's default action ends a run past its time */
    uint64_t t;
    run(&fn[3], q->length, 1, &t); /* untimed: maps every page the block touches */
    run(&fn[1], q->length, 1, &t);
    uint32_t pages = mapped_count, kept = 0, rejected = 0;
    /* Repetitions so that each difference of the two unrolls is about target_ticks long: the timer may tick
       coarsely (26 ticks a step in a KVM guest here), and a short difference is mostly rounding. */
    uint64_t block_reps = repetitions_for(q->target_ticks, probe(&fn[1], &fn[3], q->length), q->max_repetitions);
    uint64_t cal_reps = repetitions_for(q->target_ticks, probe(&fn[0], &fn[2], calibration_length),
                                        MAX_REPETITIONS);
    uint64_t reps[4] = {cal_reps, block_reps, cal_reps, block_reps};
    while (kept < q->rounds && rejected <= 4 * q->rounds + 16) {
        int clean = 1;
        for (int i = 0; i < 4; i++) clean &= run(&fn[i], lengths[i], reps[i], &ticks[4 * kept + (uint32_t) i]);
        if (clean) kept++; else rejected++;
    }
    setitimer(ITIMER_PROF, &off, NULL);
    for (int i = 0; i < 4; i++) free_function(&fn[i]);
    respond(STATUS_OK, pages, kept, rejected, (uint32_t) block_reps, (uint32_t) cal_reps, "", ticks, 4 * kept);
}

static void info(void) {
    char text[2048];
    size_t n = 0;
    unsigned a, b, c, d;
    n += (size_t) snprintf(text + n, sizeof text - n, "protocol=%d\ntimer=%s\nvectors=%s\nseccomp=%s\n",
                           PROTOCOL_VERSION, use_pmc ? "core-cycles" : "tsc",
                           vector_width == VEC_ZMM ? "zmm" : vector_width == VEC_YMM ? "ymm" : "xmm",
                           seccomp_state);
    unsigned leaves[][2] = {{0, 0}, {1, 0}, {7, 0}, {7, 1}, {0xd, 1}, {0x14, 0}, {0x19, 0}, {0x1d, 0},
                            {0x24, 0}, {0x80000000u, 0}, {0x80000001u, 0}, {0x80000002u, 0},
                            {0x80000003u, 0}, {0x80000004u, 0}, {0x80000008u, 0}, {0x80000021u, 0}};
    for (size_t i = 0; i < sizeof leaves / sizeof leaves[0]; i++) {
        __cpuid_count(leaves[i][0], leaves[i][1], a, b, c, d);
        n += (size_t) snprintf(text + n, sizeof text - n, "cpuid.%x.%x=%08x,%08x,%08x,%08x\n", leaves[i][0],
                               leaves[i][1], a, b, c, d);
    }
    __cpuid(1, a, b, c, d);
    if (c & (1u << 27)) { /* OSXSAVE: xgetbv reads which register states the OS saves */
        uint32_t lo, hi;
        __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
        n += (size_t) snprintf(text + n, sizeof text - n, "xcr0=%x\n", lo);
    }
    respond(STATUS_OK, 0, 0, 0, 0, 0, text, NULL, 0);
}

/* ---- setup ---- */

static void choose_vectors(void) {
    unsigned a, b, c, d;
    __cpuid(1, a, b, c, d);
    if (!(c & (1u << 27)) || !(c & (1u << 28))) return; /* no OSXSAVE or no AVX */
    uint32_t lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    if ((lo & 6) != 6) return;
    vector_width = VEC_YMM;
    __cpuid_count(7, 0, a, b, c, d);
    if ((b & (1u << 16)) && (lo & 0xe6) == 0xe6) vector_width = VEC_ZMM;
}

/* The core-cycle counter, user mode, read with rdpmc: only where the kernel gives one and lets us read it. */
static void open_cycle_counter(void) {
    struct perf_event_attr attr;
    memset(&attr, 0, sizeof attr);
    attr.type = PERF_TYPE_HARDWARE;
    attr.size = sizeof attr;
    attr.config = PERF_COUNT_HW_CPU_CYCLES;
    attr.exclude_kernel = 1;
    attr.exclude_hv = 1;
    int fd = (int) syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
    if (fd < 0) return;
    struct perf_event_mmap_page *pc = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, fd, 0);
    if (pc == MAP_FAILED) { close(fd); return; }
    if (pc->cap_user_rdpmc && pc->index) {
        pmc_index = pc->index - 1;
        use_pmc = 1;
    } else {
        munmap(pc, PAGE);
        close(fd);
    }
}

static void install_seccomp(void) {
    static const int allowed[] = {SYS_read, SYS_write, SYS_mmap, SYS_munmap, SYS_mprotect, SYS_rt_sigreturn,
                                  SYS_getrusage, SYS_setitimer, SYS_exit, SYS_exit_group, SYS_clock_gettime};
    struct sock_filter prog[64];
    unsigned n = 0, count = sizeof allowed / sizeof allowed[0];
    prog[n++] = (struct sock_filter) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch));
    prog[n++] = (struct sock_filter) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0);
    prog[n++] = (struct sock_filter) BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS);
    prog[n++] = (struct sock_filter) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr));
    for (unsigned i = 0; i < count; i++) {
        prog[n++] = (struct sock_filter) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned) allowed[i], 0, 1);
        prog[n++] = (struct sock_filter) BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
    }
    prog[n++] = (struct sock_filter) BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS);
    struct sock_fprog fprog = {(unsigned short) n, prog};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) { strcpy(seccomp_state, "unavailable"); return; }
    if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fprog) != 0) { strcpy(seccomp_state, "unavailable"); return; }
    strcpy(seccomp_state, "on");
}

static void limit(int resource, rlim_t value) {
    struct rlimit r = {value, value};
    setrlimit(resource, &r);
}

int main(int argc, char **argv) {
    int cpu = -1, seccomp = 1, allow_pmc = 1;
    unsigned cpu_limit = 3600;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--cpu") && i + 1 < argc) cpu = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--no-seccomp")) seccomp = 0;
        else if (!strcmp(argv[i], "--timer=tsc")) allow_pmc = 0;
        else if (!strcmp(argv[i], "--cpu-seconds") && i + 1 < argc) cpu_limit = (unsigned) atoi(argv[++i]);
        else if (!strcmp(argv[i], "--version")) { printf("basalt-harness protocol %d\n", PROTOCOL_VERSION); return 0; }
        else { fprintf(stderr, "basalt-harness: unknown argument %s\n", argv[i]); return 2; }
    }
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() == 1) return 3; /* the parent is already gone */
    /* No file descriptor but the pipe: standard error and anything inherited are closed. */
    for (int fd = 2; fd < 1024; fd++) close(fd);
    if (cpu >= 0) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(cpu, &set);
        if (sched_setaffinity(0, sizeof set, &set) != 0) return 4;
    }
    limit(RLIMIT_CORE, 0);
    limit(RLIMIT_CPU, cpu_limit);
    limit(RLIMIT_AS, (rlim_t) 1 << 30);

    memfd = (int) syscall(SYS_memfd_create, "basalt-data-page", 0);
    if (memfd < 0 || ftruncate(memfd, PAGE) != 0) return 5;
    page_view = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, memfd, 0);
    ctl = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (page_view == MAP_FAILED || ctl == MAP_FAILED) return 5;
    ctl->block_mxcsr = 0x9fc0; /* every exception masked, flush-to-zero and denormals-are-zero */
    for (int i = 0; i < 64; i += 4) { uint32_t v = 0x3fc00000u; memcpy(ctl->vector_pattern + i, &v, 4); }
    choose_vectors();
    if (allow_pmc) open_cycle_counter();

    static uint8_t altstack[64 * 1024];
    stack_t ss = {.ss_sp = altstack, .ss_size = sizeof altstack, .ss_flags = 0};
    if (sigaltstack(&ss, NULL) != 0) return 6;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
    sa.sa_sigaction = on_segv;
    sigaction(SIGSEGV, &sa, NULL);
    sa.sa_sigaction = fatal;
    sigaction(SIGILL, &sa, NULL);
    sigaction(SIGFPE, &sa, NULL);
    sigaction(SIGBUS, &sa, NULL);
    sigaction(SIGTRAP, &sa, NULL);
    limit(RLIMIT_FSIZE, 0);  /* set after the data page's file is sized */
    limit(RLIMIT_NOFILE, 0); /* no new file descriptors from here on */
    if (seccomp) install_seccomp();

    struct request q;
    for (;;) {
        if (read_all(&q, sizeof q) != 0) return 0; /* the parent closed the pipe */
        if (q.magic != REQUEST_MAGIC) return 7;
        if (q.op == OP_QUIT) return 0;
        if (q.op == OP_INFO) { info(); continue; }
        if (q.op != OP_MEASURE || q.length == 0 || q.length > MAX_BLOCK_BYTES || q.clock_length == 0
            || q.clock_length > MAX_CLOCK_BYTES) {
            respond(STATUS_REQUEST_ERROR, 0, 0, 0, 0, 0, "malformed request", NULL, 0);
            return 7;
        }
        if (read_all(block, q.length) != 0) return 0;
        if (read_all(calibration_body, q.clock_length) != 0) return 0;
        calibration_length = q.clock_length;
        int bad = q.rounds == 0 || q.rounds > MAX_ROUNDS || q.max_pages == 0 || q.max_pages > MAX_PAGES_LIMIT
                  || q.cpu_seconds == 0 || q.target_ticks == 0
                  || q.max_repetitions == 0 || q.max_repetitions > MAX_REPETITIONS;
        for (int i = 0; i < 2; i++) {
            bad |= q.unroll[i] == 0 || q.cal_unroll[i] == 0
                   || code_size(q.length, q.unroll[i]) > MAX_CODE_BYTES
                   || code_size(calibration_length, q.cal_unroll[i]) > MAX_CODE_BYTES;
        }
        if (bad) {
            respond(STATUS_REQUEST_ERROR, 0, 0, 0, 0, 0, "request out of range (unrolls, rounds, pages or time)", NULL, 0);
            continue;
        }
        measure(&q);
    }
}
