"""Tests of routing matrices with class switching (zmodel/queueing/routing.py).

Expected values: Schwetman's class-switching visit counts (CSD-TR-355, 1982, Fig. 9, as
transcribed in GNU Octave ``queueing``'s qncmvisits tests; the report itself was not
re-checked here), Lazowska et al. (1984) examples on p. 142 and p. 148 re-expressed as
routings (exact fractions printed there), hand-solved traffic equations, and a
brute-force CTMC of the network with class switching (PS and delay stations) built and
solved densely in this file.
"""
from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from zmodel.queueing.closed import mva
from zmodel.queueing.routing import routed_network, routing_visits


def schwetman_fig9():
    P = np.zeros((2, 3, 2, 3))
    P[0, 0, 0, 1], P[0, 0, 0, 2], P[0, 0, 1, 0] = 0.7, 0.2, 0.1
    P[1, 0, 1, 1], P[1, 0, 1, 2], P[1, 0, 0, 0] = 0.3, 0.5, 0.2
    P[0, 1, 0, 0] = P[0, 2, 0, 0] = P[1, 1, 1, 0] = P[1, 2, 1, 0] = 1.0
    return P


def brute_force_ctmc(S, P, pops_by_chain, chain_of_class, delay):
    """Exact CTMC of a multi-class network with class switching; PS or delay stations.

    State: n[r, k] jobs of class r at station k; the jobs of each chain add up to its
    population. Class r at a PS station k completes at rate (n_rk / n_k) / S_rk, at a
    delay station at rate n_rk / S_rk, then moves to (s, j) with probability P[r,k,s,j].
    Returns (queue lengths Q[r, k], throughputs X[r, k]).
    """
    C, K = S.shape
    cells = C * K
    states = []
    for n in itertools.product(range(max(pops_by_chain) + 1), repeat=cells):
        n = np.array(n).reshape(C, K)
        if all(n[chain_of_class == m].sum() == pops_by_chain[m] for m in range(len(pops_by_chain))):
            states.append(n)
    index = {s.tobytes(): i for i, s in enumerate(states)}
    Qm = np.zeros((len(states), len(states)))
    rate = np.zeros((len(states), C, K))
    for i, n in enumerate(states):
        for r, k in itertools.product(range(C), range(K)):
            if n[r, k] == 0 or S[r, k] == 0:
                continue
            mu = n[r, k] / S[r, k] if delay[k] else (n[r, k] / n[:, k].sum()) / S[r, k]
            rate[i, r, k] = mu
            for s, j in itertools.product(range(C), range(K)):
                p = P[r, k, s, j]
                if p == 0 or (s, j) == (r, k):
                    continue
                m = n.copy()
                m[r, k] -= 1
                m[s, j] += 1
                Qm[i, index[m.tobytes()]] += mu * p
    Qm -= np.diag(Qm.sum(axis=1))
    A = np.vstack([Qm.T, np.ones(len(states))])
    b = np.zeros(len(states) + 1)
    b[-1] = 1.0
    pi = np.linalg.lstsq(A, b, rcond=None)[0]
    Q = np.einsum("i,irk->rk", pi, np.array(states, dtype=float))
    X = np.einsum("i,irk->rk", pi, rate)
    return Q, X


# --------------------------------------------------------------------------- visits

def test_schwetman_fig9_visit_ratios():
    r = routing_visits(schwetman_fig9())
    expected = np.array([[10, 7, 2], [5, 1.5, 2.5]])
    np.testing.assert_allclose(r.visits / r.visits[0, 0], expected / 10, rtol=1e-12)
    assert r.chain.tolist() == [0, 0] and not r.is_open.any()


def test_disjoint_classes_are_two_chains_and_reference_station():
    # Schwetman (1982) Fig. 8 as transcribed by Octave: two classes, no switching.
    P = np.zeros((2, 3, 2, 3))
    P[0, 0, 0, 2] = P[0, 2, 0, 0] = 1.0
    P[1, 1, 1, 2] = P[1, 2, 1, 1] = 1.0
    r = routing_visits(P, reference_station=2)
    np.testing.assert_allclose(r.visits, [[1, 0, 1], [0, 1, 1]])
    assert r.chain[0] != r.chain[1]


