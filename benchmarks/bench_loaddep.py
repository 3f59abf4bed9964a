"""Benchmark cases for the load-dependent / multi-server exact solvers (issue 13, parts 1-2).

Called by ``benchmarks/run.py`` (which compiles ``benchmarks/c/*.c``); also runnable
alone: ``.venv/bin/python benchmarks/bench_loaddep.py`` prints the rows.
"""
from __future__ import annotations

import time

import numpy as np


def _ld_inputs(D, N, servers, rate_multipliers=None):
    """The C program's input arrays for the same network (kind, nrates, 1/alpha)."""
    from zmodel.queueing import _ld_kernels as lk
    from zmodel.queueing.loaddep import _compress, _rate_tables

    C, K = D.shape
    srv = np.broadcast_to(np.asarray(servers, float), (K,))
    kind, tables = _rate_tables(rate_multipliers, srv, K, int(N.sum()))
    comp = {k: _compress(t) for k, t in tables.items()}
    J = max([t.size for t in comp.values()], default=1)
    ia = np.ones((K, J))
    nr = np.ones(K, dtype=np.int64)
    for k, t in comp.items():
        ia[k, :t.size] = 1.0 / t
        ia[k, t.size:] = 1.0 / t[-1]
        nr[k] = t.size
    assert not any(np.any(np.diff(t) < 0) for t in comp.values())  # the C loop's short form
    return J, kind.astype(np.int64), nr, ia, lk


