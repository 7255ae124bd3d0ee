/* For GasAgreementTest: loops, a jump table, TLS, string and vector code, cold paths. gcc -S turns it into
   assembly that gas and Basalt both assemble. */
#include <string.h>
#include <stdint.h>
#include <stddef.h>

double dot(const double *a, const double *b, long n) {
    double s = 0;
    for (long i = 0; i < n; i++) s += a[i] * b[i];
    return s;
}

int sw(int x, int y) {
    switch (x) {
    case 0: return y + 1;
    case 1: return y * 3;
    case 2: return y - 7;
    case 3: return y << 2;
    case 4: return y ^ 5;
    case 5: return y / 3;
    default: return 0;
    }
}

size_t mystrlen(const char *s) { size_t n = 0; while (s[n]) n++; return n; }

void saxpy(float *restrict y, const float *restrict x, float a, int n) {
    for (int i = 0; i < n; i++) y[i] += a * x[i];
}

uint64_t popc(const uint64_t *v, int n) {
    uint64_t c = 0;
    for (int i = 0; i < n; i++) c += __builtin_popcountll(v[i]) + __builtin_clzll(v[i] | 1);
    return c;
}

int cmp(const void *a, const void *b) { return *(const int *) a - *(const int *) b; }

void sort3(int *v) {
    if (v[0] > v[1]) { int t = v[0]; v[0] = v[1]; v[1] = t; }
    if (v[1] > v[2]) { int t = v[1]; v[1] = v[2]; v[2] = t; }
}

long fib(long n) { long a = 0, b = 1; while (n-- > 0) { long t = a + b; a = b; b = t; } return a; }

void copy(char *d, const char *s, size_t n) { memcpy(d, s, n); }

int64_t divs(int64_t a, int64_t b, uint32_t c, uint8_t d) { return a / b + a % b + c / 7 + (d >> 3) + (int8_t) d; }

double cvt(int i, long l, float f) { return i + l + f + (double) (unsigned) i; }

static int counter;
int inc(void) { return ++counter; }

__thread int tls;
int gettls(void) { return tls++; }

unsigned char bytes(unsigned char *p, int n) {
    unsigned char x = 0;
    for (int i = 0; i < n; i++) x ^= p[i] + (p[i] >> 2);
    return x;
}

short shorts(short *p, int n) { short x = 0; for (int i = 0; i < n; i++) x += p[i] * 3; return x; }

long cond(long a, long b) { return a > b ? a - b : (a == b ? 17 : b); }
