"""Continuous-time Markov chains, sparse: steady state, transient, and finite-capacity networks.

* :func:`ctmc_steady_state` -- stationary distribution of an irreducible generator.
* :func:`ctmc_transient` -- state probabilities at given times (uniformisation, or
  SciPy's ``expm_multiply``).
* :func:`finite_capacity_network` -- a small single-class open or closed network whose
  stations have finite capacity (repetitive-service blocking, losses at full stations),
  solved exactly through its CTMC; :func:`finite_capacity_generator` returns that
  chain for transient studies.

The generator is a ``scipy.sparse`` matrix (any format; dense arrays are accepted),
rows = from-state, off-diagonal entries >= 0, each row summing to 0.

Book sections cited in this module's References were not re-checked against the printed
books in this session (no copy at hand; chapter-level pointers); papers carry DOIs.
"""
from __future__ import annotations

import dataclasses
import math
from typing import ClassVar

import numpy as np

from ._result import Result
from ._validate import as_float_array, as_int_array, as_servers

__all__ = ["ctmc_steady_state", "ctmc_transient", "finite_capacity_network",
           "finite_capacity_generator", "CTMCSteadyStateResult", "CTMCTransientResult",
           "FiniteCapacityResult"]

#: largest state space :func:`finite_capacity_generator` builds
_MAX_STATES = 2_000_000


@dataclasses.dataclass(frozen=True)
class CTMCSteadyStateResult(Result):
    """Stationary distribution of a CTMC.

    Attributes
    ----------
    probabilities : ndarray
        pi, shape (S,), sums to 1 [1].
    residual : float
        max_i |(pi Q)_i|, the balance-equation residual [1/s].
    """

    probabilities: np.ndarray
    residual: float

    trailing_dims: ClassVar[tuple[str, ...]] = ("state",)


@dataclasses.dataclass(frozen=True)
class CTMCTransientResult(Result):
    """State probabilities of a CTMC at given times.

    Attributes
    ----------
    times : ndarray
        The requested times, shape (T,) [s].
    probabilities : ndarray
        p(t), shape (T, S) [1].
    method : str
        ``"uniformization"`` or ``"expm_multiply"``.
    """

    times: np.ndarray
    probabilities: np.ndarray
    method: str

    trailing_dims: ClassVar[tuple[str, ...]] = ("state",)

    def _frame_dims(self) -> tuple[str, ...]:
        return ("time", "state")

    def to_frame(self):
        """One row per (time, state): ``time`` [s], ``state`` (index), ``probability``."""
        import pandas as pd

        T, S = self.probabilities.shape
        return pd.DataFrame({"time": np.repeat(self.times, S), "state": np.tile(np.arange(S), T),
                             "probability": self.probabilities.ravel(), "method": self.method})


# --------------------------------------------------------------------------- checks

def _check_generator(generator):
    """Return the generator as CSR after checking shape, signs and zero row sums."""
    import scipy.sparse as sp

    if sp.issparse(generator):
        Q = sp.csr_matrix(generator, dtype=float)
    else:
        Q = sp.csr_matrix(as_float_array("generator", generator, nonnegative=False))
    if Q.ndim != 2 or Q.shape[0] != Q.shape[1] or Q.shape[0] == 0:
        raise ValueError(f"generator must be a non-empty square matrix, got shape {Q.shape}")
    data = Q.data
    if not np.isfinite(data).all():
        raise ValueError("generator must be finite (no NaN or inf entries)")
    offdiag = Q - sp.diags(Q.diagonal())
    if (offdiag.data < 0).any():
        coo = offdiag.tocoo()
        i = int(np.argmax(coo.data < 0))
        raise ValueError("generator off-diagonal entries (transition rates) must be >= 0, "
                         f"got {coo.data[i]!r} at ({coo.row[i]}, {coo.col[i]})")
    rows = np.asarray(Q.sum(axis=1)).ravel()
    scale = np.maximum(np.abs(Q.diagonal()), 1.0)
    bad = np.abs(rows) > 1e-9 * scale
    if bad.any():
        i = int(np.argmax(bad))
        raise ValueError(f"generator rows must sum to 0, got {rows[i]!r} in row {i}")
    return Q


# --------------------------------------------------------------------------- steady state

