r"""Lock contention: spinlocks, ticket-lock collapse, contended atomics, lock-holder preemption.

Four mechanisms, each a small exact model vectorised over the number of CPUs:

* :func:`spinlock` -- N CPUs alternate useful work (mean ``think_time`` Z) and one lock
  acquisition held for ``hold_time`` S: the finite-source queue M/M/1//N, solved exactly
  by :func:`zmodel.queueing.machine_repairman` with one server (the lock).
* :func:`ticket_lock` -- the Markov model of Boyd-Wickizer, Kaashoek, Morris and Zeldovich
  ("Non-scalable locks are dangerous", Proc. Linux Symposium 2012, section 3): the serial
  time grows with the number of waiting cores, ``s + k c``, and throughput collapses.
* :func:`atomic_update` -- a cmpxchg retry loop (or a plain read-modify-write) on one
  cache line: every update needs a cache-line transfer, failed attempts cost transfers too,
  and the transfer latency may grow with the processors involved (Altix seed
  ``003_b2fdde8a1106fead.txt``, "Cache line and TLB Conflicts").
* :func:`spin_waste` -- the lock-side hook for hypervisor models: CPU time burnt per
  contended acquisition as a function of the probability that the lock holder's virtual
  CPU is preempted, for pure spinning or spin-then-yield (DIAG 44 / DIAG 9C; seed
  ``002_3ef25dc9d706703e.txt``, "Avoiding spin locks on System z").

Applications (named constructors): the block-layer locks -- the big kernel lock, the 2.2/2.4
``io_request_lock`` (both readings of its scope: one global lock, as the OSDL deck
``001_37b528ecce68b8bf.txt`` says, or one lock per block major number, as the IBM Systems
Journal paper ``000_bf0694975d199a2d.txt`` says) and the 2.6 per-request-queue locks
(:func:`block_layer_locks`, :func:`big_kernel_lock`, :func:`io_request_lock`,
:func:`request_queue_locks`); the Altix page-fault locks (:func:`anonymous_touch`,
:func:`devzero_faults`), the gettimeofday cmpxchg (:func:`gettimeofday_slowdown`) and the
per-tick global-variable halt (:func:`line_saturation_cpus`).

Conventions. SI units (s, 1/s). A "CPU spinning" is CPU time lost: it waits for a lock or
burns a hand-off; CPUs outside the lock and the lock holder's useful serial work are useful.
All birth-death chains are solved by :func:`zmodel.queueing.finite_source_probabilities`
(log space: ``lgamma``, cumulative sums of logs, shifted by the largest weight and
normalised), so thousands of CPUs are fine.
"""
from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np

from zmodel.queueing._params import param
from zmodel.queueing._result import Result
from zmodel.conventions import as_float_array, as_int_array, as_probability, check_fields, vectorized

__all__ = [
    "LockResult",
    "AtomicUpdateResult",
    "SpinWasteResult",
    "BlockLockResult",
    "FaultResult",
    "spinlock",
    "ticket_lock",
    "ticket_lock_probabilities",
    "ticket_locks",
    "knee_cpus",
    "atomic_update",
    "line_saturation_cpus",
    "spin_waste",
    "block_layer_locks",
    "big_kernel_lock",
    "io_request_lock",
    "request_queue_locks",
    "anonymous_touch",
    "devzero_faults",
    "gettimeofday_slowdown",
    "DASD_MAJOR",
    "IA64_TICK",
    "LockCosts",
    "SpinlockHandoff",
]

#: Block major number of the zSeries DASD driver (Linux ``include/linux/major.h``,
#: ``DASD_MAJOR 94``): every DASD of a zSeries system shares it.
DASD_MAJOR = 94
#: Timer tick of Linux on ia64 (``HZ = 1024``, Linux ``include/asm-ia64/param.h``) [s].
IA64_TICK = 1.0 / 1024.0


@dataclasses.dataclass(frozen=True)
class SpinlockHandoff:
    r"""The per-waiter hand-off of a non-scalable spinlock, declared once for every lock model.

    :func:`ticket_lock`'s ``handoff_time`` c (Boyd-Wickizer et al. 2012, section 3): the
    cache-line transfer that moves the lock to the next acquirer, paid once per CPU at the
    lock. :class:`LockCosts` (the Altix page-fault locks, fitted by
    :mod:`zmodel.fits.kernel_locks`) and :class:`zmodel.kernel.versions.KernelCosts` (the
    locks of a composed system) both nest this class, so the parameter store and every fit
    know one ``spinlock_handoff``. A composed x86 system also lengthens the hold itself with
    each additional CPU at the lock (:data:`zmodel.kernel.versions.HOLD_GROWTH`, measured on
    the 2.4 runqueue lock of an 8-way); this hand-off is the same on every platform.

    Parameters
    ----------
    spinlock_handoff : float
        Hand-off time per CPU at the lock, c of :func:`ticket_lock` [s].

    Examples
    --------
    >>> SpinlockHandoff().spinlock_handoff
    2e-07
    """

    spinlock_handoff: float = param(
        0.2e-6, unit="s", range=(0.0, 1e-3),
        source="assumed: one remote cache-line transfer per waiter, about 200 ns")

    def __post_init__(self):
        check_fields(self)


@dataclasses.dataclass(frozen=True)
class LockCosts:
    r"""Tunable costs of the Altix cache-line and page-fault spinlock models.

    Each field declares its default, unit, plausible range and provenance once
    (:func:`zmodel.queueing._params.param`); :mod:`zmodel.fits.kernel_locks` derives its
    fit parameters from them and maps the fitted values back with ``to_dataclass``. The
    Altix paper (seed ``003_b2fdde8a1106fead.txt``) prints slowdowns, processor counts and
    improvement factors but no time, so the time defaults are orders of magnitude.

    Parameters
    ----------
    transfer_time : float
        Time to move a contended cache line to the next processor (:func:`atomic_update`) [s].
    conflict_probability : float
        Probability that a successful cmpxchg spoils another contender's attempt [1].
    latency_growth : float
        Relative growth of the transfer time per contending processor [1].
    gettimeofday_time : float
        Uncontended ``gettimeofday()`` on Altix [s].
    tick : float
        Timer tick of Linux on ia64, 1/HZ (:data:`IA64_TICK`) [s].
    fault_work : float
        Work of a page fault outside the page-table lock [s].
    handoff : SpinlockHandoff
        Per-waiter hand-off of a spinlock (:func:`ticket_lock`), the ``spinlock_handoff``
        shared with the composed kernel model; :attr:`spinlock_handoff` reads it [s].
    page_table_lock_serial : float
        Critical section of the ``page_table_lock`` on the fault path [s].
    superblock_lock_serial : float
        Critical section of the /dev/zero super-block lock [s].

    Examples
    --------
    >>> c = LockCosts()
    >>> c.tick == IA64_TICK, c.page_table_lock_serial
    (True, 0.0)
    """

    transfer_time: float = param(
        2e-6, unit="s", range=(1e-9, 1e-4),
        source="assumed: a remote cache-line transfer of about a microsecond over a few NUMA routers")
    conflict_probability: float = param(
        0.02, unit="1", range=(0.0, 1.0),
        source="assumed: a cmpxchg rarely loses to a competing update; a probability")
    latency_growth: float = param(
        0.0, unit="1", range=(0.0, 1.0),
        source="assumed: 0, not separable from conflict_probability with the three printed gettimeofday "
               "slowdowns (both make the per-update cost grow linearly with the contenders)")
    gettimeofday_time: float = param(
        1e-6, unit="s", range=(1e-9, 1e-4),
        source="assumed: an uncontended system call of about a microsecond (not printed)")
    tick: float = param(
        IA64_TICK, unit="s", range=(1.0 / 1200.0, 1.0 / 100.0),
        source="Linux include/asm-ia64/param.h: HZ = 1024, so 1/1024 s; range: HZ from 100 to 1200")
    fault_work: float = param(
        10e-6, unit="s", range=(1e-9, 1.0),
        source="assumed: zeroing a 16 KB page plus the fault path, about 10 us; only its ratio to the "
               "hand-off is identifiable (the figures print no times)")
    handoff: SpinlockHandoff = dataclasses.field(default_factory=SpinlockHandoff)
    page_table_lock_serial: float = param(
        0.0, unit="s", range=(0.0, 1.0),
        source="assumed: 0, the page_table_lock critical section is a flag test and a pte store, negligible "
               "beside the hand-off")
    superblock_lock_serial: float = param(
        0.0, unit="s", range=(0.0, 1.0),
        source="assumed: 0, the /dev/zero super-block lock guards two counters, negligible beside the hand-off")

    def __post_init__(self):
        if not isinstance(self.handoff, SpinlockHandoff):
            raise ValueError(f"handoff must be a SpinlockHandoff, got {type(self.handoff).__name__}")
        check_fields(self, fractions=("conflict_probability",), skip=("handoff",))

    @property
    def spinlock_handoff(self) -> float:
        """Hand-off time per CPU at the lock, ``handoff.spinlock_handoff`` [s]."""
        return self.handoff.spinlock_handoff


