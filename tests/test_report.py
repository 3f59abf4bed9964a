"""The report (``make report`` = ``python -m zmodel.report``): content, offline-ness, rendering.

One module-scoped build (notebooks executed once, into a temporary folder) serves the
content tests; the browser test opens its pages in headless Chromium (Debian's
``chromium``, installed by the set-up: ``make browser``, or ``.ci/run`` best effort; the
test never installs anything and skips, printing the install command, when it is
absent) and checks that every chart rendered an
SVG or canvas element and that the page logged no script error. It saves a screenshot to
``report/screenshot.png``; with ``ZMODEL_UPDATE_SCREENSHOT=1`` it also refreshes the
committed ``docs/report-screenshot.png``.

The execution path (kernels started, shut down, interrupted) is tested on tiny notebooks
written by the tests, so that it takes seconds, not the minutes of the real notebooks.
"""
from __future__ import annotations

import html
import math
import os
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

from zmodel import report
from zmodel.fits import registry

ROOT = Path(__file__).resolve().parents[1]


# --------------------------------------------------------------------------- helpers
class _Tables(HTMLParser):
    """Rows (lists of cell texts) of every <table> in a page."""

    def __init__(self):
        super().__init__()
        self.rows, self._row, self._cell = [], None, None

    def handle_starttag(self, tag, attrs):
        if tag == "tr":
            self._row = []
        elif tag in ("td", "th") and self._row is not None:
            self._cell = []

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            self._row.append("".join(self._cell).strip())
            self._cell = None
        elif tag == "tr" and self._row is not None:
            self.rows.append(self._row)
            self._row = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


class _Charts(HTMLParser):
    """Per chart container (<div class="... zmodel-chart ...">): its id, classes, and
    how many <svg>/<canvas> elements it holds."""

    def __init__(self):
        super().__init__()
        self.charts: dict[str, dict] = {}
        self._current, self._depth = None, 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if self._current is None:
            if tag == "div" and "zmodel-chart" in (a.get("class") or "").split():
                self._current, self._depth = a.get("id"), 1
                self.charts[self._current] = {"class": a.get("class"), "drawn": 0}
            return
        if tag == "div":
            self._depth += 1
        elif tag in ("svg", "canvas"):
            self.charts[self._current]["drawn"] += 1

    def handle_endtag(self, tag):
        if self._current is not None and tag == "div":
            self._depth -= 1
            if self._depth == 0:
                self._current = None


def _tables(page: str) -> list[list[str]]:
    p = _Tables()
    p.feed(page)
    return p.rows


def _chart_ids(page: str) -> list[str]:
    return re.findall(r'<div class="zmodel-chart" id="([^"]+)">', page)


# --------------------------------------------------------------------------- the build
@pytest.fixture(scope="module")
def calibrations():
    # a catalog-engine fit, a fit with its own summary (DASD histograms): the front page's
    # two kinds of section; the full registry runs in make report (minutes, not seconds)
    entries = registry.select(["usl", "storage", "dasd"])
    return report.run_calibrations([(e.title, e.target) for e in entries])


@pytest.fixture(scope="module")
def sources(tmp_path_factory):
    """A snapshot of the committed notebooks (they may change while the tests run)."""
    folder = tmp_path_factory.mktemp("notebooks")
    for path in report.notebooks():
        shutil.copyfile(path, folder / path.name)
    return report.notebooks(folder)


@pytest.fixture(scope="module")
def built(tmp_path_factory, calibrations, sources):
    # The committed notebooks' outputs are rendered, not re-executed: nbval (in the same
    # `make test`) executes them and checks their outputs; the execution path of the
    # report is tested below on small notebooks.
    out = tmp_path_factory.mktemp("build") / "report"
    # The example predictions with 10 parameter draws instead of the report's 100: the page
    # renders the same columns (the draws set the interval columns' values, not their layout),
    # and 100 draws cost this fixture a minute.
    index = report.build_report(out, sources, calibrations=calibrations, log=lambda msg: None, execute=False,
                                examples=report.example_predictions(samples=10))
    assert index == out / "index.html"
    return out


