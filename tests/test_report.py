"""The report (``make report`` = ``python -m zmodel.report``): content, offline-ness, rendering.

One module-scoped build (notebooks executed once, into a temporary folder) serves the
content tests; the browser test opens its pages in headless Chromium (Debian's
``chromium``, installed by the set-up: ``make browser``, or ``.ci/run`` best effort; the
test never installs anything and skips, printing the install command, when it is
absent) and checks that every chart rendered an
SVG or canvas element and that the page logged no script error. It saves a screenshot to
``report/screenshot.png``; with ``ZMODEL_UPDATE_SCREENSHOT=1`` it also refreshes the
committed ``docs/report-screenshot.png``.
"""
from __future__ import annotations

import html
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
    index = report.build_report(out, sources, calibrations=calibrations, log=lambda msg: None, execute=False)
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
