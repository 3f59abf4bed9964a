"""Accuracy figures of the distribution, routing, priority and CTMC solvers (issue 13, parts 3-5).

Usage (from the repository root)::

    .venv/bin/python benchmarks/accuracy_distributions.py

Prints one line per solver: the largest relative error against an independent reference
(exact rational enumeration, closed forms, dense matrix exponentials, brute-force CTMCs
built in ``tests/``), over the cases named on the line. The tests assert these bounds;
this script only reports the figures.
"""
from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import scipy.linalg

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))


def main() -> int:
    import mpmath

    from test_distributions import product_form_marginals
    from test_priority import central_server_ctmc, mm1_priority_ctmc
    from test_routing import brute_force_ctmc, schwetman_fig9
    from zmodel.queueing.closed import mva
    from zmodel.queueing.ctmc import ctmc_transient, finite_capacity_network
    from zmodel.queueing.distributions import (closed_station_percentiles, marginal_probabilities,
                                               mmc_percentiles)
    from zmodel.queueing.priority import mva_priority, priority_station
    from zmodel.queueing.routing import routed_network

    rel = lambda a, b: float(np.max(np.abs(np.asarray(a) - b) / np.abs(b)))  # noqa: E731

    # marginals vs exact enumeration; extreme N and time units vs MVA
    e = 0.0
    for D, N, Z, s in [([0.4, 0.25, 0.7], 5, 0, None), ([0.4, 0.25, 0.7], 6, 1.5, [1, 3, math.inf]),
                       ([0.3, 0.9], 7, 0.5, [2, 1])]:
        exact = np.array(product_form_marginals(D, N, Z, s))
        got = marginal_probabilities(D, N, Z, s or 1).probabilities
        e = max(e, rel(got[exact > 0], exact[exact > 0]))
    D = np.array([0.01, 0.02, 0.015, 0.03])
    ref = mva(D, 300, 2.0, [1, 3, 1, math.inf])
    e2 = max(rel(marginal_probabilities(D * sc, 300, 2.0 * sc, [1, 3, 1, math.inf]).queue_length,
                 ref.queue_length) for sc in (1e-12, 1.0, 1e12))
    big = marginal_probabilities([0.5, 0.2, 0.4], 100_000)
    q = 0.2 / 0.5
    e3 = rel(big.probabilities[1, :60], (1 - q) * q ** np.arange(60))
    print(f"marginal_probabilities: max rel. error {e:.1e} vs exact enumeration; {e2:.1e} vs MVA "
          f"at N = 300 with demands x1e-12..x1e12; {e3:.1e} vs the geometric limit at N = 100,000")

    # M/M/c percentiles vs the textbook tail in mpmath
    mpmath.mp.dps = 40
    worst = 0.0
    for lam, s, c in [(1.5, 1.0, 2), (1.0, 1.0, 2), (7.0, 0.5, 4), (30.0, 1.0, 32)]:
        mu, a = 1 / mpmath.mpf(s), mpmath.mpf(lam) * s
        top = a**c / mpmath.factorial(c) * c / (c - a)
        C = top / (sum(a**k / mpmath.factorial(k) for k in range(c)) + top)
        th = c * mu - lam
        t = mpmath.mpf(mmc_percentiles(lam, s, c, 0.95).response_time)
        if th == mu:
            both = (1 + mu * t) * mpmath.e ** (-mu * t)
        else:
            both = (th * mpmath.e ** (-mu * t) - mu * mpmath.e ** (-th * t)) / (th - mu)
        tail = (1 - C) * mpmath.e ** (-mu * t) + C * both
        worst = max(worst, abs(float(tail) / 0.05 - 1))
    print(f"mmc_percentiles: tail at the 95th percentile within {worst:.1e} (relative) of 0.05, "
          "40-digit textbook formula, 4 cases incl. theta = mu")

    # closed-station percentile vs the Erlang mixture over the enumerated arrival law
    pi = product_form_marginals([0.5, 0.3], 4, 1.0)[0]
    t = float(closed_station_percentiles([0.5, 0.3], 5, 0.9, think_time=1.0).response_time[0])
    tail = sum(p * float(mpmath.gammainc(j + 1, 2 * t, mpmath.inf, regularized=True))
               for j, p in enumerate(pi))
    print(f"closed_station_percentiles: tail at the 90th percentile within {abs(tail / 0.1 - 1):.1e} of 0.1 "
          "(exact Erlang mixture over the enumerated arrival distribution)")

    # routing with class switching vs brute-force CTMC
    S = np.array([[0.01, 0.07, 0.10], [0.05, 0.7, 0.10]])
    r = routed_network(S, schwetman_fig9(), populations=[3, 0])
    Qb, Xb = brute_force_ctmc(S, schwetman_fig9(), [3], np.array([0, 0]), [False] * 3)
    print(f"routed_network: max rel. error {max(rel(r.queue_length, Qb), rel(r.throughput, Xb)):.1e} "
          "vs brute-force CTMC (Schwetman Fig. 9 routing, N = 3)")

    # priorities
    L = mm1_priority_ctmc((0.2, 0.5), (1.5, 0.6), False)
    e_open = rel(priority_station([0.2, 0.5], [1.5, 0.6], [0, 1]).queue_length, L)
    errs = []
    for S2, N2, Z2 in [((1.0, 1.0), (3, 3), (5.0, 5.0)), ((0.5, 2.0), (4, 2), (4.0, 8.0)),
                       ((1.0, 0.5), (5, 5), (2.0, 2.0))]:
        for pre in (True, False):
            X = central_server_ctmc(S2, N2, Z2, pre)
            a = mva_priority([[S2[0], 0.0], [S2[1], 0.0]], N2, [0, 1], think_times=Z2,
                             servers=[1, math.inf], preemptive=pre).throughput
            errs.append(np.abs(a / X - 1))
    errs = np.array(errs)
    print(f"priority_station: {e_open:.1e} vs the M/M/1 priority CTMC (HOL); mva_priority vs central-"
          f"server CTMCs (3 models x PR/HOL): high class max {errs[:, 0].max():.1%}, low class max "
          f"{errs[:, 1].max():.1%}")

    # CTMC transient vs dense expm; finite capacity vs M/M/c/B closed form
    rng = np.random.default_rng(3)
    A = rng.uniform(0.1, 5.0, (25, 25)) * (rng.uniform(size=(25, 25)) < 0.4)
    A += np.roll(np.eye(25), 1, axis=1) * 0.5
    np.fill_diagonal(A, 0.0)
    Q = A - np.diag(A.sum(axis=1))
    p0 = np.eye(25)[0]
    e_tr = max(np.abs(ctmc_transient(Q, p0, [t]).probabilities[0]
                      - p0 @ scipy.linalg.expm(Q * t)).max() for t in (0.05, 0.7, 3.0))
    lam, s, c, B = 1.5, 1.0, 2, 5
    w = [lam**n / (math.factorial(n) if n <= c else math.factorial(c) * c ** (n - c)) for n in range(B + 1)]
    p = np.array(w) / sum(w)
    fc = finite_capacity_network([s], [[0.0]], B, servers=c, arrival_rates=[lam])
    e_fc = rel(fc.marginal_probabilities[0], p)
    print(f"ctmc_transient: max abs. error {e_tr:.1e} vs scipy.linalg.expm (25 states); "
          f"finite_capacity_network: {e_fc:.1e} vs the M/M/2/5 closed form")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
