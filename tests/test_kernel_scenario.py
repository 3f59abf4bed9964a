"""The scenario API (zmodel.kernel.scenario) as the CLI contract states it.

Composition tests: a scenario maps catalog names to SI parameters and delegates to
zmodel.kernel.versions.compose; hand-computed values use the catalog's printed numbers
(z990 1.2 GHz, "2 Books, 16 CPUs": seed 002) and the documented presets. Validation: one
pytest.raises per message, each naming the key path.
"""
import math
import tomllib
from pathlib import Path

import numpy as np
import pytest

from zmodel.kernel.scenario import (
    FEATURES,
    KERNEL_VERSIONS,
    OUTPUT_COLUMNS,
    WORKLOAD_KINDS,
    Scenario,
    kernel_version,
    predict,
)
from zmodel.kernel.versions import KernelCosts

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
BASE = {"hardware": {"processor": "z990", "cpus": 4, "storage_server": "DS8300", "channel": "FICON-4G",
                     "channels": 2},
        "kernel": {"version": "2.6.10"},
        "hypervisor": {"type": "none"},
        "workload": {"kind": "oltp", "clients": 16}}


def _with(path, value, base=BASE):
    d = {k: dict(v) for k, v in base.items()}
    sec, key = path.split(".", 1)
    d.setdefault(sec, {})[key] = value
    return d


def _without(path, base=BASE):
    d = {k: dict(v) for k, v in base.items()}
    sec, key = path.split(".", 1)
    d[sec].pop(key)
    return d


def test_contract_names():
    assert {"2.4.21", "2.6.0", "2.6.6", "2.6.10"} <= set(KERNEL_VERSIONS)
    assert "per_queue_io_lock" in FEATURES
    assert kernel_version("2.6.6").name == "2.6.6"
    assert {"oltp", "dbench", "file_server", "sequential_read", "random_read", "web"} <= set(WORKLOAD_KINDS)


@pytest.mark.parametrize("name", ["oltp_z990_ds8300.toml", "zvm_guests.toml"])
def test_examples_load_and_predict(name):
    with open(EXAMPLES / name, "rb") as f:
        s = Scenario.from_dict(tomllib.load(f))
    df = s.predict()
    keys = [k for k, _ in s.sweep]
    assert list(df.columns) == keys + list(OUTPUT_COLUMNS)
    assert len(df) == math.prod(len(v) for _, v in s.sweep)
    assert df["steal"].between(0, 1).all() and df["cpu_utilization"].between(0, 1).all()
    ok = df["saturated"] == ""
    assert (df.loc[ok, "throughput"] > 0).all()
    # a row with no capacity left says so instead of giving an absurd finite number
    assert (df.loc[~ok, "throughput"] == 0).all() and np.isinf(df.loc[~ok, "response_time"]).all()


def test_zvm_example_idle_tick_patch():
    # ibmsj "Timer tick": idle 2.4 guests tick every 10 ms and eat the machine; 2.6.6 stops the tick
    with open(EXAMPLES / "zvm_guests.toml", "rb") as f:
        df = Scenario.from_dict(tomllib.load(f)).predict()
    old = df[df["kernel.version"] == "2.4.21"].set_index("hypervisor.guests")
    new = df[df["kernel.version"] == "2.6.6"].set_index("hypervisor.guests")
    assert old["throughput"].is_monotonic_decreasing and old.loc[2000, "throughput"] < 0.1 * old.loc[1, "throughput"]
    assert new["throughput"].max() == pytest.approx(new["throughput"].min(), rel=1e-12)
    assert old.loc[2000, "steal"] > 0.5 and (new["steal"] == 0).all()


