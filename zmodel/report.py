"""The main job: ``make report`` (``python -m zmodel.report``).

It does three things:

1. prints, as plain text, a demonstration of the queueing core (a closed interactive
   network solved by exact MVA over a population sweep, beside its asymptotic bounds)
   and every calibration report registered in :data:`CALIBRATIONS`, each with its
   residual table against the documented numbers;
2. executes every notebook in ``notebooks/`` (a fresh kernel running this very Python
   interpreter, so the venv's packages are used) -- the committed notebooks are not
   modified;
3. writes a self-contained, offline HTML report: ``report/index.html`` (the
   calibration residual and parameter tables of every registered calibration, links to
   the notebook pages) and ``report/<notebook>.html``, one page per notebook.

Nothing is fetched from a network when the report is built or viewed: the Vega,
Vega-Lite and vega-embed JavaScript is inlined from the copy bundled with the installed
``vl-convert-python`` package (:func:`vl_convert.javascript_bundle`), equations are
MathML (rendered natively by the browser), and nbconvert's CDN scripts (RequireJS,
MathJax, Mermaid) are left out. The content is deterministic (no dates, no random
element ids). The pages are built in a temporary directory beside the output and moved
into place at the end, so an interrupted build leaves the previous report intact.

Usage: ``python -m zmodel.report [--output DIR] [--notebooks DIR] [--text-only] [--no-execute]``.
"""
from __future__ import annotations

import argparse
import functools
import html
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

from zmodel.fits import registry as _registry

# (title, "module:function") pairs from the one registry (zmodel.fits.registry), shared with
# ``zmodel calibrate``. Each function returns an object with ``report()``; catalog-engine
# results (CalibrationResult) also give ``to_frame("residuals" | "parameters" | "shape_checks")``,
# other fits (the DASD histograms, the kernel summary) a single ``to_frame()`` table.
CALIBRATIONS: list[tuple[str, str]] = [(entry.title, entry.target) for entry in _registry.CALIBRATIONS]

ROOT = Path(__file__).resolve().parents[1]
#: default notebook folder and output folder (the repository's ``notebooks/`` and ``report/``)
NOTEBOOKS = ROOT / "notebooks"
OUTPUT = ROOT / "report"
TITLE = "zmodel report: queueing models of Linux on the mainframe, calibrated against documented numbers"
#: seconds a single notebook cell may run
CELL_TIMEOUT = 600


# --------------------------------------------------------------------------- text part
def demonstration() -> str:
    """Text of the queueing demonstration: a three-station interactive system."""
    import numpy as np
    import pandas as pd

    from zmodel.queueing import asymptotic_bounds, mva

    # A timesharing system in the style of Lazowska et al., QSP (1984) ch. 5-6: a CPU and
    # two disks, 15 s think time; demands [s] are illustrative.
    demands = np.array([0.605, 2.1, 1.35])
    think = 15.0
    populations = np.array([1, 2, 5, 10, 15, 20, 30])
    exact = mva(np.broadcast_to(demands, (len(populations), 3)), populations, think_time=think)
    bounds = asymptotic_bounds(demands, populations, think_time=think)
    table = pd.DataFrame({
        "population": populations,
        "throughput [1/s]": exact.throughput,
        "X upper bound [1/s]": bounds.throughput_upper,
        "response_time [s]": exact.response_time,
        "R lower bound [s]": bounds.response_time_lower,
        "U cpu": exact.utilization[:, 0],
        "U disk1": exact.utilization[:, 1],
        "U disk2": exact.utilization[:, 2],
    })
    head = ("Queueing core: exact MVA of an interactive system (CPU, two disks; "
            f"demands {demands.tolist()} s, think time {think} s)")
    return head + "\n" + table.to_string(index=False, float_format=lambda v: f"{v:.4f}")


def run_calibrations(registry: list[tuple[str, str]] | None = None) -> list[tuple[str, str, object]]:
    """Run every registered calibration; returns ``(title, target, result)`` triples."""
    from importlib import import_module

    out = []
    for title, target in (CALIBRATIONS if registry is None else registry):
        module, _, func = target.partition(":")
        out.append((title, target, getattr(import_module(module), func)()))
    return out


