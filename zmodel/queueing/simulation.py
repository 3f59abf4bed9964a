"""Seeded discrete-event simulation: the oracle for models without an exact solution.

Takes the same model description as the analytic functions (same parameter names and
units) and returns means with confidence intervals from independent replications
(Student t, ``replications - 1`` degrees of freedom). SimPy is imported inside the
functions, so ``import zmodel`` stays fast. Inputs are scalars (one configuration per
call) except the per-station vectors of :func:`simulate_closed_network`.

Random numbers: ``numpy.random.SeedSequence(seed)`` spawns one independent child per
replication and, inside it, one stream per arrival or service source, so a given seed
reproduces the same result on any machine with the same NumPy.
"""
from __future__ import annotations

import dataclasses
import math
from typing import Any, ClassVar

import numpy as np

from ._result import Result
from zmodel.conventions import as_float_array, as_int_array, as_scalar

__all__ = ["StationSimulationResult", "ClosedNetworkSimulationResult",
           "simulate_station", "simulate_closed_network"]

_DISTRIBUTIONS = ("gamma", "lognormal")
_BLOCK = 4096


class _Variates:
    """Draws from a distribution with a given mean and SCV, a block at a time."""

    def __init__(self, rng: np.random.Generator, mean: float, scv: float, distribution: str):
        self.rng, self.mean, self.scv, self.distribution = rng, mean, scv, distribution
        self.buf = np.empty(0)
        self.i = 0

    def _refill(self) -> None:
        m, v = self.mean, self.scv
        if v == 0:
            self.buf = np.full(_BLOCK, m)
        elif self.distribution == "gamma":
            self.buf = self.rng.gamma(1.0 / v, m * v, _BLOCK)
        else:
            sigma2 = math.log1p(v)
            self.buf = self.rng.lognormal(math.log(m) - sigma2 / 2.0, math.sqrt(sigma2), _BLOCK)
        self.buf = self.buf.tolist()
        self.i = 0

    def __call__(self) -> float:
        if self.i >= len(self.buf):
            self._refill()
        x = self.buf[self.i]
        self.i += 1
        return x


class _Area:
    """Time integral of a piecewise-constant level, counted after ``warmup``."""

    def __init__(self, warmup: float):
        self.warmup, self.last, self.level, self.area = warmup, 0.0, 0.0, 0.0

    def change(self, now: float, delta: float) -> None:
        start = max(self.last, self.warmup)
        if now > start:
            self.area += self.level * (now - start)
        self.last = now
        self.level += delta

    def close(self, now: float) -> float:
        self.change(now, 0.0)
        return self.area


def _check_distribution(name: str, distribution) -> None:
    if distribution not in _DISTRIBUTIONS:
        raise ValueError(f"{name} must be one of {_DISTRIBUTIONS}, got {distribution!r}")


def _check_run(replications, seed, confidence):
    reps = as_int_array("replications", replications, minimum=2)
    if reps.ndim != 0:
        raise ValueError(f"replications must be a scalar, got shape {reps.shape}")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")
    if seed is not None and (not isinstance(seed, (int, np.integer)) or seed < 0):
        raise ValueError(f"seed must be a non-negative integer or None, got {seed!r}")
    return int(reps)


def _summarise(samples: dict[str, np.ndarray], confidence: float) -> dict[str, Any]:
    """Mean and t-based half-width over axis 0 (the replications) for every metric."""
    from scipy.stats import t

    out = {}
    for name, values in samples.items():
        values = np.asarray(values, dtype=float)
        r = values.shape[0]
        mean = values.mean(axis=0)
        half = t.ppf(0.5 + confidence / 2.0, r - 1) * values.std(axis=0, ddof=1) / math.sqrt(r)
        out[name] = float(mean) if mean.ndim == 0 else mean
        out[f"{name}_half_width"] = float(half) if np.ndim(half) == 0 else half
    return out


