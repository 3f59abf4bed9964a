"""Sane arguments for every public model function and class (after scipy.stats' ``_distr_params.py``).

One :class:`Case` per public callable of :mod:`zmodel.queueing`, :mod:`zmodel.hardware`
and :mod:`zmodel.kernel` (methods of components under ``Class.method``). The contract
test (``tests/test_contract.py``) runs each through the same checks: scalar in → float
out; a pandas Series in → the same index out; a batch broadcasts like the scalar calls;
a negative, NaN, boolean or wrongly shaped argument → ``ValueError`` naming it; overload
→ exactly one ``SaturationWarning``; ``to_frame()`` works.

A callable that cannot take part is listed in :data:`EXEMPT` with the reason.

The arguments are plain, documented operating points (a 4 KiB random read at a few
hundred I/Os per second, a spinlock held 1 µs by 8 CPUs...). They are inputs, not
expected values: no number here is compared with a model's output.
"""
from __future__ import annotations

import dataclasses
from typing import Any, Callable

from zmodel.queueing import (
    amdahl, amva, asymptotic_bounds, balanced_job_bounds, erlang_b, erlang_c, ggc, jackson_network,
    machine_repairman, md1, mg1, mixed_network, mm1, mmc, mmck, mva, mva_multiclass, open_multiclass,
    simulate_closed_network, simulate_station, usl, usl_fit,
)
from zmodel.queueing import ctmc, distributions, loaddep, multiclass, priority, routing
from zmodel.hardware import channels, crypto, dasd, network, storage
from zmodel.kernel import attribution, hypervisor, iopath, locks, memory, numa, scenario, versions


@dataclasses.dataclass(frozen=True)
class Case:
    """How to call one public callable with sane arguments.

    Attributes
    ----------
    name : str
        ``module.callable`` or ``module.Class.method`` (the coverage test reads it).
    call : callable
        Called as ``call(**args)``.
    args : dict
        Sane arguments.
    vector : tuple of str
        Arguments that accept batches and pandas Series (leading axis = batch).
    batch : dict
        Per vector argument, three sane values for the batch and Series checks.
    checked : tuple of str or None
        Arguments whose negative / NaN / boolean / list values must be refused with a
        ``ValueError`` naming them (default: every numeric argument in ``args``).
    overload : dict or None
        Arguments that saturate an open model: exactly one ``SaturationWarning``.
    constructor : bool
        A component's constructor: only the bad-input checks apply.
    signed : tuple of str
        Arguments for which a negative value is valid (a CDF's time argument).
    """

    name: str
    call: Callable[..., Any]
    args: dict
    vector: tuple = ()
    batch: dict = dataclasses.field(default_factory=dict)
    checked: tuple | None = None
    overload: dict | None = None
    constructor: bool = False
    signed: tuple = ()

    def __str__(self):
        return self.name


# ------------------------------------------------------------------ components used by cases
def ficon():
    return channels.ChannelLink.from_catalog("FICON-2G", command_time=1e-4)


def css():
    return channels.ChannelSubsystem(ficon(), paths=2, multipath="multibus", devices=16)


def disk():
    return storage.Disk.from_specs(250.0, 60e6, 10000, 3.5e-3, 8.0e-3, 0.4e-3)


def server():
    return storage.StorageServer.from_catalog("ESS-800")


SW = crypto.CipherCost("AES-128 software", 20e-9)


def ssl_server():
    return crypto.SSLServer(2, 0.3e-3, 2e-3, SW, record_cpu_per_byte=5e-9)


def net_path():
    return network.NetworkPath(network.NetworkAdapter("OSA", 1e9, 1500.0, per_packet_time=5e-6),
                               network.StackCost(20e-6, 5e-6, 5e-9), cpus=2)


RR = network.Workload("rr", 200.0, 1000.0)


def volume():
    return dasd.DasdVolume([0.75, 0.2, 0.05], [1.8e-3, 5e-3, 25e-3], [0.37, 0.55, 0.42])


def io_device():
    return iopath.IODevice.single_disk(disk())


def ext3():
    return iopath.FileSystem("ext3", "metadata", metadata_writes=2.0, journal_writes=1.0,
                             commit_writes=0.2, cpu_time=1e-4)


def dbench_memory():
    return memory.DbenchMemoryModel("2.6", cpu_time=1e-3, serial_time=1e-5)


def workload_profile():
    return versions.WorkloadProfile("oltp", clients=20, think_time=0.01, user_time=1e-3, switches=2,
                                    io_per_transaction=1)


def system_config():
    return versions.SystemConfig(cpus=4)


D3 = [0.01, 0.02, 0.005]
SCENARIO = {"hardware": {"processor": "z990", "cpus": 4, "storage_server": "ESS-800", "channel": "FICON-2G"},
            "kernel": {"version": "2.6.10"},
            "workload": {"kind": "oltp", "clients": 20}}

#: the same scenario with its I/O spread over 4 volumes with one static PAV alias each
SCENARIO_PAV = {**SCENARIO, "hardware": {**SCENARIO["hardware"], "volumes": 4, "pav_aliases": 1}}

B = {  # three sane values per commonly batched argument
    "arrival_rate": [10.0, 20.0, 40.0],
    "service_time": [0.01, 0.012, 0.015],
    "population": [1, 5, 20],
    "cpus": [2, 4, 8],
    "think_time": [0.01, 0.02, 0.05],
    "size": [4096.0, 16384.0, 65536.0],
    "block_size": [4096.0, 16384.0, 65536.0],
    "io_rate": [100.0, 500.0, 1000.0],
}

