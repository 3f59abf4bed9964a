"""Load-dependent and multi-server stations in closed product-form networks.

* :func:`mva_load_dependent` -- exact multi-class MVA with load-dependent stations
  (rate multipliers alpha(n) as a table or a callable) and multi-server stations;
  :func:`zmodel.queueing.mva_multiclass` and :func:`zmodel.queueing.mva` hand such
  networks to it.
* :func:`flow_equivalent_server` -- Chandy--Herzog--Woo aggregation of a subnetwork
  into one load-dependent station.
* :func:`finite_source` -- the finite-source (machine-repairman) birth--death chain
  with any state-dependent service rate, batched, in log space.

The lattice kernel lives in :mod:`zmodel.queueing._ld_kernels` (Numba, imported on
first call).
"""
from __future__ import annotations

import dataclasses
import math
from typing import Any, ClassVar

import numpy as np

from ._result import Result
from .closed import MultiClassMVAResult, _kernel_array
from ._validate import as_float_array, as_int_array, as_servers
from zmodel.conventions import vectorized

__all__ = ["mva_load_dependent", "LoadDependentMVAResult", "flow_equivalent_server",
           "FlowEquivalentResult", "finite_source",
           "finite_source_probabilities", "FiniteSourceResult", "split_finite_source", "SplitFiniteSourceResult"]

#: largest (2**LD stations) x lattice x (stations + classes + stored marginals) we allocate
_MAX_CELLS = 50_000_000


# --------------------------------------------------------------------------- results

@dataclasses.dataclass(frozen=True)
class LoadDependentMVAResult(MultiClassMVAResult):
    """Exact multi-class MVA of a closed network with load-dependent stations.

    The fields of :class:`~zmodel.queueing.closed.MultiClassMVAResult`, where the
    utilization of a station given by rate multipliers is ``X_c D_ck / max_n alpha_k(n)``
    and 0 at a delay station, plus:

    Attributes
    ----------
    marginal : ndarray or None
        With ``marginals=True``: p_k(j | N), the probability of j jobs at station k,
        j = 0..N (N the total population), for load-dependent and multi-server
        stations (NaN rows for the others, and for a constant rate table, which is
        solved as a plain queue), shape (K, N + 1); else None [1].
    """

    marginal: np.ndarray | None = None

    def to_frame(self):
        """Tidy frame of the per-class, per-station means (``marginal`` left out)."""
        plain = Result.to_frame(dataclasses.replace(self, marginal=None))
        return plain.drop(columns=["marginal"])


# --------------------------------------------------------------------------- input checks

def _one_table(k, entry, total):
    """1/alpha_k(j) for j = 1..total as a float array; ValueError names the rule."""
    name = f"rate_multipliers[{k}]"
    if callable(entry):
        vals = []
        for n in range(1, total + 1):
            try:
                v = float(entry(n))
            except (TypeError, ValueError):
                raise ValueError(f"{name} must return a number for n = {n}, got "
                                 f"{entry(n)!r}") from None
            vals.append(v)
        table = np.asarray(vals, dtype=float)
    else:
        table = as_float_array(name, entry)
        if table.ndim != 1:
            raise ValueError(f"{name} must be a 1-D table alpha(1), alpha(2), ..., got shape "
                             f"{table.shape}")
        if table.size < total:
            raise ValueError(f"{name} must have at least one entry per population level "
                             f"1..{total} (alpha(n) for n = 1..{total}), got length {table.size}")
        table = table[:total]
    bad = ~(np.isfinite(table) & (table > 0))
    if bad.any():
        j = int(np.argmax(bad))
        raise ValueError(f"{name} must be positive and finite (a rate multiplier alpha(n)), "
                         f"got {float(table[j])!r} at n = {j + 1}")
    return table


