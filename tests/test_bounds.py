"""Tests of zmodel.queueing.bounds: asymptotic and balanced job bounds."""
import warnings
from fractions import Fraction as F

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from zmodel.queueing import SaturationWarning, asymptotic_bounds, balanced_job_bounds, mva
from zmodel.queueing.bounds import BoundsResult


def exact_mva(demands, n_max, z=F(0)):
    """Single-class exact MVA in Fractions (Reiser & Lavenberg 1980), X(n) and R(n), n = 1..n_max."""
    q = [F(0)] * len(demands)
    out = []
    for n in range(1, n_max + 1):
        r = [d * (1 + qk) for d, qk in zip(demands, q)]
        rt = sum(r)
        x = F(n) / (z + rt)
        q = [x * rk for rk in r]
        out.append((x, rt))
    return out


def aba_exact(d, n, z):
    dt, dm = sum(d), max(d)
    return (F(n) / (n * dt + z), min(1 / dm, F(n) / (dt + z)), max(dt, n * dm - z), n * dt)


def bjb_exact(d, n, z):
    dt, dm = sum(d), max(d)
    da = dt / len(d)
    return (F(n) / (dt + z + (n - 1) * dm / (1 + z / (n * dt))),
            min(1 / dm, F(n) / (dt + z + (n - 1) * da / (1 + z / dt))),
            max(n * dm - z, dt + (n - 1) * da / (1 + z / dt)),
            dt + (n - 1) * dm / (1 + z / (n * dt)))


demand_lists = st.lists(st.fractions(min_value=F(1, 100), max_value=10, max_denominator=100),
                        min_size=1, max_size=5)
think = st.fractions(min_value=0, max_value=50, max_denominator=10)


def _tuple(b):
    return (b.throughput_lower, b.throughput_upper, b.response_time_lower, b.response_time_upper)


# ----------------------------------------------------------------- published examples

def test_bolch_example_9_6_asymptotic_bounds():
    # Bolch, Greiner, de Meer, Trivedi, Queueing Networks and Markov Chains (2nd ed.),
    # Example 9.6 (p. 913 per the GNU Octave `queueing` package test of qncsaba; page
    # not verified): N = 20 terminals, Z = 120 s, demands 2 x 4.6 s and 8 s.
    # Printed: X_upper = 0.109 /s, R_lower = 64 s.
    b = asymptotic_bounds([4.6 * 2, 8.0], population=20, think_time=120.0)
    assert b.throughput_upper == pytest.approx(0.109, abs=5e-4)
    assert b.response_time_lower == pytest.approx(64.0, abs=5e-4)
    # exact: 1/9.2 = 5/46 and 20 * 46/5 - 120 = 64
    assert b.throughput_upper == pytest.approx(float(F(5, 46)), rel=1e-15)


def test_balanced_network_bounds_are_exact():
    # QSP section 5.4: balanced job bounds are exact for a balanced system
    # (all D_k equal) without think time; check against exact Fraction MVA.
    d = [F(1, 4)] * 3
    exact = exact_mva(d, 10)
    for n, (x, r) in enumerate(exact, start=1):
        b = balanced_job_bounds([0.25] * 3, population=n)
        assert b.throughput_lower == pytest.approx(float(x), rel=1e-14)
        assert b.throughput_upper == pytest.approx(float(x), rel=1e-14)
        assert b.response_time_lower == pytest.approx(float(r), rel=1e-14)
        assert b.response_time_upper == pytest.approx(float(r), rel=1e-14)


def test_open_balanced_bounds_exact_for_balanced_mm1_network():
    # K equal M/M/1 centres: R = K d / (1 - lambda d), which both BJB open bounds equal.
    d, lam = F(1, 5), F(3, 1)
    exact = 4 * d / (1 - lam * d)
    b = balanced_job_bounds([0.2] * 4, arrival_rate=3.0)
    assert b.response_time_lower == pytest.approx(float(exact), rel=1e-14)
    assert b.response_time_upper == pytest.approx(float(exact), rel=1e-14)
    assert b.throughput_lower == b.throughput_upper == 3.0


# ----------------------------------------------------------------- invariants

@settings(max_examples=80, deadline=None)
@given(d=demand_lists, n=st.integers(1, 60), z=think)
def test_formulas_equal_exact_rational(d, n, z):
    df = [float(v) for v in d]
    for got, want in zip(_tuple(asymptotic_bounds(df, population=n, think_time=float(z))),
                         aba_exact(d, n, z)):
        assert got == pytest.approx(float(want), rel=1e-12)
    for got, want in zip(_tuple(balanced_job_bounds(df, population=n, think_time=float(z))),
                         bjb_exact(d, n, z)):
        assert got == pytest.approx(float(want), rel=1e-12)


