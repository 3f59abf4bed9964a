"""Tests of the closed-network MVA solvers (zmodel/queueing/closed.py).

Expected values come from (a) published worked examples, page in a comment, tolerance
= the digits printed, each ALSO recomputed here exactly with fractions; (b) independent
exact oracles written in this file: Buzen's convolution in exact rational arithmetic
(single class, single-/multi-server/delay stations) and brute-force enumeration of the
multi-class product form; (c) invariants (Little, utilization law, QSP ch. 5 bounds).

Page numbers for Bolch et al. and Jain are those cited by the GNU Octave ``queueing``
package test suite (Bolch et al., 1st ed., Wiley 1998); they were not re-checked
against the books here. The Jain table (34.1) was compared with a public transcription
of the book's section 34.2.
"""
from __future__ import annotations

import itertools
import math
import warnings
from fractions import Fraction as Fr

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from zmodel.queueing.closed import amva, mva, mva_multiclass

# --------------------------------------------------------------------------- oracles


def exact_mva_fractions(D, N, Z=0):
    """Textbook single-server MVA recursion in exact fractions (Jain §34.2)."""
    D = [Fr(d) for d in D]
    Z = Fr(Z)
    Q = [Fr(0)] * len(D)
    X = Fr(0)
    R = [Fr(0)] * len(D)
    for n in range(1, N + 1):
        R = [d * (1 + q) for d, q in zip(D, Q)]
        X = Fr(n) / (Z + sum(R))
        Q = [X * r for r in R]
    return X, R, Q


def buzen_exact(D, N, Z=0, servers=None):
    """Buzen's convolution with load-dependent factors, exact rationals.

    Station factor f_k(j) = D_k^j / beta_k(j), beta(j) = prod_{i<=j} min(i, c); a delay
    (c = inf) has beta(j) = j!; the think time is a delay station. Returns X(N) and the
    mean queue lengths Q_k(N) = sum_j j f_k(j) G_{-k}(N-j) / G(N).
    """
    K = len(D)
    servers = list(servers) if servers is not None else [1] * K

    def f(k, j):
        c, d = servers[k], Fr(D[k])
        if c == math.inf or j <= c:
            beta = math.factorial(j)
        else:
            beta = math.factorial(c) * c ** (j - c)
        return d ** j / beta

    def conv(stations, n):
        g = [Fr(Z) ** j / math.factorial(j) for j in range(n + 1)]
        for k in stations:
            g = [sum(f(k, j) * g[m - j] for j in range(m + 1)) for m in range(n + 1)]
        return g

    G = conv(range(K), N)
    X = G[N - 1] / G[N]
    Q = []
    for k in range(K):
        Gm = conv([i for i in range(K) if i != k], N)
        Q.append(sum(j * f(k, j) * Gm[N - j] for j in range(N + 1)) / G[N])
    return X, Q


def multiclass_enumeration(D, N, Z=None):
    """Multi-class product form by enumerating every state, exact rationals.

    pi(n) ~ prod_k |n_k|! prod_c D_ck^{n_ck}/n_ck!  (single-server PS/FCFS stations)
    times prod_c Z_c^{m_c}/m_c! for the m_c thinking jobs. X_c = G(N - e_c)/G(N).
    """
    C, K = len(D), len(D[0])
    Z = Z or [0] * C

    def G(pop):
        per_class = []
        for c in range(C):
            opts = [comp for comp in itertools.product(range(pop[c] + 1), repeat=K + 1)
                    if sum(comp) == pop[c]]
            per_class.append(opts)
        total = Fr(0)
        qsum = [[Fr(0)] * K for _ in range(C)]
        for combo in itertools.product(*per_class):
            w = Fr(1)
            for k in range(K):
                nk = sum(combo[c][k] for c in range(C))
                w *= math.factorial(nk)
                for c in range(C):
                    w *= Fr(D[c][k]) ** combo[c][k] / math.factorial(combo[c][k])
            for c in range(C):
                m = combo[c][K]
                w *= Fr(Z[c]) ** m / math.factorial(m)
            total += w
            for c in range(C):
                for k in range(K):
                    qsum[c][k] += w * combo[c][k]
        return total, qsum

    g, qsum = G(N)
    X = []
    for c in range(C):
        if N[c] == 0:
            X.append(Fr(0))
            continue
        pop = list(N)
        pop[c] -= 1
        X.append(G(pop)[0] / g)
    Q = [[q / g for q in row] for row in qsum]
    return X, Q


def naive_multiserver_mva(D, N, servers):
    """Bolch et al. §8.2.4 multiserver MVA with p(0|n) by difference (textbook form)."""
    K = len(D)
    Q = np.zeros(K)
    p = [np.zeros(max(c, 1)) if c != math.inf else None for c in servers]
    for k in range(K):
        if p[k] is not None:
            p[k][0] = 1.0
    X = 0.0
    for n in range(1, N + 1):
        R = np.empty(K)
        for k in range(K):
            c = servers[k]
            if c == math.inf:
                R[k] = D[k]
            elif c == 1:
                R[k] = D[k] * (1 + Q[k])
            else:
                corr = sum((c - 1 - j) * p[k][j] for j in range(c - 1))
                R[k] = D[k] / c * (1 + Q[k] + corr)
        X = n / R.sum()
        Q = X * R
        for k in range(K):
            c = servers[k]
            if c != math.inf and c > 1:
                old = p[k].copy()
                for j in range(1, c):
                    p[k][j] = X * D[k] / j * old[j - 1]
                p[k][0] = 1 - (X * D[k] + sum((c - j) * p[k][j] for j in range(1, c))) / c
    return X, Q