def _rate_tables(rate_multipliers, servers, K, total):
    """Per station: kind (0 queue, 1 delay, 2 load dependent) and alpha(1..total)."""
    from . import _ld_kernels as lk

    kind = np.full(K, lk.QUEUE, dtype=np.int64)
    tables: dict[int, np.ndarray] = {}
    entries: dict[int, Any] = {}
    if rate_multipliers is not None:
        if isinstance(rate_multipliers, dict):
            for key, val in rate_multipliers.items():
                if not (isinstance(key, (int, np.integer)) and 0 <= key < K):
                    raise ValueError(f"rate_multipliers keys must be station indices 0..{K - 1}, "
                                     f"got {key!r}")
                entries[int(key)] = val
        else:
            seq = list(rate_multipliers)
            if len(seq) != K:
                raise ValueError(f"rate_multipliers must be a dict or have one entry per station "
                                 f"({K}, None for a load-independent one), got length {len(seq)}")
            entries = {k: v for k, v in enumerate(seq) if v is not None}
    for k in range(K):
        c = servers[k]
        if k in entries:
            if c != 1:
                raise ValueError(f"servers must be 1 at station {k}, which has rate_multipliers "
                                 f"(write a c-server station as alpha(n) = min(n, c)), got {c:g}")
            if total == 0:
                kind[k] = lk.LD
                tables[k] = np.ones(1)
                continue
            tables[k] = _one_table(k, entries[k], total)
            kind[k] = lk.LD
        elif c == 1:
            kind[k] = lk.QUEUE
        elif math.isinf(c) or c >= total:  # never more busy servers than jobs: a delay
            kind[k] = lk.DELAY
        else:
            kind[k] = lk.LD
            tables[k] = np.minimum(np.arange(1, int(c) + 1, dtype=float), c)
    return kind, tables


def _compress(table):
    """Drop the constant tail: alpha(j) = alpha(last) for j beyond the returned length."""
    t = np.asarray(table, dtype=float)
    differ = np.flatnonzero(t != t[-1])
    return t[:differ[-1] + 2] if differ.size else t[:1]


# --------------------------------------------------------------------------- core solve

def _solve(D, Z, N, kind, tables, full_marginal=False, lattice=False):
    """Exact LD multi-class MVA; returns (X (C,), R (C, K), marginal (K, |N|+1)).

    With ``lattice`` the first item is instead the throughputs at every population
    vector, shape (prod(N_c + 1), C).
    """
    from . import _ld_kernels as lk

    C, K = D.shape
    total = int(N.sum())
    comp = {k: _compress(tables[k]) for k in range(K) if kind[k] == lk.LD}
    # a constant rate alpha is a plain queue with demand D / alpha (exact, one pass less)
    kind = kind.copy()
    D = np.array(D, dtype=float)
    for k, t in comp.items():
        if t.size == 1:
            kind[k] = lk.QUEUE
            D[:, k] = D[:, k] / t[0]
    ld = [k for k in range(K) if kind[k] == lk.LD]
    M = len(ld)
    comp = {k: comp[k] for k in ld}
    # alpha nondecreasing: the short form (positive terms, J_k marginals); otherwise the
    # direct sum over all j (positive terms, every marginal stored)
    direct = np.zeros(K, dtype=np.bool_)
    for k in ld:
        if np.any(np.diff(comp[k]) < 0):
            direct[k] = True
    J = max([comp[k].size for k in ld], default=1)
    if full_marginal or direct.any():
        J = max(J, total)
    L = math.prod(int(n) + 1 for n in N)
    cells = (2 ** M) * L * (K + C + M * (J + 1))
    if cells > _MAX_CELLS:
        raise ValueError(
            f"populations and load-dependent stations need {cells} lattice cells (> {_MAX_CELLS}); "
            "use amva for networks this large")
    inv_alpha = np.ones((K, J))
    nrates = np.ones(K, dtype=np.int64)
    ldpos_all = np.zeros(K, dtype=np.int64)
    for i, k in enumerate(ld):
        t = comp[k]
        inv_alpha[k, :t.size] = 1.0 / t
        inv_alpha[k, t.size:] = 1.0 / t[-1]
        nrates[k] = t.size
        ldpos_all[k] = i
    Dc = np.ascontiguousarray(D, dtype=float)
    Zc = np.ascontiguousarray(Z, dtype=float)
    Nc = np.ascontiguousarray(N, dtype=np.int64)
    # every subset S of the LD stations is a sub-network (load-independent stations plus S);
    # its lattice throughputs give p_k(0 | n) of the sub-networks containing S + {k}
    xall_of: dict[int, np.ndarray] = {}
    out = None
    for mask in sorted(range(2 ** M), key=lambda s: bin(s).count("1")):
        members = [ld[i] for i in range(M) if mask >> i & 1]
        kind_s = kind.copy()
        for i, k in enumerate(ld):
            if not mask >> i & 1:
                kind_s[k] = lk.ABSENT
        pos = np.zeros(K, dtype=np.int64)
        xcomp = np.empty((len(members), L, C))
        for j, k in enumerate(members):
            pos[k] = j
            xcomp[j] = xall_of[mask & ~(1 << ld.index(k))]
        xall = np.empty((L, C))
        R = np.empty((C, K))
        marg = np.empty((len(members), J + 1))
        lk.ld_lattice(Dc, Zc, Nc, kind_s, inv_alpha, nrates, direct, pos, xcomp, xall, R, marg)
        xall_of[mask] = xall
        if mask == 2 ** M - 1:
            out = (xall if lattice else xall[-1].copy(), R, marg)
    X, R, marg = out
    if lattice:
        return X, R, marg
    X = np.where(N > 0, X, 0.0)
    marginal = np.full((K, total + 1), np.nan)
    for i, k in enumerate(ld):
        m = np.zeros(total + 1)
        w = min(J + 1, total + 1)
        m[:w] = marg[i, :w]
        marginal[k] = m
    return X, R, marginal


