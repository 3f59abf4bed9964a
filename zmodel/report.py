"""The main job: ``make report`` (``python -m zmodel.report``).

It does three things, reporting each step as it goes (a progress bar on a terminal,
otherwise one line per step on standard error):

1. prints, as plain text, a demonstration of the queueing core (a closed interactive
   network solved by exact MVA over a population sweep, beside its asymptotic bounds)
   and every calibration report registered in :data:`CALIBRATIONS`, each as soon as it
   is fitted. Each area is fitted once per run: the kernel summary reuses the kernel
   areas' fits made before it;
2. executes every notebook in ``notebooks/`` (a fresh kernel running this very Python
   interpreter, so the venv's packages are used; the kernel is shut down after its
   notebook, also when the notebook fails or the build is interrupted) -- the
   committed notebooks are not modified;
3. writes a self-contained, offline HTML report: ``report/index.html`` and
   ``report/<notebook>.html``, one page per notebook.

The front page answers first: the headline predictions of the example scenarios
(``examples/*.toml``), how well each area's model reproduces the documented numbers
(fitted and, where it exists, leave-one-out error), how well the calibrated model
predicts published figures it was never fitted to (the validation set,
:mod:`zmodel.validation`, linked to its notebook), and what is assumed; the full residual and
parameter tables of each area follow, folded (``<details>``), histogram-sized tables
summarised. Notebook pages show the narrative, tables and charts; code cells are folded
away (one click shows them).

Nothing is fetched from a network when the report is built or viewed: the Vega,
Vega-Lite and vega-embed JavaScript is inlined from the copy bundled with the installed
``vl-convert-python`` package (:func:`vl_convert.javascript_bundle`); TeX in Markdown
cells (``$...$``, ``$$...$$``) is converted to MathML when the page is built
(:mod:`zmodel.texmath`), SymPy equations are MathML already, and browsers render MathML
natively; nbconvert's CDN scripts (RequireJS, MathJax, Mermaid) are left out. The
content is deterministic (no dates, no random element ids). The pages are built in a
temporary directory beside the output and moved into place at the end, so a failed or
interrupted build leaves the previous report intact and nothing behind.

Usage: ``python -m zmodel.report [--output DIR] [--notebooks DIR] [--examples DIR]
[--areas AREA ...] [--text-only] [--no-execute]``. Exit status: 0 on success; 2 for an
error in what the user gave (an unknown area, a missing notebook folder), printed as one
line; 1 when a calibration or a notebook fails (one line naming it); 130 when
interrupted (Ctrl-C), with the one line ``interrupted``.
"""
from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import html
import json
import math
import os
import shutil
import signal
import sys
import tempfile
import time
import warnings
from pathlib import Path

from zmodel.fits import SHARED_RESULTS, share_results
from zmodel.fits import registry as _registry

# (title, "module:function") pairs from the one registry (zmodel.fits.registry), shared with
# ``zmodel calibrate``. Each function returns an object with ``report()``; catalog-engine
# results (CalibrationResult) also give ``to_frame("residuals" | "parameters" | "shape_checks")``,
# other fits (the DASD histograms, the kernel summary) a single ``to_frame()`` table.
CALIBRATIONS: list[tuple[str, str]] = [(entry.title, entry.target) for entry in _registry.CALIBRATIONS]

ROOT = Path(__file__).resolve().parents[1]
#: default notebook folder, example scenarios and output folder (the repository's)
NOTEBOOKS = ROOT / "notebooks"
EXAMPLES = ROOT / "examples"
OUTPUT = ROOT / "report"
TITLE = "zmodel report: queueing models of Linux on the mainframe, calibrated against documented numbers"
#: seconds a single notebook cell may run
CELL_TIMEOUT = 600
#: the kernel summary's target: it is given the kernel areas' fits of the same run
KERNEL_SUMMARY = "zmodel.fits.kernel_report:CALIBRATION"
#: residual tables longer than this are summarised on the front page (full table folded)
LONG_TABLE = 40
#: exit status when interrupted (128 + SIGINT, as shells report it)
EXIT_INTERRUPTED = 130


