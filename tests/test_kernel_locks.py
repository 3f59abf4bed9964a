"""Tests of zmodel.kernel.locks: hand-computed chains (exact fractions written here),
invariants, special cases and error messages."""
import math
from fractions import Fraction as F

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lock_oracles import enumerate_split

from zmodel.kernel.locks import (
    atomic_update,
    big_kernel_lock,
    block_layer_locks,
    devzero_faults,
    gettimeofday_slowdown,
    io_request_lock,
    knee_cpus,
    line_saturation_cpus,
    request_queue_locks,
    spin_waste,
    spinlock,
    LockCosts,
    SpinlockHandoff,
    ticket_lock,
    ticket_lock_probabilities,
    ticket_locks,
)


# ----------------------------------------------------------------- exact references
def _chain_exact(n, think, service):
    """Finite-source birth-death chain, exact rationals: weights N!/(N-k)! Z^-k prod D_j."""
    w = [F(1)]
    for k in range(1, n + 1):
        w.append(w[-1] * (n - k + 1) * service(k) / think)
    total = sum(w)
    p = [x / total for x in w]
    x = sum(p[k] / service(k) for k in range(1, n + 1))
    q = sum(k * p[k] for k in range(n + 1))
    return p, x, q


def test_spinlock_two_cpus_by_hand():
    # weights 1, 2, 2 -> X = 4/5, W = 2/X - Z - S = 1/2
    r = spinlock(2, 1.0, 1.0)
    assert r.acquisition_rate == pytest.approx(0.8, rel=1e-12)
    assert r.wait_time == pytest.approx(0.5, rel=1e-12)
    assert r.spin_fraction == pytest.approx(0.8 * 0.5 / 2, rel=1e-12)


@pytest.mark.parametrize("n,z,s", [(5, F(3), F(1)), (9, F(1, 2), F(1, 10)), (1, F(2), F(1))])
def test_spinlock_matches_exact_machine_repairman(n, z, s):
    p, x, q = _chain_exact(n, z, lambda k: s)
    w = F(n) / x - z - s
    r = spinlock(n, float(z), float(s))
    assert r.acquisition_rate == pytest.approx(float(x), rel=1e-12)
    assert r.utilization == pytest.approx(float(1 - p[0]), rel=1e-12)
    assert r.wait_time == pytest.approx(float(w), rel=1e-10, abs=1e-15)
    assert r.queue_length == pytest.approx(float(q), rel=1e-12)
    assert r.useful_cpus == pytest.approx(float(x * (z + s)), rel=1e-12)


def test_ticket_lock_matches_the_papers_formula():
    # Boyd-Wickizer et al. 2012, section 3: P_k = P_0 a^-k n!/(n-k)! prod_{j<=k} (s + j c)
    n, a, s, c = 6, F(5), F(1), F(1, 2)
    weights = [F(math.factorial(n), math.factorial(n - k)) / a**k *
               math.prod([s + j * c for j in range(1, k + 1)], start=F(1)) for k in range(n + 1)]
    p0 = 1 / sum(weights)
    pk = [p0 * w for w in weights]
    C = sum(k * v for k, v in enumerate(pk))
    r = ticket_lock(n, float(a), float(s), float(c))
    assert r.parallel_cpus == pytest.approx(float(n - C), rel=1e-12)      # the paper's speedup
    assert r.acquisition_rate == pytest.approx(float((n - C) / a), rel=1e-12)
    assert r.utilization == pytest.approx(float(1 - p0), rel=1e-12)
    np.testing.assert_allclose(ticket_lock_probabilities(n, float(a), float(s), float(c)),
                               [float(v) for v in pk], rtol=1e-12)


def test_ticket_lock_two_cores_docstring_case():
    # weights 1, 4, 12 -> C = 28/17
    assert ticket_lock(2, 1.0, 1.0, 1.0).queue_length == pytest.approx(28 / 17, rel=1e-12)


@settings(max_examples=60, deadline=None)
@given(n=st.integers(0, 40), z=st.floats(1e-3, 1e3), s=st.floats(1e-3, 1e2))
def test_ticket_without_handoff_is_the_spinlock(n, z, s):
    a, b = ticket_lock(n, z, s, 0.0), spinlock(n, z, s)
    for f in ("acquisition_rate", "utilization", "queue_length", "spinning_cpus", "useful_cpus"):
        assert getattr(a, f) == pytest.approx(getattr(b, f), rel=1e-9, abs=1e-12)


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 60), z=st.floats(1e-3, 1e3), s=st.floats(0, 1e2), c=st.floats(1e-4, 10))
def test_ticket_invariants(n, z, s, c):
    r = ticket_lock(n, z, s, c)
    assert 0 <= r.utilization <= 1 + 1e-12
    assert -1e-9 <= r.spin_fraction <= 1 + 1e-9
    assert r.useful_cpus + r.spinning_cpus == pytest.approx(n, rel=1e-12)
    # Little: CPUs outside the lock = X Z
    assert r.parallel_cpus == pytest.approx(r.acquisition_rate * z, rel=1e-8, abs=1e-12)


