r"""Hypervisor scheduling of Linux on IBM mainframes: PR/SM LPARs, z/VM guests, steal time.

Five small models, each a plain function returning a named result:

* :func:`lpar_dispatch` -- PR/SM weight-based dispatch of shared logical CPUs:
  entitled and achieved capacity of each LPAR, capped or uncapped, and the steal
  fraction of its logical CPUs, as functions of demand (weighted water filling).
* :func:`idle_guest_overhead` -- the CPU consumed by the periodic timer ticks of
  idle z/VM guests (HZ = 100 or 1000) against the idle-tick ("on demand timer")
  patch of Linux 2.6.6, the number of idle guests that alone saturate the machine,
  and whether z/VM can recognise the guests as idle.
* :func:`holder_preemption` and :func:`spinlock_yield` -- lock-holder preemption on
  overcommitted virtual CPUs and the four s390 spinlock waiting strategies (pure
  spinning, DIAG 44 on every attempt, ``spin_retry`` + DIAG 44, ``spin_retry`` +
  DIAG 9C directed yield): lock wait, wasted CPU and diagnoses per contended
  acquisition.
* :func:`guest_cpu_accounting` and :func:`vcpu_dispatch_steal` -- the per-CPU lines
  of ``top`` (us, sy, ni, id, wa, hi, si, st) of a guest whose virtual CPUs share
  a given physical capacity, and the tick-based accounting error that virtual CPU
  time accounting removed.

Sources: the seed documents C. Bornträger, M. Schwidefsky, "Providing Linux 2.6
support for the zSeries platform", IBM Systems Journal 44(2), 2005 (seed
``000_bf0694975d199a2d.txt``, sections "Introduction" and "Timer tick") and
T. Weber, "Linux on System z Performance Update", WAVV 2008 (seed
``002_3ef25dc9d706703e.txt``, slides "SLES / RHEL improved resource usage",
"Avoiding spin locks on System z", "SLES10 / RHEL5 virtual CPU time accounting",
"Linux command 'top' - the snapshot tool"); IBM's PR/SM documentation for the LPAR
rules (see :func:`lpar_dispatch`).

Units are SI: seconds, CPUs (one fully used physical processor = 1), 1/s. This
module imports :mod:`zmodel.queueing` only.
"""
from __future__ import annotations

import dataclasses
from typing import Any, ClassVar

import numpy as np

from zmodel.queueing._params import param
from zmodel.queueing._result import Result
from zmodel.conventions import (
    SaturationWarning, as_float_array, as_int_array, as_probability, check_fields, vectorized, warn_saturated,
)

__all__ = [
    "HypervisorCosts",
    "LparDispatchResult",
    "lpar_dispatch",
    "IdleTickResult",
    "idle_guest_overhead",
    "HolderPreemptionResult",
    "holder_preemption",
    "SpinlockYieldResult",
    "spinlock_yield",
    "SPINLOCK_STRATEGIES",
    "CpuAccountingResult",
    "guest_cpu_accounting",
    "DispatchStealResult",
    "vcpu_dispatch_steal",
    "SPIN_RETRY_DEFAULT",
    "ZVM_TEST_IDLE",
    "PreemptedHoldResult",
    "preempted_hold_time",
    "CpCosts",
    "CpOverheadResult",
    "cp_overhead",
]

#: default ``spin_retry`` of the s390 spinlock (tries before the virtual CPU is yielded):
#: M. Schwidefsky, "[patch 1/12] s390: spin lock retry", linux-kernel mailing list,
#: 11 July 2005 ("The default retry count is 1000"); ``arch/s390/lib/spinlock.c``.
SPIN_RETRY_DEFAULT = 1000

#: the z/VM CP dispatcher's "test-idle" time [s]: an unrunnable virtual machine is held
#: in the dispatch list this long before it is treated as idle. "On an unmodified VM
#: system, the test-idle timer is set to 300 milliseconds" (B. Wade, IBM, description
#: of the SRMTIDLE tool, www.vm.ibm.com/download/packages/descript.cgi?SRMTIDLE).
ZVM_TEST_IDLE = 0.300

#: illustrative defaults, NOT documented in the seeds (order-of-magnitude values for
#: z900/z990-class processors; calibrate or pass your own):
DEFAULT_TICK_COST = 20e-6          # CPU per idle-guest tick: CP dispatch + SIE + timer IRQ [s]
DEFAULT_TIME_SLICE = 5e-3          # z/VM dispatch (minor) time slice, SET SRM DSPSLICE [s]
DEFAULT_SPIN_ITERATION = 20e-9     # one try of the spin loop (load, compare, branch) [s]
DEFAULT_DIAGNOSE_COST = 10e-6      # one DIAG 44 / DIAG 9C intercept, round trip [s]


@dataclasses.dataclass(frozen=True)
class HypervisorCosts:
    """Tunable parameters of a Linux guest's timer tick under z/VM.

    Each field declares its default, unit, plausible range and provenance once
    (:func:`zmodel.queueing._params.param`); :mod:`zmodel.fits.kernel_hypervisor` derives
    its fit parameters from them and maps the values back with ``to_dataclass``.

    Parameters
    ----------
    hz : float
        Timer interrupts per second of the guest kernel [1/s].
    cost_per_tick : float
        Host CPU per tick of an idle guest (CP dispatch, SIE entry/exit, timer interrupt) [s];
        :data:`DEFAULT_TICK_COST`.

    Examples
    --------
    >>> c = HypervisorCosts()
    >>> c.hz, c.cost_per_tick == DEFAULT_TICK_COST
    (100.0, True)
    """

    hz: float = param(
        100.0, unit="1/s", range=(100.0, 1000.0),
        source="000_bf0694975d199a2d.txt (ibmsj.hz-24): 'In Linux 2.4, HZ is a constant whose value is set at "
               "100 for almost every hardware architecture'; 002_3ef25dc9d706703e.txt (wavv08.timer-interrupt-"
               "period): 'a heuristic model with a 10 ms timer interrupt'; range up to the 2.6 value 1000")
    cost_per_tick: float = param(
        DEFAULT_TICK_COST, unit="s", range=(1e-6, 1e-3),
        source="assumed: not printed in the seeds; an order of magnitude of z/VM dispatch + SIE + a timer "
               "interrupt on a z900/z990-class processor (DEFAULT_TICK_COST)")

    def __post_init__(self):
        check_fields(self)


# =====================================================================================
# 1. PR/SM: weight-based dispatch of shared logical CPUs
# =====================================================================================
@dataclasses.dataclass(frozen=True)
class LparDispatchResult(Result):
    """Capacity of LPARs sharing physical CPUs by PR/SM weights.

    Attributes
    ----------
    weight_share : ndarray or Series
        ``w_i / sum(w)``, the LPAR's relative weight [1].
    entitled_capacity : ndarray or Series
        ``min(P w_i / sum(w), L_i)``: the capacity the weight guarantees when all
        partitions want all they can get, limited by the logical CPUs [CPUs].
    achieved_capacity : ndarray or Series
        Capacity the LPAR gets at its demand [CPUs].
    steal_fraction : ndarray or Series
        Fraction of time each logical CPU of the LPAR wanted to run but was not
        dispatched, ``(d_i - a_i) / L_i`` [1].
    dispatch_fraction : ndarray or Series
        Share of the wanted time that was dispatched, ``a_i / d_i`` (1 at zero
        demand) [1].
    unused_capacity : float or ndarray
        Physical capacity no LPAR uses, ``P - sum(a)`` (per batch entry) [CPUs].
    """

    trailing_dims: ClassVar[tuple[str, ...]] = ("lpar",)

    weight_share: Any
    entitled_capacity: Any
    achieved_capacity: Any
    steal_fraction: Any
    dispatch_fraction: Any
    unused_capacity: Any


