"""The hardware catalog: named components' specification values, with provenance, in SI units.

Each family is one table ``zmodel/_data/hardware/<family>.csv`` (one row per parameter of a
named component) with a short ``<family>.toml`` beside it. The columns, in this order:

``name``          catalog name, e.g. ``"DS8300"``
``aliases``       semicolon-separated other names, e.g. ``"2107-922"``
``parameter``     snake_case parameter name, e.g. ``cycle_time``
``value``         the number as printed
``unit``          the unit as printed (``GB``, ``ns``, ``Gbit/s``, ``MB/s``, ``rpm``, ``count`` ...)
``source``        seed file name, or a public specification named precisely
``location``      slide / section / page
``verbatim``      the exact phrase when the value is from a seed document, else ``""``
``in_documents``  ``true`` / ``false``
``notes``         free text

This module reads the tables, checks their schema (a bad file raises :class:`ValueError`
naming the file, the row and the column), converts every value to SI **once** and hands
components a ``dict`` parameter -> SI float. Unit conventions (binding for the hardware
layer): memory and cache sizes ``KB``/``MB``/``GB``/``TB`` are binary (2^10, 2^20, 2^30,
2^40 bytes); data rates ``KB/s``/``MB/s``/``GB/s`` are decimal (1e3, 1e6, 1e9 bytes/s);
link rates ``Mbit/s``/``Gbit/s`` are 1e6/1e9 bit/s; ``rpm`` becomes revolutions per
second; ``ns``/``us``/``ms`` become seconds; ``%`` becomes a fraction; ``count`` is 1.

The tables ship inside the package (``zmodel/_data/``, read through
:mod:`importlib.resources`, see :func:`data_folder`); the environment variable
``ZMODEL_DATA`` overrides that, and every function takes ``data_dir=``.
pandas is imported only by :func:`table`.

Examples
--------
>>> from zmodel.hardware.catalog import component, names
>>> z9 = component("processors", "2094-S18")      # an alias, case-insensitive
>>> round(z9["cycle_time"] * 1e9, 2), z9["l2_cache_size"] == 40 * 2**20
(0.58, True)
>>> "FICON-4G" in names("links")
True
>>> component("links", "ficon-4g")["link_rate"]
4000000000.0
"""
from __future__ import annotations

import atexit
import math
import os
import re
import shutil
import tempfile
from importlib import resources
from pathlib import Path
from zmodel.conventions import read_csv_rows, table_error
from zmodel.units import GiB, KiB, MiB, TiB

__all__ = [
    "COLUMNS",
    "FAMILIES",
    "UNITS",
    "component",
    "data_folder",
    "names",
    "table",
    "to_si",
]

#: Hardware CSV columns, in their required order.
COLUMNS = ("name", "aliases", "parameter", "value", "unit", "source", "location",
           "verbatim", "in_documents", "notes")

#: Family -> the singular words used in messages ("unknown storage server 'X'").
FAMILIES = {
    "processors": "processor",
    "storage_servers": "storage server",
    "links": "link",
    "adapters": "adapter",
    "crypto": "crypto device",
    "channel_cards": "channel card",
}


#: Printed unit -> (factor to SI, SI unit). Sizes binary, rates decimal (module docstring).
UNITS: dict[str, tuple[float, str]] = {
    # plain numbers
    "count": (1.0, "1"), "x": (1.0, "1"), "1": (1.0, "1"), "%": (0.01, "1"),
    # sizes (binary)
    "bytes": (1.0, "B"), "B": (1.0, "B"), "KB": (KiB, "B"), "MB": (MiB, "B"),
    "GB": (GiB, "B"), "TB": (TiB, "B"), "bits": (1.0, "bit"), "bit": (1.0, "bit"),
    # times
    "s": (1.0, "s"), "ms": (1e-3, "s"), "us": (1e-6, "s"), "µs": (1e-6, "s"), "ns": (1e-9, "s"),
    # frequencies and event rates
    "Hz": (1.0, "1/s"), "kHz": (1e3, "1/s"), "MHz": (1e6, "1/s"), "GHz": (1e9, "1/s"),
    "1/s": (1.0, "1/s"), "IO/s": (1.0, "1/s"), "ops/s": (1.0, "1/s"),
    "rpm": (1.0 / 60.0, "1/s"),
    # link rates (decimal bits)
    "bit/s": (1.0, "bit/s"), "kbit/s": (1e3, "bit/s"), "Mbit/s": (1e6, "bit/s"),
    "Gbit/s": (1e9, "bit/s"), "Mbps": (1e6, "bit/s"), "Gbps": (1e9, "bit/s"),
    "Gbaud": (1e9, "bit/s"), "Mbaud": (1e6, "bit/s"),
    # data rates (decimal bytes)
    "B/s": (1.0, "B/s"), "KB/s": (1e3, "B/s"), "MB/s": (1e6, "B/s"), "GB/s": (1e9, "B/s"),
}

