"""Tests of zmodel.queueing.open_networks: jackson_network and open_multiclass."""
import math
import warnings
from fractions import Fraction as F

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from zmodel.queueing import SaturationWarning, jackson_network, mm1, mmc, open_multiclass
from zmodel.queueing.open_networks import OpenMulticlassResult, OpenNetworkResult


def solve_traffic_exact(gamma, routing):
    """lambda = gamma + P^T lambda by Gauss-Jordan elimination in Fractions."""
    k = len(gamma)
    a = [[F(int(i == j)) - F(routing[j][i]) for j in range(k)] + [F(gamma[i])] for i in range(k)]
    for col in range(k):
        piv = next(r for r in range(col, k) if a[r][col] != 0)
        a[col], a[piv] = a[piv], a[col]
        a[col] = [v / a[col][col] for v in a[col]]
        for r in range(k):
            if r != col and a[r][col] != 0:
                a[r] = [vr - a[r][col] * vc for vr, vc in zip(a[r], a[col])]
    return [a[i][k] for i in range(k)]


def erlang_c_exact(c, a):
    top = a**c / math.factorial(c)
    rho = a / c
    return top / ((1 - rho) * sum(a**j / F(math.factorial(j)) for j in range(c)) + top)


# ----------------------------------------------------------------- published examples

def test_bolch_example_7_4_jackson_network():
    # Bolch, Greiner, de Meer, Trivedi, Queueing Networks and Markov Chains (2nd ed.),
    # Example 7.4 (p. 287 per the GNU Octave `queueing` package test of qnos; page not
    # verified), single-server stations: printed X = (20, 10, 10, 4),
    # U = (0.8, 0.3, 0.6, 0.2), R = (0.2, 0.043, 0.15, 0.0625), Q = (4, 0.429, 1.5, 0.25).
    routing = [[0, F(1, 2), F(1, 2), 0], [1, 0, 0, 0], [F(3, 5), 0, 0, 0], [1, 0, 0, 0]]
    s = [F(1, 25), F(3, 100), F(3, 50), F(1, 20)]
    gamma = [0, 0, 0, 4]
    r = jackson_network(gamma, np.array(routing, dtype=float), np.array(s, dtype=float))
    np.testing.assert_allclose(r.arrival_rate, [20, 10, 10, 4], atol=5e-5)
    np.testing.assert_allclose(r.utilization, [0.8, 0.3, 0.6, 0.2], atol=5e-3)
    np.testing.assert_allclose(r.station_response_time, [0.2, 0.043, 0.15, 0.0625], atol=5e-4)
    np.testing.assert_allclose(r.queue_length, [4, 0.429, 1.5, 0.25], atol=5e-4)
    # independent exact recomputation: traffic equations and M/M/1 per station
    lam = solve_traffic_exact(gamma, routing)
    q_exact = [lk * sk / (1 - lk * sk) for lk, sk in zip(lam, s)]
    np.testing.assert_allclose(r.queue_length, [float(v) for v in q_exact], rtol=1e-13)
    assert r.response_time == pytest.approx(float(sum(q_exact) / 4), rel=1e-13)
    assert r.throughput == 4.0


def test_lazowska_p113_central_server_as_jackson_network():
    # Lazowska et al., Quantitative System Performance (1984), p. 113 (single-class
    # open model; page as cited by the GNU Octave `queueing` package): lambda = 0.3 /s,
    # visits V = (121, 70, 50), service times S = (0.005, 0.03, 0.027) s. Printed:
    # CPU utilization 0.182, CPU throughput 36.3 /s, CPU queue length 0.222.
    # Built here as a central-server Jackson network whose routing yields those visits.
    routing = np.array([[0, 70 / 121, 50 / 121], [1, 0, 0], [1, 0, 0]])
    r = jackson_network([0.3, 0.0, 0.0], routing, [0.005, 0.03, 0.027])
    np.testing.assert_allclose(r.visit_ratio, [121, 70, 50], rtol=1e-12)
    # exact U = 0.3 * 121 * 0.005 = 0.1815, which the book rounds (half up) to 0.182
    assert r.utilization[0] == pytest.approx(0.182, abs=5.0001e-4)
    assert r.utilization[0] == pytest.approx(0.1815, rel=1e-12)
    assert r.arrival_rate[0] == pytest.approx(36.3, abs=5e-2)
    assert r.queue_length[0] == pytest.approx(0.222, abs=5e-4)
    # the same model from demands D = V S with open_multiclass (one class)
    m = open_multiclass([0.3], [[121 * 0.005, 70 * 0.03, 50 * 0.027]])
    np.testing.assert_allclose(m.queue_length[0], r.queue_length, rtol=1e-12)
    np.testing.assert_allclose(m.residence_time[0], r.residence_time, rtol=1e-12)
    assert m.response_time[0] == pytest.approx(r.response_time, rel=1e-12)


