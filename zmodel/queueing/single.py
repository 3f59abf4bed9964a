"""Single-station queues: M/M/1, M/M/c, M/M/c/K, M/M/c//N, M/G/1, M/D/1 and G/G/c.

Every function returns one :class:`StationResult`. Its metric fields hold what the
inputs call for: a Python ``float`` when every input was a scalar, an ndarray of the
broadcast shape otherwise, and a pandas Series on the input's index when a Series came
in (the index of the first Series among the arguments). ``to_frame()`` gives one row per
cell; with Series inputs the frame is indexed by that same index.

Saturation policy (open queues with rho >= 1, see
:class:`~zmodel.queueing.SaturationWarning`): waiting and response time and both queue
lengths are ``inf``, utilization and waiting probability are 1, throughput is the
capacity ``servers / service_time``; one warning per call. M/M/c/K and the
machine-repairman model are always stable.

Citations: the book section numbers below were checked against memory, not against
the printed books, and pages are not given; the worked examples used in the tests are
recomputed there in exact arithmetic, so no assertion rests on a recollection alone.
"""
from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from ._result import Result
from zmodel.conventions import as_float_array, as_int_array, vectorized, warn_saturated
from .erlang import _erlang_b_log, _erlang_c_from_b

__all__ = ["StationResult", "mm1", "mmc", "mmck", "machine_repairman", "mg1", "md1", "ggc"]

_METRICS = ("utilization", "waiting_probability", "waiting_time", "response_time",
            "queue_length", "queue_waiting", "throughput", "blocking_probability")


@dataclasses.dataclass(frozen=True)
class StationResult(Result):
    """Mean-value performance of one queueing station.

    Attributes
    ----------
    utilization : float, ndarray or Series
        Busy fraction of each server, 0..1 [1].
    waiting_probability : float, ndarray or Series
        Probability that an arriving (admitted) job has to wait for a server [1].
    waiting_time : float, ndarray or Series
        Mean time an admitted job waits before service starts [s].
    response_time : float, ndarray or Series
        Mean time in the station, waiting plus service [s].
    queue_length : float, ndarray or Series
        Mean number of jobs at the station, waiting plus in service [1].
    queue_waiting : float, ndarray or Series
        Mean number of jobs waiting (not in service) [1].
    throughput : float, ndarray or Series
        Completions per second [1/s].
    blocking_probability : float, ndarray or Series
        Probability that an arrival is turned away (finite capacity), else 0 [1].
    model : str
        Kendall notation of the model solved, e.g. ``"M/M/c"``.
    method : str
        ``"exact"``, or the name of the approximation (``"allen_cunneen"``, ``"kingman"``).
    approximation : bool
        True when the means are an approximation rather than exact.
    """

    utilization: Any
    waiting_probability: Any
    waiting_time: Any
    response_time: Any
    queue_length: Any
    queue_waiting: Any
    throughput: Any
    blocking_probability: Any
    model: str = "M/M/c"
    method: str = "exact"
    approximation: bool = False


def _check_open(arrival_rate, service_time, servers):
    lam = as_float_array("arrival_rate", arrival_rate)
    s = as_float_array("service_time", service_time, positive=True)
    c = as_int_array("servers", servers, minimum=1).astype(float)
    return lam, s, c


def _check_scv(name, value):
    return as_float_array(name, value)


def _saturate(metrics: dict, saturated: np.ndarray, c, s) -> dict:
    """Apply the library's saturation policy to the entries flagged ``saturated``."""
    if not np.any(saturated):
        return metrics
    inf = np.inf
    for name in ("waiting_time", "response_time", "queue_length", "queue_waiting"):
        metrics[name] = np.where(saturated, inf, metrics[name])
    metrics["utilization"] = np.where(saturated, 1.0, metrics["utilization"])
    metrics["waiting_probability"] = np.where(saturated, 1.0, metrics["waiting_probability"])
    metrics["throughput"] = np.where(saturated, c / s, metrics["throughput"])
    return metrics


