"""Multi-start calibration (zmodel.calibration: calibrate(starts=, seed=), solve_multistart,
starting_points, distinct_minima) and its use by cross_validate.

The synthetic surface, worked by hand: one parameter ``a`` in [-3, 3], two rows on the absolute
scale, ``a**2`` measured 4 and ``a`` measured 1, so the cost is

    C(a) = 0.5 [(a**2 - 4)**2 + (a - 1)**2],   C'(a) = 2 a**3 - 7 a - 1.

The cubic 2 a^3 - 7 a - 1 has three real roots (its discriminant -4*2*(-7)^3 - 27*4*1 = 2636 > 0):
a+ ~ 1.94 (the global minimum, C ~ 0.47), a0 ~ -0.14 (a maximum: C'' = 6 a^2 - 7 < 0) and
a- ~ -1.80 (a local minimum, C ~ 4.2). The roots are computed below by Cardano's trigonometric
form, independent of the engine. The declared start a = -1.5 lies in the basin of a- (left of a0).
"""
import math

import numpy as np
import pandas as pd
import pytest

from zmodel.calibration import (
    Model,
    Parameters,
    calibrate,
    cross_validate,
    distinct_minima,
    fit_report,
    prepare,
    solve,
    starting_points,
)


def cubic_roots():
    """Real roots of 2 a^3 - 7 a - 1 = 0, i.e. a^3 + p a + q with p = -7/2, q = -1/2 (trigonometric form)."""
    p, q = -3.5, -0.5
    r = 2 * math.sqrt(-p / 3)
    phi = math.acos(3 * q / (p * r))
    return sorted(r * math.cos((phi - 2 * math.pi * k) / 3) for k in range(3))


A_MINUS, A_MAX, A_PLUS = cubic_roots()


def cost(a):
    return 0.5 * ((a * a - 4) ** 2 + (a - 1) ** 2)


def two_minima_model(start=-1.5, extra_rows=0):
    params = Parameters()
    params.add("a", start, min=-3.0, max=3.0)
    m = Model(params, name="two minima")
    m.add_predictor("doc.sq", lambda p: p["a"] ** 2)
    m.add_predictor("doc.lin", lambda p: p["a"])
    for k in range(extra_rows):
        m.add_predictor(f"doc.lin{k}", lambda p: p["a"])
    return m


def two_minima_data(extra_rows=0):
    ids = ["doc.sq", "doc.lin"] + [f"doc.lin{k}" for k in range(extra_rows)]
    return pd.DataFrame({"id": ids, "kind": "absolute", "value_num": [4.0] + [1.0] * (1 + extra_rows),
                         "unit": "1"})


def fit(**kw):
    return calibrate(two_minima_model(), two_minima_data(), scale="absolute", **kw)


def test_hand_roots_are_the_stationary_points():
    for a in (A_MINUS, A_MAX, A_PLUS):
        assert 2 * a ** 3 - 7 * a - 1 == pytest.approx(0, abs=1e-12)
    assert A_MINUS < -1.5 < A_MAX < 0 < A_PLUS
    assert cost(A_PLUS) < cost(A_MINUS)


def test_default_start_stops_in_the_local_minimum():
    r = fit()
    assert r.success
    assert r.params["a"].value == pytest.approx(A_MINUS, rel=1e-7)
    assert r.cost == pytest.approx(cost(A_MINUS), rel=1e-9)
    assert r.multistart is None
    assert "multi-start" not in fit_report(r)


def test_multistart_finds_the_global_minimum():
    r = fit(starts=8, seed=0)
    assert r.success
    assert r.params["a"].value == pytest.approx(A_PLUS, rel=1e-7)
    assert r.cost == pytest.approx(cost(A_PLUS), rel=1e-9)
    # the declared default is still where the search starts and what is reported as initial
    assert r.init_params["a"].value == -1.5
    assert r.parameter_table.loc["a", "initial"] == -1.5


def test_multistart_counts_the_two_minima():
    ms = fit(starts=8, seed=0).multistart
    assert ms.starts == 8 and ms.n_converged == 8
    assert ms.n_minima == 2
    assert ms.minima_costs == pytest.approx([cost(A_PLUS), cost(A_MINUS)], rel=1e-9)
    assert ms.minimum[0] == 1          # the declared start reached the worse minimum
    assert not ms.default_is_best
    hand = np.where(ms.x0[:, 0] > A_MAX, A_PLUS, A_MINUS)   # each start's basin, from the hand roots
    assert ms.x[:, 0] == pytest.approx(hand, rel=1e-7)


