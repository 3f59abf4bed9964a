"""The ``interval`` kind of the calibration engine and the ranges of exactly or under-determined fits.

A verbal statement ("about 5", "drops above 20") is read as an interval [low, high]: zero
residual inside, the value residual against the nearer end outside. Expected values are hand
computations written beside each assertion (fractions of the ends, the least-squares optimum of
two relative residuals, the corners of a linear system solved by hand).
"""
import math
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

from zmodel.calibration import Model, PercentChange, calibrate, cross_validate, fit_report, readings_ranges
from zmodel.store import area_from_result


def rows(*specs):
    """Rows (id, kind, value, low, high) with unit s."""
    return pd.DataFrame([dict(id=i, kind=k, value_num=v, low=lo, high=hi, unit="s") for i, k, v, lo, hi in specs])


def one(a=5.0, vary=True):
    m = Model({"a": {"value": a, "vary": vary}}, name="one")
    for i in ("d.x", "d.i", "d.j"):
        m.add_predictor(i, lambda p: p["a"])
    return m


def residual_at(a, kind, value, low, high, scale="relative"):
    fit = calibrate(one(a, vary=False), rows(("d.i", kind, value, low, high)), scale=scale)
    return fit.residuals.set_index("id").loc["d.i"]


@pytest.mark.parametrize("a, low, high, scale, expected", [
    (5.0, 4.0, 6.0, "relative", 0.0),                      # inside: zero
    (4.0, 4.0, 6.0, "relative", 0.0),                      # on an end: inside
    (3.0, 4.0, 6.0, "relative", Fraction(3 - 4, 4)),       # below: (p - low)/|low| = -1/4
    (7.0, 4.0, 6.0, "relative", Fraction(7 - 6, 6)),       # above: (p - high)/|high| = 1/6
    (3.0, 4.0, 6.0, "absolute", Fraction(-1)),             # absolute scale: p - low
    (8.0, 9.0, math.inf, "relative", Fraction(8 - 9, 9)),  # one-sided [9, inf): -1/9
    (20.0, 9.0, math.inf, "relative", 0.0),
    (-3.0, -2.0, -1.0, "relative", Fraction(-3 + 2, 2)),   # negative ends: divided by |low| = 2
])
def test_interval_residual_by_hand(a, low, high, scale, expected):
    r = residual_at(a, "interval", 5.0, low, high, scale)
    assert r["residual"] == pytest.approx(float(expected), abs=1e-15)
    assert bool(r["satisfied"]) == (expected == 0)


def test_interval_of_a_percent_change_compares_the_implied_ratios():
    # predicted -50 % (100 -> 50); reading [-45, -40]: below; the relative residual of the ratio
    # after/before against the low end: (1 - 0.50)/(1 - 0.45) - 1 = 0.5/0.55 - 1 = -1/11
    m = Model({"a": {"value": 50.0, "vary": False}})
    m.add_predictor("d.pc", lambda p: PercentChange(100.0, p["a"]))
    fit = calibrate(m, rows(("d.pc", "interval", -50.0, -45.0, -40.0)))
    assert fit.residuals["residual"].iloc[0] == pytest.approx(-1 / 11, rel=1e-12)


def test_violated_interval_pulls_the_fit_like_its_nearer_end():
    # a value of 10 and a reading [4, 8] of the same prediction: minimise ((a-10)/10)^2 + ((a-8)/8)^2
    # -> a = (10/100 + 8/64) / (1/100 + 1/64), outside the interval, so the row counts
    fit = calibrate(one(), rows(("d.x", "absolute", 10.0, math.nan, math.nan), ("d.i", "interval", 6.0, 4.0, 8.0)))
    expected = (Fraction(10, 100) + Fraction(8, 64)) / (Fraction(1, 100) + Fraction(1, 64))
    assert fit.params["a"].value == pytest.approx(float(expected), rel=1e-9)
    r = fit.residuals.set_index("id")
    assert not r.loc["d.i", "satisfied"] and fit.n_active == 2 and fit.dof == 1


