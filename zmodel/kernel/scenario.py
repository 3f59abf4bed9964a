r"""System scenarios: hardware + kernel + hypervisor + workload, validated, predicted over sweeps.

A :class:`Scenario` is four plain validated sections built from a nested mapping shaped
like the TOML files in ``examples/`` (:meth:`Scenario.from_dict`); every error message
names the key path (``"workload.clients must be a positive integer, got -4"``).
:meth:`Scenario.predict` maps the sections onto the components --

* ``[hardware]``: processor speed from the catalog (``zmodel.hardware.catalog``, relative
  to the z990's 1.2 GHz: a clock-ratio proxy), the channel paths
  (:class:`zmodel.hardware.channels.ChannelLink` demands per I/O; optionally a card
  generation of :class:`~zmodel.hardware.channels.ChannelCard`, zHPF, the multipath mode,
  and volumes with PAV/HyperPAV aliases, whose IOSQ time from
  :class:`~zmodel.hardware.channels.ChannelSubsystem` joins the prediction), the storage
  server's disk-seconds per I/O and controller time
  (:class:`zmodel.hardware.storage.StorageServer`; a workload footprint gives the hit ratio
  from its cache size);
* ``[kernel]``: a :class:`~zmodel.kernel.versions.KernelVersion` feature set and its I/O
  scheduler;
* ``[hypervisor]``: the dispatch fraction of the logical CPUs -- PR/SM weight share
  (:func:`zmodel.kernel.hypervisor.lpar_dispatch`, the other partitions busy) or the z/VM
  capacity left by idle guests' timer ticks
  (:func:`zmodel.kernel.hypervisor.idle_guest_overhead`, no ticks with
  ``idle_tick_patch``) shared by the active guests;
* ``[workload]``: a :class:`~zmodel.kernel.versions.WorkloadProfile` preset of
  :data:`WORKLOAD_KINDS` with the file's overrides --

and solves :func:`zmodel.kernel.versions.compose`, returning one DataFrame row per sweep
point with the contract columns (``throughput`` [transactions/s for a closed workload,
I/O/s for an open load], ``response_time`` [s], ``cpu_utilization``,
``channel_utilization``, ``disk_utilization``, ``steal``, ``memory_overhead`` [B],
``features``, ``parameters``, ``saturated``, ``model``). ``saturated`` names the
resources at capacity (empty when none): an open load beyond a station's capacity is
carried at that capacity (throughput and utilizations at the carried load, response time
infinite), and z/VM idle guests whose timer ticks need every physical CPU leave nothing
for the workload (throughput 0, response time infinite). ``model`` says which solver
produced the row. Sweeps over ``workload.clients``
are solved in one batched MVA per combination of the other swept keys.

This module imports :mod:`zmodel.hardware` and :mod:`zmodel.queueing` (through the kernel
models) only; pandas is imported inside :meth:`Scenario.predict`.
"""
from __future__ import annotations

import contextlib
import dataclasses
import functools
import itertools
import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from zmodel.kernel.versions import (
    FEATURES,
    IO_SCHEDULERS,
    KERNEL_VERSIONS,
    TIMESLICE_24,
    KernelCosts,
    KernelVersion,
    SystemConfig,
    WorkloadProfile,
    calibrated_costs,
    compose,
    compose_many,
    _delay_time,
    kernel_version,
)
from zmodel.conventions import (
    INTERVAL_LEVEL, as_choice, as_count, as_float_array, as_fraction, as_scalar, interval, quiet_saturation,
    vectorized,
)
from zmodel.queueing._params import parameter_info
from zmodel.store import ParameterStore
from zmodel.store import default as default_store
from zmodel.units import GiB

__all__ = [
    "KERNEL_VERSIONS",
    "FEATURES",
    "kernel_version",
    "WORKLOAD_KINDS",
    "HYPERVISOR_TYPES",
    "SWEEPABLE",
    "OUTPUT_COLUMNS",
    "Hardware",
    "Kernel",
    "Hypervisor",
    "Workload",
    "Scenario",
    "predict",
    "REFERENCE_CLOCK",
    "DEFAULT_COMMAND_TIME",
]

#: clock of the reference processor of :class:`~zmodel.kernel.versions.KernelCosts` (z990) [1/s]
REFERENCE_CLOCK = 1.2e9
#: channel command time when the link catalog gives no maximum I/O rate: 1/7200 s, the
#: documented FICON-1G maximum I/O rate of ``zmodel/_data/hardware/links.csv`` [s]
DEFAULT_COMMAND_TIME = 1.0 / 7200.0
HYPERVISOR_TYPES = ("none", "lpar", "zvm")
#: ``hardware.multipath`` values (:data:`zmodel.hardware.channels.MULTIPATH_MODES`), the default first
MULTIPATH_CHOICES = ("multibus", "failover")
#: ``hardware.pav`` values (:data:`zmodel.hardware.channels.PAV_MODES`), the default first
PAV_CHOICES = ("static", "hyper")
#: relative tolerance of the IOSQ fixed point of a closed scenario with ``hardware.volumes``
IOSQ_TOLERANCE = 1e-9
#: largest population searched for an open load's operating point (Scenario._open_operating_point)
OPEN_POPULATION_MAX = 4096
#: relative tolerance of the dispatch-fraction fixed point of an image under a hypervisor
DISPATCH_TOLERANCE = 1e-9
#: the fastest FCP link whose adapter limit was calibrated (zmodel.fits.channels: WAVV 2008, 2 and 4 Gbit/s) [bit/s]
FCP_MEASURED_LINK_RATE = 4e9
#: parameter draws :meth:`Scenario.sampled` solves together (one :func:`compose_many` call per step)
SAMPLED_BATCH = 25
#: columns of :meth:`Scenario.predict` after the swept key paths
OUTPUT_COLUMNS = ("throughput", "response_time", "cpu_utilization", "channel_utilization", "disk_utilization",
                  "steal", "memory_overhead", "features", "parameters", "saturated", "model", "assumed")
#: numeric columns of :meth:`Scenario.predict` that get a sampled interval (``<name>_lo``, ``<name>_hi``)
INTERVAL_COLUMNS = ("throughput", "response_time", "cpu_utilization", "channel_utilization", "disk_utilization",
                    "steal", "memory_overhead")
#: the parameter-store area whose fit is the composition's own (each of its rows a whole benchmark on a
#: composed system, zmodel.fits.kernel_versions): its left-out errors (zmodel.store.ModelError) are what a
#: composed prediction misses out of sample
COMPOSITION_AREA = "kernel_versions"
#: points of the grid over a component fit's error draws on which its effect on the headline is
#: predicted exactly (:meth:`Scenario.component_error_effects`; interpolated between them)
ERROR_GRID = 9
#: coverage of the predicted intervals (zmodel.conventions.INTERVAL_LEVEL, re-exported): the 5th and 95th
#: percentiles of the sampled predictions
#: most draws :meth:`Scenario.predict` takes (each costs one prediction of every sweep point)
MAX_SAMPLES = 100_000
#: workload kind -> {profile field: parameter store name}: preset fields a calibration fits
#: (the dbench CPU time per page outside memory management, fitted by the kernel-versions
#: calibration on the IBM Systems Journal's dbench figures)
WORKLOAD_PARAMETERS = {"dbench": {"user_time": "dbench_cpu_time"}}
#: largest integer a scenario key may hold: 2**53, the last integer float64 (the models'
#: arithmetic) represents exactly
MAX_INTEGER = 2 ** 53
#: documented maxima of the numeric ``[workload]`` keys (beyond them a demand overflows or
#: the model leaves its domain)
WORKLOAD_MAXIMA = {"think_time": 1e9, "io_per_transaction": 1e6, "cpu_per_transaction": 1e6,
                   "block_size": GiB, "io_rate": 1e9, "footprint": 1e18, "forks": 1e6, "spawns": 1e6}
#: the ``model`` column: which solver produced a row
MODEL_CLOSED = "closed: exact MVA of the composed kernel model"
MODEL_OPEN = "open: M/M/c stations at the offered I/O rate"


#: workload kind -> preset :class:`WorkloadProfile` fields (illustrative per-transaction
#: activity, reference-speed CPU seconds; override any of them in ``[workload]``)
WORKLOAD_KINDS: dict[str, dict[str, Any]] = {
    "oltp": dict(clients=64, think_time=0.1, user_time=1.5e-3, switches=4, io_per_transaction=4, block_size=4096,
                 read_fraction=0.7, hit_ratio=0.5, network_requests=2, shared_memory=1 * GiB, large_pages=True,
                 page_events=2, read_think_time=1e-3),
    "dbench": dict(clients=None, think_time=0.0, user_time=20e-6, page_events=1, block_size=4096),
    "file_server": dict(clients=16, think_time=0.0, user_time=0.2e-3, switches=2, io_per_transaction=1,
                        block_size=32768, read_fraction=0.8, hit_ratio=0.3, buffered_io=True, network_requests=2,
                        page_events=8, read_think_time=0.5e-3),
    "sequential_read": dict(clients=8, think_time=0.0, user_time=50e-6, switches=1, io_per_transaction=1,
                            block_size=65536, read_fraction=1.0, sequential=True, buffered_io=True,
                            direct_io_capable=True, page_events=16, read_think_time=0.1e-3),
    "random_read": dict(clients=16, think_time=0.0, user_time=50e-6, switches=1, io_per_transaction=1,
                        block_size=4096, read_fraction=1.0, buffered_io=True, direct_io_capable=True,
                        page_events=1, read_think_time=0.1e-3),
    # a static web server read as SPECweb99 (zmodel.fits.kernel_versions.PROFILES["specweb"]): 5.95 TCP
    # segments per request over SPEC's published file mix, 9.3 dcache_lock acquisitions per request
    # from the published lockmeter run -- the counts the calibrated per-segment network cost and the
    # dcache lock were read with
    "web": dict(clients=200, think_time=0.01, user_time=0.4e-3, switches=3, network_requests=2,
                network_segments=5.95, dcache_lookups=9.3),
    # a fork-and-switch-heavy multi-user mix (the name is historical): 6 switches and 0.2 forks per ms of
    # CPU, some 100 and 30 times what OSDL's re-aim-7 Database Mix does per ms as its source gives it
    # (zmodel.fits.kernel_versions.REAIM_MIX: ~2 switches and 0.27 shell spawns per job of ~46 ms)
    "reaim": dict(clients=100, think_time=0.0, user_time=1e-3, switches=6, io_per_transaction=0.5,
                  block_size=4096, read_fraction=0.5, forks=0.2, runnable_fraction=0.5, read_think_time=1e-3),
    # SPECjbb2000 as the kernel-version fit reads it (zmodel.fits.kernel_versions.PROFILES["specjbb"]): one
    # warehouse thread per CPU that "does no disk IO", has "no network IO" and "no think times" (SPEC's
    # whitepaper), so it leaves its CPU when its 2.4 timeslice ends, every 60 ms of CPU
    # (NICE_TO_TICKS(0) = 6 ticks at HZ = 100), or waits on a contended monitor: 10 thread-library
    # synchronisations per transaction (assumed), each a wait of two more switches (compose adds them:
    # WorkloadProfile.context_switches). Until 2026-11-28 an illustrative 1 switch per ms and 20
    # synchronisations
    "specjbb": dict(clients=None, think_time=0.0, user_time=1e-3, switches=1e-3 / TIMESLICE_24, thread_syncs=10),
    # an application server: 6 switches besides its 30 synchronisations (each a wait of two switches,
    # which compose adds: 66 in all per transaction); illustrative counts
    "app_server": dict(clients=50, think_time=0.0, user_time=2e-3, switches=6, thread_syncs=30,
                       network_requests=4, external_delay=5e-3),
    "decision_support": dict(clients=16, think_time=0.0, user_time=0.5e-3, switches=1, io_per_transaction=1,
                             block_size=65536, read_fraction=1.0, sequential=False, large_pages=True,
                             shared_memory=4 * GiB, read_think_time=1e-3),
}

_SECTIONS = ("hardware", "kernel", "hypervisor", "workload", "sweep")


def _path_error(path: str, message: str) -> ValueError:
    """A message naming the key: "hardware.channels must be ..." (a rule) or "key: ..." (a sentence)."""
    return ValueError(f"{path} {message}" if message.startswith(("must ", "is ")) else f"{path}: {message}")


def _get_str(path, value) -> str:
    if not isinstance(value, str) or not value.strip():
        raise _path_error(path, f"must be a non-empty string, got {value!r}")
    return value.strip()


def _check_keys(section: str, mapping, allowed) -> None:
    if not isinstance(mapping, Mapping):
        raise _path_error(section, f"must be a table (mapping), got {type(mapping).__name__}")
    for key in mapping:
        if key not in allowed:
            raise _path_error(section, f"unknown key {key!r}; known: {', '.join(allowed)}")


