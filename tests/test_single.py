"""Single-station formulas: worked examples, exact references, invariants, errors."""
import math
import warnings
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from zmodel.queueing import SaturationWarning
from zmodel.queueing.single import (StationResult, ggc, machine_repairman, md1, mg1, mm1, mmc,
                                    mmck)

HOUR = 3600.0
METRICS = ("utilization", "waiting_probability", "waiting_time", "response_time",
           "queue_length", "queue_waiting", "throughput", "blocking_probability")


# ---------------------------------------------------------------- exact references
def birth_death(birth, death):
    """Exact stationary distribution of a finite birth-death chain (Fractions)."""
    p = [Fraction(1)]
    for b, d in zip(birth, death):
        p.append(p[-1] * b / d)
    total = sum(p)
    return [x / total for x in p]


def exact_mmck(lam: Fraction, s: Fraction, c: int, k: int) -> dict:
    """M/M/c/K from its birth-death chain in exact arithmetic (textbook form)."""
    p = birth_death([lam] * k, [min(n, c) / s for n in range(1, k + 1)])
    busy = sum(min(n, c) * pn for n, pn in enumerate(p))
    x = busy / s
    q = sum(n * pn for n, pn in enumerate(p))
    qw = sum(max(n - c, 0) * pn for n, pn in enumerate(p))
    wait = sum(pn for n, pn in enumerate(p) if c <= n < k) / (1 - p[k])
    return {"queue_length": q, "queue_waiting": qw, "throughput": x, "blocking_probability": p[k],
            "utilization": busy / c, "response_time": q / x, "waiting_time": qw / x,
            "waiting_probability": wait}


def exact_mmc(lam: Fraction, s: Fraction, c: int) -> dict:
    """M/M/c textbook form: P0 sum, Lq = P0 A^c rho / (c! (1-rho)^2)."""
    a = lam * s
    rho = a / c
    p0 = 1 / (sum(a**k / math.factorial(k) for k in range(c)) + a**c / (math.factorial(c) * (1 - rho)))
    lq = p0 * a**c * rho / (math.factorial(c) * (1 - rho) ** 2)
    wq = lq / lam
    return {"queue_waiting": lq, "waiting_time": wq, "response_time": wq + s,
            "queue_length": lq + a, "utilization": rho,
            "waiting_probability": p0 * a**c / (math.factorial(c) * (1 - rho))}


def ctmc_repairman(n_pop: int, z: float, s: float, c: int) -> np.ndarray:
    """Stationary distribution of the machine-repairman CTMC by a linear solve."""
    q = np.zeros((n_pop + 1, n_pop + 1))
    for n in range(n_pop + 1):
        if n < n_pop:
            q[n, n + 1] = (n_pop - n) / z
        if n > 0:
            q[n, n - 1] = min(n, c) / s
        q[n, n] = -q[n].sum()
    a = np.vstack([q.T, np.ones(n_pop + 1)])
    rhs = np.zeros(n_pop + 2)
    rhs[-1] = 1.0
    return np.linalg.lstsq(a, rhs, rcond=None)[0]


def assert_matches(result, reference: dict, rel=1e-12):
    for name, value in reference.items():
        assert getattr(result, name) == pytest.approx(float(value), rel=rel, abs=1e-300), name


# ---------------------------------------------------------------- published examples
def test_hillier_lieberman_county_hospital_one_doctor():
    # Hillier & Lieberman, Introduction to Operations Research, Sec. 17.6 "County
    # Hospital" emergency room (page not checked): lambda = 2/h, mu = 3/h, s = 1:
    # L = 2, Lq = 4/3, W = 1 h, Wq = 2/3 h. Recomputed exactly from the P0 form.
    ref = exact_mmc(Fraction(2), Fraction(1, 3), 1)
    assert ref["queue_length"] == 2 and ref["queue_waiting"] == Fraction(4, 3)
    assert ref["response_time"] == 1 and ref["waiting_time"] == Fraction(2, 3)
    r = mm1(2 / HOUR, HOUR / 3)
    assert r.queue_length == pytest.approx(2.0, rel=1e-12)
    assert r.queue_waiting == pytest.approx(4 / 3, rel=1e-12)
    assert r.response_time / HOUR == pytest.approx(1.0, rel=1e-12)
    assert r.waiting_time / HOUR == pytest.approx(2 / 3, rel=1e-12)


