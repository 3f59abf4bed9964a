"""Hypervisor scheduling models (zmodel.kernel.hypervisor).

Expected values are computed here independently: by hand (fractions), by a bisection
water filling written in the test, by summing the polling rounds term by term, by a
seeded Monte Carlo with a confidence interval, or from the printed numbers of the
sources (PR/SM Planning Guide's 67 % example; the WAVV 2008 ``top`` snapshot).
"""
import math
import warnings
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from zmodel.kernel.hypervisor import (
    SPINLOCK_STRATEGIES,
    CpCosts,
    cp_overhead,
    guest_cpu_accounting,
    holder_preemption,
    idle_guest_overhead,
    lpar_dispatch,
    preempted_hold_time,
    spinlock_yield,
    vcpu_dispatch_steal,
)
from zmodel.queueing import SaturationWarning


# ------------------------------------------------------------------------------ LPAR
def _bisection_fill(P, w, c):
    """Weighted max-min fair shares by bisection on the water level (independent)."""
    w, c = np.asarray(w, float), np.asarray(c, float)
    if c.sum() <= P:
        return c
    lo, hi = 0.0, c.max() / w.min() + 1.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if np.minimum(c, mid * w).sum() < P:
            lo = mid
        else:
            hi = mid
    return np.minimum(c, hi * w)


def test_lpar_hand_example_idle_share_goes_to_uncapped_by_weight():
    # 10 CPUs, weights 60:30:10. All busy: shares 6, 3, 1 (weights only).
    r = lpar_dispatch(10, [60, 30, 10], [8, 8, 8], [8.0, 8.0, 8.0])
    assert r.achieved_capacity == pytest.approx([6, 3, 1], abs=1e-12)
    # C idle: its 1 CPU splits 2:1 between A and B -> 6 + 2/3, 3 + 1/3
    r = lpar_dispatch(10, [60, 30, 10], [8, 8, 8], [8.0, 8.0, 0.0])
    assert r.achieved_capacity == pytest.approx([6 + 2 / 3, 3 + 1 / 3, 0], abs=1e-12)
    assert r.steal_fraction == pytest.approx([(8 - 20 / 3) / 8, (8 - 10 / 3) / 8, 0], abs=1e-12)
    assert r.unused_capacity == pytest.approx(0, abs=1e-12)


def test_lpar_prsm_planning_guide_two_cps_on_a_three_way():
    # PR/SM Planning Guide, "Processing weights": "an LP defined to have two CPs on a
    # three-way CPC can never be allocated more than 67% of the CP resources no matter
    # what its processing weight" (printed to 2 digits).
    r = lpar_dispatch(3, [999, 1], [2, 3], [2.0, 0.0])
    assert r.achieved_capacity[0] / 3 == pytest.approx(0.67, abs=0.005)
    assert r.entitled_capacity[0] == pytest.approx(2.0)


def test_lpar_capped_never_exceeds_its_share_uncapped_absorbs():
    r = lpar_dispatch(8, [1, 1], [8, 8], [8.0, 0.0], capped=[True, False])
    assert r.achieved_capacity == pytest.approx([4.0, 0.0])      # capped at 8 * 1/2
    assert r.unused_capacity == pytest.approx(4.0)
    r = lpar_dispatch(8, [1, 1], [8, 8], [8.0, 0.0], capped=[False, False])
    assert r.achieved_capacity == pytest.approx([8.0, 0.0])
    assert r.steal_fraction == pytest.approx([0.0, 0.0])


def test_lpar_weights_have_no_effect_below_saturation():
    # "Weights take effect when the number of logical processors requiring a timeslice
    # is greater than the number of not dedicated processors" (HMC help)
    r = lpar_dispatch(10, [900, 50, 50], [4, 4, 4], [3.0, 3.0, 3.0])
    assert r.achieved_capacity == pytest.approx([3, 3, 3])
    assert r.dispatch_fraction == pytest.approx([1, 1, 1])


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 5).flatmap(lambda k: st.tuples(
    st.floats(0.5, 32), st.lists(st.integers(1, 999), min_size=k, max_size=k),
    st.lists(st.integers(1, 16), min_size=k, max_size=k),
    st.lists(st.floats(0, 1), min_size=k, max_size=k),
    st.lists(st.booleans(), min_size=k, max_size=k))))
