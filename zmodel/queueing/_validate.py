"""Private input checks shared by the queueing solvers.

Every check raises :class:`ValueError` whose message names the parameter and the
rule, e.g. ``"servers must be a positive integer, got 0"``. Inputs may be scalars,
lists, NumPy arrays or pandas Series; :func:`series_index` remembers a Series'
index so that :func:`wrap` can hand results back with it.
"""
from __future__ import annotations

import math
import warnings

import numpy as np

__all__ = [
    "SaturationWarning",
    "as_scalar",
    "as_float_array",
    "as_int_array",
    "as_probability",
    "as_servers",
    "series_index",
    "wrap",
    "warn_saturated",
]


class SaturationWarning(RuntimeWarning):
    """An open queue was offered a load at or above its capacity (rho >= 1).

    The saturation policy of the whole library: such entries get ``inf`` for
    waiting time, response time and queue length, utilization 1 and throughput
    equal to the station's capacity (servers / service_time); the call still
    returns, so that a sweep over load survives its unstable points. One warning
    is emitted per call, stating how many entries saturated.
    """


def _first_bad(mask: np.ndarray):
    idx = np.argwhere(mask)[0]
    return tuple(int(i) for i in idx) if idx.size > 1 else (int(idx[0]) if idx.size else None)


def _describe(arr: np.ndarray, mask: np.ndarray) -> str:
    if arr.ndim == 0:
        return f"got {arr.item()!r}"
    where = _first_bad(mask)
    return f"got {arr[mask].flat[0].item()!r} at index {where}"


def as_float_array(name: str, value, *, positive: bool = False, nonnegative: bool = True,
                   allow_inf: bool = False, min_ndim: int = 0) -> np.ndarray:
    """Return ``value`` as a float ndarray after checking it.

    Raises ``ValueError`` naming ``name`` for NaN, (unless ``allow_inf``) infinite,
    negative (when ``nonnegative``) or non-positive (when ``positive``) entries.
    """
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be numeric, got {value!r}") from None
    if arr.ndim < min_ndim:
        raise ValueError(f"{name} must have at least {min_ndim} dimension(s), got shape {arr.shape}")
    nan = np.isnan(arr)
    if nan.any():
        raise ValueError(f"{name} must not be NaN, {_describe(arr, nan)}")
    if not allow_inf:
        inf = np.isinf(arr)
        if inf.any():
            raise ValueError(f"{name} must be finite, {_describe(arr, inf)}")
    if positive:
        bad = ~(arr > 0)
        if bad.any():
            raise ValueError(f"{name} must be positive, {_describe(arr, bad)}")
    elif nonnegative:
        bad = arr < 0
        if bad.any():
            raise ValueError(f"{name} must be non-negative, {_describe(arr, bad)}")
    return arr


def as_scalar(name: str, value, *, positive: bool = False, allow_inf: bool = False) -> float:
    """Return one number as a float after checking it: a component's scalar parameter.

    Non-negative and finite by default; with ``positive`` it must be > 0 (and finite
    unless ``allow_inf``, which admits +inf, e.g. an unlimited rate). The messages name
    the parameter and the rule: "link_rate must be positive and finite, got 0.0".

    Examples
    --------
    >>> as_scalar("think_time", 0.5)
    0.5
    >>> as_scalar("adapter_rate", float("inf"), positive=True, allow_inf=True)
    inf
    """
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number, got {value!r}") from None
    if positive:
        if math.isnan(v) or v <= 0 or (math.isinf(v) and not allow_inf):
            raise ValueError(f"{name} must be positive{'' if allow_inf else ' and finite'}, got {value!r}")
    elif not (math.isfinite(v) and v >= 0):
        raise ValueError(f"{name} must be non-negative and finite, got {value!r}")
    return v


def as_int_array(name: str, value, *, minimum: int = 0) -> np.ndarray:
    """Return ``value`` as an int64 ndarray of whole numbers >= ``minimum``."""
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be an integer, got {value!r}") from None
    bad = ~np.isfinite(arr) | (arr != np.round(arr))
    if bad.any():
        raise ValueError(f"{name} must be an integer, {_describe(arr, bad)}")
    bad = arr < minimum
    if bad.any():
        rule = "a positive integer" if minimum == 1 else f"an integer >= {minimum}"
        raise ValueError(f"{name} must be {rule}, {_describe(arr, bad)}")
    return arr.astype(np.int64)


def as_probability(name: str, value) -> np.ndarray:
    """Return ``value`` as a float ndarray with every entry in [0, 1]."""
    arr = as_float_array(name, value)
    bad = arr > 1
    if bad.any():
        raise ValueError(f"{name} must be a probability in [0, 1], {_describe(arr, bad)}")
    return arr


def as_servers(value, stations: int, name: str = "servers") -> np.ndarray:
    """Normalise the ``servers`` convention to a float array of length ``stations``.

    ``1`` is a single-server queue, an integer ``k > 1`` is ``k`` identical servers
    and ``math.inf`` is a delay (infinite-server) station. A scalar applies to every
    station; a sequence must have one entry per station.
    """
    arr = np.asarray(value, dtype=float)
    if arr.ndim == 0:
        arr = np.full(stations, float(arr))
    if arr.shape != (stations,):
        raise ValueError(f"{name} must be a scalar or have one entry per station ({stations}), got shape {arr.shape}")
    if np.isnan(arr).any():
        raise ValueError(f"{name} must not be NaN, {_describe(arr, np.isnan(arr))}")
    finite = np.isfinite(arr)
    bad = (arr < 1) | (finite & (arr != np.round(arr))) | (np.isinf(arr) & (arr < 0))
    if bad.any():
        raise ValueError(f"{name} must be a positive integer or math.inf, {_describe(arr, bad)}")
    return arr


def series_index(*values):
    """The index of the first pandas Series among ``values``, else ``None``."""
    for v in values:
        if type(v).__name__ == "Series" and hasattr(v, "index"):
            return v.index
    return None


def wrap(arr, index, name: str | None = None):
    """Return ``arr`` as a pandas Series on ``index`` when an input was a Series.

    Scalars (0-d arrays) come back as Python floats.
    """
    arr = np.asarray(arr)
    if index is not None and arr.ndim == 1 and len(arr) == len(index):
        import pandas as pd

        return pd.Series(arr, index=index, name=name)
    if arr.ndim == 0:
        return float(arr)
    return arr


def warn_saturated(mask, what: str = "open queue", stacklevel: int = 3) -> None:
    """Emit one :class:`SaturationWarning` if any entry of ``mask`` is true."""
    count = int(np.count_nonzero(mask))
    if count:
        warnings.warn(
            f"{count} {what} entr{'y' if count == 1 else 'ies'} saturated (rho >= 1): "
            "waiting time, response time and queue length are inf",
            SaturationWarning,
            stacklevel=stacklevel,
        )


def is_delay(servers: np.ndarray) -> np.ndarray:
    """True where a ``servers`` entry denotes a delay (infinite-server) station."""
    return np.isposinf(servers)
