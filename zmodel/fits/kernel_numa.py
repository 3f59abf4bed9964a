"""Calibration of the Altix NUMA models (issue 5 part 5) against the catalog.

Model: :mod:`zmodel.kernel.numa`. Source: Bryant, Barnes, Hawkes, Higdon, Steiner,
"Scaling Linux to the Extreme: from 64 to 512 Processors", Proc. Linux Symposium 2004
(seed ``003_b2fdde8a1106fead.txt``), plus one OSDL shape claim (seed
``001_37b528ecce68b8bf.txt``, "Kernel -- NUMA").

Rows and how they enter (kind overrides are stated with their reason in
:data:`FIT_KINDS`):

* latency ratios "varies from 1.9 to 3.5": the smallest and largest remote/local ratio
  over node pairs of a 512-CPU Altix (no router: 1.9; three routers: 3.5), read as the
  two *values* of the extremes (the catalog's range_low/range_high would accept any
  ratio inside);
* HUGETLB: "as long as 5,000 seconds" to zero 4 TB with one CPU (read as the measured
  value of the full-memory case), "speedups of 25x using 16 processors to touch O(100 GB)",
  and the projection "reduce the 5,000 second time ... to 200 seconds" -- predicted by the
  model's own 16-CPU time on 4 TB (the paper obtained it by assuming the same speedup; the
  catalog notes mark it a projection). The super-linear shape claim is a check;
* PIO Tables 1-3 (ns) and DMA Table 4 (I/Os per second) as values. Table 3 does not state
  its load: its regular-minus-relaxed difference (5940 - 2619 = 3321 ns) matches the busy
  system of Table 2 (4889 - 1646 = 3243 ns), not the idle one (2576 ns), so Table 3 is
  evaluated at the busy load;
* page cache: "up to 40,000 pages more" on the reading node after a 10 GB read with
  round-robin page cache and local slab (read as the observed value), and the local-memory
  arithmetic of the 512-CPU, 512 GB example (2 GB per node, < 0.4 % local).

Free parameters: local latency, the ratio at no router and per router, the PIO costs
(round trip, DMA flush, drain per write, chipset read) and the busy-path utilization,
the DMA time per I/O and buffer accesses per I/O, slab bytes per page-cache page. Fixed
(stated in each parameter's source): system size 512 CPUs for the hugetlb and page-cache
experiments, 4 line writes in flight per CPU, 128-byte lines, 6.4 GB/s per memory
controller, 16 KiB pages, the remote DMA buffer one router away.

Rows a single free parameter reproduces exactly (their leave-one-out error says nothing
about the model): the two DMA rows (time per I/O and accesses per I/O) and the slab row.
:data:`EXACTLY_DETERMINED` lists them.
"""
from __future__ import annotations

import dataclasses

import numpy as np

from zmodel.calibration import Model, Parameters, to_dataclass
from zmodel.fits import Calibration
from zmodel.kernel.numa import (
    AltixTopology,
    NumaCosts,
    NumaLatency,
    PioCosts,
    hugetlb_zeroing,
    latency_ratio_range,
    memory_access_time,
    page_cache_placement,
    pio_cost,
)
from zmodel.units import GiB as GIB

__all__ = ["KernelNumaModel", "FIT_KINDS", "SHAPE_IDS", "EXACTLY_DETERMINED", "measurements",
           "calibrate_kernel_numa", "cross_validate_kernel_numa"]

NS = 1e-9
TIB = 2.0 ** 40

#: catalog id -> kind used in this fit
FIT_KINDS = {
    # latency ratio extremes: catalog range_low/range_high; the endpoints are values
    "altix.remote-local-latency-ratio-low": "ratio",
    "altix.remote-local-latency-ratio-high": "ratio",
    # HUGETLB zeroing
    "altix.hugetlb-parallel-speedup": "ratio",
    "altix.hugetlb-zero-time": "absolute",            # catalog: upper_bound ("as long as"): the full-pool time
    "altix.hugetlb-projected-time": "absolute",       # projection (catalog notes); model's own 16-CPU time
    # PIO, Tables 1-3
    "altix.t1-normal-pio-read-idle": "absolute",
    "altix.t1-relaxed-pio-read-idle": "absolute",
    "altix.t2-normal-pio-read-busy": "absolute",
    "altix.t2-relaxed-pio-read-busy": "absolute",
    "altix.t3-regular-pio-read-flush": "absolute",
    "altix.t3-relaxed-pio-read-flush": "absolute",
    "altix.t3-sn-mmiob-flush": "absolute",
    "altix.t3-local-chipset-read": "absolute",
    # DMA, Table 4
    "altix.t4-local-consistent-iops": "absolute",
    "altix.t4-remote-consistent-iops": "absolute",
    # page cache and local memory
    "altix.readfile-node-imbalance-pages": "absolute",  # catalog: upper_bound ("up to"): the observed peak
    "altix.local-memory-per-node": "configuration",
    "altix.local-memory-fraction": "upper_bound",
    "altix.large-tables-local-fraction": "upper_bound",
}

