"""Calibration of the kernel-version composition against the OSDL results summary and the
zSeries dbench figures (zmodel.fits.kernel_versions).

Expected values are the printed numbers (OSDL "Results Summary": 8.64, 20.00, 9.75, 27.78, 26,
35, 7, 14, 6, 8, 10; I/O scheduler slide: 0 and -27; IBM Systems Journal Figure 1 text: 1500 and
3250 MB/s at 16 processors, peak above 20). Two predictions are re-derived by hand from the fitted
parameters: SPECjbb2000 (CPU bound: X = c (1 - f) / D, f from the runqueue lock's hand-off chain summed
explicitly) and dbench (X = N / (t + T_mm(N)) with the operation-count table of the paper).
"""
import math

import numpy as np
import pytest

from zmodel.fits.kernel_versions import (
    DBENCH_ROWS,
    EXCLUDED,
    KernelVersionsModel,
    OSDL_ROWS,
    PROFILES,
    reaim_profile,
    SHAPE_IDS,
    DBT2_HZ_SCORES,
    calibrate_kernel_versions,
    cross_validate_kernel_versions,
    dbt2_tick_waits,
    hz_checks,
    hz_table,
    measurements,
)
from zmodel.kernel.versions import HOLD_GROWTH

PRINTED = {
    "osdl.summary-dbt2-noncached-8way": 8.64, "osdl.summary-dbt2-cached-8way": 20.00,
    "osdl.summary-reaim-4way": 9.75, "osdl.summary-reaim-8way": 27.78,
    "osdl.summary-specweb-4way": 26, "osdl.summary-specweb-8way": 35,
    "osdl.summary-specjapp-4way": 7, "osdl.summary-specjapp-8way": 14,
    "osdl.summary-specjbb-4way": 6, "osdl.summary-specjbb-8way": 8, "osdl.summary-dss-8way": 10,
    "osdl.iosched-light-load": 0, "osdl.iosched-heavy-load": -27,
    "ibmsj.dbench-24-16cpu-mbps": 1500, "ibmsj.dbench-26-16cpu-mbps": 3250,
}


@pytest.fixture(scope="module")
def result():
    return calibrate_kernel_versions()


def test_rows_are_the_printed_numbers():
    rows = measurements().set_index("id")
    for id_, v in PRINTED.items():
        assert rows.loc[id_, "value_num"] == v, id_
    assert set(rows["source"]) == {"000_bf0694975d199a2d.txt", "001_37b528ecce68b8bf.txt"}
    assert set(OSDL_ROWS) | set(DBENCH_ROWS) | set(SHAPE_IDS) <= set(rows.index)


def test_specjbb_by_hand(result):
    p = result.params.valuesdict()
    res = result.to_frame("residuals").set_index("id")
    prof = PROFILES["specjbb"]
    th = prof["thread_syncs"]                            # the counts as read: no multiplier
    sw = prof["switches"] + 2 * th                       # each synchronisation a wait of two switches
    for cpus, id_ in ((4, "osdl.summary-specjbb-4way"), (8, "osdl.summary-specjbb-8way")):
        base26 = prof["user_time"] + sw * (p["switch_time"] + p["runqueue_hold"]) + th * p["thread_sync_time"]
        # 2.4: goodness scan over the c runnable threads, LinuxThreads, global runqueue lock
        base24 = (prof["user_time"] + sw * (p["switch_time"] + p["scan_time"] * cpus + p["runqueue_hold"])
                  + th * (p["thread_sync_time"] + p["linuxthreads_extra"]))
        # the 2.4 runqueue lock is held across the goodness() scan of the c runnable threads
        h, c = p["runqueue_hold"] + p["scan_time"] * cpus, p["spinlock_handoff"]
        z = base24 / sw - h
        # the hand-off chain (Boyd-Wickizer et al. 2012, sec. 3) with n CPUs at the lock: serial time
        # h (1 + g (n - 1)) + n c, g the x86 growth of a contended hold (an input here, as the fitted
        # costs are; test_kernel_versions checks its value against the VolanoMark lockmeter)
        g = HOLD_GROWTH["x86"]

        def serial(n):
            return h * (1 + g * (n - 1)) + n * c

        w = [math.factorial(cpus) / math.factorial(cpus - n) * math.prod(serial(j) / z for j in range(1, n + 1))
             for n in range(cpus + 1)]
        pk = [v / sum(w) for v in w]
        x_lock = sum(pk[n] / serial(n) for n in range(1, cpus + 1))
        f = (sum(n * pk[n] for n in range(cpus + 1)) - x_lock * h) / cpus
        x24, x26 = cpus * (1 - f) / base24, cpus / base26
        assert res.loc[id_, "predicted"] == pytest.approx(100 * (x26 / x24 - 1), rel=1e-7)


