"""Chart and display helpers for the notebooks and the report.

Charts are Altair (Vega-Lite) specifications: documented numbers as points whose
tooltips give their catalog id, verbatim phrase and source document; model curves as
lines; residual bars; and what-if sliders made with Altair parameters
(``alt.param`` bound to an HTML range input), so that a chart stays interactive in a
static HTML page with no running kernel. A slider drives a model curve either through
a Vega expression evaluated in the browser (:func:`expression_curve`) or by filtering
a curve precomputed in Python over a grid of the parameter (:func:`grid_curve`).

:func:`enable_renderer` makes notebooks emit the bare Vega-Lite JSON (no random
element ids, no CDN script), which :mod:`zmodel.report` turns into inline,
offline ``vegaEmbed`` calls. :func:`equations` shows SymPy expressions as LaTeX in
Jupyter and as MathML in HTML (rendered by the browser without MathJax).

This module sits beside the layers (it may import any of them; they never import it).
Altair, pandas and SymPy are imported inside the functions, so ``import zmodel`` stays
fast.
"""
from __future__ import annotations

import html
import json
from collections.abc import Iterable, Mapping, Sequence

__all__ = [
    "RENDERER",
    "vegalite_mimetype",
    "enable_renderer",
    "static_image",
    "add_static_images",
    "measured_vs_model",
    "residual_chart",
    "slider",
    "expression_curve",
    "grid_curve",
    "equations",
    "Equations",
]

#: name of the Altair renderer registered by :func:`enable_renderer`
RENDERER = "zmodel"

#: default tooltip fields of documented numbers (catalog columns)
PROVENANCE = ("id", "verbatim", "source")


def vegalite_mimetype() -> str:
    """The Jupyter MIME type of the Vega-Lite major version Altair emits.

    Examples
    --------
    >>> vegalite_mimetype().startswith("application/vnd.vegalite.v")
    True
    """
    import altair as alt

    major = alt.SCHEMA_VERSION.lstrip("v").split(".")[0]
    return f"application/vnd.vegalite.v{major}+json"


def static_image(spec: dict) -> str | None:
    """An SVG drawing of a Vega-Lite chart (the notebooks' static fallback), or None.

    Rendered offline by vl-convert (the Vega-Lite version Altair writes when vl-convert
    ships it). SVG rather than PNG: crisp at any zoom and, being text, stored compressed
    by git. A chart vl-convert cannot draw gets no image (its JSON still renders in
    JupyterLab and the report) rather than breaking the notebook.
    """
    import altair as alt
    import vl_convert

    wanted = ".".join(alt.VEGALITE_VERSION.split(".")[:2])
    version = wanted if wanted in vl_convert.get_vegalite_versions() else None
    try:
        return vl_convert.vegalite_to_svg(spec, vl_version=version)
    except Exception:  # noqa: BLE001 - an undrawable chart keeps its JSON only
        return None


def _render(spec: dict, **metadata) -> dict:
    title = spec.get("title")
    if isinstance(title, dict):
        title = title.get("text")
    label = f"<Vega-Lite chart: {title}>" if title else "<Vega-Lite chart>"
    bundle = {vegalite_mimetype(): spec, "text/plain": label}
    image = static_image(spec)
    if image is not None:
        bundle["image/svg+xml"] = image
    return bundle


def add_static_images(paths) -> int:
    """Give every Vega-Lite output of the notebooks at ``paths`` its SVG fallback, in place.

    For notebooks executed before :func:`enable_renderer` added the images (so their
    committed outputs need not be re-executed); outputs that have one are left alone.
    Returns the number of images added. ``python -m zmodel.plotting NOTEBOOK ...`` runs it.
    """
    import nbformat

    added = 0
    for path in paths:
        nb = nbformat.read(path, as_version=4)
        changed = False
        for cell in nb.cells:
            for out in cell.get("outputs", []):
                data = out.get("data", {})
                keys = [k for k in data if k.startswith("application/vnd.vegalite.")]
                if not keys or "image/svg+xml" in data:
                    continue
                spec = data[keys[0]]
                image = static_image(json.loads(spec) if isinstance(spec, str) else dict(spec))
                if image is not None:
                    data["image/svg+xml"] = image
                    added += 1
                    changed = True
        if changed:
            nbformat.write(nb, path)
    return added