def test_oltp_example_26_better_and_memory_smaller():
    with open(EXAMPLES / "oltp_z990_ds8300.toml", "rb") as f:
        df = Scenario.from_dict(tomllib.load(f)).predict()
    a = df[df["kernel.version"] == "2.4.21"].set_index("hardware.cpus")
    b = df[df["kernel.version"] == "2.6.10"].set_index("hardware.cpus")
    assert (b["throughput"] >= a["throughput"] * (1 - 1e-12)).all()
    # page tables of 64 processes mapping 1 GB: 4 KB pages in 2.4, large pages in 2.6 (OSDL)
    assert (b["memory_overhead"] < a["memory_overhead"]).all()
    # LPAR weight 0.5 of 16 CPUs = 8 CPUs entitled: the 16-way image wants about one of them, so it
    # is never slowed (until 2026-11-27 it was dispatched half the time whatever it wanted)
    assert (b.loc[16, "cpu_utilization"] + b.loc[16, "steal"]) * 16 < 8
    assert b.loc[16, "steal"] == 0 and b.loc[8, "steal"] == 0
    # at weight 0.05 (0.8 CPUs entitled) the same image wants more than it is granted: it is slowed
    with open(EXAMPLES / "oltp_z990_ds8300.toml", "rb") as f:
        mapping = tomllib.load(f)
    mapping["hypervisor"]["weight"] = 0.05
    small = Scenario.from_dict(mapping).predict({"hardware.cpus": [16], "kernel.version": ["2.6.10"]}).iloc[0]
    assert small["steal"] > 0 and small["cpu_utilization"] * 16 == pytest.approx(0.8, rel=1e-6)


def test_an_image_below_its_entitlement_is_not_slowed():
    """An LPAR gets what it wants up to its entitlement (lpar_dispatch: "an LPAR that wants less
    than its share gets its demand"): a 2-CPU 2.4.21 image on 8 shared CPUs wanting about one CPU
    (what it wants is read at weight 1, so the weights below follow the stored kernel costs)
    predicts the same just above that entitlement as at weight 1, with no steal; below it, it gets
    its entitlement, and the throughput never falls as the weight grows. Until 2026-11-27 the
    image was slowed as if both its CPUs always wanted to run (steal 0.12 at 0.2)."""
    lpar = {"hardware": {"processor": "z990", "cpus": 2, "storage_server": "DS8300", "channel": "FICON-4G",
                         "channels": 2},
            "kernel": {"version": "2.4.21"}, "hypervisor": {"type": "lpar", "physical_cpus": 8, "weight": 0.2},
            "workload": {"kind": "oltp", "clients": 32, "think_time": 0.05}}
    full = predict(lpar, {"hypervisor.weight": [1.0]}).iloc[0]
    wanted = 2 * (full["cpu_utilization"] + full["steal"])      # CPUs the image wants
    assert full["steal"] == 0.0 and 0.5 < wanted < 1.5          # about one CPU of the two
    share = wanted / 8                                          # the weight that entitles it to that
    below, above = [0.4 * share, 0.8 * share, 0.95 * share], [1.05 * share, 1.5 * share]
    df = predict(lpar, {"hypervisor.weight": below + above + [1.0]}).set_index("hypervisor.weight")
    for w in above:
        assert df.loc[w, "steal"] == 0.0
        assert df.loc[w, "throughput"] == pytest.approx(full["throughput"], rel=1e-12)
    for w in below:                                             # granted its entitlement, 8 w CPUs
        assert df.loc[w, "steal"] > 0 and 2 * df.loc[w, "cpu_utilization"] == pytest.approx(8 * w, rel=1e-6)
    assert df["throughput"].is_monotonic_increasing


def test_hand_computed_specjbb_on_z990():
    # one CPU, one warehouse thread, no hypervisor: X = speed / D with the preset's counts
    s = Scenario.from_dict({"hardware": {"processor": "z990", "cpus": 1}, "kernel": {"version": "2.6.10"},
                            "workload": {"kind": "specjbb"}})
    c = s.costs   # the kernel costs the scenario uses (the parameter store's)
    p = WORKLOAD_KINDS["specjbb"]
    # each synchronisation is a wait: two switches besides its own CPU
    d = (p["user_time"] + (p["switches"] + 2 * p["thread_syncs"]) * (c.switch_time + c.runqueue_hold)
         + p["thread_syncs"] * c.thread_sync_time)
    speed = 1.2e9 / 1.2e9          # z990 clock (catalog) / reference clock
    df = s.predict()
    assert df["throughput"].iloc[0] == pytest.approx(speed / d, rel=1e-12)
    assert df["response_time"].iloc[0] == pytest.approx(d, rel=1e-12)
    # z10 at 4.4 GHz: the clock ratio (a proxy, stated in the module)
    z10 = Scenario.from_dict(_with("hardware.processor", "z10", s.to_dict())).predict()
    assert z10["throughput"].iloc[0] == pytest.approx(4.4 / 1.2 / d, rel=1e-12)


