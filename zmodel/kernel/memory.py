r"""Memory management of Linux 2.4 vs 2.6 on zSeries: storage keys, TLB purges, page tables, sysfs.

Source (seed ``000_bf0694975d199a2d.txt``): C. Bornträger and M. Schwidefsky,
"Providing Linux 2.6 support for the zSeries platform", IBM Systems Journal 44(2),
2005, section "Memory management" and Figure 1; section "Device model" (sysfs). Seed
``001_37b528ecce68b8bf.txt`` (OSDL, "Linux 2.6 kernel performance enhancements",
January 2004), slides "Virtual Memory" / "Large page support" (page-table memory).

Four pieces, composed bottom-up:

* :class:`InstructionCosts` -- the cost [s] of one execution of each memory-management
  operation: ISKE, SSKE, RRBE, a PTE test in a page-table search, IPTE, and the global
  TLB purge Linux 2.4 used where IPTE could not be applied. IPTE and the global purge
  are broadcasts that quiesce every CPU of the configuration: each stalls all N CPUs
  for ``base + per_cpu * N`` seconds.
* :func:`operation_counts` -- how many of each operation a kernel executes per *page
  event* (one page whose dirty and referenced state is queried and cleared once and
  whose ``mappings`` PTEs are finally invalidated), for ``"2.4"``, ``"2.6-early"`` and
  ``"2.6"`` (with the zSeries primitives). The paper states the mechanisms, not the
  counts; the table in :func:`operation_counts` is this module's reading of them.
* :func:`mm_overhead` -- counts times costs: the per-page memory-management time, split
  into CPU-local time and the stall every CPU suffers from broadcasts.
* :class:`DbenchMemoryModel` -- Figure 1 of the paper (dbench memory transfer rate vs
  processors) as a closed queueing network solved by :func:`zmodel.queueing.mva`: N
  CPUs each run a dbench client (population N); a delay station holds each CPU's own
  per-page work plus its broadcast stalls; a single-server station is the globally
  serialised section (global spinlocks). Broadcast stalls grow with N per page and the
  number of pages completed while a CPU works grows with N too: the per-page demand
  has an N^2 term, which is what bends Linux 2.4 over above 20 CPUs.

Plus two memory-footprint models: :func:`page_table_memory` (PTEs for N processes
sharing a buffer, 4 KB vs large pages: the OSDL 16 GB example) and :func:`sysfs_memory`
(pinned sysfs inodes/dentries for many devices, with and without the backing store).

Units are SI: seconds, bytes, bytes/s.
"""
from __future__ import annotations

import dataclasses
import math
from typing import ClassVar

import numpy as np

from zmodel.queueing import mva
from zmodel.queueing._result import Result
from zmodel.conventions import as_count, as_float_array, as_int_array, as_scalar, vectorized, check_fields
from zmodel.queueing._params import param

__all__ = [
    "KERNELS",
    "InstructionCosts",
    "OperationCounts",
    "operation_counts",
    "MemoryOverheadResult",
    "mm_overhead",
    "DbenchMemoryModel",
    "DbenchMemoryCosts",
    "MemoryThroughputResult",
    "PageTableMemoryResult",
    "page_table_memory",
    "SysfsMemoryResult",
    "sysfs_memory",
]

#: kernel variants: Linux 2.4, early 2.6 (generic primitives), 2.6 with the zSeries primitives
KERNELS = ("2.4", "2.6-early", "2.6")

_SEED_IBMSJ = "000_bf0694975d199a2d.txt"


def _check_kernel(kernel: str) -> str:
    if kernel not in KERNELS:
        raise ValueError(f"kernel must be one of {list(KERNELS)}, got {kernel!r}")
    return kernel