def test_dbench_by_hand(result):
    p = result.params.valuesdict()
    res = result.to_frame("residuals").set_index("id")
    n, t = 16, p["dbench_cpu_time"]
    # 2.4 per page: ISKE x2, SSKE x1, 3 global purges stalling N CPUs (ibmsj; memory.operation_counts)
    mm24 = 2e-7 + 1e-7 + 3 * n * (p["purge"] + p["purge_per_cpu"] * n)
    # 2.6 with the zSeries primitives: ISKE, SSKE, RRBE once, one IPTE (a fixed fraction of a purge)
    r = p["ipte_relative"]
    mm26 = 3e-7 + n * (r * p["purge"] + r * p["purge_per_cpu"] * n)
    assert res.loc["ibmsj.dbench-24-16cpu-mbps", "predicted"] == pytest.approx(n / (t + mm24) * 4096 / 1e6, rel=1e-9)
    assert res.loc["ibmsj.dbench-26-16cpu-mbps", "predicted"] == pytest.approx(n / (t + mm26) * 4096 / 1e6, rel=1e-9)


def test_residual_tolerances(result):
    res = result.to_frame("residuals").set_index("id")
    err = res["percent_error"].abs()
    for id_ in ("ibmsj.dbench-24-16cpu-mbps", "ibmsj.dbench-26-16cpu-mbps"):
        assert err[id_] <= 0.5, id_
    # "drops above 20 processors", read as a peak in [20, 24] CPUs (zmodel/_data/readings.csv):
    # met to the same 0.5 % (the residual is the relative distance outside the interval)
    assert res.loc["ibmsj.dbench-24-drop-above-20cpu", "kind"] == "interval"
    assert abs(res.loc["ibmsj.dbench-24-drop-above-20cpu", "residual"]) <= 0.005
    assert err["osdl.iosched-heavy-load"] <= 2.0
    # light load: within 2.5 percentage points of "same performance"
    assert abs(res.loc["osdl.iosched-light-load", "predicted"]) <= 2.5
    # the documented direction of every OSDL pair: 2.6 better than 2.4, more so on 8 CPUs than on 4
    # (OSDL "Results Summary": SPECweb99 26 -> 35, SPECjAppServer 7 -> 14, SPECjbb2000 6 -> 8;
    # ReAIM 9.75 -> 27.78 is not composed, test_reaim_gains_are_explained)
    for bench in ("specweb", "specjapp", "specjbb"):
        g4, g8 = (res.loc[f"osdl.summary-{bench}-{n}way", "predicted"] for n in (4, 8))
        m4, m8 = (res.loc[f"osdl.summary-{bench}-{n}way", "measured"] for n in (4, 8))
        assert 0 < m4 < m8 and 0 < g4 < g8, bench
    # ... and DBT-2 non-cached: I/O bound on 12 disks in the model, so no kernel gain (8.64 printed)
    assert res.loc["osdl.summary-dbt2-noncached-8way", "predicted"] < 1.0
    # the conflicting slide value "4-way: 1%" is predicted, not fitted
    assert not res.loc[list(EXCLUDED), "used_in_fit"].any()
    # the Figure 1 thresholds are met (similar up to 4 within the rounding of the crossing)
    assert res.loc["ibmsj.fig1-26-better-from-8cpu", "satisfied"]
    assert res.loc["ibmsj.fig1-similar-upto-4cpu", "predicted"] == pytest.approx(4.0, abs=1e-3)