def test_lpar_weight_steal_by_hand():
    # 8 logical CPUs, weight 0.25 of 16 physical CPUs with the others busy: 4 CPUs of capacity,
    # dispatch fraction 1/2; CPU-bound SPECjbb with 8 threads: each logical CPU runnable all the time
    d = {"hardware": {"processor": "z990", "cpus": 8}, "kernel": {"version": "2.6.10"},
         "hypervisor": {"type": "lpar", "physical_cpus": 16, "weight": 0.25}, "workload": {"kind": "specjbb"}}
    r = predict(d)
    assert r["steal"].iloc[0] == pytest.approx(0.5, rel=1e-9)
    assert r["cpu_utilization"].iloc[0] == pytest.approx(0.5, rel=1e-9)
    native = predict(_with("hypervisor.type", "none", d))
    # Dispatched half the time, the logical CPUs are overcommitted 2:1 (the scenario's reading
    # overcommit = 1/phi), so the holders of the 2.6 per-CPU runqueue locks are preempted: the 8
    # CPUs share the 8 locks, each switch taking one of them (a closed product-form network of the
    # CPUs, a delay Z = T / switches - h and 8 locks whose serial time with j CPUs at one is
    # h_eff + j c, Boyd-Wickizer et al. 2012 sec. 3; c the store's spinlock_handoff), with hold
    # h_eff = h + (h/T_s) D ((1-q) + q c_d/T_s) (2.6.10 waits with DIAG 44; kappa = 1, D = T_s = 5 ms,
    # c_d = 10 us; q = the last pass's charged spin, FIXED_POINT_ITERATIONS passes from 0). Only the increment
    # df = f(h_eff) - f(h) is charged, plus the yield waste switches x u x w per transaction:
    # X = 8 phi (1 - df) / (T + switches u w), u the probability that one lock is held.
    from zmodel.kernel.hypervisor import spinlock_yield

    c = Scenario.from_dict(d).costs
    p = WORKLOAD_KINDS["specjbb"]
    sw = p["switches"] + 2 * p["thread_syncs"]   # each synchronisation a wait of two switches
    T = p["user_time"] + sw * (c.switch_time + c.runqueue_hold) + p["thread_syncs"] * c.thread_sync_time
    h, hc = c.runqueue_hold, c.handoff.spinlock_handoff
    z = T / sw - h

    def shared_locks(hold, n=8, k=8):
        # generating function of the product form (Buzen 1973), in floats: f(j) = prod (hold + l hc)/k,
        # F_k = f^k, g(j) = z^j/j!, G(m) = sum g(m - i) F(i); X = G(n-1)/G(n), Q = sum i g(n-i) F(i)/G(n),
        # one lock idle: sum g(n - i) F_{k-1}(i) / G(n)
        f = [1.0]
        for j in range(1, n + 1):
            f.append(f[-1] * (hold + j * hc) / k)

        def mul(a, b):
            return [sum(a[i] * b[m - i] for i in range(m + 1)) for m in range(n + 1)]

        powers = [[1.0] + [0.0] * n]
        for _ in range(k):
            powers.append(mul(powers[-1], f))
        g = [z ** j / math.factorial(j) for j in range(n + 1)]

        def big_g(F, m):
            return sum(g[m - i] * F[i] for i in range(m + 1))

        fk, fk1 = powers[k], powers[k - 1]
        x = big_g(fk, n - 1) / big_g(fk, n)
        q = sum(i * g[n - i] * fk[i] for i in range(n + 1)) / big_g(fk, n)
        return (q - x * hold) / n, 1 - big_g(fk1, n) / big_g(fk, n)

    from zmodel.kernel.versions import FIXED_POINT_ITERATIONS

    ts, cd = 5e-3, 10e-6
    f0 = shared_locks(h)[0]
    q = 0.0
    for _ in range(FIXED_POINT_ITERATIONS):
        f, u = shared_locks(h + (h / ts) * ts * ((1 - q) + q * cd / ts))
        q = f - f0
    w = float(spinlock_yield(2.0, c.runqueue_hold, "diag44").wasted_cpu)
    x = 8 * 0.5 * (1 - float(q)) / (T + sw * float(u) * w)
    assert r["throughput"].iloc[0] == pytest.approx(x, rel=1e-9)
    assert native["throughput"].iloc[0] == pytest.approx(8 / T, rel=1e-9)
    assert r["throughput"].iloc[0] < 0.5 * native["throughput"].iloc[0]