def _water_fill(capacity, weights, ceilings):
    """Weighted max-min fair allocation of ``capacity`` (..., 1) under ``ceilings`` (..., k).

    Finds the level ``lam`` with ``sum_i min(c_i, lam w_i) = capacity`` (or ``inf`` when
    the ceilings sum to less) by sorting the break points ``c_i / w_i``.
    """
    t = ceilings / weights
    order = np.argsort(t, axis=-1, kind="stable")
    ts = np.take_along_axis(t, order, -1)
    cs = np.take_along_axis(ceilings, order, -1)
    ws = np.take_along_axis(weights, order, -1)
    below = np.cumsum(cs, axis=-1) - cs                      # sum of c_m, m < j
    above = np.cumsum(ws[..., ::-1], axis=-1)[..., ::-1]     # sum of w_m, m >= j
    reached = below + ts * above >= capacity                 # f(t_j) >= capacity
    hit = reached.any(axis=-1)
    j = np.argmax(reached, axis=-1)[..., None]
    lam = (capacity - np.take_along_axis(below, j, -1)) / np.take_along_axis(above, j, -1)
    lam = np.where(hit[..., None], lam, np.inf)
    return np.minimum(ceilings, lam * weights)


@vectorized
def lpar_dispatch(physical_cpus, weights, logical_cpus, demand, capped=False) -> LparDispatchResult:
    r"""PR/SM dispatch of shared physical CPUs to LPARs by processing weight.

    Each LPAR ``i`` has a processing weight :math:`w_i`, :math:`L_i` shared logical
    CPUs and a demand :math:`d_i \le L_i` (the mean number of its logical CPUs that
    want to run). The shared pool has :math:`P` physical CPUs.

    Parameters
    ----------
    physical_cpus : float or array_like
        Shared (not dedicated) physical CPUs P of the pool, positive; leading axes
        are a batch [CPUs].
    weights : array_like or Series
        Processing weights, positive, one per LPAR along the last axis (PR/SM
        accepts 1..999; only ratios matter) [1].
    logical_cpus : int or array_like of int
        Shared logical CPUs online in each LPAR, a positive integer [CPUs].
    demand : float or array_like
        Mean number of the LPAR's logical CPUs that want to run, in [0, L_i] [CPUs].
    capped : bool or array_like of bool, default False
        True for an LPAR whose weight is a hard cap (PR/SM "initial capping").

    Returns
    -------
    LparDispatchResult
        Weight share, entitled and achieved capacity, steal and dispatch fractions
        per LPAR (last axis ``lpar``), unused capacity per batch entry.

    Notes
    -----
    Entitlement (share of the pool guaranteed "when all the resources are in use",
    never more than the logical CPUs can use):

    .. math:: E_i = \min\!\left(\frac{P\,w_i}{\sum_k w_k},\; L_i\right).

    Achieved capacity is the weighted max-min fair allocation (water filling) of
    :math:`P` under the ceilings :math:`c_i = \min(d_i, L_i, \text{cap}_i)` with
    :math:`\text{cap}_i = P w_i / \sum_k w_k` for a capped LPAR and :math:`\infty`
    otherwise:

    .. math:: a_i = \min(c_i, \lambda w_i), \qquad \sum_i \min(c_i, \lambda w_i) = P

    (:math:`\lambda = \infty` when :math:`\sum_i c_i \le P`: every LPAR gets its
    demand, weights have no effect). An LPAR that wants less than its share gets its
    demand; the share it leaves is divided among the uncapped LPARs that want more,
    in proportion to their weights; a capped LPAR never exceeds its share. Steal per
    logical CPU is :math:`(d_i - a_i)/L_i`.

    Validity: a fluid (time-average) model. It ignores dispatch latency when the
    pool is not saturated (see :func:`vcpu_dispatch_steal` for that), HiperDispatch
    vertical polarisation, dedicated processors and the short-term averaging of the
    PR/SM dispatcher; weights are those of the activated LPARs.

    References
    ----------
    .. [1] IBM, *Processor Resource/Systems Manager Planning Guide* (System z9 edition,
       SB10-7041), chapter 3 "Determining the characteristics of logical partitions",
       sections "Processing weights" and "Capping processing weights" (an LP's share
       is its weight divided by the sum of the weights of the active LPs; "an LP
       defined to have two CPs on a three-way CPC can never be allocated more than 67%
       of the CP resources no matter what its processing weight"; "A capped LP running
       at its cap does not have access to the CP resources that are not utilized by
       other LPs"). Page numbers differ between editions and are not given here.
    .. [2] IBM Documentation, HMC "Initial processing weight" help: "A processing
       weight is a target, not a limit ... When this logical partition is not using its
       share of the resources, other logical partitions can use those resources."
    .. [3] D. Bertsekas, R. Gallager, *Data Networks*, 2nd ed., Prentice Hall 1992,
       sec. 6.5.2 "Max-min fairness" (progressive filling; weighted form).
    .. [4] Seed ``000_bf0694975d199a2d.txt`` (IBM Systems Journal 2005), Introduction:
       "logical partitioning (LPAR) allows processor time to be dynamically shared
       among several independent partitions".

    Examples
    --------
    Ten CPUs, weights 60:30:10. LPAR C idles, so A and B split its share 2:1; B is
    limited by its 2 logical CPUs, so A takes the rest:

    >>> r = lpar_dispatch(10, [60, 30, 10], [8, 2, 4], [8.0, 2.0, 0.0])
    >>> r.entitled_capacity.tolist(), r.achieved_capacity.tolist()
    ([6.0, 2.0, 1.0], [8.0, 2.0, 0.0])

    B capped at its share 3; C wants only 0.5, so its unused 0.5 goes to A alone:

    >>> r = lpar_dispatch(10, [60, 30, 10], [8, 4, 4], [8.0, 4.0, 0.5], capped=[False, True, False])
    >>> [round(x, 12) for x in r.achieved_capacity.tolist()]
    [6.5, 3.0, 0.5]
    """
    P = as_float_array("physical_cpus", physical_cpus, positive=True)
    w = as_float_array("weights", weights, positive=True, min_ndim=1)
    L = as_int_array("logical_cpus", logical_cpus, minimum=1).astype(float)
    d = as_float_array("demand", demand)
    cap = np.asarray(capped)
    if cap.dtype != bool:
        raise ValueError(f"capped must be a boolean or an array of booleans, got {capped!r}")
    shape = np.broadcast_shapes(w.shape, L.shape, d.shape, cap.shape, P.shape + (1,))
    w, L, d, cap = (np.broadcast_to(v, shape) for v in (w, L, d, cap))
    over = d > L
    if over.any():
        k = np.argwhere(over)[0]
        raise ValueError(f"demand must not exceed logical_cpus (a logical CPU runs at most all the time), "
                         f"got {d[tuple(k)]:g} > {L[tuple(k)]:g} at index {tuple(int(i) for i in k)}")
    Pk = np.broadcast_to(P[..., None], shape[:-1] + (1,)).astype(float)
    share = w / w.sum(axis=-1, keepdims=True)
    raw = Pk * share
    entitled = np.minimum(raw, L)
    ceilings = np.minimum(d, np.where(cap, raw, np.inf))
    achieved = _water_fill(Pk, w, ceilings)
    steal = (d - achieved) / L
    with np.errstate(invalid="ignore", divide="ignore"):
        dispatch = np.where(d > 0, achieved / np.where(d > 0, d, 1.0), 1.0)
    unused = Pk[..., 0] - achieved.sum(axis=-1)
    unused = float(unused) if np.ndim(unused) == 0 else unused
    return LparDispatchResult(
        weight_share=share,
        entitled_capacity=entitled,
        achieved_capacity=achieved,
        steal_fraction=steal,
        dispatch_fraction=dispatch,
        unused_capacity=unused,
    )