# --------------------------------------------------------------------------- published examples

# Jain, "The Art of Computer Systems Performance Analysis", Wiley 1991, Example 34.2 and
# Table 34.1 (p. 577): CPU S=0.125 s V=16, disk A S=0.3 s V=10, disk B S=0.2 s V=5,
# Z = 4 s. Columns: per-visit response time CPU, A, B; system R; X; Q CPU, A, B.
JAIN_S = [0.125, 0.3, 0.2]
JAIN_V = [16, 10, 5]
JAIN_TABLE_34_1 = {
    1: (0.125, 0.300, 0.200, 6.000, 0.100, 0.200, 0.300, 0.100),
    2: (0.150, 0.390, 0.220, 7.400, 0.175, 0.421, 0.684, 0.193),
    3: (0.178, 0.505, 0.239, 9.088, 0.229, 0.651, 1.158, 0.273),
    4: (0.206, 0.647, 0.255, 11.051, 0.266, 0.878, 1.721, 0.338),
    5: (0.235, 0.816, 0.268, 13.256, 0.290, 1.088, 2.365, 0.388),
    17: (0.370, 3.962, 0.300, 47.045, 0.333, 1.974, 13.195, 0.499),
    18: (0.372, 4.259, 0.300, 50.032, 0.333, 1.981, 14.187, 0.499),
    19: (0.373, 4.556, 0.300, 53.022, 0.333, 1.987, 15.181, 0.500),
    20: (0.373, 4.854, 0.300, 56.016, 0.333, 1.991, 16.177, 0.500),
}


@pytest.mark.parametrize("n", sorted(JAIN_TABLE_34_1))
def test_jain_example_34_2_table_34_1(n):
    row = JAIN_TABLE_34_1[n]
    D = [s * v for s, v in zip(JAIN_S, JAIN_V)]
    r = mva(D, n, think_time=4.0)
    per_visit = r.residence_time / np.array(JAIN_V)
    got = (*per_visit, r.response_time, r.throughput, *r.queue_length)
    assert got == pytest.approx(row, abs=6e-4)  # printed to 3 decimals
    # the same numbers from the exact rational recursion, written independently
    X, R, Q = exact_mva_fractions([Fr(1, 8) * 16, Fr(3, 10) * 10, Fr(1, 5) * 5], n, 4)
    assert r.throughput == pytest.approx(float(X), rel=1e-13)
    assert r.queue_length == pytest.approx([float(q) for q in Q], rel=1e-13)


def test_bolch_example_8_3_p331():
    # Bolch et al., Example 8.3 (p. 331): S = (0.02, 0.2, 0.4, 0.6) s, visits
    # (1, 0.4, 0.2, 0.1), K = 6 jobs, single-server stations, no think time.
    S = np.array([0.02, 0.2, 0.4, 0.6])
    V = np.array([1, 0.4, 0.2, 0.1])
    r = mva(S * V, 6)
    assert r.utilization == pytest.approx([0.198, 0.794, 0.794, 0.595], abs=6e-4)
    assert r.residence_time / V == pytest.approx([0.025, 0.570, 1.140, 1.244], abs=6e-4)
    assert r.queue_length == pytest.approx([0.244, 2.261, 2.261, 1.234], abs=6e-4)
    assert r.throughput * V == pytest.approx([9.920, 3.968, 1.984, 0.992], abs=6e-4)
    X, Q = buzen_exact([Fr(2, 100), Fr(8, 100), Fr(8, 100), Fr(6, 100)], 6)
    assert r.throughput == pytest.approx(float(X), rel=1e-13)
    assert r.queue_length == pytest.approx([float(q) for q in Q], rel=1e-13)


def test_bolch_example_8_4_p333_multiserver_and_delay():
    # Bolch et al., Example 8.4 (p. 333): S = (0.5, 0.6, 0.8, 1) s, servers (2, 1, 1, IS),
    # visits (1, 0.5, 0.5, 1), K = 3 jobs.
    S = np.array([0.5, 0.6, 0.8, 1.0])
    V = np.array([1, 0.5, 0.5, 1])
    servers = [2, 1, 1, math.inf]
    r = mva(S * V, 3, servers=servers)
    assert r.queue_length == pytest.approx([0.624, 0.473, 0.686, 1.217], abs=6e-4)
    assert r.throughput * V == pytest.approx([1.218, 0.609, 0.609, 1.218], abs=6e-4)
    X, Q = buzen_exact([Fr(1, 2), Fr(3, 10), Fr(2, 5), Fr(1)], 3, servers=servers)
    assert r.throughput == pytest.approx(float(X), rel=1e-13)
    assert r.queue_length == pytest.approx([float(q) for q in Q], rel=1e-13)


