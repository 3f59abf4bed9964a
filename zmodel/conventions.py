r"""The library's one contract for inputs and outputs: checks, vectorising, saturation.

Every zmodel layer (queueing, hardware, kernel) and everything beside them checks its
inputs and shapes its outputs here, so that a bad value gets the same message wherever
it is given and a result has the same form whichever model computed it. This module
sits below :mod:`zmodel.queueing` and imports no other zmodel module.

Glossary (one meaning per name in every layer)
----------------------------------------------
=====================  ==================================================================
``utilization``        per server, 0..1 [1]
``response_time``      time in the system or network, think time excluded [s]
``waiting_time``       time queued before service starts, service excluded [s]
``queue_length``       mean number at the station, waiting plus in service [1]
``throughput``         completions per second [1/s]
``service_time``       one service of one job at one server [s]
``service_demand``     total service per visit-weighted job at a station, D = V S [s]
``think_time``         delay between a job's completion and its next request [s]
``hold_time``          time a lock (or other serialising resource) is held per acquisition [s]
``population``         number of jobs in a closed class [1]; a component names it after
                       what circulates (``threads``, ``connections``, ``sessions``,
                       ``processes``, ``clients``) and documents it as the population
``servers``            1 = single server, integer k > 1 = k servers, ``math.inf`` = delay
``paths``              channel paths (CHPIDs) a device is reached over [1]
``request_size``       bytes moved by one request (``size`` and ``block_size`` in the
                       storage and channel components, the same quantity) [B]
``arrival_rate``       offered requests per second of an open workload [1/s]
=====================  ==================================================================

Units: SI inside every formula. Bytes are written ``[B]`` (never ``[bytes]``), byte
rates ``[B/s]``, signalling rates ``[bit/s]``, dimensionless quantities ``[1]``; binary and
decimal byte multiples come from :mod:`zmodel.units`.

Checks
------
Each check raises :class:`ValueError` whose message names the parameter and the rule,
e.g. ``"servers must be a positive integer, got 0"``. Booleans and strings are never
numbers. Integers are bounded by :data:`MAX_INTEGER`, the largest integer a float64
holds exactly: beyond it a count cannot be computed with (``10**30`` jobs would silently
become garbage in int64 arithmetic). Inside :func:`key_path` the names are prefixed,
so that a scenario file's key is named: ``"hardware.cpus must be ..."``.

=====================  ====================================================
:func:`as_scalar`      one number, non-negative (or positive) and finite
:func:`as_count`       one whole number in ``[lo, hi]``
:func:`as_fraction`    one number in [0, 1]
:func:`as_choice`      one of a fixed set of strings
:func:`as_flag`        a boolean
:func:`as_float_array` an array (scalar, list, ndarray, Series) of numbers
:func:`as_int_array`   an array of whole numbers
:func:`as_probability` an array of numbers in [0, 1]
:func:`as_servers`     the ``servers`` convention (integer >= 1 or ``math.inf``)
:func:`check_fields`   every field of a frozen parameter dataclass, by the rules above
=====================  ====================================================

Outputs
-------
:func:`vectorized` decorates every public model function and method: a scalar result
comes back as a Python ``float``, a result computed from a pandas Series comes back as
a Series on that index (array fields of a result dataclass too), and saturation inside
the call is reported once (below).

Saturation policy
-----------------
An open queue offered a load at or above its capacity (rho >= 1) does not raise: its
waiting time, response time and queue length are ``inf``, its utilization is 1, its
throughput is its capacity, and exactly one :class:`SaturationWarning` per public call
says how many entries saturated, however many stations or nested models saturated
inside it (:func:`warn_saturated` reports into the outermost :func:`vectorized` call).
:func:`quiet_saturation` drops the reports of a nested computation whose saturation the
caller handles itself.
"""
from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import functools
import math
import numbers
import warnings
from pathlib import Path

import numpy as np