def test_moebius_strip_is_rejected():
    # two chains that both contain both classes: not a valid class-to-chain partition
    P = np.zeros((2, 2, 2, 2))
    P[0, 0, 1, 1] = P[1, 1, 0, 0] = P[1, 0, 0, 1] = P[0, 1, 1, 0] = 1.0
    with pytest.raises(ValueError, match="routing puts class 0 in two chains"):
        routing_visits(P)


def test_open_traffic_equations_by_hand():
    # open single class: 0 -> 1 (0.4), 0 -> 2 (0.6); 1 -> 0 (0.2), 1 -> 2 (0.2),
    # 1 -> out (0.6); 2 -> out. External arrivals 0.1 at station 0 and 0.3 at station 2:
    # l0 = 0.1 + 0.2 l1, l1 = 0.4 l0, l2 = 0.6 l0 + 0.2 l1 + 0.3
    P = [[0, 0.4, 0.6], [0.2, 0, 0.2], [0, 0, 0]]
    l0 = 0.1 / (1 - 0.08)
    l1 = 0.4 * l0
    l2 = 0.6 * l0 + 0.2 * l1 + 0.3
    r = routing_visits(P, arrival_rates=[[0.1, 0.0, 0.3]])
    np.testing.assert_allclose(r.visits, [[l0, l1, l2]], rtol=1e-14)
    assert r.is_open.tolist() == [True]


# --------------------------------------------------------------------------- networks

def test_qsp_p142_via_routing():
    # Lazowska et al. (1984) p. 142: demands (1, 3) and (2, 4), one job each, exact
    # throughputs 3/19 and 2/19. Here: each class cycles 0 -> 1 -> 0, S = D.
    P = np.zeros((2, 2, 2, 2))
    for c in range(2):
        P[c, 0, c, 1] = P[c, 1, c, 0] = 1.0
    r = routed_network([[1.0, 3.0], [2.0, 4.0]], P, populations=[1, 1])
    np.testing.assert_allclose(r.throughput[:, 0] * 19, [3, 2], rtol=1e-13)


def test_qsp_p148_mixed_via_routing():
    # Lazowska et al. (1984) p. 148: open classes (rates 1, 0.5; demands (1/4, 1/6),
    # (1/2, 1)) and closed classes (demands (1/2, 1), (1, 4/3), one job each): closed
    # queue lengths (4, 15)/19 and (5, 14)/19. Open jobs enter at 0, go to 1, leave.
    P = np.zeros((4, 2, 4, 2))
    for c in (0, 1):
        P[c, 0, c, 1] = 1.0
    for c in (2, 3):
        P[c, 0, c, 1] = P[c, 1, c, 0] = 1.0
    S = [[0.25, 1 / 6], [0.5, 1.0], [0.5, 1.0], [1.0, 4 / 3]]
    lam = [[1.0, 0.0], [0.5, 0.0], [0.0, 0.0], [0.0, 0.0]]
    r = routed_network(S, P, populations=[0, 0, 1, 1], arrival_rates=lam)
    np.testing.assert_allclose(r.queue_length[2:] * 19, [[4, 15], [5, 14]], rtol=1e-12)
    assert r.is_open.tolist() == [True, True, False, False]
    np.testing.assert_allclose(r.throughput[:2], [[1.0, 1.0], [0.5, 0.5]], rtol=1e-14)


def test_one_class_equals_single_class_mva():
    P = [[0.0, 0.5, 0.5], [1.0, 0.0, 0.0], [0.3, 0.0, 0.7]]
    S = [0.05, 0.2, 0.1]
    r = routed_network([S], P, populations=[7], servers=[1, 1, math.inf])
    v = routing_visits(P).visits[0]
    m = mva(v * S, 7, servers=[1, 1, math.inf])
    np.testing.assert_allclose(r.queue_length[0], m.queue_length, rtol=1e-12)
    np.testing.assert_allclose(r.throughput[0], m.throughput * v, rtol=1e-12)


def test_class_switching_against_brute_force_ctmc():
    P = schwetman_fig9()
    S = np.array([[0.01, 0.07, 0.10], [0.05, 0.7, 0.10]])  # Schwetman's Fig. 9 times
    r = routed_network(S, P, populations=[3, 0])
    Q, X = brute_force_ctmc(S, P, [3], np.array([0, 0]), [False] * 3)
    np.testing.assert_allclose(r.queue_length, Q, rtol=1e-10)
    np.testing.assert_allclose(r.throughput, X, rtol=1e-10)
    assert r.queue_length.sum() == pytest.approx(3.0, rel=1e-13)