def test_clients_sweep_is_batched_and_equals_points():
    s = Scenario.from_dict(BASE)
    df = s.predict({"workload.clients": [1, 8, 32]})
    for n, x in zip((1, 8, 32), df["throughput"]):
        one = Scenario.from_dict(_with("workload.clients", n)).predict()
        assert x == pytest.approx(one["throughput"].iloc[0], rel=1e-12)
    assert df["throughput"].is_monotonic_increasing


def test_cartesian_product_order_and_parameters():
    df = Scenario.from_dict(BASE).predict({"kernel.version": ["2.4.21", "2.6.6"], "hardware.cpus": [1, 2, 4]})
    assert list(df["kernel.version"]) == ["2.4.21"] * 3 + ["2.6.6"] * 3
    assert list(df["hardware.cpus"]) == [1, 2, 4] * 2
    assert df["features"].str.contains("global_io_request_lock").tolist() == [True] * 3 + [False] * 3
    assert df["parameters"].str.contains("kernel=2.6.6").sum() == 3
    assert all("cpus=" in p and "io_scheduler=" in p for p in df["parameters"])


def test_more_cpus_never_reduce_throughput_26_specjbb():
    s = Scenario.from_dict({"hardware": {"processor": "z9-109", "cpus": 1}, "kernel": {"version": "2.6.16"},
                            "workload": {"kind": "specjbb"}})
    x = s.predict({"hardware.cpus": [1, 2, 4, 8, 16]})["throughput"]
    assert x.is_monotonic_increasing


def test_open_io_rate():
    d = _with("workload.io_rate", 2000.0)
    df = predict(d)
    # throughput in the unit of the load given: I/O per second, all carried (nothing saturated)
    assert df["throughput"].iloc[0] == pytest.approx(2000.0)
    assert df["saturated"].iloc[0] == "" and df["model"].iloc[0].startswith("open")
    assert "open io_rate=2000" in df["parameters"].iloc[0]
    sweep = predict(d, {"workload.io_rate": [100.0, 1000.0]})
    assert sweep["response_time"].is_monotonic_increasing


def test_an_open_load_does_not_depend_on_the_client_count():
    """workload.io_rate replaces the population: the demands come from the composition whose
    population carries the offered rate (Little's law, N = lambda R), not from workload.clients.
    Until 2026-11-27 the same 13500 I/O/s on a 2-CPU 2.4.21 system was carried at 1 and 16 clients
    and saturated at 256."""
    import dataclasses
    from zmodel.kernel.versions import compose

    base = {**BASE, "hardware": dict(BASE["hardware"], cpus=2, channels=4),
            "kernel": {"version": "2.4.21"}, "workload": {"kind": "random_read", "io_rate": 13500.0, "hit_ratio": 0.5}}
    rows = [predict(_with("workload.clients", n, base)).iloc[0] for n in (1, 16, 256)]
    for row in rows[1:]:
        for col in ("throughput", "response_time", "cpu_utilization", "disk_utilization"):
            assert row[col] == rows[0][col], col
    # the operating point: the smallest population that completes the offered rate without think time
    s = Scenario.from_dict(base)
    sys, prof = s.system()[0], dataclasses.replace(s.profile(), think_time=0.0)

    def x(n):
        r = compose(s.kernel.kernel, dataclasses.replace(prof, clients=n), sys, s.costs,
                    io_scheduler=s.kernel.io_scheduler)
        return float(np.ravel(r.throughput)[0]), float(np.ravel(r.cpu_demand)[0])

    ns = next(n for n in range(1, 4097) if x(n)[0] >= 13500.0)
    assert x(ns - 1)[0] < 13500.0
    cpu = rows[0]["cpu_utilization"]   # the M/M/2 CPU station at that population's demand
    assert cpu == pytest.approx(min(1.0, 13500.0 * x(ns)[1] / 2), rel=1e-9)