__all__ = [
    "INTERVAL_LEVEL",
    "MAX_INTEGER",
    "SaturationWarning",
    "as_choice",
    "as_count",
    "as_flag",
    "as_float_array",
    "as_fraction",
    "as_int_array",
    "as_probability",
    "as_scalar",
    "as_servers",
    "check_fields",
    "read_csv_rows",
    "table_error",
    "finish",
    "interval",
    "key_path",
    "quiet_saturation",
    "series_index",
    "vectorized",
    "warn_saturated",
    "wrap",
]

#: Largest integer accepted as a count (population, servers, CPUs, paths...): 2**53, the
#: largest integer a float64 represents exactly, so every count survives the float
#: arithmetic of the formulas [1].
MAX_INTEGER = 2 ** 53

#: The level of every prediction interval the library reports (``<quantity>_lo``/``_hi``).
INTERVAL_LEVEL = 0.90

_PREFIX: contextvars.ContextVar[str] = contextvars.ContextVar("zmodel_key_prefix", default="")


class SaturationWarning(RuntimeWarning):
    """An open queue was offered a load at or above its capacity (rho >= 1).

    The saturation policy of the whole library: such entries get ``inf`` for
    waiting time, response time and queue length, utilization 1 and throughput
    equal to the station's capacity (servers / service_time); the call still
    returns, so that a sweep over load survives its unstable points. One warning
    is emitted per call, stating how many entries saturated.
    """


# ----------------------------------------------------------------------------- naming
@contextlib.contextmanager
def key_path(prefix: str):
    """Name parameters by their path in a scenario while the block runs.

    >>> with key_path("hardware"):
    ...     as_count("cpus", 0)
    Traceback (most recent call last):
    ...
    ValueError: hardware.cpus must be a positive integer, got 0
    """
    outer = _PREFIX.get()
    token = _PREFIX.set(f"{outer}{prefix}." if prefix else outer)
    try:
        yield
    finally:
        _PREFIX.reset(token)


def _label(name: str) -> str:
    return f"{_PREFIX.get()}{name}"


def _is_text_or_flag(value) -> bool:
    return isinstance(value, (bool, np.bool_, str, bytes))


def _first_bad(mask: np.ndarray):
    idx = np.argwhere(mask)[0]
    return tuple(int(i) for i in idx) if idx.size > 1 else (int(idx[0]) if idx.size else None)


def _describe(arr: np.ndarray, mask: np.ndarray) -> str:
    if arr.ndim == 0:
        return f"got {arr.item()!r}"
    where = _first_bad(mask)
    return f"got {arr[mask].flat[0].item()!r} at index {where}"


def _to_float_array(name: str, value) -> np.ndarray:
    """``value`` as a float ndarray; booleans, strings and objects are not numbers."""
    if type(value) is float or (type(value) is int and abs(value) <= MAX_INTEGER):
        return np.asarray(value, dtype=float)
    if isinstance(value, np.ndarray) and value.dtype.kind == "f":
        return value
    if _is_text_or_flag(value):
        raise ValueError(f"{_label(name)} must be numeric, got {value!r}")
    try:
        raw = np.asarray(value)
    except (TypeError, ValueError):
        raise ValueError(f"{_label(name)} must be numeric, got {value!r}") from None
    if raw.dtype.kind not in "iuf":
        if raw.dtype.kind == "O":  # Python ints beyond int64, Decimals, mixed lists
            try:
                with np.errstate(over="raise"):
                    raw = np.array([float(v) if isinstance(v, numbers.Real) and not _is_text_or_flag(v)
                                    else _not_numeric(name, value) for v in raw.ravel()]).reshape(raw.shape)
            except (TypeError, ValueError, OverflowError):
                raise ValueError(f"{_label(name)} must be numeric, got {value!r}") from None
        else:  # booleans, text, complex, dates
            raise ValueError(f"{_label(name)} must be numeric, got {value!r}")
    if raw.dtype.kind == "u" and raw.dtype.itemsize == 8:
        raw = raw.astype(float)
    return np.asarray(raw, dtype=float)


