"""The documented numbers, with provenance: loaders for the data shipped in the package.

Every quantitative claim of the five seed documents is one row of a catalog CSV in
``zmodel/_data/catalog/<doc>.csv`` (with a short ``<doc>.toml`` beside it); the DASD driver
histograms printed in the ``fs03`` deck are a tidy table in ``zmodel/_data/dasd_statistics.csv``.
The loaders here read those files, check them against the schema and return typed pandas
DataFrames. A malformed file raises :class:`ValueError` naming the file, the row and the
column, so that a bad edit is found where it was made.

The folder is found by :func:`zmodel.hardware.catalog.data_folder`, the one rule: the
data shipped inside the package (``zmodel/_data/``, through :mod:`importlib.resources`);
the environment variable ``ZMODEL_DATA`` overrides that, and every loader also takes
``data_dir=``.

This module sits beside the model layers: pandas is imported inside the loaders, never at
module import.

Examples
--------
>>> from zmodel.data import measurements, dasd_statistics
>>> m = measurements(source="fs03")
>>> m.loc[m["id"] == "fs03.journaling-cost-lower-bound", ["value", "unit", "kind"]].values.tolist()
[['30', '%', 'lower_bound']]
>>> h = dasd_statistics()
>>> int(h.loc[h["histogram"] == "sectors", "count"].sum())
56881
"""
from __future__ import annotations

import csv
import math
import re
from pathlib import Path

from zmodel.conventions import read_csv_rows, table_error
from zmodel.hardware.catalog import data_folder  # one rule for where the data lives

__all__ = [
    "CATALOG_COLUMNS",
    "DASD_COLUMNS",
    "DOCUMENTS",
    "KINDS",
    "MODEL_AREAS",
    "PLATFORMS",
    "catalog_metadata",
    "read_measurements",
    "MEASUREMENT_COLUMNS",
    "dasd_statistics",
    "read_dasd_statistics",
    "read_dasd_measurements",
    "dasd_bucket_bounds",
    "DASD_DUMP_HISTOGRAMS",
    "data_folder",
    "measurements",
    "VALIDATION_AREAS",
    "VALIDATION_COLUMNS",
    "VALIDATION_KINDS",
    "validation_figures",
    "readings",
    "reading_intervals",
]

#: Catalog CSV columns, in their required order.
CATALOG_COLUMNS = (
    "id", "source", "location", "quantity", "system", "conditions",
    "value", "unit", "kind", "verbatim", "model_area", "notes",
)
#: Columns of ``zmodel/_data/dasd_statistics.csv``, in their required order.
DASD_COLUMNS = ("histogram", "bucket", "lower", "upper", "unit", "count")

#: Document short name -> seed file name, in seed order (the catalog's row order).
DOCUMENTS = {
    "ibmsj": "000_bf0694975d199a2d.txt",
    "osdl": "001_37b528ecce68b8bf.txt",
    "wavv08": "002_3ef25dc9d706703e.txt",
    "altix": "003_b2fdde8a1106fead.txt",
    "fs03": "004_0d27ef34b5d760a7.txt",
}

KINDS = frozenset({
    "absolute", "ratio", "percent", "percent_change", "upper_bound", "lower_bound",
    "range_low", "range_high", "count", "configuration", "shape",
})
MODEL_AREAS = frozenset({
    "channel", "storage", "dasd", "network", "crypto", "cpu", "lock", "memory",
    "hypervisor", "io_scheduler", "filesystem", "numa", "scheduler", "kernel",
    "benchmark", "other",
})
#: Columns of ``zmodel/_data/validation/figures.csv``, in their required order.
VALIDATION_COLUMNS = (
    "id", "area", "quantity", "value", "unit", "kind", "platform", "conditions",
    "title", "publisher", "year", "document", "page", "location", "verbatim",
    "expressible", "missing", "notes", "catalog_check",
)
#: Areas of the validation set (issue 12); a validation id is ``val.<area>.<slug>``.
VALIDATION_AREAS = frozenset({
    "channels", "pav", "storage", "disks", "io_schedulers", "hypervisor", "locks", "memory",
    "network", "crypto", "kernel_versions",
})
#: Kinds a validation figure may have: the catalog's, without configuration and shape.
VALIDATION_KINDS = KINDS - {"configuration", "shape"}
#: Units whose value is text, not a number.
TEXT_UNITS = frozenset({"version", "date"})
#: Keys every ``zmodel/_data/catalog/<doc>.toml`` must have.
METADATA_KEYS = (
    "source", "title", "authors", "venue", "date", "platform", "description", "ocr_notes",
    "extracted_by", "rows",
)
#: Platforms a document's figures were measured on (its ``platform`` key): the composed
#: kernel model predicts each figure on its platform's hardware description.
PLATFORMS = ("x86", "ia64", "zSeries")

_SLUG = r"[a-z0-9]+(?:-[a-z0-9]+)*"
_ID_RE = re.compile(rf"^(?P<doc>[a-z0-9]+)\.(?P<slug>{_SLUG})$")
_DATE_RE = re.compile(r"^\d{4}(?:-\d{2}(?:-\d{2})?)?$")
_HISTOGRAM_RE = re.compile(r"^[a-z][a-z0-9_]*$")
_VAL_ID_RE = re.compile(rf"^val\.(?P<area>[a-z][a-z_]*)\.(?P<slug>{_SLUG})$")
_YEAR_RE = re.compile(r"^(19|20)\d{2}$")
_CONDITION_RE = re.compile(r"^[a-z][a-z0-9_]*=\S.*$")
_N_BUCKETS = 32



_fail = table_error
_read_rows = read_csv_rows


def _read_toml(path: Path) -> dict:
    """A metadata file's contents; ``ValueError`` naming the file when it does not parse."""
    import tomllib

    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise _fail(path, "file", f"is not valid TOML ({exc})") from None


