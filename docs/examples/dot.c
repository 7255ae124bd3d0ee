/* The program of README's "basalt analyze" example: gcc -O2 -o /tmp/dot docs/examples/dot.c */
double dot(const double *a, const double *b, long n) {
    double s = 0;
    for (long i = 0; i < n; i++) s += a[i] * b[i];
    return s;
}

int main(int argc, char **argv) { return (int) dot((double *) argv, (double *) argv, argc); }
