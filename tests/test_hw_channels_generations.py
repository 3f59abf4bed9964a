"""Channel card generations, zHPF (transport mode), read/write mix, static PAV and HyperPAV.

Expected values are the public figures of zmodel/_data/hardware/channel_cards.csv (IBM "FICON
performance" page, 2012; IBM-MAIN message 72623, 2008; z10 BC reference guide p. 20) and
hand computations written out below.
"""
import math

import pytest

from zmodel.hardware.channels import ChannelCard, ChannelLink, ChannelSubsystem


def erlang_c_wait(arrival_rate, service_time, servers):
    """Mean wait in queue of M/M/c, written out from the textbook formula (Kleinrock 1975, eq. 3.40)."""
    a = arrival_rate * service_time
    rho = a / servers
    terms = sum(a ** k / math.factorial(k) for k in range(servers))
    last = a ** servers / (math.factorial(servers) * (1.0 - rho))
    p_wait = last / (terms + last)
    return p_wait * service_time / (servers * (1.0 - rho))


# ---------------------------------------------------------------- catalog entries
def test_card_catalog_values_as_published():
    fex = ChannelCard.from_catalog("FICON Express")
    assert fex.command_io_rate == 7200 and fex.ports == 2          # z990 guide; z10 BC guide p. 20
    assert fex.feature_rate == 333e6                               # IBM-MAIN: "333MB/sec STI bus"
    fex4 = ChannelCard.from_catalog("FEx4")
    assert fex4.max_link_rate == 4e9 and fex4.ports == 4
    assert fex4.zhpf_io_rate == 31000                              # "Maximum of 31k zHPF IOs/sec"
    assert fex4.command_io_rate == pytest.approx(31000 / 2.2, abs=0.05)   # "2.2 times the FICON protocol"
    assert fex4.feature_rate == 2e9                                # "from 1GB/sec to 2GB/sec"
    assert ChannelCard.from_catalog("FICON-Express2").feature_rate == 1e9
    assert ChannelCard.from_catalog("FICON Express8").zhpf_io_rate == 52000
    fex8s = ChannelCard.from_catalog("FICON Express8S")
    assert fex8s.zhpf_io_rate == 92000 and fex8s.channel_rate == 1600e6
    assert math.isnan(fex8s.command_io_rate)                       # not found: absent, not invented


def test_generations_differ_at_the_same_link_speed():
    """Two cards at 2 Gbit/s no longer give the same answer: 7200 vs 31000/2.2 small-block I/O/s."""
    old = ChannelCard.from_catalog("FICON-Express").link(2e9)
    new = ChannelCard.from_catalog("FICON-Express2").link(2e9)
    assert old.data_rate == new.data_rate == 200e6                 # 0.8 x 2e9 / 8
    assert old.max_io_rate(4096) == pytest.approx(7200)
    assert new.max_io_rate(4096) == pytest.approx(14090.9)


def test_older_cards_channel_data_rate_as_published():
    # z990 product guide 'FICON Express ... Performance': "up to 170 MBps of total throughput" at 2 Gbps;
    # Redbook SG24-7145-00 p. 48: "170 MB/s for FICON Express and 270 MB/s for FICON Express2"
    assert ChannelCard.from_catalog("FICON Express").channel_rate == 170e6
    assert ChannelCard.from_catalog("FICON Express2").channel_rate == 270e6
    assert math.isinf(ChannelCard.from_catalog("FICON Express4").channel_rate)   # not found: not a limit