class ReportUsageError(Exception):
    """An error in what the user gave (unknown area, missing folder): one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # noqa: D401 - argparse API
        raise ReportUsageError(message)


# --------------------------------------------------------------------------- progress
def _is_terminal(stream) -> bool:
    ci = os.environ.get("CI", "")
    try:
        tty = stream.isatty()
    except (AttributeError, ValueError):
        tty = False
    return tty and ci.strip().lower() in ("", "0", "false", "no")


class Progress:
    """Steps of a long job, reported as they start.

    On a terminal (and outside CI) a tqdm bar on ``stream`` shows the step count and the
    current step; otherwise each step prints one line ``<prog>: [k/n mm:ss] <label>``,
    ``mm:ss`` being the time since the job started. :meth:`write` prints a message
    without breaking the bar; :meth:`echo` writes text to standard output likewise.

    Examples
    --------
    >>> import io
    >>> out = io.StringIO()
    >>> p = Progress(2, prog="demo", stream=out, bar=False)
    >>> p.step("first"); p.step("second"); p.close()
    >>> [line.split("] ")[1] for line in out.getvalue().splitlines()]
    ['first', 'second']
    """

    def __init__(self, total: int, prog: str = "zmodel report", stream=None, bar: bool | None = None):
        self.stream = sys.stderr if stream is None else stream
        self.total, self.count, self.prog = int(total), 0, prog
        self.start = time.monotonic()
        self._bar = None
        if bar is None:
            bar = _is_terminal(self.stream)
        if bar:
            from tqdm import tqdm

            self._bar = tqdm(total=self.total, file=self.stream, leave=False, dynamic_ncols=True,
                             bar_format="{desc} {n_fmt}/{total_fmt} [{elapsed}] {postfix}")
            self._bar.set_description_str(prog)

    def elapsed(self) -> float:
        """Seconds since the job started."""
        return time.monotonic() - self.start

    def step(self, label: str) -> None:
        """A step starts (the previous one, if any, is done)."""
        self.count += 1
        if self._bar is not None:
            self._bar.n = self.count - 1
            self._bar.set_postfix_str(label, refresh=True)
            return
        t = int(self.elapsed())
        print(f"{self.prog}: [{self.count}/{self.total} {t // 60:02d}:{t % 60:02d}] {label}",
              file=self.stream, flush=True)

    def write(self, message: str) -> None:
        """A message line on the progress stream."""
        if self._bar is not None:
            self._bar.write(message, file=self.stream)
        else:
            print(message, file=self.stream, flush=True)

    def echo(self, text: str) -> None:
        """Text on standard output (the text report), without breaking the bar."""
        if self._bar is not None:
            self._bar.write(text, file=sys.stdout)
        else:
            print(text, file=sys.stdout, flush=True)

    def close(self) -> None:
        """The job is over: remove the bar."""
        if self._bar is not None:
            self._bar.n = self.count
            self._bar.close()
            self._bar = None


class _Silent(Progress):
    def __init__(self):
        super().__init__(0, bar=False)

    def step(self, label: str) -> None:
        self.count += 1

    def write(self, message: str) -> None:
        pass

    def echo(self, text: str) -> None:
        pass


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


def _area_tables(target: str) -> dict:
    """The further tables a calibration declares (:attr:`zmodel.fits.Calibration.tables`)."""
    try:
        cal = _registry.load(target)
    except _registry.CalibrationUnavailable:
        return {}
    return dict(getattr(cal, "tables", None) or {})


def _kernel_area(target: str) -> str | None:
    """``"zmodel.fits.kernel_locks:CALIBRATION"`` -> ``"locks"`` (else None)."""
    module, _, func = target.partition(":")
    name = module.rsplit(".", 1)[-1]
    if module.startswith("zmodel.fits.kernel_") and name != "kernel_report" \
            and func in ("CALIBRATION", f"calibrate_{name}"):
        return name[len("kernel_"):]
    return None


def run_calibrations(registry: list[tuple[str, str]] | None = None, progress: Progress | None = None,
                     echo: bool = False, on_error=None, on_warnings=None,
                     group_out: bool = False, workers: int = 1) -> list[tuple[str, str, object]]:
    """Run the registered calibrations, each once; returns ``(title, target, result)`` triples.

    Parameters
    ----------
    registry : list of (title, "module:function"), optional
        Default :data:`CALIBRATIONS`.
    progress : Progress, optional
        Each calibration is a step of it.
    echo : bool
        Print each calibration's text report to standard output as soon as it is done.
    on_error : callable, optional
        ``on_error(title, target, exception)`` for a calibration that cannot be loaded
        or raises; the others still run. Default: the exception propagates.
    on_warnings : callable, optional
        ``on_warnings(title, target, caught)`` with the warnings each calibration issued
        (recorded per calibration); default: warnings go their usual way.
    group_out : bool
        With ``echo``, also cross-validate the calibrations that declare groups leaving one
        group out at a time (kernel_versions: leave-one-benchmark-out) and print the table
        after their report; the kernel summary of the same run shows it too.
    workers : int
        Processes for the fits (computed ahead, :class:`_Prefits`) and the leave-one-out
        refits (kernel summary, leave-one-group-out): the same results and tables whatever
        the count. The report keeps 1 (it forks no process while its notebook threads run);
        ``zmodel calibrate`` uses the machine's cores.

    A target is called once per run; the kernel summary (:data:`KERNEL_SUMMARY`) is given
    the kernel areas' fits made before it (``results=``), so they are not fitted twice.
    """
    progress = progress or _Silent()
    done: dict[str, object] = {}
    out = []
    entries = list(CALIBRATIONS if registry is None else registry)
    targets = [t for _, t in entries if t != KERNEL_SUMMARY]
    # with several workers the areas outside the kernel layer are fitted in other processes
    # while this one fits the kernel areas, whose refits (leave-one-out, the kernel summary)
    # follow here and start from this process's state (imports, compiled kernels, caches)
    elsewhere = ([t for t in targets if _kernel_area(t) in (None, *BALANCE_ELSEWHERE)]
                 if workers > 1 and len(targets) > 1 else [])
    ahead = _Prefits(elsewhere, workers)
    if ahead.active:   # the first report line waits for this process's own fits
        progress.write(f"{progress.prog}: fitting {len(elsewhere)} areas in {min(workers, len(elsewhere))} "
                       f"worker processes and {len(targets) - len(elsewhere)} here; reports follow in order")
    try:
        for t in targets:
            if t not in elsewhere:
                ahead.own(t, on_warnings is not None)
        summary_ahead = workers > 1 and any(t == KERNEL_SUMMARY for _, t in entries)
        for title, target in entries:
            if summary_ahead and _cross_validates(target, echo and group_out):
                summary_ahead = False
                _cross_validate_ahead(echo and group_out, workers)
            _run_one(title, target, done, out, ahead, progress, echo, on_error, on_warnings, group_out, workers)
    finally:
        ahead.close()
    return out


#: kernel areas fitted in the other processes too (``run_calibrations`` with workers > 1), so
#: that they and this one finish their fits together: measured, BENCHMARKS.md 2026-11-27
#: (the results are the same wherever an area is fitted)
BALANCE_ELSEWHERE = ("memory",)


class _Prefits:
    """Fits computed before :func:`run_calibrations` reports them (``zmodel calibrate``).

    ``targets`` are fitted in forked worker processes (in their order) while this process
    fits its own (:meth:`own`, the kernel areas); the caller then takes every result in
    registry order (:meth:`take`) and reports it as if it had just been computed: a
    process's result is memoised in this process's calibration (its refits start from it,
    as after a fit here); a fit that failed or warned in a process is fitted again here, so
    that its error or warnings reach the caller's policy; the errors and warnings of this
    process's own fits are kept and raised or re-issued when the result is taken. Each fit
    is independent of the others (a fit that reads another area's parameters fits that
    area in its own process: the same numbers). No targets (one worker, the report, whose
    notebook threads must not be forked): nothing is computed ahead.
    """

    def __init__(self, targets: list[str], workers: int):
        import multiprocessing

        self._pool, self._results = None, iter(())
        targets = list(dict.fromkeys(targets))
        if workers > 1 and targets and "fork" in multiprocessing.get_all_start_methods():
            # what every fit imports, imported once here: the forked processes inherit it
            import pandas  # noqa: F401
            import scipy.optimize  # noqa: F401

            for target in targets:
                try:
                    _registry.load(target)
                except Exception:   # noqa: BLE001 - it fails again in its worker, reported as usual
                    pass
            from zmodel.calibration import _fork_pool

            self._pool = _fork_pool(min(workers, len(targets)))
            self._results = zip(targets, self._pool.imap(_prefit, targets))
        self._ready: dict[str, object] = {}
        self._own: dict[str, tuple] = {}

    @property
    def active(self) -> bool:
        """Whether worker processes are fitting."""
        return self._pool is not None

    def own(self, target: str, record: bool) -> None:
        """Fit ``target`` in this process now, keeping its result, error and warnings for :meth:`take`."""
        if self._pool is None or target in self._own:
            return
        with warnings.catch_warnings(record=True) as caught:
            if record:
                warnings.simplefilter("always")
            try:
                self._own[target] = (_registry.load(target)(), None, caught)
            except Exception as exc:  # noqa: BLE001 - raised again by take()
                self._own[target] = (None, exc, caught)

    def take(self, target: str):
        """The fit of ``target`` made ahead (None: fit it now), re-issuing its warnings and errors."""
        if target in self._own:
            result, exc, caught = self._own.pop(target)
            for w in caught:
                warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
            if exc is not None:
                raise exc
            return result
        while target not in self._ready:
            try:
                got, result = next(self._results)
            except StopIteration:
                return None
            except Exception:   # noqa: BLE001 - a result that could not come back: fit here
                self.close()
                return None
            self._ready[got] = result
        result = self._ready.pop(target)
        if result is not None:
            cal = _registry.load(target)
            if hasattr(cal, "adopt"):
                cal.adopt(result)
        return result

    def close(self) -> None:
        if self._pool is not None:
            self._pool.terminate()
            self._pool.join()
            self._pool, self._results = None, iter(())


def _prefit(target: str):
    """One fit in a worker process: the result, or None when it failed or warned."""
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = _registry.load(target)()
        return None if caught else result
    except Exception:   # noqa: BLE001 - fitted again in the caller, which reports it
        return None


def _grouped_area(target: str, group_out: bool):
    """The calibration of ``target`` when its step prints its leave-one-group-out (``group_out``
    and it declares groups: kernel_versions' benchmarks), else None."""
    if not group_out or target == KERNEL_SUMMARY:
        return None
    cal = _registry.load(target)
    return cal if getattr(cal, "groups", None) else None


def _cross_validates(target: str, group_out: bool) -> bool:
    """Whether the step of ``target`` cross-validates: the kernel summary, or an area that prints its groups."""
    try:
        return target == KERNEL_SUMMARY or _grouped_area(target, group_out) is not None
    except Exception:   # noqa: BLE001 - a calibration that cannot load is reported by its step
        return False


def _cross_validate_ahead(group_out: bool, workers: int) -> None:
    """Every cross-validation the kernel summary (and ``group_out``) will show, in one pool of ``workers``.

    Called when the first of them is needed (every kernel fit is memoised by then); they are
    memoised, so each step then finds its table. A failure here is left to the step that
    needs the table (it cross-validates again and reports the error by the caller's policy).
    """
    from zmodel.fits import kernel_report

    try:
        kernel_report.cross_validate_together(kernel_report.summary_cross_validations(grouped=group_out),
                                              workers=workers)
    except Exception:   # noqa: BLE001 - reported by the step that needs the table
        pass


def _run_one(title, target, done, out, ahead, progress, echo, on_error, on_warnings, group_out, workers):
    """One calibration of :func:`run_calibrations` (appends its triple to ``out``)."""
    area = next((e.area for e in _registry.CALIBRATIONS if e.target == target), target)
    progress.step(f"calibrating {area}")
    with warnings.catch_warnings(record=on_warnings is not None) as caught:
        if on_warnings is not None:
            warnings.simplefilter("always")
        try:
            if target in done:
                result = done[target]
            elif (early := ahead.take(target)) is not None:
                result = done[target] = early
            else:
                if target == KERNEL_SUMMARY:  # given the kernel areas' fits of this run
                    from zmodel.fits import kernel_report

                    result = kernel_report.kernel_calibration_report(
                        results={_kernel_area(t): r for t, r in done.items() if _kernel_area(t)},
                        **kernel_report._workers(workers))
                else:
                    result = _registry.load(target)()
                done[target] = result
            text = result.report() if echo else None
            cal = _grouped_area(target, echo and group_out)
            if cal is not None:   # leave-one-benchmark-out (memoised: the summary reuses it)
                from zmodel.fits.kernel_report import _workers, group_report

                text += "\n\n" + group_report(cal.cross_validate(grouped=True, **_workers(workers)))
            for name, table in (_area_tables(target) if echo else {}).items():
                text += f"\n\n[[{name}]]\n" + table(result).to_string(index=False)
        except Exception as exc:  # noqa: BLE001 - reported by the caller's policy
            if on_error is None:
                raise
            on_error(title, target, exc)
            return
        finally:
            if on_warnings is not None and caught:
                on_warnings(title, target, caught)
    out.append((title, target, result))
    if echo:
        progress.echo("\n" + "=" * 78 + f"\n{title}\n" + "=" * 78 + f"\n{text}")


def update_parameter_store(calibrations, path=None) -> str:
    """Write the fitted parameters of ``calibrations`` (``run_calibrations``' triples) to the store.

    ``path`` defaults to the shipped store (:func:`zmodel.store.default_path`). The file is
    rewritten only when a value, a calibrated flag or an area changed, so that an unchanged
    calibration leaves the checkout clean; returns a one-line account of what happened.
    """
    from zmodel import store

    by_target = {target: result for _, target, result in calibrations}
    results = {e.area: by_target[e.target] for e in _registry.CALIBRATIONS if e.target in by_target}
    fresh = _registry.parameter_store(results, areas=list(results))
    path = store.default_path() if path is None else Path(path)
    if path.is_file():
        try:
            changes = store.same_values(store.load(path), fresh)
        except ValueError as exc:
            changes = [str(exc)]
        if not changes:
            return f"parameter store unchanged ({path.name}, {len(fresh.areas)} areas)"
    path.parent.mkdir(parents=True, exist_ok=True)
    store.save(fresh, path)
    return f"parameter store written: {path} ({len(fresh.areas)} areas)"


def print_text(calibrations, file=None) -> None:
    """Print the demonstration and each calibration's text report."""
    file = sys.stdout if file is None else file
    print(demonstration(), file=file)
    for title, _, result in calibrations:
        print("\n" + "=" * 78 + f"\n{title}\n" + "=" * 78, file=file)
        print(result.report(), file=file)


# --------------------------------------------------------------------------- examples
def example_files(folder=None) -> list[Path]:
    """The example scenario files (``*.toml``) of ``folder`` (default :data:`EXAMPLES`), sorted."""
    folder = Path(EXAMPLES if folder is None else folder)
    return sorted(p for p in folder.glob("*.toml") if not p.name.startswith("."))


def _file_title(path: Path) -> str:
    """The first sentence of a scenario file's leading comment (its description)."""
    import re

    lines = []
    with open(path, encoding="utf-8-sig") as fh:
        for line in fh:
            line = line.strip()
            if not line.startswith("#") or not line.lstrip("#").strip():
                if lines or (line and not line.startswith("#")):
                    break
                continue
            lines.append(line.lstrip("#").strip())
    text = " ".join(lines)
    m = re.match(r"(.+?\.)(?:\s|$)", text)
    return (m.group(1) if m else text) or path.stem.replace("_", " ")


#: parameter draws behind the front page's prediction intervals (``Scenario.predict(samples=)``)
EXAMPLE_SAMPLES = 100
#: parameter draws per figure of the front page's validation summary (``zmodel validate`` takes 200)
VALIDATION_SAMPLES = 100


def example_predictions(folder=None, samples: int = EXAMPLE_SAMPLES) -> list[dict]:
    """Predict every example scenario over its own ``[sweep]``, with sampled 90 % intervals.

    Returns a list of ``{"file", "title", "sweep", "frame"}`` dicts (``frame`` as
    :meth:`zmodel.kernel.scenario.Scenario.predict` returns it with ``samples`` draws of
    the parameters, seed 0: ``<quantity>_lo``/``_hi`` columns; none with ``samples=0``).
    """
    import warnings

    from zmodel.cli import read_scenario_file
    from zmodel.kernel.scenario import Scenario

    out = []
    for path in example_files(folder):
        data = read_scenario_file(path)
        scenario = Scenario.from_dict(data)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            frame = scenario.predict(samples=samples, seed=0)
        out.append({"file": path.name, "title": _file_title(path), "sweep": [k for k, _ in scenario.sweep],
                    "frame": frame})
    return out


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


@functools.lru_cache(maxsize=1)
def _manager_class():
    """An async kernel manager whose ``python3`` kernel runs this interpreter (the venv's).

    Given to nbclient as its ``kernel_manager_class``, so nbclient owns the manager and
    shuts the kernel down when the notebook is done, has failed or was cancelled.
    """
    from jupyter_client.kernelspec import KernelSpec, KernelSpecManager
    from jupyter_client.manager import AsyncKernelManager

    class _ThisPython(KernelSpecManager):
        def get_kernel_spec(self, kernel_name):
            return KernelSpec(argv=[sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}",
                                    "--IPKernelApp.log_level=ERROR"],
                              display_name="Python 3 (ipykernel)", language="python", env={},
                              resource_dir="")

    class _Manager(AsyncKernelManager):
        def __init__(self, *args, **kwargs):
            kwargs.setdefault("kernel_spec_manager", _ThisPython())
            super().__init__(*args, **kwargs)

    return _Manager