def _one_number(name: str, value, what: str) -> float:
    """``value`` as one float; booleans, text and non-numbers refused as ``what``."""
    if type(value) is float:
        return value
    if _is_text_or_flag(value):
        raise ValueError(f"{_label(name)} must be {what}, got {value!r}")
    if np.ndim(value) > 0:
        raise ValueError(f"{_label(name)} must be a scalar ({what}), got shape {np.shape(value)}")
    try:
        return float(value)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"{_label(name)} must be {what}, got {value!r}") from None


def _not_numeric(name, value):
    raise ValueError(f"{_label(name)} must be numeric, got {value!r}")


# ----------------------------------------------------------------------------- checks
def as_float_array(name: str, value, *, positive: bool = False, nonnegative: bool = True,
                   allow_inf: bool = False, min_ndim: int = 0) -> np.ndarray:
    """Return ``value`` as a float ndarray after checking it.

    Raises ``ValueError`` naming ``name`` for booleans or text, NaN, (unless
    ``allow_inf``) infinite, negative (when ``nonnegative``) or non-positive (when
    ``positive``) entries.

    >>> as_float_array("service_time", [0.1, 0.2])
    array([0.1, 0.2])
    >>> as_float_array("service_time", [0.1, -1])
    Traceback (most recent call last):
    ...
    ValueError: service_time must be non-negative, got -1.0 at index 1
    """
    arr = _to_float_array(name, value)
    if arr.ndim < min_ndim:
        raise ValueError(f"{_label(name)} must have at least {min_ndim} dimension(s), got shape {arr.shape}")
    if arr.ndim == 0:   # one number: the same rules on a Python float (no array reductions)
        v = float(arr)
        if (v > 0 if positive else (v >= 0 if nonnegative else v == v)) and (allow_inf or math.isfinite(v)):
            return arr
    elif arr.size and np.isfinite(arr).all() and (not (positive or nonnegative)
                                                 or (arr.min() > 0 if positive else arr.min() >= 0)):
        return arr
    nan = np.isnan(arr)
    if nan.any():
        raise ValueError(f"{_label(name)} must not be NaN, {_describe(arr, nan)}")
    if not allow_inf:
        inf = np.isinf(arr)
        if inf.any():
            raise ValueError(f"{_label(name)} must be finite, {_describe(arr, inf)}")
    if positive:
        bad = ~(arr > 0)
        if bad.any():
            raise ValueError(f"{_label(name)} must be positive, {_describe(arr, bad)}")
    elif nonnegative:
        bad = arr < 0
        if bad.any():
            raise ValueError(f"{_label(name)} must be non-negative, {_describe(arr, bad)}")
    return arr


def as_scalar(name: str, value, *, positive: bool = False, allow_inf: bool = False,
              maximum: float | None = None) -> float:
    """Return one number as a float after checking it: a component's scalar parameter.

    Non-negative and finite by default; with ``positive`` it must be > 0 (and finite
    unless ``allow_inf``, which admits +inf, e.g. an unlimited rate); with ``maximum``
    it must not exceed it. The messages name the parameter and the rule:
    "link_rate must be positive and finite, got 0.0".

    Examples
    --------
    >>> as_scalar("think_time", 0.5)
    0.5
    >>> as_scalar("adapter_rate", float("inf"), positive=True, allow_inf=True)
    inf
    >>> as_scalar("think_time", True)
    Traceback (most recent call last):
    ...
    ValueError: think_time must be a number, got True
    """
    v = _one_number(name, value, "a number")
    if positive:
        if math.isnan(v) or v <= 0 or (math.isinf(v) and not allow_inf):
            raise ValueError(f"{_label(name)} must be positive{'' if allow_inf else ' and finite'}, got {value!r}")
    elif not (math.isfinite(v) and v >= 0):
        raise ValueError(f"{_label(name)} must be non-negative and finite, got {value!r}")
    if maximum is not None and v > maximum:
        bound = maximum if isinstance(maximum, int) else f"{maximum:g}"
        raise ValueError(f"{_label(name)} must be at most {bound}, got {value!r}")
    return v