def ctmc_steady_state(generator) -> CTMCSteadyStateResult:
    r"""Stationary distribution of an irreducible continuous-time Markov chain.

    Parameters
    ----------
    generator : array_like or scipy.sparse matrix
        Infinitesimal generator Q, shape (S, S): Q[i, j] >= 0 is the rate from state
        i to state j (i != j), each row sums to 0 [1/s].

    Returns
    -------
    CTMCSteadyStateResult
        ``probabilities`` pi (S,) [1] and the balance residual max|pi Q| [1/s].

    Notes
    -----
    Solves the global balance equations with the normalisation (Bolch et al. 2006,
    §2.3.2; Stewart 1994, §2.3)

    .. math::

        \pi Q = 0,\qquad \sum_i \pi_i = 1,

    by fixing :math:`\pi_0 = 1`, solving the remaining S - 1 balance equations with a
    sparse LU factorisation (``scipy.sparse.linalg.spsolve``, which keeps the factors
    sparse, unlike a dense normalisation row) and normalising. The chain
    must be irreducible (one strongly connected component), otherwise the stationary
    distribution is not unique and a ``ValueError`` says so. Round-off negatives
    (below 1e-14 of the total) are set to 0 and pi renormalised.

    References
    ----------
    G. Bolch, S. Greiner, H. de Meer, K. S. Trivedi, *Queueing Networks and Markov
    Chains*, 2nd ed., Wiley 2006, §2.3 (CTMC steady state) and §3.4 (direct methods).
    W. J. Stewart, *Introduction to the Numerical Solution of Markov Chains*,
    Princeton 1994, ch. 2.

    Examples
    --------
    A two-state chain with rates a = 1 (0 -> 1) and b = 3 (1 -> 0): pi = (b, a)/(a+b).

    >>> ctmc_steady_state([[-1.0, 1.0], [3.0, -3.0]]).probabilities
    array([0.75, 0.25])
    """
    import scipy.sparse as sp
    from scipy.sparse.csgraph import connected_components
    from scipy.sparse.linalg import spsolve

    Q = _check_generator(generator)
    S = Q.shape[0]
    if S == 1:
        return CTMCSteadyStateResult(probabilities=np.ones(1), residual=0.0)
    ncomp, _ = connected_components(Q, directed=True, connection="strong")
    if ncomp != 1:
        raise ValueError(f"generator must be irreducible (one communicating class), got "
                         f"{ncomp} strongly connected components")
    # pi_0 = 1, then the other S - 1 balance equations (a dense normalisation row would
    # wreck the sparsity of the LU factors); normalise at the end
    QT = Q.T.tocsc()
    A = QT[1:, 1:]
    b = -np.asarray(QT[1:, 0].todense()).ravel()
    pi = np.concatenate(([1.0], np.atleast_1d(spsolve(sp.csc_matrix(A), b))))
    pi = np.where(pi < 1e-14 * np.abs(pi).sum(), 0.0, pi)
    pi = pi / pi.sum()
    residual = float(np.abs(Q.T @ pi).max())
    return CTMCSteadyStateResult(probabilities=pi, residual=residual)


# --------------------------------------------------------------------------- transient

def _poisson_weights(qt: float, tol: float) -> tuple[int, int, np.ndarray]:
    """Poisson(qt) probabilities on [left, right] covering all but ``tol`` of the mass."""
    from scipy.stats import poisson

    left = int(poisson.ppf(tol / 2.0, qt)) if qt > 0 else 0
    right = int(poisson.isf(tol / 2.0, qt)) + 1 if qt > 0 else 0
    left = max(left - 1, 0)
    k = np.arange(left, right + 1)
    w = poisson.pmf(k, qt)  # log-space inside SciPy: no underflow of exp(-qt)
    return left, right, w