def rows(exes, rng, R, run_c, best_of, max_rel):
    from zmodel.queueing import finite_source, mva, mva_multiclass

    out = []
    # 1. exact multi-class with one 8-server station (2 lattice passes)
    C, K = 3, 10
    D = rng.uniform(0.01, 0.1, (C, K))
    Z = np.array([1.0, 0.5, 0.0])
    N = np.array([30, 30, 30], dtype=np.int64)
    servers = [8] + [1] * 8 + [np.inf]
    J, kind, nr, ia, _ = _ld_inputs(D, N, servers)
    t_c, (Xc, Rc) = run_c(exes["mva_ld_multiclass"], [C, K, J],
                          [D, Z, N, kind, nr, ia], [C, C * K], R)
    t_z = best_of(lambda: mva_multiclass(D, N, Z, servers=servers), R)
    r = mva_multiclass(D, N, Z, servers=servers)
    out.append(("`mva_multiclass`, C = 3, K = 10 with one 8-server station and a delay, "
                "N = (30, 30, 30): 29,791 vectors x 2 passes", t_c, t_z,
                max(max_rel(Xc, r.throughput), max_rel(Rc, r.residence_time)), ""))

    # 2. two multi-server stations (4 passes) and a load-dependent rate table
    N2 = np.array([60, 60], dtype=np.int64)
    D2 = rng.uniform(0.01, 0.1, (2, 8))
    table = np.minimum(np.arange(1, 121, dtype=float), 6.0) ** 0.9   # nondecreasing
    servers2 = [4, 16] + [1] * 6
    J, kind, nr, ia, _ = _ld_inputs(D2, N2, servers2, {2: table})
    t_c, (Xc, Rc) = run_c(exes["mva_ld_multiclass"], [2, 8, J],
                          [D2, np.array([0.5, 0.5]), N2, kind, nr, ia], [2, 16], R)
    t_z = best_of(lambda: mva_multiclass(D2, N2, 0.5, servers=servers2,
                                         rate_multipliers={2: table}), R)
    r = mva_multiclass(D2, N2, 0.5, servers=servers2, rate_multipliers={2: table})
    out.append(("`mva_multiclass`, C = 2, K = 8: a 4-server, a 16-server and a rate-table "
                "station, N = (60, 60): 3,721 vectors x 8 passes", t_c, t_z,
                max(max_rel(Xc, r.throughput), max_rel(Rc, r.residence_time)), ""))

    # 3. single class, rate table, N = 200,000 (one network, lattice = N + 1)
    Ns = np.array([200_000], dtype=np.int64)
    Ds = np.linspace(0.001, 0.01, 10)[None, :]
    tab = np.minimum(np.arange(1, 33, dtype=float), 32.0)
    J, kind, nr, ia, _ = _ld_inputs(Ds, Ns, 1, {0: np.concatenate([tab, np.full(200_000 - 32, 32.0)])})
    t_c, (Xc, Rc) = run_c(exes["mva_ld_multiclass"], [1, 10, J],
                          [Ds, np.array([1.0]), Ns, kind, nr, ia], [1, 10], max(3, R // 2))
    rm = {0: np.concatenate([tab, np.full(200_000 - 32, 32.0)])}
    t_z = best_of(lambda: mva(Ds[0], 200_000, think_time=1.0, rate_multipliers=rm), max(3, R // 2))
    r = mva(Ds[0], 200_000, think_time=1.0, rate_multipliers=rm)
    out.append(("`mva` with `rate_multipliers` (alpha = min(n, 32)), K = 10, N = 200,000", t_c, t_z,
                max(max_rel(Xc, r.throughput), max_rel(Rc, r.residence_time)), ""))

    # 4. finite_source, batch of 2,000 rows, N = 2,000
    B, M = 2_000, 2_000
    Nf = np.full(B, float(M))
    Zf = rng.uniform(0.1, 2.0, B)
    mu = np.minimum(np.arange(1, M + 1, dtype=float)[None, :], rng.integers(1, 64, B)[:, None]) \
        * rng.uniform(0.5, 2.0, B)[:, None]
    t_c, (Xc, Qc) = run_c(exes["finite_source"], [B, M], [Nf, Zf, mu], [B, B], R)
    t_z = best_of(lambda: finite_source(Nf.astype(int), Zf, mu), R)
    r = finite_source(Nf.astype(int), Zf, mu)
    out.append(("`finite_source`, batch of 2,000 chains, N = 2,000", t_c, t_z,
                max(max_rel(Xc, r.throughput), max_rel(Qc, r.queue_length)), ""))
    return out


def capacity(limit_s=1.0, limit_bytes=2 ** 30):
    """Largest lattice per class (C = 3, K = 10, one 8-server station) solved within the
    time and memory limits, and the largest single-class LD population; returns rows."""
    from zmodel.queueing import mva_multiclass

    rng = np.random.default_rng(1)
    D = rng.uniform(0.01, 0.1, (3, 10))
    servers = [8] + [1] * 9
    best = None
    for n in (10, 20, 30, 40, 50, 60, 70, 80):
        L = (n + 1) ** 3
        cells = 2 * L * (10 + 3 + 1 * 9)           # the solver's own cell count (8 bytes each)
        if cells * 8 > limit_bytes:
            break
        t0 = time.perf_counter()
        mva_multiclass(D, [n] * 3, 1.0, servers=servers)
        t = time.perf_counter() - t0
        if t > limit_s:
            break
        best = (n, L, t, cells * 8)
    out = []
    if best:
        n, L, t, b = best
        out.append((f"largest `mva_multiclass` lattice in 1 s / 1 GiB (C = 3, K = 10, one "
                    f"8-server station): N = ({n}, {n}, {n}), {L:,} vectors", None, t, None,
                    f"lattice memory {b / 2 ** 20:.0f} MiB"))
    bestn = None
    for n in (100_000, 200_000, 500_000, 1_000_000, 2_000_000, 4_000_000):
        cells = 2 * (n + 1) * (10 + 1 + 1 * 9)
        if cells * 8 > limit_bytes:
            break
        t0 = time.perf_counter()
        mva_multiclass(np.linspace(0.001, 0.01, 10)[None, :], [n], 1.0, servers=[8] + [1] * 9)
        t = time.perf_counter() - t0
        if t > limit_s:
            break
        bestn = (n, t, cells * 8)
    if bestn:
        n, t, b = bestn
        out.append((f"largest single-class population through the LD lattice in 1 s / 1 GiB "
                    f"(`mva_multiclass` path, K = 10, one 8-server station): N = {n:,}", None, t,
                    None, f"lattice memory {b / 2 ** 20:.0f} MiB"))
    return out


if __name__ == "__main__":
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import run

    exes = run.compile_c()
    for row in rows(exes, np.random.default_rng(20240501), 5, run.run_c, run.best_of, run.max_rel):
        name, tc, tz, diff, note = row
        print(f"{name}: C {tc:.4g} s, zmodel {tz:.4g} s, ratio {tz / tc:.2f}, max rel diff {diff:.1e}")
    for row in capacity():
        print(row)