def test_lazowska_p138_open_multiclass():
    # Lazowska et al. (1984), p. 138 (open multiple-class example, as cited by the GNU
    # Octave `queueing` package): demands D = [[1, 3], [2, 4]] s, arrival rates
    # 3/19 and 2/19 /s. Printed: U_1,1 = 0.158, R_1,1 = 1.58 s (residence time),
    # Q_1,1 = 0.25. Exact: U_1 = 7/19, R_1,1 = 1/(1 - 7/19) = 19/12, R_1,2 = 3/(1 - 17/19) = 57/2.
    r = open_multiclass([3 / 19, 2 / 19], [[1.0, 3.0], [2.0, 4.0]])
    assert r.utilization[0, 0] == pytest.approx(0.158, abs=5e-4)
    assert r.residence_time[0, 0] == pytest.approx(1.58, abs=5e-3)
    assert r.queue_length[0, 0] == pytest.approx(0.25, abs=5e-3)
    assert r.residence_time[0, 0] == pytest.approx(float(F(19, 12)), rel=1e-14)
    assert r.residence_time[0, 1] == pytest.approx(float(F(57, 2)), rel=1e-13)
    assert r.utilization[1, 0] == pytest.approx(4 / 19, rel=1e-14)


def test_bolch_example_7_7_multiclass_with_routing():
    # Bolch et al. (2nd ed.), Example 7.7 (p. 304 per the GNU Octave `queueing` test of
    # qnom; page not verified): two classes, three single-server stations, class routing
    # below, one arrival per second of each class at station 1. Printed visit ratios
    # (per class arrival) 3.333 2.292 1.917 / 10 8.049 8.415, station utilizations
    # 0.833 0.442 0.354, and K_11 = K_21 = 2.5.
    p1 = np.array([[0, 0.4, 0.3], [0.6, 0, 0.4], [0.5, 0.5, 0]])
    p2 = np.array([[0, 0.3, 0.6], [0.7, 0, 0.3], [0.4, 0.6, 0]])
    s = np.array([[1 / 8, 1 / 12, 1 / 16], [1 / 24, 1 / 32, 1 / 36]])
    v1 = jackson_network([1.0, 0, 0], p1, s[0]).visit_ratio
    v2 = jackson_network([1.0, 0, 0], p2, s[1]).visit_ratio
    np.testing.assert_allclose(v1, [3.333, 2.292, 1.917], atol=5e-4)
    np.testing.assert_allclose(v2, [10, 8.049, 8.415], atol=5e-4)
    r = open_multiclass([1.0, 1.0], np.vstack([v1, v2]) * s)
    np.testing.assert_allclose(r.utilization.sum(axis=0), [0.833, 0.442, 0.354], atol=5e-4)
    np.testing.assert_allclose(r.queue_length[:, 0], [2.5, 2.5], atol=5e-4)
    # exact: station 1 has U = 5/12 + 5/12 = 5/6, so each class holds (5/12)/(1/6) = 5/2
    v1_exact = solve_traffic_exact([1, 0, 0], [[0, F(2, 5), F(3, 10)], [F(3, 5), 0, F(2, 5)],
                                               [F(1, 2), F(1, 2), 0]])
    assert v1_exact[0] == F(10, 3)
    np.testing.assert_allclose(v1, [float(v) for v in v1_exact], rtol=1e-13)


# ----------------------------------------------------------------- invariants

stations = st.integers(1, 5)