def test_one_page_per_notebook_and_links(built, sources):
    stems = [p.stem for p in sources]
    assert {"01_queueing_basics", "10_calibration_usl"} <= set(stems)
    pages = sorted(p.name for p in built.iterdir())
    assert pages == sorted([f"{s}.html" for s in stems] + ["index.html"])
    index = (built / "index.html").read_text(encoding="utf-8")
    for s in stems:
        assert f'href="{s}.html"' in index
        assert 'href="index.html"' in (built / f"{s}.html").read_text(encoding="utf-8")
    # nothing left behind by the atomic build
    assert not [p for p in built.parent.iterdir() if p.name.startswith(".report-")]


def test_index_has_residual_rows_of_every_calibration(built, calibrations):
    index = (built / "index.html").read_text(encoding="utf-8")
    rows = {r[0]: r for r in _tables(index) if r}
    assert calibrations, "no calibration is registered"
    for title, _, result in calibrations:
        assert html.escape(title) in index
        if not hasattr(result, "chisqr"):  # own summary table: its rows are on the page
            assert html.escape(result.report().splitlines()[0]) in index
            continue
        resid = result.to_frame("residuals")
        assert len(resid) > 0
        for _, r in resid.iterrows():
            assert r["id"] in rows, f"residual row {r['id']} missing from index.html"
            cells = rows[r["id"]]
            assert cells[1] == r["kind"]
            # the measured value is the catalog's number, printed with 6 significant digits
            assert float(cells[3]) == pytest.approx(float(r["measured"]), rel=1e-5)
        # the parameter table lists every parameter
        for name in result.to_frame("parameters").index:
            assert name in rows


def test_no_external_resources(built):
    for page in built.glob("*.html"):
        text = page.read_text(encoding="utf-8")
        srcs = re.findall(r"<script\b[^>]*\bsrc\s*=\s*[\"']?([^\"' >]+)", text, flags=re.I)
        assert not [s for s in srcs if re.match(r"(https?:)?//", s)], f"{page.name} loads {srcs}"
        assert not srcs, f"{page.name}: every script must be inline, found src={srcs}"
        links = re.findall(r"<link\b[^>]*\bhref\s*=\s*[\"']?(https?:)?//", text, flags=re.I)
        assert not links, f"{page.name} links external resources"
        assert not re.search(r"@import\s+url\(\s*[\"']?https?:", text), page.name
        assert not re.search(r"import\(\s*[\"']https?:", text), f"{page.name} imports a module from the web"
        assert "vegaEmbed" in text


def test_notebook_pages_embed_their_charts(built, sources):
    import nbformat

    for path in sources:
        nb = nbformat.read(path, as_version=4)
        committed = sum(1 for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])
                        if any(k.startswith("application/vnd.vegalite.") for k in o.get("data", {})))
        page = (built / f"{path.stem}.html").read_text(encoding="utf-8")
        if path.stem in ("01_queueing_basics", "10_calibration_usl"):
            assert committed >= 2, f"{path.name} is not executed or lost its charts"
        assert len(_chart_ids(page)) == committed
        assert "application/vnd.vegalite" not in page or "zmodelEmbed" in page


def test_pages_are_deterministic(calibrations):
    import nbformat

    assert report.index_page(calibrations, [("a.html", "A")]) == \
        report.index_page(calibrations, [("a.html", "A")])
    nb = nbformat.read(report.notebooks()[0], as_version=4)
    assert report.notebook_page(nb, "x") == report.notebook_page(nb, "x")


def test_executed_build_runs_this_python_and_embeds_charts(tmp_path):
    import nbformat
    from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

    nbdir = tmp_path / "nbs"
    nbdir.mkdir()
    nb = new_notebook(cells=[
        new_markdown_cell("# A small notebook"),
        new_code_cell("import sys, os; print(sys.executable); print(os.getcwd())"),
        new_code_cell("import altair as alt, pandas as pd\nfrom zmodel import plotting\n"
                      "plotting.enable_renderer()\n"
                      "alt.Chart(pd.DataFrame({'x': [1, 2]})).mark_point().encode(x='x:Q')"),
    ])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, nbdir / "small.ipynb")
    out = tmp_path / "out"
    report.build_report(out, nbdir, calibrations=[], log=lambda msg: None)
    assert sorted(p.name for p in out.iterdir()) == ["index.html", "small.html"]
    page = (out / "small.html").read_text(encoding="utf-8")
    assert html.escape(sys.executable) in page          # the kernel is this interpreter
    assert html.escape(str(nbdir.resolve())) in page    # and runs in the notebook's folder
    assert len(_chart_ids(page)) == 1
    assert "A small notebook" in (out / "index.html").read_text(encoding="utf-8")
    assert (nbdir / "small.ipynb").read_text() == nbformat.writes(nb) + "\n" or \
        not nbformat.read(nbdir / "small.ipynb", as_version=4).cells[1].outputs  # source untouched