# --------------------------------------------------------------------------- costs
@dataclasses.dataclass(frozen=True)
class InstructionCosts:
    r"""Cost of one execution of each memory-management operation on zSeries.

    The paper prints no cycle counts ("This operation is quite expensive in terms of
    cycle times"; "Although IPTE is an expensive instruction, its use in this context
    is much faster than the alternative implementation"), so the defaults are
    order-of-magnitude assumptions; the global purge is calibrated against Figure 1 in
    :mod:`zmodel.fits.kernel_memory`.

    Parameters
    ----------
    iske : float
        INSERT STORAGE KEY EXTENDED: read a page's storage key (dirty/referenced) [s].
    sske : float
        SET STORAGE KEY EXTENDED: set (clear) a page's storage key [s].
    rrbe : float
        RESET REFERENCE BIT EXTENDED: test and clear the referenced bit of a page [s].
    pte_test : float
        Visit and test one PTE while searching page tables (Linux 2.4 without reverse
        mapping) or walking a reverse map [s].
    ipte : float
        Stall of every CPU caused by one IPTE (invalidate one PTE and purge that page's
        TLB entries on all CPUs), independent of N [s].
    ipte_per_cpu : float
        Additional IPTE stall per CPU in the configuration (the broadcast handshake) [s].
    purge : float
        Stall of every CPU caused by one global TLB purge (the 2.4 fallback where IPTE
        is not applicable): purge plus refill of the TLB, independent of N [s].
    purge_per_cpu : float
        Additional global-purge stall per CPU in the configuration [s].

    Notes
    -----
    A broadcast operation quiesces all N CPUs; each stalls for

    .. math:: t_\text{stall}(N) = t_0 + t_1 N,

    with :math:`(t_0, t_1)` = (``ipte``, ``ipte_per_cpu``) or (``purge``,
    ``purge_per_cpu``). Valid for N >= 1 and while broadcasts do not overlap (they
    are serialised by the quiesce mechanism).

    References
    ----------
    Bornträger and Schwidefsky, IBM Systems Journal 44(2), 2005 (seed
    ``000_bf0694975d199a2d.txt``), section "Memory management" (ISKE, RRBE, IPTE, IDTE).
    IBM, *z/Architecture Principles of Operation*, SA22-7832, ch. 10 (control
    instructions: ISKE, SSKE, RRBE, IPTE, IDTE semantics; no timings).

    Examples
    --------
    >>> c = InstructionCosts(purge=1e-6, purge_per_cpu=0.1e-6)
    >>> round(c.purge_stall(16) * 1e6, 9)      # 1 + 0.1 * 16 microseconds
    2.6
    """

    iske: float = param(100e-9, unit="s", range=(0.0, 10e-6),
                        source="assumed order of magnitude (~100 cycles): ibmsj (000_bf0694975d199a2d.txt) 'Memory management', ISKE is 'quite expensive in terms "
                               "of cycle times' (no count printed)")
    sske: float = param(100e-9, unit="s", range=(0.0, 10e-6), source="assumed: as ISKE (ibmsj (000_bf0694975d199a2d.txt) 'Memory management')")
    rrbe: float = param(100e-9, unit="s", range=(0.0, 10e-6), source="assumed: as ISKE (ibmsj (000_bf0694975d199a2d.txt) 'Memory management')")
    pte_test: float = param(20e-9, unit="s", range=(0.0, 1e-6),
                            source="assumed: a few cache-hitting loads per PTE visited")
    ipte: float = param(50e-9, unit="s", range=(0.0, 10e-6),
                        source="assumed: a twentieth of a global purge; ibmsj (000_bf0694975d199a2d.txt) 'Memory management': IPTE 'is much faster than the "
                               "alternative implementation'")
    ipte_per_cpu: float = param(5e-9, unit="s", range=(0.0, 1e-6),
                                source="assumed: a twentieth of the purge's per-CPU part (ibmsj (000_bf0694975d199a2d.txt) 'Memory management')")
    purge: float = param(1e-6, unit="s", range=(0.0, 100e-6),
                         source="assumed order of magnitude (purge and TLB refill); zmodel.fits.kernel_memory "
                                "fits it to ibmsj (000_bf0694975d199a2d.txt) 'Memory management' Figure 1")
    purge_per_cpu: float = param(0.1e-6, unit="s", range=(0.0, 10e-6),
                                 source="assumed order of magnitude (broadcast handshake per CPU quiesced); "
                                        "fitted with purge")

    def __post_init__(self):
        check_fields(self)

    @vectorized
    def purge_stall(self, cpus):
        """Stall of each CPU per global TLB purge, ``purge + purge_per_cpu * cpus`` [s]."""
        return self.purge + self.purge_per_cpu * as_float_array("cpus", cpus)

    @vectorized
    def ipte_stall(self, cpus):
        """Stall of each CPU per IPTE, ``ipte + ipte_per_cpu * cpus`` [s]."""
        return self.ipte + self.ipte_per_cpu * as_float_array("cpus", cpus)


# --------------------------------------------------------------------------- counts
@dataclasses.dataclass(frozen=True)
class OperationCounts(Result):
    """Memory-management operations per page event (see :func:`operation_counts`).

    Attributes
    ----------
    iske, sske, rrbe, pte_tests, tlb_purges, ipte : float or ndarray
        Executions per page event [1].
    kernel : str
        The kernel variant.
    """

    iske: float | np.ndarray
    sske: float | np.ndarray
    rrbe: float | np.ndarray
    pte_tests: float | np.ndarray
    tlb_purges: float | np.ndarray
    ipte: float | np.ndarray
    kernel: str

    trailing_dims: ClassVar[tuple[str, ...]] = ()