_PARAM_RE = re.compile(r"^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$")
_SEED_RE = re.compile(r"^\d{3}_[0-9a-f]+\.txt$")
_CACHE: dict[tuple[str, int, int], dict] = {}


#: The package's data folder, relative to the ``zmodel`` package (a resource path).
PACKAGE_DATA = "_data"
_EXTRACTED: list[Path] = []


def data_folder(data_dir: str | os.PathLike | None = None) -> Path:
    """Folder holding the data tables: the one rule for where the data lives.

    :mod:`zmodel.data` (beside the layers) uses it too. The folder's layout::

        catalog/<doc>.csv, .toml      documented numbers, one file per seed document
        hardware/<family>.csv, .toml  the hardware catalog (this module)
        dasd_statistics.csv, .toml    the fs03 /proc/dasd/statistics sample
        params/parameters.toml        the parameter store (zmodel.store)
        validation/                   figures beyond the documents, never fitted

    Parameters
    ----------
    data_dir : path-like, optional
        Explicit folder with that layout; wins over everything else.

    Returns
    -------
    pathlib.Path
        ``data_dir`` if given, else ``$ZMODEL_DATA`` if set, else the data shipped
        inside the package, ``importlib.resources.files("zmodel") / "_data"`` (for a
        package imported from a zip archive, a copy extracted once per process).

    Examples
    --------
    >>> (data_folder() / "hardware" / "links.csv").is_file()
    True
    """
    if data_dir is not None:
        return Path(data_dir)
    env = os.environ.get("ZMODEL_DATA")
    if env:
        return Path(env)
    return _packaged_data()


def _packaged_data() -> Path:
    """The package's data folder as a file-system path (extracted if the package is zipped)."""
    root = resources.files("zmodel").joinpath(PACKAGE_DATA)
    if isinstance(root, Path):  # an ordinary installation or a checkout
        return root
    if not _EXTRACTED:  # e.g. zipimport: the csv module and stat() need real files
        target = Path(tempfile.mkdtemp(prefix="zmodel-data-"))
        atexit.register(shutil.rmtree, target, ignore_errors=True)
        _copy_tree(root, target)
        _EXTRACTED.append(target)
    return _EXTRACTED[0]


def _copy_tree(source, target: Path) -> None:
    """Copy a :class:`importlib.resources.abc.Traversable` folder to ``target``."""
    for item in source.iterdir():
        if item.is_dir():
            (target / item.name).mkdir()
            _copy_tree(item, target / item.name)
        else:
            (target / item.name).write_bytes(item.read_bytes())


def to_si(value: float, unit: str) -> tuple[float, str]:
    """Convert a printed ``value`` in ``unit`` to SI.

    Parameters
    ----------
    value : float
        The number as printed [unit].
    unit : str
        A key of :data:`UNITS`.

    Returns
    -------
    tuple of (float, str)
        The SI value and its SI unit.

    Examples
    --------
    >>> to_si(32, "MB"), to_si(2, "Gbit/s"), to_si(17, "MB/s"), to_si(15000, "rpm")
    ((33554432.0, 'B'), (2000000000.0, 'bit/s'), (17000000.0, 'B/s'), (250.0, '1/s'))
    """
    try:
        factor, si = UNITS[unit]
    except KeyError:
        raise ValueError(f"unit must be one of {sorted(UNITS)}, got {unit!r}") from None
    return float(value) * factor, si


def _check_family(family: str) -> str:
    if family not in FAMILIES:
        raise ValueError(f"family must be one of {list(FAMILIES)}, got {family!r}")
    return family


_fail = table_error


def _parse(path: Path) -> dict:
    """Read and check one family file; return {'rows': [...], 'components': {...}}."""
    records, components, seen = [], {}, {}
    for number, row in enumerate(read_csv_rows(path, COLUMNS), start=1):
        rec = dict(zip(COLUMNS, row))

        def bad(column: str, message: str) -> ValueError:
            return _fail(path, f"row {number}, column {column!r}", message)

        if not rec["name"].strip():
            raise bad("name", "name must not be empty")
        if not _PARAM_RE.match(rec["parameter"]):
            raise bad("parameter", f"parameter must be snake_case, got {rec['parameter']!r}")
        try:
            value = float(rec["value"])
        except ValueError:
            value = math.nan
        if not math.isfinite(value):
            raise bad("value", f"value must be a finite number, got {rec['value']!r}")
        if rec["unit"] not in UNITS:
            raise bad("unit", f"unit must be one of {sorted(UNITS)}, got {rec['unit']!r}")
        if not rec["source"].strip():
            raise bad("source", "source must name a seed file or a public specification, got ''")
        if rec["in_documents"] not in ("true", "false"):
            raise bad("in_documents", f"in_documents must be 'true' or 'false', got {rec['in_documents']!r}")
        inside = rec["in_documents"] == "true"
        if inside and not _SEED_RE.match(rec["source"]):
            raise bad("source", "a value from the documents must name its seed file "
                                f"(e.g. 002_3ef25dc9d706703e.txt), got {rec['source']!r}")
        if inside and not rec["verbatim"].strip():
            raise bad("verbatim", "verbatim must quote the seed document's phrase when in_documents is true")
        if not inside and rec["verbatim"].strip():
            raise bad("verbatim", f"verbatim must be '' for a value outside the documents, got {rec['verbatim']!r}")
        key = (rec["name"].casefold(), rec["parameter"])
        if key in seen:
            raise bad("parameter", f"duplicate parameter {rec['parameter']!r} of {rec['name']!r} "
                                   f"(first at row {seen[key]})")
        seen[key] = number
        si, si_unit = to_si(value, rec["unit"])
        comp = components.setdefault(rec["name"], {"aliases": set(), "values": {}})
        comp["aliases"].update(a.strip() for a in rec["aliases"].split(";") if a.strip())
        comp["values"][rec["parameter"]] = si
        records.append({**rec, "value_num": value, "value_si": si, "unit_si": si_unit})
    lookup: dict[str, str] = {}
    for name, comp in components.items():
        for label in [name, *sorted(comp["aliases"])]:
            folded = label.casefold()
            other = lookup.get(folded)
            if other is not None and other != name:
                raise _fail(path, "column 'aliases'",
                            f"name or alias {label!r} is used by both {other!r} and {name!r}")
            lookup[folded] = name
    return {"rows": records, "components": components, "lookup": lookup}


