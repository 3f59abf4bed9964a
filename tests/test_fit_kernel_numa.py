"""Calibration of the Altix NUMA models (zmodel.fits.kernel_numa).

Expected values are the numbers printed in Bryant et al., Proc. Linux Symposium 2004 (seed
003_b2fdde8a1106fead.txt): remote/local ratio "from 1.9 to 3.5"; HUGETLB "as long as
5,000 seconds", "speedups of 25x using 16 processors", "reduce the 5,000 second time ... to
200 seconds"; Tables 1-4 (PIO ns, DMA I/Os per second); "up to 40,000 pages more" after a
10 GB read. Model formulas are re-derived by hand from the fitted parameters.
"""
import numpy as np
import pytest

from zmodel.calibration import calibrate
from zmodel.fits.kernel_numa import (
    EXACTLY_DETERMINED,
    FIT_KINDS,
    SHAPE_IDS,
    KernelNumaModel,
    calibrate_kernel_numa,
    cross_validate_kernel_numa,
    measurements,
)

GIB = 2.0 ** 30


@pytest.fixture(scope="module")
def result():
    return calibrate_kernel_numa()


@pytest.fixture(scope="module")
def loo():
    return cross_validate_kernel_numa()


def _abs_errors(res):
    """|% error| per fitted row, 0 for a satisfied bound."""
    err = res["percent_error"].abs().to_numpy()
    sat = res["satisfied"].fillna(False).to_numpy(dtype=bool)
    return np.where(sat, 0.0, err)


def test_rows_come_from_the_catalog_with_provenance():
    rows = measurements().set_index("id")
    assert len(rows) == len(FIT_KINDS) + len(SHAPE_IDS)
    assert rows.loc["altix.t1-normal-pio-read-idle", "value_num"] == 3875
    assert rows.loc["altix.t4-remote-consistent-iops", "value_num"] == 41295
    assert rows.loc["altix.hugetlb-projected-time", "value_num"] == 200
    assert set(rows["source"]) == {"003_b2fdde8a1106fead.txt", "001_37b528ecce68b8bf.txt"}
    # kind overrides applied (documented in FIT_KINDS)
    assert rows.loc["altix.remote-local-latency-ratio-high", "kind"] == "ratio"
    assert rows.loc["altix.hugetlb-zero-time", "kind"] == "absolute"


def test_every_numa_row_of_the_altix_tables_is_used():
    from zmodel.data import measurements as catalog

    numa = catalog(model_area="numa")
    tables = numa.loc[numa["location"].str.startswith("Table") & (numa["kind"] == "absolute"), "id"]
    assert set(tables) <= set(FIT_KINDS)


def test_residual_targets(result):
    err = _abs_errors(result.residuals)
    assert result.success
    assert np.median(err) <= 5.0          # issue target: median <= 5 % fitted
    assert err.max() <= 5.0               # worst fitted row (hugetlb speedup) is about 3 %


@pytest.mark.slow  # leave-one-out refits: deselected by default, run by make test-all
def test_leave_one_out_within_target(loo):
    assert loo.attrs["median_abs_percent_error"] <= 15.0
    informative = loo.loc[~loo["id"].isin(EXACTLY_DETERMINED)]
    assert loo.attrs["median_abs_percent_error_informative"] <= 5.0
    # the latency-ratio extremes are the hardest to predict from the others (about 10 %)
    assert informative["percent_error_loo"].abs().max() <= 15.0
    assert loo["success"].all()


def test_latency_ratio_range(result):
    p = result.params.valuesdict()
    assert p["nearest_ratio"] == pytest.approx(1.9, rel=0.05)
    assert p["nearest_ratio"] + 3 * p["per_router_ratio"] == pytest.approx(3.5, rel=0.05)


def test_pio_tables_by_hand(result):
    p = result.params.valuesdict()
    rt, fl, rho = p["pio_round_trip"], p["pio_dma_flush"], p["busy_load"]
    w, c = p["pio_write_drain"], p["chipset_read"]
    stretch = 1 / (1 - rho)                                  # M/M/1: T = S / (1 - rho)
    printed = {                                               # Tables 1-3, ns; 3-4 digits printed
        3875: rt + fl, 1299: rt, 4889: (rt + fl) * stretch, 1646: rt * stretch,
        5940: 5 * w + (rt + fl) * stretch, 2619: 5 * w + rt * stretch, 1610: 5 * w + 1.5 * c, 399: c,
    }
    for measured, predicted in printed.items():
        assert predicted * 1e9 == pytest.approx(measured, rel=0.01)


def test_busy_table_3_reading_beats_idle(result):
    """Table 3 evaluated on the busy path fits; on the idle path its regular flush would be
    off by more than 10 % (the module's reason for the busy reading)."""
    p = result.params.valuesdict()
    idle_regular = 5 * p["pio_write_drain"] + p["pio_round_trip"] + p["pio_dma_flush"]
    assert abs(idle_regular * 1e9 / 5940 - 1) > 0.10