def test_open_network_is_jackson():
    # one open class, M/M/1 stations: Q_k = rho_k / (1 - rho_k) with rho_k = l_k S_k
    P = [[0, 0.4, 0.6], [0.2, 0, 0.2], [0, 0, 0]]
    S = [[0.5, 1.0, 0.8]]
    r = routed_network(S, P, arrival_rates=[[0.1, 0.0, 0.3]])
    lam = routing_visits(P, arrival_rates=[[0.1, 0.0, 0.3]]).visits[0]
    rho = lam * np.array(S[0])
    np.testing.assert_allclose(r.queue_length[0], rho / (1 - rho), rtol=1e-13)
    np.testing.assert_allclose(r.utilization[0], rho, rtol=1e-13)


@st.composite
def switching_networks(draw):
    C, K = 2, draw(st.integers(2, 3))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    P = rng.uniform(0, 1, (C, K, C, K)) * (rng.uniform(size=(C, K, C, K)) < 0.6)
    P[0, 0, 1, 1 % K] += 0.3  # both classes in one chain
    P[1, 1 % K, 0, 0] += 0.3
    for r, k in itertools.product(range(C), range(K)):
        P[r, k, r, (k + 1) % K] += 0.1  # every (class, station) reachable
    P /= P.sum(axis=(2, 3), keepdims=True)
    S = rng.uniform(0.1, 2.0, (C, K))
    delay = [bool(x) for x in rng.uniform(size=K) < 0.3]
    N = draw(st.integers(1, 3))
    return S, P, N, delay


@settings(max_examples=25, deadline=None)
@given(switching_networks())
def test_random_class_switching_invariants(net):
    S, P, N, delay = net
    srv = [math.inf if d else 1 for d in delay]
    r = routed_network(S, P, populations=[N, 0], servers=srv)
    Q, X = brute_force_ctmc(S, P, [N], np.array([0, 0]), delay)
    np.testing.assert_allclose(r.queue_length, Q, rtol=1e-8, atol=1e-12)
    np.testing.assert_allclose(r.throughput, X, rtol=1e-8, atol=1e-12)
    # flow balance X_sj = sum_ri X_ri P_ri,sj; all N jobs somewhere; Little per cell
    np.testing.assert_allclose(r.throughput, np.einsum("rk,rksj->sj", r.throughput, P),
                               rtol=1e-10, atol=1e-14)
    assert r.queue_length.sum() == pytest.approx(N, rel=1e-12)
    np.testing.assert_allclose(r.queue_length, r.throughput * r.response_time, rtol=1e-12)
    assert len(r.to_frame()) == S.size


# --------------------------------------------------------------------------- bad input

@pytest.mark.parametrize("call, match", [
    (lambda: routing_visits([[0.0, 0.9], [1.0, 0.0]]),
     "routing rows of closed classes must sum to 1"),
    (lambda: routing_visits([[0.0, 1.2], [1.0, 0.0]]), "routing rows must sum to at most 1"),
    (lambda: routing_visits(np.zeros((2, 3, 2, 2))), "routing must have shape"),
    (lambda: routing_visits([[0.0, -1.0], [1.0, 0.0]]), "routing must be non-negative"),
    (lambda: routing_visits([[0, 1], [1, 0]], reference_station=2),
     r"reference_station must be an integer in \[0, 2\)"),
    (lambda: routing_visits([[0, 1], [1, 0]], arrival_rates=[[1.0, 0.0]]),
     "routing of the open classes must let every job leave"),
    (lambda: routed_network([[1.0, 1.0]], [[0, 1], [1, 0]], populations=[-1]),
     "populations must be an integer >= 0"),
    (lambda: routed_network([[1.0]], [[0, 1], [1, 0]], populations=[1]),
     r"service_times must have shape \(classes, stations\)"),
    (lambda: routed_network([[1.0, 1.0]], [[0, 0.5], [0, 0]], populations=[1],
                            arrival_rates=[[1.0, 0.0]]), "populations must be 0 for an open class"),
])
def test_bad_input(call, match):
    with pytest.raises(ValueError, match=match):
        call()