def test_failed_build_leaves_previous_report(tmp_path):
    import nbformat
    from nbclient.exceptions import CellExecutionError
    from nbformat.v4 import new_code_cell, new_notebook

    nbdir = tmp_path / "nbs"
    nbdir.mkdir()
    nb = new_notebook(cells=[new_code_cell("raise RuntimeError('broken notebook')")])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, nbdir / "bad.ipynb")
    out = tmp_path / "report"
    out.mkdir()
    (out / "index.html").write_text("previous")
    with pytest.raises(CellExecutionError, match="broken notebook"):
        report.build_report(out, nbdir, calibrations=[], log=lambda msg: None)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["nbs", "report"]
    assert (out / "index.html").read_text() == "previous"


def test_text_only_prints_the_demonstration_and_calibrations(capsys, tmp_path):
    assert report.main(["--text-only", "--output", str(tmp_path / "r"), "--areas", "usl", "network"]) == 0
    out = capsys.readouterr().out
    assert "Queueing core: exact MVA" in out
    for entry in registry.select(["usl", "network"]):
        assert entry.title in out
    assert "[[Residuals]]" in out
    assert not (tmp_path / "r").exists()


# --------------------------------------------------------------------------- browser
_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
          "--disable-background-networking", "--disable-component-update", "--disable-sync",
          "--disable-dev-shm-usage", "--hide-scrollbars", "--enable-logging=stderr", "--v=0",
          "--virtual-time-budget=15000"]


#: how the set-up provides the browser (``make browser``; ``.ci/run`` tries it, best effort)
INSTALL_BROWSER = "apt-get update && apt-get install -y chromium"


@pytest.fixture(scope="module")
def chromium():
    """The headless browser, if installed; the test run never installs packages itself."""
    for name in ("chromium", "chromium-browser"):
        exe = shutil.which(name)
        if exe:
            return exe
    pytest.skip(f"headless Chromium is not installed; install it (as root) with: {INSTALL_BROWSER}   (or: make browser)")


def _run_chromium(exe, profile, *args, timeout=180):
    cmd = [exe, *_FLAGS, f"--user-data-dir={profile}", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)


def test_charts_render_in_headless_chromium(built, chromium, tmp_path):
    for page in sorted(built.glob("*.html")):
        source = page.read_text(encoding="utf-8")
        expected = _chart_ids(source)
        r = _run_chromium(chromium, tmp_path / f"profile-{page.stem}", "--dump-dom", page.as_uri())
        assert r.returncode == 0, r.stderr[-2000:]
        dom = r.stdout
        parser = _Charts()
        parser.feed(dom)
        assert sorted(parser.charts) == sorted(expected), page.name
        for cid, info in parser.charts.items():
            assert "vega-embed" in info["class"].split(), f"{page.name}#{cid}: vegaEmbed did not run"
            assert info["drawn"] >= 1, f"{page.name}#{cid}: no <svg> or <canvas> drawn"
        root = re.search(r"<html[^>]*>", dom).group(0)
        assert "data-zmodel-errors" not in root, f"{page.name}: {html.unescape(root)}"
        rendered = re.search(r'data-zmodel-rendered="(\d+)"', root)
        assert int(rendered.group(1) if rendered else 0) == len(expected), page.name
        console = [line for line in r.stderr.splitlines() if ":CONSOLE" in line]
        errors = [line for line in console if re.search(r"Uncaught|Error|error", line)]
        assert not errors, f"{page.name}: console errors:\n" + "\n".join(errors)