def _open_metrics(lam, s, c, wait_prob, waiting_time, saturated) -> dict:
    """Little's-law completion of an infinite-capacity open station."""
    with np.errstate(invalid="ignore", over="ignore"):
        metrics = {
            "utilization": lam * s / c,
            "waiting_probability": wait_prob,
            "waiting_time": waiting_time,
            "response_time": waiting_time + s,
            "queue_length": lam * (waiting_time + s),
            "queue_waiting": lam * waiting_time,
            "throughput": lam * np.ones_like(s * c),
            "blocking_probability": np.zeros(np.broadcast_shapes(np.shape(lam), np.shape(s),
                                                                 np.shape(c))),
        }
    return _saturate(metrics, saturated, c, s)


def _mmc_core(lam, s, c):
    """(Erlang C, M/M/c mean wait, saturated mask) for validated arrays."""
    lam, s, c = np.broadcast_arrays(lam, s, c)
    a = lam * s
    b, _ = _erlang_b_log(c, a)
    cc, saturated = _erlang_c_from_b(c, a, b)
    with np.errstate(divide="ignore", invalid="ignore"):
        wq = np.where(saturated, np.inf, cc * s / (c * (1.0 - a / c)))
    return cc, wq, saturated


@vectorized
def mmc(arrival_rate, service_time, servers=1) -> StationResult:
    r"""M/M/c: Poisson arrivals, exponential service, ``servers`` identical servers.

    Parameters
    ----------
    arrival_rate : float or array_like
        Poisson arrival rate :math:`\lambda` [1/s].
    service_time : float or array_like
        Mean service time :math:`S = 1/\mu`, positive [s].
    servers : int or array_like of int, default 1
        Number of servers c, a positive integer [1].

    Returns
    -------
    StationResult
        ``model="M/M/c"``, exact means; ``blocking_probability`` is 0.

    Notes
    -----
    With offered load :math:`A = \lambda S` and :math:`\rho = A/c < 1`,

    .. math::
        W_q = \frac{C(c, A)\,S}{c\,(1-\rho)},\quad R = W_q + S,\quad
        Q = \lambda R,\quad U = \rho,\quad X = \lambda,

    where :math:`C(c, A)` is Erlang's C formula (the waiting probability), computed
    from the stable Erlang B recurrence (:func:`~zmodel.queueing.erlang_c`) rather
    than from the textbook :math:`P_0` sum. For :math:`\rho \ge 1` the saturation
    policy applies.

    References
    ----------
    .. [1] L. Kleinrock, *Queueing Systems, Vol. 1: Theory*, Wiley 1975, Sec. 3.5.
    .. [2] R. Jain, *The Art of Computer Systems Performance Analysis*, Wiley 1991,
       Sec. 31.3 (M/M/m queue).
    .. [3] F. S. Hillier, G. J. Lieberman, *Introduction to Operations Research*,
       McGraw-Hill, Sec. 17.6 (M/M/s; the County Hospital example).

    Examples
    --------
    County Hospital emergency room (Hillier & Lieberman, Sec. 17.6): two doctors,
    2 patients/h, 20 min each. Mean patients present 3/4, mean stay 3/8 h.

    >>> r = mmc(arrival_rate=2 / 3600, service_time=1200, servers=2)
    >>> round(r.queue_length, 6), round(r.response_time / 3600, 6)
    (0.75, 0.375)
    """
    lam, s, c = _check_open(arrival_rate, service_time, servers)
    cc, wq, saturated = _mmc_core(lam, s, c)
    warn_saturated(saturated, "M/M/c")
    return StationResult(model="M/M/c", **_open_metrics(lam, s, c, cc, wq, saturated))


