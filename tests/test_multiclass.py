"""Multi-server stations in approximate MVA and mixed networks; multi-class bounds.

References come from outside the code under test: a sparse CTMC built here with
NumPy/SciPy, the M/M/c formulas of zmodel.queueing.single (exact, tested against the
textbook there), the exact load-dependent MVA (itself checked against a CTMC in
test_loaddep.py) and hand computations in comments.
"""
import itertools
import math

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as spla
from hypothesis import given, settings
from hypothesis import strategies as st

from zmodel.queueing import amva, mixed_network, mmc, mva, mva_multiclass
from zmodel.queueing.multiclass import amva_multiserver_residence


# --------------------------------------------------------------------------- AMVA

def test_seidmann_and_rolia_hand_values():
    # Seidmann: D/c (1 + A) + D (c-1)/c = 2/2 * 4 + 2/2 = 5
    assert amva_multiserver_residence([2.0], [3.0], [2]).tolist() == [5.0]
    # Rolia: rho = 1/2, P_B = 1/4, R = 2 (1 + 1/4 * 3 / 2) = 2.75
    assert amva_multiserver_residence([2.0], [3.0], [2], [1.0], "rolia").tolist() == [2.75]
    with pytest.raises(ValueError, match="method must be 'seidmann' or 'rolia'"):
        amva_multiserver_residence([2.0], [3.0], [2], method="conway")
    with pytest.raises(ValueError, match="busy_servers must be given"):
        amva_multiserver_residence([2.0], [3.0], [2], method="rolia")


@pytest.mark.parametrize("multiserver", ["seidmann", "rolia"])
@pytest.mark.parametrize("method", ["schweitzer", "linearizer"])
def test_amva_multiserver_close_to_exact(multiserver, method):
    # published accuracy of these approximations is a few percent; exact reference is
    # the load-dependent MVA (checked against a CTMC in test_loaddep.py)
    D = [[0.4, 0.3, 0.2], [0.2, 0.5, 0.3]]
    exact = mva_multiclass(D, [10, 8], [2.0, 1.0], servers=[4, 1, 2])
    a = amva(D, [10, 8], [2.0, 1.0], servers=[4, 1, 2], multiserver=multiserver, method=method)
    assert a.multiserver == multiserver and a.converged
    np.testing.assert_allclose(a.throughput, exact.throughput, rtol=0.05)


def test_amva_two_servers_is_not_one_queue():
    # the off-by-one guard: two jobs at a 2-server station never queue (a delay), so
    # X = 2/D exactly, where one queue would give 1/D
    a = amva([[1.0]], [2], servers=[2])
    assert a.throughput[0] == pytest.approx(2.0, rel=1e-12)
    a = amva([[1.0], [1.0]], [1, 1], servers=[2])
    np.testing.assert_allclose(a.throughput, [1.0, 1.0], rtol=1e-12)


@pytest.mark.parametrize("multiserver", ["seidmann", "rolia"])
def test_amva_many_servers_below_capacity(multiserver):
    # 4 servers, D = 1, Z = 1, N = 100: exact X = 4 (capacity); the approximations stay
    # below the capacity bound and within their few-percent accuracy
    a = amva([[1.0]], [100], [1.0], servers=[4], multiserver=multiserver)
    assert a.throughput[0] <= 4.0 + 1e-12
    assert a.throughput[0] == pytest.approx(4.0, rel=0.05)


@settings(max_examples=25, deadline=None)
@given(D=st.lists(st.lists(st.floats(0.05, 2.0), min_size=3, max_size=3), min_size=2, max_size=2),
       N=st.lists(st.integers(1, 12), min_size=2, max_size=2), c=st.integers(2, 5),
       ms=st.sampled_from(["seidmann", "rolia"]))