def test_bolch_example_8_1_p318_multiserver():
    # Bolch et al., Example 8.1 (p. 318, solved there by convolution): service rates
    # 0.8, 0.6, 0.4 /s with 2, 3, 1 servers; visits (1, 0.667, 0.2); K = 3 jobs.
    S = 1 / np.array([0.8, 0.6, 0.4])
    V = np.array([1, 0.667, 0.2])
    r = mva(S * V, 3, servers=[2, 3, 1])
    # the book's visits are rounded to 3 digits, so allow one unit in the last digit
    assert r.throughput * V == pytest.approx([0.945, 0.630, 0.189], abs=1e-3)
    assert r.utilization == pytest.approx([0.590, 0.350, 0.473], abs=1e-3)
    assert r.queue_length == pytest.approx([1.290, 1.050, 0.660], abs=1e-3)
    assert r.residence_time / V == pytest.approx([1.366, 1.667, 3.496], abs=1e-3)
    X, Q = buzen_exact([Fr(5, 4), Fr(5, 3) * Fr(667, 1000), Fr(1, 2)], 3, servers=[2, 3, 1])
    assert r.throughput == pytest.approx(float(X), rel=1e-13)
    assert r.queue_length == pytest.approx([float(q) for q in Q], rel=1e-13)


def test_lazowska_p142_two_classes_exact():
    # Lazowska et al., QSP (1984), §7.4 example p. 142: class A demands (1, 3) s, class B
    # (2, 4) s, one job each. Printed: Q = [[4/19, 15/19], [5/19, 14/19]],
    # residence times [[4/3, 5], [5/2, 7]], X = (3/19, 2/19).
    r = mva_multiclass([[1.0, 3.0], [2.0, 4.0]], [1, 1])
    assert r.queue_length == pytest.approx(np.array([[4, 15], [5, 14]]) / 19, rel=1e-14)
    assert r.residence_time == pytest.approx(np.array([[4 / 3, 5], [5 / 2, 7]]), rel=1e-14)
    assert r.throughput == pytest.approx([3 / 19, 2 / 19], rel=1e-14)
    X, Q = multiclass_enumeration([[1, 3], [2, 4]], [1, 1])
    assert [Fr(3, 19), Fr(2, 19)] == X


def test_schwetman_table5_think_times():
    # H. Schwetman, "Implementing the Mean Value Algorithm for the Solution of Queueing
    # Network Models", Purdue CSD-TR-355 (1982), table 5, p. 23 (also CSD-TR-330,
    # example 5(b)): one PS station, class 1 D = 0.025 s, Z = 1 s, N = 15; class 2
    # D = 0.5 s, Z = 15 s, N = 5. Printed: U (.358, .157), Q (.677, .293),
    # X (14.3, .314), R (.047, .934).
    r = mva_multiclass([[0.025], [0.5]], [15, 5], think_times=[1.0, 15.0])
    assert r.utilization[:, 0] == pytest.approx([0.358, 0.157], abs=6e-4)
    assert r.queue_length[:, 0] == pytest.approx([0.677, 0.293], abs=6e-4)
    assert r.throughput[0] == pytest.approx(14.3, abs=0.06)
    assert r.throughput[1] == pytest.approx(0.314, abs=6e-4)
    assert r.response_time == pytest.approx([0.047, 0.934], abs=6e-4)


def test_schweitzer_p142_network():
    # Bard-Schweitzer on the QSP p. 142 network, N = (1, 1). Regression values of the
    # GNU Octave queueing package (qncmmvabs): Q = [[.192, .808], [.248, .752]],
    # X = (.154, .104); recomputed below by an independent high-precision fixed point.
    a = amva([[1.0, 3.0], [2.0, 4.0]], [1, 1], method="schweitzer")
    assert a.queue_length == pytest.approx(np.array([[0.192, 0.808], [0.248, 0.752]]), abs=6e-4)
    assert a.throughput == pytest.approx([0.154, 0.104], abs=6e-4)
    import mpmath

    mpmath.mp.dps = 40
    D = [[mpmath.mpf(1), mpmath.mpf(3)], [mpmath.mpf(2), mpmath.mpf(4)]]
    Q = [[mpmath.mpf(1) / 2] * 2 for _ in range(2)]
    for _ in range(300):  # with one job per class a class sees only the other class
        R = [[D[c][k] * (1 + Q[1 - c][k]) for k in range(2)] for c in range(2)]
        X = [1 / (R[c][0] + R[c][1]) for c in range(2)]
        Q = [[X[c] * R[c][k] for k in range(2)] for c in range(2)]
    assert a.throughput == pytest.approx([float(x) for x in X], rel=1e-9)
    assert a.converged and a.method == "schweitzer"


# --------------------------------------------------------------------------- exact oracles

@pytest.mark.parametrize("D,N,Z,servers", [
    ([0.3, 0.7, 0.2], 12, 1, [3, 1, 4]),
    ([0.9, 0.1], 25, Fr(1, 2), [5, 1]),
    ([2, 1], 30, 0, [3, 2]),
    ([Fr(1, 3), Fr(1, 7), 1], 9, 2, [1, math.inf, 2]),
    ([1, Fr(1, 10)], 120, 0, [4, 1]),        # c = 4 at 100 % utilization
])
def test_multiserver_equals_buzen_convolution(D, N, Z, servers):
    r = mva([float(d) for d in D], N, think_time=float(Z), servers=servers)
    X, Q = buzen_exact(D, N, Z, servers)
    assert r.throughput == pytest.approx(float(X), rel=1e-12)
    assert r.queue_length == pytest.approx([float(q) for q in Q], rel=1e-11)


