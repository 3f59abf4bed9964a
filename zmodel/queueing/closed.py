"""Closed product-form queueing networks: exact and approximate Mean Value Analysis.

* :func:`mva` -- exact single-class MVA, batched: one call solves many networks;
  single-server, multi-server (exact, load-dependent) and delay stations.
* :func:`mva_multiclass` -- exact multi-class MVA over the population lattice.
* :func:`amva` -- approximate multi-class MVA: Bard--Schweitzer and Linearizer.

The hot loops live in :mod:`zmodel.queueing._kernels` (Numba, imported on first call).
"""
from __future__ import annotations

import dataclasses
import math
import warnings
from typing import ClassVar

import numpy as np

from ._result import Result
from zmodel.conventions import as_float_array, as_int_array, as_servers, vectorized

__all__ = ["mva", "mva_multiclass", "amva", "MVAResult", "MultiClassMVAResult", "AMVAResult"]

#: largest lattice (population vectors x stations) exact multi-class MVA will allocate
_MAX_LATTICE_CELLS = 50_000_000
#: most identical queues one station of :func:`mva` may stand for (``copies``)
MAX_COPIES = 2 ** 16


@dataclasses.dataclass(frozen=True)
class MVAResult(Result):
    """Exact single-class MVA of a batch of closed networks.

    Attributes
    ----------
    throughput : float or ndarray
        System throughput X(N), batch shape [1/s].
    response_time : float or ndarray
        Sum of the residence times, think time excluded, batch shape [s].
    residence_time : ndarray
        Time a job spends at each station per interaction (all visits), batch + (K,) [s].
    queue_length : ndarray
        Mean number of jobs at each station, waiting plus in service, batch + (K,) [1].
    utilization : ndarray
        Utilization per server X D / servers (0 for a delay station), batch + (K,) [1].
    """

    throughput: float | np.ndarray
    response_time: float | np.ndarray
    residence_time: np.ndarray
    queue_length: np.ndarray
    utilization: np.ndarray

    trailing_dims: ClassVar[tuple[str, ...]] = ("station",)


@dataclasses.dataclass(frozen=True)
class MultiClassMVAResult(Result):
    """Exact multi-class MVA of one closed network.

    Attributes
    ----------
    throughput : ndarray
        Per-class system throughput, shape (C,) [1/s].
    response_time : ndarray
        Per-class sum of residence times, think time excluded, shape (C,) [s].
    residence_time : ndarray
        Shape (C, K) [s].
    queue_length : ndarray
        Mean number of class-c jobs at station k, shape (C, K) [1].
    utilization : ndarray
        Class-c utilization per server X_c D_ck / servers_k, shape (C, K) [1].
    """

    throughput: np.ndarray
    response_time: np.ndarray
    residence_time: np.ndarray
    queue_length: np.ndarray
    utilization: np.ndarray

    trailing_dims: ClassVar[tuple[str, ...]] = ("class", "station")

    def _frame_dims(self) -> tuple[str, ...]:
        return ("class", "station")


@dataclasses.dataclass(frozen=True)
class AMVAResult(MultiClassMVAResult):
    """Approximate multi-class MVA (same fields as :class:`MultiClassMVAResult`).

    Attributes
    ----------
    method : str
        ``"schweitzer"`` or ``"linearizer"``.
    iterations : int
        Fixed-point iterations of the core (Schweitzer) or outer Linearizer
        iterations [1].
    residual : float
        Largest absolute change of a queue length in the last core iteration [1].
    converged : bool
        Whether ``residual < tol`` was reached within ``max_iter``.
    multiserver : str
        Approximation used for multi-server stations, ``"seidmann"`` or ``"rolia"``
        (``""`` when the network has none).
    """

    method: str = "schweitzer"
    iterations: int = 0
    residual: float = 0.0
    converged: bool = True
    multiserver: str = ""


# --------------------------------------------------------------------------- helpers

def _kernels():
    from . import _kernels as k  # imports numba: only on first solver call

    return k