def test_report_line():
    r = fit(starts=8, seed=0)
    line = next(s for s in fit_report(r).splitlines() if "multi-start" in s)
    assert "8 starts (seed 0), 8 converged, 2 distinct minima" in line
    assert f"best cost {cost(A_PLUS):.6g}, worst {cost(A_MINUS):.6g}" in line
    assert "did NOT reach" in line


def test_one_start_is_the_single_start_engine_bit_for_bit():
    model, data = two_minima_model(), two_minima_data()
    direct = solve(model, prepare(model, data, scale="absolute"))
    for r in (fit(), fit(starts=1), fit(starts=1, seed=7)):
        assert r.params["a"].value == direct.x[0]
        assert r.nfev == direct.nfev
        assert r.multistart is None
    assert fit().chisqr == fit(starts=1, seed=3).chisqr


def test_same_seed_same_result_and_other_seed_other_points():
    a, b, c = fit(starts=5, seed=3), fit(starts=5, seed=3), fit(starts=5, seed=4)
    assert np.array_equal(a.multistart.x0, b.multistart.x0)
    assert np.array_equal(a.multistart.x, b.multistart.x)
    assert a.params["a"].value == b.params["a"].value
    assert not np.array_equal(a.multistart.x0[1:], c.multistart.x0[1:])


def test_declared_start_on_the_global_minimum_is_kept():
    # start at +1.5 (basin of a+): every start that reaches a+ ties; the declared one is returned
    r = calibrate(two_minima_model(start=1.5), two_minima_data(), scale="absolute", starts=6, seed=1)
    single = calibrate(two_minima_model(start=1.5), two_minima_data(), scale="absolute")
    assert r.params["a"].value == single.params["a"].value
    assert r.multistart.best == 0 and r.multistart.default_is_best


def test_starting_points_bounds_and_laws():
    params = Parameters()
    params.add("wide", 1.0, min=1e-3, max=1e3)      # positive, six decades: log-uniform
    params.add("narrow", 2.0, min=1.0, max=5.0)      # less than a decade: uniform
    params.add("signed", 0.0, min=-1.0, max=1.0)     # a non-positive bound: uniform
    m = Model(params)
    m.add_predictor("doc.x", lambda p: p["wide"] + p["narrow"] + p["signed"])
    data = pd.DataFrame({"id": ["doc.x"], "kind": "absolute", "value_num": [3.0], "unit": "1"})
    pts = starting_points(prepare(m, data), 2001, seed=0)
    assert list(pts[0]) == [1.0, 2.0, 0.0]                      # the declared defaults first
    drawn = pts[1:]
    assert np.all(drawn >= [1e-3, 1.0, -1.0]) and np.all(drawn <= [1e3, 5.0, 1.0])
    # binomial 99 % bands (n = 2000, z = 2.576): log-uniform puts half the mass below the
    # geometric mean 1; uniform puts (3 - 1)/(5 - 1) = 1/2 of narrow below 3 and 1/2 of signed below 0
    n, half = 2000, 1000
    band = 2.576 * math.sqrt(n * 0.25)
    assert abs(np.sum(drawn[:, 0] < 1.0) - half) < band
    assert abs(np.sum(drawn[:, 1] < 3.0) - half) < band
    assert abs(np.sum(drawn[:, 2] < 0.0) - half) < band
    # a uniform law on [1e-3, 1e3] would put only (1 - 1e-3)/(1e3 - 1e-3) ~ 0.1 % below 1
    assert np.sum(drawn[:, 0] < 1.0) > 100


def test_starting_points_with_infinite_bounds_stay_finite():
    params = Parameters()
    params.add("pos", 2.0, min=0.0)            # upper infinite: [0, 20]
    params.add("free", -3.0)                   # both infinite: [-3 - 30, -3 + 30]
    m = Model(params)
    m.add_predictor("doc.x", lambda p: p["pos"] + p["free"])
    data = pd.DataFrame({"id": ["doc.x"], "kind": "absolute", "value_num": [1.0], "unit": "1"})
    pts = starting_points(prepare(m, data), 200, seed=0)
    assert np.all(np.isfinite(pts))
    assert np.all((pts[:, 0] >= 0) & (pts[:, 0] <= 20))
    assert np.all((pts[:, 1] >= -33) & (pts[:, 1] <= 27))