@st.composite
def open_networks(draw):
    k = draw(stations)
    raw = np.array(draw(st.lists(st.lists(st.floats(0, 1), min_size=k, max_size=k), min_size=k, max_size=k)))
    leave = np.array(draw(st.lists(st.floats(0.05, 1), min_size=k, max_size=k)))
    routing = raw / np.maximum(raw.sum(axis=1, keepdims=True), 1e-12) * (1 - leave)[:, None]
    gamma = np.array(draw(st.lists(st.floats(0, 2), min_size=k, max_size=k)))
    gamma[draw(st.integers(0, k - 1))] += 0.5
    servers = np.array(draw(st.lists(st.sampled_from([1, 2, 3, 8, math.inf]), min_size=k, max_size=k)))
    lam = np.linalg.solve(np.eye(k) - routing.T, gamma)
    util = np.array(draw(st.lists(st.floats(0.01, 0.95), min_size=k, max_size=k)))
    s = np.where(lam > 0, util * np.where(np.isinf(servers), 1.0, servers) / np.maximum(lam, 1e-300), 1.0)
    return gamma, routing, s, servers


@settings(max_examples=60, deadline=None)
@given(net=open_networks())
def test_littles_law_and_utilization_law(net):
    gamma, routing, s, servers = net
    r = jackson_network(gamma, routing, s, servers)
    np.testing.assert_allclose(r.arrival_rate, np.linalg.solve(np.eye(len(gamma)) - routing.T, gamma),
                               rtol=1e-10)
    np.testing.assert_allclose(r.queue_length, r.arrival_rate * r.station_response_time, rtol=1e-12)
    expected_u = np.where(np.isinf(servers), 0.0, r.arrival_rate * s / np.where(np.isinf(servers), 1, servers))
    np.testing.assert_allclose(r.utilization, expected_u, rtol=1e-12)
    assert np.all((r.utilization >= 0) & (r.utilization < 1))
    # flow balance: what enters leaves
    out = r.arrival_rate * (1 - routing.sum(axis=1))
    assert out.sum() == pytest.approx(gamma.sum(), rel=1e-10)
    # network Little's law and residence times
    assert r.response_time == pytest.approx(r.queue_length.sum() / gamma.sum(), rel=1e-12)
    assert r.residence_time.sum() == pytest.approx(r.response_time, rel=1e-10)
    np.testing.assert_allclose(r.station_response_time,
                               r.waiting_time + np.broadcast_to(s, r.waiting_time.shape), rtol=1e-12)


@settings(max_examples=60, deadline=None)
@given(lam=st.floats(0.01, 50), util=st.floats(0.0, 0.99), c=st.integers(1, 30))
def test_single_station_equals_mmc(lam, util, c):
    s = util * c / lam
    if s <= 0:
        s = 1e-3
    r = jackson_network([lam], [[0.0]], [s], servers=c)
    ref = mmc(lam, s, c)
    assert r.queue_length[0] == pytest.approx(ref.queue_length, rel=1e-10)
    assert r.station_response_time[0] == pytest.approx(ref.response_time, rel=1e-10)
    assert r.waiting_probability[0] == pytest.approx(ref.waiting_probability, rel=1e-10, abs=1e-300)
    assert r.utilization[0] == pytest.approx(ref.utilization, rel=1e-12)
    assert r.response_time == pytest.approx(ref.response_time, rel=1e-10)


@settings(max_examples=60, deadline=None)
@given(lam=st.fractions(min_value=F(1, 10), max_value=10, max_denominator=20),
       rhos=st.lists(st.fractions(min_value=F(1, 100), max_value=F(99, 100), max_denominator=100),
                     min_size=1, max_size=6))
def test_tandem_is_sum_of_mm1(lam, rhos):
    k = len(rhos)
    s = [rho / lam for rho in rhos]
    routing = np.eye(k, k=1)
    gamma = np.zeros(k)
    gamma[0] = float(lam)
    r = jackson_network(gamma, routing, [float(v) for v in s])
    exact = sum(sk / (1 - lam * sk) for sk in s)
    assert r.response_time == pytest.approx(float(exact), rel=1e-12)
    for k_, sk in enumerate(s):
        ref = mm1(float(lam), float(sk))
        assert r.queue_length[k_] == pytest.approx(ref.queue_length, rel=1e-12)