def _with_metadata(frame, path: Path):
    """``frame`` with the metadata file beside ``path`` (same stem, ``.toml``) in ``attrs``, if there is one."""
    meta_path = path.with_suffix(".toml")
    if meta_path.exists():
        frame.attrs["metadata"] = _read_toml(meta_path)
    return frame


def _is_number(text: str) -> bool:
    try:
        return math.isfinite(float(text))
    except ValueError:
        return False


def _check_catalog_row(path: Path, number: int, rec: dict[str, str]) -> None:
    doc = path.stem

    def bad(column: str, message: str) -> ValueError:
        return _fail(path, f"row {number}, column {column!r}", message)

    match = _ID_RE.match(rec["id"])
    if not match:
        raise bad("id", f"id must look like '<doc>.<slug>' with a slug of lowercase letters, "
                        f"digits and single hyphens, got {rec['id']!r}")
    if match["doc"] != doc:
        raise bad("id", f"id must start with the document name {doc + '.'!r}, got {rec['id']!r}")
    expected_source = DOCUMENTS.get(doc)
    if expected_source is not None and rec["source"] != expected_source:
        raise bad("source", f"source must be {expected_source!r} for {doc}, got {rec['source']!r}")
    if not rec["source"].strip():
        raise bad("source", "source must name the seed file, got ''")
    if rec["kind"] not in KINDS:
        raise bad("kind", f"kind must be one of {sorted(KINDS)}, got {rec['kind']!r}")
    if rec["model_area"] not in MODEL_AREAS:
        raise bad("model_area",
                  f"model_area must be one of {sorted(MODEL_AREAS)}, got {rec['model_area']!r}")
    if not rec["verbatim"].strip():
        raise bad("verbatim", "verbatim must quote the document's phrase, got ''")
    value, unit, kind = rec["value"], rec["unit"], rec["kind"]
    if kind == "shape":
        if value != "":
            raise bad("value", f"value must be empty for kind 'shape', got {value!r}")
    elif value.strip() == "":
        raise bad("value", f"value must not be empty for kind {kind!r}")
    elif unit == "date":
        # ISO 8601 calendar date, or its reduced precision (yyyy-mm, yyyy) when the document
        # gives no day; the date must exist.
        import datetime

        parts = value.split("-")
        try:
            if not _DATE_RE.match(value):
                raise ValueError
            datetime.date(int(parts[0]), int(parts[1]) if len(parts) > 1 else 1,
                          int(parts[2]) if len(parts) > 2 else 1)
        except ValueError:
            raise bad("value", "a date value must be ISO yyyy-mm-dd (or yyyy-mm, yyyy "
                               f"when the document gives no day), got {value!r}") from None
    elif unit != "version" and not _is_number(value):
        raise bad("value", f"value must be a finite number for kind {kind!r} "
                           f"(unit {unit!r}), got {value!r}")


def _catalog_files(root: Path) -> list[Path]:
    folder = root / "catalog"
    if not folder.is_dir():
        raise ValueError(f"catalog folder not found: {folder} (set ZMODEL_DATA or pass data_dir)")
    order = {doc: i for i, doc in enumerate(DOCUMENTS)}
    return sorted(folder.glob("*.csv"), key=lambda p: (order.get(p.stem, len(order)), p.name))


def _records(path: Path, columns: tuple[str, ...], check) -> list[dict[str, str]]:
    """Rows of a data table as dicts, each checked by ``check(path, number, rec)``, ids unique."""
    records = []
    seen: dict[str, int] = {}
    for number, row in enumerate(_read_rows(path, columns), start=1):
        rec = dict(zip(columns, row))
        check(path, number, rec)
        if rec["id"] in seen:
            raise _fail(path, f"row {number}, column 'id'",
                        f"duplicate id {rec['id']!r} (first at row {seen[rec['id']]})")
        seen[rec["id"]] = number
        records.append(rec)
    return records


def _load_catalog_file(path: Path) -> list[dict[str, str]]:
    return _records(path, CATALOG_COLUMNS, _check_catalog_row)


def _as_set(name: str, value, allowed) -> set[str]:
    values = {value} if isinstance(value, str) else set(value)
    unknown = sorted(v for v in values if v not in allowed)
    if unknown and len(allowed) > 40:
        raise ValueError(f"{name} not in the catalog: {unknown}")
    if unknown:
        raise ValueError(f"{name} must be among {sorted(allowed)}, got {unknown}")
    return values