def test_hillier_lieberman_county_hospital_two_doctors():
    # Same example, s = 2 doctors: P0 = 1/2, L = 3/4, Lq = 1/12, W = 3/8 h, Wq = 1/24 h,
    # P(n >= 2) = 1/6.
    ref = exact_mmc(Fraction(2), Fraction(1, 3), 2)
    assert ref["queue_length"] == Fraction(3, 4) and ref["queue_waiting"] == Fraction(1, 12)
    assert ref["response_time"] == Fraction(3, 8) and ref["waiting_time"] == Fraction(1, 24)
    r = mmc(2 / HOUR, HOUR / 3, 2)
    assert r.queue_length == pytest.approx(0.75, rel=1e-12)
    assert r.queue_waiting == pytest.approx(1 / 12, rel=1e-12)
    assert r.response_time / HOUR == pytest.approx(3 / 8, rel=1e-12)
    assert r.waiting_time / HOUR == pytest.approx(1 / 24, rel=1e-12)
    assert r.waiting_probability == pytest.approx(1 / 6, rel=1e-12)


def test_jain_example_31_1_gateway_mm1():
    # Jain, The Art of Computer Systems Performance Analysis, Sec. 31.2, Example 31.1
    # (page not checked): 125 packets/s, 2 ms each. Printed: utilization 0.25, mean
    # number in gateway 0.33, mean time in gateway 2.67 ms (2 digits).
    rho = Fraction(125) * Fraction(2, 1000)
    assert rho == Fraction(1, 4)
    assert float(rho / (1 - rho)) == pytest.approx(0.33, abs=0.005)
    r = mm1(125.0, 0.002)
    assert r.utilization == pytest.approx(0.25, abs=0.005)
    assert r.queue_length == pytest.approx(0.33, abs=0.005)
    assert r.response_time * 1e3 == pytest.approx(2.67, abs=0.005)
    assert r.throughput == pytest.approx(125.0)


def test_jain_example_31_3_gateway_two_buffers():
    # Jain, Sec. 31.4 (M/M/m/B), Example 31.3 (page not checked): the gateway of
    # Example 31.1 with only two buffers, M/M/1/2. Values as recalled, each recomputed
    # exactly below: loss probability 0.0476, mean number 0.2857, effective arrival
    # rate 119 packets/s, mean response time 2.4 ms.
    ref = exact_mmck(Fraction(125), Fraction(2, 1000), 1, 2)
    assert ref["blocking_probability"] == Fraction(1, 21)
    assert ref["queue_length"] == Fraction(2, 7)
    assert ref["response_time"] == Fraction(12, 5000)
    r = mmck(125.0, 0.002, 1, 2)
    assert r.blocking_probability == pytest.approx(0.0476, abs=5e-5)
    assert r.queue_length == pytest.approx(0.2857, abs=5e-5)
    assert r.throughput == pytest.approx(119.0, abs=0.5)
    assert r.response_time * 1e3 == pytest.approx(2.4, abs=0.05)
    assert_matches(r, ref)


def test_md1_waits_half_as_long_as_mm1():
    # Kleinrock Vol. 1, Sec. 5.6 (P-K mean value): with constant service the mean wait
    # is half that of exponential service at the same load.
    for rho in (0.1, 0.5, 0.9):
        assert md1(rho, 1.0).waiting_time == pytest.approx(mm1(rho, 1.0).waiting_time / 2, rel=1e-14)


# ---------------------------------------------------------------- exact references
@settings(max_examples=60, deadline=None)
@given(c=st.integers(1, 12), rho=st.fractions(Fraction(1, 100), Fraction(98, 100), max_denominator=100),
       s=st.sampled_from([Fraction(1, 1000), Fraction(1), Fraction(7, 3)]))