@vectorized
def mm1(arrival_rate, service_time) -> StationResult:
    r"""M/M/1: Poisson arrivals, one exponential server.

    Parameters
    ----------
    arrival_rate : float or array_like
        Poisson arrival rate :math:`\lambda` [1/s].
    service_time : float or array_like
        Mean service time :math:`S`, positive [s].

    Returns
    -------
    StationResult
        ``model="M/M/1"``, exact means.

    Notes
    -----
    For :math:`\rho = \lambda S < 1`:

    .. math:: R = \frac{S}{1-\rho},\quad Q = \frac{\rho}{1-\rho},\quad
              W_q = \frac{\rho S}{1-\rho},\quad P(\text{wait}) = \rho .

    Computed as :func:`mmc` with one server. For :math:`\rho \ge 1` the saturation
    policy applies.

    References
    ----------
    .. [1] L. Kleinrock, *Queueing Systems, Vol. 1: Theory*, Wiley 1975, Sec. 3.2.
    .. [2] R. Jain, *The Art of Computer Systems Performance Analysis*, Wiley 1991,
       Sec. 31.2 (M/M/1 queue).

    Examples
    --------
    A gateway forwarding 125 packets/s at 2 ms each (Jain, Example 31.1):

    >>> r = mm1(125.0, 0.002)
    >>> round(r.utilization, 2), round(r.queue_length, 2), round(r.response_time * 1e3, 2)
    (0.25, 0.33, 2.67)
    """
    lam, s, c = _check_open(arrival_rate, service_time, 1)
    cc, wq, saturated = _mmc_core(lam, s, c)
    warn_saturated(saturated, "M/M/1")
    return StationResult(model="M/M/1", **_open_metrics(lam, s, c, cc, wq, saturated))


def _bose_f(y: np.ndarray) -> np.ndarray:
    r""":math:`f(y) = 1/(e^y - 1) - 1/y`, smooth through 0 (series for small ``|y|``)."""
    y = np.asarray(y, dtype=float)
    small = np.abs(y) < 1e-3
    ys = np.where(small, 1.0, y)
    with np.errstate(over="ignore", divide="ignore"):
        direct = 1.0 / np.expm1(ys) - 1.0 / ys
    series = -0.5 + y / 12.0 - y**3 / 720.0
    return np.where(small, series, direct)


def _log_geometric_sum(a: np.ndarray, m: np.ndarray) -> np.ndarray:
    r""":math:`\log \sum_{j=0}^{m} e^{j a}` without overflow, for any sign of ``a``."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        neg = np.log(-np.expm1((m + 1) * a)) - np.log(-np.expm1(a))
        pos = m * a + np.log(-np.expm1(-(m + 1) * a)) - np.log(-np.expm1(-a))
    return np.where(a < 0, neg, np.where(a > 0, pos, np.log(m + 1.0)))


def _log_last_share(a: np.ndarray, m: np.ndarray) -> np.ndarray:
    r""":math:`\log\big(e^{m a} / \sum_{j=0}^{m} e^{j a}\big)`, free of the cancellation
    between two huge logs when ``m a`` is large."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        pos = np.log(-np.expm1(-a)) - np.log(-np.expm1(-(m + 1) * a))
        neg = m * a + np.log(-np.expm1(a)) - np.log(-np.expm1((m + 1) * a))
    return np.where(a > 0, pos, np.where(a < 0, neg, -np.log(m + 1.0)))


