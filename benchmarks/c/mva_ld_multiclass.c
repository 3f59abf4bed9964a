/* Exact multi-class MVA with load-dependent (multi-server) stations over the population
 * lattice, the same algorithm as zmodel.queueing.loaddep: for every subset S of the
 * load-dependent stations, one lattice pass of the network "load-independent stations +
 * S"; p_k(0|n) = p_k(0|n-e_c) X_c(n) / X_c^{S-k}(n), p_k(j|n) by the positive
 * recursion, R by the short form for a nondecreasing alpha. Straightforward loops.
 *
 * usage: mva_ld_multiclass IN OUT REPEATS
 *   IN : int64 C, int64 K, int64 J, double D[C*K], double Z[C], int64 N[C],
 *        int64 kind[K] (0 queue, 1 delay, 2 load dependent), int64 nrates[K],
 *        double inv_alpha[K*J]
 *   OUT: double X[C], double R[C*K]
 * prints the best wall time of REPEATS runs in seconds (allocation included).
 */
#include <math.h>
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

/* one lattice pass; kind 3 = absent. xcomp[m] = lattice throughputs without LD station m */
static void pass(int64_t C, int64_t K, int64_t J, const double *D, const double *Z,
                 const int64_t *N, const int64_t *kind, const int64_t *nrates,
                 const double *ia, const int64_t *ldpos, int64_t M, double **xcomp,
                 const int64_t *ldlist, double *xall, double *R) {
    int64_t *stride = malloc(sizeof(int64_t) * C), *n = calloc(C, sizeof(int64_t));
    int64_t L = 1;
    for (int64_t c = 0; c < C; c++) { stride[c] = L; L *= N[c] + 1; }
    double *Q = calloc(L * K, sizeof(double));
    int64_t W = J + 1;
    double *P = calloc(L * (M ? M : 1) * W, sizeof(double));
    double *X = calloc(C, sizeof(double));
    for (int64_t m = 0; m < M; m++) P[m * W] = 1.0;
    for (int64_t c = 0; c < C; c++) xall[c] = 0.0;
    for (int64_t idx = 1; idx < L; idx++) {
        int64_t c = 0;
        while (1) { n[c]++; if (n[c] <= N[c]) break; n[c] = 0; c++; }
        int64_t ntot = 0;
        for (c = 0; c < C; c++) ntot += n[c];
        double *q = Q + idx * K;
        for (c = 0; c < C; c++) {
            if (n[c] == 0) { X[c] = 0.0; xall[idx * C + c] = 0.0; continue; }
            int64_t pred = idx - stride[c];
            const double *qp = Q + pred * K;
            double s = Z[c];
            for (int64_t k = 0; k < K; k++) {
                double d = D[c * K + k], r;
                if (kind[k] == 3 || d == 0.0) r = 0.0;
                else if (kind[k] == 1) r = d;
                else if (kind[k] == 0) r = d * (1.0 + qp[k]);
                else {
                    int64_t m = ldpos[k], nr = nrates[k];
                    double ainf = ia[k * J + nr - 1], acc = (1.0 + qp[k]) * ainf;
                    const double *pp = P + (pred * M + m) * W;
                    for (int64_t j = 1; j < nr; j++) acc += j * (ia[k * J + j - 1] - ainf) * pp[j - 1];
                    r = d * acc;
                }
                R[c * K + k] = r;
                s += r;
            }
            if (s > 0.0) {
                X[c] = n[c] / s;
                xall[idx * C + c] = X[c];
                for (int64_t k = 0; k < K; k++) q[k] += X[c] * R[c * K + k];
            } else { X[c] = INFINITY; xall[idx * C + c] = INFINITY; }
        }
        for (int64_t m = 0; m < M; m++) {
            int64_t k = ldlist[m], nr = nrates[k];
            double *pc = P + (idx * M + m) * W;
            int64_t jtop = ntot < J ? ntot : J;
            for (int64_t j = 1; j <= jtop; j++) {
                double acc = 0.0;
                for (c = 0; c < C; c++)
                    if (n[c] > 0 && D[c * K + k] > 0.0)
                        acc += X[c] * D[c * K + k] * P[((idx - stride[c]) * M + m) * W + j - 1];
                pc[j] = (j <= nr ? ia[k * J + j - 1] : ia[k * J + nr - 1]) * acc;
            }
            int64_t cs = -1;
            for (c = 0; c < C; c++) if (n[c] > 0 && isfinite(X[c])) { cs = c; break; }
            if (cs < 0) {
                for (c = 0; c < C; c++) if (n[c] > 0) { cs = c; break; }
                pc[0] = P[((idx - stride[cs]) * M + m) * W];
            } else {
                double xc = xcomp[m][idx * C + cs];
                pc[0] = isinf(xc) ? 0.0 : P[((idx - stride[cs]) * M + m) * W] * X[cs] / xc;
            }
        }
    }
    for (int64_t c = 0; c < C; c++) if (N[c] == 0) for (int64_t k = 0; k < K; k++) R[c * K + k] = 0.0;
    free(Q); free(P); free(X); free(stride); free(n);
}

