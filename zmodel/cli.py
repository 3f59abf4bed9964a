"""The ``zmodel`` command: plan a configuration, run the calibrations, build the report.

::

    zmodel plan SCENARIO.toml [--format text|csv|json] [--output FILE] [--sweep KEY=V1,V2,...]
    zmodel calibrate [AREA ...] [--list]
    zmodel validate [--format text|csv|json] [--samples N] [--seed S]
    zmodel parameters [AREA ...] [--calibrated] [--format text|csv|json] [--parameters FILE]
    zmodel report [report options]

``plan`` reads a scenario file (TOML, the shape of ``examples/*.toml``), builds a
:class:`zmodel.kernel.scenario.Scenario` and prints its predictions: one row per sweep
point with throughput, response time, utilizations, steal, memory overhead, and the
kernel features and model parameters each prediction used. The sweep is the file's
``[sweep]`` table, extended or overridden by ``--sweep`` options.

``calibrate`` runs the calibrations of :data:`zmodel.fits.registry.CALIBRATIONS` (all of
them, or the areas named) and prints each report with its residual table (and, for a
calibration whose rows come from several benchmarks -- kernel_versions -- its
leave-one-benchmark-out table); ``--list`` shows the areas. ``validate`` poses every figure of
the validation set (published figures from outside the seed documents, never fitted;
:mod:`zmodel.validation`) to the calibrated model and prints, per figure, ``id, area,
published, predicted, predicted_lo, predicted_hi, ratio`` (90 % interval from ``--samples``
seeded parameter draws; ratio = predicted/published), then the median ``|ratio - 1|`` and the
counts within x1.5 and x2 over the counted figures, and the figures the library cannot express
with what is missing (CSV: the summary as ``#`` comment lines after the table). ``parameters``
lists the parameter store predictions start from (:mod:`zmodel.store`): per area and parameter
the value, whether a calibration fitted it or it is assumed, and its 90 % interval with the
method that gave it. ``report`` is ``make report`` (:func:`zmodel.report.main`).

Errors in what the user gave (a missing or malformed file, an unknown key, catalog name
or area, a negative value, a bad option, a file that cannot be read or written) print one
line, ``zmodel: error: <message>``, on stderr and exit with status 2; nothing is written.
Ctrl-C prints ``zmodel: interrupted`` and exits with status 130.

Input and output files:

* A scenario file must be a regular file (not a FIFO, a device or a folder) of at most
  :data:`MAX_SCENARIO_BYTES`; it is UTF-8 TOML, a leading byte-order mark is accepted.
* ``--output FILE`` writes a regular file only: the text goes to a temporary file in the
  same folder, renamed over FILE after everything succeeded. An existing FILE must be a
  regular file (a device, a FIFO or a folder is refused) and must not be the scenario
  file; when FILE is a symbolic link, the link is kept and its target is written (a link
  to a device or to the scenario is refused like the target itself).

Bounded work: ``plan`` estimates the cost of a scenario before solving it, in exact-MVA
population steps (about 70 us each on one core): :data:`POINT_COST` per sweep point plus,
for the closed model, the largest population of each combination of the other swept keys
(MVA steps through every population up to it) -- and refuses, in one line naming
``--max-cost``, a plan above :data:`MAX_COST` units (about a minute on one core;
``clients = 10000000`` costs 10**7 units, about ten minutes; a sweep of 10**6 points
10**8 units, hours). Large sweeps show progress: a bar on a
terminal, else a line on stderr every tenth of the way. Values given to ``--sweep`` are
read as TOML's ``true``/``false``, integers, decimal numbers or plain strings; nothing the user
types is evaluated.

Output columns: the swept keys, then throughput (transactions per second for a closed
workload, I/O per second for an open load -- the unit of the load the user gave),
response time [s], utilizations [1] (at the carried load for an open load), steal [1],
memory overhead [bytes], the kernel features and model parameters used, ``saturated``
(the resources at capacity; empty when none) and ``model`` (the solver used). CSV headers
carry the units, ``throughput [I/O/s]``.

``calibrate`` and ``report`` show per-area progress as they go (a tqdm bar on a terminal
and outside CI, otherwise one line per step on stderr) and fit each area once. Set
``ZMODEL_DEBUG=1`` to see the traceback of an unexpected (internal) error.
"""
from __future__ import annotations

import argparse
import contextlib
import datetime as _dt
import copy
import json
import math
import os
import re
import stat
import sys
import tempfile
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path

__all__ = ["main", "build_parser", "parse_sweep_option", "parse_sweep_value", "read_scenario_file",
           "render", "write_atomically", "RESULT_COLUMNS", "UNITS", "UsageError", "LARGE_SWEEP",
           "MAX_SCENARIO_BYTES", "MAX_COST", "POINT_COST", "estimate_cost", "throughput_label",
           "render_validation", "VALIDATION_COLUMNS"]

PROG = "zmodel"
#: exit status of a usage or input error (as argparse uses)
EXIT_USAGE = 2
#: exit status of a failure that is not the user's input (a calibration that raised)
EXIT_FAILURE = 1
#: exit status when interrupted (128 + SIGINT)
EXIT_INTERRUPTED = 130
#: sweeps of at least this many points are run in chunks under a progress bar
LARGE_SWEEP = 500
#: fewer parameter draws than this put each end of a 90 % interval on fewer than five draws (the
#: 5th percentile of n draws is about the 0.05 n-th smallest): the text table says so
STABLE_SAMPLES = 100
#: most parameter draws ``zmodel plan --samples`` takes
MAX_SAMPLES = 100_000
#: parameter draws of ``zmodel plan`` when ``--samples`` is not given: every number it prints carries
#: its 90 % interval (each end on five draws, :data:`STABLE_SAMPLES`); ``--samples 0`` for point values
DEFAULT_SAMPLES = STABLE_SAMPLES
#: largest scenario file read [bytes]
MAX_SCENARIO_BYTES = 1 << 20
#: default limit of :func:`estimate_cost` (``--max-cost``): about a minute on one core
MAX_COST = 1_000_000
#: cost of one sweep point in MVA population steps (~8 ms: building and composing the models)
POINT_COST = 100
#: prediction columns of the scenario contract, after the swept key paths
RESULT_COLUMNS = ("throughput", "response_time", "cpu_utilization", "channel_utilization",
                  "disk_utilization", "steal", "memory_overhead", "features", "parameters", "saturated", "model")
#: units of the prediction columns (SI); throughput's depends on the load (:func:`throughput_label`)
UNITS = {"throughput": "1/s", "response_time": "s", "cpu_utilization": "1", "channel_utilization": "1",
         "disk_utilization": "1", "steal": "1", "memory_overhead": "bytes", "p_saturated": "1",
         "p_saturated_prediction": "1"}

#: per-figure columns of ``zmodel validate`` (text shows them; CSV and JSON add status and missing):
#: predicted_lo/hi is the 90 % prediction interval (the parameters' draws and the fits' out-of-sample
#: error, zmodel.validation.error_areas)
VALIDATION_COLUMNS = ("id", "area", "published", "predicted", "predicted_lo", "predicted_hi", "ratio")
#: what CSV and JSON add after the status: the parameters' 90 % interval alone and the fits whose
#: out-of-sample error the prediction interval carries (space-separated; empty: none)
VALIDATION_INTERVAL_COLUMNS = ("parameter_lo", "parameter_hi", "model_error")

