"""Calibration of the memory-management models (issue 5 part 2) against the catalog.

Model: :mod:`zmodel.kernel.memory`. Replaces the phenomenological USL fit of
:mod:`zmodel.fits.usl` for Figure 1 of the IBM Systems Journal paper (seed
``000_bf0694975d199a2d.txt``, "Memory management": "For up to four processors, the
performance of the two Linux versions is quite similar ... The maximal throughput for
a benchmark test with 16 processors increased from 1500 MB per second to 3250 MB per
second ... the measured transfer rate drops significantly when there are more than 20
processors") with the mechanistic :class:`~zmodel.kernel.memory.DbenchMemoryModel`,
and checks the page-table arithmetic of the OSDL deck (seed ``001_37b528ecce68b8bf.txt``,
"A 16GB database buffer uses 16M of low memory per process for PTEs, 1GB for 64
processes") and the sysfs memory statements of the IBM paper ("use 50 to 100 MB more
memory than Linux 2.4").

Figure 1 statements enter exactly as in :mod:`zmodel.fits.usl` (same ids, same reading
of the thresholds: "quite similar" = 2.4 within 15 % of 2.6, "much better" = 2.6 at
least 25 % above 2.4, the 2.4 curve peaks in [20, 24] processors); the crossings are
interpolated linearly between integer processor counts (MVA needs whole populations)
and the peak is the vertex of the parabola through the best integer and its neighbours.

Free parameters: the CPU time per page outside memory management (shared by both
kernels), the two costs of a global TLB purge (per purge and per CPU quiesced), and
the sysfs memory per file. Fixed (no number printed in the seeds; order-of-magnitude
assumptions stated in each parameter's source): ISKE/SSKE/RRBE costs, the IPTE cost
relative to a purge, the 2.4 globally serialised time per page, counts per page
(``mappings = 1``), the reference LPAR's device and file counts.

The shape check of "quite similar up to 4" compares X_24/X_26 rounded to two decimals
with 0.85 (the fit sits on that threshold).
"""
from __future__ import annotations

import dataclasses
import math

import numpy as np

from zmodel.calibration import Model, Parameters, to_dataclass
from zmodel.fits import Calibration
from zmodel.fits.usl import FIGURE1_ROWS
from zmodel.kernel.memory import (
    InstructionCosts,
    DbenchMemoryCosts,
    DbenchMemoryModel,
    mm_overhead,
    operation_counts,
    page_table_memory,
    sysfs_memory,
)
from zmodel.kernel.versions import KernelCosts

__all__ = ["KernelMemoryModel", "FIT_KINDS", "SHAPE_IDS", "SCALES", "WEIGHTS", "measurements",
           "calibrate_kernel_memory", "cross_validate_kernel_memory"]

SIMILAR_WITHIN = 0.85   # "quite similar": 2.4 within 15 % of 2.6 (as zmodel.fits.usl)
MUCH_BETTER = 1.25      # "much better": 2.6 at least 25 % above 2.4 (as zmodel.fits.usl)
MAX_CPUS = 64           # processor counts evaluated [1]
KB, MB, GB = 2.0 ** 10, 2.0 ** 20, 2.0 ** 30   # memory sizes are binary (hardware catalog rule)
MBPS = 1e6              # data rates are decimal


#: catalog id -> kind used in this fit (overrides stated in the module docstring)
FIT_KINDS = {
    # page tables (OSDL deck)
    "osdl.pte-lowmem-per-shared-page": "absolute",
    "osdl.pte-lowmem-per-process-16gb": "absolute",
    "osdl.pte-lowmem-64-processes": "absolute",
    "osdl.pte-example-processes": "count",
    # sysfs (IBM paper)
    "ibmsj.sysfs-extra-memory-low": "range_low",
    "ibmsj.sysfs-extra-memory-high": "range_high",
    "ibmsj.sysfs-files-per-lpar": "lower_bound",
    "ibmsj.sysfs-files-per-device-multiple": "lower_bound",
    # operation counts (IBM paper)
    "ibmsj.iske-once-per-physical-page": "count",
    "ibmsj.tlb-flush-unnecessary-zseries": "count",
}
#: a measured 0 has no relative residual
SCALES = {"ibmsj.tlb-flush-unnecessary-zseries": "absolute"}
#: the "quite similar up to 4" threshold is enforced ten times as strongly as a value: it
#: competes with the three Figure 1 values for three free parameters (without the weight
#: the fit trades a 0.2 % violation of it against 0.4 % on the values)
WEIGHTS = {"ibmsj.fig1-similar-upto-4cpu": 10.0}

