/* Finite-source birth-death chain with state-dependent service rate, a batch of rows:
 * log weights log N!/(N-n)! - n log Z - sum log mu, shifted by their maximum,
 * exponentiated and normalised; X = sum p_n mu(n). The same algorithm as
 * zmodel.queueing.finite_source, as a straightforward loop.
 *
 * usage: finite_source IN OUT REPEATS
 *   IN : int64 B, int64 M, double N[B], double Z[B], double mu[B*M]
 *   OUT: double X[B], double Q[B]
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static void solve(int64_t B, int64_t M, const double *N, const double *Z, const double *mu,
                  double *X, double *Q) {
    double *lw = malloc(sizeof(double) * (M + 1));
    for (int64_t b = 0; b < B; b++) {
        int64_t n = (int64_t)N[b];
        const double *m = mu + b * M;
        if (Z[b] == 0.0) { X[b] = n ? m[n - 1] : 0.0; Q[b] = (double)n; continue; }
        double lz = log(Z[b]), lgN = lgamma(N[b] + 1.0), cs = 0.0, mx = -INFINITY;
        for (int64_t k = 0; k <= n; k++) {
            if (k) cs += log(m[k - 1]);
            lw[k] = lgN - lgamma(N[b] - k + 1.0) - k * lz - cs;
            if (lw[k] > mx) mx = lw[k];
        }
        double s = 0.0, x = 0.0, q = 0.0;
        for (int64_t k = 0; k <= n; k++) {
            double w = exp(lw[k] - mx);
            s += w;
            q += k * w;
            if (k) x += w * m[k - 1];
        }
        X[b] = x / s;
        Q[b] = q / s;
    }
    free(lw);
}

int main(int argc, char **argv) {
    if (argc != 4) { fprintf(stderr, "usage: %s IN OUT REPEATS\n", argv[0]); return 2; }
    FILE *f = fopen(argv[1], "rb");
    if (!f) { perror(argv[1]); return 1; }
    int64_t B, M;
    if (fread(&B, 8, 1, f) != 1 || fread(&M, 8, 1, f) != 1) return 1;
    double *N = malloc(8 * B), *Z = malloc(8 * B), *mu = malloc(8 * B * M);
    if (fread(N, 8, B, f) != (size_t)B || fread(Z, 8, B, f) != (size_t)B ||
        fread(mu, 8, B * M, f) != (size_t)(B * M)) return 1;
    fclose(f);
    double *X = malloc(8 * B), *Q = malloc(8 * B);
    int repeats = atoi(argv[3]);
    double best = 1e300;
    for (int r = 0; r < repeats; r++) {
        double t0 = now();
        solve(B, M, N, Z, mu, X, Q);
        double t = now() - t0;
        if (t < best) best = t;
    }
    f = fopen(argv[2], "wb");
    fwrite(X, 8, B, f);
    fwrite(Q, 8, B, f);
    fclose(f);
    printf("%.9f\n", best);
    return 0;
}
