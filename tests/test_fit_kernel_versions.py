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
    OSDL_ROWS,
    PROFILES,
    SHAPE_IDS,
    calibrate_kernel_versions,
    cross_validate_kernel_versions,
    measurements,
)

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
    k = p["k_specjbb"]
    sw, th = prof["switches"] * k, prof["thread_syncs"] * k
    for cpus, id_ in ((4, "osdl.summary-specjbb-4way"), (8, "osdl.summary-specjbb-8way")):
        base26 = prof["user_time"] + sw * (p["switch_time"] + p["runqueue_hold"]) + th * p["thread_sync_time"]
        # 2.4: goodness scan over the c runnable threads, LinuxThreads, global runqueue lock
        base24 = (prof["user_time"] + sw * (p["switch_time"] + p["scan_time"] * cpus + p["runqueue_hold"])
                  + th * (p["thread_sync_time"] + p["linuxthreads_extra"]))
        # the 2.4 runqueue lock is held across the goodness() scan of the c runnable threads
        h, c = p["runqueue_hold"] + p["scan_time"] * cpus, p["spinlock_handoff"]
        z = base24 / sw - h
        # the hand-off chain (Boyd-Wickizer et al. 2012, sec. 3): serial time h + n c with n CPUs at the lock
        w = [math.factorial(cpus) / math.factorial(cpus - n) * math.prod((h + j * c) / z for j in range(1, n + 1))
             for n in range(cpus + 1)]
        pk = [v / sum(w) for v in w]
        x_lock = sum(pk[n] / (h + n * c) for n in range(1, cpus + 1))
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
    used = res[res["used_in_fit"]]
    fitted = np.where(used["satisfied"].fillna(False).astype(bool), 0.0, used["percent_error"].abs())
    fitted = fitted[np.isfinite(fitted)]                    # the measured 0 % has no relative error
    assert np.median(fitted) <= 5.0                         # issue target on the fitted numbers
    for id_ in ("ibmsj.dbench-24-16cpu-mbps", "ibmsj.dbench-26-16cpu-mbps"):
        assert err[id_] <= 0.5, id_
    # "drops above 20 processors", read as a peak in [20, 24] CPUs (zmodel/_data/readings.csv):
    # met to the same 0.5 % (the residual is the relative distance outside the interval)
    assert res.loc["ibmsj.dbench-24-drop-above-20cpu", "kind"] == "interval"
    assert abs(res.loc["ibmsj.dbench-24-drop-above-20cpu", "residual"]) <= 0.005
    for id_ in ("osdl.summary-dbt2-cached-8way", "osdl.summary-reaim-4way", "osdl.summary-reaim-8way",
                "osdl.iosched-heavy-load"):
        assert err[id_] <= 2.0, id_
    for id_ in ("osdl.summary-specweb-4way", "osdl.summary-specweb-8way"):
        assert err[id_] <= 5.0, id_
    for id_ in ("osdl.summary-specjbb-4way", "osdl.summary-specjbb-8way", "osdl.summary-dss-8way"):
        assert err[id_] <= 10.0, id_
    # light load: within 2.5 percentage points of "same performance"
    assert abs(res.loc["osdl.iosched-light-load", "predicted"]) <= 2.5
    # NOT explained: SPECjAppServer's 7 -> 14 growth (the shared lock costs give 10 -> 12) ...
    # The documented values (OSDL "Results Summary": "SPECjAppServer 7 14") and what the model
    # does with them: a positive gain that grows with the CPUs, but by less than the documented
    # doubling from 4 to 8 CPUs (no window drawn around today's percent errors).
    m4, m8 = res.loc["osdl.summary-specjapp-4way", "measured"], res.loc["osdl.summary-specjapp-8way", "measured"]
    assert (m4, m8) == (7, 14)
    p4, p8 = res.loc["osdl.summary-specjapp-4way", "predicted"], res.loc["osdl.summary-specjapp-8way", "predicted"]
    assert 0 < p4 < p8 and p8 - p4 < m8 - m4
    # ... and DBT-2 non-cached: I/O bound on 12 disks in the model, so no kernel gain (8.64 printed)
    assert res.loc["osdl.summary-dbt2-noncached-8way", "predicted"] < 1.0
    # the conflicting slide value "4-way: 1%" is predicted, not fitted
    assert not res.loc[list(EXCLUDED), "used_in_fit"].any()
    # the Figure 1 thresholds are met (similar up to 4 within the rounding of the crossing)
    assert res.loc["ibmsj.fig1-26-better-from-8cpu", "satisfied"]
    assert res.loc["ibmsj.fig1-similar-upto-4cpu", "predicted"] == pytest.approx(4.0, abs=1e-3)


