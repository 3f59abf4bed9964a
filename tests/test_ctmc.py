"""Tests of the sparse CTMC solver and finite-capacity networks (zmodel/queueing/ctmc.py).

Expected values come from closed forms written here (two-state chain, M/M/1/B birth--death
chain, truncated product form of a two-station cycle), dense ``scipy.linalg.expm`` /
``numpy.linalg`` solutions (a different algorithm), and the product-form solver ``mva``
where capacities do not bind; plus invariants (probabilities sum to 1, balance, flow
conservation, Little's law).
"""
from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.linalg
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from zmodel.queueing.closed import mva
from zmodel.queueing.ctmc import (ctmc_steady_state, ctmc_transient, finite_capacity_generator,
                                  finite_capacity_network)


def birth_death(lam, mu, B):
    Q = np.zeros((B + 1, B + 1))
    for n in range(B):
        Q[n, n + 1] = lam
        Q[n + 1, n] = mu
    return Q - np.diag(Q.sum(axis=1))


def random_generator(rng, S, density=0.4):
    A = rng.uniform(0.1, 5.0, (S, S)) * (rng.uniform(size=(S, S)) < density)
    A += np.roll(np.eye(S), 1, axis=1) * rng.uniform(0.1, 2.0, S)  # a cycle: irreducible
    np.fill_diagonal(A, 0.0)
    return A - np.diag(A.sum(axis=1))


# --------------------------------------------------------------------------- steady state

def test_mm1b_closed_form():
    # M/M/1/B: p_n = (1 - rho) rho^n / (1 - rho^(B+1))
    # (the M/M/1/K birth-death chain; Kleinrock vol. 1, ch. 3)
    lam, mu, B = 0.8, 1.0, 10
    rho = lam / mu
    expected = [(1 - rho) * rho**n / (1 - rho ** (B + 1)) for n in range(B + 1)]
    r = ctmc_steady_state(sp.csr_matrix(birth_death(lam, mu, B)))
    np.testing.assert_allclose(r.probabilities, expected, rtol=1e-12)
    assert r.residual < 1e-14


def test_steady_state_matches_dense_null_space():
    rng = np.random.default_rng(7)
    Q = random_generator(rng, 30)
    w, v = np.linalg.eig(Q.T)
    pi = np.real(v[:, np.argmin(np.abs(w))])
    pi /= pi.sum()
    np.testing.assert_allclose(ctmc_steady_state(Q).probabilities, pi, rtol=1e-9, atol=1e-14)


def test_steady_state_frame():
    f = ctmc_steady_state([[-1.0, 1.0], [3.0, -3.0]]).to_frame()
    assert list(f["state"]) == [0, 1] and f["probabilities"].tolist() == pytest.approx([0.75, 0.25])


# --------------------------------------------------------------------------- transient

@pytest.mark.parametrize("method", ["uniformization", "expm_multiply"])
def test_two_state_transient(method):
    a, b = 1.0, 3.0
    t = np.array([0.0, 0.1, 0.5, 2.0, 0.3])
    r = ctmc_transient([[-a, a], [b, -b]], [1.0, 0.0], t, method=method)
    expected = a / (a + b) * (1 - np.exp(-(a + b) * t))
    np.testing.assert_allclose(r.probabilities[:, 1], expected, rtol=1e-10, atol=1e-13)
    assert r.to_frame().shape == (10, 4)


@pytest.mark.parametrize("method", ["uniformization", "expm_multiply"])
def test_transient_matches_dense_expm(method):
    rng = np.random.default_rng(3)
    Q = random_generator(rng, 25)
    p0 = np.zeros(25)
    p0[0] = 1.0
    times = [0.05, 0.7, 3.0]
    r = ctmc_transient(sp.csr_matrix(Q), p0, times, method=method)
    for i, t in enumerate(times):
        np.testing.assert_allclose(r.probabilities[i], p0 @ scipy.linalg.expm(Q * t),
                                   rtol=1e-8, atol=1e-12)


def test_uniformization_large_qt_reaches_steady_state():
    # q t = 4e4: exp(-q t) underflows; the log-space Poisson weights do not.
    Q = birth_death(0.5, 1.0, 20)
    p0 = np.zeros(21)
    p0[20] = 1.0
    r = ctmc_transient(Q, p0, [2e4])
    rho = 0.5
    expected = [(1 - rho) * rho**n / (1 - rho**21) for n in range(21)]
    np.testing.assert_allclose(r.probabilities[0], expected, rtol=1e-9, atol=1e-15)


