"""Priority scheduling: M/G/1 priority stations, open networks, and closed-network approximations.

* :func:`priority_station` -- exact M/G/1 with priority classes, non-preemptive
  (head-of-line) or preemptive-resume.
* :func:`open_priority_network` -- an open multi-class network whose single-server
  stations schedule by priority, decomposed station by station.
* :func:`mva_priority` -- closed multi-class networks with priority stations: the
  MVA-priority approximation (Bryant et al. 1984 form) or Sevcik's shadow server.

``priorities``: one non-negative integer per class, 0 = highest; classes with the same
priority are served FCFS among themselves.

Book sections cited in this module's References were not re-checked against the printed
books in this session (no copy at hand; chapter-level pointers); papers carry DOIs.
"""
from __future__ import annotations

import dataclasses
from typing import ClassVar

import numpy as np

from ._result import Result
from ._validate import as_float_array, as_int_array, as_servers, warn_saturated

__all__ = ["priority_station", "open_priority_network", "mva_priority",
           "PriorityStationResult", "PriorityNetworkResult"]


@dataclasses.dataclass(frozen=True)
class PriorityStationResult(Result):
    """Per-class means at one M/G/1 priority station.

    Attributes
    ----------
    waiting_time : ndarray
        Mean wait before (first) service, (C,) [s].
    response_time : ndarray
        Mean time in the station, (C,) [s].
    queue_length : ndarray
        Mean number of the class present, lambda T, (C,) [1].
    utilization : ndarray
        lambda S per class, (C,) [1].
    preemptive : bool
        Preemptive-resume (True) or non-preemptive head-of-line (False).
    """

    waiting_time: np.ndarray
    response_time: np.ndarray
    queue_length: np.ndarray
    utilization: np.ndarray
    preemptive: bool

    trailing_dims: ClassVar[tuple[str, ...]] = ("class",)


@dataclasses.dataclass(frozen=True)
class PriorityNetworkResult(Result):
    """Per class and station means of a network with priority stations.

    Attributes
    ----------
    throughput : ndarray
        Per-class system throughput, (C,) [1/s].
    response_time : ndarray
        Per-class sum of residence times, think time excluded, (C,) [s].
    residence_time : ndarray
        Time per job at each station over all visits, (C, K) [s].
    queue_length : ndarray
        Mean number of class-c jobs at station k, (C, K) [1].
    utilization : ndarray
        Class-c utilization per server of station k, (C, K) [1].
    method : str
        ``"decomposition"``, ``"mva-priority"`` or ``"shadow"``.
    iterations : int
        Fixed-point iterations (0 for the open decomposition) [1].
    converged : bool
        Whether the fixed point reached ``tol``.
    """

    throughput: np.ndarray
    response_time: np.ndarray
    residence_time: np.ndarray
    queue_length: np.ndarray
    utilization: np.ndarray
    method: str
    iterations: int = 0
    converged: bool = True

    trailing_dims: ClassVar[tuple[str, ...]] = ("class", "station")

    def _frame_dims(self) -> tuple[str, ...]:
        return ("class", "station")


# --------------------------------------------------------------------------- checks

def _check_priorities(priorities, C):
    flat = np.ravel(np.asarray(priorities, dtype=object))
    if any(isinstance(v, (bool, np.bool_, str, bytes)) for v in flat):
        raise ValueError(f"priorities must be non-negative integers (0 = highest), got {priorities!r}")
    try:
        raw = np.asarray(priorities, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"priorities must be integers, got {priorities!r}") from None
    if raw.ndim == 0:
        raw = np.full(C, float(raw))
    if raw.shape != (C,):
        raise ValueError(f"priorities must have one entry per class ({C}), got shape {raw.shape}")
    if (raw < 0).any():
        raise ValueError(f"priorities must be non-negative integers (0 = highest), got "
                         f"{raw[raw < 0][0]:g} for class {int(np.argmax(raw < 0))}")
    return as_int_array("priorities", raw, minimum=0)


def _higher_masks(prio):
    """higher[r, s]: class s has strictly higher priority than r; same_or_higher[r, s]."""
    return prio[None, :] < prio[:, None], prio[None, :] <= prio[:, None]


# --------------------------------------------------------------------------- open