def test_a_write_is_a_fast_write_whose_destage_loads_the_disks():
    """The DS8300 acknowledges a write from cache and NVS (StorageServer: fast write); the RAID-5
    destage (two reads and two writes of the rank, StorageServer.demands('random_write')) runs after
    it. Until 2026-11-27 the scenario charged the destage to the writer: 23.45 ms per write at 10 I/O/s."""
    from zmodel.hardware.storage import StorageServer

    base = {**BASE, "workload": {"kind": "random_read", "io_rate": 10.0, "block_size": 4096.0}}
    write = predict(_with("workload.read_fraction", 0.0, base)).iloc[0]
    hit = predict(_with("workload.hit_ratio", 1.0, base)).iloc[0]       # a read hit: no disk either
    assert write["response_time"] == pytest.approx(hit["response_time"], rel=1e-6)
    server = StorageServer.from_catalog("DS8300")
    d_w = float(np.asarray(server.demands("random_write", 4096.0)["disk"]))
    assert d_w > 0.015                                                   # four disk accesses
    assert write["disk_utilization"] == pytest.approx(10.0 * d_w / server.disk_count, rel=1e-9)
    # closed: the destage keeps the disks busy U = k X of the time, k = n_io (1 - f) D_w / disks
    closed = {**BASE, "workload": {"kind": "oltp", "clients": 16, "read_fraction": 0.5}}
    s = Scenario.from_dict(closed)
    row = s.predict().iloc[0]
    prof = s.profile()
    k = prof.io_per_transaction * 0.5 * float(np.asarray(server.demands("random_write", prof.block_size)["disk"])) \
        / server.disk_count
    u = float(row["parameters"].split("destage_utilization=")[1].split(",")[0])
    assert u == pytest.approx(k * row["throughput"], rel=1e-3)       # printed to 4 digits


def test_a_population_sweep_with_destage_is_each_population_alone():
    # a population sweep with fast writes is one composition, the destage's share inside each
    # population's own fixed point (compose, SystemConfig.background_disk_load); each population
    # must get exactly what it gets predicted alone
    closed = {**BASE, "workload": {"kind": "oltp", "clients": 16, "read_fraction": 0.5}}
    s = Scenario.from_dict(closed)
    swept = s.predict({"workload.clients": [1, 5, 16, 40]})
    assert "destage_utilization=" in swept["parameters"].iloc[0]        # the fixed-point path
    for i, n in enumerate((1, 5, 16, 40)):
        alone = Scenario.from_dict(_with("workload.clients", n, closed)).predict().iloc[0]
        for col in ("throughput", "response_time", "cpu_utilization", "disk_utilization"):
            assert swept[col].iloc[i] == alone[col], (n, col)            # bit for bit


@pytest.mark.parametrize("server, cpus, read_fraction, kind", [
    ("DS8300", 1, 0.2, "random_read"),   # 2.4's scan: slower disks raise X a little (X(U) rises)
    ("ESS-800", 4, 0.2, "oltp"),         # k X(0) > 1: the destage alone would need more than the disks
])
def test_the_destage_share_is_a_root_of_u_equals_k_x_of_u(server, cpus, read_fraction, kind):
    # the scenario's destage share U must satisfy U = k X(U), X(U) the composition with the read
    # misses' disk time stretched to D / (1 - U) and no background load (the definition, evaluated
    # apart). Until 2026-11-28 the root search assumed X falls with U and returned k X(0) where X
    # rises (the first case: off by 5.5e-5 in X); in the second k X(0) > 1, so U lies close to 1
    import dataclasses

    from zmodel.kernel.versions import compose

    d = {"hardware": {"processor": "z990", "cpus": cpus, "storage_server": server, "channel": "FICON-4G",
                      "channels": 4},
         "kernel": {"version": "2.4.21"},
         "workload": {"kind": kind, "clients": 600, "read_fraction": read_fraction, "think_time": 0.0}}
    s = Scenario.from_dict(d)
    row = s.predict().iloc[0]
    sys, _ = s.system()
    prof = s.profile()
    k = s._background_disk_load(prof)
    u = k * row["throughput"]
    assert 0.5 < u < 1.0
    apart = compose(s.kernel.kernel, prof, dataclasses.replace(sys, disk_time=sys.disk_time / (1.0 - u)), s.costs,
                    io_scheduler=s.kernel.io_scheduler, clients=[600])
    assert apart.converged
    assert k * float(apart.throughput[0]) == pytest.approx(u, rel=1e-9)
    assert row["throughput"] < 1.0 / k     # the destage bounds the rate: X <= 1/k


