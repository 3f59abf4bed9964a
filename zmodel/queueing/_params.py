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

``prior`` (optional) is a public specification of the value with a stated uncertainty, a
:class:`Prior`: log-normal, ``log(value) ~ N(log(prior.value), prior.sigma**2)``. The
calibration engine adds it to the least squares as one penalty residual per free parameter
(:mod:`zmodel.calibration`, "Priors") and reports a fitted value outside the prior's 95 %
interval as a conflict. Declare a prior only where the specification is real and its
source is stated (title, publisher, year, document number, page); an assumption is not a
prior.

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

__all__ = ["param", "Prior", "prior", "ParamInfo", "parameter_info", "is_parameter_class", "build"]

_KEY = "zmodel.param"

#: two-sided 95 % quantile of the standard normal, to 10 digits (Abramowitz & Stegun 1964, Table 26.1)
Z95 = 1.959963985


class Prior(NamedTuple):
    """A public specification of a positive parameter, with a log-normal uncertainty.

    ``log(x) ~ N(log(value), sigma**2)``: ``sigma`` is the standard deviation of the
    natural logarithm (about the relative uncertainty when small). The 95 % interval is
    ``value * exp(-/+ 1.96 sigma)``. Build it with :func:`prior`, which checks the fields.
    """

    value: float    # the specification's value, in the parameter's unit
    sigma: float    # standard deviation of log(value) [1]
    source: str     # title, publisher, year, document number, page; and why this sigma

    @property
    def interval(self) -> tuple[float, float]:
        """The 95 % interval ``value * exp(-/+ 1.96 sigma)``, in the parameter's unit."""
        return (self.value * math.exp(-Z95 * self.sigma), self.value * math.exp(Z95 * self.sigma))


def prior(value: float, *, source: str, sigma: float | None = None, factor: float | None = None) -> Prior:
    """A checked :class:`Prior`: a specification value with its log-normal uncertainty.

    Parameters
    ----------
    value : float
        The specification's value, positive, in the parameter's unit.
    source : str
        Where the value comes from (title, publisher, year, document number, page) and why
        the uncertainty is what it is.
    sigma : float, optional
        Standard deviation of ``log(value)`` [1], positive.
    factor : float, optional
        Instead of ``sigma``: the 95 % interval is ``[value/factor, value*factor]``
        (``sigma = ln(factor) / 1.96``); must exceed 1.

    Raises
    ------
    ValueError
        For a value that is not positive and finite, a sigma that is not positive and
        finite, a factor not above 1, both or neither of sigma/factor, or an empty source.

    Examples
    --------
    >>> p = prior(100.0, factor=2.0, source="illustration")
    >>> [round(v, 9) for v in p.interval]
    [50.0, 200.0]
    """
    v = float(value)
    if not (math.isfinite(v) and v > 0):
        raise ValueError(f"prior value must be positive and finite (the prior is log-normal), got {value!r}")
    if not (isinstance(source, str) and source.strip()):
        raise ValueError(f"prior source must say where the specification comes from, got {source!r}")
    if (sigma is None) == (factor is None):
        raise ValueError("prior needs exactly one of sigma (of the log) or factor (95 % interval), "
                         f"got sigma={sigma!r}, factor={factor!r}")
    if factor is not None:
        f = float(factor)
        if not (math.isfinite(f) and f > 1.0):
            raise ValueError(f"prior factor must be finite and greater than 1, got {factor!r}")
        s = math.log(f) / Z95
    else:
        s = float(sigma)
        if not (math.isfinite(s) and s > 0):
            raise ValueError(f"prior sigma must be positive and finite, got {sigma!r}")
    return Prior(v, s, source)


class ParamInfo(NamedTuple):
    """The declaration of one model parameter (see :func:`param`)."""

    name: str
    default: float
    unit: str
    range: tuple[float, float]
    source: str
    owner: str      # the dataclass that declares it
    path: str       # dotted path from the outermost dataclass, e.g. "instruction_costs.purge"
    prior: Prior | None = None   # a public specification with its uncertainty, if any


def param(default: float, *, unit: str, range: tuple[float, float], source: str,
          prior: Prior | None = None) -> Any:
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
    prior : Prior, optional
        A public specification of the value with its uncertainty (:func:`prior`); its
        value must lie inside ``range`` and ``range`` must be positive (log-normal).

    Raises
    ------
    ValueError
        When the unit or source is empty, the range is not ``lo <= default <= hi`` or a bound
        is NaN, or the prior is not a :class:`Prior` inside a positive range.
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
    if prior is not None:
        check_prior(prior, lo, hi)
    meta = {_KEY: dict(unit=unit, range=(lo, hi), source=source, prior=prior)}
    return dataclasses.field(default=default, metadata=meta)


def check_prior(spec, lo: float, hi: float) -> None:
    """Raise ``ValueError`` unless ``spec`` is a :class:`Prior` whose value lies in ``[lo, hi]``, ``lo > 0``."""
    if not isinstance(spec, Prior):
        raise ValueError(f"prior must be a Prior (use zmodel.queueing._params.prior), got {spec!r}")
    if not lo > 0:
        raise ValueError(f"prior needs a positive lower bound (it is log-normal), got bounds [{lo:g}, {hi:g}]")
    if not (lo <= spec.value <= hi):
        raise ValueError(f"prior value {spec.value:g} is outside the range [{lo:g}, {hi:g}]")


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
                                    cls.__name__, prefix + f.name, meta.get("prior"))
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