@vectorized
def mmck(arrival_rate, service_time, servers, capacity) -> StationResult:
    r"""M/M/c/K: M/M/c with room for ``capacity`` jobs in total; arrivals beyond are lost.

    Parameters
    ----------
    arrival_rate : float or array_like
        Poisson arrival rate :math:`\lambda` offered to the station [1/s].
    service_time : float or array_like
        Mean service time :math:`S`, positive [s].
    servers : int or array_like of int
        Number of servers c, a positive integer [1].
    capacity : int or array_like of int
        Maximum number of jobs at the station K (in service plus waiting), K >= c [1].

    Returns
    -------
    StationResult
        ``model="M/M/c/K"``, exact means. ``throughput`` is the carried rate
        :math:`\lambda (1 - P_K)`, ``blocking_probability`` is :math:`P_K`,
        ``waiting_probability`` is the probability that an *admitted* job waits, and
        the times are per admitted job. Always stable: no saturation.

    Notes
    -----
    Birth-death chain with :math:`p_n \propto A^n/n!` for :math:`n \le c` and
    :math:`p_n = p_c\,\rho^{n-c}` for :math:`c < n \le K` (:math:`A = \lambda S`,
    :math:`\rho = A/c`):

    .. math::
        P_K = p_c\,\rho^{K-c},\quad X = \lambda(1 - P_K),\quad U = \frac{X S}{c},\quad
        Q_w = \sum_{n=c}^{K} (n-c) p_n,\quad Q = Q_w + X S,\quad R = Q / X .

    Implemented in log space: the states below c enter through Erlang B,
    :math:`\sum_{n<c} p_n / p_c = 1/B(c, A) - 1`, and the geometric block above c
    through ``expm1``-based sums, so K may be huge and :math:`\rho` may exceed 1.
    With K = c it is the Erlang loss system (:math:`P_K = B(c, A)`).

    References
    ----------
    .. [1] D. Gross, J. F. Shortle, J. M. Thompson, C. M. Harris, *Fundamentals of
       Queueing Theory*, 4th ed., Wiley 2008, Sec. 2.4 (finite queues M/M/c/K).
    .. [2] R. Jain, *The Art of Computer Systems Performance Analysis*, Wiley 1991,
       Sec. 31.4 (M/M/m/B queue with finite buffers).

    Examples
    --------
    >>> r = mmck(arrival_rate=1.0, service_time=1.0, servers=1, capacity=1)
    >>> r.blocking_probability, r.throughput   # Erlang B(1, 1) = 1/2
    (0.5, 0.5)
    """
    lam, s, c = _check_open(arrival_rate, service_time, servers)
    k = as_int_array("capacity", capacity, minimum=1).astype(float)
    lam, s, c, k = np.broadcast_arrays(lam, s, c, k)
    bad = k < c
    if bad.any():
        first = np.argwhere(bad)[0] if bad.ndim else ()
        raise ValueError(f"capacity must be >= servers, got capacity={k[tuple(first)]:g} "
                         f"< servers={c[tuple(first)]:g}")
    idle = lam == 0
    a = np.where(idle, 1.0, lam * s)
    m = k - c
    # log sum_{n<c} p_n / p_c = log(1/B(c, A) - 1) = log(c/A) - log B(c-1, A) (the recurrence
    # 1/B(c) = 1 + (c/A)/B(c-1)): no cancellation when B(c, A) is within rounding of 1
    _, logb_below = _erlang_b_log(c - 1.0, a)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        log_lower = np.log(c / a) - np.where(c > 1, logb_below, 0.0)
        log_rho = np.log(a / c)
        log_upper = _log_geometric_sum(log_rho, m)   # log sum_{n=c}^{K} p_n / p_c
        log_p_upper = -np.logaddexp(0.0, log_lower - log_upper)     # log P(n >= c)
        log_p_below = -np.logaddexp(0.0, log_upper - log_lower)     # log P(n < c)
        # log(1 - share of state K in the upper block) = log S_{m-1} - log S_m (-inf when K = c)
        log_not_last = np.where(m > 0, _log_geometric_sum(log_rho, np.maximum(m - 1, 0)) - log_upper, -np.inf)
        log_not_full = np.logaddexp(log_p_below, log_p_upper + log_not_last)   # log(1 - P_K)
        p_upper = np.exp(log_p_upper)
        p_full = p_upper * np.exp(_log_last_share(log_rho, m))
        mean_excess = _bose_f(-log_rho) - (m + 1) * _bose_f(-(m + 1) * log_rho)
        queue_waiting = p_upper * mean_excess
        # X <= c / S exactly; the clamp removes rounding of the huge logs when rho >> 1
        x = np.minimum(lam * np.exp(log_not_full), c / s)
        busy = x * s
        wait_prob = np.exp(log_p_upper + log_not_last - log_not_full)
        waiting_time = np.where(idle, 0.0, queue_waiting / np.where(idle, 1.0, x))
    zero = np.zeros_like(a)
    metrics = {
        "utilization": busy / c,
        "waiting_probability": np.where(idle, 0.0, wait_prob),
        "waiting_time": waiting_time,
        "response_time": waiting_time + s,
        "queue_length": np.where(idle, 0.0, queue_waiting + busy),
        "queue_waiting": np.where(idle, 0.0, queue_waiting),
        "throughput": x,
        "blocking_probability": np.where(idle, zero, p_full),
    }
    return StationResult(model="M/M/c/K", **metrics)


