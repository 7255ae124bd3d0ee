package dev.basalt.datasets;

import java.util.Arrays;
import java.util.Objects;

/**
 * The accuracy metrics every Basalt report uses (DESIGN.md §1), computed in one place.
 *
 * <p>APE (absolute percentage error) of a prediction is |predicted − measured| / measured, as a fraction
 * (0.1 = 10%). Percentiles interpolate linearly between order statistics (numpy's default). Kendall's τ-b
 * corrects for ties in either variable and runs in O(n log n) (Knight, 1966); Spearman's ρ is the Pearson
 * correlation of average ranks.
 */
public final class Metrics {

    private Metrics() {
    }

    /** Absolute percentage errors, as fractions. */
    public static double[] ape(double[] predicted, double[] measured) {
        check(predicted, measured);
        double[] e = new double[measured.length];
        for (int i = 0; i < e.length; i++) {
            if (!(measured[i] > 0)) {
                throw new IllegalArgumentException("measured value " + i + " must be > 0, got " + measured[i]);
            }
            e[i] = ape(predicted[i], measured[i]);
        }
        return e;
    }

    /**
     * One absolute percentage error, as a fraction: |predicted − measured| / measured. Every error in Basalt's
     * reports, training and tuning is this one function (callers check that {@code measured} is positive).
     */
    public static double ape(double predicted, double measured) {
        return Math.abs(predicted - measured) / measured;
    }

    /** Mean absolute percentage error, as a fraction. */
    public static double mape(double[] predicted, double[] measured) {
        return Arrays.stream(ape(predicted, measured)).average().orElseThrow();
    }

    /** Median absolute percentage error, as a fraction. */
    public static double medianApe(double[] predicted, double[] measured) {
        return percentile(ape(predicted, measured), 50);
    }

    /** The {@code p}-th percentile (0..100) with linear interpolation. */
    public static double percentile(double[] values, double p) {
        if (values.length == 0) {
            throw new IllegalArgumentException("no values");
        }
        if (!(p >= 0 && p <= 100)) {
            throw new IllegalArgumentException("percentile must be in [0, 100], got " + p);
        }
        double[] s = values.clone();
        Arrays.sort(s);
        double pos = p / 100 * (s.length - 1);
        int lo = (int) Math.floor(pos);
        int hi = Math.min(lo + 1, s.length - 1);
        return s[lo] + (pos - lo) * (s[hi] - s[lo]);
    }

    /**
     * Kendall's τ-b: (concordant − discordant) / sqrt((n0 − n1)(n0 − n2)), with n0 = n(n−1)/2 and n1, n2 the
     * pairs tied in x and in y. NaN when either variable is constant.
     */
    public static double kendallTauB(double[] x, double[] y) {
        check(x, y);
        int n = x.length;
        Integer[] boxed = new Integer[n];
        for (int i = 0; i < n; i++) {
            boxed[i] = i;
        }
        Arrays.sort(boxed, (a, b) -> x[a] != x[b] ? Double.compare(x[a], x[b]) : Double.compare(y[a], y[b]));
        int[] order = new int[n];
        for (int i = 0; i < n; i++) {
            order[i] = boxed[i];
        }
        long n0 = (long) n * (n - 1) / 2;
        long tiesX = 0;
        long tiesXY = 0;
        for (int i = 0; i < n; ) {
            int j = i;
            while (j < n && x[order[j]] == x[order[i]]) {
                j++;
            }
            tiesX += (long) (j - i) * (j - i - 1) / 2;
            for (int k = i; k < j; ) {
                int l = k;
                while (l < j && y[order[l]] == y[order[k]]) {
                    l++;
                }
                tiesXY += (long) (l - k) * (l - k - 1) / 2;
                k = l;
            }
            i = j;
        }
        // Sorting by y now counts the discordant pairs: each inversion is one.
        double[] ys = new double[n];
        for (int i = 0; i < n; i++) {
            ys[i] = y[order[i]];
        }
        long swaps = mergeSortCountingSwaps(ys, new double[n], 0, n);
        long tiesY = 0;
        for (int i = 0; i < n; ) {
            int j = i;
            while (j < n && ys[j] == ys[i]) {
                j++;
            }
            tiesY += (long) (j - i) * (j - i - 1) / 2;
            i = j;
        }
        double numerator = (double) (n0 - tiesX - tiesY + tiesXY) - 2.0 * swaps;
        double denominator = Math.sqrt((double) (n0 - tiesX) * (double) (n0 - tiesY));
        return denominator == 0 ? Double.NaN : numerator / denominator;
    }