def _check_total_demand(name_z: str, total: np.ndarray, population: np.ndarray) -> None:
    bad = (population > 0) & ~(total > 0)
    if bad.any():
        raise ValueError(
            f"service_demands and {name_z} must not all be zero for a population > 0 "
            "(throughput would be infinite)")


def _utilization(x, demands, servers):
    with np.errstate(divide="ignore", invalid="ignore"):
        per_server = np.where(np.isinf(servers), 0.0, demands / servers)
    return x * per_server


# --------------------------------------------------------------------------- mva

@vectorized
def mva(service_demands, population, think_time=0.0, servers=1,
        rate_multipliers=None, copies=1) -> MVAResult:
    r"""Exact single-class Mean Value Analysis of a closed product-form network.

    Parameters
    ----------
    service_demands : array_like
        Service demand D_k = V_k S_k of each station, shape (..., K); leading axes are a
        batch of independent networks solved in one call [s].
    population : int or array_like
        Number of jobs N >= 0, broadcast against the batch shape [1].
    think_time : float or array_like
        Think time Z of the terminals (a delay outside the response time), broadcast
        against the batch shape [s].
    servers : int, float, sequence of length K, or array_like of shape (..., K)
        1 = single-server queue, an integer k > 1 = k identical servers (solved
        exactly), ``math.inf`` = delay station. An array with leading axes gives each
        network of the batch its own server counts (broadcast against the batch
        shape), e.g. a sweep over the processors of a CPU station [1].
    rate_multipliers : dict or sequence, optional
        Load-dependent stations: ``{station: alpha}`` with ``alpha`` a table alpha(1),
        alpha(2), ... (at least one entry per population level up to the largest N) or
        a callable alpha(n); solved by the exact load-dependent recursion of
        :func:`zmodel.queueing.mva_load_dependent`, one network at a time; not combined
        with per-network server counts [1].
    copies : int, sequence of length K, or array_like of shape (..., K)
        A single-server station with ``copies`` = m > 1 stands for m identical queues
        over which its visits, and so its demand D_k, are spread evenly (the disks of
        an array: each request waits at the disk that holds its block, not at any idle
        one); ``residence_time`` and ``queue_length`` are the sums over the m queues,
        ``utilization`` that of each. Only for single-server stations; not combined
        with ``rate_multipliers``; at most :data:`MAX_COPIES`. Default 1 [1].

    Returns
    -------
    MVAResult
        ``throughput`` [1/s] and ``response_time`` [s] of batch shape (floats for a
        single network); ``residence_time`` [s], ``queue_length`` [1] and
        ``utilization`` (per server) [1] of shape batch + (K,).

    Notes
    -----
    Single-server and delay stations follow the exact MVA recursion (Reiser &
    Lavenberg 1980; Lazowska et al. 1984, §6.4.1, Algorithm 6.1), for n = 1..N:

    .. math::

        R_k(n) = D_k\,(1 + Q_k(n-1)) \;\text{(queue)},\quad R_k(n) = D_k
        \;\text{(delay)},\quad X(n) = \frac{n}{Z + \sum_k R_k(n)},\quad
        Q_k(n) = X(n) R_k(n).

    A station with c servers is load dependent; its residence time is (Bolch et al.
    2006, §8.2.4, multiserver MVA)

    .. math::

        R_k(n) = \frac{D_k}{c}\Big(1 + Q_k(n-1)
                 + \sum_{j=0}^{c-2} (c-1-j)\, p_k(j \mid n-1)\Big).

    The textbook computes the idle probability by difference,
    :math:`p_k(0|n) = 1 - \frac{1}{c}\big(X D_k + \sum_{j=1}^{c-1}(c-j) p_k(j|n)\big)`,
    which cancels catastrophically near saturation (errors grow geometrically for
    c >= 3). Here the marginals come instead from ratios of normalising constants,
    :math:`p_k(j|n) = \frac{D_k^j}{j!} G_{-k}(n-j)/G(n)` for j < c, where the
    generating function of a c-server station is
    :math:`\frac{\sum_{j<c} (D^j/j!)(1 - j/c) z^j}{1 - (D/c) z}` -- a polynomial with
    positive coefficients times a single-server factor. Both convolution steps add
    positive terms only, and each population level is renormalised by G(n), so nothing
    overflows at huge N. One extra pass per multi-server station is needed (O(N (K + sum c))
    each). A station with at least as many servers as jobs is exactly a delay station.

    A station of m identical single-server queues, each visited with probability 1/m
    and so with demand D_k/m, is m ordinary stations of MVA whose queue lengths are
    equal by symmetry, :math:`Q_k/m` each; their summed residence time is therefore
    (Lazowska et al. 1984, Algorithm 6.1 applied to each copy)

    .. math::

        R_k(n) = m \frac{D_k}{m}\Big(1 + \frac{Q_k(n-1)}{m}\Big)
               = D_k\Big(1 + \frac{Q_k(n-1)}{m}\Big),

    and in the convolution its generating function is :math:`(1 - (D_k/m) z)^{-m}`.
    Pooling the m queues into one m-server station instead would let a request wait at
    any idle copy and understate the queueing.

    A batch that is one network at several populations (equal demands, think time, servers
    and copies in every row; no station multi-server at the largest population) is solved
    by one recursion to the largest population that records each population asked for:
    O(max N K) instead of O(sum N K), with the numbers of each population solved alone, bit
    for bit (the recursion's first n steps are those of a run to n).

    Valid for closed, separable (BCMP product-form) networks: FCFS stations with
    class-independent exponential service, or PS/LCFS-PR; delay stations of any
    service distribution.

    References
    ----------
    M. Reiser, S. S. Lavenberg, "Mean-value analysis of closed multichain queuing
    networks", J. ACM 27(2):313-322, 1980. doi:10.1145/322186.322195
    E. D. Lazowska, J. Zahorjan, G. S. Graham, K. C. Sevcik, *Quantitative System
    Performance*, Prentice Hall 1984, ch. 6 (§6.4, exact MVA).
    G. Bolch, S. Greiner, H. de Meer, K. S. Trivedi, *Queueing Networks and Markov
    Chains*, 2nd ed., Wiley 2006, §8.2 (MVA, multiserver nodes) and §8.1 (convolution).
    J. P. Buzen, "Computational algorithms for closed queueing networks with
    exponential servers", CACM 16(9):527-531, 1973. doi:10.1145/362342.362345

    Examples
    --------
    Jain (1991), Example 34.2: CPU, disk A, disk B with demands 2, 3, 1 s, Z = 4 s.

    >>> r = mva([2.0, 3.0, 1.0], population=2, think_time=4.0)
    >>> round(r.response_time, 3), round(r.throughput, 3)
    (7.4, 0.175)

    Two networks in one call (the first has X(3) = 7/15 by hand):

    >>> mva([[1.0, 2.0], [1.0, 1.0]], population=[3, 0]).throughput
    array([0.46666667, 0.        ])

    Per-network server counts: one station of demand 1 s with 1 and 2 servers, two jobs
    (X = 1 and 2 by hand: with 2 servers nobody queues).

    >>> mva([1.0], population=2, servers=[[1], [2]]).throughput
    array([1., 2.])

    Two identical queues sharing a demand of 2 s, two jobs: the three placements
    (2, 0), (1, 1), (0, 2) are equally likely, so each queue is busy 2/3 of the time and
    X = (2/3) / 1 s by hand; two pooled servers would give X = 1.

    >>> round(mva([2.0], population=2, copies=2).throughput, 12)
    0.666666666667
    """
    D = as_float_array("service_demands", service_demands, min_ndim=1)
    if D.shape[-1] == 0:
        raise ValueError("service_demands must have at least one station, got shape "
                         f"{D.shape}")
    N = as_int_array("population", population, minimum=0)
    Z = as_float_array("think_time", think_time)
    K = D.shape[-1]
    srv = _batch_servers(servers, K)
    cop = _batch_servers(copies, K, name="copies")
    if np.isinf(cop).any():
        raise ValueError("copies must be a positive integer (a number of identical queues), got math.inf")
    if (cop > MAX_COPIES).any():
        raise ValueError(f"copies must be at most {MAX_COPIES} (beside a multi-server station the "
                         f"convolution keeps one row per copy), got {int(cop.max())}")
    if ((cop > 1) & (srv != 1)).any():
        raise ValueError("copies > 1 is only for single-server stations (servers == 1)")
    if rate_multipliers is not None and (cop > 1).any():
        raise ValueError("copies > 1 cannot be combined with rate_multipliers")
    try:
        batch = np.broadcast_shapes(D.shape[:-1], Z.shape, N.shape)
    except ValueError:
        raise ValueError(
            "think_time and population must broadcast against the batch shape "
            f"{D.shape[:-1]} of service_demands, got shapes {Z.shape} and {N.shape}") from None
    for label, arr in (("servers", srv), ("copies", cop)):
        try:
            batch = np.broadcast_shapes(batch, arr.shape[:-1])
        except ValueError:
            raise ValueError(
                f"{label} must broadcast against the batch shape {batch} (its shape without the station "
                f"axis), got shape {arr.shape}") from None
    Db = _kernel_array(np.broadcast_to(D, batch + (K,)), float).reshape(-1, K)
    Zb = _kernel_array(np.broadcast_to(Z, batch), float).reshape(-1)
    Nb = _kernel_array(np.broadcast_to(N, batch), np.int64).reshape(-1)
    Sb = _kernel_array(np.broadcast_to(srv, batch + (K,)), float).reshape(-1, K)
    Cb = _kernel_array(np.broadcast_to(cop, batch + (K,)), np.int64).reshape(-1, K)
    B = Db.shape[0]
    X = np.empty(B)
    Q = np.empty((B, K))
    R = np.empty((B, K))
    U = np.empty((B, K))
    resp = np.empty(B)
    if rate_multipliers is None and _one_network(Db, Zb, Nb, Sb, Cb):
        # a population sweep of one network: one recursion, stopping at each population
        _kernels().mva_sweep(Db[0], Zb[0], Nb, Sb[0], Cb[0], X, Q, R, U, resp)
    elif rate_multipliers is None:
        _kernels().mva_batch(Db, Zb, Nb, Sb, Cb, X, Q, R, U, resp)
    else:
        if srv.ndim > 1:
            raise ValueError("servers must be one count per station (shape (K,)) when rate_multipliers "
                             f"are given, got shape {srv.shape}")
        from .loaddep import _mva_batch_ld

        X, Q, R, U = _mva_batch_ld(Db, Zb, Nb, srv, rate_multipliers)
        resp = R.sum(axis=1)
    if np.isnan(X).any():
        _check_total_demand("think_time", Db.sum(axis=1) + Zb, Nb)
    X = X.reshape(batch)
    Q = Q.reshape(batch + (K,))
    R = R.reshape(batch + (K,))
    U = U.reshape(batch + (K,))
    resp = resp.reshape(batch)
    if batch == ():
        X, resp = float(X), float(resp)
    return MVAResult(throughput=X, response_time=resp, residence_time=R,
                     queue_length=Q, utilization=U)


