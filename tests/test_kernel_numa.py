"""Altix NUMA models (zmodel.kernel.numa).

Expected values are re-derived by hand here (exact fractions where the model is plain
arithmetic), from the seed's printed numbers (Bryant et al., Proc. Linux Symposium 2004,
seed 003_b2fdde8a1106fead.txt: "512 CPU system ... 512 GB ... only 2 GB of local memory;
less than 0.4% ... local"; "routing bricks ... in system sizes larger than 16 processors";
"128 or more processors a second layer ... subgroups of 32 processors"; Tables 1-4), or
from a seeded simulation with a confidence interval (the sn_mmiob polling loop).
"""
from fractions import Fraction as F

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from zmodel.units import GiB as GIB
from zmodel.kernel.numa import (
    AltixTopology,
    NumaLatency,
    PioCosts,
    dma_buffer_iops,
    hugetlb_zeroing,
    latency_ratio_range,
    memory_access_time,
    page_cache_placement,
    pio_cost,
)

R0, DELTA = F(19, 10), F(8, 15)          # 1.9 at no router, 3.5 at three routers
LAT = NumaLatency(local=100e-9, nearest_ratio=float(R0), per_router_ratio=float(DELTA))


def ratio(h):
    return F(1) if h < 0 else R0 + DELTA * h


# 512 CPUs = 256 nodes seen from node 0: itself, its C-brick partner (0 routers), the other
# 14 nodes of its 32-CPU subgroup (1 router), 240 nodes in other subgroups (3 routers)
CLASSES_512 = {-1: 1, 0: 1, 1: 14, 3: 240}
# 64 CPUs = 32 nodes: partner, 14 in the subgroup, 16 in the other subgroup (2 routers)
CLASSES_64 = {-1: 1, 0: 1, 1: 14, 2: 16}


def mean_ratio(classes, remote_only=False):
    items = {h: c for h, c in classes.items() if not (remote_only and h < 0)}
    return sum(ratio(h) * c for h, c in items.items()) / sum(items.values())


# --------------------------------------------------------------------------- topology
def test_paper_example_512_cpus_512_gb():
    t = AltixTopology(cpus=512, memory_per_node=2 * GIB)
    assert t.nodes == 256 and t.bricks == 128
    assert t.total_memory == 512 * GIB
    assert t.local_memory_fraction < 0.004          # "less than 0.4%"
    assert t.local_memory_fraction == 1 / 256


@pytest.mark.parametrize("cpus,classes", [(512, CLASSES_512), (64, CLASSES_64)])
def test_router_classes(cpus, classes):
    h = AltixTopology(cpus=cpus).routers_from(0)
    assert {int(k): int(v) for k, v in zip(*np.unique(h, return_counts=True))} == classes


def test_router_thresholds_match_the_text():
    sizes = np.arange(4, 513, 2)
    max_h = np.array([AltixTopology(cpus=int(c)).max_routers for c in sizes])
    assert sizes[max_h == 0].max() == 16          # no routing bricks up to 16 processors
    assert sizes[max_h <= 1].max() == 32          # one subgroup of 32 processors
    assert sizes[max_h == 3].min() == 128         # second router layer from 128 processors
    assert np.all(np.diff(max_h) >= 0)


def test_distance_matrix_is_symmetric_with_local_diagonal():
    d = AltixTopology(cpus=128).distance_matrix()
    assert np.array_equal(d, d.T)
    assert np.all(np.diag(d) == -1) and np.all(d[~np.eye(len(d), dtype=bool)] >= 0)


def test_topology_errors():
    with pytest.raises(ValueError, match="cpus must be a multiple of cpus_per_node"):
        AltixTopology(cpus=7)
    with pytest.raises(ValueError, match="cpus must be a positive integer"):
        AltixTopology(cpus=0)
    with pytest.raises(ValueError, match="subgroup_cpus must be a multiple"):
        AltixTopology(subgroup_cpus=30)
    with pytest.raises(ValueError, match="memory_per_node must be positive and finite"):
        AltixTopology(memory_per_node=0)
    with pytest.raises(ValueError, match="node numbers must be below nodes"):
        AltixTopology(cpus=8).routers_between(0, 4)


# --------------------------------------------------------------------------- latency
def test_ratio_is_linear_in_routers_and_one_locally():
    lat = NumaLatency(local=150e-9, nearest_ratio=2.0, per_router_ratio=0.25)
    assert lat.ratio([-1, 0, 1, 2, 3]).tolist() == [1.0, 2.0, 2.25, 2.5, 2.75]
    assert lat.latency(3) == pytest.approx(150e-9 * 2.75, rel=1e-15)


