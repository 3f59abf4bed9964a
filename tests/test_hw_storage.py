"""Storage components (zmodel.hardware.storage): Disk, RaidRank, StorageServer.

Expected values are computed by hand in the tests (Ruemmler & Wilkes' HP 97560 seek
curve, RAID-5 access counts, link capacities, M/M/1/K by fractions), or are queueing
invariants (Little's law, utilization in [0, 1], monotonicity in load).
"""
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from zmodel.conventions import SaturationWarning
from zmodel.hardware.storage import OPERATIONS, Disk, RaidRank, StorageServer


def hp97560():
    # Ruemmler & Wilkes 1994, IEEE Computer 27(3), HP 97560: 1962 cylinders, 4002 rpm,
    # seek 3.24 + 0.400 sqrt(d) ms (d < 383), 8.00 + 0.008 d ms (d >= 383)
    return Disk(4002 / 60, 2.2e6, 1962, (3.24e-3, 0.400e-3), (8.00e-3, 0.008e-3), 383)


def toy_disk():
    return Disk.from_specs(250.0, 75e6, 50000, 3.5e-3, 7.5e-3, 0.3e-3)


def toy_server(**kw):
    # every parameter the expected values use is named here (none taken from the defaults):
    # 2 Gbit/s FC links with 8b/10b coding (0.8 payload bytes per signalled byte), 0.2 ms hit time
    args = dict(name="toy", cache_size=32 * 2 ** 30, nvs_size=2 ** 30, disk=toy_disk(), disk_count=128,
                rank_width=8, link_rate=2e9, links=4, host_adapters=4, link_efficiency=0.8,
                hit_time=0.2e-3, adapter_rate=math.inf)
    args.update(kw)
    return StorageServer(**args)


def test_hp97560_seek_curve_by_hand():
    d = hp97560()
    assert d.seek_time(100) == pytest.approx((3.24 + 0.400 * 10) * 1e-3)
    assert d.seek_time(1000) == pytest.approx((8.00 + 0.008 * 1000) * 1e-3)
    assert d.seek_time(382) == pytest.approx((3.24 + 0.400 * math.sqrt(382)) * 1e-3)
    assert d.seek_time(0) == 0.0
    assert d.rotational_latency == pytest.approx(0.5 * 60 / 4002)


def test_average_seek_closed_form_against_quadrature():
    d = hp97560()
    C = 1962.0
    x = np.linspace(0, C, 400_001)
    f = 2 * (C - x) / C ** 2
    t = np.where(x < 383, 3.24e-3 + 0.400e-3 * np.sqrt(x), 8.00e-3 + 0.008e-3 * x)
    expected = float(np.sum((t * f)[:-1] + (t * f)[1:]) / 2 * (x[1] - x[0]))
    assert d.average_seek_time() == pytest.approx(expected, rel=1e-5)


def test_from_specs_reproduces_the_data_sheet():
    d = toy_disk()
    assert d.average_seek_time() == pytest.approx(3.5e-3, rel=1e-12)
    assert d.seek_time(49999) == pytest.approx(7.5e-3, rel=1e-3)
    assert d.seek_time(1) == pytest.approx(0.3e-3, rel=1e-12)
    a, b = d.seek_short
    c, e = d.seek_long
    d0 = d.seek_boundary
    assert a + b * math.sqrt(d0) == pytest.approx(c + e * d0, rel=1e-9)   # continuity


def test_from_stroke_constant_acceleration_by_hand():
    # t(d) = a + b sqrt(d) through t(1) = 1 ms and t(C) = 20 ms with C = 10**4 (sqrt C = 100):
    # b = 19/99 ms, a = 80/99 ms; E sqrt(d) = 8/15 sqrt(C) over f(d) = 2 (C - d)/C^2, so the average is
    # 80/99 + 19/99 * 8/15 * 100 = 80/99 + 3040/297 = 3280/297 ms
    d = Disk.from_stroke(90.0, 50e6, 10 ** 4, 20e-3, 1e-3)
    assert d.seek_time(1) == pytest.approx(1e-3, rel=1e-12)
    assert d.seek_time(10 ** 4) == pytest.approx(20e-3, rel=1e-12)
    assert d.seek_time(2500) == pytest.approx((80 / 99 + 19 / 99 * 50) * 1e-3, rel=1e-12)
    assert d.average_seek_time() == pytest.approx(3280 / 297 * 1e-3, rel=1e-12)