def test_stable_form_agrees_with_textbook_form_where_finite():
    # moderate load: the textbook difference form is accurate and both agree
    D, servers = [0.4, 0.3, 0.2], [3, 1, 2]
    X_naive, Q_naive = naive_multiserver_mva(D, 10, servers)
    r = mva(D, 10, servers=servers)
    assert r.throughput == pytest.approx(X_naive, rel=1e-10)
    assert r.queue_length == pytest.approx(Q_naive, rel=1e-9)


def test_stable_form_survives_where_textbook_form_breaks_down():
    # 6 servers saturated: p(0|n) by difference cancels and its error grows
    D, servers, N = [3.0, 0.1], [6, 1], 300
    X_exact, Q_exact = buzen_exact([3, Fr(1, 10)], N, 0, servers)
    r = mva(D, N, servers=servers)
    assert r.queue_length == pytest.approx([float(q) for q in Q_exact], rel=1e-11)
    with np.errstate(all="ignore"):
        _, Q_naive = naive_multiserver_mva(D, N, servers)
    assert not np.allclose(Q_naive, [float(q) for q in Q_exact], rtol=1e-6)


@pytest.mark.parametrize("D,N,Z", [
    ([[1, 2], [3, 1]], [2, 2], [0, 0]),
    ([[Fr(1, 2), 1, Fr(1, 4)], [2, Fr(1, 3), 1]], [3, 1], [1, 0]),
    ([[1, 1], [2, 1], [Fr(1, 2), 3]], [1, 2, 1], [0, 2, 1]),
])
def test_multiclass_equals_product_form_enumeration(D, N, Z):
    r = mva_multiclass([[float(d) for d in row] for row in D], N,
                       think_times=[float(z) for z in Z])
    X, Q = multiclass_enumeration(D, N, Z)
    assert r.throughput == pytest.approx([float(x) for x in X], rel=1e-12)
    assert r.queue_length == pytest.approx(np.array(Q, dtype=float), rel=1e-12)


def test_multiclass_delay_station():
    # a delay station adds D to every class's cycle: same as think time
    r1 = mva_multiclass([[1.0, 0.5], [2.0, 1.5]], [3, 2], servers=[1, math.inf])
    r2 = mva_multiclass([[1.0], [2.0]], [3, 2], think_times=[0.5, 1.5])
    assert r1.throughput == pytest.approx(r2.throughput, rel=1e-13)
    assert r1.queue_length[:, 1] == pytest.approx(r1.throughput * [0.5, 1.5], rel=1e-13)
    assert np.all(r1.utilization[:, 1] == 0)


# --------------------------------------------------------------------------- invariants

demands = st.lists(st.floats(0.001, 10.0), min_size=1, max_size=6)


@settings(max_examples=80, deadline=None)
@given(D=demands, N=st.integers(1, 60), Z=st.floats(0.0, 50.0))
def test_little_utilization_and_bounds(D, N, Z):
    r = mva(D, N, think_time=Z)
    D = np.array(D)
    X, R = r.throughput, r.response_time
    # Little's law at each station and for the whole network
    assert r.queue_length == pytest.approx(X * r.residence_time, rel=1e-12)
    assert N == pytest.approx(X * (R + Z), rel=1e-12)
    # utilization law, per server
    assert r.utilization == pytest.approx(X * D, rel=1e-12)
    assert np.all(r.utilization <= 1 + 1e-12)
    Dt, Dmax, Davg, K = D.sum(), D.max(), D.mean(), len(D)
    tol = 1 + 1e-12
    # asymptotic bounds, QSP §5.2
    assert X <= min(1 / Dmax, N / (Dt + Z)) * tol
    assert X * tol >= N / (N * Dt + Z)
    assert R * tol >= max(Dt, N * Dmax - Z)
    assert R <= N * Dt * tol
    # balanced job bounds with think time, QSP §5.4 (as also coded in GNU Octave
    # queueing's qncsbsb)
    x_low = N / (Dt + Z + ((N - 1) * Dmax) / (1 + Z / (N * Dt)))
    x_high = min(1 / Dmax, N / (Dt + Z + ((N - 1) * Davg) / (1 + Z / Dt)))
    r_low = max(N * Dmax - Z, Dt + ((N - 1) * Davg) / (1 + Z / Dt))
    r_high = Dt + ((N - 1) * Dmax) / (1 + Z / (N * Dt))
    assert x_low <= X * tol and X <= x_high * tol
    assert r_low <= R * tol and R <= r_high * tol


@settings(max_examples=60, deadline=None)
@given(D=demands, N=st.integers(1, 40), Z=st.floats(0.0, 10.0),
       c=st.lists(st.sampled_from([1, 2, 3, 5, math.inf]), min_size=6, max_size=6))