def test_amva_multiserver_invariants(D, N, c, ms):
    a = amva(D, N, [1.0, 0.5], servers=[c, 1, 1], multiserver=ms)
    D = np.array(D)
    cyc = a.queue_length.sum(axis=1) + a.throughput * np.array([1.0, 0.5])
    np.testing.assert_allclose(cyc, N, rtol=1e-8)                      # Little over the cycle
    assert (a.utilization[:, 0].sum() <= 1 + 1e-9)                      # at most c busy servers
    np.testing.assert_allclose(a.utilization[:, 0], a.throughput * D[:, 0] / c, rtol=1e-12)


def test_amva_one_server_seidmann_equals_plain_schweitzer():
    D = [[0.4, 0.3], [0.2, 0.5]]
    a = amva(D, [5, 4], 1.0, servers=[1, 1])
    b = amva(np.hstack([D, [[0.0], [0.0]]]), [5, 4], 1.0, servers=[1, 1, 3])
    np.testing.assert_allclose(a.throughput, b.throughput, rtol=1e-10)


# --------------------------------------------------------------------------- mixed

def ctmc_mixed(lam, d_open, d_closed, N, Z, alphas, T=30):
    """Sparse CTMC of one open class (tandem through stations 0, 1) and one closed class
    (think -> station k with probability D_k / sum D -> think) at two PS load-dependent
    stations; the open queue is truncated at T per station (error ~ rho^T).

    Returns (Q_open (2,), Q_closed (2,), X_closed).
    """
    Dtot = sum(d_closed)
    states = [(n0, n1, m0, m1) for n0 in range(N + 1) for n1 in range(N + 1 - n0)
              for m0 in range(T + 1) for m1 in range(T + 1)]
    index = {s: i for i, s in enumerate(states)}
    rows, cols, vals = [], [], []

    def add(i, s, rate):
        if rate > 0 and s in index:
            rows.append(i); cols.append(index[s]); vals.append(rate)

    for s in states:
        i = index[s]
        n0, n1, m0, m1 = s
        thinking = N - n0 - n1
        add(i, (n0 + 1, n1, m0, m1), thinking / Z * d_closed[0] / Dtot)
        add(i, (n0, n1 + 1, m0, m1), thinking / Z * d_closed[1] / Dtot)
        add(i, (n0, n1, m0 + 1, m1), lam)
        tot0, tot1 = n0 + m0, n1 + m1
        if tot0:
            a = alphas[0](tot0)
            add(i, (n0 - 1, n1, m0, m1), a * n0 / tot0 / Dtot)
            add(i, (n0, n1, m0 - 1, m1 + 1), a * m0 / tot0 / d_open[0])
        if tot1:
            a = alphas[1](tot1)
            add(i, (n0, n1 - 1, m0, m1), a * n1 / tot1 / Dtot)
            add(i, (n0, n1, m0, m1 - 1), a * m1 / tot1 / d_open[1])
    S = len(states)
    Qg = sp.csr_matrix((vals, (rows, cols)), shape=(S, S))
    Qg = Qg - sp.diags(np.asarray(Qg.sum(axis=1)).ravel())
    A = Qg.T.tolil()
    A[0, :] = 1.0
    b = np.zeros(S); b[0] = 1.0
    p = spla.spsolve(A.tocsc(), b)
    arr = np.array(states, dtype=float)
    q_open = p @ arr[:, 2:4]
    q_closed = p @ arr[:, 0:2]
    x_closed = p @ (N - arr[:, 0] - arr[:, 1]) / Z
    return q_open, q_closed, x_closed


def test_mixed_two_server_station_matches_ctmc():
    lam, d_open, d_closed, N, Z = 0.5, [1.2, 0.4], [0.8, 0.5], 3, 1.5
    qo, qc, xc = ctmc_mixed(lam, d_open, d_closed, N, Z, [lambda n: min(n, 2), lambda n: 1.0])
    r = mixed_network([lam], [d_open], [d_closed], [N], Z, servers=[2, 1])
    assert r.throughput[1] == pytest.approx(xc, rel=1e-9)
    np.testing.assert_allclose(r.queue_length[1], qc, rtol=1e-8)
    np.testing.assert_allclose(r.queue_length[0], qo, rtol=1e-8)
    # closed-class utilization per server, X_c D_ck / c
    assert r.utilization[1, 0] == pytest.approx(xc * d_closed[0] / 2, rel=1e-9)