def test_from_stroke_mean_root_distance_sympy():
    sp = pytest.importorskip("sympy")
    x, C = sp.symbols("x C", positive=True)
    assert sp.simplify(sp.integrate(sp.sqrt(x) * 2 * (C - x) / C ** 2, (x, 0, C)) - sp.Rational(8, 15) * sp.sqrt(C)) == 0


def test_from_stroke_many_cylinders_limit():
    # for C -> infinity the average tends to t1 + 8/15 (tf - t1) = 1 + 8/15 * 19 = 11.1333 ms
    d = Disk.from_stroke(90.0, 50e6, 10 ** 12, 20e-3, 1e-3)
    assert d.average_seek_time() == pytest.approx((1 + 8 / 15 * 19) * 1e-3, rel=1e-5)


def test_from_stroke_rejects_a_stroke_not_above_the_track_seek():
    with pytest.raises(ValueError, match="full_stroke_seek"):
        Disk.from_stroke(90.0, 50e6, 10 ** 4, 1e-3, 1e-3)
    with pytest.raises(ValueError, match="track_seek"):
        Disk.from_stroke(90.0, 50e6, 10 ** 4, 20e-3, -1e-3)
    # 4 cylinders: b = (20 - 1)/(2 - 1) = 19 ms > the 1 ms track seek, so the settle a = 1 - 19 < 0
    with pytest.raises(ValueError, match="track_seek must be at least"):
        Disk.from_stroke(90.0, 50e6, 4, 20e-3, 1e-3)


def test_disk_service_times():
    d = toy_disk()
    # 15000 rpm: half a revolution is 2 ms; 64 KiB at 75 MB/s
    assert d.rotational_latency == pytest.approx(2e-3)
    assert d.service_time(65536) == pytest.approx(3.5e-3 + 2e-3 + 65536 / 75e6)
    assert d.service_time(65536, sequential=True) == pytest.approx(65536 / 75e6)
    assert 0 < d.service_scv(4096) < 1


def test_raid5_access_counts():
    r = RaidRank(toy_disk(), width=8)
    assert r.backend_accesses("random_read") == 1
    assert r.backend_accesses("random_write") == 4          # read data, read parity, write both
    assert r.backend_accesses("sequential_write") == pytest.approx(8 / 7)
    s = toy_disk().service_time(4096)
    assert r.capacity("random_write", 4096) == pytest.approx(8 / (4 * s))
    assert r.capacity("random_read", 4096) == pytest.approx(8 / s)
    assert r.data_disks == 7


def test_saturation_by_hand():
    srv = toy_server()
    size = 2 ** 20
    link = 4 * (2e9 * 0.8 / 8) / size
    disk_seq = 128 / (size / 75e6)
    sat = srv.saturation("sequential_read", size)
    assert sat.link_limit == pytest.approx(link)
    assert sat.backend_limit == pytest.approx(disk_seq)
    assert sat.max_io_rate == pytest.approx(min(link, disk_seq))
    assert sat.bottleneck == "links"
    w = srv.saturation("random_write", 4096)
    assert w.backend_limit == pytest.approx(128 / (4 * toy_disk().service_time(4096)))
    assert w.bottleneck == "backend"
    # a finite adapter rate becomes the bottleneck when small enough
    a = toy_server(adapter_rate=1000.0).saturation("random_read", 4096, hit_ratio=1.0)
    assert a.max_io_rate == pytest.approx(4000.0) and a.bottleneck == "adapters"
    # read hits bypass the disks
    assert np.isinf(srv.saturation("random_read", 4096, hit_ratio=1.0).backend_limit)