def test_satisfied_interval_is_judged_but_not_counted():
    fit = calibrate(one(), rows(("d.x", "absolute", 7.0, math.nan, math.nan), ("d.i", "interval", 6.0, 4.0, 8.0)))
    r = fit.residuals.set_index("id")
    assert fit.params["a"].value == pytest.approx(7.0, rel=1e-10)
    assert r.loc["d.i", "residual"] == 0 and r.loc["d.i", "satisfied"] and r.loc["d.i", "informative"]
    assert (r.loc["d.i", "low"], r.loc["d.i", "high"]) == (4.0, 8.0)
    assert fit.n_data == 2 and fit.n_active == 1 and fit.dof == 0
    assert "(inside [4, 8])" in fit_report(fit)


def test_leave_one_out_judges_an_interval_as_satisfied_or_violated():
    cv = cross_validate(one(), rows(("d.x", "absolute", 7.0, math.nan, math.nan),
                                    ("d.j", "absolute", 7.0, math.nan, math.nan),
                                    ("d.i", "interval", 6.0, 4.0, 8.0)), progress=False).set_index("id")
    assert bool(cv.loc["d.i", "bound_satisfied_loo"]) and math.isnan(cv.loc["d.i", "percent_error_loo"])


# ----------------------------------------------------------------- exactly / under-determined fits
def two():
    """y1 = a + b (read as an interval), y2 = a - b (an exact value)."""
    m = Model({"a": 5.0, "b": 5.5}, name="two")   # start inside the reading (a + b = 10.5)
    m.add_predictor("d.sum", lambda p: p["a"] + p["b"])
    m.add_predictor("d.diff", lambda p: p["a"] - p["b"])
    return m


TWO = rows(("d.sum", "interval", 11.0, 10.0, 12.0), ("d.diff", "absolute", 2.0, math.nan, math.nan))


def test_under_determined_fit_gives_the_range_over_the_admissible_readings():
    # a + b in [10, 12] and a - b = 2: a = (s + 2)/2 in [6, 7], b = (s - 2)/2 in [4, 5]
    fit = calibrate(two(), TWO)
    assert fit.n_active == 1 and fit.dof == -1      # the satisfied interval is not counted
    t = fit.parameter_table
    assert (t.loc["a", "lo90"], t.loc["a", "hi90"]) == pytest.approx((6.0, 7.0), rel=1e-9)
    assert (t.loc["b", "lo90"], t.loc["b", "hi90"]) == pytest.approx((4.0, 5.0), rel=1e-9)
    assert set(t.loc[["a", "b"], "interval_method"]) == {"readings range"}
    assert t["stderr"].isna().all()                 # no covariance-based error
    text = fit_report(fit)
    assert "under-determined: 1 informative rows for 2 free parameters" in text
    assert "range [6, 7] (readings range)" in text and "range [4, 5] (readings range)" in text


def test_readings_range_reaches_the_parameter_store():
    stored = area_from_result("two", calibrate(two(), TWO))
    assert stored.parameters["a"].interval == pytest.approx((6.0, 7.0), rel=1e-9)
    assert stored.parameters["a"].method == "readings range"


def test_one_row_at_a_time_when_corners_are_too_many():
    # with max_corners=1 the single interval row is still pinned at both ends: same range
    from zmodel.calibration import prepare, solve

    problem = prepare(two(), TWO)
    sol = solve(two(), problem)
    out = readings_ranges(two(), problem, sol, max_corners=1)
    assert out["a"] == pytest.approx((6.0, 7.0), rel=1e-9) and out["_refits"] == 2
    assert out["_rows"] == ["d.sum"]


def test_two_intervals_use_every_corner():
    # a + b in [10, 12], a - b in [1, 3]: a = (s + d)/2 in [5.5, 7.5], b = (s - d)/2 in [3.5, 5.5],
    # the extremes sit at opposite corners (s, d) = (10, 1) / (12, 3) and (10, 3) / (12, 1)
    data = rows(("d.sum", "interval", 11.0, 10.0, 12.0), ("d.diff", "interval", 2.0, 1.0, 3.0))
    t = calibrate(two(), data).parameter_table
    assert (t.loc["a", "lo90"], t.loc["a", "hi90"]) == pytest.approx((5.5, 7.5), rel=1e-9)
    assert (t.loc["b", "lo90"], t.loc["b", "hi90"]) == pytest.approx((3.5, 5.5), rel=1e-9)


