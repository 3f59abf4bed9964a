"""examples/dasd_baseline.py: synthetic recovery, a monotone projection, and a hand-computed value.

The truth is what examples/make_dasd_sample.py drew the sample from (its ``TRUTH``), and the
committed sample must be exactly what that seeded simulation prints. The projected value is
re-derived by hand: the log-normal moments E[S^r] = sum_j w_j exp(r mu_j + r^2 sigma_j^2 / 2)
(Johnson, Kotz & Balakrishnan, Continuous Univariate Distributions Vol. 1, 1994, ch. 14) and
the Pollaczek-Khinchine mean wait W_q = lambda E[S^2] / (2 (1 - lambda E[S])) (Kleinrock,
Queueing Systems Vol. 1, 1975, Sec. 5.6), written out below with the math module, with the
mean irq-to-end time taken from the dump's own bucket counts.
"""
from __future__ import annotations

import importlib.util
import math
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[1]


def _load(name):
    spec = importlib.util.spec_from_file_location(name, REPO / "examples" / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def maker():
    return _load("make_dasd_sample")


@pytest.fixture(scope="module")
def example():
    return _load("dasd_baseline")


@pytest.fixture(scope="module")
def calibrated(example):
    return example.calibrate()          # (fit, store, dump attrs): one fit for the module (~30 s)


def test_the_sample_is_what_its_generator_prints(maker):
    assert maker.render(maker.simulate()) == maker.SAMPLE.read_text(encoding="utf-8")


def test_synthetic_recovery_inside_the_fits_90_percent_intervals(maker, calibrated):
    fit, store, _ = calibrated
    t = maker.TRUTH
    assert fit.volume.weights.size == len(t["weights"])   # BIC picked the generating number of components
    truth = {"dasd_log_weight_ratio_1": math.log(t["weights"][1] / t["weights"][0]),
             "dasd_log_median_0": math.log(t["medians"][0]), "dasd_log_median_1": math.log(t["medians"][1]),
             "dasd_log_sigma_0": math.log(t["sigmas"][0]), "dasd_log_sigma_1": math.log(t["sigmas"][1])}
    area = store.areas["dasd"]
    # one seeded sample: each interval covers its truth with probability 0.90 over seeds;
    # this seed's sample is checked, not a coverage rate
    for name, value in truth.items():
        lo, hi = area.parameters[name].interval
        assert lo <= value <= hi, (name, lo, value, hi)
    # the mean service time, a derived quantity, from the sampled draws
    es_true = sum(w * m * math.exp(s * s / 2) for w, m, s in zip(t["weights"], t["medians"], t["sigmas"]))
    d = fit.service_draws(2000, seed=1)
    es = np.sum(d["weights"] * d["medians"] * np.exp(d["sigmas"] ** 2 / 2), axis=1)
    assert np.quantile(es, 0.05) <= es_true <= np.quantile(es, 0.95)


def test_projection_is_monotone_in_the_io_rate(example, calibrated):
    _, store, attrs = calibrated
    table = example.project(store, attrs["requests"] / example.SAMPLE_INTERVAL)
    assert table["rate_factor"].tolist() == [1.0, 1.25, 1.5, 2.0]
    for col in ("utilization", "response_time", "response_time_lo", "response_time_hi"):
        assert np.all(np.diff(table[col].to_numpy()) > 0), col
    assert np.all(table["response_time_lo"] < table["response_time"])
    assert np.all(table["response_time"] < table["response_time_hi"])


def test_one_projected_value_by_hand(example, calibrated):
    fit, store, attrs = calibrated
    io_rate = attrs["requests"] / example.SAMPLE_INTERVAL
    table = example.project(store, io_rate)
    w, m, s = fit.volume.weights, fit.volume.medians, fit.volume.sigmas
    es = sum(w[j] * m[j] * math.exp(s[j] ** 2 / 2) for j in range(len(w)))
    es2 = sum(w[j] * m[j] ** 2 * math.exp(2 * s[j] ** 2) for j in range(len(w)))
    lam = 1.5 * io_rate
    wq = lam * es2 / (2 * (1 - lam * es))
    # the dump's irq-to-end counts sit in buckets [8, 16), [16, 32), [32, 64) us: midpoints 12, 24, 48 us
    h = example.SAMPLE.read_text().splitlines()
    row = h[h.index("Histogram of I/O time between irq and end") + 1].split()
    counts = [int(c) for c in row]
    assert counts[2:5] == [c for c in counts if c] and sum(counts) == attrs["requests"]
    mean_end = (12e-6 * counts[2] + 24e-6 * counts[3] + 48e-6 * counts[4]) / sum(counts)
    expected = 5e-6 + wq + es + mean_end
    got = float(table.loc[table["rate_factor"] == 1.5, "response_time"].iloc[0])
    assert got == pytest.approx(expected, rel=1e-9)


def test_the_truth_lies_inside_the_projected_intervals(maker, example, calibrated):
    """The generating volume's own M/G/1 response time at each rate, inside the 90 % band (one seed)."""
    _, store, attrs = calibrated
    t = maker.TRUTH
    table = example.project(store, attrs["requests"] / example.SAMPLE_INTERVAL)
    es = sum(w * m * math.exp(s * s / 2) for w, m, s in zip(t["weights"], t["medians"], t["sigmas"]))
    es2 = sum(w * m * m * math.exp(2 * s * s) for w, m, s in zip(t["weights"], t["medians"], t["sigmas"]))
    for _, r in table.iterrows():
        lam = t["io_rate"] * r["rate_factor"]
        true_r = t["start_latency"] + lam * es2 / (2 * (1 - lam * es)) + es + 0.5 * (t["end_low"] + t["end_high"])
        assert r["response_time_lo"] <= true_r <= r["response_time_hi"], (r["rate_factor"], true_r)


def test_the_example_prints_its_table_and_answer(example, calibrated, monkeypatch, capsys):
    monkeypatch.setattr(example, "calibrate", lambda dump=example.SAMPLE: calibrated)
    assert example.main([]) == 0
    out = capsys.readouterr().out
    assert "+100 %" in out and out.strip().splitlines()[-1].startswith("ANSWER: components=2 io_rate=83.84 R100=")


def test_cli_calibrates_the_dump_and_saves_a_store_the_projection_reads(example, tmp_path, capsys):
    from zmodel import store
    from zmodel.cli import main
    from zmodel.fits.dasd import project_response_time

    out = tmp_path / "params.toml"
    assert main(["calibrate", "dasd", "--measurements", str(example.SAMPLE), "--save", str(out)]) == 0
    assert "measurements: dasd_statistics_sample.txt" in capsys.readouterr().out
    saved = store.load(out)
    assert saved.areas["dasd"].origin == "measurements: dasd_statistics_sample.txt"
    assert "storage" in saved.areas          # the other areas keep the shipped store's values
    table = project_response_time(saved, 83.84, (1.0, 2.0), samples=200)
    assert table["response_time"].is_monotonic_increasing


def _one_component_store(median=2e-3, sigma=0.5, end=20e-6):
    """A hand-made dasd area: one log-normal component, no covariance (point values drawn as such)."""
    from zmodel import store

    p = {"dasd_log_median_0": store.StoredParameter("dasd_log_median_0", math.log(median), "ln s", calibrated=False),
         "dasd_log_sigma_0": store.StoredParameter("dasd_log_sigma_0", math.log(sigma), "1", calibrated=False),
         "dasd_mean_end_time": store.StoredParameter("dasd_mean_end_time", end, "s", calibrated=False)}
    return store.EMPTY.replace_area(store.AreaParameters(area="dasd", parameters=p))


def test_projection_of_a_single_lognormal_by_hand():
    from zmodel.fits.dasd import project_response_time

    # E[S] = 2 ms e^{0.125}, E[S^2] = 4e-6 e^{0.5}; lambda = 100/s
    es, es2, lam = 2e-3 * math.exp(0.125), 4e-6 * math.exp(0.5), 100.0
    table = project_response_time(_one_component_store(), lam, (1.0,), samples=10, start_latency=0.0)
    assert table["utilization"][0] == pytest.approx(lam * es, rel=1e-12)
    assert table["response_time"][0] == pytest.approx(lam * es2 / (2 * (1 - lam * es)) + es + 20e-6, rel=1e-12)


def test_projection_saturates_by_the_library_policy():
    from zmodel.fits.dasd import project_response_time
    from zmodel.queueing import SaturationWarning

    import warnings

    es = 2e-3 * math.exp(0.125)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        table = project_response_time(_one_component_store(), 0.8 / es, (1.0, 2.0), samples=10)
    assert [w.category for w in caught] == [SaturationWarning]      # exactly one, the library policy
    assert math.isfinite(table["response_time"][0]) and math.isinf(table["response_time"][1])


@pytest.mark.parametrize("kwargs,words", [
    (dict(io_rate=0.0), "io_rate must be a positive finite rate"),
    (dict(io_rate=float("nan")), "io_rate must be a positive finite rate"),
    (dict(io_rate=10.0, rate_factors=(1.0, -1.0)), "rate_factors must be positive finite numbers"),
    (dict(io_rate=10.0, rate_factors=()), "rate_factors must be positive finite numbers"),
    (dict(io_rate=10.0, start_latency=-1.0), "start_latency must be non-negative"),
])
def test_projection_bad_input_is_named(kwargs, words):
    from zmodel.fits.dasd import project_response_time

    with pytest.raises(ValueError, match=words):
        project_response_time(_one_component_store(), **kwargs)


def test_projection_needs_a_dasd_area():
    from zmodel import store
    from zmodel.fits.dasd import project_response_time

    with pytest.raises(ValueError, match="parameters hold no dasd area"):
        project_response_time(store.EMPTY, 10.0)


def test_projection_refuses_a_service_law_without_intervals():
    import dataclasses

    from zmodel.fits.dasd import project_response_time

    st = _one_component_store()
    area = st.areas["dasd"]
    p = dict(area.parameters)
    p["dasd_log_median_0"] = dataclasses.replace(p["dasd_log_median_0"], calibrated=True)
    with pytest.raises(ValueError, match="no interval for dasd_log_median_0"):
        project_response_time(st.replace_area(dataclasses.replace(area, parameters=p)), 10.0)