def test_closed_load_one_thread_by_hand():
    srv = toy_server()
    size = 65536
    d_disk = toy_disk().service_time(size)
    d_link = size / (2e9 * 0.8 / 8)
    r = srv.closed_load(1, "random_read", size, hit_ratio=0.0)
    assert r.throughput == pytest.approx(1 / (0.2e-3 + d_link + d_disk), rel=1e-9)
    w = srv.closed_load(1, "random_write", size)
    assert w.throughput == pytest.approx(1 / (0.2e-3 + d_link), rel=1e-9)


@settings(max_examples=40, deadline=None)
@given(op=st.sampled_from(OPERATIONS), size=st.sampled_from([4096, 65536, 2 ** 20]),
       hit=st.floats(0.0, 1.0), think=st.floats(0.0, 5e-3))
def test_closed_load_invariants(op, size, hit, think):
    srv = toy_server()
    threads = np.array([1, 2, 4, 8, 16, 32, 64])
    r = srv.closed_load(threads, op, size, hit_ratio=hit, think_time=think)
    x = np.asarray(r.throughput)
    assert np.all(np.diff(x) >= -1e-9 * x[1:])                          # monotone in threads
    assert np.allclose(threads, x * (np.asarray(r.response_time) + think), rtol=1e-9)   # Little
    assert np.all((np.asarray(r.link_utilization) >= 0) & (np.asarray(r.link_utilization) <= 1 + 1e-12))
    assert np.all((np.asarray(r.backend_utilization) >= 0) & (np.asarray(r.backend_utilization) <= 1 + 1e-12))
    assert np.all(x <= srv.saturation(op, size, hit).max_io_rate * (1 + 1e-9))


def test_open_load_low_load_limit_and_monotonicity():
    srv = toy_server()
    size, h = 4096, 0.4
    r = srv.open_load([1e-3, 100.0, 1000.0, 3000.0], "random_read", size, hit_ratio=h)
    resp = np.asarray(r.response_time)
    base = 0.2e-3 + size / (2e9 * 0.8 / 8) + (1 - h) * toy_disk().service_time(size)
    assert resp[0] == pytest.approx(base, rel=1e-6)
    assert np.all(np.diff(resp) > 0)
    assert np.all((np.asarray(r.backend_utilization) >= 0) & (np.asarray(r.backend_utilization) <= 1))
    sat = srv.saturation("random_read", size, h).max_io_rate
    with pytest.warns(SaturationWarning) as caught:  # one warning per call (it was silenced once)
        over = srv.open_load(2 * sat, "random_read", size, hit_ratio=h)
    assert len(caught) == 1
    assert math.isinf(over.response_time) and over.throughput == pytest.approx(sat)


def test_nvs_mm1k_by_fractions():
    # tiny NVS: K = 4 writes of 1 MiB; P_K = (1 - rho) rho^K / (1 - rho^(K+1)) for M/M/1/K
    srv = toy_server(nvs_size=4 * 2 ** 20)
    size = 2 ** 20
    res = srv.nvs(0.0, size)
    mu = res.destage_rate
    assert res.buffer_writes == 4
    assert mu == pytest.approx(128 / (4 * toy_disk().service_time(size)))
    lam = 0.5 * mu
    rho = Fraction(1, 2)
    pk = (1 - rho) * rho ** 4 / (1 - rho ** 5)
    assert srv.nvs(lam, size).full_probability == pytest.approx(float(pk), rel=1e-9)
    probs = np.asarray(srv.nvs(np.array([0.1, 0.5, 0.9, 1.5]) * mu, size).full_probability)
    assert np.all(np.diff(probs) > 0)


