"""Tests of the channel-subsystem model (zmodel/hardware/channels.py).

Expected values are computed by hand in the tests with exact Fractions: the bottleneck
law, M/M/1 and M/M/2 waiting times written out from their textbook forms (Kleinrock
Vol. 1 §3.2 and §3.5: M/M/1 W_q = rho S/(1 - rho); M/M/2 waiting probability
2 rho^2/(1 + rho)), the processor-sharing mean S/(1 - rho) (Kleinrock Vol. 2 §4.4) and
the exact MVA recursion run by hand for two jobs (Lazowska et al. 1984, §6.4.1).
"""
from __future__ import annotations

import math
import warnings
from fractions import Fraction as F

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from zmodel.hardware.channels import (
    MAX_CHPIDS,
    MAX_DEVICES,
    MAX_PATHS_PER_DEVICE,
    ChannelLink,
    ChannelSubsystem,
    ClosedIOResult,
    IOResponse,
)
from zmodel.queueing import SaturationWarning

FICON = ChannelLink("FICON", data_rate=200e6, command_time=100e-6)
ESCON = ChannelLink("ESCON", data_rate=17e6, command_time=200e-6, directions=1, concurrency=1)


def test_documented_limits():
    # ibmsj, "New device model": 256 CHPIDs, up to 65,535 devices, up to eight CHPIDs per device
    assert (MAX_CHPIDS, MAX_DEVICES, MAX_PATHS_PER_DEVICE) == (256, 65535, 8)


# ------------------------------------------------------------------ link capacity
def test_escon_is_serial():
    """Circuit switched: command and transfer add up on one station."""
    b = 65536
    s = F(200, 10 ** 6) + F(b, 17 * 10 ** 6)
    assert ESCON.max_io_rate(b) == pytest.approx(float(1 / s), rel=1e-12)
    assert ESCON.max_data_rate(b, 0.5) == pytest.approx(float(b / s), rel=1e-12)


def test_ficon_overlaps_command_and_transfer():
    # 4 KB: command bound (100 us > 20.48 us); 1 MB reads: link bound (5.24 ms)
    assert FICON.max_io_rate(4096) == pytest.approx(10_000, rel=1e-12)
    assert FICON.max_data_rate(2 ** 20, 1.0) == pytest.approx(200e6, rel=1e-12)
    # full duplex: a 50/50 mix moves 200 MB/s each way
    assert FICON.max_data_rate(2 ** 20, 0.5) == pytest.approx(400e6, rel=1e-12)


def test_half_duplex_multiplexed_link_shares_one_direction():
    link = ChannelLink("FICON", data_rate=200e6, command_time=0.0, directions=1)
    assert link.max_data_rate(2 ** 20, 0.5) == pytest.approx(200e6, rel=1e-12)


def test_adapter_cap():
    link = ChannelLink("FCP", data_rate=400e6, command_time=0.0, adapter_rate=250e6)
    assert link.effective_rate == 250e6
    assert link.transfer_time(250_000) == pytest.approx(1e-3, rel=1e-12)


def test_from_catalog():
    link = ChannelLink.from_catalog("ficon (2 gbps)", command_time=1e-4)
    assert (link.name, link.protocol, link.data_rate, link.link_rate) == ("FICON-2G", "FICON", 200e6, 2e9)
    escon = ChannelLink.from_catalog("ESCON", command_time=0.0)
    assert escon.circuit_switched and escon.directions == 1
    # FICON-1G carries a published maximum I/O rate (7200/s): the default command time
    assert ChannelLink.from_catalog("FICON-1G").command_time == pytest.approx(1 / 7200, rel=1e-12)


def test_subsystem_paths():
    css = ChannelSubsystem(FICON, paths=4, multipath="multibus", devices=32)
    assert css.max_io_rate(4096) == pytest.approx(40_000, rel=1e-12)
    assert ChannelSubsystem(FICON, paths=4).max_io_rate(4096) == pytest.approx(10_000, rel=1e-12)


# ------------------------------------------------------------------ open response, by hand
def mm1_wait(lam, s):
    rho = lam * s
    return rho * s / (1 - rho)