@dataclasses.dataclass(frozen=True)
class _Interval:
    """Mixin: confidence intervals from ``<metric>`` and ``<metric>_half_width``."""

    def interval(self, metric: str):
        """``(low, high)`` of the confidence interval of ``metric``."""
        mean = np.asarray(getattr(self, metric))
        half = np.asarray(getattr(self, f"{metric}_half_width"))
        low, high = mean - half, mean + half
        return (float(low), float(high)) if low.ndim == 0 else (low, high)

    def contains(self, metric: str, value, widen: float = 1.0):
        """True where ``value`` lies within ``widen`` half-widths of the mean of ``metric``."""
        mean = np.asarray(getattr(self, metric))
        half = np.asarray(getattr(self, f"{metric}_half_width"))
        return bool(np.all(np.abs(np.asarray(value, dtype=float) - mean) <= widen * half))


@dataclasses.dataclass(frozen=True)
class StationSimulationResult(_Interval, Result):
    """Simulated means of one G/G/c(/K) station, each with its CI half-width.

    Metric names follow :class:`~zmodel.queueing.StationResult`; ``<metric>_half_width``
    is the half-width of the ``confidence`` interval over ``replications`` independent
    replications (Student t). Times are per admitted job [s], ``queue_length`` and
    ``queue_waiting`` time averages [1], ``throughput`` [1/s].
    """

    utilization: float
    utilization_half_width: float
    waiting_probability: float
    waiting_probability_half_width: float
    waiting_time: float
    waiting_time_half_width: float
    response_time: float
    response_time_half_width: float
    queue_length: float
    queue_length_half_width: float
    queue_waiting: float
    queue_waiting_half_width: float
    throughput: float
    throughput_half_width: float
    blocking_probability: float
    blocking_probability_half_width: float
    replications: int
    seed: int | None
    confidence: float
    horizon: float
    warmup: float
    arrival_distribution: str
    service_distribution: str


def _station_replication(simpy, ss: np.random.SeedSequence, lam, s, c, ca2, cs2, capacity,
                         distributions, horizon, warmup) -> dict[str, float]:
    arr_ss, svc_ss = ss.spawn(2)
    interarrival = _Variates(np.random.default_rng(arr_ss), 1.0 / lam, ca2, distributions[0])
    service = _Variates(np.random.default_rng(svc_ss), s, cs2, distributions[1])
    env = simpy.Environment()
    server = simpy.Resource(env, capacity=c)
    in_system = _Area(warmup)
    waiting = _Area(warmup)
    st = {"arrivals": 0, "blocked": 0, "admitted": 0, "waited": 0, "done": 0,
          "completions": 0, "sum_wait": 0.0, "sum_response": 0.0}

    def job(env, t0, counted):
        in_system.change(t0, +1)
        waiting.change(t0, +1)
        with server.request() as req:
            yield req
            start = env.now
            waiting.change(start, -1)
            yield env.timeout(service())
        end = env.now
        in_system.change(end, -1)
        if end >= warmup:
            st["completions"] += 1
        if counted:
            st["done"] += 1
            st["sum_wait"] += start - t0
            st["sum_response"] += end - t0
            st["waited"] += start > t0

    def source(env):
        while True:
            yield env.timeout(interarrival())
            now = env.now
            counted = now >= warmup
            st["arrivals"] += counted
            if capacity is not None and in_system.level >= capacity:
                st["blocked"] += counted
                continue
            st["admitted"] += counted
            env.process(job(env, now, counted))

    env.process(source(env))
    env.run(until=horizon)
    span = horizon - warmup
    done = max(st["done"], 1)
    area_system = in_system.close(horizon)
    area_waiting = waiting.close(horizon)
    return {
        # busy servers = jobs present - jobs waiting (FCFS, work-conserving)
        "utilization": (area_system - area_waiting) / (c * span),
        "waiting_probability": st["waited"] / done,
        "waiting_time": st["sum_wait"] / done,
        "response_time": st["sum_response"] / done,
        "queue_length": area_system / span,
        "queue_waiting": area_waiting / span,
        "throughput": st["completions"] / span,
        "blocking_probability": st["blocked"] / max(st["arrivals"], 1),
    }