def enable_renderer() -> None:
    """Make Altair charts display as bare Vega-Lite JSON (deterministic, offline).

    Registers and enables the :data:`RENDERER` renderer: a chart's rich output is the
    Vega-Lite specification under :func:`vegalite_mimetype` (rendered natively by
    JupyterLab, turned into an inline ``vegaEmbed`` call by :mod:`zmodel.report`), a
    static SVG of it (:func:`static_image`, drawn offline by vl-convert, so that plain
    ``jupyter nbconvert --to html`` and repository viewers show the chart) and a
    one-line ``text/plain``. Unlike Altair's default HTML renderer it has no random
    element ids and loads nothing from a CDN, so executed notebooks are reproducible.

    Examples
    --------
    >>> import altair as alt
    >>> enable_renderer()
    >>> alt.renderers.active
    'zmodel'
    """
    import altair as alt

    if RENDERER not in alt.renderers.names():
        alt.renderers.register(RENDERER, _render)
    alt.renderers.enable(RENDERER)


def _frame(data, name: str):
    import pandas as pd

    if not isinstance(data, pd.DataFrame):
        raise ValueError(f"{name} must be a pandas DataFrame, got {type(data).__name__}")
    return data


def _require(frame, columns: Iterable[str], name: str) -> None:
    missing = [c for c in columns if c is not None and c not in frame.columns]
    if missing:
        raise ValueError(f"{name} must have the column(s) {missing}; it has {list(frame.columns)}")


def _scale(log: bool):
    import altair as alt

    return alt.Scale(type="log") if log else alt.Undefined


def measured_vs_model(measured, model, *, x: str, y: str, series: str | None = None,
                      x_title: str | None = None, y_title: str | None = None,
                      title: str | None = None, tooltip: Sequence[str] = PROVENANCE,
                      rules=None, dash: str | None = None, log_x: bool = False, log_y: bool = False,
                      width: int = 480, height: int = 300):
    """Documented numbers as points beside a model curve as lines.

    Parameters
    ----------
    measured : pandas.DataFrame
        One row per documented number, with columns ``x``, ``y`` and the
        ``tooltip`` columns (default id, verbatim, source); ``series`` too if given.
    model : pandas.DataFrame
        The model curve(s) in long form: columns ``x``, ``y`` (and ``series``).
    x, y : str
        Column names of the abscissa and ordinate (same in both frames).
    series : str, optional
        Column that splits curves and points into coloured series (e.g. kernel).
    x_title, y_title, title : str, optional
        Axis and chart titles (put the unit in brackets, e.g. ``"throughput [MB/s]"``).
    tooltip : sequence of str
        Columns of ``measured`` shown in the points' tooltips (``x`` and ``y`` are
        always shown).
    rules : pandas.DataFrame, optional
        Documented thresholds as dashed vertical rules: column ``x`` and the
        ``tooltip`` columns.
    dash : str, optional
        Column of ``model`` whose values give the lines' dash patterns (e.g. "model"
        solid vs "bound" dashed).
    log_x, log_y : bool
        Logarithmic axes.
    width, height : int
        Size in pixels.

    Returns
    -------
    altair.LayerChart
        Line layer (model), point layer (documented numbers) and, if given, rules.

    Examples
    --------
    >>> import pandas as pd
    >>> pts = pd.DataFrame({"N": [16], "X": [1500.0], "id": ["doc.x"], "verbatim": ["1500 MB"],
    ...                     "source": ["paper.txt"]})
    >>> curve = pd.DataFrame({"N": [1, 16, 32], "X": [200.0, 1500.0, 1400.0]})
    >>> spec = measured_vs_model(pts, curve, x="N", y="X").to_dict()
    >>> [layer["mark"]["type"] for layer in spec["layer"]]
    ['line', 'point']
    """
    import altair as alt

    measured = _frame(measured, "measured")
    model = _frame(model, "model")
    tooltip = list(tooltip)
    _require(measured, [x, y, series, *tooltip], "measured")
    _require(model, [x, y, series, dash], "model")
    xenc = alt.X(f"{x}:Q", title=x_title or x, scale=_scale(log_x))
    yenc = alt.Y(f"{y}:Q", title=y_title or y, scale=_scale(log_y))
    color = alt.Color(f"{series}:N", title=series) if series else alt.Undefined
    stroke = alt.StrokeDash(f"{dash}:N", title=dash) if dash else alt.Undefined
    line = alt.Chart(model).mark_line().encode(
        x=xenc, y=yenc, color=color, strokeDash=stroke,
        tooltip=[alt.Tooltip(f"{c}:Q" if c in (x, y) else f"{c}:N") for c in (series, x, y) if c])
    points = alt.Chart(measured).mark_point(filled=True, size=110, shape="diamond", stroke="black",
                                            strokeWidth=1).encode(
        x=xenc, y=yenc, color=color,
        tooltip=[alt.Tooltip(f"{c}:N") for c in tooltip] + [alt.Tooltip(f"{x}:Q"), alt.Tooltip(f"{y}:Q")])
    layers = [line, points]
    if rules is not None:
        rules = _frame(rules, "rules")
        _require(rules, [x, *tooltip], "rules")
        layers.append(alt.Chart(rules).mark_rule(strokeDash=[4, 3], color="gray", size=2).encode(
            x=alt.X(f"{x}:Q"), tooltip=[alt.Tooltip(f"{c}:N") for c in tooltip] + [alt.Tooltip(f"{x}:Q")]))
    chart = alt.layer(*layers).properties(width=width, height=height)
    return chart.properties(title=title) if title else chart


