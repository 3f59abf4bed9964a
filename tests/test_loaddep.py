"""Exact MVA with load-dependent and multi-server stations (zmodel.queueing.loaddep).

Reference values come from a brute-force CTMC built here with NumPy (global balance of
the whole network), from closed forms worked by hand in the comments, and from the
existing single-class solvers where the special case is theirs.
"""
import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from zmodel.queueing import mva, mva_multiclass, machine_repairman
from zmodel.queueing.loaddep import mva_load_dependent


# --------------------------------------------------------------------------- CTMC oracle

def ctmc_network(demands, populations, think_times, alphas):
    """Brute-force CTMC of a closed multi-class network, think station -> k -> think.

    Class c leaves its think station (delay, mean Z_c per job) for station k with
    probability q_ck = D_ck / sum_k D_ck and service time S_ck = sum_k D_ck (so the
    demand per cycle is D_ck); station k serves its n_k jobs in processor sharing with
    rate multiplier alpha_k(n_k) (alpha = None: a delay station). Returns
    (X (C,), Q (C, K), marginal p_k(j) (K, N+1)).
    """
    D = np.asarray(demands, float)
    C, K = D.shape
    N = list(populations)
    Z = np.asarray(think_times, float)
    per_class = []
    for c in range(C):
        per_class.append([v for v in itertools.product(range(N[c] + 1), repeat=K) if sum(v) <= N[c]])
    states = list(itertools.product(*per_class))
    index = {s: i for i, s in enumerate(states)}
    S = len(states)
    Qgen = np.zeros((S, S))
    tot = D.sum(axis=1)
    for s in states:
        i = index[s]
        nk = [sum(s[c][k] for c in range(C)) for k in range(K)]
        for c in range(C):
            thinking = N[c] - sum(s[c])
            for k in range(K):
                if D[c, k] == 0:
                    continue
                q = D[c, k] / tot[c]
                if thinking > 0:  # think -> k
                    t = list(map(list, s)); t[c][k] += 1
                    Qgen[i, index[tuple(map(tuple, t))]] += thinking / Z[c] * q
                if s[c][k] > 0:  # completion at k -> think
                    a = alphas[k]
                    rate = (s[c][k] / tot[c]) if a is None else a(nk[k]) * s[c][k] / nk[k] / tot[c]
                    t = list(map(list, s)); t[c][k] -= 1
                    Qgen[i, index[tuple(map(tuple, t))]] += rate
    np.fill_diagonal(Qgen, -Qgen.sum(axis=1))
    A = np.vstack([Qgen.T, np.ones(S)])
    b = np.zeros(S + 1); b[-1] = 1.0
    p = np.linalg.lstsq(A, b, rcond=None)[0]
    Q = np.zeros((C, K))
    marg = np.zeros((K, sum(N) + 1))
    X = np.zeros(C)
    for s, pi in zip(states, p):
        for c in range(C):
            X[c] += pi * (N[c] - sum(s[c])) / Z[c]
            for k in range(K):
                Q[c, k] += pi * s[c][k]
        for k in range(K):
            marg[k, sum(s[c][k] for c in range(C))] += pi
    return X, Q, marg


def test_two_class_two_server_station_matches_ctmc():
    D = [[1.0, 0.4], [0.5, 0.9]]
    X, Q, marg = ctmc_network(D, [3, 2], [2.0, 1.5], [lambda n: min(n, 2), lambda n: 1.0])
    r = mva_multiclass(D, [3, 2], [2.0, 1.5], servers=[2, 1])
    np.testing.assert_allclose(r.throughput, X, rtol=1e-10)
    np.testing.assert_allclose(r.queue_length, Q, rtol=1e-9, atol=1e-12)