def test_multiserver_invariants(D, N, Z, c):
    servers = c[:len(D)]
    r = mva(D, N, think_time=Z, servers=servers)
    r_prev = mva(D, N - 1, think_time=Z, servers=servers)
    D, servers = np.array(D), np.array(servers, dtype=float)
    X = r.throughput
    assert r.queue_length == pytest.approx(X * r.residence_time, rel=1e-12)
    assert N == pytest.approx(X * (r.response_time + Z), rel=1e-12)
    assert np.all(r.utilization <= 1 + 1e-12)
    assert X <= min(np.min(servers / D), N / (D.sum() + Z)) * (1 + 1e-12)
    assert r.residence_time == pytest.approx(np.maximum(r.residence_time, D), rel=1e-12)
    assert r_prev.throughput <= X * (1 + 1e-12)  # throughput non-decreasing in N


@settings(max_examples=50, deadline=None)
@given(D=demands, N=st.integers(0, 50), Z=st.floats(0.0, 10.0))
def test_special_cases(D, N, Z):
    r = mva(D, N, think_time=Z)
    # servers=1 spelled out per station is the default
    r1 = mva(D, N, think_time=Z, servers=[1] * len(D))
    assert r1.throughput == r.throughput
    # many servers (>= N) behave as a delay station
    rinf = mva(D, N, think_time=Z, servers=math.inf)
    rbig = mva(D, N, think_time=Z, servers=max(N, 1))
    assert rbig.throughput == pytest.approx(rinf.throughput, rel=1e-12)
    # one-class multiclass equals single class
    if N > 0:
        m = mva_multiclass([D], [N], think_times=Z)
        assert m.throughput[0] == pytest.approx(r.throughput, rel=1e-12)
        assert m.queue_length[0] == pytest.approx(r.queue_length, rel=1e-12, abs=1e-300)


def test_batch_equals_loop():
    rng = np.random.default_rng(7)
    D = rng.uniform(0.01, 1.0, (4, 5, 3))
    N = rng.integers(0, 30, (4, 5))
    Z = rng.uniform(0, 5, (5,))
    servers = [1, 3, math.inf]
    r = mva(D, N, think_time=Z, servers=servers)
    assert r.throughput.shape == (4, 5) and r.queue_length.shape == (4, 5, 3)
    for i in range(4):
        for j in range(5):
            one = mva(D[i, j], int(N[i, j]), think_time=Z[j], servers=servers)
            assert r.throughput[i, j] == one.throughput
            assert np.array_equal(r.residence_time[i, j], one.residence_time)
    df = r.to_frame()
    assert {"batch_0", "batch_1", "station", "throughput", "queue_length"} <= set(df.columns)
    assert len(df) == 4 * 5 * 3


def test_population_sweep_of_one_network_jain_table_34_1():
    # one network at many populations (solved in one recursion that stops at each): Jain's
    # Table 34.1 (Example 34.2), the populations given out of order, repeated, and with 0
    D = [s * v for s, v in zip(JAIN_S, JAIN_V)]
    pops = [20, 3, 0, 17, 3, 1, 20, 4]
    r = mva(D, pops, think_time=4.0)
    for i, n in enumerate(pops):
        if n == 0:
            assert r.throughput[i] == 0 and r.response_time[i] == 0 and not r.queue_length[i].any()
            continue
        row = JAIN_TABLE_34_1[n]
        got = (*(r.residence_time[i] / np.array(JAIN_V)), r.response_time[i], r.throughput[i], *r.queue_length[i])
        assert got == pytest.approx(row, abs=6e-4)  # printed to 3 decimals


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_population_sweep_equals_each_population_alone(data):
    # one network, populations swept: every row is bit for bit the network solved at that
    # population alone (queues, delays, copies, zero demands, servers at least max(N))
    K = data.draw(st.integers(1, 6))
    D = data.draw(st.lists(st.sampled_from([0.0, 0.003, 0.01, 0.2, 1.0, 7.5]), min_size=K, max_size=K))
    servers = data.draw(st.lists(st.sampled_from([1, 1, math.inf, 400]), min_size=K, max_size=K))
    copies = [data.draw(st.integers(1, 12)) if c == 1 else 1 for c in servers]
    Z = data.draw(st.sampled_from([0.0, 0.5, 3.0]))
    pops = data.draw(st.lists(st.integers(0, 300), min_size=2, max_size=12))
    if not Z + sum(D) > 0:
        return
    r = mva(D, pops, think_time=Z, servers=servers, copies=copies)
    for i, n in enumerate(pops):
        one = mva(D, n, think_time=Z, servers=servers, copies=copies)
        assert r.throughput[i] == one.throughput and r.response_time[i] == one.response_time
        for got, want in ((r.queue_length, one.queue_length), (r.residence_time, one.residence_time),
                          (r.utilization, one.utilization)):
            assert np.array_equal(got[i], want)


def test_population_sweep_with_a_multi_server_station_matches_buzen():
    # a 3-server station below the largest population is not a sweep of one recursion (its
    # chain depends on N): each population is solved on its own, and equals the convolution
    D, servers = [0.4, 0.3, 0.1], [3, 1, math.inf]
    pops = [1, 2, 5, 9]
    r = mva(D, pops, think_time=1.0, servers=servers)
    for i, n in enumerate(pops):
        X, Q = buzen_exact([Fr(4, 10), Fr(3, 10), Fr(1, 10)], n, Z=1, servers=servers)
        assert r.throughput[i] == pytest.approx(float(X), rel=1e-13)
        assert r.queue_length[i] == pytest.approx([float(q) for q in Q], rel=1e-12)