@vectorized
def machine_repairman(population, think_time, service_time, servers=1) -> StationResult:
    r"""M/M/c//N: the finite-source (machine-repairman) queue, exact.

    ``population`` jobs alternate between an exponential think time (off the station)
    and an exponential service at a station with ``servers`` servers.

    Parameters
    ----------
    population : int or array_like of int
        Number of jobs N circulating, >= 0 [1].
    think_time : float or array_like
        Mean think time Z between a completion and the job's next arrival, >= 0 [s].
    service_time : float or array_like
        Mean service time S, positive [s].
    servers : int or array_like of int, default 1
        Number of servers c, a positive integer [1].

    Returns
    -------
    StationResult
        ``model="M/M/c//N"``, exact. ``throughput`` X, ``response_time`` per visit
        (think excluded), ``queue_length`` mean number at the station,
        ``waiting_probability`` the probability that an arriving job finds all servers
        busy. Closed, so never saturated; N = 0 gives zeros everywhere.

    Notes
    -----
    Birth-death chain on the number n at the station, birth rate
    :math:`(N-n)/Z`, death rate :math:`\min(n, c)/S`:

    .. math::
        p_n \propto \frac{N!}{(N-n)!}\left(\frac{S}{Z}\right)^n \frac{1}{\beta_n},\quad
        \beta_n = \begin{cases} n! & n \le c\\ c!\,c^{n-c} & n > c \end{cases},

    :math:`X = \sum_n \min(n, c) p_n / S`, :math:`Q = \sum_n n p_n`, :math:`R = Q/X`
    and :math:`X (R + Z) = N`. Arrivals see the time averages weighted by
    :math:`(N - n)` (arrival theorem). This is the finite-source chain with
    :math:`\mu(n) = \min(n, c)/S`, solved by
    :func:`zmodel.queueing.finite_source_probabilities` in log space (``lgamma``,
    shifted by the largest weight and normalised), so N in the hundreds of thousands is
    fine; memory
    is one row of N + 1 floats per batch entry. With Z = 0 all N jobs sit at the
    station.

    References
    ----------
    .. [1] D. Gross, J. F. Shortle, J. M. Thompson, C. M. Harris, *Fundamentals of
       Queueing Theory*, 4th ed., Wiley 2008, Sec. 2.7 (finite-source queues).
    .. [2] L. Kleinrock, *Queueing Systems, Vol. 1: Theory*, Wiley 1975, Sec. 3.9
       (finite customer population, M/M/1//M).

    Examples
    --------
    Two jobs, think 1 s, service 1 s, one server: states 0, 1, 2 have weights 1, 2, 2,
    so Q = 6/5 and X = 4/5.

    >>> r = machine_repairman(2, 1.0, 1.0)
    >>> round(r.queue_length, 12), round(r.throughput, 12)
    (1.2, 0.8)
    """
    from .loaddep import finite_source_probabilities

    n_pop = as_int_array("population", population, minimum=0).astype(float)
    z = as_float_array("think_time", think_time)
    s = as_float_array("service_time", service_time, positive=True)
    c = as_int_array("servers", servers, minimum=1).astype(float)
    n_pop, z, s, c = np.broadcast_arrays(n_pop, z, s, c)
    shape = n_pop.shape
    npop, zz, ss, cc = (v.ravel()[:, None] for v in (n_pop, z, s, c))
    n = np.arange(int(n_pop.max(initial=0)) + 1, dtype=float)[None, :]
    inside = n <= npop
    no_think = zz == 0
    # mu(n) = min(n, c) / S: the load-dependent finite-source chain
    log_mu = np.log(np.minimum(n[:, 1:], cc)) - np.log(ss)
    p = finite_source_probabilities(npop[:, 0], zz[:, 0], log_mu)
    busy = (np.minimum(n, cc) * p).sum(axis=1)
    queue_length = (n * p).sum(axis=1)
    queue_waiting = (np.maximum(n - cc, 0.0) * p).sum(axis=1)
    arrival_weight = np.where(inside, npop - n, 0.0) * p
    with np.errstate(invalid="ignore", divide="ignore"):
        wait_prob = np.where(n >= cc, arrival_weight, 0.0).sum(axis=1) / arrival_weight.sum(axis=1)
    npop, zz, ss, cc = (v[:, 0] for v in (npop, zz, ss, cc))
    wait_prob = np.where(no_think[:, 0], (npop - 1 >= cc).astype(float), wait_prob)
    x = busy / ss
    empty = npop == 0
    with np.errstate(invalid="ignore", divide="ignore"):
        waiting_time = np.where(empty, 0.0, queue_waiting / np.where(empty, 1.0, x))
    metrics = {
        "utilization": busy / cc,
        "waiting_probability": np.where(empty, 0.0, wait_prob),
        "waiting_time": waiting_time,
        "response_time": np.where(empty, 0.0, waiting_time + ss),
        "queue_length": queue_length,
        "queue_waiting": queue_waiting,
        "throughput": x,
        "blocking_probability": np.zeros_like(x),
    }
    metrics = {k: v.reshape(shape) for k, v in metrics.items()}
    return StationResult(model="M/M/c//N", **metrics)