@vectorized
def operation_counts(kernel: str, mappings=1, searched_ptes=0) -> OperationCounts:
    r"""Storage-key, TLB and PTE operations a kernel executes per page event.

    A page event: one physical page whose dirty and referenced indicators are queried
    and cleared once each and whose ``mappings`` PTEs are finally invalidated.

    Parameters
    ----------
    kernel : {"2.4", "2.6-early", "2.6"}
        Linux 2.4; early Linux 2.6 (reverse mapping, generic primitives); Linux 2.6
        with the zSeries primitives of the paper.
    mappings : int or array_like
        PTEs mapping the page, m >= 1 [1].
    searched_ptes : int or array_like
        PTEs Linux 2.4 visits searching all page tables to find the m mappings (2.4
        has no reverse mapping); ignored by 2.6 [1].

    Returns
    -------
    OperationCounts
        Counts per page event, broadcast over ``mappings`` and ``searched_ptes``.

    Notes
    -----
    The table (m = mappings, s = searched_ptes); every row is one statement of the
    paper, section "Memory management":

    ==========  ========  ====  ====  ==========  ==========  ====
    kernel      ISKE      SSKE  RRBE  PTE tests   TLB purges  IPTE
    ==========  ========  ====  ====  ==========  ==========  ====
    2.4         2m        1     0     s           3m          0
    2.6-early   2m        1     0     m           3m          0
    2.6         1         1     1     0           0           m
    ==========  ========  ====  ====  ==========  ==========  ====

    * ISKE "is executed for each mapping (for each PTE referring to the page), instead
      of once for each physical page" in 2.4: one per mapping for the dirty query and
      one for the referenced query (2m); 2.6 queries the key once per physical page,
      and RRBE replaces the page_referenced loop ("eliminating the loop in
      page_referenced ... through the use of the RRBE instruction").
    * "Early Linux 2.6 kernels flushed TLB entries every time the dirty and referenced
      indicators of PTEs were modified" and 2.4 likewise flushes on each PTE change:
      clear dirty, clear referenced, invalidate = 3 per mapping. Where IPTE's
      prerequisite (a valid PTE) was not met, the flush is a global purge. 2.6 with
      the primitives needs none ("These TLB flushes are unnecessary on zSeries") and
      invalidates each mapping with one IPTE.
    * 2.4 "has to search all process page tables" (s PTE tests); the reverse map of
      early 2.6 walks the m PTEs; the RRBE of 2.6 needs no walk.
    * SSKE: one key reset when the page is (re)allocated, in all variants.

    Valid for m >= 1. The counts are a modelling reading of these statements: the
    paper prints no counts per operation ("drastically reduced the number of TLB
    flushes and ISKE calls").

    References
    ----------
    Bornträger and Schwidefsky, IBM Systems Journal 44(2), 2005 (seed
    ``000_bf0694975d199a2d.txt``), section "Memory management".

    Examples
    --------
    >>> c = operation_counts("2.4", mappings=4, searched_ptes=100)
    >>> float(c.iske), float(c.tlb_purges), float(c.pte_tests)
    (8.0, 12.0, 100.0)
    >>> c = operation_counts("2.6", mappings=4)
    >>> float(c.iske), float(c.rrbe), float(c.tlb_purges), float(c.ipte)
    (1.0, 1.0, 0.0, 4.0)
    """
    _check_kernel(kernel)
    m = as_int_array("mappings", mappings, minimum=1).astype(float)
    s = as_int_array("searched_ptes", searched_ptes, minimum=0).astype(float)
    m, s = np.broadcast_arrays(m, s)
    one, zero = np.ones_like(m), np.zeros_like(m)
    if kernel == "2.4":
        out = dict(iske=2 * m, sske=one, rrbe=zero, pte_tests=s, tlb_purges=3 * m, ipte=zero)
    elif kernel == "2.6-early":
        out = dict(iske=2 * m, sske=one, rrbe=zero, pte_tests=m.copy(), tlb_purges=3 * m, ipte=zero)
    else:
        out = dict(iske=one, sske=one, rrbe=one, pte_tests=zero, tlb_purges=zero, ipte=m.copy())
    if m.ndim == 0:
        out = {k: float(v) for k, v in out.items()}
    return OperationCounts(kernel=kernel, **out)