def test_mixed_three_server_station_matches_ctmc():
    lam, d_open, d_closed, N, Z = 1.0, [1.5, 0.3], [1.0, 0.6], 2, 0.7
    qo, qc, xc = ctmc_mixed(lam, d_open, d_closed, N, Z, [lambda n: min(n, 3), lambda n: 1.0], T=40)
    r = mixed_network([lam], [d_open], [d_closed], [N], Z, servers=[3, 1])
    assert r.throughput[1] == pytest.approx(xc, rel=1e-9)
    np.testing.assert_allclose(r.queue_length[0], qo, rtol=1e-8)


def test_mixed_open_only_two_server_station_is_mmc():
    # two open classes at a 2-server station (same service time, FCFS product form):
    # the total is an M/M/2 of rate 0.3 + 0.5 and service 1 s
    r = mixed_network([0.3, 0.5], [[1.0, 0.2], [1.0, 0.1]], np.zeros((0, 2)), [], servers=[2, 1])
    ref = mmc(0.8, 1.0, 2)
    assert r.queue_length[:, 0].sum() == pytest.approx(ref.queue_length, rel=1e-12)
    np.testing.assert_allclose(r.residence_time[:, 0], [ref.response_time] * 2, rtol=1e-12)
    np.testing.assert_allclose(r.utilization[:, 0], [0.15, 0.25], rtol=1e-15)


@settings(max_examples=20, deadline=None)
@given(lam=st.floats(0.0, 0.9), D=st.lists(st.floats(0.1, 1.0), min_size=2, max_size=2),
       N=st.integers(1, 8), c=st.integers(2, 4))
def test_mixed_invariants(lam, D, N, c):
    r = mixed_network([lam], [[D[0], D[1] * 0.5]], [D], [N], 1.0, servers=[c, 1])
    # Little's law for both classes; closed cycle
    np.testing.assert_allclose(r.queue_length, r.throughput[:, None] * r.residence_time, rtol=1e-10)
    assert r.queue_length[1].sum() + r.throughput[1] * 1.0 == pytest.approx(N, rel=1e-10)
    # no open load: the closed class alone
    if lam == 0.0:
        ref = mva(D, N, think_time=1.0, servers=[c, 1])
        assert r.throughput[1] == pytest.approx(ref.throughput, rel=1e-11)


def test_mixed_single_server_path_unchanged():
    # Lazowska et al. (1984) p. 148 example through the multi-server path: a third,
    # unvisited 2-server station must not change anything (exact: [[4, 15], [5, 14]] / 19)
    r = mixed_network([1.0, 0.5], [[0.25, 1 / 6, 0.0], [0.5, 1.0, 0.0]],
                      [[0.5, 1.0, 0.0], [1.0, 4 / 3, 0.0]], [1, 1], servers=[1, 1, 2])
    np.testing.assert_allclose(r.queue_length[2:, :2] * 19, [[4, 15], [5, 14]], rtol=1e-12)


def test_mixed_saturated_multiserver_station_warns():
    from zmodel.queueing import SaturationWarning

    with pytest.warns(SaturationWarning):
        r = mixed_network([2.5], [[1.0, 0.1]], [[0.5, 0.5]], [2], servers=[2, 1])
    assert math.isinf(r.residence_time[0, 0]) and r.throughput[1] == 0.0


# --------------------------------------------------------------------------- bounds

from zmodel.queueing import asymptotic_bounds  # noqa: E402
from zmodel.queueing.multiclass import bottleneck_mixes, multiclass_bounds  # noqa: E402


@settings(max_examples=40, deadline=None)
@given(D=st.lists(st.lists(st.floats(0.0, 2.0), min_size=3, max_size=3), min_size=2, max_size=2),
       N=st.lists(st.integers(0, 6), min_size=2, max_size=2),
       Z=st.floats(0.0, 3.0), c=st.sampled_from([1, 2, 3, math.inf]),
       method=st.sampled_from(["asymptotic", "balanced job"]))
