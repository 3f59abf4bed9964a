/* Marginal queue-length probabilities of a closed single-class network (single-server
 * queues + think time) from log-space normalising constants: the straightforward
 * compiled loop zmodel.queueing.marginal_probabilities is benchmarked against.
 *
 * Same algorithm: demands scaled by the largest one, log G(n) by Buzen's recursion with
 * log-sum-exp steps, log G_{-k}(n) recomputed for every station k, then
 * P(n_k = j) = exp(j log D_k + log G_{-k}(N - j) - log G(N)).
 *
 * usage: log_marginals IN OUT REPEATS
 *   IN : int64 K, int64 N, double D[K], double Z
 *   OUT: double X, double P[K * (N + 1)]
 * prints the best wall time of REPEATS runs in seconds.
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

static double logaddexp(double a, double b) {
    if (a == -INFINITY) return b;
    if (b == -INFINITY) return a;
    return a >= b ? a + log1p(exp(b - a)) : b + log1p(exp(a - b));
}

static void log_g(int64_t K, int64_t N, const double *logd, double logz, int64_t skip,
                  double *lg) {
    for (int64_t n = 0; n <= N; n++)
        lg[n] = logz == -INFINITY ? (n == 0 ? 0.0 : -INFINITY) : n * logz - lgamma(n + 1.0);
    for (int64_t k = 0; k < K; k++) {
        if (k == skip) continue;
        for (int64_t n = 1; n <= N; n++) lg[n] = logaddexp(lg[n], logd[k] + lg[n - 1]);
    }
}

static double solve(int64_t K, int64_t N, const double *D, double Z, double *P,
                    double *lg, double *lgm, double *logd) {
    double a = 0.0;
    for (int64_t k = 0; k < K; k++) if (D[k] > a) a = D[k];
    double la = log(a);
    for (int64_t k = 0; k < K; k++) logd[k] = log(D[k]) - la;
    double logz = Z > 0 ? log(Z) - la : -INFINITY;
    log_g(K, N, logd, logz, -1, lg);
    for (int64_t k = 0; k < K; k++) {
        log_g(K, N, logd, logz, k, lgm);
        for (int64_t j = 0; j <= N; j++)
            P[k * (N + 1) + j] = exp(j * logd[k] + lgm[N - j] - lg[N]);
    }
    return exp(lg[N - 1] - lg[N] - la);
}

int main(int argc, char **argv) {
    if (argc != 4) { fprintf(stderr, "usage: %s IN OUT REPEATS\n", argv[0]); return 2; }
    FILE *f = fopen(argv[1], "rb");
    if (!f) { perror(argv[1]); return 1; }
    int64_t K, N;
    if (fread(&K, 8, 1, f) != 1 || fread(&N, 8, 1, f) != 1) return 1;
    double *D = malloc(sizeof(double) * K), Z;
    if (fread(D, 8, K, f) != (size_t)K || fread(&Z, 8, 1, f) != 1) return 1;
    fclose(f);
    double *P = malloc(sizeof(double) * K * (N + 1));
    double *lg = malloc(sizeof(double) * (N + 1)), *lgm = malloc(sizeof(double) * (N + 1));
    double *logd = malloc(sizeof(double) * K);
    int repeats = atoi(argv[3]);
    double best = 1e300, X = 0.0;
    for (int r = 0; r < repeats; r++) {
        double t0 = now();
        X = solve(K, N, D, Z, P, lg, lgm, logd);
        double t = now() - t0;
        if (t < best) best = t;
    }
    f = fopen(argv[2], "wb");
    fwrite(&X, 8, 1, f);
    fwrite(P, 8, K * (N + 1), f);
    fclose(f);
    printf("%.9f\n", best);
    return 0;
}