def measurements(source=None, model_area=None, ids=None, *, data_dir=None):
    """The whole catalog of documented numbers as one typed DataFrame.

    All ``zmodel/_data/catalog/*.csv`` are read (documents in seed order, rows in file order), each
    row checked against the schema, and concatenated.

    Parameters
    ----------
    source : str or iterable of str, optional
        Keep only these documents, by short name (``"fs03"``) or seed file name.
    model_area : str or iterable of str, optional
        Keep only these model areas (see :data:`MODEL_AREAS`).
    ids : iterable of str, optional
        Keep only these row ids; every id must exist.
    data_dir : path-like, optional
        Folder holding ``catalog/``; default :func:`data_folder`.

    Returns
    -------
    pandas.DataFrame
        The :data:`CATALOG_COLUMNS` as pandas ``string`` dtype (``value`` kept as printed),
        plus ``value_num`` (float64; NaN for shape rows, versions and dates) and
        ``platform`` (the document's ``platform``, one of :data:`PLATFORMS`: the machine
        family the figure was measured on).

    Raises
    ------
    ValueError
        A malformed file (message: ``<file>: row <n>, column '<col>': <rule>``, rows counted
        from 1 after the header), or a filter naming an unknown document, model area or id.
    """
    import pandas as pd

    root = data_folder(data_dir)
    # ids are unique across files because each id starts with its own file's name
    records = [rec for path in _catalog_files(root) for rec in _load_catalog_file(path)]
    frame = pd.DataFrame.from_records(records, columns=list(CATALOG_COLUMNS))
    frame = frame.astype({c: "string" for c in CATALOG_COLUMNS})
    numeric = [
        float(v) if (u not in TEXT_UNITS and k != "shape" and _is_number(v)) else math.nan
        for v, u, k in zip(frame["value"], frame["unit"], frame["kind"])
    ]
    frame["value_num"] = pd.Series(numeric, index=frame.index, dtype="float64")
    meta = catalog_metadata(data_dir=data_dir)
    doc = frame["id"].str.split(".", n=1).str[0]
    frame["platform"] = doc.map({d: m["platform"] for d, m in meta.items()}).astype("string")

    mask = pd.Series(True, index=frame.index)
    if source is not None:
        names = {source} if isinstance(source, str) else set(source)
        by_file = {v: k for k, v in DOCUMENTS.items()}
        present = {p.stem for p in _catalog_files(root)}
        docs = {by_file.get(n, n) for n in names}
        _as_set("source", docs, present | set(DOCUMENTS))
        mask &= frame["id"].str.split(".", n=1).str[0].isin(docs)
    if model_area is not None:
        mask &= frame["model_area"].isin(_as_set("model_area", model_area, MODEL_AREAS))
    if ids is not None:
        wanted = {ids} if isinstance(ids, str) else set(ids)
        _as_set("ids", wanted, set(frame["id"]))
        mask &= frame["id"].isin(wanted)
    return frame[mask].reset_index(drop=True)


def catalog_metadata(*, data_dir=None) -> dict[str, dict]:
    """The metadata file of each catalog document.

    Parameters
    ----------
    data_dir : path-like, optional
        Folder holding ``catalog/``; default :func:`data_folder`.

    Returns
    -------
    dict
        Document short name -> the parsed ``zmodel/_data/catalog/<doc>.toml``.

    Raises
    ------
    ValueError
        A TOML file that does not parse, lacks one of :data:`METADATA_KEYS`, names another
        seed file than its document's, or whose ``rows`` differs from its CSV's row count.
    """
    root = data_folder(data_dir)
    folder = root / "catalog"
    order = {doc: i for i, doc in enumerate(DOCUMENTS)}
    result: dict[str, dict] = {}
    for path in sorted(folder.glob("*.toml"), key=lambda p: (order.get(p.stem, len(order)), p.name)):
        meta = _read_toml(path)
        for key in METADATA_KEYS:
            if key not in meta:
                raise _fail(path, f"key {key!r}", f"missing; required keys are {list(METADATA_KEYS)}")
        if meta["platform"] not in PLATFORMS:
            raise _fail(path, "key 'platform'", f"must be one of {list(PLATFORMS)}, got {meta['platform']!r}")
        expected = DOCUMENTS.get(path.stem)
        if expected is not None and meta["source"] != expected:
            raise _fail(path, "key 'source'", f"must be {expected!r}, got {meta['source']!r}")
        csv_path = path.with_suffix(".csv")
        if csv_path.exists():
            with open(csv_path, newline="", encoding="utf-8") as handle:
                n_rows = max(sum(1 for _ in csv.reader(handle)) - 1, 0)
            if meta["rows"] != n_rows:
                raise _fail(path, "key 'rows'",
                            f"rows = {meta['rows']!r} but {csv_path.name} has {n_rows} data rows")
        result[path.stem] = meta
    return result


def dasd_statistics(*, data_dir=None):
    """The ``/proc/dasd/statistics`` histograms printed in the fs03 deck, one row per bucket.

    Parameters
    ----------
    data_dir : path-like, optional
        Folder holding ``dasd_statistics.csv`` and ``.toml``; default :func:`data_folder`.

    Returns
    -------
    pandas.DataFrame
        Columns ``histogram`` (string), ``bucket`` (int64, 0..31), ``lower`` and ``upper``
        (float64 bucket bounds in ``unit``: lower inclusive, upper exclusive, last upper
        ``inf``), ``unit`` (string), ``count`` (int64). ``.attrs["metadata"]`` holds the
        parsed ``dasd_statistics.toml`` (printed titles, totals, driver source).

    Raises
    ------
    ValueError
        A malformed file, naming the file, the 1-based data row and the column.
    """
    root = data_folder(data_dir)
    path = root / "dasd_statistics.csv"
    return _with_metadata(_dasd_table(path), path)