def test_mmc_matches_textbook_p0_form(c, rho, s):
    lam = rho * c / s
    assert_matches(mmc(float(lam), float(s), c), exact_mmc(lam, s, c), rel=1e-11)


@settings(max_examples=60, deadline=None)
@given(c=st.integers(1, 6), extra=st.integers(0, 25),
       rho=st.fractions(Fraction(1, 20), Fraction(3), max_denominator=40))
def test_mmck_matches_exact_birth_death(c, extra, rho):
    s = Fraction(1, 2)
    lam = rho * c / s
    k = c + extra
    assert_matches(mmck(float(lam), float(s), c, k), exact_mmck(lam, s, c, k), rel=1e-10)


def test_mmck_near_rho_one_and_large_k():
    # rho within 1e-9 of 1 and K - c = 1e4: the expm1 forms must not cancel. Reference:
    # the birth-death sums evaluated term by term in 40-digit mpmath.
    import mpmath

    s, c, k = 1.0, 3, 10_003
    for rho in (1 - 1e-9, 1.0, 1 + 1e-9):
        with mpmath.workdps(40):
            a = mpmath.mpf(rho) * c
            w = [mpmath.mpf(1)]
            for n in range(1, k + 1):
                w.append(w[-1] * a / min(n, c))
            total = mpmath.fsum(w)
            p_full = w[k] / total
            q_wait = mpmath.fsum((n - c) * w[n] for n in range(c, k + 1)) / total
        r = mmck(rho * c / s, s, c, k)
        assert r.queue_waiting == pytest.approx(float(q_wait), rel=1e-11)
        assert r.blocking_probability == pytest.approx(float(p_full), rel=1e-11)


def test_mmck_overloaded_and_huge_capacity():
    # rho = 2 and K - c = 5000: overflow-free; P_K -> 1 - 1/rho, L -> K - 1 for c = 1.
    r = mmck(2.0, 1.0, 1, 5000)
    assert r.blocking_probability == pytest.approx(0.5, rel=1e-12)
    assert r.queue_length == pytest.approx(5000 - 1, rel=1e-12)
    assert r.throughput == pytest.approx(1.0, rel=1e-12)
    assert r.utilization == pytest.approx(1.0, rel=1e-12)
    # K = 1e12: no cancellation between the two ~1e12-sized logs of the geometric block
    huge = mmck(5.0, 1.0, 2, 10**12)                 # rho = 2.5: P_K -> 1 - 1/rho
    assert huge.blocking_probability == pytest.approx(0.6, rel=1e-12)
    assert mmck(1.0, 1.0, 1, 10**12).blocking_probability == pytest.approx(1 / (10**12 + 1), rel=1e-9)


def test_mmck_with_k_equal_c_is_erlang_loss():
    from zmodel.queueing.erlang import erlang_b

    r = mmck(4.0, 2.5, 10, 10)
    assert r.blocking_probability == pytest.approx(erlang_b(10, 10.0), rel=1e-13)
    assert r.waiting_probability == 0.0 and r.queue_waiting == 0.0


def test_mmck_large_servers():
    # c = 5000 servers, tiny load: lower block dominates, B underflows in the middle.
    r = mmck(10.0, 1.0, 5000, 6000)
    assert r.blocking_probability == 0.0
    assert r.queue_length == pytest.approx(10.0, rel=1e-12)
    assert r.throughput == pytest.approx(10.0, rel=1e-12)


@pytest.mark.parametrize("n_pop, z, s, c", [(1, 2.0, 0.5, 1), (5, 3.0, 1.0, 1), (12, 1.0, 0.3, 3),
                                            (40, 10.0, 0.5, 4), (30, 0.5, 2.0, 2)])