def test_card_data_rate_cap_by_hand():
    """FICON Express2 at 2 Gbit/s, 1 MiB I/Os (command mode, 1/14090.9 s per I/O).

    Reads only: the inbound link moves 0.8 x 2e9 / 8 = 200 MB/s < 270 MB/s, so the link binds:
    per-I/O demands 2**20 / 200e6 = 5.243 ms (link) vs 2**20 / 270e6 = 3.884 ms (data path).
    Half reads, half writes: each direction 0.5 x 5.243 = 2.621 ms, the data path 3.884 ms binds:
    X = 270e6 / 2**20 I/O/s, 270 MB/s in total (the card's cap), not the 400 MB/s of two directions.
    """
    link = ChannelCard.from_catalog("FICON-Express2").link(2e9)
    mib = 2.0 ** 20
    assert link.max_data_rate(mib, 1.0) == pytest.approx(200e6, rel=1e-12)
    assert link.max_data_rate(mib, 0.5) == pytest.approx(270e6, rel=1e-12)
    assert link.max_io_rate(mib, 0.5) == pytest.approx(270e6 / mib, rel=1e-12)
    # FICON Express at 2 Gbit/s: 170 MB/s total even for reads only (200 MB/s link > 170 MB/s path)
    old = ChannelCard.from_catalog("FICON-Express").link(2e9)
    assert old.max_data_rate(mib, 1.0) == pytest.approx(170e6, rel=1e-12)


# ---------------------------------------------------------------- zHPF
def test_zhpf_max_io_rate_and_ratio():
    card = ChannelCard.from_catalog("FICON-Express4")
    command = card.link()                                          # 4 Gbit/s, 400 MB/s a direction
    transport = card.link(mode="transport")
    # 4 KiB at 400 MB/s is 10.24 us < 1/31000 = 32.3 us: the channel processor binds
    assert transport.max_io_rate(4096) == pytest.approx(31000)
    assert transport.max_io_rate(4096) / command.max_io_rate(4096) == pytest.approx(2.2, rel=1e-5)
    fex8s = ChannelCard.from_catalog("FICON-Express8S").link(mode="transport", command_time=50e-6)
    assert fex8s.max_io_rate(4096) == pytest.approx(92000)


def test_zhpf_small_blocks_not_slowed_by_the_data_path():
    """92,000 I/O/s at 4 KiB: data path 4096/1.6e9 = 2.56 us beside 1/92000 = 10.9 us."""
    link = ChannelCard.from_catalog("FICON-Express8S").link(mode="transport", command_time=50e-6)
    assert link.max_io_rate(4096, read_fraction=0.5) == pytest.approx(92000)


def test_zhpf_pending_time_at_light_load():
    link = ChannelLink("FICON", data_rate=400e6, command_time=70e-6, mode="transport", transport_time=30e-6)
    r = ChannelSubsystem(link).response_time(io_rate=1e-9, block_size=4000, read_fraction=1.0)
    assert r.pending_time == pytest.approx(30e-6)                  # transport_time, not command_time
    assert r.connect_time == pytest.approx(4000 / 400e6)           # 10 us inbound


# ---------------------------------------------------------------- read/write mix
def test_duplex_mix_saturates_at_the_channel_rate():
    """FICON Express8S at 8 Gbit/s, zHPF, 1 MiB I/Os (hand computation).

    reads only : inbound link 1048576 / 800e6 = 1.31072 ms          -> 800 MB/s
    50/50 mix  : each link direction 524288 / 800e6 = 0.65536 ms, channel processor
                 1/92000 = 0.0109 ms, data path 1048576 / 1.6e9 = 0.65536 ms -> 1600 MB/s
    25/75 mix  : outbound 786432 / 800e6 = 0.98304 ms                -> 1066.67 MB/s
    """
    link = ChannelCard.from_catalog("FICON-Express8S").link(mode="transport", command_time=50e-6)
    assert link.max_data_rate(1 << 20, read_fraction=1.0) == pytest.approx(800e6)
    assert link.max_data_rate(1 << 20, read_fraction=0.5) == pytest.approx(1600e6)
    assert link.max_data_rate(1 << 20, read_fraction=0.25) == pytest.approx(1066.6667e6, rel=1e-7)


