"""Hardware components against arithmetic written out here (zmodel.hardware.network).

TCP connection set-up and tear-down cost seven packets, SYN, SYN-ACK, ACK, FIN, ACK, FIN,
ACK (RFC 793 Sec. 3.4 and 3.5), four sent by the client and three by the server; every
packet is processed by both stacks. Wire time of a packet without payload: 8 (52 + 38) bits
(TCP/IP headers with timestamps, Ethernet framing) over the link rate. The AWM workloads
are the ones the WAVV 2008 deck names (seed 002: "crr64x8k - website request", "20 MB
Streaming").
"""
import pytest

from zmodel.hardware.network import AWM_WORKLOADS, NetworkAdapter, NetworkPath, StackCost, Workload


def test_connection_packets_by_hand():
    rate, h, o = 1e9, 52.0, 38.0
    per_packet, per_connection = 2e-6, 30e-6
    path = NetworkPath(NetworkAdapter("a", link_rate=rate, mtu=1500, per_packet_time=1e-6, frame_overhead=o),
                       StackCost(per_message=0.0, per_packet=per_packet, per_byte=0.0, per_connection=per_connection))
    rr = path.service_demands(Workload("rr", 64, 8192))
    crr = path.service_demands(Workload("crr", 64, 8192, connect=True))
    extra = crr - rr
    assert extra[0] == pytest.approx(7 * per_packet + per_connection, rel=1e-12)    # client CPU
    assert extra[5] == pytest.approx(7 * per_packet + per_connection, rel=1e-12)    # server CPU
    assert extra[1] == pytest.approx(7 * 1e-6, rel=1e-12)                           # each adapter
    assert extra[2] == pytest.approx(4 * 8 * (h + o) / rate, rel=1e-12)             # client -> server
    assert extra[3] == pytest.approx(3 * 8 * (h + o) / rate, rel=1e-12)             # server -> client


def test_awm_workloads_as_named_in_the_deck():
    crr = AWM_WORKLOADS["crr64x8k"]
    assert (crr.request_size, crr.response_size, crr.connect) == (64, 8 * 1024, True)
    s = AWM_WORKLOADS["stream20m"]
    assert s.streaming and s.request_size == 20 * 2 ** 20


def test_one_stream_with_a_one_segment_window_by_hand():
    # one stream, window = one segment: a single segment circulates (MVA with N = 1: no
    # queueing), X = mss / sum D per segment. Per segment: each CPU 1.5 packets (the data
    # and half a delayed ACK) and mss bytes; each adapter 1.5 packets; the link carries the
    # segment out (mss + 52 + 38 bytes) and half an ACK back (52 + 38 bytes).
    rate, mtu, h, o = 1e9, 1500.0, 52.0, 38.0
    mss = mtu - h
    pp, pb, ppt = 4e-6, 2e-9, 1e-6
    path = NetworkPath(NetworkAdapter("a", link_rate=rate, mtu=mtu, per_packet_time=ppt, frame_overhead=o),
                       StackCost(per_message=0.0, per_packet=pp, per_byte=pb))
    d = 2 * (1.5 * pp + mss * pb) + 2 * 1.5 * ppt + 8 * (mss + h + o) / rate + 0.5 * 8 * (h + o) / rate
    r = path.streaming(1, window=mss)
    assert float(r.throughput) == pytest.approx(mss / d, rel=1e-12)