CASES: list[Case] = [
    # ------------------------------------------------------------------ queueing: single stations
    Case("single.mm1", mm1, dict(arrival_rate=50.0, service_time=0.01), ("arrival_rate", "service_time"),
         overload=dict(arrival_rate=200.0)),
    Case("single.mmc", mmc, dict(arrival_rate=150.0, service_time=0.01, servers=2), ("arrival_rate",),
         overload=dict(arrival_rate=400.0)),
    Case("single.mmck", mmck, dict(arrival_rate=150.0, service_time=0.01, servers=2, capacity=6),
         ("arrival_rate",)),
    Case("single.machine_repairman", machine_repairman, dict(population=5, think_time=0.05, service_time=0.01),
         ("population",)),
    Case("single.mg1", mg1, dict(arrival_rate=50.0, service_time=0.01, service_scv=0.5), ("arrival_rate",),
         overload=dict(arrival_rate=200.0)),
    Case("single.md1", md1, dict(arrival_rate=50.0, service_time=0.01), ("arrival_rate",),
         overload=dict(arrival_rate=200.0)),
    Case("single.ggc", ggc, dict(arrival_rate=150.0, service_time=0.01, servers=2, arrival_scv=1.5,
                                 service_scv=0.5), ("arrival_rate",), overload=dict(arrival_rate=400.0)),
    Case("erlang.erlang_b", erlang_b, dict(servers=4, offered_load=2.0), ("offered_load",),
         batch={"offered_load": [1.0, 2.0, 3.0]}),
    Case("erlang.erlang_c", erlang_c, dict(servers=4, offered_load=2.0), ("offered_load",),
         batch={"offered_load": [1.0, 2.0, 3.0]}, overload=dict(offered_load=5.0)),
    # ------------------------------------------------------------------ queueing: networks
    Case("closed.mva", mva, dict(service_demands=D3, population=10, think_time=0.1), ("population",),
         checked=("service_demands", "population", "think_time")),
    Case("closed.mva_multiclass", mva_multiclass,
         dict(service_demands=[[0.01, 0.02], [0.02, 0.01]], populations=[3, 2], think_times=0.1),
         checked=("service_demands", "populations", "think_times")),
    Case("closed.amva", amva, dict(service_demands=[[0.01, 0.02], [0.02, 0.01]], populations=[3, 2],
                                   think_times=0.1),
         checked=("service_demands", "populations", "think_times")),
    Case("bounds.asymptotic_bounds", asymptotic_bounds, dict(service_demands=D3, population=10, think_time=0.1),
         ("population",), checked=("service_demands", "population", "think_time")),
    Case("bounds.balanced_job_bounds", balanced_job_bounds,
         dict(service_demands=D3, population=10, think_time=0.1), ("population",),
         checked=("service_demands", "population", "think_time")),
    Case("mixed.mixed_network", mixed_network,
         dict(open_arrival_rates=[10.0], open_demands=[[0.01, 0.02]], closed_demands=[[0.02, 0.01]],
              populations=[3], think_times=0.1),
         checked=("open_arrival_rates", "open_demands", "closed_demands", "populations", "think_times"),
         overload=dict(open_arrival_rates=[100.0])),
    Case("open_networks.jackson_network", jackson_network,
         dict(arrival_rates=[10.0, 0.0], routing=[[0.0, 0.5], [0.0, 0.0]], service_times=[0.01, 0.02]),
         checked=("arrival_rates", "service_times"), overload=dict(arrival_rates=[200.0, 0.0])),
    Case("open_networks.open_multiclass", open_multiclass,
         dict(arrival_rates=[10.0, 5.0], service_demands=[[0.01, 0.02], [0.02, 0.01]]),
         checked=("arrival_rates", "service_demands"), overload=dict(arrival_rates=[60.0, 5.0])),
    Case("scalability.usl", usl, dict(concurrency=8.0, sigma=0.05, kappa=0.001), ("concurrency",),
         batch={"concurrency": [1.0, 8.0, 32.0]}),
    Case("scalability.amdahl", amdahl, dict(processors=8.0, serial_fraction=0.05), ("processors",),
         batch={"processors": [1.0, 8.0, 32.0]}),
    Case("scalability.usl_fit", usl_fit, dict(concurrency=[1.0, 2.0, 4.0, 8.0, 16.0],
                                              throughput=[1.0, 1.9, 3.4, 5.3, 6.6]),
         checked=("concurrency", "throughput")),
    Case("simulation.simulate_station", simulate_station,
         dict(arrival_rate=5.0, service_time=0.1, replications=2, horizon=200.0, warmup=20.0),
         checked=("arrival_rate", "service_time")),
    Case("simulation.simulate_closed_network", simulate_closed_network,
         dict(service_demands=[0.1, 0.05], population=3, replications=2, horizon=100.0, warmup=10.0),
         checked=("service_demands", "population")),
    # ------------------------------------------------------------------ queueing: issue 13 solvers
    Case("loaddep.mva_load_dependent", loaddep.mva_load_dependent,
         dict(service_demands=[[0.1, 0.05], [0.02, 0.3]], populations=[3, 2], think_times=1.0, servers=[2, 1]),
         checked=("populations", "think_times")),
    # (the probabilities vector's length follows the population: no batch check across populations)
    Case("loaddep.finite_source", loaddep.finite_source,
         dict(population=4, think_time=1.0, service_rate=[1.0, 2.0, 2.0, 2.0]), checked=("population", "think_time")),
    Case("loaddep.finite_source_probabilities", loaddep.finite_source_probabilities,
         dict(population=[3], think_time=[1.0], log_service_rate=[[0.0, 0.5, 0.5]]),
         checked=("population", "think_time")),
    Case("loaddep.split_finite_source", loaddep.split_finite_source,
         dict(population=[3], think_time=[1.0], log_service_time=[[0.0, 0.5, 0.5]], stations=[2]),
         checked=("population", "think_time")),
    Case("loaddep.flow_equivalent_server", loaddep.flow_equivalent_server,
         dict(service_demands=[0.1, 0.05], population=4, servers=[2, 1]), checked=("service_demands", "population")),
    Case("multiclass.multiclass_bounds", multiclass.multiclass_bounds,
         dict(service_demands=[[0.1, 0.05], [0.02, 0.3]], populations=[3, 2], think_times=1.0),
         checked=("service_demands", "populations")),
    Case("multiclass.bottleneck_mixes", multiclass.bottleneck_mixes,
         dict(service_demands=[[0.1, 0.05], [0.02, 0.3]]), checked=("service_demands",)),
    Case("distributions.marginal_probabilities", distributions.marginal_probabilities,
         dict(service_demands=[0.1, 0.05], population=5, think_time=1.0), checked=("population", "think_time")),
    Case("distributions.mmc_percentiles", distributions.mmc_percentiles,
         dict(arrival_rate=50.0, service_time=0.03, servers=2, percentile=0.9), ("arrival_rate", "service_time"),
         checked=("arrival_rate", "service_time", "servers"), overload=dict(arrival_rate=100.0)),
    Case("distributions.closed_station_percentiles", distributions.closed_station_percentiles,
         dict(service_demands=[0.1, 0.05], population=3, percentile=0.9, think_time=1.0),
         checked=("population", "think_time")),
    Case("distributions.closed_cycle_percentile", distributions.closed_cycle_percentile,
         dict(service_demands=[0.1, 0.05], population=3, percentile=0.9, think_time=1.0),
         checked=("population", "think_time")),
    Case("priority.priority_station", priority.priority_station,
         dict(arrival_rates=[2.0, 3.0], service_times=[0.1, 0.1], priorities=[0, 1]),
         checked=("arrival_rates", "service_times", "priorities")),
    Case("priority.open_priority_network", priority.open_priority_network,
         dict(arrival_rates=[2.0, 3.0], service_times=[[0.1, 0.05], [0.1, 0.02]], priorities=[0, 1]),
         checked=("arrival_rates", "priorities")),
    Case("priority.mva_priority", priority.mva_priority,
         dict(service_times=[[0.1, 0.05], [0.1, 0.02]], populations=[2, 2], priorities=[0, 1], think_times=1.0),
         checked=("populations", "priorities", "think_times")),
    Case("routing.routing_visits", routing.routing_visits,
         dict(routing=[[0.0, 1.0], [1.0, 0.0]]), checked=()),
    Case("routing.routed_network", routing.routed_network,
         dict(service_times=[0.1, 0.05], routing=[[0.0, 1.0], [1.0, 0.0]], populations=[3]),
         checked=("service_times", "populations")),
    Case("ctmc.ctmc_steady_state", ctmc.ctmc_steady_state,
         dict(generator=[[-1.0, 1.0], [2.0, -2.0]]), checked=()),
    Case("ctmc.ctmc_transient", ctmc.ctmc_transient,
         dict(generator=[[-1.0, 1.0], [2.0, -2.0]], initial=[1.0, 0.0], times=[0.5, 1.0]), checked=("times",)),
    Case("ctmc.finite_capacity_network", ctmc.finite_capacity_network,
         dict(service_times=[0.1, 0.2], routing=[[0.0, 1.0], [1.0, 0.0]], capacity=[3, 3], population=4),
         checked=("service_times", "capacity", "population")),
    # ------------------------------------------------------------------ hardware: channels
    Case("channels.ChannelLink", channels.ChannelLink,
         dict(protocol="FICON", data_rate=200e6, command_time=1e-4), constructor=True),
    Case("channels.ChannelLink.transfer_time", lambda **kw: ficon().transfer_time(**kw),
         dict(block_size=4096.0), ("block_size",)),
    Case("channels.ChannelLink.demands", lambda **kw: ficon().demands(**kw),
         dict(block_size=4096.0, read_fraction=0.7)),
    Case("channels.ChannelLink.max_io_rate", lambda **kw: ficon().max_io_rate(**kw),
         dict(block_size=4096.0, read_fraction=0.7), ("block_size",)),
    Case("channels.ChannelLink.max_data_rate", lambda **kw: ficon().max_data_rate(**kw),
         dict(block_size=4096.0, read_fraction=0.7), ("block_size",)),
    Case("channels.ChannelLink.from_catalog", channels.ChannelLink.from_catalog,
         dict(name="FICON-2G", command_time=1e-4), checked=("command_time",), constructor=True),
    Case("channels.ChannelLink.data_path_demand", lambda **kw: ficon().data_path_demand(**kw),
         dict(block_size=4096.0), ("block_size",)),
    # a card with no command-mode figure has command_io_rate = nan by design ("not recorded")
    Case("channels.ChannelCard", channels.ChannelCard,
         dict(name="card", max_link_rate=8e9, command_io_rate=20000.0, zhpf_io_rate=52000.0, ports=2),
         checked=("max_link_rate", "ports"), constructor=True),
    Case("channels.ChannelCard.from_catalog", channels.ChannelCard.from_catalog,
         dict(name="FICON-Express8S"), checked=(), constructor=True),
    Case("channels.ChannelCard.link", lambda **kw: channels.ChannelCard.from_catalog("FICON-Express8S").link(**kw),
         dict(link_rate=8e9, command_time=1e-4), checked=("link_rate", "command_time"), constructor=True),
    Case("channels.ChannelSubsystem", channels.ChannelSubsystem,
         dict(link=ficon(), paths=2, devices=16), checked=("paths", "devices"), constructor=True),
    Case("channels.ChannelSubsystem.max_io_rate", lambda **kw: css().max_io_rate(**kw),
         dict(block_size=4096.0), ("block_size",)),
    Case("channels.ChannelSubsystem.max_data_rate", lambda **kw: css().max_data_rate(**kw),
         dict(block_size=4096.0), ("block_size",)),
    Case("channels.ChannelSubsystem.response_time", lambda **kw: css().response_time(**kw),
         dict(io_rate=500.0, block_size=4096.0, disconnect_time=0.001), ("io_rate", "block_size"),
         overload=dict(io_rate=1e5)),
    Case("channels.ChannelSubsystem.throughput", lambda **kw: css().throughput(**kw),
         dict(population=4, block_size=4096.0, disconnect_time=0.001), ("population", "block_size")),
    Case("channels.ChannelSubsystem.device_busy_time", lambda **kw: css().device_busy_time(**kw),
         dict(io_rate=500.0, block_size=4096.0, disconnect_time=0.001)),
    Case("channels.ChannelSubsystem.closed_iosq_time", lambda **kw: css().closed_iosq_time(**kw),
         dict(population=40, io_rate=500.0, block_size=4096.0, disconnect_time=0.001, iosq_time=0.0)),
    Case("channels.ChannelSubsystem.max_device_io_rate", lambda **kw: css().max_device_io_rate(**kw),
         dict(block_size=4096.0, disconnect_time=0.001)),
    # ------------------------------------------------------------------ hardware: storage
    Case("storage.Disk", storage.Disk, dict(rotation_rate=4002 / 60, media_rate=2.2e6, cylinders=1962,
                                            seek_short=(3.24e-3, 0.4e-3), seek_long=(8e-3, 0.008e-3),
                                            seek_boundary=383, write_settle=0.2e-3, track_switch=0.5e-3),
         checked=("rotation_rate", "media_rate", "cylinders", "seek_boundary", "write_settle", "track_switch"),
         constructor=True),
    Case("storage.Disk.from_specs", storage.Disk.from_specs,
         dict(rotation_rate=250.0, media_rate=60e6, cylinders=10000, average_seek=3.5e-3,
              full_stroke_seek=8e-3, track_seek=0.4e-3), constructor=True),
    Case("storage.Disk.from_stroke", storage.Disk.from_stroke,
         dict(rotation_rate=90.0, media_rate=50e6, cylinders=10000, full_stroke_seek=20e-3, track_seek=1e-3),
         constructor=True),
    Case("storage.Disk.seek_time", lambda **kw: disk().seek_time(**kw), dict(distance=100.0), ("distance",),
         batch={"distance": [1.0, 100.0, 5000.0]}),
    Case("storage.Disk.average_seek_time", lambda **kw: disk().average_seek_time(**kw), {}),
    Case("storage.Disk.average_write_seek_time", lambda **kw: disk().average_write_seek_time(**kw), {}),
    Case("storage.Disk.transfer_time", lambda **kw: disk().transfer_time(**kw), dict(size=4096.0), ("size",)),
    Case("storage.Disk.service_time", lambda **kw: disk().service_time(**kw), dict(size=4096.0), ("size",)),
    Case("storage.Disk.service_scv", lambda **kw: disk().service_scv(**kw), dict(size=4096.0), ("size",)),
    Case("storage.RaidRank", storage.RaidRank, dict(disk=disk(), width=8), checked=("width",), constructor=True),
    Case("storage.RaidRank.backend_accesses", lambda **kw: storage.RaidRank(disk()).backend_accesses(**kw),
         dict(op="random_write"), checked=()),
    Case("storage.RaidRank.disk_seconds", lambda **kw: storage.RaidRank(disk()).disk_seconds(**kw),
         dict(op="random_read", size=4096.0), ("size",)),
    Case("storage.RaidRank.capacity", lambda **kw: storage.RaidRank(disk()).capacity(**kw),
         dict(op="random_read", size=4096.0), ("size",)),
    Case("storage.StorageServer", storage.StorageServer,
         dict(name="toy", cache_size=32 * 2 ** 30, nvs_size=2 ** 30, disk=disk(), disk_count=128, rank_width=8,
              link_rate=2e9), checked=("cache_size", "nvs_size", "disk_count", "rank_width", "link_rate"),
         constructor=True),
    Case("storage.StorageServer.from_catalog", storage.StorageServer.from_catalog,
         dict(name="ESS-800", links=4), checked=("links",), constructor=True),
    Case("storage.StorageServer.demands", lambda **kw: server().demands(**kw),
         dict(op="random_read", size=4096.0, hit_ratio=0.5)),
    Case("storage.StorageServer.saturation", lambda **kw: server().saturation(**kw),
         dict(op="random_read", size=4096.0, hit_ratio=0.5), ("size",)),
    Case("storage.StorageServer.open_load", lambda **kw: server().open_load(**kw),
         dict(arrival_rate=500.0, op="random_read", size=4096.0, hit_ratio=0.5), ("arrival_rate", "size"),
         overload=dict(arrival_rate=1e6)),
    Case("storage.StorageServer.closed_load", lambda **kw: server().closed_load(**kw),
         dict(threads=8, op="random_read", size=4096.0, hit_ratio=0.5), ("threads", "size"),
         batch={"threads": [1, 8, 32]}),
    Case("storage.StorageServer.hit_ratio", lambda **kw: server().hit_ratio(**kw),
         dict(footprint=64 * 2 ** 30, block_size=4096.0, skew=0.8), checked=("footprint", "block_size")),
    Case("storage.lru_hit_ratio", storage.lru_hit_ratio,
         dict(cache_size=32 * 2 ** 30, footprint=64 * 2 ** 30, block_size=4096.0, skew=0.8),
         checked=("cache_size", "footprint", "block_size")),
    Case("storage.StorageServer.nvs", lambda **kw: server().nvs(**kw),
         dict(write_rate=500.0, size=4096.0), ("write_rate", "size"), batch={"write_rate": [100.0, 500.0, 2000.0]}),
    # ------------------------------------------------------------------ hardware: crypto, network, dasd
    Case("crypto.CryptoAccelerator", crypto.CryptoAccelerator, dict(name="CEX2A", rsa_service_time=2e-4, adapters=2),
         checked=("rsa_service_time", "adapters"), constructor=True),
    Case("crypto.CryptoAccelerator.from_catalog", crypto.CryptoAccelerator.from_catalog,
         dict(name="CEX2A", rsa_service_time=1e-4, features=2), checked=("rsa_service_time", "features"),
         constructor=True),
    Case("crypto.CipherCost", crypto.CipherCost, dict(name="AES", cpu_per_byte=2e-9), constructor=True),
    Case("crypto.CipherCost.rate", lambda **kw: SW.rate(**kw), dict(cpus=2)),
    Case("crypto.SSLServer", crypto.SSLServer, dict(cpus=2, handshake_cpu=0.3e-3, rsa_cpu=2e-3, cipher=SW),
         constructor=True),
    Case("crypto.SSLServer.service_demands", lambda **kw: ssl_server().service_demands(**kw),
         dict(payload_bytes=32768.0, handshakes=1.0)),
    Case("crypto.SSLServer.throughput", lambda **kw: ssl_server().throughput(**kw),
         dict(connections=8, payload_bytes=32768.0), ("connections",), batch={"connections": [1, 8, 32]}),
    Case("network.NetworkAdapter", network.NetworkAdapter, dict(name="OSA", link_rate=1e9, mtu=1500.0),
         constructor=True),
    Case("network.NetworkAdapter.from_catalog", network.NetworkAdapter.from_catalog,
         dict(name="OSA-Express2 1GbE", per_packet_time=5e-6), checked=("per_packet_time",), constructor=True),
    Case("network.NetworkAdapter.wire_time", lambda **kw: net_path().adapter.wire_time(**kw),
         dict(payload=1000.0), ("payload",), batch={"payload": [100.0, 1000.0, 9000.0]}),
    Case("network.StackCost", network.StackCost, dict(per_message=2e-5, per_packet=5e-6, per_byte=5e-9),
         constructor=True),
    Case("network.Workload", network.Workload, dict(name="rr", request_size=200.0, response_size=1000.0),
         constructor=True),
    Case("network.NetworkPath", network.NetworkPath,
         dict(adapter=network.NetworkAdapter("OSA", 1e9, 1500.0), stack=network.StackCost(2e-5, 5e-6, 5e-9),
              cpus=2), checked=("cpus",), constructor=True),
    Case("network.NetworkPath.service_demands", lambda **kw: net_path().service_demands(**kw),
         dict(workload=RR), checked=()),
    Case("network.NetworkPath.segment_demands", lambda **kw: net_path().segment_demands(**kw), {}),
    Case("network.NetworkPath.streaming_capacity", lambda **kw: net_path().streaming_capacity(**kw),
         dict(sessions=4)),
    Case("network.NetworkPath.round_trip", lambda **kw: net_path().round_trip(**kw),
         dict(workload=RR, sessions=4, think_time=0.01), ("sessions",), batch={"sessions": [1, 4, 16]}),
    Case("network.NetworkPath.streaming", lambda **kw: net_path().streaming(**kw), dict(sessions=4, window=65536),
         ("window",), batch={"window": [8192.0, 65536.0, 262144.0]}),
    Case("network.protocol_efficiency", network.protocol_efficiency, dict(mtu=1500.0), ("mtu",),
         batch={"mtu": [576.0, 1500.0, 8992.0]}),
    Case("network.segments", network.segments, dict(size=10000.0, mss=1448.0), ("size",)),
    Case("dasd.DasdVolume", dasd.DasdVolume, dict(weights=[0.6, 0.4], medians=[2e-3, 10e-3], sigmas=[0.3, 0.5]),
         checked=("medians", "sigmas"), constructor=True),
    Case("dasd.DasdVolume.predict", lambda **kw: volume().predict(**kw),
         dict(edges=[0.0, 1e-3, 2e-3, 4e-3, 8e-3, 16e-3, 32e-3]), checked=("edges",)),
    Case("dasd.DasdVolume.little", lambda **kw: volume().little(**kw), {}),
    Case("dasd.lognormal_mixture_cdf", dasd.lognormal_mixture_cdf,
         dict(t=2e-3, weights=[0.6, 0.4], medians=[2e-3, 10e-3], sigmas=[0.3, 0.5]), ("t",),
         batch={"t": [1e-3, 2e-3, 5e-3]}, checked=("t", "medians", "sigmas"), signed=("t",)),
    Case("dasd.binned_probabilities", dasd.binned_probabilities, dict(cdf_at_edges=[0.0, 0.3, 0.8, 1.0])),
    # ------------------------------------------------------------------ kernel: hypervisor
    Case("hypervisor.lpar_dispatch", hypervisor.lpar_dispatch,
         dict(physical_cpus=4, weights=[60.0, 40.0], logical_cpus=[4, 4], demand=[3.0, 3.0]),
         checked=("physical_cpus", "weights", "demand")),
    Case("hypervisor.idle_guest_overhead", hypervisor.idle_guest_overhead, dict(guests=100), ("guests",),
         batch={"guests": [10, 100, 300]}, overload=dict(guests=10 ** 6)),
    Case("hypervisor.holder_preemption", hypervisor.holder_preemption, dict(overcommit=2.0, hold_time=1e-5),
         ("overcommit",), batch={"overcommit": [1.0, 2.0, 4.0]}),
    Case("hypervisor.spinlock_yield", hypervisor.spinlock_yield, dict(overcommit=2.0, hold_time=1e-5),
         ("overcommit",), batch={"overcommit": [1.0, 2.0, 4.0]}),
    Case("hypervisor.preempted_hold_time", hypervisor.preempted_hold_time, dict(overcommit=2.0, hold_time=1e-5),
         ("overcommit",), batch={"overcommit": [1.0, 2.0, 4.0]}),
    Case("hypervisor.cp_overhead", hypervisor.cp_overhead, dict(ios=2.0, wakeups=3.0, cpu_time=1e-3, overcommit=2.0),
         ("ios",), batch={"ios": [0.0, 1.0, 2.0]}),
    Case("hypervisor.CpCosts", hypervisor.CpCosts, dict(time_per_io=25e-6, time_per_dispatch=10e-6),
         constructor=True),
    Case("hypervisor.guest_cpu_accounting", hypervisor.guest_cpu_accounting, dict(runnable=[1.0, 0.5], capacity=1.0),
         ("capacity",), batch={"capacity": [0.5, 1.0, 2.0]}),
    Case("hypervisor.vcpu_dispatch_steal", hypervisor.vcpu_dispatch_steal,
         dict(virtual_cpus=4, physical_cpus=4, dedicated_busy=0.5), ("dedicated_busy",),
         batch={"dedicated_busy": [0.25, 0.5, 1.0]}),
    # ------------------------------------------------------------------ kernel: I/O path
    Case("iopath.plug_merge", iopath.plug_merge, dict(arrival_rate=1000.0, plug_delay=3e-3), ("arrival_rate",),
         batch={"arrival_rate": [100.0, 1000.0, 5000.0]}),
    Case("iopath.unplug_throughput", iopath.unplug_throughput, dict(population=16, devices=8, scope="global"),
         ("population",), batch={"population": [1, 16, 64]}),
    Case("iopath.elevator_seek_time", iopath.elevator_seek_time, dict(disk=disk(), queue_depth=4.0),
         ("queue_depth",), batch={"queue_depth": [1.0, 4.0, 16.0]}),
    Case("iopath.IODevice", iopath.IODevice, dict(spindles=8, service_time=5e-3, near_service_time=1e-3),
         constructor=True),
    Case("iopath.IODevice.single_disk", iopath.IODevice.single_disk, dict(disk=disk(), request_size=4096.0),
         constructor=True),
    Case("iopath.DriveReadAhead", iopath.DriveReadAhead,
         dict(segments=3, segment_size=131072.0, interface_rate=160e6, minimum_prefetch=0.0), constructor=True),
    Case("iopath.DriveReadAhead.requests_per_segment", lambda **kw: iopath.DriveReadAhead().requests_per_segment(**kw),
         dict(request_size=4096.0), constructor=True),
    Case("iopath.IODevice.storage_server", iopath.IODevice.storage_server,
         dict(server=server(), request_size=4096.0, hit_ratio=0.3), constructor=True),
    Case("iopath.IODevice.service", lambda **kw: io_device().service(**kw), dict(queue_depth=4.0),
         ("queue_depth",), batch={"queue_depth": [1.0, 4.0, 16.0]}),
    Case("iopath.scheduler_throughput", iopath.scheduler_throughput,
         dict(scheduler="anticipatory", processes=8, device=io_device(), think_time=1e-3), ("processes",),
         batch={"processes": [1, 8, 32]}, checked=("processes", "think_time")),
    Case("iopath.anticipation_hold", iopath.anticipation_hold, dict(think_time=1e-3, antic_expire=6e-3),
         ("think_time",), batch={"think_time": [1e-4, 1e-3, 1e-2]}),
    Case("iopath.direct_io", iopath.direct_io, dict(request_size=65536.0, device_time=2e-3), ("request_size",),
         batch={"request_size": [4096.0, 65536.0, 1048576.0]}),
    Case("iopath.FileSystem", iopath.FileSystem,
         dict(name="ext3", journaling="metadata", metadata_writes=2.0, journal_writes=1.0, commit_writes=0.2,
              cpu_time=1e-4), constructor=True),
    Case("iopath.dbench_throughput", iopath.dbench_throughput, dict(fs=ext3(), processes=16), ("processes",),
         batch={"processes": [1, 16, 64]}, checked=("processes",)),
    Case("iopath.recovery_time", iopath.recovery_time, dict(fs=ext3(), fs_size=2 ** 36), ("fs_size",),
         batch={"fs_size": [2.0 ** 30, 2.0 ** 34, 2.0 ** 38]}, checked=("fs_size",)),
    # ------------------------------------------------------------------ kernel: locks
    Case("locks.spinlock", locks.spinlock, dict(cpus=8, think_time=1e-5, hold_time=1e-6), ("cpus",)),
    Case("locks.ticket_lock", locks.ticket_lock, dict(cpus=8, think_time=1e-5, serial_time=1e-6,
                                                      handoff_time=2e-7), ("cpus",)),
    Case("locks.ticket_locks", locks.ticket_locks, dict(cpus=8, think_time=1e-5, serial_time=1e-6,
                                                        handoff_time=2e-7, instances=4), ("cpus",)),
    Case("locks.ticket_lock_probabilities", locks.ticket_lock_probabilities,
         dict(cpus=8, think_time=1e-5, serial_time=1e-6, handoff_time=2e-7)),
    Case("locks.knee_cpus", locks.knee_cpus, dict(think_time=1e-5, serial_time=1e-6), ("think_time",)),
    Case("locks.atomic_update", locks.atomic_update, dict(cpus=8, think_time=1e-5, transfer_time=1e-7),
         ("cpus",)),
    Case("locks.line_saturation_cpus", locks.line_saturation_cpus, dict(transfer_time=1e-7, period=1e-5),
         ("period",), batch={"period": [1e-6, 1e-5, 1e-4]}),
    Case("locks.spin_waste", locks.spin_waste,
         dict(preemption_probability=0.1, hold_wait=1e-6, preemption_delay=5e-3), ("preemption_probability",),
         batch={"preemption_probability": [0.0, 0.1, 0.5]}),
    Case("locks.block_layer_locks", locks.block_layer_locks,
         dict(cpus=8, disks=8, lock_domains=1, think_time=1e-4, hold_time=3e-6, disk_time=5e-3), ("cpus",)),
    Case("locks.big_kernel_lock", locks.big_kernel_lock,
         dict(cpus=8, disks=8, think_time=1e-4, hold_time=3e-6, disk_time=5e-3), ("cpus",)),
    Case("locks.io_request_lock", locks.io_request_lock,
         dict(cpus=8, disks=8, think_time=1e-4, hold_time=3e-6, disk_time=5e-3), ("cpus",)),
    Case("locks.request_queue_locks", locks.request_queue_locks,
         dict(cpus=8, disks=8, think_time=1e-4, hold_time=3e-6, disk_time=5e-3), ("cpus",)),
    Case("locks.anonymous_touch", locks.anonymous_touch, dict(cpus=8, faults=1e5, fault_work=2e-6), ("cpus",)),
    Case("locks.devzero_faults", locks.devzero_faults, dict(cpus=8, fault_work=2e-6), ("cpus",)),
    Case("locks.gettimeofday_slowdown", locks.gettimeofday_slowdown,
         dict(concurrent=8, call_time=1e-6, transfer_time=1e-7), ("concurrent",),
         batch={"concurrent": [1.0, 8.0, 32.0]}),
    # ------------------------------------------------------------------ kernel: memory
    Case("memory.InstructionCosts", memory.InstructionCosts, dict(iske=1e-7, purge=1e-6), constructor=True),
    Case("memory.InstructionCosts.purge_stall", lambda **kw: memory.InstructionCosts().purge_stall(**kw),
         dict(cpus=8), ("cpus",)),
    Case("memory.InstructionCosts.ipte_stall", lambda **kw: memory.InstructionCosts().ipte_stall(**kw),
         dict(cpus=8), ("cpus",)),
    Case("memory.operation_counts", memory.operation_counts, dict(kernel="2.6", mappings=4, searched_ptes=2),
         ("mappings",), batch={"mappings": [1, 4, 16]}),
    Case("memory.mm_overhead", memory.mm_overhead, dict(kernel="2.6", cpus=8), ("cpus",)),
    Case("memory.DbenchMemoryModel", memory.DbenchMemoryModel, dict(kernel="2.6", cpu_time=1e-3, serial_time=1e-5),
         constructor=True),
    Case("memory.DbenchMemoryModel.peak_cpus", lambda **kw: dbench_memory().peak_cpus(**kw), dict(max_cpus=64)),
    Case("memory.DbenchMemoryModel.throughput", lambda **kw: dbench_memory().throughput(**kw), dict(cpus=8),
         ("cpus",)),
    Case("memory.page_table_memory", memory.page_table_memory, dict(buffer_size=2.0 ** 30, processes=64),
         ("processes",), batch={"processes": [1, 64, 512]}),
    Case("memory.sysfs_memory", memory.sysfs_memory, dict(devices=1000, files_per_device=10, bytes_per_file=1500.0),
         ("devices",), batch={"devices": [10, 1000, 20000]}),
    # ------------------------------------------------------------------ kernel: NUMA
    Case("numa.AltixTopology", numa.AltixTopology, dict(cpus=64), constructor=True),
    Case("numa.AltixTopology.routers_between", lambda **kw: numa.AltixTopology(cpus=64).routers_between(**kw),
         dict(i=0, j=20)),
    Case("numa.AltixTopology.routers_from", lambda **kw: numa.AltixTopology(cpus=64).routers_from(**kw),
         dict(node=3)),
    Case("numa.AltixTopology.distance_matrix", lambda **kw: numa.AltixTopology(cpus=64).distance_matrix(**kw), {}),
    Case("numa.NumaLatency", numa.NumaLatency, dict(local=1.7e-7, nearest_ratio=1.9), constructor=True),
    Case("numa.NumaLatency.ratio", lambda **kw: numa.NumaLatency().ratio(**kw), dict(routers=2.0), ("routers",),
         batch={"routers": [0.0, 1.0, 3.0]}),
    Case("numa.NumaLatency.latency", lambda **kw: numa.NumaLatency().latency(**kw), dict(routers=2.0),
         ("routers",), batch={"routers": [0.0, 1.0, 3.0]}),
    Case("numa.latency_ratio_range", numa.latency_ratio_range, dict(cpus=64), ("cpus",),
         batch={"cpus": [16, 64, 256]}),
    Case("numa.memory_access_time", numa.memory_access_time, dict(local_fraction=0.5, cpus=64),
         ("local_fraction",), batch={"local_fraction": [0.0, 0.5, 1.0]}),
    Case("numa.page_cache_placement", numa.page_cache_placement, dict(file_bytes=2.0 ** 30, cpus=64),
         ("file_bytes",), batch={"file_bytes": [2.0 ** 20, 2.0 ** 30, 2.0 ** 34]}),
    Case("numa.PioCosts", numa.PioCosts, dict(round_trip=1.3e-6), constructor=True),
    Case("numa.pio_cost", numa.pio_cost, dict(operation="normal_read", load=0.5), ("load",),
         batch={"load": [0.0, 0.5, 0.9]}),
    Case("numa.dma_buffer_iops", numa.dma_buffer_iops, dict(io_time=1e-5, accesses_per_io=4.0), ("io_time",),
         batch={"io_time": [1e-6, 1e-5, 1e-4]}, checked=("io_time", "accesses_per_io")),
    Case("numa.hugetlb_zeroing", numa.hugetlb_zeroing, dict(cpus=16, region_bytes=2.0 ** 30), ("cpus",),
         batch={"cpus": [1, 16, 64]}),
    # ------------------------------------------------------------------ kernel: versions and scenarios
    Case("versions.kernel_version", versions.kernel_version, dict(name="2.6.10"), checked=()),
    Case("versions.tick_period", versions.tick_period,
         dict(features=versions.kernel_version("2.6.0").features, platform="x86"), checked=()),
    Case("versions.memory_variant", versions.memory_variant,
         dict(features=versions.kernel_version("2.6.10").features), checked=()),
    Case("versions.spinlock_strategy", versions.spinlock_strategy,
         dict(features=versions.kernel_version("2.6.10").features), checked=()),
    Case("versions.KernelCosts", versions.KernelCosts, dict(switch_time=3e-6, fork_time=2e-4), constructor=True),
    Case("versions.WorkloadProfile", versions.WorkloadProfile, dict(name="oltp", clients=20, think_time=0.01),
         constructor=True),
    Case("versions.WorkloadProfile.replace", lambda **kw: workload_profile().replace(**kw), dict(clients=40),
         constructor=True),
    Case("versions.SystemConfig", versions.SystemConfig, dict(cpus=4, disks=8), constructor=True),
    Case("versions.kernel_cpu_time", versions.kernel_cpu_time,
         dict(features=versions.kernel_version("2.6.10").features, workload=workload_profile(),
              system=system_config()), checked=()),
    Case("versions.memory_overhead", versions.memory_overhead,
         dict(features=versions.kernel_version("2.6.10").features, workload=workload_profile(),
              system=system_config()), checked=()),
    Case("versions.compose", versions.compose,
         dict(kernel="2.6.10", workload=workload_profile(), system=system_config(), clients=20), ("clients",),
         batch={"clients": [1, 20, 80]}, checked=("clients",)),
    Case("versions.io_lock_scaling", versions.io_lock_scaling,
         dict(cpus=4, disks=8, workload=workload_profile().replace(io_per_transaction=1.0),
              system=versions.SystemConfig(cpus=1, disk_time=0.0)), ("cpus", "disks"),
         batch={"cpus": [2, 4, 8], "disks": [1, 4, 16]}, checked=("cpus", "disks")),
    Case("versions.compose_many", versions.compose_many,
         dict(compositions=[dict(kernel="2.6.10", workload=workload_profile(), system=system_config(), clients=20),
                            dict(kernel="2.4.21", workload=workload_profile(), system=system_config(),
                                 clients=[1, 20], cpus=[1, 2])]), checked=()),
    Case("attribution.feature_attribution", attribution.feature_attribution,
         dict(old="2.4.21", new="2.6.10", workload=workload_profile(), system=system_config(), clients=20),
         checked=()),
    Case("scenario.kernel_version", scenario.kernel_version, dict(name="2.6.10"), checked=()),
    Case("scenario.Hardware", scenario.Hardware, dict(processor="z990", cpus=4), constructor=True),
    Case("scenario.Hardware.from_dict", scenario.Hardware.from_dict, dict(m={"processor": "z990", "cpus": 4}),
         checked=(), constructor=True),
    Case("scenario.Kernel", scenario.Kernel, dict(version="2.6.10"), checked=(), constructor=True),
    Case("scenario.Kernel.from_dict", scenario.Kernel.from_dict, dict(m={"version": "2.6.10"}), checked=(),
         constructor=True),
    Case("scenario.Hypervisor", scenario.Hypervisor, dict(type="zvm", guests=4, active_guests=2),
         checked=("guests", "active_guests"), constructor=True),
    Case("scenario.Hypervisor.from_dict", scenario.Hypervisor.from_dict, dict(m={"type": "none"}), checked=(),
         constructor=True),
    Case("scenario.Workload", scenario.Workload, dict(kind="oltp", clients=20), constructor=True),
    Case("scenario.Workload.from_dict", scenario.Workload.from_dict, dict(m={"kind": "oltp"}), checked=(),
         constructor=True),
    Case("scenario.Scenario.from_dict", scenario.Scenario.from_dict, dict(mapping=SCENARIO), checked=(),
         constructor=True),
    Case("scenario.Scenario.predict", lambda **kw: scenario.Scenario.from_dict(SCENARIO).predict(**kw), {}),
    Case("scenario.predict", scenario.predict, dict(scenario=SCENARIO), checked=()),
    Case("scenario.Scenario.iosq_time", lambda **kw: scenario.Scenario.from_dict(SCENARIO_PAV).iosq_time(**kw),
         dict(io_rate=100.0), vector=("io_rate",), batch={"io_rate": [10.0, 50.0, 100.0]},
         overload=dict(io_rate=1e6)),
    # ------------------------------------------------------------------ model parameter dataclasses
    Case("channels.ChannelParameters", channels.ChannelParameters, dict(host_time=1e-4, multipath_cpu_time=2e-5),
         constructor=True),
    Case("network.NetworkCosts", network.NetworkCosts, dict(cpu_per_byte=1e-9, cpu_per_packet=1e-5),
         constructor=True),
    Case("crypto.SSLCosts", crypto.SSLCosts, dict(rsa_cpu=2e-3, handshake_cpu=3e-4), constructor=True),
    Case("storage.ScsiPathParameters", storage.ScsiPathParameters, dict(scsi_outstanding=2.0), constructor=True),
    Case("storage.DriveMechanics", storage.DriveMechanics, dict(average_seek=3.3e-3, revolution_time=4e-3),
         constructor=True),
    Case("storage.F20DriveMechanics", storage.F20DriveMechanics,
         dict(f20_average_seek=4.9e-3, f20_revolution_time=6e-3), constructor=True),
    Case("locks.LockCosts", locks.LockCosts, dict(transfer_time=1e-6, conflict_probability=0.1), constructor=True),
    Case("locks.SpinlockHandoff", locks.SpinlockHandoff, dict(spinlock_handoff=1e-7), constructor=True),
    Case("hypervisor.HypervisorCosts", hypervisor.HypervisorCosts, dict(hz=100.0, cost_per_tick=2e-5),
         constructor=True),
    Case("numa.NumaCosts", numa.NumaCosts, dict(local_latency=2e-7, line_size=128.0), constructor=True),
    Case("iopath.IOSchedulerCosts", iopath.IOSchedulerCosts, dict(dss_antic_expire=6e-3), constructor=True),
    Case("memory.DbenchMemoryCosts", memory.DbenchMemoryCosts, dict(cpu_time=2e-5, ipte_relative=0.05),
         constructor=True),
]