@pytest.mark.xfail(strict=True, reason=(
    "2026-11-28, counts as read (no per-benchmark multipliers; ReAIM's from its published workload, "
    "SPECjbb2000's switches from SPEC's description), hand-off locks, segments per request, the dcache "
    "lock, WebSphere on LinuxThreads, DBT-2's timer waits, the x86 growth of contended holds: the OSDL "
    "pairs miss the issue-5 tolerances -- "
    "DBT-2 cached 12.9 vs 20, ReAIM -0.66 / -0.66 vs 9.75 / 27.78 (no mechanism composed but the shell "
    "spawns' PTE chains; 6.0 / 23.3 with the earlier reading of 4 switches per ms), SPECjAppServer "
    "6.4 / 12.3 vs 7 / 14, SPECjbb2000 6.0 / 10.3 vs 6 / 8, SPECweb99 29.0 / 31.9 vs 26 / 35 since the "
    "thread synchronisations are waits of two switches (before: DBT-2 cached 14.3, SPECjAppServer "
    "6.3 / 15.3, SPECjbb2000 4.9 / 4.9, SPECweb99 27.4 / 33.2); the targets stay"))
def test_osdl_pairs_within_the_issue_tolerances(result):
    res = result.to_frame("residuals").set_index("id")
    err = res["percent_error"].abs()
    for id_ in ("osdl.summary-dbt2-cached-8way", "osdl.summary-reaim-4way", "osdl.summary-reaim-8way"):
        assert err[id_] <= 2.0, id_
    for id_ in ("osdl.summary-specweb-4way", "osdl.summary-specweb-8way"):
        assert err[id_] <= 5.0, id_
    for id_ in ("osdl.summary-specjbb-4way", "osdl.summary-specjbb-8way", "osdl.summary-dss-8way"):
        assert err[id_] <= 10.0, id_
    used = res[res["used_in_fit"]]
    fitted = np.where(used["satisfied"].fillna(False).astype(bool), 0.0, used["percent_error"].abs())
    fitted = fitted[np.isfinite(fitted)]                    # the measured 0 % has no relative error
    assert np.median(fitted) <= 5.0                         # issue-5 target on the fitted numbers


def test_no_parameter_belongs_to_one_benchmark(result):
    # issue 12 part 3: every OSDL benchmark's gain moves with a free parameter that also moves
    # another benchmark's (its rows are predictable from the others), and no free parameter is a
    # multiplier of one benchmark's activity counts
    from zmodel.fits.kernel_versions import BENCHMARKS, KernelVersionsModel

    m = KernelVersionsModel()
    p = result.params.valuesdict()
    free = [n for n in result.params if result.params[n].vary]
    assert not [n for n in free if n.startswith("k_")]
    ids = [i for i in OSDL_ROWS if i not in EXCLUDED]
    base = {i: m.predict(i, p) for i in ids}
    moves = {}
    for n in free:
        q = dict(p, **{n: p[n] * 1.3 + 1e-9})
        moves[n] = {BENCHMARKS[i] for i in ids if m.predict(i, q) != base[i]}
    for bench in {BENCHMARKS[i] for i in ids}:
        assert any(bench in g and len(g) > 1 for g in moves.values()), (bench, moves)


def test_rows_are_composed_on_their_platform():
    # every fitted row's figure is composed on the platform the catalog records for it
    from zmodel.fits.kernel_versions import DBENCH_PLATFORM, IOSCHED_ROWS, KernelVersionsModel

    rows = measurements().set_index("id")
    m = KernelVersionsModel()
    p = m.parameters().valuesdict()
    for id_, (bench, cpus) in OSDL_ROWS.items():
        assert m.composition(bench, cpus, "2.6.0", p)["system"].platform == rows.loc[id_, "platform"] == "x86"
    for id_ in IOSCHED_ROWS:
        assert m.system("dss", 8, p).platform == rows.loc[id_, "platform"]
    for id_ in DBENCH_ROWS:
        assert rows.loc[id_, "platform"] == DBENCH_PLATFORM == "zSeries"