def print_text(calibrations, file=None) -> None:
    """Print the demonstration and each calibration's text report."""
    file = sys.stdout if file is None else file
    print(demonstration(), file=file)
    for title, _, result in calibrations:
        print("\n" + "=" * 78 + f"\n{title}\n" + "=" * 78, file=file)
        print(result.report(), file=file)


# --------------------------------------------------------------------------- notebooks
def notebooks(folder=None) -> list[Path]:
    """The notebooks of the report, in file-name order (checkpoints excluded).

    ``folder`` is a directory (default :data:`NOTEBOOKS`) or an explicit list of
    notebook paths (kept in the given order).
    """
    if folder is not None and not isinstance(folder, (str, os.PathLike)):
        return [Path(p) for p in folder]
    folder = Path(NOTEBOOKS if folder is None else folder)
    return sorted(p for p in folder.glob("*.ipynb") if not p.name.startswith("."))


def _kernel_manager():
    """A kernel manager whose ``python3`` kernel runs this interpreter (the venv's)."""
    from jupyter_client.kernelspec import KernelSpec, KernelSpecManager
    from jupyter_client.manager import KernelManager

    class _ThisPython(KernelSpecManager):
        def get_kernel_spec(self, kernel_name):
            return KernelSpec(argv=[sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}",
                                    "--IPKernelApp.log_level=ERROR"],
                              display_name="Python 3 (ipykernel)", language="python", env={},
                              resource_dir="")

    return KernelManager(kernel_name="python3", kernel_spec_manager=_ThisPython())


def execute_notebook(path: Path | str, timeout: int = CELL_TIMEOUT):
    """Execute a notebook in a fresh kernel (cwd = its folder); returns the executed node.

    The file on disk is not modified. A failing cell raises
    :class:`nbclient.exceptions.CellExecutionError` naming the cell.
    """
    import nbformat
    from nbclient import NotebookClient

    path = Path(path)
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(nb, km=_kernel_manager(), timeout=timeout, kernel_name="python3",
                            record_timing=False,  # no timestamps: executed notebooks are reproducible
                            resources={"metadata": {"path": str(path.parent)}})
    client.execute()
    return nb


# --------------------------------------------------------------------------- HTML pieces
@functools.lru_cache(maxsize=1)
def vega_bundle() -> str:
    """Vega, Vega-Lite and vega-embed as one JavaScript string (from vl-convert-python).

    Uses the Vega-Lite version Altair writes when vl-convert ships it. The bundle
    defines ``window.vegaEmbed``, ``window.vega`` and ``window.vegaLite``.
    """
    import altair as alt
    import vl_convert

    wanted = ".".join(alt.VEGALITE_VERSION.split(".")[:2])
    version = wanted if wanted in vl_convert.get_vegalite_versions() else None
    js = vl_convert.javascript_bundle(vl_version=version)
    return js.replace("</script", "<\\/script")


#: records script errors and chart renderings on <html> (read back by the browser test)
_INSTRUMENT = """
(function () {
  var root = document.documentElement;
  function note(kind, msg) {
    var prev = root.getAttribute("data-zmodel-errors") || "";
    root.setAttribute("data-zmodel-errors", prev + "[" + kind + "] " + String(msg).slice(0, 300) + "\\n");
  }
  window.addEventListener("error", function (e) { note("error", e.message); });
  window.addEventListener("unhandledrejection", function (e) { note("rejection", e.reason); });
  var original = console.error;
  console.error = function () { note("console.error", Array.prototype.join.call(arguments, " ")); original.apply(console, arguments); };
  window.zmodelEmbed = function (id, spec) {
    var el = document.getElementById(id);
    vegaEmbed(el, spec, {actions: false, renderer: "svg"}).then(function () {
      root.setAttribute("data-zmodel-rendered", String(Number(root.getAttribute("data-zmodel-rendered") || 0) + 1));
    }).catch(function (err) { note("vegaEmbed " + id, err); el.textContent = "chart failed: " + err; });
  };
})();
"""