def _catalog_name(path: str, family: str, name) -> str:
    """The catalog's own name for ``name`` (:func:`zmodel.hardware.catalog.canonical_name`)."""
    from zmodel.hardware import catalog

    name = _get_str(path, name)
    try:
        return catalog.canonical_name(family, name)
    except ValueError as exc:
        raise _path_error(path, str(exc)) from None


# =====================================================================================
# sections
# =====================================================================================
@dataclasses.dataclass(frozen=True)
class Hardware:
    """``[hardware]``: processor, logical CPUs, storage server, channel link and paths.

    Attributes
    ----------
    processor : str
        Catalog name (``zmodel/_data/hardware/processors.csv``).
    cpus : int
        Logical CPUs of the Linux image [1].
    storage_server : str or None
        Catalog name (``zmodel/_data/hardware/storage_servers.csv``); required for I/O workloads.
    channel : str or None
        Catalog name of a link (``zmodel/_data/hardware/links.csv``); required for I/O workloads.
    channels : int
        Channel paths (CHPIDs) per device, 1..8 [1].
    channel_card : str or None
        Catalog name of a FICON card generation (``zmodel/_data/hardware/channel_cards.csv``,
        :class:`zmodel.hardware.channels.ChannelCard`); the channel is then that card at the
        link's rate, with the card's per-I/O time (its ``command_io_rate``; the store's
        ``ficon_command_time`` when the catalog has none) and data-rate cap (``channel_rate``:
        a station of an open load; the closed model, :func:`compose`, has three channel
        stations and leaves it out). ``None``: the link catalog's channel alone (as before
        cards existed).
    zhpf : bool or None
        Transport mode (High Performance FICON): per-I/O time ``1/zhpf_io_rate`` of the
        card; needs ``channel_card``. ``None`` or false: command mode.
    multipath : {"multibus", "failover"} or None
        ``"multibus"`` (default): I/O spread over all ``channels`` paths; ``"failover"``:
        one active path, the others standby.
    pav_aliases : int or None
        PAV alias subchannels (ECKD on FICON/ESCON): per volume when ``pav`` is
        ``"static"``, one pool for all volumes when ``"hyper"``; needs ``volumes`` [1].
    pav : {"static", "hyper"} or None
        PAV flavour (default ``"static"``); needs ``volumes``.
    volumes : int or None
        Volumes (devices) the I/O is spread over, 1..65535. Given, each volume's
        subchannels (base + aliases) become a queue: the I/O supervisor queue time
        (IOSQ) of :meth:`zmodel.hardware.channels.ChannelSubsystem.response_time` enters
        the prediction (:meth:`Scenario.iosq_time`). ``None``: no device queueing (every
        I/O finds a free subchannel, as before) [1].

    Every new key's ``None`` keeps the predictions of a scenario without it.
    """

    processor: str
    cpus: int
    storage_server: str | None = None
    channel: str | None = None
    channels: int = 1
    channel_card: str | None = None
    zhpf: bool | None = None
    multipath: str | None = None
    pav_aliases: int | None = None
    pav: str | None = None
    volumes: int | None = None

    KEYS = ("processor", "cpus", "storage_server", "channel", "channels", "channel_card", "zhpf", "multipath",
            "pav_aliases", "pav", "volumes")

    def __post_init__(self):
        object.__setattr__(self, "cpus", as_count("hardware.cpus", self.cpus))
        object.__setattr__(self, "channels", as_count("hardware.channels", self.channels))
        if self.channels > 8:
            raise _path_error("hardware.channels", f"must be at most 8 (CHPIDs per device), got {self.channels}")
        if self.zhpf is not None and not isinstance(self.zhpf, (bool, np.bool_)):
            raise _path_error("hardware.zhpf", f"must be true or false, got {self.zhpf!r}")
        if self.multipath is not None:
            as_choice("hardware.multipath", self.multipath, MULTIPATH_CHOICES)
        if self.pav is not None:
            as_choice("hardware.pav", self.pav, PAV_CHOICES)
        if self.pav_aliases is not None:
            object.__setattr__(self, "pav_aliases", as_count("hardware.pav_aliases", self.pav_aliases, 0, 65535))
        if self.volumes is not None:
            object.__setattr__(self, "volumes", as_count("hardware.volumes", self.volumes, 1, 65535))
        for key in ("pav_aliases", "pav"):
            if getattr(self, key) is not None and self.volumes is None:
                raise _path_error(f"hardware.{key}", "needs hardware.volumes (the volumes the I/O is spread over)")
        if self.zhpf and self.channel_card is None:
            raise _path_error("hardware.zhpf", "needs hardware.channel_card (a card with a zHPF I/O rate)")
        if self.channel is None:
            for key in ("channel_card", "zhpf", "multipath", "pav_aliases", "pav", "volumes"):
                if getattr(self, key) is not None:
                    raise _path_error(f"hardware.{key}", "needs hardware.channel")

    @classmethod
    def from_dict(cls, m: Mapping) -> "Hardware":
        _check_keys("hardware", m, cls.KEYS)
        for req in ("processor", "cpus"):
            if req not in m:
                raise _path_error(f"hardware.{req}", "is required")
        proc = _catalog_name("hardware.processor", "processors", m["processor"])
        storage = _catalog_name("hardware.storage_server", "storage_servers", m["storage_server"]) \
            if m.get("storage_server") is not None else None
        channel = _catalog_name("hardware.channel", "links", m["channel"]) if m.get("channel") is not None else None
        card = _catalog_name("hardware.channel_card", "channel_cards", m["channel_card"]) \
            if m.get("channel_card") is not None else None
        return cls(proc, m["cpus"], storage, channel, m.get("channels", 1), card,
                   **{k: m.get(k) for k in cls.KEYS[6:]})


@dataclasses.dataclass(frozen=True)
class Kernel:
    """``[kernel]``: version and optional I/O scheduler override.

    Attributes
    ----------
    version : str
        A key of :data:`KERNEL_VERSIONS` (aliases of :data:`~zmodel.kernel.versions.VERSION_ALIASES` accepted).
    io_scheduler : str or None
        ``"deadline"``, ``"anticipatory"``, ``"cfq"`` or ``"noop"``; must be offered by the version.
    """

    version: str
    io_scheduler: str | None = None

    KEYS = ("version", "io_scheduler")

    @classmethod
    def from_dict(cls, m: Mapping) -> "Kernel":
        _check_keys("kernel", m, cls.KEYS)
        if "version" not in m:
            raise _path_error("kernel.version", "is required")
        raw = m["version"]
        if isinstance(raw, float):
            raw = str(raw)
        try:
            v = kernel_version(_get_str("kernel.version", raw))
        except ValueError as exc:
            if str(exc).startswith("kernel.version"):
                raise
            raise _path_error("kernel.version", str(exc)) from None
        sched = m.get("io_scheduler")
        if sched is not None:
            sched = _get_str("kernel.io_scheduler", sched)
            if sched not in IO_SCHEDULERS:
                raise _path_error("kernel.io_scheduler",
                                  f"unknown I/O scheduler {sched!r}; known: {', '.join(IO_SCHEDULERS)}")
            if f"{sched}_scheduler" not in v.features:
                offered = [s for s in IO_SCHEDULERS if f"{s}_scheduler" in v.features]
                raise _path_error("kernel.io_scheduler",
                                  f"{sched!r} is not offered by kernel {v.name}; it offers {', '.join(offered)}")
        return cls(v.name, sched)

    @property
    def kernel(self) -> KernelVersion:
        """The :class:`KernelVersion`."""
        return kernel_version(self.version)


@dataclasses.dataclass(frozen=True)
class Hypervisor:
    """``[hypervisor]``: none, an LPAR share, or z/VM guests.

    Attributes
    ----------
    type : str
        ``"none"``, ``"lpar"`` or ``"zvm"``.
    guests : int
        z/VM: Linux guests on the system, the active ones plus idle ones; LPAR: 1 [1].
    active_guests : int
        z/VM: guests running the workload (each as described; the rest are idle) [1].
    physical_cpus : float or None
        Shared physical CPUs (default: the processor's catalog CPU count) [CPUs].
    weight : float or None
        LPAR: share of the physical CPUs by PR/SM weight, in (0, 1] (default 1); z/VM:
        share of the capacity left by idle guests given to the active guests [1].
    """

    type: str = "none"
    guests: int = 1
    active_guests: int = 1
    physical_cpus: float | None = None
    weight: float | None = None

    KEYS = ("type", "guests", "active_guests", "physical_cpus", "weight")

    def __post_init__(self):
        guests = as_count("hypervisor.guests", self.guests)
        active = as_count("hypervisor.active_guests", self.active_guests)
        if active > guests:
            raise _path_error("hypervisor.active_guests", f"must not exceed hypervisor.guests ({guests}), got {active}")
        phys, weight = self.physical_cpus, self.weight
        phys = None if phys is None else as_scalar("hypervisor.physical_cpus", phys, positive=True)
        weight = None if weight is None else as_scalar("hypervisor.weight", weight, positive=True, maximum=1.0)
        for name, value in (("guests", guests), ("active_guests", active), ("physical_cpus", phys),
                            ("weight", weight)):
            object.__setattr__(self, name, value)

    @classmethod
    def from_dict(cls, m: Mapping) -> "Hypervisor":
        _check_keys("hypervisor", m, cls.KEYS)
        t = _get_str("hypervisor.type", m.get("type", "none"))
        if t not in HYPERVISOR_TYPES:
            raise _path_error("hypervisor.type", f"unknown hypervisor {t!r}; known: {', '.join(HYPERVISOR_TYPES)}")
        return cls(t, m.get("guests", 1), m.get("active_guests", 1), m.get("physical_cpus"), m.get("weight"))


@dataclasses.dataclass(frozen=True)
class Workload:
    """``[workload]``: a preset kind plus overrides (all SI).

    Attributes
    ----------
    kind : str
        A key of :data:`WORKLOAD_KINDS`.
    clients : int
        Closed population (default per kind; ``dbench`` and ``specjbb``: one per CPU) [1].
    think_time : float or None
        [s]
    io_per_transaction, block_size, read_fraction, hit_ratio : float or None
        I/O per transaction [1], bytes per I/O (at most 1 GiB) [B], read fraction [1], cache hit ratio [1].
    cpu_per_transaction : float or None
        User (non-kernel-path) CPU per transaction at z990 speed [s].
    forks, spawns : float or None
        Processes created per transaction (``fork`` and ``exit``) and programs run through the
        shell per transaction (``system(3)``, ``popen(3)``, a CGI script), each priced by the
        kernel costs ``fork_time`` / ``spawn_time`` plus their PTE-chain extras under 2.6's
        reverse mapping (:class:`~zmodel.kernel.versions.KernelCosts`: LMBench's measurements) [1].
    io_rate : float or None
        Open load: I/O requests per second offered (instead of the closed population) [1/s].
    devices : int or None
        Devices defined to the Linux image (sysfs); default ``4 * disks`` of the storage server [1].
    footprint : float or None
        Bytes the workload references (its working set), at most 1e18. Given, the read hit
        ratio is the storage server's LRU hit ratio for this footprint and the server's
        cache size (:meth:`zmodel.hardware.storage.StorageServer.hit_ratio`, Che's
        approximation, uniform references in ``block_size`` units); it then replaces the
        workload's preset ``hit_ratio`` and cannot be given together with ``hit_ratio`` [B].

    Integers are at most :data:`MAX_INTEGER`; the numbers at most :data:`WORKLOAD_MAXIMA`
    (think time 1e9 s, 1e6 I/O, 1e6 CPU seconds, 1e6 forks and 1e6 spawns per transaction,
    1 GiB per I/O, 1e9 I/O per second, a footprint of 1e18 B).
    """

    kind: str
    clients: int | None = None
    think_time: float | None = None
    io_per_transaction: float | None = None
    block_size: float | None = None
    read_fraction: float | None = None
    hit_ratio: float | None = None
    cpu_per_transaction: float | None = None
    io_rate: float | None = None
    devices: int | None = None
    footprint: float | None = None
    forks: float | None = None
    spawns: float | None = None

    KEYS = ("kind", "clients", "think_time", "io_per_transaction", "block_size", "read_fraction", "hit_ratio",
            "cpu_per_transaction", "io_rate", "devices", "footprint", "forks", "spawns")

    def __post_init__(self):
        # bounded (WORKLOAD_MAXIMA) so that every service demand stays a finite number (1e300 B
        # once surfaced as "service_demands must not be NaN")
        top = WORKLOAD_MAXIMA
        checks = dict(clients=lambda n, v: as_count(n, v), devices=lambda n, v: as_count(n, v, 0),
                      read_fraction=as_fraction, hit_ratio=as_fraction,
                      block_size=lambda n, v: as_scalar(n, v, positive=True, maximum=top["block_size"]),
                      io_rate=lambda n, v: as_scalar(n, v, positive=True, maximum=top["io_rate"]),
                      footprint=lambda n, v: as_scalar(n, v, positive=True, maximum=top["footprint"]),
                      **{k: (lambda n, v, k=k: as_scalar(n, v, maximum=top[k]))
                         for k in ("think_time", "io_per_transaction", "cpu_per_transaction", "forks", "spawns")})
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if f.name == "kind" or value is None:
                continue
            object.__setattr__(self, f.name, checks.get(f.name, as_scalar)(f"workload.{f.name}", value))
        if self.footprint is not None and self.hit_ratio is not None:
            raise _path_error("workload.footprint", "must not be given with workload.hit_ratio (the footprint "
                              "gives the hit ratio through the storage server's cache size)")

    @classmethod
    def from_dict(cls, m: Mapping) -> "Workload":
        _check_keys("workload", m, cls.KEYS)
        if "kind" not in m:
            raise _path_error("workload.kind", "is required")
        kind = _get_str("workload.kind", m["kind"])
        if kind not in WORKLOAD_KINDS:
            raise _path_error("workload.kind", f"unknown workload kind {kind!r}; known: {', '.join(WORKLOAD_KINDS)}")
        return cls(kind, **{k: m[k] for k in cls.KEYS[1:] if m.get(k) is not None})