def test_machine_repairman_matches_ctmc_solve(n_pop, z, s, c):
    p = ctmc_repairman(n_pop, z, s, c)
    n = np.arange(n_pop + 1)
    busy = (np.minimum(n, c) * p).sum()
    x = busy / s
    q = (n * p).sum()
    r = machine_repairman(n_pop, z, s, c)
    assert r.throughput == pytest.approx(x, rel=1e-9)
    assert r.queue_length == pytest.approx(q, rel=1e-9)
    assert r.response_time == pytest.approx(q / x, rel=1e-9)
    assert r.utilization == pytest.approx(busy / c, rel=1e-9)
    arrivals = (n_pop - n) * p
    assert r.waiting_probability == pytest.approx(arrivals[c:].sum() / arrivals.sum(), rel=1e-9, abs=1e-15)


def test_machine_repairman_arrival_theorem():
    # An arrival sees the population N - 1 in equilibrium: its expected response time
    # for c = 1 is S (1 + Q(N-1)) (exact MVA recursion).
    z, s = 4.0, 1.0
    for n_pop in (1, 2, 7, 20):
        q_prev = machine_repairman(n_pop - 1, z, s).queue_length
        assert machine_repairman(n_pop, z, s).response_time == pytest.approx(s * (1 + q_prev), rel=1e-11)


def test_machine_repairman_large_population_log_space():
    # N = 100 000 jobs: an exact mpmath birth-death sum is too slow here, so check the
    # log-space result against the MVA recursion for c = 1 run in plain floats.
    n_pop, z, s = 100_000, 50_000.0, 1.0
    q = 0.0
    for n in range(1, n_pop + 1):
        r_n = s * (1 + q)
        x_n = n / (r_n + z)
        q = x_n * r_n
    r = machine_repairman(n_pop, z, s)
    assert r.queue_length == pytest.approx(q, rel=1e-8)
    assert r.throughput == pytest.approx(x_n, rel=1e-8)
    assert np.isfinite(r.waiting_probability)


def test_machine_repairman_zero_think_and_zero_population():
    r = machine_repairman(5, 0.0, 2.0, 2)
    assert r.queue_length == 5 and r.throughput == pytest.approx(1.0) and r.utilization == 1.0
    assert r.response_time == pytest.approx(5.0) and r.waiting_probability == 1.0
    r0 = machine_repairman(0, 1.0, 1.0)
    for name in METRICS:
        assert getattr(r0, name) == 0.0, name


# ---------------------------------------------------------------- invariants
open_stable = st.tuples(st.integers(1, 40), st.floats(0.001, 0.99), st.floats(1e-4, 1e3))


@settings(max_examples=80, deadline=None)
@given(params=open_stable, ca2=st.floats(0, 5), cs2=st.floats(0, 5))
def test_littles_law_and_bounds_open(params, ca2, cs2):
    c, rho, s = params
    lam = rho * c / s
    results = [mmc(lam, s, c), ggc(lam, s, c, ca2, cs2), ggc(lam, s, c, ca2, cs2, method="kingman"),
               mmck(lam, s, c, c + 7)]
    if c == 1:
        results += [mm1(lam, s), mg1(lam, s, cs2), md1(lam, s)]
    for r in results:
        x = r.throughput
        assert r.queue_length == pytest.approx(x * r.response_time, rel=1e-9)
        assert r.queue_waiting == pytest.approx(x * r.waiting_time, rel=1e-9, abs=1e-300)
        assert r.response_time == pytest.approx(r.waiting_time + s, rel=1e-12)
        assert r.utilization == pytest.approx(x * s / c, rel=1e-12)
        assert 0.0 <= r.utilization <= 1.0
        assert 0.0 <= r.waiting_probability <= 1.0 + 1e-12
        assert 0.0 <= r.blocking_probability <= 1.0


@settings(max_examples=60, deadline=None)
@given(n_pop=st.integers(0, 300), z=st.floats(0, 100), s=st.floats(1e-3, 10), c=st.integers(1, 20))
def test_machine_repairman_invariants(n_pop, z, s, c):
    r = machine_repairman(n_pop, z, s, c)
    assert 0.0 <= r.utilization <= 1.0 + 1e-12
    assert r.queue_length == pytest.approx(r.throughput * r.response_time, rel=1e-9, abs=1e-300)
    assert r.throughput * (r.response_time + z) == pytest.approx(n_pop, rel=1e-9, abs=1e-12)
    # asymptotic bounds X <= min(N / (S + Z), c / S)
    assert r.throughput <= min(n_pop / (s + z), c / s) * (1 + 1e-9)