# --------------------------------------------------------------------------- overhead
@dataclasses.dataclass(frozen=True)
class MemoryOverheadResult(Result):
    """Memory-management time per page event (see :func:`mm_overhead`).

    Attributes
    ----------
    cpus : float or ndarray
        Processors N [1].
    storage_key_time : float or ndarray
        ISKE + SSKE + RRBE time on the CPU handling the page [s].
    search_time : float or ndarray
        PTE tests of page-table searches or reverse-map walks [s].
    local_time : float or ndarray
        ``storage_key_time + search_time`` [s].
    purge_stall_time : float or ndarray
        Stall charged per page event to each CPU's work by global TLB purges,
        ``purges * N * (purge + purge_per_cpu N)`` [s].
    ipte_stall_time : float or ndarray
        The same for IPTE broadcasts [s].
    total_time : float or ndarray
        ``local_time + purge_stall_time + ipte_stall_time`` [s].
    kernel : str
    """

    cpus: float | np.ndarray
    storage_key_time: float | np.ndarray
    search_time: float | np.ndarray
    local_time: float | np.ndarray
    purge_stall_time: float | np.ndarray
    ipte_stall_time: float | np.ndarray
    total_time: float | np.ndarray
    kernel: str

    trailing_dims: ClassVar[tuple[str, ...]] = ()


@vectorized
def mm_overhead(kernel: str, cpus, mappings=1, searched_ptes=0,
                costs: InstructionCosts | None = None) -> MemoryOverheadResult:
    r"""Memory-management time per page event: operation counts times operation costs.

    Parameters
    ----------
    kernel : {"2.4", "2.6-early", "2.6"}
        Kernel variant (:func:`operation_counts`).
    cpus : int or array_like
        Processors N >= 1 in the configuration [1].
    mappings : int or array_like
        PTEs mapping the page, m >= 1 [1].
    searched_ptes : int or array_like
        PTEs visited by a Linux 2.4 page-table search [1].
    costs : InstructionCosts, optional
        Cost of each operation; default :class:`InstructionCosts()`.

    Returns
    -------
    MemoryOverheadResult
        Per-page times [s], broadcast over the inputs.

    Notes
    -----
    With counts :math:`n_\text{op}` from :func:`operation_counts` and costs
    :math:`t_\text{op}`:

    .. math::

        T_\text{local} = n_\text{ISKE} t_\text{ISKE} + n_\text{SSKE} t_\text{SSKE}
        + n_\text{RRBE} t_\text{RRBE} + n_\text{PTE} t_\text{PTE}, \qquad
        T_\text{stall}(N) = n_\text{purge}\, N\, (t_0 + t_1 N)
        + n_\text{IPTE}\, N\, (i_0 + i_1 N).

    The stall term: a system completing X page events per second issues
    :math:`n X` broadcasts per second, each stalling every CPU for
    :math:`t(N) = t_0 + t_1 N`; a CPU, completing X/N page events per second, is
    stalled :math:`n X t(N)` of its time, i.e. :math:`n N t(N)` per page event of its
    own. Valid while the stalled fraction is below 1 and broadcasts do not overlap.

    References
    ----------
    Bornträger and Schwidefsky, IBM Systems Journal 44(2), 2005 (seed
    ``000_bf0694975d199a2d.txt``), section "Memory management".

    Examples
    --------
    2.4, one mapping, 16 CPUs, purge 1 us + 0.1 us per CPU: 3 purges x 16 x 2.6 us.

    >>> c = InstructionCosts(purge=1e-6, purge_per_cpu=0.1e-6)
    >>> r = mm_overhead("2.4", 16, costs=c)
    >>> round(r.purge_stall_time * 1e6, 9), round(r.storage_key_time * 1e9, 6)
    (124.8, 300.0)
    """
    costs = InstructionCosts() if costs is None else costs
    if not isinstance(costs, InstructionCosts):
        raise ValueError(f"costs must be an InstructionCosts, got {type(costs).__name__}")
    n = as_int_array("cpus", cpus, minimum=1).astype(float)
    c = operation_counts(kernel, mappings, searched_ptes)
    keys = c.iske * costs.iske + c.sske * costs.sske + c.rrbe * costs.rrbe
    search = c.pte_tests * costs.pte_test
    purge = c.tlb_purges * n * costs.purge_stall(n)
    ipte = c.ipte * n * costs.ipte_stall(n)
    local = keys + search
    total = local + purge + ipte
    n, keys, search, local, purge, ipte, total = np.broadcast_arrays(n, keys, search, local, purge, ipte, total)
    f = lambda a: np.array(a, dtype=float)  # noqa: E731
    return MemoryOverheadResult(cpus=f(n), storage_key_time=f(keys), search_time=f(search), local_time=f(local),
                                purge_stall_time=f(purge), ipte_stall_time=f(ipte), total_time=f(total),
                                kernel=kernel)