@functools.lru_cache(maxsize=32)
def _storage_server(name: str):
    """The storage server ``name`` of the hardware catalog, built once (it is immutable)."""
    from zmodel.hardware.storage import StorageServer

    return StorageServer.from_catalog(name)


def _disk_seconds(server, prof: WorkloadProfile) -> tuple[float, float]:
    """Disk-seconds of one read and one write of ``prof`` on ``server`` (sequential or random) [s]."""
    kind = "sequential" if prof.sequential else "random"
    return tuple(float(np.asarray(server.demands(f"{kind}_{op}", prof.block_size)["disk"]))
                 for op in ("read", "write"))


def _channel_error_key(hw, message: str) -> str:
    """The ``[hardware]`` key a channel-subsystem error is about: the aliases, a card that does not
    fit the link (protocol, link rate), zHPF without a transport rate, else the card or the link."""
    if "aliases" in message:
        return "pav_aliases"
    if hw.channel_card is not None and ("FICON card" in message or "max_link_rate" in message):
        return "channel_card"
    if hw.zhpf and ("transport" in message or "zHPF" in message):
        return "zhpf"
    return "channel_card" if hw.channel_card is not None else "channel"


def _set_path(d: dict, path: str, value) -> dict:
    section, key = path.split(".", 1)
    new = {k: (dict(v) if isinstance(v, Mapping) else v) for k, v in d.items()}
    new.setdefault(section, {})
    new[section][key] = value
    return new


#: key paths :meth:`Scenario.predict` can sweep (every scalar key of the sections)
SWEEPABLE = tuple(f"hardware.{k}" for k in Hardware.KEYS) + tuple(f"kernel.{k}" for k in Kernel.KEYS) \
    + tuple(f"hypervisor.{k}" for k in Hypervisor.KEYS) + tuple(f"workload.{k}" for k in Workload.KEYS)