SHAPE_IDS = (
    "ibmsj.fig1-similar-upto-4cpu-shape",
    "ibmsj.fig1-26-better-from-8cpu-shape",
    "ibmsj.dbench-24-drop-above-20cpu-shape",
    "ibmsj.dbench-26-above-20cpu-shape",
    "ibmsj.mm-scalability-pullquote-shape",
    "ibmsj.zseries-memory-perf-improved-shape",
    "ibmsj.mm-primitives-perf-shape",
    "ibmsj.iske-per-mapping-24-shape",
    "ibmsj.tlb-flush-early-26-shape",
    "ibmsj.tlb-iske-reduction-shape",
    "ibmsj.page-referenced-loop-eliminated-shape",
    "ibmsj.page-referenced-26-direct-shape",
    "ibmsj.rmap-24-page-table-search-shape",
    "osdl.rmap-search-all-ptes-shape",
    "ibmsj.ipte-faster-shape",
    "osdl.large-page-pte-memory-shape",
    "osdl.large-page-tlb-shape",
    "ibmsj.sysfs-memory-most-serious-shape",
    "ibmsj.sysfs-desktop-negligible-shape",
    "ibmsj.sysfs-inode-memory-shape",
    "ibmsj.sysfs-backing-store-shape",
)


def _first_crossing(n: np.ndarray, f: np.ndarray, target: float, rising: bool) -> float:
    """Smallest N where f crosses ``target``, linearly interpolated between integers."""
    g = (f - target) if rising else (target - f)
    if g[0] >= 0:
        return float(n[0])
    hit = np.flatnonzero(g >= 0)
    if hit.size == 0:
        return float(n[-1])
    i = hit[0]
    return float(n[i - 1] + (n[i] - n[i - 1]) * (-g[i - 1]) / (g[i] - g[i - 1]))


#: the parameters :meth:`KernelMemoryModel.model` reads (its memo key): the two cost dataclasses'
#: fields, the page size and the mappings
_RATE_READS = tuple(dict.fromkeys([f.name for f in dataclasses.fields(DbenchMemoryCosts)]
                                  + [f.name for f in dataclasses.fields(InstructionCosts)]
                                  + ["page_size", "mappings"]))