def test_ds8300_from_catalog_converts_units_once():
    ds = StorageServer.from_catalog("2107-922")                 # an alias
    assert ds.cache_size == 256 * 2 ** 30 and ds.nvs_size == 8 * 2 ** 30
    assert ds.disk_count == 256 and ds.ranks == 32
    assert ds.disk.rotation_rate == pytest.approx(250.0)
    assert ds.link_data_rate == pytest.approx(4e9 * 0.8 / 8)
    f20 = StorageServer.from_catalog("ESS-F20", links=6)
    assert f20.links == 6 and f20.nvs_size == 384 * 2 ** 20


def test_bad_parameters():
    with pytest.raises(ValueError, match="hit_ratio must be a probability in"):
        toy_server().saturation("random_read", 4096, hit_ratio=1.5)
    with pytest.raises(ValueError, match="links must be a positive integer"):
        toy_server(links=0)
    with pytest.raises(ValueError, match="cache_size must be positive"):
        toy_server(cache_size=-1.0)
    with pytest.raises(ValueError, match="op must be one of"):
        toy_server().saturation("random_erase", 4096)
    with pytest.raises(ValueError, match="unknown storage server 'DS9999'; known:"):
        StorageServer.from_catalog("DS9999")
    with pytest.raises(ValueError, match="disk_count must be at least rank_width"):
        toy_server(disk_count=4)
    with pytest.raises(ValueError, match="link_efficiency must be in"):
        toy_server(link_efficiency=1.2)
    with pytest.raises(ValueError, match="size must be positive"):
        toy_server().demands("random_read", 0)
    with pytest.raises(ValueError, match="arrival_rate must be non-negative"):
        toy_server().open_load(-1.0, "random_read", 4096)
    with pytest.raises(ValueError, match=r"op must be one of \['random_write', 'sequential_write'\]"):
        toy_server().nvs(1.0, 4096, op="random_read")
    with pytest.raises(ValueError, match="rotation_rate must be positive"):
        Disk(0.0, 1e6, 100, (0, 0), (0, 0), 10)
    with pytest.raises(ValueError, match="seek_boundary must be in"):
        Disk(100.0, 1e6, 100, (0, 0), (0, 0), 200)
    with pytest.raises(ValueError, match="distance must be non-negative"):
        hp97560().seek_time(-1)
    with pytest.raises(ValueError, match="width must be an integer >= 3"):
        RaidRank(toy_disk(), width=2)
    with pytest.raises(ValueError, match="seek figures inconsistent"):
        Disk.from_specs(250.0, 75e6, 50000, 7.0e-3, 7.5e-3, 0.3e-3)


# --------------------------------------------------------------------------- track switch
def x15_track(media_rate):
    # 15,000 rpm (one track passes in 4 ms), 0.7 ms to step to the next track; seek curve irrelevant here
    return Disk.from_stroke(250.0, media_rate, 10 ** 4, 8e-3, 0.7e-3, track_switch=0.7e-3)


def test_sequential_rate_pays_the_switch_to_the_next_track_by_hand():
    # N. Brown, linux-kernel, 2001-10-19, "Re: very slow RAID-1 resync": the Cheetah X15 (ST318451LC)
    # "claim a transfer rate of 37.4 to 48.9 MB/sec ... off a single track ... it takes 4ms to read a
    # track, and 0.7 to step to the next track ... a maximum sustained throughout of 31.8 to 41.6 MB/sec"
    assert x15_track(37.4e6).sequential_rate / 1e6 == pytest.approx(31.8, abs=0.05)
    assert x15_track(48.9e6).sequential_rate / 1e6 == pytest.approx(41.6, abs=0.05)
    # the factor is T / (T + s) = 4 / 4.7 exactly
    assert x15_track(48.9e6).sequential_rate == pytest.approx(48.9e6 * 4 / 4.7, rel=1e-12)