#: (family, data_dir, $ZMODEL_DATA, working folder) -> resolved path of the family table
#: (resolving is the slow part of a lookup)
_PATHS: dict[tuple[str, str, str, str], Path] = {}


def _load(family: str, data_dir=None) -> dict:
    where = (family, "" if data_dir is None else os.fspath(data_dir), os.environ.get("ZMODEL_DATA", ""),
             os.getcwd())
    path = _PATHS.get(where)
    if path is None:
        path = (data_folder(data_dir) / "hardware" / f"{_check_family(family)}.csv").resolve()
    try:
        stat = path.stat()
    except FileNotFoundError:
        _PATHS.pop(where, None)
        raise ValueError(f"hardware table not found: {path} (set ZMODEL_DATA or pass data_dir)") from None
    _PATHS[where] = path
    key = (str(path), stat.st_mtime_ns, stat.st_size)   # an edited file is read again
    if key not in _CACHE:
        _CACHE[key] = _parse(path)
    return _CACHE[key]


def names(family: str, *, data_dir=None) -> list[str]:
    """Catalog names of a family, in file order.

    Parameters
    ----------
    family : str
        One of :data:`FAMILIES`.
    data_dir : path-like, optional
        Folder holding ``hardware/``; default :func:`data_folder`.

    Returns
    -------
    list of str
    """
    return list(_load(family, data_dir)["components"])


def canonical_name(family: str, name: str, *, data_dir=None) -> str:
    """The catalog name that ``name`` (a name or alias, any case) stands for.

    Raises ``ValueError`` ``"unknown <family word> '<name>'; known: ..."`` like
    :func:`component`.

    Examples
    --------
    >>> canonical_name("links", "fcp-4g")
    'FCP-4G'
    """
    data = _load(family, data_dir)
    key = str(name).casefold()
    if key not in data["lookup"]:
        raise ValueError(f"unknown {FAMILIES[family]} {name!r}; known: {', '.join(data['components'])}")
    return data["lookup"][key]


def component(family: str, name: str, *, data_dir=None) -> dict[str, float]:
    """The parameters of one named component, converted to SI.

    Parameters
    ----------
    family : str
        One of :data:`FAMILIES`.
    name : str
        Catalog name or alias, case-insensitive.
    data_dir : path-like, optional
        Folder holding ``hardware/``; default :func:`data_folder`.

    Returns
    -------
    dict of str to float
        parameter -> value in SI units (see :data:`UNITS`).

    Raises
    ------
    ValueError
        ``"unknown <family word> '<name>'; known: ..."`` for a name not in the table.
    """
    data = _load(family, data_dir)
    return dict(data["components"][canonical_name(family, name, data_dir=data_dir)]["values"])


def table(family: str, *, data_dir=None):
    """The whole family table with provenance, as a typed DataFrame.

    Parameters
    ----------
    family : str
        One of :data:`FAMILIES`.
    data_dir : path-like, optional
        Folder holding ``hardware/``; default :func:`data_folder`.

    Returns
    -------
    pandas.DataFrame
        The :data:`COLUMNS` (strings, ``in_documents`` boolean) plus ``value_num``
        (the printed number, float), ``value_si`` (float) and ``unit_si``.
    """
    import pandas as pd

    rows = _load(family, data_dir)["rows"]
    frame = pd.DataFrame.from_records(rows, columns=[*COLUMNS, "value_num", "value_si", "unit_si"])
    strings = [c for c in (*COLUMNS, "unit_si") if c != "in_documents"]
    frame = frame.astype({c: "string" for c in strings})
    frame["in_documents"] = frame["in_documents"].astype(str).eq("true")
    return frame.astype({"value_num": "float64", "value_si": "float64"})
