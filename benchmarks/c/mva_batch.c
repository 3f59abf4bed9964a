/* Exact single-class MVA (single-server queues + think time) over a batch of networks.
 * The straightforward compiled loop zmodel.queueing.mva is benchmarked against.
 *
 * usage: mva_batch IN OUT REPEATS
 *   IN : int64 B, int64 K, double D[B*K], double Z[B], int64 N[B]
 *   OUT: double X[B], double Q[B*K]
 * prints the best wall time of REPEATS runs in seconds.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static void solve(int64_t B, int64_t K, const double *D, const double *Z, const int64_t *N,
                  double *X, double *Q, double *R) {
    for (int64_t b = 0; b < B; b++) {
        const double *d = D + b * K;
        double *q = Q + b * K;
        double x = 0.0;
        for (int64_t k = 0; k < K; k++) q[k] = 0.0;
        for (int64_t n = 1; n <= N[b]; n++) {
            double s = Z[b];
            for (int64_t k = 0; k < K; k++) {
                R[k] = d[k] * (1.0 + q[k]);
                s += R[k];
            }
            x = (double)n / s;
            for (int64_t k = 0; k < K; k++) q[k] = x * R[k];
        }
        X[b] = x;
    }
}

int main(int argc, char **argv) {
    if (argc != 4) { fprintf(stderr, "usage: %s IN OUT REPEATS\n", argv[0]); return 2; }
    FILE *f = fopen(argv[1], "rb");
    if (!f) { perror(argv[1]); return 1; }
    int64_t B, K;
    if (fread(&B, 8, 1, f) != 1 || fread(&K, 8, 1, f) != 1) return 1;
    double *D = malloc(sizeof(double) * B * K), *Z = malloc(sizeof(double) * B);
    int64_t *N = malloc(sizeof(int64_t) * B);
    if (fread(D, 8, B * K, f) != (size_t)(B * K) || fread(Z, 8, B, f) != (size_t)B ||
        fread(N, 8, B, f) != (size_t)B) return 1;
    fclose(f);
    double *X = malloc(sizeof(double) * B), *Q = malloc(sizeof(double) * B * K);
    double *R = malloc(sizeof(double) * K);
    int repeats = atoi(argv[3]);
    double best = 1e300;
    for (int r = 0; r < repeats; r++) {
        double t0 = now();
        solve(B, K, D, Z, N, X, Q, R);
        double t = now() - t0;
        if (t < best) best = t;
    }
    f = fopen(argv[2], "wb");
    fwrite(X, 8, B, f);
    fwrite(Q, 8, B * K, f);
    fclose(f);
    printf("%.9f\n", best);
    return 0;
}
