r"""NUMA on the SGI Altix 3000: topology, memory latency, page placement, PIO, DMA, hugetlb zeroing.

Source (seed ``003_b2fdde8a1106fead.txt``): R. Bryant, J. Barnes, J. Hawkes, J. Higdon,
J. Steiner, "Scaling Linux to the Extreme: from 64 to 512 Processors", Proc. Linux
Symposium 2004, vol. 1 (Ottawa). Sections "The SGI Altix Hardware", "Page Cache", "VM and
Memory Allocation Fixes", "I/O Changes for Altix" (Tables 1-4).

Pieces, bottom-up:

* :class:`AltixTopology` -- nodes of two CPUs plus memory and one SHUB, two nodes per
  C-brick, routing bricks above 16 CPUs, a second router layer from 128 CPUs joining
  subgroups of 32 CPUs; :meth:`AltixTopology.routers_between` gives the routers a
  reference crosses between two nodes.
* :class:`NumaLatency` -- local latency and the remote/local ratio as a linear function
  of router hops, :math:`r(h) = r_0 + \Delta h` (the paper: "varies from 1.9 to 3.5,
  depending on the size of the system and the relative locations").
  :func:`latency_ratio_range` (min/max/mean ratio vs system size) and
  :func:`memory_access_time` (expected access time for a fraction of local references).
* :func:`page_cache_placement` -- first-touch (local) vs round-robin page-cache
  allocation (``GFP_ROUND_ROBIN``): expected access latency of the reader and of other
  readers, local fraction, pages per node and imbalance, including slab (buffer-head)
  pages allocated locally.
* :class:`PioCosts` and :func:`pio_cost` -- normal/relaxed PIO reads (Tables 1-2) and the
  flushing of posted PIO writes by a read or by ``sn_mmiob()`` (Table 3); load inflates
  the I/O-path segments as an M/M/1 (the response time of :func:`zmodel.queueing.mm1`).
* :func:`dma_buffer_iops` -- local vs remote consistent DMA buffers (Table 4).
* :func:`hugetlb_zeroing` -- zeroing huge pages by one CPU (2.4 prefault) or in parallel
  (allocate on fault): each CPU keeps a fixed number of cache-line writes in flight to
  the memory controllers of the nodes its pages live on, a closed network solved by
  :func:`zmodel.queueing.mva`; the super-linear speedup comes from locality.

Units are SI: seconds, bytes, bytes/s. Memory sizes in the paper are binary (GB = 2**30).
"""
from __future__ import annotations

import dataclasses
import functools
import math
from typing import Any, ClassVar

import numpy as np

from zmodel.queueing import mva
from zmodel.queueing._params import param
from zmodel.queueing._result import Result
from zmodel.conventions import (
    as_count, as_float_array, as_int_array, as_probability, as_scalar, vectorized, check_fields,
)
from zmodel.units import GiB

__all__ = [
    "AltixTopology",
    "NumaCosts",
    "NumaLatency",
    "LatencyRangeResult",
    "latency_ratio_range",
    "AccessTimeResult",
    "memory_access_time",
    "PAGE_CACHE_POLICIES",
    "PageCachePlacementResult",
    "page_cache_placement",
    "PioCosts",
    "PioResult",
    "PIO_OPERATIONS",
    "pio_cost",
    "DmaResult",
    "dma_buffer_iops",
    "ZeroingResult",
    "hugetlb_zeroing",
]

_SEED = "003_b2fdde8a1106fead.txt"