SHAPE_IDS = (
    "altix.hugetlb-superlinear-shape",
    "osdl.numa-local-refs-shape",
)

#: rows reproduced exactly by a parameter only they constrain (leave-one-out uninformative)
EXACTLY_DETERMINED = (
    "altix.t4-local-consistent-iops",
    "altix.t4-remote-consistent-iops",
    "altix.readfile-node-imbalance-pages",
)

#: processor counts of the super-linear check
SUPERLINEAR_CPUS = (2, 4, 8, 16)
#: the parameters of NumaCosts this fit varies
FREE = ("local_latency", "nearest_ratio", "per_router_ratio", "pio_round_trip", "pio_dma_flush", "pio_write_drain",
        "chipset_read", "dma_io_time", "dma_accesses", "slab_bytes_per_page")


class KernelNumaModel(Model):
    """Altix NUMA models (latency, hugetlb zeroing, PIO, DMA, page cache), calibrated together.

    Examples
    --------
    >>> m = KernelNumaModel()
    >>> p = m.parameters().valuesdict()
    >>> m.predict("altix.local-memory-per-node", p)        # 512 GB over 256 nodes
    2.0
    >>> round(m.predict("altix.local-memory-fraction", p), 6)   # 100 / 256 %
    0.390625
    """

    name = "Altix NUMA: latency ratios, HUGETLB zeroing (MVA), PIO/DMA costs, page-cache placement"

    def __init__(self):
        super().__init__()
        self.predictors = {
            "altix.remote-local-latency-ratio-low": lambda p: self.ratio_range(p).min_ratio,
            "altix.remote-local-latency-ratio-high": lambda p: self.ratio_range(p).max_ratio,
            "altix.hugetlb-parallel-speedup": lambda p: self.zeroing(p["hugetlb_cpus"], p["hugetlb_region"], p).speedup,
            "altix.hugetlb-zero-time": lambda p: self.zeroing(1, p["machine_memory"], p).time,
            "altix.hugetlb-projected-time": lambda p: self.zeroing(p["hugetlb_cpus"], p["machine_memory"], p).time,
            "altix.t1-normal-pio-read-idle": lambda p: self.pio("normal_read", p, busy=False),
            "altix.t1-relaxed-pio-read-idle": lambda p: self.pio("relaxed_read", p, busy=False),
            "altix.t2-normal-pio-read-busy": lambda p: self.pio("normal_read", p, busy=True),
            "altix.t2-relaxed-pio-read-busy": lambda p: self.pio("relaxed_read", p, busy=True),
            "altix.t3-regular-pio-read-flush": lambda p: self.pio("flush_normal_read", p, busy=True, writes=True),
            "altix.t3-relaxed-pio-read-flush": lambda p: self.pio("flush_relaxed_read", p, busy=True, writes=True),
            "altix.t3-sn-mmiob-flush": lambda p: self.pio("flush_mmiob", p, busy=True, writes=True),
            "altix.t3-local-chipset-read": lambda p: self.pio("chipset_read", p, busy=True),
            "altix.t4-local-consistent-iops": lambda p: self.dma(p, -1),
            "altix.t4-remote-consistent-iops": lambda p: self.dma(p, int(round(p["dma_remote_routers"]))),
            "altix.readfile-node-imbalance-pages": lambda p: self.readfile(p).imbalance_pages,
            "altix.local-memory-per-node": lambda p: self.example_topology(p).memory_per_node / GIB,
            "altix.local-memory-fraction": lambda p: 100 * self.example_topology(p).local_memory_fraction,
            "altix.large-tables-local-fraction": lambda p: 100 * self.example_topology(p).local_memory_fraction,
        }
        self.checks = {
            "altix.hugetlb-superlinear-shape": self._superlinear,
            "osdl.numa-local-refs-shape": self._local_refs,
        }

    # --- parameters ----------------------------------------------------------------------
    def parameters(self) -> Parameters:
        # the model's latencies, bandwidths and sizes are declared once in NumaCosts (defaults are
        # data-independent orders of magnitude: the leave-one-out refits start there); the rest
        # are this fit's readings of the paper's experiments
        declared = list(Parameters.from_dataclass(NumaCosts, free=FREE).values())
        # the busy load is inserted where it stood before the costs moved to NumaCosts: the
        # optimiser's order of the free parameters is kept, so the fitted values stay bit-identical
        cut = [q.name for q in declared].index("pio_write_drain")
        ps = Parameters(declared[:cut])
        ps.add("system_cpus", 512.0, min=4.0, max=4096.0, vary=False, unit="1",
               source="assumed: the HUGETLB and page-cache experiments ran on the paper's 512-CPU Altix "
                      "(altix.kernel-changes-cpus); not stated")
        ps.add("hugetlb_cpus", 16.0, min=1.0, max=4096.0, vary=False, unit="1",
               source="altix.hugetlb-parallel-cpus: 'using 16 processors'")
        ps.add("hugetlb_region", 100 * GIB, min=1.0, max=2.0 ** 50, vary=False, unit="B",
               source="altix.hugetlb-parallel-size: 'O(100 GB)', order of magnitude only")
        ps.add("machine_memory", 4 * TIB, min=1.0, max=2.0 ** 50, vary=False, unit="B",
               source="altix.hugetlb-machine-memory: 'a machine with 4 TB of memory', all of it huge pages")
        ps.add("busy_load", 0.5, min=0.0, max=0.95, unit="1",
               source="fitted: utilization of the I/O path by DMA on the 'busy system' of Table 2 (and Table 3); "
                      "starts at 0.5, assumed")
        ps.update(Parameters(declared[cut:]))
        ps.add("pio_writes", 5.0, min=0.0, max=1e4, vary=False, unit="1",
               source="altix.t3-pio-writes-flushed: 'flushing of 5 PIO writes'")
        ps.add("dma_remote_routers", 1.0, min=0.0, max=3.0, vary=False, unit="1",
               source="assumed: the 'remote consistent buffer' was one router from the device's node (not stated)")
        ps.add("readfile_bytes", 10 * GIB, min=1.0, max=2.0 ** 50, vary=False, unit="B",
               source="altix.readfile-size: 'After reading a 10 GB file'")
        ps.add("example_cpus", 512.0, min=4.0, max=4096.0, vary=False, unit="1",
               source="altix.pagecache-example-cpus: 'on a 512 CPU system'")
        ps.add("example_memory", 512 * GIB, min=1.0, max=2.0 ** 50, vary=False, unit="B",
               source="altix.pagecache-example-memory: 'if the entire system has 512 GB of memory'")
        ps.add("home_node_share", 0.9, min=0.0, max=1.0, vary=False, unit="1",
               source="assumed for the OSDL shape check: share of a task's run time on its home node with a "
                      "NUMA-aware scheduler")
        return ps

    # --- building blocks -----------------------------------------------------------------
    @staticmethod
    def costs(p) -> NumaCosts:
        """The model parameters at the fit's values ``p``."""
        return to_dataclass(NumaCosts, p)

    @staticmethod
    def latency(p) -> NumaLatency:
        return to_dataclass(NumaCosts, p).latency()

    def ratio_range(self, p):
        key = ("ratio", p["system_cpus"]) + tuple(p[n] for n in self._LATENCY)
        return self.memo(key, lambda: latency_ratio_range(int(round(p["system_cpus"])), self._latency(p)))

    # memoised forms of the building blocks above, keyed on the parameters each reads (a
    # finite-difference step of another parameter reuses them; pure functions, same values)
    def _costs(self, p) -> NumaCosts:
        return self.memo(("costs",) + tuple(p.get(n) for n in self._COSTS), lambda: self.costs(p))

    def _latency(self, p) -> NumaLatency:
        return self.memo(("latency",) + tuple(p[n] for n in self._LATENCY), lambda: self._costs(p).latency())

    def _pio_costs(self, p) -> PioCosts:
        return self.memo(("pio_costs",) + tuple(p[n] for n in self._PIO_COSTS), lambda: self._costs(p).pio())

    #: parameters each memoised building block reads (its memo key: a finite-difference step of
    #: another parameter reuses the value)
    _LATENCY = ("local_latency", "nearest_ratio", "per_router_ratio")
    _ZEROING = ("system_cpus", "outstanding", "line_size", "node_bandwidth") + _LATENCY
    _READFILE = ("readfile_bytes", "system_cpus", "page_size", "slab_bytes_per_page") + _LATENCY
    _COSTS = tuple(f.name for f in dataclasses.fields(NumaCosts))
    _PIO_COSTS = ("pio_round_trip", "pio_dma_flush", "pio_write_drain", "chipset_read")
    _DMA = ("dma_io_time", "dma_accesses") + _LATENCY

    def zeroing(self, cpus, region, p):
        key = ("zero", cpus, region) + tuple(p[n] for n in self._ZEROING)
        return self.memo(key, lambda: self._zeroing(cpus, region, p))

    def _zeroing(self, cpus, region, p):
        c = self._costs(p)
        return hugetlb_zeroing(int(round(cpus)), region, system_cpus=int(round(p["system_cpus"])),
                               outstanding=int(round(c.outstanding)), line_size=c.line_size,
                               node_bandwidth=c.node_bandwidth, latency=self._latency(p))

    @staticmethod
    def pio_costs(p) -> PioCosts:
        return to_dataclass(NumaCosts, p).pio()

    def pio(self, operation, p, busy: bool, writes: bool = False) -> float:
        """Cost of a PIO operation [ns] (the catalog's unit), memoised per parameter values."""
        names = ("pio_writes", "busy_load", "pio_round_trip", "pio_dma_flush", "pio_write_drain", "chipset_read")
        key = ("pio", operation, busy, writes) + tuple(p[n] for n in names)
        return self.memo(key, lambda: self._pio(operation, p, busy, writes))

    def _pio(self, operation, p, busy: bool, writes: bool) -> float:
        k = int(round(p["pio_writes"])) if writes else 0
        return float(pio_cost(operation, load=p["busy_load"] if busy else 0.0, writes=k,
                              costs=self._pio_costs(p)).time) / NS

    def dma(self, p, routers) -> float:
        key = ("dma", routers) + tuple(p[n] for n in self._DMA)
        return self.memo(key, lambda: self._costs(p).dma_iops(routers))

    def readfile(self, p):
        return self.memo(("readfile",) + tuple(p[n] for n in self._READFILE), lambda: self._readfile(p))

    def _readfile(self, p):
        c = self._costs(p)
        return page_cache_placement(p["readfile_bytes"], int(round(p["system_cpus"])), "round_robin",
                                    page_size=c.page_size, slab_bytes_per_page=c.slab_bytes_per_page,
                                    slab_policy="local", latency=self._latency(p))

    @staticmethod
    def example_topology(p) -> AltixTopology:
        cpus = int(round(p["example_cpus"]))
        return AltixTopology(cpus=cpus, memory_per_node=p["example_memory"] / (cpus // 2))

    # --- shape checks ----------------------------------------------------------------------
    def _superlinear(self, p) -> bool:
        """Speedup above the CPU count for every p in SUPERLINEAR_CPUS on the 100 GB region."""
        s = [self.zeroing(c, p["hugetlb_region"], p).speedup for c in SUPERLINEAR_CPUS]
        return all(sp > c for sp, c in zip(s, SUPERLINEAR_CPUS))

    def _local_refs(self, p) -> bool:
        """A node-affine scheduler (task on its home node most of the time, where its pages
        were first touched) raises the local share over a node-blind one (uniform over
        nodes, local share 1/n) and so lowers the expected access time."""
        cpus = int(round(p["system_cpus"]))
        blind = 1.0 / (cpus // 2)
        affine = p["home_node_share"] + (1 - p["home_node_share"]) * blind
        t = memory_access_time([blind, affine], cpus, self._latency(p)).access_time
        return bool(affine > blind and t[1] < t[0])


#: the calibration (registered in zmodel.fits.registry)
CALIBRATION = Calibration(
    area="kernel_numa", layer="kernel", order=4, model=KernelNumaModel,
    rows=tuple(FIT_KINDS) + SHAPE_IDS, kinds=FIT_KINDS, exactly_determined=EXACTLY_DETERMINED,
    title="NUMA placement and memory locality")
measurements = CALIBRATION.measurements
calibrate_kernel_numa = CALIBRATION.run
cross_validate_kernel_numa = CALIBRATION.cross_validate
