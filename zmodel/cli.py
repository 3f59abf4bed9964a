"""The ``zmodel`` command: plan a configuration, run the calibrations, build the report.

::

    zmodel plan SCENARIO.toml [--format text|csv|json] [--output FILE] [--sweep KEY=V1,V2,...]
    zmodel calibrate [AREA ...] [--list]
    zmodel report [report options]

``plan`` reads a scenario file (TOML, the shape of ``examples/*.toml``), builds a
:class:`zmodel.kernel.scenario.Scenario` and prints its predictions: one row per sweep
point with throughput, response time, utilizations, steal, memory overhead, and the
kernel features and model parameters each prediction used. The sweep is the file's
``[sweep]`` table, extended or overridden by ``--sweep`` options.

``calibrate`` runs the calibrations of :data:`zmodel.fits.registry.CALIBRATIONS` (all of
them, or the areas named) and prints each report with its residual table; ``--list``
shows the areas. ``report`` is ``make report`` (:func:`zmodel.report.main`).

Errors in what the user gave (a missing or malformed file, an unknown key, catalog name
or area, a negative value, a bad option) print one line, ``zmodel: error: <message>``,
on stderr and exit with status 2; nothing is written (``--output`` is written to a
temporary file and renamed into place only after everything succeeded). Values given to
``--sweep`` are read as integers, decimal numbers or plain strings; nothing the user
types is evaluated. A progress bar (tqdm, on stderr) is shown for calibrations and large
sweeps only when stderr is a terminal and the ``CI`` environment variable is unset.
Set ``ZMODEL_DEBUG=1`` to see the traceback of an unexpected (internal) error.
"""
from __future__ import annotations

import argparse
import contextlib
import copy
import json
import math
import os
import re
import sys
import tempfile
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path

__all__ = ["main", "build_parser", "parse_sweep_option", "parse_sweep_value", "read_scenario_file",
           "render", "write_atomically", "RESULT_COLUMNS", "UNITS", "UsageError", "LARGE_SWEEP"]

PROG = "zmodel"
#: exit status of a usage or input error (as argparse uses)
EXIT_USAGE = 2
#: exit status of a failure that is not the user's input (a calibration that raised)
EXIT_FAILURE = 1
#: sweeps of at least this many points are run in chunks under a progress bar
LARGE_SWEEP = 500
#: prediction columns of the scenario contract, after the swept key paths
RESULT_COLUMNS = ("throughput", "response_time", "cpu_utilization", "channel_utilization",
                  "disk_utilization", "steal", "memory_overhead", "features", "parameters")
#: units of the prediction columns (SI)
UNITS = {"throughput": "1/s", "response_time": "s", "cpu_utilization": "1", "channel_utilization": "1",
         "disk_utilization": "1", "steal": "1", "memory_overhead": "bytes"}

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
    from importlib import metadata

    try:
        return metadata.version("zmodel")
    except metadata.PackageNotFoundError:  # running from a source tree that is not installed
        import zmodel

        return getattr(zmodel, "__version__", "unknown")


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


def _warn_lines(caught, prefix: str = "", limit: int = 5) -> None:
    """Print captured warnings as ``zmodel: warning: ...`` lines (unique, at most ``limit``)."""
    seen = []
    for w in caught:
        msg = _one_line(f"{w.category.__name__}: {w.message}")
        if msg not in seen:
            seen.append(msg)
    for msg in seen[:limit]:
        print(f"{PROG}: warning: {prefix}{msg}", file=sys.stderr)
    if len(seen) > limit:
        print(f"{PROG}: warning: {prefix}... and {len(seen) - limit} more distinct warnings", file=sys.stderr)