static void solve(int64_t C, int64_t K, int64_t J, const double *D, const double *Z,
                  const int64_t *N, const int64_t *kind, const int64_t *nrates,
                  const double *ia, double *Xout, double *Rout) {
    int64_t L = 1;
    for (int64_t c = 0; c < C; c++) L *= N[c] + 1;
    int64_t ld[64], M = 0;
    for (int64_t k = 0; k < K; k++) if (kind[k] == 2) ld[M++] = k;
    int64_t S = (int64_t)1 << M;
    double **xall = malloc(sizeof(double *) * S);
    int64_t *kind_s = malloc(sizeof(int64_t) * K), *pos = calloc(K, sizeof(int64_t));
    int64_t members[64];
    double *xc[64];
    for (int64_t pc = 0; pc <= M; pc++)          /* subsets by size */
        for (int64_t mask = 0; mask < S; mask++) {
            if (__builtin_popcountll(mask) != pc) continue;
            int64_t mm = 0;
            memcpy(kind_s, kind, sizeof(int64_t) * K);
            for (int64_t i = 0; i < M; i++) {
                if (mask >> i & 1) { members[mm] = ld[i]; pos[ld[i]] = mm; xc[mm] = xall[mask & ~((int64_t)1 << i)]; mm++; }
                else kind_s[ld[i]] = 3;
            }
            xall[mask] = malloc(sizeof(double) * L * C);
            pass(C, K, J, D, Z, N, kind_s, nrates, ia, pos, mm, xc, members, xall[mask], Rout);
        }
    for (int64_t c = 0; c < C; c++) Xout[c] = N[c] > 0 ? xall[S - 1][(L - 1) * C + c] : 0.0;
    for (int64_t s = 0; s < S; s++) free(xall[s]);
    free(xall); free(kind_s); free(pos);
}

int main(int argc, char **argv) {
    if (argc != 4) { fprintf(stderr, "usage: %s IN OUT REPEATS\n", argv[0]); return 2; }
    FILE *f = fopen(argv[1], "rb");
    if (!f) { perror(argv[1]); return 1; }
    int64_t C, K, J;
    if (fread(&C, 8, 1, f) != 1 || fread(&K, 8, 1, f) != 1 || fread(&J, 8, 1, f) != 1) return 1;
    double *D = malloc(8 * C * K), *Z = malloc(8 * C), *ia = malloc(8 * K * J);
    int64_t *N = malloc(8 * C), *kind = malloc(8 * K), *nrates = malloc(8 * K);
    if (fread(D, 8, C * K, f) != (size_t)(C * K) || fread(Z, 8, C, f) != (size_t)C ||
        fread(N, 8, C, f) != (size_t)C || fread(kind, 8, K, f) != (size_t)K ||
        fread(nrates, 8, K, f) != (size_t)K || fread(ia, 8, K * J, f) != (size_t)(K * J)) return 1;
    fclose(f);
    double *X = malloc(8 * C), *R = malloc(8 * C * K);
    int repeats = atoi(argv[3]);
    double best = 1e300;
    for (int r = 0; r < repeats; r++) {
        double t0 = now();
        solve(C, K, J, D, Z, N, kind, nrates, ia, X, R);
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
