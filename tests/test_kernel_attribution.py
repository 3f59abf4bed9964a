"""Feature ablation of a kernel-version difference (zmodel.kernel.attribution).

Expected values are computed by hand in exact fractions: on one CPU with one client and no
other station, the composition is X = 1/D with D the CPU demand per transaction
(kernel_cpu_time's terms: user + thread synchronisations x (futex [+ LinuxThreads extra]) +
network requests x (stack [+ extra without TSO and NAPI]) + switches x (switch [+ 2.4 scan per
runnable task]) + the lock holds; each synchronisation is a wait of two more switches), and the
ablation's contributions follow from the D of each reverted feature set.
"""
from fractions import Fraction as F

import pytest

from zmodel.kernel.attribution import REPLACES, TOGETHER, feature_attribution
from zmodel.kernel.versions import KernelCosts, SystemConfig, WorkloadProfile, compose

# costs in whole microseconds (exact in binary after the division below is avoided: fractions)
US = F(1, 10**6)
COSTS = dict(user=1000 * US, sync=1 * US, lt=5 * US, net=30 * US, net_extra=40 * US, sw=3 * US, scan=2 * US,
             hold=4 * US)
C = KernelCosts(thread_sync_time=float(COSTS["sync"]), linuxthreads_extra=float(COSTS["lt"]),
                net_request_time=float(COSTS["net"]), net_extra_time=float(COSTS["net_extra"]),
                switch_time=float(COSTS["sw"]), scan_time=float(COSTS["scan"]),
                runqueue_hold=float(COSTS["hold"]))
ONE_CPU = SystemConfig(cpus=1, devices=0)


def _x(d):
    return 1 / d


def test_one_change_explains_the_whole_gain():
    # only TSO + NAPI (one change: TOGETHER) differ for this workload: its contribution is the
    # gain, no interaction
    w = WorkloadProfile("w", clients=1, user_time=float(COSTS["user"]), network_requests=2)
    a = feature_attribution("2.4.21", "2.6.0", w, ONE_CPU, C)
    d24 = COSTS["user"] + 2 * (COSTS["net"] + COSTS["net_extra"])
    d26 = COSTS["user"] + 2 * COSTS["net"]
    gain = 100 * (d24 / d26 - 1)                       # = 400/53 %
    assert gain == F(400, 53)
    assert a.change == ("tcp_segmentation_offload+napi",)
    assert a.gain == pytest.approx(float(gain), rel=1e-12)
    assert a.contribution[0] == pytest.approx(float(gain), rel=1e-12)
    assert a.interaction == pytest.approx(0.0, abs=1e-9)
    assert a.throughput_old == pytest.approx(float(_x(d24)), rel=1e-12)


def test_changes_and_their_interaction():
    # NPTL, the O(1) scheduler and TSO+NAPI shorten three paths of one CPU demand: X = 1/D is not
    # additive in the saved times, so the interaction is the remainder, computed here by hand.
    # Each of the 10 synchronisations is a wait of two context switches (20 switches): 2.4's
    # scheduler scans the one runnable task at each (the runqueue hold is CPU work in both versions)
    w = WorkloadProfile("w", clients=1, user_time=float(COSTS["user"]), thread_syncs=10, network_requests=2)
    a = feature_attribution("2.4.21", "2.6.0", w, ONE_CPU, C)
    base = COSTS["user"] + 10 * COSTS["sync"] + 2 * COSTS["net"] + 20 * (COSTS["sw"] + COSTS["hold"])
    t_lt, t_net, t_scan = 10 * COSTS["lt"], 2 * COSTS["net_extra"], 20 * COSTS["scan"]
    d24, d26 = base + t_lt + t_net + t_scan, base
    x24, x26 = _x(d24), _x(d26)
    c_nptl = 100 * (x26 - _x(d26 + t_lt)) / x24
    c_net = 100 * (x26 - _x(d26 + t_net)) / x24
    c_o1 = 100 * (x26 - _x(d26 + t_scan)) / x24
    gain = 100 * (x26 / x24 - 1)
    # TSO and NAPI act only together (TOGETHER): one change
    assert ("tcp_segmentation_offload", "napi") in TOGETHER
    got = dict(zip(a.change, a.contribution))
    assert set(got) == {"nptl", "o1_scheduler", "tcp_segmentation_offload+napi"}
    assert got["nptl"] == pytest.approx(float(c_nptl), rel=1e-12)
    assert got["tcp_segmentation_offload+napi"] == pytest.approx(float(c_net), rel=1e-12)
    assert got["o1_scheduler"] == pytest.approx(float(c_o1), rel=1e-12)
    assert a.interaction == pytest.approx(float(gain - c_nptl - c_net - c_o1), rel=1e-9)
    assert float(gain - c_nptl - c_net - c_o1) < 0     # savings on one 1/D overlap: negative


def test_reverting_the_o1_scheduler_puts_the_global_runqueue_lock_back():
    # 2.4's scheduler scans the runnable tasks (one here) per switch; the lock hold is CPU work in
    # both versions, and one CPU never waits for it
    assert REPLACES["o1_scheduler"] == "global_runqueue_lock"
    w = WorkloadProfile("w", clients=1, user_time=float(COSTS["user"]), switches=2)
    a = feature_attribution("2.4.21", "2.6.0", w, ONE_CPU, C)
    d26 = COSTS["user"] + 2 * (COSTS["sw"] + COSTS["hold"])
    d24 = d26 + 2 * COSTS["scan"]
    assert a.change == ("o1_scheduler",) and a.reverted == ("-o1_scheduler +global_runqueue_lock",)
    assert a.throughput_without[0] == pytest.approx(float(_x(d24)), rel=1e-12)
    assert a.contribution[0] == pytest.approx(float(100 * (d24 / d26 - 1)), rel=1e-12)


def test_a_load_sweep_counts_its_peak():
    w = WorkloadProfile("w", clients=1, user_time=1e-3, switches=2, thread_syncs=4)
    s = SystemConfig(cpus=4, devices=0)
    a = feature_attribution("2.4.21", "2.6.0", w, s, C, clients=[1, 4, 16])
    peak = max(compose("2.4.21", w, s, C, clients=[1, 4, 16]).throughput)
    assert a.throughput_old == peak


def test_bad_input():
    w = WorkloadProfile("w", clients=1, user_time=1e-3)
    with pytest.raises(ValueError, match="old and new must differ in at least one feature"):
        feature_attribution("2.6.0", "2.6.0", w, ONE_CPU, C)
    with pytest.raises(ValueError, match="clients must name at least one population"):
        feature_attribution("2.4.21", "2.6.0", w, ONE_CPU, C, clients=[])
    with pytest.raises(ValueError, match="unknown kernel version"):
        feature_attribution("2.7", "2.6.0", w, ONE_CPU, C)


def test_frame():
    w = WorkloadProfile("w", clients=1, user_time=1e-3, thread_syncs=10)
    f = feature_attribution("2.4.21", "2.6.0", w, ONE_CPU, C).to_frame()
    # the synchronisations' waits are switches: the O(1) scheduler changes their cost too
    assert sorted(f["change"]) == ["nptl", "o1_scheduler"]
    assert {"contribution", "gain", "interaction", "throughput_without"} <= set(f.columns)