# =====================================================================================
# 2. z/VM: timer ticks of idle guests vs the idle-tick patch
# =====================================================================================
@dataclasses.dataclass(frozen=True)
class IdleTickResult(Result):
    """CPU consumed by idle z/VM guests' timer ticks.

    Attributes
    ----------
    tick_rate : float, ndarray or Series
        Timer interrupts per second of all idle guests together [1/s].
    cpu_overhead : float, ndarray or Series
        CPU demanded by those ticks [CPUs].
    offered_load : float, ndarray or Series
        ``cpu_overhead / physical_cpus``; may exceed 1 [1].
    utilization : float, ndarray or Series
        ``min(offered_load, 1)``, the busy fraction of the machine from idle guests
        alone [1].
    saturation_guests : float, ndarray or Series
        Number of idle guests whose ticks alone use every physical CPU (inf with no
        ticks) [1].
    idle_interval : float, ndarray or Series
        Longest interval an idle guest stays undispatched, ``1 / rate`` [s].
    recognized_idle : float, ndarray or Series
        1.0 when ``idle_interval`` exceeds z/VM's test-idle time, else 0.0 [1].
    """

    tick_rate: Any
    cpu_overhead: Any
    offered_load: Any
    utilization: Any
    saturation_guests: Any
    idle_interval: Any
    recognized_idle: Any


@vectorized
def idle_guest_overhead(guests, hz=100, *, idle_tick_patch=False, cost_per_tick=DEFAULT_TICK_COST,
                        physical_cpus=1, virtual_cpus=1, idle_wakeup_rate=0.0,
                        test_idle=ZVM_TEST_IDLE) -> IdleTickResult:
    r"""CPU overhead of idle Linux guests under z/VM: periodic ticks vs the idle-tick patch.

    Parameters
    ----------
    guests : int or array_like of int
        Number of idle Linux guests, >= 0 [1].
    hz : float or array_like, default 100
        Timer interrupt frequency HZ of the guest kernel, positive (100 for Linux 2.4
        and s390; 1000 on some 2.6 architectures) [1/s].
    idle_tick_patch : bool or array_like of bool, default False
        True when the kernel stops the tick while idle (the patch accepted for
        Linux 2.6.6; ``/proc/sys/kernel/hz_timer = 0``).
    cost_per_tick : float or array_like, default 20e-6
        CPU time to dispatch a virtual CPU for one timer interrupt and return it to
        wait: z/VM dispatch, SIE entry/exit, the guest's interrupt handler. Not
        printed in the seeds; the default is an illustrative order of magnitude [s].
    physical_cpus : float or array_like, default 1
        Physical CPUs of the z/VM system, positive [CPUs].
    virtual_cpus : int or array_like of int, default 1
        Virtual CPUs per guest (each takes the tick), positive [1].
    idle_wakeup_rate : float or array_like, default 0
        Timer events per second a patched idle guest still needs (expiring kernel
        timers), >= 0 [1/s].
    test_idle : float or array_like, default 0.3
        z/VM's test-idle time: a virtual machine that stays unrunnable this long is
        treated as idle (dropped from the dispatch list, pages stolen first) [s].

    Returns
    -------
    IdleTickResult
        Tick rate, CPU overhead, offered load and utilization of the machine, the
        number of idle guests that saturate it, the idle interval and whether z/VM can
        recognise the guests as idle. Offered loads >= 1 follow the library's
        saturation policy (utilization 1, one :class:`SaturationWarning`).

    Notes
    -----
    Every virtual CPU of every idle guest is dispatched ``r`` times per second, with
    :math:`r = HZ` without the patch and :math:`r = r_\text{wake}` with it:

    .. math::
        C = n\,v\,r\,c_\text{tick}, \qquad U = \min(1, C/P), \qquad
        n_\text{sat} = \frac{P}{v\,r\,c_\text{tick}}, \qquad
        T_\text{idle} = 1/r .

    z/VM recognises a guest as idle only if :math:`T_\text{idle}` exceeds its
    test-idle time; with HZ = 100, :math:`T_\text{idle}` = 10 ms < 300 ms, so a
    ticking guest never looks idle (seed 000, "Timer tick": "the timer activity
    prevents z/VM from recognizing the guest system as being idle"). Linear in the
    number of guests; ignores the CP timer-management and paging side effects
    (working sets of guests held in the dispatch list stay resident).

    References
    ----------
    .. [1] Seed ``000_bf0694975d199a2d.txt`` (Bornträger and Schwidefsky, IBM Systems
       Journal 2005), section "Timer tick": "The evenly spaced ticks cause the
       virtualization engine to dispatch every virtual CPU (which executes the timer
       interrupt code) every 10ms. Because z/VM supports hundreds of Linux guests, the
       overhead for the idle guests adds up to a considerable value"; the patch "that
       deactivates the timer interrupts while the system is idle ... has been accepted
       for the Linux 2.6.6 kernel"; HZ = 100 in 2.4, 1000 for 2.6 on some
       architectures.
    .. [2] B. Wade (IBM), SRMTIDLE tool description, www.vm.ibm.com (test-idle timer
       300 ms on an unmodified system).

    Examples
    --------
    200 idle guests at HZ = 100, 20 microseconds per tick, on 4 CPUs: 20 000 ticks/s
    use 0.4 CPUs (10 % of the machine); 2000 guests saturate it; the patch removes it.

    >>> r = idle_guest_overhead(200, 100, cost_per_tick=20e-6, physical_cpus=4)
    >>> round(r.tick_rate), round(r.cpu_overhead, 12), round(r.utilization, 12), round(r.saturation_guests)
    (20000, 0.4, 0.1, 2000)
    >>> idle_guest_overhead(200, 100, idle_tick_patch=True).cpu_overhead
    0.0
    """
    n = as_int_array("guests", guests, minimum=0).astype(float)
    f = as_float_array("hz", hz, positive=True)
    patch = np.asarray(idle_tick_patch)
    if patch.dtype != bool:
        raise ValueError(f"idle_tick_patch must be a boolean or an array of booleans, got {idle_tick_patch!r}")
    c = as_float_array("cost_per_tick", cost_per_tick)
    P = as_float_array("physical_cpus", physical_cpus, positive=True)
    v = as_int_array("virtual_cpus", virtual_cpus, minimum=1).astype(float)
    wake = as_float_array("idle_wakeup_rate", idle_wakeup_rate)
    t_idle = as_float_array("test_idle", test_idle, positive=True)
    n, f, patch, c, P, v, wake, t_idle = np.broadcast_arrays(n, f, patch, c, P, v, wake, t_idle)
    rate = np.where(patch, wake, f)                      # per virtual CPU [1/s]
    tick_rate = n * v * rate
    overhead = tick_rate * c
    load = overhead / P
    per_guest = v * rate * c
    with np.errstate(divide="ignore"):
        n_sat = np.where(per_guest > 0, P / np.where(per_guest > 0, per_guest, 1.0), np.inf)
        interval = np.where(rate > 0, 1.0 / np.where(rate > 0, rate, 1.0), np.inf)
    saturated = load >= 1
    if saturated.any():
        warn_saturated(saturated, what="idle-guest tick load")
    out = dict(tick_rate=tick_rate, cpu_overhead=overhead, offered_load=load,
               utilization=np.minimum(load, 1.0), saturation_guests=n_sat, idle_interval=interval,
               recognized_idle=(interval > t_idle).astype(float))
    return IdleTickResult(**out)


# =====================================================================================
# 3. Spinlocks on overcommitted virtual CPUs: DIAG 44 vs spin_retry + DIAG 9C
# =====================================================================================
@dataclasses.dataclass(frozen=True)
class HolderPreemptionResult(Result):
    """Lock-holder preemption on overcommitted virtual CPUs.

    Attributes
    ----------
    stretch : float, ndarray or Series
        ``max(1, overcommit)``: wall-clock time per unit of CPU work of a runnable
        virtual CPU [1].
    steal_fraction : float, ndarray or Series
        ``1 - 1/stretch``, time a runnable virtual CPU is not dispatched [1].
    descheduled_time : float, ndarray or Series
        Mean time a preempted virtual CPU waits to be dispatched again, D [s].
    preemption_probability : float, ndarray or Series
        Probability that the lock holder is not dispatched at the moment a waiter
        finds the lock held (the hook for :mod:`zmodel.kernel.locks`) [1].
    effective_hold_time : float, ndarray or Series
        Mean wall-clock hold time E[H] [s].
    hold_time_second_moment : float, ndarray or Series
        E[H^2] [s^2].
    residual_hold_time : float, ndarray or Series
        Mean remaining hold seen by a waiter that finds the lock held,
        E[H^2] / (2 E[H]) [s].
    """

    stretch: Any
    steal_fraction: Any
    descheduled_time: Any
    preemption_probability: Any
    effective_hold_time: Any
    hold_time_second_moment: Any
    residual_hold_time: Any


