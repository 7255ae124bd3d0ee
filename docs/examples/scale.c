/* README's memory-model example: gcc -O2 -fno-tree-vectorize -S -masm=intel docs/examples/scale.c */
void scale(double *dst, const double *src, double k, long n) {
    for (long i = 0; i < n; i++) dst[i] = src[i] * k;
}

void bump(long *a, const long *b, long n) {
    for (long i = 0; i < n; i++) a[i] += b[i];
}

void store_each(long *dst, const long *src, long n) {
    while (n--) *dst = *src + 1;
}