def simulate_station(arrival_rate, service_time, servers=1, arrival_scv=1.0, service_scv=1.0,
                     capacity=None, *, arrival_distribution: str = "gamma",
                     service_distribution: str = "gamma", replications: int = 10,
                     horizon: float | None = None, warmup: float | None = None,
                     seed: int | None = 0, confidence: float = 0.95) -> StationSimulationResult:
    r"""Simulate a G/G/c (or G/G/c/K) FCFS station and estimate its means with CIs.

    Parameters
    ----------
    arrival_rate : float
        Mean arrival rate :math:`\lambda`, positive [1/s].
    service_time : float
        Mean service time S, positive [s].
    servers : int, default 1
        Number of servers c [1].
    arrival_scv, service_scv : float, default 1
        Squared coefficients of variation of inter-arrival and service times [1];
        0 means deterministic, 1 with the gamma family means exponential.
    capacity : int or None, default None
        Maximum number at the station K (waiting plus in service), K >= c; None for
        an infinite waiting room [1].
    arrival_distribution, service_distribution : {"gamma", "lognormal"}
        Family of the inter-arrival and of the service times, fitted to the mean m
        and SCV :math:`c^2` (gamma: shape :math:`1/c^2`, scale :math:`m c^2`, the
        exponential when :math:`c^2 = 1`; lognormal: :math:`\sigma^2 = \ln(1 + c^2)`,
        :math:`\mu = \ln m - \sigma^2/2`). Any family with :math:`c^2 = 0` is the
        constant m.
    replications : int, default 10
        Independent replications, >= 2 [1].
    horizon : float, optional
        Simulated time per replication [s]; default 20 000 mean inter-arrival times.
    warmup : float, optional
        Initial period discarded from every statistic [s]; default 10 % of horizon.
    seed : int or None, default 0
        Root of the replications' seed sequence; None draws fresh entropy.
    confidence : float, default 0.95
        Confidence level of the reported intervals [1].

    Returns
    -------
    StationSimulationResult
        Means and half-widths of utilization, waiting probability, waiting time,
        response time, queue length (time average), queue waiting, throughput and
        blocking probability.

    Notes
    -----
    Independent replications: the replication means :math:`\bar x_r` give
    :math:`\bar x \pm t_{1-\alpha/2,\,R-1}\, s / \sqrt{R}`. The initial transient
    (empty start) is removed by the warm-up; the residual bias is of the order of
    the relaxation time over the horizon, so keep the horizon long when
    :math:`\rho \to 1`. Job times are taken over jobs arriving after the warm-up and
    completing before the horizon.

    References
    ----------
    .. [1] A. M. Law, *Simulation Modeling and Analysis*, 5th ed., McGraw-Hill 2015,
       Sec. 9.4 (fixed-sample-size procedures, replication/deletion).
    .. [2] SimPy documentation, https://simpy.readthedocs.io (discrete-event engine).

    Examples
    --------
    >>> r = simulate_station(0.5, 1.0, replications=5, horizon=4000.0, seed=1)
    >>> r.contains("response_time", 2.0, widen=3.0)   # M/M/1: R = S / (1 - rho) = 2
    True
    """
    import simpy

    lam = as_scalar("arrival_rate", arrival_rate, positive=True)
    s = as_scalar("service_time", service_time, positive=True)
    c_arr = as_int_array("servers", servers, minimum=1)
    if c_arr.ndim != 0:
        raise ValueError(f"servers must be a scalar, got shape {c_arr.shape}")
    c = int(c_arr)
    ca2 = as_scalar("arrival_scv", arrival_scv)
    cs2 = as_scalar("service_scv", service_scv)
    cap = None
    if capacity is not None:
        cap = int(as_int_array("capacity", capacity, minimum=1))
        if cap < c:
            raise ValueError(f"capacity must be >= servers, got capacity={cap} < servers={c}")
    _check_distribution("arrival_distribution", arrival_distribution)
    _check_distribution("service_distribution", service_distribution)
    reps = _check_run(replications, seed, confidence)
    horizon = float(20_000.0 / lam) if horizon is None else as_scalar("horizon", horizon, positive=True)
    warmup = 0.1 * horizon if warmup is None else as_scalar("warmup", warmup)
    if warmup >= horizon:
        raise ValueError(f"warmup must be shorter than horizon, got warmup={warmup} >= horizon={horizon}")
    children = np.random.SeedSequence(seed).spawn(reps)
    dists = (arrival_distribution, service_distribution)
    rows = [_station_replication(simpy, ss, lam, s, c, ca2, cs2, cap, dists, horizon, warmup)
            for ss in children]
    samples = {k: np.array([row[k] for row in rows]) for k in rows[0]}
    return StationSimulationResult(**_summarise(samples, confidence), replications=reps, seed=seed,
                                   confidence=confidence, horizon=horizon, warmup=warmup,
                                   arrival_distribution=arrival_distribution,
                                   service_distribution=service_distribution)