@vectorized
def mg1(arrival_rate, service_time, service_scv) -> StationResult:
    r"""M/G/1: Poisson arrivals, general service, one server (Pollaczek–Khinchine).

    Parameters
    ----------
    arrival_rate : float or array_like
        Poisson arrival rate :math:`\lambda` [1/s].
    service_time : float or array_like
        Mean service time :math:`S`, positive [s].
    service_scv : float or array_like
        Squared coefficient of variation of the service time,
        :math:`c_s^2 = \mathrm{Var}(S)/S^2 \ge 0` (0 deterministic, 1 exponential) [1].

    Returns
    -------
    StationResult
        ``model="M/G/1"``, exact means (FCFS); ``waiting_probability`` is
        :math:`\rho` (PASTA).

    Notes
    -----
    Pollaczek–Khinchine mean-value formula, valid for :math:`\rho = \lambda S < 1`:

    .. math:: W_q = \frac{\lambda\,E[S^2]}{2(1-\rho)}
                  = \frac{\rho\,S\,(1 + c_s^2)}{2(1-\rho)},\qquad R = W_q + S.

    For :math:`\rho \ge 1` the saturation policy applies.

    References
    ----------
    .. [1] L. Kleinrock, *Queueing Systems, Vol. 1: Theory*, Wiley 1975, Sec. 5.6
       (the M/G/1 mean-value results; Pollaczek–Khinchin formula).
    .. [2] D. Gross, J. F. Shortle, J. M. Thompson, C. M. Harris, *Fundamentals of
       Queueing Theory*, 4th ed., Wiley 2008, Sec. 6.1.1.

    Examples
    --------
    >>> r = mg1(arrival_rate=0.5, service_time=1.0, service_scv=1.0)   # M/M/1
    >>> r.response_time
    2.0
    """
    lam, s, c = _check_open(arrival_rate, service_time, 1)
    scv = _check_scv("service_scv", service_scv)
    return _mg1(lam, s, scv, "M/G/1")


def _mg1(lam, s, scv, model) -> StationResult:
    lam, s, scv = np.broadcast_arrays(lam, s, scv)
    c = np.ones_like(s)
    rho = lam * s
    saturated = rho >= 1
    with np.errstate(divide="ignore", invalid="ignore"):
        wq = np.where(saturated, np.inf, rho * s * (1.0 + scv) / (2.0 * (1.0 - rho)))
    warn_saturated(saturated, model, stacklevel=4)
    return StationResult(model=model, **_open_metrics(lam, s, c, rho, wq, saturated))


@vectorized
def md1(arrival_rate, service_time) -> StationResult:
    r"""M/D/1: Poisson arrivals, constant service time, one server.

    Parameters
    ----------
    arrival_rate : float or array_like
        Poisson arrival rate :math:`\lambda` [1/s].
    service_time : float or array_like
        The (constant) service time :math:`S`, positive [s].

    Returns
    -------
    StationResult
        ``model="M/D/1"``, exact means.

    Notes
    -----
    Pollaczek–Khinchine with :math:`c_s^2 = 0`, valid for :math:`\rho < 1`:

    .. math:: W_q = \frac{\rho\,S}{2(1-\rho)},

    half the M/M/1 wait at the same load.

    References
    ----------
    .. [1] L. Kleinrock, *Queueing Systems, Vol. 1: Theory*, Wiley 1975, Sec. 5.6.

    Examples
    --------
    >>> md1(0.5, 1.0).waiting_time
    0.5
    """
    lam, s, _ = _check_open(arrival_rate, service_time, 1)
    return _mg1(lam, s, np.zeros(()), "M/D/1")