def test_io_scheduler_override_is_used():
    df = predict(_with("kernel.io_scheduler", "anticipatory"))
    assert "io_scheduler=anticipatory" in df["parameters"].iloc[0]
    assert "anticipatory_scheduler" in df["features"].iloc[0]


def test_forks_and_spawns_enter_the_cpu_demand_at_the_measured_costs():
    # A planner's CGI-like workload: 0.5 programs run through the shell and 0.25 bare forks per
    # transaction on one z990 CPU (no I/O: the specjbb kind, one client, no think time). The CPU demand
    # grows by 0.25 x (fork + its PTE-chain extra) + 0.5 x (spawn + its extra) under 2.6.0 and by the
    # bare costs under 2.4.21, at LMBench's 1 GHz STP measurements (C. White, linux-kernel, 25 Feb 2003:
    # fork proc 104 / 143 us, sh proc 4460 / 5292 us under 2.4.18 / 2.5.60) over the processor's speed
    base = {"hardware": {"processor": "z990", "cpus": 1}, "kernel": {"version": "2.6.0"},
            "workload": {"kind": "specjbb", "clients": 1}}
    extra_us = {"2.4.21": 0.25 * 104 + 0.5 * 4460, "2.6.0": 0.25 * 143 + 0.5 * 5292}
    for version, extra in extra_us.items():
        plain = Scenario.from_dict(_with("kernel.version", version, base))
        spawning = Scenario.from_dict(_with("workload.spawns", 0.5, _with("workload.forks", 0.25,
                                                                          _with("kernel.version", version, base))))
        prof = spawning.profile()
        assert (prof.forks, prof.spawns) == (0.25, 0.5)
        speed = plain.system()[0].cpu_speed
        x0 = float(plain.predict()["throughput"].iloc[0])
        x1 = float(spawning.predict()["throughput"].iloc[0])
        # one client, no think time, no I/O: X = 1 / D_cpu, so 1/X1 - 1/X0 is the added demand
        assert 1 / x1 - 1 / x0 == pytest.approx(extra * 1e-6 / speed, rel=1e-9)