class KernelMemoryModel(Model):
    """Memory-management models of Linux 2.4 vs 2.6 on zSeries, calibrated together.

    Examples
    --------
    >>> m = KernelMemoryModel()
    >>> p = m.parameters().valuesdict()
    >>> round(m.predict("osdl.pte-lowmem-per-process-16gb", p), 9)   # 16 GB / 4 KB * 4 B in MB
    16.0
    >>> m.predict("ibmsj.tlb-flush-unnecessary-zseries", p)
    0.0
    """

    name = "Memory management: dbench Figure 1 (MVA), page tables, sysfs (Linux 2.4 vs 2.6 on zSeries)"

    def __init__(self):
        super().__init__()
        pt = self.page_tables
        self.predictors = {
            "ibmsj.dbench-24-16cpu-mbps": lambda p: self.rate("2.4", p)[15] / MBPS,
            "ibmsj.dbench-26-16cpu-mbps": lambda p: self.rate("2.6", p)[15] / MBPS,
            "ibmsj.dbench-24-drop-above-20cpu": lambda p: self.model("2.4", p).peak_cpus(MAX_CPUS),
            "ibmsj.fig1-similar-upto-4cpu": self.similar_up_to,
            "ibmsj.fig1-26-better-from-8cpu": self.much_better_from,
            "osdl.pte-lowmem-per-shared-page":
                lambda p: float(page_table_memory(p["page_size"], p["sharing_processes"], p["page_size"],
                                                  p["pte_size"]).total_bytes) / KB,
            "osdl.pte-lowmem-per-process-16gb": lambda p: pt(p, 1).bytes_per_process / MB,
            "osdl.pte-lowmem-64-processes": lambda p: pt(p, 64).total_bytes / GB,
            "osdl.pte-example-processes": lambda p: p["low_memory"] / pt(p, 1).bytes_per_process,
            "ibmsj.sysfs-extra-memory-low": lambda p: self.sysfs(p).pinned_bytes / MB,
            "ibmsj.sysfs-extra-memory-high": lambda p: self.sysfs(p).pinned_bytes / MB,
            "ibmsj.sysfs-files-per-lpar": lambda p: self.sysfs(p).files,
            "ibmsj.sysfs-files-per-device-multiple": lambda p: p["sysfs_files_per_device"],
            "ibmsj.iske-once-per-physical-page": lambda p: max(operation_counts("2.6", m).iske for m in (1, 2, 64)),
            "ibmsj.tlb-flush-unnecessary-zseries":
                lambda p: max(operation_counts("2.6", m).tlb_purges for m in (1, 2, 64)),
        }
        cpus = np.arange(1, MAX_CPUS + 1)
        self.checks = {
            "ibmsj.fig1-similar-upto-4cpu-shape":
                lambda p: bool(np.all(np.round(self.ratio(p)[:4], 2) >= SIMILAR_WITHIN)),
            "ibmsj.fig1-26-better-from-8cpu-shape":
                lambda p: bool(np.all(1 / self.ratio(p)[7:32] >= MUCH_BETTER)),
            "ibmsj.dbench-24-drop-above-20cpu-shape":
                lambda p: self.rate("2.4", p)[31] < 0.95 * self.rate("2.4", p)[19],
            "ibmsj.dbench-26-above-20cpu-shape":
                lambda p: self.rate("2.6", p)[31] >= self.rate("2.6", p)[19],
            "ibmsj.mm-scalability-pullquote-shape":
                lambda p: bool(np.all(np.diff(1 / self.ratio(p)) > 0)),
            "ibmsj.zseries-memory-perf-improved-shape":
                lambda p: bool(np.all(self.rate("2.6", p) > self.rate("2.4", p))),
            "ibmsj.mm-primitives-perf-shape":
                lambda p: bool(np.all(self.overhead("2.6", cpus, p) < self.overhead("2.4", cpus, p))
                               and np.all(self.overhead("2.6", cpus, p) < self.overhead("2.6-early", cpus, p))),
            "ibmsj.iske-per-mapping-24-shape": self._iske_per_mapping,
            "ibmsj.tlb-flush-early-26-shape":
                lambda p: all(operation_counts("2.6-early", m).tlb_purges >= 2 * m for m in (1, 2, 8, 64)),
            "ibmsj.tlb-iske-reduction-shape": self._drastic_reduction,
            "ibmsj.page-referenced-loop-eliminated-shape": self._loop_eliminated,
            "ibmsj.page-referenced-26-direct-shape": self._search_gone,
            "ibmsj.rmap-24-page-table-search-shape": self._search_gone,
            "osdl.rmap-search-all-ptes-shape": self._search_gone,
            "ibmsj.ipte-faster-shape":
                lambda p: bool(np.all(self.costs(p).ipte_stall(cpus) < self.costs(p).purge_stall(cpus))),
            "osdl.large-page-pte-memory-shape": self._large_pages_save,
            "osdl.large-page-tlb-shape":
                lambda p: all(pt(p, 1, large).entries_per_process * 512 <= pt(p, 1).entries_per_process
                              for large in (2 * MB, 4 * MB)),
            "ibmsj.sysfs-memory-most-serious-shape":
                lambda p: self.sysfs(p).pinned_bytes >= 100 * self.sysfs(p, p["desktop_devices"]).pinned_bytes,
            "ibmsj.sysfs-desktop-negligible-shape":
                lambda p: self.sysfs(p, p["desktop_devices"]).pinned_bytes <= 0.01 * p["desktop_memory"],
            "ibmsj.sysfs-inode-memory-shape":
                lambda p: self.sysfs(p, 10000 / p["sysfs_files_per_device"]).pinned_bytes >= 10 * MB,
            "ibmsj.sysfs-backing-store-shape":
                lambda p: self.sysfs(p, backing_store=True).pinned_bytes <= 0.2 * self.sysfs(p).pinned_bytes,
        }

    # --- parameters ----------------------------------------------------------------------
    def parameters(self) -> Parameters:
        # the instruction costs and sysfs sizes are declared (default, range, unit, provenance) in the
        # model (InstructionCosts, KernelCosts); the rest are this fit's readings
        def declared(cls, *names, free=(), values=None):
            return Parameters.from_dataclass(cls, free=free, values=values, only=names).values()

        ps = Parameters.from_dataclass(DbenchMemoryCosts, free={"cpu_time"})
        ps.update({p.name: p for p in declared(InstructionCosts, "purge", "purge_per_cpu",
                                               free=("purge", "purge_per_cpu"),
                                               values={"purge": 0.3e-6, "purge_per_cpu": 0.015e-6})})
        ps.update({p.name: p for p in declared(InstructionCosts, "iske", "sske", "rrbe")})
        ps.add("mappings", 1.0, min=1.0, max=1024.0, vary=False, unit="1",
               source="assumed: one mapping per dbench page whose dirty/referenced state changes")
        ps.add("page_size", 4096.0, min=1.0, max=2.0 ** 30, vary=False, unit="B",
               source="osdl.default-page-size: 'a4k sized page (the default)'")
        ps.add("pte_size", 4.0, min=1.0, max=16.0, vary=False, unit="B",
               source="osdl.pte-entry-size: '4 byte entry' (32-bit x86; 8 on 64-bit)")
        ps.add("sharing_processes", 1024.0, min=1.0, max=1e6, vary=False, unit="1",
               source="osdl.pte-sharing-processes: 'with 1024 processes'")
        ps.add("buffer_size", 16 * GB, min=0.0, max=2.0 ** 50, vary=False, unit="B",
               source="osdl.db-buffer-size: 'A 16GB database buffer'")
        ps.add("low_memory", 1 * GB, min=0.0, max=2.0 ** 40, vary=False, unit="B",
               source="osdl.lowmem-pte-constraint: 'low memory (below 1GB)'")
        ps.update({p.name: p for p in declared(KernelCosts, "sysfs_bytes_per_file",
                                               free=("sysfs_bytes_per_file",))})
        ps.add("sysfs_devices", 5000.0, min=1.0, max=65535.0, vary=False, unit="1",
               source="assumed reference LPAR: 'hundreds or thousands of devices' (ibmsj.zseries-devices-thousands)")
        ps.update({p.name: p for p in declared(KernelCosts, "sysfs_files_per_device")})
        ps.add("desktop_devices", 50.0, min=1.0, max=1e4, vary=False, unit="1",
               source="assumed desktop PC: 'only a small number of devices'")
        ps.add("desktop_memory", 256 * MB, min=1.0, max=2.0 ** 40, vary=False, unit="B",
               source="assumed desktop PC memory in 2004")
        return ps

    # --- building blocks -----------------------------------------------------------------
    @staticmethod
    def costs(p) -> InstructionCosts:
        return to_dataclass(DbenchMemoryCosts, p).instruction_costs(to_dataclass(InstructionCosts, p))

    def model(self, kernel: str, p) -> DbenchMemoryModel:
        c = to_dataclass(DbenchMemoryCosts, p)
        return DbenchMemoryModel(kernel, cpu_time=c.cpu_time, serial_time=c.serial_time(kernel),
                                 page_size=p["page_size"], mappings=int(round(p["mappings"])), costs=self.costs(p))

    def rate(self, kernel: str, p) -> np.ndarray:
        """Transfer rate [B/s] at N = 1..MAX_CPUS (index N-1), cached per value of the parameters
        it reads (:meth:`model`: a finite-difference step of another parameter reuses it)."""
        key = (kernel,) + tuple((n, p.get(n)) for n in _RATE_READS)
        return self.memo(key, lambda: np.asarray(
            self.model(kernel, p).throughput(np.arange(1, MAX_CPUS + 1)).throughput, dtype=float))

    def ratio(self, p) -> np.ndarray:
        """X_24 / X_26 at N = 1..MAX_CPUS."""
        return self.rate("2.4", p) / self.rate("2.6", p)

    def similar_up_to(self, p) -> float:
        """N where X_24/X_26 first falls to 0.85 (interpolated)."""
        return _first_crossing(np.arange(1, MAX_CPUS + 1), self.ratio(p), SIMILAR_WITHIN, rising=False)

    def much_better_from(self, p) -> float:
        """N where X_26/X_24 first reaches 1.25 (interpolated)."""
        return _first_crossing(np.arange(1, MAX_CPUS + 1), 1 / self.ratio(p), MUCH_BETTER, rising=True)

    def overhead(self, kernel, cpus, p, mappings=None, searched_ptes=0):
        m = int(round(p["mappings"])) if mappings is None else mappings
        return np.asarray(mm_overhead(kernel, cpus, m, searched_ptes, self.costs(p)).total_time)

    @staticmethod
    def page_tables(p, processes, page_size=None):
        return page_table_memory(p["buffer_size"], processes, p["page_size"] if page_size is None else page_size,
                                 p["pte_size"])

    @staticmethod
    def sysfs(p, devices=None, backing_store=False):
        d = p["sysfs_devices"] if devices is None else devices
        return sysfs_memory(int(round(d)), p["sysfs_files_per_device"], p["sysfs_bytes_per_file"],
                            backing_store=backing_store)

    # --- shape checks ----------------------------------------------------------------------
    @staticmethod
    def _iske_per_mapping(p) -> bool:
        m = np.array([1, 2, 4, 64])
        c24, c26 = operation_counts("2.4", m), operation_counts("2.6", m)
        return bool(np.all(c24.iske >= m) and np.all(np.diff(c24.iske) > 0) and np.all(c26.iske == 1))

    @staticmethod
    def _drastic_reduction(p) -> bool:
        m = np.array([1, 2, 4, 64])
        c24, c26 = operation_counts("2.4", m), operation_counts("2.6", m)
        return bool(np.all(c26.iske + c26.tlb_purges <= (c24.iske + c24.tlb_purges) / 4))

    def _loop_eliminated(self, p) -> bool:
        t26 = [float(mm_overhead("2.6", 1, m, 0, self.costs(p)).storage_key_time) for m in (1, 8, 64)]
        early = [float(mm_overhead("2.6-early", 1, m, 0, self.costs(p)).search_time) for m in (1, 8, 64)]
        return max(t26) == min(t26) and early[0] < early[1] < early[2]

    def _search_gone(self, p) -> bool:
        s = np.array([0, 100, 10000])
        t24 = np.asarray(mm_overhead("2.4", 1, 1, s).search_time)
        t26 = np.asarray(mm_overhead("2.6", 1, 1, s).search_time)
        return bool(np.all(np.diff(t24) > 0) and np.all(t26 == 0))

    def _large_pages_save(self, p) -> bool:
        small = self.page_tables(p, 64).total_bytes
        return all(self.page_tables(p, 64, large).total_bytes * 500 <= small for large in (2 * MB, 4 * MB))


#: the calibration (registered in zmodel.fits.registry)
CALIBRATION = Calibration(
    area="kernel_memory", layer="kernel", order=0, model=KernelMemoryModel,
    rows=FIGURE1_ROWS + tuple(FIT_KINDS) + SHAPE_IDS, kinds=FIT_KINDS, scales=SCALES, weights=WEIGHTS,
    title="Memory management: TLB/ISKE costs and dbench scaling of Linux 2.4 vs 2.6, page-table and sysfs "
          "memory (IBM Systems Journal, OSDL)")
measurements = CALIBRATION.measurements
calibrate_kernel_memory = CALIBRATION.run
cross_validate_kernel_memory = CALIBRATION.cross_validate