@settings(max_examples=40, deadline=None)
@given(c=st.integers(1, 6), rho=st.fractions(min_value=F(1, 20), max_value=F(19, 20), max_denominator=40),
       n_cls=st.integers(1, 3))
def test_multiclass_multiserver_total_equals_mmc(c, rho, n_cls):
    # FCFS M/M/c with a class-independent service time: the classes share one M/M/c
    # queue, so the total queue length is the M/M/c one with the pooled load (exact).
    shares = [F(i + 1, sum(range(1, n_cls + 1))) for i in range(n_cls)]
    a = rho * c
    lam = [a * sh for sh in shares]                     # service time 1, so D = 1
    r = open_multiclass([float(v) for v in lam], np.ones((n_cls, 1)), servers=c)
    cw = erlang_c_exact(c, a)
    q_exact = a + cw * rho / (1 - rho)
    assert r.queue_length.sum() == pytest.approx(float(q_exact), rel=1e-12)
    np.testing.assert_allclose(r.queue_length[:, 0], [float(q_exact * sh) for sh in shares], rtol=1e-12)
    np.testing.assert_allclose(r.utilization.sum(), float(rho), rtol=1e-12)


@settings(max_examples=50, deadline=None)
@given(d=st.lists(st.lists(st.fractions(min_value=0, max_value=5, max_denominator=50), min_size=3, max_size=3),
                  min_size=1, max_size=4),
       frac=st.fractions(min_value=0, max_value=F(95, 100), max_denominator=100))
def test_single_server_textbook_form_exact(d, frac):
    # QSP: U_k = sum_c lambda_c D_ck, R_ck = D_ck / (1 - U_k), in exact Fractions
    tot = [sum(row[k] for row in d) for k in range(3)]
    if max(tot) == 0:
        return
    lam = frac / max(tot)
    u = [lam * t for t in tot]
    r = open_multiclass([float(lam)] * len(d), np.array(d, dtype=float))
    for c, row in enumerate(d):
        for k in range(3):
            assert r.residence_time[c, k] == pytest.approx(float(row[k] / (1 - u[k])), rel=1e-12, abs=1e-300)
        assert r.response_time[c] == pytest.approx(float(sum(row[k] / (1 - u[k]) for k in range(3))), rel=1e-12)


def test_open_multiclass_delay_station_and_batches():
    lam = np.array([[0.5, 0.2], [0.1, 0.1]])
    d = np.array([[0.4, 2.0], [1.0, 3.0]])
    r = open_multiclass(lam, d, servers=[1, math.inf])
    assert r.residence_time.shape == (2, 2, 2)
    np.testing.assert_allclose(r.residence_time[..., 1], np.broadcast_to(d[:, 1], (2, 2)))
    np.testing.assert_array_equal(r.utilization[..., 1], 0.0)
    for b in range(2):
        one = open_multiclass(lam[b], d, servers=[1, math.inf])
        np.testing.assert_allclose(one.queue_length, r.queue_length[b], rtol=1e-15)
    np.testing.assert_allclose(r.queue_length, lam[..., None] * r.residence_time, rtol=1e-14)
    assert isinstance(r, OpenMulticlassResult)
    assert len(r.to_frame()) == 8


def test_jackson_batches_and_frame():
    s = np.array([[0.1, 0.2], [0.2, 0.1], [0.3, 0.3]])
    routing = [[0, 0.5], [0.2, 0]]
    r = jackson_network([1.0, 0.5], routing, s)
    assert r.queue_length.shape == (3, 2) and np.shape(r.response_time) == (3,)
    for b in range(3):
        one = jackson_network([1.0, 0.5], routing, s[b])
        np.testing.assert_allclose(one.queue_length, r.queue_length[b], rtol=1e-15)
        assert one.response_time == pytest.approx(r.response_time[b], rel=1e-15)
    frame = r.to_frame()
    assert len(frame) == 6 and {"batch", "station", "queue_length", "response_time"} <= set(frame.columns)
    assert isinstance(r, OpenNetworkResult)


def test_delay_station_in_jackson_network():
    r = jackson_network([2.0, 0.0], [[0, 1], [0, 0]], [0.1, 5.0], servers=[1, math.inf])
    assert r.station_response_time[1] == 5.0 and r.queue_length[1] == pytest.approx(10.0)
    assert r.utilization[1] == 0.0 and r.waiting_probability[1] == 0.0