def _dasd_table(path):
    """The rows of a CSV in the schema of ``dasd_statistics.csv``, checked (file, row, column)."""
    import pandas as pd

    records = []
    seen: dict[tuple[str, int], int] = {}
    for number, row in enumerate(_read_rows(path, DASD_COLUMNS), start=1):
        rec = dict(zip(DASD_COLUMNS, row))

        def bad(column: str, message: str) -> ValueError:
            return _fail(path, f"row {number}, column {column!r}", message)

        if not _HISTOGRAM_RE.match(rec["histogram"]):
            raise bad("histogram", f"histogram must be a lowercase slug, got {rec['histogram']!r}")
        try:
            bucket = int(rec["bucket"])
        except ValueError:
            bucket = -1
        if not 0 <= bucket < _N_BUCKETS or rec["bucket"].strip() != str(bucket):
            raise bad("bucket", f"bucket must be an integer 0..{_N_BUCKETS - 1}, got {rec['bucket']!r}")
        bounds = {}
        for column in ("lower", "upper"):
            try:
                bounds[column] = float(rec[column])
            except ValueError:
                raise bad(column, f"{column} must be a number or inf, got {rec[column]!r}") from None
            if math.isnan(bounds[column]) or bounds[column] < 0:
                raise bad(column, f"{column} must be >= 0, got {rec[column]!r}")
        if not bounds["lower"] < bounds["upper"]:
            raise bad("upper", f"upper must exceed lower, got lower={rec['lower']!r}, upper={rec['upper']!r}")
        if not rec["unit"].strip():
            raise bad("unit", "unit must not be empty")
        try:
            count = int(rec["count"])
        except ValueError:
            count = -1
        if count < 0 or rec["count"].strip() != str(count):
            raise bad("count", f"count must be a non-negative integer, got {rec['count']!r}")
        key = (rec["histogram"], bucket)
        if key in seen:
            raise bad("bucket", f"bucket {bucket} of {rec['histogram']!r} repeats row {seen[key]}")
        seen[key] = number
        records.append((rec["histogram"], bucket, bounds["lower"], bounds["upper"], rec["unit"], count))
    histograms = dict.fromkeys(h for h, *_ in records)
    for name in histograms:
        buckets = sorted(b for h, b, *_ in records if h == name)
        if buckets != list(range(_N_BUCKETS)):
            missing = sorted(set(range(_N_BUCKETS)) - set(buckets))
            raise _fail(path, f"histogram {name!r}, column 'bucket'",
                        f"must have buckets 0..{_N_BUCKETS - 1} once each; missing {missing}")
    frame = pd.DataFrame.from_records(records, columns=list(DASD_COLUMNS))
    frame = frame.astype({"histogram": "string", "bucket": "int64", "lower": "float64",
                          "upper": "float64", "unit": "string", "count": "int64"})
    return frame


def _check_validation_row(path: Path, number: int, rec: dict[str, str]) -> None:
    def bad(column: str, message: str) -> ValueError:
        return _fail(path, f"row {number}, column {column!r}", message)

    match = _VAL_ID_RE.match(rec["id"])
    if not match:
        raise bad("id", "id must look like 'val.<area>.<slug>' with a slug of lowercase letters, "
                        f"digits and single hyphens, got {rec['id']!r}")
    if rec["area"] not in VALIDATION_AREAS:
        raise bad("area", f"area must be one of {sorted(VALIDATION_AREAS)}, got {rec['area']!r}")
    if match["area"] != rec["area"]:
        raise bad("id", f"id must start with 'val.{rec['area']}.' (its area), got {rec['id']!r}")
    if rec["kind"] not in VALIDATION_KINDS:
        raise bad("kind", f"kind must be one of {sorted(VALIDATION_KINDS)}, got {rec['kind']!r}")
    if not _is_number(rec["value"]):
        raise bad("value", f"value must be a finite number, got {rec['value']!r}")
    for column in ("quantity", "unit", "platform", "conditions", "title", "publisher", "document",
                   "page", "location", "verbatim"):
        if not rec[column].strip():
            raise bad(column, f"{column} must not be empty (every figure carries its provenance)")
    if not _YEAR_RE.match(rec["year"]):
        raise bad("year", f"year must be four digits (19xx or 20xx), got {rec['year']!r}")
    pairs = [p.strip() for p in rec["conditions"].split(";") if p.strip()]
    for pair in pairs:
        if not _CONDITION_RE.match(pair):
            raise bad("conditions", "conditions must be 'key=value' pairs separated by ';' with "
                                    f"lowercase keys, got {pair!r}")
    if rec["document"] in DOCUMENTS.values() or rec["document"] in DOCUMENTS:
        raise bad("document", f"document must not be a seed document, got {rec['document']!r}")
    if rec["expressible"] not in ("yes", "no"):
        raise bad("expressible", f"expressible must be 'yes' or 'no', got {rec['expressible']!r}")
    if rec["expressible"] == "no" and not rec["missing"].strip():
        raise bad("missing", "missing must say what the library lacks when expressible is 'no'")
    if rec["expressible"] == "yes" and rec["missing"].strip():
        raise bad("missing", f"missing must be empty when expressible is 'yes', got {rec['missing']!r}")


def validation_figures(area=None, *, data_dir=None):
    """The validation set: published figures from outside the seed documents, never fitted.

    Reads ``zmodel/_data/validation/figures.csv`` and checks every row against the schema described in
    ``zmodel/_data/validation/figures.toml`` (issue 12, part 1). These rows are for judging
    predictions (``zmodel validate``); no calibration reads them.

    Parameters
    ----------
    area : str or iterable of str, optional
        Keep only these areas (see :data:`VALIDATION_AREAS`).
    data_dir : path-like, optional
        Folder holding ``validation/``; default :func:`data_folder`.

    Returns
    -------
    pandas.DataFrame
        The :data:`VALIDATION_COLUMNS` as pandas ``string`` dtype, except ``year`` (int64),
        plus ``value_num`` (float64). ``.attrs["metadata"]`` holds the parsed
        ``figures.toml`` when present.

    Raises
    ------
    ValueError
        A malformed file (message: ``figures.csv: row <n>, column '<col>': <rule>``, rows
        counted from 1 after the header), a duplicate id, or an unknown area in ``area``.

    Examples
    --------
    >>> from zmodel.data import validation_figures
    >>> v = validation_figures(area="pav")
    >>> sorted(set(v["expressible"]))
    ['no']
    """
    import pandas as pd

    root = data_folder(data_dir)
    path = root / "validation" / "figures.csv"
    if not path.is_file():
        raise ValueError(f"validation figures not found: {path} (set ZMODEL_DATA or pass data_dir)")
    records = _records(path, VALIDATION_COLUMNS, _check_validation_row)
    frame = pd.DataFrame.from_records(records, columns=list(VALIDATION_COLUMNS))
    frame = frame.astype({c: "string" for c in VALIDATION_COLUMNS if c != "year"})
    frame["year"] = frame["year"].astype("int64")
    frame["value_num"] = frame["value"].astype(str).astype("float64")
    if area is not None:
        frame = frame[frame["area"].isin(_as_set("area", area, VALIDATION_AREAS))]
        frame = frame.reset_index(drop=True)
    return _with_metadata(frame, path)