def _check_preemption(overcommit, hold_time, time_slice):
    rho = as_float_array("overcommit", overcommit, positive=True)
    h = as_float_array("hold_time", hold_time, positive=True)
    ts = as_float_array("time_slice", time_slice, positive=True)
    return np.broadcast_arrays(rho, h, ts)


def _preemption(rho, h, ts):
    g = np.maximum(rho, 1.0)
    kappa = np.clip(rho - 1.0, 0.0, 1.0)        # P(another virtual CPU waits at a slice end)
    D = ts * np.maximum(rho - 1.0, 1.0)         # mean descheduled time
    m = kappa * h / ts                          # mean preemptions during one hold
    EH = h + m * D
    EH2 = EH ** 2 + m * 2.0 * D ** 2
    return g, kappa, D, EH, EH2


@vectorized
def holder_preemption(overcommit, hold_time, time_slice=DEFAULT_TIME_SLICE) -> HolderPreemptionResult:
    r"""Preemption of a spinlock holder's virtual CPU by the hypervisor.

    Parameters
    ----------
    overcommit : float or array_like
        Runnable virtual CPUs per physical CPU, rho, positive; rho <= 1 means no
        contention for physical CPUs [1].
    hold_time : float or array_like
        CPU time the holder needs inside the critical section, h, positive [s].
    time_slice : float or array_like, default 5e-3
        Hypervisor time slice T_s of a dispatched virtual CPU (z/VM minor time slice,
        ``SET SRM DSPSLICE``; the default is illustrative), positive [s].

    Returns
    -------
    HolderPreemptionResult

    Notes
    -----
    Round-robin time slicing of :math:`\rho P` runnable virtual CPUs on :math:`P`
    physical ones. At the end of a slice another virtual CPU is waiting with
    probability :math:`\kappa = \min(1, \max(0, \rho - 1))`; a preempted virtual CPU
    then waits :math:`D = T_s \max(1, \rho - 1)` on average, so that the fluid steal
    fraction is :math:`\kappa D/(T_s + \kappa D) = 1 - 1/\rho`. Slice ends during a hold
    are a Poisson process of rate :math:`1/T_s` in the holder's CPU time (exponential
    slices), each off period exponential with mean :math:`D`; the wall-clock hold is a
    compound Poisson sum with :math:`M \sim \text{Poisson}(\kappa h/T_s)`:

    .. math::
        E[H] = h + \frac{\kappa h}{T_s} D = h \max(1, \rho), \qquad
        E[H^2] = E[H]^2 + \frac{\kappa h}{T_s}\, 2 D^2 .

    A waiter that finds the lock held arrives at a random point of a hold
    (inspection paradox): the remaining hold is :math:`E[H^2]/(2E[H])` and the holder
    is off its CPU with probability :math:`p = (E[H] - h)/E[H] = 1 - 1/\max(1,\rho)`.
    Validity: single holder, holds independent of slice phase, no co-scheduling.

    References
    ----------
    .. [1] V. Uhlig, J. LeVasseur, E. Skoglund, U. Dannowski, "Towards scalable
       multiprocessor virtual machines", Proc. 3rd USENIX Virtual Machine Research and
       Technology Symposium (VM '04), 2004, sec. 3 (lock-holder preemption).
    .. [2] L. Kleinrock, *Queueing Systems, Vol. 1: Theory*, Wiley 1975, sec. 5.2
       (residual life :math:`E[X^2]/(2E[X])`).
    .. [3] Seed ``002_3ef25dc9d706703e.txt`` (WAVV 2008), slides "SLES / RHEL improved
       resource usage" and "Avoiding spin locks on System z".

    Examples
    --------
    Two runnable virtual CPUs per physical CPU, 10 microsecond holds, 5 ms slices: the
    holder is off its CPU half of the wall-clock hold, D = 5 ms.

    >>> r = holder_preemption(2.0, 10e-6, 5e-3)
    >>> round(r.preemption_probability, 12), round(r.descheduled_time, 12), round(r.effective_hold_time, 12)
    (0.5, 0.005, 2e-05)
    >>> holder_preemption(0.8, 10e-6).preemption_probability   # no overcommit
    0.0
    """
    rho, h, ts = _check_preemption(overcommit, hold_time, time_slice)
    g, kappa, D, EH, EH2 = _preemption(rho, h, ts)
    out = dict(stretch=g, steal_fraction=1.0 - 1.0 / g, descheduled_time=D,
               preemption_probability=(EH - h) / EH, effective_hold_time=EH,
               hold_time_second_moment=EH2, residual_hold_time=EH2 / (2.0 * EH))
    return HolderPreemptionResult(**out)


#: the waiting strategies of :func:`spinlock_yield`
SPINLOCK_STRATEGIES = ("spin", "diag44", "spin_retry_diag44", "spin_retry_diag9c")


@dataclasses.dataclass(frozen=True)
class SpinlockYieldResult(Result):
    """One contended spinlock acquisition under a waiting strategy.

    Attributes
    ----------
    preemption_probability : float, ndarray or Series
        Probability the holder is off its CPU when the waiter arrives [1].
    release_time : float, ndarray or Series
        Mean time from the waiter's first failed attempt until the lock is free [s].
    lock_wait : float, ndarray or Series
        Mean time from the first failed attempt until the waiter has the lock [s].
    wasted_cpu : float, ndarray or Series
        Mean CPU the waiter burns: spinning plus diagnose costs [s].
    diagnoses : float, ndarray or Series
        Mean number of DIAG 44 / DIAG 9C issued [1].
    strategy : str
        One of :data:`SPINLOCK_STRATEGIES`.
    """

    preemption_probability: Any
    release_time: Any
    lock_wait: Any
    wasted_cpu: Any
    diagnoses: Any
    strategy: str = "spin_retry_diag9c"


def _poll(mean_remaining, spin, yield_time):
    """Spin ``spin`` then yield for ``yield_time``, repeatedly, until an Exp(mean) release.

    Returns (wait, spin CPU, number of yields); see :func:`spinlock_yield` Notes.
    """
    mu = 1.0 / mean_remaining
    one_minus_sigma = -np.expm1(-spin * mu)               # 1 - e^{-S/r}
    sigma = np.exp(-spin * mu)
    one_minus_beta = -np.expm1(-(spin + yield_time) * mu)  # 1 - e^{-(S+Y)/r}
    wait = (mean_remaining * one_minus_sigma + sigma * yield_time) / one_minus_beta
    spin_cpu = mean_remaining * one_minus_sigma / one_minus_beta
    yields = sigma / one_minus_beta
    return wait, spin_cpu, yields