@functools.lru_cache(maxsize=1)
def _client_class():
    """nbclient's NotebookClient, with Ctrl-C turned into a cancelled execution.

    nbclient's own SIGINT handler shuts the kernel down but lets the execution run on
    into an unrelated error; here SIGINT marks the client ``interrupted`` and cancels the
    execution, and :func:`execute_notebook` raises ``KeyboardInterrupt``.
    """
    from nbclient import NotebookClient

    class _Client(NotebookClient):
        interrupted = False

        @contextlib.asynccontextmanager
        async def async_setup_kernel(self, **kwargs):
            async with super().async_setup_kernel(**kwargs):
                loop = asyncio.get_running_loop()
                task = asyncio.current_task()

                def on_sigint():
                    self.interrupted = True
                    if task is not None:
                        task.cancel()

                with contextlib.suppress(RuntimeError, ValueError, NotImplementedError):
                    loop.add_signal_handler(signal.SIGINT, on_sigint)
                yield

    return _Client


#: clients of the notebooks being executed (an interrupt kills their kernels)
_ACTIVE: set = set()


def _kill(km) -> None:
    """Kill a kernel's process (no message to it; safe from any thread); never raises."""
    process = getattr(getattr(km, "provisioner", None), "process", None)
    with contextlib.suppress(Exception):
        if process is not None:
            process.kill()


def execute_notebook(path: Path | str, timeout: int = CELL_TIMEOUT):
    """Execute a notebook in a fresh kernel (cwd = its folder); returns the executed node.

    The file on disk is not modified. A failing cell raises
    :class:`nbclient.exceptions.CellExecutionError` naming the cell; Ctrl-C raises
    ``KeyboardInterrupt``. In every case the kernel process is shut down before this
    function returns or raises.
    """
    import nbformat

    path = Path(path)
    nb = nbformat.read(path, as_version=4)
    client = _client_class()(nb, kernel_manager_class=_manager_class(), timeout=timeout, kernel_name="python3",
                             shutdown_kernel="immediate",
                             record_timing=False,  # no timestamps: executed notebooks are reproducible
                             resources={"metadata": {"path": str(path.parent)}})
    _ACTIVE.add(client)
    try:
        client.execute()
    except BaseException:
        if client.interrupted:
            raise KeyboardInterrupt from None
        raise
    finally:
        _ACTIVE.discard(client)
        _reap(client)
    if client.interrupted:
        raise KeyboardInterrupt
    return nb