@vectorized
def ggc(arrival_rate, service_time, servers, arrival_scv, service_scv,
        method: str = "allen_cunneen") -> StationResult:
    r"""G/G/c: approximate means for general arrivals and service (two-moment).

    Parameters
    ----------
    arrival_rate : float or array_like
        Mean arrival rate :math:`\lambda` [1/s].
    service_time : float or array_like
        Mean service time :math:`S`, positive [s].
    servers : int or array_like of int
        Number of servers c, a positive integer [1].
    arrival_scv : float or array_like
        Squared coefficient of variation of the inter-arrival time :math:`c_a^2 \ge 0` [1].
    service_scv : float or array_like
        Squared coefficient of variation of the service time :math:`c_s^2 \ge 0` [1].
    method : {"allen_cunneen", "kingman"}
        Which approximation to use.

    Returns
    -------
    StationResult
        ``model="G/G/c"``, ``method`` the approximation used and
        ``approximation=True``.

    Notes
    -----
    Both scale an M/M/c-like wait by the variability factor
    :math:`(c_a^2 + c_s^2)/2`; valid for :math:`\rho = \lambda S / c < 1`:

    * Allen–Cunneen: :math:`W_q \approx \frac{C(c, A)\,S}{c(1-\rho)}\,
      \frac{c_a^2 + c_s^2}{2}` with Erlang's C; exact for M/M/c and for M/G/1.
      Typical error a few to ~20 % (largest for light load with many servers).
    * Kingman (heavy traffic) with Sakasegawa's multi-server extension:
      :math:`W_q \approx \frac{\rho^{\sqrt{2(c+1)}-1}}{c(1-\rho)}\,
      \frac{c_a^2 + c_s^2}{2}\,S`; for c = 1 it is Kingman's
      :math:`\frac{\rho}{1-\rho}\frac{c_a^2 + c_s^2}{2} S`, exact for M/G/1.
      The waiting probability is approximated by :math:`\rho^{\sqrt{2(c+1)}-1}`.

    For :math:`\rho \ge 1` the saturation policy applies.

    References
    ----------
    .. [1] A. O. Allen, *Probability, Statistics, and Queueing Theory with Computer
       Science Applications*, 2nd ed., Academic Press 1990, Sec. 6.4 (GI/G/c
       approximation; section from memory).
    .. [2] G. Bolch, S. Greiner, H. de Meer, K. S. Trivedi, *Queueing Networks and
       Markov Chains*, 2nd ed., Wiley 2006, Ch. 6 (GI/G/m approximations,
       Allen–Cunneen).
    .. [3] J. F. C. Kingman, "The single server queue in heavy traffic", Proc.
       Cambridge Phil. Soc. 57 (1961) 902-904, doi:10.1017/S0305004100036094.
    .. [4] H. Sakasegawa, "An approximation formula Lq ~ alpha rho^beta / (1 - rho)",
       Ann. Inst. Statist. Math. 29 (1977) 67-75, doi:10.1007/BF02532775.

    Examples
    --------
    >>> r = ggc(0.5, 1.0, 1, arrival_scv=1.0, service_scv=1.0)   # M/M/1
    >>> r.response_time, r.approximation, r.method
    (2.0, True, 'allen_cunneen')
    """
    if method not in ("allen_cunneen", "kingman"):
        raise ValueError(f"method must be 'allen_cunneen' or 'kingman', got {method!r}")
    lam, s, c = _check_open(arrival_rate, service_time, servers)
    ca2 = _check_scv("arrival_scv", arrival_scv)
    cs2 = _check_scv("service_scv", service_scv)
    lam, s, c, ca2, cs2 = np.broadcast_arrays(lam, s, c, ca2, cs2)
    factor = (ca2 + cs2) / 2.0
    if method == "allen_cunneen":
        cc, wq_mmc, saturated = _mmc_core(lam, s, c)
        wait_prob = cc
        wq = wq_mmc * factor
    else:
        rho = lam * s / c
        saturated = rho >= 1
        with np.errstate(divide="ignore", invalid="ignore"):
            wait_prob = np.where(saturated, 1.0, rho ** (np.sqrt(2.0 * (c + 1.0)) - 1.0))
            wq = np.where(saturated, np.inf, wait_prob * s * factor / (c * (1.0 - rho)))
    warn_saturated(saturated, "G/G/c")
    return StationResult(model="G/G/c", method=method, approximation=True,
                   **_open_metrics(lam, s, c, wait_prob, wq, saturated))