def _finish(D, X, R, kind, tables, servers, marginal):
    from . import _ld_kernels as lk

    K = D.shape[1]
    cap = np.ones(K)
    for k in range(K):
        if kind[k] == lk.DELAY:
            cap[k] = np.inf
        elif kind[k] == lk.LD:
            cap[k] = servers[k] if servers[k] > 1 else float(np.max(tables[k]))
    cap = np.where(np.isinf(servers), np.inf, np.where(servers > 1, servers, cap))
    with np.errstate(divide="ignore", invalid="ignore"):
        U = np.where(np.isinf(cap), 0.0, X[:, None] * D / cap)
    Q = X[:, None] * R
    return LoadDependentMVAResult(throughput=X, response_time=R.sum(axis=1), residence_time=R,
                                  queue_length=Q, utilization=U, marginal=marginal)


def mva_load_dependent(service_demands, populations, think_times=0.0, servers=1,
                       rate_multipliers=None, marginals=False) -> LoadDependentMVAResult:
    r"""Exact multi-class MVA with load-dependent and multi-server stations.

    Parameters
    ----------
    service_demands : array_like
        Demand D_ck of class c at station k when the station works at rate multiplier
        1 (for a c-server station: the demand on one server), shape (C, K) or (K,) for
        one class [s].
    populations : int or array_like
        Jobs N_c >= 0 per class, shape (C,) [1].
    think_times : float or array_like
        Think time Z_c per class, scalar or shape (C,) [s].
    servers : int, float or sequence of length K
        1 = single-server (or load-dependent, see ``rate_multipliers``), an integer
        c > 1 = c identical servers (alpha(n) = min(n, c)), ``math.inf`` = delay [1].
    rate_multipliers : dict or sequence, optional
        Load-dependent stations: ``{station: alpha}`` or one entry per station (None
        for a load-independent one). ``alpha`` is a table alpha(1), alpha(2), ... with
        at least one entry per population level 1..sum(N_c), or a callable
        ``alpha(n)``; the station completes work at alpha(n) times the rate of one
        job alone when n jobs are present. Such a station must have ``servers`` 1 [1].
    marginals : bool
        Also return the full marginal distributions p_k(j | N) (stores N + 1
        probabilities per vector and load-dependent station instead of J_k).

    Returns
    -------
    LoadDependentMVAResult
        ``throughput`` [1/s], ``response_time`` [s] (C,); ``residence_time`` [s],
        ``queue_length`` [1], ``utilization`` [1] (C, K); ``marginal`` p_k(j | N)
        (K, N + 1) for the load-dependent and multi-server stations when asked for.

    Notes
    -----
    Exact MVA with load-dependent stations (Reiser & Lavenberg 1980; Bolch et al.
    2006, §8.2.4 and eqs. for multi-class load-dependent MVA; Lazowska et al. 1984,
    §20.2), over every population vector n <= N in mixed-radix order:

    .. math::

        R_{ck}(\mathbf n) = D_{ck}\sum_{j=1}^{|\mathbf n|} \frac{j}{\alpha_k(j)}\,
            p_k(j-1 \mid \mathbf n - \mathbf e_c),\qquad
        X_c(\mathbf n) = \frac{n_c}{Z_c + \sum_k R_{ck}(\mathbf n)},

        p_k(j \mid \mathbf n) = \frac{1}{\alpha_k(j)}\sum_c X_c(\mathbf n) D_{ck}\,
            p_k(j-1 \mid \mathbf n - \mathbf e_c),\quad j \ge 1 .

    Implemented stably: when alpha is constant (alpha_inf) from its J-th entry on,
    :math:`R_{ck} = D_{ck}\big[(1 + Q_k)/\alpha_\infty + \sum_{j<J} j(1/\alpha(j) -
    1/\alpha_\infty) p_k(j-1)\big]` needs only J marginals per vector (a c-server
    station: J = c, :math:`R = \frac{D}{c}(1 + Q + \sum_{j=0}^{c-2}(c-1-j)p(j))`);
    this form is used when alpha is nondecreasing (all its terms are then positive),
    the direct sum over all j otherwise.
    The textbook's :math:`p_k(0\mid\mathbf n) = 1 - \sum_{j\ge1} p_k(j\mid\mathbf n)`
    cancels catastrophically near saturation (errors grow geometrically); here
    :math:`p_k(0\mid\mathbf n) = G_{-k}(\mathbf n)/G(\mathbf n)` is carried as a product
    of positive ratios,
    :math:`p_k(0\mid\mathbf n) = p_k(0\mid\mathbf n-\mathbf e_c)\,X_c(\mathbf n)/X^{-k}_c(\mathbf n)`,
    with :math:`X^{-k}` the throughput of the network without station k (which is
    solved the same way; every subset of the M load-dependent stations is solved once:
    2^M lattice passes). Cost O(2^M prod(N_c + 1) C (K + sum_k J_k)).

    Valid for closed separable networks: a load-dependent FCFS station needs
    class-independent service times; PS, LCFS-PR and delay stations may differ by class.

    References
    ----------
    M. Reiser, S. S. Lavenberg, "Mean-value analysis of closed multichain queuing
    networks", J. ACM 27(2):313-322, 1980. doi:10.1145/322186.322195
    G. Bolch, S. Greiner, H. de Meer, K. S. Trivedi, *Queueing Networks and Markov
    Chains*, 2nd ed., Wiley 2006, §8.2 (MVA with load-dependent and multiserver nodes;
    section as cited for the single-class solver, pages not verified).
    E. D. Lazowska, J. Zahorjan, G. S. Graham, K. C. Sevcik, *Quantitative System
    Performance*, Prentice Hall 1984, ch. 20 (load-dependent service centres; pages not
    verified).
    G. Casale, G. Serazzi, "Stabilization techniques for load-dependent queueing
    networks algorithms" (2005): the instability of the textbook p(0) recursion.

    Examples
    --------
    One job of each of two classes at a 2-server station: both are always served, so
    X_c = 1/D_c exactly.

    >>> r = mva_load_dependent([[1.0], [2.0]], [1, 1], servers=[2])
    >>> r.throughput.tolist()
    [1.0, 0.5]

    A station that serves two jobs twice as fast as one, written as a rate table:

    >>> r = mva_load_dependent([1.0], 2, rate_multipliers={0: [1.0, 2.0]})
    >>> float(r.throughput[0])
    2.0
    """
    from .closed import _check_multiclass

    D0 = np.asarray(service_demands, dtype=float) if not hasattr(service_demands, "to_numpy") \
        else np.asarray(service_demands.to_numpy(), dtype=float)
    if D0.ndim == 1:
        service_demands = D0[None, :]
    D, N, Z, srv = _check_multiclass(service_demands, populations, think_times, servers)
    kind, tables = _rate_tables(rate_multipliers, srv, D.shape[1], int(N.sum()))
    X, R, marginal = _solve(D, Z, N, kind, tables, full_marginal=bool(marginals))
    return _finish(D, X, R, kind, tables, srv, marginal if marginals else None)