def _count_rule(lo: int, hi: int | None) -> str:
    if hi is not None:
        return f"an integer in [{lo}, {hi}]"
    return "a positive integer" if lo == 1 else f"an integer >= {lo}"


def as_count(name: str, value, lo: int = 1, hi: int | None = None) -> int:
    """Return one whole number in ``[lo, hi]`` as an ``int`` (``hi`` defaults to :data:`MAX_INTEGER`).

    Integral floats (``4.0``) are accepted; booleans, strings, fractions, NaN and
    infinities are not. A value above :data:`MAX_INTEGER` is refused with the bound in
    the message.

    >>> as_count("servers", 4.0)
    4
    >>> as_count("paths", 9, 1, 8)
    Traceback (most recent call last):
    ...
    ValueError: paths must be an integer in [1, 8], got 9
    >>> as_count("cpus", 9223372036854775807)
    Traceback (most recent call last):
    ...
    ValueError: cpus must be an integer <= 9007199254740992 (2**53, the largest count represented exactly), got 9223372036854775807
    """
    if type(value) is int and lo <= value <= (MAX_INTEGER if hi is None else min(hi, MAX_INTEGER)):
        return value
    rule = _count_rule(lo, hi)
    if _is_text_or_flag(value) or not isinstance(value, numbers.Real):
        raise ValueError(f"{_label(name)} must be {rule}, got {value!r}")
    if isinstance(value, numbers.Integral):
        v = int(value)
    else:
        f = float(value)
        if not math.isfinite(f) or f != math.floor(f):
            raise ValueError(f"{_label(name)} must be {rule}, got {value!r}")
        v = int(f)
    if v < lo or (hi is not None and v > hi):
        raise ValueError(f"{_label(name)} must be {rule}, got {value!r}")
    if v > MAX_INTEGER:
        raise ValueError(f"{_label(name)} must be an integer <= {MAX_INTEGER} (2**53, the largest count "
                         f"represented exactly), got {value!r}")
    return v


def as_fraction(name: str, value, *, positive: bool = False) -> float:
    """Return one number in [0, 1] (in (0, 1] with ``positive``) as a float.

    >>> as_fraction("read_fraction", 0.7)
    0.7
    >>> as_fraction("hit_ratio", 1.5)
    Traceback (most recent call last):
    ...
    ValueError: hit_ratio must be in [0, 1], got 1.5
    """
    rule = "(0, 1]" if positive else "[0, 1]"
    v = _one_number(name, value, f"a number in {rule}")
    if not (0 <= v <= 1) or (positive and v == 0):
        raise ValueError(f"{_label(name)} must be in {rule}, got {value!r}")
    return v


def as_choice(name: str, value, allowed) -> str:
    """Return ``value`` if it is one of ``allowed``.

    >>> as_choice("op", "read", ("read", "write"))
    'read'
    """
    if isinstance(value, str) and value in allowed:
        return value
    raise ValueError(f"{_label(name)} must be one of {list(allowed)}, got {value!r}")


def as_flag(name: str, value) -> bool:
    """Return ``value`` as a ``bool``; only ``True``/``False`` are flags (not 0, 1 or "yes")."""
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{_label(name)} must be true or false, got {value!r}")
    return bool(value)