def _kernel_array(a, dtype) -> np.ndarray:
    """``a`` as a C-contiguous, writable array of ``dtype`` for a Numba kernel.

    Numba compiles one specialization per argument type, and a read-only array (a view from
    ``np.broadcast_to``, or a caller's read-only input) is another type: until 2026-11-27 a fresh
    install compiled ``mva_batch`` eight times over a test run. A read-only array is copied.
    """
    return np.require(a, dtype=dtype, requirements=("C", "W"))


def _one_network(D, Z, N, servers, copies) -> bool:
    """Whether a batch is one network at several populations, which the kernel's
    ``mva_sweep`` solves in one recursion with the numbers ``mva_batch`` gives each row:
    the same demands, think time, servers and copies in every row, some demand, and no
    station multi-server at the largest population (a multi-server station's chain
    depends on the population it runs to)."""
    if D.shape[0] < 2 or not Z[0] + D[0].sum() > 0:
        return False
    if not ((D == D[0]).all() and (Z == Z[0]).all() and (servers == servers[0]).all()
            and (copies == copies[0]).all()):
        return False
    c = servers[0]
    return bool(((D[0] == 0) | (c == 1) | (c >= N.max())).all())


def _batch_servers(servers, stations: int, name: str = "servers") -> np.ndarray:
    """The ``servers`` convention of :func:`as_servers`, or one row of it per network (shape (..., K))."""
    if np.ndim(servers) < 2:
        return as_servers(servers, stations, name)
    arr = as_float_array(name, servers, allow_inf=True)
    if arr.shape[-1] != stations:
        raise ValueError(f"{name} must have one entry per station ({stations}) on its last axis, "
                         f"got shape {arr.shape}")
    return as_servers(arr.reshape(-1), arr.size, name).reshape(arr.shape)