# --------------------------------------------------------------------------- results
@dataclasses.dataclass(frozen=True)
class LockResult(Result):
    """Mean-value performance of one contended lock (or a set of equal locks).

    Attributes
    ----------
    acquisition_rate : float, ndarray or Series
        Lock acquisitions per second, all CPUs together [1/s].
    utilization : float, ndarray or Series
        Fraction of time the lock is held or being handed off, 0..1 [1].
    wait_time : float, ndarray or Series
        Mean CPU time lost per acquisition: spinning before the acquisition plus any
        hand-off overhead [s].
    queue_length : float, ndarray or Series
        Mean number of CPUs at the lock, spinning or holding it [1].
    spinning_cpus : float, ndarray or Series
        Mean number of CPUs losing time at the lock, ``acquisition_rate * wait_time`` [1].
    spin_fraction : float, ndarray or Series
        Fraction of all CPU time lost at the lock, ``spinning_cpus / cpus`` (0 for 0 CPUs) [1].
    useful_cpus : float, ndarray or Series
        CPUs doing useful work (outside the lock or in the critical section),
        ``cpus - spinning_cpus`` [1].
    parallel_cpus : float, ndarray or Series
        CPUs outside the lock, ``cpus - queue_length``: the "speedup" of Boyd-Wickizer
        et al. (2012) [1].
    model : str
        Which model produced the result.
    """

    acquisition_rate: Any
    utilization: Any
    wait_time: Any
    queue_length: Any
    spinning_cpus: Any
    spin_fraction: Any
    useful_cpus: Any
    parallel_cpus: Any
    model: str = "spinlock"


@dataclasses.dataclass(frozen=True)
class AtomicUpdateResult(Result):
    """Contended atomic updates of one cache line.

    Attributes
    ----------
    update_rate : float, ndarray or Series
        Successful updates per second, all CPUs together [1/s].
    update_time : float, ndarray or Series
        Mean time from wanting to update until the update succeeds [s].
    cycle_time : float, ndarray or Series
        Mean time per operation of one CPU: work plus update, ``cpus / update_rate`` [s].
    attempts_per_update : float, ndarray or Series
        Mean attempts (cache-line transfers) per successful update [1].
    line_utilization : float, ndarray or Series
        Fraction of time the cache line is in transfer, 0..1 [1].
    slowdown : float, ndarray or Series
        ``cycle_time`` relative to the cycle of a single CPU alone [1].
    """

    update_rate: Any
    update_time: Any
    cycle_time: Any
    attempts_per_update: Any
    line_utilization: Any
    slowdown: Any


@dataclasses.dataclass(frozen=True)
class SpinWasteResult(Result):
    """CPU time burnt per contended lock acquisition under a hypervisor.

    Attributes
    ----------
    wasted_time : float, ndarray or Series
        CPU time lost per contended acquisition, spinning plus yield overhead [s].
    spin_time : float, ndarray or Series
        Mean time spent spinning per contended acquisition [s].
    yield_probability : float, ndarray or Series
        Probability that the spin budget runs out and the CPU is given back [1].
    """

    wasted_time: Any
    spin_time: Any
    yield_probability: Any


@dataclasses.dataclass(frozen=True)
class BlockLockResult(Result):
    """Block-layer lock contention of synchronous I/O issued by every CPU.

    Attributes
    ----------
    io_rate : float, ndarray or Series
        I/O requests completed per second [1/s].
    lock_utilization : float, ndarray or Series
        Utilization of the busiest block-layer lock, 0..1 [1].
    lock_wait : float, ndarray or Series
        Mean time a request's CPU spins for a block-layer lock [s].
    spinning_cpus : float, ndarray or Series
        Mean number of CPUs spinning on block-layer locks [1].
    spin_fraction : float, ndarray or Series
        ``spinning_cpus / cpus`` [1].
    disk_utilization : float, ndarray or Series
        Utilization of each disk, 0..1 [1].
    lock_domains : float, ndarray or Series
        Number of independent block-layer locks [1].
    """

    io_rate: Any
    lock_utilization: Any
    lock_wait: Any
    spinning_cpus: Any
    spin_fraction: Any
    disk_utilization: Any
    lock_domains: Any


@dataclasses.dataclass(frozen=True)
class FaultResult(Result):
    """Page-fault throughput behind a lock.

    Attributes
    ----------
    fault_rate : float, ndarray or Series
        Page faults per second of wall-clock time, all CPUs together [1/s].
    total_time : float, ndarray or Series
        Wall-clock time to take ``faults`` faults [s].
    spin_fraction : float, ndarray or Series
        Fraction of CPU time lost at the lock [1].
    """

    fault_rate: Any
    total_time: Any
    spin_fraction: Any