def head_scripts() -> str:
    """The inline ``<script>`` elements every page needs (instrumentation + Vega bundle)."""
    return f"<script>{_INSTRUMENT}</script>\n<script>{vega_bundle()}</script>\n"


def chart_html(spec: dict, element_id: str) -> str:
    """A ``<div>`` and the inline script that renders Vega-Lite ``spec`` into it."""
    payload = json.dumps(spec, sort_keys=True, separators=(",", ":"), allow_nan=False)
    payload = payload.replace("</", "<\\/").replace("<!--", "<\\!--")
    return (f'<div class="zmodel-chart" id="{element_id}"></div>\n'
            f'<script>zmodelEmbed("{element_id}", {payload});</script>\n')


def embed_charts(nb, prefix: str = "chart") -> int:
    """Replace every Vega-Lite output of ``nb`` by an HTML ``vegaEmbed`` snippet, in place.

    Element ids are ``<prefix>-<cell>-<output>``, so the result is deterministic.
    Returns the number of charts.
    """
    n = 0
    for ci, cell in enumerate(nb.cells):
        for oi, out in enumerate(cell.get("outputs", [])):
            data = out.get("data", {})
            keys = [k for k in data if k.startswith("application/vnd.vegalite.")]
            if not keys:
                continue
            spec = data[keys[0]]
            if isinstance(spec, str):
                spec = json.loads(spec)
            out["data"] = {"text/html": chart_html(spec, f"{prefix}-{ci}-{oi}")}
            n += 1
    return n


_TEMPLATE = """{%- extends 'index.html.j2' -%}
{%- block html_head_js -%}
<!-- ZMODEL-HEAD-SCRIPTS -->
{%- endblock html_head_js -%}
{%- block html_head_js_mathjax -%}{%- endblock html_head_js_mathjax -%}
{%- block html_head_js_mermaidjs -%}{%- endblock html_head_js_mermaidjs -%}
{%- block jupyter_widgets -%}{%- endblock jupyter_widgets -%}
"""

_NAV = ('<nav class="zmodel-nav" style="padding: 8px 16px; font-family: sans-serif;">'
        '<a href="index.html">&larr; zmodel report</a></nav>')


def notebook_title(nb, default: str) -> str:
    """The first Markdown heading of a notebook (without the #s), else ``default``."""
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            for line in cell.source.splitlines():
                if line.startswith("#"):
                    return line.lstrip("#").strip().replace("`", "").replace("**", "")
    return default


def notebook_page(nb, name: str) -> str:
    """The offline HTML page of an executed notebook (charts embedded, no CDN scripts)."""
    from jinja2 import DictLoader
    from nbconvert import HTMLExporter

    nb = json.loads(json.dumps(nb))  # plain copy
    import nbformat

    nb = nbformat.from_dict(nb)
    embed_charts(nb)
    nb.metadata["title"] = notebook_title(nb, name)
    exporter = HTMLExporter(template_name="lab", extra_loaders=[DictLoader({"zmodel.html.j2": _TEMPLATE})],
                            template_file="zmodel.html.j2")
    body, _ = exporter.from_notebook_node(nb, resources={"metadata": {"name": name}})
    body = body.replace("<!-- ZMODEL-HEAD-SCRIPTS -->", head_scripts(), 1)
    return body.replace("<main>", "<main>\n" + _NAV, 1)


def _fmt_table(frame, formats: dict | None = None) -> str:
    """A DataFrame as an HTML table with fixed, deterministic number formats."""
    import math

    import pandas as pd

    formats = formats or {}

    def cell(col, v):
        if v is None or v is pd.NA or (isinstance(v, float) and math.isnan(v)):
            return ""
        if isinstance(v, (bool,)) or type(v).__name__ == "bool_":
            return "yes" if v else "no"
        if isinstance(v, float):
            return formats.get(col, "{:.6g}").format(v + 0.0)
        return str(v)

    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in frame.columns)
    rows = []
    for _, row in frame.iterrows():
        tds = "".join(f"<td>{html.escape(cell(c, row[c]))}</td>" for c in frame.columns)
        rows.append(f"<tr>{tds}</tr>")
    return f'<table class="zmodel-table"><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table>'


