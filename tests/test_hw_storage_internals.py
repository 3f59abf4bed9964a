"""Storage-server internals: RAID-10 ranks, device adapters, cluster processors, cache bandwidth,
NVS mirroring, and the cache hit ratio as a function of cache size and footprint.

Expected values are hand computations written out in each test (bottleneck law, Lazowska et al.
1984 §5.2), Che's approximation in its closed uniform case, and a seeded LRU simulation with a
confidence interval.
"""
import collections
import math

import numpy as np
import pytest

from zmodel.hardware.storage import Disk, RaidRank, StorageServer, lru_hit_ratio

MIB = 2 ** 20
# average seek 3.5 ms (from_specs reproduces it exactly), 15,000 rpm: latency 2 ms, 75 MB/s media
DISK = Disk.from_specs(250.0, 75e6, 50000, 3.5e-3, 7.5e-3, 0.3e-3)
RANDOM_4K = 3.5e-3 + 2e-3 + 4096 / 75e6          # 5.5546133 ms per random 4 KiB access


def server(**kw):
    args = dict(name="toy", cache_size=32 * 2 ** 30, nvs_size=2 ** 30, disk=DISK, disk_count=128,
                rank_width=8, link_rate=2e9, links=32, host_adapters=8)
    args.update(kw)
    return StorageServer(**args)


# ---------------------------------------------------------------- RAID-10
def test_raid10_backend_accesses():
    r10 = RaidRank(DISK, width=8, level="RAID-10")
    assert [r10.backend_accesses(op) for op in
            ("random_read", "random_write", "sequential_read", "sequential_write")] == [1, 2, 1, 2]
    assert r10.data_disks == 4 and RaidRank(DISK, 8).data_disks == 7


def test_raid10_doubles_random_write_capacity_of_raid5():
    """128 disks: RAID-5 128 / (4 x 5.5546 ms) = 5760.98/s; RAID-10 128 / (2 x 5.5546 ms) = 11521.96/s."""
    r5 = server().saturation("random_write", 4096)
    r10 = server(raid_level="RAID-10").saturation("random_write", 4096)
    assert r5.backend_limit == pytest.approx(128 / (4 * RANDOM_4K)) == pytest.approx(5760.98, rel=1e-6)
    assert r10.backend_limit == pytest.approx(11521.96, rel=1e-6)


# ---------------------------------------------------------------- sequential read vs write
def test_sequential_read_and_write_saturate_at_their_own_rates():
    """4 device adapters x 250 MB/s, cache 3 GB/s, mirroring 0.5 GB/s, 1 MiB requests.

    read : DA 1 x size -> 1000 MB/s; cache 2 x size -> 1500 MB/s; links 32 x 200 MB/s = 6400 MB/s;
           disks 128 x 75 MB/s = 9600 MB/s                          => 1000 MB/s, device adapters
    write: DA 8/7 x size -> 875 MB/s; cache 2 x size -> 1500 MB/s; mirror 1 x size -> 500 MB/s
                                                                    => 500 MB/s, mirror
    write without mirroring                                         => 875 MB/s, device adapters
    """
    s = server(device_adapters=4, device_adapter_rate=250e6, cache_bandwidth=3e9, mirror_rate=0.5e9)
    rd, wr = s.saturation("sequential_read", MIB), s.saturation("sequential_write", MIB)
    assert (rd.bottleneck, rd.max_data_rate) == ("device_adapters", pytest.approx(1000e6))
    assert rd.cache_limit * MIB == pytest.approx(1500e6)
    assert (wr.bottleneck, wr.max_data_rate) == ("mirror", pytest.approx(500e6))
    plain = server(device_adapters=4, device_adapter_rate=250e6, cache_bandwidth=3e9, mirror_rate=0.5e9,
                   nvs_mirroring=False).saturation("sequential_write", MIB)
    assert (plain.bottleneck, plain.max_data_rate) == ("device_adapters", pytest.approx(875e6))


def test_internal_path_carries_reads_and_writes_alike():
    """Internal data path 500 MB/s, mirroring 350 MB/s, 1 MiB requests (links 6400 MB/s, disks 9600 MB/s).

    read : internal 1 x size -> 500 MB/s                                   => 500 MB/s, internal
    write: internal 1 x size -> 500 MB/s; mirror 1 x size -> 350 MB/s      => 350 MB/s, mirror
    write without mirroring                                                => 500 MB/s, internal
    4 KiB random read hits: 500e6 / 4096 = 122,070.3/s (links 6400e6 / 4096 = 1,562,500/s)
    """
    s = server(internal_rate=500e6, mirror_rate=350e6)
    rd, wr = s.saturation("sequential_read", MIB), s.saturation("sequential_write", MIB)
    assert (rd.bottleneck, rd.max_data_rate) == ("internal", pytest.approx(500e6))
    assert rd.internal_limit * MIB == pytest.approx(500e6) and wr.internal_limit * MIB == pytest.approx(500e6)
    assert (wr.bottleneck, wr.max_data_rate) == ("mirror", pytest.approx(350e6))
    plain = server(internal_rate=500e6, mirror_rate=350e6, nvs_mirroring=False).saturation("sequential_write", MIB)
    assert (plain.bottleneck, plain.max_data_rate) == ("internal", pytest.approx(500e6))
    hits = s.saturation("random_read", 4096, hit_ratio=1.0)
    assert (hits.bottleneck, hits.max_io_rate) == ("internal", pytest.approx(500e6 / 4096))
    # closed load with many threads and the NVS destage respect the bound too
    assert s.closed_load(64, "sequential_read", MIB).data_rate == pytest.approx(500e6)
    assert server(internal_rate=500e6).nvs(10.0, MIB, "sequential_write").destage_rate == pytest.approx(500e6 / MIB)


