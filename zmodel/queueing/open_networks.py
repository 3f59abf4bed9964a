"""Open product-form networks: Jackson networks and open multi-class (BCMP) networks.

Stations are M/M/c queues (``servers`` an integer c >= 1) or delay stations
(``servers = math.inf``). Leading axes of the inputs are batches: one call solves a
whole sweep of arrival rates, routings or service times.
"""
from __future__ import annotations

import dataclasses
from typing import ClassVar

import numpy as np

from ._result import Result
from zmodel.conventions import as_float_array, as_probability, as_servers, vectorized, warn_saturated

__all__ = ["jackson_network", "open_multiclass", "OpenNetworkResult", "OpenMulticlassResult"]

# a row of the routing matrix with 1 - sum(row) below this keeps every job inside
_LEAK_TOL = 1e-12


@dataclasses.dataclass(frozen=True)
class OpenNetworkResult(Result):
    """Solution of an open single-class (Jackson) network.

    Attributes
    ----------
    throughput : float or numpy.ndarray
        Network throughput: total external arrival rate, or the network's
        capacity when a station saturates; batch shape [1/s].
    response_time : float or numpy.ndarray
        Mean time from entering to leaving the network (sum of residence
        times); ``inf`` if a station saturates; batch shape [s].
    arrival_rate : numpy.ndarray
        Total arrival rate lambda_k at each station (visit throughput) from the
        traffic equations; batch + (K,) [1/s].
    visit_ratio : numpy.ndarray
        Mean visits per job V_k = lambda_k / sum(gamma); batch + (K,) [1].
    utilization : numpy.ndarray
        Per-server utilization lambda_k S_k / c_k (0 at a delay station, 1 at a
        saturated one); batch + (K,) [1].
    waiting_probability : numpy.ndarray
        Erlang C probability that a visit waits (0 at a delay station); batch + (K,) [1].
    waiting_time : numpy.ndarray
        Mean wait in queue per visit; batch + (K,) [s].
    station_response_time : numpy.ndarray
        Mean time per visit at the station, waiting plus service; batch + (K,) [s].
    residence_time : numpy.ndarray
        Time per job at the station over all its visits, V_k times the
        station response time; batch + (K,) [s].
    queue_length : numpy.ndarray
        Mean number of jobs at the station, waiting plus in service; batch + (K,) [1].
    station_throughput : numpy.ndarray
        Completions per second at the station: lambda_k, or its capacity
        c_k / S_k when saturated; batch + (K,) [1/s].
    """

    throughput: float | np.ndarray
    response_time: float | np.ndarray
    arrival_rate: np.ndarray
    visit_ratio: np.ndarray
    utilization: np.ndarray
    waiting_probability: np.ndarray
    waiting_time: np.ndarray
    station_response_time: np.ndarray
    residence_time: np.ndarray
    queue_length: np.ndarray
    station_throughput: np.ndarray

    trailing_dims: ClassVar[tuple[str, ...]] = ("station",)


@dataclasses.dataclass(frozen=True)
class OpenMulticlassResult(Result):
    """Solution of an open multi-class product-form network.

    Attributes
    ----------
    throughput : numpy.ndarray
        Per-class throughput: the arrival rate, scaled down in proportion for a
        class that visits a saturated station; batch + (C,) [1/s].
    response_time : numpy.ndarray
        Per-class sum of residence times; batch + (C,) [s].
    residence_time : numpy.ndarray
        Time a class-c job spends at station k over all its visits; batch + (C, K) [s].
    queue_length : numpy.ndarray
        Mean number of class-c jobs at station k; batch + (C, K) [1].
    utilization : numpy.ndarray
        Class-c utilization per server lambda_c D_ck / c_k (0 at a delay
        station); batch + (C, K) [1].
    """

    throughput: np.ndarray
    response_time: np.ndarray
    residence_time: np.ndarray
    queue_length: np.ndarray
    utilization: np.ndarray

    trailing_dims: ClassVar[tuple[str, ...]] = ("class", "station")