# --------------------------------------------------------------------------- spinlock
@vectorized
def spinlock(cpus, think_time, hold_time) -> LockResult:
    r"""A spinlock shared by N CPUs as a finite-source queue (M/M/1//N), exact.

    Each CPU works outside the lock for an exponential time of mean Z, then acquires the
    lock (spinning while it is held), holds it for an exponential time of mean S, and
    starts again.

    Parameters
    ----------
    cpus : int or array_like of int
        Number of CPUs N contending for the lock, >= 0 [1].
    think_time : float or array_like
        Mean work between acquisitions Z, >= 0 [s].
    hold_time : float or array_like
        Mean lock hold time (critical section) S, positive [s].

    Returns
    -------
    LockResult
        ``model="spinlock"``; ``wait_time`` is the mean spin per acquisition.

    Notes
    -----
    The machine-repairman queue with one server (Kleinrock 1975, Sec. 3.9; Gross et al.
    2008, Sec. 2.7), solved by :func:`zmodel.queueing.machine_repairman`:

    .. math::
        p_n \propto \frac{N!}{(N-n)!}\Big(\frac{S}{Z}\Big)^n,\quad
        X = \frac{1 - p_0}{S},\quad W = \frac{N}{X} - Z - S,

    spinning CPUs :math:`X W`, spin fraction :math:`X W / N`, useful CPUs
    :math:`X (Z + S)`. The lock saturates beyond :math:`N^* = (Z + S)/S`
    (:func:`knee_cpus`). Valid for exponential work and hold times and FCFS (or any
    order-independent) hand-off; the means are insensitive to the think-time
    distribution.

    References
    ----------
    .. [1] L. Kleinrock, *Queueing Systems, Vol. 1: Theory*, Wiley 1975, Sec. 3.9.
    .. [2] D. Gross, J. F. Shortle, J. M. Thompson, C. M. Harris, *Fundamentals of
       Queueing Theory*, 4th ed., Wiley 2008, Sec. 2.7.

    Examples
    --------
    Two CPUs, work 1 s, hold 1 s: states 0, 1, 2 have weights 1, 2, 2, so X = 4/5 and
    each acquisition waits W = 2/X - 2 = 1/2 s.

    >>> r = spinlock(2, 1.0, 1.0)
    >>> round(r.acquisition_rate, 12), round(r.wait_time, 12), round(r.spin_fraction, 12)
    (0.8, 0.5, 0.2)
    """
    from zmodel.queueing import machine_repairman

    n = as_int_array("cpus", cpus, minimum=0).astype(float)
    z = as_float_array("think_time", think_time)
    s = as_float_array("hold_time", hold_time, positive=True)
    n, z, s = np.broadcast_arrays(n, z, s)
    r = machine_repairman(n, z, s, 1)
    x = np.asarray(r.throughput, dtype=float)
    w = np.asarray(r.waiting_time, dtype=float)
    q = np.asarray(r.queue_length, dtype=float)
    spinning = x * w
    with np.errstate(invalid="ignore", divide="ignore"):
        frac = np.where(n > 0, spinning / np.where(n > 0, n, 1.0), 0.0)
    return LockResult(acquisition_rate=x, utilization=np.asarray(r.utilization, float),
                    wait_time=w, queue_length=q, spinning_cpus=spinning, spin_fraction=frac,
                    useful_cpus=n - spinning, parallel_cpus=n - q, model="spinlock")


# --------------------------------------------------------------------------- birth-death core
def _chain(n, think, log_service):
    """Finite-source birth-death chain with state-dependent service, in log space.

    ``n`` (B,), ``think`` (B,), ``log_service`` (B, M) = log of the mean service time in
    states 1..M (M = max n). Returns p (B, M+1) over states 0..M.
    """
    from ..queueing.loaddep import finite_source_probabilities

    # service rate mu(k) = 1 / (mean service time in state k): log mu = -log_service
    return finite_source_probabilities(n, think, -log_service)


def _handoff_inputs(cpus, think_time, serial_time, handoff_time, *more):
    """Checked, broadcast inputs of a hand-off lock: (batch shape, flat float arrays n, a, s, c, *more).

    ``more`` are already-checked arrays (the instances of :func:`ticket_locks`) broadcast along.
    """
    n = as_int_array("cpus", cpus, minimum=0).astype(float)
    a = as_float_array("think_time", think_time)
    s = as_float_array("serial_time", serial_time)
    c = as_float_array("handoff_time", handoff_time)
    n, a, s, c, *more = np.broadcast_arrays(n, a, s, c, *more)
    _check_serial(s, c)
    return n.shape, tuple(v.ravel().astype(float) for v in (n, a, s, c, *more))


def _check_serial(serial, handoff) -> None:
    """The hand-off locks' rule: every serial time + hand-off time positive (else a ValueError)."""
    bad = ~(serial + handoff > 0)
    if bad.any():
        raise ValueError("serial_time + handoff_time must be positive, got "
                         f"{float((serial + handoff)[bad].flat[0])!r}")


@vectorized
def ticket_lock(cpus, think_time, serial_time, handoff_time) -> LockResult:
    r"""Ticket spinlock whose hand-off time grows with the waiters (Boyd-Wickizer et al. 2012).

    Parameters
    ----------
    cpus : int or array_like of int
        Number of cores n, >= 0 [1].
    think_time : float or array_like
        Mean time in the parallel section between acquisitions a, >= 0 [s].
    serial_time : float or array_like
        Mean time in the serial section (critical section) s, >= 0 [s].
    handoff_time : float or array_like
        Extra hand-off time per core at the lock c, >= 0 [s]; ``serial_time +
        handoff_time`` must be positive.

    Returns
    -------
    LockResult
        ``model="ticket"``. ``parallel_cpus`` is the paper's speedup n - C;
        ``wait_time`` counts spinning plus the hand-off overhead k c per acquisition;
        ``utilization`` is 1 - P_0.

    Notes
    -----
    Boyd-Wickizer et al. (2012), section 3 (Markov model): state k = cores holding or
    waiting for the lock; arrival rate :math:`a_k = (n-k)/a`, service rate
    :math:`s_k = 1/(s + k c)`. The steady state is

    .. math::
        P_0 = \Big[\sum_{i=0}^{n} \frac{1}{a^i}\frac{n!}{(n-i)!}
              \prod_{j=1}^{i}(s + j c)\Big]^{-1},\qquad
        P_k = P_0\,\frac{1}{a^k}\frac{n!}{(n-k)!}\prod_{j=1}^{k}(s + j c),

    :math:`C = \sum_k k P_k`, speedup :math:`n - C`, throughput
    :math:`X = \sum_{k\ge1} P_k/(s + k c) = (n - C)/a`. The weights are summed in log
    space (``lgamma``, cumulative sum of :math:`\log(s + jc)`, shifted and normalised;
:func:`zmodel.queueing.finite_source_probabilities`). With
    :math:`c = 0` this is :func:`spinlock` (M/M/1//N). Because the serial time grows
    linearly with the queue, throughput peaks and then falls sharply once waiters
    accumulate (the collapse of the paper's Figures 2-4). Valid for exponential times, as
    in the paper; the measured collapse is sharper than the model's.

    References
    ----------
    .. [1] S. Boyd-Wickizer, M. F. Kaashoek, R. Morris, N. Zeldovich, "Non-scalable locks
       are dangerous", Proc. Linux Symposium, Ottawa 2012, section 3 (Markov model of a
       ticket spin lock).

    Examples
    --------
    Two cores, a = 1, s = 1, c = 1: weights 1, 2*2 = 4, 2*2*3 = 12 (states 0, 1, 2), so
    C = (4 + 24)/17 and the speedup is 2 - 28/17 = 6/17.

    >>> r = ticket_lock(2, 1.0, 1.0, 1.0)
    >>> round(r.parallel_cpus, 12) == round(6 / 17, 12)
    True
    """
    shape, (nf, af, sf, cf) = _handoff_inputs(cpus, think_time, serial_time, handoff_time)
    m = int(nf.max(initial=0))
    j = np.arange(1, m + 1, dtype=float)[None, :]
    with np.errstate(divide="ignore"):
        log_service = np.log(sf[:, None] + j * cf[:, None])
    p = _chain(nf, af, log_service)
    k = np.arange(m + 1, dtype=float)[None, :]
    occupancy = sf[:, None] + k * cf[:, None]
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):   # a subnormal occupancy: X = inf
        x = np.where(k >= 1, p / np.where(occupancy > 0, occupancy, 1.0), 0.0).sum(axis=1)
    q = (k * p).sum(axis=1)
    busy = 1.0 - p[:, 0]
    spinning = q - x * sf
    with np.errstate(invalid="ignore", divide="ignore"):
        w = np.where(x > 0, spinning / np.where(x > 0, x, 1.0), 0.0)
        frac = np.where(nf > 0, spinning / np.where(nf > 0, nf, 1.0), 0.0)
    out = {"acquisition_rate": x, "utilization": busy, "wait_time": w, "queue_length": q,
           "spinning_cpus": spinning, "spin_fraction": frac, "useful_cpus": nf - spinning,
           "parallel_cpus": (np.maximum(nf[:, None] - k, 0.0) * p).sum(axis=1)}  # no cancellation
    out = {key: v.reshape(shape) for key, v in out.items()}
    return LockResult(model="ticket", **out)