def residual_chart(residuals, *, title: str | None = None, width: int = 480):
    """Horizontal bars of percent error, one per documented measurement.

    Parameters
    ----------
    residuals : pandas.DataFrame
        A calibration's residual table (``CalibrationResult.to_frame("residuals")``):
        columns id, kind, unit, measured, predicted, percent_error, used_in_fit and
        optionally satisfied.
    title : str, optional
        Chart title.
    width : int
        Width in pixels.

    Returns
    -------
    altair.Chart
        Bars of ``percent_error`` [%] by id (the axis spans at least -1..1 %,
        symmetric), coloured by status: a value, a satisfied bound (the bar is its slack;
        it contributes no residual to the fit) or a violated bound; the full row is in
        the tooltip.

    Examples
    --------
    >>> import pandas as pd
    >>> r = pd.DataFrame({"id": ["a", "b"], "kind": ["absolute", "upper_bound"], "unit": ["s", "s"],
    ...                   "measured": [1.0, 2.0], "predicted": [1.1, 1.0], "percent_error": [10.0, -50.0],
    ...                   "used_in_fit": [True, True], "satisfied": [None, True]})
    >>> spec = residual_chart(r).to_dict()
    >>> spec["mark"]["type"], spec["encoding"]["x"]["field"]
    ('bar', 'shown_percent_error')
    """
    import altair as alt
    import numpy as np
    import pandas as pd

    r = _frame(residuals, "residuals")
    _require(r, ["id", "kind", "unit", "measured", "predicted", "percent_error", "used_in_fit"], "residuals")
    r = r.copy()
    sat = r["satisfied"] if "satisfied" in r.columns else pd.Series(pd.NA, index=r.index)
    satisfied = sat.fillna(False).astype(bool).to_numpy()
    # round away floating-point noise (1e-14 %); a satisfied bound shows its slack
    shown = np.round(r["percent_error"].astype(float).to_numpy(), 6) + 0.0
    r["shown_percent_error"] = shown
    finite = np.abs(shown[np.isfinite(shown)])
    reach = max(1.0, float(finite.max()) if finite.size else 1.0)
    r["status"] = np.where(sat.isna(), "value", np.where(satisfied, "bound satisfied", "bound violated"))
    cols = ["id", "kind", "unit", "measured", "predicted", "percent_error", "status", "used_in_fit"]
    r = r[cols + ["shown_percent_error"]]
    r["used_in_fit"] = r["used_in_fit"].astype(bool)
    chart = alt.Chart(r).mark_bar().encode(
        x=alt.X("shown_percent_error:Q", title="percent error (predicted - measured) / |measured| [%]",
                scale=alt.Scale(domain=[-reach, reach], nice=True)),
        y=alt.Y("id:N", title=None, sort=None),
        color=alt.Color("status:N", title="row", scale=alt.Scale(
            domain=["value", "bound satisfied", "bound violated"],
            range=["#4c78a8", "#b8d8b0", "#e45756"])),
        tooltip=[alt.Tooltip("id:N"), alt.Tooltip("kind:N"), alt.Tooltip("unit:N"),
                 alt.Tooltip("measured:Q", format=".6g"), alt.Tooltip("predicted:Q", format=".6g"),
                 alt.Tooltip("percent_error:Q", format=".3g"), alt.Tooltip("status:N"),
                 alt.Tooltip("used_in_fit:N")],
    ).properties(width=width)
    return chart.properties(title=title) if title else chart