def _mva_batch_ld(Db, Zb, Nb, srv, rate_multipliers):
    """Single-class exact MVA with load-dependent stations over a flat batch (for ``mva``).

    Returns X (B,), Q, R, U (B, K). Tables must cover the largest population.
    """
    B, K = Db.shape
    nmax = int(Nb.max(initial=0))
    kind_all, tables_all = _rate_tables(rate_multipliers, srv, K, nmax)
    X = np.zeros(B)
    Q = np.zeros((B, K))
    R = np.zeros((B, K))
    U = np.zeros((B, K))
    for b in range(B):
        n = int(Nb[b])
        if n == 0:
            continue
        if not Db[b].sum() + Zb[b] > 0:
            X[b] = np.nan
            continue
        kind, tables = _rate_tables({k: tables_all[k] for k in tables_all
                                     if srv[k] == 1} or None, srv, K, n)
        x, r, marginal = _solve(Db[b][None, :], Zb[b:b + 1], np.array([n]), kind, tables)
        res = _finish(Db[b][None, :], x, r, kind, tables, srv, marginal)
        X[b] = res.throughput[0]
        Q[b] = res.queue_length[0]
        R[b] = res.residence_time[0]
        U[b] = res.utilization[0]
    return X, Q, R, U


# --------------------------------------------------------------------------- finite source