def test_ticket_collapse_rises_then_falls_sharply():
    n = np.arange(1, 129)
    speedup = np.asarray(ticket_lock(n, 100.0, 1.0, 0.2).parallel_cpus)
    peak = int(np.argmax(speedup))
    assert 5 < peak < 100                                   # interior maximum
    assert np.all(np.diff(speedup[: peak + 1]) > 0)         # rises
    assert speedup[-1] < 0.3 * speedup[peak]                # then collapses
    # falls much faster than it rose: within 1.5x the peak count it loses over half
    assert speedup[int(1.5 * (peak + 1))] < 0.5 * speedup[peak]


def test_ticket_lock_thousands_of_cores_are_stable():
    n = np.array([1000, 5000])
    r = ticket_lock(n, 1e-3, 1e-7, 1e-8)
    x = np.asarray(r.acquisition_rate)
    assert np.all(np.isfinite(x))
    # the serial time lies between s + c and s + n c
    assert np.all(x >= 1 / (1e-7 + n * 1e-8)) and np.all(x <= 1 / (1e-7 + 1e-8))
    # almost no think time: all cores at the lock, X -> 1/(s + n c)
    r = ticket_lock(n, 1e-12, 1e-7, 1e-8)
    np.testing.assert_allclose(r.acquisition_rate, 1 / (1e-7 + n * 1e-8), rtol=1e-6)
    np.testing.assert_allclose(r.queue_length, n, rtol=1e-6)


def test_knee_closed_forms():
    assert knee_cpus(15.0, 1.0) == pytest.approx(16.0, rel=1e-12)          # (Z + s)/s
    assert knee_cpus(255.0, 0.0, 1.0) == pytest.approx(16.0, rel=1e-12)    # sqrt((Z+c)/c)
    z, s, c = 40.0, 0.5, 0.01
    n = knee_cpus(z, s, c)   # textbook root of c N^2 + s N - (Z + s + c) = 0
    assert n == pytest.approx((-s + math.sqrt(s * s + 4 * c * (z + s + c))) / (2 * c), rel=1e-12)


def test_atomic_update_exact_chain():
    n, z, t, q, g = 3, F(2), F(1), F(1, 2), F(1, 4)
    D = lambda j: t * (1 + g * (j - 1)) * (1 + q * (j - 1))  # noqa: E731
    p, x, ql = _chain_exact(n, z, D)
    attempts = sum((p[j] / D(j)) * (1 + q * (j - 1)) for j in range(1, n + 1)) / x
    r = atomic_update(n, float(z), float(t), float(q), float(g))
    assert r.update_rate == pytest.approx(float(x), rel=1e-12)
    assert r.update_time == pytest.approx(float(ql / x), rel=1e-12)
    assert r.attempts_per_update == pytest.approx(float(attempts), rel=1e-12)
    assert r.slowdown == pytest.approx(float((n / x) / z), rel=1e-12)


def test_atomic_update_single_cpu_and_ordering():
    assert atomic_update(1, 1e-6, 5e-6, hit_time=1e-7).slowdown == pytest.approx(1.0)
    n = np.array([2, 4, 8, 32])
    plain = np.asarray(atomic_update(n, 1e-6, 2e-6, 0.0).slowdown)
    cas = np.asarray(atomic_update(n, 1e-6, 2e-6, 0.05).slowdown)
    assert np.all(cas > plain) and np.all(np.diff(plain) > 0)
    assert np.all(gettimeofday_slowdown(n, 1e-6, 2e-6, 0.05) == pytest.approx(cas))


@settings(max_examples=50, deadline=None)
@given(t=st.floats(1e-9, 1e-5), period=st.floats(1e-5, 1e-2), q=st.floats(0, 1), g=st.floats(0, 0.5))
def test_line_saturation_root(t, period, q, g):
    n = line_saturation_cpus(t, period, q, g)
    if n > 1:
        assert n * t * (1 + g * (n - 1)) * (1 + q * (n - 1)) == pytest.approx(period, rel=1e-9)