# --------------------------------------------------------------------------- finite capacity

def test_single_open_station_is_mmcb():
    # M/M/2/5 by hand: p_n proportional to a^n / (n! for n <= 2, 2! 2^(n-2) beyond)
    lam, s, c, B = 1.5, 1.0, 2, 5
    a = lam * s
    w = [a**n / (math.factorial(n) if n <= c else math.factorial(c) * c ** (n - c))
         for n in range(B + 1)]
    p = np.array(w) / sum(w)
    r = finite_capacity_network([s], [[0.0]], B, servers=c, arrival_rates=[lam])
    np.testing.assert_allclose(r.marginal_probabilities[0], p, rtol=1e-12)
    assert r.loss_rate[0] == pytest.approx(lam * p[B], rel=1e-12)
    assert r.throughput[0] == pytest.approx(lam * (1 - p[B]), rel=1e-12)
    L = sum(n * p[n] for n in range(B + 1))
    assert r.queue_length[0] == pytest.approx(L, rel=1e-12)
    assert r.response_time[0] == pytest.approx(L / (lam * (1 - p[B])), rel=1e-12)


def test_closed_network_with_ample_capacity_is_product_form():
    D = [0.2, 0.5, 0.3]
    P = [[0, 1, 0], [0, 0, 1], [1, 0, 0]]
    N = 6
    r = finite_capacity_network(D, P, capacity=N, population=N, servers=[1, 2, 1])
    m = mva(D, N, servers=[1, 2, 1])
    np.testing.assert_allclose(r.throughput, m.throughput, rtol=1e-11)
    np.testing.assert_allclose(r.queue_length, m.queue_length, rtol=1e-11)
    np.testing.assert_allclose(r.utilization, m.utilization, rtol=1e-11)


def test_two_station_cycle_is_truncated_product_form():
    # A two-station cycle is a birth-death chain on n_1; RS-RD blocking removes the states
    # beyond the capacities, pi(n_1) proportional to D1^n1 D2^(N - n1) on the rest.
    D1, D2, N, B1, B2 = 0.7, 0.4, 8, 5, 6
    n1 = np.arange(max(0, N - B2), min(N, B1) + 1)
    w = D1**n1 * D2 ** (N - n1)
    p = w / w.sum()
    r = finite_capacity_network([D1, D2], [[0, 1], [1, 0]], [B1, B2], population=N)
    np.testing.assert_allclose(r.marginal_probabilities[0, n1], p, rtol=1e-12)
    # a completion at station 1 is delivered only if n2 < B2, i.e. n1 > N - B2
    X = p[(n1 > 0) & (N - n1 < B2)].sum() / D1
    assert r.throughput[0] == pytest.approx(X, rel=1e-12)


def test_tandem_open_blocking_flow_balance():
    # open tandem 0 -> 1 -> out, station 1 holds 1 job: flows conserve, Little holds.
    r = finite_capacity_network([0.5, 0.8], [[0, 1], [0, 0]], [4, 1], arrival_rates=[1.0, 0.0])
    assert r.throughput[0] == pytest.approx(r.throughput[1], rel=1e-12)
    assert r.throughput[0] == pytest.approx(1.0 - r.loss_rate[0], rel=1e-12)
    assert r.loss_rate[1] == 0.0
    np.testing.assert_allclose(r.queue_length, r.throughput * r.response_time, rtol=1e-12)
    assert r.to_frame().shape == (2, 8)


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 4), st.integers(1, 6), st.randoms(use_true_random=False))
def test_closed_finite_network_invariants(K, N, rnd):
    rng = np.random.default_rng(rnd.randrange(2**32))
    S = rng.uniform(0.1, 2.0, K)
    P = rng.uniform(0.0, 1.0, (K, K)) + np.roll(np.eye(K), 1, axis=1)
    P /= P.sum(axis=1, keepdims=True)
    srv = rng.integers(1, 3, K)
    cap = srv + rng.integers(0, 3, K)
    if cap.sum() < N:
        cap[0] += N - cap.sum()
    r = finite_capacity_network(S, P, cap, servers=srv, population=N)
    assert r.queue_length.sum() == pytest.approx(N, rel=1e-10)
    np.testing.assert_allclose(r.marginal_probabilities.sum(axis=1), 1.0, rtol=1e-12)
    assert (r.utilization <= 1 + 1e-12).all() and (r.utilization >= -1e-15).all()
    np.testing.assert_allclose(r.queue_length, r.throughput * r.response_time, rtol=1e-10,
                               atol=1e-14)