#: Columns of ``zmodel/_data/readings.csv``, in their required order.
READING_COLUMNS = ("id", "kind", "low", "high", "reading")
#: Kinds a reading may give a row: the catalog's, plus ``interval`` (a verbal statement read as [low, high]).
READING_KINDS = KINDS | {"interval"}


def _reading_records(data_dir=None) -> dict[str, dict]:
    """The checked rows of ``readings.csv``: id -> {kind, low, high, reading}."""
    import math

    root = data_folder(data_dir)
    path = root / "readings.csv"
    if not path.exists():
        return {}
    known = set(measurements(data_dir=data_dir)["id"])
    out: dict[str, dict] = {}
    for number, row in enumerate(_read_rows(path, READING_COLUMNS), start=1):
        rec = dict(zip(READING_COLUMNS, row))

        def bad(column: str, message: str) -> ValueError:
            return _fail(path, f"row {number}, column {column!r}", message)

        if rec["id"] not in known:
            raise bad("id", f"id must be a catalog id, got {rec['id']!r}")
        if rec["id"] in out:
            raise bad("id", f"id {rec['id']!r} is read twice")
        if rec["kind"] not in READING_KINDS:
            raise bad("kind", f"kind must be one of {sorted(READING_KINDS)}, got {rec['kind']!r}")
        if not rec["reading"].strip():
            raise bad("reading", "reading must say how the row is read")
        ends = {}
        for end in ("low", "high"):
            text = rec[end].strip()
            if rec["kind"] != "interval":
                if text:
                    raise bad(end, f"{end} is only for kind 'interval' (got {text!r} for kind {rec['kind']!r})")
                continue
            try:
                ends[end] = float(text)
            except ValueError:
                raise bad(end, f"{end} must be a number (inf for a one-sided reading), got {text!r}") from None
            if math.isnan(ends[end]):
                raise bad(end, f"{end} must be a number, got {text!r}")
        if ends and ends["low"] > ends["high"]:
            raise bad("low", f"low ({ends['low']:g}) must not exceed high ({ends['high']:g})")
        if ends and math.isinf(ends["low"]) and math.isinf(ends["high"]):
            raise bad("low", "at least one end of an interval must be finite")
        out[rec["id"]] = dict(kind=rec["kind"], reading=rec["reading"], **ends)
    return out


def readings(*, data_dir=None) -> dict[str, tuple[str, str]]:
    """How catalog rows enter the fits: id -> (kind, reading in words).

    ``zmodel/_data/readings.csv`` holds, once, the reading of a catalog row whose kind in the
    fits differs from the bound word of the document's phrase, and of every verbal statement
    a fit uses ("drops above 20 processors" read as a peak in [20, 24] CPUs, kind
    ``interval``; its ends are :func:`reading_intervals`). :func:`zmodel.fits.catalog_rows`
    applies it to every fit.

    Raises
    ------
    ValueError
        A malformed file, naming the file, the 1-based data row and the column (unknown
        catalog id, unknown kind, empty reading, repeated id, an interval's ends missing,
        not numbers or low > high, ends given for another kind).

    Examples
    --------
    >>> readings()["ibmsj.dbench-24-drop-above-20cpu"][0]
    'interval'
    """
    return {i: (r["kind"], r["reading"]) for i, r in _reading_records(data_dir).items()}


def reading_intervals(*, data_dir=None) -> dict[str, tuple[float, float]]:
    """The ends of the rows :func:`readings` reads as intervals: id -> (low, high), in the row's unit.

    Examples
    --------
    >>> reading_intervals()["altix.timer-global-noprogress-cpus"]
    (345.6, 422.4)
    """
    return {i: (r["low"], r["high"]) for i, r in _reading_records(data_dir).items() if r["kind"] == "interval"}


# --------------------------------------------------------------------------- a planner's own numbers
#: columns a planner's measurement file must have (the catalog's, the others optional)
MEASUREMENT_COLUMNS = ("id", "kind", "value", "unit")
#: largest measurement file read [B]
MAX_MEASUREMENT_BYTES = 16 * 2 ** 20