def _station_core(lam, s, scv, prio, preemptive):
    """Per-class (waiting, response, saturated) at one M/G/1 priority station."""
    higher, same_or_higher = _higher_masks(prio)
    rho = lam * s
    second = lam * s * s * (1.0 + scv) / 2.0  # lambda E[S^2] / 2 per class
    sig_h = higher @ rho
    sig_hr = same_or_higher @ rho
    saturated = sig_hr >= 1.0
    with np.errstate(divide="ignore", invalid="ignore"):
        if preemptive:
            resid = same_or_higher @ second
            resp = s / (1.0 - sig_h) + resid / ((1.0 - sig_h) * (1.0 - sig_hr))
            wait = resp - s  # time before completion beyond the own service (delay)
        else:
            w0 = second.sum()
            wait = w0 / ((1.0 - sig_h) * (1.0 - sig_hr))
            resp = wait + s
    wait = np.where(saturated, np.inf, wait)
    resp = np.where(saturated, np.inf, resp)
    return wait, resp, saturated


def priority_station(arrival_rates, service_times, priorities, service_scvs=1.0,
                     preemptive: bool = False) -> PriorityStationResult:
    r"""M/G/1 queue with priority classes: exact per-class means.

    Parameters
    ----------
    arrival_rates : array_like
        Poisson arrival rate of each class, (C,) [1/s].
    service_times : array_like
        Mean service time of each class, (C,) [s].
    priorities : array_like of int
        Priority of each class, 0 = highest; equal values share a FCFS level [1].
    service_scvs : float or array_like
        Squared coefficient of variation of each class's service time (1 =
        exponential) [1].
    preemptive : bool
        Preemptive-resume (True) or non-preemptive head-of-line (False, default).

    Returns
    -------
    PriorityStationResult
        Per-class ``waiting_time`` [s], ``response_time`` [s], ``queue_length`` [1],
        ``utilization`` [1].

    Notes
    -----
    With :math:`\rho_i = \lambda_i S_i`, :math:`\sigma_H` the load of the strictly
    higher levels, :math:`\sigma_{H+}` including the class's own level, and
    :math:`W_0 = \sum_i \lambda_i E[S_i^2]/2` the mean residual work in service
    (Cobham 1954; Kleinrock vol. 2, §3.6 head-of-line, §3.7 preemptive resume):

    .. math::

        \text{HOL: } W_r = \frac{W_0}{(1-\sigma_H)(1-\sigma_{H+})},\quad T_r = W_r + S_r;
        \qquad
        \text{PR: } T_r = \frac{S_r}{1-\sigma_H}
              + \frac{\sum_{i \in H+} \lambda_i E[S_i^2]/2}{(1-\sigma_H)(1-\sigma_{H+})}.

    For preemptive resume ``waiting_time`` is :math:`T_r - S_r`. Classes whose
    :math:`\sigma_{H+} \ge 1` saturate (``inf``, one ``SaturationWarning``); higher
    classes keep finite values.

    References
    ----------
    A. Cobham, "Priority assignment in waiting line problems", Operations Research
    2(1):70-76, 1954. doi:10.1287/opre.2.1.70
    L. Kleinrock, *Queueing Systems, Vol. 2: Computer Applications*, Wiley 1976, §3.6
    and §3.7 (priority queueing, conservation law).

    Examples
    --------
    Two exponential classes, rho = 0.3 each, S = 1 s, non-preemptive: W0 = 0.6, so
    W = 0.6/0.7 for the high class and 0.6/(0.7 * 0.4) for the low class.

    >>> r = priority_station([0.3, 0.3], [1.0, 1.0], [0, 1])
    >>> (r.waiting_time * 0.28).round(12).tolist()
    [0.24, 0.6]
    """
    lam = as_float_array("arrival_rates", arrival_rates)
    if lam.ndim != 1 or lam.size == 0:
        raise ValueError(f"arrival_rates must have shape (classes,), got shape {lam.shape}")
    C = lam.size
    s = as_float_array("service_times", service_times, positive=True)
    if s.ndim == 0:
        s = np.full(C, float(s))
    if s.shape != (C,):
        raise ValueError(f"service_times must have one entry per class ({C}), got shape {s.shape}")
    scv = as_float_array("service_scvs", service_scvs)
    scv = np.broadcast_to(scv, (C,)) if scv.ndim == 0 else scv
    if scv.shape != (C,):
        raise ValueError(f"service_scvs must have one entry per class ({C}), got shape {scv.shape}")
    prio = _check_priorities(priorities, C)
    wait, resp, sat = _station_core(lam, s, scv, prio, bool(preemptive))
    warn_saturated(sat, "priority class")
    with np.errstate(invalid="ignore"):
        q = np.where(lam > 0, lam * resp, 0.0)
    return PriorityStationResult(waiting_time=wait, response_time=resp, queue_length=q,
                                 utilization=lam * s, preemptive=bool(preemptive))