@dataclasses.dataclass(frozen=True)
class Scenario:
    """A system scenario: hardware, kernel, hypervisor and workload sections (+ optional sweep).

    Examples
    --------
    >>> s = Scenario.from_dict({"hardware": {"processor": "z990", "cpus": 4},
    ...                         "kernel": {"version": "2.6.6"},
    ...                         "workload": {"kind": "specjbb"}})
    >>> df = s.predict({"hardware.cpus": [1, 2]})
    >>> list(df.columns[:2]), bool((df["throughput"].diff().dropna() > 0).all())
    (['hardware.cpus', 'throughput'], True)
    """

    hardware: Hardware
    kernel: Kernel
    hypervisor: Hypervisor
    workload: Workload
    sweep: tuple = ()
    costs: KernelCosts | None = dataclasses.field(default=None, compare=False, repr=False)
    parameters: ParameterStore | None = dataclasses.field(default=None, compare=False, repr=False)

    def __post_init__(self):
        store = self.parameters if self.parameters is not None else default_store()
        object.__setattr__(self, "parameters", store)
        if self.costs is None:  # the calibrated kernel costs; declared defaults where not calibrated
            object.__setattr__(self, "costs", calibrated_costs(store))

    @classmethod
    def from_dict(cls, mapping: Mapping, costs: KernelCosts | None = None,
                  parameters: ParameterStore | None = None) -> "Scenario":
        """Build from a nested mapping shaped like the example TOML files.

        Parameters
        ----------
        mapping : mapping
            Sections ``hardware``, ``kernel``, ``workload`` (required), ``hypervisor``, ``sweep``.
        costs : KernelCosts, optional
            Kernel costs to use instead of the parameter store's.
        parameters : zmodel.store.ParameterStore, optional
            Calibrated parameters; default the shipped store (:func:`zmodel.store.default`).
            :data:`zmodel.store.EMPTY` gives every parameter its declared default.

        Raises ``ValueError`` whose message starts with the key path of the problem.
        """
        if not isinstance(mapping, Mapping):
            raise ValueError(f"scenario must be a mapping of sections, got {type(mapping).__name__}")
        for key in mapping:
            if key not in _SECTIONS:
                raise ValueError(f"{key}: unknown section {key!r}; known: {', '.join(_SECTIONS)}")
        for req in ("hardware", "kernel", "workload"):
            if req not in mapping:
                raise ValueError(f"{req}: section is required")
        hw = Hardware.from_dict(mapping["hardware"])
        kn = Kernel.from_dict(mapping["kernel"])
        hv = Hypervisor.from_dict(mapping.get("hypervisor", {}))
        wl = Workload.from_dict(mapping["workload"])
        sweep = _check_sweep(mapping.get("sweep", {}), mapping)
        scen = cls(hw, kn, hv, wl, sweep, costs, parameters)
        scen._check_consistency()
        return scen

    def to_dict(self) -> dict:
        """The nested mapping of this scenario (``None`` values left out)."""
        out = {}
        for name in ("hardware", "kernel", "hypervisor", "workload"):
            sec = getattr(self, name)
            out[name] = {k: v for k, v in dataclasses.asdict(sec).items() if v is not None}
        if self.sweep:
            out["sweep"] = {k: list(v) for k, v in self.sweep}
        return out

    def _check_consistency(self) -> None:
        machine = self.processor().get("cpus")
        if machine is not None and math.isfinite(float(machine)):
            machine = int(machine)
            if self.hardware.cpus > machine:
                raise _path_error("hardware.cpus", f"must be at most {machine}, the CPUs of a "
                                  f"{self.hardware.processor} (data/hardware/processors.csv), "
                                  f"got {self.hardware.cpus}")
            phys = self.hypervisor.physical_cpus
            if phys is not None and phys > machine:
                raise _path_error("hypervisor.physical_cpus", f"must be at most {machine}, the CPUs of a "
                                  f"{self.hardware.processor}, got {phys:g}")
        if self.hypervisor.type == "lpar" and self.hypervisor.physical_cpus is not None \
                and self.hardware.cpus > self.hypervisor.physical_cpus:
            raise _path_error("hardware.cpus", f"an LPAR's logical CPUs must not exceed hypervisor.physical_cpus "
                              f"({self.hypervisor.physical_cpus:g}), got {self.hardware.cpus}")
        profile = self.profile()
        if profile.io_per_transaction > 0:
            if self.hardware.storage_server is None:
                raise _path_error("hardware.storage_server",
                                  f"is required for workload {self.workload.kind!r}, which does I/O")
            if self.hardware.channel is None:
                raise _path_error("hardware.channel", f"is required for workload {self.workload.kind!r}, which does I/O")
        if self.workload.footprint is not None and self.hardware.storage_server is None:
            raise _path_error("workload.footprint", "needs hardware.storage_server (its cache size gives the hit ratio)")
        if self.hardware.channel is not None:
            hw = self.hardware
            try:
                self.channel_subsystem()
            except ValueError as exc:
                raise _path_error(f"hardware.{_channel_error_key(hw, str(exc))}", str(exc)) from None
        if self.workload.io_rate is not None and profile.io_per_transaction <= 0:
            raise _path_error("workload.io_rate", f"needs I/O per transaction, but workload "
                                                  f"{self.workload.kind!r} has io_per_transaction 0")

    # ------------------------------------------------------------------ mapping to components
    def profile(self, clients: int | None = None) -> WorkloadProfile:
        """The :class:`WorkloadProfile` of the workload section."""
        preset = dict(WORKLOAD_KINDS[self.workload.kind])
        values = self.parameters.values()
        for field, name in WORKLOAD_PARAMETERS.get(self.workload.kind, {}).items():
            if name in values:
                preset[field] = values[name]
        w = self.workload
        n = clients if clients is not None else (w.clients if w.clients is not None else preset.pop("clients"))
        preset.pop("clients", None)
        if n is None:
            n = self.hardware.cpus
        preset["clients"] = int(n)
        for key, field in (("think_time", "think_time"), ("io_per_transaction", "io_per_transaction"),
                           ("block_size", "block_size"), ("read_fraction", "read_fraction"),
                           ("hit_ratio", "hit_ratio"), ("cpu_per_transaction", "user_time"),
                           ("forks", "forks"), ("spawns", "spawns")):
            v = getattr(w, key)
            if v is not None:
                preset[field] = v
        if w.footprint is not None and self.hardware.storage_server is not None:
            server = _storage_server(self.hardware.storage_server)
            preset["hit_ratio"] = float(server.hit_ratio(w.footprint, preset.get("block_size", 4096.0)))
        return WorkloadProfile(w.kind, **preset)

    def processor(self) -> dict:
        from zmodel.hardware import catalog

        return catalog.component("processors", self.hardware.processor)

    def system(self) -> tuple[SystemConfig, dict]:
        """The :class:`SystemConfig` and a dict of the derived parameters (for the report).

        The disk time per I/O is what a transaction waits for on the disks: its random read
        misses. A storage server with NVS acknowledges writes from cache (fast write); their
        destage loads the disks (:meth:`_background_disk_load`;
        :attr:`~zmodel.kernel.versions.SystemConfig.background_disk_load` in a closed
        composition) without being waited for. Without NVS a write waits for its RAID write on the disks. Sequential
        reads are pre-staged: the server reads the stream into its cache ahead of the host
        (:meth:`zmodel.hardware.storage.StorageServer.closed_load`), so they load the disks as
        the destage does and wait only for the controller and the link (until 2026-11-27 they
        waited for the disks as random misses did).
        """
        from zmodel.kernel.hypervisor import idle_guest_overhead

        hw, hv, prof = self.hardware, self.hypervisor, self.profile()
        proc = self.processor()
        speed = proc["clock_frequency"] / REFERENCE_CLOCK
        info = {}
        disks, disk_time, ctrl, chan, paths = 1, 5e-3, 0.0, (0.0, 0.0, 0.0), hw.channels
        if hw.storage_server is not None:
            server = _storage_server(hw.storage_server)
            d_r, d_w = _disk_seconds(server, prof)
            disks, ctrl = server.disk_count, server.hit_time
            rf, h = prof.read_fraction, prof.hit_ratio
            # what a transaction waits for: its random read misses (sequential reads are
            # pre-staged) and, without NVS, its writes; fast writes (StorageServer: the write
            # completes in cache and NVS) and pre-staging load the disks behind it
            # (_background_disk_load).
            # compose charges (1 - h rf) disk_time per I/O
            waited = 0.0 if prof.sequential else rf * (1.0 - h) * d_r
            if server.nvs_size <= 0:
                waited += (1 - rf) * d_w
            miss = 1.0 - h * rf
            disk_time = waited / miss if miss > 0 else 0.0
        if hw.channel is not None:
            css = self.channel_subsystem()
            chan = tuple(float(v) for v in np.ravel(css.link.demands(prof.block_size, prof.read_fraction)))
            paths = css.active_paths
        physical = self._physical_cpus()
        share, overcommit = None, 1.0
        if hv.type == "zvm":
            idle = hv.guests - hv.active_guests
            patch = "idle_tick_patch" in self.kernel.kernel.features
            with quiet_saturation():  # idle ticks beyond the machine: capacity left is ~0
                o = idle_guest_overhead(idle, self.kernel.kernel.hz, idle_tick_patch=patch,
                                        physical_cpus=physical, virtual_cpus=hw.cpus)
            if physical - float(o.cpu_overhead) <= 0.0:
                info.update(saturated=f"physical CPUs: the timer ticks of {idle} idle guests need "
                                      f"{float(o.cpu_overhead):.3g} of {physical:g} CPUs")
            left = max(physical - float(o.cpu_overhead), 1e-9)
            share = (1.0 if hv.weight is None else hv.weight) * left / hv.active_guests
            info.update(idle_tick_cpus=float(o.cpu_overhead), capacity=share)
        # every logical CPU wanting to run: the lower bound _compose_dispatched starts from
        phi = self._dispatched_fraction(float(hw.cpus), physical, share)
        if hv.type == "lpar":
            info.update(capacity=phi * hw.cpus)
        if phi < 1.0:
            overcommit = 1.0 / phi
        info.update(dispatch=phi)
        devices = self.workload.devices if self.workload.devices is not None else 4 * disks
        cp = None
        if hv.type == "zvm":   # z/VM's control program handles the guest's I/O and dispatches
            from zmodel.kernel.hypervisor import CpCosts

            cp = CpCosts()
        sys = SystemConfig(cpus=hw.cpus, cpu_speed=speed, dispatch_fraction=phi, overcommit=overcommit,
                           disks=disks, disk_time=disk_time, controller_time=ctrl, channel_demands=chan,
                           channel_paths=paths, highmem=False, devices=devices, cp_costs=cp)
        return sys, info

    def _physical_cpus(self) -> float:
        """Physical CPUs under the hypervisor: ``hypervisor.physical_cpus``, else the processor's [CPUs]."""
        hv = self.hypervisor
        return hv.physical_cpus if hv.physical_cpus is not None \
            else float(self.processor().get("cpus", self.hardware.cpus))

    def _dispatched_fraction(self, wanted: float, physical: float, share: float | None) -> float:
        r"""Share of its runnable time a logical CPU of this image is dispatched, at a demand of ``wanted``.

        ``wanted`` is the mean number of the image's logical CPUs that want to run. The
        hypervisor grants it a capacity :math:`C(\text{wanted})`: for an LPAR
        :func:`zmodel.kernel.hypervisor.lpar_dispatch` on ``physical`` CPUs (the other
        partitions wanting their whole share), for a z/VM guest :math:`\min(\text{wanted},
        \text{share})`; the fraction is :math:`\min(1, C/\text{wanted})`. An image that wants
        less than its entitlement is never slowed (the rule of ``lpar_dispatch``: "an LPAR that
        wants less than its share gets its demand"). With every logical CPU wanting to run it is
        the fraction :meth:`system` gives.
        """
        from zmodel.kernel.hypervisor import lpar_dispatch

        hw, hv = self.hardware, self.hypervisor
        wanted = min(max(float(wanted), 0.0), float(hw.cpus))
        if wanted <= 0.0:
            return 1.0
        if hv.type == "lpar":
            w = 1.0 if hv.weight is None else hv.weight
            if w >= 1.0:
                capacity = min(wanted, physical)
            else:
                others = max(1, int(math.ceil(physical)))
                r = lpar_dispatch(physical, [w, 1.0 - w], [hw.cpus, others], [wanted, float(others)])
                capacity = float(np.asarray(r.achieved_capacity)[0])
        elif hv.type == "zvm":
            capacity = min(wanted, share)
        else:
            return 1.0
        return max(min(1.0, capacity / wanted), 1e-9)

    def _compose_dispatched(self, one, sys: SystemConfig, clients: int, rule):
        r"""A population's composition with the dispatch fraction its own demand earns (a fixed point).

        :meth:`system` gives the fraction an image gets when all its logical CPUs want to run
        (:math:`\varphi_0`, a lower bound). The image wants :math:`W(\varphi) =
        \text{cpus}\;u(\varphi)` of them (:math:`u` the CPU station's busy fraction, stolen time
        included), and the hypervisor then dispatches them :math:`\varphi = f(W(\varphi))` of
        the time (``rule``, :meth:`_dispatched_fraction`): the root of :math:`f(W(\varphi)) -
        \varphi` in :math:`[\varphi_0, 1]`, by regula falsi (1 when the image at full speed wants
        less than it is granted). ``one(system, clients)`` is the population's composition (a
        generator returning ``(result, U, scale)``, :meth:`_point_task`), the overcommit seen by
        lock holders :math:`1/\varphi`. Until 2026-11-27 every image was slowed to
        :math:`\varphi_0`: an LPAR wanting 1.0 of its 1.6 entitled CPUs showed 12 % steal.
        """
        def at(phi):
            s = dataclasses.replace(sys, dispatch_fraction=phi, overcommit=1.0 / phi)
            pick = yield from one(s, clients)
            r, _, scale = pick
            busy = float(np.ravel(np.asarray(r.cpu_utilization, dtype=float))[0]) * scale
            return rule(sys.cpus * busy / phi) - phi, pick

        f_hi, pick_hi = yield from at(1.0)
        if f_hi >= 0.0:
            return pick_hi
        lo = sys.dispatch_fraction
        f_lo, pick_lo = yield from at(lo)
        if f_lo <= 0.0:
            return pick_lo
        _, pick = yield from _illinois(at, lo, f_lo, 1.0, f_hi, pick_hi, DISPATCH_TOLERANCE)
        return pick

    def _background_disk_load(self, prof: WorkloadProfile | None = None) -> float:
        r"""Disk utilization the work behind the transactions adds per transaction per second [s].

        :math:`k = n_{io} \big((1 - f) D_w [\text{NVS}] + f D_r [\text{sequential}]\big) /
        \text{disks}`: every fast write is destaged (RAID-5: two reads and two writes,
        :meth:`~zmodel.hardware.storage.StorageServer.demands`) after the transaction has gone
        on, and a sequential stream is pre-staged into the cache ahead of its reads (every block
        once from the disks); 0 without a storage server. Without NVS a write waits for its disks
        (:meth:`system`), and random reads wait for their misses.
        """
        prof = self.profile() if prof is None else prof
        hw = self.hardware
        if hw.storage_server is None or prof.io_per_transaction <= 0:
            return 0.0
        server = _storage_server(hw.storage_server)
        d_r, d_w = _disk_seconds(server, prof)
        rf = prof.read_fraction
        behind = (1.0 - rf) * d_w if server.nvs_size > 0 else 0.0
        if prof.sequential:   # a block already in the cache (hit ratio h) is not read ahead again
            behind += rf * (1.0 - prof.hit_ratio) * d_r
        return prof.io_per_transaction * behind / server.disk_count

    def _server_limit(self, prof: WorkloadProfile | None = None) -> tuple[float, str]:
        r"""The storage server's own ceiling on transactions per second, and the resource that sets it.

        The composition models the server's disks (and the host side of the channel); the server's
        other resources -- its host links and adapters, device adapters, cluster processors, cache,
        NVS mirroring and internal data path (:meth:`zmodel.hardware.storage.StorageServer.saturation`)
        -- bound the rate (bottleneck law, Lazowska et al. 1984, §5.2): :math:`X \le \min_k c_k / D_k`
        over the transaction's I/O mix, :math:`D_k = n_{io}(f D_k^{read} + (1 - f) D_k^{write})`.
        A bound, no queueing: below it the time is the channel's and the disks'. ``(inf, "")``
        without a storage server or I/O. Until 2026-11-27 the scenario ignored them (an ESS 800 at
        64 KiB carried 12207 I/O/s against its 500 MB/s internal path, 7629 I/O/s).
        """
        prof = self.profile() if prof is None else prof
        if self.hardware.storage_server is None or prof.io_per_transaction <= 0:
            return math.inf, ""
        server = _storage_server(self.hardware.storage_server)
        kind = "sequential" if prof.sequential else "random"
        rf = prof.read_fraction
        d_r = server.demands(f"{kind}_read", prof.block_size, prof.hit_ratio)   # h: random reads only
        d_w = server.demands(f"{kind}_write", prof.block_size)
        mix = {k: prof.io_per_transaction * (rf * d_r[k] + (1.0 - rf) * d_w[k]) for k in d_r}
        limits = {k: float(np.asarray(v)) for k, v in server._limits(mix).items() if k != "backend"}   # disks: compose's
        name = min(limits, key=limits.get)
        return limits[name], (f"storage server {self.hardware.storage_server} ({name.replace('_', ' ')})"
                              if math.isfinite(limits[name]) else "")

    def channel_link(self):
        """The channel of every path: the link catalog's (store channel times), or the card at the link's rate.

        Returns
        -------
        zmodel.hardware.channels.ChannelLink
        """
        from zmodel.hardware import catalog
        from zmodel.hardware.channels import ChannelCard, ChannelLink

        hw = self.hardware
        if hw.channel is None:
            raise _path_error("hardware.channel", "is required for a channel link")
        spec = catalog.component("links", hw.channel)
        values = self.parameters.values()
        ct = None if "max_io_rate" in spec else DEFAULT_COMMAND_TIME
        extra = {}
        for name in self._link_parameters():
            if name in values:
                if name.endswith("_command_time"):
                    ct = values[name]
                else:
                    extra[name.split("_", 1)[1]] = values[name]  # fcp_adapter_rate -> adapter_rate
        link = ChannelLink.from_catalog(hw.channel, command_time=ct, **extra)
        if hw.channel_card is None:
            return link
        if link.protocol != "FICON":
            raise ValueError(f"a channel card ({hw.channel_card}) is a FICON card; link {hw.channel!r} is "
                             f"{link.protocol}")
        card = ChannelCard.from_catalog(hw.channel_card)
        if math.isnan(card.command_io_rate):
            # no published command-mode rate (FICON Express8 on): the superseded card's as a floor,
            # not the store's per-I/O time of the channels the WAVV 2008 deck measured (9000 I/O/s,
            # which made an upgrade from FICON Express4's 14091 I/O/s lose a third of a channel)
            rate, _ = ChannelCard.rate_floor(card.name)
            command_time = link.command_time if math.isnan(rate) else 1.0 / rate
        else:
            command_time = None
        return card.link(link.link_rate, mode="transport" if hw.zhpf else "command", command_time=command_time)

    def channel_subsystem(self):
        """The channel paths, multipath mode, volumes and PAV aliases of ``[hardware]``.

        Returns
        -------
        zmodel.hardware.channels.ChannelSubsystem
            ``paths = channels``, ``multipath`` (default multibus), ``aliases =
            pav_aliases`` (default 0), ``devices = volumes`` (default 1), ``pav`` (default
            static).
        """
        from zmodel.hardware.channels import ChannelSubsystem

        hw = self.hardware
        return ChannelSubsystem(self.channel_link(), paths=hw.channels,
                                multipath=hw.multipath or MULTIPATH_CHOICES[0],
                                aliases=hw.pav_aliases or 0, devices=hw.volumes or 1,
                                pav=hw.pav or PAV_CHOICES[0])

    @vectorized
    def iosq_time(self, io_rate, clients=None):
        r"""I/O supervisor queue time per I/O (waiting for a free subchannel of the volume) [s].

        Parameters
        ----------
        io_rate : float
            I/Os per second the system carries, >= 0 [1/s].
        clients : int, optional
            Closed population; at most one I/O each is in flight.

        Returns
        -------
        float or ndarray
            0 without ``hardware.volumes`` (no device queueing); ``inf`` when the
            subchannels saturate (one ``SaturationWarning``) [s].

        Notes
        -----
        :meth:`zmodel.hardware.channels.ChannelSubsystem.response_time`: each volume is an
        M/M/c station, :math:`c = 1 + \text{aliases}` subchannels (HyperPAV: the larger wait of
        the whole group pooled, :math:`\text{volumes} + \text{aliases}`, and one volume with
        the whole alias pool), whose service is the I/O's pending + disconnect + connect time;
        the disconnect time is the storage server's per-I/O time without the channel,
        :math:`(1 - h f)\,t_{disk} + t_{ctrl}` (miss fraction times the disk service time of
        :meth:`system`, plus the controller time; disk queueing not included). A closed
        population of :math:`N \le 1 + \text{aliases}` clients (one I/O in flight each) can
        never find all subchannels of a volume busy: IOSQ is then 0 exactly. (The composed
        closed model uses the finite-source queue instead,
        :meth:`~zmodel.hardware.channels.ChannelSubsystem.closed_iosq_time`.)
        """
        lam = as_float_array("io_rate", io_rate)
        if clients is not None:
            clients = as_count("clients", clients)
        hw = self.hardware
        if hw.volumes is None or hw.channel is None:
            return np.zeros_like(lam)
        return self._iosq_function(quiet=False)(lam, clients)

    def _iosq_setup(self, sys: SystemConfig | None = None, prof: WorkloadProfile | None = None):
        """The channel subsystem, subchannels per volume and disconnect time per I/O [s] of :meth:`iosq_time`.

        ``sys`` and ``prof``: :meth:`system` and :meth:`profile` when the caller has them.
        """
        css = self.channel_subsystem()
        # N <= 1 + aliases clients never wait, however their I/Os fall on the volumes (HyperPAV:
        # a volume with k of them needs k - 1 <= N - 1 aliases of the pool; its base serves only it)
        subchannels = 1 + css.aliases
        sys = self.system()[0] if sys is None else sys
        prof = self.profile() if prof is None else prof
        miss = 1.0 - (prof.hit_ratio if prof.read_fraction > 0 else 0.0) * prof.read_fraction
        disconnect = miss * sys.disk_time + sys.controller_time
        return css, subchannels, disconnect

    def _iosq_function(self, quiet: bool = True):
        """``f(io_rate, clients) -> IOSQ time [s]`` with the subsystem and disconnect time built once."""
        css, subchannels, disconnect = self._iosq_setup()
        prof = self.profile()

        def f(io_rate, clients=None):
            if clients is not None and int(clients) <= subchannels:
                return np.zeros_like(np.asarray(io_rate, dtype=float))
            with quiet_saturation() if quiet else contextlib.nullcontext():
                r = css.response_time(io_rate, prof.block_size, prof.read_fraction, disconnect)
            return np.asarray(r.iosq_time, dtype=float)
        return f

    def channel_parameters(self) -> tuple[str, ...]:
        """Store names of the channel parameters this scenario's link uses (empty without a channel)."""
        card = self.hardware.channel_card
        if card is not None:
            from zmodel.hardware.channels import ChannelCard

            if self.hardware.zhpf or not math.isnan(ChannelCard.rate_floor(card)[0]):
                return ()  # the card's own catalog rates (or an earlier card's floor), no store parameter
        return self._link_parameters()

    def _link_parameters(self) -> tuple[str, ...]:
        if self.hardware.channel is None:
            return ()
        from zmodel.hardware import catalog

        name = catalog.canonical_name("links", self.hardware.channel).upper()
        if name.startswith("FCP"):
            # the adapter limit was calibrated on the 2 and 4 Gbit/s FCP channels of the WAVV 2008 deck
            # (a FICON Express2/Express4 card in FCP mode); an 8 or 16 Gbit/s link is a later card, whose
            # adapter limit nothing gives: the link is the limit the catalog knows (as for FICON
            # Express16S). Until 2026-11-27 the 250 MB/s held for FCP-8G and FCP-16G too, so the faster
            # links gained nothing. The per-I/O time still applies (a later card is no slower).
            rate = catalog.component("links", self.hardware.channel).get("link_rate", 0.0)
            return ("fcp_command_time", "fcp_adapter_rate") if rate <= FCP_MEASURED_LINK_RATE \
                else ("fcp_command_time",)
        if name.startswith("FICON"):
            return ("ficon_command_time",)
        return ()

    def used_parameters(self) -> tuple[str, ...]:
        """Names of the model parameters a prediction of this scenario uses."""
        names = list(parameter_info(KernelCosts))
        names += list(WORKLOAD_PARAMETERS.get(self.workload.kind, {}).values())
        if self.profile().io_per_transaction > 0:
            names += list(self.channel_parameters())
        return tuple(dict.fromkeys(names))

    def assumed(self) -> tuple[str, ...]:
        """The used parameters that no calibration in the store fitted (declared defaults or readings),
        then the assumed values a used calibrated one holds given (:attr:`zmodel.store.StoredParameter.given`:
        the bytes per sysfs file hold for the reference LPAR's assumed device count).

        With explicit ``costs`` every kernel cost counts as the caller's, so as assumed.
        """
        calibrated = self.parameters.calibrated()
        explicit = self.costs != calibrated_costs(self.parameters)
        kernel = set(parameter_info(KernelCosts))
        used = self.used_parameters()
        out = [n for n in used if n not in calibrated or (explicit and n in kernel)]
        for n in used:
            if n in calibrated and not (explicit and n in kernel):
                out += [a for a in self.parameters.given(n) if a not in calibrated]
        card = self.hardware.channel_card
        if card is not None and not self.hardware.zhpf and self.profile().io_per_transaction > 0:
            from zmodel.hardware.channels import ChannelCard

            _, source = ChannelCard.rate_floor(card)
            if source is not None:   # a catalog reading, not a figure of this card
                out.append(f"{ChannelCard.from_catalog(card).name}.command_io_rate (floor: {source}'s)")
        if self.hardware.channel is not None and self.profile().io_per_transaction > 0 \
                and "fcp_command_time" in self._link_parameters() \
                and "fcp_adapter_rate" not in self._link_parameters():
            from zmodel.hardware import catalog

            out.append(f"{catalog.canonical_name('links', self.hardware.channel)}.adapter_rate (none known: the link's)")
        return tuple(dict.fromkeys(out))

    # ------------------------------------------------------------------ prediction
    def _predict_point(self, clients_list=None) -> list[dict]:
        return _drive([self._point_task(clients_list)])[0]

    def _point_task(self, clients_list=None, numeric: bool = False):
        """The rows of one sweep point, as a generator of solver requests (run by :func:`_drive`).

        Yields :class:`_Compose`, :class:`_Mmc` and :class:`_Iosq` requests, receives their answers and
        returns the rows of :meth:`predict` (one per population of ``clients_list``). With
        ``numeric=True`` the text columns ``parameters`` and ``assumed`` are left empty:
        :meth:`sampled` keeps only :data:`INTERVAL_COLUMNS`. Driving many tasks together
        solves all their compositions in one :func:`compose_many` call per step, which
        gives each composition what :func:`compose` gives it alone (bit for bit).
        """
        sys, info = self.system()
        prof = self.profile()
        kv = self.kernel.kernel
        if clients_list is None:
            clients_list = [prof.clients]
        saturated = info.pop("saturated", "")
        extra = ", ".join(f"{k}={v:.4g}" for k, v in info.items() if k not in ("dispatch",))
        physical, share = self._physical_cpus(), info.get("capacity") if self.hypervisor.type == "zvm" else None

        def rule(wanted):   # the dispatched fraction at a demand of `wanted` logical CPUs
            return self._dispatched_fraction(wanted, physical, share)

        if self.workload.io_rate is not None:
            rate = self.workload.io_rate / prof.io_per_transaction
            if sys.dispatch_fraction < 1.0:
                # the dispatch fraction the load's demand earns (_compose_dispatched): at full speed the
                # image wants W1 = rate x D_cpu logical CPUs, at phi W1 / phi; phi = f(W1 / phi) by bisection
                full = dataclasses.replace(sys, dispatch_fraction=1.0, overcommit=1.0)
                r1 = yield from self._open_operating_point(kv, prof, full, rate)
                wanted = rate * float(np.ravel(r1.cpu_demand)[0])
                lo, hi = sys.dispatch_fraction, 1.0
                if rule(wanted) >= 1.0:
                    lo = 1.0
                else:
                    while hi - lo > DISPATCH_TOLERANCE * hi:
                        mid = 0.5 * (lo + hi)
                        lo, hi = (mid, hi) if rule(wanted / mid) > mid else (lo, mid)
                sys = dataclasses.replace(sys, dispatch_fraction=lo, overcommit=1.0 / lo)
            r = yield from self._open_operating_point(kv, prof, sys, rate)
            row = yield from self._predict_open(sys, prof, kv, extra, r)
            if saturated:
                row.update(throughput=0.0, response_time=math.inf,
                           saturated="; ".join(v for v in (saturated, row["saturated"]) if v))
            row["assumed"] = "" if numeric else ", ".join(self.assumed())
            return [row]
        destage = self._background_disk_load(prof)
        volumes = self.hardware.volumes is not None and prof.io_per_transaction > 0
        if destage > 0.0:
            # the destage's share of the disks, U = k X, is part of compose's fixed point (until
            # 2026-11-28 a root search here, one composition per population and step)
            sys = dataclasses.replace(sys, background_disk_load=destage)

        def plain(s, n):   # one population's composition on system s (with its IOSQ fixed point)
            if volumes:
                return (yield from self._compose_with_iosq(kv, prof, s, n))
            return (yield _Compose(dict(kernel=kv, workload=prof, system=s, costs=self.costs,
                                        io_scheduler=self.kernel.io_scheduler, clients=np.asarray([n]))))

        def one(s, n):   # ... with the destage's share of the disks: (result, U, scale)
            r = yield from plain(s, n)
            return (r,) + _destage_share(r, 0, destage, sys.disk_time)

        if sys.dispatch_fraction < 1.0 or volumes:   # a fixed point per population
            # the populations' fixed points advance together, each by its own steps: one
            # compose_many call per step for all of them (until 2026-11-28 one population after
            # another, a hundred times the calls for a sweep of a hundred populations)
            solved = yield from _lockstep([self._compose_dispatched(one, sys, n, rule) if sys.dispatch_fraction < 1.0
                                           else one(sys, n) for n in clients_list])
            picks = [(q, 0, u, scale) for q, u, scale in solved]
        else:   # every population in one composition (one batched MVA per fixed-point pass)
            r = yield _Compose(dict(kernel=kv, workload=prof, system=sys, costs=self.costs,
                                    io_scheduler=self.kernel.io_scheduler, clients=np.asarray(clients_list)))
            picks = [(r, i) + _destage_share(r, i, destage, sys.disk_time) for i in range(len(clients_list))]
        limit, limit_name = self._server_limit(prof)
        rows = []
        for i, (r, j, u, scale) in enumerate(picks):
            def at(name, r=r, j=j):
                return float(np.ravel(np.asarray(getattr(r, name), dtype=float))[j])
            # the storage server's own ceiling (_server_limit) caps what the composition carries
            bound = at("throughput") * scale > limit
            cap = limit / (at("throughput") * scale) if bound else 1.0
            scale = scale * cap
            x = at("throughput") * scale
            # the disks: the transactions' read misses (at the service time compose saw, stretched
            # by the destage: (1 - u) takes the stretch out) plus the destage itself (u)
            disk = min(1.0, at("disk_utilization") * (1.0 - u) * scale + u * cap) if destage > 0.0 \
                else at("disk_utilization") * cap
            response = at("response_time") if scale == 1.0 else int(clients_list[i]) / x - prof.think_time
            rows.append(dict(throughput=x, response_time=response,
                             cpu_utilization=at("cpu_utilization") * scale,
                             channel_utilization=at("channel_utilization") * scale,
                             disk_utilization=disk, steal=at("steal") * scale,
                             memory_overhead=float(r.memory_overhead), features=r.features,
                             parameters="" if numeric else
                             f"kernel={kv.name}, workload={prof.name}, clients={int(clients_list[i])}, "
                             f"{r.parameters_text()}, {extra}"
                             + (f", destage_utilization={u * cap:.4g}" if destage > 0.0 else "")
                             + (f", bound by {limit_name}: {limit:.6g} transactions/s" if bound else ""),
                             saturated=saturated, model=MODEL_CLOSED))
            if saturated:  # no capacity left: nothing completes (not an absurd finite number)
                rows[-1].update(throughput=0.0, response_time=math.inf)
        assumed = "" if numeric else ", ".join(self.assumed())
        for row in rows:
            row["assumed"] = assumed
        return rows

    def _compose_with_iosq(self, kv: KernelVersion, prof: WorkloadProfile, sys: SystemConfig, clients: int):
        r""":func:`compose` per population with the IOSQ time of :meth:`iosq_time` as a delay per transaction.

        The IOSQ time depends on the I/O rate the system carries and the throughput on
        the IOSQ time: the delay :math:`d` per transaction solves
        :math:`d = n_{io}\,T_{IOSQ}(n_{io} X(d), d / n_{io})`, found by bracketing and
        regula falsi. :math:`T_{IOSQ}` is the finite-source queue of a volume's subchannels
        (:meth:`~zmodel.hardware.channels.ChannelSubsystem.closed_iosq_time`: the N clients
        as sources, away from the volume for the rest of their cycle), a decomposition
        (Lazowska et al. 1984, ch. 8, "flow-equivalent" treatment of a subsystem) exact for
        the volume given that time, not for non-exponential services; no I/O waits while
        :math:`N \le 1 + \text{aliases}` (any placement of the clients' I/Os finds a free
        subchannel). Until 2026-11-27 the open M/M/c queue at the closed throughput, whose
        jump from 0 at :math:`N = c + 1` made one more client lower the throughput.

        A generator of :class:`_Compose` / :class:`_Iosq` requests (see :func:`_drive`), so
        that the bisections of many draws advance together, each by its own steps.
        """
        ios = prof.io_per_transaction
        n = int(clients)
        css, subchannels, disconnect = self._iosq_setup(sys, prof)

        def solve(delay):
            p = dataclasses.replace(prof, external_delay=prof.external_delay + delay)
            return _Compose(dict(kernel=kv, workload=p, system=sys, costs=self.costs,
                                 io_scheduler=self.kernel.io_scheduler, clients=np.asarray([n])))

        def excess(delay):
            x = float(np.ravel((yield solve(delay)).throughput)[0])
            if n <= subchannels:  # at most one I/O in flight per client: no queue (iosq_time)
                t = 0.0
            else:
                t = yield _Iosq(css, prof.block_size, prof.read_fraction, disconnect, x * ios,
                                population=n, iosq_time=delay / ios)
            return ios * float(t) - delay

        lo, hi = 0.0, 0.0
        f_lo = yield from excess(0.0)
        if f_lo > 0.0:
            # the root lies in [0, f(0)]: the right side is largest at d = 0, so at d = f(0) it is
            # at most f(0) = d and the excess is <= 0 there (a bracket without a search)
            # (f(0) infinite: the device queue saturates without delay; search upwards, by 8x)
            hi = f_lo if f_lo < 1e9 else 1e-6
            while (f_hi := (yield from excess(hi))) > 0.0 and hi < 1e9:
                lo, f_lo, hi = hi, f_hi, hi * 8.0
            def paired(x):
                return (yield from excess(x)), None

            hi, _ = yield from _illinois(paired, lo, f_lo, hi, f_hi, None, IOSQ_TOLERANCE)
        return (yield solve(hi))

    def _open_operating_point(self, kv: KernelVersion, prof: WorkloadProfile, sys: SystemConfig, rate: float):
        r"""The composition an open load's demands come from: the concurrency that carries ``rate``.

        Lock spin and hand-off grow with the transactions in the system, so the per-transaction
        demands of :func:`compose` depend on its population. For an open load that population is
        not an input: it is the number in the system, :math:`N = \lambda R` (Little's law), i.e.
        the smallest population whose composition (without think time) completes ``rate``
        transactions per second: doubled from 1 until it does, then bisected. Where the throughput
        falls before reaching ``rate`` (lock contention past the peak), the peak lies between the
        population before the last rise and the first fall: it is found there by ternary search (the
        throughput curve taken unimodal), and the crossing, if the peak reaches ``rate``, by
        bisection below it (until 2026-11-27 the last doubled population was taken for the peak,
        and a rate the curve reaches between two doublings was carried at the wrong demands). Where
        no population up to the peak (or :data:`OPEN_POPULATION_MAX`) reaches ``rate``, the peak's
        composition is used (the load saturates a station there). Until 2026-11-27 the file's
        ``clients`` (or the kind's preset) was used, so the answer to an open load moved with a key
        it says it ignores.

        A generator of :class:`_Compose` requests (see :func:`_drive`).
        """
        p = dataclasses.replace(prof, think_time=0.0)
        seen = {}

        def at(n):
            if n not in seen:
                r = yield _Compose(dict(kernel=kv, workload=dataclasses.replace(p, clients=int(n)), system=sys,
                                        costs=self.costs, io_scheduler=self.kernel.io_scheduler))
                seen[n] = (r, float(np.ravel(r.throughput)[0]))
            return seen[n]

        n, lo, prev = 1, 0, 0
        while True:
            r, x = yield from at(n)
            if x >= rate:
                hi, r_hi = n, r
                break
            if lo > 0 and x <= seen[lo][1]:
                # past the peak: it lies in (prev, n); ternary search on the unimodal curve
                a, b = prev + 1, n - 1
                while b - a > 2:
                    m1, m2 = a + (b - a) // 3, b - (b - a) // 3
                    if (yield from at(m1))[1] < (yield from at(m2))[1]:
                        a = m1 + 1
                    else:
                        b = m2
                n_pk = a
                for m in range(a, b + 1):
                    if (yield from at(m))[1] > seen[n_pk][1]:
                        n_pk = m
                r_pk, x_pk = seen[n_pk]
                if x_pk < rate:
                    return r_pk   # the peak: saturated
                lo, hi, r_hi = prev, n_pk, r_pk
                break
            if n >= OPEN_POPULATION_MAX:
                return r
            prev, lo = lo, n
            n = min(2 * n, OPEN_POPULATION_MAX)
        while hi - lo > 1:
            mid = (lo + hi) // 2
            r, x = yield from at(mid)
            if x >= rate:
                hi, r_hi = mid, r
            else:
                lo = mid
        return r_hi

    def _predict_open(self, sys: SystemConfig, prof: WorkloadProfile, kv: KernelVersion, extra: str, r):
        """Open load: demands of the closed model (``r``, :func:`compose` at the file's population), then M/M/c stations.

        A generator of :class:`_Mmc` / :class:`_Iosq` requests (see :func:`_drive`); returns the row.
        """
        lam = self.workload.io_rate / prof.io_per_transaction
        chan = np.asarray(sys.channel_demands) * prof.io_per_transaction
        # the disks serve the read misses, the destage of the fast writes and the pre-stage of the
        # sequential reads (_background_disk_load, per transaction/s: k disks-worth of utilization,
        # k x disks disk-seconds); only the misses wait
        destage = self._background_disk_load(prof) * sys.disks
        stations = [(r.cpu_demand, sys.cpus), (chan[0], sys.channel_paths), (chan[1], sys.channel_paths),
                    (chan[2], sys.channel_paths), (r.disk_demand + destage, sys.disks)]
        names = ("cpu", "channel processor", "channel link (inbound)", "channel link (outbound)", "disk")
        if self.hardware.channel is not None and math.isfinite(self.channel_link().channel_rate):
            # the card's data path (both directions together, ChannelLink.data_path_demand): a station
            # of its own per path, concurrent with the link; the closed model (compose) has no such station
            dp = float(self.channel_link().data_path_demand(prof.block_size)) * prof.io_per_transaction
            stations.append((dp, sys.channel_paths))
            names = names + ("channel data path",)
        resp = prof.io_per_transaction * sys.controller_time + _delay_time(prof, kv, sys.platform)   # compose's delays
        cap = min((c / d for d, c in stations if d > 0), default=math.inf)
        saturated = [n for n, (d, c) in zip(names, stations) if d > 0 and lam * float(d) / c >= 1.0]
        limit, limit_name = self._server_limit(prof)   # the storage server's own ceiling, a bound
        cap = min(cap, limit)
        if lam >= limit:
            saturated.append(limit_name)
        iosq = 0.0
        if self.hardware.volumes is not None:
            u = min(lam * destage / sys.disks, 1.0 - 1e-12)   # the misses' disk time stretched by the destage
            css, _, disconnect = self._iosq_setup(dataclasses.replace(sys, disk_time=sys.disk_time / (1.0 - u)), prof)
            iosq = yield _Iosq(css, prof.block_size, prof.read_fraction, disconnect, lam * prof.io_per_transaction)
            if not math.isfinite(iosq):
                # the volumes' subchannels carry no more than their own capacity (as every station)
                saturated.append("device subchannels (IOSQ)")
                cap = min(cap, css.max_device_io_rate(prof.block_size, prof.read_fraction, disconnect)
                          / prof.io_per_transaction)
        carried = min(lam, cap)  # transactions per second the system completes
        utils, times = [], []
        for name, (d, c) in zip(names, stations):
            if d <= 0:
                utils.append(0.0)
                times.append(0.0)
                continue
            # a request waits at the disk that holds its block: the disks are c M/M/1 queues at
            # 1/c of the load each (as compose's copies), the paths and CPUs pooled servers
            separate = name == "disk"
            times.append((yield _Mmc(lam / c if separate else lam, float(d), 1 if separate else int(c))))
            utils.append(min(1.0, carried * float(d) / c))  # at the carried load
        # the card's data path moves the bytes while the link does (ChannelSubsystem.response_time):
        # the transfer takes the longer of the two, not their sum
        transfer = times[2] + times[3]
        total_disk = float(r.disk_demand) + destage
        if total_disk > 0:   # the transactions wait for their read misses only, each stretched alike
            times[4] *= float(r.disk_demand) / total_disk
        resp += times[0] + times[1] + times[4] + (max(transfer, times[5]) if len(times) > 5 else transfer)
        if math.isfinite(iosq):
            resp += prof.io_per_transaction * iosq
        if saturated:
            resp = math.inf
        u_cpu = utils[0]
        phi = sys.dispatch_fraction
        return dict(throughput=float(carried * prof.io_per_transaction), response_time=resp,
                    cpu_utilization=u_cpu * phi, channel_utilization=max(utils[1:4] + utils[5:]),
                    disk_utilization=utils[4],
                    steal=u_cpu * (1 - phi), memory_overhead=float(r.memory_overhead), features=r.features,
                    parameters=f"kernel={kv.name}, workload={prof.name}, open io_rate={self.workload.io_rate:.4g}, "
                               f"tx_rate={lam:.4g}, {r.parameters_text()}, {extra}",
                    saturated=", ".join(saturated), model=MODEL_OPEN)

    def parameter_ranges(self) -> dict[str, tuple[float, float]]:
        """Plausible ranges of the used parameters (their ``param()`` metadata, else the store's bounds)."""
        info = parameter_info(KernelCosts)
        out = {n: info[n].range for n in self.used_parameters() if n in info}
        for n in self.used_parameters():
            if n not in out and self.parameters.where(n) is not None:
                b = self.parameters.parameter(n).bounds
                if b is not None:
                    out[n] = b
        return out

    def with_values(self, values: Mapping[str, float]) -> "Scenario":
        """This scenario with some parameter values replaced (kernel costs, channel times, workload readings)."""
        overlay = _Overlay(self.parameters, values)
        return dataclasses.replace(self, costs=calibrated_costs(overlay), parameters=overlay)

    def draws(self, samples: int, seed=0, vary_assumed: bool = True) -> dict[str, np.ndarray]:
        """Joint draws of the parameters a prediction uses (see :meth:`zmodel.store.ParameterStore.sample`).

        Calibrated parameters come from their fitted distribution or range; assumed ones
        from their plausible range (:meth:`parameter_ranges`) with the value this scenario
        uses (the store's, or the caller's explicit cost) as the median, or held at their
        values with ``vary_assumed=False`` (the calibration's uncertainty alone).
        """
        samples = as_count("samples", samples, 1, MAX_SAMPLES)
        assumed = set(self.assumed()) if vary_assumed else set()
        ranges = {n: r for n, r in self.parameter_ranges().items() if n in assumed}
        values = self.parameters.values()
        guesses = {n: float(getattr(self.costs, n)) if hasattr(self.costs, n) else values.get(n, math.nan)
                   for n in ranges}
        return self.parameters.sample(samples, seed, names=self.used_parameters(), assumed_ranges=ranges,
                                      assumed_values=guesses)

    def sampled(self, sweep: Mapping | None = None, samples: int = 200, seed=0, progress=None,
                vary_assumed: bool = True) -> np.ndarray:
        """The predictions of every sweep point for each parameter draw (:meth:`draws`).

        Returns
        -------
        ndarray, shape (samples, points, len(INTERVAL_COLUMNS))
            ``[i, j, k]``: column ``INTERVAL_COLUMNS[k]`` of sweep point ``j`` (the row
            order of :meth:`predict`) under draw ``i`` -- e.g. the probability that a point
            meets an objective is the share of draws that do.
        """
        samples = as_count("samples", samples, 1, MAX_SAMPLES)
        draws = self.draws(samples, seed, vary_assumed=bool(vary_assumed))
        names = list(draws)
        _, jobs = self._point_jobs(sweep)
        columns = list(INTERVAL_COLUMNS)
        runs = []
        for start in range(0, samples, SAMPLED_BATCH):  # the draws of a batch are solved together
            batch = range(start, min(start + SAMPLED_BATCH, samples))
            tasks = []
            for i in batch:
                drawn = self.with_values({n: draws[n][i] for n in names})
                tasks += [dataclasses.replace(scen, costs=drawn.costs, parameters=drawn.parameters)
                          ._point_task(populations, numeric=True) for _, scen, populations in jobs]
            with quiet_saturation():
                rows = _drive(tasks)
            for k, i in enumerate(batch):
                runs.append(np.array([[row[c] for c in columns] for job in rows[k * len(jobs):(k + 1) * len(jobs)]
                                      for row in job], dtype=float).reshape(-1, len(columns)))
                if progress is not None:
                    progress(i + 1, samples)
        return np.stack(runs)

    def headline(self) -> str:
        """The output a planner reads first: ``response_time`` for an open load (``workload.io_rate``),
        else ``throughput``."""
        return "response_time" if self.workload.io_rate is not None else "throughput"

    def model_error(self):
        """The composed model's out-of-sample error (:class:`zmodel.store.ModelError` of
        :data:`COMPOSITION_AREA` in the scenario's store), or None where the store holds none.

        Its rows are whole benchmarks predicted with each left out of the fit: what a composed
        prediction misses beyond its parameters' uncertainty (a relative error, read alike for the
        throughput and the time per request).
        """
        area = self.parameters.areas.get(COMPOSITION_AREA)
        return None if area is None else area.model_error

    def _component_parameters(self) -> dict[str, list[str]]:
        """Area -> the calibrated parameters the prediction draws from it, for every area other than
        the composition's that holds them (the kernel costs are the composition's own, whatever fit
        sets them: its left-out errors were measured with them)."""
        kernel = set(parameter_info(KernelCosts))
        calibrated = self.parameters.calibrated()
        out: dict[str, list[str]] = {}
        for n in self.used_parameters():
            area = self.parameters.where(n)
            if n in calibrated and n not in kernel and area is not None and area != COMPOSITION_AREA:
                out.setdefault(area, []).append(n)
        return out

    def model_errors(self) -> dict:
        """Area -> :class:`zmodel.store.ModelError` of every fit whose out-of-sample error a prediction
        of this scenario carries: the composed model's (:data:`COMPOSITION_AREA`), then that of each
        other fit whose calibrated parameters the prediction draws -- the channel fit's where a
        channel's per-I/O time is drawn (the composition's benchmarks ran on systems without a FICON
        or FCP channel, so their left-out errors never tested the channel model). The fits are
        those ``zmodel validate`` names for a figure (:func:`zmodel.validation.error_areas`: the fits
        whose parameters it draws); empty where the store holds no error (``--defaults``)."""
        names = [COMPOSITION_AREA] + list(self._component_parameters())
        areas = self.parameters.areas
        return {a: areas[a].model_error for a in names if a in areas and areas[a].model_error is not None}

    def component_error_effects(self, area: str, errors, sweep: Mapping | None = None) -> np.ndarray:
        r"""How a component fit's out-of-sample error moves each sweep point's headline (:meth:`headline`).

        The fit's rows are predictions of its own model (the channel fit's: a channel's I/O and data
        rates), so a left-out log error :math:`e` says that model's times are off by :math:`e^{e}`.
        Returns :math:`g_j(e) = \ln h_j(\hat\theta \cdot e^{e}) - \ln h_j(\hat\theta)` for each
        ``errors`` value and point :math:`j`, shape (len(errors), points): the headline predicted
        with the fit's calibrated parameters the prediction draws scaled by :math:`e^{e}` (a rate, a
        parameter in ``.../s``, by :math:`e^{-e}`), all else at the stored values. A CPU-bound
        throughput that never waits for its channel gets :math:`g = 0`, a channel-bound one
        :math:`g = -e` (:math:`X = 1/t`), a response time near a channel's saturation grows without
        bound -- the model's own nonlinearity, not a linearization. :math:`g` is computed exactly on
        :data:`ERROR_GRID` points spanning ``errors`` (and 0) and interpolated linearly between
        them; where a neighbour is infinite (the step saturates a resource) the nearer one's value is
        taken. A point whose headline is infinite or zero at the stored values keeps 0 (its draws
        decide it).
        """
        return self._component_effects(self._component_parameters().get(area, []), errors, sweep,
                                       self._headline_values(sweep))

    def _headline_values(self, sweep: Mapping | None = None) -> np.ndarray:
        """The headline (:meth:`headline`) of each sweep point at the stored values."""
        return np.asarray(self.predict(sweep)[self.headline()], dtype=float)

    def _component_effects(self, names, errors, sweep, base: np.ndarray) -> np.ndarray:
        """:meth:`component_error_effects` for the parameters ``names``, given the points' headline ``base``."""
        errors = np.asarray(errors, dtype=float)
        if not names or not errors.size:
            return np.zeros((errors.size, base.size))
        head = self.headline()
        values = self.parameters.values()
        grid = np.unique(np.concatenate([np.linspace(errors.min(), errors.max(), ERROR_GRID), [0.0]]))
        logs = np.empty((grid.size, base.size))
        with np.errstate(divide="ignore", invalid="ignore"):
            for k, e in enumerate(grid):
                if e == 0.0:
                    logs[k] = 0.0
                    continue
                scaled = {n: values[n] * math.exp(-e if self.parameters.parameter(n).unit.endswith("/s") else e)
                          for n in names}
                logs[k] = np.log(np.asarray(self.with_values(scaled).predict(sweep)[head], dtype=float)) - np.log(base)
        logs[:, ~(np.isfinite(base) & (base > 0))] = 0.0
        # linear interpolation between the grid points that bracket each error; the nearer one where
        # either is not finite
        hi = np.clip(np.searchsorted(grid, errors), 1, grid.size - 1)
        lo = hi - 1
        w = np.clip((errors - grid[lo]) / (grid[hi] - grid[lo]), 0.0, 1.0)[:, None]
        a, b = logs[lo], logs[hi]
        with np.errstate(invalid="ignore"):
            linear = (1.0 - w) * a + w * b
        nearer = np.where(w < 0.5, a, b)
        return np.where(np.isfinite(a) & np.isfinite(b), linear, nearer)

    def model_error_factors(self, samples: int, seed=0, sweep: Mapping | None = None):
        r"""Factors :math:`\exp(e_{\text{comp}} + \sum_a g_{a,j}(e_a))` of the out-of-sample errors the
        prediction carries (:meth:`model_errors`), an array of shape (samples, points): one row per
        parameter draw of :meth:`sampled` with the same seed, one column per sweep point (the row
        order of :meth:`predict`). :math:`e_{\text{comp}}` is a draw of the composed model's error,
        applied to the headline whole; :math:`e_a` one of each other fit's, applied through its
        effect on the point's headline (:meth:`component_error_effects`: the headline predicted with
        that model's times off by :math:`e^{e_a}`). One draw of each for all the points of a parameter
        draw: the models err alike on neighbouring configurations. None where the store holds no such
        error. Each fit's draws are the store's stream of that error
        (:meth:`zmodel.store.ModelError.sample`): ``zmodel validate`` draws the same ones for the
        figures of that fit's area."""
        samples = as_count("samples", samples, 1, MAX_SAMPLES)
        return self._error_factors(self.model_errors(), samples, seed, sweep)

    def _error_factors(self, errors: Mapping, samples: int, seed, sweep, base: np.ndarray | None = None):
        """:meth:`model_error_factors` for the fits' ``errors`` (:meth:`model_errors`), given the points'
        headline ``base`` at the stored values where the caller has it (else predicted here)."""
        if not errors:
            return None
        parts = self._component_parameters()
        if base is None:
            base = (self._headline_values(sweep) if set(errors) - {COMPOSITION_AREA} else
                    np.empty(sum(len(prefixes) for prefixes, _, _ in self._point_jobs(sweep)[1])))
        log = np.zeros((samples, base.size))
        for area, error in errors.items():
            draws = error.sample(samples, seed, area)
            if area == COMPOSITION_AREA:
                log = log + draws[:, None]
            else:
                log = log + self._component_effects(parts.get(area, []), draws, sweep, base)
        return np.exp(log)

    def sensitivity(self, output: str | None = None):
        """Tornado table: the headline output with each used parameter at the ends of its range.

        Each parameter the prediction uses is set to the low and the high end of its 90 %
        interval (calibrated, from the store) or of its plausible range (assumed, from its
        ``param()`` metadata), the others at their values; the scenario is predicted
        without its sweep (the first point of the sweep's own values is not used).

        Parameters
        ----------
        output : str, optional
            Column of :data:`INTERVAL_COLUMNS` to report; default ``response_time`` for an
            open load (``workload.io_rate``), else ``throughput``.

        Returns
        -------
        pandas.DataFrame
            One row per parameter, sorted by effect: parameter, calibrated, low, high
            (the parameter's ends), output_at_low, output_at_high, effect
            (``|output_at_high - output_at_low|``; NaN where one end is infinite: listed first).
        """
        import pandas as pd

        if output is None:
            output = self.headline()
        output = as_choice("output", output, INTERVAL_COLUMNS)
        calibrated = self.parameters.calibrated()
        ranges = self.parameter_ranges()
        values = self.parameters.values()
        rows = []
        for name in self.used_parameters():
            area = self.parameters.where(name)
            if area is not None and name in self.parameters.areas[area].derived:
                continue   # a product of other parameters (e.g. the IPTE stall): it moves with them
            if name in calibrated and self.parameters.where(name) is not None \
                    and name in self.parameters.areas[self.parameters.where(name)].parameters \
                    and self.parameters.parameter(name).interval is not None:
                lo, hi = self.parameters.parameter(name).interval
            elif name in ranges:
                lo, hi = ranges[name]
            else:
                continue
            with quiet_saturation():
                a = float(self.with_values({name: lo}).predict()[output].iloc[0])
                b = float(self.with_values({name: hi}).predict()[output].iloc[0])
            effect = abs(b - a) if math.isfinite(a) and math.isfinite(b) else math.inf
            rows.append(dict(parameter=name, calibrated=name in calibrated, value=values.get(name, math.nan),
                             low=lo, high=hi, output_at_low=a, output_at_high=b, effect=effect))
        frame = pd.DataFrame(rows, columns=["parameter", "calibrated", "value", "low", "high", "output_at_low",
                                            "output_at_high", "effect"])
        frame = frame.sort_values("effect", ascending=False, kind="stable").reset_index(drop=True)
        frame.attrs["output"] = output
        return frame

    @vectorized
    def predict(self, sweep: Mapping | None = None, samples: int = 0, seed=0, progress=None,
                vary_assumed: bool = True):
        r"""Predict every point of a sweep: one DataFrame row per point.

        Parameters
        ----------
        sweep : mapping key path -> list, optional
            Key paths of :data:`SWEEPABLE` (e.g. ``"hardware.cpus"``,
            ``"workload.clients"``, ``"hypervisor.guests"``, ``"kernel.version"``) to the
            values to sweep; the cartesian product is solved. Default: the scenario's own
            ``[sweep]`` section, or the single scenario.
        samples : int, optional
            Draws of the parameters (:meth:`draws`) over which each point is predicted
            again; with ``samples > 0`` every column of :data:`INTERVAL_COLUMNS` gets a
            90 % interval, ``<name>_lo`` and ``<name>_hi`` (the 5th and 95th percentiles
            of the sampled predictions; no interpolation, so an infinite response time in
            more than 5 % of the draws gives an infinite upper end); where the store holds
            the out-of-sample errors of the fits the prediction rests on (:meth:`model_errors`:
            the composed model's, and the channel fit's where a channel time is drawn) the
            headline output (:meth:`headline`) also gets its 90 % *prediction* interval,
            ``<headline>_prediction_lo`` and ``<headline>_prediction_hi``: each draw's value
            times the exponential of a draw of those errors (one draw for all the points of a
            sweep: the model errs alike on neighbouring configurations). ``p_saturated``
            is the fraction of the draws in which the point saturates (response time
            infinite: the draw's system does not carry the load), and with a response time's
            prediction interval ``p_saturated_prediction`` the same over the draws with the
            errors added (a channel fit's error can carry a draw past the channel's capacity).
            0: no intervals.
        seed : int or numpy.random.Generator
            Seed of the draws (the same seed gives the same intervals).
        progress : callable, optional
            ``progress(done, total)`` after each draw (the CLI draws its bar with it).
        vary_assumed : bool
            Draw the assumed parameters over their plausible ranges (default), or hold
            them at their values (the intervals then show the calibration's uncertainty only).

        Returns
        -------
        pandas.DataFrame
            Columns: the swept key paths (in the given order), then
            :data:`OUTPUT_COLUMNS`, then the interval columns and ``p_saturated`` when
            ``samples > 0``.

        Notes
        -----
        Each point is validated like a file (:meth:`from_dict`), so a bad sweep value
        raises the same key-path message. Points that differ only in
        ``workload.clients`` share one batched MVA (:func:`zmodel.queueing.mva` with a
        population vector).
        """
        import pandas as pd

        samples = as_count("samples", samples, 0, MAX_SAMPLES)
        if samples:
            base = self.predict(sweep)
            stack = self.sampled(sweep, samples, seed, progress=progress, vary_assumed=vary_assumed)
            lo, hi = interval(stack, axis=0)
            for k, col in enumerate(INTERVAL_COLUMNS):
                base[f"{col}_lo"] = lo[:, k]
                base[f"{col}_hi"] = hi[:, k]
            base.attrs.update(samples=samples, seed=seed)   # what the intervals were drawn from
            response = stack[:, :, INTERVAL_COLUMNS.index("response_time")]
            base["p_saturated"] = _saturated_fraction(response)
            out, errors = self.headline(), self.model_errors()
            factors = self._error_factors(errors, samples, seed, sweep, np.asarray(base[out], dtype=float))
            if factors is not None:
                with np.errstate(divide="ignore", invalid="ignore"):   # a zero or infinite value stays so
                    scaled = stack[:, :, INTERVAL_COLUMNS.index(out)] * factors
                plo, phi = interval(scaled, axis=0)
                base[f"{out}_prediction_lo"] = plo
                base[f"{out}_prediction_hi"] = phi
                if out == "response_time":   # a channel's error can carry a draw past its saturation
                    base["p_saturated_prediction"] = _saturated_fraction(scaled)
                base.attrs["model_error"] = "; ".join(
                    f"{area}: {error.method}, {error.rows} rows, 90 % log half-width "
                    f"{error.half_width(INTERVAL_LEVEL):.3g}" for area, error in errors.items())
            return base
        keys, jobs = self._point_jobs(sweep)
        if not keys:
            return pd.DataFrame(self._predict_point(), columns=list(OUTPUT_COLUMNS))
        # every point's task driven together: one compose_many call per step for all points
        # (each composition equal, bit for bit, to its own; until 2026-11-27 one point at a time)
        rows = []
        answers = _drive([scen._point_task(populations) for _, scen, populations in jobs])
        for (prefixes, _, _), points in zip(jobs, answers):
            for prefix, p in zip(prefixes, points):
                row = dict(prefix)
                row.update(p)
                rows.append(row)
        return pd.DataFrame(rows, columns=keys + list(OUTPUT_COLUMNS))

    def _point_jobs(self, sweep: Mapping | None = None) -> tuple[list, list]:
        """The swept key paths and the points of :meth:`predict`, in its row order.

        Returns ``(keys, jobs)``; each job is ``(prefixes, scenario, populations)``: the
        point's scenario (validated like a file, :meth:`from_dict`), the populations solved
        in one batched MVA (``None``: the scenario's own) and one dict of swept values per row.
        Without a sweep the one job is this scenario itself.
        """
        if sweep is None:
            items = list(self.sweep)
        else:
            items = list(_check_sweep(sweep, self.to_dict()))
        keys = [k for k, _ in items]
        if not keys:
            return keys, [([{}], self, None)]
        base = self.to_dict()
        base.pop("sweep", None)
        jobs = []
        other = [(k, v) for k, v in items if k != "workload.clients"]
        clients = dict(items).get("workload.clients")
        for combo in itertools.product(*[v for _, v in other]) if other else [()]:
            d = base
            for (k, _), val in zip(other, combo):
                d = _set_path(d, k, val)
            if clients is not None:
                for n in clients:  # validate each population like a file value
                    as_count("workload.clients", n)
                scen = Scenario.from_dict(_set_path(d, "workload.clients", int(clients[0])), self.costs,
                                          self.parameters)
                point_vals = dict(zip([k for k, _ in other], combo))
                prefixes = [{k: (point_vals[k] if k != "workload.clients" else n) for k in keys} for n in clients]
                if scen.workload.io_rate is not None:
                    for n, prefix in zip(clients, prefixes):
                        jobs.append(([prefix], Scenario.from_dict(_set_path(d, "workload.clients", int(n)),
                                                                  self.costs, self.parameters), None))
                else:
                    jobs.append((prefixes, scen, [int(n) for n in clients]))
            else:
                jobs.append(([dict(zip(keys, combo))], Scenario.from_dict(d, self.costs, self.parameters), None))
        return keys, jobs