def residual_table_html(result) -> str:
    """The residual table of a calibration result as HTML (one row per measurement)."""
    r = result.to_frame("residuals")
    cols = [c for c in ["id", "kind", "unit", "measured", "predicted", "percent_error", "satisfied",
                        "used_in_fit"] if c in r.columns]
    r = r[cols].copy()
    if "percent_error" in r.columns:
        r = r.rename(columns={"percent_error": "% error"})
    return _fmt_table(r, {"% error": "{:.2f}"})


def parameter_table_html(result) -> str:
    """The parameter table (value, stderr, flags) of a calibration result as HTML."""
    t = result.to_frame("parameters").reset_index()
    cols = [c for c in ["name", "value", "stderr", "unit", "vary", "identifiable", "at_bound", "note"]
            if c in t.columns]
    return _fmt_table(t[cols])


_CSS = """
body { font-family: -apple-system, "Segoe UI", "DejaVu Sans", sans-serif; margin: 24px auto; max-width: 1100px;
       padding: 0 16px; color: #222; line-height: 1.45; }
h1 { font-size: 1.6em; } h2 { margin-top: 2em; border-bottom: 1px solid #ccc; }
table.zmodel-table { border-collapse: collapse; font-size: 0.88em; margin: 8px 0 16px; }
table.zmodel-table th, table.zmodel-table td { border: 1px solid #ddd; padding: 3px 8px; text-align: left; }
table.zmodel-table th { background: #f2f2f2; }
pre { background: #f7f7f7; padding: 8px; overflow-x: auto; font-size: 0.8em; }
.zmodel-chart { margin: 12px 0; }
"""


def index_page(calibrations, pages: list[tuple[str, str]]) -> str:
    """The front page: residual tables of every calibration, links to the notebook pages.

    Parameters
    ----------
    calibrations : list of (title, target, result)
        From :func:`run_calibrations`.
    pages : list of (file name, title)
        The notebook pages, in order.
    """
    from zmodel.plotting import residual_chart

    parts = [f"<h1>{html.escape(TITLE)}</h1>",
             "<p>Each calibration fits a model's free parameters to numbers documented in the seed "
             "papers; the residual table has one row per documented measurement "
             "(% error = 100 (predicted &minus; measured) / |measured|; a satisfied bound "
             "contributes no residual). Parameters flagged <em>not identifiable</em> or "
             "<em>at a bound</em> are not determined by the data.</p>",
             "<h2>Notebooks</h2>", "<ul>"]
    for fname, title in pages:
        parts.append(f'<li><a href="{html.escape(fname)}">{html.escape(title)}</a> '
                     f'<code>{html.escape(fname)}</code></li>')
    parts.append("</ul>")
    parts.append("<h2>Calibrations</h2>")
    for k, (title, target, result) in enumerate(calibrations):
        parts.append(f'<h3 id="calibration-{k}">{html.escape(title)}</h3>')
        if not hasattr(result, "chisqr"):  # not a catalog-engine fit: its own summary table
            parts.append(f"<p><code>{html.escape(target)}</code></p>")
            parts.append(_fmt_table(result.to_frame()))
            parts.append(f"<details><summary>text report</summary><pre>{html.escape(result.report())}</pre></details>")
            continue
        parts.append(f"<p><code>{html.escape(target)}</code> &mdash; chi-square {result.chisqr:.4g}, "
                     f"{result.n_data} measurements used ({result.n_active} active), "
                     f"{result.n_free} free parameters, {result.dof} degrees of freedom.</p>")
        parts.append("<h4>Residuals</h4>")
        parts.append(residual_table_html(result))
        chart = residual_chart(result.to_frame("residuals"), title="percent error per documented number")
        parts.append(chart_html(chart.to_dict(), f"residuals-{k}"))
        parts.append("<h4>Parameters</h4>")
        parts.append(parameter_table_html(result))
        shapes = result.to_frame("shape_checks")
        if len(shapes):
            parts.append("<h4>Shape checks (not fitted)</h4>")
            parts.append(_fmt_table(shapes))
        parts.append(f"<details><summary>text report</summary><pre>{html.escape(result.report())}</pre></details>")
    parts.append("<h2>Queueing core demonstration</h2>")
    parts.append(f"<pre>{html.escape(demonstration())}</pre>")
    body = "\n".join(parts)
    return (f'<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            f'<meta name="viewport" content="width=device-width, initial-scale=1.0">\n'
            f"<title>{html.escape(TITLE)}</title>\n<style>{_CSS}</style>\n{head_scripts()}</head>\n"
            f"<body>\n<main>\n{body}\n</main>\n</body>\n</html>\n")