def slider(name: str, value: float, min: float, max: float, step: float | None = None,
           label: str | None = None):
    """An Altair parameter bound to an HTML range input (works without a kernel).

    Parameters
    ----------
    name : str
        Parameter name, a valid Vega expression identifier (used in expressions).
    value : float
        Initial value, within [min, max].
    min, max : float
        Range of the slider.
    step : float, optional
        Increment; default (max - min) / 100.
    label : str, optional
        Text beside the slider; default ``name``.

    Returns
    -------
    altair.Parameter
        Add it to a chart with ``chart.add_params(param)``.

    Examples
    --------
    >>> p = slider("kappa", 0.002, 0.0, 0.01, 0.0005, label="kappa [1]")
    >>> p.name, p.param.bind.input, p.param.bind.max
    ('kappa', 'range', 0.01)
    """
    import altair as alt

    if not name.isidentifier():
        raise ValueError(f"name must be a valid identifier, got {name!r}")
    if not min < max:
        raise ValueError(f"min must be smaller than max, got min={min}, max={max}")
    if not min <= value <= max:
        raise ValueError(f"value must lie in [min, max] = [{min}, {max}], got {value}")
    if step is None:
        step = (max - min) / 100.0
    if not step > 0:
        raise ValueError(f"step must be positive, got {step}")
    binding = alt.binding_range(min=min, max=max, step=step, name=(label or name) + " ")
    return alt.param(name=name, value=value, bind=binding)


def expression_curve(x_values, expression: str, *, x: str, y: str, params: Sequence = (),
                     color: str | None = None, series: str | None = None,
                     x_title: str | None = None, y_title: str | None = None, dash: bool = False):
    """A model curve computed in the browser from a Vega expression of slider parameters.

    Parameters
    ----------
    x_values : array_like
        Abscissae at which the curve is evaluated.
    expression : str
        Vega expression of ``datum.<x>`` and the parameters' names, e.g.
        ``"lam * datum.N / (1 + sigma * (datum.N - 1))"``.
    x, y : str
        Field names of the abscissa and of the computed ordinate.
    params : sequence of altair.Parameter
        Parameters (e.g. from :func:`slider`) the expression uses; they are added to
        this chart.
    color : str, optional
        Fixed line colour (CSS colour).
    series : str, optional
        A constant label stored in the field ``series`` (for legends).
    x_title, y_title : str, optional
        Axis titles.
    dash : bool
        Dashed line.

    Returns
    -------
    altair.Chart

    Examples
    --------
    >>> k = slider("kappa", 0.002, 0.0, 0.01)
    >>> spec = expression_curve([1, 2, 4], "datum.N / (1 + kappa * datum.N * (datum.N - 1))",
    ...                         x="N", y="X", params=[k]).to_dict()
    >>> spec["transform"][0]["calculate"]
    'datum.N / (1 + kappa * datum.N * (datum.N - 1))'
    >>> spec["params"][0]["name"]
    'kappa'
    """
    import altair as alt
    import numpy as np
    import pandas as pd

    xs = np.asarray(x_values, dtype=float).ravel()
    data = pd.DataFrame({x: xs})
    if series is not None:
        data["series"] = series
    mark = {"strokeDash": [6, 4]} if dash else {}
    if color:
        mark["color"] = color
    tooltip = [alt.Tooltip(f"{x}:Q"), alt.Tooltip(f"{y}:Q", format=".4g")]
    if series is not None:
        tooltip.insert(0, alt.Tooltip("series:N"))
    chart = alt.Chart(data).transform_calculate(**{y: expression}).mark_line(**mark).encode(
        x=alt.X(f"{x}:Q", title=x_title or x), y=alt.Y(f"{y}:Q", title=y_title or y), tooltip=tooltip)
    if params:
        chart = chart.add_params(*params)
    return chart