def read_measurements(path) -> "pd.DataFrame":
    """A planner's own numbers in the catalog's schema (CSV), checked row by row.

    The file has a header with at least ``id, kind, value, unit`` (any other catalog
    column -- ``quantity``, ``conditions``, ``notes`` ... -- may follow, in any order).
    ``id`` names the catalog row the number replaces (``zmodel calibrate AREA
    --measurements FILE``: the area's documented value is replaced by the planner's);
    ``kind`` is a catalog kind; ``value`` a finite number (``shape`` rows: any text).

    Raises
    ------
    ValueError
        ``"<file>: row <n>, column '<col>': <rule>"`` (rows counted from 1 after the
        header) for a malformed row; ``"<file>: ..."`` for a file that is not a regular
        file, larger than :data:`MAX_MEASUREMENT_BYTES`, not UTF-8, empty or without the
        required columns.
    """
    import csv
    import os
    import stat as _stat

    import pandas as pd

    path = Path(path)
    try:
        st = os.stat(path)
    except OSError as exc:
        raise ValueError(f"{path}: cannot read the measurements ({exc.strerror or exc})") from None
    if not _stat.S_ISREG(st.st_mode):
        raise ValueError(f"{path}: measurements must be a regular file")
    if st.st_size > MAX_MEASUREMENT_BYTES:
        raise ValueError(f"{path}: measurements larger than {MAX_MEASUREMENT_BYTES} bytes")
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ValueError(f"{path.name}: file: is not valid UTF-8 ({exc.reason} at byte {exc.start})") from None
    except OSError as exc:
        raise ValueError(f"{path}: cannot read the measurements ({exc.strerror or exc})") from None
    rows = list(csv.reader(text.splitlines()))
    if not rows or not any(cell.strip() for cell in rows[0]):
        raise _fail(path, "line 1 (header)", f"file is empty; expected a header with {list(MEASUREMENT_COLUMNS)}")
    header = [h.strip() for h in rows[0]]
    missing = [c for c in MEASUREMENT_COLUMNS if c not in header]
    if missing:
        raise _fail(path, f"line 1 (header), column {missing[0]!r}",
                    f"missing; the header must name {list(MEASUREMENT_COLUMNS)} (got {header})")
    unknown = [c for c in header if c not in CATALOG_COLUMNS]
    if unknown:
        raise _fail(path, f"line 1 (header), column {unknown[0]!r}",
                    f"not a catalog column; known: {list(CATALOG_COLUMNS)}")
    records, seen = [], {}
    for number, row in enumerate(rows[1:], start=1):
        if not any(cell.strip() for cell in row):
            continue
        if len(row) != len(header):
            col = header[len(row)] if len(row) < len(header) else f"#{len(row)}"
            raise _fail(path, f"row {number}, column {col!r}", f"has {len(row)} fields, expected {len(header)}")
        rec = {h: cell.strip() for h, cell in zip(header, row)}

        def bad(column, message, number=number):
            return _fail(path, f"row {number}, column {column!r}", message)

        if not rec["id"]:
            raise bad("id", "must not be empty")
        if rec["id"] in seen:
            raise bad("id", f"duplicate id {rec['id']!r} (first at row {seen[rec['id']]})")
        seen[rec["id"]] = number
        if rec["kind"] not in KINDS:
            raise bad("kind", f"must be one of {sorted(KINDS)}, got {rec['kind']!r}")
        if rec["kind"] != "shape" and not _is_number(rec["value"]):
            raise bad("value", f"must be a finite number, got {rec['value']!r}")
        if not rec["unit"]:
            raise bad("unit", "must not be empty (use '1' for a pure number)")
        records.append(rec)
    if not records:
        raise _fail(path, "row 1", "no measurements after the header")
    frame = pd.DataFrame.from_records(records, columns=header)
    frame["value_num"] = [float(v) if k != "shape" else math.nan for v, k in zip(frame["value"], frame["kind"])]
    frame.attrs["source_file"] = path.name
    return frame


# --------------------------------------------------------------------------- a /proc/dasd/statistics dump
#: the histograms the driver prints, in its order: (printed title, slug, unit). Titles of
#: ``dasd_statistics_open`` (Linux 2.4.21, ``drivers/s390/block/dasd.c``) and of
#: ``dasd_statistics_read`` / ``dasd_stats_proc_show`` (Linux 2.6 and later,
#: ``drivers/s390/block/dasd_proc.c``); the older 2.4 title of the total time had no unit.
DASD_DUMP_HISTOGRAMS = (
    (("Histogram of sizes (512B secs)",), "sectors", "sectors"),
    (("Histogram of I/O times (microseconds)", "Histogram of I/O times"), "total_time", "us"),
    (("Histogram of I/O times per sector",), "total_time_per_sector", "us/sector"),
    (("Histogram of I/O time till ssch",), "time_till_ssch", "us"),
    (("Histogram of I/O time between ssch and irq",), "time_between_ssch_and_irq", "us"),
    (("Histogram of I/O time between ssch and irq per sector",), "time_between_ssch_and_irq_per_sector",
     "us/sector"),
    (("Histogram of I/O time between irq and end",), "time_between_irq_and_end", "us"),
    (("# of req in chanq at enqueuing (1..32)",), "queue_length_at_enqueue", "requests"),
)
#: largest count the driver prints unscaled (both layouts: ``dasd_io_reqs`` above it is scaled)
_DASD_PRINT_LIMIT = 9999999
_DASD_REQUESTS_RE = re.compile(r"^\s*(\d+) dasd I/O requests\s*$")
_DASD_SECTORS_RE = re.compile(r"^\s*with (\d+) sectors\(512B each\)\s*$")
_DASD_SCALE_RE = re.compile(r"^\s*Scale Factor is\s+(\d+)\s*$")


def _read_user_text(path, what: str = "measurements") -> str:
    """A planner's text file: a regular UTF-8 file of at most :data:`MAX_MEASUREMENT_BYTES`."""
    import os
    import stat as _stat

    path = Path(path)
    try:
        st = os.stat(path)
    except OSError as exc:
        raise ValueError(f"{path}: cannot read the {what} ({exc.strerror or exc})") from None
    if not _stat.S_ISREG(st.st_mode):
        raise ValueError(f"{path}: {what} must be a regular file")
    if st.st_size > MAX_MEASUREMENT_BYTES:
        raise ValueError(f"{path}: {what} larger than {MAX_MEASUREMENT_BYTES} bytes")
    try:
        return path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ValueError(f"{path.name}: file: is not valid UTF-8 ({exc.reason} at byte {exc.start})") from None
    except OSError as exc:
        raise ValueError(f"{path}: cannot read the {what} ({exc.strerror or exc})") from None