def test_parameters_identified(result):
    t = result.parameter_table
    free = t[t["vary"]]
    # every free parameter identified but the decision-support pair: the anticipatory miss
    # probability and the LUN time are set by the same three decision-support rows (correlation
    # -0.99), and the ReAIM rows the composition cannot explain (gain ~0 for 9.75 / 27.78 % with the
    # workfile's activity, below) raise the reduced chi-square that scales every standard error, so
    # their errors exceed their values (the LUN time's 97 % before the x86 hold growth, 113 % since)
    assert set(free.index[~free["identifiable"].astype(bool)]) == {"antic_miss", "lun_time"}
    assert not free["at_bound"].any()
    assert result.success


@pytest.mark.xfail(strict=True, reason=(
    "2026-11-28, ReAIM's activity read from OSDL re-aim-7's Database Mix (reaim_profile: ~2 switches, "
    "0.27 shell spawns at LMBench's measured cost and ~1 block I/O per 46 ms job at the largest load): "
    "the composition's 2.4 -> 2.6 gain is -0.65 % (the spawns' PTE chains) for 9.75 / 27.78 %, and 2.6 "
    "does not hold its throughput better at the largest load; the "
    "mechanism is missing (suspects: the 2.6 per-CPU page lists against 2.4's zone lock under "
    "page_test's 1,600 faults per call, sync() under 2.4's big kernel lock, the O(1) scheduler's "
    "CPU affinity: a 2.6-test scheduler patch raised re-aim's user time by 14.6 % on OSDL's 4-way, "
    "caches refilled after switches, which compose does not charge), not a count"))
def test_reaim_gains_are_explained(result):
    res = result.to_frame("residuals").set_index("id")
    for id_ in ("osdl.summary-reaim-4way", "osdl.summary-reaim-8way"):
        assert abs(res.loc[id_, "percent_error"]) <= 50.0, id_
    checks = result.to_frame("shape_checks").set_index("id")["passed"]
    assert checks["osdl.reaim-26-holds-throughput"]


def test_shape_claims(result):
    checks = result.to_frame("shape_checks").set_index("id")["passed"]
    failing = set(checks.index[checks == False])  # noqa: E712
    # the deck's own table contradicts "improvement over 2.4 is greater with increased I/O
    # workload" (cached 20.00 > non-cached 8.64): the model sides with the table; ReAIM's higher 2.6
    # peak and 2.6 holding its throughput better are not composed (test_reaim_gains_are_explained):
    # the two curves agree to 0.002 %, and "higher" is read as at least 1 % (VISIBLY_HIGHER)
    assert failing == {"osdl.dbt2-improvement-grows-with-io", "osdl.reaim-26-higher-peak",
                       "osdl.reaim-26-holds-throughput"}
    assert checks.notna().all()


@pytest.mark.slow
@pytest.mark.xfail(strict=True, reason=(
    "2026-11-28, counts as read (no per-benchmark multipliers; ReAIM's from its published workload, "
    "SPECjbb2000's switches from SPEC's description), hand-off locks, segments per request, the dcache "
    "lock, WebSphere on LinuxThreads, the x86 growth of contended holds, the synchronisations' waits, from "
    "the declared defaults: median 37.2 % (33.5 % before the waits, 34.6 % before the growth, 32.8 % with a switch per "
    "ms for SPECjbb2000, 26.8 % before ReAIM's activity was read from its workload, "
    "45.6 % on 2026-11-26), 3 of 18 rows unpredictable without themselves (4 before the waits, 7 before "
    "the growth; a parameter they read left unidentified), every refit converged (2026-11-25 with the multipliers: 51.9 %, 11 unpredictable, "
    "2 not converged); the targets below stay as the goal, not widened"))
