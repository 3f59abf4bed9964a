"""Calibration of the memory-management models (zmodel.fits.kernel_memory).

Expected values are the seeds' printed numbers: IBM Systems Journal (seed 000), Figure 1
text: "increased from 1500 MB per second to 3250 MB per second" at 16 processors, "quite
similar" up to four, "much better" from eight, 2.4 "drops significantly when there are
more than 20 processors"; OSDL deck (seed 001): "16M of low memory per process for PTEs,
1GB for 64 processes"; IBM paper: "50 to 100 MB more memory". The dbench curve is
re-derived by hand here from the fitted parameters (finite-source queue, Kleinrock 1975,
§3.9) rather than taken from the model.
"""
import math

import numpy as np
import pandas as pd
import pytest

from zmodel.calibration import calibrate
from zmodel.fits import usl
from zmodel.fits.kernel_memory import (
    FIT_KINDS,
    SHAPE_IDS,
    KernelMemoryModel,
    calibrate_kernel_memory,
    cross_validate_kernel_memory,
    measurements,
)

FIG1 = ["ibmsj.dbench-24-16cpu-mbps", "ibmsj.dbench-26-16cpu-mbps", "ibmsj.dbench-24-drop-above-20cpu"]


@pytest.fixture(scope="module")
def result():
    return calibrate_kernel_memory()


@pytest.fixture(scope="module")
def loo():
    return cross_validate_kernel_memory()


def _by_hand(kernel, n, p):
    """Pages/s by hand: delay demand Z(N) and, for 2.4, an M/M/1//N serialised station."""
    r = p["ipte_relative"]
    if kernel == "2.4":
        z = p["cpu_time"] + 2 * p["iske"] + p["sske"] + 3 * n * (p["purge"] + p["purge_per_cpu"] * n)
        s = p["serial_time_24"]
        terms = [math.factorial(n) / math.factorial(n - k) * (s / z) ** k for k in range(n + 1)]
        return (1 - 1 / sum(terms)) / s
    z = p["cpu_time"] + p["iske"] + p["sske"] + p["rrbe"] + n * r * (p["purge"] + p["purge_per_cpu"] * n)
    return n / z


def _mbps(kernel, n, p):
    return _by_hand(kernel, n, p) * 4096 / 1e6


def test_figure1_rows_are_those_of_the_usl_fit():
    # the same rows, read the same way (the reading lives once, in zmodel/_data/readings.csv)
    ours, theirs = measurements().set_index("id")["kind"], usl.measurements().set_index("id")["kind"]
    assert all(ours[i] == theirs[i] for i in usl.FIGURE1_ROWS)
    assert set(usl.SHAPE_IDS) <= set(SHAPE_IDS)


def test_rows_come_from_the_catalog_with_provenance():
    rows = measurements().set_index("id")
    assert rows.loc["ibmsj.dbench-24-16cpu-mbps", "value_num"] == 1500
    assert rows.loc["osdl.pte-lowmem-per-process-16gb", "value_num"] == 16
    assert set(rows["source"]) == {"000_bf0694975d199a2d.txt", "001_37b528ecce68b8bf.txt"}
    assert len(rows) == len(usl.FIGURE1_ROWS) + len(FIT_KINDS) + len(SHAPE_IDS)


def test_reproduces_the_16_cpu_rates(result):
    p = result.params.valuesdict()
    # the paper prints 1500 and 3250 (2-3 significant digits): within 1 %
    assert _mbps("2.4", 16, p) == pytest.approx(1500, rel=0.01)
    assert _mbps("2.6", 16, p) == pytest.approx(3250, rel=0.01)


def test_linux_24_peaks_where_the_reading_puts_it_and_drops(result):
    p = result.params.valuesdict()
    x = [_mbps("2.4", n, p) for n in range(1, 65)]
    # "drops significantly when there are more than 20 processors": a peak in [20, 24] CPUs
    # (zmodel/_data/readings.csv)
    assert 20 <= int(np.argmax(x)) + 1 <= 24
    assert x[31] < 0.95 * x[19]                         # "drops significantly"
    y = [_mbps("2.6", n, p) for n in (20, 32)]
    assert y[1] > y[0]                                   # 2.6 "does much better"


def test_similar_up_to_four_and_much_better_from_eight(result):
    p = result.params.valuesdict()
    for n in (1, 2, 3, 4):
        assert _mbps("2.4", n, p) / _mbps("2.6", n, p) >= 0.85 - 1e-3
    for n in (8, 12, 16, 24, 32):
        assert _mbps("2.6", n, p) / _mbps("2.4", n, p) >= 1.25