def ctmc_transient(generator, initial, times, method: str = "uniformization",
                   tol: float = 1e-12) -> CTMCTransientResult:
    r"""State probabilities p(t) of a continuous-time Markov chain at given times.

    Parameters
    ----------
    generator : array_like or scipy.sparse matrix
        Infinitesimal generator Q, shape (S, S), rows summing to 0 [1/s].
    initial : array_like
        Initial distribution p(0), shape (S,), non-negative, summing to 1 [1].
    times : float or array_like
        Times t >= 0 at which p(t) is wanted, in any order [s].
    method : {"uniformization", "expm_multiply"}
        Jensen's uniformisation (default; error bound ``tol`` in total variation per
        step) or :func:`scipy.sparse.linalg.expm_multiply` (Al-Mohy & Higham).
    tol : float
        Truncation error of the Poisson sum in uniformisation [1].

    Returns
    -------
    CTMCTransientResult
        ``times`` (T,) [s] and ``probabilities`` (T, S) [1].

    Notes
    -----
    :math:`p(t) = p(0)\,e^{Qt}`. Uniformisation (Jensen 1953; Bolch et al. 2006,
    §5.1.2) with :math:`q \ge \max_i |Q_{ii}|` and :math:`P = I + Q/q`:

    .. math::

        p(t) = \sum_{k=0}^{\infty} e^{-qt}\frac{(qt)^k}{k!}\, p(0) P^k ,

    a sum of non-negative terms (no cancellation); it is truncated to the Poisson
    interval holding all but ``tol`` of the mass, whose weights are evaluated in log
    space (no underflow of :math:`e^{-qt}` at large qt). Times are processed in
    increasing order, each step starting from the previous p. Cost O(nnz(Q) q t).

    References
    ----------
    A. Jensen, "Markoff chains as an aid in the study of Markoff processes", Skand.
    Aktuarietidskr. 36:87-91, 1953.
    G. Bolch, S. Greiner, H. de Meer, K. S. Trivedi, *Queueing Networks and Markov
    Chains*, 2nd ed., Wiley 2006, §5.1 (transient solution, uniformization).
    A. H. Al-Mohy, N. J. Higham, "Computing the action of the matrix exponential",
    SIAM J. Sci. Comput. 33(2):488-511, 2011. doi:10.1137/100788860

    Examples
    --------
    Two states, rates a = 1 and b = 3, starting in state 0:
    :math:`p_1(t) = \frac{a}{a+b}(1 - e^{-(a+b)t})`.

    >>> r = ctmc_transient([[-1.0, 1.0], [3.0, -3.0]], [1.0, 0.0], [0.5])
    >>> round(float(r.probabilities[0, 1]), 12) == round(0.25 * (1 - math.exp(-2.0)), 12)
    True
    """
    Q = _check_generator(generator)
    S = Q.shape[0]
    p0 = as_float_array("initial", initial)
    if p0.shape != (S,):
        raise ValueError(f"initial must have one entry per state ({S}), got shape {p0.shape}")
    if abs(p0.sum() - 1.0) > 1e-9:
        raise ValueError(f"initial must sum to 1 (a probability distribution), got {p0.sum()!r}")
    t = np.atleast_1d(as_float_array("times", times))
    if t.ndim != 1:
        raise ValueError(f"times must be a scalar or a 1-d array, got shape {t.shape}")
    if method not in ("uniformization", "expm_multiply"):
        raise ValueError(f"method must be 'uniformization' or 'expm_multiply', got {method!r}")
    if not 0 < tol < 1:
        raise ValueError(f"tol must be in (0, 1), got {tol!r}")

    order = np.argsort(t, kind="stable")
    out = np.empty((t.size, S))
    p, t_prev = p0.copy(), 0.0
    QT = Q.T.tocsr()
    q = float(np.abs(Q.diagonal()).max())
    if method == "uniformization" and q > 0:
        q *= 1.0 + 1e-9  # strictly above the largest exit rate: P has a positive diagonal
        import scipy.sparse as sp

        PT = (sp.identity(S, format="csr") + QT / q).tocsr()
    for i in order:
        dt = t[i] - t_prev
        if dt > 0 and q > 0:
            if method == "uniformization":
                left, right, w = _poisson_weights(q * dt, tol)
                v, acc = p, np.zeros(S)
                for k in range(right + 1):
                    if k >= left:
                        acc += w[k - left] * v
                    v = PT @ v
                p = acc / acc.sum()
            else:
                from scipy.sparse.linalg import expm_multiply

                p = expm_multiply(QT * dt, p)
                p = np.maximum(p, 0.0)
                p = p / p.sum()
        out[i] = p
        t_prev = t[i]
    return CTMCTransientResult(times=t, probabilities=out, method=method)


# --------------------------------------------------------------------------- finite capacity

