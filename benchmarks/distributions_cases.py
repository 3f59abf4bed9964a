"""Benchmark cases for the distribution and CTMC solvers (issue 13, parts 3-5).

Called by ``benchmarks/run.py``; returns table rows in its format
``(name, C time or None, zmodel time, max rel. diff or None, note)``.
"""
from __future__ import annotations

import time
import tracemalloc

import numpy as np

GIB = 2**30


def _time_once(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def _largest_within(fn, start: int, limit: float = 1.0, grow: float = 1.5) -> tuple[int, float]:
    """Largest size (geometric steps from ``start``) whose single call takes <= ``limit`` s."""
    size, best = start, (None, None)
    while True:
        t = _time_once(lambda: fn(size))
        if t > limit:
            return best
        best = (size, t)
        size = int(size * grow)


def _peak_bytes(fn) -> int:
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def rows(exes, repeats, run_c, best_of, max_rel):
    from zmodel.queueing.ctmc import ctmc_steady_state, finite_capacity_network
    from zmodel.queueing.distributions import marginal_probabilities

    out = []
    rng = np.random.default_rng(20261123)

    # 1. log-space marginals, K = 10, N = 100,000: zmodel vs the same loop in C
    K, N, Z = 10, 100_000, 1.0
    D = rng.uniform(0.01, 0.1, K)
    t_c, (Xc, Pc) = run_c(exes["log_marginals"], [K, N], [D, np.array([Z])],
                          [1, K * (N + 1)], max(3, repeats // 2))
    t_z = best_of(lambda: marginal_probabilities(D, N, Z), max(3, repeats // 2))
    r = marginal_probabilities(D, N, Z)
    big = Pc > 1e-280  # compare where both are normal doubles
    diff = max(max_rel(Xc, r.throughput), max_rel(Pc[big], r.probabilities.ravel()[big]))
    out.append(("`marginal_probabilities`, K = 10 single-server, Z = 1, N = 100,000 "
                "(K + 1 log-space convolutions)", t_c, t_z, diff,
                f"sum of P per station - 1: max {np.abs(r.probabilities.sum(axis=1) - 1).max():.1e}"))

    # sizes handled in 1 s and 1 GiB (K = 10)
    n1, t1 = _largest_within(lambda n: marginal_probabilities(D, n, Z), 10_000)
    per_cell = _peak_bytes(lambda: marginal_probabilities(D, 200_000, Z)) / (K * 200_001)
    n_gib = int(GIB / (per_cell * K))
    out.append(("`marginal_probabilities`, K = 10: largest N in 1 s / in 1 GiB (zmodel only)",
                None, t1, None,
                f"N = {n1:,} in {t1:.2f} s; peak {per_cell:.0f} bytes per (station, n) cell "
                f"(tracemalloc at N = 200,000), so N = {n_gib:,} fits 1 GiB"))

    # 2. CTMC steady state: a closed finite-capacity network, largest state space in 1 s
    def closed_net(B):
        P = np.array([[0, 0.5, 0.5, 0], [0, 0, 0.3, 0.7], [0.2, 0, 0, 0.8], [1.0, 0, 0, 0]])
        return finite_capacity_network([0.3, 0.2, 0.25, 0.4], P, capacity=B, population=2 * B,
                                       servers=[1, 2, 1, 2])

    b1, tb = _largest_within(closed_net, 8, grow=1.25)
    states = closed_net(b1).states
    out.append(("`finite_capacity_network`, 4 stations, N = 2B, capacity B: largest in 1 s "
                "(zmodel only; SciPy SuperLU underneath)", None, tb, None,
                f"B = {b1}: {states:,} CTMC states in {tb:.2f} s"))

    # 3. ctmc_steady_state alone on a 2-D birth-death grid (M x M states)
    def grid(m):
        import scipy.sparse as sp

        n = m * m
        i = np.arange(n)
        x, y = i % m, i // m
        rows_, cols_, vals = [], [], []
        for cond, shift, rate in ((x < m - 1, 1, 1.0), (x > 0, -1, 1.3),
                                  (y < m - 1, m, 0.7), (y > 0, -m, 1.1)):
            rows_.append(i[cond]); cols_.append(i[cond] + shift); vals.append(np.full(cond.sum(), rate))
        Q = sp.csr_matrix((np.concatenate(vals), (np.concatenate(rows_), np.concatenate(cols_))),
                          shape=(n, n))
        Q = Q - sp.diags(np.asarray(Q.sum(axis=1)).ravel())
        return ctmc_steady_state(Q)

    m1, tm = _largest_within(grid, 100, grow=1.25)
    peak = _peak_bytes(lambda: grid(m1))
    out.append(("`ctmc_steady_state`, 2-D birth-death grid: largest in 1 s (zmodel only)",
                None, tm, None,
                f"{m1 * m1:,} states in {tm:.2f} s, peak {peak / GIB:.2f} GiB (tracemalloc)"))
    return out
