"""The calibration engine in its named parts (zmodel.calibration): prepare, solve, identifiability,
covariance, flag_uncertain, tables, fit_report -- each tested on its own.

Expected values are hand computations written here: least squares of a straight line
(normal equations), the OLS covariance s^2 (X'X)^-1 with the 2x2 inverse written out, and the
percent error 100 (p - m)/|m|.
"""
import math

import numpy as np
import pandas as pd
import pytest

from zmodel.calibration import (
    Model,
    Parameters,
    calibrate,
    covariance,
    fit_report,
    flag_uncertain,
    identifiability,
    prepare,
    solve,
)

X = np.array([1.0, 2.0, 3.0, 4.0])
Y = np.array([3.1, 4.9, 7.2, 8.8])   # y ~ 1 + 2 x with noise


def line_model():
    m = Model({"a": 0.5, "b": 1.0}, name="line")
    for k, x in enumerate(X):
        m.add_predictor(f"doc.y{k}", lambda p, x=x: p["a"] + p["b"] * x)
    return m


def line_data():
    return pd.DataFrame({"id": [f"doc.y{k}" for k in range(len(X))], "kind": "absolute", "value_num": Y,
                         "unit": "s"})


def test_prepare_lays_out_rows_weights_and_start():
    pb = prepare(line_model(), line_data(), exclude=["doc.y3"], weights={"doc.y0": 2.0}, scale="absolute")
    assert pb.free == ["a", "b"]
    assert pb.x0.tolist() == [0.5, 1.0] and pb.scale.tolist() == [0.5, 1.0]   # |start| scales each parameter
    assert pb.used.tolist() == [True, True, True, False]
    assert pb.weight.tolist() == [2.0, 1.0, 1.0, 1.0]
    assert not pb.relative.any()
    assert pb.values_of([2.0, 3.0]) == {"a": 1.0, "b": 3.0}


def test_prepare_refuses_bad_input():
    with pytest.raises(ValueError, match="exclude names an unknown measurement id 'doc.nope'"):
        prepare(line_model(), line_data(), exclude=["doc.nope"])
    with pytest.raises(ValueError, match="params names an unknown parameter 'c'"):
        prepare(line_model(), line_data(), params={"c": 1.0})


def _normal_equations():
    n, sx, sy, sxx, sxy = len(X), X.sum(), Y.sum(), (X * X).sum(), (X * Y).sum()
    b = (n * sxy - sx * sy) / (n * sxx - sx ** 2)
    a = (sy - b * sx) / n
    return a, b


def test_solve_reaches_the_least_squares_line():
    a, b = _normal_equations()
    sol = solve(line_model(), prepare(line_model(), line_data(), scale="absolute"))
    assert sol.success
    assert sol.x == pytest.approx([a, b], rel=1e-9)
    assert sol.jacobian == pytest.approx(np.column_stack([np.ones_like(X), X]), rel=1e-6)


def test_solve_without_free_parameters_keeps_the_start():
    m = line_model()
    ps = m.parameters()
    ps.set("a", vary=False)
    ps.set("b", vary=False)
    sol = solve(m, prepare(m, line_data(), params=ps))
    assert sol.message == "no free parameters" and sol.nfev == 1 and sol.x.size == 0


def test_covariance_is_the_ols_formula():
    a, b = _normal_equations()
    J = np.column_stack([np.ones_like(X), X])
    chisqr = float(np.sum((Y - a - b * X) ** 2))
    n, sx, sxx = len(X), X.sum(), (X * X).sum()
    det = n * sxx - sx ** 2
    s2 = chisqr / (n - 2)
    expected = s2 * np.array([[sxx, -sx], [-sx, n]]) / det     # s^2 (X'X)^-1 written out
    cov = covariance(J, np.array([0, 1]), 2, chisqr, n - 2)
    assert cov == pytest.approx(expected, rel=1e-10)
    # unscaled (weights are true 1/sigma): (X'X)^-1 alone; no degrees of freedom: NaN when scaled
    assert covariance(J, np.array([0, 1]), 2, chisqr, 2, scale_covar=False) == pytest.approx(expected / s2)
    assert np.isnan(covariance(J, np.array([0, 1]), 2, chisqr, 0)).all()
    # a parameter left out of ``ok`` (at a bound) gets NaN and the others are conditioned on it:
    # the slope with the intercept held has variance s^2 / sum(x^2)
    part = covariance(J, np.array([1]), 2, chisqr, n - 2)
    assert np.isnan(part[0]).all() and part[1, 1] == pytest.approx(s2 / sxx, rel=1e-10)


def _solution(model, data, **kw):
    pb = prepare(model, data, scale="absolute", **kw)
    return pb, solve(model, pb)