def test_channel_rate_shared_by_both_directions():
    link = ChannelLink("FICON", data_rate=400e6, command_time=0.0, channel_rate=600e6)
    d = link.demands(6e5, read_fraction=0.25)
    assert d.tolist() == pytest.approx([0.0, 0.25 * 6e5 / 400e6, 0.75 * 6e5 / 400e6])
    assert link.data_path_demand(6e5) == pytest.approx(1e-3)      # 6e5 B / 600e6 B/s
    # 50/50: links 0.75 ms each way, data path 1 ms -> 600 MB/s, not the 800 MB/s of two directions
    assert link.max_data_rate(6e5, 0.5) == pytest.approx(600e6)


def test_channel_rate_bounds_closed_throughput():
    """Many streams on 2 multibus paths: X -> 2 x 600e6 / 6e5 = 2000 I/O/s (bottleneck law)."""
    link = ChannelLink("FICON", data_rate=400e6, command_time=0.0, channel_rate=600e6)
    css = ChannelSubsystem(link, paths=2, multipath="multibus", devices=64)
    r = css.throughput(200, 6e5, read_fraction=0.5)
    assert 1990 < r.throughput <= 2000 + 1e-9
    assert r.link_utilization == pytest.approx(r.throughput * 1e-3 / 2)   # data path busiest


def test_defaults_keep_the_old_demands():
    link = ChannelLink("FICON", data_rate=2e8, command_time=1e-4)
    assert link.mode == "command" and math.isinf(link.channel_rate)
    assert link.demands(4096, 0.25).tolist() == pytest.approx(
        [1e-4, 0.25 * 4096 / 2e8, 0.75 * 4096 / 2e8], rel=1e-15)


# ---------------------------------------------------------------- PAV and HyperPAV
def _css(**kw):
    link = ChannelLink("FICON", data_rate=400e6, command_time=1e-6)
    return ChannelSubsystem(link, paths=8, multipath="multibus", **kw)


def test_static_pav_iosq_is_mmc_per_device():
    css = _css(devices=4, aliases=2)
    lam, disc = 800.0, 2e-3
    r = css.response_time(lam, 4096, 1.0, disconnect_time=disc)
    busy = r.pending_time + r.disconnect_time + r.connect_time
    assert r.iosq_time == pytest.approx(erlang_c_wait(lam / 4, busy, 3), rel=1e-9)   # M/M/3 per device


def test_hyperpav_iosq_is_the_larger_wait_of_its_two_relaxations():
    # a device's I/O runs on its own base or on any alias of the pool: the whole group pooled
    # (M/M/(4+2) at lam) and one device owning the whole pool (M/M/(1+2) at lam/4) each wait less
    css = _css(devices=4, aliases=2, pav="hyper")
    lam, disc = 800.0, 2e-3
    r = css.response_time(lam, 4096, 1.0, disconnect_time=disc)
    busy = r.pending_time + r.disconnect_time + r.connect_time
    pooled, own = erlang_c_wait(lam, busy, 6), erlang_c_wait(lam / 4, busy, 3)
    assert r.iosq_time == pytest.approx(max(pooled, own), rel=1e-9)
    # two aliases for four volumes serve better than no alias, and no better than two each
    none = _css(devices=4, aliases=0).response_time(lam, 4096, 1.0, disconnect_time=disc)
    each = _css(devices=4, aliases=2).response_time(lam, 4096, 1.0, disconnect_time=disc)
    assert each.iosq_time <= r.iosq_time < none.iosq_time