# --------------------------------------------------------------------------- multiclass

def _check_multiclass(service_demands, populations, think_times, servers):
    D = as_float_array("service_demands", service_demands)
    if D.ndim != 2 or D.shape[1] == 0:
        raise ValueError("service_demands must have shape (classes, stations), got shape "
                         f"{D.shape}")
    C, K = D.shape
    N = as_int_array("populations", populations, minimum=0)
    if N.ndim == 0:
        N = np.full(C, int(N), dtype=np.int64)
    if N.shape != (C,):
        raise ValueError(f"populations must have one entry per class ({C}), got shape {N.shape}")
    Z = as_float_array("think_times", think_times)
    if Z.ndim == 0:
        Z = np.full(C, float(Z))
    if Z.shape != (C,):
        raise ValueError(f"think_times must be a scalar or have one entry per class ({C}), "
                         f"got shape {Z.shape}")
    srv = as_servers(servers, K)
    _check_total_demand("think_times", D.sum(axis=1) + Z, N)
    return (np.ascontiguousarray(D), np.ascontiguousarray(N, dtype=np.int64),
            np.ascontiguousarray(Z), srv)


def _multiclass_result(cls, X, R, D, srv, **extra):
    Q = X[:, None] * R
    U = _utilization(X[:, None], D, srv)
    return cls(throughput=X, response_time=R.sum(axis=1), residence_time=R,
               queue_length=Q, utilization=U, **extra)


