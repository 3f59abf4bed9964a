"""Routing matrices with class switching: visit ratios, chains, and routed networks.

* :func:`routing_visits` -- chains and visit ratios of a closed and/or open multi-class
  network described by its routing matrix P[r, i, s, j] (class switching allowed).
* :func:`routed_network` -- solve such a network: closed chains by exact multi-class MVA
  (:func:`~zmodel.queueing.mva_multiclass`), mixed ones by
  :func:`~zmodel.queueing.mixed_network`, results per class and station.

Book sections cited in this module's References were not re-checked against the printed
books in this session (no copy at hand; chapter-level pointers); papers carry DOIs.
"""
from __future__ import annotations

import dataclasses
from typing import ClassVar

import numpy as np

from ._result import Result
from ._validate import as_float_array, as_int_array, as_servers

__all__ = ["routing_visits", "routed_network", "VisitsResult", "RoutedNetworkResult"]

_ROW_TOL = 1e-9


@dataclasses.dataclass(frozen=True)
class VisitsResult(Result):
    """Chains and visit ratios of a routed multi-class network.

    Attributes
    ----------
    visits : ndarray
        Shape (C, K). Closed chain: visits of class r to station k per visit of the
        chain to the reference station (summed over the chain's classes there = 1).
        Open class: arrivals of class r at station k per unit time [1/s] (the
        traffic-equation solution); its column sum over k is the class's arrival flow.
    chain : ndarray
        Chain index of each class, shape (C,) (-1: a class no job ever holds) [1].
    is_open : ndarray
        Shape (C,): True for classes of open chains.
    """

    visits: np.ndarray
    chain: np.ndarray
    is_open: np.ndarray

    trailing_dims: ClassVar[tuple[str, ...]] = ("class", "station")

    def _frame_dims(self) -> tuple[str, ...]:
        return ("class", "station")


@dataclasses.dataclass(frozen=True)
class RoutedNetworkResult(Result):
    """Per class and station solution of a routed network.

    Attributes
    ----------
    throughput : ndarray
        Class-r completions at station k per second (all visits), (C, K) [1/s].
    queue_length : ndarray
        Mean number of class-r jobs at station k, (C, K) [1].
    response_time : ndarray
        Mean time of one class-r visit to station k, Q / X (0 where never visited),
        (C, K) [s].
    utilization : ndarray
        Class-r utilization per server of station k, X S / servers (0 at a delay
        station), (C, K) [1].
    visits : ndarray
        As in :class:`VisitsResult`, (C, K).
    chain : ndarray
        Chain index of each class, (C,) [1].
    is_open : ndarray
        True for classes of open chains, (C,).
    """

    throughput: np.ndarray
    queue_length: np.ndarray
    response_time: np.ndarray
    utilization: np.ndarray
    visits: np.ndarray
    chain: np.ndarray
    is_open: np.ndarray

    trailing_dims: ClassVar[tuple[str, ...]] = ("class", "station")

    def _frame_dims(self) -> tuple[str, ...]:
        return ("class", "station")


# --------------------------------------------------------------------------- checks

def _check_routing(routing):
    P = as_float_array("routing", routing)
    if P.ndim == 2:
        P = P[None, :, None, :]
    if P.ndim != 4 or P.shape[0] != P.shape[2] or P.shape[1] != P.shape[3] or P.size == 0:
        raise ValueError("routing must have shape (stations, stations) or (classes, stations, "
                         f"classes, stations), got shape {P.shape}")
    return P


def _check_arrivals(arrival_rates, C, K):
    if arrival_rates is None:
        return np.zeros((C, K))
    lam = as_float_array("arrival_rates", arrival_rates)
    if lam.ndim == 1 and C == 1:
        lam = lam[None, :]
    if lam.shape != (C, K):
        raise ValueError(f"arrival_rates must have shape (classes, stations) = ({C}, {K}), "
                         f"got shape {lam.shape}")
    return lam