@dataclasses.dataclass(frozen=True)
class FiniteSourceResult(Result):
    """The finite-source birth--death chain with state-dependent service.

    Attributes
    ----------
    throughput : float, ndarray or Series
        Completions per second X = sum_n p_n mu(n) [1/s].
    queue_length : float, ndarray or Series
        Mean number at the station Q = sum_n n p_n [1].
    response_time : float, ndarray or Series
        Mean time at the station per visit, Q / X (0 when N = 0) [s].
    utilization : float, ndarray or Series
        Probability that the station is not empty, 1 - p_0 [1].
    probabilities : ndarray
        p_n for n = 0..M (M the largest population), batch + (M + 1,) [1].
    """

    throughput: Any
    queue_length: Any
    response_time: Any
    utilization: Any
    probabilities: np.ndarray

    def to_frame(self):
        """Tidy frame of the means (``probabilities`` left out)."""
        plain = Result.to_frame(dataclasses.replace(self, probabilities=None))
        return plain.drop(columns=["probabilities"])


def _check_log_table(name: str, table: np.ndarray, n_pop: np.ndarray) -> None:
    """A per-population table of log rates or times: one row per population entry, at least
    max(population) columns, finite (the two finite-source solvers' rule)."""
    if table.ndim != 2 or table.shape[0] != n_pop.size:
        raise ValueError(f"{name} must have shape (rows, M) with one row per population entry "
                         f"({n_pop.size}), got shape {table.shape}")
    if n_pop.size and n_pop.max() > table.shape[1]:
        raise ValueError(f"{name} must have at least max(population) = {int(n_pop.max())} columns, "
                         f"got {table.shape[1]}")
    if not np.isfinite(table).all():
        raise ValueError(f"{name} must be finite")


def finite_source_probabilities(population, think_time, log_service_rate):
    r"""State probabilities p_0..p_M of the finite-source chain, from log service rates.

    The log-space core of :func:`finite_source`, for callers that already hold
    :math:`\log\mu(n)` (rows are a batch; only the shape and range checks the compiled
    loop needs).

    Parameters
    ----------
    population : array_like, shape (B,)
        Jobs N per row (whole numbers as floats) [1].
    think_time : array_like, shape (B,)
        Mean think time Z per row; 0 puts all N jobs at the station [s].
    log_service_rate : array_like, shape (B, M)
        :math:`\log\mu(n)` for n = 1..M, M >= max N [log(1/s)].

    Returns
    -------
    ndarray
        Shape (B, M + 1), each row summing to 1 [1].

    Examples
    --------
    >>> (finite_source_probabilities([2.0], [1.0], [[0.0, 0.0]]) * 5).round(12).tolist()
    [[1.0, 2.0, 2.0]]
    """
    from . import _ld_kernels as lk

    # cheap O(B) checks: the compiled loop writes p[b, 0..N_b] and reads log_mu[b, 0..N_b-1]
    n_pop = np.ascontiguousarray(as_int_array("population", population, minimum=0), dtype=float).reshape(-1)
    think = np.ascontiguousarray(as_float_array("think_time", think_time), dtype=float).reshape(-1)
    log_mu = np.ascontiguousarray(log_service_rate, dtype=float)
    if think.size != n_pop.size:
        raise ValueError(f"think_time must have one entry per population row ({n_pop.size}), got {think.size}")
    _check_log_table("log_service_rate", log_mu, n_pop)
    p = np.empty((n_pop.size, log_mu.shape[1] + 1))
    dummy = np.empty(n_pop.size)
    lk.finite_source_batch(n_pop, think, log_mu, np.empty((n_pop.size, 0)), p, dummy, dummy,
                           dummy)
    return p