def test_dma_table_4_by_hand(result):
    p = result.params.valuesdict()
    t, a, tl = p["dma_io_time"], p["dma_accesses"], p["local_latency"]
    remote_ratio = p["nearest_ratio"] + p["per_router_ratio"] * 1      # one router
    assert 1 / (t + a * tl) == pytest.approx(46231, rel=1e-4)
    assert 1 / (t + a * tl * remote_ratio) == pytest.approx(41295, rel=1e-4)
    assert a >= 1


def test_hugetlb_numbers(result):
    p = result.params.valuesdict()
    r0, d, tl = p["nearest_ratio"], p["per_router_ratio"], p["local_latency"]
    # one CPU over all 256 nodes of a 512-CPU Altix; controllers nearly idle, so X = M / latency
    mean_all = (1 + r0 + 14 * (r0 + d) + 240 * (r0 + 3 * d)) / 256
    t1 = 4 * 2.0 ** 40 / 128 * tl * mean_all / 4
    assert t1 == pytest.approx(5000, rel=0.03)               # "as long as 5,000 seconds"
    cell = (1 + r0 + 14 * (r0 + d)) / 16
    assert 16 * mean_all / cell == pytest.approx(25, rel=0.05)   # "speedups of 25x using 16 processors"
    assert 5000 / 25 == 200                                  # the paper's projection arithmetic
    res = result.residuals.set_index("id")
    assert res.loc["altix.hugetlb-projected-time", "predicted"] == pytest.approx(200, rel=0.05)
    # the local latency is not printed: it is what the 5,000 s statement implies (inverted by hand)
    assert tl == pytest.approx(5000 * 4 / (4 * 2.0 ** 40 / 128 * mean_all), rel=0.03)


def test_readfile_imbalance_by_hand(result):
    p = result.params.valuesdict()
    pages = 10 * GIB / 16384                                  # 655360 pages of 16 KiB
    assert pages * p["slab_bytes_per_page"] / 16384 == pytest.approx(40000, rel=1e-6)


def test_local_memory_rows(result):
    res = result.residuals.set_index("id")
    assert res.loc["altix.local-memory-per-node", "predicted"] == 2.0           # 512 GB / 256 nodes
    assert res.loc["altix.local-memory-fraction", "predicted"] == pytest.approx(100 / 256, rel=1e-14)
    assert bool(res.loc["altix.local-memory-fraction", "satisfied"])             # "less than 0.4%"


def test_all_shape_checks_hold(result):
    shapes = result.shape_checks.set_index("id")["passed"]
    assert set(shapes.index) == set(SHAPE_IDS)
    assert shapes.all()


def test_recovers_known_parameters_from_synthetic_data():
    model = KernelNumaModel()
    truth = model.parameters().valuesdict()
    truth.update(local_latency=200e-9, nearest_ratio=2.1, per_router_ratio=0.45, pio_round_trip=1.1e-6,
                 pio_dma_flush=2.2e-6, busy_load=0.3, pio_write_drain=150e-9, chipset_read=350e-9)
    rows = measurements()
    rows = rows.loc[rows["id"].str.contains("t1-|t2-|t3-|latency-ratio|hugetlb") & (rows["kind"] != "shape")]
    rows = rows.copy()
    rows["value_num"] = [float(model.predict(i, truth)) for i in rows["id"]]
    start = model.parameters()
    for name in ("dma_io_time", "dma_accesses", "slab_bytes_per_page"):   # no synthetic rows for them
        start.set(name, vary=False)
    fit = calibrate(model, rows, params=start)
    for name in ("local_latency", "nearest_ratio", "per_router_ratio", "pio_round_trip", "pio_dma_flush",
                 "busy_load", "pio_write_drain", "chipset_read"):
        assert fit.params[name].value == pytest.approx(truth[name], rel=1e-4), name


def test_cannot_predict_unknown_rows():
    with pytest.raises(ValueError, match="cannot predict measurement"):
        KernelNumaModel().predict("altix.no-such-row", KernelNumaModel().parameters().valuesdict())


@pytest.mark.slow  # uses the leave-one-out refits
def test_exactly_determined_rows_are_flagged(result, loo):
    """Rows a parameter of their own reproduces: fitted exactly, and without them that
    parameter is unidentified, so leave-one-out marks them unpredictable (no evidence)."""
    assert set(EXACTLY_DETERMINED) <= set(FIT_KINDS)
    res = result.residuals.set_index("id")
    cv = loo.set_index("id")
    for i in EXACTLY_DETERMINED:
        assert abs(res.loc[i, "percent_error"]) < 1e-3
        assert not cv.loc[i, "predictable"] and cv.loc[i, "unidentified_without"]