def test_leave_one_out():
    # ~25 s (18 refits).
    cv = cross_validate_kernel_versions().set_index("id")
    a = cv["percent_error_loo"].abs()
    assert a[["ibmsj.dbench-24-16cpu-mbps", "ibmsj.dbench-26-16cpu-mbps",
              "ibmsj.dbench-24-drop-above-20cpu"]].max() <= 2.0
    assert cv.attrs["median_abs_percent_error"] <= 20.0
    assert cv.attrs["median_abs_percent_error_predictable"] <= 15.0


@pytest.mark.slow
def test_leave_one_benchmark_out():
    # issue 11 part 3 / issue 12 part 3: every row of one benchmark left out at a time, refits from
    # the declared defaults. No parameter belongs to one OSDL benchmark any more, so every left-out
    # OSDL benchmark is predicted from the costs the others set; only the dbench rows read the
    # dbench parameters (CPU per page, the purge costs), so without them those stay unidentified.
    from zmodel.fits.kernel_versions import BENCHMARKS, CALIBRATION

    cv = CALIBRATION.cross_validate(grouped=True)
    assert cv.attrs["refits"] == len(set(BENCHMARKS.values())) == 7
    assert set(cv["group"]) == set(BENCHMARKS.values())
    assert (cv["group"] == cv["id"].map(BENCHMARKS)).all()
    assert cv.attrs["failed_refits"] == int((~cv.drop_duplicates("group")["success"]).sum())
    assert not cv["unidentified_without"].str.contains("k_").any()
    # the rates and the 2.4 peak move with the dbench parameters, so without dbench they rest on
    # their starts; the Figure 1 threshold crossings are whole CPU counts that a parameter step
    # does not move (zmodel.calibration._reads), so they stay scored as predictions
    dbench = cv[cv["group"] == "dbench"].set_index("id")
    for id_ in ("ibmsj.dbench-24-16cpu-mbps", "ibmsj.dbench-26-16cpu-mbps", "ibmsj.dbench-24-drop-above-20cpu"):
        assert {"dbench_cpu_time", "purge", "purge_per_cpu"} <= set(dbench.loc[id_, "unidentified_without"].split(", "))
        assert not dbench.loc[id_, "predictable"]
    assert set(cv.attrs["by_group"]) == set(BENCHMARKS.values())


@pytest.mark.slow
@pytest.mark.xfail(strict=True, reason=(
    "2026-11-28, counts as read (ReAIM's from its published workload, SPECjbb2000's switches from SPEC's "
    "description), hand-off locks, segments per request, the dcache lock, WebSphere on LinuxThreads, a "
    "parameter no remaining row reads held at its start even where the full fit leaves it unidentified: "
    "leave-one-benchmark-out median 52.4 % over 14 rows since the synchronisations' waits are switches "
    "(50.5 % since the x86 growth of contended holds, 67.2 % before it; 65.3 % with a switch per ms for "
    "SPECjbb2000, 56.3 % with ReAIM's earlier reading of 4 switches per ms; now dbench 65 %, decision "
    "support 43 %, DBT-2 65 %, ReAIM 105 % -- no mechanism composed --, SPECweb99 44 % (5 % before the "
    "waits), SPECjAppServer 26 % (84 %), SPECjbb2000 23 % (28 %)); the issue-12 target (25 %) stays"))
def test_leave_one_benchmark_out_target():
    from zmodel.fits.kernel_versions import CALIBRATION

    assert CALIBRATION.cross_validate(grouped=True).attrs["median_abs_percent_error"] <= 25.0


def test_memo_keys_leave_out_only_unread_parameters():
    # The memo key of a 2.4-vs-2.6 pair (and of the I/O-scheduler rows) leaves out parameters
    # its compositions never read; moving such a parameter must leave the compositions' result
    # unchanged to the last bit, or a finite-difference step would reuse a stale value.
    from zmodel.calibration import Model
    from zmodel.fits.kernel_versions import _UNREAD, KernelVersionsModel
    from zmodel.kernel.versions import compose_many

    m = KernelVersionsModel()
    p = m.parameters().valuesdict()
    jobs = {b: (lambda q, b=b: m._pair_job(b, 8, q)) for b in PROFILES}
    jobs["iosched"] = lambda q: m._iosched_job(64, q)
    for name, job in jobs.items():
        key, build, reduce = job(p)
        base = reduce(*compose_many(build()))
        for unread in _UNREAD[name]:
            q = dict(p, **{unread: p[unread] * 0.6 + 1e-7})
            key2, build2, reduce2 = job(q)
            assert key2 == key, (name, unread)
            assert reduce2(*compose_many(build2())) == base, (name, unread)
        # and a parameter the key keeps does move it (the check above can fail)
        q = dict(p, runqueue_hold=p["runqueue_hold"] * 3)
        assert job(q)[0] != key
    assert isinstance(m, Model)