def test_track_switch_mean_boundaries_crossed_by_hand():
    # a transfer of 2.5 tracks starting uniformly in a track crosses 2 boundaries when it starts in the
    # first half and 3 in the second: 2.5 on average, so it takes 2.5 T + 2.5 s = size / (r T/(T + s))
    d = x15_track(48.9e6)
    track_bytes = 48.9e6 * 4e-3
    assert d.transfer_time(2.5 * track_bytes) == pytest.approx(2.5 * 4e-3 + 2.5 * 0.7e-3, rel=1e-12)
    # and a random access of it pays seek and half a revolution on top
    assert d.service_time(2.5 * track_bytes) == pytest.approx(
        d.average_seek_time() + 2e-3 + 2.5 * 4.7e-3, rel=1e-12)


def test_without_a_track_switch_the_media_rate_streams():
    # every catalog drive gives a sustained rate (track_switch 0): nothing it predicts moves
    d = toy_disk()
    assert d.track_switch == 0.0
    assert d.sequential_rate == d.media_rate
    assert d.transfer_time(2 ** 20) == pytest.approx(2 ** 20 / 75e6, rel=1e-15)
    for name in ("DS8300", "ESS-800", "ESS-F20"):
        disk = StorageServer.from_catalog(name).disk
        assert disk.sequential_rate == disk.media_rate


def test_track_switch_bad_input_names_the_parameter():
    with pytest.raises(ValueError, match="track_switch must be non-negative and finite"):
        Disk(100.0, 1e6, 100, (0, 0), (0, 0), 10, 0.0, -1e-4)
    with pytest.raises(ValueError, match="track_switch must be non-negative and finite"):
        Disk.from_specs(250.0, 75e6, 50000, 3.5e-3, 7.5e-3, 0.3e-3, track_switch=float("inf"))


# --------------------------------------------------------------------------- write settle
def test_write_seek_is_the_read_seek_plus_the_settle_by_hand():
    # HGST Ultrastar C15K600 specification, sec. 4.4.1.1 Table 6 p. 27 (typical): read 2.9 ms,
    # write 3.1 ms, so the settle of a write is 0.2 ms; on the toy drive (3.5 ms read) a write seeks 3.7 ms
    settle = (3.1 - 2.9) * 1e-3
    d = Disk.from_specs(250.0, 75e6, 50000, 3.5e-3, 7.5e-3, 0.3e-3, write_settle=settle)
    assert d.average_seek_time() == pytest.approx(3.5e-3, rel=1e-12)      # reads unchanged
    assert d.average_write_seek_time() == pytest.approx(3.7e-3, rel=1e-12)
    # without a settle the two seeks are one (every existing drive, the HP 97560 too)
    assert hp97560().write_settle == 0.0
    assert hp97560().average_write_seek_time() == hp97560().average_seek_time()
    # the settle enters no read path: service time of a random read is unchanged
    assert d.service_time(4096) == pytest.approx(toy_disk().service_time(4096), rel=1e-15)


@given(st.floats(0.0, 5e-3))
@settings(max_examples=25, deadline=None)
def test_write_seek_never_shorter_than_read_seek(settle):
    d = Disk.from_specs(250.0, 75e6, 50000, 3.5e-3, 7.5e-3, 0.3e-3, write_settle=settle)
    assert d.average_write_seek_time() >= d.average_seek_time()
    assert d.average_write_seek_time() - d.average_seek_time() == pytest.approx(settle, abs=1e-15)


def test_write_settle_bad_input_names_the_parameter():
    with pytest.raises(ValueError, match="write_settle must be non-negative and finite"):
        Disk(100.0, 1e6, 100, (0, 0), (0, 0), 10, -1e-4)
    with pytest.raises(ValueError, match="write_settle must be non-negative and finite"):
        Disk.from_specs(250.0, 75e6, 50000, 3.5e-3, 7.5e-3, 0.3e-3, write_settle=float("nan"))