@vectorized
def spinlock_yield(overcommit, hold_time, strategy="spin_retry_diag9c", *, time_slice=DEFAULT_TIME_SLICE,
                   spin_retry=SPIN_RETRY_DEFAULT, spin_iteration_time=DEFAULT_SPIN_ITERATION,
                   diagnose_cost=DEFAULT_DIAGNOSE_COST) -> SpinlockYieldResult:
    r"""Lock wait and wasted CPU of a contended s390 spinlock under a hypervisor.

    Parameters
    ----------
    overcommit : float or array_like
        Runnable virtual CPUs per physical CPU, rho, positive [1].
    hold_time : float or array_like
        CPU time of the critical section, h, positive [s].
    strategy : str, default "spin_retry_diag9c"
        ``"spin"`` (busy-wait, non-z platforms), ``"diag44"`` (DIAG 44 after every
        failed attempt: undirected yield of the time slice), ``"spin_retry_diag44"``
        (``spin_retry`` attempts, then DIAG 44) or ``"spin_retry_diag9c"``
        (``spin_retry`` attempts, then DIAG 9C: directed yield to the holder's
        virtual CPU).
    time_slice : float or array_like, default 5e-3
        Hypervisor time slice T_s (illustrative default), positive [s].
    spin_retry : int or array_like of int, default 1000
        Attempts before yielding, >= 0 (the s390 default is 1000) [1].
    spin_iteration_time : float or array_like, default 20e-9
        Time of one attempt of the spin loop, positive (illustrative) [s].
    diagnose_cost : float or array_like, default 10e-6
        CPU cost of one DIAG 44 / DIAG 9C round trip through the hypervisor,
        >= 0 (illustrative; "quite expensive" per the spin_retry patch) [s].

    Returns
    -------
    SpinlockYieldResult

    Notes
    -----
    Holder preemption as in :func:`holder_preemption` (stretch :math:`g`, probability
    :math:`\kappa` that a yielded CPU goes to another virtual CPU, off time :math:`D`,
    :math:`p = 1 - 1/g`). Two branches: the holder is on its CPU (probability
    :math:`1-p`, remaining time :math:`r_A = g h/2`) or preempted (:math:`p`,
    :math:`r_B = D + g h/2`). Within a branch the remaining time is taken as
    exponential with that mean. The waiter alternates spin phases of
    :math:`S = n_\text{retry} t_\text{iter}` and yield phases of length :math:`Y`;
    it sees a release during a spin at once and one during a yield at the end of
    the yield. Summing the geometric rounds (:math:`\sigma = e^{-S/r}`,
    :math:`\beta = e^{-(S+Y)/r}`):

    .. math::
        W = \frac{r(1-\sigma) + \sigma Y}{1-\beta},\qquad
        C_\text{spin} = \frac{r(1-\sigma)}{1-\beta},\qquad
        K = \frac{\sigma}{1-\beta},

    computed with ``expm1``; wasted CPU :math:`C_\text{spin} + c_\text{diag} K`. Pure
    spinning is :math:`S=\infty` (:math:`W = C = r`); ``diag44`` is :math:`S = 0`. An
    undirected yield gives the CPU away: :math:`Y = c_\text{diag} + \kappa D`. A
    directed yield (DIAG 9C) to a running holder returns at once
    (:math:`Y = c_\text{diag}`), and to a preempted holder dispatches it: the holder's
    remaining off time is cut to :math:`E[\min(D_\text{res}, S + c)] =
    D(1 - e^{-(S+c)/D})`, so :math:`r_B^{9C} = D(1-e^{-(S+c)/D}) + g h/2`, while the
    waiter itself waits :math:`Y = c + \kappa D`. ``release_time`` is
    :math:`(1-p) r_A + p\, r_B` (with :math:`r_B^{9C}` for DIAG 9C).

    Validity: one waiter per hold; the spinning waiter's own effect on the dispatch
    of others (spinning keeps physical CPUs busy) is neglected, as is the chance that
    an undirected yield happens to dispatch the holder.

    References
    ----------
    .. [1] Seed ``002_3ef25dc9d706703e.txt`` (WAVV 2008), slide "SLES / RHEL improved
       resource usage": DIAG 44 "to give the CPU back instead of looping for the lock
       ... allowed more useful work to be done"; "spin_retry counter in Linux to avoid
       excessive use of diagnose instructions"; "use of DIAG 9C instruction to pass
       information along with the instruction, who should get the processor".
    .. [2] M. Schwidefsky, "[patch 1/12] s390: spin lock retry", linux-kernel, 11 July
       2005: "the diagnose 0x44 that is used to give up the virtual cpu is quite
       expensive. For spin locks that are held only for a short period of time the
       costs of the diagnoses outweights the savings ... The default retry count is
       1000." (``arch/s390/lib/spinlock.c``).
    .. [3] V. Uhlig et al., "Towards scalable multiprocessor virtual machines", VM '04,
       2004, sec. 3-4 (lock-holder preemption, directed yield).

    Examples
    --------
    Without overcommit the holder is never preempted; pure spinning waits half a hold:

    >>> r = spinlock_yield(1.0, 10e-6, "spin")
    >>> round(r.lock_wait, 12), round(r.wasted_cpu, 12), r.diagnoses
    (5e-06, 5e-06, 0.0)
    >>> a = spinlock_yield(2.0, 10e-6, "spin")
    >>> b = spinlock_yield(2.0, 10e-6, "spin_retry_diag9c")
    >>> bool(b.wasted_cpu < a.wasted_cpu / 10), bool(b.release_time < a.release_time / 10)
    (True, True)
    """
    if strategy not in SPINLOCK_STRATEGIES:
        raise ValueError(f"strategy must be one of {list(SPINLOCK_STRATEGIES)}, got {strategy!r}")
    rho, h, ts = _check_preemption(overcommit, hold_time, time_slice)
    n_retry = as_int_array("spin_retry", spin_retry, minimum=0).astype(float)
    t_it = as_float_array("spin_iteration_time", spin_iteration_time, positive=True)
    c = as_float_array("diagnose_cost", diagnose_cost)
    rho, h, ts, n_retry, t_it, c = np.broadcast_arrays(rho, h, ts, n_retry, t_it, c)
    g, kappa, D, EH, _ = _preemption(rho, h, ts)
    p = (EH - h) / EH
    r_a = g * h / 2.0
    r_b = D + g * h / 2.0
    zero = np.zeros_like(r_a)
    S = n_retry * t_it
    give_away = c + kappa * D
    release_b = r_b
    if strategy == "spin":
        (wa, ca, ka), (wb, cb, kb) = (r_a, r_a, zero), (r_b, r_b, zero)
        c = zero
    elif strategy == "diag44":
        (wa, ca, ka), (wb, cb, kb) = _poll(r_a, zero, give_away), _poll(r_b, zero, give_away)
    elif strategy == "spin_retry_diag44":
        (wa, ca, ka), (wb, cb, kb) = _poll(r_a, S, give_away), _poll(r_b, S, give_away)
    else:
        release_b = D * -np.expm1(-(S + c) / D) + g * h / 2.0
        (wa, ca, ka) = _poll(r_a, S, c)
        (wb, cb, kb) = _poll(release_b, S, give_away)
    out = dict(
        preemption_probability=p,
        release_time=(1 - p) * r_a + p * release_b,
        lock_wait=(1 - p) * wa + p * wb,
        wasted_cpu=(1 - p) * (ca + c * ka) + p * (cb + c * kb),
        diagnoses=(1 - p) * ka + p * kb,
    )
    return SpinlockYieldResult(**out, strategy=strategy)


# =====================================================================================
# 4. Virtual CPU time accounting: the CPU lines of `top`, steal time
# =====================================================================================
@dataclasses.dataclass(frozen=True)
class CpuAccountingResult(Result):
    """Per-virtual-CPU time breakdown as ``top`` shows it (percent of wall time).

    Attributes
    ----------
    user, nice, system, idle, iowait, hardirq, softirq, steal : ndarray or Series
        ``%us, %ni, %sy, %id, %wa, %hi, %si, %st`` of each virtual CPU (last axis
        ``vcpu``); they sum to 100 [%].
    tick_based_busy : ndarray or Series
        Busy percent that tick-based accounting (a 10 ms tick charging the whole
        interval to the interrupted context) would report: steal counts as busy [%].
    dispatch_fraction : float or ndarray
        Fraction of its runnable time a virtual CPU is dispatched (per batch) [1].
    """

    trailing_dims: ClassVar[tuple[str, ...]] = ("vcpu",)

    user: Any
    nice: Any
    system: Any
    idle: Any
    iowait: Any
    hardirq: Any
    softirq: Any
    steal: Any
    tick_based_busy: Any
    dispatch_fraction: Any