def as_int_array(name: str, value, *, minimum: int = 0, maximum: int = MAX_INTEGER) -> np.ndarray:
    """Return ``value`` as an int64 ndarray of whole numbers in ``[minimum, maximum]``.

    >>> as_int_array("population", [0, 3])
    array([0, 3])
    >>> as_int_array("population", 10**30)
    Traceback (most recent call last):
    ...
    ValueError: population must be an integer <= 9007199254740992 (2**53, the largest count represented exactly), got 1e+30
    """
    if type(value) is int and minimum <= value <= maximum:
        return np.array(value, dtype=np.int64)
    if isinstance(value, np.ndarray) and value.dtype.kind == "i" and value.size:
        if minimum <= value.min() and value.max() <= maximum:
            return value.astype(np.int64)
    if _is_text_or_flag(value):
        raise ValueError(f"{_label(name)} must be an integer, got {value!r}")
    try:
        arr = _to_float_array(name, value)
    except ValueError:
        raise ValueError(f"{_label(name)} must be an integer, got {value!r}") from None
    bad = ~np.isfinite(arr) | (arr != np.round(arr))
    if bad.any():
        raise ValueError(f"{_label(name)} must be an integer, {_describe(arr, bad)}")
    bad = arr < minimum
    if bad.any():
        rule = "a positive integer" if minimum == 1 else f"an integer >= {minimum}"
        raise ValueError(f"{_label(name)} must be {rule}, {_describe(arr, bad)}")
    bad = arr > maximum
    if bad.any():
        rule = (f"an integer <= {MAX_INTEGER} (2**53, the largest count represented exactly)"
                if maximum == MAX_INTEGER else f"an integer <= {maximum}")
        raise ValueError(f"{_label(name)} must be {rule}, {_describe(arr, bad)}")
    return arr.astype(np.int64)


def as_probability(name: str, value) -> np.ndarray:
    """Return ``value`` as a float ndarray with every entry in [0, 1]."""
    arr = as_float_array(name, value)
    bad = arr > 1
    if bad.any():
        raise ValueError(f"{_label(name)} must be a probability in [0, 1], {_describe(arr, bad)}")
    return arr


def as_servers(value, stations: int, name: str = "servers") -> np.ndarray:
    """Normalise the ``servers`` convention to a float array of length ``stations``.

    ``1`` is a single-server queue, an integer ``k > 1`` is ``k`` identical servers
    and ``math.inf`` is a delay (infinite-server) station. A scalar applies to every
    station; a sequence must have one entry per station.
    """
    if _is_text_or_flag(value):
        raise ValueError(f"{_label(name)} must be a positive integer or math.inf, got {value!r}")
    arr = _to_float_array(name, value)
    if arr.ndim == 0:
        arr = np.full(stations, float(arr))
    if arr.shape != (stations,):
        raise ValueError(f"{_label(name)} must be a scalar or have one entry per station ({stations}), "
                         f"got shape {arr.shape}")
    if np.isnan(arr).any():
        raise ValueError(f"{_label(name)} must not be NaN, {_describe(arr, np.isnan(arr))}")
    finite = np.isfinite(arr)
    bad = (arr < 1) | (finite & (arr != np.round(arr))) | (np.isinf(arr) & (arr < 0))
    if bad.any():
        raise ValueError(f"{_label(name)} must be a positive integer or math.inf, {_describe(arr, bad)}")
    bad = finite & (arr > MAX_INTEGER)
    if bad.any():
        raise ValueError(f"{_label(name)} must be an integer <= {MAX_INTEGER} (2**53, the largest count "
                         f"represented exactly) or math.inf, {_describe(arr, bad)}")
    return arr


