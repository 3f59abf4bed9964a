"""Calibration of the hypervisor models (:mod:`zmodel.kernel.hypervisor`) against the seeds.

Documented numbers used (catalog ``zmodel.data.measurements``):

* the ``top`` snapshot of the WAVV 2008 update (seed ``002_3ef25dc9d706703e.txt``,
  slide "Linux command 'top' - the snapshot tool"): six ``Cpu`` lines of a SLES10 /
  RHEL5 guest. The fitted numbers are the six steal percentages
  ``wavv08.top-cpu{0..5}-st`` (53.0, 52.6, 38.7, 49.1, 45.5, 48.6 %st). The model is
  :func:`~zmodel.kernel.hypervisor.guest_cpu_accounting`: each virtual CPU is runnable
  a fraction ``r_j = 1 - %id - %wa`` of the time (the snapshot's own idle and iowait
  columns, ``wavv08.top-cpu{j}-id`` / ``-wa``, are inputs, not fitted), and the
  runnable virtual CPUs share a physical capacity ``guest_capacity`` by processor
  sharing, so ``st_j = r_j (1 - C / sum r)``. The slide does not say how many physical
  CPUs backed the six virtual CPUs: ``guest_capacity`` is the one free parameter
  (the physical CPUs' worth the hypervisor gave this guest).
* the timer tick (seed ``000_bf0694975d199a2d.txt``, "Timer tick", and seed 002,
  "virtual CPU time accounting"): the 10 ms dispatch interval of every virtual CPU
  (``ibmsj.tick-dispatch-interval``) and the 10 ms timer interrupt
  (``wavv08.timer-interrupt-period``), predicted as ``1/HZ`` with the s390 HZ = 100
  (a fixed parameter); "z/VM supports hundreds of Linux guests"
  (``ibmsj.zvm-guests-hundreds``, ``ibmsj.linux-instances-hundreds``, lower bounds
  100), read as: the number of idle, ticking guests that alone saturate the machine
  (:func:`~zmodel.kernel.hypervisor.idle_guest_overhead` on the 16-CPU z990 of
  seed 002, ``wavv08.z990-cpus``) is at least 100.

The tick cost per idle guest is not printed in any seed: it is a fixed, illustrative
parameter (20 microseconds), and the statements about it are bounds and shape checks,
not numbers. Shape statements checked (reported, not fitted): LPAR sharing of
processor time, z/VM's "any number" of guests, the idle-guest overhead that "adds up
to a considerable value", the timer activity that prevents idle detection, the
inaccuracy of tick-based CPU accounting under virtual CPUs, and DIAG 44 allowing
"more useful work to be done". Not used: ``ibmsj.virtualization-ways-count`` (a
count of concepts), the chart-only ``fs03.*`` z/VM rows (no values in the text).

Reading of "considerable": at least 10 % of one physical CPU consumed by 100 idle
guests at HZ = 100 (a modelling threshold stated here, :data:`CONSIDERABLE_CPUS`).
"""
from __future__ import annotations

import numpy as np

from zmodel.calibration import Model, Parameters, to_dataclass
from zmodel.fits import Calibration
from zmodel.kernel.hypervisor import (
    HypervisorCosts,
    ZVM_TEST_IDLE,
    guest_cpu_accounting,
    idle_guest_overhead,
    lpar_dispatch,
    spinlock_yield,
)

__all__ = ["HypervisorModel", "measurements", "calibrate_kernel_hypervisor",
           "cross_validate_kernel_hypervisor", "STEAL_IDS", "FIT_IDS", "SHAPE_IDS", "snapshot_inputs"]

VCPUS = 6
STEAL_IDS = tuple(f"wavv08.top-cpu{j}-st" for j in range(VCPUS))
FIT_IDS = STEAL_IDS + (
    "ibmsj.tick-dispatch-interval",
    "wavv08.timer-interrupt-period",
    "ibmsj.zvm-guests-hundreds",
    "ibmsj.linux-instances-hundreds",
)
SHAPE_IDS = (
    "ibmsj.lpar-sharing-shape",
    "ibmsj.zvm-any-number-of-vms-shape",
    "ibmsj.idle-guest-overhead-shape",
    "ibmsj.timer-prevents-idle-detect-shape",
    "wavv08.virtual-cpu-accounting-inaccurate-shape",
    "wavv08.diag44-more-work-shape",
)
#: "adds up to a considerable value": >= 0.1 CPU for 100 idle guests at HZ = 100
CONSIDERABLE_CPUS = 0.1
#: "too inaccurate": tick-based busy off by >= 10 percentage points on every CPU line
INACCURATE_POINTS = 10.0
#: conditions of the DIAG 44 check: 2 runnable virtual CPUs per physical CPU, 10 us holds
DIAG_CHECK_OVERCOMMIT = 2.0
DIAG_CHECK_HOLD = 10e-6
_COLUMNS = ("us", "sy", "ni", "id", "wa", "hi", "si", "st")


