"""Numba kernel for exact multi-class MVA with load-dependent stations.

Imported lazily by :mod:`zmodel.queueing.loaddep` (it imports :mod:`numba`). Takes plain
contiguous float64 / int64 arrays and writes into arrays given by the caller; no
validation happens here.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit


def _jit(func):
    """``njit(cache=True)``, or plain ``njit`` if no cache directory is usable."""
    try:
        return njit(cache=True, error_model="numpy")(func)
    except RuntimeError:  # "cannot cache function ...: no locator available"
        return njit(error_model="numpy")(func)


# station kinds
QUEUE, DELAY, LD, ABSENT = 0, 1, 2, 3


@_jit
def ld_lattice(D, Z, N, kind, inv_alpha, nrates, direct, ldpos, xcomp, xall, R, marg):
    """Exact load-dependent multi-class MVA over the population lattice.

    D (C, K) demands at rate multiplier 1 [s]; Z (C,) think times [s]; N (C,)
    populations; kind (K,) QUEUE / DELAY / LD / ABSENT; inv_alpha (K, J) holds
    1/alpha_k(j) for j = 1..nrates[k] (alpha is constant beyond its last entry);
    direct (K,) bool: sum j/alpha(j) p(j-1) over all j (every marginal stored) instead
    of the short form, which has positive terms only for a nondecreasing alpha;
    ldpos (K,) the row of an LD station in ``xcomp`` and ``marg``; xcomp (M, L, C)
    throughputs of the network without each LD station at every lattice vector (the
    complement networks, for p_k(0 | n) as a product of positive ratios).

    Writes xall (L, C) throughputs at every vector (inf for a class with no demand),
    R (C, K) residence times at N, marg (M, J + 1) marginals p_k(j | N), j <= J.
    """
    C, K = D.shape
    M = xcomp.shape[0]
    J = inv_alpha.shape[1]
    strides = np.empty(C, np.int64)
    total = 1
    for c in range(C):
        strides[c] = total
        total *= N[c] + 1
    Qv = np.zeros((total, K))
    P = np.zeros((total, M, J + 1))
    for m in range(M):
        P[0, m, 0] = 1.0
    n = np.zeros(C, np.int64)
    X = np.zeros(C)
    for c in range(C):
        xall[0, c] = 0.0
        for k in range(K):
            R[c, k] = 0.0
    ld_list = np.empty(M, np.int64)
    for k in range(K):
        if kind[k] == LD:
            ld_list[ldpos[k]] = k
    for idx in range(1, total):
        c = 0
        while True:
            n[c] += 1
            if n[c] <= N[c]:
                break
            n[c] = 0
            c += 1
        ntot = 0
        for c in range(C):
            ntot += n[c]
        for k in range(K):
            Qv[idx, k] = 0.0
        for c in range(C):
            if n[c] == 0:
                X[c] = 0.0
                xall[idx, c] = 0.0
                continue
            pred = idx - strides[c]
            s = Z[c]
            for k in range(K):
                kk = kind[k]
                d = D[c, k]
                if kk == ABSENT or d == 0.0:
                    rk = 0.0
                elif kk == DELAY:
                    rk = d
                elif kk == QUEUE:
                    rk = d * (1.0 + Qv[pred, k])
                elif direct[k]:
                    m = ldpos[k]
                    nr = nrates[k]
                    acc = 0.0
                    for j in range(1, ntot + 1):
                        ia = inv_alpha[k, j - 1] if j <= nr else inv_alpha[k, nr - 1]
                        acc += j * ia * P[pred, m, j - 1]
                    rk = d * acc
                else:
                    m = ldpos[k]
                    nr = nrates[k]
                    ainf = inv_alpha[k, nr - 1]
                    acc = (1.0 + Qv[pred, k]) * ainf
                    for j in range(1, nr):
                        acc += j * (inv_alpha[k, j - 1] - ainf) * P[pred, m, j - 1]
                    rk = d * acc
                R[c, k] = rk
                s += rk
            if s > 0.0:
                xc = n[c] / s
                X[c] = xc
                xall[idx, c] = xc
                for k in range(K):
                    Qv[idx, k] += xc * R[c, k]
            else:
                X[c] = np.inf
                xall[idx, c] = np.inf
        for m in range(M):
            k = ld_list[m]
            nr = nrates[k]
            jtop = min(ntot, J)
            for j in range(1, jtop + 1):
                acc = 0.0
                for c in range(C):
                    if n[c] > 0 and D[c, k] > 0.0:
                        acc += X[c] * D[c, k] * P[idx - strides[c], m, j - 1]
                ia = inv_alpha[k, j - 1] if j <= nr else inv_alpha[k, nr - 1]
                P[idx, m, j] = ia * acc
            # p(0 | n) = p(0 | n - e_c) X_c(n) / X_c^{-k}(n): positive ratios only
            cstar = -1
            for c in range(C):
                if n[c] > 0 and X[c] < np.inf:
                    cstar = c
                    break
            if cstar < 0:
                for c in range(C):
                    if n[c] > 0:
                        cstar = c
                        break
                P[idx, m, 0] = P[idx - strides[cstar], m, 0]
            else:
                xc_comp = xcomp[m, idx, cstar]
                if xc_comp == np.inf:
                    P[idx, m, 0] = 0.0
                else:
                    P[idx, m, 0] = P[idx - strides[cstar], m, 0] * X[cstar] / xc_comp
    last = total - 1
    for m in range(M):
        for j in range(J + 1):
            marg[m, j] = P[last, m, j]
    for c in range(C):
        if N[c] == 0:
            for k in range(K):
                R[c, k] = 0.0


@_jit
def finite_source_batch(n_pop, think, log_mu, mu, p, x, q, u):
    """Finite-source birth-death chains, one per row.

    n_pop (B,) float, think (B,), log_mu (B, M) = log mu(1..M), or (B, 0) to take the
    logs of ``mu``; mu (B, M) the rates (for X; may be (B, 0) when log_mu is given, to
    skip X, Q and U). Writes p (B, M + 1) (zero beyond N), x (B,) = sum p_n mu(n),
    q (B,) = sum n p_n, u (B,) = sum_{n >= 1} p_n. Think time 0 puts all N jobs at the
    station. Log weights log N!/(N-n)! - n log Z - sum_{j<=n} log mu(j), shifted by their
    maximum, exponentiated and normalised to an exact sum of 1.
    """
    B = n_pop.shape[0]
    M = p.shape[1] - 1
    want = mu.shape[1] > 0
    have_log = log_mu.shape[1] > 0
    for b in range(B):
        n = int(n_pop[b])
        for k in range(M + 1):
            p[b, k] = 0.0
        if think[b] == 0.0:
            p[b, n] = 1.0
            if want:
                x[b] = mu[b, n - 1] if n > 0 else 0.0
                q[b] = n
                u[b] = 1.0 if n > 0 else 0.0
            continue
        lz = np.log(think[b])
        lgn = math.lgamma(n + 1.0)
        cs = 0.0
        mx = -np.inf
        for k in range(n + 1):
            if k > 0:
                cs += log_mu[b, k - 1] if have_log else np.log(mu[b, k - 1])
            w = lgn - math.lgamma(n - k + 1.0) - k * lz - cs
            p[b, k] = w
            if w > mx:
                mx = w
        s = 0.0
        for k in range(n + 1):
            w = np.exp(p[b, k] - mx)
            p[b, k] = w
            s += w
        inv = 1.0 / s
        xs = 0.0
        qs = 0.0
        us = 0.0
        for k in range(n + 1):
            pk = p[b, k] * inv
            p[b, k] = pk
            qs += k * pk
            if want and k > 0:
                xs += pk * mu[b, k - 1]
                us += pk
        if want:
            x[b] = xs
            q[b] = qs
            u[b] = us


@_jit
def _log_convolve(a, b, n):
    """log of the convolution of exp(a) and exp(b), entries 0..n (log-sum-exp per entry)."""
    out = np.empty(n + 1)
    for m in range(n + 1):
        mx = -np.inf
        for i in range(m + 1):
            v = a[i] + b[m - i]
            if v > mx:
                mx = v
        if mx == -np.inf:
            out[m] = -np.inf
            continue
        s = 0.0
        for i in range(m + 1):
            s += np.exp(a[i] + b[m - i] - mx)
        out[m] = mx + np.log(s)
    return out


@_jit
def split_finite_source_batch(n_pop, think, log_f, stations, x, q, u):
    """Jobs alternating between a think time and one of k identical load-dependent stations, per row.

    n_pop (B,) float; think (B,) [s]; log_f (B, M + 1): log f(j), j = 0..M, the product-form
    factor of ONE station (f(0) = 1: log_f[:, 0] = 0); stations (B,) k >= 1. Normalising
    constants in log space: F_{k-1} = f^{*(k-1)} by binary powering, F_k = F_{k-1} * f,
    G(n) = sum_m Z^{n-m}/(n-m)! F_k(m). Writes x = G(N-1)/G(N), q = N - x Z (jobs at the
    stations, all of them: sum_m m g(N-m) F_k(m) / G(N)), u = 1 - sum_m g(N-m) F_{k-1}(m) / G(N) (one station busy).
    """
    B = n_pop.shape[0]
    for b in range(B):
        n = int(n_pop[b])
        if n == 0:
            x[b] = 0.0
            q[b] = 0.0
            u[b] = 0.0
            continue
        f = log_f[b, : n + 1].copy()
        res = np.full(n + 1, -np.inf)
        res[0] = 0.0
        e = int(stations[b]) - 1
        pw = f.copy()
        while e > 0:
            if e & 1:
                res = _log_convolve(res, pw, n)
            e >>= 1
            if e > 0:
                pw = _log_convolve(pw, pw, n)
        fk = _log_convolve(res, f, n)
        lg = np.full(n + 1, -np.inf)
        if think[b] == 0.0:
            lg[0] = 0.0
        else:
            lz = np.log(think[b])
            for j in range(n + 1):
                lg[j] = j * lz - math.lgamma(j + 1.0)
        g_all = _log_convolve(lg, fk, n)
        g_one_idle = _log_convolve(lg, res, n)
        x[b] = np.exp(g_all[n - 1] - g_all[n])
        qs = 0.0
        for m in range(1, n + 1):
            qs += m * np.exp(lg[n - m] + fk[m] - g_all[n])
        q[b] = qs
        u[b] = -np.expm1(g_one_idle[n] - g_all[n])