def test_population_zero_one_and_zero_demands():
    r = mva([1.0, 0.0, 2.0], 0, think_time=3.0)
    assert r.throughput == 0 and r.response_time == 0
    assert not r.queue_length.any() and not r.utilization.any()
    r = mva([1.0, 0.0, 2.0], 1, think_time=3.0)
    assert r.throughput == pytest.approx(1 / 6, rel=1e-15)
    assert r.residence_time == pytest.approx([1.0, 0.0, 2.0], rel=1e-15)
    r = mva([0.0, 0.5], 10)
    assert r.throughput == pytest.approx(2.0, rel=1e-15)
    m = mva_multiclass([[1.0, 2.0], [3.0, 4.0]], [0, 0])
    assert not m.throughput.any() and not m.queue_length.any()


def test_huge_population_single_and_multiserver():
    D = np.linspace(0.01, 0.1, 10)
    Z = 1.0
    N = 1_000_000
    r = mva(D, N, think_time=Z)
    assert np.isfinite(r.throughput) and np.all(np.isfinite(r.queue_length))
    assert r.throughput <= min(1 / D.max(), N / (D.sum() + Z))
    assert r.response_time >= max(D.sum(), N * D.max() - Z)
    assert r.throughput == pytest.approx(1 / D.max(), rel=1e-9)
    # multi-server bottleneck at huge N: no overflow in the marginals
    r = mva(D, 200_000, think_time=Z, servers=[1] * 9 + [8])
    assert np.isfinite(r.throughput) and np.all(np.isfinite(r.queue_length))
    assert r.throughput <= 1 / D[8] * (1 + 1e-12)
    assert r.throughput == pytest.approx(1 / D[8], rel=1e-9)   # disk 9 is now the bottleneck
    assert r.queue_length.sum() + r.throughput * Z == pytest.approx(200_000, rel=1e-10)


def test_amva_schweitzer_close_to_exact_for_large_population():
    D = [[0.2, 0.5, 0.3], [0.4, 0.1, 0.6]]
    N = [60, 40]
    exact = mva_multiclass(D, N)
    a = amva(D, N)
    assert a.converged
    assert a.throughput == pytest.approx(exact.throughput, rel=0.02)
    # single class as a special case
    e1 = mva([0.2, 0.5, 0.3], 200, think_time=2.0)
    a1 = amva([[0.2, 0.5, 0.3]], [200], think_times=2.0)
    assert a1.throughput[0] == pytest.approx(e1.throughput, rel=1e-3)


def test_linearizer_closer_than_schweitzer():
    D = [[0.5, 0.3, 0.8, 0.2], [0.6, 0.9, 0.1, 0.4]]
    N = [4, 3]
    exact = mva_multiclass(D, N, think_times=[1.0, 2.0])
    s = amva(D, N, think_times=[1.0, 2.0], method="schweitzer")
    lin = amva(D, N, think_times=[1.0, 2.0], method="linearizer")
    err_s = np.max(np.abs(s.throughput / exact.throughput - 1))
    err_l = np.max(np.abs(lin.throughput / exact.throughput - 1))
    assert lin.converged and lin.method == "linearizer"
    assert err_l < err_s / 5
    assert err_l < 2e-3
    # little's law holds for the approximation too
    assert lin.queue_length.sum(axis=1) + lin.throughput * [1.0, 2.0] == pytest.approx(N)


def test_amva_nonconvergence_warns():
    with pytest.warns(RuntimeWarning, match="did not converge"):
        a = amva([[1.0, 2.0]], [30], max_iter=2)
    assert not a.converged and a.iterations == 2


# --------------------------------------------------------------------------- errors