def snapshot_inputs(rows=None) -> dict[str, np.ndarray]:
    """The ``top`` snapshot's columns as fractions, one array of 6 per column.

    Parameters
    ----------
    rows : pandas.DataFrame, optional
        Catalog rows (default: read ``wavv08.top-cpu*`` from :mod:`zmodel.data`).

    Returns
    -------
    dict
        ``{"us": array(6), ..., "st": array(6)}`` in [1] (percent / 100).
    """
    if rows is None:
        from zmodel.data import measurements as catalog

        ids = [f"wavv08.top-cpu{j}-{c}" for j in range(VCPUS) for c in _COLUMNS]
        rows = catalog(ids=ids)
    values = dict(zip(rows["id"], rows["value_num"].astype(float)))
    return {c: np.array([values[f"wavv08.top-cpu{j}-{c}"] for j in range(VCPUS)]) / 100.0 for c in _COLUMNS}


class HypervisorModel(Model):
    """Steal time of the WAVV 2008 ``top`` snapshot, tick interval and idle-guest limits.

    Examples
    --------
    >>> m = HypervisorModel(inputs={"id": np.zeros(6), "wa": np.zeros(6)})
    >>> p = {"guest_capacity": 3.0, "hz": 100.0, "cost_per_tick": 20e-6, "physical_cpus": 16.0}
    >>> round(m.steal_percent(0, p), 9)          # 6 always-runnable VCPUs on 3 CPUs
    50.0
    >>> round(m.tick_interval_ms(p), 9), round(m.saturation_guests(p))
    (10.0, 8000)
    """

    name = "Hypervisor scheduling: top steal time, timer ticks, idle guests (seeds 000, 002)"

    def __init__(self, inputs: dict | None = None):
        super().__init__()
        self.inputs = snapshot_inputs() if inputs is None else inputs
        for j, id_ in enumerate(STEAL_IDS):
            self.add_predictor(id_, lambda p, j=j: self.steal_percent(j, p))
        self.add_predictor("ibmsj.tick-dispatch-interval", self.tick_interval_ms)
        self.add_predictor("wavv08.timer-interrupt-period", self.tick_interval_ms)
        self.add_predictor("ibmsj.zvm-guests-hundreds", self.saturation_guests)
        self.add_predictor("ibmsj.linux-instances-hundreds", self.saturation_guests)
        self.add_check("ibmsj.lpar-sharing-shape", self.lpar_shares_dynamically)
        self.add_check("ibmsj.zvm-any-number-of-vms-shape", self.no_guest_limit_with_patch)
        self.add_check("ibmsj.idle-guest-overhead-shape", self.idle_overhead_considerable)
        self.add_check("ibmsj.timer-prevents-idle-detect-shape", self.ticks_prevent_idle_detection)
        self.add_check("wavv08.virtual-cpu-accounting-inaccurate-shape", self.tick_accounting_inaccurate)
        self.add_check("wavv08.diag44-more-work-shape", self.diag44_saves_cpu)

    def parameters(self) -> Parameters:
        # the tick rate and cost are declared once in HypervisorCosts (held at their values); the
        # guest capacity and the machine's CPUs are this fit's readings of the snapshot
        ps = Parameters()
        ps.add("guest_capacity", 3.0, min=0.1, max=float(VCPUS), unit="CPUs",
               source="physical capacity behind the snapshot guest's 6 virtual CPUs; not printed (fitted; "
                      "starts at 3, assumed: half of the virtual CPUs)")
        ps.update(Parameters.from_dataclass(HypervisorCosts))
        ps.add("physical_cpus", 16.0, vary=False, unit="CPUs",
               source="wavv08.z990-cpus: 2084-B16 (z990), '2 Books, 16 CPUs'")
        return ps

    @staticmethod
    def costs(p) -> HypervisorCosts:
        """The tick parameters at the fit's values ``p``."""
        return to_dataclass(HypervisorCosts, p)

    @staticmethod
    def idle(guests, p, **kw):
        """:func:`~zmodel.kernel.hypervisor.idle_guest_overhead` at the fit's tick parameters."""
        c = HypervisorModel.costs(p)
        return idle_guest_overhead(guests, c.hz, cost_per_tick=c.cost_per_tick, physical_cpus=p["physical_cpus"],
                                   **kw)

    # --- predictions ------------------------------------------------------------------
    def _runnable(self):
        return 1.0 - self.inputs["id"] - self.inputs["wa"]

    def accounting(self, p):
        """:func:`guest_cpu_accounting` of the snapshot guest at ``guest_capacity``."""
        return guest_cpu_accounting(self._runnable(), p["guest_capacity"], iowait=self.inputs["wa"])

    def steal_percent(self, cpu: int, p) -> float:
        """Predicted %st of virtual CPU ``cpu`` [%]."""
        return float(self.accounting(p).steal[cpu])

    @staticmethod
    def tick_interval_ms(p) -> float:
        """Interval between the ticks of a ticking guest, 1/HZ [ms]."""
        return 1e3 * HypervisorModel.idle(1, p).idle_interval

    @staticmethod
    def saturation_guests(p) -> float:
        """Idle ticking guests (HZ of ``p``) that alone saturate ``physical_cpus`` [1]."""
        return HypervisorModel.idle(1, p).saturation_guests

    # --- shape checks -------------------------------------------------------------------
    @staticmethod
    def lpar_shares_dynamically(p) -> bool:
        """Two equal-weight uncapped LPARs: an idle one's share goes to the busy one."""
        P = p["physical_cpus"]
        n = int(P)
        busy = lpar_dispatch(P, [1.0, 1.0], [n, n], [float(n), float(n)]).achieved_capacity
        one_idle = lpar_dispatch(P, [1.0, 1.0], [n, n], [float(n), 0.0]).achieved_capacity
        return bool(np.allclose(busy, [P / 2, P / 2]) and np.isclose(one_idle[0], P))

    @staticmethod
    def no_guest_limit_with_patch(p) -> bool:
        """With the idle-tick patch, idle guests cost no CPU however many there are."""
        r = HypervisorModel.idle([10, 1000, 100000], p, idle_tick_patch=True)
        return bool(np.all(r.cpu_overhead == 0) and np.all(np.isinf(r.saturation_guests)))

    @staticmethod
    def idle_overhead_considerable(p) -> bool:
        """Overhead grows with the idle guests, is considerable at 100, vanishes with the patch."""
        n = np.array([1, 10, 100, 200, 500])
        r = HypervisorModel.idle(n, p)
        patched = HypervisorModel.idle(100, p, idle_tick_patch=True)
        return bool(np.all(np.diff(r.cpu_overhead) > 0) and r.cpu_overhead[2] >= CONSIDERABLE_CPUS
                    and patched.cpu_overhead == 0)

    @staticmethod
    def ticks_prevent_idle_detection(p) -> bool:
        """A ticking guest is never idle longer than z/VM's test-idle time; a patched one is."""
        hz = HypervisorModel.costs(p).hz
        ticking = idle_guest_overhead(1, [hz, 1000.0], test_idle=ZVM_TEST_IDLE).recognized_idle
        patched = idle_guest_overhead(1, hz, idle_tick_patch=True, test_idle=ZVM_TEST_IDLE).recognized_idle
        return bool(np.all(ticking == 0) and patched == 1)

    def tick_accounting_inaccurate(self, p) -> bool:
        """Tick-based busy exceeds the true busy by >= 10 points on every snapshot CPU."""
        a = self.accounting(p)
        true_busy = a.user + a.nice + a.system + a.hardirq + a.softirq
        return bool(np.all(a.tick_based_busy - true_busy >= INACCURATE_POINTS))

    @staticmethod
    def diag44_saves_cpu(p) -> bool:
        """Overcommitted: DIAG 44 burns less CPU per contended lock than spinning."""
        spin = spinlock_yield(DIAG_CHECK_OVERCOMMIT, DIAG_CHECK_HOLD, "spin")
        diag = spinlock_yield(DIAG_CHECK_OVERCOMMIT, DIAG_CHECK_HOLD, "diag44")
        return bool(diag.wasted_cpu < spin.wasted_cpu)


#: the calibration (registered in zmodel.fits.registry)
CALIBRATION = Calibration(
    area="kernel_hypervisor", layer="kernel", order=1, model=HypervisorModel, rows=FIT_IDS + SHAPE_IDS,
    title="Hypervisors: steal time of the top snapshot, timer ticks, idle guests (WAVV 2008, IBM Systems Journal)")
measurements = CALIBRATION.measurements
calibrate_kernel_hypervisor = CALIBRATION.run
cross_validate_kernel_hypervisor = CALIBRATION.cross_validate
