"""Chart helpers (zmodel/plotting.py): spec structure, real Vega rendering, errors.

Expected values are the inputs themselves (the points, tooltips and slider ranges the
caller gave); rendering is checked by compiling each spec with the Vega runtime bundled
in vl-convert-python (an undefined parameter in an expression fails there).
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import altair as alt  # noqa: E402  (a declared dependency: missing is a failure)

from zmodel import plotting  # noqa: E402


def _svg(chart) -> str:
    import vl_convert

    version = ".".join(alt.VEGALITE_VERSION.split(".")[:2])
    kw = {"vl_version": version} if version in vl_convert.get_vegalite_versions() else {}
    return vl_convert.vegalite_to_svg(chart.to_dict(), **kw)


@pytest.fixture
def measured():
    return pd.DataFrame({"N": [4, 16], "X": [700.0, 1500.0], "kernel": ["2.4", "2.4"],
                         "id": ["doc.a", "doc.b"], "verbatim": ["about 700", "1500 MB per second"],
                         "source": ["paper.txt", "paper.txt"]})


@pytest.fixture
def curve():
    n = np.arange(1, 33)
    return pd.DataFrame({"N": n, "X": 100.0 * n / (1 + 0.05 * (n - 1)), "kernel": "2.4",
                         "line": "model"})


def test_measured_vs_model_layers_points_and_tooltips(measured, curve):
    rules = pd.DataFrame({"N": [20.0], "id": ["doc.c"], "verbatim": ["above 20"], "source": ["paper.txt"]})
    chart = plotting.measured_vs_model(measured, curve, x="N", y="X", series="kernel", rules=rules,
                                       dash="line", title="t", x_title="processors [1]")
    spec = chart.to_dict()
    marks = [layer["mark"]["type"] for layer in spec["layer"]]
    assert marks == ["line", "point", "rule"]
    line, points, rule = spec["layer"]
    tips = [t["field"] for t in points["encoding"]["tooltip"]]
    assert tips == ["id", "verbatim", "source", "N", "X"]
    assert points["encoding"]["color"]["field"] == "kernel"
    assert line["encoding"]["strokeDash"]["field"] == "line"
    assert spec["layer"][0]["encoding"]["x"]["title"] == "processors [1]"
    # the points carry exactly the documented rows
    data = spec["datasets"][points["data"]["name"]]
    assert [(d["N"], d["X"], d["id"]) for d in data] == [(4, 700.0, "doc.a"), (16, 1500.0, "doc.b")]
    assert [t["field"] for t in rule["encoding"]["tooltip"]] == ["id", "verbatim", "source", "N"]
    svg = _svg(chart)
    assert svg.startswith("<svg") and "processors [1]" in svg


def test_measured_vs_model_errors(measured, curve):
    with pytest.raises(ValueError, match=r"measured must have the column\(s\) \['verbatim'\]"):
        plotting.measured_vs_model(measured.drop(columns="verbatim"), curve, x="N", y="X")
    with pytest.raises(ValueError, match=r"model must have the column\(s\) \['Y'\]"):
        plotting.measured_vs_model(measured.rename(columns={"X": "Y"}), curve, x="N", y="Y")
    with pytest.raises(ValueError, match="measured must be a pandas DataFrame, got list"):
        plotting.measured_vs_model([1, 2], curve, x="N", y="X")


def test_residual_chart_bars_status_and_axis():
    r = pd.DataFrame({
        "id": ["a", "b", "c", "d"], "kind": ["absolute", "upper_bound", "lower_bound", "absolute"],
        "unit": ["s"] * 4, "measured": [1.0, 8.0, 4.0, 2.0], "predicted": [1.0, 5.0, 3.0, 2.5],
        "percent_error": [1e-14, -37.5, -25.0, 25.0], "used_in_fit": [True] * 4,
        "satisfied": pd.array([pd.NA, True, False, pd.NA], dtype="boolean")})
    chart = plotting.residual_chart(r, title="residuals")
    spec = chart.to_dict()
    rows = spec["datasets"][spec["data"]["name"]]
    shown = {d["id"]: (d["shown_percent_error"], d["status"]) for d in rows}
    assert shown == {"a": (0.0, "value"), "b": (-37.5, "bound satisfied"),
                     "c": (-25.0, "bound violated"), "d": (25.0, "value")}
    assert spec["encoding"]["x"]["scale"]["domain"] == [-37.5, 37.5]
    assert {t["field"] for t in spec["encoding"]["tooltip"]} >= {"id", "measured", "predicted", "percent_error"}
    assert _svg(chart).startswith("<svg")
    with pytest.raises(ValueError, match=r"residuals must have the column\(s\) \['percent_error'\]"):
        plotting.residual_chart(r.drop(columns="percent_error"))


def test_residual_chart_of_zero_errors_spans_one_percent():
    r = pd.DataFrame({"id": ["a"], "kind": ["absolute"], "unit": ["s"], "measured": [1.0],
                      "predicted": [1.0], "percent_error": [-1e-14], "used_in_fit": [True]})
    spec = plotting.residual_chart(r).to_dict()
    assert spec["encoding"]["x"]["scale"]["domain"] == [-1.0, 1.0]


def test_slider_binding():
    p = plotting.slider("kappa_24", 0.002, 0.0, 0.01, 0.0005, label="kappa [1]")
    d = p.param.to_dict()
    assert d["name"] == "kappa_24" and d["value"] == 0.002
    assert d["bind"] == {"input": "range", "min": 0.0, "max": 0.01, "step": 0.0005, "name": "kappa [1] "}
    assert plotting.slider("s", 0.5, 0.0, 1.0).param.bind.step == pytest.approx(0.01)


@pytest.mark.parametrize("args, message", [
    (("2x", 0.5, 0.0, 1.0), "name must be a valid identifier, got '2x'"),
    (("x", 0.5, 1.0, 1.0), "min must be smaller than max, got min=1.0, max=1.0"),
    (("x", 2.0, 0.0, 1.0), r"value must lie in \[min, max\] = \[0.0, 1.0\], got 2.0"),
    (("x", 0.5, 0.0, 1.0, -0.1), "step must be positive, got -0.1"),
])
def test_slider_errors(args, message):
    with pytest.raises(ValueError, match=message):
        plotting.slider(*args)


def test_expression_curve_uses_parameters_and_renders():
    sigma = plotting.slider("sigma", 0.05, 0.0, 0.2, 0.01)
    kappa = plotting.slider("kappa", 0.001, 0.0, 0.01, 0.0005)
    expr = "100 * datum.N / (1 + sigma * (datum.N - 1) + kappa * datum.N * (datum.N - 1))"
    chart = plotting.expression_curve([1, 2, 4, 8], expr, x="N", y="X", params=[sigma, kappa],
                                      series="what-if", dash=True, color="crimson")
    spec = chart.to_dict()
    assert spec["transform"] == [{"calculate": expr, "as": "X"}]
    assert [p["name"] for p in spec["params"]] == ["sigma", "kappa"]
    assert [d["N"] for d in spec["datasets"][spec["data"]["name"]]] == [1.0, 2.0, 4.0, 8.0]
    assert spec["mark"]["strokeDash"] == [6, 4] and spec["mark"]["color"] == "crimson"
    assert _svg(chart).startswith("<svg")


def test_expression_with_an_undefined_parameter_fails_to_render():
    chart = plotting.expression_curve([1, 2], "datum.N * missing_param", x="N", y="X")
    with pytest.raises(Exception, match="missing_param"):
        _svg(chart)


def test_grid_curve_slider_steps_through_the_grid():
    z = np.repeat([0.0, 0.5, 1.0, 1.5], 3)
    n = np.tile([1, 2, 3], 4)
    f = pd.DataFrame({"think time": z, "N": n, "R": z + n})
    chart = plotting.grid_curve(f, x="N", y="R", by="think time", value=1.0, label="Z [s]")
    spec = chart.to_dict()
    p = spec["params"][0]
    assert p["name"] == "think_time" and p["value"] == 1.0
    assert p["bind"] == {"input": "range", "min": 0.0, "max": 1.5, "step": 0.5, "name": "Z [s] "}
    assert spec["transform"] == [{"filter": 'abs(datum["think time"] - think_time) < 0.25'}]
    assert _svg(chart).startswith("<svg")


def test_grid_curve_errors():
    f = pd.DataFrame({"Z": [0.0, 1.0, 3.0], "N": [1, 1, 1], "R": [1.0, 2.0, 3.0]})
    with pytest.raises(ValueError, match=r"the values of 'Z' must be equally spaced"):
        plotting.grid_curve(f, x="N", y="R", by="Z")
    with pytest.raises(ValueError, match=r"frame must hold at least two values of 'Z', got 1"):
        plotting.grid_curve(f.iloc[:1], x="N", y="R", by="Z")


def test_renderer_emits_vegalite_json_and_an_svg_fallback():
    previous = alt.renderers.active
    try:
        plotting.enable_renderer()
        chart = alt.Chart(pd.DataFrame({"x": [1, 2]})).mark_point().encode(x="x:Q").properties(title="T")
        bundle = chart._repr_mimebundle_()
        bundle = bundle[0] if isinstance(bundle, tuple) else bundle
        mime = plotting.vegalite_mimetype()
        assert set(bundle) == {mime, "text/plain", "image/svg+xml"}
        assert bundle[mime] == chart.to_dict()
        assert bundle["text/plain"] == "<Vega-Lite chart: T>"
        # the static fallback is an SVG drawing of the chart (its title is drawn as text)
        svg = bundle["image/svg+xml"]
        assert svg.lstrip().startswith("<svg") and ">T</text>" in svg
        assert mime == f"application/vnd.vegalite.v{alt.SCHEMA_VERSION.lstrip('v').split('.')[0]}+json"
    finally:
        alt.renderers.enable(previous)


def test_equations_latex_and_mathml():
    from zmodel.queueing import symbolic

    eq = plotting.equations(symbolic.mm1(), ["utilization", "response_time"])
    latex = eq._repr_latex_()
    assert latex.startswith("$$\\begin{aligned}") and "\\lambda" in latex and "\\rho" in latex
    page = eq._repr_html_()
    assert page.count("<math") == 2 and "&#955;" in page and "http" not in page  # lambda
    with pytest.raises(ValueError, match=r"metrics names unknown metric\(s\) \['speed'\]"):
        plotting.equations(symbolic.mm1(), ["speed"])