def _class_station_inputs(service_times, visits, C=None):
    S = as_float_array("service_times", service_times)
    if S.ndim != 2 or S.size == 0:
        raise ValueError(f"service_times must have shape (classes, stations), got shape {S.shape}")
    V = as_float_array("visits", visits)
    V = np.broadcast_to(V, S.shape) if V.ndim == 0 else V
    if V.shape != S.shape:
        raise ValueError(f"visits must be a scalar or have shape {S.shape}, got shape {V.shape}")
    return S, np.ascontiguousarray(V)


def open_priority_network(arrival_rates, service_times, priorities, visits=1.0, servers=1,
                          preemptive: bool = False) -> PriorityNetworkResult:
    r"""Open multi-class network with priority scheduling at its single-server stations.

    Parameters
    ----------
    arrival_rates : array_like
        External arrival rate of each class, (C,) [1/s].
    service_times : array_like
        Mean exponential service time per visit, (C, K) [s].
    priorities : array_like of int
        Priority of each class, 0 = highest [1].
    visits : float or array_like
        Visits V[c, k] per job, scalar or (C, K) [1].
    servers : int, float or sequence of length K
        1 (a priority station) or ``math.inf`` (delay station) [1].
    preemptive : bool
        Preemptive-resume (True) or head-of-line (False) at every queueing station.

    Returns
    -------
    PriorityNetworkResult
        ``method="decomposition"``; residence times are V T per class and station.

    Notes
    -----
    Station decomposition: each queueing station is treated as an isolated M/G/1
    priority queue (:func:`priority_station`, exponential service) fed by Poisson
    flows :math:`\lambda_c V_{ck}`. Exact for a single station; in a network the merged
    flows are not Poisson under priority scheduling, so this is the standard
    decomposition approximation (Bolch et al. 2006, §10.1 decomposition of non
    product-form open networks; Kleinrock vol. 2, §3.6-3.7 for the station).

    References
    ----------
    G. Bolch, S. Greiner, H. de Meer, K. S. Trivedi, *Queueing Networks and Markov
    Chains*, 2nd ed., Wiley 2006, §10.1 (decomposition), §6.4 (priority systems).
    L. Kleinrock, *Queueing Systems, Vol. 2*, Wiley 1976, §3.6-3.7.

    Examples
    --------
    One station: the same numbers as :func:`priority_station` (W + S per class).

    >>> r = open_priority_network([0.3, 0.3], [[1.0], [1.0]], [0, 1])
    >>> (r.residence_time[:, 0] * 0.28).round(12).tolist()
    [0.52, 0.88]
    """
    lam = as_float_array("arrival_rates", arrival_rates)
    if lam.ndim != 1:
        raise ValueError(f"arrival_rates must have shape (classes,), got shape {lam.shape}")
    S, V = _class_station_inputs(service_times, visits)
    C, K = S.shape
    if lam.size != C:
        raise ValueError(f"arrival_rates must have one entry per class ({C}), got {lam.size}")
    prio = _check_priorities(priorities, C)
    srv = as_servers(servers, K)
    if (np.isfinite(srv) & (srv != 1)).any():
        bad = srv[np.isfinite(srv) & (srv != 1)][0]
        raise ValueError("servers must be 1 or math.inf in open_priority_network (multi-server "
                         f"priority stations are not modelled), got {bad:g}")
    resid = np.zeros((C, K))
    sat_any = np.zeros(C, dtype=bool)
    for k in range(K):
        if np.isinf(srv[k]):
            resid[:, k] = V[:, k] * S[:, k]
            continue
        _, resp, sat = _station_core(lam * V[:, k], S[:, k], np.ones(C), prio, bool(preemptive))
        visited = V[:, k] > 0
        resid[:, k] = np.where(visited, V[:, k] * resp, 0.0)
        sat_any |= sat & visited
    warn_saturated(sat_any, "priority class", stacklevel=2)
    with np.errstate(invalid="ignore"):
        Q = np.where(resid > 0, lam[:, None] * resid, 0.0)
    U = np.where(np.isinf(srv)[None, :], 0.0, lam[:, None] * V * S)
    return PriorityNetworkResult(throughput=lam.copy(), response_time=resid.sum(axis=1),
                                 residence_time=resid, queue_length=Q, utilization=U,
                                 method="decomposition")