def _destage_share(r, j: int, load: float, disk_time: float) -> tuple[float, float]:
    r"""The destage's share :math:`U = k X` of the disks at population ``j`` of ``r``, and the factor capping ``X``.

    ``load`` is :math:`k` (:meth:`Scenario._background_disk_load`). With disk accesses of the
    transactions (``disk_time > 0``) :math:`U` is :func:`~zmodel.kernel.versions.compose`'s own
    (:attr:`~zmodel.kernel.versions.SystemConfig.background_disk_load`) and the factor 1.
    Without them the destage only bounds the rate: :math:`X \le 1/k` (the NVS fills and
    throttles the writes, :meth:`zmodel.hardware.storage.StorageServer.nvs`), factor
    :math:`1/U` where :math:`kX > 1`. ``(0, 1)`` without a destage.
    """
    if load <= 0.0:
        return 0.0, 1.0
    u = load * float(np.ravel(np.asarray(r.throughput, dtype=float))[j])
    if disk_time <= 0.0 or u <= 0.0:
        return min(u, 1.0), (1.0 / u if u > 1.0 else 1.0)
    return min(u, 1.0 - 1e-12), 1.0


def _saturated_fraction(response) -> np.ndarray:
    """Per sweep point, the fraction of the draws ``response[i, j]`` whose response time is infinite.

    A draw saturates a point when its system cannot carry the point's load: an open load at or
    beyond a station's capacity, or no capacity left to the workload (:meth:`Scenario.predict`'s
    ``saturated``); its response time is then infinite. The fraction is the planner's estimate of
    the probability that the configuration does not carry the load at all.
    """
    return np.mean(np.isinf(np.asarray(response, dtype=float)), axis=0)