@vectorized
def guest_cpu_accounting(runnable, capacity, *, iowait=0.0, user=1.0, nice=0.0, system=0.0,
                         hardirq=0.0, softirq=0.0) -> CpuAccountingResult:
    r"""The ``top`` CPU lines of a guest whose virtual CPUs share a physical capacity.

    Parameters
    ----------
    runnable : array_like or Series
        Fraction of wall time each virtual CPU wants to run (running or waiting for
        a physical CPU), in [0, 1], one entry per virtual CPU on the last axis [1].
    capacity : float or array_like
        Physical CPU capacity the hypervisor gives this guest's virtual CPUs
        (an LPAR's achieved capacity, a z/VM share), positive; leading axes are a
        batch [CPUs].
    iowait : float or array_like, default 0
        Fraction of wall time idle with I/O outstanding, at most ``1 - runnable`` [1].
    user, nice, system, hardirq, softirq : float or array_like
        How dispatched time divides between user, niced user, kernel, hardware- and
        software-interrupt context; non-negative, summing to 1 [1].

    Returns
    -------
    CpuAccountingResult
        Percentages per virtual CPU and the dispatch fraction.

    Notes
    -----
    Processor sharing among the runnable virtual CPUs: every runnable virtual CPU is
    dispatched the same fraction of its runnable time,

    .. math::
        \phi = \min\!\left(1, \frac{C}{\sum_j r_j}\right),\quad
        \text{busy}_j = r_j\phi,\quad \text{st}_j = r_j (1-\phi),\quad
        \text{id}_j = 1 - r_j - \text{wa}_j,

    and busy time splits into us/ni/sy/hi/si by the given shares. With virtual CPU
    time accounting (s390, Linux 2.6.11+; SLES10, RHEL5) ``st`` is the time "Linux
    wanted to run on a processor, but the hypervisor was not able to schedule CPU";
    tick-based accounting charges each 10 ms tick to the interrupted context, so a
    runnable-but-undispatched interval shows as busy: ``tick_based_busy`` =
    :math:`100\,r_j`. Fluid approximation: uses :math:`C/E[N_\text{runnable}]` for
    :math:`E[C/N_\text{runnable}]`, exact when the virtual CPUs are always runnable.

    References
    ----------
    .. [1] Seed ``002_3ef25dc9d706703e.txt`` (WAVV 2008), slides "SLES10 / RHEL5
       virtual CPU time accounting" and "Linux command 'top' - the snapshot tool".
    .. [2] L. Kleinrock, *Queueing Systems, Vol. 2: Computer Applications*, Wiley 1976,
       sec. 4.4 (processor sharing).
    .. [3] IBM developerWorks, "Linux on System z: CPU time accounting"
       (tuning_rec_CPUtimes.html): with more virtual than real CPUs "the time slice
       might be accounted to a process which actually could not utilize it".

    Examples
    --------
    Six always-runnable virtual CPUs on three physical CPUs: each runs half the time.

    >>> r = guest_cpu_accounting([1.0] * 6, 3.0, user=0.9, system=0.1)
    >>> r.user.tolist()[0], r.system.tolist()[0], r.steal.tolist()[0], r.tick_based_busy.tolist()[0]
    (45.0, 5.0, 50.0, 100.0)
    """
    r = as_probability("runnable", runnable)
    if r.ndim < 1:
        raise ValueError(f"runnable must have one entry per virtual CPU (at least 1 dimension), got shape {r.shape}")
    cap = as_float_array("capacity", capacity, positive=True)
    wa = as_probability("iowait", iowait)
    shares = {k: as_float_array(k, v) for k, v in
              dict(user=user, nice=nice, system=system, hardirq=hardirq, softirq=softirq).items()}
    total = sum(shares.values())
    bad = np.abs(total - 1.0) > 1e-9
    if np.any(bad):
        got = np.asarray(total)[bad].flat[0] if np.ndim(total) else float(total)
        raise ValueError(f"user + nice + system + hardirq + softirq must sum to 1, got {got:g}")
    shape = np.broadcast_shapes(r.shape, wa.shape, cap.shape + (1,), *(s.shape for s in shares.values()))
    r, wa = np.broadcast_to(r, shape), np.broadcast_to(wa, shape)
    over = r + wa > 1 + 1e-12
    if over.any():
        raise ValueError(f"iowait must not exceed 1 - runnable, got runnable + iowait = "
                         f"{(r + wa)[over].flat[0]:g} > 1")
    demand = r.sum(axis=-1)
    cap_b = np.broadcast_to(cap, demand.shape)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):   # masked where demand <= cap
        phi = np.where(demand > cap_b, cap_b / np.where(demand > 0, demand, 1.0), 1.0)
    busy = r * phi[..., None]
    out = {k: 100.0 * np.broadcast_to(busy * s, shape) for k, s in shares.items()}
    out.update(idle=100.0 * (1.0 - r - wa), iowait=100.0 * wa, steal=100.0 * r * (1.0 - phi[..., None]),
               tick_based_busy=100.0 * r)
    out = {k: np.array(v, dtype=float) for k, v in out.items()}
    return CpuAccountingResult(**out, dispatch_fraction=float(phi) if phi.ndim == 0 else phi)


@dataclasses.dataclass(frozen=True)
class DispatchStealResult(Result):
    """Finite-source (machine-repairman) view of virtual CPUs on physical CPUs.

    Attributes
    ----------
    busy_fraction : float, ndarray or Series
        Fraction of wall time a virtual CPU runs [1].
    steal_fraction : float, ndarray or Series
        Fraction of wall time a virtual CPU waits for a physical CPU [1].
    idle_fraction : float, ndarray or Series
        Fraction of wall time a virtual CPU does not want to run [1].
    physical_utilization : float, ndarray or Series
        Busy fraction of each physical CPU [1].
    """

    busy_fraction: Any
    steal_fraction: Any
    idle_fraction: Any
    physical_utilization: Any


@vectorized
def vcpu_dispatch_steal(virtual_cpus, physical_cpus, dedicated_busy, burst_time=DEFAULT_TIME_SLICE
                        ) -> DispatchStealResult:
    r"""Steal time of virtual CPUs as a finite-source queue (M/M/c//N), exact.

    Parameters
    ----------
    virtual_cpus : int or array_like of int
        Virtual CPUs N sharing the physical CPUs, >= 0 [1].
    physical_cpus : int or array_like of int
        Physical CPUs c, a positive integer [CPUs].
    dedicated_busy : float or array_like
        Busy fraction u each virtual CPU would have on a dedicated CPU, in (0, 1] [1].
    burst_time : float or array_like, default 5e-3
        Mean CPU burst of a virtual CPU between idle periods, positive [s].

    Returns
    -------
    DispatchStealResult

    Notes
    -----
    Each virtual CPU alternates idle periods of mean :math:`Z = S(1-u)/u` and CPU
    bursts of mean :math:`S`, served by :math:`c` physical CPUs: the machine-repairman
    model :func:`zmodel.queueing.machine_repairman` (exponential times, any work-
    conserving order for the means). By Little's law the time fractions of a virtual
    CPU are busy :math:`X S/N`, steal :math:`Q_w/N`, idle :math:`1 - Q/N`. With
    :math:`u = 1` it is the fluid :math:`\text{st} = 1 - \min(1, c/N)`; with
    :math:`N \le c` there is no steal. Unlike :func:`lpar_dispatch` it shows steal
    below saturation, when bursts collide.

    References
    ----------
    .. [1] D. Gross, J. F. Shortle, J. M. Thompson, C. M. Harris, *Fundamentals of
       Queueing Theory*, 4th ed., Wiley 2008, sec. 2.7 (finite-source queues).
    .. [2] Seed ``002_3ef25dc9d706703e.txt`` (WAVV 2008), slide "Linux command 'top'"
       (steal: "the time Linux wanted to run on a processor, but the hypervisor was
       not able to schedule CPU").

    Examples
    --------
    Six always-busy virtual CPUs on three physical CPUs: half the time is stolen.

    >>> r = vcpu_dispatch_steal(6, 3, 1.0)
    >>> round(r.busy_fraction, 12), round(r.steal_fraction, 12), round(r.idle_fraction, 12)
    (0.5, 0.5, 0.0)
    """
    from zmodel.queueing import machine_repairman

    n = as_int_array("virtual_cpus", virtual_cpus, minimum=0)
    c = as_int_array("physical_cpus", physical_cpus, minimum=1)
    u = as_probability("dedicated_busy", dedicated_busy)
    if np.any(u <= 0):
        raise ValueError(f"dedicated_busy must be in (0, 1], got {u[u <= 0].flat[0]!r}")
    s = as_float_array("burst_time", burst_time, positive=True)
    n, c, u, s = np.broadcast_arrays(n, c, u, s)
    think = s * (1.0 - u) / u
    res = machine_repairman(n, think, s, c)
    N = n.astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        busy = np.where(N > 0, np.asarray(res.throughput) * s / np.where(N > 0, N, 1.0), 0.0)
        steal = np.where(N > 0, np.asarray(res.queue_waiting) / np.where(N > 0, N, 1.0), 0.0)
        idle = np.where(N > 0, 1.0 - np.asarray(res.queue_length) / np.where(N > 0, N, 1.0), 1.0)
    out = dict(busy_fraction=busy, steal_fraction=steal, idle_fraction=idle,
               physical_utilization=np.asarray(res.utilization, dtype=float))
    return DispatchStealResult(**out)