def dasd_bucket_bounds(unit: str) -> tuple[list[float], list[float]]:
    """Lower (inclusive) and upper (exclusive) bounds of the driver's 32 buckets, in ``unit``.

    Time and size histograms: bucket 0 holds values below 4, bucket k (1..30) holds
    :math:`2^{k+1} \\le v < 2^{k+2}`, bucket 31 everything from :math:`2^{32}`
    (``dasd_profile_add_counter``: the index is the number of significant bits of
    ``value >> 2``, capped at 31; ``zmodel/_data/dasd_statistics.toml``). The queue-length
    histogram (unit ``requests``) has linear buckets ``[k, k + 1)``, the last open-ended.

    Examples
    --------
    >>> lo, hi = dasd_bucket_bounds("us")
    >>> lo[:4], hi[:4], hi[-1]
    ([0.0, 4.0, 8.0, 16.0], [4.0, 8.0, 16.0, 32.0], inf)
    """
    if unit == "requests":
        return [float(k) for k in range(_N_BUCKETS)], [float(k + 1) for k in range(_N_BUCKETS - 1)] + [math.inf]
    lower = [0.0] + [float(2 ** (k + 1)) for k in range(1, _N_BUCKETS)]
    return lower, [float(2 ** (k + 2)) for k in range(_N_BUCKETS - 1)] + [math.inf]


def read_dasd_statistics(path):
    """A ``cat /proc/dasd/statistics`` dump of the Linux s390 DASD driver, as a tidy table.

    The layout is the driver's print routine's (the functions below, read in the kernel
    sources named; 32 buckets per histogram, printed ``"%7d "`` sixteen to a line):

    * Linux 2.4.21 (``drivers/s390/block/dasd.c``, ``dasd_statistics_open``; Red Hat
      Enterprise Linux 3 tree ``dduval/kernel-rhel3``, the driver of the shipped fs03
      sample) and early 2.6 (``drivers/s390/block/dasd_proc.c``,
      ``dasd_statistics_read``; RHEL 4 tree ``dduval/kernel-rhel4``, Linux 2.6.9)::

          <N> dasd I/O requests
          with <S> sectors(512B each)
          __<4 ___8 ... 128k                  (two header lines of 16 bucket labels)
          _256 _512 ... _>4G
          Histogram of sizes (512B secs)
          <16 counts>
          <16 counts>
          ... seven more titled histograms ...

      Counts are printed ``count >> shift`` with the smallest ``shift`` for which
      ``N >> shift <= 9999999`` (not printed: derived here from N).
    * Later 2.6 and current kernels (``drivers/s390/block/dasd_proc.c``,
      ``dasd_stats_proc_show``, torvalds/linux): the same, plus a line
      ``Scale Factor is  <f>`` after the sectors line; counts are printed ``count / f``.

    Sources read (search tool, code corpus): ``dduval/kernel-rhel4`` at 79a07c7f
    (``dasd_statistics_read``, ``dasd_statistics_array``: ``"%7d "``, newline after the
    16th) and ``torvalds/linux`` at c74a7469 (``dasd_stats_proc_show``); the 2.4.21 file
    as recorded in ``zmodel/_data/dasd_statistics.toml`` ([driver]). An older 2.4 layout
    (seven histograms, no sector total, counts shifted above 8192 requests) is not read.

    Lines starting with ``#`` before the request total are comments (the driver prints
    none; a planner may note where and when the dump was taken). The eight titles are
    those of :data:`DASD_DUMP_HISTOGRAMS`, in that order. Each
    histogram's printed counts must add up to the request total (divided by the scale, less
    at most one per bucket lost to the integer division); the queue-length histogram, counted
    at enqueue, may also hold up to 32 requests still in flight.

    Parameters
    ----------
    path : path-like
        The dump (UTF-8 text, a regular file of at most :data:`MAX_MEASUREMENT_BYTES`).

    Returns
    -------
    pandas.DataFrame
        The schema of :func:`dasd_statistics` (``histogram, bucket, lower, upper, unit,
        count``; counts as printed). ``.attrs``: ``source_file`` (name), ``requests`` (N),
        ``sectors`` (S or None), ``scale`` (2**shift or f: multiply a printed count by it
        to estimate the driver's count) and ``layout`` (``"2.4"`` or ``"scale factor"``).

    Raises
    ------
    ValueError
        ``"<file>: line <n>[, column <k>]: <what was expected>"`` for a malformed dump
        (columns are the 1-based fields of the line); ``"<file>: ..."`` for a file that
        is not a readable regular UTF-8 file. "Statistics are off" dumps are refused.

    Examples
    --------
    Ten requests of 8 sectors, each 32..63 us in every time histogram, none queued:

    >>> import tempfile, os
    >>> head = ["__<4 ___8 __16 __32 __64 _128 _256 _512 __1k __2k __4k __8k _16k _32k _64k 128k",
    ...         "_256 _512 __1M __2M __4M __8M _16M _32M _64M 128M 256M 512M __1G __2G __4G _>4G"]
    >>> body = ["10 dasd I/O requests", "with 80 sectors(512B each)"] + head
    >>> for titles, slug, unit in DASD_DUMP_HISTOGRAMS:
    ...     first = [0] * 16; first[{"sectors": 2, "us": 4, "us/sector": 2, "requests": 0}[unit]] = 10
    ...     body += [titles[0], "".join("%7d " % c for c in first), "%7d " * 16 % ((0,) * 16)]
    >>> with tempfile.TemporaryDirectory() as d:
    ...     p = os.path.join(d, "dump.txt")
    ...     _ = open(p, "w").write("\\n".join(body) + "\\n")
    ...     h = read_dasd_statistics(p)
    >>> h.attrs["requests"], h.attrs["scale"], int(h["count"].sum())
    (10, 1, 80)
    """
    import pandas as pd

    path = Path(path)
    lines = _read_user_text(path, "dasd statistics").splitlines()
    number = 0

    def bad(where: str, message: str) -> ValueError:
        return _fail(path, where, message)

    def next_line() -> tuple[int, str | None]:
        nonlocal number
        while number < len(lines):
            number += 1
            if lines[number - 1].strip():
                return number, lines[number - 1]
        return number + 1, None

    n, line = next_line()
    while line is not None and line.lstrip().startswith("#"):   # a planner's notes above the dump
        n, line = next_line()
    if line is None:
        raise bad("line 1", "file is empty; expected '<N> dasd I/O requests' (a /proc/dasd/statistics dump)")
    if line.strip().startswith("Statistics are"):
        raise bad(f"line {n}", "the dump says the statistics are off or not compiled in "
                  "('echo set on > /proc/dasd/statistics', run the workload, then read the file)")
    m = _DASD_REQUESTS_RE.match(line)
    if not m:
        raise bad(f"line {n}", f"expected '<N> dasd I/O requests', got {line.strip()[:60]!r}")
    requests = int(m.group(1))
    if requests < 1:
        raise bad(f"line {n}, column 1", "the dump counts no I/O request")
    sectors, factor = None, None
    n, line = next_line()
    if line is not None and (m := _DASD_SECTORS_RE.match(line)):
        sectors = int(m.group(1))
        n, line = next_line()
    if line is not None and (m := _DASD_SCALE_RE.match(line)):
        factor = int(m.group(1))
        if factor < 1:
            raise bad(f"line {n}, column 4", f"the scale factor must be a positive integer, got {factor}")
        n, line = next_line()
    for first, last in (("__<4", "128k"), ("_256", ">4G")):
        tokens = (line or "").split()
        if len(tokens) != 16 or tokens[0] != first or not tokens[-1].endswith(last):
            raise bad(f"line {n}", f"expected the bucket header line of 16 labels '{first} ... {last}', "
                      f"got {(line or '<end of file>').strip()[:60]!r}")
        n, line = next_line()
    if factor is None:
        shift = 0
        while (requests >> shift) > _DASD_PRINT_LIMIT:
            shift += 1
        scale, layout = 2 ** shift, "2.4"
        expected_total = requests >> shift
    else:
        scale, layout = factor, "scale factor"
        expected_total = requests // factor
    records = []
    for titles, slug, unit in DASD_DUMP_HISTOGRAMS:
        if line is None or " ".join(line.split()) not in titles:
            raise bad(f"line {n}", f"expected the title {titles[0]!r}, got "
                      f"{(line or '<end of file>').strip()[:60]!r}")
        title_line = n
        counts: list[int] = []
        for half in (0, 1):
            n, line = next_line()
            fields = (line or "").split()
            if len(fields) != 16:
                raise bad(f"line {n}", f"expected 16 counts (buckets {16 * half}-{16 * half + 15} of "
                          f"{titles[0]!r}), got " + (f"{len(fields)}" if line is not None else "the end of the file"))
            for k, field in enumerate(fields, start=1):
                if not field.isdigit():
                    raise bad(f"line {n}, column {k}", f"expected a non-negative integer count, got {field!r}")
                counts.append(int(field))
        total = sum(counts)
        low = expected_total - _N_BUCKETS if scale > 1 else expected_total
        high = expected_total + (_N_BUCKETS if slug == "queue_length_at_enqueue" else 0)
        if not low <= total <= high:
            raise bad(f"line {title_line}", f"the counts of {titles[0]!r} add up to {total}, but the dump "
                      f"reports {requests} requests (scale {scale}): expected {low}..{high}")
        lower, upper = dasd_bucket_bounds(unit)
        records += [(slug, k, lower[k], upper[k], unit, c) for k, c in enumerate(counts)]
        n, line = next_line()
    if line is not None:
        raise bad(f"line {n}", f"expected the end of the dump after the eight histograms, got {line.strip()[:60]!r}")
    frame = pd.DataFrame.from_records(records, columns=list(DASD_COLUMNS))
    frame = frame.astype({"histogram": "string", "bucket": "int64", "lower": "float64",
                          "upper": "float64", "unit": "string", "count": "int64"})
    frame.attrs.update(source_file=path.name, requests=requests, sectors=sectors, scale=scale, layout=layout)
    return frame