# --------------------------------------------------------------------------- helpers
# --------------------------------------------------------------------------- topology
@dataclasses.dataclass(frozen=True)
class AltixTopology:
    r"""The SGI Altix 3000 interconnect as parameters: nodes, C-bricks, router layers.

    Parameters
    ----------
    cpus : int
        Processors in the single system image [1].
    cpus_per_node : int
        Processors on one front-side bus with one SHUB and its memory: "the two
        processors on the bus" [1].
    nodes_per_brick : int
        Nodes per C-brick: "two separate dual-processor ... systems" [1].
    direct_max_cpus : int
        Largest system without routing bricks: routers are used "in system sizes larger
        than 16 processors" [1].
    subgroup_cpus : int
        Processors per subgroup under one first-layer router group: "subgroups of 32
        processors each" [1].
    second_layer_cpus : int
        Smallest system with the second router layer: "128 or more processors" [1].
    memory_per_node : float
        Local memory of each node [B].

    Notes
    -----
    Routers crossed by a reference from node *i* to node *j* (this module's reading of
    the fat tree; the "express" links are ignored):

    .. math::

        h(i, j) = \begin{cases}
        -1 & i = j \text{ (local)}\\
        0 & \text{same C-brick, or } N \le 16\\
        1 & \text{same 32-CPU subgroup}\\
        2 & \text{other subgroup}, N < 128\\
        3 & \text{other subgroup}, N \ge 128 \text{ (up, second layer, down)}
        \end{cases}

    Valid for the Altix 3000 sizes of the paper (4 to 512 CPUs).

    References
    ----------
    Bryant et al., Proc. Linux Symposium 2004 (seed ``003_b2fdde8a1106fead.txt``),
    section "The SGI Altix Hardware".

    Examples
    --------
    The paper's example: 512 CPUs and 512 GB give 2 GB per node, less than 0.4 % local.

    >>> t = AltixTopology(cpus=512, memory_per_node=2 * GiB)
    >>> t.nodes, t.total_memory / GiB, round(100 * t.local_memory_fraction, 4)
    (256, 512.0, 0.3906)
    >>> t.routers_between(0, [0, 1, 2, 15, 16, 255]).tolist()
    [-1, 0, 1, 1, 3, 3]
    """

    cpus: int = 512
    cpus_per_node: int = 2
    nodes_per_brick: int = 2
    direct_max_cpus: int = 16
    subgroup_cpus: int = 32
    second_layer_cpus: int = 128
    memory_per_node: float = 2 * GiB

    def __post_init__(self):
        for name in ("cpus", "cpus_per_node", "nodes_per_brick", "direct_max_cpus", "subgroup_cpus",
                     "second_layer_cpus"):
            object.__setattr__(self, name, as_count(name, getattr(self, name)))
        if self.cpus % self.cpus_per_node:
            raise ValueError(f"cpus must be a multiple of cpus_per_node ({self.cpus_per_node}), got {self.cpus}")
        if self.subgroup_cpus % (self.cpus_per_node * self.nodes_per_brick):
            raise ValueError("subgroup_cpus must be a multiple of cpus_per_node * nodes_per_brick, "
                             f"got {self.subgroup_cpus}")
        object.__setattr__(self, "memory_per_node", as_scalar("memory_per_node", self.memory_per_node, positive=True))

    @property
    def nodes(self) -> int:
        """Number of nodes [1]."""
        return self.cpus // self.cpus_per_node

    @property
    def bricks(self) -> int:
        """Number of C-bricks (the last may be half populated) [1]."""
        return -(-self.nodes // self.nodes_per_brick)

    @property
    def total_memory(self) -> float:
        """Memory of the whole system [B]."""
        return self.nodes * self.memory_per_node

    @property
    def local_memory_fraction(self) -> float:
        """Share of all memory that is local to one node, 1/nodes [1]."""
        return 1.0 / self.nodes

    @vectorized
    def routers_between(self, i, j) -> np.ndarray:
        """Routers crossed from node ``i`` to node ``j`` (-1 = local), broadcast [1]."""
        i = as_int_array("i", i)
        j = as_int_array("j", j)
        if np.any(i >= self.nodes) or np.any(j >= self.nodes):
            raise ValueError(f"node numbers must be below nodes ({self.nodes})")
        nodes_per_sub = self.subgroup_cpus // self.cpus_per_node
        far = 2 if self.cpus < self.second_layer_cpus else 3
        h = np.where(i // nodes_per_sub == j // nodes_per_sub, 1, far)
        if self.cpus <= self.direct_max_cpus:
            h = np.zeros_like(h)
        h = np.where(i // self.nodes_per_brick == j // self.nodes_per_brick, 0, h)
        return np.where(i == j, -1, h).astype(np.int64)

    @vectorized
    def routers_from(self, node: int = 0) -> np.ndarray:
        """Routers from ``node`` to every node, shape (nodes,) [1] (computed once per topology and node)."""
        node = as_count("node", node, 0, self.nodes - 1)
        cache = self.__dict__.setdefault("_routers_from", {})   # fields only in eq/hash: a private cache
        if node not in cache:
            cache[node] = self.routers_between(node, np.arange(self.nodes))
        return cache[node].copy()

    @vectorized
    def distance_matrix(self) -> np.ndarray:
        """Routers between every pair of nodes, shape (nodes, nodes) [1] (computed once per topology)."""
        cache = self.__dict__
        if "_distance_matrix" not in cache:   # fields only in eq/hash: a private cache
            k = np.arange(self.nodes)
            cache["_distance_matrix"] = self.routers_between(k[:, None], k[None, :])
        return cache["_distance_matrix"].copy()

    @functools.cached_property
    def _hop_classes(self) -> tuple[np.ndarray, np.ndarray]:
        """The distinct router counts of :meth:`distance_matrix` and, per node pair, the index
        of its count among them (once per topology): a function of the routers is then
        evaluated on the few distinct counts and gathered, the same numbers for every pair."""
        hops, where = np.unique(self.distance_matrix(), return_inverse=True)
        return hops, where.reshape(self.nodes, self.nodes)

    @functools.cached_property
    def _nearest_hops(self) -> tuple[np.ndarray, np.ndarray]:
        """The distinct router counts from node 0 and, for the nodes in nearest-first order
        (fewest routers, then node number), the index of each one's count (once per topology)."""
        h = self.routers_from(0)
        hops, where = np.unique(h[np.lexsort((np.arange(self.nodes), h))], return_inverse=True)
        return hops, where

    @property
    def max_routers(self) -> int:
        """Most routers on any path in this system [1]."""
        return int(self.routers_from(0).max()) if self.nodes > 1 else -1


# --------------------------------------------------------------------------- latency
@dataclasses.dataclass(frozen=True)
class NumaLatency:
    r"""Local memory latency and the remote/local ratio as a function of router hops.

    Parameters
    ----------
    local : float
        Latency of a local memory reference (CPU to its own node's memory) [s]. The seed
        prints none; the default is the value :mod:`zmodel.fits.kernel_numa` infers from
        the 5,000 s hugetlb zeroing time.
    nearest_ratio : float
        Remote/local latency ratio for a remote node crossing no router (the other node
        of the C-brick) [1].
    per_router_ratio : float
        Increase of the ratio per router crossed [1].

    Notes
    -----
    .. math:: r(h) = \begin{cases} 1 & h = -1 \text{ (local)}\\ r_0 + \Delta\,h & h \ge 0
              \end{cases},\qquad t(h) = t_\text{local}\, r(h)

    The defaults put the ratio at 1.9 with no router and 3.5 at three routers, the range
    printed in the paper ("The ratio of remote to local memory access times on an Altix
    system varies from 1.9 to 3.5"). Linear in hops: each router adds the same
    latency (valid on an unloaded interconnect).

    References
    ----------
    Bryant et al. 2004 (seed ``003_b2fdde8a1106fead.txt``), "The SGI Altix Hardware".

    Examples
    --------
    >>> lat = NumaLatency(local=200e-9, nearest_ratio=1.9, per_router_ratio=0.5)
    >>> lat.ratio([-1, 0, 1, 3]).tolist()
    [1.0, 1.9, 2.4, 3.4]
    >>> round(lat.latency(1) * 1e9, 9)
    480.0
    """

    local: float = 170e-9
    nearest_ratio: float = 1.9
    per_router_ratio: float = 1.6 / 3

    def __post_init__(self):
        object.__setattr__(self, "local", as_scalar("local", self.local, positive=True))
        r0 = as_scalar("nearest_ratio", self.nearest_ratio, positive=True)
        if r0 < 1:
            raise ValueError(f"nearest_ratio must be >= 1 (remote is not faster than local), got {r0}")
        object.__setattr__(self, "nearest_ratio", r0)
        object.__setattr__(self, "per_router_ratio",
                           as_scalar("per_router_ratio", self.per_router_ratio))

    @vectorized
    def ratio(self, routers):
        """Remote/local latency ratio at ``routers`` hops (-1 = local) [1]."""
        h = as_int_array("routers", routers, minimum=-1)
        r = np.where(h < 0, 1.0, self.nearest_ratio + self.per_router_ratio * np.maximum(h, 0))
        return r

    @vectorized
    def latency(self, routers):
        """Memory latency at ``routers`` hops [s]."""
        return self.local * np.asarray(self.ratio(np.asarray(routers)), dtype=float)


@dataclasses.dataclass(frozen=True)
class LatencyRangeResult(Result):
    """Remote/local latency ratios of a system size (see :func:`latency_ratio_range`).

    Attributes
    ----------
    min_ratio, max_ratio : float, ndarray or Series
        Smallest and largest remote/local ratio over node pairs [1].
    mean_remote_ratio : float, ndarray or Series
        Ratio averaged over all remote nodes, seen from node 0 [1].
    mean_ratio : float, ndarray or Series
        Ratio averaged over all nodes including the local one (uniform placement) [1].
    max_routers : float, ndarray or Series
        Most routers on a path [1].
    """

    min_ratio: Any
    max_ratio: Any
    mean_remote_ratio: Any
    mean_ratio: Any
    max_routers: Any


@functools.lru_cache(maxsize=256)
def _topology_for(cpus: int, like: AltixTopology) -> AltixTopology:
    # one instance per (size, template): topologies are immutable and cache their router tables
    return dataclasses.replace(like, cpus=int(cpus))


@vectorized
def latency_ratio_range(cpus, latency: NumaLatency | None = None,
                        topology: AltixTopology | None = None) -> LatencyRangeResult:
    r"""Min, max and mean remote/local latency ratio of an Altix of ``cpus`` processors.

    Parameters
    ----------
    cpus : int or array_like of int
        System size, a multiple of the CPUs per node and at least two nodes [1].
    latency : NumaLatency, optional
        Latency model (default :class:`NumaLatency`).
    topology : AltixTopology, optional
        Template whose parameters other than ``cpus`` are used [1].

    Returns
    -------
    LatencyRangeResult

    Notes
    -----
    With :math:`h(0, j)` the routers from node 0 to node *j* (:class:`AltixTopology`) and
    :math:`r(h)` of :class:`NumaLatency`,

    .. math:: \bar r_\text{remote} = \frac{1}{n-1}\sum_{j\ne0} r(h(0,j)),\quad
              \bar r = \frac{1 + (n-1)\bar r_\text{remote}}{n}.

    The minimum is :math:`r_0` for any system of two nodes or more; the maximum grows in
    steps at 16 and 128 CPUs.

    References
    ----------
    Bryant et al. 2004 (seed ``003_b2fdde8a1106fead.txt``), "The SGI Altix Hardware":
    the ratio "varies from 1.9 to 3.5, depending on the size of the system and the
    relative locations of the processor and memory module".

    Examples
    --------
    >>> r = latency_ratio_range([4, 64, 512])
    >>> r.min_ratio.round(6).tolist(), r.max_ratio.round(6).tolist()
    ([1.9, 1.9, 1.9], [1.9, 2.966667, 3.5])
    """
    latency = latency or NumaLatency()
    topology = topology or AltixTopology()
    n = as_int_array("cpus", cpus, minimum=2 * topology.cpus_per_node)
    out = {k: np.empty(n.shape) for k in ("min_ratio", "max_ratio", "mean_remote_ratio", "mean_ratio",
                                          "max_routers")}
    for c in np.unique(n):
        t = _topology_for(c, topology)
        h = t.routers_from(0)
        r = np.asarray(latency.ratio(h))
        remote = r[1:]
        sel = n == c
        out["min_ratio"][sel] = remote.min()
        out["max_ratio"][sel] = latency.nearest_ratio + latency.per_router_ratio * t.max_routers
        out["mean_remote_ratio"][sel] = remote.mean()
        out["mean_ratio"][sel] = r.mean()
        out["max_routers"][sel] = t.max_routers
    return LatencyRangeResult(**out)


@dataclasses.dataclass(frozen=True)
class AccessTimeResult(Result):
    """Expected memory access time (see :func:`memory_access_time`).

    Attributes
    ----------
    access_time : float, ndarray or Series
        Expected latency of one memory reference [s].
    slowdown : float, ndarray or Series
        ``access_time`` over the local latency [1].
    remote_ratio : float, ndarray or Series
        Mean remote/local ratio of the remote references [1].
    """

    access_time: Any
    slowdown: Any
    remote_ratio: Any


@vectorized
def memory_access_time(local_fraction, cpus=512, latency: NumaLatency | None = None,
                       topology: AltixTopology | None = None) -> AccessTimeResult:
    r"""Expected memory access time for a fraction of local references.

    Parameters
    ----------
    local_fraction : float or array_like
        Share of references served by the issuing CPU's node, in [0, 1] [1].
    cpus : int or array_like of int
        System size; remote references are spread uniformly over the other nodes [1].
    latency : NumaLatency, optional
        Latency model.
    topology : AltixTopology, optional
        Template topology (its ``cpus`` is replaced by ``cpus``).

    Returns
    -------
    AccessTimeResult

    Notes
    -----
    .. math:: \bar t = t_\text{local}\,\big(f + (1-f)\,\bar r_\text{remote}(N)\big)

    with :math:`\bar r_\text{remote}` of :func:`latency_ratio_range`. Unloaded
    interconnect (no queueing at routers or memory); see :func:`hugetlb_zeroing` for
    the loaded case.

    References
    ----------
    Bryant et al. 2004 (seed ``003_b2fdde8a1106fead.txt``), "Page Cache": "Users of
    NUMA systems need to place their most frequently accessed data in local memory".

    Examples
    --------
    All local costs the local latency; all remote on a 4-CPU brick costs 1.9 times it.

    >>> lat = NumaLatency(local=100e-9)
    >>> r = memory_access_time([1.0, 0.0, 0.5], cpus=4, latency=lat)
    >>> (r.access_time * 1e9).round(9).tolist()
    [100.0, 190.0, 145.0]
    """
    latency = latency or NumaLatency()
    f = as_probability("local_fraction", local_fraction)
    rng = latency_ratio_range(np.asarray(cpus), latency, topology)
    f, rr = np.broadcast_arrays(f, np.asarray(rng.mean_remote_ratio, dtype=float))
    slowdown = f + (1.0 - f) * rr
    return AccessTimeResult(access_time=latency.local * slowdown, slowdown=slowdown,
                            remote_ratio=rr)


# --------------------------------------------------------------------------- page cache
PAGE_CACHE_POLICIES = ("local", "round_robin")


@dataclasses.dataclass(frozen=True)
class PageCachePlacementResult(Result):
    """Page-cache placement of one file (see :func:`page_cache_placement`).

    Attributes
    ----------
    reader_latency : float, ndarray or Series
        Mean latency of the reading process's references to the file's pages [s].
    sharer_latency : float, ndarray or Series
        Mean latency of a process on another node reading the same pages [s].
    local_fraction : float, ndarray or Series
        Share of the file's pages on the reader's node [1].
    reader_node_pages : float, ndarray or Series
        Pages (page cache plus slab) allocated on the reader's node [1].
    other_node_pages : float, ndarray or Series
        Mean pages allocated on each other node [1].
    imbalance_pages : float, ndarray or Series
        ``reader_node_pages - other_node_pages`` [1].
    spilled_pages : float, ndarray or Series
        Page-cache pages placed off the node the allocator preferred [1].
    nodes_filled : float, ndarray or Series
        Nodes whose free memory the file consumed entirely [1].
    """

    reader_latency: Any
    sharer_latency: Any
    local_fraction: Any
    reader_node_pages: Any
    other_node_pages: Any
    imbalance_pages: Any
    spilled_pages: Any
    nodes_filled: Any


def _placement_one(pages: float, t: AltixTopology, policy: str, free_pages: float, slab_pages: float,
                   slab_policy: str, ratio_matrix: np.ndarray):
    n = t.nodes
    per_node = np.zeros(n)
    if policy == "round_robin":
        # counter modulo nodes: the first (pages mod n) nodes get one page more
        q, rem = divmod(pages, n)
        per_node[:] = q
        per_node[: int(rem)] += 1.0
        per_node[int(rem) % n] += rem - int(rem)     # fractional page (continuous sizes)
        spilled = 0.0
        if q + 1 > free_pages:
            raise ValueError("file_bytes must fit in the free memory of all nodes under round_robin")
    else:
        order = np.lexsort((np.arange(n), t.routers_from(0)))   # nearest first, then node number
        left = pages
        for j in order:
            take = min(free_pages, left)
            per_node[j] = take
            left -= take
            if left <= 0:
                break
        if left > 0:
            raise ValueError("file_bytes must fit in the free memory of all nodes")
        spilled = pages - per_node[0]
    filled = float(np.sum(per_node >= free_pages)) if free_pages > 0 else float(n)
    w = per_node / pages
    reader_ratio = float(ratio_matrix[0] @ w)
    sharer_ratio = float((ratio_matrix[1:] @ w).mean()) if n > 1 else reader_ratio
    usage = per_node.copy()
    if slab_policy == "local":
        usage[0] += slab_pages
    else:
        usage += slab_pages / n
    other = float(usage[1:].mean()) if n > 1 else 0.0
    return (reader_ratio, sharer_ratio, float(w[0]), float(usage[0]), other, float(usage[0] - other),
            float(spilled), filled)


@vectorized
def page_cache_placement(file_bytes, cpus=512, policy: str = "round_robin", *,
                         node_free_bytes: float | None = None, page_size: float = 16384.0,
                         slab_bytes_per_page: float = 0.0, slab_policy: str = "local",
                         latency: NumaLatency | None = None,
                         topology: AltixTopology | None = None) -> PageCachePlacementResult:
    r"""Local (first-touch) vs round-robin allocation of a file's page-cache pages.

    Parameters
    ----------
    file_bytes : float or array_like
        Size of the file read through the page cache [B].
    cpus : int or array_like of int
        System size; the reader runs on node 0 [1].
    policy : {"round_robin", "local"}
        ``"local"``: each page on the reader's node, spilling nearest-first to other
        nodes when it is full (Linux default); ``"round_robin"``: page *k* on node
        *k* mod *n* (Linux for Altix ``alloc_pages_round_robin()``).
    node_free_bytes : float, optional
        Free memory per node available to the page cache; default the topology's
        ``memory_per_node`` [B].
    page_size : float
        Page size; Linux for Altix on ia64 uses 16 KiB pages (not printed in the seed) [B].
    slab_bytes_per_page : float
        Slab memory (buffer heads) allocated per page-cache page [B].
    slab_policy : {"local", "round_robin"}
        Where slab pages go: the reader's node (2.4.21 before the fix) or spread
        (``GFP_ROUND_ROBIN`` passed by ``kmem_cache_grow()``).
    latency : NumaLatency, optional
        Latency model.
    topology : AltixTopology, optional
        Template topology (its ``cpus`` is replaced by ``cpus``).

    Returns
    -------
    PageCachePlacementResult

    Notes
    -----
    With :math:`P = \lceil\text{file}/\text{page}\rceil` pages, :math:`w_j` the share of
    them on node *j* and :math:`r_{ij}` the latency ratio between nodes,

    .. math::

        \text{round robin: } w_j = \tfrac{1}{n} \;(\pm 1 \text{ page}),\qquad
        \text{local: } w_0 = \min(1, F/P), \text{ the rest nearest-first},

        \bar t_\text{reader} = t_\text{local} \sum_j w_j r_{0j},\qquad
        \bar t_\text{sharer} = \frac{t_\text{local}}{n-1}\sum_{i\ne0}\sum_j w_j r_{ij},

    with *F* the free pages per node. Slab pages :math:`P\,s/\text{page}` go to node 0
    (local) or :math:`1/n` to each node. The imbalance is node 0's pages minus the mean
    of the others. Round robin trades the reader's locality (:math:`w_0 = 1/n`) for
    balance (imbalance below one page) and an equal latency for every sharer.

    References
    ----------
    Bryant et al. 2004 (seed ``003_b2fdde8a1106fead.txt``), "Page Cache": "we 'tax'
    every node in the system with a fraction of the page-cache pages"; "After reading a
    10 GB file ... the node where the reading process was running would have up to
    40,000 pages more storage allocated than other nodes ... buffer heads for the read
    operation were being allocated locally".

    Examples
    --------
    64 pages on a 4-node (8-CPU) system: round robin puts 16 on each node.

    >>> r = page_cache_placement(64 * 16384, cpus=8, policy="round_robin")
    >>> r.local_fraction, r.reader_node_pages, r.imbalance_pages
    (0.25, 16.0, 0.0)
    >>> r = page_cache_placement(64 * 16384, cpus=8, policy="local")
    >>> r.local_fraction, r.imbalance_pages
    (1.0, 64.0)
    """
    if policy not in PAGE_CACHE_POLICIES:
        raise ValueError(f"policy must be one of {list(PAGE_CACHE_POLICIES)}, got {policy!r}")
    if slab_policy not in PAGE_CACHE_POLICIES:
        raise ValueError(f"slab_policy must be one of {list(PAGE_CACHE_POLICIES)}, got {slab_policy!r}")
    latency = latency or NumaLatency()
    topology = topology or AltixTopology()
    fb = as_float_array("file_bytes", file_bytes, positive=True)
    n = as_int_array("cpus", cpus, minimum=topology.cpus_per_node)
    page = as_scalar("page_size", page_size, positive=True)
    slab = as_scalar("slab_bytes_per_page", slab_bytes_per_page)
    free = topology.memory_per_node if node_free_bytes is None else as_scalar("node_free_bytes", node_free_bytes, positive=True)
    fb, n = np.broadcast_arrays(fb, n)
    fields = [np.empty(fb.shape) for _ in range(8)]
    cache: dict = {}
    for idx in np.ndindex(fb.shape):
        c = int(n[idx])
        if c not in cache:
            t = _topology_for(c, topology)
            hops, where = t._hop_classes
            cache[c] = (t, np.asarray(latency.ratio(hops), dtype=float)[where])
        t, rm = cache[c]
        pages = math.ceil(fb[idx] / page - 1e-12)
        vals = _placement_one(float(pages), t, policy, math.floor(free / page), pages * slab / page,
                              slab_policy, rm)
        for k, v in enumerate(vals):
            fields[k][idx] = v
    rl, sl, lf, rn, on, imb, sp, nf = fields
    return PageCachePlacementResult(
        reader_latency=latency.local * rl, sharer_latency=latency.local * sl,
        local_fraction=lf, reader_node_pages=rn, other_node_pages=on,
        imbalance_pages=imb, spilled_pages=sp, nodes_filled=nf)


# --------------------------------------------------------------------------- PIO
PIO_OPERATIONS = ("normal_read", "relaxed_read", "chipset_read", "flush_normal_read", "flush_relaxed_read",
                  "flush_mmiob")


@dataclasses.dataclass(frozen=True)
class PioCosts:
    r"""Per-operation costs of programmed I/O on Altix, on an idle I/O path.

    Parameters
    ----------
    round_trip : float
        Relaxed PIO read: the CPU stalls for a round trip to the I/O brick and the
        device register read [s].
    dma_flush : float
        Extra time of a normal (strongly ordered) PIO read: the explicit flush of DMA
        write data SGI performs after each PIO read [s].
    write_drain : float
        Time per posted PIO write until it has reached the chipset attached to the
        device (the pipeline gap of the writes; evaluated on the busy path) [s].
    chipset_read : float
        Read of a register of the local node's chipset (the poll of ``sn_mmiob()``) [s].

    Notes
    -----
    Defaults are the idle-system Table 1 numbers (1299 ns relaxed, 3875 - 1299 ns flush),
    the local chipset read of Table 3 (399 ns) and a drain of 200 ns per write (the
    value :mod:`zmodel.fits.kernel_numa` fits to Table 3). See :func:`pio_cost`.

    References
    ----------
    Bryant et al. 2004 (seed ``003_b2fdde8a1106fead.txt``), "Making non-dependent PIO
    reads fast" (Tables 1, 2) and "Ordering posted writes efficiently" (Table 3).

    Examples
    --------
    >>> PioCosts().normal_read * 1e9
    3875.0
    """

    round_trip: float = 1299e-9
    dma_flush: float = 2576e-9
    write_drain: float = 200e-9
    chipset_read: float = 399e-9

    def __post_init__(self):
        check_fields(self, positive=True)

    @property
    def normal_read(self) -> float:
        """Normal PIO read on an idle path, ``round_trip + dma_flush`` [s]."""
        return self.round_trip + self.dma_flush


@dataclasses.dataclass(frozen=True)
class PioResult(Result):
    """Cost of a PIO operation (see :func:`pio_cost`).

    Attributes
    ----------
    time : float, ndarray or Series
        CPU stall of the operation [s].
    inflation : float, ndarray or Series
        Factor by which load stretches the I/O-path segments, 1/(1 - rho) [1].
    operation : str
        The operation costed.
    """

    time: Any
    inflation: Any
    operation: str = ""


@vectorized
def pio_cost(operation: str, load=0.0, writes=0, costs: PioCosts | None = None, extra_routers=0,
             latency: NumaLatency | None = None) -> PioResult:
    r"""CPU stall of a PIO read or of flushing posted PIO writes on Altix.

    Parameters
    ----------
    operation : str
        One of ``"normal_read"``, ``"relaxed_read"``, ``"chipset_read"`` (local
        chipset register), ``"flush_normal_read"``, ``"flush_relaxed_read"``,
        ``"flush_mmiob"`` (order ``writes`` posted writes by a read or by
        ``sn_mmiob()``).
    load : float or array_like
        Utilization of the I/O path by other traffic (DMA), in [0, 1) [1].
    writes : int or array_like of int
        Posted PIO writes to flush (flush operations only) [1].
    costs : PioCosts, optional
        Idle per-operation costs.
    extra_routers : int or array_like of int
        Routers on the path to the I/O brick beyond those of the measured setup; each
        adds a round trip of :math:`\Delta\,t_\text{local}` to an operation that goes
        to the I/O brick [1].
    latency : NumaLatency, optional
        Supplies :math:`\Delta` and :math:`t_\text{local}` for ``extra_routers``.

    Returns
    -------
    PioResult

    Notes
    -----
    The I/O-path segments (round trip, DMA flush) queue behind DMA traffic of
    utilization :math:`\rho`; as in an M/M/1 their time is stretched by
    :math:`1/(1-\rho)` (Kleinrock 1975, §3.2, :math:`T = \bar x/(1-\rho)`). With
    :math:`R` the round trip, :math:`F` the DMA flush, :math:`w` the drain per write,
    :math:`c` the local chipset read and :math:`k` writes:

    .. math::

        t_\text{relaxed} = \frac{R}{1-\rho},\quad t_\text{normal} = \frac{R + F}{1-\rho},
        \quad t_\text{flush,read} = k\,w + t_\text{read},\quad
        t_\text{mmiob} = k\,w + \tfrac{3}{2}\,c.

    A read ordered behind the writes leaves after the last write drained. ``sn_mmiob()``
    spins reading the local chipset register (each read takes *c*, the register is
    sampled when a read is issued); the drain ends at a uniformly random phase of a
    read, so the read that sees it returns on average :math:`c/2 + c` later. The
    chipset read does not use the I/O path and is not stretched. Valid for
    :math:`0 \le \rho < 1`.

    References
    ----------
    Bryant et al. 2004 (seed ``003_b2fdde8a1106fead.txt``), Tables 1-3 and "Ordering
    posted writes efficiently": ``sn_mmiob()`` reads "a register from the chipset on
    the local node. When the register indicates that all PIO writes are complete, it
    means they have arrived at the chipset attached to the device".
    L. Kleinrock, *Queueing Systems, Vol. 1*, Wiley 1975, §3.2 (M/M/1).

    Examples
    --------
    >>> c = PioCosts(round_trip=1000e-9, dma_flush=2000e-9, write_drain=200e-9, chipset_read=400e-9)
    >>> round(pio_cost("normal_read", load=0.5, costs=c).time * 1e9, 6)   # 3000 / (1 - 0.5)
    6000.0
    >>> round(pio_cost("flush_mmiob", writes=5, costs=c).time * 1e9, 6)   # 5 * 200 + 1.5 * 400
    1600.0
    """
    if operation not in PIO_OPERATIONS:
        raise ValueError(f"operation must be one of {list(PIO_OPERATIONS)}, got {operation!r}")
    costs = costs or PioCosts()
    latency = latency or NumaLatency()
    rho = as_probability("load", load)
    if np.any(rho >= 1):
        raise ValueError(f"load must be below 1 (utilization of the I/O path), got {np.max(rho)!r}")
    k = as_int_array("writes", writes, minimum=0).astype(float)
    h = as_int_array("extra_routers", extra_routers, minimum=0).astype(float)
    if operation in ("normal_read", "relaxed_read", "chipset_read") and np.any(k > 0):
        raise ValueError(f"writes must be 0 for operation {operation!r} (only flushes drain writes)")
    rho, k, h = np.broadcast_arrays(rho, k, h)
    # M/M/1 stretch of an I/O-path segment: response time / service time = 1/(1-rho)
    # (the response time of zmodel.queueing.mm1 at service time 1, written out: this is
    # evaluated some ten thousand times per kernel_numa leave-one-out; the tests compare it
    # with mm1)
    inflation = 1.0 / (1.0 - rho)
    trip = (costs.round_trip + h * latency.per_router_ratio * latency.local) * inflation
    normal = trip + costs.dma_flush * inflation
    drain = k * costs.write_drain
    time = {
        "normal_read": normal,
        "relaxed_read": trip,
        "chipset_read": np.full(rho.shape, costs.chipset_read),
        "flush_normal_read": drain + normal,
        "flush_relaxed_read": drain + trip,
        "flush_mmiob": drain + 1.5 * costs.chipset_read,
    }[operation]
    return PioResult(time=time, inflation=inflation, operation=operation)


# --------------------------------------------------------------------------- DMA
@dataclasses.dataclass(frozen=True)
class DmaResult(Result):
    """I/O rate with a consistent DMA buffer (see :func:`dma_buffer_iops`).

    Attributes
    ----------
    iops : float, ndarray or Series
        I/O operations per second [1/s].
    time_per_io : float, ndarray or Series
        Time per I/O, ``1/iops`` [s].
    buffer_time : float, ndarray or Series
        Part of it spent on latency-bound accesses to the buffer [s].
    """

    iops: Any
    time_per_io: Any
    buffer_time: Any


@vectorized
def dma_buffer_iops(io_time, accesses_per_io, routers=-1, latency: NumaLatency | None = None) -> DmaResult:
    r"""I/O rate of a device whose command/status buffer is local or remote to it.

    Parameters
    ----------
    io_time : float or array_like
        Time per I/O outside the buffer accesses (device, driver, interrupt) [s].
    accesses_per_io : float or array_like
        Latency-bound device accesses to the consistent buffer per I/O (command fetch,
        status write with the barrier attribute, ring pointers), effective count [1].
    routers : int or array_like of int
        Routers between the device's node and the buffer's node; -1 = the node nearest
        the device (``pci_alloc_consistent`` calling ``alloc_pages_node``) [1].
    latency : NumaLatency, optional
        Latency model; a buffer access costs :math:`t_\text{local}\,r(h)`.

    Returns
    -------
    DmaResult

    Notes
    -----
    One I/O at a time on the measured path (a closed loop of one request):

    .. math:: \text{IOPS}(h) = \frac{1}{t_\text{io} + a\,t_\text{local}\,r(h)}

    The remote buffer costs :math:`a\,t_\text{local}\,(r(h) - 1)` more per I/O. Streaming
    DMA with a window of *W* bytes outstanding is latency bound the same way (Little's
    law: bandwidth :math:`= W / (t_\text{local} r(h))`).

    References
    ----------
    Bryant et al. 2004 (seed ``003_b2fdde8a1106fead.txt``), "Local allocation of
    consistent DMA mappings", Table 4 (46231 vs 41295 I/Os per second).

    Examples
    --------
    >>> lat = NumaLatency(local=200e-9, nearest_ratio=2.0, per_router_ratio=0.5)
    >>> r = dma_buffer_iops(io_time=19e-6, accesses_per_io=5, routers=[-1, 0], latency=lat)
    >>> r.iops.round(6).tolist()     # 1/(19 + 1) us and 1/(19 + 2) us
    [50000.0, 47619.047619]
    """
    latency = latency or NumaLatency()
    t = as_float_array("io_time", io_time)
    a = as_float_array("accesses_per_io", accesses_per_io)
    h = as_int_array("routers", routers, minimum=-1)
    t, a, h = np.broadcast_arrays(t, a, h)
    buf = a * latency.local * np.asarray(latency.ratio(h), dtype=float)
    total = t + buf
    if np.any(total <= 0):
        raise ValueError("io_time and accesses_per_io must not both be zero (the I/O rate would be infinite)")
    return DmaResult(iops=1.0 / total, time_per_io=total, buffer_time=buf)


# --------------------------------------------------------------------------- hugetlb zeroing
@dataclasses.dataclass(frozen=True)
class ZeroingResult(Result):
    """Zeroing a huge-page region (see :func:`hugetlb_zeroing`).

    Attributes
    ----------
    time : float, ndarray or Series
        Elapsed time to zero the region [s].
    bandwidth : float, ndarray or Series
        Aggregate zeroing rate [B/s].
    speedup : float, ndarray or Series
        Time with one CPU over this time [1].
    mean_ratio : float, ndarray or Series
        Mean remote/local latency ratio of the pages a CPU zeroes [1].
    memory_utilization : float, ndarray or Series
        Largest utilization of a memory controller [1].
    """

    time: Any
    bandwidth: Any
    speedup: Any
    mean_ratio: Any
    memory_utilization: Any


def _zero_one(p: int, region: float, pool: float, t: AltixTopology, lat: NumaLatency, outstanding: int,
              line: float, node_bw: float):
    n = t.nodes
    groups = min(p, n)                      # one CPU per node while p <= nodes, spread evenly
    per_group_cpus = p / groups
    population = int(round(outstanding * per_group_cpus))
    share = region / groups                 # bytes each group zeroes
    g = pool / n                            # huge pages per node
    hops, where = t._nearest_hops            # nodes nearest first, by their router counts
    ratios = np.asarray(lat.ratio(hops), dtype=float)[where]
    take = np.clip(share - g * np.arange(n), 0.0, g)   # nearest-first: fill node after node
    take = take[take > 0]
    v = take / share                        # visit fraction per memory controller
    mean_ratio = float(v @ ratios[: v.size])
    s_mem = line / node_bw
    think = lat.local * mean_ratio - s_mem  # unloaded latency outside the controller
    r = mva(v * s_mem, population=population, think_time=think, servers=1)
    x = float(r.throughput)                 # lines per second of one group
    time = share / (x * line)
    return time, region / time, mean_ratio, float(np.max(r.utilization))


@vectorized
def hugetlb_zeroing(cpus, region_bytes, *, pool_bytes: float | None = None, system_cpus: int = 512,
                    outstanding: int = 4, line_size: float = 128.0, node_bandwidth: float = 6.4e9,
                    latency: NumaLatency | None = None, topology: AltixTopology | None = None) -> ZeroingResult:
    r"""Time to zero a HUGETLB region with one CPU (prefault) or many (allocate on fault).

    Parameters
    ----------
    cpus : int or array_like of int
        CPUs faulting and zeroing in parallel, spread one per node (1 = the 2.4.21
        ``hugetlb_prefault()`` path, one thread zeroing everything) [1].
    region_bytes : float
        Size of the region zeroed [B].
    pool_bytes : float, optional
        Huge-page pool, spread evenly over the nodes at boot; default ``region_bytes``
        (all available huge pages are touched) [B].
    system_cpus : int
        Size of the Altix [1].
    outstanding : int
        Cache-line writes each CPU keeps in flight (memory-level parallelism) [1].
    line_size : float
        Cache line written per memory transaction; Itanium 2 L2/L3 lines are 128 bytes [B].
    node_bandwidth : float
        Service rate of one node's memory controller (SHUB) [B/s].
    latency : NumaLatency, optional
        Latency model.
    topology : AltixTopology, optional
        Template topology (its ``cpus`` is replaced by ``system_cpus``).

    Returns
    -------
    ZeroingResult

    Notes
    -----
    Each CPU faults :math:`S/p` bytes and takes huge pages nearest-first from the pool
    (:math:`g = \text{pool}/n` per node): its own node, the other node of its C-brick,
    its subgroup, then further. CPUs spread one per node own disjoint sets of nodes, so
    each is an independent closed network: :math:`M` line writes circulate between a
    delay (the unloaded latency minus the controller's service) and the memory
    controllers of its nodes, visited in proportion :math:`v_j` to the bytes there:

    .. math::

        D_j = v_j \frac{L}{B},\quad Z = t_\text{local}\sum_j v_j r_j - \frac{L}{B},\quad
        X = \text{MVA}(D, M, Z),\quad T(p) = \frac{S/p}{X\,L}.

    One CPU zeroing the whole pool reaches every node (mean ratio near the far ratio);
    *p* spread CPUs each reach only their :math:`n/p` nearest nodes, so the speedup
    :math:`T(1)/T(p)` exceeds *p*: "if you use just one processor it has to zero many
    remote pages, whereas if you use more processors, at least some of the pages you
    are zeroing are local or on nearby nodes". For :math:`p > n` two CPUs share a
    node (population :math:`M p/n`). Router contention is ignored.

    References
    ----------
    Bryant et al. 2004 (seed ``003_b2fdde8a1106fead.txt``), "VM and Memory Allocation
    Fixes" (5,000 s on 4 TB; 25x with 16 processors on O(100 GB)).
    Lazowska et al., *Quantitative System Performance*, Prentice Hall 1984, §6.4 (exact MVA).

    Examples
    --------
    Two nodes (4 CPUs), 1 line in flight, controller service negligible: one CPU sees
    the mean of ratios 1 and 1.9, two CPUs stay local, speedup 2 * 1.45.

    >>> lat = NumaLatency(local=100e-9)
    >>> r = hugetlb_zeroing([1, 2], 2 * GiB, system_cpus=4, outstanding=1, node_bandwidth=1e15, latency=lat)
    >>> r.mean_ratio.round(6).tolist(), r.speedup.round(4).tolist()
    ([1.45, 1.0], [1.0, 2.9])
    """
    latency = latency or NumaLatency()
    topology = _topology_for(as_count("system_cpus", system_cpus), topology or AltixTopology())
    p = as_int_array("cpus", cpus, minimum=1)
    if np.any(p > topology.cpus):
        raise ValueError(f"cpus must not exceed system_cpus ({topology.cpus}), got {int(p.max())}")
    region = as_scalar("region_bytes", region_bytes, positive=True)
    pool = region if pool_bytes is None else as_scalar("pool_bytes", pool_bytes, positive=True)
    if region > pool * (1 + 1e-12):
        raise ValueError(f"region_bytes must not exceed pool_bytes ({pool:g}), got {region:g}")
    m = as_count("outstanding", outstanding)
    line = as_scalar("line_size", line_size, positive=True)
    bw = as_scalar("node_bandwidth", node_bandwidth, positive=True)
    if line / bw >= latency.local:
        raise ValueError("node_bandwidth too low: a controller's service time line_size/node_bandwidth must be "
                         "below the local latency")
    out = {k: np.empty(p.shape) for k in ("time", "bandwidth", "mean_ratio", "memory_utilization")}
    results = {c: _zero_one(c, region, pool, topology, latency, m, line, bw) for c in np.unique(np.append(p, 1))}
    for c, (t, b, mr, u) in results.items():
        sel = p == c
        out["time"][sel], out["bandwidth"][sel] = t, b
        out["mean_ratio"][sel], out["memory_utilization"][sel] = mr, u
    speedup = results[1][0] / out["time"]
    return ZeroingResult(time=out["time"], bandwidth=out["bandwidth"],
                         speedup=speedup, mean_ratio=out["mean_ratio"],
                         memory_utilization=out["memory_utilization"])


# --------------------------------------------------------------------------- parameters
@dataclasses.dataclass(frozen=True)
class NumaCosts:
    """Tunable latencies, bandwidths and sizes of the Altix NUMA models, declared once.

    Each field declares its default, unit, plausible range and provenance
    (:func:`zmodel.queueing._params.param`); :mod:`zmodel.fits.kernel_numa` derives its
    fit parameters from them and maps the fitted values back with ``to_dataclass``. The
    defaults are data-independent orders of magnitude (a fit starts there); the defaults
    of :class:`NumaLatency` and :class:`PioCosts` are instead the documented Table 1/3
    numbers and the fitted latency, for direct use of those classes.

    Parameters
    ----------
    local_latency, nearest_ratio, per_router_ratio : float
        :class:`NumaLatency`'s ``local`` [s], ``nearest_ratio`` [1], ``per_router_ratio`` [1].
    outstanding : float
        Cache-line writes one CPU keeps in flight while zeroing (:func:`hugetlb_zeroing`) [1].
    line_size : float
        Cache-line size [B].
    node_bandwidth : float
        Memory bandwidth of one node's controller [B/s].
    pio_round_trip, pio_dma_flush, pio_write_drain, chipset_read : float
        :class:`PioCosts`' ``round_trip``, ``dma_flush``, ``write_drain``, ``chipset_read`` [s].
    dma_io_time : float
        Time per I/O outside the consistent-buffer accesses (:func:`dma_buffer_iops`' ``io_time``) [s].
    dma_accesses : float
        Latency-bound device accesses to the consistent buffer per I/O (``accesses_per_io``) [1].
    page_size : float
        Base page size of Linux for Altix [B].
    slab_bytes_per_page : float
        Slab memory (buffer heads) allocated per page-cache page (:func:`page_cache_placement`) [B].

    Examples
    --------
    >>> c = NumaCosts()
    >>> c.latency().local == c.local_latency, c.pio().round_trip == c.pio_round_trip
    (True, True)
    """

    local_latency: float = param(
        200e-9, unit="s", range=(20e-9, 2e-6),
        source="assumed: a DRAM access behind a node controller, about 200 ns (the seed prints no latency)")
    nearest_ratio: float = param(
        2.0, unit="1", range=(1.0, 5.0),
        source="assumed: 2, inside the printed range; 003_b2fdde8a1106fead.txt: 'The ratio of remote to local "
               "memory access times on an Altix system varies from 1.9 to 3.5'")
    per_router_ratio: float = param(
        0.5, unit="1", range=(0.0, 3.0),
        source="assumed: half a local latency per router crossed (the printed 1.9 to 3.5 spans a few routers)")
    outstanding: float = param(
        4.0, unit="1", range=(1.0, 64.0),
        source="assumed: cache-line writes one CPU keeps in flight while zeroing (not printed)")
    line_size: float = param(
        128.0, unit="B", range=(32.0, 512.0),
        source="assumed: 128-byte L2/L3 lines of the Itanium 2 (Intel's Itanium 2 reference manual; page not "
               "checked here); not in the seed")
    node_bandwidth: float = param(
        6.4e9, unit="B/s", range=(1e8, 1e12),
        source="assumed: one node's memory controller at the 6.4 GB/s of an Itanium 2 front-side bus "
               "(400 MT/s x 16 B)")
    pio_round_trip: float = param(
        1e-6, unit="s", range=(1e-8, 1e-4),
        source="assumed: a round trip to the I/O brick over a few routers, about 1 us")
    pio_dma_flush: float = param(
        1e-6, unit="s", range=(0.0, 1e-4),
        source="assumed: the DMA-write flush after a normal PIO read, of the order of a round trip")
    pio_write_drain: float = param(
        100e-9, unit="s", range=(0.0, 1e-5),
        source="assumed: a posted PIO write drains in about 100 ns")
    chipset_read: float = param(
        500e-9, unit="s", range=(1e-9, 1e-5),
        source="assumed: a local chipset register read of about 500 ns")
    dma_io_time: float = param(
        10e-6, unit="s", range=(0.0, 1e-3),
        source="assumed: device and driver time per I/O outside the consistent-buffer accesses, about 10 us")
    dma_accesses: float = param(
        10.0, unit="1", range=(0.1, 1000.0),
        source="assumed: about ten latency-bound device accesses to the consistent buffer per I/O "
               "(descriptors, status words)")
    page_size: float = param(
        16384.0, unit="B", range=(4096.0, 2.0 ** 30),
        source="assumed: 16 KiB base pages of Linux for Altix on ia64 (not printed in the seed)")
    slab_bytes_per_page: float = param(
        1000.0, unit="B", range=(0.0, 16384.0),
        source="assumed: buffer heads of about 1 KB per page-cache page")

    def __post_init__(self):
        check_fields(self)

    def latency(self) -> NumaLatency:
        """The latency model at these values."""
        return NumaLatency(local=self.local_latency, nearest_ratio=self.nearest_ratio,
                           per_router_ratio=self.per_router_ratio)

    def dma_iops(self, routers):
        """:func:`dma_buffer_iops` of a consistent buffer ``routers`` hops from the device (-1: local) [1/s]."""
        return dma_buffer_iops(self.dma_io_time, self.dma_accesses, routers, self.latency()).iops

    def pio(self) -> PioCosts:
        """The PIO costs at these values."""
        return PioCosts(round_trip=self.pio_round_trip, dma_flush=self.pio_dma_flush,
                        write_drain=self.pio_write_drain, chipset_read=self.chipset_read)