#: Public callables that are not model functions, with the reason.
EXEMPT = {
    "channels.ChannelCard.rate_floor": "a catalog look-up by card name returning (rate, source card); no "
                                               "numeric input (an unknown name is refused by the catalog)",
    # result types: built by the functions above, whose to_frame() the contract test calls
    "*Result": "a result type, checked through the function that returns it",
    "*Result.*": "a result type's own method (to_frame, parameters), called by test_result_is_named...",
    "channels.IOResponse": "the result of ChannelSubsystem.response_time",
    "dasd.DasdPrediction*": "the result of DasdVolume.predict",
    "memory.OperationCounts": "the result of operation_counts (counts per operation), checked through it",
    "memory.DbenchMemoryModel.demands": "internal step of DbenchMemoryModel.throughput (its pair of demand arrays),"
                                        " covered through it",
    "dasd.LittleCheck": "the result of DasdVolume.little",
    "attribution.FeatureAttribution": "the result of feature_attribution, checked through it",
    "attribution.FeatureAttribution.*": "the result's own methods (to_frame), called by test_result_is_named...",
    "versions.SystemResults": "the result of compose_many (a sequence of SystemResult), checked through it",
    "versions.SystemResults.*": "the sequence's own methods (to_frame), called by test_result_is_named...",
    "versions.Feature": "a documented kernel feature (text and provenance), no numbers to check",
    "versions.KernelVersion": "a named feature set built by kernel_version(), no numbers to check",
    "versions.KernelVersion.has": "a set-membership query on feature names",
    "scenario.Scenario": "built by Scenario.from_dict, whose checks the registry runs",
    "scenario.Scenario.to_dict": "serialises a checked scenario, no numeric input",
    "scenario.Scenario.profile": "internal step of Scenario.predict, covered through it",
    "scenario.Scenario.processor": "a catalog lookup of a checked scenario, no numeric input",
    "scenario.Scenario.system": "internal step of Scenario.predict, covered through it",
    "scenario.Scenario.assumed": "names of parameters (text), no numeric input",
    "scenario.Scenario.used_parameters": "names of parameters (text), no numeric input",
    "scenario.Scenario.channel_parameters": "names of parameters (text), no numeric input",
    "scenario.Scenario.channel_link": "a ChannelLink built from a checked scenario, no numeric input (its "
                                      "constructor is checked as channels.ChannelLink)",
    "scenario.Scenario.channel_subsystem": "a ChannelSubsystem built from a checked scenario, no numeric input (its "
                                           "constructor is checked as channels.ChannelSubsystem)",
    "scenario.Scenario.parameter_ranges": "the declared ranges of the used parameters, no input",
    "scenario.Scenario.with_values": "a scenario with replaced parameter values: checked by Scenario.predict",
    "scenario.Scenario.draws": "parameter draws (a dict of arrays, not a model result); its count is checked in "
                               "tests/test_uncertainty.py",
    "scenario.Scenario.sampled": "the draws' predictions stacked (an array for Scenario.predict's intervals); "
                                 "covered through predict(samples=) in tests/test_uncertainty.py",
    "scenario.Scenario.model_error_factors": "random factors of the store's ModelError (draws, not a model "
                                             "result); their use is tested in tests/test_uncertainty.py",
    "scenario.Scenario.model_errors": "the store's ModelError records of the fits a prediction rests on (records, "
                                      "not a model result); the rule is tested in tests/test_uncertainty.py",
    "scenario.Scenario.component_error_effects": "log ratios of Scenario.predict at scaled parameters (checked "
                                                 "there); tested against X = 1/t's exact -e and a saturated "
                                                 "point in tests/test_uncertainty.py",
    "scenario.Scenario.headline": "the name of an output column (text), no numeric input",
    "scenario.Scenario.model_error": "the store's ModelError of the composition's area (a record, not a model "
                                     "result); its use is tested in tests/test_uncertainty.py",
    "scenario.Scenario.sensitivity": "a tornado table over the used parameters (a DataFrame of named rows); tested "
                                     "by hand in tests/test_uncertainty.py",
    "versions.calibrated_costs": "reads the parameter store: no numeric input",
    "catalog.*": "reads the hardware catalog (data access, checked in test_hw_catalog), not a model",
    "symbolic.*": "exact SymPy expressions of the formulas, not numeric models",
    "ctmc.finite_capacity_generator": "builds the sparse generator of finite_capacity_network (a matrix, not a"
                                      " model result); its inputs are checked through finite_capacity_network",
    "multiclass.amva_multiserver_residence": "internal step of amva(multiserver=...) (one residence-time update),"
                                             " covered through amva",
    "versions.format_parameters": "formats a parameter mapping as text (the Scenario's text column), no model",
    # builders of a model parameter dataclass: they pass its checked fields to a component
    # (or a function) whose own case checks the numeric input
    "channels.ChannelParameters.*": "builds ChannelLink / ChannelSubsystem from the checked fields",
    "storage.F20DriveMechanics.disk": "builds Disk.from_specs from the checked fields and the catalog",
    "network.NetworkCosts.*": "builds StackCost / picks an adapter's per-packet time from the checked fields",
    "crypto.SSLCosts.server": "builds SSLServer from the checked fields",
    "numa.NumaCosts.*": "builds NumaLatency / PioCosts, or calls dma_buffer_iops, from the checked fields",
    "memory.DbenchMemoryCosts.*": "picks a kernel's serial time / derives the IPTE costs from the checked fields",
    "multiclass.mixed_multiserver": "internal solver mixed_network hands multi-server networks to (returns the"
                                    " fields of MixedNetworkResult), covered through mixed_network",
}


def covered_names() -> set[str]:
    """Names the registry covers, as ``module.callable`` or ``module.Class.method``."""
    return {c.name for c in CASES}


def by_name() -> dict[str, Case]:
    return {c.name: c for c in CASES}


def batch_values(case: Case, arg: str):
    """Three sane values of a vector argument (the registry's, else the shared table's)."""
    if arg in case.batch:
        return case.batch[arg]
    if arg in B:
        return B[arg]
    base = case.args[arg]
    return [base * 0.5, base, base * 2.0]