def test_line_saturation_simple_cases():
    assert line_saturation_cpus(1e-6, 384e-6) == pytest.approx(384.0, rel=1e-12)
    # bisection (tiny g) agrees with the quadratic (g = 0)
    assert line_saturation_cpus(1e-6, 1e-3, 0.01, 1e-12) == pytest.approx(
        line_saturation_cpus(1e-6, 1e-3, 0.01, 0.0), rel=1e-8)


def test_spin_waste_textbook_and_limits():
    p, mr, mp, b, y = 0.2, 3e-6, 4e-3, 1e-5, 2e-6
    r = spin_waste(p, mr, mp, spin_limit=b, yield_cost=y)
    spin = (1 - p) * mr * (1 - math.exp(-b / mr)) + p * mp * (1 - math.exp(-b / mp))
    yp = (1 - p) * math.exp(-b / mr) + p * math.exp(-b / mp)
    assert r.spin_time == pytest.approx(spin, rel=1e-12)
    assert r.yield_probability == pytest.approx(yp, rel=1e-12)
    assert r.wasted_time == pytest.approx(spin + yp * y, rel=1e-12)
    # pure spinning: linear in the preemption probability
    probs = np.linspace(0, 1, 5)
    np.testing.assert_allclose(spin_waste(probs, mr, mp).wasted_time, (1 - probs) * mr + probs * mp, rtol=1e-12)
    # a tiny budget against a huge delay: stable (expm1), equals the budget
    assert spin_waste(1.0, 0.0, 1e3, spin_limit=1e-12).spin_time == pytest.approx(1e-12, rel=1e-9)


def test_block_layer_special_cases_and_readings():
    args = (50e-6, 30e-6, 0.5e-3)
    assert block_layer_locks(1, 8, 1, *args).lock_wait == 0.0
    g = io_request_lock(np.array([4, 16]), 64, *args, streams_per_cpu=2)
    m1 = io_request_lock(np.array([4, 16]), 64, *args, scope="per_major", majors=1, streams_per_cpu=2)
    np.testing.assert_allclose(g.io_rate, m1.io_rate, rtol=1e-12)        # one major = global
    m2 = io_request_lock(16, 64, *args, scope="per_major", majors=2, streams_per_cpu=2)
    q = request_queue_locks(16, 64, *args, streams_per_cpu=2)
    assert q.io_rate > m2.io_rate > g.io_rate[1]
    assert 0 <= q.spin_fraction < m2.spin_fraction < g.spin_fraction[1] <= 1
    b = big_kernel_lock(16, 64, 50e-6, 60e-6, 0.5e-3, 2)
    assert b.io_rate <= 1 / 60e-6 and b.lock_utilization <= 1


def test_devzero_without_lock_scales_linearly():
    np.testing.assert_allclose(devzero_faults(np.array([1, 8, 512]), 1e-5).fault_rate, [1e5, 8e5, 512e5])


def test_series_in_series_out_and_frames():
    idx = pd.Index([2, 4, 8], name="cpus")
    r = spinlock(pd.Series([2, 4, 8], index=idx), 1e-5, 1e-6)
    assert isinstance(r.acquisition_rate, pd.Series) and r.acquisition_rate.index.equals(idx)
    assert len(ticket_lock(np.array([1, 2, 3]), 1.0, 0.1, 0.01).to_frame()) == 3
    assert len(atomic_update(4, 1.0, 0.1).to_frame()) == 1


@pytest.mark.parametrize("call,match", [
    (lambda: spinlock(-1, 1.0, 1.0), "cpus must be an integer >= 0"),
    (lambda: spinlock(2, 1.0, 0.0), "hold_time must be positive"),
    (lambda: ticket_lock(2, 1.0, 0.0, 0.0), "serial_time \\+ handoff_time must be positive"),
    (lambda: atomic_update(2, 0.0, 1.0), "think_time must be positive"),
    (lambda: atomic_update(2, 1.0, 1.0, 1.5), "conflict_probability must be a probability"),
    (lambda: spin_waste(0.1, -1.0, 1.0), "hold_wait must be non-negative"),
    (lambda: block_layer_locks(2, 4, 5, 1.0, 1.0, 1.0), "lock_domains must not exceed disks"),
    (lambda: io_request_lock(2, 4, 1.0, 1.0, 1.0, scope="per_disk"), "scope must be 'global' or 'per_major'"),
    (lambda: knee_cpus(1.0, 0.0, 0.0), "serial_time \\+ handoff_time must be positive"),
])
def test_error_messages(call, match):
    with pytest.raises(ValueError, match=match):
        call()