def _reap(client) -> None:
    """After nbclient's own shutdown: kill a kernel it left (none, normally); never raises."""
    km = getattr(client, "km", None)
    if km is not None:
        _kill(km)
        with contextlib.suppress(Exception):
            km.cleanup_connection_file()


#: notebooks started first by :class:`NotebookRunner` (longest first, so that the two workers
#: finish together: CPU seconds of one execution on 2026-11-25, 39, 16, 13 and 12; the other
#: notebooks take 4-9 s each)
LONG_NOTEBOOKS = ("12_capacity_planning", "02_channels_and_dasd", "09_kernel_24_vs_26")
#: notebooks started last: they show the calibrations, which by then the report has computed
#: and shared with the kernels (:data:`zmodel.fits.SHARED_RESULTS`)
LATE_NOTEBOOKS = ("11_calibration_report",)


class NotebookRunner:
    """Execute notebooks in background threads (each in its own kernel) while the caller works.

    ``make report`` starts it before the calibrations, so that the kernels run the
    notebooks on the other core meanwhile; the longest (:data:`LONG_NOTEBOOKS`) start
    first. :meth:`result` waits for one notebook;
    :meth:`cancel` (on failure or Ctrl-C) stops the queue, shuts every running kernel
    down and waits for the threads.
    """

    def __init__(self, paths, workers: int | None = None, log=None, first=LONG_NOTEBOOKS, last=LATE_NOTEBOOKS):
        self.paths = [Path(p) for p in paths]
        #: start order: the notebooks named in ``first`` (file stems) in that order, then the rest,
        #: then those named in ``last`` (results are still taken in the caller's order)
        rank = {name: i for i, name in enumerate(first or ())}
        rank.update({name: len(rank) + 1 + i for i, name in enumerate(last or ())})
        self.order = sorted(self.paths, key=lambda p: rank.get(p.stem, len(first or ())))
        self.workers = max(1, min(2, os.cpu_count() or 1) if workers is None else int(workers))
        self.log = log or (lambda msg: None)
        self._cancelled = False
        self._pool = None
        self._futures = {}

    def _run(self, path: Path):
        if self._cancelled:
            raise KeyboardInterrupt
        self.log(f"executing {path.name}")
        return execute_notebook(path)

    def start(self) -> "NotebookRunner":
        from concurrent.futures import ThreadPoolExecutor

        self._pool = ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="zmodel-notebook")
        self._futures = {p: self._pool.submit(self._run, p) for p in self.order}
        return self

    def result(self, path):
        """The executed notebook node of ``path`` (waits; re-raises the notebook's error)."""
        return self._futures[Path(path)].result()

    def cancel(self) -> None:
        """Stop: no new notebook starts, running kernels are shut down, threads joined."""
        self._cancelled = True
        for future in self._futures.values():
            future.cancel()
        for client in list(_ACTIVE):  # kill the kernel processes; each thread then cleans up its
            km = getattr(client, "km", None)  # own client (zmq sockets stay in their thread)
            if km is not None:
                _kill(km)
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)

    def close(self) -> None:
        """Wait for the threads (after every result was taken)."""
        if self._pool is not None:
            self._pool.shutdown(wait=True)


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


_TEMPLATE = """{%- extends 'index.html.j2' -%}
{%- block html_head_js -%}
<!-- ZMODEL-HEAD-SCRIPTS -->
{%- endblock html_head_js -%}
{%- block html_head_js_mathjax -%}{%- endblock html_head_js_mathjax -%}
{%- block html_head_js_mermaidjs -%}{%- endblock html_head_js_mermaidjs -%}
{%- block jupyter_widgets -%}{%- endblock jupyter_widgets -%}
{%- block input_group -%}
{%- if cell.cell_type == 'code' -%}
<details class="zmodel-code"><summary>code</summary>
{{ super() }}
</details>
{%- else -%}
{{ super() }}
{%- endif -%}
{%- endblock input_group -%}
"""

_NAV = ('<nav class="zmodel-nav" style="padding: 8px 16px; font-family: sans-serif;">'
        '<a href="index.html">&larr; zmodel report</a></nav>')

#: notebook pages: the folded code cells' summary line, and no empty prompt column
_PAGE_CSS = """<style>
details.zmodel-code > summary { cursor: pointer; color: #666; font: 0.8em sans-serif; padding: 2px 0 2px 8px; }
details.zmodel-code[open] > summary { color: #333; }
math[display="block"] { margin: 0.6em 0; }
</style>"""


def notebook_title(nb, default: str) -> str:
    """The first Markdown heading of a notebook (without the #s), else ``default``."""
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            for line in cell.source.splitlines():
                if line.startswith("#"):
                    return line.lstrip("#").strip().replace("`", "").replace("**", "")
    return default


def notebook_page(nb, name: str) -> str:
    """The offline HTML page of an executed notebook.

    Charts are embedded, TeX in Markdown cells becomes MathML, code cells are folded
    (``<details>``), and no CDN script is referenced.
    """
    from jinja2 import DictLoader
    from nbconvert import HTMLExporter

    from zmodel.texmath import markdown_math

    nb = json.loads(json.dumps(nb))  # plain copy
    import nbformat

    nb = nbformat.from_dict(nb)
    embed_charts(nb)
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            cell.source = markdown_math(cell.source)
    nb.metadata["title"] = notebook_title(nb, name)
    exporter = HTMLExporter(template_name="lab", extra_loaders=[DictLoader({"zmodel.html.j2": _TEMPLATE})],
                            template_file="zmodel.html.j2")
    body, _ = exporter.from_notebook_node(nb, resources={"metadata": {"name": name}})
    body = body.replace("<!-- ZMODEL-HEAD-SCRIPTS -->", head_scripts() + _PAGE_CSS, 1)
    return body.replace("<main>", "<main>\n" + _NAV, 1)


def _fmt_table(frame, formats: dict | None = None, index: bool = False) -> str:
    """A DataFrame as an HTML table with fixed, deterministic number formats."""
    import pandas as pd

    formats = formats or {}
    if index:
        frame = frame.reset_index()

    def cell(col, v):
        if v is None or v is pd.NA or (isinstance(v, float) and math.isnan(v)):
            return ""
        if isinstance(v, (bool,)) or type(v).__name__ == "bool_":
            return "yes" if v else "no"
        if isinstance(v, float) or type(v).__name__.startswith("float"):
            v = float(v)
            if math.isinf(v):
                return "inf" if v > 0 else "-inf"
            fmt = formats.get(col, "{:.6g}")
            return fmt(v + 0.0) if callable(fmt) else fmt.format(v + 0.0)
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


def prior_table_html(result) -> str:
    """The priors of a calibration result as HTML: specification, its 95 % interval, fitted value, conflict.

    Empty when the fit has no prior of a free parameter. A fitted value outside the
    interval is marked ``CONFLICT``: the documents and the specification disagree.
    """
    t = result.to_frame("priors") if hasattr(result, "priors") else None
    if t is None or not len(t):
        return ""
    t = t.reset_index()
    t["conflict"] = ["CONFLICT: documents and specification disagree" if c else "no" for c in t["conflict"]]
    cols = ["name", "prior_value", "prior_low", "prior_high", "fitted", "unit", "residual", "conflict", "source"]
    return _fmt_table(t[cols].rename(columns={"residual": "sigmas from spec"}), {"sigmas from spec": "{:+.2f}"})