def test_ficon_response_by_hand():
    lam, b, disc = F(2000), 8192, F(2, 1000)
    tc, tr = F(1, 10_000), F(b, 200 * 10 ** 6)
    pending = mm1_wait(lam, tc) + tc
    connect = tr / (1 - lam * tr)                       # PS inbound link, reads only
    busy = pending + disc + connect
    devices = 10
    iosq = mm1_wait(lam / devices, busy)
    r = ChannelSubsystem(FICON, paths=1, aliases=0, devices=devices).response_time(float(lam), b, 1.0, float(disc))
    assert isinstance(r, IOResponse)
    assert r.pending_time == pytest.approx(float(pending), rel=1e-12)
    assert r.connect_time == pytest.approx(float(connect), rel=1e-12)
    assert r.iosq_time == pytest.approx(float(iosq), rel=1e-12)
    assert r.response_time == pytest.approx(float(iosq + busy), rel=1e-12)
    assert r.channel_utilization == pytest.approx(float(lam * tc), rel=1e-12)
    assert r.link_utilization == pytest.approx(float(lam * tr), rel=1e-12)
    assert r.device_utilization == pytest.approx(float(lam / devices * busy), rel=1e-12)


def test_escon_response_by_hand():
    lam, b = F(50), 16384
    tc, tr = F(2, 10_000), F(b, 17 * 10 ** 6)
    s = tc + tr
    pending = mm1_wait(lam, s) + tc
    busy = pending + tr
    iosq = mm1_wait(lam / 4, busy)
    r = ChannelSubsystem(ESCON, paths=1, aliases=0, devices=4).response_time(float(lam), b, 0.3)
    assert r.pending_time == pytest.approx(float(pending), rel=1e-12)
    assert r.connect_time == pytest.approx(float(tr), rel=1e-12)     # no stretching: waits in pending
    assert r.iosq_time == pytest.approx(float(iosq), rel=1e-12)
    assert r.link_utilization == 0.0


def test_multibus_two_paths_and_pav_by_hand():
    lam, b = F(12_000), 4096
    tc, tr = F(1, 10_000), F(b, 200 * 10 ** 6)
    rho = lam * tc / 2
    wait_prob = 2 * rho ** 2 / (1 + rho)                 # M/M/2 Erlang C
    pending = wait_prob * tc / (2 * (1 - rho)) + tc
    connect = tr / (1 - lam / 2 * tr)
    t_mp = F(3, 10 ** 5)
    devices = 40
    busy = pending + connect
    rho_d = lam / devices * busy / 2                     # one base + one alias subchannel
    iosq = 2 * rho_d ** 2 / (1 + rho_d) * busy / (2 * (1 - rho_d)) + t_mp
    css = ChannelSubsystem(FICON, paths=2, multipath="multibus", multipath_cpu_time=float(t_mp),
                           aliases=1, devices=devices)
    r = css.response_time(float(lam), b)
    assert r.pending_time == pytest.approx(float(pending), rel=1e-12)
    assert r.connect_time == pytest.approx(float(connect), rel=1e-12)
    assert r.iosq_time == pytest.approx(float(iosq), rel=1e-12)


def test_failover_uses_one_path():
    lam = 6000.0
    fail = ChannelSubsystem(FICON, paths=2, multipath="failover", devices=50).response_time(lam, 4096)
    bus = ChannelSubsystem(FICON, paths=2, multipath="multibus", devices=50).response_time(lam, 4096)
    assert fail.channel_utilization == pytest.approx(0.6, rel=1e-12)
    assert bus.channel_utilization == pytest.approx(0.3, rel=1e-12)
    assert bus.pending_time < fail.pending_time


def test_saturation_policy():
    with pytest.warns(SaturationWarning):
        r = ChannelSubsystem(FICON, devices=100).response_time([1000.0, 20_000.0], 4096)
    assert np.isfinite(r.response_time[0]) and math.isinf(r.response_time[1])
    assert r.channel_utilization[1] == 1.0 and r.throughput[1] == pytest.approx(10_000)


def test_series_in_series_out():
    rates = pd.Series([100.0, 200.0], index=["a", "b"])
    r = ChannelSubsystem(FICON, devices=8).response_time(rates, 4096, 1.0, 0.001)
    assert isinstance(r.response_time, pd.Series) and list(r.response_time.index) == ["a", "b"]
    assert len(r.to_frame()) == 2


