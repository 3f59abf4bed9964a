"""Network adapters (zmodel.hardware.network): hand-computed cases, queueing invariants, errors."""
import math
from fractions import Fraction as F

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from zmodel.hardware.network import (AWM_WORKLOADS, NetworkAdapter, NetworkPath, StackCost, Workload,
                                     protocol_efficiency, segments)

OSA1 = NetworkAdapter("OSA-Express2 1GbE", link_rate=1e9, mtu=8992, per_packet_time=5e-6)
OSA10 = NetworkAdapter("OSA-Express2 10GbE LR", link_rate=10e9, mtu=8992, per_packet_time=5e-6)
STACK = StackCost(per_message=10e-6, per_packet=10e-6, per_byte=1e-9, per_connection=50e-6)


def test_segments_by_hand():
    # MSS 8940 = 8992 - 52; ceil(32768/8940) = 4 (3*8940 = 26820 < 32768 <= 35760)
    assert list(segments([0, 1, 8940, 8941, 32768], 8940)) == [1, 1, 1, 2, 4]


def test_protocol_efficiency_exact():
    # (MTU - 52)/(MTU + 38), Ethernet: 1440/1530 and 8940/9030
    for mtu, exact in ((1492, F(1440, 1530)), (8992, F(8940, 9030))):
        assert protocol_efficiency(mtu) == pytest.approx(float(exact), rel=1e-15)
    assert protocol_efficiency(8192, frame_overhead=0) == pytest.approx(float(F(8140, 8192)), rel=1e-15)


def _wire(payload, packets, rate, overhead=38):
    return F(8) * (F(payload) + packets * (52 + overhead)) / F(rate)


def test_single_session_round_trip_rr200x32k_by_hand():
    # request 200 B: 1 segment; response 32768 B: 4 segments, 2 delayed ACKs; P = 7 packets
    c = F(10, 10**6)
    cpu = 2 * c + 7 * c + (200 + 32768) * F(1, 10**9)
    adapter = 7 * F(5, 10**6)
    link_out = _wire(200, 1, 10**9) + _wire(0, 2, 10**9)
    link_back = _wire(32768, 4, 10**9)
    expected = 2 * cpu + 2 * adapter + link_out + link_back
    r = NetworkPath(OSA1, STACK).round_trip(AWM_WORKLOADS["rr200x32k"])
    assert r.round_trip_time == pytest.approx(float(expected), rel=1e-12)
    assert r.throughput == pytest.approx(float(1 / expected), rel=1e-12)
    assert r.cpu_per_transaction == pytest.approx(float(2 * cpu), rel=1e-12)


def test_crr_adds_connection_packets_and_cost():
    # crr64x8k: 1 + 1 data segments (8192 <= 8940), no ACKs, 7 connection packets: P = 9
    c = F(10, 10**6)
    cpu = 2 * c + 9 * c + (64 + 8192) * F(1, 10**9) + F(50, 10**6)
    d = NetworkPath(OSA1, STACK).service_demands(AWM_WORKLOADS["crr64x8k"])
    assert d[0] == pytest.approx(float(cpu), rel=1e-12)
    assert d[1] == pytest.approx(9 * 5e-6, rel=1e-12)
    assert d[2] == pytest.approx(float(_wire(64, 1, 10**9) + _wire(0, 4, 10**9)), rel=1e-12)
    assert d[3] == pytest.approx(float(_wire(8192, 1, 10**9) + _wire(0, 3, 10**9)), rel=1e-12)


def test_two_equal_cpu_stations_mva_by_hand():
    # only the two CPUs cost time (D each); exact MVA N=2: R(1) = 2D, Q_k(1) = 1/2,
    # R_k(2) = D (1 + 1/2), X(2) = 2 / (3D)
    a = NetworkAdapter("ideal", link_rate=1e30, mtu=1500, per_packet_time=0.0)
    s = StackCost(per_message=1e-4, per_packet=0.0, per_byte=0.0)
    r = NetworkPath(a, s).round_trip(AWM_WORKLOADS["rr1x1"], sessions=2)
    D = 2e-4
    assert r.throughput == pytest.approx(2 / (3 * D), rel=1e-9)
    assert r.round_trip_time == pytest.approx(3 * D, rel=1e-9)