    /** Sorts a[lo, hi) ascending and returns the number of inversions (strictly greater before smaller). */
    private static long mergeSortCountingSwaps(double[] a, double[] tmp, int lo, int hi) {
        if (hi - lo < 2) {
            return 0;
        }
        int mid = (lo + hi) >>> 1;
        long swaps = mergeSortCountingSwaps(a, tmp, lo, mid) + mergeSortCountingSwaps(a, tmp, mid, hi);
        int i = lo;
        int j = mid;
        int k = lo;
        while (i < mid && j < hi) {
            if (a[j] < a[i]) {
                swaps += mid - i;
                tmp[k++] = a[j++];
            } else {
                tmp[k++] = a[i++];
            }
        }
        while (i < mid) {
            tmp[k++] = a[i++];
        }
        while (j < hi) {
            tmp[k++] = a[j++];
        }
        System.arraycopy(tmp, lo, a, lo, hi - lo);
        return swaps;
    }

    /** Spearman's ρ: Pearson correlation of the average ranks. NaN when either variable is constant. */
    public static double spearmanRho(double[] x, double[] y) {
        check(x, y);
        return pearson(averageRanks(x), averageRanks(y));
    }

    /** Ranks 1..n; tied values share the average of their ranks. */
    public static double[] averageRanks(double[] v) {
        int n = v.length;
        Integer[] idx = new Integer[n];
        for (int i = 0; i < n; i++) {
            idx[i] = i;
        }
        Arrays.sort(idx, (a, b) -> Double.compare(v[a], v[b]));
        double[] ranks = new double[n];
        for (int i = 0; i < n; ) {
            int j = i;
            while (j < n && v[idx[j]] == v[idx[i]]) {
                j++;
            }
            double avg = (i + 1 + j) / 2.0; // mean of ranks i+1 .. j
            for (int k = i; k < j; k++) {
                ranks[idx[k]] = avg;
            }
            i = j;
        }
        return ranks;
    }

    /** Pearson's correlation coefficient. */
    public static double pearson(double[] x, double[] y) {
        check(x, y);
        double mx = Arrays.stream(x).average().orElseThrow();
        double my = Arrays.stream(y).average().orElseThrow();
        double sxy = 0;
        double sxx = 0;
        double syy = 0;
        for (int i = 0; i < x.length; i++) {
            sxy += (x[i] - mx) * (y[i] - my);
            sxx += (x[i] - mx) * (x[i] - mx);
            syy += (y[i] - my) * (y[i] - my);
        }
        return sxx == 0 || syy == 0 ? Double.NaN : sxy / Math.sqrt(sxx * syy);
    }

    private static void check(double[] a, double[] b) {
        Objects.requireNonNull(a, "values");
        Objects.requireNonNull(b, "values");
        if (a.length != b.length) {
            throw new IllegalArgumentException("length mismatch: " + a.length + " vs " + b.length);
        }
        if (a.length == 0) {
            throw new IllegalArgumentException("no values");
        }
        for (int i = 0; i < a.length; i++) {
            if (Double.isNaN(a[i]) || Double.isNaN(b[i])) {
                throw new IllegalArgumentException("NaN at index " + i);
            }
        }
    }
}
