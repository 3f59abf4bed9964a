"""Scenario keys for the channel subsystem and the cache: card generation, zHPF, multipath, PAV, volumes, footprint.

What the scenario adds is tested here (composition): the keys reach
:class:`zmodel.hardware.channels.ChannelSubsystem` and the storage server's cache, their
absence keeps today's predictions bit for bit, and the IOSQ term equals the M/M/c
(Erlang C) queue written out by hand. The channel formulas themselves are tested in
tests/test_hw_channels*.py.
"""
import math

import numpy as np
import pytest

from zmodel import store

from zmodel.conventions import SaturationWarning
from zmodel.kernel.scenario import Scenario, predict

BASE = {"hardware": {"processor": "z990", "cpus": 4, "storage_server": "DS8300", "channel": "FICON-4G",
                     "channels": 2},
        "kernel": {"version": "2.6.10"},
        "hypervisor": {"type": "none"},
        "workload": {"kind": "random_read", "clients": 16}}


def _with(base=BASE, **paths):
    d = {k: dict(v) for k, v in base.items()}
    for path, value in paths.items():
        sec, key = path.split("__", 1)
        d.setdefault(sec, {})[key] = value
    return d


def _erlang_c_wait(arrival_rate, service_time, servers):
    """M/M/c mean wait, Erlang C written out (Kleinrock Vol. 1 §3.5, eqs. 3.39-3.40)."""
    a = arrival_rate * service_time
    c = servers
    top = a ** c / math.factorial(c) / (1.0 - a / c)
    p_wait = top / (sum(a ** k / math.factorial(k) for k in range(c)) + top)
    return p_wait * service_time / (c - a)


# ---------------------------------------------------------------- defaults keep today's behaviour
def test_absent_keys_keep_the_predictions():
    plain = predict(BASE)
    df = predict(_with(hardware__multipath="multibus"))                 # the default, spelled out
    assert df["throughput"].iloc[0] == plain["throughput"].iloc[0]
    assert df["response_time"].iloc[0] == plain["response_time"].iloc[0]
    assert Scenario.from_dict(BASE).iosq_time(500.0) == 0.0          # no volumes: no device queue
    assert Scenario.from_dict(BASE).to_dict()["hardware"].keys() == BASE["hardware"].keys()


def test_multipath_failover_uses_one_path():
    assert Scenario.from_dict(BASE).system()[0].channel_paths == 2
    assert Scenario.from_dict(_with(hardware__multipath="failover")).system()[0].channel_paths == 1


# ---------------------------------------------------------------- card generations and zHPF
def test_card_and_zhpf_set_the_channel_time():
    """FICON Express4: 1/(31000/2.2) s per I/O in command mode, 1/31000 s in transport mode (channel_cards.csv)."""
    fex4 = Scenario.from_dict(_with(hardware__channel_card="FICON Express4"))
    assert fex4.system()[0].channel_demands[0] == pytest.approx(2.2 / 31000, rel=1e-5)
    zhpf = Scenario.from_dict(_with(hardware__channel_card="FICON Express4", hardware__zhpf=True))
    assert zhpf.system()[0].channel_demands[0] == pytest.approx(1 / 31000, rel=1e-12)
    # 4 KiB at 0.8 x 4e9 / 8 = 400 MB/s inbound; nothing outbound for reads
    assert zhpf.system()[0].channel_demands[1:] == pytest.approx((4096 / 400e6, 0.0), rel=1e-12)
    assert zhpf.channel_parameters() == () and fex4.channel_parameters() == ()   # the card's own rates
    assert Scenario.from_dict(BASE).channel_parameters() == ("ficon_command_time",)