def test_workload_readings_from_published_descriptions():
    """The counts that come from public workload descriptions, re-derived by hand."""
    # SPECweb99's file mix (SPEC, 'The Workload for the SPECweb96 Benchmark', Tables 1-2: 35 % of
    # requests under 1 KB, 50 % 1-10 KB, 14 % 10-100 KB, 1 % 100 KB-1 MB, nine sizes k x 0.1, 1, 10,
    # 100 KB per class) in 1460-byte segments: class 0 one each; class 1 ceil(1024 k / 1460) =
    # 1, 2, 3, 3, 4, 5, 5, 6, 7; class 2 = 8, 15, 22, 29, 36, 43, 50, 57, 64; class 3 = 71, 141,
    # 211, 281, 351, 421, 491, 562, 632
    response = 0.35 * 1 + 0.50 * 36 / 9 + 0.14 * 324 / 9 + 0.01 * 3161 / 9
    assert response == pytest.approx(10.9022, abs=1e-4)
    assert PROFILES["specweb"]["network_segments"] == pytest.approx((1 + response) / 2, rel=1e-12)
    # dcache_lock: 15.7 % utilization of one lock on 8 saturated CPUs at 2.1 us a hold, per 1 ms of CPU
    assert PROFILES["specweb"]["dcache_lookups"] == pytest.approx(0.157 / 8 * 1e-3 / 2.1e-6, rel=1e-12)
    assert PROFILES["specweb"]["dcache_lookups"] == pytest.approx(9.3452, abs=1e-4)   # 0.019625 x 1e-3 / 2.1e-6
    # WebSphere Application Server runs on LinuxThreads under every kernel; no other workload is bound to it
    assert [b for b, spec in PROFILES.items() if spec.get("nptl_capable", True) is False] == ["specjapp"]


def test_specjappserver_gains_nothing_from_nptl():
    # the attribution table lists no nptl contribution for SPECjAppServer (LinuxThreads in both
    # versions) while SPECjbb2000 (IBM JVM 1.4.1, read as NPTL-capable) keeps its one
    from zmodel.fits.kernel_versions import KernelVersionsModel, attribution_table

    p = KernelVersionsModel().parameters().valuesdict()
    t = attribution_table(p)
    changes = t.groupby("row")["change"].apply(set)
    assert not any("nptl" in c for c in changes["osdl.summary-specjapp-8way"])
    assert any("nptl" in c for c in changes["osdl.summary-specjbb-8way"])


def test_specjbb_switches_are_timeslice_ends():
    # SPEC's whitepaper: no disk I/O, no network I/O, no think times, only Java synchronization: a
    # warehouse thread leaves its CPU when its 2.4 timeslice ends, NICE_TO_TICKS(0) = (20 >> 2) + 1 =
    # 6 ticks of 10 ms (HZ = 100): one switch per 60 ms of CPU, 1/60 per 1 ms transaction
    prof = PROFILES["specjbb"]
    assert prof["switches"] == pytest.approx(prof["user_time"] / (((20 >> 2) + 1) * 10e-3), rel=1e-12)
    assert prof["switches"] == pytest.approx(1 / 60, rel=1e-12)
    assert not prof.get("io_per_transaction") and not prof.get("network_requests")


def test_the_specjbb_scenario_preset_carries_the_specjbb_readings():
    # the planner's "specjbb" preset uses the counts the calibrated costs were fitted with
    from zmodel.kernel.scenario import WORKLOAD_KINDS

    for key in ("user_time", "switches", "thread_syncs"):
        assert WORKLOAD_KINDS["specjbb"][key] == pytest.approx(PROFILES["specjbb"][key], rel=1e-12), key