def grid_curve(frame, *, x: str, y: str, by: str, value: float | None = None,
               label: str | None = None, color: str | None = None, name: str | None = None,
               x_title: str | None = None, y_title: str | None = None):
    """A model curve precomputed over a grid of a parameter, chosen with a slider.

    Parameters
    ----------
    frame : pandas.DataFrame
        Long form: one row per (``by`` value, ``x``) with the model output ``y``; the
        ``by`` values must be equally spaced (they become the slider's steps).
    x, y : str
        Columns of the abscissa and ordinate.
    by : str
        Column of the what-if parameter the slider selects.
    value : float, optional
        Initial slider value; default the grid's first value.
    label : str, optional
        Slider label; default ``by``.
    color : str, optional
        Column that splits the curve into coloured series.
    name : str, optional
        Parameter name (a Vega identifier); default ``by`` with non-identifier
        characters replaced.
    x_title, y_title : str, optional
        Axis titles.

    Returns
    -------
    altair.Chart
        Line chart of the rows whose ``by`` value is the slider's (nearest grid point),
        with the slider parameter attached.

    Examples
    --------
    >>> import pandas as pd
    >>> f = pd.DataFrame({"Z": [0.0, 0.0, 1.0, 1.0], "N": [1, 2, 1, 2], "X": [1.0, 1.5, 0.5, 0.9]})
    >>> spec = grid_curve(f, x="N", y="X", by="Z").to_dict()
    >>> spec["params"][0]["bind"]["step"], spec["transform"][0]["filter"]
    (1.0, 'abs(datum["Z"] - Z) < 0.5')
    """
    import altair as alt
    import numpy as np

    frame = _frame(frame, "frame")
    _require(frame, [x, y, by, color], "frame")
    grid = np.unique(frame[by].to_numpy(dtype=float))
    if grid.size < 2:
        raise ValueError(f"frame must hold at least two values of {by!r}, got {grid.size}")
    steps = np.diff(grid)
    step = float(steps.mean())
    if not np.allclose(steps, step, rtol=1e-6, atol=0.0):
        raise ValueError(f"the values of {by!r} must be equally spaced (one slider step), got {grid.tolist()}")
    pname = name or "".join(ch if ch.isalnum() or ch == "_" else "_" for ch in by)
    if pname[0].isdigit():
        pname = "p_" + pname
    start = float(grid[0] if value is None else value)
    param = slider(pname, start, float(grid[0]), float(grid[-1]), step, label or by)
    half = step / 2.0
    cenc = alt.Color(f"{color}:N") if color else alt.Undefined
    tooltip = [alt.Tooltip(f"{c}:Q", format=".4g") for c in (by, x, y)]
    if color:
        tooltip.insert(0, alt.Tooltip(f"{color}:N"))
    return alt.Chart(frame).transform_filter(f"abs(datum[{json.dumps(by)}] - {pname}) < {half:.12g}").mark_line(
        point=True).encode(x=alt.X(f"{x}:Q", title=x_title or x), y=alt.Y(f"{y}:Q", title=y_title or y),
                           color=cenc, tooltip=tooltip).add_params(param)