_INT = re.compile(r"[+-]?\d+\Z")
_FLOAT = re.compile(r"[+-]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][+-]?\d+)?\Z")
_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*(?:\.[A-Za-z_][A-Za-z0-9_-]*)+\Z")


class UsageError(Exception):
    """An error in what the user gave: reported as one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    """argparse, but errors become :class:`UsageError` (one line, no usage dump)."""

    def error(self, message):  # noqa: D401 - argparse API
        raise UsageError(message)


# --------------------------------------------------------------------------- helpers
def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def _version() -> str:
    import zmodel

    return zmodel.__version__  # package metadata (zmodel/__init__.py)


def _progress_enabled() -> bool:
    """Progress bars only on a terminal and outside CI (the calibration engine's rule)."""
    ci = os.environ.get("CI", "")
    return sys.stderr.isatty() and ci.strip().lower() in ("", "0", "false", "no")


def _progress(iterable, total: int, desc: str):
    from tqdm import tqdm

    return tqdm(iterable, total=total, desc=desc, disable=not _progress_enabled(), leave=False,
                file=sys.stderr)


def _print_out(text: str) -> None:
    """Print to stdout without breaking an active progress bar."""
    if _progress_enabled():
        from tqdm import tqdm

        tqdm.write(text, file=sys.stdout)
    else:
        print(text, file=sys.stdout)


def _warn_lines(caught, prefix: str = "", limit: int = 5, write=None) -> None:
    """Print captured warnings as ``zmodel: warning: ...`` lines (unique, at most ``limit``)."""
    write = write or (lambda line: print(line, file=sys.stderr))
    seen = []
    for w in caught:
        msg = _one_line(f"{w.category.__name__}: {w.message}")
        if msg not in seen:
            seen.append(msg)
    for msg in seen[:limit]:
        write(f"{PROG}: warning: {prefix}{msg}")
    if len(seen) > limit:
        write(f"{PROG}: warning: {prefix}... and {len(seen) - limit} more distinct warnings")


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a folder")):
        if test(mode):
            return name
    return "not a regular file"


def _os_error(what: str, path, exc: OSError) -> UsageError:
    return UsageError(f"{what}: cannot {'write' if 'output' in what else 'read'} '{path}': "
                      f"{exc.strerror or type(exc).__name__}")


def check_output(path: str | os.PathLike, protect: str | os.PathLike | None = None, option: str = "--output"):
    """Refuse an output path :func:`write_atomically` would refuse; returns (target, stat or None).

    Run before long work so that a bad path fails at once, with nothing written.
    """
    given = Path(path)
    target = Path(os.path.realpath(given))
    where = f"{option} '{given}'"
    try:
        st = os.stat(target)
    except FileNotFoundError:
        st = None
    except OSError as exc:
        raise _os_error(option, given, exc) from None
    if st is not None and not stat.S_ISREG(st.st_mode):
        raise UsageError(f"{where} is {_kind(st.st_mode)}; {option} writes regular files only")
    if protect is not None:
        with contextlib.suppress(OSError):
            if st is not None and os.path.samefile(target, protect):
                raise UsageError(f"{where} is the scenario file itself; refusing to overwrite the input")
    if not target.parent.is_dir():
        raise UsageError(f"{option}: folder does not exist: '{given.parent}'")
    return target, st


def write_atomically(path: str | os.PathLike, text: str, protect: str | os.PathLike | None = None,
                     option: str = "--output") -> None:
    """Write ``text`` to the regular file ``path`` through a temporary file and a rename.

    An existing ``path`` must be a regular file; a symbolic link is followed (the link
    stays, its target is replaced). ``protect`` (the scenario file) is never overwritten.
    Every refusal and OS error is a :class:`UsageError` naming the file and ``option``;
    nothing partial is left behind.
    """
    given = Path(path)
    target, st = check_output(path, protect, option)
    folder = target.parent
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=folder)
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
        os.chmod(tmp, (st.st_mode & 0o7777) if st is not None else 0o644)
        os.replace(tmp, target)
        tmp = None
    except OSError as exc:
        raise _os_error(option, given, exc) from None
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)


# --------------------------------------------------------------------------- scenario input
def read_scenario_file(path: str | os.PathLike) -> dict:
    """Read a scenario TOML file into a dict; errors are :class:`UsageError` naming the file.

    Examples
    --------
    >>> read_scenario_file("no/such/file.toml")
    Traceback (most recent call last):
    ...
    zmodel.cli.UsageError: scenario file not found: 'no/such/file.toml'
    """
    import tomllib

    path = Path(path)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    except FileNotFoundError:
        raise UsageError(f"scenario file not found: '{path}'") from None
    except IsADirectoryError:
        raise UsageError(f"scenario file '{path}' is a folder") from None
    except OSError as exc:
        raise UsageError(f"cannot read scenario file '{path}': {exc.strerror or exc}") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise UsageError(f"scenario file '{path}' is {_kind(st.st_mode)}; it must be a regular file")
        if st.st_size > MAX_SCENARIO_BYTES:
            raise UsageError(f"scenario file '{path}' is {st.st_size} bytes; the limit is "
                             f"{MAX_SCENARIO_BYTES} bytes")
        chunks, size = [], 0
        while size <= MAX_SCENARIO_BYTES:
            chunk = os.read(fd, 65536)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        raw = b"".join(chunks)
    except OSError as exc:
        raise UsageError(f"cannot read scenario file '{path}': {exc.strerror or exc}") from None
    finally:
        os.close(fd)
    if len(raw) > MAX_SCENARIO_BYTES:
        raise UsageError(f"scenario file '{path}' is larger than the limit of {MAX_SCENARIO_BYTES} bytes")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise UsageError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"{path}: malformed TOML: {_one_line(exc)}") from None


def parse_sweep_value(text: str, keep_string: bool = False):
    """One ``--sweep`` value: TOML's ``true``/``false``, an int, else a decimal number, else the plain string.

    Nothing is evaluated: ``"1e3"`` is a float, ``"true"`` a boolean (as in a scenario file, so
    ``hardware.zhpf=true,false`` sweeps the flag), ``"2.6.10"``, ``"inf"``, ``"True"`` and
    ``"__import__('os')"`` are strings (which the scenario then accepts or rejects).

    Examples
    --------
    >>> parse_sweep_value("8"), parse_sweep_value("-0.5"), parse_sweep_value("1e3")
    (8, -0.5, 1000.0)
    >>> parse_sweep_value("true"), parse_sweep_value("false"), parse_sweep_value("True")
    (True, False, 'True')
    >>> parse_sweep_value("2.6.10"), parse_sweep_value("2.6", keep_string=True)
    ('2.6.10', '2.6')
    """
    t = text.strip()
    if not t:
        raise UsageError("empty value")
    if keep_string:
        return t
    if t in ("true", "false"):
        return t == "true"
    if _INT.match(t):
        return int(t)
    if _FLOAT.match(t):
        return float(t)
    return t


def _lookup(data: Mapping, key: str):
    node = data
    for part in key.split("."):
        if not isinstance(node, Mapping) or part not in node:
            return None
        node = node[part]
    return node