# --------------------------------------------------------------------------- closed

def mva_priority(service_times, populations, priorities, visits=1.0, think_times=0.0, servers=1,
                 preemptive: bool = True, method: str = "mva-priority",
                 priority_stations=None, tol: float = 1e-10,
                 max_iter: int = 10_000) -> PriorityNetworkResult:
    r"""Closed multi-class network with priority stations: MVA-priority or shadow server.

    Parameters
    ----------
    service_times : array_like
        Mean exponential service time per visit S[c, k], (C, K) [s].
    populations : array_like of int
        Jobs N_c of each class, (C,) [1].
    priorities : array_like of int
        Priority of each class, 0 = highest [1].
    visits : float or array_like
        Visits V[c, k] per job cycle, scalar or (C, K) [1].
    think_times : float or array_like
        Think time Z_c of each class [s].
    servers : int, float or sequence of length K
        1 (queueing station) or ``math.inf`` (delay) [1].
    preemptive : bool
        Preemptive-resume (True, default) or head-of-line (False).
    method : {"mva-priority", "shadow"}
        The approximation; ``"shadow"`` is for preemptive priority only.
    priority_stations : array_like of bool, optional
        Which queueing stations schedule by priority (default: all); the others are
        FCFS/PS product-form stations [1].
    tol : float
        Convergence threshold on the utilizations (shadow) [1].
    max_iter : int
        Most fixed-point iterations (shadow) [1].

    Returns
    -------
    PriorityNetworkResult
        ``throughput``, ``response_time`` (C,), ``residence_time``, ``queue_length``,
        ``utilization`` (C, K), ``method``, ``iterations``, ``converged``.

    Notes
    -----
    **MVA-priority** (after Bryant, Krzesinski, Lakshmi & Chandy 1984): the exact MVA
    recursion over the population lattice, with the residence-time equation at a
    priority station written from the M/G/1 priority decomposition. An arriving
    class-r job sees the network with one job of its own class removed (arrival
    theorem): queue lengths :math:`A_{sk} = Q_{sk}(\mathbf n - \mathbf e_r)`,
    service-busy probabilities :math:`B_{sk} = U_{sk}(\mathbf n - \mathbf e_r)` and the
    utilization of the strictly higher classes :math:`U^H_{rk}`, which slows the
    server down for the whole stay:

    .. math::

        \text{PR: } T_{rk} = \frac{S_{rk} + \sum_{s \in L_r} A_{sk} S_{sk}}{1 - U^H_{rk}},
        \qquad
        \text{HOL: } T_{rk} = S_{rk} + \frac{\sum_{s} B_{sk} S_{sk}
              + \sum_{s \in L_r} (A_{sk} - B_{sk}) S_{sk}}{1 - U^H_{rk}},

    (:math:`L_r` the classes of r's own priority level), :math:`R_{rk} = V_{rk} T_{rk}`,
    :math:`X_r(\mathbf n) = n_r/(Z_r + \sum_k R_{rk})`, :math:`Q = X R`,
    :math:`U = X V S`. Higher-priority jobs found waiting are not added to the
    numerator: with finitely many of them their work is already the (1 - U^H)
    slow-down, and counting both (as the open M/G/1 formula does) overestimated the
    low class's response time by up to 55 % against the exact CTMC of a central-server
    model. With one class, or all classes at one level, the equations are exact
    multi-class MVA; the highest class of a central-server model is exact. These
    equations follow the structure of Bryant et al.'s approximation (arrival-instant
    queues plus higher-priority utilization) but were derived here, not transcribed
    from their paper; cost O(C K prod(N_c + 1)) in a Python loop (lattices over
    2e5 vectors are refused).

    Accuracy, against the exact CTMC of seeded random two-class central-server models
    (``tests/test_priority.py``): where the higher class uses at most half of the
    priority station, the low class's throughput is within 5 % on average and 25 % at
    worst, the high class exact (PR) or within 15 % (HOL). Where the higher classes
    nearly saturate the station, the low class's error grows large (a factor of two
    was seen); and the HOL residual term can then push the station's total
    utilization slightly above 1. Use these approximations for ranking and sizing,
    and :func:`zmodel.queueing.ctmc.ctmc_steady_state` for a small network that must
    be exact.

    **Shadow server** (Sevcik 1977), preemptive only: each priority station is split
    into one shadow station per priority level, visited only by that level's classes,
    whose demands are inflated by the higher levels' utilization,
    :math:`D^*_{rk} = D_{rk}/(1 - U^H_{rk})`; the expanded product-form network is
    solved by exact multi-class MVA and the utilizations iterated to a fixed point.

    References
    ----------
    R. M. Bryant, A. E. Krzesinski, M. S. Lakshmi, K. M. Chandy, "The MVA priority
    approximation", ACM TOCS 2(4):335-359, 1984. doi:10.1145/357401.357406
    K. C. Sevcik, "Priority scheduling disciplines in queuing network models of
    computer systems", Proc. IFIP Congress 77, pp. 565-570, 1977.
    E. D. Lazowska et al., *Quantitative System Performance*, Prentice Hall 1984,
    §7.5 (approximate multi-class MVA).

    Examples
    --------
    One class alone at a priority CPU is exact MVA: N = 1 job, S = 1, Z = 1 gives
    X = 1/2.

    >>> r = mva_priority([[1.0]], [1], [0], think_times=1.0)
    >>> round(float(r.throughput[0]), 12)
    0.5
    """
    S, V = _class_station_inputs(service_times, visits)
    C, K = S.shape
    N = as_int_array("populations", populations, minimum=0)
    if N.ndim == 0:
        N = np.full(C, int(N), dtype=np.int64)
    if N.shape != (C,):
        raise ValueError(f"populations must have one entry per class ({C}), got shape {N.shape}")
    Z = as_float_array("think_times", think_times)
    Z = np.full(C, float(Z)) if Z.ndim == 0 else Z
    if Z.shape != (C,):
        raise ValueError(f"think_times must be a scalar or have one entry per class ({C}), "
                         f"got shape {Z.shape}")
    prio = _check_priorities(priorities, C)
    srv = as_servers(servers, K)
    if (np.isfinite(srv) & (srv != 1)).any():
        raise ValueError("servers must be 1 or math.inf in mva_priority (multi-server priority "
                         f"stations are not modelled), got {srv[np.isfinite(srv) & (srv != 1)][0]:g}")
    delay = np.isinf(srv)
    if priority_stations is None:
        pst = ~delay
    else:
        pst = np.asarray(priority_stations, dtype=bool)
        if pst.shape != (K,):
            raise ValueError(f"priority_stations must have one entry per station ({K}), got "
                             f"shape {pst.shape}")
        pst = pst & ~delay
    if method not in ("mva-priority", "shadow"):
        raise ValueError(f"method must be 'mva-priority' or 'shadow', got {method!r}")
    if method == "shadow" and not preemptive:
        raise ValueError("method 'shadow' models preemptive priority only; use preemptive=True "
                         "or method='mva-priority'")
    if not tol > 0:
        raise ValueError(f"tol must be positive, got {tol!r}")
    D = V * S
    bad = (N > 0) & ~((D.sum(axis=1) + Z) > 0)
    if bad.any():
        raise ValueError("service_times and think_times must not all be zero for a class with "
                         "population > 0")
    if method == "shadow":
        return _shadow(S, V, D, N, Z, prio, delay, pst, tol, max_iter)
    return _mva_priority(S, V, D, N, Z, prio, delay, pst, bool(preemptive), tol, max_iter)


