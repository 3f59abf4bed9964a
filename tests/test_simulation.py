"""The simulation oracle against exact results, and exact results against it.

Acceptance rule (documented once, used everywhere): a simulated mean agrees with an
exact value when they differ by at most ``WIDEN`` = 3 half-widths of its 95 % t
interval (independent replications). The runs are seeded, so the outcome is
deterministic; the widening keeps the checks robust to a change of seed or of
NumPy's generators while still failing on any bias larger than a few standard errors.
Approximations (G/G/c) get their published accuracy on top.
"""
import math
from fractions import Fraction

import numpy as np
import pytest

from zmodel.queueing.simulation import (ClosedNetworkSimulationResult, StationSimulationResult,
                                        simulate_closed_network, simulate_station)
from zmodel.queueing.single import ggc, md1, mg1, mm1, mmck

WIDEN = 3.0
STATION_METRICS = ("response_time", "waiting_time", "queue_length", "queue_waiting",
                   "utilization", "throughput", "waiting_probability", "blocking_probability")


def assert_within(sim, metric, exact, widen=WIDEN, slack=0.0):
    mean = np.asarray(getattr(sim, metric))
    half = np.asarray(getattr(sim, f"{metric}_half_width"))
    exact = np.asarray(exact, dtype=float)
    assert np.all(np.abs(mean - exact) <= widen * half + slack * np.abs(exact) + 1e-12), (
        f"{metric}: simulated {mean} +- {half}, expected {exact}")


def buzen_exact(demands, population, think_time):
    """Exact closed network (single-server FCFS stations + delay) by Buzen's convolution
    in rational arithmetic: G(n) = sum over states of Z^n0/n0! prod D_k^nk."""
    d = [Fraction(x) for x in demands]
    z = Fraction(think_time)
    g = [z**n / math.factorial(n) for n in range(population + 1)]   # the delay station
    for dk in d:
        for n in range(1, population + 1):
            g[n] = g[n] + dk * g[n - 1]
    x = g[population - 1] / g[population]
    q = [sum(dk**j * g[population - j] for j in range(1, population + 1)) / g[population] for dk in d]
    return {"throughput": x, "response_time": population / x - z,
            "queue_length": q, "utilization": [x * dk for dk in d],
            "residence_time": [qk / x for qk in q]}


# ---------------------------------------------------------------- exact open stations
def test_mm1_simulation_matches_exact():
    sim = simulate_station(0.5, 1.0, replications=5, horizon=4000.0, seed=11)
    ref = mm1(0.5, 1.0)
    for metric in STATION_METRICS:
        assert_within(sim, metric, getattr(ref, metric))
    assert sim.replications == 5 and sim.seed == 11


def test_mmck_simulation_matches_exact():
    sim = simulate_station(1.8, 1.0, 2, capacity=4, replications=5, horizon=3000.0, seed=12)
    ref = mmck(1.8, 1.0, 2, 4)
    for metric in STATION_METRICS:
        assert_within(sim, metric, getattr(ref, metric))
    assert sim.blocking_probability > 0.1


def test_md1_simulation_matches_exact():
    sim = simulate_station(0.6, 1.0, 1, service_scv=0.0, replications=5, horizon=4000.0, seed=13)
    ref = md1(0.6, 1.0)
    for metric in STATION_METRICS:
        assert_within(sim, metric, getattr(ref, metric))


def test_mg1_lognormal_simulation_matches_pollaczek_khinchine():
    # P-K is exact for any service distribution: a lognormal with SCV 3 must agree.
    sim = simulate_station(0.5, 1.0, 1, service_scv=3.0, service_distribution="lognormal",
                           replications=6, horizon=6000.0, seed=14)
    ref = mg1(0.5, 1.0, 3.0)
    for metric in STATION_METRICS:
        assert_within(sim, metric, getattr(ref, metric))


def test_gamma_service_mg1_matches_pollaczek_khinchine():
    sim = simulate_station(0.7, 1.0, 1, service_scv=0.25, replications=5, horizon=4000.0, seed=21)
    ref = mg1(0.7, 1.0, 0.25)
    for metric in ("response_time", "queue_length", "utilization"):
        assert_within(sim, metric, getattr(ref, metric))


# ---------------------------------------------------------------- approximations
def test_ggc_approximations_within_published_accuracy():
    # G/G/3, rho = 0.8, smooth arrivals (ca2 = 0.5), variable service (cs2 = 2). The
    # Allen-Cunneen and Kingman/Sakasegawa waits are two-moment approximations, good
    # to roughly 10-20 % in this range (Bolch et al. 2006, Ch. 6 comparisons); allow
    # 20 % on top of the simulation's widened interval.
    sim = simulate_station(2.4, 1.0, 3, arrival_scv=0.5, service_scv=2.0, replications=6,
                           horizon=3000.0, seed=15)
    for method in ("allen_cunneen", "kingman"):
        approx = ggc(2.4, 1.0, 3, 0.5, 2.0, method=method)
        assert approx.approximation
        for metric in ("waiting_time", "response_time", "queue_length"):
            assert_within(sim, metric, getattr(approx, metric), slack=0.20)
        assert_within(sim, "utilization", approx.utilization)   # exact for any G/G/c