@vectorized
def ticket_locks(cpus, think_time, serial_time, handoff_time, instances=1) -> LockResult:
    r"""k equal hand-off spinlocks shared by N CPUs, each acquisition on a uniformly chosen one.

    The partitioned form of :func:`ticket_lock`: the 2.6 block layer's one lock per
    request queue (an I/O goes to one of k disks), or one lock per CPU. Each CPU works
    for a mean ``think_time`` between acquisitions, then takes one of the ``instances``
    locks, chosen uniformly; a lock with j CPUs at it (holding or waiting) hands over
    after a serial time :math:`s + j c` (Boyd-Wickizer et al. 2012, section 3).

    Parameters
    ----------
    cpus : int or array_like of int
        Number of CPUs n, >= 0 [1].
    think_time : float or array_like
        Mean work between two acquisitions (of any instance) a, >= 0 [s].
    serial_time : float or array_like
        Critical section s, >= 0 [s].
    handoff_time : float or array_like
        Hand-off per CPU at the lock c, >= 0 [s]; s + c must be positive.
    instances : int or array_like of int, default 1
        Number of equal locks k, >= 1 [1].

    Returns
    -------
    LockResult
        ``model="ticket"``; ``acquisition_rate`` over all instances, ``utilization`` of
        one instance (1 - its P_0), ``queue_length`` and ``spinning_cpus`` over all.

    Notes
    -----
    The CPUs are the jobs of a closed product-form network: a delay (the work, mean a)
    and k identical stations with state-dependent service time :math:`s + j c`, visited
    with probability 1/k each; solved exactly by
    :func:`zmodel.queueing.loaddep.split_finite_source` (convolution in log space). The
    CPUs losing time are :math:`Q - X s`: spinning plus the hand-offs, as in
    :func:`ticket_lock`, which is the case k = 1. A CPU waits at one lock at a time, so
    the k locks share the n CPUs (at most n spin, whatever k). Valid for exponential
    times and a uniform choice of the instance.

    References
    ----------
    .. [1] S. Boyd-Wickizer, M. F. Kaashoek, R. Morris, N. Zeldovich, "Non-scalable locks
       are dangerous", Proc. Linux Symposium, Ottawa 2012, section 3.
    .. [2] J. P. Buzen, "Computational algorithms for closed queueing networks with
       exponential servers", Comm. ACM 16(9), 1973, pp. 527-531.

    Examples
    --------
    Two CPUs, a = 1, s = 1, c = 0, two locks: exact MVA of a delay and two queues of
    demand 1/2 gives X = 8/9, Q = 10/9, so the CPUs spinning are Q - X s = 2/9.

    >>> r = ticket_locks(2, 1.0, 1.0, 0.0, instances=2)
    >>> round(r.spinning_cpus, 12) == round(2 / 9, 12)
    True
    """
    shape, (nf, af, sf, cf, kf) = _handoff_inputs(cpus, think_time, serial_time, handoff_time,
                                                  as_int_array("instances", instances, minimum=1))
    out = {key: v.reshape(shape) for key, v in _ticket_locks(nf, af, sf, cf, kf).items()}
    return LockResult(model="ticket", **out)