#: largest population lattice :func:`mva_priority` walks (Python loop over vectors)
_MAX_PRIORITY_LATTICE = 200_000


def _mva_priority(S, V, D, N, Z, prio, delay, pst, preemptive, tol, max_iter):
    import itertools
    import math

    C, K = S.shape
    higher, same = _higher_masks(prio)
    level = same & ~higher  # same priority level (own class included)
    size = math.prod(int(n) + 1 for n in N)
    if size > _MAX_PRIORITY_LATTICE:
        raise ValueError(f"populations span {size} lattice vectors (> {_MAX_PRIORITY_LATTICE}) "
                         "for method 'mva-priority'; use method='shadow' (preemptive)")
    radix = np.cumprod(np.concatenate(([1], N[:-1] + 1))).astype(np.int64)
    Qs = np.zeros((size, C, K))
    Us = np.zeros((size, C, K))
    X = np.zeros(C)
    R = np.zeros((C, K))
    queue = ~delay & ~pst
    prio_k = pst & ~delay
    for idx, n in enumerate(itertools.product(*(range(int(x) + 1) for x in N[::-1]))):
        n = np.array(n[::-1])
        if idx == 0:
            continue
        T = np.zeros((C, K))
        for r in np.flatnonzero(n > 0):
            prev = idx - radix[r]
            A, B = Qs[prev], Us[prev]
            T[r, delay] = S[r, delay]
            T[r, queue] = S[r, queue] * (1.0 + A[:, queue].sum(axis=0))
            uh = (B[higher[r]][:, prio_k]).sum(axis=0)
            denom = np.maximum(1.0 - uh, 1e-12)
            Sp, Ap, Bp = S[:, prio_k], A[:, prio_k], B[:, prio_k]
            lv = level[r]
            if preemptive:
                T[r, prio_k] = (S[r, prio_k] + (Ap[lv] * Sp[lv]).sum(axis=0)) / denom
            else:
                busy = (Bp * Sp).sum(axis=0)
                queued = (np.maximum(Ap[lv] - Bp[lv], 0.0) * Sp[lv]).sum(axis=0)
                T[r, prio_k] = S[r, prio_k] + (busy + queued) / denom
        R = np.where(D > 0, V * T, 0.0)
        with np.errstate(invalid="ignore", divide="ignore"):
            X = np.where(n > 0, n / (Z + R.sum(axis=1)), 0.0)
        Qs[idx] = X[:, None] * R
        Us[idx] = np.where(delay[None, :], 0.0, X[:, None] * D)
    return PriorityNetworkResult(throughput=X, response_time=R.sum(axis=1), residence_time=R,
                                 queue_length=X[:, None] * R, utilization=Us[size - 1] if size > 1
                                 else np.zeros((C, K)), method="mva-priority",
                                 iterations=0, converged=True)


