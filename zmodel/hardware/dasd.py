r"""A DASD volume behind the Linux 2.4 DASD driver: the times ``/proc/dasd/statistics`` bins.

The Linux for zSeries 2.4 DASD driver keeps, per I/O request, four clock stamps
(``buildclk`` when the channel program is built and enqueued on the device's channel
queue *chanq*, ``startclk`` at START SUBCHANNEL, ``stopclk`` at the I/O interrupt,
``endclk`` when the request ends) and bins the differences in powers of two of
microseconds (driver ``drivers/s390/block/dasd.c``, Linux 2.4.21, functions
``dasd_profile_add`` and ``dasd_chanq_enq``; see ``zmodel/_data/dasd_statistics.toml``).

The model of one volume (an ECKD 3390 volume on an ESS behind a FICON channel):

* **Service** (``ssch`` to ``irq``, channel + control unit + device time) is a
  random variable :math:`S` whose law is a finite mixture of log-normal distributions —
  a phase-type-like fitted law; the components are read as cache hits (short) and
  misses / long transfers (long) but carry no other physics.
* **Queueing in the driver** (``build`` to ``ssch``). The driver starts one request
  at a time per subchannel and keeps at most ``DASD_CHANQ_MAX_SIZE = 4`` requests in
  state QUEUED (``dasd_process_queues`` fills the chanq only while fewer are queued;
  the interrupt handler's fast path starts the next QUEUED request right at the
  interrupt). A request that finds :math:`k \ge 1` requests ahead (one in service,
  :math:`k-1` queued) therefore waits for the remaining service of the one in
  service plus :math:`k-1` full services. Because a saturated chanq is refilled by
  the bottom half right after a start, the request in service has only just started
  when the new one is built, so its remaining service is taken as a full service:
  :math:`W \mid k \;=\; S_1 + \dots + S_k` (k-fold convolution). With ``k = 0`` the
  request is started at once, after a fixed ``start_latency``. The distribution of
  :math:`k` is the driver's own queue-length histogram (an input, not a fit).
* **Ending** (``irq`` to ``end``): the bottom-half latency, an input distribution
  (point masses) or a constant.
* **Total** (``build`` to ``end``): :math:`T = W + S + E` with the three independent.

Queueing-theory content: this is the finite-buffer single-server queue of a closed
loop (the block layer keeps the chanq full), whose waiting time given the number
ahead is the sum of the service times ahead (Kleinrock 1975, Vol. 1, Sec. 5.7: the
waiting time of FCFS is the residual plus the queued services). Little's law
(Kleinrock Sec. 2.1) links the mean number queued to
the throughput and the mean wait; :meth:`DasdVolume.little` evaluates it.

This module takes parameters and bucket edges as plain arrays; the fit to the sample
lives in :mod:`zmodel.fits.dasd`.

References
----------
L. Kleinrock, *Queueing Systems, Vol. 1: Theory*, Wiley 1975, Sec. 2.1 (Little's
result), Sec. 5.7 (M/G/1 waiting time as a sum of service times ahead).
N. L. Johnson, S. Kotz, N. Balakrishnan, *Continuous Univariate Distributions*, Vol. 1,
2nd ed., Wiley 1994, ch. 14 (the log-normal law).
Linux 2.4.21 ``drivers/s390/block/dasd.c`` (RHEL 3 tree, revision 1.289):
``DASD_CHANQ_MAX_SIZE 4``, ``dasd_process_queues``, ``dasd_int_handler`` fast path.
"""
from __future__ import annotations

import dataclasses
from typing import Any, ClassVar

import numpy as np

from zmodel.queueing._result import Result
from zmodel.conventions import as_float_array, vectorized

__all__ = ["DasdVolume", "DasdPrediction", "LittleCheck", "lognormal_mixture_cdf", "binned_probabilities"]

_GRID_STEP = 10e-6      # [s] discretisation of the convolution grid
_GRID_POINTS = 1 << 18  # 2.6 s of support at 10 us


