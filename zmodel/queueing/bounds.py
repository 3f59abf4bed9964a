"""Asymptotic and balanced-job bounds on throughput and response time (QSP ch. 5).

Both functions take the service demands of the queueing centres, and either a
population (closed, batch or terminal workload with think time) or an arrival rate
(open, transaction workload). Leading axes of ``service_demands`` and the shapes of
``population``/``arrival_rate`` and ``think_time`` broadcast as batches, so one call
gives a bounds curve over a whole population sweep.
"""
from __future__ import annotations

import dataclasses

import numpy as np

from ._result import Result
from zmodel.conventions import as_float_array, vectorized, warn_saturated

__all__ = ["asymptotic_bounds", "balanced_job_bounds", "BoundsResult"]


@dataclasses.dataclass(frozen=True)
class BoundsResult(Result):
    """Lower and upper bounds on system throughput and response time.

    Attributes
    ----------
    throughput_lower, throughput_upper : float or numpy.ndarray
        Bounds on the system throughput X [1/s].
    response_time_lower, response_time_upper : float or numpy.ndarray
        Bounds on the system response time R, think time excluded; ``inf``
        where no finite bound exists [s].
    method : str
        ``"asymptotic"`` or ``"balanced job"``.
    workload : str
        ``"closed"`` (population given) or ``"open"`` (arrival rate given).
    """

    throughput_lower: np.ndarray | float
    throughput_upper: np.ndarray | float
    response_time_lower: np.ndarray | float
    response_time_upper: np.ndarray | float
    method: str
    workload: str


def _check(service_demands, population, think_time, arrival_rate):
    """Validate inputs; return (D, Dtot, Dmax, Davg, N or lam, Z, closed)."""
    if (population is None) == (arrival_rate is None):
        raise ValueError("give exactly one of population (closed workload) and arrival_rate (open workload)")
    d = as_float_array("service_demands", service_demands, min_ndim=1)
    if d.shape[-1] == 0:
        raise ValueError("service_demands must have at least one station, got shape "
                         f"{d.shape}")
    dmax = d.max(axis=-1)
    if not (dmax > 0).all():
        raise ValueError("service_demands must have at least one positive entry per network")
    dtot = d.sum(axis=-1)
    davg = dtot / d.shape[-1]
    z = as_float_array("think_time", think_time)
    if population is not None:
        n = as_float_array("population", population)
        bad = n < 1
        if bad.any():
            raise ValueError(f"population must be >= 1, got {n[bad].flat[0]!r}")
        dtot, dmax, davg, n, z = np.broadcast_arrays(dtot, dmax, davg, n, z)
        return dtot, dmax, davg, n, z, True
    lam = as_float_array("arrival_rate", arrival_rate)
    dtot, dmax, davg, lam = np.broadcast_arrays(dtot, dmax, davg, lam)
    return dtot, dmax, davg, lam, None, False


def _open_throughput(lam, dmax, what):
    """Throughput of an open workload: lam, or the capacity 1/Dmax when saturated."""
    sat = lam * dmax >= 1.0
    warn_saturated(sat, what, stacklevel=4)
    return np.where(sat, 1.0 / dmax, lam), sat


@vectorized
def asymptotic_bounds(service_demands, population=None, think_time=0.0, *, arrival_rate=None):
    r"""Asymptotic bounds (ABA) on throughput and response time.

    Parameters
    ----------
    service_demands : array_like, shape (..., K)
        Service demand D_k = V_k S_k of each queueing centre; leading axes are
        batches [s].
    population : float or array_like, optional
        Closed workload: number of jobs N >= 1, broadcast against the batch
        (real values allowed for plotting) [1].
    think_time : float or array_like, optional
        Closed workload think time Z >= 0; 0 is a batch workload [s].
    arrival_rate : float or array_like, optional
        Open (transaction) workload arrival rate lambda >= 0, instead of
        ``population`` [1/s].

    Returns
    -------
    BoundsResult
        ``throughput_lower/upper`` and ``response_time_lower/upper``.

    Notes
    -----
    With :math:`D = \sum_k D_k` and :math:`D_{max} = \max_k D_k`, closed
    (batch Z = 0, terminal Z > 0) workloads satisfy

    .. math::

        \frac{N}{N D + Z} \le X(N) \le \min\left(\frac{1}{D_{max}}, \frac{N}{D + Z}\right),
        \qquad
        \max(D, N D_{max} - Z) \le R(N) \le N D .

    Open workloads: :math:`X(\lambda) \le 1/D_{max}` (so X = lambda below
    saturation) and :math:`R(\lambda) \ge D`, with no finite upper bound on R.
    Valid for separable networks of load-independent single-server centres.
    An open workload with :math:`\lambda D_{max} \ge 1` follows the library's
    saturation policy: throughput 1/D_max, response-time bounds ``inf``, one
    :class:`~zmodel.queueing.SaturationWarning`.

    References
    ----------
    .. [1] E. D. Lazowska, J. Zahorjan, G. S. Graham, K. C. Sevcik,
       *Quantitative System Performance*, Prentice-Hall, 1984, ch. 5 "Bounds on
       Performance", §5.2 "Asymptotic Bounds" (summary table of the asymptotic
       bounds for batch, terminal and transaction workloads). Page numbers not
       verified.

    Examples
    --------
    >>> b = asymptotic_bounds([9.2, 8.0], population=20, think_time=120.0)
    >>> round(b.throughput_upper, 4), b.response_time_lower   # 1/9.2, 20*9.2-120
    (0.1087, 64.0)
    >>> asymptotic_bounds([1.0, 2.0], population=[1, 2, 3]).throughput_upper.tolist()
    [0.3333333333333333, 0.5, 0.5]
    """
    dtot, dmax, davg, load, z, closed = _check(service_demands, population, think_time, arrival_rate)
    if closed:
        n = load
        x_lo = n / (n * dtot + z)
        x_hi = np.minimum(1.0 / dmax, n / (dtot + z))
        r_lo = np.maximum(dtot, n * dmax - z)
        r_hi = n * dtot
        return BoundsResult(x_lo, x_hi, r_lo, r_hi, "asymptotic", "closed")
    x, sat = _open_throughput(load, dmax, "open workload")
    r_lo = np.where(sat, np.inf, dtot)
    return BoundsResult(x, x, r_lo, np.full_like(r_lo, np.inf),
                        "asymptotic", "open")


