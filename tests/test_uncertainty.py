"""Intervals on predictions: sampled parameters propagated through the planner, and their coverage.

Expected values come from outside the code: the specjbb demand written out by hand
(one CPU, one warehouse thread: X = 1/D, D = user + switches (switch + runqueue hold) +
syncs x sync, as in tests/test_kernel_scenario.py), quantiles of a uniform law, and a
seeded coverage experiment judged against the binomial 99 % band.
"""
from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

from zmodel import store
from zmodel.kernel.scenario import WORKLOAD_KINDS, Scenario
from zmodel.kernel.versions import KernelCosts

SPECJBB = {"hardware": {"processor": "z990", "cpus": 1}, "kernel": {"version": "2.6.10"},
           "workload": {"kind": "specjbb"}}
A, B = 2e-5, 6e-5   # a stored "readings range" of the runqueue hold time [s]


def _store():
    return store.ParameterStore.from_dict({"areas": {"kernel_versions": {"parameters": {
        "runqueue_hold": {"value": 4e-5, "unit": "s", "calibrated": True, "interval": [A, B],
                          "method": "readings range", "bounds": [0.0, 1e-4]}}}}})


def _x(hold):
    c, p = KernelCosts(), WORKLOAD_KINDS["specjbb"]
    # each synchronisation is a wait: two switches besides its own CPU
    return 1.0 / (p["user_time"] + (p["switches"] + 2 * p["thread_syncs"]) * (c.switch_time + hold)
                  + p["thread_syncs"] * c.thread_sync_time)


def test_interval_of_a_uniform_calibrated_parameter():
    s = Scenario.from_dict(SPECJBB, parameters=_store())
    n = 2000
    df = s.predict(samples=n, seed=11, vary_assumed=False)
    # X decreases with the hold time: its 5 % point is X at the hold's 95 % point and vice versa;
    # an empirical quantile of n uniforms is within 5 sd = 5 sqrt(p (1-p) / n) (B - A) of the true one
    tol = 5 * math.sqrt(0.05 * 0.95 / n) * (B - A)
    lo_hold, hi_hold = A + 0.05 * (B - A), A + 0.95 * (B - A)
    assert _x(hi_hold + tol) <= df["throughput_lo"].iloc[0] <= _x(hi_hold - tol)
    assert _x(lo_hold + tol) <= df["throughput_hi"].iloc[0] <= _x(lo_hold - tol)
    assert df["throughput"].iloc[0] == pytest.approx(_x(4e-5), rel=1e-12)
    # response time = D for one thread with no think time: the same ends, inverted (to one order
    # statistic: the 5 % point of R is the 100th smallest of 2000, the 95 % point of X the 101st largest)
    assert df["response_time_lo"].iloc[0] == pytest.approx(1 / df["throughput_hi"].iloc[0], rel=1e-3)
    # seeded: the same seed, the same interval
    again = s.predict(samples=n, seed=11, vary_assumed=False)
    assert again["throughput_lo"].iloc[0] == df["throughput_lo"].iloc[0]


def test_assumed_parameters_widen_the_interval():
    s = Scenario.from_dict(SPECJBB, parameters=_store())
    calib = s.predict(samples=300, seed=2, vary_assumed=False)
    both = s.predict(samples=300, seed=2)
    width = lambda d: float(d["throughput_hi"].iloc[0] - d["throughput_lo"].iloc[0])  # noqa: E731
    assert width(both) > width(calib)
    for col in ("throughput", "response_time", "cpu_utilization"):
        assert (both[f"{col}_lo"] <= both[f"{col}_hi"]).all()


def test_sweep_intervals_have_one_row_per_point():
    s = Scenario.from_dict(SPECJBB, parameters=_store())
    df = s.predict({"hardware.cpus": [1, 2]}, samples=50, seed=0, vary_assumed=False)
    assert list(df["hardware.cpus"]) == [1, 2]
    assert {"throughput_lo", "throughput_hi", "memory_overhead_lo"} <= set(df.columns)