def _shadow(S, V, D, N, Z, prio, delay, pst, tol, max_iter):
    from .closed import mva_multiclass

    C, K = S.shape
    higher, _ = _higher_masks(prio)
    levels = np.unique(prio)
    # expanded stations: non-priority stations as they are, then (station, level) shadows
    plain = np.flatnonzero(~pst)
    shadows = [(k, lv) for k in np.flatnonzero(pst) for lv in levels]
    K2 = plain.size + len(shadows)
    srv2 = np.concatenate([np.where(delay[plain], np.inf, 1.0), np.ones(len(shadows))])
    U = np.zeros((C, K))
    converged, it = False, 0
    X = np.zeros(C)
    R = np.zeros((C, K))
    for it in range(1, max_iter + 1):
        D2 = np.zeros((C, K2))
        D2[:, :plain.size] = D[:, plain]
        for i, (k, lv) in enumerate(shadows):
            uh = (higher * U[None, :, k]).sum(axis=1)  # (C,) utilization of higher classes
            stretch = 1.0 / np.maximum(1.0 - uh, 1e-12)
            D2[:, plain.size + i] = np.where(prio == lv, D[:, k] * stretch, 0.0)
        sol = mva_multiclass(D2, N, think_times=Z, servers=srv2)
        X = sol.throughput
        R = np.zeros((C, K))
        R[:, plain] = sol.residence_time[:, :plain.size]
        for i, (k, lv) in enumerate(shadows):
            R[:, k] += sol.residence_time[:, plain.size + i]
        Un = np.where(delay[None, :], 0.0, X[:, None] * D)
        delta = float(np.abs(Un - U).max())
        U = Un
        if delta < tol:
            converged = True
            break
    return PriorityNetworkResult(throughput=X, response_time=R.sum(axis=1), residence_time=R,
                                 queue_length=X[:, None] * R, utilization=U, method="shadow",
                                 iterations=it, converged=converged)