def _mmc_delay_factor(servers: np.ndarray, offered_load: np.ndarray):
    """M/M/c waiting quantities per unit service time, for stable queueing stations.

    Returns ``(pwait, factor, saturated)`` with ``pwait`` the Erlang C probability
    and ``factor = C / (c (1 - rho))`` so that W = factor * S; delay stations give
    0, 0, False; saturated queueing stations give 1, inf, True.
    """
    from .erlang import erlang_c

    delay = np.isinf(servers)
    c = np.where(delay, 1.0, servers)
    rho = np.where(delay, 0.0, offered_load / c)
    saturated = ~delay & (rho >= 1.0)
    safe = delay | saturated
    a = np.where(safe, 0.0, offered_load)
    pwait = np.asarray(erlang_c(c.astype(np.int64), a), dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        factor = np.where(safe, 0.0, pwait / (c * (1.0 - np.where(safe, 0.0, rho))))
    pwait = np.where(delay, 0.0, np.where(saturated, 1.0, pwait))
    factor = np.where(saturated, np.inf, factor)
    return pwait, factor, saturated


def _check_open_routing(routing: np.ndarray) -> None:
    """Row sums <= 1 and every station can reach the outside (the network is open)."""
    rows = routing.sum(axis=-1)
    bad = rows > 1.0 + 1e-12
    if bad.any():
        idx = np.argwhere(bad)[0]
        raise ValueError(
            f"routing row sums must be <= 1 (the remainder leaves the network), "
            f"got {rows[tuple(idx)]!r} in row {int(idx[-1])}")
    reach = (1.0 - rows) > _LEAK_TOL          # stations with a direct exit
    edge = routing > 0
    for _ in range(routing.shape[-1]):
        new = reach | np.any(edge & reach[..., None, :], axis=-1)
        if np.array_equal(new, reach):
            break
        reach = new
    if not reach.all():
        idx = np.argwhere(~reach)[0]
        raise ValueError(
            "routing must describe an open network where every job eventually leaves, "
            f"but jobs at station {int(idx[-1])} can never leave (closed routing loop)")


@vectorized
def jackson_network(arrival_rates, routing, service_times, servers=1) -> OpenNetworkResult:
    r"""Open Jackson network: traffic equations, then an M/M/c queue per station.

    Parameters
    ----------
    arrival_rates : array_like, shape (..., K)
        External (Poisson) arrival rate gamma_k into each station; leading axes
        are batches [1/s].
    routing : array_like, shape (..., K, K)
        Routing probabilities P[i, j] that a job leaving station i goes next to
        station j; each row sums to at most 1 and the remainder leaves [1].
    service_times : array_like, shape (..., K)
        Mean (exponential) service time per visit S_k [s].
    servers : int, float or sequence of length K, optional
        Servers per station: 1 (default), an integer c > 1, or ``math.inf`` for a
        delay station [1].

    Returns
    -------
    OpenNetworkResult
        Network ``throughput`` and ``response_time``; per-station
        ``arrival_rate``, ``visit_ratio``, ``utilization``,
        ``waiting_probability``, ``waiting_time``, ``station_response_time``
        (per visit), ``residence_time`` (per job) and ``queue_length``.

    Notes
    -----
    Traffic equations (solved with ``numpy.linalg.solve``):

    .. math:: \lambda = \gamma + P^T \lambda \iff (I - P^T)\lambda = \gamma .

    :math:`I - P^T` is nonsingular exactly when the network is open (every job
    eventually leaves: from each station an exit is reachable), which is
    checked first. By Jackson's theorem the stationary distribution is the
    product of independent M/M/c marginals, so with :math:`a_k = \lambda_k S_k`,
    :math:`\rho_k = a_k/c_k` and Erlang C :math:`C(c_k, a_k)`:

    .. math::

        W_k = \frac{C(c_k, a_k)\, S_k}{c_k (1-\rho_k)},\quad R_k = W_k + S_k,\quad
        Q_k = \lambda_k R_k,\quad R = \frac{1}{\sum_k \gamma_k}\sum_k Q_k = \sum_k V_k R_k .

    A delay station has :math:`R_k = S_k`, :math:`Q_k = a_k`. Valid for
    :math:`\rho_k < 1` at every queueing station. A station with
    :math:`\rho_k \ge 1` follows the library's saturation policy: its waiting,
    response time and queue length are ``inf``, its utilization 1, its
    throughput its capacity c_k/S_k; the network response time is ``inf`` and
    its throughput the capacity :math:`\sum\gamma / \max_k \rho_k`; one
    :class:`~zmodel.queueing.SaturationWarning` per call.

    References
    ----------
    .. [1] J. R. Jackson, "Jobshop-like queueing systems", Management Science
       10(1):131-142, 1963. doi:10.1287/mnsc.10.1.131
    .. [2] G. Bolch, S. Greiner, H. de Meer, K. S. Trivedi, *Queueing Networks
       and Markov Chains*, 2nd ed., Wiley, 2006, ch. 7 (open product-form
       networks: Jackson networks, traffic equations), Example 7.4 (p. 287;
       page not verified).

    Examples
    --------
    A tandem of two M/M/1 queues (the first feeds the second, which exits):

    >>> r = jackson_network([1.0, 0.0], [[0, 1], [0, 0]], [0.5, 0.25])
    >>> r.arrival_rate.tolist(), r.queue_length.tolist()   # rho/(1-rho) each
    ([1.0, 1.0], [1.0, 0.3333333333333333])
    >>> round(r.response_time, 6)                          # 0.5/0.5 + 0.25/0.75
    1.333333
    """
    gamma = as_float_array("arrival_rates", arrival_rates, min_ndim=1)
    k = gamma.shape[-1]
    if k == 0:
        raise ValueError("arrival_rates must have at least one station, got shape (0,)")
    p = as_probability("routing", routing)
    if p.ndim < 2 or p.shape[-2:] != (k, k):
        raise ValueError(f"routing must have shape (..., K, K) with K = {k} stations, got shape {p.shape}")
    s = as_float_array("service_times", service_times, positive=True, min_ndim=1)
    if s.shape[-1] != k:
        raise ValueError(f"service_times must have one entry per station ({k}), got shape {s.shape}")
    srv = as_servers(servers, k)
    batch = np.broadcast_shapes(gamma.shape[:-1], p.shape[:-2], s.shape[:-1])
    gamma = np.broadcast_to(gamma, batch + (k,))
    p = np.broadcast_to(p, batch + (k, k))
    s = np.broadcast_to(s, batch + (k,))
    total = gamma.sum(axis=-1)
    if not (total > 0).all():
        raise ValueError("arrival_rates must have at least one positive entry per network")
    _check_open_routing(p)

    a_mat = np.eye(k) - np.swapaxes(p, -1, -2)
    lam = np.linalg.solve(a_mat, gamma[..., None])[..., 0]
    lam = np.maximum(lam, 0.0)                      # round-off at stations nobody visits
    load = lam * s
    pwait, factor, sat = _mmc_delay_factor(srv, load)
    warn_saturated(sat, "station", stacklevel=3)

    delay = np.isinf(srv)
    c = np.where(delay, 1.0, srv)
    rho = np.where(delay, 0.0, load / c)
    util = np.where(sat, 1.0, rho)
    w = factor * s
    r_visit = w + s
    with np.errstate(invalid="ignore"):
        q = np.where(sat, np.inf, lam * r_visit)
    visits = lam / total[..., None]
    resid = np.where(sat, np.inf, visits * r_visit)
    resid = np.where(visits == 0, 0.0, resid)
    q = np.where(lam == 0, 0.0, q)
    with np.errstate(over="ignore", divide="ignore"):
        station_x = np.where(sat, c / s, lam)
    worst = np.max(np.where(delay, 0.0, rho), axis=-1)
    x_net = total / np.maximum(1.0, worst)
    r_net = np.where(sat.any(axis=-1), np.inf, q.sum(axis=-1) / total)
    return OpenNetworkResult(
        throughput=x_net, response_time=r_net, arrival_rate=lam,
        visit_ratio=visits, utilization=util, waiting_probability=pwait,
        waiting_time=w, station_response_time=r_visit, residence_time=resid,
        queue_length=q, station_throughput=station_x)


@vectorized
def open_multiclass(arrival_rates, service_demands, servers=1) -> OpenMulticlassResult:
    r"""Open multi-class product-form (BCMP) network from per-class demands.

    Parameters
    ----------
    arrival_rates : array_like, shape (..., C)
        Arrival rate lambda_c of each class; leading axes are batches [1/s].
    service_demands : array_like, shape (..., C, K)
        Total service demand D_ck = V_ck S_ck of a class-c job at station k [s].
    servers : int, float or sequence of length K, optional
        Servers per station: 1 (default), an integer c > 1, or ``math.inf`` for a
        delay station [1].

    Returns
    -------
    OpenMulticlassResult
        Per-class ``throughput`` and ``response_time`` (C,); per class and
        station ``residence_time``, ``queue_length`` and ``utilization`` (C, K).

    Notes
    -----
    Utilization law and single-server residence time (QSP §7.4.1):

    .. math::

        U_{ck} = \lambda_c D_{ck},\quad U_k = \sum_c U_{ck},\quad
        R_{ck} = \frac{D_{ck}}{1 - U_k},\quad Q_{ck} = \lambda_c R_{ck},\quad
        R_c = \sum_k R_{ck},

    and :math:`R_{ck} = D_{ck}` at a delay station. For a station with
    :math:`m_k` servers the offered load is :math:`a_k = \sum_c \lambda_c D_{ck}`,
    :math:`\rho_k = a_k/m_k`, and every visit waits the M/M/m mean wait, so

    .. math:: R_{ck} = D_{ck}\left(1 + \frac{C(m_k, a_k)}{m_k (1 - \rho_k)}\right),

    which is :math:`D_{ck}/(1-U_k)` for m = 1. Valid for BCMP stations: PS or
    LCFS-PR (any per-class demand) with one server, or FCFS with a
    class-independent mean service time per visit; :math:`\rho_k < 1`.
    Saturated stations follow the library's saturation policy: residence time
    and queue length ``inf`` for the classes that visit them, per-class
    utilizations scaled so that the station's total is 1, and the throughput of
    each class visiting one scaled to :math:`\lambda_c / \max_k \rho_k` over
    the saturated stations it visits; one :class:`~zmodel.queueing.SaturationWarning`.

    References
    ----------
    .. [1] E. D. Lazowska, J. Zahorjan, G. S. Graham, K. C. Sevcik,
       *Quantitative System Performance*, Prentice-Hall, 1984, ch. 7
       "Multiple Class Models", §7.4.1 "Open Model Solution Techniques"
       (example p. 138).
    .. [2] F. Baskett, K. M. Chandy, R. R. Muntz, F. G. Palacios, "Open, closed
       and mixed networks of queues with different classes of customers",
       J. ACM 22(2):248-260, 1975. doi:10.1145/321879.321887
    .. [3] D. A. Menascé, V. A. F. Almeida, L. W. Dowdy, *Performance by
       Design*, Prentice Hall, 2004, ch. 13 "Solving Queuing Networks" (open
       multiclass models).

    Examples
    --------
    Lazowska et al. (1984) p. 138: demands [[1, 3], [2, 4]] s, rates 3/19, 2/19.

    >>> r = open_multiclass([3/19, 2/19], [[1.0, 3.0], [2.0, 4.0]])
    >>> r.residence_time[0, 0] * 12, r.queue_length[0, 0]   # exact: 19/12 and 1/4
    (np.float64(19.0), np.float64(0.25))
    """
    lam = as_float_array("arrival_rates", arrival_rates, min_ndim=1)
    d = as_float_array("service_demands", service_demands, min_ndim=2)
    c_cls = lam.shape[-1]
    if d.shape[-2] != c_cls:
        raise ValueError(f"service_demands must have shape (..., C, K) with C = {c_cls} classes, "
                         f"got shape {d.shape}")
    k = d.shape[-1]
    if k == 0 or c_cls == 0:
        raise ValueError(f"service_demands must have at least one class and one station, got shape {d.shape}")
    srv = as_servers(servers, k)
    batch = np.broadcast_shapes(lam.shape[:-1], d.shape[:-2])
    lam = np.broadcast_to(lam, batch + (c_cls,))
    d = np.broadcast_to(d, batch + (c_cls, k))

    delay = np.isinf(srv)
    m = np.where(delay, 1.0, srv)
    offered = lam[..., :, None] * d                      # lambda_c D_ck, (..., C, K)
    load = offered.sum(axis=-2)                          # a_k, (..., K)
    pwait, factor, sat = _mmc_delay_factor(srv, load)
    warn_saturated(sat, "station", stacklevel=3)

    rho = np.where(delay, 0.0, load / m)
    util = np.where(delay, 0.0, offered / m)
    with np.errstate(invalid="ignore", divide="ignore"):
        util = np.where(sat[..., None, :], util / np.where(rho > 0, rho, 1.0)[..., None, :], util)
        resid = np.where(d > 0, d * (1.0 + factor[..., None, :]), 0.0)
    q = np.where(lam[..., :, None] > 0, lam[..., :, None] * resid, 0.0)
    q = np.where((d > 0) & sat[..., None, :], np.inf, q)
    visits_sat = (d > 0) & sat[..., None, :]
    worst = np.max(np.where(visits_sat, rho[..., None, :], 1.0), axis=-1)
    x = lam / worst
    return OpenMulticlassResult(throughput=x, response_time=resid.sum(axis=-1),
                                residence_time=resid, queue_length=q, utilization=util)