def test_streaming_1gbe_is_link_limited_10gbe_cpu_limited():
    # 1 GbE: 1e9/8 * 8940/9030 bytes/s; 10 GbE CPU: 8940 / (1.5*10us + 8940 ns)
    p1, p10 = NetworkPath(OSA1, STACK), NetworkPath(OSA10, STACK)
    s1, s10 = p1.streaming(1, window=1 << 24), p10.streaming(1, window=1 << 24)
    assert s1.bottleneck == "link_out" and s10.bottleneck in ("client_cpu", "server_cpu")
    assert s1.capacity == pytest.approx(float(F(10**9, 8) * F(8940, 9030)), rel=1e-12)
    assert s10.capacity == pytest.approx(float(F(8940) / (F(15, 10**6) + F(8940, 10**9))), rel=1e-12)
    assert s10.capacity == pytest.approx(min(s10.link_limit, s10.cpu_limit, s10.adapter_limit), rel=1e-12)
    # a large window reaches the capacity, a small one stays below it
    assert s1.throughput == pytest.approx(s1.capacity, rel=1e-3)
    assert p10.streaming(1, window=8940).throughput < 0.6 * s10.capacity


def test_mtu_1492_less_efficient_than_8992_on_the_link():
    a = NetworkAdapter("OSA", 1e9, 1492)
    s = StackCost(0.0, 0.0, 0.0)
    small = NetworkPath(a, s).streaming(1, 1 << 22).link_limit
    big = NetworkPath(OSA1, s).streaming(1, 1 << 22).link_limit
    assert big / small == pytest.approx(float(F(8940, 9030) / F(1440, 1530)), rel=1e-12)


def test_hipersockets_charges_the_cpu_not_a_link():
    hs = NetworkAdapter("HiperSockets", link_rate=8e9, mtu=8192, frame_overhead=0.0, host_transfer=True)
    d = NetworkPath(hs, STACK).service_demands(AWM_WORKLOADS["rr200x1000"])
    assert d[2] == 0.0 and d[3] == 0.0
    cpu = 2e-5 + 2e-5 + 1200e-9
    assert d[0] == pytest.approx(cpu + 8 * (200 + 52) / 8e9, rel=1e-12)
    assert d[5] == pytest.approx(cpu + 8 * (1000 + 52) / 8e9, rel=1e-12)


def test_ten_gbe_advantage_grows_with_size():
    gains = []
    for w in ("rr200x1000", "rr200x32k"):
        x = [NetworkPath(a, STACK).round_trip(AWM_WORKLOADS[w], sessions=10).throughput for a in (OSA1, OSA10)]
        gains.append(x[1] / x[0])
    assert 1.0 <= gains[0] < gains[1]


def test_series_and_frame():
    import pandas as pd
    r = NetworkPath(OSA1, STACK).round_trip(AWM_WORKLOADS["rr200x1000"], sessions=np.array([1, 5]))
    f = r.to_frame()
    assert len(f) == 2 * 7 and {"utilization", "queue_length"} <= set(f.columns)
    assert isinstance(f, pd.DataFrame)


@settings(max_examples=60, deadline=None)
@given(per_message=st.floats(0, 1e-4), per_packet=st.floats(0, 1e-4), per_byte=st.floats(0, 1e-8),
       adapter=st.floats(0, 1e-4), rate=st.sampled_from([1e9, 1e10]), mtu=st.sampled_from([1492, 8992]),
       work=st.sampled_from(["rr1x1", "rr200x1000", "crr64x8k", "rr200x32k"]),
       think=st.floats(0, 1e-3))