# --------------------------------------------------------------------------- equations
#: display symbols of the parameter names used by zmodel.queueing.symbolic
SYMBOLS = {
    "arrival_rate": "lambda", "service_time": "S", "servers": "c", "service_scv": "c_s^2",
    "concurrency": "N", "sigma": "sigma", "kappa": "kappa", "lambda_": "lambda",
    "processors": "p", "serial_fraction": "s",
}
#: display symbols of the metric names of the numeric results
METRICS = {
    "utilization": "rho", "waiting_probability": "P_W", "waiting_time": "W", "response_time": "R",
    "queue_length": "Q", "queue_waiting": "Q_w", "throughput": "X", "relative_capacity": "C",
    "peak_concurrency": "N^*", "peak_throughput": "X^*", "speedup": "speedup",
}


class Equations:
    """A list of ``label: lhs = expression`` rows, shown as LaTeX or MathML.

    Jupyter front ends pick ``_repr_latex_`` or ``_repr_html_``; the HTML form is
    presentation MathML, which browsers render natively (no MathJax, nothing fetched).
    """

    def __init__(self, rows: Sequence[tuple[str, object, object]]):
        self.rows = list(rows)

    def _repr_latex_(self) -> str:
        import sympy as sp

        body = r" \\ ".join(f"{sp.latex(lhs)} &= {sp.latex(rhs)} && \\text{{{label}}}"
                            for label, lhs, rhs in self.rows)
        return rf"$$\begin{{aligned}} {body} \end{{aligned}}$$"

    def _repr_html_(self) -> str:
        import sympy as sp
        from sympy.printing.mathml import mathml

        out = ['<table class="zmodel-equations">']
        for label, lhs, rhs in self.rows:
            m = mathml(sp.Eq(lhs, rhs, evaluate=False), printer="presentation")
            out.append(f"<tr><td>{html.escape(label)}</td>"
                       f'<td><math display="block">{m}</math></td></tr>')
        out.append("</table>")
        return "".join(out)

    def __repr__(self) -> str:
        return "\n".join(f"{label}: {lhs} = {rhs}" for label, lhs, rhs in self.rows)


def equations(model, metrics: Iterable[str] | None = None,
              symbols: Mapping[str, str] | None = None) -> Equations:
    """Display a :class:`zmodel.queueing.symbolic.SymbolicModel`'s metrics as equations.

    Parameters
    ----------
    model : SymbolicModel
        From :mod:`zmodel.queueing.symbolic` (``mm1()``, ``mmc()``, ``usl()``, ...).
    metrics : iterable of str, optional
        Metric names to show, in order; default all.
    symbols : mapping, optional
        Parameter name -> display symbol (SymPy symbol name, e.g. ``"lambda"``),
        overriding :data:`SYMBOLS`.

    Returns
    -------
    Equations
        Rich display object (LaTeX in Jupyter, MathML in HTML).

    Examples
    --------
    >>> from zmodel.queueing import symbolic
    >>> eq = equations(symbolic.mm1(), ["response_time"])
    >>> eq
    response time: R = S/(-S*lambda + 1)
    >>> "<math" in eq._repr_html_()
    True
    """
    import sympy as sp

    names = list(model.metrics) if metrics is None else list(metrics)
    unknown = [m for m in names if m not in model.metrics]
    if unknown:
        raise ValueError(f"metrics names unknown metric(s) {unknown}; expected some of {list(model.metrics)}")
    table = dict(SYMBOLS)
    table.update(symbols or {})
    subs = {}
    for pname, sym in model.symbols.items():
        if pname in table:
            subs[sym] = sp.Symbol(table[pname], **sym.assumptions0)
    rows = [(m.replace("_", " "), sp.Symbol(METRICS.get(m, m)), model.metrics[m].subs(subs)) for m in names]
    return Equations(rows)


if __name__ == "__main__":  # python -m zmodel.plotting notebooks/*.ipynb
    import sys

    print(f"{add_static_images(sys.argv[1:])} chart images added")