def _reach(adj: np.ndarray, start: np.ndarray) -> np.ndarray:
    seen = start.copy()
    frontier = start.copy()
    while frontier.any():
        nxt = adj[frontier].any(axis=0) & ~seen
        seen |= nxt
        frontier = nxt
    return seen


def _visits(P, lam, reference_station):
    C, K = P.shape[:2]
    M = P.reshape(C * K, C * K)
    rows = M.sum(axis=1)
    over = rows > 1.0 + _ROW_TOL
    if over.any():
        i = int(np.argmax(over))
        raise ValueError(f"routing rows must sum to at most 1, got {rows[i]!r} for class "
                         f"{i // K} at station {i % K}")
    adj = M > 0
    lam_flat = lam.reshape(-1)
    open_nodes = _reach(adj, lam_flat > 0)
    V = np.zeros(C * K)
    chain = np.full(C, -1, dtype=np.int64)
    is_open = np.zeros(C, dtype=bool)
    n_chain = 0

    # open part: (I - P_oo^T) v = lambda_o; every job must eventually leave
    if open_nodes.any():
        o = np.flatnonzero(open_nodes)
        A = np.eye(o.size) - M[np.ix_(o, o)].T
        if np.abs(np.linalg.eigvals(M[np.ix_(o, o)])).max() >= 1.0 - 1e-12:
            raise ValueError("routing of the open classes must let every job leave the network "
                             "(rows reachable from arrival_rates must not form a closed loop)")
        V[o] = np.linalg.solve(A, lam_flat[o])
        V[o] = np.maximum(V[o], 0.0)
        for r in np.unique(o // K):
            is_open[r] = True
        # classes reached by open jobs form open chains by connectivity
        cls_adj = np.zeros((C, C), dtype=bool)
        oo = np.flatnonzero(open_nodes)
        for i in oo:
            for j in np.flatnonzero(adj[i]):
                cls_adj[i // K, j // K] = True
        sym = cls_adj | cls_adj.T
        for r in np.flatnonzero(is_open):
            if chain[r] < 0:
                members = _reach(sym, np.arange(C) == r) & is_open
                chain[members] = n_chain
                n_chain += 1

    # closed part: recurrent strongly connected components of the rest
    closed_nodes = ~open_nodes
    if closed_nodes.any():
        from scipy.sparse.csgraph import connected_components

        full_rows = np.abs(rows - 1.0) <= _ROW_TOL
        leak = closed_nodes & (rows > 0) & ~full_rows
        if leak.any():
            i = int(np.argmax(leak))
            raise ValueError(f"routing rows of closed classes must sum to 1 (0 for a station a "
                             f"class never visits), got {rows[i]!r} for class {i // K} at "
                             f"station {i % K}")
        _, label = connected_components(adj & closed_nodes[:, None] & closed_nodes[None, :],
                                        directed=True, connection="strong")
        for comp in np.unique(label[closed_nodes]):
            nodes = np.flatnonzero((label == comp) & closed_nodes)
            if not full_rows[nodes].all():
                continue  # rows of zeros: a (class, station) pair no job occupies
            inside = np.zeros(C * K, dtype=bool)
            inside[nodes] = True
            if adj[nodes][:, ~inside].any():
                continue  # transient component: jobs leave it for good, 0 visits
            if nodes.size == 1 and not adj[nodes[0], nodes[0]]:
                continue
            classes = np.unique(nodes // K)
            clash = classes[chain[classes] >= 0]
            if clash.size:
                raise ValueError(f"routing puts class {int(clash[0])} in two chains (a class "
                                 "must belong to exactly one chain)")
            Msub = M[np.ix_(nodes, nodes)]
            n = nodes.size
            A = Msub.T - np.eye(n)
            ref = (nodes % K) == reference_station
            if not ref.any():
                raise ValueError(f"reference_station {reference_station} is never visited by "
                                 f"the chain of classes {classes.tolist()}")
            A[-1, :] = ref.astype(float)
            b = np.zeros(n)
            b[-1] = 1.0
            V[nodes] = np.maximum(np.linalg.solve(A, b), 0.0)
            chain[classes] = n_chain
            n_chain += 1
    return V.reshape(C, K), chain, is_open


def routing_visits(routing, arrival_rates=None, reference_station: int = 0) -> VisitsResult:
    r"""Chains and visit ratios from a routing matrix with class switching.

    Parameters
    ----------
    routing : array_like
        P[r, i, s, j]: probability that a class-r job leaving station i goes to
        station j as a class-s job, shape (C, K, C, K); a (K, K) matrix is one class.
        Rows of closed classes sum to 1 (or are all 0 where a class never is); rows of
        open classes may sum to less than 1, the rest leaving the network [1].
    arrival_rates : array_like, optional
        External Poisson arrivals of class r at station k, shape (C, K) [1/s];
        classes reachable from them are open, all others closed.
    reference_station : int
        Station at which each closed chain's visit ratio is 1 (summed over the chain's
        classes) [1].

    Returns
    -------
    VisitsResult
        ``visits`` (C, K), ``chain`` (C,), ``is_open`` (C,).

    Notes
    -----
    A chain is a set of classes a job can move between (Bolch et al. 2006, §7.3.6,
    class switching; Sauer & Chandy 1981, §3.5). With the (class, station) pairs as the
    states of a Markov chain with transition matrix P, the closed chains are its
    recurrent strongly connected components; the class sets of two components must be
    disjoint. In each closed chain the visit ratios solve the traffic equations with
    one normalisation,

    .. math::

        v_{sj} = \sum_{r,i} v_{ri}\, P_{ri,sj},\qquad
        \sum_{r \in \text{chain}} v_{r,\mathrm{ref}} = 1,

    and for the open classes :math:`\lambda_{sj} = \lambda^{0}_{sj} + \sum_{r,i}
    \lambda_{ri} P_{ri,sj}` (a non-singular system when every job eventually leaves).

    References
    ----------
    G. Bolch, S. Greiner, H. de Meer, K. S. Trivedi, *Queueing Networks and Markov
    Chains*, 2nd ed., Wiley 2006, §7.3.6 (BCMP networks with class switching, chains).
    C. H. Sauer, K. M. Chandy, *Computer Systems Performance Modeling*, Prentice-Hall
    1981, ch. 3 (chains and routing chains).
    H. D. Schwetman, "Implementing the mean value algorithm for the solution of
    queueing network models", Purdue University CSD-TR-355, 1982, Fig. 9 (class
    switching example; transcribed in GNU Octave ``queueing``'s ``qncmvisits`` tests).

    Examples
    --------
    Schwetman (1982), Fig. 9: two classes switching at station 0. His visit counts are
    (10, 7, 2) and (5, 1.5, 2.5); ratios are what matter (here station 0 totals 1).

    >>> P = np.zeros((2, 3, 2, 3))
    >>> P[0, 0, 0, 1], P[0, 0, 0, 2], P[0, 0, 1, 0] = 0.7, 0.2, 0.1
    >>> P[1, 0, 1, 1], P[1, 0, 1, 2], P[1, 0, 0, 0] = 0.3, 0.5, 0.2
    >>> P[0, 1, 0, 0] = P[0, 2, 0, 0] = P[1, 1, 1, 0] = P[1, 2, 1, 0] = 1.0
    >>> (routing_visits(P).visits * 15).round(12).tolist()
    [[10.0, 7.0, 2.0], [5.0, 1.5, 2.5]]
    """
    P = _check_routing(routing)
    C, K = P.shape[:2]
    lam = _check_arrivals(arrival_rates, C, K)
    if not isinstance(reference_station, (int, np.integer)) or not 0 <= reference_station < K:
        raise ValueError(f"reference_station must be an integer in [0, {K}), got "
                         f"{reference_station!r}")
    V, chain, is_open = _visits(P, lam, int(reference_station))
    return VisitsResult(visits=V, chain=chain, is_open=is_open)


def routed_network(service_times, routing, populations=None, arrival_rates=None, servers=1,
                   reference_station: int = 0) -> RoutedNetworkResult:
    r"""Solve a closed or mixed multi-class product-form network given by its routing matrix.

    Parameters
    ----------
    service_times : array_like
        Mean service time per visit S[r, k] of class r at station k, shape (C, K) [s].
    routing : array_like
        P[r, i, s, j], shape (C, K, C, K) (class switching allowed), see
        :func:`routing_visits` [1].
    populations : array_like of int, optional
        Jobs initially of each class, shape (C,); a closed chain's population is the
        sum over its classes (only that sum matters) [1].
    arrival_rates : array_like, optional
        External arrivals, shape (C, K) [1/s] (open classes).
    servers : int, float or sequence of length K
        1, an integer c > 1, or ``math.inf`` (delay). A think time is a delay
        station in the routing [1].
    reference_station : int
        Reference station of the closed chains [1].

    Returns
    -------
    RoutedNetworkResult
        Per class and station ``throughput`` [1/s], ``queue_length`` [1],
        ``response_time`` per visit [s], ``utilization`` [1], plus ``visits``,
        ``chain``, ``is_open``.

    Notes
    -----
    Each closed chain m becomes one class of demands
    :math:`D_{mk} = \sum_{r \in m} v_{rk} S_{rk}` and population
    :math:`N_m = \sum_{r \in m} N_r`; each open chain one open class of rate
    :math:`\lambda_m = \sum \lambda^0` and demands :math:`\sum_{r \in m}\lambda_{rk}
    S_{rk} / \lambda_m`. The chain network is solved exactly
    (:func:`~zmodel.queueing.mva_multiclass`, or
    :func:`~zmodel.queueing.mixed_network` with open chains), and the chain's results
    at a station are split over its classes in proportion to their demands there,
    :math:`Q_{rk} = Q_{mk}\, v_{rk} S_{rk} / D_{mk}` (exact in a BCMP network: a chain's
    classes at a station share its residence time per unit of demand), with
    :math:`X_{rk} = X_m v_{rk}` (Bolch et al. 2006, §7.3.6 and §8.2, MVA for networks
    with class switching; Lavenberg 1983, ch. 3). FCFS stations need class-independent
    service times for the product form; PS, LCFS-PR and delay stations do not.
    Multi-server stations are supported where the underlying solver supports them.

    References
    ----------
    G. Bolch, S. Greiner, H. de Meer, K. S. Trivedi, *Queueing Networks and Markov
    Chains*, 2nd ed., Wiley 2006, §7.3.6, §8.2.
    F. Baskett, K. M. Chandy, R. R. Muntz, F. G. Palacios, "Open, closed, and mixed
    networks of queues with different classes of customers", J. ACM 22(2):248-260,
    1975. doi:10.1145/321879.321887
    S. S. Lavenberg (ed.), *Computer Performance Modeling Handbook*, Academic Press
    1983, ch. 3.

    Examples
    --------
    One job cycling 0 -> 1 -> 0, switching from class 0 to class 1 at station 1 and back
    at station 0: a single chain, so each class holds the job half of the visits.

    >>> P = np.zeros((2, 2, 2, 2))
    >>> P[0, 0, 0, 1] = P[0, 1, 1, 0] = P[1, 0, 1, 1] = P[1, 1, 0, 0] = 1.0
    >>> r = routed_network([[1.0, 1.0], [1.0, 1.0]], P, populations=[1, 0])
    >>> r.chain.tolist(), r.throughput.round(12).tolist()
    ([0, 0], [[0.25, 0.25], [0.25, 0.25]])
    """
    P = _check_routing(routing)
    C, K = P.shape[:2]
    S = as_float_array("service_times", service_times)
    if S.ndim == 1 and C == 1:
        S = S[None, :]
    if S.shape != (C, K):
        raise ValueError(f"service_times must have shape (classes, stations) = ({C}, {K}), "
                         f"got shape {S.shape}")
    lam0 = _check_arrivals(arrival_rates, C, K)
    if not isinstance(reference_station, (int, np.integer)) or not 0 <= reference_station < K:
        raise ValueError(f"reference_station must be an integer in [0, {K}), got "
                         f"{reference_station!r}")
    if populations is None:
        pops = np.zeros(C, dtype=np.int64)
    else:
        pops = as_int_array("populations", populations, minimum=0)
        if pops.ndim == 0:
            pops = np.full(C, int(pops), dtype=np.int64)
        if pops.shape != (C,):
            raise ValueError(f"populations must have one entry per class ({C}), got shape "
                             f"{pops.shape}")
    srv = as_servers(servers, K)
    V, chain, is_open = _visits(P, lam0, int(reference_station))
    if (pops[is_open] > 0).any():
        r = int(np.flatnonzero(is_open & (pops > 0))[0])
        raise ValueError(f"populations must be 0 for an open class, got {pops[r]} for class {r}")
    if (pops[chain < 0] > 0).any():
        r = int(np.flatnonzero((chain < 0) & (pops > 0))[0])
        raise ValueError(f"populations must be 0 for class {r}: the routing never lets a job "
                         "stay in it (it belongs to no chain)")
    n_chain = int(chain.max()) + 1 if (chain >= 0).any() else 0
    demand_rk = V * S  # closed: per reference visit [s]; open: per unit time [1]
    chain_open = np.array([bool(is_open[chain == m].any()) for m in range(n_chain)], dtype=bool)
    D = np.zeros((n_chain, K))
    for m in range(n_chain):
        D[m] = demand_rk[chain == m].sum(axis=0)
    open_ids, closed_ids = np.flatnonzero(chain_open), np.flatnonzero(~chain_open)
    lam_chain = np.array([lam0[chain == m].sum() for m in open_ids])
    n_chain_pop = np.array([pops[chain == m].sum() for m in closed_ids], dtype=np.int64)
    X_chain = np.zeros(n_chain)
    Q_chain = np.zeros((n_chain, K))
    if open_ids.size:
        from .mixed import mixed_network

        sol = mixed_network(lam_chain, D[open_ids] / lam_chain[:, None], D[closed_ids],
                            n_chain_pop, servers=srv)
        X_chain[open_ids] = 1.0  # open demands above are already per unit time
        X_chain[closed_ids] = sol.throughput[open_ids.size:]
        Q_chain[open_ids] = sol.queue_length[:open_ids.size]
        Q_chain[closed_ids] = sol.queue_length[open_ids.size:]
    elif closed_ids.size:
        from .closed import mva_multiclass

        sol = mva_multiclass(D[closed_ids], n_chain_pop, servers=srv)
        X_chain[closed_ids] = sol.throughput
        Q_chain[closed_ids] = sol.queue_length
    X = np.zeros((C, K))
    Q = np.zeros((C, K))
    in_chain = chain >= 0
    m = chain[in_chain]
    X[in_chain] = X_chain[m][:, None] * V[in_chain]
    with np.errstate(divide="ignore", invalid="ignore"):
        share = np.where(D[m] > 0, demand_rk[in_chain] / D[m], 0.0)
    Q[in_chain] = Q_chain[m] * share
    with np.errstate(divide="ignore", invalid="ignore"):
        R = np.where(X > 0, Q / X, 0.0)
        U = np.where(np.isinf(srv)[None, :], 0.0, X * S / np.where(np.isinf(srv), 1.0, srv))
    return RoutedNetworkResult(throughput=X, queue_length=Q, response_time=R, utilization=U,
                               visits=V, chain=chain, is_open=is_open)