def test_lpar_matches_bisection_and_invariants(args):
    P, w, L, frac, cap = args
    d = [f * l for f, l in zip(frac, L)]
    r = lpar_dispatch(P, w, L, d, capped=cap)
    share = np.array(w, float) / sum(w)
    ceil = np.minimum(d, np.where(cap, P * share, np.inf))
    expected = _bisection_fill(P, w, ceil)
    a = np.asarray(r.achieved_capacity)
    assert a == pytest.approx(expected, rel=1e-9, abs=1e-9)
    assert a.sum() <= P + 1e-9
    assert np.all(a <= np.asarray(d) + 1e-12)
    assert np.all((r.steal_fraction >= -1e-12) & (r.steal_fraction <= 1 + 1e-12))
    if not any(cap) and sum(d) >= P:
        assert a.sum() == pytest.approx(P, rel=1e-9)              # work conserving
    assert np.asarray(r.entitled_capacity) == pytest.approx(np.minimum(P * share, L))


def test_lpar_more_demand_never_helps_the_others():
    base = lpar_dispatch(6, [3, 2, 1], [6, 6, 6], [2.0, 2.0, 2.0]).achieved_capacity
    more = lpar_dispatch(6, [3, 2, 1], [6, 6, 6], [5.0, 2.0, 2.0]).achieved_capacity
    assert np.all(more[1:] <= base[1:] + 1e-12) and more[0] >= base[0]


def test_lpar_batch_and_series():
    r = lpar_dispatch([2.0, 4.0, 8.0], [1, 1], [4, 4], [4.0, 4.0])
    assert r.achieved_capacity.shape == (3, 2)
    assert r.achieved_capacity[:, 0] == pytest.approx([1, 2, 4])
    assert r.unused_capacity == pytest.approx([0, 0, 0])
    w = pd.Series([2, 1], index=["PROD", "TEST"])
    r = lpar_dispatch(3, w, [3, 3], [3.0, 3.0])
    assert list(r.achieved_capacity.index) == ["PROD", "TEST"]
    assert r.achieved_capacity["PROD"] == pytest.approx(2.0)
    frame = r.to_frame()
    assert list(frame.index) == ["PROD", "TEST"] and "steal_fraction" in frame


def test_lpar_errors():
    with pytest.raises(ValueError, match="weights must be positive"):
        lpar_dispatch(4, [1, 0], [2, 2], [1.0, 1.0])
    with pytest.raises(ValueError, match="demand must not exceed logical_cpus"):
        lpar_dispatch(4, [1, 1], [2, 2], [3.0, 1.0])
    with pytest.raises(ValueError, match="logical_cpus must be a positive integer"):
        lpar_dispatch(4, [1, 1], [0, 2], [0.0, 1.0])
    with pytest.raises(ValueError, match="physical_cpus must be positive"):
        lpar_dispatch(0, [1, 1], [2, 2], [1.0, 1.0])
    with pytest.raises(ValueError, match="capped must be a boolean"):
        lpar_dispatch(4, [1, 1], [2, 2], [1.0, 1.0], capped=[1, 0])
    with pytest.raises(ValueError, match="demand must be non-negative"):
        lpar_dispatch(4, [1, 1], [2, 2], [-1.0, 1.0])


# ---------------------------------------------------------------------- idle-guest ticks
def test_idle_ticks_by_hand_hz_100_and_1000():
    # 300 idle guests x 2 VCPUs x 100 ticks/s x 25 us = 1.5 CPUs on 6 CPUs -> 25 %
    r = idle_guest_overhead(300, 100, cost_per_tick=25e-6, physical_cpus=6, virtual_cpus=2)
    assert r.tick_rate == pytest.approx(60000)
    assert r.cpu_overhead == pytest.approx(1.5)
    assert r.utilization == pytest.approx(0.25)
    assert r.saturation_guests == pytest.approx(6 / (2 * 100 * 25e-6))   # 1200
    r10 = idle_guest_overhead(300, 1000, cost_per_tick=25e-6, physical_cpus=60, virtual_cpus=2)
    assert r10.cpu_overhead == pytest.approx(10 * r.cpu_overhead)
    assert r.idle_interval == pytest.approx(0.01) and r.recognized_idle == 0.0


def test_idle_tick_patch_removes_overhead_and_allows_idle_detection():
    r = idle_guest_overhead(1000, 1000, idle_tick_patch=True)
    assert r.cpu_overhead == 0.0 and math.isinf(r.saturation_guests) and r.recognized_idle == 1.0
    # residual wake-ups: 2/s -> 0.5 s idle > 0.3 s test-idle; 10/s -> 0.1 s < 0.3 s
    r = idle_guest_overhead([100, 100], 100, idle_tick_patch=True, idle_wakeup_rate=[2.0, 10.0],
                            cost_per_tick=1e-5)
    assert r.recognized_idle.tolist() == [1.0, 0.0]
    assert r.cpu_overhead == pytest.approx([100 * 2 * 1e-5, 100 * 10 * 1e-5])