def test_screenshot(built, chromium, tmp_path):
    shot = built / "screenshot.png"  # the front page: residual table and chart
    r = _run_chromium(chromium, tmp_path / "profile-shot", "--window-size=1280,1150",
                      f"--screenshot={shot}", (built / "index.html").as_uri())
    assert r.returncode == 0, r.stderr[-2000:]
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000
    (ROOT / "report").mkdir(exist_ok=True)
    shutil.copyfile(shot, ROOT / "report" / "screenshot.png")
    if os.environ.get("ZMODEL_UPDATE_SCREENSHOT") == "1":
        (ROOT / "docs").mkdir(exist_ok=True)
        shutil.copyfile(shot, ROOT / "docs" / "report-screenshot.png")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(pytest.main([__file__, "-q"]))


# --------------------------------------------------------------------------- the front page answers first
def _section(page: str, start: str, end: str) -> str:
    return page[page.index(start):page.index(end)]


def test_front_page_opens_with_predictions_accuracy_and_assumptions(built, calibrations):
    index = (built / "index.html").read_text(encoding="utf-8")
    order = [index.index(f'id="{name}"') for name in ("predictions", "accuracy", "assumptions", "notebooks",
                                                       "details")]
    assert order == sorted(order)
    # every example scenario's headline table, by its file name
    for path in report.example_files():
        assert f"examples/{path.name}" in _section(index, 'id="predictions"', 'id="accuracy"')
    # a clear place for the intervals and the validation summaries to come
    assert 'id="intervals"' in index and 'id="validation"' in index
    # one accuracy row per area run (the kernel summary feeds the kernel areas' rows)
    acc = report.accuracy_table(calibrations)
    by_target = {e.target: e.area for e in registry.CALIBRATIONS}
    assert list(acc["area"]) == [by_target[t] for _, t, _ in calibrations]
    assert "issue's targets" not in index  # no internal wording


def test_details_are_folded_and_histograms_summarised(built, calibrations):
    index = (built / "index.html").read_text(encoding="utf-8")
    details = index[index.index('id="details"'):]
    assert details.count('<details class="zmodel-area"') == len(calibrations)
    (dasd,) = [r for _, t, r in calibrations if t.startswith("zmodel.fits.dasd:")]
    buckets = len(dasd.to_frame())
    assert buckets > report.LONG_TABLE  # histogram-sized: summarised, not dumped
    assert f"{buckets} rows (one per histogram bucket)" in index
    rows = [r for r in _tables(index) if r and r[0] in {"service_time", "waiting_time", "total_time"}]
    assert 0 < len(rows) <= 10 + len(dasd.ks)  # ten largest residuals + the KS row per histogram


def test_math_is_mathml_in_every_page_and_code_is_folded(built, sources):
    import nbformat

    for path in sources:
        nb = nbformat.read(path, as_version=4)
        page = (built / f"{path.stem}.html").read_text(encoding="utf-8")
        math_cells = [c for c in nb.cells if c.cell_type == "markdown" and "$" in c.source]
        if math_cells:
            assert "<math" in page, path.name
        for cell in math_cells:  # no TeX source left in the rendered text
            for tex in re.findall(r"(?<!\\)\$([^$]+)\$", cell.source)[:3]:
                assert html.escape(f"${tex}$") not in page, (path.name, tex)
        codes = sum(1 for c in nb.cells if c.cell_type == "code")
        assert page.count('<details class="zmodel-code">') == codes, path.name
    page = (built / "02_channels_and_dasd.html").read_text(encoding="utf-8")
    assert "$D = t_c + B/r$" not in page and "<msub><mi>t</mi><mi>c</mi></msub>" in page


# --------------------------------------------------------------------------- no leaked kernels
def _kernels() -> list:
    import psutil

    out = []
    for child in psutil.Process().children(recursive=True):
        try:
            if "ipykernel_launcher" in " ".join(child.cmdline()):
                out.append(child)
        except psutil.NoSuchProcess:
            pass
    return out