def test_card_without_command_rate_takes_the_superseded_cards_rate_as_a_floor():
    """FICON Express8S has no command-mode rate in the catalog: FICON Express4's 31000 / 2.2 I/O/s (the
    newest earlier card with one; channel_cards.csv) bounds it from below, and the plan lists that as
    an assumption. Until 2026-11-27 the store's ficon_command_time (about 9000 I/O/s, the WAVV 2008
    channels) was used, so upgrading from FICON Express4 lost a third of each channel."""
    s = Scenario.from_dict(_with(hardware__channel_card="FICON Express8S"))
    fex4 = Scenario.from_dict(_with(hardware__channel_card="FICON Express4"))
    assert s.channel_link().command_time == pytest.approx(2.2 / 31000, rel=1e-5)   # 14090.9 I/O/s
    assert s.system()[0].channel_demands == fex4.system()[0].channel_demands    # 4 Gbit/s link, same time
    assert s.channel_parameters() == ()
    assert "FICON-Express8S.command_io_rate (floor: FICON-Express4's)" in s.assumed()
    assert not any("command_io_rate" in a for a in fex4.assumed())
    # never slower than the card it superseded, at any load
    lo = predict(_with(hardware__channel_card="FICON Express4", workload__io_rate=12000.0, workload__clients=None))
    hi = predict(_with(hardware__channel_card="FICON Express8S", workload__io_rate=12000.0, workload__clients=None))
    assert hi["response_time"].iloc[0] <= lo["response_time"].iloc[0] * (1 + 1e-12)


def test_fcp_adapter_limit_applies_to_the_links_it_was_calibrated_on():
    """The calibrated FCP adapter rate (the WAVV 2008 deck's 2 and 4 Gbit/s FCP channels) caps FCP-2G
    and FCP-4G; an 8 or 16 Gbit/s FCP link is a later card with no known adapter limit, so the link
    is the limit (800 and 1600 MB/s per direction, FC-PI-4/5 via links.csv) and the plan says so."""
    rates = {}
    for link in ("FCP-2G", "FCP-4G", "FCP-8G", "FCP-16G"):
        s = Scenario.from_dict(_with(hardware__channel=link, hardware__channels=1))
        rates[link] = float(s.channel_link().max_data_rate(2 ** 20, 1.0))
        assumed = s.assumed()
        if link in ("FCP-8G", "FCP-16G"):
            assert f"{link}.adapter_rate (none known: the link's)" in assumed
            assert s.channel_parameters() == ("fcp_command_time",)
        else:
            assert s.channel_parameters() == ("fcp_command_time", "fcp_adapter_rate")
    adapter = store.default().values()["fcp_adapter_rate"]
    assert rates["FCP-2G"] == pytest.approx(min(200e6, adapter), rel=1e-9)
    assert rates["FCP-4G"] == pytest.approx(min(400e6, adapter), rel=1e-9)
    assert rates["FCP-8G"] == pytest.approx(800e6, rel=1e-9) and rates["FCP-16G"] == pytest.approx(1600e6, rel=1e-9)


# ---------------------------------------------------------------- PAV, volumes: the IOSQ term
@pytest.mark.parametrize("aliases", [0, 1, 3])
def test_open_iosq_is_the_erlang_c_wait(aliases):
    """Open load on one volume: IOSQ = M/M/c wait, c = 1 + aliases, service = pending + disconnect + connect."""
    io_rate = 100.0
    s = Scenario.from_dict(_with(hardware__volumes=1, hardware__pav_aliases=aliases, workload__io_rate=io_rate))
    css = s.channel_subsystem()
    sys = s.system()[0]
    disconnect = sys.disk_time + sys.controller_time                  # random_read preset: hit ratio 0
    r = css.response_time(io_rate, 4096, 1.0, disconnect)
    service = float(r.pending_time + r.disconnect_time + r.connect_time)
    expected = _erlang_c_wait(io_rate, service, 1 + aliases)
    assert s.iosq_time(io_rate) == pytest.approx(expected, rel=1e-10)
    # the open prediction's response time carries exactly that wait (one I/O per transaction)
    without = predict(_with(workload__io_rate=io_rate))["response_time"].iloc[0]
    with_q = predict(_with(hardware__volumes=1, hardware__pav_aliases=aliases,
                           workload__io_rate=io_rate))["response_time"].iloc[0]
    assert with_q - without == pytest.approx(expected, rel=1e-9)