def _check_mixture(weights, medians, sigmas):
    w = np.asarray(weights, dtype=float).reshape(-1)
    m = np.asarray(medians, dtype=float).reshape(-1)
    a = np.asarray(sigmas, dtype=float).reshape(-1)
    if not (w.shape == m.shape == a.shape) or w.size == 0:
        raise ValueError(f"weights, medians and sigmas must be equal-length non-empty arrays, "
                         f"got lengths {w.size}, {m.size}, {a.size}")
    if np.any(~np.isfinite(w)) or np.any(w < 0) or not np.isclose(w.sum(), 1.0, atol=1e-9):
        raise ValueError(f"weights must be non-negative and sum to 1, got {w.tolist()}")
    if np.any(~np.isfinite(m)) or np.any(m <= 0):
        raise ValueError(f"medians must be positive and finite, got {m.tolist()}")
    if np.any(~np.isfinite(a)) or np.any(a <= 0):
        raise ValueError(f"sigmas must be positive and finite, got {a.tolist()}")
    return w, m, a


@vectorized
def lognormal_mixture_cdf(t, weights, medians, sigmas):
    r"""CDF of a finite mixture of log-normal distributions.

    Parameters
    ----------
    t : float or array_like
        Times at which to evaluate the CDF (``inf`` allowed) [s].
    weights : array_like
        Mixture weights, non-negative, summing to 1 [1].
    medians : array_like
        Median :math:`e^{\mu_j}` of each component, positive [s].
    sigmas : array_like
        Standard deviation :math:`\sigma_j` of the logarithm of each component, positive [1].

    Returns
    -------
    ndarray
        :math:`F(t) = \sum_j w_j\, \Phi\big((\ln t - \mu_j)/\sigma_j\big)` for
        :math:`t > 0`, 0 for :math:`t \le 0` [1].

    Notes
    -----
    Log-normal law (Johnson, Kotz & Balakrishnan, *Continuous Univariate
    Distributions*, Vol. 1, 2nd ed., Wiley 1994, ch. 14, eq. 14.2); mean
    :math:`e^{\mu + \sigma^2/2}`, second moment :math:`e^{2\mu + 2\sigma^2}`.
    :math:`\Phi` is evaluated by :func:`scipy.special.ndtr` (accurate in both tails).

    References
    ----------
    N. L. Johnson, S. Kotz, N. Balakrishnan, *Continuous Univariate Distributions*,
    Vol. 1, 2nd ed., Wiley 1994, ch. 14.

    Examples
    --------
    At the median of a single component the CDF is 1/2:

    >>> float(lognormal_mixture_cdf(2e-3, [1.0], [2e-3], [0.5]))
    0.5
    """
    w, med, sg = _check_mixture(weights, medians, sigmas)
    t = as_float_array("t", t, nonnegative=False, allow_inf=True)  # F(t) = 0 for t <= 0
    return _mixture_cdf(t, w, med, sg)


def _mixture_cdf(t, w, med, sg):
    """:func:`lognormal_mixture_cdf` on checked float arrays (for a fit's inner loop)."""
    from scipy.special import ndtr

    pos = t > 0
    with np.errstate(divide="ignore"):
        lt = np.log(np.where(pos, t, 1.0))
    z = (lt[..., None] - np.log(med)) / sg
    z = np.where(np.isposinf(t)[..., None], np.inf, z)
    return np.where(pos, np.sum(w * ndtr(z), axis=-1), 0.0)


def _cdf_from_cumulative(cum: np.ndarray, offset: float, edges: np.ndarray) -> np.ndarray:
    """CDF at ``edges`` of point masses at offset + (i + 1/2) h with cumulative sums ``cum``
    (linear between centres)."""
    centres = offset + (np.arange(cum.size) + 0.5) * _GRID_STEP
    return np.interp(edges, centres, cum, left=0.0, right=cum[-1])