def test_cache_bandwidth_counts_staging_on_misses():
    """Random 4 KiB reads, hit ratio 0.25, cache 1 GB/s: (1 + 0.75) x 4096 B per read -> 139508.9/s."""
    s = server(cache_bandwidth=1e9)
    sat = s.saturation("random_read", 4096, hit_ratio=0.25)
    assert sat.cache_limit == pytest.approx(1e9 / (1.75 * 4096))


def test_cluster_processors_bound_cache_hits():
    """Two clusters at 25 us per request: 2 / 25e-6 = 80,000 read hits/s (links allow 1.56 M/s)."""
    sat = server(cluster_time=25e-6).saturation("random_read", 4096, hit_ratio=1.0)
    assert (sat.bottleneck, sat.max_io_rate) == ("clusters", pytest.approx(80000))
    # the DS8300 vs DS8100 statement is a ratio of cluster capacity: twice the processors, twice the hits
    four = server(cluster_time=25e-6, clusters=4).saturation("random_read", 4096, hit_ratio=1.0)
    assert four.max_io_rate / sat.max_io_rate == pytest.approx(2.0)


def test_new_limits_default_to_not_limiting():
    sat = server().saturation("sequential_write", MIB)
    assert math.isinf(sat.device_adapter_limit) and math.isinf(sat.cluster_limit)
    assert math.isinf(sat.cache_limit) and math.isinf(sat.mirror_limit) and math.isinf(sat.internal_limit)
    # links: 32 x 0.8 x 2e9 / 8 = 6400 MB/s; disks 128 x 75e6 x 7/8 = 8400 MB/s
    assert (sat.bottleneck, sat.max_data_rate) == ("links", pytest.approx(6400e6))


def test_closed_and_open_load_respect_the_mirror_bound():
    s = server(mirror_rate=0.5e9)
    closed = s.closed_load(64, "sequential_write", MIB)
    assert closed.data_rate == pytest.approx(500e6)          # many threads: the mirror path binds
    opened = s.open_load(600.0, "sequential_write", MIB)      # 600 x 1 MiB = 629 MB/s > 500 MB/s
    assert math.isinf(opened.response_time) and opened.throughput == pytest.approx(500e6 / MIB)
    assert math.isfinite(s.open_load(400.0, "sequential_write", MIB).response_time)


def test_nvs_destage_rate_bounded_by_device_adapters():
    """Random 4 KiB writes, RAID-5 moves 4 x 4096 = 16384 B per write through the device adapters.

    2 DAs of 100 MB/s: 2e8 / 16384 = 12207.03 writes/s, above the disks' 5760.98/s: disks bind.
    1 DA of 10 MB/s: 1e7 / 16384 = 610.35 writes/s: the adapter binds.
    """
    assert server(device_adapters=2, device_adapter_rate=100e6).nvs(100.0, 4096).destage_rate == \
        pytest.approx(5760.98, rel=1e-6)
    assert server(device_adapter_rate=10e6).nvs(100.0, 4096).destage_rate == pytest.approx(10e6 / 16384)


# ---------------------------------------------------------------- hit ratio
def test_hit_ratio_uniform_is_cache_over_footprint():
    """Che's fixed point for uniform popularity: N (1 - e^{-T/N}) = C gives h = C / N exactly."""
    assert lru_hit_ratio(8 * 2 ** 30, 32 * 2 ** 30) == pytest.approx(0.25, rel=1e-12)
    assert lru_hit_ratio(3, 10, block_size=1) == pytest.approx(0.3, rel=1e-12)
    assert lru_hit_ratio(2 ** 30, 2 ** 30) == 1.0 and lru_hit_ratio(2 ** 31, 2 ** 30) == 1.0


def test_hit_ratio_grows_with_cache_and_falls_with_footprint():
    sizes = [2 ** k for k in range(28, 36)]
    h = [lru_hit_ratio(c, 2 ** 36, skew=0.9) for c in sizes]
    assert all(a < b for a, b in zip(h, h[1:]))
    s = server(cache_size=16 * 2 ** 30)
    assert s.hit_ratio(64 * 2 ** 30, skew=0.9) > s.hit_ratio(256 * 2 ** 30, skew=0.9)