_CSS = """
body { font-family: -apple-system, "Segoe UI", "DejaVu Sans", sans-serif; margin: 24px auto; max-width: 1100px;
       padding: 0 16px; color: #222; line-height: 1.45; }
h1 { font-size: 1.6em; } h2 { margin-top: 1.6em; border-bottom: 1px solid #ccc; }
table.zmodel-table { border-collapse: collapse; font-size: 0.88em; margin: 8px 0 16px; }
table.zmodel-table th, table.zmodel-table td { border: 1px solid #ddd; padding: 3px 8px; text-align: left; }
table.zmodel-table th { background: #f2f2f2; }
pre { background: #f7f7f7; padding: 8px; overflow-x: auto; font-size: 0.8em; }
.zmodel-chart { margin: 12px 0; }
details { margin: 6px 0; } details > summary { cursor: pointer; }
details.zmodel-area > summary { font-weight: 600; font-size: 1.05em; }
.zmodel-pending { border-left: 4px solid #e0a800; background: #fff8e1; padding: 6px 10px; }
.zmodel-lead { font-size: 1.05em; }
"""


# --------------------------------------------------------------------------- front page
def _errors(frame, column: str = "percent_error", satisfied: str = "satisfied"):
    import numpy as np

    err = frame[column].astype(float).abs().to_numpy()
    if satisfied in frame:
        ok = frame[satisfied].fillna(False).astype(bool).to_numpy()
        err = np.where(ok, 0.0, err)
    return err[np.isfinite(err)]


def accuracy_table(calibrations):
    """One row per area: how well its model reproduces the documented numbers.

    Columns: area, documented numbers fitted, the informative ones (whose prediction
    depends on a free parameter: configuration echoes are not), the degrees of freedom,
    median and worst absolute percent error over the informative value rows (bounds are
    not scored by a percent: ``bounds satisfied`` counts them), leave-one-out median and worst (each number
    predicted by a fit that did not see it; the kernel areas, from the kernel summary),
    and the note for fits that are not scored by percent error (the DASD histograms).
    """
    import numpy as np
    import pandas as pd

    by_target = {e.target: e.area for e in _registry.CALIBRATIONS}
    loo = {}
    for _, target, result in calibrations:
        if target == KERNEL_SUMMARY and hasattr(result, "summary"):
            for _, r in result.summary.iterrows():
                loo[f"kernel_{r['area']}"] = r
    rows = []
    for title, target, result in calibrations:
        area = by_target.get(target, target)
        if target == KERNEL_SUMMARY:
            continue
        row = {"area": area, "what": title.split(":")[0].split(" (")[0]}
        if hasattr(result, "chisqr"):
            res = result.to_frame("residuals")
            used = res[res["used_in_fit"].astype(bool)] if "used_in_fit" in res else res
            informative = used[used["informative"].astype(bool)] if "informative" in used else used
            bound = informative["satisfied"].notna() if "satisfied" in informative else \
                pd.Series(False, index=informative.index)
            values = informative[~bound]
            err = values["percent_error"].astype(float).abs().to_numpy()
            err = err[np.isfinite(err)]
            sat = informative.loc[bound, "satisfied"].astype(bool)
            row.update({"numbers fitted": int(len(used)), "informative": int(len(informative)),
                        "degrees of freedom": int(result.dof),
                        "median |% error|": float(np.median(err)) if err.size else math.nan,
                        "worst |% error|": float(np.max(err)) if err.size else math.nan,
                        "bounds satisfied": f"{int(sat.sum())} of {len(sat)}" if len(sat) else ""})
        elif hasattr(result, "ks"):
            ks = max(result.ks.values())
            row.update({"numbers fitted": int(len(result.to_frame())),
                        "note": f"histogram fit: largest binned KS distance {ks:.3f}"})
        r = loo.get(area)
        if r is not None and "median_left_out" in r:
            row.update({"left-out median |% error|": float(r["median_left_out"]),
                        "left-out worst |% error|": float(r["worst_left_out"])})
        rows.append(row)
    cols = ["area", "what", "numbers fitted", "informative", "degrees of freedom", "median |% error|",
            "worst |% error|", "bounds satisfied", "left-out median |% error|", "left-out worst |% error|", "note"]
    frame = pd.DataFrame(rows)
    return frame[[c for c in cols if c in frame.columns]]


def assumptions_table(calibrations):
    """Parameters each area holds fixed (assumed, not fitted) or cannot identify from its data."""
    import pandas as pd

    by_target = {e.target: e.area for e in _registry.CALIBRATIONS}
    rows = []
    for _, target, result in calibrations:
        if not hasattr(result, "chisqr"):
            continue
        t = result.to_frame("parameters")
        fixed = [str(n) for n, r in t.iterrows() if "vary" in t and not bool(r["vary"])]
        unident = [str(n) for n, r in t.iterrows()
                   if "identifiable" in t and bool(r.get("vary", True)) and r["identifiable"] is not None
                   and not bool(r["identifiable"])]
        if fixed or unident:
            rows.append({"area": by_target.get(target, target),
                         "held fixed (spec sheet or assumed)": ", ".join(fixed) or "none",
                         "not determined by the data": ", ".join(unident) or "none"})
    return pd.DataFrame(rows, columns=["area", "held fixed (spec sheet or assumed)", "not determined by the data"])


#: modelling assumptions every scenario prediction makes (zmodel.kernel.scenario)
SCENARIO_ASSUMPTIONS = (
    "Processor speed scales with clock frequency relative to the z990 (a clock-ratio proxy).",
    "Per-transaction activity of each workload kind is an illustrative preset "
    "(zmodel.kernel.scenario.WORKLOAD_KINDS); the file's [workload] keys override it.",
    "Channel paths without a documented maximum I/O rate use the FICON-1G figure (7200 I/O per second).",
    "Closed workloads are solved by exact MVA; an open load (workload.io_rate) by M/M/c stations.",
    "LPAR: the other partitions are busy (PR/SM weight share); z/VM: idle guests cost their timer ticks.",
)


def _readable(v: float) -> str:
    """4 significant digits, without exponent up to 10**7 (``15000``, ``0.003559``)."""
    if v != 0 and (abs(v) >= 1e7 or abs(v) < 1e-4):
        return f"{v:.4g}"
    if abs(v) >= 1000:
        return f"{v:,.0f}"
    return f"{float(f'{v:.4g}'):g}"


def _headline(example: dict) -> str:
    """The front-page table of one example: throughput and response time per sweep point."""
    import pandas as pd

    frame, sweep = example["frame"], example["sweep"]
    from zmodel.cli import throughput_label

    unit_label = throughput_label(frame)
    show = sweep + [c for c in ("throughput", "response_time", "cpu_utilization", "saturated")
                    if c in frame.columns]
    t = frame[show].copy()
    for col in ("throughput", "response_time"):
        if f"{col}_lo" in frame.columns:   # the value with its sampled 90 % interval
            t[col] = [f"{_readable(v)} [{_readable(lo)}, {_readable(hi)}]"
                      for v, lo, hi in zip(frame[col], frame[f"{col}_lo"], frame[f"{col}_hi"])]
        if f"{col}_prediction_lo" in frame.columns:   # ... and its prediction interval (the model's error added)
            t[col] = [f"{cell} ({_readable(lo)} to {_readable(hi)})" for cell, lo, hi in
                      zip(t[col], frame[f"{col}_prediction_lo"], frame[f"{col}_prediction_hi"])]
    fractions = [c for c in ("p_saturated", "p_saturated_prediction") if c in frame.columns]
    if "p_saturated" in fractions and (frame[fractions] > 0).any(axis=None):   # draws that do not carry the load
        t["p_saturated"] = [f"{p:.2f}" for p in frame["p_saturated"]]
        if "p_saturated_prediction" in fractions:   # ... and with the fits' errors added, in parentheses
            t["p_saturated"] = [f"{cell} ({q:.2f})" for cell, q in zip(t["p_saturated"], frame["p_saturated_prediction"])]
    rename = {"throughput": unit_label, "response_time": "response time [s]",
              "cpu_utilization": "CPU utilization", "p_saturated": "P(saturated)"}
    if "kernel.version" in sweep and len(sweep) == 2:
        other = [k for k in sweep if k != "kernel.version"][0]
        wide = t.pivot(index=other, columns="kernel.version")
        values = [c for c in ("throughput", "response_time") if c in t.columns]
        cols = [(v, ver) for ver in dict.fromkeys(t["kernel.version"]) for v in values]
        if "saturated" in t.columns and t["saturated"].astype(str).str.len().gt(0).any():
            cols += [("saturated", ver) for ver in dict.fromkeys(t["kernel.version"])]
        if "p_saturated" in t.columns:
            cols += [("p_saturated", ver) for ver in dict.fromkeys(t["kernel.version"])]
        wide = wide[cols]
        wide.columns = [f"{ver}: {rename.get(v, v)}" for v, ver in cols]
        return _fmt_table(wide.reset_index(), {c: _readable for c in wide.columns})
    t = t.rename(columns=rename)
    return _fmt_table(t, {c: _readable for c in t.columns})