def test_page_table_rows_are_exact(result):
    res = result.to_frame("residuals").set_index("id")
    for i in ("osdl.pte-lowmem-per-shared-page", "osdl.pte-lowmem-per-process-16gb",
              "osdl.pte-lowmem-64-processes", "osdl.pte-example-processes"):
        assert res.loc[i, "predicted"] == pytest.approx(res.loc[i, "measured"], rel=1e-12)
    # 16 GiB / 4 KiB x 4 B = 16 MiB; 64 x 16 MiB = 1 GiB; 1 GiB / 16 MiB = 64
    assert res.loc["osdl.pte-lowmem-per-process-16gb", "predicted"] == 16 * 2 ** 30 / 4096 * 4 / 2 ** 20


def test_sysfs_range_and_counts(result):
    res = result.to_frame("residuals").set_index("id")
    mem = res.loc["ibmsj.sysfs-extra-memory-low", "predicted"]
    assert 50 <= mem <= 100
    p = result.params.valuesdict()
    assert mem == pytest.approx(p["sysfs_devices"] * p["sysfs_files_per_device"] * p["sysfs_bytes_per_file"]
                                / 2 ** 20, rel=1e-12)
    assert "sysfs_bytes_per_file" in result.flagged      # only bounded by the range: must be flagged


def test_residual_targets(result):
    res = result.to_frame("residuals").set_index("id")
    assert res["used_in_fit"].all() and set(res.index) == set(FIT_KINDS) | set(usl.FIGURE1_ROWS)
    value_rows = res.loc[~res["kind"].isin(["lower_bound", "upper_bound", "range_low", "range_high", "interval"])]
    err = value_rows["percent_error"].abs().dropna()
    assert err.median() <= 5.0
    assert res.loc[FIG1, "percent_error"].abs().max() <= 1.0
    bounds = res.loc[res["kind"].isin(["lower_bound", "upper_bound", "range_low", "range_high"])]
    assert (bounds["residual"].abs() <= 1e-3).all()      # every bound met to 0.1 %
    # the peak's reading [20, 24] met to the 1 % the Figure 1 rows are held to
    assert abs(res.loc["ibmsj.dbench-24-drop-above-20cpu", "residual"]) <= 0.01


def test_all_shape_checks_hold(result):
    shapes = result.to_frame("shape_checks")
    assert set(shapes["id"]) == set(SHAPE_IDS)
    assert shapes["passed"].map(lambda v: v is True).all(), shapes.loc[shapes["passed"] != True]  # noqa: E712


@pytest.mark.slow  # leave-one-out refits: deselected by default, run by make test-all
def test_leave_one_out_within_target(loo):
    assert loo["success"].all()
    a = loo["percent_error_loo"].abs()
    assert a.median() <= 15.0
    fig1 = loo.set_index("id").loc[FIG1, "percent_error_loo"].abs()
    assert fig1.median() <= 15.0
    # the peak reading [20, 24] is judged inside/outside when left out, not scored as a percent
    assert loo.set_index("id").loc["ibmsj.dbench-24-drop-above-20cpu", "bound_satisfied_loo"] is not None


@pytest.mark.slow
def test_every_figure1_value_row_left_out_within_target(loo):
    # the issue's 15 % target for each Figure 1 rate left out. Missed (a strict xfail) while 'drops
    # above 20' read as a peak in [20, 24] let the 2.6 rate at 16 CPUs drift when left out; met on
    # 2026-11-28 (7.7 and 7.4 %), most likely since the refits hold at its start a parameter no
    # remaining row reads (notebook 11); the slow suite found the strict xfail passing that day
    fig1 = loo.set_index("id").loc[["ibmsj.dbench-24-16cpu-mbps", "ibmsj.dbench-26-16cpu-mbps"], "percent_error_loo"]
    assert fig1.abs().max() <= 15.0


def test_recovers_known_parameters_from_synthetic_figure1_data():
    truth = {"cpu_time": 18e-6, "purge": 0.25e-6, "purge_per_cpu": 0.02e-6}
    model = KernelMemoryModel()
    p = model.parameters().valuesdict()
    p.update(truth)
    rows = pd.DataFrame({"id": FIG1, "kind": "absolute",
                         "value_num": [_mbps("2.4", 16, p), _mbps("2.6", 16, p),
                                       model.model("2.4", p).peak_cpus(64)],
                         "unit": ["MB/s", "MB/s", "cpus"]})
    params = model.parameters()
    for name in params:
        if name not in truth:
            params.set(name, vary=False)
    fit = calibrate(KernelMemoryModel(), rows, params=params)
    for name, value in truth.items():
        assert fit.params[name].value == pytest.approx(value, rel=0.02)


def test_cannot_predict_unknown_rows():
    with pytest.raises(ValueError, match="cannot predict measurement 'doc.unknown'"):
        KernelMemoryModel().predict("doc.unknown", KernelMemoryModel().parameters().valuesdict())