def parse_sweep_option(option: str, base: Mapping | None = None) -> tuple[str, list]:
    """``"KEY=V1,V2,..."`` -> ``(KEY, [v1, v2, ...])``.

    Values are strings when the scenario's current value at KEY is a string (so
    ``kernel.version=2.6`` stays ``"2.6"``), otherwise parsed by :func:`parse_sweep_value`.

    Examples
    --------
    >>> parse_sweep_option("hardware.cpus=1,2,4")
    ('hardware.cpus', [1, 2, 4])
    >>> parse_sweep_option("kernel.version=2.4.21,2.6.10", {"kernel": {"version": "2.6.10"}})
    ('kernel.version', ['2.4.21', '2.6.10'])
    """
    key, sep, values = option.partition("=")
    key = key.strip()
    if not sep:
        raise UsageError(f"--sweep {option!r}: expected KEY=V1,V2,... (e.g. hardware.cpus=1,2,4)")
    if not _KEY.match(key):
        raise UsageError(f"--sweep {option!r}: the key must be a dotted scenario path such as "
                         f"'hardware.cpus', got {key!r}")
    keep = isinstance(_lookup(base or {}, key), str)
    out = []
    for item in values.split(","):
        try:
            out.append(parse_sweep_value(item, keep_string=keep))
        except UsageError:
            raise UsageError(f"--sweep {key}: empty value in {values!r}") from None
    return key, out


def _flatten_sweep(table, prefix: str = "") -> dict[str, list]:
    """The ``[sweep]`` table as ``{"section.key": [values]}`` (nested tables become dotted paths)."""
    if not isinstance(table, Mapping):
        raise UsageError(f"sweep: must be a table of \"section.key\" = [values], got {type(table).__name__}")
    out: dict[str, list] = {}
    for name, value in table.items():
        key = f"{prefix}{name}"
        if isinstance(value, Mapping):
            out.update(_flatten_sweep(value, key + "."))
            continue
        values = list(value) if isinstance(value, list) else [value]
        if not values:
            raise UsageError(f"sweep.{key}: must list at least one value")
        if any(isinstance(v, (Mapping, list)) for v in values):
            raise UsageError(f"sweep.{key}: values must be numbers or strings")
        if not _KEY.match(key):
            raise UsageError(f"sweep: key {key!r} must be a dotted scenario path such as \"hardware.cpus\"")
        out[key] = values
    return out


def _with_value(data: Mapping, key: str, value) -> dict:
    out = copy.deepcopy(dict(data))
    node = out
    parts = key.split(".")
    for i, part in enumerate(parts[:-1]):
        nxt = node.get(part)
        if nxt is None:
            nxt = node[part] = {}
        if not isinstance(nxt, dict):
            raise UsageError(f"sweep {key}: {'.'.join(parts[:i + 1])} is not a table")
        node = nxt
    node[parts[-1]] = value
    return out


# --------------------------------------------------------------------------- rendering
def _plain(value):
    """A JSON-safe Python value (non-finite numbers become null)."""
    import numpy as np

    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def throughput_label(frame) -> str:
    """The throughput column's header with its unit: the unit of the load the user gave.

    ``throughput [transactions/s]`` for closed workloads, ``throughput [I/O/s]`` for an
    open load (``workload.io_rate``), ``throughput [1/s]`` when a frame mixes both.

    Examples
    --------
    >>> import pandas as pd
    >>> throughput_label(pd.DataFrame({"model": ["open: M/M/c stations at the offered I/O rate"]}))
    'throughput [I/O/s]'
    """
    return f"throughput [{_throughput_unit(frame)}]"


def _throughput_unit(frame) -> str:
    if "model" not in frame.columns or not len(frame):
        return UNITS["throughput"]
    kinds = {str(m).split(":")[0] for m in frame["model"]}
    if kinds == {"open"}:
        return "I/O/s"
    if kinds == {"closed"}:
        return "transactions/s"
    return UNITS["throughput"]


def _units(frame) -> dict:
    """Column -> unit; an interval end (``<name>_lo``, ``<name>_hi``, ``<name>_prediction_lo``,
    ``<name>_prediction_hi``) has the unit of ``<name>``."""
    def base(c):
        c = str(c)
        for suffix in ("_prediction_lo", "_prediction_hi", "_lo", "_hi"):
            if c.endswith(suffix) and c[:-len(suffix)] in UNITS:
                return c[:-len(suffix)]
        return c

    units = {c: UNITS[base(c)] for c in frame.columns if base(c) in UNITS}
    for c in units:
        if base(c) == "throughput":
            units[c] = _throughput_unit(frame)
    return units


def _with_unit_headers(frame):
    units = _units(frame)
    return frame.rename(columns={c: f"{c} [{u}]" for c, u in units.items()})