@dataclasses.dataclass(frozen=True)
class FiniteCapacityResult(Result):
    """Exact CTMC solution of a finite-capacity network (per station).

    Attributes
    ----------
    throughput : ndarray
        Rate of completed, delivered services at each station (departures that left
        the station), shape (K,) [1/s].
    queue_length : ndarray
        Mean number at each station, waiting plus in service, shape (K,) [1].
    response_time : ndarray
        Mean time per visit, queue_length / throughput (Little), shape (K,) [s].
    utilization : ndarray
        Mean busy servers / servers, shape (K,) [1].
    full_probability : ndarray
        Time-stationary probability that the station holds ``capacity`` jobs, (K,) [1].
    loss_rate : ndarray
        External arrivals lost at each full station (0 for a closed network) (K,) [1/s].
    marginal_probabilities : ndarray
        P(n_k = j), shape (K, max capacity + 1) [1].
    states : int
        Number of CTMC states [1].
    """

    throughput: np.ndarray
    queue_length: np.ndarray
    response_time: np.ndarray
    utilization: np.ndarray
    full_probability: np.ndarray
    loss_rate: np.ndarray
    marginal_probabilities: np.ndarray
    states: int

    trailing_dims: ClassVar[tuple[str, ...]] = ("station",)

    def to_frame(self):
        """One row per station; the marginal probabilities are left out (use the field)."""
        import pandas as pd

        return pd.DataFrame({"station": np.arange(self.throughput.size),
                             "throughput": self.throughput, "queue_length": self.queue_length,
                             "response_time": self.response_time,
                             "utilization": self.utilization,
                             "full_probability": self.full_probability,
                             "loss_rate": self.loss_rate, "states": self.states})


def _check_finite_network(service_times, routing, servers, capacity, arrival_rates, population):
    S = as_float_array("service_times", service_times, positive=True)
    if S.ndim != 1 or S.size == 0:
        raise ValueError(f"service_times must have shape (stations,), got shape {S.shape}")
    K = S.size
    P = as_float_array("routing", routing)
    if P.shape != (K, K):
        raise ValueError(f"routing must have shape (stations, stations) = ({K}, {K}), "
                         f"got shape {P.shape}")
    srv = as_servers(servers, K)
    if np.isinf(srv).any():
        raise ValueError("servers must be finite in a finite-capacity network (a delay "
                         "station holds at most capacity jobs: give servers = capacity)")
    cap = as_int_array("capacity", capacity, minimum=1)
    if cap.ndim == 0:
        cap = np.full(K, int(cap), dtype=np.int64)
    if cap.shape != (K,):
        raise ValueError(f"capacity must be a scalar or have one entry per station ({K}), "
                         f"got shape {cap.shape}")
    below = cap < srv
    if below.any():
        k = int(np.argmax(below))
        raise ValueError(f"capacity must be >= servers at every station, got capacity "
                         f"{cap[k]} < servers {srv[k]:g} at station {k}")
    rows = P.sum(axis=1)
    if (arrival_rates is None) == (population is None):
        raise ValueError("give exactly one of arrival_rates (open network) or population "
                         "(closed network)")
    if population is not None:
        N = as_int_array("population", population, minimum=0)
        if N.ndim != 0:
            raise ValueError(f"population must be a scalar, got shape {N.shape}")
        N = int(N)
        bad = np.abs(rows - 1.0) > 1e-9
        if bad.any():
            k = int(np.argmax(bad))
            raise ValueError(f"routing rows must sum to 1 in a closed network, got "
                             f"{rows[k]!r} in row {k}")
        if N > cap.sum():
            raise ValueError(f"population must be <= the total capacity {int(cap.sum())}, "
                             f"got {N}")
        lam = np.zeros(K)
    else:
        lam = as_float_array("arrival_rates", arrival_rates)
        if lam.ndim == 0:
            lam = np.full(K, float(lam))
        if lam.shape != (K,):
            raise ValueError(f"arrival_rates must have one entry per station ({K}), "
                             f"got shape {lam.shape}")
        bad = rows > 1.0 + 1e-9
        if bad.any():
            k = int(np.argmax(bad))
            raise ValueError(f"routing rows must sum to at most 1 in an open network (the "
                             f"rest leaves), got {rows[k]!r} in row {k}")
        if not lam.sum() > 0:
            raise ValueError("arrival_rates must not all be zero in an open network")
        N = None
    return S, P, srv, cap, lam, N