def test_one_sided_pair_of_one_statement_reaches_both_ends():
    # "about 10-15" as two one-sided rows of one prediction 2a: [9, inf) and (-inf, 16.5]
    # -> 2a in [9, 16.5], a in [4.5, 8.25]
    m = Model({"a": 6.0})
    m.add_range("d.lo", "d.hi", lambda p: 2 * p["a"])
    t = calibrate(m, rows(("d.lo", "interval", 10.0, 9.0, math.inf),
                          ("d.hi", "interval", 15.0, -math.inf, 16.5))).parameter_table
    assert (t.loc["a", "lo90"], t.loc["a", "hi90"]) == pytest.approx((4.5, 8.25), rel=1e-9)


def test_a_catalog_range_pair_is_pinned_at_both_ends():
    # "50 to 100 MB more" is catalogued as two rows, range_low 50 and range_high 100, of one
    # prediction 2a: both satisfied at a = 30 (2a = 60), so neither determines a by itself;
    # pinned at their ends, 2a in [50, 100] -> a in [25, 50]. Before, only 'interval' rows were
    # pinned and a kept its whole plausible range (kernel_memory's sysfs bytes per file: 64 B-64 KiB)
    m = Model({"a": {"value": 30.0, "min": 1.0, "max": 1000.0}})
    m.add_predictor("d.lo", lambda p: 2 * p["a"])
    m.add_predictor("d.hi", lambda p: 2 * p["a"])
    fit = calibrate(m, rows(("d.lo", "range_low", 50.0, math.nan, math.nan),
                            ("d.hi", "range_high", 100.0, math.nan, math.nan)))
    t = fit.parameter_table
    assert fit.dof == -1 and t.loc["a", "interval_method"] == "readings range"
    assert (t.loc["a", "lo90"], t.loc["a", "hi90"]) == pytest.approx((25.0, 50.0), rel=1e-9)


def test_a_readings_range_records_the_assumed_values_it_holds_given():
    # "50 to 100 MB" of d devices x f files x b bytes: the reading fixes the product d f b, so b's
    # range [1000, 2000] B (at f = 10, d = 5000) holds only given f and d. By hand, b = y / (d f):
    # d ln b / d ln f = d ln b / d ln d = -1; x is held but no row reads it (no elasticity).
    m = Model({"b": {"value": 1500.0, "min": 64.0, "max": 65536.0},
               "f": {"value": 10.0, "vary": False}, "d": {"value": 5000.0, "vary": False},
               "x": {"value": 3.0, "vary": False}})
    m.add_predictor("d.lo", lambda p: p["d"] * p["f"] * p["b"] / 1e6)
    m.add_predictor("d.hi", lambda p: p["d"] * p["f"] * p["b"] / 1e6)
    fit = calibrate(m, rows(("d.lo", "range_low", 50.0, math.nan, math.nan),
                            ("d.hi", "range_high", 100.0, math.nan, math.nan)))
    t = fit.parameter_table
    assert (t.loc["b", "lo90"], t.loc["b", "hi90"]) == pytest.approx((1000.0, 2000.0), rel=1e-9)
    given = t.loc["b", "given"]
    assert set(given) == {"f", "d"}
    assert given["f"] == pytest.approx(-1.0, abs=1e-6) and given["d"] == pytest.approx(-1.0, abs=1e-6)
    assert "holds given the assumed" in t.loc["b", "note"]
    stored = area_from_result("m", fit).parameters["b"]
    assert dict(stored.given) == pytest.approx({"f": -1.0, "d": -1.0}, abs=1e-6)


def test_the_elasticity_is_the_implicit_derivative_not_a_sign():
    # y = f b^2 read as [4, 9] at f = 1: b in [2, 3] and b = sqrt(y / f), so d ln b / d ln f = -1/2
    m = Model({"b": {"value": 2.5, "min": 0.1, "max": 100.0}, "f": {"value": 1.0, "vary": False}})
    m.add_predictor("d.y", lambda p: p["f"] * p["b"] ** 2)
    fit = calibrate(m, rows(("d.y", "interval", 6.5, 4.0, 9.0)))
    t = fit.parameter_table
    assert (t.loc["b", "lo90"], t.loc["b", "hi90"]) == pytest.approx((2.0, 3.0), rel=1e-9)
    assert t.loc["b", "given"]["f"] == pytest.approx(-0.5, abs=1e-6)