@vectorized
def mva_multiclass(service_demands, populations, think_times=0.0, servers=1,
                   rate_multipliers=None) -> MultiClassMVAResult:
    r"""Exact multi-class Mean Value Analysis of a closed product-form network.

    Parameters
    ----------
    service_demands : array_like
        Demand D_ck of class c at station k, shape (C, K) [s].
    populations : array_like
        Jobs N_c >= 0 of each class, shape (C,) (a scalar applies to every class) [1].
    think_times : float or array_like
        Think time Z_c of each class, scalar or shape (C,) [s].
    servers : int, float or sequence of length K
        1 = single-server queue, an integer c > 1 = c identical servers, ``math.inf``
        = delay station [1].
    rate_multipliers : dict or sequence, optional
        Load-dependent stations alpha_k(n), a table or a callable per station; see
        :func:`zmodel.queueing.mva_load_dependent` [1].

    Returns
    -------
    MultiClassMVAResult
        ``throughput`` [1/s] and ``response_time`` [s] of shape (C,);
        ``residence_time`` [s], ``queue_length`` [1], ``utilization`` (per server) [1]
        of shape (C, K).

    Notes
    -----
    For every population vector n <= N, in mixed-radix order so that each n - e_c is
    already solved (Lazowska et al. 1984, §7.4.2.1, Algorithm 7.1):

    .. math::

        R_{ck}(\mathbf n) = D_{ck}\big(1 + Q_k(\mathbf n - \mathbf e_c)\big),\quad
        X_c(\mathbf n) = \frac{n_c}{Z_c + \sum_k R_{ck}(\mathbf n)},\quad
        Q_k(\mathbf n) = \sum_c X_c(\mathbf n) R_{ck}(\mathbf n)

    (R_ck = D_ck at a delay station). Only the total queue length per station and
    vector is stored: prod(N_c + 1) x K numbers. Cost O(C K prod(N_c + 1)); a lattice
    over 5e7 cells is refused -- use :func:`amva`. Networks with multi-server or
    load-dependent stations are solved by the exact load-dependent recursion of
    :func:`zmodel.queueing.mva_load_dependent` (marginal probabilities carried as
    positive ratios, stable near saturation).

    Valid for closed, separable networks: FCFS stations must have class-independent
    service times (PS, LCFS-PR and delay stations may differ by class).

    References
    ----------
    M. Reiser, S. S. Lavenberg, J. ACM 27(2):313-322, 1980. doi:10.1145/322186.322195
    E. D. Lazowska, J. Zahorjan, G. S. Graham, K. C. Sevcik, *Quantitative System
    Performance*, Prentice Hall 1984, §7.4 (multiple class MVA, example p. 142).

    Examples
    --------
    Lazowska et al. (1984), p. 142: two classes, one job each.

    >>> r = mva_multiclass([[1.0, 3.0], [2.0, 4.0]], [1, 1])
    >>> r.throughput * 19   # exact: 3/19 and 2/19
    array([3., 2.])

    One 4-server station, think time 1 s, 100 jobs: all four servers are busy but for a
    probability of order 1e-100, so X = 4/s.

    >>> float(mva_multiclass([[1.0]], [100], [1.0], servers=[4]).throughput[0])
    4.0
    """
    D, N, Z, srv = _check_multiclass(service_demands, populations, think_times, servers)
    C, K = D.shape
    total_pop = int(N.sum())
    multi = np.isfinite(srv) & (srv > 1) & (srv < total_pop)
    if multi.any() or rate_multipliers is not None:
        from .loaddep import mva_load_dependent

        r = mva_load_dependent(D, N, Z, srv, rate_multipliers)
        return MultiClassMVAResult(throughput=r.throughput, response_time=r.response_time,
                                   residence_time=r.residence_time, queue_length=r.queue_length,
                                   utilization=r.utilization)
    delay = ~(srv == 1)
    cells = math.prod(int(n) + 1 for n in N) * K
    if cells > _MAX_LATTICE_CELLS:
        raise ValueError(
            f"populations span {cells} lattice cells (> {_MAX_LATTICE_CELLS}); use amva "
            "for networks this large")
    X = np.empty(C)
    R = np.empty((C, K))
    _kernels().mva_multiclass_lattice(D, Z, N, delay, X, R)
    return _multiclass_result(MultiClassMVAResult, X, R, D, srv)