@dataclasses.dataclass(frozen=True)
class _Compose:
    """A request of a point task (:meth:`Scenario._point_task`): one :func:`compose` call's arguments."""

    arguments: dict


@dataclasses.dataclass(frozen=True)
class _Iosq:
    """A request of a point task: the IOSQ time [s] of ``subsystem`` at ``io_rate`` (:meth:`Scenario.iosq_time`)."""

    subsystem: Any
    block_size: float
    read_fraction: float
    disconnect_time: float
    io_rate: float
    #: a closed population and its current IOSQ time per I/O (ChannelSubsystem.closed_iosq_time), else open
    population: int | None = None
    iosq_time: float = 0.0


@dataclasses.dataclass(frozen=True)
class _Mmc:
    """A request of a point task: the response time [s] of an M/M/c station (:func:`zmodel.queueing.mmc`)."""

    arrival_rate: float
    service_time: float
    servers: int


def _illinois(f, lo: float, f_lo: float, hi: float, f_hi: float, payload, tolerance: float):
    """Illinois regula falsi (Dowell & Jarratt, BIT 11, 1971, pp. 168-174) on ``f(lo) > 0 >= f(hi)``.

    The secant of the bracket, the end that stays halving its value, until the bracket is
    narrower than ``tolerance`` relative to ``hi`` or ``f(hi) = 0`` (halving while the lower
    end is still saturated, ``f(lo)`` infinite). ``f(x)`` is a generator of solver requests
    (:func:`_drive`) returning ``(value, payload)``; returns ``hi`` and its payload (the root
    from the side where ``f <= 0``).
    """
    side = 0
    for _ in range(200):
        if hi - lo <= tolerance * hi or f_hi == 0.0:
            break
        x = hi - f_hi * (hi - lo) / (f_hi - f_lo) if f_hi < 0.0 < f_lo < math.inf else 0.5 * (lo + hi)
        if not lo < x < hi:
            x = 0.5 * (lo + hi)
        f_x, p_x = yield from f(x)
        if f_x > 0.0:
            lo, f_lo = x, f_x
            if side == -1:
                f_hi *= 0.5
            side = -1
        else:
            hi, f_hi, payload = x, f_x, p_x
            if side == 1:
                f_lo *= 0.5
            side = 1
    return hi, payload