def _tiny_notebooks(folder: Path, n: int = 2, source: str = "print(6 * 7)") -> Path:
    import nbformat
    from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

    folder.mkdir()
    for k in range(n):
        nb = new_notebook(cells=[new_markdown_cell(f"# Tiny {k}\nwith $x_k$"), new_code_cell(source)])
        nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
        nbformat.write(nb, folder / f"tiny{k}.ipynb")
    return folder


def test_no_kernel_is_left_after_a_report(tmp_path):
    nbdir = _tiny_notebooks(tmp_path / "nbs")
    assert _kernels() == []
    report.build_report(tmp_path / "out", nbdir, calibrations=[], log=lambda msg: None)
    assert _kernels() == []
    runner = report.NotebookRunner(report.notebooks(nbdir), workers=2).start()  # the threaded path
    report.build_report(tmp_path / "out", nbdir, calibrations=[], log=lambda msg: None, runner=runner)
    runner.close()
    assert _kernels() == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["nbs", "out"]


def test_no_kernel_is_left_after_a_failing_notebook(tmp_path):
    from nbclient.exceptions import CellExecutionError

    nbdir = _tiny_notebooks(tmp_path / "nbs", n=1, source="raise RuntimeError('broken')")
    with pytest.raises(CellExecutionError):
        report.build_report(tmp_path / "out", nbdir, calibrations=[], log=lambda msg: None)
    assert _kernels() == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["nbs"]


def test_interrupt_exits_130_keeps_the_previous_report_and_no_kernel(tmp_path):
    import contextlib
    import signal
    import time

    import psutil

    nbdir = _tiny_notebooks(tmp_path / "nbs", n=1, source="import time\ntime.sleep(120)")
    out = tmp_path / "report"
    out.mkdir()
    (out / "index.html").write_text("previous")
    env = {**os.environ, "CI": "1", "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    proc = subprocess.Popen([sys.executable, "-m", "zmodel.report", "--areas", "crypto", "--notebooks",
                             str(nbdir), "--output", str(out)],
                            cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    kernels = []
    try:
        deadline = time.monotonic() + 120
        while not kernels and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.5)
            kernels = [c for c in psutil.Process(proc.pid).children(recursive=True)
                       if "ipykernel_launcher" in " ".join(c.cmdline())]
        assert kernels, "the kernel never started"
        time.sleep(3)  # the notebook is executing its cell
        proc.send_signal(signal.SIGINT)
        stdout, stderr = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:  # a hung build must not outlive the test (nor its kernel)
            proc.kill()
            proc.wait()
            for k in kernels:
                with contextlib.suppress(psutil.NoSuchProcess):
                    k.kill()
    assert proc.returncode == 130, stderr
    assert stderr.splitlines()[-1] == "python -m zmodel.report: interrupted", stderr
    assert "Traceback" not in stderr and "AssertionError" not in stderr
    assert (out / "index.html").read_text() == "previous"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["nbs", "report"]  # no build folder left
    gone, alive = psutil.wait_procs(kernels, timeout=10)
    assert not alive, f"kernel still running: {alive}"


# --------------------------------------------------------------------------- each area fitted once, progress
def test_each_area_is_fitted_once_and_the_kernel_summary_reuses_it(monkeypatch, capsys):
    import io

    import zmodel.fits.kernel_locks as locks
    import zmodel.fits.kernel_report as kernel_report

    calls, seen = [], {}

    class Fit:
        def report(self):
            return "fit report"

    fit = Fit()

    def calibrate():
        calls.append("locks")
        return fit

    def summary(results=None):
        seen.update(results or {})
        return Fit()

    real_load = registry.load

    def load(target):  # the registered locks calibration, replaced by the counting one
        name = getattr(target, "target", target)
        return calibrate if name.startswith(locks.__name__ + ":") else real_load(target)

    monkeypatch.setattr(registry, "load", load)
    monkeypatch.setattr(kernel_report, "kernel_calibration_report", summary)
    entries = registry.select(["kernel_locks", "kernel"])
    stream = io.StringIO()
    progress = report.Progress(len(entries), prog="t", stream=stream, bar=False)
    out = report.run_calibrations([(e.title, e.target) for e in entries], progress=progress, echo=True)
    assert calls == ["locks"] and seen == {"locks": fit}  # the summary got the fit, not a refit
    assert [r for _, _, r in out][0] is fit
    # one progress line per area, as it starts; the text reports stream to stdout
    assert [ln.split("] ")[1] for ln in stream.getvalue().splitlines()] == ["calibrating kernel_locks",
                                                                          "calibrating kernel"]
    assert capsys.readouterr().out.count("fit report") == 2