def test_idle_ticks_saturate_the_machine_with_warning():
    n_sat = 4 / (100 * 20e-6)                                           # 2000 guests on 4 CPUs
    with pytest.warns(SaturationWarning):
        r = idle_guest_overhead([1000, 2000, 4000], 100, cost_per_tick=20e-6, physical_cpus=4)
    assert r.saturation_guests == pytest.approx([n_sat] * 3)
    assert r.utilization.tolist() == pytest.approx([0.5, 1.0, 1.0])
    assert r.offered_load.tolist() == pytest.approx([0.5, 1.0, 2.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        idle_guest_overhead(100, 100, cost_per_tick=20e-6, physical_cpus=4)


@settings(max_examples=50, deadline=None)
@given(st.integers(0, 5000), st.sampled_from([100.0, 250.0, 1000.0]), st.floats(1e-7, 1e-4),
       st.floats(1, 64))
def test_idle_ticks_linear_in_guests(n, hz, c, P):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SaturationWarning)
        r1 = idle_guest_overhead(n, hz, cost_per_tick=c, physical_cpus=P)
        r2 = idle_guest_overhead(2 * n, hz, cost_per_tick=c, physical_cpus=P)
    assert r2.cpu_overhead == pytest.approx(2 * r1.cpu_overhead, abs=1e-15)
    assert 0 <= r1.utilization <= 1
    assert r1.offered_load == pytest.approx(n / r1.saturation_guests, rel=1e-12, abs=1e-15)


def test_idle_ticks_series_and_errors():
    s = pd.Series([10, 20], index=["a", "b"])
    r = idle_guest_overhead(s, 100, cost_per_tick=1e-5)
    assert list(r.cpu_overhead.index) == ["a", "b"]
    assert list(r.to_frame().index) == ["a", "b"]
    with pytest.raises(ValueError, match="guests must be an integer >= 0"):
        idle_guest_overhead(-1)
    with pytest.raises(ValueError, match="hz must be positive"):
        idle_guest_overhead(10, 0)
    with pytest.raises(ValueError, match="idle_tick_patch must be a boolean"):
        idle_guest_overhead(10, 100, idle_tick_patch="yes")
    with pytest.raises(ValueError, match="virtual_cpus must be a positive integer"):
        idle_guest_overhead(10, 100, virtual_cpus=0)
    with pytest.raises(ValueError, match="cost_per_tick must be non-negative"):
        idle_guest_overhead(10, 100, cost_per_tick=-1e-6)


# ------------------------------------------------------------------ holder preemption
def test_holder_preemption_exact_fractions():
    # rho = 3, h = 1 ms, T_s = 5 ms: kappa = 1, D = 2 T_s = 10 ms, mean preemptions h/T_s = 1/5
    h, ts = Fraction(1, 1000), Fraction(5, 1000)
    D, m = 2 * ts, h / ts
    EH = h + m * D                                   # = 3 h
    EH2 = EH ** 2 + m * 2 * D ** 2
    r = holder_preemption(3.0, 1e-3, 5e-3)
    assert EH == 3 * h
    assert r.effective_hold_time == pytest.approx(float(EH), rel=1e-12)
    assert r.hold_time_second_moment == pytest.approx(float(EH2), rel=1e-12)
    assert r.residual_hold_time == pytest.approx(float(EH2 / (2 * EH)), rel=1e-12)
    assert r.preemption_probability == pytest.approx(2 / 3, rel=1e-12)   # 1 - 1/rho
    assert r.descheduled_time == pytest.approx(0.01)
    # rho = 1.5: kappa = 1/2, D = T_s; steal kappa D / (T_s + kappa D) = 1/3 = 1 - 1/1.5
    r = holder_preemption(1.5, 1e-3, 5e-3)
    assert r.steal_fraction == pytest.approx(1 / 3) and r.preemption_probability == pytest.approx(1 / 3)


def test_holder_preemption_monte_carlo_moments():
    # compound Poisson hold: M ~ Poisson(kappa h / T_s), off periods ~ Exp(D); seeded
    rng = np.random.default_rng(20240605)
    h, ts, rho = 2e-3, 5e-3, 2.5
    kappa, D = 1.0, ts * 1.5
    n = 200_000
    M = rng.poisson(kappa * h / ts, n)
    H = h + np.array([rng.exponential(D, k).sum() for k in M[:20000]])
    H = np.concatenate([H, h + rng.gamma(np.maximum(M[20000:], 1), D) * (M[20000:] > 0)])
    r = holder_preemption(rho, h, ts)
    se1 = H.std() / math.sqrt(n)
    se2 = (H ** 2).std() / math.sqrt(n)
    assert abs(H.mean() - r.effective_hold_time) < 4 * se1
    assert abs((H ** 2).mean() - r.hold_time_second_moment) < 4 * se2


def test_no_overcommit_means_no_preemption():
    r = holder_preemption([0.25, 1.0], 1e-5)
    assert r.preemption_probability.tolist() == [0.0, 0.0]
    assert r.residual_hold_time == pytest.approx([5e-6, 5e-6])


@settings(max_examples=50, deadline=None)
@given(st.floats(0.1, 16), st.floats(1e-7, 1e-2), st.floats(1e-4, 5e-2))
def test_preemption_monotone_in_overcommit(rho, h, ts):
    a = holder_preemption(rho, h, ts)
    b = holder_preemption(rho * 1.25, h, ts)
    assert b.preemption_probability >= a.preemption_probability - 1e-12
    assert b.residual_hold_time >= a.residual_hold_time * (1 - 1e-12)
    assert 0 <= a.preemption_probability < 1


# ------------------------------------------------------------------------- spinlocks
def _rounds_by_series(r, S, Y, terms=4000):
    """Wait, spin CPU and yields of spin-S/yield-Y polling on an Exp(r) release, term by term."""
    mu, L = 1 / r, S + Y
    W = C = K = 0.0
    for j in range(terms):
        a = math.exp(-mu * j * L)
        in_spin = a * (1 - math.exp(-mu * S))
        # E[T; T in spin phase j] = a * (j L (1 - e^{-mu S}) + r (1 - e^{-mu S}) - S e^{-mu S})
        W += a * (j * L * (1 - math.exp(-mu * S)) + r * (1 - math.exp(-mu * S)) - S * math.exp(-mu * S))
        in_yield = a * (math.exp(-mu * S) - math.exp(-mu * L))
        W += in_yield * (j + 1) * L
        C += a * r * (1 - math.exp(-mu * S))
        K += a * math.exp(-mu * S)
        if in_spin + in_yield < 1e-18 and j > 2:
            break
    return W, C, K


def _poll_mc(r, S, Y, n=200_000, seed=7):
    rng = np.random.default_rng(seed)
    T = rng.exponential(r, n)
    L = S + Y
    j = np.floor(T / L)
    in_spin = T - j * L < S
    W = np.where(in_spin, T, (j + 1) * L)
    C = j * S + np.where(in_spin, T - j * L, S)
    K = j + (~in_spin)
    return W, C, K


@pytest.mark.parametrize("r,S,Y", [(5e-6, 20e-6, 10e-6), (5e-3, 20e-6, 5.01e-3), (1e-3, 0.0, 2e-4)])
def test_polling_rounds_closed_form_vs_series_and_simulation(r, S, Y):
    from zmodel.kernel.hypervisor import _poll

    w, c, k = (float(v) for v in _poll(np.float64(r), np.float64(S), np.float64(Y)))
    ws, cs, ks = _rounds_by_series(r, S, Y)
    assert (w, c, k) == pytest.approx((ws, cs, ks), rel=1e-9)
    W, C, K = _poll_mc(r, S, Y)
    for est, sample in ((w, W), (c, C), (k, K)):
        assert abs(sample.mean() - est) < 4 * sample.std() / math.sqrt(len(sample)) + 1e-15


def test_spinlock_no_overcommit_by_hand():
    h, c, it, n = 10e-6, 10e-6, 20e-9, 1000
    r = spinlock_yield(1.0, h, "spin")
    assert (r.lock_wait, r.wasted_cpu, r.release_time) == pytest.approx((h / 2, h / 2, h / 2))
    # DIAG 44 on every attempt, nothing else to run: polls every c, Exp(h/2) release
    r = spinlock_yield(1.0, h, "diag44", diagnose_cost=c)
    k = 1 / (1 - math.exp(-c / (h / 2)))
    assert r.diagnoses == pytest.approx(k) and r.lock_wait == pytest.approx(c * k)
    assert r.wasted_cpu == pytest.approx(c * k)
    # spin_retry first: sigma = e^{-S/r}
    S = n * it
    sig, beta = math.exp(-S / (h / 2)), math.exp(-(S + c) / (h / 2))
    r = spinlock_yield(1.0, h, "spin_retry_diag44", spin_retry=n, spin_iteration_time=it, diagnose_cost=c)
    assert r.lock_wait == pytest.approx((h / 2 * (1 - sig) + sig * c) / (1 - beta))


def test_spinlock_overcommitted_branches_by_hand():
    rho, h, ts, c, S = 2.0, 10e-6, 5e-3, 10e-6, 1000 * 20e-9
    p, D, g, kappa = 0.5, ts, 2.0, 1.0
    rA, rB = g * h / 2, D + g * h / 2

    def poll(r, S, Y):
        sig, beta = math.exp(-S / r), math.exp(-(S + Y) / r)
        return (r * (1 - sig) + sig * Y) / (1 - beta), r * (1 - sig) / (1 - beta), sig / (1 - beta)

    spin = spinlock_yield(rho, h, "spin")
    assert spin.lock_wait == pytest.approx((1 - p) * rA + p * rB)
    d44 = spinlock_yield(rho, h, "diag44")
    (wa, ca, ka), (wb, cb, kb) = poll(rA, 0.0, c + kappa * D), poll(rB, 0.0, c + kappa * D)
    assert d44.lock_wait == pytest.approx((1 - p) * wa + p * wb)
    assert d44.wasted_cpu == pytest.approx((1 - p) * c * ka + p * c * kb)
    d9c = spinlock_yield(rho, h, "spin_retry_diag9c")
    rB9 = D * (1 - math.exp(-(S + c) / D)) + g * h / 2
    (wa, ca, ka), (wb, cb, kb) = poll(rA, S, c), poll(rB9, S, c + kappa * D)
    assert d9c.release_time == pytest.approx((1 - p) * rA + p * rB9)
    assert d9c.lock_wait == pytest.approx((1 - p) * wa + p * wb)
    assert d9c.wasted_cpu == pytest.approx((1 - p) * (ca + c * ka) + p * (cb + c * kb))
    # pure spinning waits the residual hold of holder_preemption (same model)
    assert spin.release_time == pytest.approx(holder_preemption(rho, h, ts).residual_hold_time)


def test_diag44_allows_more_useful_work_when_overcommitted():
    # WAVV 2008: DIAG 44 gives "the CPU back instead of looping for the lock. This
    # allowed more useful work to be done."
    for rho in (1.5, 2.0, 4.0):
        for h in (1e-6, 1e-5, 1e-4):
            assert spinlock_yield(rho, h, "diag44").wasted_cpu < spinlock_yield(rho, h, "spin").wasted_cpu


def test_diag44_is_expensive_for_short_holds_without_overcommit():
    # Schwidefsky 2005 (spin_retry patch): "For spin locks that are held only for a short
    # period of time the costs of the diagnoses outweights the savings"
    for h in (1e-7, 1e-6, 5e-6):
        d44 = spinlock_yield(1.0, h, "diag44")
        assert d44.wasted_cpu > spinlock_yield(1.0, h, "spin").wasted_cpu
        assert spinlock_yield(1.0, h, "spin_retry_diag44").wasted_cpu < d44.wasted_cpu


def test_directed_yield_beats_undirected_under_overcommit():
    # WAVV 2008: DIAG 9C passes "who should get the processor"
    for rho in (1.5, 2.0, 4.0):
        for h in (1e-6, 1e-5, 1e-4):
            d44 = spinlock_yield(rho, h, "spin_retry_diag44")
            d9c = spinlock_yield(rho, h, "spin_retry_diag9c")
            assert d9c.release_time < d44.release_time
            assert d9c.lock_wait < d44.lock_wait


@settings(max_examples=50, deadline=None)
@given(st.floats(0.2, 8), st.floats(1e-7, 1e-3), st.sampled_from(SPINLOCK_STRATEGIES))
def test_spinlock_invariants(rho, h, strategy):
    r = spinlock_yield(rho, h, strategy)
    assert r.lock_wait >= r.release_time * (1 - 1e-9) or strategy == "spin_retry_diag9c"
    assert r.wasted_cpu <= r.lock_wait * (1 + 1e-9) + 1e-15     # burnt CPU is part of the wait
    assert r.wasted_cpu >= 0 and r.diagnoses >= 0
    more = spinlock_yield(rho * 1.5, h, strategy)
    assert more.release_time >= r.release_time * (1 - 1e-9)


def test_spinlock_series_and_errors():
    s = pd.Series([1.0, 2.0], index=["x", "y"])
    r = spinlock_yield(s, 1e-5, "diag44")
    assert list(r.lock_wait.index) == ["x", "y"] and r.strategy == "diag44"
    assert len(r.to_frame()) == 2
    with pytest.raises(ValueError, match="strategy must be one of"):
        spinlock_yield(2.0, 1e-5, "diag9c")
    with pytest.raises(ValueError, match="spin_retry must be an integer >= 0"):
        spinlock_yield(2.0, 1e-5, spin_retry=-1)
    with pytest.raises(ValueError, match="overcommit must be positive"):
        spinlock_yield(0.0, 1e-5)
    with pytest.raises(ValueError, match="hold_time must be positive"):
        holder_preemption(2.0, 0.0)
    with pytest.raises(ValueError, match="time_slice must be positive"):
        holder_preemption(2.0, 1e-5, 0.0)


# ------------------------------------------------- preempted holder inside a lock's queue
def test_preempted_hold_time_by_hand():
    # overcommit 2, h = 10 us, T_s = 5 ms: kappa = 1, D = T_s max(1, rho - 1) = 5 ms, m = kappa h/T_s = 0.002;
    # DIAG 10 us, spin_retry 1000 x 20 ns = 20 us.
    h, ts, c, S = 10e-6, 5e-3, 10e-6, 20e-6
    m, D = h / ts, ts
    spin = preempted_hold_time(2.0, h, "spin")
    assert spin.preemptions == pytest.approx(0.002, rel=1e-12)
    assert spin.holder_delay == pytest.approx(5e-3, rel=1e-12)
    assert spin.effective_hold_time == pytest.approx(20e-6, rel=1e-12)          # 10 us + 0.002 x 5 ms
    # plain spinning is holder_preemption's mean wall-clock hold h max(1, rho)
    assert spin.effective_hold_time == pytest.approx(holder_preemption(2.0, h).effective_hold_time, rel=1e-12)
    # DIAG 44 with half the queued virtual CPUs waiters: W = D (0.5 + 0.5 c / T_s) = 2.505 ms
    d44 = preempted_hold_time(2.0, h, "diag44", yielding_fraction=0.5)
    assert d44.holder_delay == pytest.approx(2.505e-3, rel=1e-12)
    assert d44.effective_hold_time == pytest.approx(15.01e-6, rel=1e-12)
    # spin_retry + DIAG 44: the waiter keeps its CPU S + c = 30 us: W = D (0.5 + 0.5 x 0.006) = 2.515 ms
    r44 = preempted_hold_time(2.0, h, "spin_retry_diag44", yielding_fraction=0.5)
    assert r44.effective_hold_time == pytest.approx(h + m * 2.515e-3, rel=1e-12)
    # no waiter queued ahead: DIAG 44 does not help the holder at all
    assert preempted_hold_time(2.0, h, "diag44").effective_hold_time == pytest.approx(20e-6, rel=1e-12)
    # DIAG 9C: W = D (1 - exp(-(S + c)/D)) ~ 29.91 us
    d9c = preempted_hold_time(2.0, h, "spin_retry_diag9c")
    assert d9c.holder_delay == pytest.approx(-D * math.expm1(-(S + c) / D), rel=1e-12)
    assert d9c.effective_hold_time == pytest.approx(h + m * -D * math.expm1(-(S + c) / D), rel=1e-12)
    # overcommit 3: D = 2 T_s = 10 ms; 1.5: kappa = 1/2, D = T_s
    assert preempted_hold_time(3.0, h, "spin").effective_hold_time == pytest.approx(h + (h / ts) * 10e-3)
    assert preempted_hold_time(1.5, h, "spin").effective_hold_time == pytest.approx(h + 0.5 * (h / ts) * ts)


def test_preempted_hold_time_limits():
    # no overcommit: the holder is never preempted, the hold is h exactly (every strategy)
    for strategy in SPINLOCK_STRATEGIES:
        for rho in (0.5, 1.0):
            r = preempted_hold_time(rho, 7e-6, strategy, yielding_fraction=0.3)
            assert r.effective_hold_time == 7e-6 and r.preemptions == 0.0


@settings(max_examples=60, deadline=None)
@given(st.floats(1.0, 8.0), st.floats(1e-7, 1e-3), st.floats(0.0, 1.0))
def test_directed_yield_never_lengthens_the_hold(rho, h, q):
    # same spin phase: W_9C <= min(D, S + c) <= W_44 <= W_spin = D (S + c = 30 us < T_s, D >= T_s)
    hold = {s: preempted_hold_time(rho, h, s, yielding_fraction=q).effective_hold_time for s in SPINLOCK_STRATEGIES}
    assert hold["spin_retry_diag9c"] <= hold["spin_retry_diag44"] * (1 + 1e-12)
    # plain DIAG 44 (no spin phase) is beaten by DIAG 9C unless nearly all queued VCPUs are waiters:
    # W_44 = D (1 - q) + q c D/T_s >= S + c >= W_9C when (1 - q) T_s >= S + c (D >= T_s)
    if (1 - q) * 5e-3 >= 30e-6:
        assert hold["spin_retry_diag9c"] <= hold["diag44"] * (1 + 1e-12)
    assert hold["diag44"] <= hold["spin"] * (1 + 1e-12) and hold["spin_retry_diag44"] <= hold["spin"] * (1 + 1e-12)
    assert hold["spin_retry_diag9c"] >= h


def test_preempted_hold_time_errors():
    with pytest.raises(ValueError, match="strategy must be one of"):
        preempted_hold_time(2.0, 1e-5, "diag9c")
    with pytest.raises(ValueError, match="yielding_fraction"):
        preempted_hold_time(2.0, 1e-5, "diag44", yielding_fraction=1.5)
    with pytest.raises(ValueError, match="hold_time must be positive"):
        preempted_hold_time(2.0, 0.0)


def test_cp_overhead_by_hand():
    cp = CpCosts(time_per_io=25e-6, time_per_dispatch=10e-6)
    # 4 I/Os, 6 wakeups, 12 ms of guest CPU, overcommit 1.5 (kappa = 0.5), T_s = 4 ms:
    # dispatches = 6 + 0.5 x 12/4 = 7.5; CP = 4 x 25 us + 7.5 x 10 us = 175 us
    r = cp_overhead(4, 6, 12e-3, 1.5, cp, time_slice=4e-3)
    assert r.dispatches == pytest.approx(7.5, rel=1e-12)
    assert r.io_time == pytest.approx(100e-6, rel=1e-12) and r.dispatch_time == pytest.approx(75e-6, rel=1e-12)
    assert r.total_time == pytest.approx(175e-6, rel=1e-12)
    # no overcommit: no slice-end dispatches, only the wakeups
    assert cp_overhead(4, 6, 12e-3, 1.0, cp).dispatches == 6.0
    with pytest.raises(ValueError, match="costs must be a CpCosts, got dict"):
        cp_overhead(1, 1, 1e-3, costs={})
    with pytest.raises(ValueError, match="time_per_io must be non-negative"):
        CpCosts(time_per_io=-1.0)
    with pytest.raises(ValueError, match="ios must be"):
        cp_overhead(-1, 1, 1e-3)


def test_cp_costs_declare_their_provenance():
    from zmodel.queueing._params import parameter_info

    info = parameter_info(CpCosts)
    assert set(info) == {"time_per_io", "time_per_dispatch"}
    for name, i in info.items():
        assert i.unit == "s" and i.range[0] <= i.default <= i.range[1], name
        assert i.source.startswith("assumed: "), name     # no public per-event figure was read


# ------------------------------------------------------------- top / steal accounting
# WAVV 2008, slide "Linux command 'top' - the snapshot tool" (printed to 0.1 %)
TOP = {  # us, sy, ni, id, wa, hi, si, st
    0: (38.7, 4.2, 0.0, 0.0, 2.4, 1.8, 0.0, 53.0),
    1: (38.5, 0.6, 0.0, 5.1, 1.3, 1.9, 0.0, 52.6),
    2: (54.0, 0.6, 0.0, 0.6, 4.9, 1.2, 0.0, 38.7),
    3: (49.1, 0.6, 0.0, 1.2, 0.0, 0.0, 0.0, 49.1),
    4: (35.9, 1.2, 0.0, 15.0, 0.6, 1.8, 0.0, 45.5),
    5: (43.0, 2.1, 0.7, 0.0, 4.2, 1.4, 0.0, 48.6),
}


def test_top_snapshot_total_steal_from_busy_fractions():
    # Given the snapshot's busy columns as the capacity the guest got, the model's total
    # steal must equal the printed total up to the print rounding (0.1 % per line).
    lines = np.array([TOP[j] for j in range(6)]) / 100
    us, sy, ni, idl, wa, hi, si, stl = lines.T
    busy = us + sy + ni + hi + si
    r = guest_cpu_accounting(1 - idl - wa, busy.sum(), iowait=wa)
    assert r.steal.sum() == pytest.approx(100 * stl.sum(), abs=0.6)
    assert r.dispatch_fraction == pytest.approx(busy.sum() / (1 - idl - wa).sum())
    assert r.idle == pytest.approx(100 * idl) and r.iowait == pytest.approx(100 * wa)


def test_six_vcpus_on_three_cpus_by_hand():
    r = guest_cpu_accounting([1.0] * 6, 3.0, user=0.8, system=0.15, hardirq=0.05)
    assert r.user == pytest.approx([40.0] * 6) and r.system == pytest.approx([7.5] * 6)
    assert r.hardirq == pytest.approx([2.5] * 6) and r.steal == pytest.approx([50.0] * 6)
    assert r.tick_based_busy == pytest.approx([100.0] * 6)
    # enough capacity: no steal, tick-based and virtual accounting agree
    r = guest_cpu_accounting([0.5, 0.2], 1.0)
    assert r.steal == pytest.approx([0, 0]) and r.user == pytest.approx([50, 20])
    assert r.tick_based_busy == pytest.approx(r.user)


@settings(max_examples=50, deadline=None)
@given(st.lists(st.floats(0, 1), min_size=1, max_size=8), st.floats(0.05, 8), st.floats(0, 1))
def test_accounting_columns_sum_to_100(runnable, cap, wa_share):
    r_ = np.array(runnable)
    wa = wa_share * (1 - r_)
    r = guest_cpu_accounting(r_, cap, iowait=wa, user=0.5, system=0.3, nice=0.1, softirq=0.1)
    total = r.user + r.nice + r.system + r.idle + r.iowait + r.hardirq + r.softirq + r.steal
    assert total == pytest.approx(np.full(len(runnable), 100.0), abs=1e-9)
    busy = r.user + r.nice + r.system + r.hardirq + r.softirq
    assert busy.sum() / 100 <= cap + 1e-9
    assert np.all(r.steal >= -1e-12)
    assert r.tick_based_busy - busy == pytest.approx(r.steal, abs=1e-9)


def test_accounting_batch_series_and_errors():
    r = guest_cpu_accounting([[1.0, 1.0], [1.0, 1.0]], [1.0, 2.0])
    assert r.steal.shape == (2, 2) and r.steal[:, 0] == pytest.approx([50, 0])
    s = pd.Series([1.0, 0.5], index=["cpu0", "cpu1"])
    r = guest_cpu_accounting(s, 1.0)
    assert list(r.steal.index) == ["cpu0", "cpu1"]
    assert list(r.to_frame().index) == ["cpu0", "cpu1"]
    with pytest.raises(ValueError, match="runnable must be a probability in"):
        guest_cpu_accounting([1.5], 1.0)
    with pytest.raises(ValueError, match="must sum to 1"):
        guest_cpu_accounting([0.5], 1.0, user=0.5)
    with pytest.raises(ValueError, match="iowait must not exceed 1 - runnable"):
        guest_cpu_accounting([0.8], 1.0, iowait=0.5)
    with pytest.raises(ValueError, match="capacity must be positive"):
        guest_cpu_accounting([0.8], 0.0)
    with pytest.raises(ValueError, match="runnable must have one entry per virtual CPU"):
        guest_cpu_accounting(0.8, 1.0)


# ------------------------------------------------------- finite-source dispatch steal
def test_dispatch_steal_machine_repairman_by_hand():
    # N = 2 VCPUs, 1 CPU, u = 1/2, S = 1 -> Z = 1: states 0,1,2 weights 1, 2, 2 (= 2! (S/Z)^2)
    p = [Fraction(1, 5), Fraction(2, 5), Fraction(2, 5)]
    X = (p[1] + p[2]) / 1
    steal = p[2] * 1 / 2                       # Q_w / N
    busy = X * 1 / 2
    idle = 1 - (p[1] + 2 * p[2]) / 2
    r = vcpu_dispatch_steal(2, 1, 0.5, 1.0)
    assert (r.busy_fraction, r.steal_fraction, r.idle_fraction) == pytest.approx(
        (float(busy), float(steal), float(idle)), rel=1e-12)


def test_dispatch_steal_limits():
    r = vcpu_dispatch_steal([6, 6, 3], [3, 6, 6], 1.0)
    assert r.steal_fraction == pytest.approx([0.5, 0.0, 0.0])
    assert r.busy_fraction == pytest.approx([0.5, 1.0, 1.0])
    r = vcpu_dispatch_steal([8, 16, 32], 4, 0.3, 5e-3)
    assert np.all(np.diff(r.steal_fraction) > 0)
    total = r.busy_fraction + r.steal_fraction + r.idle_fraction
    assert total == pytest.approx([1, 1, 1])
    with pytest.raises(ValueError, match=r"dedicated_busy must be in \(0, 1\]"):
        vcpu_dispatch_steal(2, 1, 0.0)


def test_consistent_with_the_lock_side_hook():
    # zmodel.kernel.locks.spin_waste prices ONE spin phase and one
    # yield per contended acquisition; spinlock_yield repeats rounds until release, so
    # per branch it must equal the hook's first round divided by 1 - e^{-(S+Y)/r}.
    from zmodel.kernel import locks
    rho, h, ts, c, S = 2.0, 1e-5, 5e-3, 10e-6, 1000 * 20e-9
    hp = holder_preemption(rho, h, ts)
    p, D = hp.preemption_probability, hp.descheduled_time
    rA, rB = rho * h / 2, D + rho * h / 2
    assert spinlock_yield(rho, h, "spin").wasted_cpu == pytest.approx(locks.spin_waste(p, rA, rB).wasted_time)
    Y = c + 1.0 * D
    first_a = locks.spin_waste(0.0, rA, rA, spin_limit=S, yield_cost=c).wasted_time
    first_b = locks.spin_waste(1.0, rB, rB, spin_limit=S, yield_cost=c).wasted_time
    expected = (1 - p) * first_a / (1 - math.exp(-(S + Y) / rA)) + p * first_b / (1 - math.exp(-(S + Y) / rB))
    assert spinlock_yield(rho, h, "spin_retry_diag44", time_slice=ts).wasted_cpu == pytest.approx(expected)