# --------------------------------------------------------------------------- dbench
@dataclasses.dataclass(frozen=True)
class MemoryThroughputResult(Result):
    """Memory transfer rate of :class:`DbenchMemoryModel` vs processors.

    Attributes
    ----------
    cpus : float or ndarray
        Processors N [1].
    throughput : float or ndarray
        Memory transfer rate [B/s].
    page_rate : float or ndarray
        Page events completed per second [1/s].
    cpu_demand : float or ndarray
        Per-page demand of the per-CPU delay station: own work, storage keys, searches
        and broadcast stalls [s].
    serial_demand : float or ndarray
        Per-page demand of the globally serialised station [s].
    serial_utilization : float or ndarray
        Utilization of the serialised station [1].
    efficiency : float or ndarray
        ``throughput / (N * throughput at N = 1 without contention)`` [1].
    kernel : str
    """

    cpus: float | np.ndarray
    throughput: float | np.ndarray
    page_rate: float | np.ndarray
    cpu_demand: float | np.ndarray
    serial_demand: float | np.ndarray
    serial_utilization: float | np.ndarray
    efficiency: float | np.ndarray
    kernel: str

    trailing_dims: ClassVar[tuple[str, ...]] = ()


@dataclasses.dataclass(frozen=True)
class DbenchMemoryModel:
    r"""dbench memory transfer rate vs processors (IBM Systems Journal, Figure 1).

    N CPUs each run a dbench client whose data stay in the page cache ("all data is
    deleted again before the kernel writes it to disk, this scenario measured memory
    scalability"). Each transferred page is one page event (:func:`operation_counts`).

    Parameters
    ----------
    kernel : {"2.4", "2.6-early", "2.6"}
        Kernel variant.
    cpu_time : float
        CPU time per page outside memory management: system calls, copy, file-system
        work, the same for every kernel [s].
    serial_time : float
        Time per page inside globally serialised sections (global spinlocks, e.g. the
        2.4 page-cache and LRU locks), default 0 [s].
    page_size : float
        Bytes transferred per page event [B].
    mappings : int
        PTEs per page whose state the kernel changes, m >= 1 [1].
    searched_ptes : int
        PTEs a 2.4 page-table search visits per page [1].
    costs : InstructionCosts
        Operation costs.

    Notes
    -----
    A closed network, solved exactly by MVA (Lazowska et al. 1984, §6.4, Algorithm
    6.1) with population N, a delay station of demand

    .. math:: D_\text{cpu}(N) = t_\text{cpu} + T_\text{local} + T_\text{stall}(N)

    (:func:`mm_overhead`) and a single-server station of demand
    :math:`D_\text{ser} = t_\text{ser}`; the transfer rate is
    :math:`X(N) \cdot \text{page\_size}`. Without the serialised station,

    .. math:: X(N) = \frac{N}{t_\text{cpu} + T_\text{local} + N n (t_0 + t_1 N)},

    the form of Gunther's Universal Scalability Law (Gunther, *Guerrilla Capacity
    Planning*, Springer 2007, ch. 4, eq. 4.31) with contention from the purge base
    and coherency from the per-CPU handshake: its maximum lies at
    :math:`N^* = \sqrt{(t_\text{cpu} + T_\text{local})/(n t_1)}`. The serialised
    station adds the asymptote :math:`X \le 1/t_\text{ser}`.
    Valid for product-form assumptions (exponential service at the serialised
    station, FCFS) and a spinning CPU counted as busy waiting.

    References
    ----------
    Bornträger and Schwidefsky, IBM Systems Journal 44(2), 2005 (seed
    ``000_bf0694975d199a2d.txt``), "Memory management", Figure 1.
    E. D. Lazowska, J. Zahorjan, G. S. Graham, K. C. Sevcik, *Quantitative System
    Performance*, Prentice Hall 1984, ch. 6.
    N. J. Gunther, *Guerrilla Capacity Planning*, Springer 2007, ch. 4.

    Examples
    --------
    Linux 2.6 with the zSeries primitives and no IPTE cost is linear:

    >>> c = InstructionCosts(iske=0.0, sske=0.0, rrbe=0.0, ipte=0.0, ipte_per_cpu=0.0)
    >>> m = DbenchMemoryModel("2.6", cpu_time=4096 / 200e6, costs=c)
    >>> (m.throughput([1, 16]).throughput / 1e6).round(6).tolist()
    [200.0, 3200.0]
    """

    kernel: str
    cpu_time: float
    serial_time: float = 0.0
    page_size: float = 4096.0
    mappings: int = 1
    searched_ptes: int = 0
    costs: InstructionCosts = dataclasses.field(default_factory=InstructionCosts)

    def __post_init__(self):
        _check_kernel(self.kernel)
        object.__setattr__(self, "cpu_time", as_scalar("cpu_time", self.cpu_time))
        object.__setattr__(self, "serial_time", as_scalar("serial_time", self.serial_time))
        ps = as_scalar("page_size", self.page_size)
        if ps <= 0:
            raise ValueError(f"page_size must be positive, got {self.page_size!r}")
        object.__setattr__(self, "page_size", ps)
        object.__setattr__(self, "mappings", int(as_int_array("mappings", self.mappings, minimum=1)))
        object.__setattr__(self, "searched_ptes", int(as_int_array("searched_ptes", self.searched_ptes, minimum=0)))
        if not isinstance(self.costs, InstructionCosts):
            raise ValueError(f"costs must be an InstructionCosts, got {type(self.costs).__name__}")

    @vectorized
    def demands(self, cpus):
        """Per-page demands (cpu_demand, serial_demand) [s] at ``cpus`` processors."""
        o = mm_overhead(self.kernel, cpus, self.mappings, self.searched_ptes, self.costs)
        d_cpu = self.cpu_time + np.asarray(o.total_time, dtype=float)
        return d_cpu, np.full_like(d_cpu, self.serial_time)

    @vectorized
    def throughput(self, cpus) -> MemoryThroughputResult:
        """Solve the network at each processor count in ``cpus`` (vectorised)."""
        n = as_int_array("cpus", cpus, minimum=1)
        d_cpu, d_ser = self.demands(n)
        if np.any(d_cpu + d_ser <= 0):
            raise ValueError("cpu_time + serial_time + memory-management time must be positive")
        D = np.stack([d_cpu, d_ser], axis=-1)
        if self.serial_time > 0:
            r = mva(D, n, servers=[math.inf, 1])
            x = np.asarray(r.throughput, dtype=float)
            u = np.asarray(r.utilization, dtype=float)[..., 1]
        else:
            x = n / d_cpu
            u = np.zeros_like(x)
        single = 1.0 / (self.cpu_time + self.serial_time
                        + float(mm_overhead(self.kernel, 1, self.mappings, self.searched_ptes,
                                            self.costs).local_time))
        f = lambda a: np.array(a, dtype=float)  # noqa: E731
        return MemoryThroughputResult(cpus=f(n), throughput=f(x * self.page_size), page_rate=f(x),
                                      cpu_demand=f(d_cpu), serial_demand=f(d_ser), serial_utilization=f(u),
                                      efficiency=f(x / (n * single)), kernel=self.kernel)

    @vectorized
    def peak_cpus(self, max_cpus: int = 256) -> float:
        """Processor count of the largest transfer rate, refined between integers [1].

        The maximum over N = 1..``max_cpus``, refined by the vertex of the parabola
        through it and its two neighbours; ``max_cpus`` when still rising there.
        """
        n = np.arange(1, as_count("max_cpus", max_cpus) + 1)
        x = np.asarray(self.throughput(n).throughput, dtype=float)
        i = int(np.argmax(x))
        if i == 0 or i == len(n) - 1:
            return float(n[i])
        a, b, c = x[i - 1], x[i], x[i + 1]
        den = a - 2 * b + c
        return float(n[i]) if den == 0 else float(n[i] + 0.5 * (a - c) / den)