@vectorized
def finite_source(population, think_time, service_rate) -> FiniteSourceResult:
    r"""Finite-source (machine-repairman) queue with a load-dependent service rate, exact.

    ``population`` jobs alternate between an exponential think time and one station
    whose completion rate is mu(n) when n jobs are there.

    Parameters
    ----------
    population : int or array_like of int
        Number of jobs N >= 0, broadcast against the batch [1].
    think_time : float or array_like
        Mean think time Z >= 0 per job; 0 keeps all N jobs at the station [s].
    service_rate : array_like or callable
        Completion rate mu(n) with n jobs present, for n = 1..M: an array whose last
        axis has at least max(N) entries (leading axes are the batch), or a callable
        ``mu(n)`` returning a positive number [1/s].

    Returns
    -------
    FiniteSourceResult
        ``throughput`` [1/s], ``queue_length`` [1], ``response_time`` [s],
        ``utilization`` (1 - p_0) [1], ``probabilities`` p_0..p_M [1].

    Notes
    -----
    Birth--death chain on the number n at the station, births (N - n)/Z, deaths
    mu(n) (Kleinrock 1975, §3.9; Gross et al. 2008, §2.7):

    .. math::

        p_n \propto \frac{N!}{(N-n)!}\,Z^{-n}\prod_{j=1}^{n}\frac{1}{\mu(j)},\qquad
        X = \sum_n p_n\,\mu(n) = \frac{N - Q}{Z},\qquad Q = \sum_n n\,p_n .

    The weights are summed in log space (``lgamma``, cumulative sum of
    :math:`\log\mu`, shifted by the largest weight and normalised to an exact sum of
    1; a Numba loop), so N in the hundreds of thousands is fine. mu(n) =
    min(n, c)/S is the M/M/c//N queue; a single-class network of one load-dependent
    station and a delay Z is this chain, and so is a flow-equivalent server with
    terminals (:func:`flow_equivalent_server`).

    References
    ----------
    .. [1] L. Kleinrock, *Queueing Systems, Vol. 1: Theory*, Wiley 1975, §3.9
       (finite customer population) and §3.5 (state-dependent service, birth-death).
    .. [2] D. Gross, J. F. Shortle, J. M. Thompson, C. M. Harris, *Fundamentals of
       Queueing Theory*, 4th ed., Wiley 2008, §2.7 (finite-source queues).

    Examples
    --------
    Two jobs, Z = 1 s, one server of rate 1/s: weights 1, 2, 2, so Q = 6/5, X = 4/5.

    >>> r = finite_source(2, 1.0, [1.0, 1.0])
    >>> round(r.queue_length, 12), round(r.throughput, 12)
    (1.2, 0.8)
    """
    n_pop = as_int_array("population", population, minimum=0)
    z = as_float_array("think_time", think_time)
    nmax = int(n_pop.max(initial=0))
    if callable(service_rate):
        vals = []
        for n in range(1, nmax + 1):
            try:
                vals.append(float(service_rate(n)))
            except (TypeError, ValueError):
                raise ValueError(f"service_rate must return a number for n = {n}") from None
        mu = np.asarray(vals, dtype=float).reshape(nmax)
    else:
        mu = as_float_array("service_rate", service_rate, min_ndim=1)
        if mu.shape[-1] < nmax:
            raise ValueError(f"service_rate must have at least one entry per population level "
                             f"1..{nmax} on its last axis, got length {mu.shape[-1]}")
        mu = mu[..., :max(nmax, 0)]
    bad = ~(np.isfinite(mu) & (mu > 0))
    if bad.any():
        j = np.argwhere(bad)[0]
        raise ValueError(f"service_rate must be positive and finite, got {float(mu[tuple(j)])!r} at "
                         f"n = {int(j[-1]) + 1}")
    try:
        shape = np.broadcast_shapes(n_pop.shape, z.shape, mu.shape[:-1])
    except ValueError:
        raise ValueError("population, think_time and the leading axes of service_rate must "
                         f"broadcast, got shapes {n_pop.shape}, {z.shape}, {mu.shape[:-1]}") from None
    nb = np.broadcast_to(n_pop, shape).reshape(-1).astype(float)
    zb = np.broadcast_to(z, shape).reshape(-1)
    mub = np.broadcast_to(mu, shape + (mu.shape[-1],)).reshape(-1, mu.shape[-1])
    from . import _ld_kernels as lk

    mub = _kernel_array(mub, float)   # a read-only broadcast would compile a second signature
    p = np.empty((nb.size, nmax + 1))
    x = np.empty(nb.size)
    q = np.empty(nb.size)
    util = np.empty(nb.size)   # 1 - p_0, summed without cancellation
    lk.finite_source_batch(_kernel_array(nb, float), _kernel_array(zb, float), np.empty((nb.size, 0)), mub, p, x,
                           q, util)
    with np.errstate(invalid="ignore", divide="ignore"):
        rt = np.where(x > 0, q / np.where(x > 0, x, 1.0), 0.0)
    out = {k: v.reshape(shape) for k, v in
           (("throughput", x), ("queue_length", q), ("response_time", rt), ("utilization", util))}
    return FiniteSourceResult(probabilities=p.reshape(shape + (nmax + 1,)), **out)


# --------------------------------------------------------------------------- FES