def test_aliases_reduce_iosq_by_hand():
    """Service 6 ms, 150 I/O/s on one volume: offered load a = 0.9. One subchannel (M/M/1):
    W = 0.9 x 6 ms / 0.1 = 54 ms. One alias (c = 2): a^2/2!/(1 - a/2) = 0.405/0.55,
    P(wait) = (0.405/0.55) / (1 + 0.9 + 0.405/0.55) = 0.27931, W = P S / (2 - 0.9) = 1.52 ms."""
    w1 = _erlang_c_wait(150.0, 6e-3, 1)
    assert w1 == pytest.approx(0.9 * 6e-3 / 0.1, rel=1e-12)          # M/M/1: rho S / (1 - rho)
    # c = 2, a = 0.9: P(wait) = (0.405 / 0.55) / (1.9 + 0.405 / 0.55) = 0.27931; W = P S / (2 - 0.9)
    w2 = _erlang_c_wait(150.0, 6e-3, 2)
    assert w2 == pytest.approx((0.405 / 0.55) / (1.9 + 0.405 / 0.55) * 6e-3 / 1.1, rel=1e-12)
    assert w2 < w1 / 10


def test_closed_population_within_the_subchannels_never_queues():
    """4 clients, 1 volume, 3 aliases: 4 subchannels, at most 4 I/Os in flight: IOSQ is 0, result unchanged."""
    plain = predict(_with(workload__clients=4))
    pav = predict(_with(workload__clients=4, hardware__volumes=1, hardware__pav_aliases=3))
    assert pav["throughput"].iloc[0] == plain["throughput"].iloc[0]


def test_closed_aliases_raise_throughput_and_respect_the_subchannel_capacity():
    xs = []
    for aliases in (0, 1, 3, 7):
        s = Scenario.from_dict(_with(hardware__volumes=1, hardware__pav_aliases=aliases))
        x = float(s.predict()["throughput"].iloc[0])
        css = s.channel_subsystem()
        sys = s.system()[0]
        busy = sys.disk_time + sys.controller_time + css.link.per_io_time + 4096 / css.link.effective_rate
        assert x < (1 + aliases) / busy                               # c subchannels, each busy >= busy per I/O
        xs.append(x)
    assert xs == sorted(xs) and xs[-1] > 3 * xs[0]
    assert xs[-1] <= float(predict(BASE)["throughput"].iloc[0])       # never above the no-queue model


@pytest.mark.parametrize("volumes, aliases, clients", [(2, 1, 16), (1, 0, 64), (2, 3, 64)])
def test_closed_solution_is_a_fixed_point(volumes, aliases, clients):
    """The delay per transaction d equals n_io x IOSQ(n_io X(d), d / n_io) (the finite-source IOSQ of
    ChannelSubsystem.closed_iosq_time): find the delay that gives the predicted throughput back
    (X(d) falls with d) and check that the volume's IOSQ time at that throughput and delay is that
    delay. With 64 clients on one subchannel the volume holds nearly every client."""
    import dataclasses
    from scipy.optimize import brentq
    from zmodel.kernel.versions import compose

    s = Scenario.from_dict(_with(hardware__volumes=volumes, hardware__pav_aliases=aliases,
                                 workload__clients=clients))
    x = float(s.predict()["throughput"].iloc[0])
    prof, sys = s.profile(), s.system()[0]
    css, _, disconnect = s._iosq_setup(sys, prof)
    ios = prof.io_per_transaction

    def throughput(d):
        p = dataclasses.replace(prof, external_delay=prof.external_delay + d)
        return float(np.ravel(compose(s.kernel.kernel, p, sys, s.costs, clients=np.asarray([clients])).throughput)[0])

    d = brentq(lambda d: throughput(d) - x, 0.0, 100.0, xtol=1e-15, rtol=1e-14)
    assert d > 0
    w = css.closed_iosq_time(clients, x * ios, prof.block_size, prof.read_fraction, disconnect, d / ios)
    assert ios * w == pytest.approx(d, rel=1e-5)


def test_one_more_client_never_lowers_the_throughput():
    # 8 subchannels of one volume: with 9 clients at most one I/O waits. The open M/M/8 queue at the
    # closed throughput (until 2026-11-27) jumped from 0 there: 1765.5 -> 1484.7 transactions/s
    df = predict(_with(hardware__volumes=1, hardware__pav_aliases=7), {"workload.clients": [6, 7, 8, 9, 10, 12, 16]})
    xs = list(df["throughput"])
    assert all(b >= a * (1 - 1e-9) for a, b in zip(xs, xs[1:])), xs
    # up to 8 clients nobody waits for a subchannel: the throughput is that of the same system
    # without the volumes' IOSQ model (the disks, separate queues, still see collisions)
    free = predict(_with(), {"workload.clients": [6, 7, 8]})
    assert xs[:3] == pytest.approx(list(free["throughput"]), rel=1e-12)
    assert xs[3] < float(predict(_with(), {"workload.clients": [9]})["throughput"].iloc[0])