def test_distinct_minima_tolerances():
    scale = np.array([1.0])
    x = np.array([[1.0], [1.0 + 1e-5], [2.0], [1.0]])
    c = np.array([0.5, 0.5 * (1 + 1e-8), 0.5, 0.9])
    # 0 and 1 agree (cost and x within tolerance); 2 has the same cost but another x; 3 another cost
    lab = distinct_minima(c, x, np.array([True, True, True, True]), scale)
    assert lab[0] == lab[1] and len({lab[0], lab[2], lab[3]}) == 3 and lab[3] == 2
    lab = distinct_minima(c, x, np.array([True, False, True, True]), scale)
    assert lab[1] == -1


def test_cross_validate_passes_starts_to_every_refit():
    # rows: a^2 = 4, a = 1, a = 1 (twice). Leaving out one "a = 1" row leaves the surface of the
    # module docstring: single-start refits from -1.5 stop at a-, multi-start refits find a+.
    model, data = two_minima_model(extra_rows=1), two_minima_data(extra_rows=1)
    one = cross_validate(model, data, scale="absolute", progress=False).set_index("id")
    many = cross_validate(model, data, scale="absolute", starts=8, seed=0, progress=False).set_index("id")
    assert one.loc["doc.lin", "predicted_loo"] == pytest.approx(A_MINUS, rel=1e-6)
    assert many.loc["doc.lin", "predicted_loo"] == pytest.approx(A_PLUS, rel=1e-6)
    assert many.attrs["n_failed"] == 0


@pytest.mark.parametrize("kw, match", [
    (dict(starts=0), "starts must be an integer >= 1"),
    (dict(starts=-2), "starts must be an integer >= 1"),
    (dict(starts=2.5), "starts must be an integer >= 1"),
    (dict(starts=True), "starts must be an integer >= 1"),
    (dict(starts=3, seed=-1), "seed must be an integer >= 0"),
    (dict(starts=3, seed=1.5), "seed must be an integer >= 0"),
])
def test_bad_starts_and_seed(kw, match):
    with pytest.raises(ValueError, match=match):
        fit(**kw)


def test_equal_cost_valley_never_displaces_the_declared_start():
    # a * b = 4 with both in [0.5, 8]: every point of the hyperbola fits exactly (cost 0), so the
    # drawn starts end elsewhere on it; they are reported, the declared start's optimum is kept
    params = Parameters()
    params.add("a", 1.0, min=0.5, max=8.0)
    params.add("b", 2.0, min=0.5, max=8.0)
    m = Model(params)
    m.add_predictor("doc.ab", lambda p: p["a"] * p["b"])
    data = pd.DataFrame({"id": ["doc.ab"], "kind": "absolute", "value_num": [4.0], "unit": "1"})
    single = calibrate(m, data, scale="absolute")
    many = calibrate(m, data, scale="absolute", starts=6, seed=0)
    ms = many.multistart
    assert [many.params[n].value for n in "ab"] == [single.params[n].value for n in "ab"]
    assert ms.best == 0 and ms.default_is_best
    assert np.all(np.abs(ms.x[:, 0] * ms.x[:, 1] - 4.0) < 1e-6)     # all on the hand-known valley
    assert ms.n_minima > 1 and ms.n_at_best_cost == ms.n_minima
    assert "at the best cost with other parameter values" in fit_report(many)


def test_a_start_the_model_refuses_is_a_failed_start():
    # the model refuses a > 0: drawn starts right of the maximum a0 (hand root) head for a+ and fail;
    # those left of it converge to a-
    m = two_minima_model()

    def refuse(p):
        if p["a"] > 0:
            raise ValueError("a must be <= 0 here")
        return p["a"]
    m.add_predictor("doc.lin", refuse)
    r = calibrate(m, two_minima_data(), scale="absolute", starts=8, seed=0)
    ms = r.multistart
    assert r.params["a"].value == pytest.approx(A_MINUS, rel=1e-7)
    assert ms.n_converged == int(np.sum(ms.x0[:, 0] < A_MAX))
    assert 0 < ms.n_converged < 8 and ms.n_minima == 1