def test_sensitivity_by_hand():
    s = Scenario.from_dict(SPECJBB, parameters=_store())
    t = s.sensitivity()
    assert t.attrs["output"] == "throughput"
    row = t.set_index("parameter").loc["runqueue_hold"]
    assert bool(row["calibrated"]) and (row["low"], row["high"]) == (A, B)
    assert row["output_at_low"] == pytest.approx(_x(A), rel=1e-12)
    assert row["output_at_high"] == pytest.approx(_x(B), rel=1e-12)
    assert list(t["effect"]) == sorted(t["effect"], reverse=True)


@pytest.mark.parametrize("kwargs,words", [({"samples": -1}, "samples"), ({"samples": True}, "samples"),
                                          ({"samples": 10 ** 9}, "samples")])
def test_bad_samples(kwargs, words):
    s = Scenario.from_dict(SPECJBB, parameters=_store())
    with pytest.raises(ValueError, match=words):
        s.predict(**kwargs)


def test_interval_coverage_on_synthetic_data():
    """200 seeded replications of a calibration with known truth: the 90 % interval of a
    prediction covers the truth at a rate inside the binomial 99 % band around 0.90."""
    from zmodel.calibration import Model, calibrate

    truth, sigma, xs, x_new = 2.0, 0.05, np.linspace(1.0, 3.0, 20), 5.0
    rng = np.random.default_rng(20261124)
    reps, covered = 200, 0
    for r in range(reps):
        m = Model({"a": 1.0})
        for k, x in enumerate(xs):
            m.add_predictor(f"syn.y{k}", lambda p, x=x: p["a"] * x)
        y = truth * xs + rng.normal(0.0, sigma, xs.size)
        data = pd.DataFrame({"id": [f"syn.y{k}" for k in range(xs.size)], "kind": "absolute",
                             "value_num": y, "unit": "1"})
        fit = calibrate(m, data, scale="absolute")
        area = store.area_from_result("syn", fit)
        draws = store.ParameterStore(areas={"syn": area}).sample(1000, seed=r)["a"]
        pred = draws * x_new
        lo, hi = np.quantile(pred, [0.05, 0.95])
        covered += lo <= truth * x_new <= hi
    rate = covered / reps
    half = 2.5758 * math.sqrt(0.9 * 0.1 / reps)   # binomial 99 % band (normal approximation)
    assert 0.9 - half <= rate <= 0.9 + half, rate