def test_an_open_load_beyond_the_volumes_is_carried_at_their_capacity():
    # four volumes, one subchannel each: an offered 15000 I/O/s cannot pass; the README's open-load
    # rule (throughput and utilizations at the carried load) holds for the subchannels as for every
    # station (until 2026-11-27 the offered rate was reported as carried)
    s = Scenario.from_dict(_with(hardware__volumes=4, workload__io_rate=15000.0, workload__clients=None))
    row = s.predict().iloc[0]
    css, _, disconnect = s._iosq_setup()
    cap = css.max_device_io_rate(4096, 1.0, disconnect)
    # at that rate each volume's one subchannel is busy all the time: 4 volumes / holding time
    busy = css.device_busy_time(cap, 4096, 1.0, disconnect)
    assert busy > disconnect and cap == pytest.approx(4 / busy, rel=1e-9)
    assert row["throughput"] == pytest.approx(cap, rel=1e-9)
    assert "device subchannels (IOSQ)" in row["saturated"] and math.isinf(row["response_time"])
    below = Scenario.from_dict(_with(hardware__volumes=4, workload__io_rate=0.9 * cap, workload__clients=None))
    assert below.predict().iloc[0]["throughput"] == pytest.approx(0.9 * cap, rel=1e-12)


def test_aliases_can_be_swept():
    df = predict(_with(hardware__volumes=1), {"hardware.pav_aliases": [0, 1, 3]})
    assert list(df["hardware.pav_aliases"]) == [0, 1, 3]
    assert df["throughput"].is_monotonic_increasing


def test_hyperpav_pool_equals_static_on_one_volume():
    static = predict(_with(hardware__volumes=1, hardware__pav_aliases=2))
    hyper = predict(_with(hardware__volumes=1, hardware__pav_aliases=2, hardware__pav="hyper"))
    assert hyper["throughput"].iloc[0] == pytest.approx(static["throughput"].iloc[0], rel=1e-12)


# ---------------------------------------------------------------- hit ratio from the footprint
def test_footprint_gives_the_lru_hit_ratio():
    """DS8300: 256 GiB cache (catalog, binary GB). Uniform references over 1 TiB: Che's approximation
    with equal popularities gives N (1 - exp(-T/N)) = C, so h = C / N = 2**38 / 2**40 = 0.25."""
    s = Scenario.from_dict(_with(workload__footprint=2.0 ** 40))
    assert s.profile().hit_ratio == pytest.approx(0.25, rel=1e-9)
    small = Scenario.from_dict(_with(workload__footprint=2.0 ** 30))   # fits in the cache
    assert small.profile().hit_ratio == pytest.approx(1.0, abs=1e-12)
    assert Scenario.from_dict(BASE).profile().hit_ratio == 0.0        # preset kept without a footprint