def test_closed_iosq_is_the_finite_source_queue_by_hand():
    # two clients, one volume without aliases: M/M/1//2. A client comes back to the volume every
    # N / lam = 2 / 100 s per I/O; away Z = 0.02 - S - W. States 0, 1, 2 at the volume weigh
    # 1, 2 S/Z, 2 (S/Z)^2 (Gross et al. 2008, sec. 2.7); W = Lq / X with Lq = p2, X = (p1 + p2) / S
    css, lam, disc, w = _css(devices=1), 100.0, 5e-3, 1e-3
    s = css.device_busy_time(lam, 4096, 1.0, disconnect_time=disc)
    z = 2 / lam - s - w
    p = [1.0, 2 * s / z, 2 * (s / z) ** 2]
    p = [v / sum(p) for v in p]
    hand = p[2] / ((p[1] + p[2]) / s)
    assert css.closed_iosq_time(2, lam, 4096, 1.0, disc, w) == pytest.approx(hand, rel=1e-12)
    # as many subchannels as clients: nobody ever waits
    assert _css(devices=1, aliases=2).closed_iosq_time(3, 500.0, 4096, 1.0, disc, 0.0) == 0.0
    # HyperPAV: the larger wait of the pooled group and of one volume with the whole pool
    hyper, static = _css(devices=4, aliases=1, pav="hyper"), _css(devices=4, aliases=1)
    pooled = _css(devices=1, aliases=4)   # 4 + 1 subchannels, every client's every I/O
    lam = 600.0
    s = hyper.device_busy_time(lam, 4096, 1.0, disconnect_time=disc)
    assert pooled.device_busy_time(lam, 4096, 1.0, disconnect_time=disc) == pytest.approx(s, rel=1e-12)
    assert hyper.closed_iosq_time(16, lam, 4096, 1.0, disc, 0.0) == pytest.approx(
        max(static.closed_iosq_time(16, lam, 4096, 1.0, disc, 0.0),
            pooled.closed_iosq_time(16, lam, 4096, 1.0, disc, 0.0)), rel=1e-12)


def test_open_load_of_volumes_saturates_at_their_subchannels():
    css = _css(devices=2)
    cap = css.max_device_io_rate(4096, 1.0, disconnect_time=5e-3)
    s = css.device_busy_time(cap, 4096, 1.0, disconnect_time=5e-3)
    assert cap * s / 2 == pytest.approx(1.0, rel=1e-9)         # each volume's one subchannel full
    assert math.isfinite(css.response_time(cap * 0.999, 4096, 1.0, disconnect_time=5e-3).iosq_time)


def test_hyperpav_without_aliases_is_static():
    # nothing to pool: a base subchannel serves only its own volume (until 2026-11-27 the bases
    # were pooled, and 64 volumes carried twice the I/O of static PAV without aliases)
    for devices, lam in ((2, 300.0), (64, 9000.0)):
        a = _css(devices=devices).response_time(lam, 4096, 1.0, disconnect_time=5e-3)
        b = _css(devices=devices, pav="hyper").response_time(lam, 4096, 1.0, disconnect_time=5e-3)
        assert a.iosq_time == pytest.approx(b.iosq_time, rel=1e-12)


def test_hyperpav_equals_static_for_one_volume():
    a = _css(devices=1, aliases=3).response_time(300.0, 4096, 1.0, disconnect_time=5e-3)
    b = _css(devices=1, aliases=3, pav="hyper").response_time(300.0, 4096, 1.0, disconnect_time=5e-3)
    assert a.iosq_time == pytest.approx(b.iosq_time, rel=1e-12)


# ---------------------------------------------------------------- errors
@pytest.mark.parametrize("kwargs, message", [
    (dict(mode="fast"), "mode must be one of"),
    (dict(mode="transport"), "needs a FICON link with a transport_time"),
    (dict(channel_rate=0.0), "channel_rate"),
])
def test_link_errors(kwargs, message):
    with pytest.raises(ValueError, match=message):
        ChannelLink("FICON", data_rate=1e8, command_time=1e-4, **kwargs)


def test_transport_mode_rejected_on_fcp():
    with pytest.raises(ValueError, match="needs a FICON link"):
        ChannelLink("FCP", data_rate=1e8, command_time=1e-4, mode="transport", transport_time=1e-5)


def test_card_errors():
    card = ChannelCard.from_catalog("FICON-Express4")
    with pytest.raises(ValueError, match="link_rate must be at most"):
        card.link(8e9)
    with pytest.raises(ValueError, match="command_time must be given"):
        ChannelCard.from_catalog("FICON-Express8S").link()
    with pytest.raises(ValueError, match="unknown channel card"):
        ChannelCard.from_catalog("FICON-Express99")
    with pytest.raises(ValueError, match="pav must be one of"):
        _css(pav="dynamic")
