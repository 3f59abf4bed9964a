"""Tests of zmodel.queueing.mixed: mixed open/closed networks."""
import itertools
import math
import warnings
from fractions import Fraction as F

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from zmodel.queueing import SaturationWarning, mixed_network, mva_multiclass, open_multiclass
from zmodel.queueing.mixed import MixedNetworkResult


def exact_multiclass_mva(d, pops, z=None):
    """Exact multi-class MVA (Reiser & Lavenberg 1980) in Fractions for single-server stations."""
    c_n, k_n = len(d), len(d[0])
    z = z or [F(0)] * c_n
    q = {}
    x_fin = r_fin = None
    for n in itertools.product(*(range(p + 1) for p in pops)):
        if sum(n) == 0:
            q[n] = [F(0)] * k_n
            continue
        r = [[F(0)] * k_n for _ in range(c_n)]
        x = [F(0)] * c_n
        for c in range(c_n):
            if n[c] == 0:
                continue
            prev = q[tuple(v - (i == c) for i, v in enumerate(n))]
            r[c] = [d[c][k] * (1 + prev[k]) for k in range(k_n)]
            x[c] = F(n[c]) / (z[c] + sum(r[c]))
        q[n] = [sum(x[c] * r[c][k] for c in range(c_n)) for k in range(k_n)]
        x_fin, r_fin = x, r
    return x_fin, r_fin


def exact_mixed(lam, d_open, d_closed, pops):
    """QSP section 7.4.3 mixed algorithm in Fractions (single-server stations)."""
    k_n = len(d_closed[0])
    u = [sum(l * row[k] for l, row in zip(lam, d_open)) for k in range(k_n)]
    d_star = [[row[k] / (1 - u[k]) for k in range(k_n)] for row in d_closed]
    x, r = exact_multiclass_mva(d_star, pops)
    q_cl = [[x[c] * r[c][k] for k in range(k_n)] for c in range(len(pops))]
    qk = [sum(q_cl[c][k] for c in range(len(pops))) for k in range(k_n)]
    r_open = [[row[k] * (1 + qk[k]) / (1 - u[k]) for k in range(k_n)] for row in d_open]
    return x, r, q_cl, r_open


# ----------------------------------------------------------------- published examples

def test_lazowska_p148_mixed_example():
    # Lazowska et al., Quantitative System Performance (1984), section 7.4.3, p. 148
    # (page as cited by the GNU Octave `queueing` package test of qnmix): open
    # classes with rates 1 and 1/2 /s, closed classes with one job each, two stations.
    # Published closed queue lengths: 4/19, 15/19 (class 3) and 5/19, 14/19 (class 4).
    d_open = [[F(1, 4), F(1, 6)], [F(1, 2), F(1)]]
    d_closed = [[F(1, 2), F(1)], [F(1), F(4, 3)]]
    r = mixed_network([1.0, 0.5], np.array(d_open, float), np.array(d_closed, float), [1, 1])
    np.testing.assert_allclose(r.queue_length[2:], [[4 / 19, 15 / 19], [5 / 19, 14 / 19]], rtol=1e-13)
    # independent exact recomputation of every metric
    x, res, q_cl, r_open = exact_mixed([F(1), F(1, 2)], d_open, d_closed, [1, 1])
    assert x == [F(3, 19), F(2, 19)]
    np.testing.assert_allclose(r.throughput, [1.0, 0.5] + [float(v) for v in x], rtol=1e-13)
    np.testing.assert_allclose(r.residence_time[:2], np.array(r_open, float), rtol=1e-13)
    np.testing.assert_allclose(r.residence_time[2:], np.array(res, float), rtol=1e-13)
    np.testing.assert_allclose(r.utilization[:2], [[0.25, 1 / 6], [0.25, 0.5]], rtol=1e-14)
    np.testing.assert_allclose(r.utilization[2:], np.array(x, float)[:, None] * np.array(d_closed, float),
                               rtol=1e-13)