def test_the_web_scenario_preset_carries_the_specweb_readings():
    # the planner's "web" preset uses the counts the calibrated network and dcache costs were read with
    from zmodel.kernel.scenario import WORKLOAD_KINDS

    web = WORKLOAD_KINDS["web"]
    assert web["network_segments"] == pytest.approx(PROFILES["specweb"]["network_segments"], abs=0.005)
    assert web["dcache_lookups"] == pytest.approx(PROFILES["specweb"]["dcache_lookups"], abs=0.05)


def test_dbt2_tick_waits_reproduce_the_osdl_hz_comparison():
    # OSDL, linux-kernel 28 March 2003 (<1048889724.2535.329.camel@ibm-e.pdx.osdl.net>): 2.5.65-mjb2
    # scores 90.95 at HZ=100 and 102.38 at HZ=1000 (cached), 99.26 and 99.92 (non-cached)
    assert DBT2_HZ_SCORES == {"dbt2_cached": (90.95, 102.38), "dbt2_noncached": (99.26, 99.92)}
    k = dbt2_tick_waits()
    assert k > 0
    checks = {c["benchmark"]: c for c in hz_checks()}
    assert checks["dbt2_cached"]["predicted"] == pytest.approx(102.38 / 90.95, rel=1e-9)
    # the non-cached column is predicted, not fitted: the I/O-bound variant gains far less from the
    # shorter tick (measured +0.66 % against +12.6 %), by the model's disks, not by a second count
    cached_gain = checks["dbt2_cached"]["predicted"] - 1
    noncached_gain = checks["dbt2_noncached"]["predicted"] - 1
    assert not checks["dbt2_noncached"]["fitted"]
    assert 0 < noncached_gain < 0.2 * cached_gain
    # both DBT-2 variants compose with the one count; no other benchmark waits on ticks
    for bench in PROFILES:
        w = KernelVersionsModel._workload(bench, 8)
        assert w.tick_waits == (k if bench.startswith("dbt2") else 0.0)


def test_hz_comparison_residuals_reported_with_the_fit(result):
    # the numbers the tick count is read from are shown with their residuals at the fitted values:
    # gains 100 (102.38 / 90.95 - 1) = 12.567 % (cached) and 100 (99.92 / 99.26 - 1) = 0.665 %
    from zmodel.fits.kernel_versions import CALIBRATION

    title = next(t for t in CALIBRATION.tables if "HZ = 100 vs 1000" in t)
    table = CALIBRATION.tables[title](result).set_index("benchmark")
    assert table.loc["dbt2_cached", "measured_gain_pct"] == pytest.approx(12.5673447, rel=1e-7)
    assert table.loc["dbt2_noncached", "measured_gain_pct"] == pytest.approx(0.6649204, rel=1e-6)
    assert list(table["fitted"]) == [True, False]
    assert (table["residual_points"] == table["predicted_gain_pct"] - table["measured_gain_pct"]).all()
    # at the starting values the cached residual is the root the count was solved for
    assert hz_table().set_index("benchmark").loc["dbt2_cached", "residual_points"] == pytest.approx(0.0, abs=1e-8)


