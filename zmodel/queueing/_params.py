"""Model-owned parameter metadata: a field declares its default, unit, plausible range and provenance once.

A model's cost or parameter dataclass writes each field as ``param(default, unit=...,
range=(lo, hi), source=...)``. Everything else reads that declaration: the docstring-like
:func:`describe` table, the calibration engine's ``Parameters.from_dataclass`` (which turns
the fields into fit parameters, their range into bounds) and ``to_dataclass`` (which maps
fitted values back to an instance). A new cost is therefore written once, in its model.

``source`` says where the default comes from: a seed file and the phrase read, a public
document, or ``"assumed: "`` followed by the reasoning. ``range`` is the plausible physical
interval (inclusive) that bounds a fit and, for the uncertainty of predictions, the span an
assumed parameter is sampled over.

Examples
--------
>>> import dataclasses
>>> @dataclasses.dataclass(frozen=True)
... class Costs:
...     hold: float = param(1e-6, unit="s", range=(0.0, 1e-3), source="assumed: a few hundred instructions")
>>> info = parameter_info(Costs)["hold"]
>>> info.unit, info.range, info.default
('s', (0.0, 0.001), 1e-06)
"""
from __future__ import annotations

import dataclasses
import math
from typing import Any, NamedTuple

__all__ = ["param", "ParamInfo", "parameter_info", "is_parameter_class", "build"]

_KEY = "zmodel.param"


class ParamInfo(NamedTuple):
    """The declaration of one model parameter (see :func:`param`)."""

    name: str
    default: float
    unit: str
    range: tuple[float, float]
    source: str
    owner: str      # the dataclass that declares it
    path: str       # dotted path from the outermost dataclass, e.g. "instruction_costs.purge"


def param(default: float, *, unit: str, range: tuple[float, float], source: str) -> Any:
    """A dataclass field that is a model parameter.

    Parameters
    ----------
    default : float
        Value used when the caller gives none, in ``unit``.
    unit : str
        Unit of the value, e.g. ``"s"``, ``"B"``, ``"1/s"``, ``"1"`` for a pure number.
    range : (float, float)
        Plausible physical interval ``(lo, hi)``, inclusive, containing ``default``.
    source : str
        Provenance of the default: seed file and phrase, a public source, or
        ``"assumed: <reasoning>"``.

    Raises
    ------
    ValueError
        When the unit or source is empty, the range is not ``lo <= default <= hi`` or a bound is NaN.
    """
    if not (isinstance(unit, str) and unit):
        raise ValueError(f"unit must be a non-empty string (use '1' for a pure number), got {unit!r}")
    if not (isinstance(source, str) and source.strip()):
        raise ValueError(f"source must say where the default comes from, got {source!r}")
    try:
        lo, hi = (float(v) for v in range)
    except (TypeError, ValueError):
        raise ValueError(f"range must be a pair of numbers (lo, hi), got {range!r}") from None
    d = float(default)
    if math.isnan(lo) or math.isnan(hi) or not (lo <= d <= hi):
        raise ValueError(f"range must satisfy lo <= default <= hi, got ({lo:g}, {hi:g}) for default {d:g}")
    meta = {_KEY: dict(unit=unit, range=(lo, hi), source=source)}
    return dataclasses.field(default=default, metadata=meta)


def is_parameter_class(cls) -> bool:
    """Whether ``cls`` is a dataclass declaring at least one :func:`param` field."""
    return dataclasses.is_dataclass(cls) and any(_KEY in f.metadata for f in dataclasses.fields(cls))


def parameter_info(cls, prefix: str = "") -> dict[str, ParamInfo]:
    """Name -> :class:`ParamInfo` for every :func:`param` field of ``cls`` and of its nested parameter classes.

    Nested parameter dataclasses (a field whose default is one) are flattened: their
    fields appear under their own names, ``path`` keeps the nesting. A name declared twice
    raises ``ValueError``.
    """
    if not dataclasses.is_dataclass(cls):
        raise ValueError(f"cls must be a dataclass, got {cls!r}")
    cls = cls if isinstance(cls, type) else type(cls)
    out: dict[str, ParamInfo] = {}
    for f in dataclasses.fields(cls):
        meta = f.metadata.get(_KEY)
        if meta is not None:
            out[f.name] = ParamInfo(f.name, float(f.default), meta["unit"], meta["range"], meta["source"],
                                    cls.__name__, prefix + f.name)
            continue
        nested = f.default_factory if f.default_factory is not dataclasses.MISSING else None
        if isinstance(nested, type) and is_parameter_class(nested):
            for name, info in parameter_info(nested, prefix + f.name + ".").items():
                if name in out:
                    raise ValueError(f"parameter {name!r} is declared twice in {cls.__name__}")
                out[name] = info
    return out


def build(cls, values, **overrides):
    """An instance of ``cls`` with its parameter fields (nested ones too) taken from ``values``.

    Parameters
    ----------
    cls : dataclass type
        A class declaring :func:`param` fields.
    values : mapping name -> float
        Values by flat parameter name (as :func:`parameter_info` names them); names that
        are not parameters of ``cls`` are ignored, missing ones keep their default.
    **overrides
        Values that win over ``values`` (e.g. a derived quantity).

    Examples
    --------
    >>> import dataclasses
    >>> @dataclasses.dataclass(frozen=True)
    ... class Costs:
    ...     hold: float = param(1e-6, unit="s", range=(0.0, 1e-3), source="assumed: illustration")
    >>> build(Costs, {"hold": 2e-6, "other": 1.0}).hold
    2e-06
    """
    merged = {**dict(values), **overrides}
    kwargs = {}
    for f in dataclasses.fields(cls):
        if _KEY in f.metadata:
            if f.name in merged:
                kwargs[f.name] = merged[f.name]
        elif f.default_factory is not dataclasses.MISSING and isinstance(f.default_factory, type) \
                and is_parameter_class(f.default_factory):
            kwargs[f.name] = build(f.default_factory, merged)
    return cls(**kwargs)