@pytest.mark.parametrize("call,match", [
    (lambda: mva([1.0, float("nan")], 3), "service_demands must not be NaN"),
    (lambda: mva([1.0, -1.0], 3), "service_demands must be non-negative"),
    (lambda: mva([1.0, math.inf], 3), "service_demands must be finite"),
    (lambda: mva(np.zeros((2, 0)), 3), "service_demands must have at least one station"),
    (lambda: mva([1.0], 2.5), "population must be an integer, got 2.5"),
    (lambda: mva([1.0], -1), "population must be an integer >= 0"),
    (lambda: mva([1.0], 2, think_time=-1.0), "think_time must be non-negative"),
    (lambda: mva([1.0, 2.0], 2, servers=0), "servers must be a positive integer or math.inf"),
    (lambda: mva([1.0, 2.0], 2, servers=[1, 2, 3]), "servers must be a scalar or have one entry"),
    (lambda: mva([[1.0], [2.0]], [1, 2, 3]), "think_time and population must broadcast"),
    (lambda: mva([0.0, 0.0], 2), "must not all be zero"),
    (lambda: mva_multiclass([1.0, 2.0], [1]), r"service_demands must have shape \(classes, stations\)"),
    (lambda: mva_multiclass([[1.0, 2.0]], [1, 2]), "populations must have one entry per class"),
    (lambda: mva_multiclass([[1.0, 2.0]], [1.5]), "populations must be an integer"),
    (lambda: mva_multiclass([[1.0]], [1], think_times=[1, 2]), "think_times must be a scalar or have one entry"),
    (lambda: mva_multiclass(np.ones((4, 2)), [200] * 4, servers=[2, 1]),
     "populations and load-dependent stations need"),
    (lambda: mva_multiclass(np.ones((4, 2)), [200] * 4), "populations span"),
    (lambda: amva([[1.0]], [2], method="mvx"), "method must be 'schweitzer' or 'linearizer'"),
    (lambda: amva([[1.0]], [2], tol=0), "tol must be a positive finite number"),
    (lambda: amva([[1.0]], [2], max_iter=0), "max_iter must be a positive integer"),
    (lambda: amva([[1.0, 2.0]], [2], servers=[1, 3], multiserver="conway"),
     "multiserver must be 'seidmann' or 'rolia'"),
])
def test_errors(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_servers_not_integer():
    with pytest.raises(ValueError, match=r"servers must be a positive integer or math.inf, got 1.5"):
        mva([1.0, 2.0], 2, servers=[1, 1.5])


def test_no_warnings_on_normal_use():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        mva([1.0, 2.0], 5, servers=[2, 1])
        amva([[1.0, 2.0], [2.0, 1.0]], [3, 3], method="linearizer")


def test_servers_per_network_match_one_call_each_and_buzen():
    # a CPU station with c = 1..6 servers, a disk, and a delay; population = c (a CPU sweep)
    D = np.array([[0.03, 0.02, 0.05]] * 6) * np.arange(1, 7)[:, None] ** 0.5
    cpus = np.arange(1, 7)
    srv = np.stack([cpus, np.ones(6), np.full(6, math.inf)], axis=-1)
    r = mva(D, cpus, 0.1, servers=srv)
    for b, c in enumerate(cpus):
        one = mva(D[b], int(c), 0.1, servers=[int(c), 1, math.inf])
        # one network of the batch is solved exactly as alone (bit for bit)
        assert r.throughput[b] == one.throughput
        assert np.array_equal(r.queue_length[b], one.queue_length)
        assert np.array_equal(r.utilization[b], one.utilization)
    # and against Buzen's convolution in exact rationals (delay folded into the think time)
    for b in (1, 3, 5):
        X, Q = buzen_exact([Fr(float(D[b, 0])), Fr(float(D[b, 1]))], int(cpus[b]),
                           Z=Fr(float(D[b, 2])) + Fr(1, 10), servers=[int(cpus[b]), 1])
        assert r.throughput[b] == pytest.approx(float(X), rel=1e-13)
        assert r.queue_length[b, :2] == pytest.approx([float(q) for q in Q], rel=1e-13)


def test_servers_per_network_hand_case_and_errors():
    # one station, D = 1 s, N = 2: one server gives X = 2/(1 + 1 + 1/2 ...) -- by hand:
    # c = 1: R(1) = 1, Q(1) = 1; R(2) = 1 + 1 = 2, X = 2/2 = 1; c = 2: no queueing, X = 2
    r = mva([1.0], 2, servers=[[1], [2]])
    assert r.throughput.tolist() == [1.0, 2.0]
    with pytest.raises(ValueError, match="servers must have one entry per station"):
        mva([1.0, 2.0], 2, servers=[[1, 1, 1]])
    with pytest.raises(ValueError, match="servers must be a positive integer"):
        mva([1.0], 2, servers=[[1], [0]])
    with pytest.raises(ValueError, match="must broadcast"):
        mva([[1.0], [2.0], [3.0]], 2, servers=[[1], [2]])
    with pytest.raises(ValueError, match="rate_multipliers"):
        mva([1.0], 2, servers=[[1], [2]], rate_multipliers={0: [1.0, 1.0]})


# --------------------------------------------------------------------------- replicated queues (copies)

@pytest.mark.parametrize("D,N,Z,servers,copies", [
    ([Fr(3, 10), Fr(4, 5)], 7, Fr(1, 5), [1, 1], [1, 4]),            # plain path
    ([Fr(3, 10), Fr(4, 5), Fr(1, 20)], 9, Fr(1, 5), [3, 1, 1], [1, 6, 2]),  # beside a 3-server station
    ([Fr(1, 10), 2], 12, 0, [2, 1], [1, 8]),                         # the disks the bottleneck
    # three multi-server stations beside the copies: each one's marginals from its own ordering
    # of the multi-server factors after the recorded queues (and a 2-server station with no demand)
    ([Fr(1, 10), Fr(3, 10), Fr(1, 20), Fr(2, 5), 0], 11, Fr(1, 5), [2, 3, 4, 1, 2], [1, 1, 1, 5, 1]),
    ([Fr(7, 10), Fr(1, 4), Fr(9, 10), Fr(1, 2)], 40, 0, [4, 1, 2, 3], [1, 3, 1, 1]),   # near saturation
])
def test_copies_equal_the_expanded_stations_by_buzen(D, N, Z, servers, copies):
    # m identical queues of demand D/m each, written out station by station, solved by
    # Buzen's convolution in exact rationals; the summed queue length is the station's
    flatD, flatS, owner = [], [], []
    for k, (d, c, m) in enumerate(zip(D, servers, copies)):
        for _ in range(m):
            flatD.append(Fr(d) / m)
            flatS.append(c)
            owner.append(k)
    X, Q = buzen_exact(flatD, N, Z, flatS)
    r = mva([float(d) for d in D], N, think_time=float(Z), servers=servers, copies=copies)
    assert r.throughput == pytest.approx(float(X), rel=1e-12)
    want = [float(sum(q for q, o in zip(Q, owner) if o == k)) for k in range(len(D))]
    assert r.queue_length == pytest.approx(want, rel=1e-11)
    # utilization of one copy: X D / m
    for k, m in enumerate(copies):
        if servers[k] == 1:
            assert r.utilization[k] == pytest.approx(float(X * Fr(D[k]) / m), rel=1e-12)


def test_copies_hand_case_and_pooling_contrast():
    # two queues sharing D = 2 s (1 s each), two jobs: placements (2,0), (1,1), (0,2) are
    # equally likely (equal demands), so each queue is busy 2/3 and X = (2/3)/(1 s) = 2/3.
    # Two pooled servers would never queue two jobs: X = 2 / 2 s = 1.
    assert mva([2.0], 2, copies=2).throughput == pytest.approx(2 / 3, rel=1e-15)
    assert mva([2.0], 2, servers=2).throughput == pytest.approx(1.0, rel=1e-15)
    # copies = 1 is the plain station, bit for bit
    a = mva([0.2, 0.5], 30, 0.1, servers=[2, 1])
    b = mva([0.2, 0.5], 30, 0.1, servers=[2, 1], copies=[1, 1])
    assert a.throughput == b.throughput and np.array_equal(a.queue_length, b.queue_length)
    # per-network copies: a batch solves each row as alone
    r = mva([0.4, 0.6], 5, servers=[1, 1], copies=[[1, 1], [1, 3]])
    assert r.throughput[1] == mva([0.4, 0.6], 5, copies=[1, 3]).throughput


def test_copies_at_a_huge_population_saturate_at_m_over_d():
    # N = 100000 jobs, a CPU of 1 ms (bound 1000/s) and 64 disks sharing 0.32 s (bound
    # 64 / 0.32 = 200/s): the disks bound it (Lazowska 1984 §5.2). By hand, m symmetric
    # queues holding n jobs are each busy 1 - (m-1)/(n+m-1) of the time (the placements
    # of n jobs on m queues with one queue empty, over all placements), so X = 200 n/(n+63);
    # the CPU at U = 0.2 holds 0.2/0.8 = 0.25 jobs, n = N - 0.25
    r = mva([0.001, 0.32], 100_000, servers=[1, 1], copies=[1, 64])
    n = 100_000 - 0.25
    assert r.throughput == pytest.approx(200 * n / (n + 63), rel=1e-7)
    assert np.isfinite(r.queue_length).all()


@pytest.mark.parametrize("kwargs,match", [
    (dict(servers=[2, 1], copies=[2, 1]), "copies > 1 is only for single-server stations"),
    (dict(copies=[0, 1]), "copies must be a positive integer"),
    (dict(copies=[1.5, 1]), "copies must be a positive integer"),
    (dict(copies=[math.inf, 1]), "copies must be a positive integer"),
    (dict(copies=[1, 1, 1]), "copies must be a scalar or have one entry per station"),
    (dict(copies=[1, 2], rate_multipliers={0: [1.0] * 5}), "cannot be combined with rate_multipliers"),
    (dict(copies=[1, 2 ** 16 + 1]), "copies must be at most 65536"),
])
def test_copies_errors(kwargs, match):
    with pytest.raises(ValueError, match=match):
        mva([0.1, 0.2], 4, **kwargs)


def test_kernels_see_writable_arrays_whatever_the_caller_gives():
    # Numba compiles one specialization per argument type and a read-only array is another
    # type: a fresh install compiled mva_batch eight times until the inputs were normalized.
    # Read-only broadcasts, read-only populations and a one-network sweep all reach the kernels
    # as writable arrays, and give the numbers of writable inputs.
    from numba import types

    from zmodel.queueing.closed import _kernels

    D = np.broadcast_to(np.array([0.2, 0.3]), (3, 2))
    N = np.array([1, 4, 9])
    N.setflags(write=False)
    Z = np.broadcast_to(np.array(1.0), (3,))
    got = mva(D, N, think_time=Z, servers=[1, 1], copies=[1, 2])
    want = mva(np.array(D), np.array(N), think_time=np.array(Z), servers=[1, 1], copies=[1, 2])
    assert np.array_equal(got.throughput, want.throughput)
    mva(np.array([[0.2, 0.3], [0.1, 0.3], [0.4, 0.1]]), N, think_time=Z, servers=[2, 1])   # per-row networks
    for kernel in (_kernels().mva_batch, _kernels().mva_sweep):
        assert kernel.signatures, kernel
        for signature in kernel.signatures:
            assert all(t.mutable for t in signature if isinstance(t, types.Array)), signature