# --------------------------------------------------------------------------- amva

def _amva_core(D, N, Z, delay, F, Q, tol, max_iter, nserv=None, multiserver="seidmann"):
    """Fixed point of the approximate MVA equations at population N.

    ``F[j, c, k]`` is the fractional deviation Q_ck(N - e_j)/(N - e_j)_c - Q_ck(N)/N_c
    (zero for Bard--Schweitzer). ``nserv`` (K,) holds the servers of multi-server
    stations (1 elsewhere). Returns (Q, X, R, iterations, residual).
    """
    if nserv is not None and np.any(nserv > 1):
        from .multiclass import _amva_core_multiserver

        return _amva_core_multiserver(D, N, Z, delay, F, Q, tol, max_iter, nserv, multiserver)
    C, K = D.shape
    Nf = N.astype(float)
    safe = np.where(Nf > 0, Nf, 1.0)
    # (N - e_j)_c for each removal j: shape (j, c)
    Nm = Nf[None, :] - np.eye(C)
    residual = np.inf
    X = np.zeros(C)
    R = D.copy()
    it = 0
    for it in range(1, max_iter + 1):
        frac = Q / safe[:, None]                       # Q_ck(N)/N_c
        est = np.clip(Nm[:, :, None] * (frac[None, :, :] + F), 0.0, None)  # Q_ck(N - e_j)
        A = est.sum(axis=1)                            # total at k seen by class j
        R = np.where(delay, D, D * (1.0 + A))
        X = np.where(N > 0, Nf / np.maximum(Z + R.sum(axis=1), np.finfo(float).tiny), 0.0)
        Qn = X[:, None] * R
        residual = float(np.max(np.abs(Qn - Q)))
        Q = Qn
        if residual < tol:
            break
    return Q, X, R, it, residual