def _text_table(frame) -> str:
    """The predictions as a text table for a reader (CSV and JSON carry every column as it is).

    A quantity with an interval shows as one cell ``value [lo, hi]``; the long columns (the
    model, features, parameters and the assumed parameters) follow the table, once per distinct
    value with the rows that share it.
    """
    long_columns = ("features", "parameters", "model", "assumed")
    ranged = [c for c in frame.columns if f"{c}_lo" in frame.columns and f"{c}_hi" in frame.columns]
    predicted = [c for c in ranged if f"{c}_prediction_lo" in frame.columns and f"{c}_prediction_hi" in frame.columns]
    bounds = {f"{c}_{end}" for c in ranged for end in ("lo", "hi")}
    bounds |= {f"{c}_prediction_{end}" for c in predicted for end in ("lo", "hi")}
    bounds.add("p_saturated_prediction")   # shown in parentheses in p_saturated's cell
    shown = [c for c in frame.columns if c not in long_columns and c not in bounds]
    if "saturated" in shown and not frame["saturated"].astype(str).str.len().gt(0).any():
        shown.remove("saturated")
    saturating = "p_saturated" in shown and bool(
        (frame[[c for c in ("p_saturated", "p_saturated_prediction") if c in frame.columns]] > 0).any(axis=None))
    if "p_saturated" in shown and not saturating:   # no draw saturates any point: said below the table
        shown.remove("p_saturated")
    units = _units(frame)
    headers = {c: f"{c} [{units[c]}]" if c in units and units[c] != "1" else c for c in shown}

    def fmt(v):
        if isinstance(v, float):
            return f"{v:.6g}"
        return str(v)

    def cell(c, i):
        text = fmt(_plain_text(frame[c].iloc[i]))
        if c in ranged:
            lo, hi = (fmt(_plain_text(frame[f"{c}_{end}"].iloc[i])) for end in ("lo", "hi"))
            text += f" [{lo}, {hi}]"
        if c in predicted:
            lo, hi = (fmt(_plain_text(frame[f"{c}_prediction_{end}"].iloc[i])) for end in ("lo", "hi"))
            text += f" ({lo} to {hi})"
        if c == "p_saturated" and "p_saturated_prediction" in frame.columns:
            text += f" ({fmt(_plain_text(frame['p_saturated_prediction'].iloc[i]))})"
        return text

    cells = [["row"] + [headers[c] for c in shown]] + [[str(i)] + [cell(c, i) for c in shown]
                                                       for i in range(len(frame))]
    widths = [max(len(row[j]) for row in cells) for j in range(len(cells[0]))]
    lines = ["  ".join(row[j].rjust(widths[j]) for j in range(len(row))) for row in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    if ranged:
        from zmodel.conventions import INTERVAL_LEVEL

        n = frame.attrs.get("samples")
        draws = f"the {n} parameter draws (seed {frame.attrs.get('seed')})" if n else "the parameter draws"
        lines.append(f"[lo, hi]: the {100 * INTERVAL_LEVEL:g} % interval over {draws} (columns <name>_lo, "
                     f"<name>_hi in CSV and JSON)")
        lines.append("  it carries the parameters' uncertainty, not what the model lacks: 'zmodel validate' shows "
                     "how often published figures fall inside theirs")
        if predicted:
            lines.append(f"(lo to hi): the {100 * INTERVAL_LEVEL:g} % prediction interval of {', '.join(predicted)}: "
                         "the draws with the out-of-sample errors of the fits it rests on added "
                         f"({frame.attrs.get('model_error', 'the store')}; columns <name>_prediction_lo, "
                         "<name>_prediction_hi): what the models missed on the rows left out of each fit")
        if saturating:
            lines.append("p_saturated: the fraction of the draws in which the point does not carry its load "
                         "(response time infinite)"
                         + ("; (in parentheses) over the draws with the fits' out-of-sample errors added"
                            if "p_saturated_prediction" in frame.columns else ""))
        elif "p_saturated" in frame.columns:
            lines.append("p_saturated: no draw saturates any point (column p_saturated in CSV and JSON)")
        if n and n < STABLE_SAMPLES:
            lines.append(f"  with fewer than {STABLE_SAMPLES} draws the ends move with the seed, and a prediction "
                         f"may fall outside its own interval: use --samples {2 * STABLE_SAMPLES} or more for stable ends")
    elif "throughput" in frame.columns:
        lines.append("no intervals (--samples 0): point values at the parameters' stored values, with neither "
                     "their uncertainty nor the models' out-of-sample error; the default, "
                     f"--samples {DEFAULT_SAMPLES}, gives both")
    for extra in ("model", "features", "parameters", "assumed"):
        if extra not in frame.columns:
            continue
        values = [str(v) for v in frame[extra]]
        if len(set(values)) <= 1:
            lines.append(f"{extra}: {values[0] if values else ''}")
        else:  # one line per distinct value, with the rows (0-based, as above) that used it
            lines.append(f"{extra}:")
            groups: dict[str, list[int]] = {}
            for i, v in enumerate(values):
                groups.setdefault(v, []).append(i)
            for v, rows in groups.items():
                lines.append(f"  row{'s' if len(rows) > 1 else ''} {_ranges(rows)}: {v}")
    return "\n".join(lines) + "\n"


def _ranges(rows: list[int]) -> str:
    """``[0, 1, 2, 5]`` -> ``"0-2, 5"``."""
    out, start = [], rows[0]
    for a, b in zip(rows, rows[1:] + [None]):
        if b != a + 1:
            out.append(f"{start}" if start == a else f"{start}-{a}")
            start = b
    return ", ".join(out)


def _plain_text(value):
    import numpy as np

    if isinstance(value, np.generic):
        value = value.item()
    return value


def render(frame, fmt: str, *, scenario: str = "", sweep: Mapping | None = None) -> str:
    """The predictions table as text, CSV or JSON (a string ending with a newline).

    JSON is an object ``{"scenario", "sweep", "units", "intervals", "predictions": [row, ...]}``;
    ``intervals`` says what the ``<name>_lo``/``_hi`` and ``<name>_prediction_lo``/``_hi``
    columns were drawn from -- ``{"level", "samples", "seed", "model_error"}`` (``model_error``:
    the fits whose out-of-sample error the prediction interval carries, or null) -- and is null
    for point values (``--samples 0``); non-finite numbers (a saturated station's infinite
    response time) are ``null``. CSV headers carry the units (``response_time [s]``); text shows
    them where not 1.
    """
    if fmt == "csv":
        return _with_unit_headers(frame).to_csv(index=False, lineterminator="\n")
    if fmt == "json":
        from zmodel.conventions import INTERVAL_LEVEL

        rows = [{str(k): _plain(v) for k, v in row.items()} for row in frame.to_dict(orient="records")]
        samples = frame.attrs.get("samples")
        intervals = None if not samples else {"level": INTERVAL_LEVEL, "samples": int(samples),
                                              "seed": _plain(frame.attrs.get("seed")),
                                              "model_error": frame.attrs.get("model_error")}
        doc = {"scenario": scenario, "sweep": {k: [_plain(v) for v in vs] for k, vs in (sweep or {}).items()},
               "units": _units(frame), "intervals": intervals, "predictions": rows}
        return json.dumps(doc, indent=2, allow_nan=False) + "\n"
    if fmt == "text":
        head = f"scenario: {scenario}  ({len(frame)} prediction{'s' if len(frame) != 1 else ''})\n" if scenario else ""
        return head + _text_table(frame)
    raise UsageError(f"--format must be one of text, csv, json, got {fmt!r}")


# --------------------------------------------------------------------------- commands
def estimate_cost(scenario, sweep: Mapping[str, list]) -> tuple[int, int, int]:
    """``(cost, points, largest population)`` of predicting ``scenario`` over ``sweep``.

    Cost units are exact-MVA population steps (about 70 us each): :data:`POINT_COST` per
    sweep point, plus, for a closed workload, the largest population of each combination
    of the other swept keys (MVA steps through every population up to it; the populations
    of a ``workload.clients`` sweep share one pass).
    """
    sweep = dict(sweep or {})
    points = math.prod(len(v) for v in sweep.values()) if sweep else 1
    profile = getattr(scenario, "profile", None)
    clients = sweep.get("workload.clients") or [profile().clients if profile is not None else 1]
    largest = max(int(c) if isinstance(c, (int, float)) and math.isfinite(c) else 0 for c in clients)
    combos = points // max(1, len(sweep.get("workload.clients", [None])))
    workload = getattr(scenario, "workload", None)
    open_load = getattr(workload, "io_rate", None) is not None or "workload.io_rate" in sweep
    cost = POINT_COST * points + (0 if open_load else combos * largest)
    return cost, points, largest


def _progress_line(done: int, total: int, label: str, unit: str = "points") -> None:
    print(f"{PROG}: {label}: {done}/{total} {unit} ({100 * done // max(total, 1)} %)", file=sys.stderr, flush=True)


def _predict(scenario, sweep: dict[str, list], samples: int = 0, seed: int = 0, vary_assumed: bool = True):
    """Run the prediction; a large sweep runs in chunks of its first key with progress.

    On a terminal a tqdm bar; otherwise a line on stderr about every tenth of the way.
    """
    n = math.prod(len(v) for v in sweep.values()) if sweep else 1
    if samples:
        bar = _progress(range(samples), total=samples, desc="samples")
        lines = not _progress_enabled()
        step = max(1, samples // 10)

        def tick(done, total):
            if lines and (done % step == 0 or done == total):
                _progress_line(done, total, "plan", unit="parameter draws")
            elif not lines:
                bar.update(1)

        try:
            return scenario.predict(sweep=sweep or None, samples=samples, seed=seed, progress=tick,
                                    vary_assumed=vary_assumed)
        finally:
            if hasattr(bar, "close"):
                bar.close()
    if n < LARGE_SWEEP or not sweep:
        return scenario.predict(sweep=sweep or None)
    import pandas as pd

    first, *rest = sweep
    per_chunk = n // len(sweep[first])
    parts = []
    bar = _progress(sweep[first], total=len(sweep[first]), desc=f"sweep {first}")
    lines = not _progress_enabled()
    next_line = n / 10
    for k, value in enumerate(bar):
        chunk = {first: [value], **{key: sweep[key] for key in rest}}
        parts.append(scenario.predict(sweep=chunk))
        done = (k + 1) * per_chunk
        if lines and (done >= next_line or done == n):
            _progress_line(done, n, "plan")
            next_line = done + n / 10
    return pd.concat(parts, ignore_index=True)


def _parameter_store(args):
    """The parameter store of ``plan``: ``--parameters FILE``, ``--defaults`` (empty) or the shipped one."""
    from zmodel import store

    if getattr(args, "defaults", False):
        return store.EMPTY
    if getattr(args, "parameters", None):
        try:
            return store.load(args.parameters)
        except ValueError as exc:
            raise UsageError(f"--parameters: {_one_line(exc)}") from None
    return store.default()


def cmd_plan(args) -> int:
    data = read_scenario_file(args.scenario)
    sweep = _flatten_sweep(data.pop("sweep", {}))
    for option in args.sweep or []:
        key, values = parse_sweep_option(option, data)
        sweep[key] = values

    from zmodel.kernel.scenario import Scenario

    where = str(args.scenario)
    store = _parameter_store(args)
    try:
        scenario = Scenario.from_dict(data, parameters=store)
    except ValueError as exc:
        raise UsageError(f"{where}: {_one_line(exc)}") from None
    for key, values in sweep.items():  # every swept value must make a valid scenario on its own
        for value in values:
            try:
                Scenario.from_dict(_with_value(data, key, value))
            except ValueError as exc:
                raise UsageError(f"{where}: sweep {key}={value!r}: {_one_line(exc)}") from None
    if args.samples is None:   # --sensitivity draws nothing; a plan draws by default
        args.samples = 0 if args.sensitivity else DEFAULT_SAMPLES
    elif args.samples < 0 or args.samples > MAX_SAMPLES:
        raise UsageError(f"--samples must be an integer from 0 to {MAX_SAMPLES}, got {args.samples}")
    elif args.sensitivity and args.samples:
        raise UsageError("--sensitivity sets each parameter to the ends of its range; it draws no samples "
                         "(leave out --samples)")
    if args.fixed_assumed and not args.samples:
        raise UsageError("--fixed-assumed holds the assumed parameters in the draws; it needs --samples N > 0")
    cost, points, largest = estimate_cost(scenario, sweep)
    cost *= 1 + max(0, args.samples)   # each draw predicts every point again
    if args.max_cost is not None and args.max_cost < 1:
        raise UsageError(f"--max-cost must be a positive integer, got {args.max_cost}")
    limit = MAX_COST if args.max_cost is None else args.max_cost
    if cost > limit:
        draws = f" with {args.samples} parameter draws" if args.samples else ""
        fewer = (f", or predict point values without intervals with --samples 0 (about {cost // (1 + args.samples)} "
                 f"units)") if args.samples else ""
        raise UsageError(f"{where}: this plan would cost about {cost:.3g} units ({points} sweep point"
                         f"{'s' if points != 1 else ''}, populations up to {largest}{draws}), above the limit "
                         f"{limit:.3g} (about a minute); raise it with --max-cost {cost} if you mean it{fewer}")
    if args.sensitivity and args.sweep:
        raise UsageError("--sensitivity predicts the scenario at its own values; it takes no --sweep "
                         "(the file's [sweep] section is not used either)")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            if args.sensitivity:
                frame = scenario.sensitivity()
            else:
                frame = _predict(scenario, sweep, args.samples, args.seed, not args.fixed_assumed)
        except ValueError as exc:
            raise UsageError(f"{where}: {_one_line(exc)}") from None
    if args.sensitivity and frame.empty:
        raise UsageError(f"{where}: --sensitivity: the prediction uses no parameter with a range to vary")
    text = render(frame, args.format, scenario=where, sweep=None if args.sensitivity else sweep)
    _warn_lines(caught)
    if args.output:
        write_atomically(args.output, text, protect=args.scenario)
    else:
        sys.stdout.write(text)
        sys.stdout.flush()
    return 0


def _fmt(v) -> str:
    """A number for the validation text table: 5 significant digits, '-' for NaN."""
    v = _plain_text(v)
    if isinstance(v, float):
        return "-" if math.isnan(v) else f"{v:.5g}"
    return str(v)


def _validation_summary_lines(summary: dict, areas) -> list[str]:
    s = summary
    n = s["counted"]
    pct = (lambda k: f" ({100.0 * k / n:.0f} %)") if n else (lambda k: "")
    med = "-" if n == 0 else f"{100.0 * s['median_abs_error']:.1f} %"
    lines = [f"summary over the {n} counted figures (expressible and independent of the library's catalogs; "
             f"{s['expressible']} expressible of {s['total']}, {s['catalog_checks']} catalog checks not counted):",
             f"  median |error| {med}; within x1.5: {s['within_1_5']}{pct(s['within_1_5'])}; "
             f"within x2: {s['within_2']}{pct(s['within_2'])}",
             "  |error| = |predicted/published - 1|; a bound or a range end is compared with the value printed"]
    if s.get("with_interval"):
        k, m = s["inside_interval"], s["with_interval"]
        kp, mp = s.get("inside_parameter_interval", 0), s.get("with_parameter_interval", 0)
        lines.append(f"  published inside the 90 % prediction interval: {k} of {m} ({100.0 * k / m:.0f} %); "
                     f"inside the parameters' interval alone: {kp} of {mp} (it leaves out what the model lacks)")
    lines.append("per area (counted figures):")
    for row in areas.to_dict(orient="records"):
        if row["counted"]:
            inside = (f"; {row['inside_interval']} of {row['with_interval']} inside the 90 % prediction interval "
                      f"({row.get('inside_parameter_interval', 0)} inside the parameters')"
                      if row.get("with_interval") else "")
            lines.append(f"  {row['area']}: {row['counted']} counted, median |error| "
                         f"{100.0 * row['median_abs_error']:.1f} %, worst {100.0 * row['worst_abs_error']:.1f} % "
                         f"({row['worst_id']}){inside}")
        else:
            lines.append(f"  {row['area']}: none counted ({row['figures']} figures)")
    return lines


_VALIDATION_INTERVAL = ("90 % (5th and 95th percentiles of the draws); predicted_lo/hi: the parameters' draws with "
                        "the out-of-sample error of the fits in model_error added; parameter_lo/hi: the parameters' "
                        "draws alone")


def render_validation(table, fmt: str, *, samples: int, seed: int) -> str:
    """The ``zmodel validate`` output of a :func:`zmodel.validation.validate` table (ends with a newline).

    text: the per-figure table, the summary, the per-area lines, the inexpressible figures
    with what is missing. csv: one row per figure (VALIDATION_COLUMNS, unit, kind, status,
    missing, VALIDATION_INTERVAL_COLUMNS), then the summary as ``#`` comment lines. json: an object
    ``{"samples", "seed",
    "summary", "areas", "figures", "inexpressible"}`` (NaN as null).
    """
    from zmodel.validation import area_summary, summary

    s, areas = summary(table), area_summary(table)
    inexpressible = table[table["status"] == "inexpressible"]
    shown = table[table["status"] != "inexpressible"]
    if fmt == "json":
        cols = (list(VALIDATION_COLUMNS) + ["unit", "kind", "status", "missing", "catalog_check"]
                + list(VALIDATION_INTERVAL_COLUMNS))
        doc = {"samples": samples, "seed": seed, "interval": _VALIDATION_INTERVAL,
               "summary": {k: _plain(v) for k, v in s.items()},
               "areas": [{k: _plain(v) for k, v in r.items()} for r in areas.to_dict(orient="records")],
               "figures": [{k: _plain(r[k]) for k in cols} for r in table.to_dict(orient="records")],
               "inexpressible": [{"id": r["id"], "area": r["area"], "missing": r["missing"]}
                                 for r in inexpressible.to_dict(orient="records")]}
        return json.dumps(doc, indent=2, allow_nan=False) + "\n"
    if fmt == "csv":
        cols = list(VALIDATION_COLUMNS) + ["unit", "kind", "status", "missing"] + list(VALIDATION_INTERVAL_COLUMNS)
        body = table[cols].to_csv(index=False, lineterminator="\n")
        tail = [f"# samples={samples} seed={seed} interval=90 %"]
        tail += [f"# {line.strip()}" for line in _validation_summary_lines(s, areas)]
        return body + "\n".join(tail) + "\n"
    if fmt != "text":
        raise UsageError(f"--format must be one of text, csv, json, got {fmt!r}")
    head = list(VALIDATION_COLUMNS) + ["unit", "status", "model_error"]
    cells = [head] + [[_fmt(r[c]) for c in head] for r in shown.to_dict(orient="records")]
    widths = [max(len(row[j]) for row in cells) for j in range(len(head))]
    lines = [f"validation set: {s['total']} published figures from outside the seed documents, never fitted; "
             f"{s['expressible']} expressible; 90 % intervals from {samples} parameter draws (seed {seed})",
             "predicted_lo/hi: the prediction interval -- the parameters' draws with the out-of-sample error of the "
             "fits in column model_error added (their cross-validation on the documents); the parameters' interval "
             "alone is in the CSV and JSON", ""]
    lines += ["  ".join(c.ljust(widths[j]) if j < 2 else c.rjust(widths[j]) for j, c in enumerate(row)).rstrip()
              for row in cells[:1]]
    lines.append("  ".join("-" * w for w in widths))
    lines += ["  ".join(c.ljust(widths[j]) if j < 2 else c.rjust(widths[j]) for j, c in enumerate(row)).rstrip()
              for row in cells[1:]]
    lines.append("")
    lines += _validation_summary_lines(s, areas)
    lines.append("")
    lines.append(f"inexpressible figures ({len(inexpressible)}): what the library lacks")
    for r in inexpressible.to_dict(orient="records"):
        lines.append(f"  {r['id']}: {r['missing']}")
    return "\n".join(lines) + "\n"


#: columns of ``zmodel parameters`` (the store's :meth:`~zmodel.store.ParameterStore.table`); CSV and JSON add
#: its ``source``, the text table shows them as value, kind, 90 % interval and method
PARAMETER_COLUMNS = ("area", "name", "value", "unit", "calibrated", "lo90", "hi90", "method", "used")


def _model_error_doc(area: str, e) -> dict:
    from zmodel.conventions import INTERVAL_LEVEL

    return {"area": area, "method": e.method, "rows": e.rows, "rms_log_error": e.scale,
            "factor_90": math.exp(e.half_width(INTERVAL_LEVEL)), "ids": list(e.ids),
            "log_errors": [float(v) for v in e.log_errors]}


def render_parameters(table, fmt: str, *, origin: str, model_errors=()) -> str:
    """The ``zmodel parameters`` output of :meth:`zmodel.store.ParameterStore.table` rows (ends with a newline).

    text: one line per (area, parameter), ``calibrated``/``assumed``, the 90 % interval and how it was
    obtained, ``*`` where another area's value of the same name is the one predictions use; a
    line counts them; then each area's out-of-sample error (``model_errors``: ``(area,
    zmodel.store.ModelError)`` pairs). csv: the columns of :data:`PARAMETER_COLUMNS` and
    ``source``. json: an object ``{"store", "parameters", "model_errors"}`` (NaN as null).
    """
    if fmt == "json":
        rows = [{k: _plain(r[k]) for k in PARAMETER_COLUMNS + ("source",)} for r in table.to_dict(orient="records")]
        return json.dumps({"store": origin, "parameters": rows,
                           "model_errors": [_model_error_doc(a, e) for a, e in model_errors]},
                          indent=2, allow_nan=False) + "\n"
    if fmt == "csv":
        return table[list(PARAMETER_COLUMNS) + ["source"]].to_csv(index=False, lineterminator="\n")
    if fmt != "text":
        raise UsageError(f"--format must be one of text, csv, json, got {fmt!r}")
    head = ["area", "name", "value", "unit", "kind", "90 % interval", "method"]
    cells = [head]
    for r in table.to_dict(orient="records"):
        interval = "" if not math.isfinite(r["lo90"]) else f"[{_fmt(r['lo90'])}, {_fmt(r['hi90'])}]"
        kind = "calibrated" if r["calibrated"] else "assumed"
        cells.append([r["area"], r["name"] + ("" if r["used"] else " *"), _fmt(r["value"]), r["unit"], kind,
                      interval, r["method"]])
    widths = [max(len(row[j]) for row in cells) for j in range(len(head) - 1)]
    lines = [f"parameter store: {origin}", ""]
    for k, row in enumerate(cells):
        lines.append("  ".join([c.ljust(w) for c, w in zip(row[:-1], widths)] + [row[-1]]).rstrip())
        if k == 0:
            lines.append("  ".join("-" * w for w in widths + [len(head[-1])]))
    n_cal = int(table["calibrated"].sum())
    n_areas = table["area"].nunique()
    lines += ["", f"{len(table)} parameters in {n_areas} area{'s' if n_areas != 1 else ''}: {n_cal} calibrated, "
              f"{len(table) - n_cal} assumed (held at a declared default or a stated reading); "
              "* another area's value of this name is the one predictions use"]
    if model_errors:
        lines += ["", "out-of-sample error of each fit (its rows left out and predicted; 'zmodel validate' and "
                  "'zmodel plan' add it to the prediction interval):"]
        for area, e in model_errors:
            d = _model_error_doc(area, e)
            lines.append(f"  {area}: {e.method}, {e.rows} row{'s' if e.rows != 1 else ''}, root mean square "
                         f"{d['rms_log_error']:.3g} in the logarithm: 90 % within a factor {d['factor_90']:.3g}")
    return "\n".join(lines) + "\n"


def cmd_parameters(args) -> int:
    """``zmodel parameters [AREA ...]``: what the parameter store holds."""
    store = _parameter_store(args)
    table = store.table()
    if args.areas:
        unknown = [a for a in args.areas if a not in store.areas]
        if unknown:
            raise UsageError(f"unknown area {unknown[0]!r} in the parameter store; its areas: "
                             f"{', '.join(store.areas) or 'none'}")
        table = table[table["area"].isin(args.areas)]
    if args.calibrated:
        table = table[table["calibrated"].astype(bool)]
    origin = str(args.parameters) if args.parameters else "the calibrated store shipped with zmodel"
    errors = [(a, store.areas[a].model_error) for a in dict.fromkeys(table["area"])
              if store.areas[a].model_error is not None]
    sys.stdout.write(render_parameters(table.reset_index(drop=True), args.format, origin=origin,
                                       model_errors=errors))
    sys.stdout.flush()
    return 0


def cmd_validate(args) -> int:
    from zmodel.validation import MAX_SAMPLES as MAX_DRAWS
    from zmodel.validation import validate

    if not 0 <= args.samples <= MAX_DRAWS:
        raise UsageError(f"--samples must be an integer from 0 to {MAX_DRAWS}, got {args.samples}")
    if args.seed < 0:
        raise UsageError(f"--seed must be a non-negative integer, got {args.seed}")
    store = _parameter_store(args)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            table = validate(store, samples=args.samples, seed=args.seed)
        except ValueError as exc:
            raise UsageError(_one_line(exc)) from None
    text = render_validation(table, args.format, samples=args.samples, seed=args.seed)
    _warn_lines(caught)
    sys.stdout.write(text)
    sys.stdout.flush()
    return 0


def cmd_calibrate(args) -> int:
    from zmodel import report
    from zmodel.fits import registry

    try:
        entries = registry.select(args.areas)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if args.list:
        width = max(len(e.area) for e in entries)
        for e in entries:
            status = "available" if registry.is_available(e) else "not yet"
            print(f"{e.area:<{width}}  {status:<9}  {e.title}")
        return 0
    failures = []
    progress = report.Progress(len(entries), prog=PROG)

    def on_error(title, target, exc):
        entry = next(e for e in entries if e.target == target)
        if isinstance(exc, registry.CalibrationUnavailable):
            progress.write(f"{PROG}: note: skipping calibration '{entry.area}': {_one_line(exc)}")
            return
        if os.environ.get("ZMODEL_DEBUG"):
            raise exc
        failures.append(entry.area)
        progress.write(f"{PROG}: error: calibration '{entry.area}' failed: {type(exc).__name__}: "
                       f"{_one_line(exc)}")

    def on_warnings(title, target, caught):
        entry = next(e for e in entries if e.target == target)
        _warn_lines(caught, prefix=f"{entry.area}: ", write=progress.write)

    if args.save:
        check_output(args.save, option="--save")
    if args.profile and (args.measurements is not None or args.save):
        raise UsageError("--profile cannot be combined with --measurements or --save")
    if args.profile:
        return _calibrate_profile(args, entries)
    if args.measurements is not None:
        return _calibrate_own(args, entries)
    try:
        done = report.run_calibrations([(e.title, e.target) for e in entries], progress=progress, echo=True,
                                       on_error=on_error, on_warnings=on_warnings, group_out=True,
                                       workers=min(2, os.cpu_count() or 1))
    finally:
        progress.close()
    if failures:
        return EXIT_FAILURE
    if args.save:
        from zmodel import store

        by_target = {target: result for _, target, result in done}
        fitted = registry.parameter_store({e.area: by_target[e.target] for e in entries if e.target in by_target},
                                          areas=[e.area for e in entries])
        merged = store.default()
        for area in fitted.areas.values():
            merged = merged.replace_area(area)
        merged = store.ParameterStore(areas=merged.areas, code_version=fitted.code_version, created=fitted.created)
        write_atomically(args.save, store.dumps(merged), option="--save")
        print(f"{PROG}: wrote the parameters of {', '.join(fitted.areas) or 'no area'} to {args.save}",
              file=sys.stderr)
    return 0


def _one_area(args, entries, option: str, needs: str):
    """The one calibration entry and its loaded calibration that ``option`` applies to (a usage
    error naming ``needs`` unless exactly one AREA was given)."""
    from zmodel.fits import registry

    if len(entries) != 1 or not args.areas:
        raise UsageError(f"{option} needs exactly one AREA ({needs})")
    return entries[0], registry.load(entries[0])


def _run_reporting_warnings(cal, area: str, prefix: str = "", **options):
    """``cal.run(**options)`` with its warnings printed as one line each; a ValueError is a usage error."""
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = cal.run(**options)
    except ValueError as exc:
        raise UsageError(f"{prefix}{_one_line(exc)}") from None
    _warn_lines(caught, prefix=f"{area}: ")
    return result


def _calibrate_profile(args, entries) -> int:
    """``zmodel calibrate AREA --profile NAME ...``: one area's report with profile-likelihood intervals."""
    entry, cal = _one_area(args, entries, "--profile", "the calibration whose parameter it profiles")
    if getattr(cal, "model", None) is None:
        raise UsageError(f"--profile: calibration '{entry.area}' is not a least-squares catalog fit")
    result = _run_reporting_warnings(cal, entry.area, "--profile: ", profile=tuple(dict.fromkeys(args.profile)))
    print(result.report())
    return 0


def _calibrate_own(args, entries) -> int:
    """``zmodel calibrate AREA --measurements FILE [--save FILE]``: one area on the planner's numbers."""
    from zmodel import store
    from zmodel.data import read_measurements
    from zmodel.fits import registry

    entry, cal = _one_area(args, entries, "--measurements", "the calibration its rows belong to")
    reader = getattr(cal, "read_measurements", None)
    if getattr(cal, "model", None) is None and reader is None:
        raise UsageError(f"--measurements: calibration '{entry.area}' is not a catalog fit")
    try:
        own = (reader or read_measurements)(args.measurements)
    except ValueError as exc:
        raise UsageError(_one_line(exc)) from None
    # saved: fitted as the store's own areas are (profile intervals where the covariance misleads)
    extra = dict(intervals=registry.STORE_INTERVALS) if args.save and getattr(cal, "model", None) is not None else {}
    result = _run_reporting_warnings(cal, entry.area, measurements=own, **extra)
    print(result.report())
    if args.save:
        origin = f"measurements: {Path(args.measurements).name}"
        if getattr(cal, "model", None) is None:   # a fit area with its own stored form (dasd)
            try:
                area = cal.to_store_area(result, origin)
            except ValueError as exc:
                raise UsageError(f"--save: {_one_line(exc)}") from None
            fitted = store.ParameterStore(areas={entry.area: area}, code_version=store._version(),
                                          created=_dt.date.today().isoformat())
        else:
            fitted = registry.parameter_store({entry.area: result}, areas=[entry.area], origin=origin,
                                              measurements=own)
        merged = store.default()
        for area in fitted.areas.values():
            merged = merged.replace_area(area)
        merged = store.ParameterStore(areas=merged.areas, code_version=fitted.code_version, created=fitted.created)
        write_atomically(args.save, store.dumps(merged), option="--save")
        print(f"{PROG}: wrote the parameters of {entry.area} (fitted to {Path(args.measurements).name}) to "
              f"{args.save}", file=sys.stderr)
    return 0


def cmd_report(args, extra: Sequence[str]) -> int:
    from zmodel import report

    try:
        return int(report.main(list(extra), prog=f"{PROG} report") or 0)
    except KeyboardInterrupt:
        raise
    except Exception as exc:
        if os.environ.get("ZMODEL_DEBUG"):
            raise
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        print(f"{PROG}: error: report failed: {type(exc).__name__}: {first[:300]} "
              "(set ZMODEL_DEBUG=1 for the traceback)", file=sys.stderr)
        return EXIT_FAILURE


# --------------------------------------------------------------------------- parser
def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``zmodel`` (errors raise :class:`UsageError`)."""
    parser = _Parser(prog=PROG, description="Queueing models of Linux on the mainframe: plan a "
                     "configuration, calibrate the models against the documented numbers, build the report.",
                     epilog="Errors print one line, 'zmodel: error: ...', and exit with status 2.")
    parser.add_argument("--version", action="version", version=f"{PROG} {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True

    plan = sub.add_parser("plan", help="predict a scenario file (throughput, response time, utilizations)",
                          description="Predict a scenario: one row per sweep point with throughput [1/s], "
                          "response_time [s], cpu/channel/disk utilization, steal, memory_overhead [bytes], "
                          "and the kernel features and model parameters used.")
    plan.add_argument("scenario", metavar="SCENARIO.toml", help="scenario file (see examples/*.toml)")
    plan.add_argument("--format", choices=("text", "csv", "json"), default="text",
                      help="output format (default: %(default)s); JSON writes non-finite numbers as null")
    plan.add_argument("--output", "-o", metavar="FILE",
                      help="write to FILE (a regular file; atomically, only on success) instead of stdout; "
                      "a symbolic link is followed and its target written")
    plan.add_argument("--max-cost", type=int, metavar="N", default=None,
                      help=f"refuse plans estimated above N units (default {MAX_COST}, about a minute): "
                      f"{POINT_COST} per sweep point plus the largest population of each closed-model "
                      "combination (one unit = one MVA population step, ~70 us)")
    source = plan.add_mutually_exclusive_group()
    source.add_argument("--parameters", metavar="FILE",
                        help="parameter store to predict with (written by 'zmodel calibrate --save'); default: "
                        "the calibrated store shipped with zmodel")
    source.add_argument("--defaults", action="store_true",
                        help="predict with every parameter at its declared default (no calibration)")
    plan.add_argument("--samples", type=int, default=None, metavar="N",
                      help="draws of the parameters over which every point is predicted again: each quantity gets "
                      "a 90 %% interval (<name>_lo, <name>_hi columns: calibrated parameters from their fitted "
                      "distribution, assumed ones over their plausible range), and the headline quantity "
                      "(throughput, or an open load's response time) its 90 %% prediction interval with the "
                      "out-of-sample errors of the fits it rests on (<name>_prediction_lo, _hi); default "
                      f"{DEFAULT_SAMPLES}, 200 or more for stable ends; 0: point values only, no intervals")
    plan.add_argument("--fixed-assumed", action="store_true",
                      help="with --samples: hold the assumed parameters at their values, so that the intervals "
                      "show the calibration's uncertainty alone")
    plan.add_argument("--seed", type=int, default=0, metavar="S",
                      help="seed of the draws (default %(default)s): the same seed gives the same intervals")
    plan.add_argument("--sensitivity", action="store_true",
                      help="print a tornado table instead: the headline output (throughput, or response time "
                      "for an open load) with each parameter at the low and high end of its interval or "
                      "plausible range, sorted by effect")
    plan.add_argument("--sweep", action="append", metavar="KEY=V1,V2,...",
                      help="sweep a scenario key over values, e.g. hardware.cpus=1,2,4,8 or "
                      "kernel.version=2.4.21,2.6.10; repeat for a cartesian product; overrides the "
                      "file's [sweep] entry for KEY. Values are numbers or plain strings.")

    cal = sub.add_parser("calibrate", help="run the calibrations and print their reports",
                         description="Fit the models to the documented numbers and print each report "
                         "(parameters, residual table). Without AREA, every registered calibration runs; "
                         "calibrations whose module is not there yet are skipped with a note.")
    cal.add_argument("areas", nargs="*", metavar="AREA", help="calibration areas (see --list)")
    cal.add_argument("--list", action="store_true", help="list the calibration areas and exit")
    cal.add_argument("--measurements", metavar="FILE",
                     help="your own numbers (CSV in the catalog's schema: id, kind, value, unit, ...) in place of "
                     "the documents' for the rows they name; for dasd, a 'cat /proc/dasd/statistics' dump (or a CSV "
                     "histogram,bucket,lower,upper,unit,count) in place of the documents' histograms; needs exactly "
                     "one AREA")
    cal.add_argument("--save", metavar="FILE",
                     help="write the fitted parameters of the areas run to FILE (a parameter store, TOML) for "
                     "'zmodel plan --parameters FILE'; areas not run keep the shipped store's values")
    cal.add_argument("--profile", action="append", metavar="NAME",
                     help="also compute the 95 %% profile-likelihood interval of the free parameter NAME (refits "
                     "with NAME held; repeat for several); needs exactly one AREA")

    val = sub.add_parser("validate", help="predict the validation set (published figures never fitted) and score it",
                         description="Pose every published figure of the validation set (zmodel/_data/validation, "
                         "from outside the seed documents, never fitted) to the calibrated model: per figure id, "
                         "area, published, predicted with its 90 % interval, ratio = predicted/published; then "
                         "the median |error| and the counts within x1.5 and x2, and the figures the library "
                         "cannot express with what is missing.")
    val.add_argument("--format", choices=("text", "csv", "json"), default="text",
                     help="output format (default: %(default)s); CSV ends with the summary as '#' comment lines, "
                     "JSON writes NaN as null")
    val.add_argument("--samples", type=int, default=200, metavar="N",
                     help="parameter draws per figure for the 90 %% intervals (default %(default)s; 0: no intervals)")
    val.add_argument("--seed", type=int, default=0, metavar="S",
                     help="seed of the draws (default %(default)s): the same seed gives the same intervals")
    vsource = val.add_mutually_exclusive_group()
    vsource.add_argument("--parameters", metavar="FILE",
                         help="parameter store to predict with; default: the calibrated store shipped with zmodel")
    vsource.add_argument("--defaults", action="store_true",
                         help="predict with every parameter at its declared default (no calibration)")

    par = sub.add_parser("parameters", help="list the parameter store: values, 90 %% intervals, calibrated or assumed",
                         description="List what predictions start from: per area and parameter the value, unit, "
                         "whether a calibration fitted it or it is assumed (a declared default or a stated "
                         "reading), its 90 %% interval and how that was obtained (covariance; profile, where the "
                         "fit's chi-square is far from quadratic; readings range).")
    par.add_argument("areas", nargs="*", metavar="AREA", help="areas to list (default: all)")
    par.add_argument("--calibrated", action="store_true", help="only the calibrated parameters")
    par.add_argument("--format", choices=("text", "csv", "json"), default="text",
                     help="output format (default: %(default)s); JSON writes NaN as null")
    par.add_argument("--parameters", metavar="FILE",
                     help="parameter store to list; default: the calibrated store shipped with zmodel")

    sub.add_parser("report", help="build the report, as 'make report' (options go to python -m zmodel.report)",
                   description="Run every calibration, execute the notebooks and write the HTML report "
                   "(python -m zmodel.report). Options after 'report' are passed on to it: see "
                   "'python -m zmodel.report --help'.", add_help=False)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``zmodel`` command; returns the exit status.

    Examples
    --------
    >>> main(["calibrate", "--list", "usl"])
    usl  available  Universal Scalability Law vs dbench memory throughput, Linux 2.4 and 2.6 (IBM Systems Journal, Figure 1)
    0
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        parser = build_parser()
        args, extra = parser.parse_known_args(argv)
        if args.command == "report":
            return cmd_report(args, extra)
        if extra:
            raise UsageError(f"unrecognized arguments: {' '.join(extra)}")
        if args.command == "plan":
            return cmd_plan(args)
        if args.command == "validate":
            return cmd_validate(args)
        if args.command == "parameters":
            return cmd_parameters(args)
        return cmd_calibrate(args)
    except UsageError as exc:
        print(f"{PROG}: error: {_one_line(exc)}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # e.g. `zmodel plan x.toml | head`
        with contextlib.suppress(OSError):
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        return EXIT_FAILURE
    except OSError as exc:  # the user's files and folders: one line, exit 2
        name = f" '{exc.filename}'" if exc.filename else ""
        print(f"{PROG}: error: {exc.strerror or type(exc).__name__}{name}", file=sys.stderr)
        return EXIT_USAGE
    except Exception as exc:
        if os.environ.get("ZMODEL_DEBUG"):
            raise
        print(f"{PROG}: error: internal error: {type(exc).__name__}: {_one_line(exc)} "
              "(set ZMODEL_DEBUG=1 for the traceback)", file=sys.stderr)
        return EXIT_FAILURE


if __name__ == "__main__":
    sys.exit(main())