def test_parameters_identified(result):
    t = result.parameter_table
    free = t[t["vary"]]
    assert free["identifiable"].all() and not free["at_bound"].any()
    assert result.success


def test_shape_claims(result):
    checks = result.to_frame("shape_checks").set_index("id")["passed"]
    failing = set(checks.index[checks == False])  # noqa: E712
    # the deck's own table contradicts "improvement over 2.4 is greater with increased I/O
    # workload" (cached 20.00 > non-cached 8.64): the model sides with the table
    assert failing == {"osdl.dbt2-improvement-grows-with-io"}
    assert checks.notna().all()


@pytest.mark.slow
@pytest.mark.xfail(strict=True, reason=(
    "2026-11-25, from the declared defaults after the interval readings and priors: median 51.9 % "
    "(40.6 % over the predictable rows), 11 of 18 rows unpredictable without themselves, 2 refits not "
    "converged -- the per-benchmark activity multipliers (issue 12 part 3) leave each pair's rows to "
    "themselves; the targets below stay as the goal, not widened"))
def test_leave_one_out():
    # ~90 s. Figures at the time of writing: median |error| of the left-out percent-change /
    # value 18.6 % over all 18 rows, 14.1 % over the rows whose refit stays identified; the dbench
    # rows predict each other within 1 %, the pairs (ReAIM, SPECweb99, SPECjAppServer) do not:
    # their 4 -> 8-way growth is carried by one shared lock cost and one multiplier per pair.
    cv = cross_validate_kernel_versions().set_index("id")
    a = cv["percent_error_loo"].abs()
    assert a[["ibmsj.dbench-24-16cpu-mbps", "ibmsj.dbench-26-16cpu-mbps",
              "ibmsj.dbench-24-drop-above-20cpu"]].max() <= 2.0
    assert cv.attrs["median_abs_percent_error"] <= 20.0
    assert cv.attrs["median_abs_percent_error_predictable"] <= 15.0
    assert a["osdl.summary-specweb-8way"] > 50.0      # stated failure: not predicted from its 4-way


@pytest.mark.slow
def test_leave_one_benchmark_out():
    # issue 11 part 3: every row of one benchmark left out at a time, refits from the declared
    # defaults. Only the left-out benchmark's rows carry its activity multiplier (PROFILES: one
    # k_<benchmark> per benchmark), so its refit cannot identify it: the left-out prediction
    # rests on the multiplier's declared start (1), and the row is reported as unpredictable.
    from zmodel.fits.kernel_versions import BENCHMARKS, CALIBRATION

    cv = CALIBRATION.cross_validate(grouped=True)
    assert cv.attrs["refits"] == len(set(BENCHMARKS.values())) == 7
    assert set(cv["group"]) == set(BENCHMARKS.values())
    assert (cv["group"] == cv["id"].map(BENCHMARKS)).all()
    assert cv.attrs["failed_refits"] == int((~cv.drop_duplicates("group")["success"]).sum())
    own = {"DBT-2": "k_dbt2", "ReAIM": "k_reaim", "SPECweb99": "k_specweb", "SPECjAppServer": "k_specjapp",
           "SPECjbb2000": "k_specjbb"}
    for _, row in cv.iterrows():
        if row["group"] in own:
            assert own[row["group"]] in row["unidentified_without"].split(", "), row["id"]
            assert not row["predictable"]
    assert set(cv.attrs["by_group"]) == set(BENCHMARKS.values())


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