def _enumerate_states(cap: np.ndarray, population):
    """All vectors 0 <= n <= cap (with sum n = population for a closed network)."""
    K = cap.size
    total = math.prod(int(c) + 1 for c in cap)
    if total > _MAX_STATES * 8:
        raise ValueError(f"capacity spans {total} state vectors (> {_MAX_STATES * 8}); the "
                         "exact CTMC is for small networks")
    radix = np.cumprod(np.concatenate(([1], cap[:-1] + 1))).astype(np.int64)
    codes = np.arange(total, dtype=np.int64)
    states = (codes[:, None] // radix[None, :]) % (cap[None, :] + 1)
    if population is not None:
        keep = states.sum(axis=1) == population
        states, codes = states[keep], codes[keep]
    if len(states) > _MAX_STATES:
        raise ValueError(f"the network has {len(states)} states (> {_MAX_STATES}); the exact "
                         "CTMC is for small networks")
    lookup = np.full(total, -1, dtype=np.int64)
    lookup[codes] = np.arange(len(states))
    return states, radix, lookup, K


def finite_capacity_generator(service_times, routing, capacity, servers=1, *,
                              arrival_rates=None, population=None):
    r"""The CTMC of a finite-capacity network: its states and sparse generator.

    Same parameters as :func:`finite_capacity_network`. Returns ``(states, generator)``:
    ``states`` an int array (S, K) of queue-length vectors, ``generator`` a CSR matrix
    (S, S) [1/s], ready for :func:`ctmc_steady_state` or :func:`ctmc_transient`.

    Examples
    --------
    One M/M/1/2 station (arrival rate 1, service time 0.5): states 0, 1, 2.

    >>> states, Q = finite_capacity_generator([0.5], [[0.0]], 2, arrival_rates=[1.0])
    >>> states.ravel().tolist(), Q.toarray().tolist()
    ([0, 1, 2], [[-1.0, 1.0, 0.0], [2.0, -3.0, 1.0], [0.0, 2.0, -2.0]])
    """
    S, P, srv, cap, lam, N = _check_finite_network(service_times, routing, servers, capacity,
                                                   arrival_rates, population)
    return _generator(S, P, srv, cap, lam, N)[:2]


def _generator(S, P, srv, cap, lam, N):
    import scipy.sparse as sp

    states, radix, lookup, K = _enumerate_states(cap, N)
    code = states @ radix
    mu = 1.0 / S
    busy = np.minimum(states, srv[None, :].astype(np.int64))
    rows, cols, vals = [], [], []
    idx = np.arange(len(states))
    not_full = states < cap[None, :]
    for k in range(K):
        rate_k = busy[:, k] * mu[k]
        # external arrivals (lost when the station is full)
        if lam[k] > 0:
            m = not_full[:, k]
            rows.append(idx[m]); cols.append(lookup[code[m] + radix[k]])
            vals.append(np.full(int(m.sum()), lam[k]))
        # departures from the network
        exit_p = 1.0 - P[k].sum() if N is None else 0.0
        if exit_p > 1e-15:
            m = rate_k > 0
            rows.append(idx[m]); cols.append(lookup[code[m] - radix[k]])
            vals.append(rate_k[m] * exit_p)
        # transfers k -> j; repetitive service (RS-RD) when j is full: no transition
        for j in range(K):
            if j == k or P[k, j] <= 0:
                continue
            m = (rate_k > 0) & not_full[:, j]
            rows.append(idx[m]); cols.append(lookup[code[m] - radix[k] + radix[j]])
            vals.append(rate_k[m] * P[k, j])
    r = np.concatenate(rows) if rows else np.empty(0, np.int64)
    c = np.concatenate(cols) if cols else np.empty(0, np.int64)
    v = np.concatenate(vals) if vals else np.empty(0)
    n = len(states)
    Q = sp.csr_matrix((v, (r, c)), shape=(n, n))
    Q = (Q - sp.diags(np.asarray(Q.sum(axis=1)).ravel())).tocsr()
    return states, Q, busy


def finite_capacity_network(service_times, routing, capacity, servers=1, *,
                            arrival_rates=None, population=None) -> FiniteCapacityResult:
    r"""Exact solution of a small single-class network with finite-capacity stations.

    Parameters
    ----------
    service_times : array_like
        Mean (exponential) service time per visit at each station, shape (K,) [s].
    routing : array_like
        Routing matrix P, shape (K, K): P[k, j] is the probability that a job leaving
        k goes to j. Rows sum to 1 in a closed network; in an open network a row may
        sum to less than 1, the rest leaving the network [1].
    capacity : int or array_like
        Most jobs a station may hold (waiting plus in service), >= servers [1].
    servers : int or array_like
        Identical exponential servers at each station (finite) [1].
    arrival_rates : array_like, optional
        External Poisson arrival rate at each station (open network); an arrival that
        finds its station full is lost [1/s].
    population : int, optional
        Number of jobs N of a closed network (give this or ``arrival_rates``) [1].

    Returns
    -------
    FiniteCapacityResult
        Per-station ``throughput`` [1/s], ``queue_length`` [1], ``response_time`` [s],
        ``utilization`` [1], ``full_probability`` [1], ``loss_rate`` [1/s] and the
        ``marginal_probabilities`` (K, max capacity + 1) [1].

    Notes
    -----
    The state is the vector n of jobs per station, :math:`0 \le n_k \le B_k` (and
    :math:`\sum_k n_k = N` when closed). Transitions and rates:

    .. math::

        n \to n + e_k:\ \lambda_k\ (n_k < B_k),\qquad
        n \to n - e_k + e_j:\ \mu_k \min(n_k, c_k)\, P_{kj}\ (n_j < B_j),\qquad
        n \to n - e_k:\ \mu_k \min(n_k, c_k)\,(1 - \textstyle\sum_j P_{kj}).

    A job whose destination j is full is served again at k and then picks a new
    destination: repetitive-service blocking with random destination (RS-RD,
    Balsamo et al. 2001, §1.2; Onvural 1990, §2); its blocked completions are not
    counted in ``throughput``. The steady state comes from :func:`ctmc_steady_state`.
    With every capacity at least the population (closed) the network is the
    product-form network :func:`zmodel.queueing.mva` solves; a single open station is
    M/M/c/B (:func:`zmodel.queueing.mmck`). The state space grows as
    :math:`\prod_k (B_k + 1)`; more than 2e6 states are refused.

    References
    ----------
    S. Balsamo, V. de Nitto Personè, R. Onvural, *Analysis of Queueing Networks with
    Blocking*, Kluwer 2001, ch. 1 (blocking types) and ch. 2 (exact CTMC analysis).
    R. O. Onvural, "Survey of closed queueing networks with blocking", ACM Computing
    Surveys 22(2):83-121, 1990. doi:10.1145/78919.78920
    I. F. Akyildiz, "On the exact and approximate throughput analysis of closed queuing
    networks with blocking", IEEE TSE 14(1):62-70, 1988. doi:10.1109/32.4623

    Examples
    --------
    Two single-server stations in a cycle (service times 1 and 2), 3 jobs, station 1
    holds at most 2: a birth--death chain on n_1 in {0, 1, 2}, product form
    pi(n_1) proportional to 1^{n_1} 2^{3 - n_1}, i.e. (8, 4, 2)/14.

    >>> r = finite_capacity_network([1.0, 2.0], [[0, 1], [1, 0]], capacity=[2, 3],
    ...                             population=3)
    >>> [round(float(x), 12) for x in r.marginal_probabilities[0]]
    [0.571428571429, 0.285714285714, 0.142857142857, 0.0]
    """
    S, P, srv, cap, lam, N = _check_finite_network(service_times, routing, servers, capacity,
                                                   arrival_rates, population)
    states, Q, busy = _generator(S, P, srv, cap, lam, N)
    K = S.size
    if len(states) == 1:
        pi = np.ones(1)
    else:
        pi = ctmc_steady_state(Q).probabilities
    mu = 1.0 / S
    not_full = states < cap[None, :]
    queue_length = pi @ states
    util = (pi @ busy) / srv
    closed = N is not None
    delivered = np.empty(K)
    for k in range(K):
        ok = np.zeros(len(states))
        if not closed:
            ok += 1.0 - P[k].sum()
        for j in range(K):
            if P[k, j] > 0:
                ok += P[k, j] * (1.0 if j == k else not_full[:, j])
        delivered[k] = float(pi @ (busy[:, k] * mu[k] * ok))
    full = pi @ (~not_full)
    loss = lam * full
    with np.errstate(divide="ignore", invalid="ignore"):
        resp = np.where(delivered > 0, queue_length / delivered, 0.0)
    width = int(cap.max()) + 1
    marg = np.zeros((K, width))
    for k in range(K):
        marg[k] = np.bincount(states[:, k], weights=pi, minlength=width)[:width]
    return FiniteCapacityResult(throughput=delivered, queue_length=queue_length,
                                response_time=resp, utilization=util,
                                full_probability=full, loss_rate=loss,
                                marginal_probabilities=marg, states=len(states))