def test_identifiability_flags_a_parameter_no_row_depends_on():
    m = line_model()
    m._parameters.add("c", 1.0, min=0.0, max=10.0)           # enters no prediction
    pb, sol = _solution(m, line_data())
    ident = identifiability(sol.jacobian, np.ones(4, dtype=bool), sol, pb, 4, 4)
    assert ident.unidentifiable.tolist() == [False, False, True]
    assert "no used measurement depends on it" in ident.notes["c"][0]
    assert ident.ok.tolist() == [0, 1]


def test_identifiability_does_not_depend_on_the_parameters_units():
    # y_k = a + r x_k / 1e9 with the rate r in B/s (about 2e9) beside an intercept in seconds: the raw
    # Jacobian column of r is 1e9 times smaller than that of a, but r is as well determined (each row
    # moves by x_k / 1e9 per B/s, i.e. by 2 x_k per unit relative change of r); a zero-column rule in raw
    # units flagged it as depending on no row (the channel fit's link rates, 2026-11-27)
    m = Model({"a": 0.5, "r": 1.0e9})
    for k, x in enumerate(X):
        m.add_predictor(f"doc.y{k}", lambda p, x=x: p["a"] + p["r"] * x / 1e9)
    # scaled by a huge second column so that the raw norm of r's column falls below 1e-12 of the largest
    m.add_predictor("doc.z", lambda p: 1e6 * p["a"])
    data = pd.concat([line_data(), pd.DataFrame({"id": ["doc.z"], "kind": "absolute", "value_num": [1e6],
                                                 "unit": "s"})], ignore_index=True)
    pb, sol = _solution(m, data)
    ident = identifiability(sol.jacobian, np.ones(5, dtype=bool), sol, pb, 5, 5)
    assert not ident.unidentifiable.any(), ident.notes
    assert ident.ok.tolist() == [0, 1]


def test_identifiability_flags_dependent_columns_and_too_few_rows():
    m = Model({"a": 0.5, "b": 1.0})
    for k in range(3):
        m.add_predictor(f"doc.y{k}", lambda p: p["a"] + p["b"])    # only a + b is determined
    data = pd.DataFrame({"id": ["doc.y0", "doc.y1", "doc.y2"], "kind": "absolute", "value_num": 3.0, "unit": "s"})
    pb, sol = _solution(m, data)
    ident = identifiability(sol.jacobian, np.ones(3, dtype=bool), sol, pb, 3, 3)
    assert ident.unidentifiable.all() and "near-singular" in ident.notes["a"][0]
    ident = identifiability(sol.jacobian, np.ones(3, dtype=bool), sol, pb, 1, 3)   # one informative row
    assert "2 free parameters but only 1 informative" in ident.notes["b"][0]


def test_identifiability_marks_a_parameter_at_its_bound():
    m = Model(Parameters.from_dict({"a": {"value": 0.5, "min": 0.0, "max": 1.0}}))
    m.add_predictor("doc.y", lambda p: p["a"])
    data = pd.DataFrame({"id": ["doc.y"], "kind": "absolute", "value_num": [5.0], "unit": "s"})
    pb, sol = _solution(m, data)
    ident = identifiability(sol.jacobian, np.ones(1, dtype=bool), sol, pb, 1, 1)
    assert ident.at_bound.tolist() == [True] and "at its max bound (1)" in ident.notes["a"][0]
    assert ident.ok.size == 0


def test_flag_uncertain_flags_large_errors_and_correlations():
    from zmodel.calibration import Identifiability

    ident = Identifiability(at_bound=np.zeros(2, bool), unidentifiable=np.zeros(2, bool),
                            notes={"a": [], "b": []}, ok=np.array([0, 1]))
    cov = np.array([[4.0, 0.0], [0.0, 0.01]])                  # stderr 2 on a value of 1: 200 %
    stderr, corr = flag_uncertain(cov, np.array([1.0, 1.0]), ident, ["a", "b"], 5, True)
    assert stderr.tolist() == [2.0, 0.1]
    assert ident.unidentifiable.tolist() == [True, False] and "200% of its value" in ident.notes["a"][0]
    ident = Identifiability(at_bound=np.zeros(2, bool), unidentifiable=np.zeros(2, bool),
                            notes={"a": [], "b": []}, ok=np.array([0, 1]))
    cov = np.array([[1.0, 0.9999], [0.9999, 1.0]]) * 1e-4
    _, corr = flag_uncertain(cov, np.array([1.0, 1.0]), ident, ["a", "b"], 5, True)
    assert corr[0, 1] == pytest.approx(0.9999) and ident.unidentifiable.all()