# ------------------------------------------------------------------ closed, by hand
def test_closed_two_jobs_by_hand():
    """MVA for N = 1, 2 by hand: FICON processor 100 us, inbound link 20.48 us, delay 1 ms, Z = 0.5 ms."""
    d1, d2, dd, z = F(1, 10_000), F(4096, 200 * 10 ** 6), F(1, 1000), F(1, 2000)
    q1 = q2 = F(0)
    for n in (1, 2):
        r1, r2 = d1 * (1 + q1), d2 * (1 + q2)
        x = n / (z + r1 + r2 + dd)
        q1, q2 = x * r1, x * r2
    res = ChannelSubsystem(FICON).throughput(2, 4096, 1.0, float(dd), float(z))
    assert isinstance(res, ClosedIOResult)
    assert res.throughput == pytest.approx(float(x), rel=1e-10)
    assert res.response_time == pytest.approx(float(r1 + r2 + dd), rel=1e-10)
    assert res.data_rate == pytest.approx(float(x * 4096), rel=1e-10)


def test_closed_saturates_at_bottleneck():
    res = ChannelSubsystem(FICON).throughput(500, 2 ** 20, 1.0, 0.0, 0.0)
    assert res.data_rate == pytest.approx(200e6, rel=1e-6)


def test_multibus_adds_host_time_for_one_stream():
    single = ChannelSubsystem(FICON).throughput(1, 4096, 1.0, 0.001, 0.0)
    bus = ChannelSubsystem(FICON, paths=2, multipath="multibus", multipath_cpu_time=1e-4).throughput(
        1, 4096, 1.0, 0.001, 0.0)
    t = 1e-4 + 4096 / 200e6 + 0.001
    assert single.throughput == pytest.approx(1 / t, rel=1e-12)
    assert bus.throughput == pytest.approx(1 / (t + 1e-4), rel=1e-12)


# ------------------------------------------------------------------ invariants
rates = st.floats(min_value=1.0, max_value=8000.0)
blocks = st.sampled_from([512, 4096, 65536, 262144])
fractions = st.floats(min_value=0.0, max_value=1.0)


@settings(max_examples=60, deadline=None)
@given(lam=rates, b=blocks, f=fractions, disc=st.floats(0.0, 0.01))
def test_open_invariants(lam, b, f, disc):
    css = ChannelSubsystem(FICON, devices=200)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SaturationWarning)
        r = css.response_time([lam, lam * 1.05], b, f, disc)
    for name in ("channel_utilization", "link_utilization", "device_utilization"):
        u = np.asarray(getattr(r, name))
        assert np.all((u >= 0) & (u <= 1))
    if np.all(np.isfinite(r.response_time)):
        parts = r.iosq_time + r.pending_time + r.disconnect_time + r.connect_time
        assert np.allclose(r.response_time, parts, rtol=1e-12)
        assert r.response_time[1] >= r.response_time[0]          # monotone in load
        # full duplex: each direction is processor sharing, R_dir >= its demand, and the two
        # demands f b / r and (1 - f) b / r add up to the transfer time b / r (r = 200 MB/s)
        assert np.all(r.connect_time >= b / 200e6 * (1 - 1e-12))


@settings(max_examples=50, deadline=None)
@given(n=st.integers(0, 80), b=blocks, f=fractions, z=st.floats(0.0, 0.01), paths=st.integers(1, 8))
def test_closed_invariants(n, b, f, z, paths):
    css = ChannelSubsystem(FICON, paths=paths, multipath="multibus")
    r = css.throughput([n, n + 1], b, f, 0.002, z)
    x, rt = np.asarray(r.throughput), np.asarray(r.response_time)
    assert np.allclose(x * (rt + z), [n, n + 1], rtol=1e-9, atol=1e-12)   # Little's law
    assert x[1] >= x[0] - 1e-9                                              # monotone in N
    assert x[1] <= css.max_io_rate(b, f) * (1 + 1e-9)                       # bottleneck bound
    for u in (r.channel_utilization, r.link_utilization):
        assert np.all((np.asarray(u) >= 0) & (np.asarray(u) <= 1 + 1e-12))


# ------------------------------------------------------------------ errors
@pytest.mark.parametrize("kwargs,message", [
    (dict(protocol="SCSI"), r"protocol must be one of \['ESCON', 'FICON', 'FCP'\], got 'SCSI'"),
    (dict(data_rate=0.0), r"data_rate must be positive and finite, got 0.0"),
    (dict(command_time=-1e-6), r"command_time must be non-negative and finite, got -1e-06"),
    (dict(directions=3), r"directions must be an integer in \[1, 2\], got 3"),
    (dict(concurrency=0.5), r"concurrency must be a positive integer or math.inf, got 0.5"),
    (dict(adapter_rate=-1.0), r"adapter_rate must be positive, got -1.0"),
    (dict(protocol="ESCON"), r"an ESCON link is half duplex and circuit switched"),
])
def test_link_errors(kwargs, message):
    base = dict(protocol="FICON", data_rate=200e6, command_time=1e-4)
    with pytest.raises(ValueError, match=message):
        ChannelLink(**{**base, **kwargs})