def test_exactly_determined_by_an_exact_value_has_no_range_and_no_standard_error():
    m = Model({"a": 1.0})
    m.add_predictor("d.y", lambda p: 2 * p["a"])
    fit = calibrate(m, rows(("d.y", "absolute", 4.0, math.nan, math.nan)))
    t = fit.parameter_table
    assert fit.dof == 0 and t.loc["a", "value"] == pytest.approx(2.0, rel=1e-12)
    assert np.isnan(t.loc["a", "stderr"]) and np.isnan(t.loc["a", "lo90"])
    assert "exactly determined; fixed by exact values alone" in t.loc["a", "note"]
    assert "exactly determined: 1 informative rows for 1 free parameters" in fit_report(fit)
    assert area_from_result("m", fit).parameters["a"].interval is None


def test_parameter_no_reading_fixes_keeps_no_range():
    # c enters no prediction: even with the interval pinned it is undetermined
    m = two()
    m._parameters.add("c", 1.0, min=0.0, max=10.0)
    t = calibrate(m, TWO).parameter_table
    assert np.isnan(t.loc["c", "lo90"]) and "not fixed by the admissible readings" in t.loc["c", "note"]


# ----------------------------------------------------------------- bad input
def test_error_interval_low_above_high():
    with pytest.raises(ValueError, match=r"interval 'd.i': low \(8\) must not exceed high \(4\)"):
        calibrate(one(), rows(("d.i", "interval", 6.0, 8.0, 4.0)))


def test_error_interval_missing_end():
    with pytest.raises(ValueError, match=r"interval 'd.i': high end is missing"):
        calibrate(one(), rows(("d.i", "interval", 6.0, 4.0, math.nan)))
    no_columns = pd.DataFrame({"id": ["d.i"], "kind": ["interval"], "value_num": [6.0], "unit": ["s"]})
    with pytest.raises(ValueError, match=r"interval 'd.i': low end is missing"):
        calibrate(one(), no_columns)


def test_error_interval_both_ends_infinite():
    with pytest.raises(ValueError, match=r"interval 'd.i': at least one end must be finite"):
        calibrate(one(), rows(("d.i", "interval", 6.0, -math.inf, math.inf)))


def test_error_interval_zero_end_on_relative_scale():
    with pytest.raises(ValueError, match=r"interval 'd.i': its low end is 0, so its relative residual is undefined"):
        calibrate(one(), rows(("d.i", "interval", 6.0, 0.0, 8.0)))


# --------------------------------------------------------------------------- intervals="auto"
def _exp_fit(predict, intervals="auto", **params):
    """Three rows 4, 5, 6 (absolute scale) predicted alike by ``predict(p)``: the optimum is their mean 5."""
    m = Model(params or {"t": {"value": 1.0, "min": -10.0, "max": 10.0}}, name="exp")
    for i in ("d.a", "d.b", "d.c"):
        m.add_predictor(i, predict)
    data = pd.DataFrame({"id": ["d.a", "d.b", "d.c"], "kind": "absolute", "value_num": [4.0, 5.0, 6.0], "unit": "1"})
    return calibrate(m, data, scale="absolute", intervals=intervals)


def test_auto_intervals_give_the_profile_interval_where_the_fit_is_nonlinear():
    # prediction u = e^t for three rows 4, 5, 6: chi2(u) = 3 (u - 5)^2 + 2 (S = 2 about the mean), dof 2.
    # The F-test's 90 % region: 3 (u - 5)^2 <= S F(0.9; 1, 2) / dof, i.e. u = 5 +/- sqrt(2 q / 6) with
    # q = F(0.9; 1, 2) = 8.526 (scipy, not the code under test), so t = ln(3.314) .. ln(6.686) = 1.198 .. 1.900.
    from scipy import stats

    q = stats.f.ppf(0.90, 1, 2)
    half = math.sqrt(2.0 * q / 6.0)
    fit = _exp_fit(lambda p: math.exp(p["t"]))
    row = fit.parameter_table.loc["t"]
    assert row["value"] == pytest.approx(math.log(5.0), abs=1e-7)
    assert row["interval_method"] == "profile"
    assert row["lo90"] == pytest.approx(math.log(5.0 - half), abs=2e-3)
    assert row["hi90"] == pytest.approx(math.log(5.0 + half), abs=2e-3)
    # why it was flagged: the covariance interval is t +/- sqrt(q) s / u (s^2 = S / dof = 1, du/dt = u = 5,
    # se(u) = 1 / sqrt(3)); at its low end u = 5 e^(-sqrt(q) / (5 sqrt 3)) = 3.57, F = 3 (5 - 3.57)^2 = 6.14,
    # not q = 8.53 (a factor 1.39 > LINEARITY_TOLERANCE)
    assert "F at the covariance interval's low end is 6.1" in row["note"]
    assert fit.intervals == "auto"