# --------------------------------------------------------------------------- page tables
@dataclasses.dataclass(frozen=True)
class DbenchMemoryCosts:
    """Tunable costs of :class:`DbenchMemoryModel` besides the instruction costs, declared once.

    Each field declares its default, unit, plausible range and provenance
    (:func:`zmodel.queueing._params.param`); :mod:`zmodel.fits.kernel_memory` derives its
    fit parameters from them and maps them back with ``to_dataclass``.

    Parameters
    ----------
    cpu_time : float
        CPU time per 4 KB page outside memory management (system calls, copy, file
        system), the same for both kernels (:class:`DbenchMemoryModel`'s ``cpu_time``) [s].
    ipte_relative : float
        IPTE stall as a fraction of a global purge's, for both its parts [1].
    serial_time_24 : float
        Linux 2.4 per-page hold of the global page-cache/LRU spinlocks (2.6: per-mapping and
        per-zone locks, serial time 0) [s].

    Examples
    --------
    >>> c = DbenchMemoryCosts()
    >>> c.serial_time("2.4") == c.serial_time_24, c.serial_time("2.6")
    (True, 0.0)
    >>> c.instruction_costs(InstructionCosts(purge=1e-6)).ipte == c.ipte_relative * 1e-6
    True
    """

    cpu_time: float = param(20e-6, unit="s", range=(1e-7, 1e-3),
                            source="assumed: a 4 KB copy plus a few system calls and file-system work, tens of "
                                   "microseconds (not printed)")
    ipte_relative: float = param(0.05, unit="1", range=(0.0, 1.0),
                                 source="assumed: a twentieth; ibmsj (000_bf0694975d199a2d.txt) 'Memory management': "
                                        "'IPTE is an expensive instruction, its use in this context is much faster "
                                        "than the alternative implementation'")
    serial_time_24: float = param(0.1e-6, unit="s", range=(0.0, 1e-4),
                                  source="assumed: a short critical section of the 2.4 global page-cache/LRU "
                                         "spinlocks per page (not printed)")

    def __post_init__(self):
        check_fields(self, fractions=("ipte_relative",))

    def serial_time(self, kernel: str) -> float:
        """Globally serialised time per page of ``kernel``: ``serial_time_24`` for 2.4, else 0 [s]."""
        return self.serial_time_24 if _check_kernel(kernel) == "2.4" else 0.0

    def instruction_costs(self, costs: InstructionCosts) -> InstructionCosts:
        """``costs`` with the IPTE parts set to ``ipte_relative`` times the purge's."""
        return dataclasses.replace(costs, ipte=self.ipte_relative * costs.purge,
                                   ipte_per_cpu=self.ipte_relative * costs.purge_per_cpu)