@settings(max_examples=60, deadline=None)
@given(rho=st.floats(0, 0.999), s=st.floats(1e-3, 1e3))
def test_special_cases_reduce_to_mm1(rho, s):
    lam = rho / s
    base = mm1(lam, s)
    same = [mmc(lam, s, 1), mg1(lam, s, 1.0), ggc(lam, s, 1, 1.0, 1.0),
            ggc(lam, s, 1, 1.0, 1.0, method="kingman")]
    for r in same:
        for name in METRICS:
            assert getattr(r, name) == pytest.approx(getattr(base, name), rel=1e-12, abs=1e-300), name
    d = md1(lam, s)
    g = mg1(lam, s, 0.0)
    for name in METRICS:
        assert getattr(d, name) == pytest.approx(getattr(g, name), rel=1e-15, abs=1e-300), name


@settings(max_examples=40, deadline=None)
@given(params=open_stable, cs2=st.floats(0, 5))
def test_allen_cunneen_special_cases(params, cs2):
    c, rho, s = params
    lam = rho * c / s
    # Poisson arrivals and exponential service: Allen-Cunneen is M/M/c exactly.
    exact = mmc(lam, s, c)
    ac = ggc(lam, s, c, 1.0, 1.0)
    assert ac.waiting_time == pytest.approx(exact.waiting_time, rel=1e-12, abs=1e-300)
    # c = 1 and Poisson arrivals: Kingman / Allen-Cunneen both equal Pollaczek-Khinchine.
    for method in ("allen_cunneen", "kingman"):
        one = ggc(rho / s, s, 1, 1.0, cs2, method=method)
        assert one.waiting_time == pytest.approx(mg1(rho / s, s, cs2).waiting_time, rel=1e-12, abs=1e-300)
        assert one.approximation is True and one.method == method


def test_mmck_huge_capacity_tends_to_mmc():
    for c, rho in ((1, 0.5), (4, 0.9), (50, 0.95)):
        lam = rho * c
        big = mmck(lam, 1.0, c, c + 100_000)
        ref = mmc(lam, 1.0, c)
        for name in METRICS:
            assert getattr(big, name) == pytest.approx(getattr(ref, name), rel=1e-10, abs=1e-14), name


def test_zero_arrivals():
    for r in (mmc(0.0, 2.0, 3), mg1(0.0, 2.0, 3.0), mmck(0.0, 2.0, 3, 5), ggc(0.0, 2.0, 3, 2.0, 2.0)):
        assert r.utilization == 0 and r.queue_length == 0 and r.throughput == 0
        assert r.waiting_time == 0 and r.response_time == pytest.approx(2.0)


# ---------------------------------------------------------------- saturation policy
@pytest.mark.parametrize("call", [
    lambda lam: mmc(lam, 1.0, 2),
    lambda lam: ggc(lam, 1.0, 2, 0.5, 2.0),
    lambda lam: ggc(lam, 1.0, 2, 0.5, 2.0, method="kingman"),
])
def test_saturation_policy_multi_server(call):
    with pytest.warns(SaturationWarning, match="2 .* entries saturated") as rec:
        r = call(np.array([1.0, 2.0, 3.0]))
    assert len(rec) == 1
    assert np.isfinite(r.response_time[0])
    for name in ("waiting_time", "response_time", "queue_length", "queue_waiting"):
        assert np.all(np.isinf(getattr(r, name)[1:])), name
    assert np.all(r.utilization[1:] == 1.0)
    assert np.all(r.throughput[1:] == 2.0)           # capacity c / S
    assert np.all(r.waiting_probability[1:] == 1.0)


@pytest.mark.parametrize("func", [lambda lam: mm1(lam, 0.5), lambda lam: md1(lam, 0.5),
                                  lambda lam: mg1(lam, 0.5, 3.0)])