def test_bolch_example_8_6_mixed():
    # Bolch, Greiner, de Meer, Trivedi, Queueing Networks and Markov Chains (2nd ed.),
    # Example 8.6 (p. 345 per the GNU Octave `queueing` test of qnmix; page not
    # verified): two open classes (0.5, 0.25 /s) and two closed classes of one job,
    # two single-server stations, visits V and service times S below. Printed
    # (per-visit response times): closed R = [[4.829, 6.951], [7.727, 11.636]],
    # closed K = [[0.582, 0.418], [0.624, 0.376]], throughputs 0.120 and 0.081,
    # open R = [[8.822, 10.766], [17.645, 28.710]].
    v = np.array([[2, 1], [2.5, 1.5], [1, 0.5], [1, 0.4]])
    s = np.array([[0.4, 0.6], [0.8, 1.6], [0.3, 0.5], [0.5, 0.8]])
    d = v * s
    r = mixed_network([0.5, 0.25], d[:2], d[2:], [1, 1])
    per_visit = r.residence_time / v
    np.testing.assert_allclose(per_visit[2:], [[4.829, 6.951], [7.727, 11.636]], atol=5e-4)
    # the exact K_3,1 = 0.581498 is printed as 0.582 (the hand computation rounds its
    # intermediate values), so these and the open response times below compare to one
    # unit of the last printed digit; the exact recomputation at the end is tight
    np.testing.assert_allclose(r.queue_length[2:], [[0.582, 0.418], [0.624, 0.376]], atol=1e-3)
    np.testing.assert_allclose(r.throughput[2:], [0.120, 0.081], atol=5e-4)
    np.testing.assert_allclose(per_visit[:2], [[8.822, 10.766], [17.645, 28.710]], atol=1e-3)
    np.testing.assert_allclose(r.utilization[:2], [[0.4, 0.3], [0.5, 0.6]], atol=5e-4)
    # exact recomputation
    frac = lambda a: [[F(str(x)) for x in row] for row in a]  # noqa: E731
    x, res, q_cl, r_open = exact_mixed([F(1, 2), F(1, 4)], frac(d[:2]), frac(d[2:]), [1, 1])
    np.testing.assert_allclose(r.queue_length[2:], np.array(q_cl, float), rtol=1e-12)
    np.testing.assert_allclose(r.residence_time[:2], np.array(r_open, float), rtol=1e-12)


def test_schwetman_1982_mixed_example():
    # H. D. Schwetman, "Implementing the Mean Value Algorithm for the Solution of
    # Queueing Network Models", Purdue CSD-TR-355, 1982, fig. 10 p. 26 (as cited by
    # the GNU Octave `queueing` test of qnmix): one open class (1 /s, D = 0.25 s at
    # station 1) and one closed class of 3 jobs (D = 0.25, 0.10 s). Printed:
    # U_open = 0.25, open R = 1.201, closed R = 0.885 and 0.135.
    r = mixed_network([1.0], [[0.25, 0.0]], [[0.25, 0.10]], [3])
    assert r.utilization[0, 0] == pytest.approx(0.25, abs=5e-4)
    assert r.throughput[0] == 1.0
    assert r.residence_time[0, 0] == pytest.approx(1.201, abs=5e-4)
    np.testing.assert_allclose(r.residence_time[1], [0.885, 0.135], atol=5e-4)
    x, res, q_cl, r_open = exact_mixed([F(1)], [[F(1, 4), F(0)]], [[F(1, 4), F(1, 10)]], [3])
    assert r.residence_time[0, 0] == pytest.approx(float(r_open[0][0]), rel=1e-13)
    np.testing.assert_allclose(r.residence_time[1], np.array(res[0], float), rtol=1e-13)


# ----------------------------------------------------------------- invariants

demands = st.lists(st.floats(0.01, 2.0), min_size=2, max_size=2)


@settings(max_examples=40, deadline=None)
@given(d_closed=st.lists(demands, min_size=1, max_size=3), data=st.data())
def test_zero_open_load_equals_closed_mva(d_closed, data):
    pops = data.draw(st.lists(st.integers(0, 4), min_size=len(d_closed), max_size=len(d_closed)))
    z = data.draw(st.floats(0.0, 5.0))
    r = mixed_network([0.0], [[0.3, 0.7]], d_closed, pops, think_times=z)
    ref = mva_multiclass(d_closed, pops, z)
    np.testing.assert_allclose(r.throughput[1:], ref.throughput, rtol=1e-13)
    np.testing.assert_allclose(r.residence_time[1:], ref.residence_time, rtol=1e-13)
    np.testing.assert_allclose(r.queue_length[1:], ref.queue_length, rtol=1e-13, atol=1e-300)
    # the zero-rate open class sees the closed queue: R = D (1 + Q_closed)
    np.testing.assert_allclose(r.residence_time[0], np.array([0.3, 0.7]) * (1 + ref.queue_length.sum(0)),
                               rtol=1e-13)
    no_open = mixed_network([], np.zeros((0, 2)), d_closed, pops, think_times=z)
    np.testing.assert_allclose(no_open.throughput, ref.throughput, rtol=1e-13)


