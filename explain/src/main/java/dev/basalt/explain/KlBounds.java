package dev.basalt.explain;

/**
 * Confidence bounds on a Bernoulli mean from the KL divergence (as KL-LUCB uses them): the largest and the
 * smallest q with n·KL(p̂, q) ≤ level·n, found by bisection.
 */
final class KlBounds {

    private static final double EPS = 1e-12;

    private KlBounds() {
    }

    /** KL(Bernoulli(p) ‖ Bernoulli(q)). */
    static double kl(double p, double q) {
        p = Math.min(Math.max(p, EPS), 1 - EPS);
        q = Math.min(Math.max(q, EPS), 1 - EPS);
        return p * Math.log(p / q) + (1 - p) * Math.log((1 - p) / (1 - q));
    }

    /** Largest q ≥ p with KL(p, q) ≤ level. */
    static double upper(double p, double level) {
        double lo = p;
        double hi = 1;
        for (int k = 0; k < 40; k++) {
            double mid = (lo + hi) / 2;
            if (kl(p, mid) > level) {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        return hi;
    }

    /** Smallest q ≤ p with KL(p, q) ≤ level. */
    static double lower(double p, double level) {
        double lo = 0;
        double hi = p;
        for (int k = 0; k < 40; k++) {
            double mid = (lo + hi) / 2;
            if (kl(p, mid) > level) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    /**
     * The exploration rate of KL-LUCB for {@code arms} candidates at round {@code t} (Kaufmann &amp;
     * Kalyanakrishnan 2013, with the constants the Anchors authors use: α = 1.1, k = 405.5).
     */
    static double beta(int arms, int t, double delta) {
        double temp = Math.log(405.5 * arms * Math.pow(t, 1.1) / delta);
        return temp + Math.log(temp);
    }
}