# --------------------------------------------------------------------------- the validation summary
def _validation_table():
    import pandas as pd

    # counted ratios 1.1, 0.6, 3.0, 1.25, 0.5: |ratio - 1| = 0.1, 0.4, 2.0, 0.25, 0.5 -> median 0.4;
    # within x1.5 ([2/3, 1.5]): 1.1, 1.25 -> 2; within x2 ([0.5, 2]): 1.1, 0.6, 1.25, 0.5 -> 4
    return pd.DataFrame({
        "id": ["val.a.x", "val.a.y", "val.b.x", "val.b.y", "val.b.z", "val.a.c", "val.b.n"],
        "area": ["a", "a", "b", "b", "b", "a", "b"],
        "status": ["counted"] * 5 + ["catalog check", "inexpressible"],
        "ratio": [1.1, 0.6, 3.0, 1.25, 0.5, 1.0, float("nan")],
        "missing": [""] * 6 + ["no <fairness> model"]})


def test_front_page_validation_summary_fragment():
    page = report.validation_section(_validation_table(), [("12_x.html", "X"), ("13_validation.html", "V")])
    assert page.startswith('<div id="validation">')
    text = " ".join(page.split())
    assert "Median |error| 40.0 %; within &times;1.5: 2 of 5; within &times;2: 4 of 5" in text
    assert "5 counted of 6 expressible figures, 7 in all; 1 catalog checks shown but not counted" in text
    assert 'href="13_validation.html"' in page
    # per area: a has errors 0.1, 0.4 (median 25.0 %, worst 40.0 %), b 2.0, 0.25, 0.5 (median 50.0 %)
    assert "<td>a</td><td>3</td><td>2</td><td>25.0 %</td><td>40.0 %</td><td>val.a.y</td>" in page
    assert "<td>b</td><td>4</td><td>3</td><td>50.0 %</td><td>200.0 %</td><td>val.b.x</td>" in page
    assert "<code>val.b.n</code>: no &lt;fairness&gt; model" in page       # inexpressible, escaped
    assert "inside the 90 % prediction interval" not in text                   # no intervals in this table
    with_intervals = _validation_table().assign(published=[1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0],
                                                predicted_lo=[0.9, 1.1, 0.5, 2.0, 0.8, 1.0, math.nan],
                                                predicted_hi=[1.2, 1.3, 2.0, 3.0, 1.0, 1.0, math.nan],
                                                parameter_lo=[1.0, 1.2, 0.9, 2.5, 0.85, 1.0, math.nan],
                                                parameter_hi=[1.1, 1.25, 1.1, 2.6, 0.9, 1.0, math.nan])
    text = " ".join(report.validation_section(with_intervals).split())
    # counted: 1 in [0.9, 1.2], [0.5, 2] and [0.8, 1.0] (its end); not in [1.1, 1.3], [2, 3] -> 3 of 5;
    # the parameters' intervals: 1 in [1.0, 1.1] and [0.9, 1.1] only -> 2 of 5 (one in a, one in b)
    assert "Published value inside the 90 % prediction interval: 3 of 5; inside the parameters' interval " \
           "alone: 2 of 5." in text
    assert "<td>1 of 2 (1)</td></tr>" in text and "<td>2 of 3 (1)</td></tr>" in text     # areas a and b


def test_front_page_validation_placeholder_and_notebook_list():
    page = report.validation_section(None, [])
    assert 'id="validation"' in page and "not computed" in page and "href" not in page
    assert "13_validation.ipynb" in [p.name for p in report.notebooks()]