def test_catalog_write_settle():
    # storage_servers.csv: the 15,000 rpm drives of the DS8300 and ESS 800 take 3.1 - 2.9 = 0.2 ms
    # (C15K600 Table 6); the F20's 10,000 rpm drive has no write-settle row: one seek for both
    for name, settle in (("DS8300", 0.2e-3), ("ESS-800", 0.2e-3), ("ESS-F20", 0.0)):
        disk = StorageServer.from_catalog(name).disk
        assert disk.write_settle == pytest.approx(settle, abs=1e-15)
        assert disk.average_write_seek_time() == pytest.approx(disk.average_seek_time() + settle, rel=1e-12)


# --------------------------------------------------------------------------- references by integration
def _seek_moments_by_quad(disk):
    """E[t_s], E[t_s^2] over the random-distance density f(d) = 2 (C - d)/C^2 (Ruemmler &
    Wilkes 1994), by scipy.integrate.quad on each regime of the seek curve."""
    from scipy.integrate import quad

    C, d0 = float(disk.cylinders), disk.seek_boundary
    (a, b), (c, e) = disk.seek_short, disk.seek_long

    def moment(k):
        short = quad(lambda d: (a + b * math.sqrt(d)) ** k * 2 * (C - d) / C ** 2, 0, d0, epsabs=0, epsrel=1e-12)[0]
        long_ = quad(lambda d: (c + e * d) ** k * 2 * (C - d) / C ** 2, d0, C, epsabs=0, epsrel=1e-12)[0]
        return short + long_

    return moment(1), moment(2)


@pytest.mark.parametrize("size", [4096, 65536])
def test_service_scv_against_numerical_integration(size):
    # S = seek + latency + transfer, seek and latency independent, latency uniform on one
    # revolution T (variance T^2/12), transfer deterministic:
    #   scv = (Var[t_s] + T^2/12) / (E[t_s] + T/2 + size/r)^2
    for disk in (hp97560(), toy_disk()):
        m1, m2 = _seek_moments_by_quad(disk)
        T = 1.0 / disk.rotation_rate
        mean = m1 + T / 2 + size / disk.media_rate
        scv = (m2 - m1 ** 2 + T ** 2 / 12) / mean ** 2
        assert disk.service_time(size) == pytest.approx(mean, rel=1e-9)
        # the code integrates the second moment with the trapezoid rule on 20001 points
        # (the seek curve jumps from 0 to a at d = 0): 1e-3 relative is that rule's error
        assert disk.service_scv(size) == pytest.approx(scv, rel=1e-3)


def test_open_load_random_read_by_hand():
    # Links: each of L = 4 an M/D/1 fed lambda/L (Kleinrock 1975, Sec. 5.6 with C_s^2 = 0):
    #   D = size / (0.8 x 2 Gbit/s / 8) = 65536 / 2e8 s; rho = (lambda/L) D; R = D + rho D / (2 (1 - rho)).
    # Disks: misses (1 - h) spread over 128 disks, each M/G/1 (Pollaczek-Khinchine):
    #   rho_d = lambda (1 - h)/128 E[S]; R = E[S] + lambda_d E[S]^2 (1 + scv) / (2 (1 - rho_d)),
    #   E[S], scv from the seek moments by quad (test above).
    # Response: hit_time + R_link + (1 - h) R_disk (reads that hit only see the controller).
    s = toy_server(hit_time=0.2e-3)
    lam, size, h = 3000.0, 65536, 0.6
    m1, m2 = _seek_moments_by_quad(s.disk)
    T = 1.0 / s.disk.rotation_rate
    es = m1 + T / 2 + size / s.disk.media_rate
    scv = (m2 - m1 ** 2 + T ** 2 / 12) / es ** 2
    d_link = size / (2e9 * 0.8 / 8)
    rho_link = lam / 4 * d_link
    r_link = d_link + rho_link * d_link / (2 * (1 - rho_link))
    lam_d = lam * (1 - h) / 128
    rho_d = lam_d * es
    r_disk = es + lam_d * es ** 2 * (1 + scv) / (2 * (1 - rho_d))
    r = s.open_load(lam, "random_read", size, hit_ratio=h)
    assert r.link_utilization == pytest.approx(rho_link, rel=1e-12)
    assert r.backend_utilization == pytest.approx(rho_d, rel=1e-9)
    # scv enters through the P-K mean; 1e-3 on the scv is < 1e-4 on R here
    assert r.response_time == pytest.approx(0.2e-3 + r_link + (1 - h) * r_disk, rel=1e-4)
    assert r.throughput == lam