def test_hit_ratio_agrees_with_seeded_lru_simulation():
    """400 blocks, Zipf 0.8, 40 slots: LRU simulated (seed 12345, 200,000 references after 20,000 warm-up)."""
    rng = np.random.default_rng(12345)
    n, c, s = 400, 40, 0.8
    p = np.arange(1, n + 1, dtype=float) ** -s
    p /= p.sum()
    refs = rng.choice(n, size=220_000, p=p)
    cache = collections.OrderedDict()
    hits = np.zeros(refs.size, dtype=bool)
    for i, r in enumerate(refs):
        if r in cache:
            hits[i] = True
            cache.move_to_end(r)
        else:
            cache[r] = None
            if len(cache) > c:
                cache.popitem(last=False)
    batches = hits[20_000:].reshape(20, -1).mean(axis=1)     # batch means for the interval
    mean, half = batches.mean(), 3 * batches.std(ddof=1) / math.sqrt(batches.size)
    assert abs(lru_hit_ratio(c, n, block_size=1, skew=s) - mean) < half + 0.01   # Che's known bias ~1 %


# ---------------------------------------------------------------- errors
@pytest.mark.parametrize("kwargs, message", [
    (dict(raid_level="RAID-6"), "raid_level must be one of"),
    (dict(raid_level="RAID-10", rank_width=7), "even integer"),
    (dict(cluster_time=-1e-6), "cluster_time"),
    (dict(device_adapters=0), "device_adapters must be a positive integer"),
    (dict(mirror_rate=0.0), "mirror_rate"),
    (dict(internal_rate=-1.0), "internal_rate"),
    (dict(nvs_mirroring="yes"), "nvs_mirroring must be True or False"),
])
def test_server_errors(kwargs, message):
    with pytest.raises(ValueError, match=message):
        server(**kwargs)


@pytest.mark.parametrize("args, message", [
    ((0, 10), "cache_size"), ((1, -1), "footprint"), ((1, 10, 0), "block_size"), ((1, 10, 1, -0.5), "skew"),
])
def test_hit_ratio_errors(args, message):
    with pytest.raises(ValueError, match=message):
        lru_hit_ratio(*args)


# ---------------------------------------------------------------- limits from the catalog
def test_catalog_rows_set_the_internal_limits(tmp_path):
    """A storage_servers.csv row per limit reaches the constructor (SI once, in the catalog).

    The folder is synthetic (values of the test above, not sourced figures): with 4 device
    adapters x 250 MB/s, 3 GB/s cache and 0.5 GB/s mirroring, 1 MiB sequential writes saturate
    at the mirror, 500 MB/s, and reads at the device adapters, 1000 MB/s (hand computation above);
    the shipped catalog sources only the ESS-800's internal path and mirroring (checked at the end).
    """
    import csv

    from zmodel.hardware import catalog
    from zmodel.hardware.storage import StorageServer

    src = catalog.data_folder(None) / "hardware" / "storage_servers.csv"
    with open(src, newline="", encoding="utf-8") as f:
        # the ESS-800's shipped limit rows are replaced by the synthetic ones below
        rows = [r for r in csv.DictReader(f)
                if r["name"] == "ESS-800" and r["parameter"] not in StorageServer.CATALOG_LIMITS]
    extra = [("device_adapters", "4", "count"), ("device_adapter_rate", "250", "MB/s"),
             ("cache_bandwidth", "3", "GB/s"), ("mirror_rate", "500", "MB/s"), ("clusters", "2", "count"),
             ("cluster_time", "50", "us"), ("host_adapter_rate", "10000", "IO/s")]
    for parameter, value, unit in extra:
        rows.append(dict(rows[0], parameter=parameter, value=value, unit=unit, verbatim="", in_documents="false",
                         source="synthetic test row", location="-", notes=""))
    folder = tmp_path / "hardware"
    folder.mkdir()
    with open(folder / "storage_servers.csv", "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    s = StorageServer.from_catalog("ESS-800", data_dir=tmp_path, links=32, host_adapters=16)
    assert (s.device_adapters, s.device_adapter_rate, s.cache_bandwidth, s.mirror_rate) == (4, 250e6, 3e9, 500e6)
    assert s.cluster_time == pytest.approx(50e-6) and s.adapter_rate == 10000
    wr = s.saturation("sequential_write", MIB)
    assert (wr.bottleneck, wr.max_data_rate) == ("mirror", pytest.approx(500e6))
    assert s.saturation("sequential_read", MIB).max_data_rate == pytest.approx(1000e6)
    # the shipped catalog sources two ESS-800 limits (Redbook SG24-7145 p. 48: 'about 500 MB/s for highly
    # sequential reads and about 350 MB/s for sequential writes') and leaves the others at 'not a limit'
    shipped = StorageServer.from_catalog("ESS-800")
    assert (shipped.internal_rate, shipped.mirror_rate) == (500e6, 350e6)
    assert math.isinf(shipped.device_adapter_rate) and math.isinf(shipped.cache_bandwidth)
    for name in ("ESS-F20", "DS8300"):
        other = StorageServer.from_catalog(name)
        assert math.isinf(other.internal_rate) and math.isinf(other.mirror_rate)