class _SumLaws:
    """The laws of sums of k services of one mixture, on the convolution grid.

    The k-fold sum with regime correlation c has the spectrum
    (1 - c) F^k + c sum_j w_j F_j^k (F the mixture's, F_j the components' transforms of
    their cell masses); both parts are computed once per law and k and mixed per c, so a
    fit of c alone (:func:`zmodel.fits.dasd.fit_dasd_statistics`) transforms nothing
    again. One law at a time is kept (:meth:`of`).
    """

    _last: ClassVar[tuple[bytes, "_SumLaws"] | None] = None

    def __init__(self, weights, medians, sigmas):
        n = 2 * _GRID_POINTS
        grid = np.arange(_GRID_POINTS + 1) * _GRID_STEP
        self.n = n
        self.weights = weights
        self.comp_fft = [np.fft.rfft(np.diff(lognormal_mixture_cdf(grid, [1.0], [m], [a])), n)
                         for m, a in zip(medians, sigmas)]
        self.mix_fft = sum(w * f for w, f in zip(weights, self.comp_fft))
        self._parts: dict[int, tuple[np.ndarray, np.ndarray]] = {}

    @classmethod
    def of(cls, weights, medians, sigmas) -> "_SumLaws":
        key = b"".join(np.ascontiguousarray(a, dtype=float).tobytes() for a in (weights, medians, sigmas))
        if cls._last is None or cls._last[0] != key:
            cls._last = (key, cls(weights, medians, sigmas))
        return cls._last[1]

    def cumulative(self, k: int, c: float) -> np.ndarray:
        """Cumulative cell masses of the law of a sum of k services (k >= 1), regime correlation c."""
        if k not in self._parts:
            independent = np.fft.irfft(self.mix_fft ** k, self.n)[:_GRID_POINTS]
            same = np.fft.irfft(sum(w * f ** k for w, f in zip(self.weights, self.comp_fft)), self.n)[:_GRID_POINTS]
            self._parts[k] = (independent, same)
        independent, same = self._parts[k]
        masses = (1.0 - c) * independent + c * same if c > 0 else independent
        return np.cumsum(np.clip(masses, 0.0, None))


@vectorized
def binned_probabilities(cdf_at_edges) -> np.ndarray:
    """Bucket probabilities from a CDF evaluated at ``n + 1`` ascending edges (last may be inf).

    Parameters
    ----------
    cdf_at_edges : array_like
        :math:`F(e_0), \\dots, F(e_n)` [1].

    Returns
    -------
    ndarray
        :math:`F(e_{i+1}) - F(e_i)`, clipped at 0 [1].

    Examples
    --------
    >>> binned_probabilities([0.0, 0.25, 1.0]).tolist()
    [0.25, 0.75]
    """
    # non-negative and not NaN; a mixture's CDF may exceed 1 by a rounding unit
    f = as_float_array("cdf_at_edges", cdf_at_edges, min_ndim=1)
    return np.clip(np.diff(f), 0.0, None)


@dataclasses.dataclass(frozen=True)
class DasdPrediction(Result):
    """Predicted bucket probabilities of the three driver time histograms.

    Attributes
    ----------
    edges : ndarray
        Bucket edges, ``n + 1`` values (last may be inf) [s].
    service : ndarray
        P(ssch-to-irq time in bucket i) [1].
    waiting : ndarray
        P(time till ssch in bucket i) [1].
    total : ndarray
        P(build-to-end time in bucket i) [1].
    """

    edges: np.ndarray
    service: np.ndarray
    waiting: np.ndarray
    total: np.ndarray

    trailing_dims: ClassVar[tuple[str, ...]] = ("bucket",)

    def to_frame(self):
        """One row per bucket: lower, upper [s] and the three probabilities."""
        import pandas as pd

        return pd.DataFrame({"lower": self.edges[:-1], "upper": self.edges[1:],
                             "service": self.service, "waiting": self.waiting,
                             "total": self.total})