def _lockstep(generators):
    """Run sub-generators of solver requests together inside one task; their return values, in order.

    Yields, at each step, the list of the requests still pending (one per unfinished
    sub-generator) and receives the list of their answers (:func:`_drive` serves a list as
    one request each): every sub-generator advances by its own steps, so each gets what it gets
    when run alone, and one step of all of them costs one :func:`compose_many` call.
    """
    out = [None] * len(generators)
    pending = {}

    def advance(i, reply):
        try:
            pending[i] = generators[i].send(reply)
        except StopIteration as stop:
            out[i] = stop.value

    for i in range(len(generators)):
        advance(i, None)
    while pending:
        items = list(pending.items())
        pending.clear()
        replies = yield [req for _, req in items]
        for (i, _), reply in zip(items, replies):
            advance(i, reply)
    return out


def _drive(tasks) -> list:
    """Run point tasks (generators of :class:`_Compose` / :class:`_Iosq` requests) together; their rows.

    At each step the pending compositions of all tasks are solved in one
    :func:`compose_many` call (each equal, bit for bit, to its own :func:`compose`), the
    pending M/M/c stations with the same server count in one :func:`zmodel.queueing.mmc`
    call, and the pending IOSQ times of tasks with the same channel subsystem, block size and read
    fraction in one :meth:`~zmodel.hardware.channels.ChannelSubsystem.response_time` call
    (element by element the same arithmetic as one call each). A task advances by its
    own steps, so each gets what it gets when driven alone (:func:`_lockstep`). A task may yield
    a list of requests (its own :func:`_lockstep`): it receives the list of their answers.
    """
    runner = _lockstep(tasks)
    try:
        requests = next(runner)
        while True:
            flat, spans = [], []
            for req in requests:
                many = isinstance(req, list)
                spans.append((len(flat), len(req) if many else 1, many))
                flat.extend(req if many else [req])
            replies = _serve(flat)
            requests = runner.send([replies[start:start + count] if many else replies[start]
                                    for start, count, many in spans])
    except StopIteration as stop:
        return stop.value