@dataclasses.dataclass(frozen=True)
class FlowEquivalentResult(Result):
    """A subnetwork aggregated into one flow-equivalent (load-dependent) station.

    Attributes
    ----------
    population : ndarray
        n = 1..N, shape (N,) [1].
    throughput : ndarray
        Throughput X(n) of the subnetwork shorted (no think time) with n jobs; the
        flow-equivalent station with service demand 1 s has rate multipliers
        alpha(n) = X(n) / (1/s), shape (N,) [1/s].
    """

    population: np.ndarray
    throughput: np.ndarray

    trailing_dims: ClassVar[tuple[str, ...]] = ("population",)

    def _frame_dims(self) -> tuple[str, ...]:
        return ("population",)


def flow_equivalent_server(service_demands, population, servers=1,
                           rate_multipliers=None) -> FlowEquivalentResult:
    r"""Flow-equivalent server of a single-class subnetwork (Chandy--Herzog--Woo).

    Parameters
    ----------
    service_demands : array_like, shape (K,)
        Demands of the subnetwork's stations [s].
    population : int
        Largest population N to tabulate, >= 1 [1].
    servers : int, float or sequence of length K
        As in :func:`zmodel.queueing.mva` [1].
    rate_multipliers : dict or sequence, optional
        Load-dependent stations inside the subnetwork, as in
        :func:`mva_load_dependent` [1].

    Returns
    -------
    FlowEquivalentResult
        ``population`` 1..N and ``throughput`` X(n) [1/s]. In the outer network,
        replace the subnetwork by one station of service demand 1 s with
        ``rate_multipliers={k: fes.throughput}``.

    Notes
    -----
    Norton's theorem for product-form networks (Chandy, Herzog & Woo 1975): the
    subnetwork, shorted (the rest of the network replaced by a zero-delay path) and
    solved for every population n, has throughput X(n); a load-dependent station with
    completion rate :math:`\mu(n) = X(n)` is flow-equivalent to it. For separable
    networks the aggregation is exact: the throughput and the queue lengths outside the
    subnetwork are unchanged, and the subnetwork's total queue length equals the FES
    queue length (Lazowska et al. 1984, ch. 8, flow-equivalent service centres).
    All X(n) come out of one exact MVA pass up to N (the throughputs of every
    population level), O(N K) for load-independent stations.

    References
    ----------
    K. M. Chandy, U. Herzog, L. Woo, "Parametric analysis of queuing networks", IBM J.
    Res. Dev. 19(1):36-42, 1975. doi:10.1147/rd.191.0036
    E. D. Lazowska, J. Zahorjan, G. S. Graham, K. C. Sevcik, *Quantitative System
    Performance*, Prentice Hall 1984, ch. 8 (hierarchical modelling, flow-equivalent
    service centres).

    Examples
    --------
    Two single-server stations of 1 s shorted: X(n) = n/(n + 1) (balanced, by hand).

    >>> flow_equivalent_server([1.0, 1.0], 3).throughput.tolist()
    [0.5, 0.6666666666666666, 0.75]
    """
    D = as_float_array("service_demands", service_demands)
    if D.ndim != 1 or D.size == 0:
        raise ValueError(f"service_demands must have shape (stations,), got shape {D.shape}")
    if not D.sum() > 0:
        raise ValueError("service_demands must not all be zero (a shorted subnetwork with no "
                         "demand has infinite throughput)")
    n = as_int_array("population", population, minimum=1)
    if n.ndim != 0:
        raise ValueError(f"population must be one integer, got shape {n.shape}")
    n = int(n)
    K = D.size
    srv = as_servers(servers, K)
    kind, tables = _rate_tables(rate_multipliers, srv, K, n)
    # one lattice pass gives X(n) at every level n = 1..N
    xall, _, _ = _solve(D[None, :], np.zeros(1), np.array([n]), kind, tables, lattice=True)
    return FlowEquivalentResult(population=np.arange(1, n + 1), throughput=xall[1:, 0].copy())


@dataclasses.dataclass(frozen=True)
class SplitFiniteSourceResult(Result):
    """Means of :func:`split_finite_source`.

    Attributes
    ----------
    throughput : ndarray
        Visits to the stations (all together) per unit time [1/s].
    queue_length : ndarray
        Jobs at the stations, all stations together [1].
    utilization : ndarray
        Probability that one given station is not empty [1].
    """

    throughput: Any
    queue_length: Any
    utilization: Any