# ---------------------------------------------------------------- bad input: one raises per message
@pytest.mark.parametrize("mapping,message", [
    (_with(hardware__pav_alias=2), r"^hardware: unknown key 'pav_alias'; known: processor, cpus, "),
    (_with(hardware__pav_aliases=2), r"^hardware\.pav_aliases: needs hardware\.volumes \(the volumes"),
    (_with(hardware__pav="hyper"), r"^hardware\.pav: needs hardware\.volumes"),
    (_with(hardware__volumes=1, hardware__pav_aliases=-1),
     r"^hardware\.pav_aliases must be an integer in \[0, 65535\], got -1$"),
    (_with(hardware__volumes=0), r"^hardware\.volumes must be an integer in \[1, 65535\], got 0$"),
    (_with(hardware__volumes=1, hardware__pav="dynamic"),
     r"^hardware\.pav must be one of \['static', 'hyper'\], got 'dynamic'$"),
    (_with(hardware__multipath="roundrobin"),
     r"^hardware\.multipath must be one of \['multibus', 'failover'\], got 'roundrobin'$"),
    (_with(hardware__zhpf="yes"), r"^hardware\.zhpf must be true or false, got 'yes'$"),
    (_with(hardware__zhpf=True), r"^hardware\.zhpf: needs hardware\.channel_card"),
    (_with(hardware__channel_card="FICON Express9"), r"^hardware\.channel_card: unknown "),
    (_with(hardware__channel_card="FICON Express2"),
     r"^hardware\.channel_card: link_rate must be at most the card's max_link_rate 2e\+09 bit/s, got 4e\+09$"),
    (_with(hardware__channel_card="FICON Express", hardware__channel="FICON-2G", hardware__zhpf=True),
     r"^hardware\.zhpf: mode 'transport' \(zHPF\) needs a FICON link with a transport_time"),
    (_with(hardware__channel_card="FICON Express4", hardware__channel="FCP-2G"),
     r"^hardware\.channel_card: a channel card \(FICON-Express4\) is a FICON card; link 'FCP-2G' is FCP$"),
    # with zHPF on, the card that does not fit the link is still what is named, not zhpf
    (_with(hardware__channel_card="FICON Express4", hardware__channel="ESCON", hardware__zhpf=True),
     r"^hardware\.channel_card: a channel card \(FICON-Express4\) is a FICON card; link 'ESCON' is ESCON$"),
    (_with(hardware__channel="FCP-2G", hardware__volumes=2, hardware__pav_aliases=1),
     r"^hardware\.pav_aliases: aliases \(PAV\) apply to ECKD devices on ESCON/FICON channels"),
    (_with(_with(workload__kind="web"), hardware__channel=None, hardware__volumes=4),
     r"^hardware\.volumes: needs hardware\.channel$"),
    (_with(workload__footprint=1e12, workload__hit_ratio=0.5),
     r"^workload\.footprint must not be given with workload\.hit_ratio"),
    (_with(workload__footprint=-1.0), r"^workload\.footprint must be positive and finite, got -1\.0$"),
    (_with(_with(workload__kind="web", workload__footprint=1e9), hardware__storage_server=None,
           hardware__channel=None), r"^workload\.footprint: needs hardware\.storage_server"),
])
def test_bad_keys_are_named(mapping, message):
    mapping = {sec: {k: v for k, v in keys.items() if v is not None} for sec, keys in mapping.items()}
    with pytest.raises(ValueError, match=message):
        Scenario.from_dict(mapping)


def test_iosq_time_refuses_bad_input():
    s = Scenario.from_dict(_with(hardware__volumes=2, hardware__pav_aliases=1))
    with pytest.raises(ValueError, match=r"io_rate must be non-negative"):
        s.iosq_time(-1.0)
    with pytest.raises(ValueError, match=r"clients must be a positive integer, got 0"):
        s.iosq_time(10.0, clients=0)
    with pytest.warns(SaturationWarning):
        assert np.isinf(s.iosq_time(1e6))


def test_open_load_meets_the_card_data_path():
    """FICON Express2 on a 2 Gbit/s link, 1 MiB I/Os half reads, one path (failover).

    Links: each direction 0.5 x 2**20 / 200e6 s per I/O -> 381.5 I/O/s; the card's data path
    (270 MB/s, SG24-7145 p. 48) 2**20 / 270e6 s -> 257.5 I/O/s. 300 I/O/s saturates the data path
    with the card, not without it; 200 I/O/s runs at 200 / 257.5 = 77.7 % of the data path.
    """
    base = _with(hardware__channel="FICON-2G", hardware__multipath="failover", workload__block_size=2 ** 20,
                 workload__read_fraction=0.5)
    card = _with(base, hardware__channel_card="FICON Express2")
    assert predict(_with(base, workload__io_rate=300.0))["saturated"].iloc[0] == ""
    assert "channel data path" in predict(_with(card, workload__io_rate=300.0))["saturated"].iloc[0]
    row = predict(_with(card, workload__io_rate=200.0)).iloc[0]
    assert row["saturated"] == ""
    assert row["channel_utilization"] == pytest.approx(200 * 2 ** 20 / 270e6, rel=1e-12)