# --------------------------------------------------------------------------- validation
@pytest.mark.parametrize("mapping,message", [
    (_with("hardware.processor", "z999"),
     r"^hardware\.processor: unknown processor 'z999'; known: z900, z990, z9-109, z10$"),
    (_with("workload.clients", -4), r"^workload\.clients must be a positive integer, got -4$"),
    (_with("hypervisor.weigth", 0.5), r"^hypervisor: unknown key 'weigth'; known: type, "),
    (_with("hardware.storage_server", "DS9999"), r"^hardware\.storage_server: unknown storage server 'DS9999'"),
    (_with("hardware.channel", "FICON-32G"), r"^hardware\.channel: unknown link 'FICON-32G'"),
    (_with("hardware.cpus", 2.5), r"^hardware\.cpus must be a positive integer, got 2\.5$"),
    (_with("hardware.channels", 9), r"^hardware\.channels must be at most 8 \(CHPIDs per device\), got 9$"),
    (_with("kernel.version", "2.7"), r"^kernel\.version: unknown kernel version '2\.7'; known: 2\.4\.21"),
    (_with("kernel.version", 2.6), r"^kernel\.version: unknown kernel version '2\.6\.0'|^$"),
    (_with("kernel.io_scheduler", "elevator"), r"^kernel\.io_scheduler: unknown I/O scheduler 'elevator'"),
    (_with("kernel.io_scheduler", "cfq", _with("kernel.version", "2.6.0")),
     r"^kernel\.io_scheduler: 'cfq' is not offered by kernel 2\.6\.0"),
    (_with("hypervisor.type", "xen"), r"^hypervisor\.type: unknown hypervisor 'xen'; known: none, lpar, zvm$"),
    (_with("hypervisor.weight", 1.5), r"^hypervisor\.weight must be at most 1, got 1\.5$"),
    (_with("hypervisor.physical_cpus", -2), r"^hypervisor\.physical_cpus must be positive and finite, got -2$"),
    (_with("hypervisor.active_guests", 5), r"^hypervisor\.active_guests must not exceed hypervisor\.guests"),
    (_with("workload.kind", "mining"), r"^workload\.kind: unknown workload kind 'mining'"),
    (_with("workload.think_time", -0.1), r"^workload\.think_time must be non-negative and finite, got -0\.1$"),
    (_with("workload.think_time", "fast"), r"^workload\.think_time must be a number, got 'fast'$"),
    (_with("workload.hit_ratio", 1.2), r"^workload\.hit_ratio must be in \[0, 1\], got 1\.2$"),
    (_with("workload.block_size", 0), r"^workload\.block_size must be positive and finite, got 0$"),
    (_with("workload.spawns", -1), r"^workload\.spawns must be non-negative and finite, got -1$"),
    (_with("workload.forks", 2e6), r"^workload\.forks must be at most 1e\+06, got 2000000\.0$"),
    (_without("hardware.storage_server"), r"^hardware\.storage_server is required for workload 'oltp'"),
    (_without("hardware.channel"), r"^hardware\.channel is required for workload 'oltp'"),
    (_without("hardware.cpus"), r"^hardware\.cpus is required$"),
    (_without("kernel.version"), r"^kernel\.version is required$"),
    (_without("workload.kind"), r"^workload\.kind is required$"),
    (_with("workload.io_rate", 10.0, _with("workload.kind", "web")),
     r"^workload\.io_rate: needs I/O per transaction"),
    (dict(BASE, extra={}), r"^extra: unknown section 'extra'"),
    ({k: v for k, v in BASE.items() if k != "kernel"}, r"^kernel: section is required$"),
    (dict(BASE, hardware=[1, 2]), r"^hardware must be a table \(mapping\), got list$"),
    (dict(BASE, sweep={"hardware.cpu": [1]}), r"^sweep: unknown key path 'hardware\.cpu'"),
    (dict(BASE, sweep={"hardware.cpus": 4}), r"^sweep\.hardware\.cpus must be a list of values, got 4$"),
    (dict(BASE, sweep={"hardware.cpus": []}), r"^sweep\.hardware\.cpus must not be empty$"),
])
def test_from_dict_messages_name_the_key_path(mapping, message):
    if message == r"^kernel\.version: unknown kernel version '2\.6\.0'|^$":
        # a TOML float 2.6 is read as the string "2.6", an alias of 2.6.0: accepted
        assert Scenario.from_dict(mapping).kernel.version == "2.6.0"
        return
    with pytest.raises(ValueError, match=message):
        Scenario.from_dict(mapping)


def test_sweep_values_validated_like_the_file():
    s = Scenario.from_dict(BASE)
    with pytest.raises(ValueError, match=r"^workload\.clients must be a positive integer, got 0$"):
        s.predict({"workload.clients": [4, 0]})
    with pytest.raises(ValueError, match=r"^hardware\.processor: unknown processor 'z11'"):
        s.predict({"hardware.processor": ["z990", "z11"]})


def test_not_a_mapping():
    with pytest.raises(ValueError, match=r"^scenario must be a mapping of sections, got list$"):
        Scenario.from_dict([1])


