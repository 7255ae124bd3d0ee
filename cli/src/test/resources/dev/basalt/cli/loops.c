/* For AssemblyLoopsTest: loops as gcc lays them out, exit code right after the back edge, nested loops, a call
   in a loop, a divide, a copy, a search with an early exit. */
#include <stddef.h>
#include <stdint.h>

long sum(const long *a, long n) { long s = 0; for (long i = 0; i < n; i++) s += a[i]; return s; }

void copy(long *restrict d, const long *restrict s, long n) { for (long i = 0; i < n; i++) d[i] = s[i] + 1; }

unsigned long digits(unsigned long x) { unsigned long n = 0; do { x /= 10; n++; } while (x); return n; }

long find(const int *a, long n, int v) { for (long i = 0; i < n; i++) if (a[i] == v) return i; return -1; }

double matvec(const double *m, const double *x, double *y, long r, long c) {
    double t = 0;
    for (long i = 0; i < r; i++) { double s = 0; for (long j = 0; j < c; j++) s += m[i * c + j] * x[j]; y[i] = s; t += s; }
    return t;
}

void sink(long);
void each(long n) { for (long i = 0; i < n; i++) sink(i * 3); }

uint32_t crc(const uint8_t *p, size_t n) {
    uint32_t c = ~0u;
    while (n--) { c ^= *p++; for (int k = 0; k < 8; k++) c = (c >> 1) ^ (0xedb88320u & -(c & 1)); }
    return ~c;
}

long collatz(long x) { long n = 0; while (x != 1) { x = (x & 1) ? 3 * x + 1 : x / 2; n++; } return n; }