# --------------------------------------------------------------------------- k equal locks (ticket_locks)
@pytest.mark.parametrize("n,k", [(2, 2), (3, 2), (4, 3), (5, 4), (3, 5)])
def test_ticket_locks_enumerated_state_by_state(n, k):
    from fractions import Fraction

    z, s, c = Fraction(7, 10 ** 5), Fraction(2, 10 ** 5), Fraction(3, 10 ** 6)
    x, q, u = enumerate_split(n, z, s, c, k)
    r = ticket_locks(n, float(z), float(s), float(c), instances=k)
    assert r.acquisition_rate == pytest.approx(float(x), rel=1e-12)
    assert r.queue_length == pytest.approx(float(q), rel=1e-12)
    assert r.utilization == pytest.approx(float(u), rel=1e-12)
    assert r.spinning_cpus == pytest.approx(float(q - x * s), rel=1e-10)


def test_ticket_locks_one_instance_is_the_ticket_lock():
    n = np.array([1, 2, 8, 40, 300])
    a = ticket_locks(n, 1e-4, 2e-5, 3e-7, instances=1)
    b = ticket_lock(n, 1e-4, 2e-5, 3e-7)
    for name in ("acquisition_rate", "queue_length", "utilization", "spinning_cpus"):
        np.testing.assert_allclose(getattr(a, name), getattr(b, name), rtol=1e-11, err_msg=name)


def test_ticket_locks_without_handoff_is_exact_mva():
    # c = 0: k FCFS queues of demand s/k and a delay z -- exact MVA (Lazowska et al. 1984, Algorithm 6.1)
    from zmodel.queueing import mva

    for n, k in ((8, 4), (16, 64), (40, 7)):
        r = ticket_locks(n, 1e-4, 3e-5, 0.0, instances=k)
        m = mva([3e-5 / k] * k, n, 1e-4)
        assert r.acquisition_rate == pytest.approx(float(m.throughput), rel=1e-10)
        assert r.queue_length == pytest.approx(n - float(m.throughput) * 1e-4, rel=1e-9)


def test_ticket_locks_share_the_cpus():
    # a CPU waits at one lock at a time: however many locks, at most n CPUs spin, and more
    # locks never make it worse (the decomposition into k independent chains let 16 CPUs
    # "spin" 4 x 16 at 4 saturated locks)
    n, z, s, c = 16, 290e-6, 30e-6, 0.2e-6
    spin = [float(ticket_locks(n, z, s, c, instances=k).spinning_cpus) for k in (1, 2, 4, 16, 64)]
    assert all(0 <= v <= n for v in spin)
    assert all(a > b for a, b in zip(spin, spin[1:]))


def test_ticket_locks_messages():
    with pytest.raises(ValueError, match="instances must be"):
        ticket_locks(4, 1e-4, 1e-5, 0.0, instances=0)
    with pytest.raises(ValueError, match="serial_time \\+ handoff_time must be positive"):
        ticket_locks(4, 1e-4, 0.0, 0.0, instances=2)
    from zmodel.queueing.loaddep import split_finite_source

    with pytest.raises(ValueError, match="stations must be"):
        split_finite_source([2.0], [1.0], [[0.0, 0.0]], [0])
    with pytest.raises(ValueError, match="log_service_time must have at least max\\(population\\) = 3 columns"):
        split_finite_source([3.0], [1.0], [[0.0, 0.0]], [1])


def test_spinlock_handoff_is_declared_once_for_both_cost_classes():
    from zmodel.kernel.versions import KernelCosts
    from zmodel.queueing._params import parameter_info

    a, b = parameter_info(LockCosts)["spinlock_handoff"], parameter_info(KernelCosts)["spinlock_handoff"]
    assert a.owner == b.owner == "SpinlockHandoff"
    assert a.default == b.default and a.range == b.range and a.source == b.source
    assert LockCosts(handoff=SpinlockHandoff(3e-8)).spinlock_handoff == 3e-8
    with pytest.raises(ValueError, match="handoff must be a SpinlockHandoff, got float"):
        LockCosts(handoff=3e-8)
    with pytest.raises(ValueError, match="handoff must be a SpinlockHandoff, got float"):
        KernelCosts(handoff=3e-8)
    with pytest.raises(ValueError, match="spinlock_handoff must be non-negative"):
        SpinlockHandoff(-1.0)