# =====================================================================================
# 5. Inside a composed system: the preempted holder's delay per strategy, z/VM CP overhead
# =====================================================================================
@dataclasses.dataclass(frozen=True)
class PreemptedHoldResult(Result):
    """Wall-clock hold of a spinlock whose holder's virtual CPU may be preempted.

    Attributes
    ----------
    preemptions : float, ndarray or Series
        Mean number of times the holder's virtual CPU is preempted during one hold,
        ``kappa h / T_s`` (for ``h << T_s`` the probability of a preemption) [1].
    holder_delay : float, ndarray or Series
        Mean time from a preemption of the holder until it runs again, under the waiters'
        strategy [s].
    effective_hold_time : float, ndarray or Series
        ``h + preemptions * holder_delay``: the hold time the lock's queue sees [s].
    strategy : str
        One of :data:`SPINLOCK_STRATEGIES`.
    """

    preemptions: Any
    holder_delay: Any
    effective_hold_time: Any
    strategy: str = "spin_retry_diag9c"


@vectorized
def preempted_hold_time(overcommit, hold_time, strategy="spin_retry_diag9c", *, yielding_fraction=0.0,
                        time_slice=DEFAULT_TIME_SLICE, spin_retry=SPIN_RETRY_DEFAULT,
                        spin_iteration_time=DEFAULT_SPIN_ITERATION,
                        diagnose_cost=DEFAULT_DIAGNOSE_COST) -> PreemptedHoldResult:
    r"""Effective hold time of a spinlock under lock-holder preemption, per waiting strategy.

    Parameters
    ----------
    overcommit : float or array_like
        Runnable virtual CPUs per physical CPU, rho, positive; rho <= 1 gives ``h`` [1].
    hold_time : float or array_like
        CPU time of the critical section, h, positive [s].
    strategy : str, default "spin_retry_diag9c"
        The waiters' strategy, one of :data:`SPINLOCK_STRATEGIES`.
    yielding_fraction : float or array_like, default 0
        Fraction q of the virtual CPUs queued for a physical CPU ahead of the preempted
        holder that are themselves lock waiters (they give their slice up at once under
        DIAG 44); in [0, 1] [1].
    time_slice : float or array_like, default 5e-3
        Hypervisor time slice T_s (illustrative default), positive [s].
    spin_retry : int or array_like of int, default 1000
        Attempts before a waiter yields, >= 0 [1].
    spin_iteration_time : float or array_like, default 20e-9
        Time of one attempt, positive (illustrative) [s].
    diagnose_cost : float or array_like, default 10e-6
        One DIAG 44 / DIAG 9C round trip, >= 0 (illustrative) [s].

    Returns
    -------
    PreemptedHoldResult

    Notes
    -----
    Preemption as in :func:`holder_preemption`: :math:`\kappa = \min(1, \max(0,\rho-1))`,
    off time :math:`D = T_s \max(1, \rho - 1)` (the :math:`\max(1,\rho-1)` slices of the
    virtual CPUs queued ahead of the holder), :math:`m = \kappa h / T_s` preemptions per
    hold. The lock stays held while its holder is off its CPU, so its queue sees

    .. math:: h_\text{eff} = h + m\, W_\text{strategy},

    with the wait :math:`W` until the preempted holder runs again:

    * ``spin``: the waiters spin out their slices; nothing shortens the holder's off time,
      :math:`W = D` (then :math:`h_\text{eff}` is :func:`holder_preemption`'s
      :math:`E[H] = h\max(1,\rho)`).
    * ``diag44`` / ``spin_retry_diag44`` (undirected yield): a waiter queued ahead of the
      holder runs only :math:`y = \min(T_s, S + c)` of its slice (:math:`S = n_\text{retry}
      t_\text{iter}`, 0 for ``diag44``; :math:`c` the diagnose) before it gives the CPU
      back, so :math:`W = D\,[(1-q) + q\, y/T_s]`.
    * ``spin_retry_diag9c`` (directed yield): the first waiter that finds the holder
      preempted spins :math:`S`, then DIAG 9C dispatches the holder on its own physical
      CPU; the holder runs after :math:`\min(D_\text{res}, S + c)` with :math:`D_\text{res}`
      exponential of mean D: :math:`W = D\,(1 - e^{-(S+c)/D})` (the same cut as the
      ``release_time`` of :func:`spinlock_yield`).

    Hence, with the same spin phase S and :math:`S + c \le T_s`,
    :math:`W_{9C} \le \min(D, S+c) \le W_{44} \le W_\text{spin} = D` (since
    :math:`D \ge T_s`): directed yield is never worse than undirected, which is never
    worse than spinning. Plain ``diag44`` (no spin phase) can hand the holder its CPU
    sooner than ``spin_retry_diag9c`` when nearly every queued virtual CPU is a waiter
    (:math:`q \to 1`), at the price of a diagnose on every failed attempt. Validity: the directed-yield cut assumes a waiter arrives while
    the holder is off its CPU (it is what a waiter sees; an uncontended preempted hold
    delays nobody); a waiter's slice of exactly :math:`y` is the mean of a short phase;
    the waiters' share q of the dispatch queue is an input (:func:`compose` reads it as
    the spin fraction of a guest among identical guests).

    References
    ----------
    .. [1] V. Uhlig, J. LeVasseur, E. Skoglund, U. Dannowski, "Towards scalable
       multiprocessor virtual machines", Proc. 3rd USENIX Virtual Machine Research and
       Technology Symposium (VM '04), USENIX, 2004, sec. 3 (lock-holder preemption
       extends the lock's hold by the holder's descheduled time); page numbers not
       checked here.
    .. [2] T. Friebel, S. Biemueller, "How to deal with lock holder preemption", Xen
       Summit North America, 2008, slides (yielding the spinning virtual CPU; not
       re-read for this function).
    .. [3] Seed ``002_3ef25dc9d706703e.txt`` (WAVV 2008), slide "SLES / RHEL improved
       resource usage": DIAG 9C passes "who should get the processor".
    .. [4] IBM z/VM Performance Evaluation, "z/VM 5.3 Performance Report: Diagnose X'9C'
       Support", 2007, www.vm.ibm.com/perf/reports/zvm/html/diag9c.html, Abstract: 2 % to
       12 % more throughput than DIAG 44 on processor-constrained configurations, no
       benefit without contention.

    Examples
    --------
    Overcommit 2, 10 microsecond holds, 5 ms slices: m = 0.002, D = 5 ms.

    >>> round(preempted_hold_time(2.0, 10e-6, "spin").effective_hold_time, 15)   # 10 us + 0.002 * 5 ms
    2e-05
    >>> round(preempted_hold_time(2.0, 10e-6, "diag44", yielding_fraction=0.5).effective_hold_time, 15)
    1.501e-05
    >>> round(preempted_hold_time(1.0, 10e-6, "spin_retry_diag9c").effective_hold_time, 15)  # no overcommit
    1e-05
    """
    if strategy not in SPINLOCK_STRATEGIES:
        raise ValueError(f"strategy must be one of {list(SPINLOCK_STRATEGIES)}, got {strategy!r}")
    rho, h, ts = _check_preemption(overcommit, hold_time, time_slice)
    q = as_probability("yielding_fraction", yielding_fraction)
    n_retry = as_int_array("spin_retry", spin_retry, minimum=0).astype(float)
    t_it = as_float_array("spin_iteration_time", spin_iteration_time, positive=True)
    c = as_float_array("diagnose_cost", diagnose_cost)
    rho, h, ts, q, n_retry, t_it, c = np.broadcast_arrays(rho, h, ts, q, n_retry, t_it, c)
    _g, kappa, D, _EH, _ = _preemption(rho, h, ts)
    m = kappa * h / ts
    S = n_retry * t_it
    if strategy == "spin":
        W = D
    elif strategy in ("diag44", "spin_retry_diag44"):
        y = np.minimum(ts, c if strategy == "diag44" else S + c)
        W = D * ((1.0 - q) + q * y / ts)
    else:
        W = D * -np.expm1(-(S + c) / D)
    return PreemptedHoldResult(preemptions=m, holder_delay=W, effective_hold_time=h + m * W, strategy=strategy)