def check_fields(obj, *, counts=None, fractions=(), flags=(), skip=(), positive: bool = False) -> None:
    """Check and normalise every field of a frozen parameter dataclass in place.

    ``counts`` maps a field to its minimum (:func:`as_count`), ``fractions`` are in
    [0, 1] (:func:`as_fraction`), ``flags`` are booleans (:func:`as_flag`); every other
    field annotated ``float`` or holding a number is :func:`as_scalar` (positive with
    ``positive``). Fields in ``skip`` (components, text) are left alone.

    >>> @dataclasses.dataclass(frozen=True)
    ... class Costs:
    ...     hold_time: float = 1e-6
    ...     def __post_init__(self):
    ...         check_fields(self)
    >>> Costs(hold_time=-1)
    Traceback (most recent call last):
    ...
    ValueError: hold_time must be non-negative and finite, got -1
    """
    counts = counts or {}
    plan = _field_plan(type(obj), tuple(counts.items()), tuple(fractions), tuple(flags), tuple(skip))
    for name, kind, lo in plan:
        value = getattr(obj, name)
        if kind in ("float", "number"):
            if type(value) is float and math.isfinite(value) and (value > 0 if positive else value >= 0):
                continue   # what as_scalar would return, unchanged
            if kind == "number" and not isinstance(value, (numbers.Real, np.floating)):
                continue
            value = as_scalar(name, value, positive=positive)
        elif kind == "flag":
            value = as_flag(name, value)
        elif kind == "count":
            value = as_count(name, value, lo)
        else:
            value = as_fraction(name, value)
        object.__setattr__(obj, name, value)


@functools.lru_cache(maxsize=None)
def _field_plan(cls, counts: tuple, fractions: tuple, flags: tuple, skip: tuple) -> tuple:
    """What :func:`check_fields` does with each field of ``cls``: computed once per class and rule set.

    ``(name, kind, minimum)`` with kind "flag", "count", "fraction", "float" (annotated
    float: always a scalar) or "number" (a scalar when the value is a number).
    """
    counts = dict(counts)
    out = []
    for f in dataclasses.fields(cls):
        if f.name in skip:
            continue
        if f.name in flags:
            out.append((f.name, "flag", 0))
        elif f.name in counts:
            out.append((f.name, "count", counts[f.name]))
        elif f.name in fractions:
            out.append((f.name, "fraction", 0))
        elif f.type in ("float", float):
            out.append((f.name, "float", 0))
        else:
            out.append((f.name, "number", 0))
    return tuple(out)


def is_delay(servers: np.ndarray) -> np.ndarray:
    """True where a ``servers`` entry denotes a delay (infinite-server) station."""
    return np.isposinf(servers)


# ----------------------------------------------------------------------------- outputs
def series_index(*values):
    """The index of the first pandas Series among ``values``, else ``None``."""
    for v in values:
        if type(v).__name__ == "Series" and hasattr(v, "index"):
            return v.index
    return None


def wrap(arr, index, name: str | None = None):
    """Return ``arr`` as a pandas Series on ``index`` when an input was a Series.

    Scalars (0-d arrays) come back as Python floats; other arrays unchanged.
    """
    if type(arr).__name__ == "Series":
        return arr
    arr = np.asarray(arr)
    if index is not None and arr.ndim == 1 and len(arr) == len(index):
        import pandas as pd

        return pd.Series(arr.astype(float) if arr.dtype.kind in "iub" else arr, index=index, name=name)
    if arr.ndim == 0:
        return float(arr)
    return arr


def _needs_finish(value, index) -> bool:
    """True for a NumPy scalar or 0-d array (to become a float) or, with an index, a 1-d array."""
    if isinstance(value, np.ndarray):
        return value.dtype.kind in "fiu" and (value.ndim == 0 or (index is not None and value.ndim == 1)
                                              or value.dtype.kind in "iu")
    return isinstance(value, (np.floating, np.integer))


def _is_numeric(value) -> bool:
    if isinstance(value, (bool, np.bool_, str)) or value is None:
        return False
    if isinstance(value, np.ndarray):
        return value.dtype.kind in "fiu"
    return isinstance(value, (float, np.floating, np.integer))


#: field types :func:`finish` leaves alone without looking further
_FINISHED = frozenset({float, int, bool, str, type(None), tuple})


@functools.lru_cache(maxsize=None)
def _field_names(cls) -> tuple[str, ...]:
    """The field names of a dataclass (once per class)."""
    return tuple(f.name for f in dataclasses.fields(cls))