@dataclasses.dataclass(frozen=True)
class PageTableMemoryResult(Result):
    """Page-table memory of processes sharing one buffer (see :func:`page_table_memory`).

    Attributes
    ----------
    entries_per_process : float or ndarray
        Page-table entries each process needs, ceil(buffer / page) [1].
    bytes_per_process : float or ndarray
        Page-table memory per process, rounded up to whole table pages [B].
    total_bytes : float or ndarray
        ``processes * bytes_per_process`` [B].
    """

    entries_per_process: float | np.ndarray
    bytes_per_process: float | np.ndarray
    total_bytes: float | np.ndarray

    trailing_dims: ClassVar[tuple[str, ...]] = ()


@vectorized
def page_table_memory(buffer_size, processes, page_size=4096, entry_size=8,
                      table_size=None) -> PageTableMemoryResult:
    r"""Page-table memory for processes that each map the same shared buffer.

    Parameters
    ----------
    buffer_size : float or array_like
        Bytes of the shared buffer each process maps [B].
    processes : int or array_like
        Processes mapping it; each has its own page table [1].
    page_size : float or array_like
        Page size: 4 KiB, or a large page (2 MiB / 4 MiB on Pentium, 1 MiB segments on
        System z) [B].
    entry_size : float or array_like
        Bytes per page-table entry: 4 on 32-bit x86 (the OSDL example), 8 on 64-bit
        [B].
    table_size : float, optional
        Page-table allocation granule; each process's table is rounded up to a whole
        number of these. ``None`` = no rounding [B].

    Returns
    -------
    PageTableMemoryResult

    Notes
    -----
    .. math:: E = \lceil B / p \rceil, \qquad
              M_\text{proc} = \left\lceil \frac{E e}{g} \right\rceil g, \qquad
              M = P\, M_\text{proc},

    with buffer B, page size p, entry size e, granule g, P processes. "Each process has
    a Page Table with an entry for every page of memory accessed. Other processes that
    share that page also have a page table entry for it" (OSDL deck, slide "Large page
    support"). Valid for fully populated tables (every page touched); upper-level
    directories are ignored (they are a fraction e/g of the leaf tables).

    References
    ----------
    OSDL, "Linux 2.6 kernel performance enhancements" (seed
    ``001_37b528ecce68b8bf.txt``), slides "Virtual Memory: Large page support" (the
    16 GB buffer example).

    Examples
    --------
    The OSDL example: a 16 GB buffer, 4 KB pages, 4-byte PTEs, 64 processes.

    >>> r = page_table_memory(16 * 2**30, 64, page_size=4096, entry_size=4)
    >>> r.bytes_per_process / 2**20, r.total_bytes / 2**30
    (16.0, 1.0)
    """
    b = as_float_array("buffer_size", buffer_size)
    p_count = as_int_array("processes", processes, minimum=0).astype(float)
    p = as_float_array("page_size", page_size, positive=True)
    e = as_float_array("entry_size", entry_size, positive=True)
    b, p_count, p, e = np.broadcast_arrays(b, p_count, p, e)
    entries = np.ceil(b / p)
    per = entries * e
    if table_size is not None:
        g = float(as_float_array("table_size", table_size, positive=True))
        per = np.ceil(per / g) * g
    total = p_count * per
    f = lambda a: np.array(a, dtype=float)  # noqa: E731
    return PageTableMemoryResult(entries_per_process=f(entries), bytes_per_process=f(per), total_bytes=f(total))