@dataclasses.dataclass(frozen=True)
class LittleCheck(Result):
    """Little's law on the driver's QUEUED requests: L_q = X W.

    Attributes
    ----------
    utilization : float
        Busy fraction of the subchannel, 1 - P(nothing ahead at enqueue) [1].
    throughput : float
        Inferred request rate X = U / E[S] [1/s].
    mean_waiting_time : float
        Mean time till ssch E[W] [s].
    queue_length_little : float
        X E[W], the mean number QUEUED implied by Little's law [1].
    queue_length_observed : float
        Mean number of requests ahead at enqueue, the driver's histogram [1].
    relative_difference : float
        queue_length_little / queue_length_observed - 1 [1].
    """

    utilization: float
    throughput: float
    mean_waiting_time: float
    queue_length_little: float
    queue_length_observed: float
    relative_difference: float


@dataclasses.dataclass(frozen=True)
class DasdVolume:
    r"""One DASD volume under the 2.4 driver: service-time law and chanq occupancy.

    Parameters
    ----------
    weights : array_like
        Weights of the log-normal components of the ssch-to-irq service time, summing to 1 [1].
    medians : array_like
        Component medians [s].
    sigmas : array_like
        Component standard deviations of the log service time [1].
    ahead_probabilities : array_like
        P(k requests already on the chanq when a request is enqueued), k = 0, 1, ...
        (the driver's ``# of req in chanq at enqueuing`` histogram, normalised) [1].
    start_latency : float
        Time from build to ssch of a request that finds the chanq empty [s].
    regime_correlation : float
        Probability ``c`` in [0, 1] that the services ahead of a request and its own
        come from one and the same mixture component (a burst: e.g. a run of misses
        while the NVS destages); with ``1 - c`` they are independent draws [1].
    end_times : array_like
        Support points of the irq-to-end time [s] (default one point, 20 us).
    end_probabilities : array_like
        Probabilities of ``end_times`` (default ``[1.0]``) [1].

    Notes
    -----
    Waiting time (build to ssch) given :math:`k` requests ahead, for the refilled
    chanq of the 2.4 driver (module docstring):

    .. math:: W \mid k = \sum_{i=1}^{k} S_i \;(k \ge 1), \qquad W \mid 0 = \delta_0,
              \qquad P(W \le t) = \sum_k p_k\, P\Big(\sum_{i \le k} S_i \le t\Big).

    With regime correlation :math:`c`, the law of a sum of :math:`n` services is
    :math:`(1-c)\,F^{*n} + c \sum_j w_j F_j^{*n}` (independent draws, or all from
    component :math:`j`); the marginal law of one service is unchanged.

    Sums of i.i.d. services are computed by FFT convolution of the service density
    discretised on a 10 us grid (cell masses placed at cell centres); the error per
    convolution is below one grid step. Total time :math:`T = W + S + E`.
    Valid while requests are independent of each other's service (no correlation
    between consecutive requests) and the chanq is refilled at each start.

    References
    ----------
    L. Kleinrock, *Queueing Systems, Vol. 1*, Wiley 1975, Sec. 5.7 (waiting time as the
    sum of the services ahead), Sec. 2.1 (Little's result).

    Examples
    --------
Log-normal service of median 2 ms; every request finds one ahead: the wait is one
    service, so P(W < 2 ms) = P(S < 2 ms) = 1/2 (up to the 10 us grid).

    >>> v = DasdVolume([1.0], [2e-3], [0.5], ahead_probabilities=[0.0, 1.0])
    >>> p = v.predict([0.0, 2e-3, np.inf])
    >>> round(float(p.waiting[0]), 3), round(float(p.service[0]), 3)
    (0.5, 0.5)
    """

    weights: Any
    medians: Any
    sigmas: Any
    ahead_probabilities: Any = (0.0, 0.0, 0.0, 0.0, 1.0)
    start_latency: float = 5e-6
    regime_correlation: float = 0.0
    end_times: Any = (20e-6,)
    end_probabilities: Any = (1.0,)

    def __post_init__(self):
        w, m, a = _check_mixture(self.weights, self.medians, self.sigmas)
        object.__setattr__(self, "weights", w)
        object.__setattr__(self, "medians", m)
        object.__setattr__(self, "sigmas", a)
        p = np.asarray(self.ahead_probabilities, dtype=float).reshape(-1)
        if p.size == 0 or np.any(~np.isfinite(p)) or np.any(p < 0) or not np.isclose(p.sum(), 1.0, atol=1e-9):
            raise ValueError(f"ahead_probabilities must be non-negative and sum to 1, got {p.tolist()}")
        object.__setattr__(self, "ahead_probabilities", p)
        if not (np.isfinite(self.start_latency) and self.start_latency >= 0):
            raise ValueError(f"start_latency must be non-negative and finite, got {self.start_latency!r}")
        c = self.regime_correlation
        if not (isinstance(c, (int, float, np.floating)) and np.isfinite(c) and 0.0 <= c <= 1.0):
            raise ValueError(f"regime_correlation must be a probability in [0, 1], got {c!r}")
        et = np.asarray(self.end_times, dtype=float).reshape(-1)
        ep = np.asarray(self.end_probabilities, dtype=float).reshape(-1)
        if et.shape != ep.shape or et.size == 0:
            raise ValueError("end_times and end_probabilities must be equal-length non-empty arrays, "
                             f"got lengths {et.size} and {ep.size}")
        if np.any(~np.isfinite(et)) or np.any(et < 0):
            raise ValueError(f"end_times must be non-negative and finite, got {et.tolist()}")
        if np.any(ep < 0) or not np.isclose(ep.sum(), 1.0, atol=1e-9):
            raise ValueError(f"end_probabilities must be non-negative and sum to 1, got {ep.tolist()}")
        object.__setattr__(self, "end_times", et)
        object.__setattr__(self, "end_probabilities", ep)

    # ------------------------------------------------------------------ moments
    @property
    def mean_service_time(self) -> float:
        """E[S] = sum_j w_j exp(mu_j + sigma_j^2 / 2) [s]."""
        return float(np.sum(self.weights * self.medians * np.exp(0.5 * self.sigmas ** 2)))

    @property
    def service_scv(self) -> float:
        """Squared coefficient of variation of S [1] (E[S^2] = sum_j w_j exp(2 mu_j + 2 sigma_j^2))."""
        second = float(np.sum(self.weights * self.medians ** 2 * np.exp(2.0 * self.sigmas ** 2)))
        mean = self.mean_service_time
        return second / mean ** 2 - 1.0

    @property
    def mean_ahead(self) -> float:
        """Mean number of requests ahead at enqueue, sum_k k p_k [1]."""
        return float(np.sum(np.arange(self.ahead_probabilities.size) * self.ahead_probabilities))

    @property
    def mean_waiting_time(self) -> float:
        """E[W] = p_0 delta_0 + sum_k p_k k E[S] [s]."""
        p = self.ahead_probabilities
        return float(p[0] * self.start_latency + self.mean_ahead * self.mean_service_time)

    @property
    def mean_end_time(self) -> float:
        """E[E], irq to end [s]."""
        return float(np.sum(self.end_times * self.end_probabilities))

    @property
    def mean_total_time(self) -> float:
        """E[T] = E[W] + E[S] + E[E] [s]."""
        return self.mean_waiting_time + self.mean_service_time + self.mean_end_time

    # ------------------------------------------------------------------ distributions
    @vectorized
    def predict(self, edges) -> DasdPrediction:
        """Bucket probabilities of service, waiting and total time for bucket ``edges`` [s].

        Parameters
        ----------
        edges : array_like
            Ascending bucket edges, ``n + 1`` values; the last may be ``inf`` [s].

        Returns
        -------
        DasdPrediction
            Probabilities per bucket (each sums to 1 when the edges span [0, inf)).
        """
        e = as_float_array("edges", edges, allow_inf=True).reshape(-1)
        if e.size < 2 or np.any(np.diff(e) <= 0) or np.isnan(e).any():
            raise ValueError(f"edges must be at least two strictly ascending values, got {e.tolist()}")
        ef = np.where(np.isinf(e), 1e300, e)
        service = binned_probabilities(lognormal_mixture_cdf(e, self.weights, self.medians, self.sigmas))

        sums = _SumLaws.of(self.weights, self.medians, self.sigmas)
        c = float(self.regime_correlation)
        p = self.ahead_probabilities
        # W: mixture over k of k-fold sums (a k-fold sum of centred masses sits at offset (k-1) h/2)
        w_cdf = np.where(ef >= self.start_latency, p[0], 0.0)
        for k in range(1, p.size):
            if p[k] > 0:
                w_cdf = w_cdf + p[k] * _cdf_from_cumulative(sums.cumulative(k, c), (k - 1) * 0.5 * _GRID_STEP, ef)
        waiting = binned_probabilities(w_cdf)

        # T = W + S + E: k = 0 contributes delta_0 + S + E, k >= 1 the (k+1)-fold sum + E
        cums = {k + 1: sums.cumulative(k + 1, c) for k in range(1, p.size) if p[k] > 0}
        t_cdf = np.zeros_like(ef)
        for et, ep in zip(self.end_times, self.end_probabilities):
            shifted = ef - et
            part = p[0] * lognormal_mixture_cdf(shifted - self.start_latency, self.weights, self.medians, self.sigmas)
            for k in range(1, p.size):
                if p[k] > 0:
                    part = part + p[k] * _cdf_from_cumulative(cums[k + 1], k * 0.5 * _GRID_STEP, shifted)
            t_cdf = t_cdf + ep * part
        if np.isinf(e[-1]):
            w_cdf[-1] = t_cdf[-1] = 1.0
            waiting = binned_probabilities(w_cdf)
        total = binned_probabilities(t_cdf)
        return DasdPrediction(edges=e, service=service, waiting=waiting, total=total)

    @vectorized
    def little(self, mean_waiting_time: float | None = None, mean_service_time: float | None = None) -> LittleCheck:
        r"""Little's law for the QUEUED requests, with the throughput inferred from utilization.

        Parameters
        ----------
        mean_waiting_time : float, optional
            E[W] to use (e.g. estimated from a measured histogram); default the model's [s].
        mean_service_time : float, optional
            E[S] to use; default the model's [s].

        Returns
        -------
        LittleCheck

        Notes
        -----
        The request rate is not printed by the driver. The subchannel serves one
        request at a time, so its utilization is :math:`U = X\,E[S]` (utilization law,
        Lazowska et al. 1984, §3.2); U is estimated as the fraction of enqueues that
        found a request ahead, :math:`1 - p_0`. Then Little's law
        :math:`L_q = X\,E[W]` (Kleinrock 1975, Sec. 2.1) is compared with the mean
        number ahead at enqueue, :math:`\sum_k k p_k`: with the chanq refilled right
        after each start, an enqueue sees the queue as it stays for one service, so the
        enqueue-time average estimates the time average of the QUEUED count.
        """
        es = self.mean_service_time if mean_service_time is None else float(mean_service_time)
        ew = self.mean_waiting_time if mean_waiting_time is None else float(mean_waiting_time)
        if not (es > 0 and ew >= 0):
            raise ValueError(f"mean_service_time must be positive and mean_waiting_time non-negative, got {es}, {ew}")
        u = float(1.0 - self.ahead_probabilities[0])
        x = u / es
        lq = x * ew
        obs = self.mean_ahead
        return LittleCheck(utilization=u, throughput=x, mean_waiting_time=ew, queue_length_little=lq,
                           queue_length_observed=obs,
                           relative_difference=(lq / obs - 1.0) if obs > 0 else float("nan"))