def test_cli_samples_and_sensitivity(tmp_path, capsys):
    from zmodel.cli import main

    scenario = tmp_path / "s.toml"
    scenario.write_text('[hardware]\nprocessor = "z990"\ncpus = 1\n[kernel]\nversion = "2.6.10"\n'
                        '[workload]\nkind = "specjbb"\n')
    assert main(["plan", str(scenario), "--samples", "20", "--format", "csv"]) == 0
    header = capsys.readouterr().out.splitlines()[0]
    assert "throughput_lo [transactions/s]" in header and "response_time_hi [s]" in header
    assert main(["plan", str(scenario), "--samples", "20", "--fixed-assumed", "--format", "csv"]) == 0
    assert "throughput_lo" in capsys.readouterr().out.splitlines()[0]
    assert main(["plan", str(scenario), "--samples", "20", "--format", "json"]) == 0   # the draws' basis
    intervals = json.loads(capsys.readouterr().out)["intervals"]
    assert intervals["samples"] == 20 and intervals["seed"] == 0 and intervals["level"] == 0.9
    assert intervals["model_error"].startswith("kernel_versions: leave-one-benchmark-out, ")
    assert main(["plan", str(scenario), "--sensitivity", "--format", "csv"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("parameter,calibrated,value,low,high")
    for argv, words in ((["--samples", "-2"], "--samples must be"), (["--samples", "x"], "--samples"),
                        (["--sensitivity", "--sweep", "hardware.cpus=1,2"], "takes no --sweep")):
        assert main(["plan", str(scenario), *argv]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and words in err


def test_two_scenarios_sampled_with_one_seed_share_their_common_parameters_draws():
    # common random numbers: another processor count, kernel and channel set-up use other
    # parameters besides, but every parameter both use is drawn identically (shipped store)
    a = Scenario.from_dict(SPECJBB)
    b = Scenario.from_dict({"hardware": {"processor": "z990", "cpus": 4, "channel": "FICON-4G", "channels": 2},
                            "kernel": {"version": "2.4.21"}, "workload": {"kind": "specjbb"}})
    da, db = a.draws(50, seed=3), b.draws(50, seed=3)
    common = set(da) & set(db)
    assert len(common) >= 10
    assert all(np.array_equal(da[n], db[n]) for n in common)
    assert not all(np.array_equal(da[n], a.draws(50, seed=4)[n]) for n in common)


def test_sysfs_memory_interval_keeps_the_paper_reading():
    # the shipped store's bytes per sysfs file is read off ibmsj's "50 to 100 MB more" for an assumed
    # reference LPAR of 5000 devices x 10 files; the files per device are assumed and drawn. The reading
    # fixes the memory per device, 50..100 MiB / 5000 = 10485.76..20971.52 B, whatever the draw of the
    # files: for 3000 devices the 90 % interval lies inside 3000 x that range (independent draws of the
    # two factors put it at 2.2 MB..0.6 GB for 1024 devices)
    sc = Scenario.from_dict({"hardware": {"processor": "z990", "cpus": 2}, "kernel": {"version": "2.6.0"},
                             "workload": {"kind": "web", "clients": 10, "devices": 3000}})
    df = sc.predict(samples=200, seed=0)
    lo, hi, point = (float(df[c].iloc[0]) for c in ("memory_overhead_lo", "memory_overhead_hi", "memory_overhead"))
    assert 3000 * 10485.76 * (1 - 1e-9) <= lo <= point <= hi <= 3000 * 20971.52 * (1 + 1e-9)
    assert point == pytest.approx(3000 * 10 * 1500.0, rel=1e-12)   # the stored point: 10 files x 1500 B


# --------------------------------------------------------------------------- the composed model's error
ERRORS = (0.3, -0.4)   # left-out log errors of the composition's fit: s = sqrt((0.09 + 0.16) / 2)


def _store_with_error():
    d = {"areas": {"kernel_versions": {"parameters": {
        "runqueue_hold": {"value": 4e-5, "unit": "s", "calibrated": True, "interval": [A, B],
                          "method": "readings range", "bounds": [0.0, 1e-4]}},
        "model_error": {"method": "leave-one-benchmark-out", "ids": ["doc.a", "doc.b"], "log_errors": list(ERRORS)}}}}
    return store.ParameterStore.from_dict(d)


def test_prediction_interval_adds_the_composed_models_error():
    from scipy import integrate, stats

    n = 2000
    df = Scenario.from_dict(SPECJBB, parameters=_store_with_error()).predict(samples=n, seed=5, vary_assumed=False)
    s = math.sqrt((0.09 + 0.16) / 2)

    def cdf(q):   # P(X(h) exp(s T) <= q): h uniform on [A, B], T Student's t with 2 degrees of freedom
        return integrate.quad(lambda h: stats.t.cdf(math.log(q / _x(h)) / s, 2), A, B)[0] / (B - A)

    # a sampled 5 % (95 %) point sits where the true CDF is 0.05 (0.95) to within 5 binomial sd
    tol = 5 * math.sqrt(0.05 * 0.95 / n)
    assert abs(cdf(df["throughput_prediction_lo"].iloc[0]) - 0.05) < tol
    assert abs(cdf(df["throughput_prediction_hi"].iloc[0]) - 0.95) < tol
    # the parameters' interval is the draws' alone, as without an error
    plain = Scenario.from_dict(SPECJBB, parameters=_store()).predict(samples=n, seed=5, vary_assumed=False)
    assert df["throughput_lo"].iloc[0] == plain["throughput_lo"].iloc[0]
    assert "throughput_prediction_lo" not in plain and "model_error" not in plain.attrs
    assert df.attrs["model_error"].startswith("kernel_versions: leave-one-benchmark-out, 2 rows")


CHANNEL_ERRORS = (0.5, -0.1, 0.2)   # left-out log errors of a channel fit


def _store_with_channel_error():
    d = _store_with_error().to_dict()
    d["areas"]["channels"] = {"parameters": {"ficon_command_time": {
        "value": 1 / 7200, "unit": "s", "calibrated": True, "interval": [1e-4, 2e-4], "method": "readings range",
        "bounds": [5e-6, 1e-3]}},
        "model_error": {"method": "leave-one-out", "ids": ["doc.c", "doc.d", "doc.e"],
                        "log_errors": list(CHANNEL_ERRORS)}}
    return store.ParameterStore.from_dict(d)


FICON_LOAD = {"hardware": {"processor": "z990", "cpus": 2, "storage_server": "DS8300", "channel": "FICON-4G",
                           "channels": 4},
              "kernel": {"version": "2.6.10"},
              "workload": {"kind": "random_read", "io_rate": 1000.0, "block_size": 4096}}


def test_a_drawn_channel_time_adds_the_channel_fits_error():
    # the prediction carries the error of each fit whose parameters it draws, beside the composition's own
    # (whose benchmarks had no channel): one independent draw of each, their logs added
    st = _store_with_channel_error()
    sc = Scenario.from_dict(FICON_LOAD, parameters=st)
    assert "ficon_command_time" in sc.used_parameters()
    assert list(sc.model_errors()) == ["kernel_versions", "channels"]
    factors = sc.model_error_factors(300, seed=4)
    own = [st.areas[a].model_error.sample(300, 4, a) for a in ("kernel_versions", "channels")]
    assert factors.shape == (300, 1)
    effect = sc.component_error_effects("channels", own[1])
    np.testing.assert_allclose(np.log(factors), own[0][:, None] + effect, rtol=1e-12, atol=1e-15)
    # a closed load without I/O draws no channel time: the composition's error alone
    assert list(Scenario.from_dict(SPECJBB, parameters=st).model_errors()) == ["kernel_versions"]
    # no store, no error: point draws only
    assert Scenario.from_dict(FICON_LOAD, parameters=store.EMPTY).model_errors() == {}
    df = sc.predict(samples=40, seed=0)
    assert df.attrs["model_error"].startswith("kernel_versions: leave-one-benchmark-out, 2 rows")
    assert "; channels: leave-one-out, 3 rows" in df.attrs["model_error"]


def test_the_channel_error_reaches_the_headline_as_far_as_the_headline_follows_the_channel():
    st = _store_with_channel_error()
    # one path, 2000 readers without think time: the throughput is the channel's command rate,
    # 1 / ficon_command_time, so a channel model off by e^e moves it by exactly e^-e
    bound = {"hardware": {"processor": "z990", "cpus": 8, "storage_server": "DS8300", "channel": "FICON-4G",
                          "channels": 1},
             "kernel": {"version": "2.6.10"},
             "workload": {"kind": "random_read", "clients": 2000, "block_size": 4096}}
    sc = Scenario.from_dict(bound, parameters=st)
    x = float(sc.predict()["throughput"].iloc[0])
    assert x == pytest.approx(7200.0, rel=1e-3)          # 1 / (1/7200 s), the store's value above
    e = np.array([-0.9, -0.3, 0.0, 0.05, 0.4, 1.1])
    np.testing.assert_allclose(sc.component_error_effects("channels", e)[:, 0], -e, atol=2e-3)
    # at a grid point the effect is the prediction itself: the extreme draws are grid points
    t = 1 / 7200
    slow = float(sc.with_values({"ficon_command_time": t * math.exp(1.1)}).predict()["throughput"].iloc[0])
    assert sc.component_error_effects("channels", e)[-1, 0] == pytest.approx(math.log(slow / x), rel=1e-12)
    # a light open load on four paths hardly waits for its channels: a slower channel lengthens its
    # response a little, a faster one shortens it a little, never below its time without queueing
    light = Scenario.from_dict(FICON_LOAD, parameters=st).component_error_effects("channels", e)[:, 0]
    assert np.all(np.diff(light) > 0) and light[2] == 0.0 and -0.1 < light[0] and light[-1] < 0.5
    # a point saturated at the stored values keeps its draws' values (no effect); one that a slower
    # channel saturates gets an infinite response time from that error on
    over = {**FICON_LOAD, "hardware": {**FICON_LOAD["hardware"], "channels": 1},
            "workload": {**FICON_LOAD["workload"], "io_rate": 20000.0}}
    sat = Scenario.from_dict(over, parameters=st)
    assert math.isinf(float(sat.predict()["response_time"].iloc[0]))
    assert sat.component_error_effects("channels", e).tolist() == [[0.0]] * len(e)
    near = Scenario.from_dict({**over, "workload": {**over["workload"], "io_rate": 6000.0}}, parameters=st)
    g = near.component_error_effects("channels", e)[:, 0]
    assert np.isfinite(g[:3]).all() and math.isinf(g[-1])   # 6000 I/O/s on a 7200/e^1.1 = 2400 I/O/s path


def test_an_open_load_gets_the_prediction_interval_of_its_response_time():
    sc = Scenario.from_dict({"hardware": {"processor": "z990", "cpus": 2, "storage_server": "DS8300",
                                          "channel": "FICON-4G", "channels": 4},
                             "kernel": {"version": "2.6.10"},
                             "workload": {"kind": "random_read", "io_rate": 1000.0, "block_size": 4096}},
                            parameters=_store_with_error())
    assert sc.headline() == "response_time"
    df = sc.predict(samples=40, seed=0)
    assert {"response_time_prediction_lo", "response_time_prediction_hi"} <= set(df.columns)
    assert "throughput_prediction_lo" not in df


def test_p_saturated_is_the_probability_that_a_drawn_channel_cannot_carry_the_load():
    # one path offered lam I/O/s saturates where lam x ficon_command_time >= 1 (the channel processor's
    # capacity; the response time is finite just below it); the command time is drawn uniformly from
    # its readings range [T0, T1], so P(saturated) = (T1 - 1/lam) / (T1 - T0) = 4/7 at lam = 7000
    t0, t1, lam, n = 1e-4, 2e-4, 7000.0, 200
    st = store.ParameterStore.from_dict({"areas": {"channels": {"parameters": {"ficon_command_time": {
        "value": 1.5e-4, "unit": "s", "calibrated": True, "interval": [t0, t1], "method": "readings range",
        "bounds": [5e-6, 1e-3]}}}}})
    one_path = {**FICON_LOAD, "hardware": {**FICON_LOAD["hardware"], "cpus": 8, "channels": 1}}
    sweep = {"workload.io_rate": [lam, 12000.0]}
    df = Scenario.from_dict(one_path, parameters=st).predict(sweep, samples=n, seed=3, vary_assumed=False)
    p = (t1 - 1.0 / lam) / (t1 - t0)
    assert p == pytest.approx(4 / 7)
    # the seeded fraction within 4 binomial standard deviations of the probability
    assert abs(df["p_saturated"].iloc[0] - p) <= 4 * math.sqrt(p * (1 - p) / n)
    # 12000 I/O/s: no drawn path carries it (1/12000 s < T0)
    assert df["p_saturated"].iloc[1] == 1.0
    # more than 5 % of the draws saturated: the interval's upper end is infinite (no interpolation)
    assert math.isinf(df["response_time_hi"].iloc[0])
    # without a model error in the store there is no prediction-level fraction
    assert "p_saturated_prediction" not in df
    # point values carry no fraction
    assert "p_saturated" not in Scenario.from_dict(one_path, parameters=st).predict(sweep)