@pytest.mark.slow
def test_ggc_lognormal_two_servers_longer_run():
    # Lognormal arrivals and service, G/G/2 at rho = 0.85: longer run, same acceptance.
    sim = simulate_station(1.7, 1.0, 2, arrival_scv=2.0, service_scv=0.5,
                           arrival_distribution="lognormal", service_distribution="lognormal",
                           replications=8, horizon=6000.0, seed=16)
    approx = ggc(1.7, 1.0, 2, 2.0, 0.5)
    assert_within(sim, "waiting_time", approx.waiting_time, slack=0.20)
    assert_within(sim, "throughput", 1.7)


# ---------------------------------------------------------------- closed networks
def test_closed_network_matches_buzen_convolution():
    demands, n_pop, z = [0.3, 0.2], 4, 1.0
    ref = buzen_exact(demands, n_pop, z)
    sim = simulate_closed_network(demands, n_pop, think_time=z, replications=5, seed=16)
    assert isinstance(sim, ClosedNetworkSimulationResult)
    for metric in ("throughput", "response_time"):
        assert_within(sim, metric, float(ref[metric]))
    for metric in ("queue_length", "utilization", "residence_time"):
        assert_within(sim, metric, [float(v) for v in ref[metric]])


def test_closed_network_single_job_is_sum_of_demands():
    sim = simulate_closed_network([0.2, 0.3], 1, replications=5, horizon=500.0, seed=2)
    assert_within(sim, "response_time", 0.5)
    assert_within(sim, "throughput", 2.0)


def test_closed_network_visit_order_does_not_matter():
    # Product form: the means depend on the demands only, not on the order of the
    # visits (both runs checked against the same exact solution).
    ref = buzen_exact([0.1, 0.4, 0.2], 3, 0.0)
    for order in ([0.1, 0.4, 0.2], [0.4, 0.2, 0.1]):
        sim = simulate_closed_network(order, 3, replications=4, seed=3)
        assert_within(sim, "throughput", float(ref["throughput"]))


def test_closed_network_matches_exact_mva_with_multiserver():
    # Cross-check with exact MVA (zmodel.queueing.closed, independent code), including a
    # two-server station, which the Buzen helper above does not cover.
    from zmodel.queueing.closed import mva

    demands, servers = [0.3, 0.5, 0.1], [1, 2, 1]
    ref = mva(demands, 6, 0.5, servers=servers)
    sim = simulate_closed_network(demands, 6, think_time=0.5, servers=servers, replications=5, seed=17)
    for metric in ("throughput", "response_time", "queue_length", "utilization", "residence_time"):
        assert_within(sim, metric, getattr(ref, metric))


# ---------------------------------------------------------------- reproducibility, containers
def test_seeded_runs_reproduce():
    a = simulate_station(0.5, 1.0, replications=3, horizon=500.0, seed=7)
    b = simulate_station(0.5, 1.0, replications=3, horizon=500.0, seed=7)
    c = simulate_station(0.5, 1.0, replications=3, horizon=500.0, seed=8)
    assert a == b
    assert a.response_time != c.response_time


def test_results_and_frames():
    sim = simulate_station(0.5, 1.0, replications=3, horizon=500.0, seed=7)
    assert isinstance(sim, StationSimulationResult)
    low, high = sim.interval("response_time")
    assert low < sim.response_time < high
    frame = sim.to_frame()
    assert len(frame) == 1 and frame.loc[0, "seed"] == 7
    closed = simulate_closed_network([0.2, 0.3], 2, replications=3, horizon=300.0, seed=1)
    cf = closed.to_frame()
    assert list(cf["station"]) == [0, 1] and "residence_time_half_width" in cf.columns


# ---------------------------------------------------------------- errors
def test_error_distribution():
    with pytest.raises(ValueError, match=r"service_distribution must be one of \('gamma', 'lognormal'\), got 'pareto'"):
        simulate_station(0.5, 1.0, service_distribution="pareto")


def test_error_replications():
    with pytest.raises(ValueError, match=r"replications must be an integer >= 2, got 1"):
        simulate_station(0.5, 1.0, replications=1)


def test_error_confidence():
    with pytest.raises(ValueError, match=r"confidence must be in \(0, 1\), got 1.5"):
        simulate_station(0.5, 1.0, confidence=1.5)


def test_error_seed():
    with pytest.raises(ValueError, match=r"seed must be a non-negative integer or None, got -3"):
        simulate_station(0.5, 1.0, seed=-3)


def test_error_capacity():
    with pytest.raises(ValueError, match=r"capacity must be >= servers, got capacity=1 < servers=2"):
        simulate_station(0.5, 1.0, 2, capacity=1)


def test_error_warmup():
    with pytest.raises(ValueError, match=r"warmup must be shorter than horizon"):
        simulate_station(0.5, 1.0, horizon=10.0, warmup=10.0)


def test_error_scalar_only():
    with pytest.raises(ValueError, match=r"arrival_rate must be a scalar \(a number\), got shape \(2,\)"):
        simulate_station([0.5, 0.6], 1.0)


def test_error_arrival_rate_positive():
    with pytest.raises(ValueError, match=r"arrival_rate must be positive and finite, got 0.0"):
        simulate_station(0.0, 1.0)


def test_error_servers_per_station():
    with pytest.raises(ValueError, match=r"servers must be a scalar or have one entry per station \(2\)"):
        simulate_closed_network([0.1, 0.2], 2, servers=[1, 1, 1])


def test_error_demands_shape():
    with pytest.raises(ValueError, match=r"service_demands must be one-dimensional"):
        simulate_closed_network([[0.1, 0.2]], 2)


def test_error_population():
    with pytest.raises(ValueError, match=r"population must be a positive integer, got 0"):
        simulate_closed_network([0.1, 0.2], 0)