def test_invariants(per_message, per_packet, per_byte, adapter, rate, mtu, work, think):
    path = NetworkPath(NetworkAdapter("a", rate, mtu, adapter), StackCost(per_message, per_packet, per_byte))
    n = np.array([1, 2, 5, 20])
    r = path.round_trip(AWM_WORKLOADS[work], sessions=n, think_time=think)
    assert np.allclose(r.throughput * (r.round_trip_time + think), n, rtol=1e-9)      # Little's law
    assert np.all(r.utilization >= -1e-12) and np.all(r.utilization <= 1 + 1e-9)
    assert np.all(np.diff(r.throughput) >= -1e-9 * r.throughput[1:])                   # monotone in load
    assert r.round_trip_time[0] == pytest.approx(r.service_demand[0].sum(), rel=1e-9)  # N=1: sum of demands
    s = path.streaming(3, window=[8992, 1 << 16, 1 << 20])
    assert np.all(s.throughput <= s.capacity * (1 + 1e-9))
    assert np.all(np.diff(s.throughput) >= -1e-9 * s.capacity)


def test_from_catalog():
    a = NetworkAdapter.from_catalog("OSA-Express2 10GbE LR", per_packet_time=5e-6)
    assert (a.link_rate, a.mtu) == (10e9, 8992.0)
    hs = NetworkAdapter.from_catalog("HiperSockets", link_rate=8e9)
    assert hs.mtu == 8192 and hs.host_transfer and hs.frame_overhead == 0
    with pytest.raises(ValueError, match="has no link_rate in the catalog"):
        NetworkAdapter.from_catalog("HiperSockets")
    with pytest.raises(ValueError, match="unknown"):
        NetworkAdapter.from_catalog("OSA-Express9 400GbE")


# ---- errors: one per message
def test_error_link_rate():
    with pytest.raises(ValueError, match="link_rate must be positive and finite"):
        NetworkAdapter("a", 0.0, 1492)


def test_error_mtu_header():
    with pytest.raises(ValueError, match="mtu must exceed the TCP/IP header size"):
        NetworkAdapter("a", 1e9, 40)


def test_error_per_packet_time():
    with pytest.raises(ValueError, match="per_packet_time must be non-negative"):
        NetworkAdapter("a", 1e9, 1492, per_packet_time=-1)


def test_error_number():
    with pytest.raises(ValueError, match="per_byte must be a number"):
        StackCost(0.0, 0.0, "x")


def test_error_cpus():
    with pytest.raises(ValueError, match="cpus must be a positive integer"):
        NetworkPath(OSA1, STACK, cpus=0)


def test_error_adapter_type():
    with pytest.raises(ValueError, match="adapter must be a NetworkAdapter"):
        NetworkPath("OSA", STACK)


def test_error_stack_type():
    with pytest.raises(ValueError, match="stack must be a StackCost"):
        NetworkPath(OSA1, None)


def test_error_workload_type():
    with pytest.raises(ValueError, match="workload must be a Workload"):
        NetworkPath(OSA1, STACK).service_demands("rr200x1000")


def test_error_streaming_workload():
    with pytest.raises(ValueError, match="is a streaming workload"):
        NetworkPath(OSA1, STACK).round_trip(AWM_WORKLOADS["stream20m"])


def test_error_sessions():
    with pytest.raises(ValueError, match="sessions must be a positive integer"):
        NetworkPath(OSA1, STACK).streaming(0)


def test_error_window():
    with pytest.raises(ValueError, match="window must hold at least one segment"):
        NetworkPath(OSA1, STACK).streaming(1, window=100)


def test_error_sizes():
    with pytest.raises(ValueError, match="size must be non-negative, got -1"):
        segments(-1, 1000)


def test_error_mss():
    with pytest.raises(ValueError, match="mss must be positive and finite"):
        segments(1, 0)


def test_error_efficiency_mtu():
    with pytest.raises(ValueError, match="mtu must exceed the header size"):
        protocol_efficiency(50)


def test_error_workload_size():
    with pytest.raises(ValueError, match="request_size must be non-negative and finite"):
        Workload("bad", -1)