def read_dasd_measurements(path):
    """A planner's DASD histograms: a ``/proc/dasd/statistics`` dump or a CSV in the shipped schema.

    The format is detected from the first non-blank line: ``<N> dasd I/O requests`` (or
    the driver's "Statistics are ..." notice) is a dump, read by :func:`read_dasd_statistics`;
    a CSV header ``histogram,bucket,lower,upper,unit,count`` is the schema of
    ``zmodel/_data/dasd_statistics.csv``, checked as :func:`dasd_statistics` checks it.
    A catalog-schema CSV (``id, kind, value, unit``) holds no histogram and is refused.

    Returns
    -------
    pandas.DataFrame
        As :func:`read_dasd_statistics` (``.attrs["source_file"]`` always set).

    Raises
    ------
    ValueError
        Naming the file, the line or row and the column.
    """
    path = Path(path)
    text = _read_user_text(path, "dasd statistics")
    first = next((ln for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("#")), "")
    if _DASD_REQUESTS_RE.match(first) or first.strip().startswith("Statistics are"):
        return read_dasd_statistics(path)
    header = [h.strip() for h in next(csv.reader([first]), [])]
    if tuple(header) == DASD_COLUMNS:
        frame = _dasd_table(path)
        frame.attrs.update(source_file=path.name, requests=None, sectors=None, scale=1, layout="csv")
        return frame
    if "id" in header and "kind" in header:
        raise _fail(path, "line 1 (header)", "a catalog-schema CSV (id, kind, value, unit) holds no DASD "
                    "histogram; give a /proc/dasd/statistics dump or a CSV with columns "
                    f"{','.join(DASD_COLUMNS)}")
    raise _fail(path, "line 1", "expected '<N> dasd I/O requests' (a /proc/dasd/statistics dump) or the "
                f"CSV header {','.join(DASD_COLUMNS)}, got {first.strip()[:60]!r}")