def test_reaim_activity_is_read_from_the_workfile():
    # OSDL re-aim-7, data/workfile.new_dbase with data/reaim.config (FILESIZE 10k, POOLSIZE 1m), by hand:
    # the driver's list per child rounds hits / 570 x 100: disk_rd 40 -> 7, disk_rr 40 -> 7,
    # sync_disk_rw 10 -> 2, sync_disk_update 10 -> 2, ..., 103 calls in all. With 256 children each
    # file holds D = 10 + 1024 // 256 = 14 KB:
    #   spawns: 2 system("sync") x (7 + 7) = 28 per child -> 28 / 103
    #   O_SYNC writes: (2 + 2) calls x D / 2 = 2 D = 28; written-back pages: 14 files x 14 KB / 4 KB = 49
    #   switches: 4 x 28 + 2 x 28 = 168 per child -> 168 / 103, plus the timeslice ends, one per 60 ms
    #   of CPU; CPU per job from OSDL's 2.5.69 run on a 4-CPU STP system: 88 children, 5185.88 jobs per
    #   minute for 104.87 s = 9063.8 jobs, 376.01 + 40.28 = 416.29 s of CPU: 45.93 ms a job
    cpu = 416.29 / 9063.8
    assert cpu == pytest.approx(45.93e-3, abs=0.01e-3)
    #   user time at the 1 GHz reference: the 700 MHz STP's CPU per job at the clock ratio, less the
    #   28 / 103 spawns the measured 2.5.69 ran with PTE chains, at LMBench's 2.5.60 'sh proc' on the
    #   1 GHz STP hosts (5292 us; C. White, linux-kernel, 25 Feb 2003): 45.93 x 0.7 - 0.2718 x 5.292 ms
    r = reaim_profile(256)
    assert r["user_time"] == pytest.approx(cpu * 0.7 - 28 / 103 * 5292e-6, rel=1e-4)
    assert r["spawns"] == pytest.approx(28 / 103, rel=1e-12) and r.get("forks", 0) == 0
    assert r["io_per_transaction"] == pytest.approx((28 + 49) / 103, rel=1e-12)
    assert r["switches"] == pytest.approx(168 / 103 + cpu / 60e-3, rel=1e-4)
    # one child: D = 10 + 1024 = 1034 KB, 2 D = 2068 O_SYNC writes, 14 x 1034 / 4 = 3619 pages
    one = reaim_profile(1)
    assert one["io_per_transaction"] == pytest.approx((2068 + 3619) / 103, rel=1e-12)
    assert one["switches"] == pytest.approx((112 + 2 * 2068) / 103 + cpu / 60e-3, rel=1e-4)
    assert PROFILES["reaim"] == r
    for bad in (0, -1, 2.5, True, "8"):
        with pytest.raises(ValueError, match="children"):
            reaim_profile(bad)
    # each load level is composed with its own activity; a list of levels is refused
    m = KernelVersionsModel()
    p = m.parameters().valuesdict()
    assert m.composition("reaim", 8, "2.6.0", p, clients=1)["workload"].io_per_transaction == one["io_per_transaction"]
    with pytest.raises(ValueError, match="clients"):
        m.composition("reaim", 8, "2.6.0", p, clients=[1, 2])


def test_the_fitted_runqueue_hold_admits_the_volanomark_lockmeter():
    """The runqueue hold the OSDL rows ask for agrees with what B. Hartner's lockmeter of 2.4.4 under
    VolanoMark on 8 CPUs (IBM LTC, 14 June 2001) implies for an uncontended switch: its 2392438
    acquisitions at a mean 8.8 us, 1721928 of them in schedule(), are 12.2 us per switch with 5.97 CPUs
    at the lock ('utilized 76.3 %', waiters 'spun for 47.4 %' of the 8 CPUs); read back to one CPU at
    the lock with the x86 growth (an input, checked against the same lockmeter in test_kernel_versions)
    and less the goodness() scan of its 'about 70' runnable tasks at this fit's 20 ns reading, 3.7 us.
    Until the thread synchronisations' waits became switches (2026-11-28) the fit asked for 19 us, five
    times that (the rows admitted 3.7 us then too: chi-square 1.4 of their scatter above its minimum);
    it now asks for 2.6 us."""
    from zmodel.fits.kernel_versions import CALIBRATION, COST_READINGS

    per_switch = 2392438 * 8.8e-6 / 1721928
    k = (0.763 + 8 * 0.474) / 0.763
    one_cpu = per_switch / (1 + HOLD_GROWTH["x86"] * (k - 1)) - 70 * COST_READINGS["scan_time"][0]
    assert one_cpu == pytest.approx(3.7e-6, rel=0.02)
    row = CALIBRATION.run(profile=("runqueue_hold",)).profiles.loc["runqueue_hold"]
    assert row["lo"] <= one_cpu <= row["hi"]