@dataclasses.dataclass(frozen=True)
class ClosedNetworkSimulationResult(_Interval, Result):
    """Simulated means of a single-class closed network, each with its CI half-width.

    ``throughput`` [1/s] and ``response_time`` [s] (one cycle through the stations,
    think time excluded) are system totals; ``queue_length`` [1] (time average),
    ``utilization`` [1] (per server) and ``residence_time`` [s] (per visit)
    have one entry per station (trailing dimension ``station``).
    """

    trailing_dims: ClassVar[tuple[str, ...]] = ("station",)

    throughput: float
    throughput_half_width: float
    response_time: float
    response_time_half_width: float
    queue_length: np.ndarray
    queue_length_half_width: np.ndarray
    utilization: np.ndarray
    utilization_half_width: np.ndarray
    residence_time: np.ndarray
    residence_time_half_width: np.ndarray
    replications: int
    seed: int | None
    confidence: float
    horizon: float
    warmup: float


def _closed_replication(simpy, ss, demands, population, think_time, servers, horizon, warmup):
    k = len(demands)
    streams = [np.random.default_rng(x) for x in ss.spawn(k + 1)]
    service = [_Variates(streams[i], demands[i], 1.0, "gamma") for i in range(k)]
    think = _Variates(streams[k], think_time, 1.0, "gamma") if think_time > 0 else None
    env = simpy.Environment()
    resources = [simpy.Resource(env, capacity=int(c)) for c in servers]
    present = [_Area(warmup) for _ in range(k)]
    queued = [_Area(warmup) for _ in range(k)]
    st = {"cycles": 0, "counted": 0, "sum_cycle": 0.0}
    visits = np.zeros(k)
    sum_visit = np.zeros(k)

    def customer(env):
        while True:
            if think is not None:
                yield env.timeout(think())
            t_cycle = env.now
            for i in range(k):
                t0 = env.now
                present[i].change(t0, +1)
                queued[i].change(t0, +1)
                with resources[i].request() as req:
                    yield req
                    queued[i].change(env.now, -1)
                    yield env.timeout(service[i]())
                t1 = env.now
                present[i].change(t1, -1)
                if t0 >= warmup:
                    visits[i] += 1
                    sum_visit[i] += t1 - t0
            now = env.now
            if now >= warmup:
                st["cycles"] += 1
            if t_cycle >= warmup:
                st["counted"] += 1
                st["sum_cycle"] += now - t_cycle

    for _ in range(population):
        env.process(customer(env))
    env.run(until=horizon)
    span = horizon - warmup
    area_present = np.array([a.close(horizon) for a in present])
    area_queued = np.array([a.close(horizon) for a in queued])
    return {
        "throughput": st["cycles"] / span,
        "response_time": st["sum_cycle"] / max(st["counted"], 1),
        "queue_length": area_present / span,
        "utilization": (area_present - area_queued) / (np.asarray(servers) * span),
        "residence_time": sum_visit / np.maximum(visits, 1),
    }