def test_latency_errors():
    with pytest.raises(ValueError, match="nearest_ratio must be >= 1"):
        NumaLatency(nearest_ratio=0.5)
    with pytest.raises(ValueError, match="local must be positive and finite"):
        NumaLatency(local=0.0)
    with pytest.raises(ValueError, match="per_router_ratio must be non-negative and finite"):
        NumaLatency(per_router_ratio=-0.1)
    with pytest.raises(ValueError, match="routers must be an integer >= -1"):
        NumaLatency().ratio(-2)


def test_latency_ratio_range_by_hand():
    r = latency_ratio_range([512, 64, 16], LAT)
    assert r.min_ratio.tolist() == pytest.approx([1.9, 1.9, 1.9], rel=1e-14)
    assert r.max_ratio.tolist() == pytest.approx([float(ratio(3)), float(ratio(2)), float(ratio(0))], rel=1e-14)
    assert r.max_ratio[0] == pytest.approx(3.5, rel=1e-14)     # "varies from 1.9 to 3.5"
    assert r.mean_remote_ratio[0] == pytest.approx(float(mean_ratio(CLASSES_512, True)), rel=1e-14)
    assert r.mean_ratio[1] == pytest.approx(float(mean_ratio(CLASSES_64)), rel=1e-14)


def test_latency_ratio_range_series_and_monotone():
    s = pd.Series([8, 32, 64, 128, 512], index=list("abcde"))
    r = latency_ratio_range(s, LAT)
    assert isinstance(r.max_ratio, pd.Series) and list(r.max_ratio.index) == list("abcde")
    assert np.all(np.diff(r.max_ratio.to_numpy()) >= 0)
    assert np.all(np.diff(r.mean_remote_ratio.to_numpy()) >= 0)
    assert len(r.to_frame()) == 5


def test_memory_access_time_by_hand():
    r = memory_access_time([1.0, 0.25, 0.0], cpus=512, latency=LAT)
    rr = mean_ratio(CLASSES_512, True)
    expect = [1e-7 * float(f + (1 - f) * rr) for f in (F(1), F(1, 4), F(0))]
    assert r.access_time.tolist() == pytest.approx(expect, rel=1e-13)


@settings(max_examples=50, deadline=None)
@given(st.floats(0, 1), st.floats(0, 1), st.sampled_from([4, 16, 64, 256, 512]))
def test_access_time_falls_with_local_fraction(f1, f2, cpus):
    lo, hi = sorted((f1, f2))
    t = memory_access_time([lo, hi], cpus, LAT).access_time
    assert t[1] <= t[0] + 1e-24
    assert LAT.local * (1 - 1e-12) <= t[1] <= LAT.local * 3.5 * (1 + 1e-12)


def test_memory_access_time_errors():
    with pytest.raises(ValueError, match="local_fraction must be a probability"):
        memory_access_time(1.5)
    with pytest.raises(ValueError, match="cpus must be an integer >= 4"):
        memory_access_time(0.5, cpus=2)


# --------------------------------------------------------------------------- page cache
PAGE = 16384


def test_round_robin_spreads_evenly_and_reader_pays_remote_latency():
    pages = 2560 * 256 + 100                     # 100 pages left over: one extra on nodes 0..99
    r = page_cache_placement(pages * PAGE, 512, "round_robin", latency=LAT)
    assert r.local_fraction == pytest.approx(2561 / pages, rel=1e-12)
    assert r.imbalance_pages == pytest.approx(2561 - (2560 * 255 + 99) / 255, rel=1e-12)
    assert 0 <= r.imbalance_pages < 1
    # pages 2561 on nodes 0..99, 2560 elsewhere; node 0 sees its own 2561 locally
    assert r.reader_latency == pytest.approx(1e-7 * float(mean_ratio(CLASSES_512)), rel=1e-4)
    assert r.nodes_filled == 0 and r.spilled_pages == 0


def test_local_placement_fits_on_the_node():
    pages = 1000
    r = page_cache_placement(pages * PAGE, 512, "local", latency=LAT)
    assert r.local_fraction == 1.0 and r.reader_node_pages == pages and r.imbalance_pages == pages
    assert r.reader_latency == pytest.approx(1e-7, rel=1e-14)
    # every other node reads node 0's pages: by symmetry the mean remote ratio of the system
    assert r.sharer_latency == pytest.approx(1e-7 * float(mean_ratio(CLASSES_512, True)), rel=1e-13)