@settings(max_examples=50, deadline=None)
@given(d=demand_lists, z=think)
def test_exact_mva_inside_balanced_inside_asymptotic(d, z):
    n_max = 25
    df = [float(v) for v in d]
    pops = np.arange(1, n_max + 1)
    aba = asymptotic_bounds(df, population=pops, think_time=float(z))
    bjb = balanced_job_bounds(df, population=pops, think_time=float(z))
    tol = 1e-12
    for i, (x, r) in enumerate(exact_mva(d, n_max, z)):
        x, r = float(x), float(r)
        assert aba.throughput_lower[i] <= bjb.throughput_lower[i] * (1 + tol)
        assert bjb.throughput_lower[i] <= x * (1 + tol)
        assert x <= bjb.throughput_upper[i] * (1 + tol)
        assert bjb.throughput_upper[i] <= aba.throughput_upper[i] * (1 + tol)
        assert aba.response_time_lower[i] <= bjb.response_time_lower[i] * (1 + tol)
        assert bjb.response_time_lower[i] <= r * (1 + tol)
        assert r <= bjb.response_time_upper[i] * (1 + tol)
        assert bjb.response_time_upper[i] <= aba.response_time_upper[i] * (1 + tol)


@settings(max_examples=30, deadline=None)
@given(d=st.lists(st.floats(0.01, 10.0), min_size=1, max_size=6), z=st.floats(0.0, 100.0))
def test_library_mva_inside_bounds(d, z):
    pops = np.arange(1, 41)
    sol = mva(np.array(d), pops, think_time=z)
    bjb = balanced_job_bounds(d, population=pops, think_time=z)
    rtol = 1e-9
    assert np.all(bjb.throughput_lower <= sol.throughput * (1 + rtol))
    assert np.all(sol.throughput <= bjb.throughput_upper * (1 + rtol))
    assert np.all(bjb.response_time_lower <= sol.response_time * (1 + rtol))
    assert np.all(sol.response_time <= bjb.response_time_upper * (1 + rtol))


@settings(max_examples=50, deadline=None)
@given(d=st.lists(st.floats(0.01, 10.0), min_size=1, max_size=6), frac=st.floats(0.0, 0.999))
def test_open_bounds_ordering(d, frac):
    lam = frac / max(d)
    aba = asymptotic_bounds(d, arrival_rate=lam)
    bjb = balanced_job_bounds(d, arrival_rate=lam)
    assert aba.throughput_upper == pytest.approx(lam) and bjb.throughput_lower == pytest.approx(lam)
    assert aba.response_time_lower <= bjb.response_time_lower * (1 + 1e-12)
    assert bjb.response_time_lower <= bjb.response_time_upper * (1 + 1e-12)
    assert aba.response_time_upper == np.inf
    # M/M/1 network response time lies inside the balanced job bounds
    r = sum(dk / (1 - lam * dk) for dk in d)
    assert bjb.response_time_lower <= r * (1 + 1e-12) <= bjb.response_time_upper * (1 + 2e-12)


def test_batches_broadcast():
    d = np.array([[1.0, 2.0], [2.0, 2.0], [0.5, 3.0]])
    b = asymptotic_bounds(d, population=np.array([1, 2, 3]))
    assert b.throughput_upper.shape == (3,)
    for i in range(3):
        one = asymptotic_bounds(d[i], population=i + 1)
        assert one.throughput_upper == b.throughput_upper[i]
    sweep = balanced_job_bounds([1.0, 2.0], population=np.arange(1, 11)[:, None] * np.ones(2),
                                think_time=[0.0, 5.0])
    assert sweep.throughput_lower.shape == (10, 2)
    frame = sweep.to_frame()
    assert len(frame) == 20 and {"throughput_lower", "method"} <= set(frame.columns)
    assert isinstance(b, BoundsResult) and b.method == "asymptotic" and b.workload == "closed"


def test_open_saturation_policy():
    with pytest.warns(SaturationWarning, match="1 open workload entry saturated"):
        b = balanced_job_bounds([1.0, 2.0], arrival_rate=0.5)
    assert b.throughput_upper == 0.5 and b.response_time_lower == np.inf
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        b = asymptotic_bounds([1.0, 2.0], arrival_rate=[0.1, 0.6, 0.7])
    assert len([w for w in caught if issubclass(w.category, SaturationWarning)]) == 1
    np.testing.assert_allclose(b.throughput_upper, [0.1, 0.5, 0.5])
    np.testing.assert_array_equal(b.response_time_lower, [3.0, np.inf, np.inf])


# ----------------------------------------------------------------- errors

def test_errors():
    with pytest.raises(ValueError, match="give exactly one of population"):
        asymptotic_bounds([1.0])
    with pytest.raises(ValueError, match="give exactly one of population"):
        balanced_job_bounds([1.0], population=2, arrival_rate=0.1)
    with pytest.raises(ValueError, match="service_demands must have at least one positive entry"):
        asymptotic_bounds([0.0, 0.0], population=2)
    with pytest.raises(ValueError, match="service_demands must have at least one station"):
        asymptotic_bounds(np.zeros((2, 0)), population=2)
    with pytest.raises(ValueError, match="service_demands must be non-negative"):
        asymptotic_bounds([1.0, -1.0], population=2)
    with pytest.raises(ValueError, match="service_demands must have at least 1 dimension"):
        asymptotic_bounds(1.0, population=2)
    with pytest.raises(ValueError, match="population must be >= 1"):
        balanced_job_bounds([1.0], population=0)
    with pytest.raises(ValueError, match="think_time must be non-negative"):
        balanced_job_bounds([1.0], population=2, think_time=-1.0)
    with pytest.raises(ValueError, match="arrival_rate must be non-negative"):
        asymptotic_bounds([1.0], arrival_rate=-0.1)