def finish(result, index):
    """Shape a model's raw output by the library's contract (see :func:`vectorized`).

    Array and NumPy-scalar fields of a result dataclass (or a bare array) become Python
    floats when 0-d and Series on ``index`` when one-dimensional along it; text, flags,
    Python ints and nested objects are left alone.
    """
    if dataclasses.is_dataclass(result) and not isinstance(result, type):
        changes = {}
        for name in _field_names(type(result)):
            v = getattr(result, name)
            if type(v) in _FINISHED:   # Python numbers, text, None: as they are
                continue
            if _needs_finish(v, index) and (w := wrap(v, index, name)) is not v:
                changes[name] = w
        if not changes:
            return result
        try:  # results are frozen dataclasses without __post_init__: set the fields in place
            for name, w in changes.items():
                object.__setattr__(result, name, w)
            return result
        except (AttributeError, TypeError):
            return dataclasses.replace(result, **changes)
    if _is_numeric(result):
        return wrap(result, index)
    return result


class _Collector:
    def __init__(self):
        self.counts: dict[str, int] = {}
        self.quiet = False

    def add(self, count: int, what: str) -> None:
        if not self.quiet:
            self.counts[what] = self.counts.get(what, 0) + count


_COLLECTOR: contextvars.ContextVar[_Collector | None] = contextvars.ContextVar("zmodel_saturation",
                                                                            default=None)


def _message(counts: dict[str, int]) -> str:
    parts = [f"{n} {what} entr{'y' if n == 1 else 'ies'}" for what, n in counts.items()]
    return (f"{', '.join(parts)} saturated (rho >= 1): waiting time, response time and queue "
            "length are inf")


def warn_saturated(mask, what: str = "open queue", stacklevel: int = 3) -> None:
    """Report the entries of ``mask`` that saturated (the library's saturation policy).

    Inside a :func:`vectorized` call the report joins that call's single warning;
    outside one, one :class:`SaturationWarning` is emitted at once.
    """
    count = int(np.count_nonzero(mask))
    if not count:
        return
    collector = _COLLECTOR.get()
    if collector is not None:
        collector.add(count, what)
        return
    warnings.warn(_message({what: count}), SaturationWarning, stacklevel=stacklevel)


@contextlib.contextmanager
def quiet_saturation():
    """Drop the saturation reports of the computation in the block (the caller handles them)."""
    quiet = _Collector()
    quiet.quiet = True
    token = _COLLECTOR.set(quiet)
    try:
        yield
    finally:
        _COLLECTOR.reset(token)


_BROADCAST_ERRORS = ("shape mismatch", "could not be broadcast", "operands could not")


def _is_broadcast_error(exc: ValueError) -> bool:
    return any(text in str(exc) for text in _BROADCAST_ERRORS)


def _broadcast_message(func, args, kwargs) -> str:
    """Name the batched arguments of a call whose batches do not broadcast."""
    import inspect

    try:
        bound = inspect.signature(func).bind(*args, **kwargs).arguments
    except TypeError:
        bound = dict(enumerate(args), **kwargs)
    shapes = [f"{_label(str(k))} {np.shape(v)}" for k, v in bound.items()
              if k != "self" and not _is_text_or_flag(v) and np.ndim(v) >= 1]
    return (f"batched arguments must broadcast to one shape (leading axes are the batch), got "
            f"{', '.join(shapes)}")