@settings(max_examples=30, deadline=None)
@given(st.integers(2, 12), st.randoms(use_true_random=False))
def test_random_generator_invariants(S, rnd):
    rng = np.random.default_rng(rnd.randrange(2**32))
    Q = random_generator(rng, S)
    pi = ctmc_steady_state(Q).probabilities
    assert pi.sum() == pytest.approx(1.0, rel=1e-13) and (pi >= 0).all()
    np.testing.assert_allclose(pi @ Q, 0.0, atol=1e-12 * np.abs(Q).max())
    p0 = rng.dirichlet(np.ones(S))
    r = ctmc_transient(Q, p0, [0.0, 1.0, 50.0])
    np.testing.assert_allclose(r.probabilities.sum(axis=1), 1.0, rtol=1e-12)
    np.testing.assert_allclose(r.probabilities[0], p0, rtol=1e-15)


def test_generator_doc_states():
    states, Q = finite_capacity_generator([0.5, 1.0], [[0, 1], [1, 0]], [1, 2], population=2)
    assert sorted(map(tuple, states.tolist())) == [(0, 2), (1, 1)]
    np.testing.assert_allclose(np.asarray(Q.sum(axis=1)).ravel(), 0.0)


# --------------------------------------------------------------------------- bad input

@pytest.mark.parametrize("Q, match", [
    ([[-1.0, 1.0], [3.0, -2.0]], "generator rows must sum to 0"),
    ([[1.0, -1.0], [3.0, -3.0]], r"generator off-diagonal entries \(transition rates\) must be >= 0"),
    ([[-1.0, 1.0, 0.0]], "generator must be a non-empty square matrix"),
    ([[-1.0, 1.0], [0.0, 0.0]], "generator must be irreducible"),
    ([[np.nan, 1.0], [3.0, -3.0]], "generator must not be NaN"),
])
def test_bad_generator(Q, match):
    with pytest.raises(ValueError, match=match):
        ctmc_steady_state(Q)


def test_bad_transient_input():
    Q = [[-1.0, 1.0], [3.0, -3.0]]
    with pytest.raises(ValueError, match="initial must sum to 1"):
        ctmc_transient(Q, [0.5, 0.4], [1.0])
    with pytest.raises(ValueError, match="initial must have one entry per state"):
        ctmc_transient(Q, [1.0], [1.0])
    with pytest.raises(ValueError, match="times must be non-negative"):
        ctmc_transient(Q, [1.0, 0.0], [-1.0])
    with pytest.raises(ValueError, match="method must be"):
        ctmc_transient(Q, [1.0, 0.0], [1.0], method="euler")


@pytest.mark.parametrize("kwargs, match", [
    (dict(service_times=[1.0, 1.0], routing=[[0, 1], [1, 0]], capacity=[1, 3], servers=[2, 1],
          population=2), "capacity must be >= servers at every station, got capacity 1 < servers 2"),
    (dict(service_times=[1.0, 1.0], routing=[[0, 0.9], [1, 0]], capacity=3, population=2),
     "routing rows must sum to 1 in a closed network"),
    (dict(service_times=[1.0, 1.0], routing=[[0, 1.2], [0, 0]], capacity=3,
          arrival_rates=[1, 0]), "routing rows must sum to at most 1 in an open network"),
    (dict(service_times=[1.0, 1.0], routing=[[0, 1], [1, 0]], capacity=[1, 1], population=3),
     "population must be <= the total capacity 2"),
    (dict(service_times=[1.0, 1.0], routing=[[0, 1], [1, 0]], capacity=2),
     "give exactly one of arrival_rates"),
    (dict(service_times=[0.0], routing=[[0]], capacity=2, arrival_rates=[1]),
     "service_times must be positive"),
    (dict(service_times=[1.0], routing=[[0, 0]], capacity=2, arrival_rates=[1]),
     r"routing must have shape \(stations, stations\)"),
    (dict(service_times=[1.0], routing=[[0]], capacity=2, arrival_rates=[1], servers=math.inf),
     "servers must be finite"),
])
def test_bad_network_input(kwargs, match):
    with pytest.raises(ValueError, match=match):
        finite_capacity_network(**kwargs)