def test_notebook_runner_starts_the_long_notebooks_first():
    paths = [Path(f"/nb/{name}.ipynb") for name in ("01_a", "02_b", "11_c", "12_d")]
    runner = report.NotebookRunner(paths, first=("12_d", "11_c", "99_absent"))
    assert [p.stem for p in runner.order] == ["12_d", "11_c", "01_a", "02_b"]
    assert runner.paths == paths                                   # pages keep the file-name order
    assert [p.stem for p in report.NotebookRunner(paths, first=()).order] == ["01_a", "02_b", "11_c", "12_d"]
    assert set(report.LONG_NOTEBOOKS) <= {p.stem for p in report.notebooks()}   # no stale name
    late = report.NotebookRunner(paths, first=("12_d",), last=("02_b", "01_a"))
    assert [p.stem for p in late.order] == ["12_d", "11_c", "02_b", "01_a"]
    assert set(report.LATE_NOTEBOOKS) <= {p.stem for p in report.notebooks()}


def test_shared_results_are_read_back_instead_of_recomputed(tmp_path, monkeypatch):
    """A process whose environment names a shared-results file takes a calibration's fit and
    leave-one-out table from it (make report's notebook kernels); without it, it computes."""
    import zmodel.fits as fits

    cal = registry.load(registry.select(["storage"])[0])
    cal.clear()
    table = cal.cross_validate()           # computed here, memoised with the fit
    fit = cal.run()
    path = tmp_path / "shared.pickle"
    fits.share_results([cal], path)
    cal.clear()
    monkeypatch.setenv(fits.SHARED_RESULTS, str(path))
    monkeypatch.setattr(fits, "_SHARED", [None, {}])
    def computed(self, options):
        raise AssertionError("computed instead of read back")

    monkeypatch.setattr(fits.Calibration, "_split", computed)   # every computation passes here
    assert cal.run().report() == fit.report()
    assert cal.cross_validate().equals(table)
    cal.clear()
    monkeypatch.setenv(fits.SHARED_RESULTS, str(tmp_path / "not-written-yet.pickle"))
    with pytest.raises(AssertionError, match="computed instead"):   # no file yet: computed as usual
        cal.run()
    monkeypatch.undo()
    cal.clear()


def test_fits_computed_ahead_in_processes_give_the_same_reports(capsys):
    """workers=2 (zmodel calibrate) fits the areas outside the kernel layer in other processes
    and the kernel areas here: every report equals the one-process run's, in registry order."""
    entries = registry.select(["usl", "storage", "network", "kernel_hypervisor"])
    pairs = [(e.title, e.target) for e in entries]
    for e in entries:
        registry.load(e).clear()
    one = report.run_calibrations(pairs, echo=True)
    text_one = capsys.readouterr().out
    for e in entries:
        registry.load(e).clear()
    two = report.run_calibrations(pairs, echo=True, workers=2)
    text_two = capsys.readouterr().out
    assert [t for _, t, _ in two] == [t for _, t, _ in one]
    assert text_two == text_one
    # a result from another process is memoised here: the leave-one-out refits start from it
    usl = registry.load(entries[0])
    assert usl.run() is two[0][2]


def test_the_summary_cross_validations_run_together_before_the_first_needs_them(monkeypatch):
    """With workers (zmodel calibrate) every table the kernel summary shows is computed in
    one pool when its step comes (one call); in one process nothing is computed ahead."""
    import zmodel.fits.kernel_report as kernel_report

    calls, order = [], []

    class Fit:
        def report(self):
            return "fit report"

    def together(requests, workers=1, progress=False):
        calls.append(([(cal.area, opts) for cal, opts in requests], workers))
        order.append("together")
        return [None] * len(requests)

    def summary(results=None, **kw):
        order.append("summary")
        return Fit()

    monkeypatch.setattr(kernel_report, "cross_validate_together", together)
    monkeypatch.setattr(kernel_report, "kernel_calibration_report", summary)
    entries = registry.select(["kernel_hypervisor", "kernel"])
    pairs = [(e.title, e.target) for e in entries]
    report.run_calibrations(pairs, workers=2)
    expected = [(cal.area, opts) for cal, opts in kernel_report.summary_cross_validations()]
    assert calls == [(expected, 2)] and order == ["together", "summary"]
    calls.clear()
    report.run_calibrations(pairs)
    assert calls == []
    # a calibration that cannot load, before the summary, is reported by its own step
    errors = []
    report.run_calibrations([("missing", "zmodel.fits.no_such_area:CALIBRATION")] + pairs, workers=2,
                            on_error=lambda title, target, exc: errors.append(title))
    assert errors == ["missing"] and calls == [(expected, 2)]