def test_open_load_random_write_by_hand():
    # Fast writes: R = hit_time + R_link (M/D/1 per link as above); the back end carries the
    # destage, 4 accesses per RAID-5 small write (Chen et al. 1994, Sec. 3.3):
    #   U_disk = lambda x 4 / 128 x E[S].
    s = toy_server(hit_time=0.25e-3, links=2)
    lam, size = 2000.0, 4096
    d_link = size / (2e9 * 0.8 / 8)
    rho_link = lam / 2 * d_link
    r_link = d_link + rho_link * d_link / (2 * (1 - rho_link))
    m1, _ = _seek_moments_by_quad(s.disk)
    es = m1 + 0.5 / s.disk.rotation_rate + size / s.disk.media_rate
    r = s.open_load(lam, "random_write", size)
    assert r.response_time == pytest.approx(0.25e-3 + r_link, rel=1e-12)
    assert r.backend_utilization == pytest.approx(lam * 4 / 128 * es, rel=1e-9)


def test_random_read_misses_wait_at_their_own_disk():
    """Each miss waits at the disk that holds its block: ``disk_count`` single-server queues.

    Checked against the same network written out disk by disk (every disk its own station of
    demand D_disk / disk_count, exact MVA with single servers), and against the pooled reading
    it replaced: one 128-server station, which at 256 threads carries more than the disks can
    when each request has one disk to go to. Until 2026-11-27 the disks were that pool.
    """
    from zmodel.queueing import mva

    s = StorageServer.from_catalog("ESS-F20")
    d = s.demands("random_read", 4096, 0.0)
    link, disk, k = float(d["link"]), float(d["disk"]), s.disk_count
    threads = [1, 16, 64, 256]
    r = s.closed_load(threads, "random_read", 4096)
    spelled = mva([s.hit_time, link] + [disk / k] * k, population=threads,
                  servers=[math.inf, s.links] + [1] * k)
    assert np.asarray(r.throughput) == pytest.approx(np.asarray(spelled.throughput), rel=1e-12)
    # one thread never queues: X = 1 / (hit + link + disk)
    assert float(np.asarray(r.throughput)[0]) == pytest.approx(1 / (s.hit_time + link + disk), rel=1e-12)
    pooled = mva([s.hit_time, link, disk], population=256, servers=[math.inf, s.links, k])
    assert float(np.asarray(r.throughput)[-1]) < 0.8 * float(pooled.throughput)


def test_open_load_utilizations_are_at_the_carried_load():
    # past saturation the carried rate is the bound (381.47 I/O/s of 1 MiB over four 1 Gbit/s links,
    # 4 / D_link); the utilizations follow it (utilization law): the links' reaches 1 and the disks'
    # is X D_disk / disks, not the offered 762's
    s = StorageServer.from_catalog("ESS-F20")
    d = s.demands("random_read", 1048576, 0.0)
    cap = s.links / float(np.asarray(d["link"]))
    with pytest.warns(SaturationWarning):   # the links' M/D/1 at twice its capacity
        r = s.open_load(762.0, "random_read", 1048576, 0.0)
    assert float(r.throughput) == pytest.approx(cap, rel=1e-12)
    assert float(r.link_utilization) == pytest.approx(1.0, rel=1e-12)
    assert float(r.backend_utilization) == pytest.approx(cap * float(np.asarray(d["disk"])) / s.disk_count,
                                                          rel=1e-12)
