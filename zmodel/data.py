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
    "expressible", "missing", "notes",
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
    import tomllib

    root = data_folder(data_dir)
    folder = root / "catalog"
    order = {doc: i for i, doc in enumerate(DOCUMENTS)}
    result: dict[str, dict] = {}
    for path in sorted(folder.glob("*.toml"), key=lambda p: (order.get(p.stem, len(order)), p.name)):
        try:
            meta = tomllib.loads(path.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as exc:
            raise _fail(path, "file", f"is not valid TOML ({exc})") from None
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
    import tomllib

    import pandas as pd

    root = data_folder(data_dir)
    path = root / "dasd_statistics.csv"
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
    meta_path = path.with_suffix(".toml")
    if meta_path.exists():
        try:
            frame.attrs["metadata"] = tomllib.loads(meta_path.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as exc:
            raise _fail(meta_path, "file", f"is not valid TOML ({exc})") from None
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
    import tomllib

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
    meta_path = path.with_suffix(".toml")
    if meta_path.exists():
        try:
            frame.attrs["metadata"] = tomllib.loads(meta_path.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as exc:
            raise _fail(meta_path, "file", f"is not valid TOML ({exc})") from None
    return frame


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