def test_tables_and_report_of_a_fit():
    a, b = _normal_equations()
    fit = calibrate(line_model(), line_data(), scale="absolute")
    res = fit.to_frame("residuals").set_index("id")
    p0 = a + b * X[0]
    assert res.loc["doc.y0", "percent_error"] == pytest.approx(100 * (p0 - Y[0]) / abs(Y[0]), rel=1e-8)
    t = fit.to_frame()
    assert t.loc["a", "initial"] == 0.5 and t.loc["b", "value"] == pytest.approx(b, rel=1e-9)
    text = fit_report(fit)
    assert text == fit.report()
    for section in ("[[Calibration]] line", "[[Parameters]]", "[[Correlations]]", "[[Residuals]]"):
        assert section in text
    assert math.isclose(fit.chisqr, float(np.sum((Y - a - b * X) ** 2)), rel_tol=1e-9)


# ----------------------------------------------------------------------------- grouped leave-out
def _line_model():
    from zmodel.calibration import Model

    m = Model({"a": 1.0}, name="line")
    for k, x in enumerate([1.0, 2.0, 3.0, 4.0]):
        m.add_predictor(f"doc.y{k}", lambda p, x=x: p["a"] * x)
    data = pd.DataFrame({"id": [f"doc.y{k}" for k in range(4)], "kind": "absolute",
                         "value_num": [2.0, 4.0, 7.0, 8.0], "unit": "s"})
    return m, data


def test_grouped_leave_out_by_hand():
    from zmodel.calibration import cross_validate

    # y = a x on the absolute scale, groups A = {x=1, x=2}, B = {x=3, x=4}. Least squares
    # without A: a = (3*7 + 4*8) / (9 + 16) = 53/25 = 2.12, so A is predicted 2.12 and 4.24
    # (+6 % each); without B: a = (1*2 + 2*4) / (1 + 4) = 2, so B is predicted 6 and 8
    # (-14.2857 % and 0 %).
    m, data = _line_model()
    groups = {"doc.y0": "A", "doc.y1": "A", "doc.y2": "B", "doc.y3": "B"}
    cv = cross_validate(m, data, scale="absolute", groups=groups, progress=False).set_index("id")
    assert cv["predicted_loo"].tolist() == pytest.approx([2.12, 4.24, 6.0, 8.0], rel=1e-9)
    assert cv["percent_error_loo"].tolist() == pytest.approx([6.0, 6.0, -100 / 7, 0.0], rel=1e-9, abs=1e-9)
    assert cv["group"].tolist() == ["A", "A", "B", "B"]
    assert cv.attrs["refits"] == 2 and cv.attrs["failed_refits"] == 0
    assert cv.attrs["by_group"] == pytest.approx({"A": 6.0, "B": 50 / 7}, rel=1e-9)
    # a group of one row is plain leave-one-out: rows the mapping does not name stand alone
    one = cross_validate(m, data, scale="absolute", groups={"doc.y0": "A", "doc.y1": "A"}, progress=False)
    plain = cross_validate(m, data, scale="absolute", progress=False).set_index("id")
    one = one.set_index("id")
    assert one.attrs["refits"] == 3
    for i in ("doc.y2", "doc.y3"):
        assert one.loc[i, "predicted_loo"] == pytest.approx(plain.loc[i, "predicted_loo"], rel=1e-12)
        assert one.loc[i, "group"] == i
    # without x = 3: a = (2 + 8 + 32) / (1 + 4 + 16) = 2 -> y2 predicted 6 (by hand, as above)
    assert plain.loc["doc.y2", "predicted_loo"] == pytest.approx(6.0, rel=1e-9)
    with pytest.raises(ValueError, match="groups must be a mapping"):
        cross_validate(m, data, groups=["A"], progress=False)


def test_grouped_leave_out_never_sees_its_group():
    from zmodel.calibration import cross_validate

    # perturbing a left-out row never moves its own prediction, nor that of its group mates
    m, data = _line_model()
    groups = {"doc.y0": "A", "doc.y1": "A", "doc.y2": "B", "doc.y3": "B"}
    base = cross_validate(m, data, scale="absolute", groups=groups, progress=False).set_index("id")
    moved = data.copy()
    moved.loc[moved["id"] == "doc.y1", "value_num"] = 40.0
    cv = cross_validate(m, moved, scale="absolute", groups=groups, progress=False).set_index("id")
    for i in ("doc.y0", "doc.y1"):
        assert cv.loc[i, "predicted_loo"] == pytest.approx(base.loc[i, "predicted_loo"], rel=1e-12)
    assert cv.loc["doc.y2", "predicted_loo"] != pytest.approx(base.loc["doc.y2", "predicted_loo"], rel=1e-3)