@dataclasses.dataclass(frozen=True)
class CpCosts:
    """CPU the z/VM control program (CP) spends for a guest, per I/O and per dispatch.

    Parameters
    ----------
    time_per_io : float
        CP CPU per guest I/O: intercept of the SSCH, channel-program translation and page
        pinning, reflection of the I/O interrupt [s].
    time_per_dispatch : float
        CP CPU per dispatch of a virtual CPU: the dispatcher's pass, SIE entry and exit [s].

    Examples
    --------
    >>> CpCosts().time_per_dispatch == DEFAULT_DIAGNOSE_COST
    True
    """

    time_per_io: float = param(
        25e-6, unit="s", range=(2e-6, 200e-6),
        source="assumed: not printed in the seeds. Order of magnitude on a z900/z990-class processor: a "
               "guest SSCH is intercepted, its channel program copied and translated and its pages "
               "fixed, and the interrupt reflected -- a few times the 10 us diagnose round trip "
               "(DEFAULT_DIAGNOSE_COST). The z/VM performance reports measure CP time per I/O ('z/VM "
               "4.2.0 Performance Report: Linux Guest DASD Performance', IBM 2002, vm.ibm.com/perf/"
               "reports/zvm/html/lxdasd.html; 'CP Disk I/O Performance', z/VM 5.2.0 report, IBM 2005, "
               "520dasd.html) as ratios between configurations; their absolute values were not read "
               "here. Range: a tenth to eight times")
    time_per_dispatch: float = param(
        DEFAULT_DIAGNOSE_COST, unit="s", range=(1e-6, 100e-6),
        source="assumed: a CP dispatch is one pass of the dispatcher plus a SIE exit and entry, the "
               "same round trip as a diagnose intercept (DEFAULT_DIAGNOSE_COST, 10 us) and half the "
               "20 us assumed per idle-guest tick (DEFAULT_TICK_COST: dispatch + timer interrupt). "
               "Range: a tenth to ten times")

    def __post_init__(self):
        check_fields(self)


@dataclasses.dataclass(frozen=True)
class CpOverheadResult(Result):
    """z/VM CP CPU per unit of guest work (a transaction).

    Attributes
    ----------
    dispatches : float, ndarray or Series
        Dispatches of the guest's virtual CPUs [1].
    io_time : float, ndarray or Series
        CP CPU for the I/Os [s].
    dispatch_time : float, ndarray or Series
        CP CPU for the dispatches [s].
    total_time : float, ndarray or Series
        ``io_time + dispatch_time`` [s].
    """

    dispatches: Any
    io_time: Any
    dispatch_time: Any
    total_time: Any


@vectorized
def cp_overhead(ios, wakeups, cpu_time, overcommit=1.0, costs: CpCosts | None = None, *,
                time_slice=DEFAULT_TIME_SLICE) -> CpOverheadResult:
    r"""CPU the z/VM control program spends on a guest's I/Os and virtual-CPU dispatches.

    Parameters
    ----------
    ios : float or array_like
        Guest I/O operations (SSCH) per unit of work, >= 0 [1].
    wakeups : float or array_like
        Times a virtual CPU of the guest leaves the wait state per unit of work (I/O and
        network interrupts it waits for), >= 0 [1].
    cpu_time : float or array_like
        Guest CPU time per unit of work, >= 0 [s].
    overcommit : float or array_like, default 1
        Runnable virtual CPUs per physical CPU, rho, positive [1].
    costs : CpCosts, optional
        CP CPU per I/O and per dispatch (default :class:`CpCosts`).
    time_slice : float or array_like, default 5e-3
        CP's minor time slice T_s (illustrative default), positive [s].

    Returns
    -------
    CpOverheadResult

    Notes
    -----
    A virtual CPU is dispatched once each time it leaves the wait state and, when other
    virtual CPUs wait for its physical CPU (probability :math:`\kappa = \min(1,
    \max(0, \rho - 1))`, as in :func:`holder_preemption`), once more per time slice of its
    CPU time:

    .. math::
        n_\text{disp} = n_\text{wake} + \kappa\, T_\text{cpu}/T_s,\qquad
        C_\text{CP} = n_\text{io}\, c_\text{io} + n_\text{disp}\, c_\text{disp}.

    Validity: costs are means per event (no minidisk cache, no I/O assist, no dedicated
    processors); CP's own paging and its timer management are not included.

    References
    ----------
    .. [1] IBM, *z/VM Performance*, SC24-6208: CP intercepts a guest's SSCH, translates
       its channel program, and dispatches virtual processors by minor time slices
       (``SET SRM DSPSLICE``); the mechanism only -- no per-event CPU figure is taken
       from it, and chapter and page were not checked here.
    .. [2] Seed ``000_bf0694975d199a2d.txt`` (IBM Systems Journal 2005), "Timer tick":
       every dispatch of a virtual CPU costs the host CPU ("the overhead for the idle
       guests adds up to a considerable value").

    Examples
    --------
    Two I/Os, three wakeups, 2 ms of CPU at overcommit 2 (two more slice-end dispatches):
    2 * 25 us + 5 * 10 us = 100 us.

    >>> r = cp_overhead(2, 3, 2 * 5e-3 / 5, 2.0, CpCosts(time_per_io=25e-6, time_per_dispatch=10e-6),
    ...                 time_slice=1e-3)
    >>> round(r.dispatches, 12), round(r.total_time, 15)
    (5.0, 0.0001)
    """
    c = CpCosts() if costs is None else costs
    if not isinstance(c, CpCosts):
        raise ValueError(f"costs must be a CpCosts, got {type(c).__name__}")
    n_io = as_float_array("ios", ios)
    n_wake = as_float_array("wakeups", wakeups)
    t = as_float_array("cpu_time", cpu_time)
    rho = as_float_array("overcommit", overcommit, positive=True)
    ts = as_float_array("time_slice", time_slice, positive=True)
    n_io, n_wake, t, rho, ts = np.broadcast_arrays(n_io, n_wake, t, rho, ts)
    kappa = np.clip(rho - 1.0, 0.0, 1.0)
    disp = n_wake + kappa * t / ts
    io_time = n_io * c.time_per_io
    disp_time = disp * c.time_per_dispatch
    return CpOverheadResult(dispatches=disp, io_time=io_time, dispatch_time=disp_time,
                            total_time=io_time + disp_time)