# --------------------------------------------------------------------------- sysfs
@dataclasses.dataclass(frozen=True)
class SysfsMemoryResult(Result):
    """Kernel memory held by sysfs (see :func:`sysfs_memory`).

    Attributes
    ----------
    files : float or ndarray
        sysfs files (attributes and directories) [1].
    pinned_bytes : float or ndarray
        Memory held by sysfs [B].
    backing_store : bool
    """

    files: float | np.ndarray
    pinned_bytes: float | np.ndarray
    backing_store: bool

    trailing_dims: ClassVar[tuple[str, ...]] = ()


@vectorized
def sysfs_memory(devices, files_per_device, bytes_per_file, backing_store=False,
                 retained_bytes_per_file=64.0, active_fraction=0.0) -> SysfsMemoryResult:
    r"""Memory pinned by sysfs for many devices, with or without the backing store.

    Parameters
    ----------
    devices : int or array_like
        Devices registered in the device model [1].
    files_per_device : float or array_like
        sysfs files (attributes, directories, links) per device [1].
    bytes_per_file : float or array_like
        Memory pinned per sysfs file without the backing store: inode, dentry and the
        sysfs structures [B].
    backing_store : bool
        ``True`` with the sysfs backing-store patch (2.6.10): inodes and dentries are
        discarded and re-created on access.
    retained_bytes_per_file : float or array_like
        Memory kept per file with the backing store (the backing description) [B].
    active_fraction : float or array_like
        Share of files whose inode and dentry are instantiated at any time with the
        backing store, in [0, 1] [1].

    Returns
    -------
    SysfsMemoryResult

    Notes
    -----
    .. math::

        M = F\, b \;\text{(pinned)}, \qquad
        M_\text{bs} = F \left(r + a\,(b - r)\right) \;\text{(backing store)},
        \qquad F = d\, f,

    with d devices, f files per device, b bytes per file, r retained bytes per file, a
    the active fraction. "To simplify sysfs, the decision was made to pin all internal
    data structures in memory"; the backing-store patch "discards large parts of sysfs
    data and re-creates this information (when needed)". Valid when b >= r.

    References
    ----------
    Bornträger and Schwidefsky, IBM Systems Journal 44(2), 2005 (seed
    ``000_bf0694975d199a2d.txt``), section "Device model" (sysfs memory, backing store).

    Examples
    --------
    >>> r = sysfs_memory(5000, 10, 1500.0)
    >>> r.files, r.pinned_bytes / 1e6
    (50000.0, 75.0)
    >>> sysfs_memory(5000, 10, 1500.0, backing_store=True).pinned_bytes / 1e6
    3.2
    """
    d = as_int_array("devices", devices, minimum=0).astype(float)
    f = as_float_array("files_per_device", files_per_device)
    b = as_float_array("bytes_per_file", bytes_per_file)
    r = as_float_array("retained_bytes_per_file", retained_bytes_per_file)
    a = as_float_array("active_fraction", active_fraction)
    if np.any(a > 1):
        raise ValueError(f"active_fraction must be in [0, 1], got {active_fraction!r}")
    if backing_store and np.any(r > b):
        raise ValueError("retained_bytes_per_file must not exceed bytes_per_file")
    files = d * f
    mem = files * (r + a * (b - r)) if backing_store else files * b
    files, mem = np.broadcast_arrays(files, mem)
    w = lambda v: np.array(v, dtype=float)  # noqa: E731
    return SysfsMemoryResult(files=w(files), pinned_bytes=w(mem), backing_store=bool(backing_store))