def vectorized(func):
    """Give a model function (or method) the library's input/output contract.

    * a 0-d result (or 0-d field of a result dataclass) comes back as a Python float;
    * when an argument is a pandas Series, one-dimensional results along it come back as
      Series on its index (the first Series among the arguments gives the index);
    * leading array axes are batches: the function broadcasts them itself, and batches
      that do not broadcast are refused with a ``ValueError`` naming the arguments and
      their shapes (not NumPy's positional "shape mismatch");
    * every saturation reported inside the call, by the function or by the models it
      calls, is emitted as exactly one :class:`SaturationWarning` when the call returns.

    >>> @vectorized
    ... def double(x):
    ...     return 2 * as_float_array("x", x)
    >>> double(1)
    2.0
    """

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        index = series_index(*args, *kwargs.values())
        outer = _COLLECTOR.get()
        if outer is not None:  # nested: the outermost call reports
            return finish(func(*args, **kwargs), index)
        collector = _Collector()
        token = _COLLECTOR.set(collector)
        try:
            result = func(*args, **kwargs)
        except ValueError as exc:
            if not _is_broadcast_error(exc):
                raise
            raise ValueError(_broadcast_message(func, args, kwargs)) from None
        finally:
            _COLLECTOR.reset(token)
        if collector.counts:
            warnings.warn(_message(collector.counts), SaturationWarning, stacklevel=2)
        return finish(result, index)

    wrapper.__zmodel_vectorized__ = True
    return wrapper


# --------------------------------------------------------------------------- data tables
def table_error(path, where: str, message: str) -> ValueError:
    """The one form of a data-file error: ``"<file>: <where>: <message>"`` (where = line/row and column)."""
    return ValueError(f"{Path(path).name}: {where}: {message}")


def read_csv_rows(path, columns: tuple[str, ...]) -> list[list[str]]:
    """Rows of a UTF-8 CSV file after checking its header and each row's field count.

    The header must be exactly ``columns`` in order; every error is a ``ValueError`` of
    :func:`table_error` naming the file, the line or row, and the column.

    Examples
    --------
    >>> import tempfile, os
    >>> with tempfile.TemporaryDirectory() as d:
    ...     p = os.path.join(d, "t.csv")
    ...     _ = open(p, "w").write("a,b;1,2;3;".replace(";", chr(10)))
    ...     read_csv_rows(p, ("a", "b"))
    Traceback (most recent call last):
    ...
    ValueError: t.csv: row 2, column 'b': has 1 fields, expected 2
    """
    import csv

    path = Path(path)
    try:
        with open(path, newline="", encoding="utf-8") as handle:
            rows = list(csv.reader(handle))
    except UnicodeDecodeError as exc:
        raise table_error(path, "file", f"is not valid UTF-8 ({exc})") from None
    if not rows:
        raise table_error(path, "line 1 (header)", f"file is empty; expected the header {list(columns)}")
    header = rows[0]
    if tuple(header) != tuple(columns):
        missing = [c for c in columns if c not in header]
        extra = [c for c in header if c not in columns]
        first = next((i for i, (a, b) in enumerate(zip(header, columns)) if a != b),
                     min(len(header), len(columns)))
        col = columns[first] if first < len(columns) else header[first]
        raise table_error(
            path, f"line 1 (header), column {col!r}",
            f"header must be exactly {list(columns)} in this order, got {header}"
            + (f" (missing {missing})" if missing else "")
            + (f" (unexpected {extra})" if extra else ""),
        )
    body = rows[1:]
    for number, row in enumerate(body, start=1):
        if len(row) != len(columns):
            col = columns[len(row)] if len(row) < len(columns) else f"#{len(row)}"
            raise table_error(path, f"row {number}, column {col!r}", f"has {len(row)} fields, expected {len(columns)}")
    return body


def interval(values, axis: int = 0, level: float = INTERVAL_LEVEL):
    """Equal-tailed ``level`` interval of sampled values: ``(lo, hi)`` quantiles along ``axis``.

    The ``inverted_cdf`` quantile (an observed draw, no interpolation), so that the same seeded
    draws give the same interval bit for bit.

    >>> lo, hi = interval(range(1, 101))     # the 5th and 95th of 100 draws
    >>> int(lo), int(hi)
    (5, 95)
    """
    import numpy as np

    tail = (1.0 - level) / 2
    lo = np.quantile(values, tail, axis=axis, method="inverted_cdf")
    hi = np.quantile(values, 1.0 - tail, axis=axis, method="inverted_cdf")
    return (lo[()], hi[()]) if np.ndim(lo) == 0 else (lo, hi)