@pytest.mark.parametrize("kwargs,message", [
    (dict(paths=0), r"paths must be an integer in \[1, 8\], got 0"),
    (dict(paths=9), r"paths must be an integer in \[1, 8\], got 9"),
    (dict(multipath="roundrobin"), r"multipath must be one of \['failover', 'multibus'\], got 'roundrobin'"),
    (dict(multipath_cpu_time=math.nan), r"multipath_cpu_time must be non-negative and finite"),
    (dict(aliases=-1), r"aliases must be an integer >= 0, got -1"),
    (dict(devices=65536), r"devices must be an integer in \[1, 65535\], got 65536"),
])
def test_subsystem_errors(kwargs, message):
    with pytest.raises(ValueError, match=message):
        ChannelSubsystem(FICON, **kwargs)


def test_pav_needs_eckd():
    fcp = ChannelLink("FCP", data_rate=400e6, command_time=1e-5)
    with pytest.raises(ValueError, match=r"aliases \(PAV\) apply to ECKD devices on ESCON/FICON channels"):
        ChannelSubsystem(fcp, aliases=2)


def test_link_type_checked():
    with pytest.raises(ValueError, match=r"link must be a ChannelLink, got str"):
        ChannelSubsystem("FICON-4G")


def test_bad_workload_inputs():
    with pytest.raises(ValueError, match=r"block_size must be positive"):
        FICON.max_io_rate(0)
    with pytest.raises(ValueError, match=r"read_fraction must be a probability in \[0, 1\]"):
        FICON.demands(4096, 1.5)
    with pytest.raises(ValueError, match=r"io_rate must be non-negative"):
        ChannelSubsystem(FICON).response_time(-1.0, 4096)


def test_catalog_errors():
    with pytest.raises(ValueError, match=r"command_time must be given for link 'FICON-4G'"):
        ChannelLink.from_catalog("FICON-4G")
    with pytest.raises(ValueError, match=r"unknown link 'FICON-32G'; known: ESCON, FICON-1G"):
        ChannelLink.from_catalog("FICON-32G", command_time=1e-4)


def test_8_and_16_gbit_links_carry_their_nominal_payload():
    # 8GFC and 16GFC: 800 and 1600 MB/s per direction (InfoStor 2010, Table 1; 64b/66b at 14.025 Gbaud
    # for 16GFC gives the same 100 MB/s per Gbit/s as 8b/10b below). A 1 MiB read is one direction's
    # transfer: 2**20 / 1.6e9 s on the 16 Gbit/s link, half that of the 8 Gbit/s one
    l8, l16 = (ChannelLink.from_catalog(n, command_time=1e-4) for n in ("FICON 8 Gbps", "FICON-16G"))
    assert (l8.data_rate, l16.data_rate, l16.link_rate, l16.protocol) == (800e6, 1600e6, 16e9, "FICON")
    assert ChannelLink.from_catalog("FCP-16G", command_time=1e-4).protocol == "FCP"
    # 1 MiB reads: the inbound direction takes 2**20 / 1.6e9 = 655 us per I/O against the 100 us command
    # time, so the link binds and the data rate is its payload rate
    assert l16.max_data_rate(2 ** 20, 1.0) == pytest.approx(1600e6, rel=1e-12)
    assert l8.max_data_rate(2 ** 20, 1.0) == pytest.approx(800e6, rel=1e-12)


def test_from_catalog_keeps_the_protocol_of_links_with_equal_figures():
    # FCP-4G and FICON-4G have the same catalog figures; the name decides the protocol
    from zmodel.hardware.channels import ChannelLink
    fcp = ChannelLink.from_catalog("FCP-4G", command_time=1e-4)
    ficon = ChannelLink.from_catalog("FICON-4G", command_time=1e-4)
    assert (fcp.protocol, fcp.name) == ("FCP", "FCP-4G")
    assert (ficon.protocol, ficon.name) == ("FICON", "FICON-4G")