def test_fits_computed_ahead_keep_the_error_and_warning_policy():
    """A calibration that fails (elsewhere or here) reaches on_error; warnings reach on_warnings."""
    import warnings

    from zmodel.fits import kernel_hypervisor

    errors, warned = [], []
    real = kernel_hypervisor.CALIBRATION

    class Warns:
        def __call__(self):
            warnings.warn("a fit's warning", UserWarning)
            return real.run()

    pairs = [("missing", "zmodel.fits.no_such_area:CALIBRATION"),
             ("usl", registry.select(["usl"])[0].target)]
    import unittest.mock as mock

    with mock.patch.object(kernel_hypervisor, "CALIBRATION", Warns()):
        out = report.run_calibrations(pairs + [("hyp", "zmodel.fits.kernel_hypervisor:CALIBRATION")], workers=2,
                                      on_error=lambda title, target, exc: errors.append(title),
                                      on_warnings=lambda title, target, caught: warned.append(
                                          (title, [str(w.message) for w in caught])))
    assert errors == ["missing"]
    assert [t for t, _, _ in out] == ["usl", "hyp"]
    assert ("hyp", ["a fit's warning"]) in warned


def test_waiting_for_shared_results(tmp_path, monkeypatch):
    """The calibration notebook waits for the report's fits only when the report named a file."""
    import threading

    import zmodel.fits as fits

    monkeypatch.setattr(fits, "_SHARED", [None, {}])
    monkeypatch.delenv(fits.SHARED_RESULTS, raising=False)
    assert fits.wait_for_shared_results(timeout=5.0) is False          # unset: at once
    path = tmp_path / "shared.pickle"
    monkeypatch.setenv(fits.SHARED_RESULTS, str(path))
    assert fits.wait_for_shared_results(timeout=0.3) is False          # never written
    writer = threading.Timer(0.3, lambda: fits.share_results([], path))
    writer.start()
    try:
        assert fits.wait_for_shared_results(timeout=30.0) is True      # written meanwhile
    finally:
        writer.join()
    assert fits._shared_results("storage") == {}


def test_front_page_headline_shows_the_prediction_interval_after_the_parameters_one():
    import pandas as pd

    frame = pd.DataFrame({"workload.clients": [10], "throughput": [100.0], "throughput_lo": [90.0],
                          "throughput_hi": [110.0], "throughput_prediction_lo": [60.0],
                          "throughput_prediction_hi": [170.0], "response_time": [0.5], "response_time_lo": [0.4],
                          "response_time_hi": [0.6], "model": ["closed: stub"]})
    page = report._headline({"frame": frame, "sweep": ["workload.clients"]})
    assert "100 [90, 110] (60 to 170)" in page       # the headline: both intervals
    assert "0.5 [0.4, 0.6]<" in page                  # no prediction interval: the parameters' alone


def test_front_page_headline_shows_the_fraction_of_saturated_draws_where_one_saturates():
    import pandas as pd

    frame = pd.DataFrame({"hardware.channels": [1, 1, 2, 2], "kernel.version": ["2.4.21", "2.6.10"] * 2,
                          "throughput": [9000.0, 9000.0, 15000.0, 15000.0],
                          "response_time": [math.inf, math.inf, 0.004, 0.0039],
                          "p_saturated": [1.0, 1.0, 0.81, 0.0], "p_saturated_prediction": [1.0, 1.0, 0.91, 0.05],
                          "model": ["open: stub"] * 4})
    page = report._headline({"frame": frame, "sweep": ["hardware.channels", "kernel.version"]})
    assert "<th>2.4.21: P(saturated)</th><th>2.6.10: P(saturated)</th>" in page
    assert "<td>0.81 (0.91)</td><td>0.00 (0.05)</td>" in page     # the prediction's fraction in parentheses
    calm = frame.assign(p_saturated=0.0, p_saturated_prediction=0.0)
    assert "P(saturated)" not in report._headline({"frame": calm, "sweep": ["hardware.channels", "kernel.version"]})