def _percent(v: float) -> str:
    return "&ndash;" if v != v else f"{100.0 * v:.1f} %"


def validation_section(table, pages: list[tuple[str, str]] = ()) -> str:
    """The front page's validation summary: published figures outside the seeds, never fitted.

    Parameters
    ----------
    table : pandas.DataFrame or None
        From :func:`zmodel.validation.validate`; None: the section says it was not computed.
    pages : list of (file name, title)
        The notebook pages; the one whose file name contains ``validation`` is linked.

    Returns
    -------
    str
        An HTML fragment with ``id="validation"``: median |error|, counts within x1.5 and
        x2, counted / expressible / total figures, a per-area table, the inexpressible
        figures (folded) and the link to the notebook page.
    """
    link = next((fname for fname, _ in pages if "validation" in fname), None)
    more = (f' Figure by figure, with the chart of published against predicted: '
            f'<a href="{html.escape(link)}">the validation notebook</a>.') if link else ""
    if table is None:
        return ('<p class="zmodel-pending" id="validation"><strong>Validation against published figures '
                "never fitted:</strong> not computed in this build; <code>zmodel validate</code> prints "
                f"it.{more}</p>")
    from zmodel.validation import area_summary, summary

    s, areas = summary(table), area_summary(table)
    n = s["counted"]
    parts = ['<div id="validation">',
             "<h3>Validation against published figures never fitted</h3>",
             f"<p><strong>Median |error| {_percent(s['median_abs_error'])}; within &times;1.5: "
             f"{s['within_1_5']} of {n}; within &times;2: {s['within_2']} of {n}</strong> "
             f"({n} counted of {s['expressible']} expressible figures, {s['total']} in all; "
             f"{s['catalog_checks']} catalog checks shown but not counted, {s['inexpressible']} figures the "
             "library cannot express yet).</p>",
             (f"<p>Published value inside the 90 % prediction interval: {s['inside_interval']} of "
              f"{s['with_interval']}; inside the parameters' interval alone: "
              f"{s.get('inside_parameter_interval', 0)} of {s.get('with_parameter_interval', 0)}. The parameters' "
              "interval carries their uncertainty only (the calibrated ones' spread, the assumed ones' plausible "
              "ranges), not what the model lacks; the prediction interval adds what each fit missed on the "
              "documents' own numbers left out of it (its cross-validation, never these figures): how far a "
              "planner can trust the answer. A prediction from a drive's own specification alone (its streaming "
              "rate) has no fit "
              "to measure its error and keeps the parameters' interval.</p>") if s.get("with_interval") else "",
             "<p>Published figures from outside the five source documents (IBM pages and manuals, drive "
             "specifications, trade press, mailing lists; <code>zmodel/_data/validation/</code>), posed to the "
             "calibrated model as a planner would and never used to fit anything. |error| = "
             "|predicted/published &minus; 1|; a bound (&ldquo;up to&rdquo;, &ldquo;more than&rdquo;) is "
             "compared with the value it prints. <code>zmodel validate</code> prints the table."
             f"{more}</p>"]
    shown = areas.copy()
    shown["median |error|"] = [_percent(v) for v in shown["median_abs_error"]]
    shown["worst |error|"] = [_percent(v) if c else "&ndash;" for v, c in
                              zip(shown["worst_abs_error"], shown["counted"])]
    shown = shown.rename(columns={"within_1_5": "within ×1.5", "within_2": "within ×2", "worst_id": "worst figure"})
    shown["inside 90 % (parameters')"] = [f"{k} of {m} ({kp})" if m else "&ndash;" for k, m, kp in
                            zip(shown["inside_interval"], shown["with_interval"], shown["inside_parameter_interval"])]
    cols = ["area", "figures", "counted", "median |error|", "worst |error|", "worst figure", "within ×1.5",
            "within ×2", "inside 90 % (parameters')"]
    rows = ["<table><thead><tr>" + "".join(f"<th>{html.escape(c)}</th>" for c in cols) + "</tr></thead><tbody>"]
    for r in shown[cols].to_dict(orient="records"):
        cells = [r[c] if c in ("median |error|", "worst |error|", "inside 90 % (parameters')")
                 else html.escape(str(r[c])) for c in cols]
        rows.append("<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
    rows.append("</tbody></table>")
    parts.append("".join(rows))
    missing = table[table["status"] == "inexpressible"]
    parts.append(f"<details><summary>{len(missing)} figures the library cannot express yet, with what is "
                 "missing</summary><ul>" + "".join(
                     f"<li><code>{html.escape(r['id'])}</code>: {html.escape(r['missing'])}</li>"
                     for r in missing.to_dict(orient="records")) + "</ul></details>")
    parts.append("</div>")
    return "\n".join(parts)


def index_page(calibrations, pages: list[tuple[str, str]], examples: list[dict] | None = None,
               validation=None) -> str:
    """The front page: answers first, details folded.

    Parameters
    ----------
    calibrations : list of (title, target, result)
        From :func:`run_calibrations`.
    pages : list of (file name, title)
        The notebook pages, in order.
    examples : list of dict, optional
        From :func:`example_predictions` (the headline predictions).
    validation : pandas.DataFrame, optional
        From :func:`zmodel.validation.validate` (:func:`validation_section`).
    """
    from zmodel.plotting import residual_chart

    parts = [f"<h1>{html.escape(TITLE)}</h1>",
             '<p class="zmodel-lead">What the models predict for the example configurations, how well '
             "each model reproduces the numbers documented in the source papers, and what is assumed. "
             "The full residual tables and the notebooks follow.</p>",
             '<nav><a href="#predictions">Predictions</a> &middot; <a href="#accuracy">How well the '
             'models predict</a> &middot; <a href="#validation">Validation</a> &middot; '
             '<a href="#assumptions">Assumptions</a> &middot; '
             '<a href="#notebooks">Notebooks</a> &middot; <a href="#details">Calibration details</a></nav>']

    parts.append('<h2 id="predictions">Headline predictions of the example scenarios</h2>')
    if examples:
        parts.append("<p>Each example file in <code>examples/</code> predicted over its own sweep "
                     "(<code>zmodel plan examples/NAME.toml</code> prints every column). Throughput is in "
                     "the unit of the file's load; a <em>saturated</em> entry names the resource at "
                     "capacity.</p>")
        for ex in examples:
            parts.append(f"<h3>{html.escape(ex['title'])}</h3>")
            parts.append(f"<p><code>examples/{html.escape(ex['file'])}</code></p>")
            parts.append(_headline(ex))
            parts.append(f"<details><summary>all {len(ex['frame'])} predictions with every column</summary>"
                         f"{_fmt_table(ex['frame'])}</details>")
    else:
        parts.append("<p>No example scenarios were given.</p>")
    parts.append('<p id="intervals"><strong>Prediction intervals.</strong> Each value is the model at the '
                 "calibrated parameters of the parameter store (<code>zmodel/_data/params/parameters.toml</code>); "
                 f"the bracket is its 90 % interval over {EXAMPLE_SAMPLES} joint draws of the parameters the "
                 "prediction uses (seed 0): calibrated parameters from their fitted distribution, assumed "
                 "parameters over their plausible range with the assumed value as the median (log-uniform where a "
                 "side spans decades). Wide brackets "
                 "say that an assumed parameter, not the data, decides the answer: <code>zmodel plan "
                 "FILE --sensitivity</code> names it. The bracket leaves out what the model lacks; the "
                 "parentheses after the headline value (the throughput, or an open load's response time) give its "
                 "90 % <em>prediction</em> interval: the same draws with the out-of-sample errors of the fits it "
                 "rests on added, what the kernel-version fit missed on each documented benchmark left out of it "
                 "and, where a channel's per-I/O time is drawn, what the channel fit missed on each of its rows "
                 "(<code>Scenario.model_errors</code>). Plan with the parentheses.</p>")
    if examples:
        used = sorted({a for ex in examples if "assumed" in ex["frame"].columns
                       for cell in ex["frame"]["assumed"] for a in str(cell).split(", ") if a})
        if used:
            parts.append("<p>Parameters these predictions use that no calibration fitted (declared "
                         f"defaults): <code>{html.escape(', '.join(used))}</code>.</p>")

    parts.append('<h2 id="accuracy">How well each area\'s model predicts</h2>')
    parts.append("<p>Absolute percent error between the model and each documented number it was fitted to, "
                 "over the <em>informative</em> numbers only (a number the model reproduces whatever its "
                 "parameters, such as a link rate, is shown in the details but not counted); bounds are "
                 "counted as satisfied or violated, never as a 0 % error; the degrees of freedom are "
                 "informative rows minus free parameters. Where it was run, the leave-one-out error: each "
                 "number predicted by a fit that did not see it.</p>")
    acc = accuracy_table(calibrations) if calibrations else None
    if acc is not None and len(acc):
        parts.append(_fmt_table(acc, {c: "{:.2f}" for c in acc.columns if "%" in c}))
    else:
        parts.append("<p>No calibration was run.</p>")
    parts.append(validation_section(validation, pages))

    parts.append('<h2 id="assumptions">What is assumed</h2><ul>')
    parts += [f"<li>{html.escape(a)}</li>" for a in SCENARIO_ASSUMPTIONS]
    parts.append("</ul>")
    assumed = assumptions_table(calibrations) if calibrations else None
    if assumed is not None and len(assumed):
        parts.append("<details><summary>parameters held fixed or not determined, per area</summary>"
                     f"{_fmt_table(assumed)}</details>")

    parts.append('<h2 id="notebooks">Notebooks</h2><ul>')
    for fname, title in pages:
        parts.append(f'<li><a href="{html.escape(fname)}">{html.escape(title)}</a> '
                     f'<code>{html.escape(fname)}</code></li>')
    parts.append("</ul>")

    parts.append('<h2 id="details">Calibration details</h2>')
    parts.append("<p>Per area: the residual table has one row per documented measurement "
                 "(% error = 100 (predicted &minus; measured) / |measured|; a satisfied bound contributes "
                 "no residual); parameters flagged <em>not identifiable</em> or <em>at a bound</em> are "
                 "not determined by the data. Click an area to open it.</p>")
    for k, (title, target, result) in enumerate(calibrations):
        parts.append(f'<details class="zmodel-area" id="calibration-{k}"><summary>{html.escape(title)}</summary>')
        parts.append(f"<p><code>{html.escape(target)}</code></p>")
        if not hasattr(result, "chisqr"):  # not a catalog-engine fit: its own summary table
            table = result.to_frame()
            if len(table) > LONG_TABLE:
                parts.append(_long_table_summary(result, table))
            else:
                parts.append(_fmt_table(table))
            parts.append(f"<details><summary>text report</summary><pre>{html.escape(result.report())}</pre>"
                         "</details></details>")
            continue
        parts.append(f"<p>chi-square {result.chisqr:.4g}, {result.n_data} measurements used "
                     f"({result.n_active} active), {result.n_free} free parameters, "
                     f"{result.dof} degrees of freedom.</p>")
        parts.append("<h4>Residuals</h4>")
        parts.append(residual_table_html(result))
        chart = residual_chart(result.to_frame("residuals"), title="percent error per documented number")
        parts.append(chart_html(chart.to_dict(), f"residuals-{k}"))
        parts.append("<h4>Parameters</h4>")
        parts.append(parameter_table_html(result))
        priors = prior_table_html(result)
        if priors:
            parts.append("<h4>Priors (public specifications)</h4>")
            parts.append(priors)
        shapes = result.to_frame("shape_checks")
        if len(shapes):
            parts.append("<h4>Shape checks (not fitted)</h4>")
            parts.append(_fmt_table(shapes))
        for name, table in _area_tables(target).items():
            parts.append(f"<h4>{html.escape(name)}</h4>")
            parts.append(_fmt_table(table(result)))
        parts.append(f"<details><summary>text report</summary><pre>{html.escape(result.report())}</pre></details>")
        parts.append("</details>")
    parts.append("<details><summary>Queueing core demonstration (exact MVA beside its bounds)</summary>")
    parts.append(f"<pre>{html.escape(demonstration())}</pre></details>")
    body = "\n".join(parts)
    return (f'<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            f'<meta name="viewport" content="width=device-width, initial-scale=1.0">\n'
            f"<title>{html.escape(TITLE)}</title>\n<style>{_CSS}</style>\n{head_scripts()}</head>\n"
            f"<body>\n<main>\n{body}\n</main>\n</body>\n</html>\n")


def _long_table_summary(result, table) -> str:
    """A histogram-sized table summarised: what it holds, the few largest residuals, parameters."""
    parts = [f"<p>{len(table)} rows (one per histogram bucket); summarised here.</p>"]
    if hasattr(result, "ks"):
        import pandas as pd

        ks = pd.DataFrame({"histogram": list(result.ks), "binned KS distance": list(result.ks.values())})
        parts.append(_fmt_table(ks, {"binned KS distance": "{:.4f}"}))
    if hasattr(result, "parameters") and hasattr(result.parameters, "columns"):
        parts.append("<h4>Parameters</h4>" + _fmt_table(result.parameters))
    if "pearson" in table.columns:
        shown = table[(table["observed"] >= 1) | (table["expected"] >= 1)]
        top = shown.reindex(shown["pearson"].abs().sort_values(ascending=False).index).head(10)
        cols = [c for c in ("histogram", "bucket", "lower", "upper", "observed", "expected", "pearson")
                if c in top.columns]
        parts.append("<h4>The ten buckets with the largest Pearson residuals</h4>")
        parts.append(_fmt_table(top[cols], {"expected": "{:.1f}", "pearson": "{:+.2f}", "lower": "{:.3g}",
                                            "upper": "{:.3g}"}))
    return "\n".join(parts)


# --------------------------------------------------------------------------- build
def _swap_into_place(tmp: Path, output: Path) -> None:
    """Replace ``output`` by ``tmp`` (two renames); on failure the previous report is put back."""
    old = None
    if output.exists() or output.is_symlink():
        old = Path(tempfile.mkdtemp(prefix=f".{output.name}-old-", dir=output.parent))
        os.replace(output, old / output.name)
    try:
        os.replace(tmp, output)
    except BaseException:
        if old is not None:
            os.replace(old / output.name, output)
            shutil.rmtree(old, ignore_errors=True)
        raise
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def build_report(output: Path | str | None = None, notebook_dir=None, calibrations=None, log=None,
                 execute: bool = True, examples=None, progress: Progress | None = None,
                 runner: NotebookRunner | None = None, validation=None) -> Path:
    """Execute the notebooks and write the HTML report into ``output``; returns its index.

    Parameters
    ----------
    output : path, optional
        Report folder (default :data:`OUTPUT`); replaced as a whole.
    notebook_dir : path or list of paths, optional
        Notebook folder (default :data:`NOTEBOOKS`) or explicit notebooks. A folder that
        does not exist or holds no notebook is a :class:`ReportUsageError`.
    calibrations : list, optional
        From :func:`run_calibrations` (run here when omitted).
    log : callable, optional
        Messages (default: the progress stream).
    execute : bool
        Execute the notebooks (default); ``False`` renders their committed outputs.
    examples : list of dict, optional
        From :func:`example_predictions` (the front page's headline predictions).
    progress : Progress, optional
        Each notebook and the page writing are steps of it.
    runner : NotebookRunner, optional
        Already executing the notebooks (started by :func:`main` before the
        calibrations); default: each notebook is executed here, one after another.
    validation : pandas.DataFrame, optional
        From :func:`zmodel.validation.validate` (the front page's validation summary).

    The pages are written to a temporary folder beside ``output`` and moved into place
    only when all of them succeeded (the previous report is replaced as a whole). On
    failure or interrupt the temporary folder is removed and the previous report stays.
    """
    import nbformat

    output = Path(OUTPUT if output is None else output).resolve()
    progress = progress or _Silent()
    log = log or progress.write
    paths = _notebook_paths(notebook_dir)
    if calibrations is None:
        calibrations = run_calibrations(progress=progress)
    output.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{output.name}-build-", dir=output.parent))
    try:
        os.chmod(tmp, 0o755)
        pages = []
        for path in paths:
            if execute and runner is not None:
                progress.step(f"notebook {path.name}")
                nb = runner.result(path)
            elif execute:
                progress.step(f"executing {path.name}")
                nb = execute_notebook(path)
            else:
                progress.step(f"rendering {path.name}")
                nb = nbformat.read(path, as_version=4)
            fname = f"{path.stem}.html"
            (tmp / fname).write_text(notebook_page(nb, path.stem), encoding="utf-8")
            pages.append((fname, notebook_title(nb, path.stem)))
        progress.step("writing the front page")
        (tmp / "index.html").write_text(index_page(calibrations, pages, examples, validation),
                                            encoding="utf-8")
        _swap_into_place(tmp, output)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    log(f"report written to {output / 'index.html'} ({len(pages)} notebook pages)")
    return output / "index.html"


def _notebook_paths(notebook_dir) -> list[Path]:
    if notebook_dir is not None and not isinstance(notebook_dir, (str, os.PathLike)):
        return notebooks(notebook_dir)
    folder = Path(NOTEBOOKS if notebook_dir is None else notebook_dir)
    if not folder.is_dir():
        raise ReportUsageError(f"--notebooks: no such folder: '{folder}'")
    found = notebooks(folder)
    if not found:
        raise ReportUsageError(f"--notebooks: no notebook (*.ipynb) in '{folder}'")
    return found


def _check_output(output) -> None:
    """Raise :class:`ReportUsageError` unless a report folder can be written at ``output``.

    Checked before any work (a build runs minutes before it writes): ``output`` is a folder or
    does not exist yet, and its nearest existing ancestor takes a new folder -- probed with a
    temporary folder removed at once, so the check leaves nothing behind.
    """
    out = Path(output).resolve()
    if out.exists() and not out.is_dir():
        raise ReportUsageError(f"--output: '{output}' exists and is not a folder")
    base = out.parent
    while not base.exists():
        base = base.parent
    if not base.is_dir():
        raise ReportUsageError(f"--output: '{base}' is not a folder")
    try:
        probe = tempfile.mkdtemp(prefix=f".{out.name}-probe-", dir=base)
    except OSError as exc:
        raise ReportUsageError(f"--output: cannot write a folder in '{base}': {exc.strerror or exc}") from None
    os.rmdir(probe)


def main(argv: list[str] | None = None, prog: str = "python -m zmodel.report") -> int:
    """Entry point of ``make report``; returns the exit status (errors are one line on stderr)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        return _main(argv, prog)
    except ReportUsageError as exc:
        print(f"{prog}: error: {' '.join(str(exc).split())}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


def _main(argv: list[str], prog: str) -> int:
    parser = _Parser(prog=prog, description=__doc__.splitlines()[0])
    parser.add_argument("--output", default=str(OUTPUT), help="report folder (default: %(default)s)")
    parser.add_argument("--notebooks", default=str(NOTEBOOKS), help="notebook folder (default: %(default)s)")
    parser.add_argument("--examples", default=str(EXAMPLES),
                        help="folder of example scenarios for the headline predictions (default: %(default)s)")
    parser.add_argument("--text-only", action="store_true", help="print the text report, write no HTML")
    parser.add_argument("--no-execute", action="store_true",
                        help="render the notebooks' committed outputs instead of executing them")
    parser.add_argument("--areas", nargs="+", metavar="AREA",
                        help="only these calibrations (default: all of zmodel.fits.registry)")
    args = parser.parse_args(argv)
    try:
        selected = _registry.select(args.areas)
    except ValueError as exc:
        raise ReportUsageError(f"--areas: {exc}") from None
    paths = [] if args.text_only else _notebook_paths(args.notebooks)
    if not args.text_only and not Path(args.examples).is_dir():
        raise ReportUsageError(f"--examples: no such folder: '{args.examples}'")
    if not args.text_only:
        _check_output(args.output)
    steps = 1 + len(selected) + (0 if args.text_only else len(paths) + 3)
    progress = Progress(steps, prog=prog)
    progress.write(f"{prog}: {len(selected)} calibrations" + ("" if args.text_only else
                   f", {len(paths)} notebooks ({'executed' if not args.no_execute else 'rendered'}), "
                   f"{len(example_files(args.examples))} example scenarios -> {args.output}"))
    failed = []

    def on_error(title, target, exc):
        failed.append(target)
        progress.write(f"{prog}: error: calibration '{target}' failed: {type(exc).__name__}: "
                       f"{' '.join(str(exc).split())[:300]}")

    runner = None
    shared_dir = None
    if not args.text_only and not args.no_execute:  # the kernels run the notebooks meanwhile
        # the kernels inherit the name of the file where this process will share its fits
        shared_dir = Path(tempfile.mkdtemp(prefix="zmodel-report-"))
        os.environ[SHARED_RESULTS] = str(shared_dir / "calibrations.pickle")
        runner = NotebookRunner(paths).start()
    try:
        progress.step("queueing core demonstration")
        progress.echo(demonstration())
        calibrations = run_calibrations([(e.title, e.target) for e in selected], progress=progress, echo=True,
                                        on_error=on_error)
        if failed:
            return 1
        if shared_dir is not None:
            share_results([_registry.load(e) for e in selected if _registry.is_available(e)],
                          os.environ[SHARED_RESULTS])
        if args.areas is None:  # a full calibration: the shipped parameter store follows it
            progress.write(f"{prog}: {update_parameter_store(calibrations)}")
        if not args.text_only:
            progress.step("predicting the example scenarios")
            examples = example_predictions(args.examples)
            progress.step("predicting the validation set")
            from zmodel.validation import validate

            validation = validate(samples=VALIDATION_SAMPLES, seed=0)
            try:
                build_report(args.output, paths, calibrations, execute=not args.no_execute, examples=examples,
                             progress=progress, runner=runner, validation=validation)
            except Exception as exc:  # a notebook failed: one line naming it
                from nbclient.exceptions import CellExecutionError

                if os.environ.get("ZMODEL_DEBUG"):
                    raise
                what = "a notebook failed" if isinstance(exc, CellExecutionError) else "the build failed"
                first = next((ln.strip() for ln in str(exc).splitlines() if ln.strip()), "")
                last = [ln.strip() for ln in str(exc).splitlines() if ln.strip()][-1:] or [""]
                progress.write(f"{prog}: error: {what}: {type(exc).__name__}: {first[:200]}"
                               f"{' ... ' + last[0][:200] if last[0] != first else ''}")
                return 1
    except BaseException:
        if runner is not None:
            runner.cancel()
        raise
    finally:
        if runner is not None:
            runner.cancel()
        if shared_dir is not None:
            os.environ.pop(SHARED_RESULTS, None)
            shutil.rmtree(shared_dir, ignore_errors=True)
        progress.close()
    t = progress.elapsed()
    print(f"{prog}: done in {int(t) // 60:d} min {t % 60:04.1f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