def split_finite_source(population, think_time, log_service_time, stations):
    r"""N jobs alternating between a think time and one of k identical load-dependent stations, exact.

    Each job thinks for an exponential time of mean Z, then visits one of ``stations``
    identical stations, chosen uniformly; a station with j jobs completes at rate
    :math:`1/s(j)`. With k = 1 this is the finite-source chain of
    :func:`finite_source_probabilities`.

    Parameters
    ----------
    population : array_like, shape (B,)
        Jobs N per row (whole numbers), >= 0 [1].
    think_time : array_like, shape (B,)
        Mean think time Z per row, >= 0 [s].
    log_service_time : array_like, shape (B, M)
        :math:`\log s(j)` for j = 1..M, M >= max N: the mean service time of one station
        holding j jobs [log s].
    stations : array_like of int, shape (B,)
        Identical stations k per row, >= 1 [1].

    Returns
    -------
    SplitFiniteSourceResult
        ``throughput`` X, ``queue_length`` (all stations), ``utilization`` (one station).

    Notes
    -----
    A closed product-form network (Baskett, Chandy, Muntz, Palacios 1975: a delay station
    and FCFS stations whose rate depends on their own queue length) with visit ratio 1/k at
    each station. With :math:`f(j) = \prod_{l=1}^{j} s(l)/k`, :math:`F_k = f^{*k}` (k-fold
    convolution) and :math:`g(n) = Z^n/n!`,

    .. math::
        G(n) = \sum_{m=0}^{n} g(n-m) F_k(m),\qquad X = \frac{G(N-1)}{G(N)},\qquad
        Q = \sum_m m\, \frac{g(N-m) F_k(m)}{G(N)},\qquad
        U = 1 - \frac{\sum_m g(N-m) F_{k-1}(m)}{G(N)}

    (Buzen's convolution algorithm; Lazowska et al. 1984, ch. 20, for load-dependent
    stations). Every constant is a sum of positive terms, computed in log space
    (log-sum-exp per convolution entry; :math:`F_{k-1}` by binary powering, so
    :math:`O(M^2 \log k)` per row).

    References
    ----------
    .. [1] J. P. Buzen, "Computational algorithms for closed queueing networks with
       exponential servers", Comm. ACM 16(9), 1973, pp. 527-531.
    .. [2] E. D. Lazowska, J. Zahorjan, G. S. Graham, K. C. Sevcik, *Quantitative System
       Performance*, Prentice-Hall 1984, ch. 20 (load-dependent service centers).

    Examples
    --------
    Two jobs, Z = 1, two stations of constant service 1: f = (1, 1/2, 1/4),
    F_2 = f * f = (1, 1, 3/4), g = (1, 1, 1/2), so G(2) = 1/2 + 1 + 3/4 = 9/4,
    G(1) = 2 and X = 8/9 (exact MVA with two queues of demand 1/2 gives the same).

    >>> r = split_finite_source([2.0], [1.0], [[0.0, 0.0]], [2])
    >>> round(float(r.throughput[0]), 12) == round(8 / 9, 12)
    True
    """
    from . import _ld_kernels as lk

    n_pop = np.ascontiguousarray(as_int_array("population", population, minimum=0), dtype=float).reshape(-1)
    think = np.ascontiguousarray(as_float_array("think_time", think_time), dtype=float).reshape(-1)
    k = np.ascontiguousarray(as_int_array("stations", stations, minimum=1), dtype=float).reshape(-1)
    log_s = np.ascontiguousarray(log_service_time, dtype=float)
    if think.size != n_pop.size or k.size != n_pop.size:
        raise ValueError(f"think_time and stations must have one entry per population row ({n_pop.size}), got "
                         f"{think.size} and {k.size}")
    _check_log_table("log_service_time", log_s, n_pop)
    return _split_finite_source(n_pop, think, log_s, k)


def _split_finite_source(n_pop, think, log_s, k) -> SplitFiniteSourceResult:
    """:func:`split_finite_source` of checked inputs: flat float arrays ``n_pop``, ``think``,
    ``k`` and the table ``log_s`` (a caller that built them valid skips the checks)."""
    from . import _ld_kernels as lk

    log_f = np.zeros((n_pop.size, log_s.shape[1] + 1))
    log_f[:, 1:] = np.cumsum(log_s - np.log(k)[:, None], axis=1)
    x, q, u = (np.empty(n_pop.size) for _ in range(3))
    lk.split_finite_source_batch(n_pop, think, log_f, k, x, q, u)
    return SplitFiniteSourceResult(throughput=x, queue_length=q, utilization=u)