def _serve(requests) -> list:
    """The answers to a step's requests (see :func:`_drive`), in order."""
    replies = [None] * len(requests)
    comp = [k for k, r in enumerate(requests) if isinstance(r, _Compose)]
    if comp:
        for k, r in zip(comp, compose_many([requests[k].arguments for k in comp])):
            replies[k] = r
    stations: dict = {}
    for k, r in enumerate(requests):
        if isinstance(r, _Mmc):
            stations.setdefault(r.servers, []).append(k)
    for servers, ks in stations.items():
        from zmodel.queueing import mmc

        with quiet_saturation():
            res = mmc(np.array([requests[k].arrival_rate for k in ks], dtype=float),
                      np.array([requests[k].service_time for k in ks], dtype=float), servers=servers)
        for k, v in zip(ks, np.ravel(np.asarray(res.response_time, dtype=float))):
            replies[k] = float(v)
    groups: dict = {}
    for k, r in enumerate(requests):
        if isinstance(r, _Iosq) and r.population is not None:   # finite source: one at a time
            replies[k] = float(r.subsystem.closed_iosq_time(r.population, r.io_rate, r.block_size,
                                                            r.read_fraction, r.disconnect_time, r.iosq_time))
        elif isinstance(r, _Iosq):
            key = (r.subsystem, r.block_size, r.read_fraction)
            try:
                hash(key)
            except TypeError:
                key = (id(r.subsystem), r.block_size, r.read_fraction)
            groups.setdefault(key, []).append(k)
    for ks in groups.values():
        first = requests[ks[0]]
        with quiet_saturation():
            res = first.subsystem.response_time(np.array([requests[k].io_rate for k in ks], dtype=float),
                                                first.block_size, first.read_fraction,
                                                np.array([requests[k].disconnect_time for k in ks], dtype=float))
        for k, v in zip(ks, np.ravel(np.asarray(res.iosq_time, dtype=float))):
            replies[k] = float(v)
    return replies


class _Overlay:
    """A parameter store with some values replaced (one draw of :meth:`Scenario.draws`)."""

    def __init__(self, store, values):
        self._store, self._values = store, {k: float(v) for k, v in values.items()}
        self._conditioned = None

    def values(self):
        # a calibrated value that holds given a replaced assumed one moves with it (ParameterStore.conditioned);
        # computed once (the store and the draw do not change), a copy for each caller
        if self._conditioned is None:
            self._conditioned = self._store.conditioned(self._values)
        return dict(self._conditioned)

    def conditioned(self, overrides):
        return self._store.conditioned({**self._values, **overrides})

    def __getattr__(self, name):
        return getattr(self._store, name)


def _check_sweep(sweep, mapping) -> tuple:
    if sweep is None:
        return ()
    if not isinstance(sweep, Mapping):
        raise ValueError(f"sweep must be a table of key path -> list of values, got {type(sweep).__name__}")
    out = []
    for key, values in sweep.items():
        if key not in SWEEPABLE:
            raise ValueError(f"sweep: unknown key path {key!r}; sweepable: {', '.join(SWEEPABLE)}")
        if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
            raise ValueError(f"sweep.{key} must be a list of values, got {values!r}")
        values = list(values)
        if not values:
            raise ValueError(f"sweep.{key} must not be empty")
        out.append((key, tuple(values)))
    return tuple(out)


@vectorized
def predict(scenario, sweep: Mapping | None = None):
    """Module-level form of :meth:`Scenario.predict`; ``scenario`` may be a Scenario or a mapping.

    Examples
    --------
    >>> df = predict({"hardware": {"processor": "z990", "cpus": 2}, "kernel": {"version": "2.4.21"},
    ...               "workload": {"kind": "web", "clients": 10}})
    >>> len(df), 0 <= float(df["cpu_utilization"].iloc[0]) <= 1
    (1, True)
    """
    if not isinstance(scenario, Scenario):
        scenario = Scenario.from_dict(scenario)
    return scenario.predict(sweep)