def test_exact_mva_inside_multiclass_bounds(D, N, Z, c, method):
    D = np.array(D) + 0.01
    b = multiclass_bounds(D, N, Z, servers=[c, 1, 1], method=method)
    e = mva_multiclass(D, N, Z, servers=[c, 1, 1])
    assert np.all(b.throughput_lower <= e.throughput * (1 + 1e-12) + 1e-15)
    assert np.all(e.throughput <= b.throughput_upper * (1 + 1e-12) + 1e-15)
    assert np.all(b.response_time_lower <= e.response_time * (1 + 1e-12) + 1e-12)
    assert np.all(e.response_time <= b.response_time_upper * (1 + 1e-12) + 1e-12)


def test_one_class_asymptotic_equals_single_class():
    b = multiclass_bounds([[0.5, 1.0, 0.2]], [7], 2.0)
    s = asymptotic_bounds([0.5, 1.0, 0.2], population=7, think_time=2.0)
    assert b.throughput_lower[0] == pytest.approx(s.throughput_lower, rel=1e-15)
    assert b.throughput_upper[0] == pytest.approx(s.throughput_upper, rel=1e-15)
    assert b.response_time_lower[0] == pytest.approx(s.response_time_lower, rel=1e-15)


def test_multiclass_bounds_hand_values():
    # classes share one station of demand 1 s each, N = (1, 1), no think time:
    # lower X_c = 1/(N D) = 1/2, upper = min(1/D, (1 - 1/2)/1) = 1/2 -> exact (1/2 each)
    b = multiclass_bounds([[1.0], [1.0]], [1, 1])
    np.testing.assert_allclose(b.throughput_lower, [0.5, 0.5])
    np.testing.assert_allclose(b.throughput_upper, [0.5, 0.5])


def test_bottleneck_sectors_hand_example():
    # L_0 = 2g + (1-g), L_1 = g + 2(1-g) meet at g* = 1/2: f_0 = 1/(1+0.5) = 2/3, f_1 = 1/3
    r = bottleneck_mixes([[2.0, 1.0, 0.1], [1.0, 2.0, 0.1]])
    np.testing.assert_allclose(r.beta_low, [0, 1 / 3, 2 / 3])
    np.testing.assert_allclose(r.beta_high, [1 / 3, 2 / 3, 1])
    assert r.stations == ((1,), (0, 1), (0,))
    assert r.common.tolist() == [False, True, False]


def test_bottleneck_sectors_agree_with_exact_mva_at_large_population():
    # asymmetric demands and a 2-server station; the sector boundaries must separate
    # population mixes where both stations saturate from those where one does
    D = np.array([[3.0, 1.0, 0.4], [1.0, 1.5, 0.3]])
    servers = [2, 1, 1]
    r = bottleneck_mixes(D, servers)
    sector = int(np.argmax(r.common))
    i, j = r.stations[sector]
    lo, hi = r.beta_low[sector], r.beta_high[sector]
    N = 900

    def util(beta):
        n1 = int(round(beta * N))
        e = mva_multiclass(D, [n1, N - n1], 0.0, servers=servers)
        return e.utilization.sum(axis=0)

    mid = util(0.5 * (lo + hi))
    assert mid[i] > 0.99 and mid[j] > 0.99
    left, right = util(lo - 0.08), util(hi + 0.08)
    assert min(left[i], left[j]) < 0.97 and max(left[i], left[j]) > 0.99
    assert min(right[i], right[j]) < 0.97 and max(right[i], right[j]) > 0.99


def test_bounds_bad_input():
    with pytest.raises(ValueError, match="method must be 'asymptotic' or 'balanced job'"):
        multiclass_bounds([[1.0]], [1], method="bjb")
    with pytest.raises(ValueError, match="populations must have one entry per class"):
        multiclass_bounds([[1.0], [1.0]], [1, 2, 3])
    with pytest.raises(ValueError, match=r"service_demands must have shape \(2, stations\)"):
        bottleneck_mixes([[1.0, 2.0]])
