"""The fits' out-of-sample error: its reading from a cross-validation, its store form, and the
prediction intervals that carry it (zmodel.calibration.out_of_sample_log_errors,
zmodel.store.ModelError, zmodel.validation)."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from zmodel import store, validation
from zmodel.calibration import out_of_sample_log_errors


# --------------------------------------------------------------------------- the reading
def test_log_errors_by_kind_by_hand():
    cv = pd.DataFrame({
        "id": ["doc.abs", "doc.pc0", "doc.pc", "doc.neg", "doc.ub", "doc.pct", "doc.iv", "doc.down"],
        "kind": ["absolute", "percent_change", "percent_change", "ratio", "upper_bound", "percent", "interval",
                 "percent_change"],
        "measured": [2.0, 0.0, 9.75, 1.5, 4.0, 53.0, 3.0, -20.0],
        "predicted_loo": [2.5, -0.39, -0.66, -0.2, 9.0, 47.883, 8.0, -100.0],
        "percent_error_loo": [25.0, math.nan, -106.8, -113.3, math.nan, -9.65, math.nan, -400.0]})
    e = out_of_sample_log_errors(cv).set_index("id")["log_error"]
    assert list(e.index) == ["doc.abs", "doc.pc0", "doc.pc", "doc.pct"]   # bounds and intervals are no values
    assert e["doc.abs"] == pytest.approx(math.log(1.25), rel=1e-15)
    # a change measured as 0 % has no percent error but a growth factor: 0.9961 / 1
    assert e["doc.pc0"] == pytest.approx(math.log(0.9961), rel=1e-15)
    assert e["doc.pc"] == pytest.approx(math.log(0.9934 / 1.0975), rel=1e-15)
    assert e["doc.pct"] == pytest.approx(math.log(47.883 / 53.0), rel=1e-15)
    # a negative ratio and a change to -100 % have no logarithm: listed, not dropped silently
    assert out_of_sample_log_errors(cv).attrs["skipped"] == ["doc.neg", "doc.down"]


def test_model_error_scale_and_interval_by_hand():
    e = store.ModelError("leave-one-out", ("a", "b", "c"), (0.2, -0.1, 0.05))
    s = math.sqrt((0.04 + 0.01 + 0.0025) / 3)                 # 0.132288
    assert e.rows == 3 and e.scale == pytest.approx(s, rel=1e-14)
    assert e.half_width(0.90) == pytest.approx(2.353363434801823 * s, rel=1e-12)   # t(0.95; 3), tables
    assert e.half_width(0.95) == pytest.approx(3.182446305284263 * s, rel=1e-12)   # t(0.975; 3)


def test_model_error_draws_are_students_t_at_the_scale():
    e = store.ModelError("leave-one-out", ("a", "b"), (0.3, -0.4))
    n = 200_000
    d = e.draws(np.random.default_rng(7), n)
    # the 95th percentile of s x t_2: t(0.95; 2) = 2.919986; the sample quantile's standard error is
    # sqrt(p (1 - p) / n) / f(q) with f the density there (s x t_2's): 4 of them is the tolerance
    s, q = e.scale, 2.919985580353726
    se = math.sqrt(0.95 * 0.05 / n) / (stats.t.pdf(q, 2) / s)
    assert abs(np.quantile(d, 0.95) - q * s) < 4 * se
    assert abs(np.quantile(d, 0.05) + q * s) < 4 * se


@pytest.mark.parametrize("ids, errors, needle", [
    ((), (), "at least one"),
    (("a",), (0.1, 0.2), "one log error per id"),
    (("a",), (math.inf,), "finite"),
])
def test_model_error_refuses_bad_input(ids, errors, needle):
    with pytest.raises(ValueError, match=needle):
        store.ModelError("leave-one-out", ids, errors)


def test_model_error_round_trips_and_is_compared():
    base = {"areas": {"a": {"parameters": {"x": {"value": 1.0}},
                            "model_error": {"method": "leave-one-out", "ids": ["r1", "r2"],
                                            "log_errors": [0.1, -0.2]}}}}
    s = store.ParameterStore.from_dict(base)
    back = store.loads(store.dumps(s))
    assert back.areas["a"].model_error == store.ModelError("leave-one-out", ("r1", "r2"), (0.1, -0.2))
    assert store.same_values(s, back) == []
    moved = {"areas": {"a": {**base["areas"]["a"], "model_error": {
        "method": "leave-one-out", "ids": ["r1", "r2"], "log_errors": [0.1, -0.2 + 2 * store.MODEL_ERROR_ATOL]}}}}
    assert [m for m in store.same_values(s, store.ParameterStore.from_dict(moved)) if "model error" in m]
    none = {"areas": {"a": {"parameters": {"x": {"value": 1.0}}}}}
    assert store.same_values(s, store.ParameterStore.from_dict(none)) == [
        "a: model error {'method': 'leave-one-out', 'ids': ['r1', 'r2'], 'log_errors': [0.1, -0.2]} vs None"]
    with pytest.raises(ValueError, match=r"areas\.a\.model_error\.ids must be a list"):
        store.ParameterStore.from_dict({"areas": {"a": {"parameters": {}, "model_error": {"ids": "r1"}}}})


# --------------------------------------------------------------------------- prediction intervals
def _store_with_error(errors=(0.3, -0.4)):
    return store.ParameterStore.from_dict({"areas": {"x": {
        "parameters": {}, "model_error": {"method": "leave-one-out", "ids": [f"r{k}" for k in range(len(errors))],
                                          "log_errors": list(errors)}}}})


@pytest.mark.parametrize("scale, point", [("log", 2.0), ("percent_change", -0.66), ("percent_reduction", 75.0)])
def test_prediction_interval_adds_the_error_on_the_figures_scale(scale, point):
    st, n = _store_with_error(), 40_000
    p = validation._with_model_error(point, None, n, 3, scale, st, ("x",))
    h = 2.919985580353726 * st.areas["x"].model_error.scale      # t(0.95; 2) x s, the log half-width
    # by hand on each scale: a quantity's log, a change's growth factor 1 + x/100, a reduction's remaining 1 - x/100
    ends = {"log": (point * math.exp(-h), point * math.exp(h)),
            "percent_change": (100 * ((1 + point / 100) * math.exp(-h) - 1),
                               100 * ((1 + point / 100) * math.exp(h) - 1)),
            "percent_reduction": (100 * (1 - (1 - point / 100) * math.exp(h)),
                                  100 * (1 - (1 - point / 100) * math.exp(-h)))}[scale]
    assert (p.predicted, p.parameter_lo, p.parameter_hi, p.model_error) == (point, point, point, ("x",))
    # the sampled ends within 4 standard errors of the quantile (as above), carried through the scale's slope
    se = math.sqrt(0.95 * 0.05 / n) / (stats.t.pdf(2.919985580353726, 2) / st.areas["x"].model_error.scale)
    for got, want in zip((p.predicted_lo, p.predicted_hi), ends):
        slope = abs(want - {"log": 0.0, "percent_change": -100.0, "percent_reduction": 100.0}[scale])
        assert abs(got - want) < 4 * se * slope


def test_prediction_interval_without_error_or_draws():
    st = _store_with_error()
    assert validation._with_model_error(5.0, None, 0, 0, "log", st, ("x",)) == validation.Prediction(
        5.0, 5.0, 5.0, 5.0, 5.0, ())
    draws = np.array([1.0, 2.0, 3.0, 4.0])
    p = validation._with_model_error(2.5, draws, 4, 0, "log", st, ())
    # no fit's error: the prediction interval is the parameters' (5th and 95th percentiles, inverted CDF)
    assert (p.predicted_lo, p.predicted_hi, p.parameter_lo, p.parameter_hi) == (1.0, 4.0, 1.0, 4.0)


def test_prediction_interval_stops_at_the_ceiling():
    st = _store_with_error((1.0, -1.0))
    p = validation._with_model_error(3.9, None, 2000, 0, "log", st, ("x",), ceiling=4.0)
    assert p.predicted_hi == 4.0 and p.predicted_lo < 3.9


def test_which_fits_errors_a_figure_carries():
    st = store.default()
    areas = validation._figure_areas()

    def of(fid):
        return validation.error_areas(validation.PREDICTORS[fid], areas[fid], st)

    assert of("val.kernel_versions.dbench-sles9-speedup-4cpu") == ("kernel_versions",)
    assert of("val.channels.fex4-feature-duplex-mbps") == ("channels",)        # draws nothing: its area's fit
    assert of("val.disks.travelstar-5k320-read-seek") == ()                     # the drive's own specs, no fit
    assert of("val.disks.cheetah-x15-access-time") == ("channels",)             # the store's drive mechanics
    assert of("val.network.hipersockets-vs-osa-throughput-max") == ("network", "kernel_versions")


def test_percent_figures_are_predicted_on_a_percent_scale():
    t = validation._figure_areas()
    from zmodel.data import validation_figures

    figs = validation_figures().set_index("id")
    for fid, p in validation.PREDICTORS.items():
        if figs.loc[fid, "unit"] == "%":
            want = "percent_reduction" if "reduction" in fid else "percent_change"
            assert p.scale == want, fid
        else:
            assert p.scale == "log", fid
    assert set(t) >= set(validation.PREDICTORS)


# --------------------------------------------------------------------------- the shipped store
def test_shipped_model_errors_come_from_the_documents_only():
    from zmodel.data import validation_figures

    val_ids = set(validation_figures()["id"])
    st = store.default()
    with_error = [a for a, ap in st.areas.items() if ap.model_error is not None]
    assert {"channels", "crypto", "kernel_versions", "network", "storage"} <= set(with_error)
    for a in with_error:
        e = st.areas[a].model_error
        assert not set(e.ids) & val_ids, a
        assert set(e.ids) <= set(st.areas[a].rows), a            # rows the area's fit used
        assert e.method == ("leave-one-benchmark-out" if a == "kernel_versions" else "leave-one-out")


def test_shipped_crypto_error_is_its_cross_validation():
    from zmodel.data import measurements
    from zmodel.fits import crypto

    cv = crypto.CALIBRATION.cross_validate()
    values = cv[cv["kind"].isin(["ratio", "absolute"])]
    measured = measurements(ids=list(values["id"])).set_index("id")["value_num"]   # the catalog's numbers
    want = [math.log(p / measured[i]) for i, p in zip(values["id"], values["predicted_loo"])]
    e = store.default().areas["crypto"].model_error
    assert e.ids == tuple(values["id"])
    assert np.allclose(e.log_errors, want, rtol=0, atol=store.MODEL_ERROR_ATOL)


def test_model_error_sample_is_a_stream_of_its_own_per_seed_and_area():
    e = store.ModelError("leave-one-out", ("a", "b"), (0.3, -0.4))
    one = e.sample(50, 3, "x")
    assert np.array_equal(one, e.sample(50, 3, "x"))                     # reproducible
    assert not np.array_equal(one, e.sample(50, 3, "y"))                 # another fit: another stream
    assert not np.array_equal(one, e.sample(50, 4, "x"))                 # another seed