def test_saturation_policy():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        r = jackson_network([1.0, 0.0], [[0, 1], [0, 0]], [0.5, 2.0])
    sat = [w for w in caught if issubclass(w.category, SaturationWarning)]
    assert len(sat) == 1 and "1 station entry saturated" in str(sat[0].message)
    assert r.utilization.tolist() == [0.5, 1.0]
    assert r.queue_length[1] == np.inf and r.station_response_time[1] == np.inf
    assert r.response_time == np.inf
    assert r.station_throughput[1] == pytest.approx(0.5)        # capacity 1/S
    assert r.throughput == pytest.approx(0.5)                    # 1 / max rho
    assert r.queue_length[0] == pytest.approx(1.0)               # unaffected upstream M/M/1
    with pytest.warns(SaturationWarning):
        m = open_multiclass([1.0, 1.0], [[0.6, 0.1], [0.6, 0.0]])
    assert m.utilization[:, 0].sum() == pytest.approx(1.0)
    assert np.all(np.isinf(m.response_time))
    np.testing.assert_allclose(m.throughput, [1 / 1.2, 1 / 1.2])


# ----------------------------------------------------------------- errors

def test_jackson_errors():
    ok = dict(arrival_rates=[1.0, 0.0], routing=[[0, 0.5], [0, 0]], service_times=[0.1, 0.1])
    with pytest.raises(ValueError, match="routing row sums must be <= 1"):
        jackson_network(**{**ok, "routing": [[0, 0.7], [0.6, 0.6]]})
    with pytest.raises(ValueError, match="routing must describe an open network"):
        jackson_network(**{**ok, "routing": [[0, 0.5], [0, 1.0]]})
    with pytest.raises(ValueError, match=r"routing must be a probability in \[0, 1\]"):
        jackson_network(**{**ok, "routing": [[0, 1.5], [0, 0]]})
    with pytest.raises(ValueError, match="routing must be non-negative"):
        jackson_network(**{**ok, "routing": [[0, -0.5], [0, 0]]})
    with pytest.raises(ValueError, match="arrival_rates must be non-negative"):
        jackson_network(**{**ok, "arrival_rates": [-1.0, 0.0]})
    with pytest.raises(ValueError, match="arrival_rates must have at least one positive entry"):
        jackson_network(**{**ok, "arrival_rates": [0.0, 0.0]})
    with pytest.raises(ValueError, match="arrival_rates must have at least one station"):
        jackson_network([], np.zeros((0, 0)), [])
    with pytest.raises(ValueError, match=r"routing must have shape \(\.\.\., K, K\)"):
        jackson_network(**{**ok, "routing": [[0, 0.5, 0], [0, 0, 0]]})
    with pytest.raises(ValueError, match="service_times must have one entry per station"):
        jackson_network(**{**ok, "service_times": [0.1, 0.1, 0.1]})
    with pytest.raises(ValueError, match="service_times must be positive"):
        jackson_network(**{**ok, "service_times": [0.1, 0.0]})
    with pytest.raises(ValueError, match="servers must be a positive integer or math.inf"):
        jackson_network(**ok, servers=[1, 1.5])


def test_open_multiclass_errors():
    with pytest.raises(ValueError, match=r"service_demands must have shape \(\.\.\., C, K\)"):
        open_multiclass([1.0, 2.0], [[0.1, 0.2]])
    with pytest.raises(ValueError, match="service_demands must be non-negative"):
        open_multiclass([1.0], [[0.1, -0.2]])
    with pytest.raises(ValueError, match="arrival_rates must be non-negative"):
        open_multiclass([-1.0], [[0.1, 0.2]])
    with pytest.raises(ValueError, match="service_demands must have at least 2 dimension"):
        open_multiclass([1.0], [0.1, 0.2])
    with pytest.raises(ValueError, match="service_demands must have at least one class and one station"):
        open_multiclass([1.0], np.zeros((1, 0)))
    with pytest.raises(ValueError, match="servers must be a scalar or have one entry per station"):
        open_multiclass([1.0], [[0.1, 0.2]], servers=[1, 1, 1])