@vectorized
def balanced_job_bounds(service_demands, population=None, think_time=0.0, *, arrival_rate=None):
    r"""Balanced job (balanced system) bounds on throughput and response time.

    Parameters
    ----------
    service_demands : array_like, shape (..., K)
        Service demand D_k = V_k S_k of each queueing centre; leading axes are
        batches [s].
    population : float or array_like, optional
        Closed workload: number of jobs N >= 1, broadcast against the batch [1].
    think_time : float or array_like, optional
        Closed workload think time Z >= 0 [s].
    arrival_rate : float or array_like, optional
        Open (transaction) workload arrival rate lambda >= 0, instead of
        ``population`` [1/s].

    Returns
    -------
    BoundsResult
        ``throughput_lower/upper`` and ``response_time_lower/upper``; always
        inside the asymptotic bounds.

    Notes
    -----
    With :math:`D_{avg} = D/K`, for closed workloads

    .. math::

        \frac{N}{D + Z + \frac{(N-1) D_{max}}{1 + Z/(N D)}} \le X(N) \le
        \min\left(\frac{1}{D_{max}},
        \frac{N}{D + Z + \frac{(N-1) D_{avg}}{1 + Z/D}}\right)

        \max\left(N D_{max} - Z, D + \frac{(N-1) D_{avg}}{1 + Z/D}\right) \le R(N)
        \le D + \frac{(N-1) D_{max}}{1 + Z/(N D)}

    and for open workloads :math:`X = \lambda < 1/D_{max}` and

    .. math::

        \frac{D}{1 - \lambda D_{avg}} \le R(\lambda) \le \frac{D}{1 - \lambda D_{max}} .

    Valid for separable networks of load-independent single-server centres;
    exact when all demands are equal. Saturated open workloads
    (:math:`\lambda D_{max} \ge 1`) follow the library's saturation policy.

    References
    ----------
    .. [1] E. D. Lazowska, J. Zahorjan, G. S. Graham, K. C. Sevcik,
       *Quantitative System Performance*, Prentice-Hall, 1984, ch. 5, §5.4
       "Balanced System Bounds" (summary table for batch, terminal and
       transaction workloads). Page numbers not verified.

    Examples
    --------
    >>> b = balanced_job_bounds([1.0, 1.0], population=3)   # balanced: exact
    >>> b.throughput_lower, b.throughput_upper               # N/(D + (N-1) D)
    (0.75, 0.75)
    >>> b = balanced_job_bounds([1.0, 3.0], arrival_rate=0.2)
    >>> round(b.response_time_lower, 4), b.response_time_upper   # 4/0.6, 4/0.4
    (6.6667, 10.0)
    """
    dtot, dmax, davg, load, z, closed = _check(service_demands, population, think_time, arrival_rate)
    if closed:
        n = load
        x_lo = n / (dtot + z + (n - 1.0) * dmax / (1.0 + z / (n * dtot)))
        x_hi = np.minimum(1.0 / dmax, n / (dtot + z + (n - 1.0) * davg / (1.0 + z / dtot)))
        r_lo = np.maximum(n * dmax - z, dtot + (n - 1.0) * davg / (1.0 + z / dtot))
        r_hi = dtot + (n - 1.0) * dmax / (1.0 + z / (n * dtot))
        return BoundsResult(x_lo, x_hi, r_lo, r_hi, "balanced job", "closed")
    lam = load
    x, sat = _open_throughput(lam, dmax, "open workload")
    with np.errstate(divide="ignore"):
        r_lo = np.where(sat, np.inf, dtot / (1.0 - lam * davg))
        r_hi = np.where(sat, np.inf, dtot / (1.0 - lam * dmax))
    return BoundsResult(x, x, r_lo, r_hi, "balanced job", "open")