def test_auto_intervals_leave_a_linear_fit_with_its_covariance():
    fit = _exp_fit(lambda p: p["t"])
    row = fit.parameter_table.loc["t"]
    assert row["interval_method"] == "" and math.isnan(row["lo90"])
    # and the store keeps the covariance interval: 5 +/- t(0.95; 2) / sqrt(3) -- the scale is the fit's
    # own (s = 1 from 3 rows and 1 parameter: 2 degrees of freedom), so Student's t, 2.919986 (tables)
    stored = area_from_result("x", fit).parameters["t"]
    assert stored.method == "covariance" and fit.dof == 2
    assert stored.interval == pytest.approx((5.0 - 2.9199856 / math.sqrt(3.0), 5.0 + 2.9199856 / math.sqrt(3.0)),
                                            rel=1e-6)


def test_auto_profile_interval_stops_at_a_range_bound_the_rows_do_not_close():
    # the same rows with t bounded below at ln 4.5 (> the region's low end ln 3.314): the low end is the bound
    fit = _exp_fit(lambda p: math.exp(p["t"]), t={"value": 2.0, "min": math.log(4.5), "max": 10.0})
    row = fit.parameter_table.loc["t"]
    assert row["interval_method"] == "profile"
    assert row["lo90"] == pytest.approx(math.log(4.5), rel=1e-12)
    assert "low end at the range bound" in row["note"]
    assert area_from_result("x", fit).parameters["t"].method == "profile"


def test_auto_intervals_keep_the_covariance_of_a_fit_with_priors():
    from zmodel.calibration import Parameter, Parameters
    from zmodel.queueing._params import prior

    ps = Parameters([Parameter("t", 1.0, min=0.1, max=10.0, prior=prior(1.6, factor=2.0, source="test: spec"))])
    m = Model(ps, name="exp")
    for i in ("d.a", "d.b", "d.c"):
        m.add_predictor(i, lambda p: math.exp(p["t"]))
    data = pd.DataFrame({"id": ["d.a", "d.b", "d.c"], "kind": "absolute", "value_num": [4.0, 5.0, 6.0], "unit": "1"})
    fit = calibrate(m, data, scale="absolute", intervals="auto")
    assert fit.parameter_table.loc["t", "interval_method"] == ""


def test_intervals_option_is_checked():
    with pytest.raises(ValueError, match="intervals must be one of 'covariance', 'auto', got 'profile'"):
        _exp_fit(lambda p: p["t"], intervals="profile")


def test_cross_validation_refits_do_not_profile(monkeypatch):
    m = Model({"t": {"value": 1.0, "min": -10.0, "max": 10.0}}, name="exp")
    ids = ("d.a", "d.b", "d.c", "d.d")
    for i in ids:
        m.add_predictor(i, lambda p: math.exp(p["t"]))
    data = pd.DataFrame({"id": list(ids), "kind": "absolute", "value_num": [4.0, 5.0, 6.0, 5.5], "unit": "1"})
    import zmodel.calibration as cal

    calls = []
    original = cal.nonlinear_parameters
    monkeypatch.setattr(cal, "nonlinear_parameters", lambda *a, **k: calls.append(1) or original(*a, **k))
    cv = cross_validate(m, data, scale="absolute", intervals="auto", progress=False)
    assert len(cv) == 4
    assert len(calls) == 1          # the full fit's check; none in the four refits (each has 2 dof)