def test_a_sequential_read_is_pre_staged_and_loads_the_disks_behind_the_host():
    """The storage server reads a sequential stream into its cache ahead of the host
    (StorageServer.closed_load: pre-staged), so a sequential read waits for the controller and
    the link, not the disks; the disks carry every block once. Until 2026-11-27 the scenario
    charged the disk read to the transaction as a random miss."""
    from zmodel.hardware.storage import StorageServer

    s = Scenario.from_dict(_with("workload.kind", "sequential_read"))
    prof = s.profile()
    assert prof.sequential and prof.read_fraction == 1.0
    assert s.system()[0].disk_time == 0.0            # nothing waited for on the disks
    row = s.predict().iloc[0]
    server = StorageServer.from_catalog("DS8300")
    d_r = float(np.asarray(server.demands("sequential_read", prof.block_size)["disk"]))
    # the disks are busy reading every block once: U = X n_io D_r / disks (utilization law)
    assert row["disk_utilization"] == pytest.approx(
        row["throughput"] * prof.io_per_transaction * d_r / server.disk_count, rel=1e-9)
    assert 0.0 < row["disk_utilization"] < 1.0 and row["saturated"] == ""


def test_storage_open_load_pre_stages_sequential_reads():
    """StorageServer.open_load as closed_load: a sequential read waits for the controller and
    its link (M/D/1 per link, by hand R = s + rho s / (2 (1 - rho))), while the disks' pre-stage
    load only bounds the rate."""
    from zmodel.hardware.storage import StorageServer

    server = StorageServer.from_catalog("DS8300")
    size = 65536.0
    d = server.demands("sequential_read", size)
    s_link = float(np.asarray(d["link"]))
    lam = 0.5 * server.links / s_link                 # the links half busy
    rho = lam / server.links * s_link
    r = server.open_load(lam, "sequential_read", size)
    assert float(r.response_time) == pytest.approx(
        server.hit_time + s_link + rho * s_link / (2 * (1 - rho)), rel=1e-12)
    assert float(r.backend_utilization) == pytest.approx(
        lam * float(np.asarray(d["disk"])) / server.disk_count, rel=1e-12)


def test_a_cached_block_is_not_pre_staged_again():
    # the pre-stage reads from disk only what the cache does not hold: U = X n_io (1 - h) D_r / disks
    from zmodel.hardware.storage import StorageServer

    server = StorageServer.from_catalog("DS8300")
    for h in (0.5, 1.0):
        s = Scenario.from_dict({**BASE, "workload": {"kind": "sequential_read", "clients": 16, "hit_ratio": h}})
        prof = s.profile()
        row = s.predict().iloc[0]
        d_r = float(np.asarray(server.demands("sequential_read", prof.block_size)["disk"]))
        assert row["disk_utilization"] == pytest.approx(
            row["throughput"] * prof.io_per_transaction * (1 - h) * d_r / server.disk_count, rel=1e-9, abs=1e-15)


def test_the_storage_server_bounds_what_the_channels_would_carry():
    """An ESS 800 moves at most 500 MB/s through its internal data path (the catalog's aggregate,
    Redbook SG24-7145 p. 48): 64 KiB sequential reads over eight FICON 2 Gbit/s channels stop at
    500 MB/s / 64 KiB = 7629.39 I/O/s (StorageServer.saturation's bound). Until
    2026-11-27 the scenario carried 12207 (the channels' 800 MB/s)."""
    from zmodel.hardware.storage import StorageServer

    d = {"hardware": {"processor": "z990", "cpus": 16, "storage_server": "ESS-800", "channel": "FICON-2G",
                      "channels": 8},
         "kernel": {"version": "2.6.10"}, "workload": {"kind": "sequential_read", "clients": 256, "think_time": 0.0}}
    limit = float(StorageServer.from_catalog("ESS-800").saturation("sequential_read", 65536).max_io_rate)
    row = Scenario.from_dict(d).predict().iloc[0]
    assert row["throughput"] == pytest.approx(limit, rel=1e-12)
    assert "bound by storage server ESS-800 (internal)" in row["parameters"]
    # by Little's law the response is what the clients' cycle leaves: N / X
    assert row["response_time"] == pytest.approx(256 / limit, rel=1e-12)
    d["workload"] = {"kind": "sequential_read", "io_rate": 20000.0}
    row = Scenario.from_dict(d).predict().iloc[0]
    assert row["throughput"] == pytest.approx(limit, rel=1e-12) and math.isinf(row["response_time"])
    assert "storage server ESS-800 (internal)" in row["saturated"]