def test_local_placement_spills_to_the_brick_partner_first():
    # 2 GB per node = 131072 pages of 16 KiB; a 3 GB file puts 65536 pages on node 1
    r = page_cache_placement(3 * GIB, 512, "local", latency=LAT)
    assert r.spilled_pages == 65536 and r.nodes_filled == 1
    assert r.reader_latency == pytest.approx(1e-7 * float((2 + R0) / 3), rel=1e-13)


def test_buffer_heads_allocated_locally_unbalance_round_robin():
    # 10 GB / 16 KiB = 655360 pages = 2560 per node; 1000 B of slab per page -> 40000 pages on node 0
    r = page_cache_placement(10 * GIB, 512, "round_robin", slab_bytes_per_page=1000.0)
    assert r.imbalance_pages == pytest.approx(655360 * 1000 / 16384, rel=1e-12) == 40000
    fixed = page_cache_placement(10 * GIB, 512, "round_robin", slab_bytes_per_page=1000.0,
                                 slab_policy="round_robin")
    assert fixed.imbalance_pages == pytest.approx(0.0, abs=1e-9)


def test_page_cache_claims_as_functions_of_nodes():
    cpus = pd.Series([8, 32, 128, 512], index=["4n", "16n", "64n", "256n"])
    file = 3 * GIB                                # bigger than a node's 2 GB
    rr = page_cache_placement(file, cpus, "round_robin", latency=LAT)
    loc = page_cache_placement(file, cpus, "local", latency=LAT)
    assert isinstance(rr.reader_latency, pd.Series) and list(rr.reader_latency.index) == list(cpus.index)
    # round robin avoids filling one node and keeps the nodes balanced ...
    assert np.all(rr.nodes_filled == 0) and np.all(loc.nodes_filled >= 1)
    assert np.all(rr.imbalance_pages < 1) and np.all(loc.imbalance_pages > 60000)
    # ... at the cost of remote accesses for the reader, growing with the number of nodes
    assert np.all(rr.reader_latency > loc.reader_latency)
    assert np.all(np.diff(rr.reader_latency.to_numpy()) > 0)
    assert np.allclose(rr.local_fraction.to_numpy(), 1 / (cpus.to_numpy() // 2), rtol=1e-3)
    assert len(rr.to_frame()) == 4


def test_page_cache_errors():
    with pytest.raises(ValueError, match="policy must be one of"):
        page_cache_placement(GIB, policy="interleave")
    with pytest.raises(ValueError, match="slab_policy must be one of"):
        page_cache_placement(GIB, slab_policy="node")
    with pytest.raises(ValueError, match="file_bytes must fit in the free memory of all nodes$"):
        page_cache_placement(10 * GIB, 8, "local")
    with pytest.raises(ValueError, match="file_bytes must fit in the free memory of all nodes under"):
        page_cache_placement(10 * GIB, 8, "round_robin")
    with pytest.raises(ValueError, match="file_bytes must be positive"):
        page_cache_placement(0.0)
    with pytest.raises(ValueError, match="page_size must be positive and finite"):
        page_cache_placement(GIB, page_size=0)


# --------------------------------------------------------------------------- PIO
def test_pio_defaults_are_table_1():
    c = PioCosts()
    assert pio_cost("normal_read", costs=c).time == pytest.approx(3875e-9, rel=1e-12)   # Table 1
    assert pio_cost("relaxed_read", costs=c).time == pytest.approx(1299e-9, rel=1e-12)
    assert pio_cost("chipset_read", load=0.5, costs=c).time == pytest.approx(399e-9, rel=1e-12)  # Table 3


def test_pio_formulas_by_hand():
    c = PioCosts(round_trip=1e-6, dma_flush=2e-6, write_drain=0.25e-6, chipset_read=0.4e-6)
    rho = F(1, 5)
    k = 5
    assert pio_cost("normal_read", 0.2, costs=c).time == pytest.approx(float(3 / (1 - rho)) * 1e-6, rel=1e-12)
    assert pio_cost("flush_relaxed_read", 0.2, k, costs=c).time == pytest.approx(
        float(F(5, 4) + 1 / (1 - rho)) * 1e-6, rel=1e-12)
    assert pio_cost("flush_normal_read", 0.2, k, costs=c).time == pytest.approx(
        float(F(5, 4) + 3 / (1 - rho)) * 1e-6, rel=1e-12)
    assert pio_cost("flush_mmiob", 0.2, k, costs=c).time == pytest.approx(float(F(5, 4) + F(3, 2) * F(2, 5)) * 1e-6,
                                                                         rel=1e-12)
    # each extra router adds Delta * t_local to the round trip (stretched by the load)
    t0 = pio_cost("relaxed_read", 0.2, costs=c, latency=LAT).time
    t2 = pio_cost("relaxed_read", 0.2, costs=c, extra_routers=2, latency=LAT).time
    assert t2 - t0 == pytest.approx(2 * float(DELTA) * 1e-7 / 0.8, rel=1e-9)


def test_mmiob_polling_matches_simulation():
    """Reads of the local register back to back, each c long, sampled at issue: the read
    that sees the drain (ending at D) returns on average 1.5 c after D when D's phase is
    uniform. Seeded simulation, 99.9 % confidence interval."""
    rng = np.random.default_rng(20040721)
    c = 399.0
    drain = rng.uniform(1000.0, 1000.0 + 50 * c, size=200_000)
    issue = c * (np.floor(drain / c) + 1)         # first read issued after the drain ended
    delay = issue + c - drain
    half = 3.29 * delay.std(ddof=1) / np.sqrt(delay.size)
    assert abs(delay.mean() - 1.5 * c) < half
    costs = PioCosts(write_drain=1e-9, chipset_read=c * 1e-9)
    model = pio_cost("flush_mmiob", writes=1, costs=costs).time * 1e9 - 1.0
    assert model == pytest.approx(1.5 * c, rel=1e-12)


@settings(max_examples=50, deadline=None)
@given(st.floats(0, 0.9), st.floats(0, 0.9), st.integers(0, 20))
def test_pio_monotone_in_load_and_relaxed_cheaper(r1, r2, k):
    lo, hi = sorted((r1, r2))
    for op in ("normal_read", "relaxed_read", "flush_normal_read", "flush_relaxed_read"):
        w = k if op.startswith("flush") else 0
        assert pio_cost(op, lo, w).time <= pio_cost(op, hi, w).time * (1 + 1e-12)
    assert pio_cost("relaxed_read", lo).time < pio_cost("normal_read", lo).time
    assert pio_cost("flush_mmiob", lo, k).time < pio_cost("flush_relaxed_read", lo, k).time


def test_pio_series_in_series_out():
    s = pd.Series([0.0, 0.3], index=["idle", "busy"])
    r = pio_cost("normal_read", s)
    assert isinstance(r.time, pd.Series) and list(r.time.index) == ["idle", "busy"]
    assert list(r.to_frame().index) == ["idle", "busy"]


def test_pio_errors():
    with pytest.raises(ValueError, match="operation must be one of"):
        pio_cost("strict_read")
    with pytest.raises(ValueError, match="load must be below 1"):
        pio_cost("normal_read", load=1.0)
    with pytest.raises(ValueError, match="writes must be 0 for operation"):
        pio_cost("relaxed_read", writes=3)
    with pytest.raises(ValueError, match="writes must be an integer >= 0"):
        pio_cost("flush_mmiob", writes=-1)
    with pytest.raises(ValueError, match="dma_flush must be positive and finite"):
        PioCosts(dma_flush=-1.0)


# --------------------------------------------------------------------------- DMA
def test_dma_iops_by_hand():
    t_io, a = 20e-6, 8.0
    r = dma_buffer_iops(t_io, a, [-1, 0, 1, 3], LAT)
    expect = [1 / (t_io + a * 1e-7 * float(ratio(h))) for h in (-1, 0, 1, 3)]
    assert r.iops.tolist() == pytest.approx(expect, rel=1e-13)
    assert np.all(np.diff(r.iops) < 0)                           # remote is slower, more so farther away
    assert r.time_per_io * r.iops == pytest.approx(np.ones(4), rel=1e-15)


def test_dma_errors():
    with pytest.raises(ValueError, match="io_time must be non-negative"):
        dma_buffer_iops(-1e-6, 1)
    with pytest.raises(ValueError, match="must not both be zero"):
        dma_buffer_iops(0.0, 0.0)
    with pytest.raises(ValueError, match="routers must be an integer >= -1"):
        dma_buffer_iops(1e-6, 1, routers=-3)


# --------------------------------------------------------------------------- hugetlb zeroing
def test_one_cpu_zeroing_is_latency_bound():
    # controller service negligible: X = M / (t_local * mean ratio over all 256 nodes)
    region, m, line = 100 * GIB, 4, 128.0
    r = hugetlb_zeroing(1, region, outstanding=m, node_bandwidth=1e15, latency=LAT)
    expect = region / line * 1e-7 * float(mean_ratio(CLASSES_512)) / m
    assert r.time == pytest.approx(expect, rel=1e-6)
    assert r.mean_ratio == pytest.approx(float(mean_ratio(CLASSES_512)), rel=1e-13)


def test_sixteen_spread_cpus_zero_their_subgroup():
    # 16 CPUs on 256 nodes: each owns 16 nodes = its own subgroup (local, partner, 14 at 1 router)
    r = hugetlb_zeroing([1, 16], 100 * GIB, node_bandwidth=1e15, latency=LAT)
    cell = (1 + R0 + 14 * (R0 + DELTA)) / 16
    assert r.mean_ratio[1] == pytest.approx(float(cell), rel=1e-13)
    assert r.speedup[1] == pytest.approx(float(16 * mean_ratio(CLASSES_512) / cell), rel=1e-6)


def test_small_network_against_hand_mva():
    # 4 CPUs = 2 nodes, one CPU zeroing 2 GB spread over both: stations = two controllers
    # visited 1/2 each (D = s/2), delay Z = t_local (1 + r0)/2 - s, population M = 2.
    lat = NumaLatency(local=100e-9, nearest_ratio=2.0, per_router_ratio=0.5)
    line, bw = 128.0, 128.0 / 20e-9                # s = 20 ns
    s = F(20, 10 ** 9)
    d = s / 2
    z = F(100, 10 ** 9) * F(3, 2) - s
    q = F(0)
    for n in (1, 2):                               # exact MVA, two identical queues
        rk = d * (1 + q)
        x = n / (z + 2 * rk)
        q = x * rk
    r = hugetlb_zeroing(1, 2 * GIB, system_cpus=4, outstanding=2, line_size=line, node_bandwidth=bw, latency=lat)
    assert r.time == pytest.approx(2 * GIB / (float(x) * line), rel=1e-10)
    assert r.memory_utilization == pytest.approx(float(x * d), rel=1e-10)


def test_superlinear_speedup_and_sane_utilization():
    p = pd.Series([1, 2, 4, 8, 16, 64, 256, 512], index=list("abcdefgh"))
    r = hugetlb_zeroing(p, 100 * GIB)
    assert isinstance(r.speedup, pd.Series)
    assert np.all(r.speedup.to_numpy()[1:6] > p.to_numpy()[1:6])   # "The speedup is super linear"
    assert np.all(np.diff(r.time.to_numpy()) < 0)
    u = r.memory_utilization.to_numpy()
    assert np.all((u >= 0) & (u <= 1)) and u[-1] > u[-2]           # two CPUs per node share a controller
    assert r.bandwidth.to_numpy() * r.time.to_numpy() == pytest.approx(np.full(8, 100 * GIB), rel=1e-12)


def test_zeroing_errors():
    with pytest.raises(ValueError, match="cpus must not exceed system_cpus"):
        hugetlb_zeroing(1024, GIB)
    with pytest.raises(ValueError, match="region_bytes must not exceed pool_bytes"):
        hugetlb_zeroing(1, 2 * GIB, pool_bytes=GIB)
    with pytest.raises(ValueError, match="outstanding must be a positive integer"):
        hugetlb_zeroing(1, GIB, outstanding=0)
    with pytest.raises(ValueError, match="node_bandwidth too low"):
        hugetlb_zeroing(1, GIB, node_bandwidth=1e8)
    with pytest.raises(ValueError, match="cpus must be a positive integer"):
        hugetlb_zeroing(0, GIB)


@pytest.mark.parametrize("load", [0.0, 0.25, 0.5, 0.9, 0.999])
def test_pio_inflation_is_the_mm1_stretch(load):
    """pio_cost writes out the M/M/1 response time at service time 1: the queueing core's mm1 agrees."""
    from zmodel.queueing import mm1

    got = pio_cost("normal_read", load=load).inflation
    assert got == pytest.approx(mm1(arrival_rate=load, service_time=1.0).response_time, rel=1e-12)
    assert got == pytest.approx(float(1 / (1 - F(str(load)))), rel=1e-12)   # T = S/(1 - rho), S = 1