def test_three_server_and_load_dependent_table_match_ctmc():
    D = [[0.8, 0.3, 0.5], [0.4, 1.1, 0.2]]
    table = [1.0, 1.7, 2.2, 2.5, 2.5]
    alphas = [lambda n: min(n, 3), lambda n: table[n - 1], lambda n: 1.0]
    X, Q, marg = ctmc_network(D, [2, 3], [1.0, 2.0], alphas)
    r = mva_load_dependent(D, [2, 3], [1.0, 2.0], servers=[3, 1, 1], rate_multipliers={1: table},
                           marginals=True)
    np.testing.assert_allclose(r.throughput, X, rtol=1e-10)
    np.testing.assert_allclose(r.queue_length, Q, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(r.marginal[1], marg[1], atol=1e-12)
    np.testing.assert_allclose(r.marginal[0], marg[0], atol=1e-12)


def test_decreasing_rate_table_matches_ctmc():
    # a station that slows down as jobs pile up (hand-off cost, as in a ticket lock)
    D = [[0.6, 0.3], [0.2, 0.9]]
    slow = [1.0 / (1.0 + 0.7 * (n - 1)) for n in range(1, 6)]
    X, Q, marg = ctmc_network(D, [3, 2], [0.5, 1.0], [lambda n: slow[n - 1], lambda n: 1.0])
    r = mva_load_dependent(D, [3, 2], [0.5, 1.0], rate_multipliers=[slow, None], marginals=True)
    np.testing.assert_allclose(r.throughput, X, rtol=1e-10)
    np.testing.assert_allclose(r.queue_length, Q, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(r.marginal[0], marg[0], atol=1e-12)


def test_delay_station_and_callable_match_ctmc():
    D = [[0.8, 0.3], [0.4, 1.1]]
    alphas = [None, lambda n: 1.0 + 0.5 * (n - 1)]
    X, Q, _ = ctmc_network(D, [2, 2], [1.0, 0.5], alphas)
    r = mva_multiclass(D, [2, 2], [1.0, 0.5], servers=[math.inf, 1],
                       rate_multipliers={1: lambda n: 1.0 + 0.5 * (n - 1)})
    np.testing.assert_allclose(r.throughput, X, rtol=1e-10)
    np.testing.assert_allclose(r.queue_length, Q, rtol=1e-9, atol=1e-12)


# --------------------------------------------------------------------------- extremes

def test_four_servers_think_one_hundred_jobs_saturates_at_four():
    # one 4-server station, D = 1 s, Z = 1 s, N = 100: all four servers are busy with
    # probability 1 - O(1e-100), so X = 4 (the unstable textbook recursion fails here)
    r = mva_multiclass([[1.0]], [100], [1.0], servers=[4])
    assert abs(r.throughput[0] - 4.0) < 1e-12
    r1 = mva([1.0], 100, think_time=1.0, rate_multipliers={0: lambda n: min(n, 4)})
    assert abs(r1.throughput - 4.0) < 1e-12


def test_sixteen_engines_near_saturation_equal_machine_repairman():
    # M/M/16//N with think time: the closed form of machine_repairman (log space)
    for n in (10, 16, 40, 200):
        r = mva_multiclass([[0.5]], [n], [0.4], servers=[16])
        ref = machine_repairman(n, 0.4, 0.5, 16)
        assert r.throughput[0] == pytest.approx(ref.throughput, rel=1e-11)
        assert r.queue_length[0, 0] == pytest.approx(ref.queue_length, rel=1e-10)


def test_zero_think_time_single_multi_server_station():
    # all N jobs at a c-server station with nothing else: X = c / D, p(N) = 1
    r = mva_load_dependent([[2.0]], [7], 0.0, servers=[3], marginals=True)
    assert r.throughput[0] == pytest.approx(1.5, rel=1e-14)
    assert r.marginal[0, 7] == pytest.approx(1.0, abs=1e-14)


def test_zero_population_class_and_zero_total():
    r = mva_multiclass([[1.0, 1.0], [2.0, 1.0]], [0, 3], servers=[2, 1])
    assert r.throughput[0] == 0.0
    assert np.all(r.queue_length[0] == 0.0)
    ref = mva([2.0, 1.0], 3, servers=[2, 1])
    assert r.throughput[1] == pytest.approx(ref.throughput, rel=1e-12)
    r = mva_multiclass([[1.0], [2.0]], [0, 0], servers=[2])
    assert np.all(r.throughput == 0.0)


# --------------------------------------------------------------------------- invariants

demand = st.floats(0.05, 3.0)


@settings(max_examples=30, deadline=None)
@given(D=st.lists(st.lists(demand, min_size=3, max_size=3), min_size=2, max_size=2),
       N=st.lists(st.integers(0, 4), min_size=2, max_size=2),
       Z=st.lists(st.floats(0.0, 2.0), min_size=2, max_size=2),
       c=st.integers(2, 4))
def test_invariants_little_utilization(D, N, Z, c):
    D = np.array(D)
    if any(n > 0 and D[i].sum() + Z[i] <= 0 for i, n in enumerate(N)):
        return
    r = mva_multiclass(D, N, Z, servers=[c, 1, math.inf])
    # Little's law per class over the cycle, and per station
    cyc = r.queue_length.sum(axis=1) + r.throughput * np.array(Z)
    np.testing.assert_allclose(cyc, N, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(r.queue_length, r.throughput[:, None] * r.residence_time, rtol=1e-12)
    # utilization law, and at most c busy servers
    np.testing.assert_allclose(r.utilization[:, 0], r.throughput * D[:, 0] / c, rtol=1e-12)
    assert r.utilization[:, 0].sum() <= 1 + 1e-12
    assert r.utilization[:, 1].sum() <= 1 + 1e-12


@settings(max_examples=30, deadline=None)
@given(D=st.lists(demand, min_size=3, max_size=3), N=st.integers(0, 30),
       Z=st.floats(0.0, 3.0), c=st.integers(2, 6))
def test_one_class_equals_single_class_and_min_n_c_table(D, N, Z, c):
    single = mva(D, N, think_time=Z, servers=[c, 1, 1])
    multi = mva_multiclass([D], [N], [Z], servers=[c, 1, 1])
    table = mva(D, N, think_time=Z, rate_multipliers={0: [min(n, c) for n in range(1, N + 1)] or [1.0]})
    assert multi.throughput[0] == pytest.approx(single.throughput, rel=1e-11, abs=1e-15)
    assert table.throughput == pytest.approx(single.throughput, rel=1e-11, abs=1e-15)
    np.testing.assert_allclose(table.queue_length, single.queue_length, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(multi.queue_length[0], single.queue_length, rtol=1e-10, atol=1e-12)


@settings(max_examples=20, deadline=None)
@given(D=st.lists(st.lists(demand, min_size=2, max_size=2), min_size=2, max_size=2),
       N=st.lists(st.integers(1, 4), min_size=2, max_size=2))
def test_constant_rate_table_is_a_faster_single_server(D, N):
    # alpha(n) = 2 for all n: a single server twice as fast, i.e. demands halved
    D = np.array(D)
    total = sum(N)
    r = mva_multiclass(D, N, 0.5, rate_multipliers={0: [2.0] * total})
    ref = mva_multiclass(D * np.array([0.5, 1.0]), N, 0.5)
    np.testing.assert_allclose(r.throughput, ref.throughput, rtol=1e-11)


# --------------------------------------------------------------------------- bad input

def test_bad_rate_tables():
    with pytest.raises(ValueError, match=r"rate_multipliers\[0\] must have at least one entry per population level 1..5"):
        mva_multiclass([[1.0, 1.0]], [5], rate_multipliers={0: [1.0, 2.0]})
    with pytest.raises(ValueError, match=r"rate_multipliers\[1\] must be positive and finite .* at n = 2"):
        mva([1.0, 1.0], 3, rate_multipliers={1: [1.0, 0.0, 1.0]})
    with pytest.raises(ValueError, match=r"rate_multipliers\[0\] must be positive and finite"):
        mva([1.0], 2, rate_multipliers={0: lambda n: -1.0})
    with pytest.raises(ValueError, match="rate_multipliers keys must be station indices 0..1"):
        mva([1.0, 1.0], 2, rate_multipliers={2: [1.0, 1.0]})
    with pytest.raises(ValueError, match="servers must be 1 at station 0"):
        mva_multiclass([[1.0]], [2], servers=[2], rate_multipliers={0: [1.0, 2.0]})
    with pytest.raises(ValueError, match="rate_multipliers must be a dict or have one entry per station"):
        mva_multiclass([[1.0, 1.0]], [2], rate_multipliers=[[1.0, 2.0]])


# --------------------------------------------------------------------------- finite source

from zmodel.queueing.loaddep import finite_source  # noqa: E402


def test_finite_source_hand_example_and_zero_think():
    # N = 3, Z = 2, mu = (1, 3, 3): weights 1, 3/2 * 1, 6/4 * 1/3, 6/8 * 1/9 ->
    # 1, 1.5, 0.5, 1/12 (p_n ~ N!/(N-n)! Z^-n / prod mu)
    w = np.array([1.0, 1.5, 0.5, 1 / 12])
    p = w / w.sum()
    r = finite_source(3, 2.0, [1.0, 3.0, 3.0])
    np.testing.assert_allclose(r.probabilities, p, rtol=1e-14)
    assert r.throughput == pytest.approx((p[1:] * [1, 3, 3]).sum(), rel=1e-14)
    assert r.throughput == pytest.approx((3 - r.queue_length) / 2.0, rel=1e-13)  # X = (N - Q)/Z
    z0 = finite_source(4, 0.0, lambda n: 0.5 * n)
    assert z0.throughput == pytest.approx(2.0, rel=1e-15) and z0.queue_length == 4.0


@settings(max_examples=25, deadline=None)
@given(N=st.integers(1, 25), Z=st.floats(0.05, 5.0),
       table=st.lists(st.floats(0.1, 5.0), min_size=25, max_size=25))
def test_finite_source_equals_load_dependent_mva(N, Z, table):
    r = finite_source(N, Z, table)
    m = mva([1.0], N, think_time=Z, rate_multipliers={0: table})
    assert r.throughput == pytest.approx(m.throughput, rel=1e-10)
    assert r.queue_length == pytest.approx(m.queue_length[0], rel=1e-10, abs=1e-12)


def test_finite_source_huge_population_is_finite():
    r = finite_source(200_000, 1e-3, lambda n: min(n, 16) * 1e3)
    assert r.throughput == pytest.approx(16e3, rel=1e-12)


def test_finite_source_bad_input():
    with pytest.raises(ValueError, match=r"service_rate must have at least one entry per population level 1..3"):
        finite_source(3, 1.0, [1.0, 2.0])
    with pytest.raises(ValueError, match=r"service_rate must be positive and finite, got 0.0 at n = 2"):
        finite_source(2, 1.0, [1.0, 0.0])
    with pytest.raises(ValueError, match="think_time must be non-negative"):
        finite_source(2, -1.0, [1.0, 1.0])


# --------------------------------------------------------------------------- FES

from zmodel.queueing.loaddep import flow_equivalent_server  # noqa: E402


@settings(max_examples=20, deadline=None)
@given(D=st.lists(demand, min_size=4, max_size=4), N=st.integers(1, 30), Z=st.floats(0.0, 5.0),
       c=st.integers(2, 4))
def test_flow_equivalent_server_is_exact(D, N, Z, c):
    # outer: station 0 (c servers) + the FES of stations 1..3 (one 2-server, two single)
    whole = mva(D, N, think_time=Z, servers=[c, 2, 1, 1])
    fes = flow_equivalent_server(D[1:], N, servers=[2, 1, 1])
    outer = mva([D[0], 1.0], N, think_time=Z, servers=[c, 1], rate_multipliers={1: fes.throughput})
    assert outer.throughput == pytest.approx(whole.throughput, rel=1e-10)
    assert outer.queue_length[0] == pytest.approx(whole.queue_length[0], rel=1e-9, abs=1e-12)
    assert outer.queue_length[1] == pytest.approx(whole.queue_length[1:].sum(), rel=1e-9, abs=1e-12)


def test_flow_equivalent_server_bad_input():
    with pytest.raises(ValueError, match="population must be a positive integer"):
        flow_equivalent_server([1.0], 0)
    with pytest.raises(ValueError, match="service_demands must not all be zero"):
        flow_equivalent_server([0.0, 0.0], 3)


# --------------------------------------------------------------------------- 50-digit reference

def test_two_class_four_server_near_saturation_matches_mpmath_convolution():
    # Exact normalising constants in 50-digit arithmetic (product form, Baskett et al.
    # 1975): think station Z_c, a 4-server PS station, a single server; X_c = G(N-e_c)/G(N)
    # and Q at the 4-server station = sum_a |a| F_0(a) G_{-0}(N - a) / G(N). Demands put
    # the 4-server station in saturation, where the textbook p(0) = 1 - sum recursion fails.
    import mpmath  # a SymPy dependency
    mp = mpmath.mp
    mp.dps = 50
    Z = [mp.mpf(1), mp.mpf("0.5")]
    D0 = [mp.mpf("0.9"), mp.mpf("0.7")]   # 4 servers
    D1 = [mp.mpf("0.05"), mp.mpf("0.08")]
    c, N1, N2 = 4, 20, 20
    fact = [mp.factorial(i) for i in range(N1 + N2 + 1)]

    def A(j):
        return fact[j] if j <= c else fact[c] * mp.mpf(c) ** (j - c)

    def table(f):
        return [[f(a, b) for b in range(N2 + 1)] for a in range(N1 + 1)]

    F0 = table(lambda a, b: fact[a + b] / A(a + b) * D0[0] ** a * D0[1] ** b / (fact[a] * fact[b]))
    F1 = table(lambda a, b: fact[a + b] * D1[0] ** a * D1[1] ** b / (fact[a] * fact[b]))
    FZ = table(lambda a, b: Z[0] ** a * Z[1] ** b / (fact[a] * fact[b]))

    def conv(F, G):
        return table(lambda a, b: mp.fsum(F[i][j] * G[a - i][b - j]
                                          for i in range(a + 1) for j in range(b + 1)))

    G_no0 = conv(F1, FZ)
    G = conv(F0, G_no0)
    X = [float(G[N1 - 1][N2] / G[N1][N2]), float(G[N1][N2 - 1] / G[N1][N2])]
    Q0 = float(mp.fsum((i + j) * F0[i][j] * G_no0[N1 - i][N2 - j]
                       for i in range(N1 + 1) for j in range(N2 + 1)) / G[N1][N2])
    r = mva_multiclass([[0.9, 0.05], [0.7, 0.08]], [N1, N2], [1.0, 0.5], servers=[4, 1])
    np.testing.assert_allclose(r.throughput, X, rtol=1e-12)
    assert r.queue_length[:, 0].sum() == pytest.approx(Q0, rel=1e-12)


@settings(max_examples=20, deadline=None)
@given(D=st.lists(st.lists(st.floats(0.1, 2.0), min_size=2, max_size=2), min_size=2, max_size=2),
       N=st.lists(st.integers(0, 2), min_size=2, max_size=2),
       Z=st.lists(st.floats(0.2, 2.0), min_size=2, max_size=2),
       table=st.lists(st.floats(0.2, 4.0), min_size=4, max_size=4),
       c=st.integers(1, 3))
def test_random_rate_tables_match_ctmc(D, N, Z, table, c):
    # any positive alpha (monotone or not) at station 0, c servers at station 1
    alphas = [lambda n: table[n - 1], lambda n: min(n, c)]
    X, Q, _ = ctmc_network(D, N, Z, alphas)
    r = mva_load_dependent(D, N, Z, servers=[1, c], rate_multipliers={0: table})
    np.testing.assert_allclose(r.throughput, X, rtol=1e-9, atol=1e-14)
    np.testing.assert_allclose(r.queue_length, Q, rtol=1e-8, atol=1e-12)