@settings(max_examples=40, deadline=None)
@given(d_open=st.lists(demands, min_size=1, max_size=3), data=st.data())
def test_no_closed_jobs_equals_open_multiclass(d_open, data):
    d = np.array(d_open)
    frac = data.draw(st.floats(0.0, 0.95))
    lam = np.full(len(d_open), frac / d.sum(axis=0).max())
    r = mixed_network(lam, d, [[0.5, 0.5]], [0])
    ref = open_multiclass(lam, d)
    np.testing.assert_allclose(r.residence_time[:-1], ref.residence_time, rtol=1e-13)
    np.testing.assert_allclose(r.queue_length[:-1], ref.queue_length, rtol=1e-13, atol=1e-300)
    empty = mixed_network(lam, d, np.zeros((0, 2)), [])
    np.testing.assert_allclose(empty.residence_time, ref.residence_time, rtol=1e-13)


@settings(max_examples=40, deadline=None)
@given(d_open=st.lists(demands, min_size=1, max_size=2), d_closed=st.lists(demands, min_size=1, max_size=2),
       data=st.data())
def test_littles_law_and_utilization_law(d_open, d_closed, data):
    d_o = np.array(d_open)
    frac = data.draw(st.floats(0.0, 0.9))
    lam = np.full(len(d_open), frac / d_o.sum(axis=0).max())
    pops = data.draw(st.lists(st.integers(0, 3), min_size=len(d_closed), max_size=len(d_closed)))
    r = mixed_network(lam, d_o, d_closed, pops)
    np.testing.assert_allclose(r.queue_length, r.throughput[:, None] * r.residence_time, rtol=1e-13,
                               atol=1e-300)
    np.testing.assert_allclose(r.queue_length[len(lam):].sum(axis=1), pops, rtol=1e-12)
    d_all = np.vstack([d_o, d_closed])
    np.testing.assert_allclose(r.utilization, r.throughput[:, None] * d_all, rtol=1e-13)
    assert np.all(r.utilization.sum(axis=0) < 1)
    assert r.is_open.tolist() == [True] * len(lam) + [False] * len(pops)


def test_delay_station_and_frame():
    r = mixed_network([0.5], [[0.4, 2.0]], [[0.5, 10.0]], [2], servers=[1, math.inf])
    assert r.residence_time[0, 1] == 2.0 and r.residence_time[1, 1] == 10.0
    assert r.utilization[:, 1].tolist() == [0.0, 0.0]
    ref = mva_multiclass([[0.5 / 0.8, 10.0]], [2], servers=[1, math.inf])
    assert r.throughput[1] == pytest.approx(ref.throughput[0], rel=1e-13)
    frame = r.to_frame()
    assert isinstance(r, MixedNetworkResult)
    assert len(frame) == 4 and {"class", "station", "is_open", "residence_time"} <= set(frame.columns)


def test_saturation_policy():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        r = mixed_network([1.0], [[1.2, 0.1]], [[0.5, 0.5], [0.0, 0.5]], [2, 1])
    assert len([w for w in caught if issubclass(w.category, SaturationWarning)]) == 1
    assert r.residence_time[0, 0] == np.inf and r.queue_length[0, 0] == np.inf
    # closed class 1 visits the saturated station: trapped there
    assert r.throughput[1] == 0.0 and r.response_time[1] == np.inf
    assert r.queue_length[1].tolist() == [2.0, 0.0]
    # closed class 2 avoids it and is solved by MVA at the other station
    stretched = 0.5 / (1 - 0.1)
    assert r.throughput[2] == pytest.approx(1 / stretched, rel=1e-13)
    # and the open class sees class 2's queue at station 2
    assert r.residence_time[0, 1] == pytest.approx(0.1 * (1 + 1) / 0.9, rel=1e-13)


# ----------------------------------------------------------------- errors