def _ticket_locks(nf, af, sf, cf, kf) -> dict:
    """The fields of :func:`ticket_locks` from checked flat float arrays (CPUs, think, serial,
    hand-off, instances; every serial + hand-off positive): the composition's fast path."""
    from ..queueing.loaddep import _split_finite_source

    m = int(nf.max(initial=0))
    j = np.arange(1, max(m, 1) + 1, dtype=float)[None, :]
    log_service = np.log(sf[:, None] + j * cf[:, None])
    r = _split_finite_source(nf, af, log_service, kf)
    x, q, busy = r.throughput, r.queue_length, r.utilization
    spinning = np.maximum(q - x * sf, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        w = np.where(x > 0, spinning / np.where(x > 0, x, 1.0), 0.0)
        frac = np.where(nf > 0, spinning / np.where(nf > 0, nf, 1.0), 0.0)
    return {"acquisition_rate": x, "utilization": busy, "wait_time": w, "queue_length": q,
            "spinning_cpus": spinning, "spin_fraction": frac, "useful_cpus": nf - spinning,
            "parallel_cpus": nf - q}


@vectorized
def ticket_lock_probabilities(cpus: int, think_time: float, serial_time: float,
                              handoff_time: float) -> np.ndarray:
    r"""Steady-state probabilities P_0..P_n of the ticket-lock chain (one configuration).

    Parameters
    ----------
    cpus : int
        Number of cores n, >= 0 [1].
    think_time : float
        Mean parallel-section time a, >= 0 [s].
    serial_time : float
        Mean serial-section time s, >= 0 [s].
    handoff_time : float
        Hand-off time per core at the lock c, >= 0 [s].

    Returns
    -------
    ndarray
        Shape (n + 1,), summing to 1 [1].

    Notes
    -----
    The :math:`P_k` of :func:`ticket_lock` (Boyd-Wickizer et al. 2012, section 3).

    Examples
    --------
    >>> [round(float(v) * 17, 12) for v in ticket_lock_probabilities(2, 1.0, 1.0, 1.0)]
    [1.0, 4.0, 12.0]
    """
    n = int(as_int_array("cpus", cpus, minimum=0))
    a = float(as_float_array("think_time", think_time))
    s = float(as_float_array("serial_time", serial_time))
    c = float(as_float_array("handoff_time", handoff_time))
    if not s + c > 0:
        raise ValueError(f"serial_time + handoff_time must be positive, got {s + c!r}")
    j = np.arange(1, n + 1, dtype=float)[None, :]
    return _chain(np.array([float(n)]), np.array([a]), np.log(s + j * c))[0]


@vectorized
def knee_cpus(think_time, serial_time, handoff_time=0.0):
    r"""CPU count where the light-load and heavy-load asymptotes of a lock cross.

    Parameters
    ----------
    think_time : float or array_like
        Mean work between acquisitions Z, >= 0 [s].
    serial_time : float or array_like
        Mean critical-section time s, >= 0 [s].
    handoff_time : float or array_like, default 0
        Hand-off time per CPU at the lock c, >= 0 [s]; s + c must be positive.

    Returns
    -------
    float, ndarray or Series
        :math:`N^*` [1] (a real number).

    Notes
    -----
    Light load: :math:`X = N/(Z + s + c)` (one CPU at the lock, state 1); heavy load:
    :math:`X = 1/(s + N c)` (all N at the lock, :func:`ticket_lock`). They cross where
    :math:`c N^2 + s N - (Z + s + c) = 0`, evaluated in the cancellation-free form

    .. math:: N^* = \frac{2 (Z + s + c)}{s + \sqrt{s^2 + 4 c (Z + s + c)}},

    which for :math:`c = 0` is the saturation point :math:`N^* = (Z + s)/s` of
    Lazowska et al. (1984), Sec. 5.3 (:math:`N^* = (D + Z)/D_{max}`).

    References
    ----------
    .. [1] E. D. Lazowska, J. Zahorjan, G. S. Graham, K. C. Sevcik, *Quantitative System
       Performance*, Prentice-Hall 1984, Sec. 5.3 (asymptotic bounds, N*).
    .. [2] S. Boyd-Wickizer et al., "Non-scalable locks are dangerous", Linux Symposium
       2012, section 3.

    Examples
    --------
    >>> knee_cpus(15.0, 1.0)
    16.0
    """
    z = as_float_array("think_time", think_time)
    s = as_float_array("serial_time", serial_time)
    c = as_float_array("handoff_time", handoff_time)
    z, s, c = np.broadcast_arrays(z, s, c)
    if (~(s + c > 0)).any():
        raise ValueError(f"serial_time + handoff_time must be positive, got {float((s + c)[~(s + c > 0)].flat[0])!r}")
    total = z + s + c
    return 2.0 * total / (s + np.sqrt(s * s + 4.0 * c * total))


# --------------------------------------------------------------------------- atomics
@vectorized
def atomic_update(cpus, think_time, transfer_time, conflict_probability=1.0,
                  latency_growth=0.0, hit_time=0.0) -> AtomicUpdateResult:
    r"""Contended atomic updates (cmpxchg retry loops) of one cache line, exact chain.

    Each of N CPUs works for a mean ``think_time`` Z, then updates a shared word. With one
    CPU the line stays in its cache and an update costs ``hit_time``. With N >= 2 every
    successful update migrates the line; when j CPUs contend, a success costs

    .. math:: D_j = t_x\,\big(1 + g\,(j-1)\big)\,\big(1 + q\,(j-1)\big),

    a transfer latency that grows by g per extra processor involved, times the expected
    attempts per success: each success spoils the in-flight attempt of each other
    contender with probability q (cmpxchg), each spoiled attempt costing one more transfer.
    A plain store or fetch-and-add never retries (q = 0).

    Parameters
    ----------
    cpus : int or array_like of int
        Number of CPUs N updating the word, >= 0 [1].
    think_time : float or array_like
        Mean work between updates Z, positive [s].
    transfer_time : float or array_like
        Cache-line transfer time t_x of an uncontended migration, positive [s].
    conflict_probability : float or array_like, default 1
        Probability q that a success spoils another contender's attempt, in [0, 1] [1].
    latency_growth : float or array_like, default 0
        Relative growth g of the transfer latency per extra processor involved, >= 0 [1].
    hit_time : float or array_like, default 0
        Cost of an update whose line is already in the local cache (N = 1), >= 0 [s].

    Returns
    -------
    AtomicUpdateResult
        ``slowdown`` is the time per operation relative to one CPU alone,
        :math:`(Z + R)/(Z + h)`.

    Notes
    -----
    A finite-source birth-death chain (Kleinrock 1975, Sec. 3.9, with state-dependent
    service): :math:`p_j \propto \frac{N!}{(N-j)!} Z^{-j} \prod_{i=1}^{j} D_i`,
    :math:`X = \sum_j p_j / D_j`, :math:`R = \sum_j j p_j / X`. Mean attempts per
    success are :math:`\sum_j (p_j/D_j)(1 + q(j-1)) / X`. The Altix paper (seed 003,
    "Cache line and TLB Conflicts") states that the time to resolve a cache-line conflict
    "is typically proportional to the number of processors involved" -- here the j
    serial transfers a conflict among j processors needs (g = 0), or in addition a
    per-transfer latency growth (g > 0) -- and that concurrent cmpxchg "scale worse than
    concurrent simple writes" (q > 0 against q = 0). Valid for exponential work and
    line-occupancy times; transfers are served one at a time.

    References
    ----------
    .. [1] L. Kleinrock, *Queueing Systems, Vol. 1: Theory*, Wiley 1975, Sec. 3.9.
    .. [2] J. Hawkes et al. (SGI), "Linux Scalability for Large NUMA Systems / Scaling
       Linux to the Extreme" (seed ``003_b2fdde8a1106fead.txt``), "Cache line and TLB
       Conflicts".

    Examples
    --------
    Two CPUs, Z = 1, t_x = 1, q = 0: states 0, 1, 2 have weights 1, 2, 2, X = 4/5, so
    each CPU's cycle is 2/X = 2.5 against 1 alone.

    >>> round(atomic_update(2, 1.0, 1.0, 0.0).slowdown, 12)
    2.5
    """
    n = as_int_array("cpus", cpus, minimum=0).astype(float)
    z = as_float_array("think_time", think_time, positive=True)
    tx = as_float_array("transfer_time", transfer_time, positive=True)
    q = as_probability("conflict_probability", conflict_probability)
    g = as_float_array("latency_growth", latency_growth)
    h = as_float_array("hit_time", hit_time)
    n, z, tx, q, g, h = np.broadcast_arrays(n, z, tx, q, g, h)
    shape = n.shape
    nf, zf, tf, qf, gf, hf = (v.ravel().astype(float) for v in (n, z, tx, q, g, h))
    m = int(nf.max(initial=0))
    j = np.arange(1, m + 1, dtype=float)[None, :]
    log_service = (np.log(tf)[:, None] + np.log1p(gf[:, None] * (j - 1))
                   + np.log1p(qf[:, None] * (j - 1)))
    p = _chain(nf, zf, log_service)
    k = np.arange(m + 1, dtype=float)[None, :]
    service = np.exp(np.concatenate([np.zeros((len(nf), 1)), log_service], axis=1))
    rate_k = np.where(k >= 1, p / service, 0.0)
    x = rate_k.sum(axis=1)
    qlen = (k * p).sum(axis=1)
    attempts_k = 1.0 + qf[:, None] * np.maximum(k - 1, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        attempts = np.where(x > 0, (rate_k * attempts_k).sum(axis=1) / np.where(x > 0, x, 1.0), 0.0)
        r = np.where(x > 0, qlen / np.where(x > 0, x, 1.0), 0.0)
    busy = 1.0 - p[:, 0]
    single = nf == 1
    # one CPU: the line never leaves its cache
    x = np.where(single, 1.0 / (zf + hf), x)
    r = np.where(single, hf, r)
    attempts = np.where(single, 1.0, attempts)
    busy = np.where(single, hf / (zf + hf), busy)
    cycle = np.where(nf > 0, zf + r, 0.0)
    out = {"update_rate": x, "update_time": r, "cycle_time": cycle, "attempts_per_update": attempts,
           "line_utilization": busy, "slowdown": np.where(nf > 0, cycle / (zf + hf), 0.0)}
    out = {key: v.reshape(shape) for key, v in out.items()}
    return AtomicUpdateResult(**out)


@vectorized
def line_saturation_cpus(transfer_time, period, conflict_probability=0.0, latency_growth=0.0):
    r"""Processor count at which one update per CPU per period saturates a cache line.

    When every CPU updates the same word once per ``period`` (a global variable updated at
    each timer tick), the line is busy :math:`N D_N` per period; at :math:`N D_N = T` the
    updates alone fill the period and forward progress stops (Altix seed 003, "Cache line
    and TLB Conflicts": the profiler bin and the Red Hat AS 3.0 timer variable).

    Parameters
    ----------
    transfer_time : float or array_like
        Cache-line transfer time t_x, positive [s].
    period : float or array_like
        Update period per CPU T, e.g. the timer tick :data:`IA64_TICK`, positive [s].
    conflict_probability : float or array_like, default 0
        q of :func:`atomic_update` (0 for a plain store or fetch-and-add) [1].
    latency_growth : float or array_like, default 0
        g of :func:`atomic_update`, >= 0 [1].

    Returns
    -------
    float, ndarray or Series
        The real root :math:`N \ge 1` of :math:`N D_N = T` (1 when :math:`t_x \ge T`) [1].

    Notes
    -----
    :math:`N t_x (1 + g(N-1))(1 + q(N-1)) = T`, increasing in N. For g = 0 the quadratic
    :math:`q t_x N^2 + (1-q) t_x N - T = 0` gives
    :math:`N = 2T / \big((1-q)t_x + \sqrt{(1-q)^2 t_x^2 + 4 q t_x T}\big)`; otherwise the
    root is bracketed and bisected in log space (80 steps).

    Examples
    --------
    >>> round(line_saturation_cpus(1e-6, 384e-6), 9)
    384.0
    """
    tx = as_float_array("transfer_time", transfer_time, positive=True)
    t = as_float_array("period", period, positive=True)
    q = as_probability("conflict_probability", conflict_probability)
    g = as_float_array("latency_growth", latency_growth)
    tx, t, q, g = np.broadcast_arrays(tx, t, q, g)
    b = (1.0 - q) * tx
    quad = 2.0 * t / (b + np.sqrt(b * b + 4.0 * q * tx * t))

    def f(n):
        return n * tx * (1.0 + g * (n - 1.0)) * (1.0 + q * (n - 1.0)) - t

    lo = np.ones_like(tx)
    hi = np.maximum(quad, 1.0) + 1.0
    log_lo, log_hi = np.log(lo), np.log(hi)
    for _ in range(80):
        mid = 0.5 * (log_lo + log_hi)
        above = f(np.exp(mid)) >= 0
        log_hi = np.where(above, mid, log_hi)
        log_lo = np.where(above, log_lo, mid)
    root = np.exp(0.5 * (log_lo + log_hi))
    out = np.where(g == 0, np.maximum(quad, 1.0), np.where(f(lo) >= 0, 1.0, root))
    return out


# --------------------------------------------------------------------------- hypervisor hook
@vectorized
def spin_waste(preemption_probability, hold_wait, preemption_delay, spin_limit=math.inf,
               yield_cost=0.0) -> SpinWasteResult:
    r"""CPU time a waiter burns per contended acquisition when the holder may be preempted.

    A waiter finds the lock held. With probability ``1 - p`` the holder's (virtual) CPU is
    running and the lock is released after an exponential time of mean ``hold_wait``; with
    probability ``p`` the holder's CPU has been preempted by the hypervisor and the lock is
    released after an exponential time of mean ``preemption_delay``. The waiter spins up
    to ``spin_limit`` (``math.inf``: spin until release, the non-z behaviour; a finite
    budget: Linux's ``spin_retry`` count times the loop time), then gives the CPU back to
    the hypervisor (DIAG 44, or DIAG 9C directed at the holder) at a cost ``yield_cost``.

    Parameters
    ----------
    preemption_probability : float or array_like
        Probability p that the lock holder's CPU is not dispatched, in [0, 1] [1].
    hold_wait : float or array_like
        Mean remaining wait when the holder runs, >= 0 [s].
    preemption_delay : float or array_like
        Mean time until release when the holder is preempted, >= 0 [s].
    spin_limit : float or array_like, default inf
        Spin budget b before yielding, > 0 (``inf``: never yield) [s].
    yield_cost : float or array_like, default 0
        CPU cost of one yield to the hypervisor (the diagnose intercept), >= 0 [s].

    Returns
    -------
    SpinWasteResult
        ``wasted_time = spin_time + yield_probability * yield_cost``.

    Notes
    -----
    For an exponential wait :math:`X` of mean m, :math:`E[\min(X, b)] = m(1 - e^{-b/m})`
    and :math:`P(X > b) = e^{-b/m}` (Ross, *Introduction to Probability Models*, 10th
    ed., Academic Press 2010, Sec. 5.2.1, memorylessness). Hence

    .. math::
        \text{spin} = (1-p)\,m_r(1 - e^{-b/m_r}) + p\,m_p(1 - e^{-b/m_p}),\quad
        P_{yield} = (1-p) e^{-b/m_r} + p\,e^{-b/m_p},

    computed with ``-m * expm1(-b/m)``. With :math:`b = \infty` the waste is
    :math:`(1-p) m_r + p\,m_p`, linear in p: the time a preempted holder makes its
    spinners burn. Which hypervisor instruction yields, and what the yielded time is
    worth to other guests, is the hypervisor model's business.

    References
    ----------
    .. [1] WAVV 2008 deck (seed ``002_3ef25dc9d706703e.txt``), "SLES / RHEL improved
       resource usage" and "Avoiding spin locks on System z" (DIAG 44, spin_retry,
       DIAG 9C).

    Examples
    --------
    >>> r = spin_waste(0.1, 1e-6, 1e-3)      # spin until release
    >>> round(r.wasted_time * 1e6, 9)        # 0.9 * 1 us + 0.1 * 1000 us
    100.9
    """
    p = as_probability("preemption_probability", preemption_probability)
    mr = as_float_array("hold_wait", hold_wait)
    mp = as_float_array("preemption_delay", preemption_delay)
    b = as_float_array("spin_limit", spin_limit, positive=True, allow_inf=True)
    y = as_float_array("yield_cost", yield_cost)
    p, mr, mp, b, y = np.broadcast_arrays(p, mr, mp, b, y)

    def truncated(m):
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where(m > 0, b / np.where(m > 0, m, 1.0), np.inf)
            mean = np.where(m > 0, -m * np.expm1(-ratio), 0.0)
            tail = np.where(m > 0, np.exp(-ratio), 0.0)
        return mean, tail

    sr, tr = truncated(mr)
    sp, tp = truncated(mp)
    spin = (1 - p) * sr + p * sp
    yp = (1 - p) * tr + p * tp
    return SpinWasteResult(wasted_time=spin + yp * y, spin_time=spin,
                    yield_probability=yp)


# --------------------------------------------------------------------------- block layer
@vectorized
def block_layer_locks(cpus, disks, lock_domains, think_time, hold_time, disk_time,
                      streams_per_cpu=1) -> BlockLockResult:
    r"""Block-layer lock contention for a chosen lock scope, by exact MVA.

    ``cpus * streams_per_cpu`` processes each run one synchronous I/O stream: compute on
    one of ``cpus`` CPUs for a mean ``think_time``, take the block-layer lock of the
    target disk for ``hold_time`` (request setup, elevator insertion and, in 2.4, the
    driver's request function; spinning while another CPU holds it), then sleep while the
    disk serves the request. Requests spread evenly over ``disks`` disks, which are split
    as evenly as possible into ``lock_domains`` groups, each with its own lock: 1 = one
    global lock (the big kernel lock before 2.2; ``io_request_lock`` per the OSDL deck);
    the number of majors (``io_request_lock`` per major number, the IBM Systems Journal
    reading); ``disks`` = one lock per request queue (2.6).

    Parameters
    ----------
    cpus : int or array_like of int
        Number of CPUs, >= 0 [1].
    disks : int
        Number of disks, >= 1 [1].
    lock_domains : int
        Number of independent locks, 1 <= lock_domains <= disks [1].
    think_time : float or array_like
        Mean CPU work per I/O request, >= 0 [s].
    hold_time : float
        Mean lock hold time per request, positive [s].
    disk_time : float
        Mean disk service time per request, >= 0 [s].
    streams_per_cpu : int, default 1
        Synchronous I/O streams (processes) per CPU, >= 1 [1].

    Returns
    -------
    BlockLockResult

    Notes
    -----
    A closed separable network -- a ``cpus``-server CPU station with demand Z,
    ``lock_domains`` lock queues with demands :math:`S\,d_m/D` (:math:`d_m` disks in
    domain m), ``disks`` disk queues with demands :math:`T/D` -- solved by exact MVA
    (:func:`zmodel.queueing.mva`, multi-server stations exact; Lazowska et al. 1984,
    Sec. 6.4, Algorithm 6.1). The spin per request is :math:`\sum_m (R_m - S d_m/D)`;
    spinning CPUs :math:`X \times` spin (at most ``cpus``). Valid for exponential, FCFS
    lock hand-off and disks; approximation: a spinning process is modelled as waiting in
    the lock queue, not as occupying its CPU.

    References
    ----------
    .. [1] E. D. Lazowska et al., *Quantitative System Performance*, Prentice-Hall 1984,
       Sec. 6.4.
    .. [2] C. Bornträger, M. Schwidefsky, IBM Systems Journal (seed
       ``000_bf0694975d199a2d.txt``), section "I/O"; OSDL deck (seed
       ``001_37b528ecce68b8bf.txt``), "Locking I/O Request".

    Examples
    --------
    One CPU with one stream cannot contend: the lock wait is zero.

    >>> block_layer_locks(1, 4, 1, 1e-4, 1e-5, 1e-3).lock_wait
    0.0
    """
    from zmodel.queueing import mva

    n = as_int_array("cpus", cpus, minimum=0)
    d = int(as_int_array("disks", disks, minimum=1))
    lk = int(as_int_array("lock_domains", lock_domains, minimum=1))
    if lk > d:
        raise ValueError(f"lock_domains must not exceed disks ({d}), got {lk}")
    z = as_float_array("think_time", think_time)
    s = float(as_float_array("hold_time", hold_time, positive=True))
    t = float(as_float_array("disk_time", disk_time))
    k = int(as_int_array("streams_per_cpu", streams_per_cpu, minimum=1))
    n, z = np.broadcast_arrays(n, z)
    shape = n.shape
    sizes = np.full(lk, d // lk, dtype=float)
    sizes[: d % lk] += 1
    lock_d = s * sizes / d
    disk_d = np.full(d, t / d) if t > 0 else np.zeros(0)
    out = {key: np.zeros(n.size) for key in ("io_rate", "lock_utilization", "lock_wait", "disk_utilization")}
    for i, (cpu, work) in enumerate(zip(n.ravel(), z.ravel())):
        if cpu == 0:
            continue
        demands = np.concatenate([[work], lock_d, disk_d])
        r = mva(demands, int(cpu) * k, 0.0, servers=[float(cpu)] + [1.0] * (lk + len(disk_d)))
        res = np.asarray(r.residence_time, dtype=float)
        util = np.asarray(r.utilization, dtype=float)
        out["io_rate"][i] = float(r.throughput)
        out["lock_utilization"][i] = util[1:1 + lk].max()
        out["lock_wait"][i] = max(float((res[1:1 + lk] - lock_d).sum()), 0.0)
        out["disk_utilization"][i] = util[1 + lk] if t > 0 else 0.0
    out = {key: v.reshape(shape) for key, v in out.items()}
    nf = n.astype(float)
    spinning = np.minimum(out["io_rate"] * out["lock_wait"], nf)
    frac = np.where(nf > 0, spinning / np.where(nf > 0, nf, 1.0), 0.0)
    return BlockLockResult(spinning_cpus=spinning, spin_fraction=frac,
                    lock_domains=np.full(shape, float(lk)), **out)


@vectorized
def big_kernel_lock(cpus, disks, think_time, hold_time, disk_time, streams_per_cpu=1) -> BlockLockResult:
    r"""I/O under the big kernel lock (Linux before 2.2): one global lock.

    :func:`block_layer_locks` with ``lock_domains=1``; ``hold_time`` is the whole time
    the I/O path holds the BKL [s]. Parameters as there (``cpus`` [1], ``disks`` [1],
    ``think_time`` [s], ``hold_time`` [s], ``disk_time`` [s], ``streams_per_cpu`` [1]).

    Returns
    -------
    BlockLockResult

    Notes
    -----
    IBM Systems Journal (seed 000), section "I/O": "In versions prior to Linux 2.2, I/O
    operations were protected by the 'big kernel lock.' ... This global locking created a
    huge scalability problem". The lock caps the I/O rate at :math:`1/S`.

    Examples
    --------
    >>> r = big_kernel_lock(64, 64, 1e-4, 1e-4, 1e-3)
    >>> r.io_rate <= 1e4
    True
    """
    return block_layer_locks(cpus, disks, 1, think_time, hold_time, disk_time, streams_per_cpu)


@vectorized
def io_request_lock(cpus, disks, think_time, hold_time, disk_time, scope="global",
                    majors=1, streams_per_cpu=1) -> BlockLockResult:
    r"""The Linux 2.2/2.4 ``io_request_lock``, under either reading of its scope.

    Parameters
    ----------
    cpus : int or array_like of int
        CPUs issuing I/O [1].
    disks : int
        Number of disks [1].
    think_time : float or array_like
        CPU work between requests [s].
    hold_time : float
        Lock hold time per request [s].
    disk_time : float
        Disk service time per request [s].
    scope : {"global", "per_major"}
        ``"global"``: one lock for the whole block subsystem (OSDL deck, seed 001: "Linux
        2.4 used a single io_request_lock spinlock for the entire block device
        subsystem"; mainline 2.4). ``"per_major"``: one lock per block major number (IBM
        Systems Journal, seed 000: "protected all I/O data structures by major number").
    majors : int, default 1
        Number of block major numbers the disks are spread over (``"per_major"`` only);
        all zSeries DASDs share major :data:`DASD_MAJOR` [1].
    streams_per_cpu : int, default 1
        Synchronous I/O streams per CPU [1].

    Returns
    -------
    BlockLockResult

    Notes
    -----
    :func:`block_layer_locks` with ``lock_domains = 1`` (global) or ``majors``. With one
    major (a DASD-only zSeries) the two readings coincide.

    Examples
    --------
    >>> a = io_request_lock(8, 16, 1e-4, 2e-5, 1e-3, scope="per_major", majors=1)
    >>> b = io_request_lock(8, 16, 1e-4, 2e-5, 1e-3, scope="global")
    >>> a.io_rate == b.io_rate
    True
    """
    if scope == "global":
        domains = 1
    elif scope == "per_major":
        domains = majors
    else:
        raise ValueError(f"scope must be 'global' or 'per_major', got {scope!r}")
    return block_layer_locks(cpus, disks, domains, think_time, hold_time, disk_time, streams_per_cpu)


@vectorized
def request_queue_locks(cpus, disks, think_time, hold_time, disk_time, streams_per_cpu=1) -> BlockLockResult:
    r"""Linux 2.6 block layer: one lock per request queue (per disk).

    :func:`block_layer_locks` with ``lock_domains = disks``. Parameters as there
    (``cpus`` [1], ``disks`` [1], ``think_time`` [s], ``hold_time`` [s], ``disk_time`` [s],
    ``streams_per_cpu`` [1]).

    Returns
    -------
    BlockLockResult

    Notes
    -----
    IBM Systems Journal (seed 000), section "I/O": "we now have one lock per request
    queue. Several queues can be processed at the same time on different processors";
    OSDL deck (seed 001): "a separate lock for each individual device queue".

    Examples
    --------
    >>> r = request_queue_locks(8, 16, 1e-4, 2e-5, 1e-3)
    >>> int(r.lock_domains)
    16
    """
    d = int(as_int_array("disks", disks, minimum=1))
    return block_layer_locks(cpus, d, d, think_time, hold_time, disk_time, streams_per_cpu)


# --------------------------------------------------------------------------- Altix applications
@vectorized
def anonymous_touch(cpus, faults, fault_work, lock_serial_time=0.0, lock_handoff_time=0.0) -> FaultResult:
    r"""Time for N threads of one address space to first-touch memory (anonymous faults).

    Every minor fault does ``fault_work`` outside the lock (allocate and zero the page)
    and, in baseline Linux 2.4.21, takes the address space's ``page_table_lock``
    (critical section ``lock_serial_time``, hand-off ``lock_handoff_time`` per waiting
    CPU). Linux for Altix removed the lock from this path: pass both lock times as 0.

    Parameters
    ----------
    cpus : int or array_like of int
        Threads (one per CPU) touching the data, >= 1 [1].
    faults : float
        Number of page faults, e.g. 96 GB / 16 KB pages, positive [1].
    fault_work : float or array_like
        Mean fault work outside the lock, positive [s].
    lock_serial_time : float or array_like, default 0
        Mean page_table_lock critical section, >= 0 [s].
    lock_handoff_time : float or array_like, default 0
        Lock hand-off time per CPU at the lock, >= 0 [s].

    Returns
    -------
    FaultResult
        ``total_time`` = faults / fault rate.

    Notes
    -----
    The lock is :func:`ticket_lock` (M/M/1//N when the hand-off is 0); without a lock
    the rate is :math:`N/Z`. Altix seed 003, section "VM and Memory Allocation Fixes",
    Figure 1 ("Time to initially touch 96 GB of data"): the time falls "until around 16
    processors. At that point the page_table_lock starts to become a significant
    bottleneck". The later rise of the Linux-for-Altix curve (``mmap_sem``) is not part
    of this function.

    Examples
    --------
    >>> anonymous_touch(4, 1000, 1e-3).total_time   # no lock: 1000 faults x 1 ms / 4
    0.25
    """
    n = as_int_array("cpus", cpus, minimum=1)
    f = float(as_float_array("faults", faults, positive=True))
    z = as_float_array("fault_work", fault_work, positive=True)
    s = as_float_array("lock_serial_time", lock_serial_time)
    c = as_float_array("lock_handoff_time", lock_handoff_time)
    n, z, s, c = np.broadcast_arrays(n, z, s, c)
    locked = (s + c) > 0
    if locked.any():
        r = ticket_lock(n, z, np.where(locked, s, 1.0), c)
        x = np.where(locked, np.asarray(r.acquisition_rate, float), n / z)
        frac = np.where(locked, np.asarray(r.spin_fraction, float), 0.0)
    else:
        x = n / z
        frac = np.zeros_like(x)
    return FaultResult(fault_rate=x, total_time=f / x, spin_fraction=frac)


@vectorized
def devzero_faults(cpus, fault_work, lock_serial_time=0.0, lock_handoff_time=0.0) -> FaultResult:
    r"""Page faults per second of N processes faulting private ``/dev/zero`` mappings.

    Each process has its own mapping (no shared page_table_lock), but baseline 2.4 and 2.6
    take one lock in the ``/dev/zero`` super block on every fault; Linux for Altix removed
    it (pass both lock times as 0).

    Parameters
    ----------
    cpus : int or array_like of int
        Processes (= CPUs), >= 1 [1].
    fault_work : float or array_like
        Mean fault work outside the lock, positive [s].
    lock_serial_time : float or array_like, default 0
        Super-block lock critical section, >= 0 [s].
    lock_handoff_time : float or array_like, default 0
        Lock hand-off time per CPU at the lock, >= 0 [s].

    Returns
    -------
    FaultResult
        ``total_time`` is the time per fault of the whole system, 1 / fault rate.

    Notes
    -----
    :func:`anonymous_touch` with one fault. Altix seed 003, Figure 2 ("Page Faults per
    Second of Wall Clock Time"): "at 512 CPUs the improvement was in excess of 800x" --
    more than the CPU count, so the locked rate at 512 CPUs is below the single-CPU rate:
    the lock collapses (hand-off growing with the waiters), which a constant hold time
    shorter than the fault work cannot produce.

    Examples
    --------
    >>> devzero_faults(2, 1e-3).fault_rate
    2000.0
    """
    return anonymous_touch(cpus, 1.0, fault_work, lock_serial_time, lock_handoff_time)


@vectorized
def gettimeofday_slowdown(concurrent, call_time, transfer_time, conflict_probability=1.0,
                          latency_growth=0.0):
    r"""Time of N concurrent ``gettimeofday()`` calls relative to one (ia64 cmpxchg).

    Parameters
    ----------
    concurrent : int or array_like of int
        Concurrent callers N, >= 1 [1].
    call_time : float
        Time of one uncontended call (the line stays cached), positive [s].
    transfer_time : float
        Cache-line transfer time t_x, positive [s].
    conflict_probability : float, default 1
        q of :func:`atomic_update` [1].
    latency_growth : float, default 0
        g of :func:`atomic_update` [1].

    Returns
    -------
    float, ndarray or Series
        Slowdown [1].

    Notes
    -----
    :func:`atomic_update` with the work outside the cmpxchg as think time and the
    uncontended call as the reference: ``think_time = call_time``, ``hit_time = 0``.
    Altix seed 003: "four concurrent user gettimeofday() system calls complete in almost
    an order of magnitude more time than a single gettimeofday(); eight are 20 times
    slower than one; ... 32 concurrent system calls is 100 times slower than one".

    Examples
    --------
    >>> gettimeofday_slowdown(1, 1e-6, 2e-6)
    1.0
    """
    n = as_int_array("concurrent", concurrent, minimum=1)
    call_time = as_float_array("call_time", call_time, positive=True)
    r = atomic_update(n, call_time, transfer_time, conflict_probability, latency_growth, 0.0)
    return np.asarray(r.slowdown, float)