@vectorized
def amva(service_demands, populations, think_times=0.0, method="schweitzer", tol=1e-10,
         max_iter=10000, servers=1, multiserver="seidmann") -> AMVAResult:
    r"""Approximate multi-class MVA: Bard--Schweitzer or Linearizer.

    Parameters
    ----------
    service_demands : array_like
        Demand D_ck of class c at station k, shape (C, K) [s].
    populations : array_like
        Jobs N_c >= 0 per class, shape (C,) [1].
    think_times : float or array_like
        Think time per class, scalar or shape (C,) [s].
    method : {"schweitzer", "linearizer"}
        Bard--Schweitzer proportional estimate, or Chandy--Neuse Linearizer.
    tol : float
        Stop when no queue length changes by more than ``tol`` between iterations [1].
    max_iter : int
        Iteration limit of each fixed point [1].
    servers : int, float or sequence of length K
        1 = queue, an integer c > 1 = c identical servers, ``math.inf`` = delay
        station [1]. A station with at least as many servers as jobs is a delay
        (exact); the others follow ``multiserver``.
    multiserver : {"seidmann", "rolia"}
        Approximation of a c-server station: Seidmann et al. (a single server of demand
        D/c plus a delay of D (c-1)/c) or Rolia & Sevcik (the arrival queue weighted by
        the probability that all c servers are busy, estimated as U^c); see
        :func:`zmodel.queueing.multiclass.amva_multiserver_residence` [1].

    Returns
    -------
    AMVAResult
        Fields of :class:`MultiClassMVAResult` plus ``method``, ``iterations``,
        ``residual`` and ``converged``; a ``RuntimeWarning`` is issued when the
        iteration did not converge.

    Notes
    -----
    Both methods solve the MVA equations at the full population only, estimating the
    queue length an arriving class-j job sees. Bard--Schweitzer (Lazowska et al. 1984,
    §7.4.2.2, Algorithm 7.2; Jain 1991, §34.3):

    .. math::

        Q_k(\mathbf N - \mathbf e_j) \approx \sum_c \frac{N_c - \delta_{cj}}{N_c}
        Q_{ck}(\mathbf N).

    Linearizer (Chandy & Neuse 1982) corrects this with fractional deviations
    :math:`F_{jck} = Q_{ck}(\mathbf N-\mathbf e_j)/(N_c-\delta_{cj}) - Q_{ck}(\mathbf N)/N_c`,
    assumed equal at N and at each N - e_j: it solves the core problem at N and at
    every N - e_j, re-estimates F from them, and repeats until F is stable (Chandy and
    Neuse found three outer iterations enough; here the loop runs to ``tol``).
    Error is typically a few percent for Schweitzer and well under one percent for
    Linearizer; both are exact for N = e_c (a single job).

    References
    ----------
    P. Schweitzer, "Approximate analysis of multiclass closed networks of queues",
    Proc. Int. Conf. Stochastic Control and Optimization, Amsterdam, 1979, pp. 25-29.
    Y. Bard, "Some extensions to multiclass queueing network analysis", 3rd Int. Symp.
    on Modelling and Performance Evaluation of Computer Systems, 1979, pp. 51-62.
    K. M. Chandy, D. Neuse, "Linearizer: a heuristic algorithm for queueing network
    models of computing systems", CACM 25(2):126-134, 1982. doi:10.1145/358396.358403
    E. D. Lazowska et al., *Quantitative System Performance*, 1984, §7.4.2.2.

    Examples
    --------
    >>> r = amva([[1.0, 3.0], [2.0, 4.0]], [1, 1])
    >>> r.method, r.converged, bool(abs(r.throughput[0] - 3 / 19) < 0.01)
    ('schweitzer', True, True)
    """
    D, N, Z, srv = _check_multiclass(service_demands, populations, think_times, servers)
    methods = ("schweitzer", "linearizer")
    if method not in methods:
        raise ValueError(f"method must be 'schweitzer' or 'linearizer', got {method!r}")
    tol_f = float(tol) if np.ndim(tol) == 0 else math.nan
    if not (tol_f > 0 and math.isfinite(tol_f)):
        raise ValueError(f"tol must be a positive finite number, got {tol!r}")
    if not (isinstance(max_iter, (int, np.integer)) and max_iter >= 1):
        raise ValueError(f"max_iter must be a positive integer, got {max_iter!r}")
    if multiserver not in ("seidmann", "rolia"):
        raise ValueError(f"multiserver must be 'seidmann' or 'rolia', got {multiserver!r}")
    total_pop = int(N.sum())
    # never more busy servers than jobs: c >= N is exactly a delay (c = 2 is NOT a queue)
    delay = np.isinf(srv) | ((srv > 1) & (srv >= total_pop))
    nserv = np.where(delay, 1.0, srv)
    ms_used = multiserver if bool(np.any(nserv > 1)) else ""
    C, K = D.shape
    Q0 = np.where(N[:, None] > 0, N[:, None] / K, 0.0) * np.ones((1, K))
    F = np.zeros((C, C, K))
    Q, X, R, iters, resid = _amva_core(D, N, Z, delay, F, Q0, tol_f, max_iter, nserv, multiserver)
    converged = resid < tol_f
    if method == "linearizer":
        outer_done = False
        iters = 0
        Nf = N.astype(float)
        for outer in range(1, max_iter + 1):
            iters = outer
            Fn = np.zeros_like(F)
            for j in range(C):
                if N[j] == 0:
                    continue
                Nj = N.copy()
                Nj[j] -= 1
                Qj, _, _, _, rj = _amva_core(D, Nj, Z, delay, F, Q * np.where(
                    N > 0, Nj / np.where(N > 0, Nf, 1.0), 0.0)[:, None], tol_f, max_iter,
                    nserv, multiserver)
                converged &= rj < tol_f
                with np.errstate(divide="ignore", invalid="ignore"):
                    a = np.where(Nj[:, None] > 0, Qj / np.where(Nj > 0, Nj, 1)[:, None], 0.0)
                    b = np.where(N[:, None] > 0, Q / np.where(N > 0, N, 1)[:, None], 0.0)
                Fn[j] = np.where(Nj[:, None] > 0, a - b, 0.0)
            change = float(np.max(np.abs(Fn - F))) if F.size else 0.0
            F = Fn
            Q, X, R, _, resid = _amva_core(D, N, Z, delay, F, Q, tol_f, max_iter, nserv,
                                           multiserver)
            if change < tol_f:
                outer_done = True
                break
        converged = bool(converged and outer_done and resid < tol_f)
    converged = bool(converged)
    if not converged:
        warnings.warn(f"amva ({method}) did not converge: residual {resid:.3g} >= tol "
                      f"{tol_f:.3g} after {iters} iterations", RuntimeWarning, stacklevel=2)
    return _multiclass_result(AMVAResult, X, R, D, srv, method=method, iterations=int(iters),
                              residual=float(resid), converged=converged, multiserver=ms_used)