def test_errors():
    with pytest.raises(ValueError, match="open_demands must have one row per open class"):
        mixed_network([1.0, 2.0], [[0.1, 0.1]], [[0.1, 0.1]], [1])
    with pytest.raises(ValueError, match="open_demands and closed_demands must have the same number of stations"):
        mixed_network([1.0], [[0.1, 0.1, 0.1]], [[0.1, 0.1]], [1])
    with pytest.raises(ValueError, match=r"closed_demands must have shape \(classes, stations\)"):
        mixed_network([1.0], [[0.1, 0.1]], [0.1, 0.1], [1])
    with pytest.raises(ValueError, match="populations must have one entry per closed class"):
        mixed_network([1.0], [[0.1, 0.1]], [[0.1, 0.1]], [1, 2])
    with pytest.raises(ValueError, match="populations must be an integer"):
        mixed_network([1.0], [[0.1, 0.1]], [[0.1, 0.1]], [1.5])
    with pytest.raises(ValueError, match="think_times must be a scalar or have one entry per closed class"):
        mixed_network([1.0], [[0.1, 0.1]], [[0.1, 0.1]], [1], think_times=[1.0, 2.0])
    with pytest.raises(ValueError, match="servers must be a positive integer or math.inf"):
        mixed_network([1.0], [[0.1, 0.1]], [[0.1, 0.1]], [1], servers=[1, 2.5])
    with pytest.raises(ValueError, match="open_arrival_rates must be non-negative"):
        mixed_network([-1.0], [[0.1, 0.1]], [[0.1, 0.1]], [1])
    with pytest.raises(ValueError, match="closed_demands must be non-negative"):
        mixed_network([1.0], [[0.1, 0.1]], [[0.1, -0.1]], [1])
    with pytest.raises(ValueError, match="a mixed network must have at least one station"):
        mixed_network([], np.zeros((0, 0)), np.zeros((0, 0)), [])


def test_empty_closed_class_at_a_saturated_station_is_trapped_as_documented():
    # The documented policy: a closed class visiting a saturated station has throughput 0
    # and an infinite residence time there, whatever its population (an empty class's
    # response time is what one of its jobs would see: it would never leave).
    # Open class: lambda = 20/s on station 0 with D = 0.05 s -> U = 1.0, saturated.
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = mixed_network([20.0], [[0.05, 0.0]], [[0.01, 0.02], [0.0, 0.03]], [0, 2])
    x = np.asarray(r.throughput)
    resid = np.asarray(r.residence_time)
    q = np.asarray(r.queue_length)
    assert x[1] == 0.0 and np.isinf(resid[1, 0]) and resid[1, 1] == 0.0 and q[1].sum() == 0.0
    # the other closed class avoids station 0: plain MVA with N = 2 at one 0.03 s station
    # (no think time) completes 1/0.03 = 33.33/s with both jobs queued there
    assert x[2] == pytest.approx(1 / 0.03, rel=1e-12)
    assert q[2, 1] == pytest.approx(2.0, rel=1e-12)


def test_saturated_open_class_carries_its_bottleneck_capacity_by_hand():
    # Open class 0: lambda = 100/s, D = (0.01, 0.02) s -> U = (1, 2): station 1 saturates
    # (twice over), the class carries 100 / 2 = 50/s, so its utilizations are
    # (50 x 0.01, 50 x 0.02) = (0.5, 1.0). Open class 1 never visits station 1 (D = 0 there):
    # its residence time there is 0, not 0 x inf; at station 0 (saturated too, U = 1 + 0.5)
    # it is trapped: inf. Closed class: N = 3 at (0.02, 0.01) visits both saturated stations.
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = mixed_network([100.0, 50.0], [[0.01, 0.02], [0.01, 0.0]], [[0.02, 0.01]], [3])
    u = np.asarray(r.utilization)
    resid = np.asarray(r.residence_time)
    # class 0: its most loaded saturated station has U = 2 -> carries 50/s
    assert np.asarray(r.throughput)[0] == pytest.approx(50.0, rel=1e-12)
    np.testing.assert_allclose(u[0], [0.5, 1.0], rtol=1e-12)
    # class 1: saturated station 0 has U = 1.5 (1.0 + 0.5) -> carries 50 / 1.5
    assert np.asarray(r.throughput)[1] == pytest.approx(50.0 / 1.5, rel=1e-12)
    np.testing.assert_allclose(u[1], [50.0 / 1.5 * 0.01, 0.0], rtol=1e-12)
    assert resid[1, 1] == 0.0 and np.isinf(resid[1, 0])