def test_saturation_policy_single_server(func):
    with pytest.warns(SaturationWarning, match="1 .* entry saturated") as rec:
        r = func(2.5)
    assert len(rec) == 1
    assert math.isinf(r.response_time) and math.isinf(r.queue_length)
    assert r.utilization == 1.0 and r.throughput == pytest.approx(2.0)


def test_stable_calls_do_not_warn_and_finite_models_never_saturate():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        mmc(1.9, 1.0, 2)
        mmck(50.0, 1.0, 2, 10)
        machine_repairman(100, 0.0, 1.0)


# ---------------------------------------------------------------- containers
def test_broadcasting_batches():
    r = mmc(np.array([[0.5], [1.0]]), 1.0, np.array([2, 3, 4]))
    assert r.response_time.shape == (2, 3)
    assert r.response_time[1, 0] == pytest.approx(mmc(1.0, 1.0, 2).response_time)
    frame = r.to_frame()
    assert len(frame) == 6 and {"batch_0", "batch_1", "response_time", "model"} <= set(frame.columns)


def test_series_in_series_out_and_frame_index():
    lam = pd.Series([0.1, 0.5, 0.9], index=pd.Index(["a", "b", "c"], name="case"))
    r = mmc(lam, 1.0, 1)
    assert isinstance(r.response_time, pd.Series)
    assert list(r.response_time.index) == ["a", "b", "c"]
    assert r.response_time["b"] == pytest.approx(2.0)
    frame = r.to_frame()
    assert list(frame.index) == ["a", "b", "c"] and "batch" not in frame.columns
    assert frame.loc["c", "queue_length"] == pytest.approx(9.0)
    r2 = machine_repairman(pd.Series([1, 2], index=["one", "two"]), 1.0, 1.0)
    assert list(r2.throughput.index) == ["one", "two"]


def test_scalar_result_is_one_row_frame():
    r = ggc(0.5, 1.0, 1, 2.0, 0.5, method="kingman")
    assert isinstance(r, StationResult) and isinstance(r.response_time, float)
    frame = r.to_frame()
    assert len(frame) == 1 and frame.loc[0, "method"] == "kingman" and bool(frame.loc[0, "approximation"])
    assert mmc(0.5, 1.0).approximation is False and mmc(0.5, 1.0).method == "exact"


# ---------------------------------------------------------------- errors
def test_error_arrival_rate():
    with pytest.raises(ValueError, match=r"arrival_rate must be non-negative, got -1.0"):
        mmc(-1.0, 1.0)


def test_error_service_time():
    with pytest.raises(ValueError, match=r"service_time must be positive, got 0.0"):
        mm1(1.0, 0.0)


def test_error_servers():
    with pytest.raises(ValueError, match=r"servers must be a positive integer, got 0"):
        mmc(1.0, 1.0, 0)


def test_error_capacity_below_servers():
    with pytest.raises(ValueError, match=r"capacity must be >= servers, got capacity=2 < servers=3"):
        mmck(1.0, 1.0, 3, 2)


def test_error_capacity_integer():
    with pytest.raises(ValueError, match=r"capacity must be an integer, got 2.5"):
        mmck(1.0, 1.0, 1, 2.5)


def test_error_scv():
    with pytest.raises(ValueError, match=r"service_scv must be non-negative, got -0.5"):
        mg1(0.5, 1.0, -0.5)


def test_error_arrival_scv():
    with pytest.raises(ValueError, match=r"arrival_scv must be finite"):
        ggc(0.5, 1.0, 1, math.inf, 1.0)


def test_error_method():
    with pytest.raises(ValueError, match=r"method must be 'allen_cunneen' or 'kingman', got 'whitt'"):
        ggc(0.5, 1.0, 1, 1.0, 1.0, method="whitt")


def test_error_population():
    with pytest.raises(ValueError, match=r"population must be an integer >= 0, got -1"):
        machine_repairman(-1, 1.0, 1.0)


def test_error_think_time():
    with pytest.raises(ValueError, match=r"think_time must be non-negative, got -2.0"):
        machine_repairman(3, -2.0, 1.0)
