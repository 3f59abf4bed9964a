/* Exact multi-class MVA over the population lattice (single-server queues, per-class
 * think time), mixed-radix order, storing only the total queue length per station and
 * population vector: the straightforward compiled loop zmodel.queueing.mva_multiclass
 * is benchmarked against.
 *
 * usage: mva_multiclass IN OUT REPEATS
 *   IN : int64 C, int64 K, double D[C*K], double Z[C], int64 N[C]
 *   OUT: double X[C], double R[C*K]
 * prints the best wall time of REPEATS runs in seconds (allocation included).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static void solve(int64_t C, int64_t K, const double *D, const double *Z, const int64_t *N,
                  double *X, double *R) {
    int64_t *stride = malloc(sizeof(int64_t) * C), *n = calloc(C, sizeof(int64_t));
    int64_t total = 1;
    for (int64_t c = 0; c < C; c++) { stride[c] = total; total *= N[c] + 1; }
    double *Q = calloc(total * K, sizeof(double));
    for (int64_t idx = 1; idx < total; idx++) {
        int64_t c = 0;
        while (1) { n[c]++; if (n[c] <= N[c]) break; n[c] = 0; c++; }
        double *q = Q + idx * K;
        for (c = 0; c < C; c++) {
            if (n[c] == 0) { X[c] = 0.0; continue; }
            const double *qp = Q + (idx - stride[c]) * K;
            double s = Z[c];
            for (int64_t k = 0; k < K; k++) {
                double r = D[c * K + k] * (1.0 + qp[k]);
                R[c * K + k] = r;
                s += r;
            }
            X[c] = (double)n[c] / s;
            for (int64_t k = 0; k < K; k++) q[k] += X[c] * R[c * K + k];
        }
    }
    free(Q); free(stride); free(n);
}

int main(int argc, char **argv) {
    if (argc != 4) { fprintf(stderr, "usage: %s IN OUT REPEATS\n", argv[0]); return 2; }
    FILE *f = fopen(argv[1], "rb");
    if (!f) { perror(argv[1]); return 1; }
    int64_t C, K;
    if (fread(&C, 8, 1, f) != 1 || fread(&K, 8, 1, f) != 1) return 1;
    double *D = malloc(sizeof(double) * C * K), *Z = malloc(sizeof(double) * C);
    int64_t *N = malloc(sizeof(int64_t) * C);
    if (fread(D, 8, C * K, f) != (size_t)(C * K) || fread(Z, 8, C, f) != (size_t)C ||
        fread(N, 8, C, f) != (size_t)C) return 1;
    fclose(f);
    double *X = malloc(sizeof(double) * C), *R = malloc(sizeof(double) * C * K);
    int repeats = atoi(argv[3]);
    double best = 1e300;
    for (int r = 0; r < repeats; r++) {
        double t0 = now();
        solve(C, K, D, Z, N, X, R);
        double t = now() - t0;
        if (t < best) best = t;
    }
    f = fopen(argv[2], "wb");
    fwrite(X, 8, C, f);
    fwrite(R, 8, C * K, f);
    fclose(f);
    printf("%.9f\n", best);
    return 0;
}