def simulate_closed_network(service_demands, population, think_time=0.0, servers=1, *,
                            replications: int = 10, horizon: float | None = None,
                            warmup: float | None = None, seed: int | None = 0,
                            confidence: float = 0.95) -> ClosedNetworkSimulationResult:
    r"""Simulate a single-class closed network of FCFS exponential stations with CIs.

    Each of ``population`` jobs thinks (exponential, mean ``think_time``), then visits
    every station once in order, then thinks again.

    Parameters
    ----------
    service_demands : array_like, shape (stations,)
        Mean service demand per cycle at each station, positive [s]; with one visit
        per cycle it is the mean (exponential) service time.
    population : int
        Number of jobs N, >= 1 [1].
    think_time : float, default 0
        Mean think time Z, >= 0 (0: no think stage) [s].
    servers : int or array_like of int, default 1
        Servers per station, positive integers (a scalar applies to all); delay
        (infinite-server) stations are not simulated -- model them as think time [1].
    replications, horizon, warmup, seed, confidence
        As in :func:`simulate_station`; the default horizon is 5 000 cycles at the
        asymptotic throughput bound :math:`\min(N/(D+Z), \min_k c_k/D_k)`.

    Returns
    -------
    ClosedNetworkSimulationResult
        System throughput and cycle response time; per-station queue length,
        utilization and per-visit response time; all with half-widths.

    Notes
    -----
    With exponential FCFS stations the network is product-form (BCMP), so the mean
    values depend only on the demands, not on the order of the visits, and the
    result estimates the same quantities as exact MVA: :math:`X = N/(R + Z)`,
    :math:`Q_k = X R_k`, :math:`U_k = X D_k / c_k`.

    References
    ----------
    .. [1] E. D. Lazowska, J. Zahorjan, G. S. Graham, K. C. Sevcik, *Quantitative
       System Performance*, Prentice-Hall 1984, Ch. 6 (closed models solved by MVA).
    .. [2] A. M. Law, *Simulation Modeling and Analysis*, 5th ed., McGraw-Hill 2015,
       Sec. 9.4.

    Examples
    --------
    One job, two stations: it is always alone, so R = D1 + D2 exactly.

    >>> r = simulate_closed_network([0.2, 0.3], 1, replications=5, horizon=500.0, seed=2)
    >>> r.contains("response_time", 0.5, widen=3.0)
    True
    """
    import simpy

    d = as_float_array("service_demands", service_demands, positive=True, min_ndim=1)
    if d.ndim != 1:
        raise ValueError(f"service_demands must be one-dimensional (one entry per station), got shape {d.shape}")
    n_arr = as_int_array("population", population, minimum=1)
    if n_arr.ndim != 0:
        raise ValueError(f"population must be a scalar, got shape {n_arr.shape}")
    n = int(n_arr)
    z = as_scalar("think_time", think_time)
    c = as_int_array("servers", servers, minimum=1)
    if c.ndim == 0:
        c = np.full(d.shape, int(c))
    if c.shape != d.shape:
        raise ValueError(f"servers must be a scalar or have one entry per station ({d.size}), got shape {c.shape}")
    reps = _check_run(replications, seed, confidence)
    if horizon is None:
        x_bound = min(n / (d.sum() + z), float(np.min(c / d)))
        horizon = float(5_000.0 / x_bound)
    else:
        horizon = as_scalar("horizon", horizon, positive=True)
    warmup = 0.1 * horizon if warmup is None else as_scalar("warmup", warmup)
    if warmup >= horizon:
        raise ValueError(f"warmup must be shorter than horizon, got warmup={warmup} >= horizon={horizon}")
    children = np.random.SeedSequence(seed).spawn(reps)
    rows = [_closed_replication(simpy, ss, d, n, z, c, horizon, warmup) for ss in children]
    samples = {k: np.array([row[k] for row in rows]) for k in rows[0]}
    return ClosedNetworkSimulationResult(**_summarise(samples, confidence), replications=reps,
                                         seed=seed, confidence=confidence, horizon=horizon,
                                         warmup=warmup)