def write_atomically(path: str | os.PathLike, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file in the same folder and a rename."""
    path = Path(path)
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise UsageError(f"--output: folder does not exist: '{folder}'")
    if path.is_dir():
        raise UsageError(f"--output: '{path}' is a folder, not a file")
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


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
        raw = path.read_bytes()
    except FileNotFoundError:
        raise UsageError(f"scenario file not found: '{path}'") from None
    except IsADirectoryError:
        raise UsageError(f"scenario file '{path}' is a folder") from None
    except OSError as exc:
        raise UsageError(f"cannot read scenario file '{path}': {exc.strerror or exc}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UsageError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"{path}: malformed TOML: {_one_line(exc)}") from None


def parse_sweep_value(text: str, keep_string: bool = False):
    """One ``--sweep`` value: an int, else a decimal number, else the plain string.

    Nothing is evaluated: ``"1e3"`` is a float, ``"2.6.10"``, ``"inf"`` and
    ``"__import__('os')"`` are strings (which the scenario then accepts or rejects).

    Examples
    --------
    >>> parse_sweep_value("8"), parse_sweep_value("-0.5"), parse_sweep_value("1e3")
    (8, -0.5, 1000.0)
    >>> parse_sweep_value("2.6.10"), parse_sweep_value("2.6", keep_string=True)
    ('2.6.10', '2.6')
    """
    t = text.strip()
    if not t:
        raise UsageError("empty value")
    if keep_string:
        return t
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


def _text_table(frame) -> str:
    shown = [c for c in frame.columns if c not in ("features", "parameters")]
    headers = {c: f"{c} [{UNITS[c]}]" if c in UNITS and UNITS[c] != "1" else c for c in shown}

    def fmt(v):
        if isinstance(v, float):
            return f"{v:.6g}"
        return str(v)

    cells = [["row"] + [headers[c] for c in shown]] + [[str(i)] + [fmt(_plain_text(frame[c].iloc[i])) for c in shown]
                                                       for i in range(len(frame))]
    widths = [max(len(row[j]) for row in cells) for j in range(len(cells[0]))]
    lines = ["  ".join(row[j].rjust(widths[j]) for j in range(len(row))) for row in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    for extra in ("features", "parameters"):
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

    JSON is an object ``{"scenario", "sweep", "units", "predictions": [row, ...]}``;
    non-finite numbers (a saturated station's infinite response time) are ``null``.
    """
    if fmt == "csv":
        return frame.to_csv(index=False, lineterminator="\n")
    if fmt == "json":
        rows = [{str(k): _plain(v) for k, v in row.items()} for row in frame.to_dict(orient="records")]
        doc = {"scenario": scenario, "sweep": {k: [_plain(v) for v in vs] for k, vs in (sweep or {}).items()},
               "units": {c: UNITS[c] for c in frame.columns if c in UNITS}, "predictions": rows}
        return json.dumps(doc, indent=2, allow_nan=False) + "\n"
    if fmt == "text":
        head = f"scenario: {scenario}  ({len(frame)} prediction{'s' if len(frame) != 1 else ''})\n" if scenario else ""
        return head + _text_table(frame)
    raise UsageError(f"--format must be one of text, csv, json, got {fmt!r}")


# --------------------------------------------------------------------------- commands
def _predict(scenario, sweep: dict[str, list]):
    """Run the prediction; a large sweep runs in chunks of its first key under a progress bar."""
    n = math.prod(len(v) for v in sweep.values()) if sweep else 1
    if n < LARGE_SWEEP or not sweep:
        return scenario.predict(sweep=sweep or None)
    import pandas as pd

    first, *rest = sweep
    parts = []
    for value in _progress(sweep[first], total=len(sweep[first]), desc=f"sweep {first}"):
        chunk = {first: [value], **{k: sweep[k] for k in rest}}
        parts.append(scenario.predict(sweep=chunk))
    return pd.concat(parts, ignore_index=True)


def cmd_plan(args) -> int:
    data = read_scenario_file(args.scenario)
    sweep = _flatten_sweep(data.pop("sweep", {}))
    for option in args.sweep or []:
        key, values = parse_sweep_option(option, data)
        sweep[key] = values

    from zmodel.kernel.scenario import Scenario

    where = str(args.scenario)
    try:
        scenario = Scenario.from_dict(data)
    except ValueError as exc:
        raise UsageError(f"{where}: {_one_line(exc)}") from None
    for key, values in sweep.items():  # every swept value must make a valid scenario on its own
        for value in values:
            try:
                Scenario.from_dict(_with_value(data, key, value))
            except ValueError as exc:
                raise UsageError(f"{where}: sweep {key}={value!r}: {_one_line(exc)}") from None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            frame = _predict(scenario, sweep)
        except ValueError as exc:
            raise UsageError(f"{where}: {_one_line(exc)}") from None
    text = render(frame, args.format, scenario=where, sweep=sweep)
    _warn_lines(caught)
    if args.output:
        write_atomically(args.output, text)
    else:
        sys.stdout.write(text)
        sys.stdout.flush()
    return 0


def cmd_calibrate(args) -> int:
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
    failures = 0
    ran = 0
    bar = _progress(entries, total=len(entries), desc="calibrating")
    for entry in bar:
        if hasattr(bar, "set_postfix_str"):
            bar.set_postfix_str(entry.area)
        try:
            func = registry.load(entry)
        except registry.CalibrationUnavailable as exc:
            print(f"{PROG}: note: skipping calibration '{entry.area}': {_one_line(exc)}", file=sys.stderr)
            continue
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                result = func()
                text = result.report()
            except Exception as exc:  # one failing fit must not hide the others
                if os.environ.get("ZMODEL_DEBUG"):
                    raise
                failures += 1
                print(f"{PROG}: error: calibration '{entry.area}' failed: {type(exc).__name__}: "
                      f"{_one_line(exc)}", file=sys.stderr)
                continue
        _warn_lines(caught, prefix=f"{entry.area}: ")
        ran += 1
        _print_out("=" * 78 + f"\n{entry.title}\n[{entry.area}: {entry.target}]\n" + "=" * 78 + f"\n{text}\n")
    return EXIT_FAILURE if failures else 0


def cmd_report(args, extra: Sequence[str]) -> int:
    from zmodel import report

    try:
        status = report.main(list(extra))
    except SystemExit as exc:  # the report's own option parser
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    except Exception as exc:
        if os.environ.get("ZMODEL_DEBUG"):
            raise
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        print(f"{PROG}: error: report failed: {type(exc).__name__}: {first} "
              "(set ZMODEL_DEBUG=1 for the traceback)", file=sys.stderr)
        return EXIT_FAILURE
    return int(status or 0)


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
                      help="write to FILE (atomically, only on success) instead of stdout")
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
        return cmd_calibrate(args)
    except UsageError as exc:
        print(f"{PROG}: error: {_one_line(exc)}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # e.g. `zmodel plan x.toml | head`
        with contextlib.suppress(OSError):
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        return EXIT_FAILURE
    except Exception as exc:
        if os.environ.get("ZMODEL_DEBUG"):
            raise
        print(f"{PROG}: error: internal error: {type(exc).__name__}: {_one_line(exc)} "
              "(set ZMODEL_DEBUG=1 for the traceback)", file=sys.stderr)
        return EXIT_FAILURE


if __name__ == "__main__":
    sys.exit(main())