# --------------------------------------------------------------------------- build
def build_report(output: Path | str | None = None, notebook_dir=None, calibrations=None, log=None,
                 execute: bool = True) -> Path:
    """Execute the notebooks and write the HTML report into ``output``; returns its index.

    Parameters
    ----------
    output : path, optional
        Report folder (default :data:`OUTPUT`); replaced as a whole.
    notebook_dir : path or list of paths, optional
        Notebook folder (default :data:`NOTEBOOKS`) or explicit notebooks.
    calibrations : list, optional
        From :func:`run_calibrations` (run here when omitted).
    log : callable, optional
        Progress messages (default: standard error).
    execute : bool
        Execute the notebooks (default); ``False`` renders their committed outputs.

    The pages are written to a temporary folder beside ``output`` and moved into place
    only when all of them succeeded (the previous report is replaced as a whole).
    """
    import nbformat

    output = Path(OUTPUT if output is None else output).resolve()
    log = log or (lambda msg: print(msg, file=sys.stderr, flush=True))
    if calibrations is None:
        calibrations = run_calibrations()
    output.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{output.name}-build-", dir=output.parent))
    os.chmod(tmp, 0o755)
    try:
        pages = []
        for path in notebooks(notebook_dir):
            if execute:
                log(f"executing {path.name} ...")
                nb = execute_notebook(path)
            else:
                nb = nbformat.read(path, as_version=4)
            fname = f"{path.stem}.html"
            (tmp / fname).write_text(notebook_page(nb, path.stem), encoding="utf-8")
            pages.append((fname, notebook_title(nb, path.stem)))
        (tmp / "index.html").write_text(index_page(calibrations, pages), encoding="utf-8")
        old = None
        if output.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{output.name}-old-", dir=output.parent))
            os.replace(output, old / output.name)
        os.replace(tmp, output)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    log(f"report written to {output / 'index.html'} ({len(pages)} notebook pages)")
    return output / "index.html"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m zmodel.report", description=__doc__.splitlines()[0])
    parser.add_argument("--output", default=str(OUTPUT), help="report folder (default: %(default)s)")
    parser.add_argument("--notebooks", default=str(NOTEBOOKS), help="notebook folder (default: %(default)s)")
    parser.add_argument("--text-only", action="store_true", help="print the text report, write no HTML")
    parser.add_argument("--no-execute", action="store_true",
                        help="render the notebooks' committed outputs instead of executing them")
    parser.add_argument("--areas", nargs="+", metavar="AREA",
                        help="only these calibrations (default: all of zmodel.fits.registry)")
    args = parser.parse_args(argv)
    try:
        selected = _registry.select(args.areas)
    except ValueError as exc:
        parser.error(str(exc))
    calibrations = run_calibrations([(e.title, e.target) for e in selected])
    print_text(calibrations)
    sys.stdout.flush()
    if not args.text_only:
        build_report(args.output, args.notebooks, calibrations, execute=not args.no_execute)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
