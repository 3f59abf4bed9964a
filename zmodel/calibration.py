"""Calibration: fit model parameters to documented measurements, the lmfit way.

A model names its calibratable :class:`Parameter` s (value, bounds, fixed or free,
unit, provenance) and says how to predict each measurement id of the catalog. The
engine :func:`calibrate` adjusts the free parameters by weighted, bounded least
squares and returns a :class:`CalibrationResult`: value +/- standard error per
parameter, correlations, a residual table with one row per measurement, flags for
parameters the data cannot identify, and an lmfit-like :meth:`~CalibrationResult.report`.
:func:`cross_validate` refits with each measurement left out in turn.

Measurements are a :class:`pandas.DataFrame` in the catalog format (columns ``id``,
``kind``, ``value_num`` or ``value``, ``unit``), so that
``calibrate(model, zmodel.data.measurements().query(...))`` works directly.

How each kind of measurement enters the fit (``m`` measured, ``p`` predicted;
``scale="relative"``, the default, divides by ``|m|``; ``scale="absolute"`` does not):

=====================================  ==============================================
kind                                   residual
=====================================  ==============================================
absolute, percent, count,              ``(p - m) / |m|``  (absolute: ``p - m``)
configuration, ratio
percent_change                         ``(1 + p/100) / (1 + m/100) - 1``, the relative
                                       error of the implied ratio after/before
                                       (absolute: ``p - m`` in percentage points)
upper_bound, range_high                ``max(0, (p - m)/|m|)``: zero when satisfied
lower_bound, range_low                 ``min(0, (p - m)/|m|)``: zero when satisfied
interval                               zero for ``low <= p <= high``; below, the value
                                       residual against ``low`` (``(p - low)/|low|``);
                                       above, against ``high``
shape                                  not fitted; a model-supplied boolean check,
                                       reported separately
=====================================  ==============================================

A range is two catalog rows (``range_low`` and ``range_high``): together they give
zero residual inside the interval. An ``interval`` row is one row with its own
``low`` and ``high`` columns: the reading of a verbal statement ("about 384" read as
[345.6, 422.4]); the printed number stays in ``value_num`` for display, and an end may be
infinite (a one-sided reading) but not missing. Like a bound, an interval is *informative*
(judged, shown) whenever a parameter is free, but it counts in the degrees of freedom
only while violated: a satisfied interval says nothing about where inside it the truth
lies. Weights multiply the residual (as in lmfit: ``weight = 1/sigma`` in the residual's
scale).

Where the informative rows do not exceed the free parameters (``dof <= 0``) the
covariance says nothing; :func:`readings_ranges` then refits with each interval row
pinned at its ends and reports each parameter's spread over these admissible readings
(``lo90``/``hi90`` with ``interval_method = "readings range"`` in the parameter table).

Priors. A free parameter whose metadata declares a public specification
(:class:`~zmodel.queueing._params.Prior`: value ``mu``, log-normal ``sigma``) adds one
penalty residual to the least squares:

=====================================  ==============================================
row                                    residual
=====================================  ==============================================
prior of free parameter ``x``          ``(log x - log mu) / sigma`` (weight 1; no
                                       ``scale`` applies)
=====================================  ==============================================

so that the fit maximises the posterior of a log-normal prior times the (Gaussian)
likelihood of the weighted residuals. A prior is a pseudo-observation that always depends
on its parameter: it is counted like an informative row (degrees of freedom =
informative measurement rows + priors - free parameters), its square enters ``chisqr``
(``prior_chisqr`` says how much) and its row enters the Jacobian of the covariance, with
its stated sigma: ``scale_covar`` rescales only the measurement rows, by their own
residuals (``_covariance_with_priors``). A fixed parameter's prior does nothing.
:attr:`CalibrationResult.priors` lists each prior of a free parameter with its 95 %
interval ``mu exp(-/+1.96 sigma)`` and flags
``conflict`` when the fitted value lies outside it: the documents and the specification
disagree (the fitted value is then a compromise, never silently accepted).

Nothing here imports pandas or scipy at module level (``import zmodel`` stays fast).
"""
from __future__ import annotations

import dataclasses
import math
import os
import sys
from collections.abc import Callable, Iterable, Mapping, MutableMapping
from typing import Any, ClassVar

import numpy as np

from zmodel.conventions import as_count
from zmodel.queueing._params import Prior, check_prior
from zmodel.queueing._result import Result

__all__ = [
    "Parameter",
    "Parameters",
    "to_dataclass",
    "Ratio",
    "PercentChange",
    "Model",
    "CalibrationResult",
    "calibrate",
    "cross_validate",
    "cross_validate_many",
    "out_of_sample_log_errors",
    "MultiStart",
    "solve_multistart",
    "starting_points",
    "distinct_minima",
    "fit_report",
    "prepare",
    "solve",
    "identifiability",
    "prior_table",
    "covariance",
    "flag_uncertain",
    "tables",
    "readings_ranges",
    "profile_intervals",
    "nonlinear_parameters",
    "INTERVALS",
    "LINEARITY_TOLERANCE",
    "assumption_elasticities",
    "VALUE_KINDS",
    "FITTED_KINDS",
    "KINDS",
]

#: kinds compared as a single predicted value
VALUE_KINDS = ("absolute", "percent", "count", "configuration", "ratio", "percent_change")
_RANGE_LOW, _RANGE_HIGH = "range_low", "range_high"   # the two rows of one catalog range
_UPPER = ("upper_bound", _RANGE_HIGH)
_LOWER = ("lower_bound", _RANGE_LOW)
#: a verbal statement read as an interval (columns ``low`` and ``high``)
INTERVAL = "interval"
#: kinds judged satisfied/violated (zero residual when satisfied)
_BOUNDS = _UPPER + _LOWER + (INTERVAL,)
#: kinds that enter the least-squares residual vector
FITTED_KINDS = VALUE_KINDS + _BOUNDS
#: the catalog's vocabulary of kinds
KINDS = FITTED_KINDS + ("shape",)


# --------------------------------------------------------------------------- parameters
@dataclasses.dataclass(frozen=True)
class Parameter:
    """One calibratable model parameter: value, physical bounds, free or fixed.

    Parameters
    ----------
    name : str
        Parameter name, unique within a :class:`Parameters` collection.
    value : float
        Current (or initial) value, in the parameter's ``unit``.
    min, max : float
        Physical limits (inclusive); ``-inf``/``inf`` for none.
    vary : bool
        ``True`` for a free parameter, ``False`` for a fixed (spec-sheet) value.
    unit : str
        Unit of ``value``, e.g. ``"s"`` or ``"1/s"`` (SI inside formulas).
    source : str
        Provenance: where the value or the bounds come from.
    stderr : float or None
        Standard error, filled in on the best-fit parameters of a calibration.
    prior : Prior or None
        A public specification with its log-normal uncertainty
        (:func:`zmodel.queueing._params.prior`); a free parameter's prior adds a penalty
        residual to the fit (module docstring, "Priors"). Needs ``min > 0``.

    Examples
    --------
    >>> p = Parameter("service_time", 0.002, min=0.0, unit="s", source="guess")
    >>> p.fixed, p.value
    (False, 0.002)
    """

    name: str
    value: float
    min: float = -math.inf
    max: float = math.inf
    vary: bool = True
    unit: str = ""
    source: str = ""
    stderr: float | None = None
    prior: Prior | None = None

    def __post_init__(self):
        if not isinstance(self.name, str) or not self.name:
            raise ValueError(f"parameter name must be a non-empty string, got {self.name!r}")
        for attr in ("value", "min", "max"):
            v = getattr(self, attr)
            try:
                v = float(v)
            except (TypeError, ValueError):
                raise ValueError(f"parameter {self.name!r}: {attr} must be a number, got {v!r}") from None
            object.__setattr__(self, attr, v)
        if math.isnan(self.min) or math.isnan(self.max):
            raise ValueError(f"parameter {self.name!r}: bounds must not be NaN, got min={self.min}, max={self.max}")
        if self.min > self.max:
            raise ValueError(f"parameter {self.name!r}: min ({self.min:g}) must not exceed max ({self.max:g})")
        if not math.isfinite(self.value):
            raise ValueError(f"parameter {self.name!r}: value must be finite, got {self.value}")
        if not (self.min <= self.value <= self.max):
            raise ValueError(f"parameter {self.name!r}: value {self.value:g} is outside its bounds "
                             f"[{self.min:g}, {self.max:g}]")
        object.__setattr__(self, "vary", bool(self.vary))
        if self.prior is not None:
            try:
                check_prior(self.prior, self.min, self.max)
            except ValueError as e:
                raise ValueError(f"parameter {self.name!r}: {e}") from None

    @property
    def fixed(self) -> bool:
        """``True`` when the parameter is held at its value (a spec-sheet figure)."""
        return not self.vary

    def replace(self, **changes) -> "Parameter":
        """A copy with some fields changed (validated again)."""
        return dataclasses.replace(self, **changes)


class Parameters(MutableMapping):
    """Ordered mapping name -> :class:`Parameter`, like ``lmfit.Parameters``.

    Examples
    --------
    >>> ps = Parameters()
    >>> ps.add("rate", 100.0, min=0.0, unit="1/s")
    >>> ps.add("overhead", 0.5, vary=False, unit="s", source="spec sheet")
    >>> list(ps), ps.valuesdict()
    (['rate', 'overhead'], {'rate': 100.0, 'overhead': 0.5})
    >>> Parameters.from_dict({"a": 1.0, "b": {"value": 2.0, "min": 0.0}})["b"].min
    0.0
    """

    def __init__(self, items: Iterable[Parameter] = ()):
        self._data: dict[str, Parameter] = {}
        for p in items:
            self[p.name] = p

    # mapping protocol
    def __getitem__(self, name: str) -> Parameter:
        try:
            return self._data[name]
        except KeyError:
            raise KeyError(f"no parameter named {name!r}; known: {list(self._data)}") from None

    def __setitem__(self, name: str, param: Parameter) -> None:
        if not isinstance(param, Parameter):
            raise ValueError(f"parameter {name!r} must be a Parameter, got {type(param).__name__}")
        if param.name != name:
            param = param.replace(name=name)
        self._data[name] = param

    def __delitem__(self, name: str) -> None:
        del self._data[name]

    def __iter__(self):
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __repr__(self) -> str:
        inner = ", ".join(f"{p.name}={p.value:g}{'' if p.vary else ' (fixed)'}" for p in self._data.values())
        return f"Parameters({inner})"

    # lmfit-like helpers
    def add(self, name: str, value: float, min: float = -math.inf, max: float = math.inf,
            vary: bool = True, unit: str = "", source: str = "", prior: Prior | None = None) -> None:
        """Add (or replace) a parameter."""
        self[name] = Parameter(name, value, min=min, max=max, vary=vary, unit=unit, source=source, prior=prior)

    def set(self, name: str, **changes) -> None:
        """Change fields of an existing parameter, e.g. ``ps.set("rate", value=3, vary=False)``."""
        self[name] = self[name].replace(**changes)

    def copy(self) -> "Parameters":
        """A shallow copy (parameters themselves are immutable)."""
        return Parameters(self._data.values())

    def valuesdict(self) -> dict[str, float]:
        """``{name: value}`` for all parameters, fixed and free."""
        return {n: p.value for n, p in self._data.items()}

    def free(self) -> list[str]:
        """Names of the varying parameters, in order."""
        return [n for n, p in self._data.items() if p.vary]

    @classmethod
    def from_dict(cls, mapping: Mapping[str, Any]) -> "Parameters":
        """Build from ``{name: value}`` or ``{name: {value=..., min=..., ...}}`` or Parameters."""
        out = cls()
        for name, spec in mapping.items():
            if isinstance(spec, Parameter):
                out[name] = spec
            elif isinstance(spec, Mapping):
                out[name] = Parameter(name, **spec)
            else:
                out[name] = Parameter(name, spec)
        return out

    @classmethod
    def from_dataclass(cls, model_class, free: Iterable[str] = (), values: Mapping[str, Any] | None = None,
                       only: Iterable[str] | None = None, exclude: Iterable[str] = ()) -> "Parameters":
        """Parameters derived from a model's parameter dataclass (fields declared with ``param``).

        Each field (nested parameter dataclasses flattened) becomes a :class:`Parameter`
        with the field's default as value, its plausible range as bounds, its unit and its
        provenance as ``source`` -- as lmfit derives parameters from a model function's
        signature. A new model parameter is therefore declared once, in the model. A
        field's ``prior`` (a public specification) is carried over.

        Parameters
        ----------
        model_class : dataclass type
            A class whose fields are declared with :func:`zmodel.queueing._params.param`.
        free : iterable of str
            Names that vary in the fit; every other parameter is fixed at its value.
        values : mapping name -> value or (value, reading), optional
            A fit's own reading of a parameter, replacing the model default; the reading
            (or "value set by the fit") is put in front of the metadata's provenance.
        only, exclude : iterable of str, optional
            Keep only these names / drop these (e.g. ones the fit derives from others).

        Raises
        ------
        ValueError
            For a name in ``free``, ``values``, ``only`` or ``exclude`` that the class does not declare.

        Examples
        --------
        >>> import dataclasses
        >>> from zmodel.queueing._params import param
        >>> @dataclasses.dataclass(frozen=True)
        ... class Costs:
        ...     hold: float = param(1e-6, unit="s", range=(0.0, 1e-3), source="assumed: illustration")
        ...     size: float = param(4096.0, unit="B", range=(512.0, 65536.0), source="assumed: a page")
        >>> ps = Parameters.from_dataclass(Costs, free={"hold"})
        >>> ps["hold"].max, ps["hold"].vary, ps["size"].vary
        (0.001, True, False)
        >>> to_dataclass(Costs, {"hold": 2e-6, "size": 8192.0}).size
        8192.0
        """
        from zmodel.queueing._params import parameter_info

        info = parameter_info(model_class)
        free, values, exclude = set(free), dict(values or {}), set(exclude)
        keep = list(info) if only is None else list(only)
        for what, names in (("free", free), ("values", values), ("only", keep), ("exclude", exclude)):
            unknown = sorted(set(names) - set(info))
            if unknown:
                raise ValueError(f"{what} names parameters that {getattr(model_class, '__name__', model_class)} "
                                 f"does not declare: {', '.join(unknown)}")
        out = cls()
        for name in keep:
            if name in exclude:
                continue
            i = info[name]
            value, source = i.default, i.source
            if name in values:
                v = values[name]
                value, reading = (v if isinstance(v, tuple) else (v, "value set by the fit"))
                source = f"{reading} (model default {i.default:g}: {i.source})"
            out.add(name, value, min=i.range[0], max=i.range[1], vary=name in free, unit=i.unit, source=source,
                    prior=i.prior)
        return out

    def to_dataclass(self, model_class, **overrides):
        """An instance of ``model_class`` from these values (see :func:`to_dataclass`)."""
        return to_dataclass(model_class, self.valuesdict(), **overrides)

    @classmethod
    def coerce(cls, obj) -> "Parameters":
        """Accept Parameters, a mapping, or an iterable of Parameter."""
        if isinstance(obj, Parameters):
            return obj.copy()
        if isinstance(obj, Mapping):
            return cls.from_dict(obj)
        return cls(obj)


def to_dataclass(model_class, values: Mapping[str, float], **overrides):
    """Map parameter values back to the model's dataclass: the inverse of :meth:`Parameters.from_dataclass`.

    Parameters
    ----------
    model_class : dataclass type
        A class whose fields are declared with :func:`zmodel.queueing._params.param`.
    values : mapping name -> float
        Values by parameter name (a fit's ``params`` dict); names the class does not
        declare are ignored, so one dict may feed several classes; missing ones keep
        their defaults.
    **overrides
        Values that win over ``values`` (quantities a fit derives from others).
    """
    from zmodel.queueing._params import build

    return build(model_class, values, **overrides)


# --------------------------------------------------------------------------- predictions
@dataclasses.dataclass(frozen=True)
class Ratio:
    """A predicted ratio ``numerator / denominator`` (both predictions, same unit)."""

    numerator: float
    denominator: float

    @property
    def value(self) -> float:
        """The ratio [1]."""
        return self.numerator / self.denominator


@dataclasses.dataclass(frozen=True)
class PercentChange:
    """A predicted percent change from ``before`` to ``after``: ``100 (after - before) / before``."""

    before: float
    after: float

    @property
    def value(self) -> float:
        """The percent change [%]."""
        return 100.0 * (self.after - self.before) / self.before


class Model:
    """Base class of calibratable models: parameters plus one predictor per measurement id.

    A predictor is a callable ``f(params) -> float`` taking the dict of all parameter
    values (fixed and free) by name. For ``ratio`` and ``percent_change`` measurements
    it may return a :class:`Ratio` / :class:`PercentChange` (or a 2-tuple, read
    according to the measurement's kind) so that the report shows both predictions.
    Shape claims get a boolean check ``f(params) -> bool``, reported but not fitted.

    Subclasses override :meth:`parameters` and fill ``self.predictors`` (and
    ``self.checks``); ad-hoc models pass them to the constructor.

    Parameters
    ----------
    parameters : Parameters or mapping, optional
        The calibratable parameters (required unless :meth:`parameters` is overridden).
    predictors : mapping id -> callable, optional
        Predictors by measurement id.
    checks : mapping id -> callable, optional
        Boolean checks of ``shape`` measurements by id.
    name : str, optional
        Name shown in reports and error messages.

    Examples
    --------
    >>> m = Model({"a": 2.0, "b": 3.0}, name="toy")
    >>> m.add_predictor("doc.a", lambda p: p["a"])
    >>> m.add_ratio("doc.b-over-a", lambda p: p["b"], lambda p: p["a"])
    >>> m.add_percent_change("doc.a-to-b", lambda p: p["a"], lambda p: p["b"])
    >>> m.predict("doc.b-over-a", {"a": 2.0, "b": 3.0}).value
    1.5
    >>> m.predict(["doc.a", "doc.a-to-b"], {"a": 2.0, "b": 3.0})[1].value
    50.0
    """

    name: str | None = None

    def __init__(self, parameters=None, predictors: Mapping[str, Callable] | None = None,
                 checks: Mapping[str, Callable] | None = None, name: str | None = None):
        self._parameters = None if parameters is None else Parameters.coerce(parameters)
        self.predictors: dict[str, Callable] = dict(predictors or {})
        self.checks: dict[str, Callable] = dict(checks or {})
        if name is not None:
            self.name = name

    def _label(self) -> str:
        return self.name or type(self).__name__

    def parameters(self) -> Parameters:
        """The model's parameters (a fresh copy the caller may change)."""
        if self._parameters is None:
            raise NotImplementedError(f"{self._label()} must define parameters() or be given parameters=")
        return self._parameters.copy()

    # declaring predictions
    def add_predictor(self, id: str, func: Callable[[dict], float]) -> None:
        """Measurement ``id`` is predicted by ``func(params)``."""
        self.predictors[id] = func

    def add_ratio(self, id: str, numerator: Callable[[dict], float],
                  denominator: Callable[[dict], float]) -> None:
        """Measurement ``id`` is the ratio of prediction ``numerator`` to ``denominator``."""
        self.predictors[id] = lambda p: Ratio(numerator(p), denominator(p))

    def add_percent_change(self, id: str, before: Callable[[dict], float],
                           after: Callable[[dict], float]) -> None:
        """Measurement ``id`` is the percent change from prediction ``before`` to ``after``."""
        self.predictors[id] = lambda p: PercentChange(before(p), after(p))

    def add_range(self, low_id: str, high_id: str, func: Callable[[dict], float]) -> None:
        """The range rows ``low_id`` / ``high_id`` bound one prediction ``func`` (zero inside)."""
        self.predictors[low_id] = func
        self.predictors[high_id] = func

    def add_check(self, id: str, func: Callable[[dict], bool]) -> None:
        """Shape claim ``id`` holds when ``func(params)`` is true (reported, not fitted)."""
        self.checks[id] = func

    # protocol used by the engine
    def can_predict(self, id: str) -> bool:
        """Whether this model has a predictor for measurement ``id``."""
        return id in self.predictors

    def predict(self, id, params: Mapping[str, float]):
        """Predict measurement ``id`` (or a list of ids) at parameter values ``params``.

        Raises ``ValueError`` naming the id when the model has no predictor for it.
        """
        if not isinstance(id, str):
            return [self.predict(i, params) for i in id]
        try:
            func = self.predictors[id]
        except KeyError:
            raise ValueError(f"model {self._label()} cannot predict measurement {id!r} "
                             f"(no predictor registered for it)") from None
        return func(dict(params))

    def check(self, id: str, params: Mapping[str, float]) -> bool | None:
        """Evaluate the shape check for ``id``; ``None`` when the model has none."""
        func = self.checks.get(id)
        return None if func is None else bool(func(dict(params)))

    def prefetch(self, values) -> None:
        """Hook: prepare the predictions at several parameter vectors at once (default: nothing).

        The engine calls it with the list of parameter dicts it is about to evaluate -- one
        for a plain evaluation, all the finite-difference steps of a Jacobian together --
        before asking :meth:`predict` row by row. A model whose rows share expensive
        evaluations can solve them for every vector in one batched call and put them in
        :meth:`memo`, where the predictors then find them. It must not change any number:
        the predictors compute the same values without it.
        """

    #: entries kept by :meth:`memo` before it starts afresh
    memo_size: int = 4096

    def memoised(self, key) -> bool:
        """Whether :meth:`memo` holds ``key``."""
        return key in self.__dict__.get("_memo_store", {})

    def memo(self, key, func: Callable[[], Any]):
        """``func()``, computed once per hashable ``key`` (the one cache of the fits' expensive evaluations).

        Predictors of several rows often share one expensive evaluation at the same
        parameter values (a throughput curve, a composed system); keying it by the values it
        depends on computes it once per optimiser step. The store is cleared when it holds
        :attr:`memo_size` entries.

        Examples
        --------
        >>> m = Model({"a": 1.0})
        >>> calls = []
        >>> m.memo(("x", 1.0), lambda: calls.append(1) or 42), m.memo(("x", 1.0), lambda: calls.append(1) or 42)
        (42, 42)
        >>> len(calls)
        1
        """
        store = self.__dict__.setdefault("_memo_store", {})
        try:
            return store[key]
        except KeyError:
            pass
        if len(store) >= self.memo_size:
            store.clear()
        value = store[key] = func()
        return value


# --------------------------------------------------------------------------- measurements
def _measurement_table(measurements):
    """Normalise the catalog-format input to columns id, kind, unit, measured (+quantity)."""
    import pandas as pd

    df = measurements if isinstance(measurements, pd.DataFrame) else pd.DataFrame(measurements)
    missing = [c for c in ("id", "kind") if c not in df.columns]
    if missing:
        raise ValueError(f"measurements must have columns id, kind and value_num (or value); missing {missing}")
    if "value_num" in df.columns:
        measured = pd.to_numeric(df["value_num"], errors="coerce")
    elif "value" in df.columns:
        measured = pd.to_numeric(df["value"], errors="coerce")
    else:
        raise ValueError("measurements must have a value_num or a value column")
    out = pd.DataFrame({
        "id": df["id"].astype(str).to_numpy(),
        "kind": df["kind"].astype(str).to_numpy(),
        "unit": (df["unit"].fillna("").astype(str).to_numpy() if "unit" in df.columns else ""),
        "measured": measured.astype(float).to_numpy(),
    })
    if "quantity" in df.columns:
        out["quantity"] = df["quantity"].fillna("").astype(str).to_numpy()
    for end in ("low", "high"):
        out[end] = (pd.to_numeric(df[end], errors="coerce").astype(float).to_numpy() if end in df.columns
                    else np.full(len(out), math.nan))
    dup = out["id"][out["id"].duplicated()]
    if len(dup):
        raise ValueError(f"measurement ids must be unique; duplicated: {sorted(set(dup))}")
    bad = out.loc[~out["kind"].isin(KINDS)]
    if len(bad):
        r = bad.iloc[0]
        raise ValueError(f"measurement {r['id']!r}: kind must be one of {list(KINDS)}, got {r['kind']!r}")
    nan = out.loc[(out["kind"] != "shape") & ~np.isfinite(out["measured"])]
    if len(nan):
        raise ValueError(f"measured value of {nan['id'].iloc[0]!r} is NaN or not finite "
                         f"(kind {nan['kind'].iloc[0]!r} needs a number); exclude it from the measurements")
    for _, r in out.loc[out["kind"] == INTERVAL].iterrows():
        _check_interval(r["id"], r["low"], r["high"])
    return out


def _check_interval(id_, low, high):
    """The ends of an ``interval`` row: both given (an end may be infinite), low <= high, not both infinite."""
    for name, end in (("low", low), ("high", high)):
        if end is None or math.isnan(end):
            raise ValueError(f"interval {id_!r}: {name} end is missing (columns low and high are required "
                             f"for kind 'interval'; write inf for a one-sided reading)")
    if low > high:
        raise ValueError(f"interval {id_!r}: low ({low:g}) must not exceed high ({high:g})")
    if math.isinf(low) and math.isinf(high):
        raise ValueError(f"interval {id_!r}: at least one end must be finite, got [{low:g}, {high:g}]")


def _weights_for(table, weights):
    """A float array of weights aligned with the table (default 1)."""
    import pandas as pd

    w = np.ones(len(table))
    if weights is None:
        return w
    if isinstance(weights, str):
        raise ValueError("weights must be a mapping or Series id -> weight, got a string")
    mapping = weights.to_dict() if isinstance(weights, pd.Series) else dict(weights)
    pos = {i: k for k, i in enumerate(table["id"])}
    for id_, val in mapping.items():
        if id_ not in pos:
            raise ValueError(f"weights names an unknown measurement id {id_!r}")
        val = float(val)
        if not (math.isfinite(val) and val > 0):
            raise ValueError(f"weight of {id_!r} must be positive and finite, got {val}")
        w[pos[id_]] = val
    return w


def _scales_for(table, scale):
    if isinstance(scale, str):
        scales = {i: scale for i in table["id"]}
    else:
        unknown = [i for i in scale if i not in set(table["id"])]
        if unknown:
            raise ValueError(f"scale names an unknown measurement id {unknown[0]!r}")
        scales = {i: scale.get(i, "relative") for i in table["id"]}
    for i, s in scales.items():
        if s not in ("relative", "absolute"):
            raise ValueError(f"scale must be 'relative' or 'absolute', got {s!r} (for {i!r})")
    return np.array([scales[i] == "relative" for i in table["id"]], dtype=bool)


def _interpret(id_, kind, out):
    """Return (predicted value, part a, part b, is_percent_change_form) from a predictor's output."""
    a = b = math.nan
    pc = kind == "percent_change"
    if isinstance(out, Ratio):
        a, b = float(out.numerator), float(out.denominator)
        value, pc = a / b if b != 0 else math.nan, False
    elif isinstance(out, PercentChange):
        a, b = float(out.before), float(out.after)
        value, pc = 100.0 * (b - a) / a if a != 0 else math.nan, True
    elif isinstance(out, (tuple, list, np.ndarray)) and np.ndim(out) == 1 and len(out) == 2:
        if kind == "ratio":
            return _interpret(id_, kind, Ratio(*out))
        if kind == "percent_change":
            return _interpret(id_, kind, PercentChange(*out))
        raise ValueError(f"predictor for {id_!r} returned two values but kind {kind!r} needs one "
                         f"(return Ratio(a, b) or PercentChange(a, b) to say which)")
    else:
        try:
            value = float(out)
        except (TypeError, ValueError):
            raise ValueError(f"predictor for {id_!r} must return a number, got {out!r}") from None
    if not math.isfinite(value):
        raise ValueError(f"model predicted {value} for measurement {id_!r} (kind {kind!r}); "
                         f"predictions must be finite")
    return value, a, b, pc


def _residual(kind, measured, predicted, relative, pc_form, low=math.nan, high=math.nan):
    """Unweighted residual of one row (see the module docstring)."""
    if kind == INTERVAL:
        if low <= predicted <= high:
            return 0.0
        end = low if predicted < low else high
        return _residual("absolute", end, predicted, relative, pc_form)
    if pc_form and kind not in _UPPER + _LOWER:
        if relative:
            r = (1.0 + predicted / 100.0) / (1.0 + measured / 100.0) - 1.0
        else:
            r = predicted - measured
    else:
        r = (predicted - measured) / abs(measured) if relative else predicted - measured
    if kind in _UPPER:
        return max(r, 0.0)
    if kind in _LOWER:
        return min(r, 0.0)
    return r


# --------------------------------------------------------------------------- result
@dataclasses.dataclass(frozen=True, eq=False)
class CalibrationResult(Result):
    """Outcome of :func:`calibrate` (read :meth:`report` first).

    Attributes
    ----------
    params : Parameters
        Best-fit parameters (``stderr`` filled in for the free ones).
    init_params : Parameters
        The starting parameters.
    parameter_table : pandas.DataFrame
        One row per parameter: value, stderr, ci95_low, ci95_high, lo90/hi90 and
        interval_method (a fit with ``dof <= 0``: the spread over the admissible readings,
        :func:`readings_ranges`; NaN otherwise), given (with a readings range: the
        assumed parameters that range holds for, ``{held: d ln value / d ln held}``,
        :func:`assumption_elasticities`; None otherwise), initial, min, max, vary, at_bound,
        identifiable, unit, source, note.
    correlations : pandas.DataFrame
        Correlation matrix of the free parameters (NaN where undefined).
    covariance : pandas.DataFrame
        Covariance matrix of the free parameters, in their units.
    residuals : pandas.DataFrame
        One row per fitted-kind measurement: id, kind, unit, measured, low and high (the
        ends of an interval row, else NaN), predicted, predicted_a, predicted_b (the two
        predictions of a ratio/percent change),
        residual (unweighted, fit scale), weight, weighted_residual, percent_error
        (``100 (p - m)/|m|``), satisfied (bound kinds), used_in_fit, informative (the
        prediction depends on a free parameter; False for a configuration echo, see
        :func:`informative_rows`).
    shape_checks : pandas.DataFrame
        One row per shape measurement: id, passed (True/False/None = no check), used_in_fit.
    chisqr : float
        Sum of squared weighted residuals of the measurements used [1].
    n_data : int
        Measurements used in the fit (shape rows excluded).
    n_active : int
        Of these, the rows that constrain the optimum: value kinds and violated bounds whose
        prediction depends on a free parameter (configuration echoes are not counted).
    n_free : int
        Free (varying) parameters.
    dof : int
        ``n_active + n_priors - n_free`` (a prior is a pseudo-observation, module docstring).
    n_priors : int
        Priors of free parameters that entered the fit as penalty rows.
    prior_chisqr : float
        The priors' share of ``chisqr`` (sum of their squared penalty residuals) [1].
    priors : pandas.DataFrame
        One row per prior of a free parameter (:func:`prior_table`): name, unit,
        prior_value, prior_low, prior_high (95 %), sigma_log, fitted, residual
        (``(log fitted - log prior)/sigma``), conflict (fitted outside the 95 % interval:
        the documents and the specification disagree), source.
    multistart : MultiStart or None
        With ``starts > 1``: the starting points, each start's optimum, cost and convergence,
        and the number of distinct minima (:class:`MultiStart`); None for a single start.
    unread : tuple of str
        Free parameters that no informative row (nor a prior) depends on at the optimum: the
        data leave them where the solver put them, so their values say nothing
        (:func:`cross_validate` holds them at their starting values).
    profiles : pandas.DataFrame or None
        With ``calibrate(..., profile=names)``: the profile-likelihood intervals of those
        parameters (:func:`profile_intervals`); None otherwise.
    intervals : str
        The ``intervals`` option of :func:`calibrate` the fit ran with (``"auto"``: profile
        intervals in ``lo90``/``hi90`` where the covariance misrepresents the fit).
    """

    params: Parameters
    init_params: Parameters
    parameter_table: Any
    correlations: Any
    covariance: Any
    residuals: Any
    shape_checks: Any
    chisqr: float
    n_data: int
    n_active: int
    n_free: int
    dof: int
    success: bool
    message: str
    nfev: int
    scale_covar: bool
    model_name: str
    n_priors: int = 0
    prior_chisqr: float = 0.0
    priors: Any = None
    multistart: Any = None
    unread: tuple = ()
    profiles: Any = None
    intervals: str = "covariance"

    trailing_dims: ClassVar[tuple[str, ...]] = ()

    @property
    def cost(self) -> float:
        """``chisqr / 2``, the quantity scipy's least_squares minimises [1]."""
        return 0.5 * self.chisqr

    @property
    def redchi(self) -> float:
        """Reduced chi-square ``chisqr / dof`` (NaN when dof <= 0) [1]."""
        return self.chisqr / self.dof if self.dof > 0 else math.nan

    @property
    def conflicts(self) -> list[str]:
        """Names of free parameters whose fitted value lies outside their prior's 95 % interval."""
        t = self.priors
        return [] if t is None or not len(t) else list(t.index[t["conflict"].astype(bool)])

    @property
    def flagged(self) -> list[str]:
        """Names of parameters that are not identifiable or sit at a bound."""
        t = self.parameter_table
        return list(t.index[(~t["identifiable"]) | t["at_bound"]])

    def to_frame(self, which: str = "parameters"):
        """The parameter table (default), ``"residuals"`` or ``"correlations"`` as a DataFrame."""
        tables = {"parameters": self.parameter_table, "residuals": self.residuals,
                  "correlations": self.correlations, "shape_checks": self.shape_checks,
                  "priors": self.priors if self.priors is not None else prior_table(Parameters(), ())}
        if which not in tables:
            raise ValueError(f"which must be one of {list(tables)}, got {which!r}")
        return tables[which].copy()

    def report(self, min_correl: float = 0.1) -> str:
        """A readable text report, in the manner of lmfit's ``fit_report`` (see :func:`fit_report`)."""
        return fit_report(self, min_correl=min_correl)

    def __str__(self) -> str:
        return self.report()


def fit_report(result: CalibrationResult, min_correl: float = 0.1) -> str:
    """A readable text report of a calibration, in the manner of lmfit's ``fit_report``.

    Sections: the fit statistics, [[Parameters]] (value +/- standard error, 95 % interval,
    initial value, bounds; ``!`` marks a flagged parameter), [[Flags]], [[Correlations]]
    (those of at least ``min_correl``), [[Residuals]] (one row per measurement),
    [[Priors]] (specification, its 95 % interval, fitted value, ``CONFLICT`` when the
    fitted value lies outside) and [[Shape checks]].
    """
    t = result.parameter_table
    n_excl = int((~result.residuals["used_in_fit"]).sum())
    lines = [f"[[Calibration]] {result.model_name}",
             "    method             = least_squares (trf, bounded)",
             f"    success            = {result.success} ({result.message})",
             f"    function evals     = {result.nfev}",
             *([_multistart_line(result.multistart)] if result.multistart is not None else []),
             f"    data points        = {result.n_data} used ({result.n_active} active), {n_excl} excluded, "
             f"{len(result.shape_checks)} shape",
             f"    free parameters    = {result.n_free}",
             *([f"    priors             = {result.n_priors} (pseudo-observations, counted in the degrees "
                f"of freedom)"] if result.n_priors else []),
             f"    degrees of freedom = {result.dof}"
             + ("" if result.dof > 0 or not result.n_free else
                f" ({'exactly determined' if result.dof == 0 else 'under-determined'}: {result.n_active} informative rows "
                f"for {result.n_free} free parameters; ranges over the admissible readings, no standard errors)"),
             f"    chi-square         = {result.chisqr:.6g}",
             f"    reduced chi-square = "
             + (f"{result.redchi:.6g}" if math.isfinite(result.redchi) else
                f"(undefined: {result.dof} degrees of freedom)"),
             "[[Parameters]]"]
    width = max([len(n) for n in t.index] + [4])
    for name, row in t.iterrows():
        head = f"    {name + ':':<{width + 1}} {row['value']:<12.6g}"
        unit = f" [{row['unit']}]" if row["unit"] else ""
        if not row["vary"]:
            body = f"(fixed){unit}"
        else:
            if np.isfinite(row.get("lo90", math.nan)) and np.isfinite(row.get("hi90", math.nan)):
                body = f"range [{row['lo90']:.6g}, {row['hi90']:.6g}] ({row['interval_method']})"
            elif np.isfinite(row["stderr"]):
                rel = abs(row["stderr"] / row["value"]) * 100 if row["value"] != 0 else math.inf
                body = (f"+/- {row['stderr']:<10.4g} ({rel:.2f}%) "
                        f"95% [{row['ci95_low']:.6g}, {row['ci95_high']:.6g}]")
            else:
                body = "+/- (undefined)"
            body += f" (init = {row['initial']:.6g}){unit}"
        bounds = ""
        if np.isfinite(row["min"]) or np.isfinite(row["max"]):
            bounds = f" bounds [{row['min']:g}, {row['max']:g}]"
        mark = " !" if (not row["identifiable"]) or row["at_bound"] else ""
        lines.append(head + body + bounds + mark)
    flagged = [(n, r) for n, r in t.iterrows() if r["note"]]
    if flagged:
        lines.append("[[Flags]]")
        for name, row in flagged:
            lines.append(f"    {name}: {row['note']}")
    corr = result.correlations
    pairs = []
    names = list(corr.index)
    for i in range(len(names)):
        for j in range(i + 1, len(names)):
            c = corr.iat[i, j]
            if np.isfinite(c) and abs(c) >= min_correl:
                pairs.append((abs(c), names[i], names[j], c))
    if pairs:
        lines.append(f"[[Correlations]] (unreported correlations are < {min_correl:.3f})")
        for _, a, b, c in sorted(pairs, reverse=True):
            lines.append(f"    C({a}, {b}) = {c:+.4f}")
    lines.append("[[Residuals]] (percent_error = 100 (predicted - measured) / |measured|)")
    r = result.residuals
    idw = max([len(i) for i in r["id"]] + [2])
    lines.append(f"    {'id':<{idw}} {'kind':<14} {'measured':>12} {'predicted':>12} {'% error':>9}  used")
    for _, row in r.iterrows():
        sat = ""
        if row["kind"] == INTERVAL:
            ends = f"[{row['low']:.6g}, {row['high']:.6g}]"
            sat = f"  (inside {ends})" if row["satisfied"] else f"  (OUTSIDE {ends})"
        elif row["kind"] in _UPPER + _LOWER:
            sat = "  (bound satisfied)" if row["satisfied"] else "  (bound VIOLATED)"
        lines.append(f"    {row['id']:<{idw}} {row['kind']:<14} {row['measured']:>12.6g} "
                     f"{row['predicted']:>12.6g} {row['percent_error']:>9.2f}  "
                     f"{'yes' if row['used_in_fit'] else 'no'}{sat}")
    lines += _prior_lines(result)
    lines += _profile_lines(result)
    if len(result.shape_checks):
        lines.append("[[Shape checks]] (not fitted)")
        for _, row in result.shape_checks.iterrows():
            verdict = {True: "holds", False: "FAILS", None: "no check in model"}[row["passed"]]
            lines.append(f"    {row['id']}: {verdict}")
    return "\n".join(lines)


def _profile_lines(result) -> list[str]:
    """The [[Profile intervals]] section of :func:`fit_report` (empty unless the fit computed them)."""
    t = result.profiles
    if t is None or not len(t):
        return []
    level = float(t["level"].iloc[0])
    lines = [f"[[Profile intervals]] ({100 * level:g} %, F-test of the refit with the parameter held; beside "
             f"the covariance interval of [[Parameters]])"]
    def end(v, at_bound):
        return "not closed" if not math.isfinite(v) else f"{v:.6g}" + (" (range bound)" if at_bound else "")

    for name, row in t.iterrows():
        lines.append(f"    {name}: {row['value']:.6g} in [{end(row['lo'], row['lo_at_bound'])}, "
                     f"{end(row['hi'], row['hi_at_bound'])}] ({int(row['refits'])} refits)")
    return lines


def _prior_lines(result) -> list[str]:
    """The [[Priors]] section of :func:`fit_report` (empty without priors)."""
    t = result.priors
    if t is None or not len(t):
        return []
    lines = [f"[[Priors]] (public specifications, log-normal; {result.n_priors} counted as pseudo-observations, "
             f"chi-square share {result.prior_chisqr:.6g})"]
    width = max(len(n) for n in t.index)
    for name, row in t.iterrows():
        unit = f" [{row['unit']}]" if row["unit"] else ""
        verdict = ("CONFLICT: outside the prior's 95 % interval, documents and specification disagree"
                   if row["conflict"] else "within the prior's 95 % interval")
        lines.append(f"    {name + ':':<{width + 1}} spec {row['prior_value']:.6g} 95% [{row['prior_low']:.6g}, "
                     f"{row['prior_high']:.6g}]{unit}, fitted {row['fitted']:.6g} "
                     f"({row['residual']:+.2f} sigma): {verdict}")
        lines.append(f"    {'':<{width + 1}} source: {row['source']}")
    return lines


# --------------------------------------------------------------------------- priors
def _free_priors(params: Parameters, free) -> tuple:
    """``(index in free, name, Prior)`` for each free parameter with a prior."""
    return tuple((j, n, params[n].prior) for j, n in enumerate(free) if params[n].prior is not None)


def prior_residuals(priors, x) -> np.ndarray:
    """Penalty residuals ``(log x_j - log mu) / sigma`` of the priors at free values ``x`` (module docstring).

    Examples
    --------
    >>> from zmodel.queueing._params import prior
    >>> p = prior(100.0, sigma=0.5, source="illustration")
    >>> float(prior_residuals([(0, "a", p)], [100.0 * np.exp(1.0)])[0])   # one e-fold = 2 sigma
    2.0
    """
    x = np.asarray(x, dtype=float)
    return np.array([(math.log(x[j]) - math.log(p.value)) / p.sigma for j, _, p in priors], dtype=float)


def prior_table(params: Parameters, priors, x=None):
    """One row per prior of a free parameter: specification, 95 % interval, fitted value, conflict flag.

    Parameters
    ----------
    params : Parameters
        The parameters (for units).
    priors : sequence of (index, name, Prior)
        As laid out by :func:`prepare` (``Problem.priors``).
    x : array, optional
        Free values (in their units) to judge; default the specification values.

    Returns
    -------
    pandas.DataFrame
        Indexed by name: unit, prior_value, prior_low, prior_high, sigma_log, fitted,
        residual, conflict (fitted outside ``[prior_low, prior_high]``), source.
    """
    import pandas as pd

    rows = []
    for j, n, p in priors:
        lo, hi = p.interval
        v = float(x[j]) if x is not None else p.value
        r = (math.log(v) - math.log(p.value)) / p.sigma
        rows.append(dict(name=n, unit=params[n].unit if n in params else "", prior_value=p.value, prior_low=lo,
                         prior_high=hi, sigma_log=p.sigma, fitted=v, residual=r,
                         conflict=bool(v < lo or v > hi), source=p.source))
    cols = ["name", "unit", "prior_value", "prior_low", "prior_high", "sigma_log", "fitted", "residual",
            "conflict", "source"]
    return pd.DataFrame(rows, columns=cols).set_index("name")


def _covariance_with_priors(jac, n_priors: int, ok, n_free: int, chisqr: float, prior_chisqr: float, dof: int,
                            scale_covar: bool) -> np.ndarray:
    r"""Covariance when the last ``n_priors`` rows of ``jac`` are priors, whose sigma is stated, not estimated.

    With ``scale_covar`` the measurement rows' unknown scale is estimated from their own
    residuals, :math:`s^2 = \chi^2_\text{data} / \nu` (:math:`\nu` the degrees of freedom,
    priors counted), and only they are scaled:
    :math:`C = (J_d^\mathsf{T} J_d / s^2 + J_p^\mathsf{T} J_p)^{-1}` -- a prior's uncertainty
    is never shrunk or inflated by how well the documents happen to fit. Without priors,
    without ``scale_covar``, with no degree of freedom or a perfect data fit, this is
    :func:`covariance`.
    """
    data_chi = chisqr - prior_chisqr
    if not n_priors or not scale_covar or dof <= 0 or not data_chi > 0:
        return covariance(jac, ok, n_free, chisqr, dof, scale_covar)
    j = np.array(jac, dtype=float)
    j[: len(j) - n_priors] /= math.sqrt(data_chi / dof)
    return covariance(j, ok, n_free, chisqr, dof, scale_covar=False)


def _prior_only_notes(sol, active_used, problem, ident) -> None:
    """Note each free parameter with a prior that no informative measurement moves (its prior alone sets it)."""
    jac = np.asarray(sol.jacobian)
    for j, n, _ in problem.priors:
        col = jac[active_used, j] if jac.ndim == 2 and jac.shape[1] > j else np.zeros(0)
        if not np.any(col != 0.0):
            ident.notes[n].append("set by its prior alone: no informative measurement depends on it")


# --------------------------------------------------------------------------- engine
def _validate_params(params: Parameters):
    for p in params.values():
        if p.vary and p.min == p.max:
            raise ValueError(f"parameter {p.name!r} varies but has min == max ({p.min:g}); fix it (vary=False)")


def _rows_of(table) -> list:
    """``(id, kind, measured, low, high)`` of each row of a fitted-kind table (read once per solve)."""
    n = len(table)
    lows = table["low"] if "low" in table else np.full(n, math.nan)
    highs = table["high"] if "high" in table else np.full(n, math.nan)
    return list(zip(table["id"], table["kind"], table["measured"], lows, highs))


def _evaluate(model, rows, values, relative):
    """Predict every fitted-kind row (:func:`_rows_of` a table); return arrays (pred, a, b, residual)."""
    n = len(rows)
    if hasattr(model, "prefetch"):
        model.prefetch([values])
    pred, pa, pb, res = (np.full(n, math.nan) for _ in range(4))
    for k, (id_, kind, meas, low, high) in enumerate(rows):
        value, a, b, pc = _interpret(id_, kind, model.predict(id_, values))
        pred[k], pa[k], pb[k] = value, a, b
        res[k] = _residual(kind, meas, value, relative[k], pc, low, high)
    return pred, pa, pb, res


def _progress(iterable, total, desc, progress):
    from tqdm import tqdm

    if progress is None:
        progress = sys.stderr.isatty() and not os.environ.get("CI")
    return tqdm(iterable, total=total, desc=desc, disable=not progress, leave=False)


def calibrate(model, measurements, exclude: Iterable[str] = (), weights=None, *,
              params=None, scale="relative", scale_covar: bool = True,
              max_relative_stderr: float = 1.0, max_correlation: float = 0.999,
              rcond: float = 1e-7, tol: float = 1e-12, max_nfev: int | None = None,
              readings_range: bool = True, starts: int = 1, seed: int = 0, profile=(),
              intervals: str = "covariance", **least_squares_kwargs) -> CalibrationResult:
    """Fit a model's free parameters to measurements by weighted, bounded least squares.

    Parameters
    ----------
    model : Model
        Any object with ``parameters() -> Parameters`` and ``predict(id, params)``
        (and optionally ``check(id, params) -> bool | None`` for shape claims).
    measurements : pandas.DataFrame
        Catalog-format rows: columns ``id``, ``kind``, ``value_num`` (or ``value``)
        and ``unit`` (optional ``quantity``). Every row must be predictable by the model.
    exclude : iterable of str
        Ids left out of the fit; they are still predicted and reported (``used_in_fit`` False).
    weights : mapping or Series id -> float, optional
        Multipliers of the residuals (``1/sigma`` in the residual's scale); default 1.
    params : Parameters or mapping name -> value, optional
        Starting values overriding ``model.parameters()`` (a mapping of plain numbers
        changes only the values).
    scale : {"relative", "absolute"} or mapping id -> scale
        Residual scale: relative ``(p - m)/|m|`` (default; comparable across units)
        or absolute ``p - m`` (in the measurement's unit).
    scale_covar : bool
        Scale the covariance by the reduced chi-square (lmfit's default). Use ``False``
        when the weights are true ``1/sigma``.
    max_relative_stderr : float
        Flag a parameter whose standard error exceeds this multiple of ``|value|`` [1].
    max_correlation : float
        Flag parameters whose absolute correlation with another exceeds this [1].
    rcond : float
        Singular values of the column-normalised Jacobian below ``rcond * largest``
        mark near-singular directions; the parameters in them are flagged [1].
    tol : float
        ``ftol``, ``xtol`` and ``gtol`` of :func:`scipy.optimize.least_squares`.
    max_nfev : int, optional
        Maximum number of residual evaluations.
    readings_range : bool
        When the fit is exactly or under-determined (``dof <= 0``), refit at the ends of
        the interval readings and report each parameter's spread (:func:`readings_ranges`);
        leave-one-out refits skip it (they keep only the left-out prediction).
    starts : int
        Number of starting points (multi-start, :func:`solve_multistart`): the declared
        starting values, then ``starts - 1`` points drawn inside the free parameters' bounds
        with ``numpy.random.default_rng(seed)``. Each is solved to convergence and the lowest
        converged cost wins. Default 1: the declared starting values only.
    seed : int
        Seed of the drawn starting points (``>= 0``); the same seed gives the same fit.
    profile : iterable of str
        Free parameters whose 95 % profile-likelihood interval is computed after the fit
        (:func:`profile_intervals`: one refit per point tried, so it is opt-in); in
        ``profiles`` and the report.
    intervals : {"covariance", "auto"}
        The 90 % intervals of the parameter table's ``lo90``/``hi90`` (what :mod:`zmodel.store`
        stores and draws from). ``"covariance"`` (default): none beyond the covariance's
        standard errors. ``"auto"``: for each free parameter whose covariance interval
        misrepresents the fit (:func:`nonlinear_parameters`: two evaluations each, no refit),
        its 90 % profile-likelihood interval (:func:`profile_intervals`), with
        ``interval_method = "profile"`` and the reason in its note. A fit with priors keeps its
        covariance intervals (the F-test would scale a prior's residual by the rows'
        chi-square), so does one without degrees of freedom (it has readings ranges);
        cross-validation refits never compute it. :mod:`zmodel.fits.registry` writes the
        parameter store from fits with ``"auto"``.
    **least_squares_kwargs
        Passed on to :func:`scipy.optimize.least_squares` (e.g. ``method="dogbox"``).

    Returns
    -------
    CalibrationResult
        Parameter table, correlations, residual table, shape checks and fit statistics.

    Notes
    -----
    The engine minimises :math:`\\chi^2 = \\sum_i w_i^2 r_i(\\theta)^2` over the free
    parameters within their bounds (trust-region reflective method), where
    :math:`r_i` is the residual of row *i* for its kind (module docstring). Parameters
    are internally divided by their starting magnitude so that finite-difference steps
    are relative. The covariance is the Gauss-Newton approximation

    .. math:: C = s^2 (J^\\mathsf{T} J)^{-1}, \\qquad s^2 = \\chi^2/(n_\\text{active} - p)

    (``s^2 = 1`` when ``scale_covar`` is false), with :math:`J` the Jacobian of the
    weighted residuals at the optimum. Parameters at a bound are excluded from
    :math:`J` (conditioned on) and get no standard error. The 95 % interval is
    :math:`\\hat\\theta \\pm t_{0.975,\\,\\nu} \\sigma_\\theta` (normal quantile when
    ``scale_covar`` is false). Valid when the model is close to linear within the
    interval and residuals are independent.

    A free parameter with a prior (module docstring, "Priors") adds the penalty residual
    :math:`(\\log\\theta - \\log\\mu)/\\sigma` to the minimised sum, one row to :math:`J` and
    one pseudo-observation to the degrees of freedom
    (:math:`\\nu = n_\\text{active} + n_\\text{priors} - p`); ``scale_covar`` then scales the
    measurement rows only, the priors keep their stated :math:`\\sigma`.

    Multi-start (``starts > 1``, :func:`solve_multistart`): the surface of a nonlinear model
    can have several minima, and the declared start may sit in the basin of a worse one. The
    fit is then solved from the declared start and from ``starts - 1`` seeded draws inside the
    bounds (:func:`starting_points`: log-uniform where both bounds are positive and span more
    than a decade, uniform otherwise), each to convergence; the lowest converged cost wins, the
    declared start keeping ties. Two optima are one minimum when their costs agree within
    :data:`MULTISTART_COST_RTOL` and every parameter within :data:`MULTISTART_X_RTOL`
    (:func:`distinct_minima`); ``result.multistart`` records the starts and the report prints
    how many converged and how many distinct minima they found. Equal-cost minima with other
    parameter values mark a valley the data do not pin down.

    References
    ----------
    M. Newville et al., LMFIT: Non-Linear Least-Squares Minimization and
    Curve-Fitting for Python, doi:10.5281/zenodo.11813 (fit report, covariance scaling).
    N. R. Draper and H. Smith, *Applied Regression Analysis*, 3rd ed., Wiley 1998,
    ch. 24 (nonlinear estimation, linearised covariance).

    Examples
    --------
    >>> import pandas as pd
    >>> m = Model({"rate": 1.0})
    >>> m.add_predictor("doc.x", lambda p: 2 * p["rate"])
    >>> m.add_predictor("doc.y", lambda p: 3 * p["rate"])
    >>> data = pd.DataFrame({"id": ["doc.x", "doc.y"], "kind": ["absolute", "absolute"],
    ...                      "value_num": [4.0, 6.0], "unit": ["1/s", "1/s"]})
    >>> fit = calibrate(m, data)
    >>> round(fit.params["rate"].value, 9)
    2.0
    """
    check_starts(starts, seed)
    if intervals not in INTERVALS:
        raise ValueError(f"intervals must be one of {', '.join(map(repr, INTERVALS))}, got {intervals!r}")
    problem = prepare(model, measurements, exclude, weights, params=params, scale=scale)
    if starts == 1:
        sol, multistart = solve(model, problem, tol=tol, max_nfev=max_nfev, **least_squares_kwargs), None
    else:
        sol, multistart = solve_multistart(model, problem, starts, seed, tol=tol, max_nfev=max_nfev,
                                           **least_squares_kwargs)
    best_vals = problem.values_of(sol.x / problem.scale if problem.free else problem.x0)
    pred, pa, pb, res = _evaluate(model, _rows_of(problem.fit_table), best_vals, problem.relative)
    wres = problem.weight * res
    used = problem.used
    chisqr = float(np.sum(wres[used] ** 2))
    kinds = problem.fit_table["kind"].to_numpy()
    is_bound = np.isin(kinds, _BOUNDS)
    informative = informative_rows(sol, problem)
    active_rows = (~is_bound | (res != 0)) & informative
    n_data = int(used.sum())
    n_active = int(np.sum(used & active_rows))
    # priors: pseudo-observations, counted like informative rows (module docstring, "Priors")
    n_priors = len(problem.priors)
    prior_chisqr = float(np.sum(prior_residuals(problem.priors, sol.x) ** 2))
    chisqr += prior_chisqr
    dof = n_active + n_priors - len(problem.free)
    jac_all = np.vstack([sol.jacobian, sol.prior_jacobian]) if problem.priors else sol.jacobian
    rows_all = np.r_[active_rows[used], np.ones(n_priors, dtype=bool)]
    ident = identifiability(jac_all, rows_all, sol, problem, n_active + n_priors, n_data, rcond=rcond)
    _prior_only_notes(sol, active_rows[used], problem, ident)
    cov = _covariance_with_priors(jac_all[rows_all], n_priors, ident.ok, len(problem.free), chisqr, prior_chisqr,
                                  dof, scale_covar)
    stderr, corr = flag_uncertain(cov, sol.x, ident, problem.free, dof, scale_covar,
                                  max_relative_stderr=max_relative_stderr, max_correlation=max_correlation)
    ranges = None
    if dof <= 0 and problem.free:
        # exactly or under-determined: no covariance-based error; the spread over the admissible readings
        stderr = np.full(len(problem.free), math.nan)
        cov = np.full_like(cov, math.nan)
        corr = np.full_like(corr, math.nan)
        if readings_range:
            ranges = readings_ranges(model, problem, sol, rcond=rcond, tol=tol, max_nfev=max_nfev,
                                     **least_squares_kwargs)
    out = tables(model, problem, sol, ident, cov, stderr, corr, pred, pa, pb, res, wres, is_bound,
                 chisqr=chisqr, n_data=n_data, n_active=n_active, dof=dof, scale_covar=scale_covar,
                 informative=informative, ranges=ranges)
    profiles = None
    if profile:
        profiles = profile_intervals(model, problem, sol, profile, dof=dof, tol=tol, max_nfev=max_nfev,
                                     steps=_covariance_steps(problem, stderr, dof, 0.95), **least_squares_kwargs)
    if intervals == "auto" and dof > 0 and problem.free and not problem.priors:
        out = _with_profile_intervals(out, model, problem, sol, cov, stderr, dof, tol=tol, max_nfev=max_nfev,
                                      **least_squares_kwargs)
    return dataclasses.replace(out, n_priors=n_priors, prior_chisqr=prior_chisqr,
                               priors=prior_table(problem.init, problem.priors, sol.x), multistart=multistart,
                               unread=tuple(n for n, u in zip(problem.free, ident.unread) if u), profiles=profiles,
                               intervals=intervals)


def _active(model, problem: "Problem", sol: "Solution"):
    """(n_active, active rows of the used table) at a solution: value rows and violated bounds that depend on a free
    parameter (the counting of :func:`calibrate`)."""
    vals = problem.values_of(sol.x / problem.scale if problem.free else problem.x0)
    res = _evaluate(model, _rows_of(problem.fit_table), vals, problem.relative)[3]
    is_bound = np.isin(problem.fit_table["kind"].to_numpy(), _BOUNDS)
    active = (~is_bound | (res != 0)) & informative_rows(sol, problem)
    return int(np.sum(problem.used & active)), active[problem.used]


def readings_ranges(model, problem: "Problem", sol: "Solution", *, max_corners: int = 16, rcond: float = 1e-7,
                    tol: float = 1e-12, max_nfev: int | None = None, **least_squares_kwargs) -> dict:
    """Each free parameter's spread over the admissible readings of the used ``interval`` and range rows.

    A fit whose informative rows do not exceed its free parameters has no degrees of freedom
    left to estimate an error: its covariance-based standard error means nothing. What the data
    do say is which readings are admissible: each ``interval`` row (a verbal statement) may lie
    anywhere between its ends. This refits the model with every interval row pinned, as an exact
    value, at one end of its interval -- all combinations of ends ("corners") when there are
    at most ``max_corners`` of them, else each row at each end with the others at their
    midpoints -- and returns, per parameter, the smallest and largest fitted value over these
    refits and the fit itself. For a model linear in its parameters the extremes of a
    parameter over a box of readings sit at its corners, so the corner spread is then the
    exact admissible range. A one-sided reading (an infinite end) is pinned at its finite end or
    left as an interval, so a statement split into two one-sided rows reaches both ends; the two
    rows of a catalog range (``range_low`` m: [m, inf), ``range_high`` m: (-inf, m]) are such a
    pair and are pinned alike. Each refit
    starts from the fit's optimum (no left-out number is involved: all rows are used).

    Parameters
    ----------
    model, problem, sol
        The model, the :func:`prepare` problem and its :func:`solve` solution.
    max_corners : int
        Largest number of corner refits before falling back to one row at a time.
    rcond, tol, max_nfev, **least_squares_kwargs
        As for :func:`calibrate`.

    Returns
    -------
    dict
        ``{name: (low, high) or None}`` over the free parameters, the spread over the
        refits that determine the parameter -- ``None`` when none does (the readings do not
        fix it either: it keeps its plausible range) or a refit fails to converge -- plus ``"_refits"`` (the number of
        refits), ``"_rows"`` (the interval ids pinned) and ``"_given"`` (for each parameter with a range, the
        assumed parameters it holds given, :func:`assumption_elasticities` at the readings' midpoints).

    Examples
    --------
    >>> import pandas as pd
    >>> m = Model({"a": 2.5})
    >>> m.add_predictor("doc.y", lambda p: 2 * p["a"])     # "about 5", read as [4, 6]
    >>> data = pd.DataFrame({"id": ["doc.y"], "kind": ["interval"], "value_num": [5.0],
    ...                      "low": [4.0], "high": [6.0], "unit": ["s"]})
    >>> fit = calibrate(m, data)
    >>> [round(float(v), 9) for v in fit.parameter_table.loc["a", ["lo90", "hi90"]]]
    [2.0, 3.0]
    """
    import itertools

    free = problem.free
    tab = problem.fit_table
    # interval rows, and the two rows of a range (range_low, range_high: one statement's ends)
    pin = [k for k in np.flatnonzero(problem.used & tab["kind"].isin((INTERVAL, _RANGE_LOW, _RANGE_HIGH)).to_numpy())]
    out: dict = {n: None for n in free}
    out["_refits"], out["_rows"] = 0, [str(tab["id"].iloc[k]) for k in pin]
    if not pin:   # exact values only: a point where they determine the parameter, else nothing
        n_active, act = _active(model, problem, sol)
        ident = identifiability(sol.jacobian, act, sol, problem, n_active, int(problem.used.sum()), rcond=rcond)
        for j, n in enumerate(free):
            out[n] = None if ident.unidentifiable[j] else (float(sol.x[j]), float(sol.x[j]))
        return out
    ends = []
    for k in pin:
        kind, m = tab["kind"].iloc[k], float(tab["measured"].iloc[k])
        lo, hi = ((m, math.inf) if kind == _RANGE_LOW else (-math.inf, m) if kind == _RANGE_HIGH
                  else (float(tab["low"].iloc[k]), float(tab["high"].iloc[k])))
        finite = [e for e in dict.fromkeys((lo, hi)) if math.isfinite(e)]
        # a one-sided reading is pinned at its finite end or left as it is (None): the pair of
        # one-sided rows of one statement ([9, inf) and (-inf, 16.5]) then reaches both its ends
        ends.append(finite if len(finite) == 2 else finite + [None])
    mids = [(e[0] + e[1]) / 2 if e[1] is not None else None for e in ends]
    if math.prod(len(e) for e in ends) <= max_corners:
        combos = list(itertools.product(*ends))
    else:
        combos = [tuple(e if i == j else mids[i] for i in range(len(pin))) for j in range(len(pin)) for e in ends[j]]
    low = np.array(sol.x, dtype=float)
    high = np.array(sol.x, dtype=float)
    determined = np.zeros(len(free), dtype=bool)
    failed = False
    for combo in combos:
        if all(v is None for v in combo):
            continue   # nothing pinned: the fit itself
        pinned = _pinned(problem, pin, combo, sol.x)
        if pinned is None:
            failed = True   # a zero end on the relative scale: no relative residual to pin it with
            break
        s = solve(model, pinned, tol=tol, max_nfev=max_nfev, **least_squares_kwargs)
        out["_refits"] += 1
        if not s.success:
            failed = True
            break
        n_active, act = _active(model, pinned, s)
        ident = identifiability(s.jacobian, act, s, pinned, n_active, int(pinned.used.sum()), rcond=rcond)
        # a parameter this corner leaves undetermined keeps an arbitrary value: not part of its spread
        ok = ~ident.unidentifiable
        determined |= ok
        low = np.where(ok, np.minimum(low, s.x), low)
        high = np.where(ok, np.maximum(high, s.x), high)
    for j, n in enumerate(free):
        out[n] = None if (failed or not determined[j]) else (float(low[j]), float(high[j]))
    ranged = [n for n in free if out[n] is not None and out[n][1] > out[n][0]]
    out["_given"] = {}
    if ranged and not failed:
        # the readings fix each ranged parameter given the assumed (held) values the rows also read:
        # record how it moves with them, so that a draw of those values carries it along
        middle = tuple(m if m is not None else next((v for v in e if v is not None), None)
                       for m, e in zip(mids, ends))
        pinned = _pinned(problem, pin, middle, sol.x)
        s = None if pinned is None else solve(model, pinned, tol=tol, max_nfev=max_nfev, **least_squares_kwargs)
        if s is not None and s.success:
            out["_given"] = assumption_elasticities(model, pinned, s.x, ranged, rcond=rcond)
    return out


#: choices of :func:`calibrate`'s ``intervals``
INTERVALS = ("covariance", "auto")
#: how far the F statistic at an end of a covariance interval may stray from the F-test's quantile
#: before :func:`nonlinear_parameters` takes the interval as misrepresenting the fit: a factor 1.25
#: either way (F grows as the square of the distance from the fitted value, so the true end lies
#: about 12 % of the half-width, sqrt(1.25) - 1, from where the linear model puts it)
LINEARITY_TOLERANCE = 1.25
#: relative precision of the ends of the profile intervals ``intervals="auto"`` stores (of the
#: distance from the fitted value; an interval for drawing predictions, not a published bound)
AUTO_PROFILE_RTOL = 1e-3


def nonlinear_parameters(model, problem: "Problem", sol: "Solution", cov, *, dof: int, level: float = 0.90,
                         tolerance: float = LINEARITY_TOLERANCE) -> dict[str, str]:
    r"""The free parameters whose covariance interval misrepresents the fit, each with the reason.

    The covariance interval of parameter :math:`k` assumes a model linear in its parameters near
    the optimum. Its profile -- the refits with :math:`\theta_k` held -- then runs along the
    line :math:`x(t) = \hat x + t\, C e_k / \sqrt{C_{kk}}` (the regression of the other
    parameters on :math:`\theta_k` in the covariance :math:`C = s^2 (J^\mathsf{T} J)^{-1}`,
    :math:`s^2 = \chi^2_0/(N - P)`), on which

    .. math:: F(t) = \Big(\frac{\chi^2(x(t))}{\chi^2_0} - 1\Big)(N - P)
              = \frac{t^2\, e_k^\mathsf{T} C J^\mathsf{T} J C e_k}{C_{kk}\, s^2} = t^2,

    the statistic of :func:`profile_intervals`; the interval's ends are
    :math:`t = \pm\sqrt{F_{\text{level}}(1, N - P)}`. This evaluates :math:`\chi^2` at both
    ends (two evaluations, no refit) and flags the parameter when

    * its variance is undefined or zero although the fit has degrees of freedom (at a bound,
      not identifiable);
    * the line leaves a parameter's bounds before an end (the covariance interval claims values
      the model does not admit);
    * :math:`F` at an end differs from the quantile by more than the factor ``tolerance``: the
      fit's own chi-square curves away from the quadratic, so the refits' interval ends
      elsewhere (below the quantile the true profile, which refits the others, is lower still:
      the covariance interval is too narrow on that side).

    For a model linear in its parameters nothing is flagged (:math:`F = t^2` exactly). The
    identity needs a fit without priors (with them the covariance scales the rows by
    :math:`s^2` and the priors not); :func:`calibrate` calls this only for such fits.

    Returns
    -------
    dict
        ``{name: reason}`` of the flagged parameters, in the order of ``problem.free``.

    Examples
    --------
    A straight line is linear in its parameters; an exponential decay is not (in either).

    >>> import pandas as pd
    >>> data = pd.DataFrame({"id": ["doc.y1", "doc.y2", "doc.y3", "doc.y4"], "kind": "absolute",
    ...                      "value_num": [1.0, 0.5, 0.1, 0.12], "unit": "1"})
    >>> def fit(f):
    ...     m = Model({"a": 1.0, "b": 0.5})
    ...     for x in (1, 2, 3, 4):
    ...         m.add_predictor(f"doc.y{x}", lambda p, x=x: f(p, x))
    ...     problem = prepare(m, data, scale="absolute")
    ...     cov = calibrate(m, data, scale="absolute").covariance.to_numpy()
    ...     return nonlinear_parameters(m, problem, solve(m, problem), cov, dof=2)
    >>> fit(lambda p, x: p["a"] - p["b"] * x)
    {}
    >>> sorted(fit(lambda p, x: p["a"] * np.exp(-p["b"] * x)))
    ['a', 'b']
    """
    from scipy import stats

    if dof <= 0:
        return {}
    x_hat = np.asarray(sol.x, dtype=float)
    chi0 = _chi2(model, problem, x_hat)
    if not chi0 > 0:
        return {}
    q = float(stats.f.ppf(level, 1, dof))
    t = math.sqrt(q)
    cov = np.asarray(cov, dtype=float)
    if cov.shape != (len(problem.free), len(problem.free)):
        cov = np.full((len(problem.free), len(problem.free)), math.nan)
    out: dict[str, str] = {}
    for k, name in enumerate(problem.free):
        var, col = cov[k, k], cov[:, k]
        if not (np.isfinite(var) and var > 0 and np.all(np.isfinite(col))):
            out[name] = "no covariance interval (at a bound or not identifiable)"
            continue
        step = t * col / math.sqrt(var)
        for sign, end in ((-1, "low"), (+1, "high")):
            x = x_hat + sign * step
            outside = [problem.free[j] for j in range(len(x))
                       if x[j] < problem.lower[j] or x[j] > problem.upper[j]]
            if outside:
                out[name] = (f"the covariance interval's {end} end leaves the bounds of "
                             f"{', '.join(outside)}")
                break
            f = (_chi2(model, problem, x) / chi0 - 1.0) * dof
            if not (q / tolerance <= f <= q * tolerance):
                out[name] = (f"F at the covariance interval's {end} end is {f:.3g}, not {q:.3g} "
                             f"(F({level:g}; 1, {dof})): the chi-square is not quadratic there")
                break
    return out


def _covariance_steps(problem: "Problem", stderr, dof: int, level: float) -> dict[str, float]:
    """The covariance interval's half-width at ``level`` per free parameter (NaN where undefined): the first
    step of :func:`profile_intervals`."""
    from scipy import stats

    if stderr is None or dof <= 0 or len(stderr) != len(problem.free):
        return {}
    t = math.sqrt(float(stats.f.ppf(level, 1, dof)))
    return {n: t * float(se) for n, se in zip(problem.free, stderr)}


def _with_profile_intervals(result: "CalibrationResult", model, problem: "Problem", sol: "Solution", cov, stderr,
                            dof: int, **solve_kwargs) -> "CalibrationResult":
    """``result`` with the 90 % profile intervals of :func:`nonlinear_parameters` in its parameter table
    (``calibrate(intervals="auto")``)."""
    flagged = nonlinear_parameters(model, problem, sol, cov, dof=dof)
    if not flagged:
        return result
    prof = profile_intervals(model, problem, sol, list(flagged), dof=dof, level=0.90, rtol=AUTO_PROFILE_RTOL,
                             steps=_covariance_steps(problem, stderr, dof, 0.90), **solve_kwargs)
    t = result.parameter_table.copy()
    for name, reason in flagged.items():
        row = prof.loc[name]
        if not (math.isfinite(row["lo"]) and math.isfinite(row["hi"])):
            t.loc[name, "note"] = "; ".join(x for x in (t.loc[name, "note"], f"{reason}; its profile interval "
                                                        "did not close: no interval") if x)
            continue
        t.loc[name, ["lo90", "hi90"]] = row["lo"], row["hi"]
        t.loc[name, "interval_method"] = "profile"
        ends = "".join(f" ({side} end at the range bound)" for side, key in (("low", "lo"), ("high", "hi"))
                       if row[f"{key}_at_bound"])
        t.loc[name, "note"] = "; ".join(x for x in (t.loc[name, "note"], (
            f"{reason}: 90 % profile interval [{row['lo']:.6g}, {row['hi']:.6g}]{ends}, {int(row['refits'])} "
            "refits")) if x)
    return dataclasses.replace(result, parameter_table=t)


def _held_at(problem: "Problem", k: int, value: float, x: np.ndarray) -> "Problem":
    """``problem`` with its ``k``-th free parameter held at ``value`` (no longer free) and the others started
    from ``x`` (all free values, in their units); its prior leaves the fit (:func:`profile_intervals` adds it)."""
    keep = [j for j in range(len(problem.free)) if j != k]
    base = dict(problem.base)
    base[problem.free[k]] = float(value)
    index = {j: i for i, j in enumerate(keep)}
    return dataclasses.replace(
        problem, free=[problem.free[j] for j in keep], x0=np.asarray(x, dtype=float)[keep],
        lower=problem.lower[keep], upper=problem.upper[keep], scale=problem.scale[keep], base=base,
        priors=tuple((index[j], n, pr) for j, n, pr in problem.priors if j != k))


def profile_intervals(model, problem: "Problem", sol: "Solution", names, *, dof: int, level: float = 0.95,
                      rtol: float = 1e-4, max_refits: int = 80, tol: float = 1e-12, max_nfev: int | None = None,
                      steps: Mapping[str, float] | None = None, **least_squares_kwargs):
    r"""Profile-likelihood confidence intervals of free parameters, by lmfit's F-test.

    For each name, the parameter is held at a value :math:`v` and the others refitted, giving
    :math:`\chi^2_f(v)` (priors included, the held parameter's own prior residual added); the
    interval is where :math:`F = (\chi^2_f/\chi^2_0 - 1)(N - P)` stays below the ``level``
    quantile of :math:`F(1, N - P)`, :math:`\chi^2_0` the fit's chi-square and :math:`N - P` its
    degrees of freedom (``dof``). Unlike the covariance interval it follows the fit's own
    curvature: asymmetric where the model is nonlinear in the parameter, and bounded by the
    parameter's range where the rows do not close it. For a model linear in its parameters it is
    the covariance interval with Student's t (:func:`tables`) exactly.

    Each end is bracketed by a first step out from the fitted value (``steps[name]`` when given
    and positive -- the covariance interval's half-width is a good one -- else a tenth of the
    value, 1 when it is 0), widened until :math:`F` exceeds its quantile or the range ends, then
    narrowed by false position on :math:`\sqrt{F}` (Illinois variant) until the end is known to
    ``rtol`` of its distance from the fitted value. :math:`\sqrt F` grows in proportion to the
    distance where the chi-square is quadratic, so a few refits find an end where bisection
    takes a dozen. Every refit starts from the last accepted one's solution. An end that
    ``max_refits`` refits do not close is NaN.

    Returns
    -------
    pandas.DataFrame
        One row per name: value, lo, hi (the ends; at a range bound when the rows do not close
        that side), lo_at_bound, hi_at_bound, refits, level. NaN ends where the test is undefined
        (``dof <= 0`` or a zero chi-square: an exact fit has no scatter to scale by).

    References
    ----------
    M. Newville et al., LMFIT: Non-Linear Least-Squares Minimization and Curve-Fitting for
    Python, documentation 'Calculation of confidence intervals', section 'Method used for
    calculating confidence intervals' (lmfit.github.io/lmfit-py/confidence.html): the F-test
    :math:`F(P_{fix}, N - P) = (\chi^2_f/\chi^2_0 - 1)(N - P)/P_{fix}`, here with
    :math:`P_{fix} = 1`.

    Examples
    --------
    A straight line through three points: the profile interval of the slope is the covariance
    interval (``tables``: value +/- t(0.975, 1) x standard error).

    >>> import pandas as pd
    >>> m = Model({"a": 1.0, "b": 0.0})
    >>> for x in (1, 2, 3):
    ...     m.add_predictor(f"doc.y{x}", lambda p, x=x: p["a"] * x + p["b"])
    >>> data = pd.DataFrame({"id": ["doc.y1", "doc.y2", "doc.y3"], "kind": "absolute",
    ...                      "value_num": [1.0, 2.5, 2.9], "unit": "1"})
    >>> fit = calibrate(m, data, scale="absolute", profile=["a"])
    >>> row, cov = fit.profiles.loc["a"], fit.parameter_table.loc["a"]
    >>> bool(abs(row["lo"] - cov["ci95_low"]) < 1e-3 and abs(row["hi"] - cov["ci95_high"]) < 1e-3)
    True
    """
    import pandas as pd
    from scipy import stats

    if not 0.0 < level < 1.0:
        raise ValueError(f"level must lie strictly between 0 and 1, got {level!r}")
    names = [names] if isinstance(names, str) else list(names)
    for n in names:
        if n not in problem.free:
            raise ValueError(f"profile names {n!r}, which is not a free parameter of this fit "
                             f"(free: {', '.join(problem.free) or 'none'})")
    x_hat = np.asarray(sol.x, dtype=float)
    chi0 = _chi2(model, problem, x_hat)
    root = math.sqrt(float(stats.f.ppf(level, 1, dof))) if dof > 0 else math.nan   # sqrt of the F quantile
    limit = chi0 * (1.0 + root ** 2 / dof) if dof > 0 else math.nan                 # the chi-square it allows
    rows = []
    for n in names:
        k = problem.free.index(n)
        v0 = float(x_hat[k])
        if dof <= 0 or not chi0 > 0:
            rows.append(dict(name=n, value=v0, lo=math.nan, hi=math.nan, lo_at_bound=False, hi_at_bound=False,
                             refits=0, level=level))
            continue
        own = [pr for j, _, pr in problem.priors if j == k]
        refits = 0

        def chi2_at(v, x_start):
            nonlocal refits
            held = _held_at(problem, k, v, x_start)
            s = solve(model, held, tol=tol, max_nfev=max_nfev, **least_squares_kwargs)
            refits += 1
            full = np.insert(np.asarray(s.x, dtype=float), k, v)
            c = 2.0 * s.cost if math.isfinite(s.cost) else _chi2(model, held, held.x0)
            if own:
                c += ((math.log(v) - math.log(own[0].value)) / own[0].sigma) ** 2 if v > 0 else math.inf
            return c, full

        def excess(c):
            """sqrt(F) less the quantile's root: <= 0 inside the interval, > 0 outside."""
            return math.sqrt(max(c / chi0 - 1.0, 0.0) * dof) - root

        ends = {}
        first = float((steps or {}).get(n, math.nan))
        for side, bound in ((-1, problem.lower[k]), (+1, problem.upper[k])):
            step = first if math.isfinite(first) and first > 0 else (abs(v0) / 10.0 if v0 != 0 else 1.0)
            inside_v, inside_g, inside_x = v0, -root, x_hat
            outside_v, outside_g, at_bound = None, math.nan, False
            while refits < max_refits:
                v = v0 + side * step
                if (side < 0 and v <= bound) or (side > 0 and v >= bound):
                    c, x = chi2_at(bound, inside_x)
                    if c <= limit:
                        inside_v, at_bound = bound, True
                    else:
                        outside_v, outside_g = bound, excess(c)
                    break
                c, x = chi2_at(v, inside_x)
                if c > limit:
                    outside_v, outside_g = v, excess(c)
                    break
                inside_v, inside_g, inside_x = v, excess(c), x
                step *= 2.0
            kept = 0      # the Illinois variant: the end kept twice running has its excess halved
            while (outside_v is not None and refits < max_refits
                   and abs(outside_v - inside_v) > rtol * max(abs(outside_v - v0), 1e-300)):
                w = inside_g / (inside_g - outside_g) if outside_g > inside_g else 0.5
                # stay strictly inside the bracket (a tenth of it from either end at most)
                mid = inside_v + min(max(w, 0.1), 0.9) * (outside_v - inside_v)
                c, x = chi2_at(mid, inside_x)
                if c <= limit:
                    inside_v, inside_g, inside_x = mid, excess(c), x
                    kept = kept + 1 if kept > 0 else 1
                    if kept > 1:
                        outside_g /= 2.0
                else:
                    outside_v, outside_g = mid, excess(c)
                    kept = kept - 1 if kept < 0 else -1
                    if kept < -1:
                        inside_g /= 2.0
            if outside_v is None and not at_bound:
                ends[side] = (math.nan, False)    # not closed within max_refits
            else:
                ends[side] = (inside_v if at_bound else 0.5 * (inside_v + outside_v), at_bound)
        rows.append(dict(name=n, value=v0, lo=ends[-1][0], hi=ends[+1][0], lo_at_bound=ends[-1][1],
                         hi_at_bound=ends[+1][1], refits=refits, level=level))
    return pd.DataFrame(rows).set_index("name")


def _pinned(problem: "Problem", rows, values, x0) -> "Problem | None":
    """``problem`` with each of ``rows`` (fit-table positions) pinned as an exact value (``None``: left
    as it is), started from ``x0``; None when a pinned value is 0 on the relative scale (no relative
    residual can pin it)."""
    if any(problem.relative[k] and v == 0 for k, v in zip(rows, values)):
        return None
    t = problem.fit_table.copy()
    for k, value in zip(rows, values):
        if value is not None:
            t.loc[k, "kind"], t.loc[k, "measured"] = "absolute", value
            t.loc[k, ["low", "high"]] = math.nan
    return dataclasses.replace(problem, fit_table=t, x0=np.array(x0, dtype=float))


def assumption_elasticities(model, problem: "Problem", x, names, *, step: float = 1e-4, rcond: float = 1e-7,
                            min_elasticity: float = 1e-3) -> dict:
    """How the fitted parameters ``names`` move with the held (assumed) parameters: d ln theta / d ln a.

    A fit holds its assumed parameters at their values; the rows then fix the free ones *given*
    those values (a total memory read off a paper fixes the bytes per file only for an assumed
    number of files). At the optimum ``x`` of ``problem`` the implicit-function theorem gives the
    first-order move of the optimum when a held value ``a`` changes: with ``J`` the Jacobian of
    the weighted residuals (priors included) in the logarithms of the free parameters and ``g``
    their derivative in ``ln a``, ``d ln theta / d ln a = -J^+ g`` (the Gauss-Newton step that
    restores the least-squares optimum; ``J^+`` the pseudo-inverse, singular values below
    ``rcond`` of the largest dropped). For a product pinned by a reading, ``theta a = c``, it is
    exactly -1. Both derivatives are central differences of relative ``step`` in the logarithm.

    Only positive parameters take part (a logarithm needs them; a held zero is an absent term), and
    only held values the model takes in a continuum (a count it refuses off the integers is left out).

    Returns
    -------
    dict
        ``{name: {held: elasticity}}`` for each of ``names`` that is positive at ``x``, the held
        parameters with ``|elasticity| >= min_elasticity`` (a held value the rows do not read is
        left out).
    """
    free = problem.free
    used_rows = _rows_of(problem.used_table)
    base = problem.values_of(np.asarray(x, dtype=float) / problem.scale)

    def d_log(name):
        up, down = dict(base), dict(base)
        up[name], down[name] = base[name] * math.exp(step), base[name] * math.exp(-step)
        return (_weighted_residuals(model, problem, up, used_rows)
                - _weighted_residuals(model, problem, down, used_rows)) / (2.0 * step)

    logs = [j for j, n in enumerate(free) if base[n] > 0]
    held = [n for n, v in base.items() if n not in free and isinstance(v, (int, float))
            and not isinstance(v, bool) and math.isfinite(v) and v > 0]
    if not logs or not held:
        return {}
    J = np.column_stack([d_log(free[j]) for j in logs])
    cols = []
    for n in list(held):
        try:
            cols.append(d_log(n))
        except ValueError:   # a count the model takes only whole (processes, mappings): not a continuous assumption
            held.remove(n)
    if not held:
        return {}
    G = np.column_stack(cols)
    ok = np.isfinite(J).all(axis=1) & np.isfinite(G).all(axis=1)
    E = -np.linalg.pinv(J[ok], rcond=rcond) @ G[ok]
    out = {}
    for i, j in enumerate(logs):
        if free[j] in names:
            out[free[j]] = {n: float(E[i, k]) for k, n in enumerate(held) if abs(E[i, k]) >= min_elasticity}
    return out


def informative_rows(sol: "Solution", problem: "Problem") -> np.ndarray:
    """Per fitted row: whether its prediction depends on a free parameter.

    A used value row whose Jacobian row (weighted residual against every free parameter, at
    the optimum) is zero is a configuration echo -- a number the model reproduces whatever the
    parameters (a link rate, a maximum device count): it is shown but neither counted in
    the degrees of freedom nor averaged in an error figure. Rows left out of the fit have
    no Jacobian row and count as informative (they are predictions to be judged).
    """
    out = np.ones(len(problem.fit_table), dtype=bool)
    jac = np.asarray(sol.jacobian)
    if jac.ndim == 2 and jac.shape[1] and len(jac):
        out[np.flatnonzero(problem.used)] = np.any(jac != 0.0, axis=1)
    elif not problem.free:
        out[:] = False
    # a satisfied bound or interval reading has a zero residual whatever its prediction does:
    # it is judged as satisfied or violated (and not counted in the degrees of freedom while
    # satisfied -- inside its interval it says nothing about where the truth lies)
    out |= np.isin(problem.fit_table["kind"].to_numpy(), _BOUNDS) & bool(problem.free)
    return out


# --------------------------------------------------------------------------- engine parts
@dataclasses.dataclass(frozen=True, eq=False)
class Problem:
    """A calibration problem ready to solve (the output of :func:`prepare`).

    Attributes
    ----------
    fit_table, shape_table : pandas.DataFrame
        Rows of fitted kinds / of kind ``shape`` (columns id, kind, unit, measured).
    weight, relative, used : ndarray
        Per fitted row: weight, relative scale (bool), used in the fit (bool).
    init : Parameters
        Starting parameters.
    free : list of str
        Names of the free parameters, in order.
    x0, lower, upper, scale : ndarray
        Free parameters' start, bounds and scaling (the optimiser works on ``x / scale``).
    exclude : list of str
        Ids left out of the fit.
    priors : tuple of (index, name, Prior)
        The priors of the free parameters (index into ``free``), penalty rows of the fit.
    """

    fit_table: Any
    shape_table: Any
    weight: np.ndarray
    relative: np.ndarray
    used: np.ndarray
    init: Parameters
    free: list
    x0: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    scale: np.ndarray
    exclude: list
    base: dict
    priors: tuple = ()

    def values_of(self, z) -> dict:
        """All parameter values with the free ones at ``z * scale``."""
        v = dict(self.base)
        v.update(zip(self.free, np.asarray(z, dtype=float) * self.scale))
        return v

    @property
    def used_table(self):
        """The fitted rows used in the fit."""
        return self.fit_table.loc[self.used].reset_index(drop=True)


def prepare(model, measurements, exclude: Iterable[str] = (), weights=None, *, params=None,
            scale="relative") -> Problem:
    """Check the inputs and lay out the problem: rows, weights, scales, starting values and bounds.

    Raises the ``ValueError`` of :func:`calibrate` for bad input (unknown ids, a zero measured
    value on the relative scale, a row the model cannot predict, a NaN prediction at the start).

    Examples
    --------
    >>> import pandas as pd
    >>> m = Model({"rate": 1.0})
    >>> m.add_predictor("doc.x", lambda p: 2 * p["rate"])
    >>> data = pd.DataFrame({"id": ["doc.x"], "kind": ["absolute"], "value_num": [4.0], "unit": ["1/s"]})
    >>> prepare(m, data).free
    ['rate']
    """
    table = _measurement_table(measurements)
    exclude = list(exclude) if not isinstance(exclude, str) else [exclude]
    known = set(table["id"])
    for e in exclude:
        if e not in known:
            raise ValueError(f"exclude names an unknown measurement id {e!r}")
    weight = _weights_for(table, weights)
    relative = _scales_for(table, scale)

    init = model.parameters()
    if not isinstance(init, Parameters):
        init = Parameters.coerce(init)
    if params is not None:
        if isinstance(params, Parameters):
            init = params.copy()
        else:
            for name, v in dict(params).items():
                if name not in init:
                    raise ValueError(f"params names an unknown parameter {name!r}")
                init.set(name, value=v.value if isinstance(v, Parameter) else v)
    _validate_params(init)

    is_shape = (table["kind"] == "shape").to_numpy()
    fit_tab = table.loc[~is_shape].reset_index(drop=True)
    shape_tab = table.loc[is_shape].reset_index(drop=True)
    w_fit = weight[~is_shape]
    rel_fit = relative[~is_shape]
    used = ~fit_tab["id"].isin(exclude).to_numpy()

    is_interval = (fit_tab["kind"] == INTERVAL).to_numpy()
    for end in ("low", "high"):
        bad = fit_tab.loc[rel_fit & is_interval & (fit_tab[end] == 0)]
        if len(bad):
            raise ValueError(f"interval {bad['id'].iloc[0]!r}: its {end} end is 0, so its relative residual is "
                             f"undefined; use scale='absolute' for it")
    zero = fit_tab.loc[rel_fit & ~is_interval & (fit_tab["measured"] == 0)]
    if len(zero):
        raise ValueError(f"measured value of {zero['id'].iloc[0]!r} is 0, so its relative residual is "
                         f"undefined; use scale='absolute' for it")
    minus100 = fit_tab.loc[rel_fit & (fit_tab["kind"] == "percent_change") & (fit_tab["measured"] == -100)]
    if len(minus100):
        raise ValueError(f"measured percent change of {minus100['id'].iloc[0]!r} is -100%, so its relative "
                         f"residual is undefined; use scale='absolute' for it")

    # check every row is predictable at the start (clear errors before the optimiser runs)
    for id_ in fit_tab["id"]:
        if hasattr(model, "can_predict") and not model.can_predict(id_):
            model.predict(id_, init.valuesdict())  # raises the model's own ValueError
            raise ValueError(f"model cannot predict measurement {id_!r}")

    free = init.free()
    x0 = np.array([init[n].value for n in free], dtype=float)
    lo = np.array([init[n].min for n in free], dtype=float)
    hi = np.array([init[n].max for n in free], dtype=float)
    span = np.where(np.isfinite(hi - lo), hi - lo, 1.0)
    s = np.where(x0 != 0, np.abs(x0), np.where(span > 0, span, 1.0))
    _evaluate(model, _rows_of(fit_tab), init.valuesdict(), rel_fit)  # raises early on NaN predictions, excluded rows too
    return Problem(fit_table=fit_tab, shape_table=shape_tab, weight=w_fit, relative=rel_fit, used=used,
                   init=init, free=free, x0=x0, lower=lo, upper=hi, scale=s, exclude=exclude,
                   base=init.valuesdict(), priors=_free_priors(init, free))


@dataclasses.dataclass(frozen=True, eq=False)
class Solution:
    """Output of :func:`solve`: best free values, Jacobian of the weighted residuals, optimiser status."""

    x: np.ndarray            # best free values (in their units)
    jacobian: np.ndarray     # d(weighted residual of a used row)/d(parameter), rows of the used table
    active_mask: np.ndarray  # scipy's: -1/+1 at a lower/upper bound, 0 inside
    nfev: int
    success: bool
    message: str
    prior_jacobian: np.ndarray = dataclasses.field(default_factory=lambda: np.zeros((0, 0)))
    cost: float = math.nan   # 0.5 * sum of squared weighted residuals (priors included) at x; NaN: not optimised


def _chi2(model, problem: "Problem", x) -> float:
    """The sum :func:`solve` minimises (used rows and priors) at the free values ``x`` (in their units)."""
    values = problem.values_of(np.asarray(x, dtype=float) / problem.scale)
    return float(np.sum(_weighted_residuals(model, problem, values, _rows_of(problem.used_table)) ** 2))


def _weighted_residuals(model, problem: Problem, values, used_rows) -> np.ndarray:
    """The residuals :func:`solve` minimises at ``values`` (all parameters by name): the used rows'
    (``used_rows``, :func:`_rows_of` the used table) times their weights, then one per prior."""
    r = problem.weight[problem.used] * _evaluate(model, used_rows, values, problem.relative[problem.used])[3]
    if problem.priors:
        r = np.r_[r, prior_residuals(problem.priors, np.array([values[n] for n in problem.free], dtype=float))]
    return r


def solve(model, problem: Problem, *, tol: float = 1e-12, max_nfev: int | None = None,
          **least_squares_kwargs) -> Solution:
    """Weighted, bounded least squares (trust-region reflective) on the used rows of ``problem``.

    With no free parameter or no used row the starting values are returned
    (``success`` True, ``nfev`` 1, a message saying why).
    """
    from scipy import optimize

    used_tab = problem.used_table
    free, s = problem.free, problem.scale
    used_rows = _rows_of(used_tab)

    def fun(z):
        return _weighted_residuals(model, problem, problem.values_of(z), used_rows)

    nfev, success, message, cost = 1, True, "no free parameters", math.nan
    xbest = problem.x0.copy()
    jac = np.zeros((len(used_tab), len(free)))
    active_mask = np.zeros(len(free), dtype=int)
    def batched(f, steps):
        # the finite-difference steps of one Jacobian, announced to the model together
        # (Model.prefetch); scipy then evaluates them one by one, as it would without this
        steps = list(steps)
        if hasattr(model, "prefetch"):
            model.prefetch([problem.values_of(z) for z in steps])
        return list(map(f, steps))

    if free and len(used_tab):
        kw = dict(method="trf", ftol=tol, xtol=tol, gtol=tol, x_scale=1.0, jac="3-point", workers=batched)
        kw.update(least_squares_kwargs)
        sol = optimize.least_squares(fun, problem.x0 / s, bounds=(problem.lower / s, problem.upper / s),
                                     max_nfev=max_nfev, **kw)
        xbest = np.clip(sol.x * s, problem.lower, problem.upper)
        jac = np.atleast_2d(sol.jac) / s  # d(weighted residual)/d(parameter)
        if hasattr(jac, "toarray"):
            jac = jac.toarray()
        active_mask = sol.active_mask
        nfev, success, message = int(sol.nfev), bool(sol.success), str(sol.message)
        cost = float(sol.cost)
    elif free and problem.priors:
        message = "no measurements used: parameters set by their priors alone"
        sol = optimize.least_squares(fun, problem.x0 / s, bounds=(problem.lower / s, problem.upper / s),
                                     method="trf", ftol=tol, xtol=tol, gtol=tol, jac="3-point", max_nfev=max_nfev)
        xbest = np.clip(sol.x * s, problem.lower, problem.upper)
        jac, active_mask, nfev, success = np.atleast_2d(sol.jac) / s, sol.active_mask, int(sol.nfev), sol.success
        cost = float(sol.cost)
    elif free:
        message = "no measurements used: parameters left at their initial values"
    n_used = len(used_tab)
    jac, prior_jac = jac[:n_used], jac[n_used:]   # the measurement rows, then one row per prior
    return Solution(x=xbest, jacobian=jac, prior_jacobian=prior_jac,
                    active_mask=np.asarray(active_mask), nfev=nfev, success=success,
                    message=message, cost=cost)


# --------------------------------------------------------------------------- multi-start
#: Two converged starts found the same minimum when their costs agree within this relative
#: tolerance (of the larger cost, with an absolute floor of ``MULTISTART_COST_ATOL``) and every
#: free parameter agrees within ``MULTISTART_X_RTOL`` of ``max(|x1|, |x2|, scale)``, ``scale``
#: being the parameter's starting magnitude (:func:`prepare`). Otherwise the minima are distinct.
MULTISTART_COST_RTOL = 1e-6
MULTISTART_COST_ATOL = 1e-12
MULTISTART_X_RTOL = 1e-3


@dataclasses.dataclass(frozen=True, eq=False)
class MultiStart:
    """The record of a multi-start fit (:func:`solve_multistart`).

    Attributes
    ----------
    starts, seed : int
        Number of starting points (the first is the declared start) and the seed of the others.
    x0, x : ndarray, shape (starts, n_free)
        Each start's starting point and its optimum (in the parameters' units).
    cost : ndarray
        Each start's final cost ``0.5 * chi-square`` (priors included).
    converged : ndarray of bool
        Whether each start's optimiser reported convergence.
    minimum : ndarray of int
        Index of the distinct minimum each converged start reached (-1: not converged);
        minima are numbered from the lowest cost.
    best : int
        The start whose optimum is returned: the earliest converged start at the lowest cost
        (within the cost tolerance).
    nfev : int
        Residual evaluations over all starts.
    """

    starts: int
    seed: int
    x0: np.ndarray
    x: np.ndarray
    cost: np.ndarray
    converged: np.ndarray
    minimum: np.ndarray
    best: int
    nfev: int

    @property
    def n_converged(self) -> int:
        """Starts that converged."""
        return int(np.sum(self.converged))

    @property
    def n_minima(self) -> int:
        """Distinct minima among the converged starts."""
        return int(self.minimum.max() + 1) if self.n_converged else 0

    @property
    def minima_costs(self) -> np.ndarray:
        """Cost of each distinct minimum (lowest first)."""
        return np.array([self.cost[self.minimum == k].min() for k in range(self.n_minima)])

    @property
    def n_at_best_cost(self) -> int:
        """Distinct minima whose cost equals the best within the cost tolerance (more than one:
        equal-cost optima with other parameter values, a valley the data do not pin down)."""
        c = self.minima_costs
        return int(sum(_same_cost(ci, c[0]) for ci in c)) if len(c) else 0

    @property
    def default_is_best(self) -> bool:
        """True when the declared start's optimum is the one returned (no drawn start found a lower cost)."""
        return self.best == 0 and bool(self.converged[0])


def check_starts(starts, seed) -> None:
    """``ValueError`` unless ``starts`` is an integer >= 1 and ``seed`` an integer >= 0."""
    if isinstance(starts, bool) or not isinstance(starts, (int, np.integer)):
        raise ValueError(f"starts must be an integer >= 1, got {starts!r}")
    if starts < 1:
        raise ValueError(f"starts must be an integer >= 1, got {starts!r}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be an integer >= 0, got {seed!r}")


def starting_points(problem: Problem, starts: int, seed: int) -> np.ndarray:
    """The ``starts`` starting points of a multi-start fit, shape (starts, n_free).

    Row 0 is the declared start (``problem.x0``: the parameters' defaults, data-independent).
    Rows 1.. are drawn with ``numpy.random.default_rng(seed)``, one uniform number per free
    parameter, mapped inside the parameter's bounds: log-uniformly when both bounds are
    positive and span more than a decade (``upper / lower > 10``), uniformly otherwise. An
    infinite bound is replaced by the default's decade (``x0 / 10`` or ``10 x0`` for a positive
    default, ``x0 -/+ 10 max(|x0|, 1)`` otherwise), so every drawn point is finite.
    """
    x0 = problem.x0
    lo, hi = problem.lower.copy(), problem.upper.copy()
    pos = x0 > 0
    lo = np.where(np.isfinite(lo), lo, np.where(pos, x0 / 10, x0 - 10 * np.maximum(np.abs(x0), 1)))
    hi = np.where(np.isfinite(hi), hi, np.where(pos, x0 * 10, x0 + 10 * np.maximum(np.abs(x0), 1)))
    u = np.random.default_rng(seed).random((starts - 1, len(x0)))
    with np.errstate(divide="ignore", invalid="ignore"):
        log = (lo > 0) & (hi > 10 * lo)
        drawn = np.where(log, lo * (hi / np.where(log, lo, 1.0)) ** u, lo + (hi - lo) * u)
    return np.vstack([x0, np.clip(drawn, lo, hi)])


def _same_minimum(c1, x1, c2, x2, scale) -> bool:
    """Whether two optima are one minimum (tolerances :data:`MULTISTART_COST_RTOL`, ...)."""
    if not _same_cost(c1, c2):
        return False
    return bool(np.all(np.abs(x1 - x2) <= MULTISTART_X_RTOL * np.maximum.reduce([np.abs(x1), np.abs(x2), scale])))


def distinct_minima(cost, x, converged, scale) -> np.ndarray:
    """Label each converged optimum with its distinct minimum (lowest cost = 0); -1 when not converged.

    Greedy: in order of increasing cost, an optimum joins the first minimum whose lowest-cost
    representative it matches (:func:`_same_minimum`), else it opens a new one.
    """
    label = np.full(len(cost), -1)
    reps: list[int] = []
    for i in sorted(np.flatnonzero(converged), key=lambda i: (cost[i], i)):
        k = next((k for k, j in enumerate(reps) if _same_minimum(cost[i], x[i], cost[j], x[j], scale)), None)
        if k is None:
            k, reps = len(reps), reps + [i]
        label[i] = k
    return label


def _same_cost(c1, c2) -> bool:
    return abs(c1 - c2) <= max(MULTISTART_COST_RTOL * max(abs(c1), abs(c2)), MULTISTART_COST_ATOL)


def _best_start(cost, converged) -> int:
    """The returned start: the earliest converged start (declared start first) whose cost equals the
    lowest converged cost within the cost tolerance -- an optimum with the same cost but other
    parameter values (a valley the data do not pin down) never displaces the declared start;
    with no start converged, the lowest cost."""
    finite = np.where(np.isfinite(cost), cost, np.inf)
    if not np.any(converged):
        return int(np.argmin(finite))
    low = np.min(finite[converged])
    return int(next(i for i in np.flatnonzero(converged) if _same_cost(cost[i], low)))


def solve_multistart(model, problem: Problem, starts: int, seed: int, **solve_kwargs) -> tuple[Solution, MultiStart]:
    """Solve ``problem`` from every point of :func:`starting_points` (each with :func:`solve`, to
    convergence) and return the best converged solution with the :class:`MultiStart` record.

    The best is the lowest-cost distinct minimum (:func:`distinct_minima`); among the starts
    that reached it, the earliest, so a declared start on the global minimum is kept as is.
    """
    check_starts(starts, seed)
    if not problem.free:
        sol = solve(model, problem, **solve_kwargs)
        return sol, None
    points = starting_points(problem, starts, seed)
    sols = [solve(model, problem, **solve_kwargs)] + [_solve_drawn(model, problem, p, solve_kwargs)
                                                       for p in points[1:]]
    cost = np.array([s.cost for s in sols])
    x = np.array([s.x for s in sols])
    converged = np.array([bool(s.success) and np.isfinite(s.cost) for s in sols])
    label = distinct_minima(cost, x, converged, problem.scale)
    best = _best_start(cost, converged)
    record = MultiStart(starts=int(starts), seed=int(seed), x0=points, x=x, cost=cost, converged=converged,
                        minimum=label, best=best, nfev=int(sum(s.nfev for s in sols)))
    return sols[best], record


def _solve_drawn(model, problem: Problem, x0, solve_kwargs) -> Solution:
    """:func:`solve` from a drawn start; a start where the model refuses the parameter values
    (its ``ValueError``) is a failed, non-converged start, not an error of the fit."""
    try:
        return solve(model, dataclasses.replace(problem, x0=x0), **solve_kwargs)
    except ValueError as err:
        return Solution(x=np.asarray(x0, dtype=float), jacobian=np.zeros((0, len(x0))),
                        active_mask=np.zeros(len(x0), dtype=int), nfev=0, success=False,
                        message=f"start refused by the model: {err}")


def _multistart_line(ms: MultiStart) -> str:
    """The report line of a multi-start fit."""
    if not ms.n_converged:
        return f"    multi-start        = {ms.starts} starts (seed {ms.seed}), 0 converged"
    c = ms.minima_costs
    return (f"    multi-start        = {ms.starts} starts (seed {ms.seed}), {ms.n_converged} converged, "
            f"{ms.n_minima} distinct minima (best cost {c[0]:.6g}, worst {c[-1]:.6g}"
            + (f"; {ms.n_at_best_cost} at the best cost with other parameter values" if ms.n_at_best_cost > 1 else "")
            + "); "
            f"declared start {'reached' if ms.default_is_best else 'did NOT reach'} the best; "
            f"{ms.nfev} evaluations in all")


@dataclasses.dataclass(frozen=True, eq=False)
class Identifiability:
    """Output of :func:`identifiability`, per free parameter: at a bound, not identifiable, notes.

    ``ok`` holds the indices of the free parameters that get a covariance; ``unread`` marks
    those no informative row depends on (a zero Jacobian column, at a bound or not).
    """

    at_bound: np.ndarray
    unidentifiable: np.ndarray
    notes: dict
    ok: np.ndarray
    unread: np.ndarray | None = None   # None: not computed (an Identifiability built by hand)


def identifiability(jac, informative, sol: Solution, problem: Problem, n_active: int, n_data: int, *,
                    rcond: float = 1e-7) -> Identifiability:
    """Which free parameters the data determine: bounds, counts, zero and near-dependent Jacobian columns.

    Parameters
    ----------
    jac : ndarray
        Jacobian of the weighted residuals of the used rows (:attr:`Solution.jacobian`).
    informative : ndarray of bool
        Per used row: a value row or a violated bound (satisfied bounds carry no information).
    sol, problem
        The solution and the problem.
    n_active, n_data : int
        Informative rows, used rows.
    rcond : float
        Singular values of the column-normalised Jacobian below ``rcond * largest`` mark
        near-singular directions; parameters with weight > 0.1 in them are flagged.
    """
    free, xbest, lo, hi, s = problem.free, sol.x, problem.lower, problem.upper, problem.scale
    n_free = len(free)
    notes = {n: [] for n in free}
    at_bound = np.zeros(n_free, dtype=bool)
    for j, n in enumerate(free):
        near = 1e-9 * max(s[j], 1e-300)
        at_bound[j] = bool(sol.active_mask[j] != 0 or abs(xbest[j] - lo[j]) <= near
                           or abs(hi[j] - xbest[j]) <= near)
        if at_bound[j]:
            which = "min" if abs(xbest[j] - lo[j]) <= abs(hi[j] - xbest[j]) else "max"
            notes[n].append(f"at its {which} bound ({(lo if which == 'min' else hi)[j]:g}): the data push it "
                            f"past its physical limit; standard error not computed")
    unident = np.zeros(n_free, dtype=bool)
    if n_free > n_active:
        # satisfied bounds carry no information: count only the active rows
        unident[:] = True
        for n in free:
            notes[n].append(f"not identifiable: {n_free} free parameters but only {n_active} informative "
                            f"measurements ({n_data} used, satisfied bounds carry no information)")
    # columns per relative change of each parameter (times its scale): unit-free, so that a
    # parameter in B/s is not "zero" beside one in seconds
    Js = jac[informative] * np.asarray(s, dtype=float) if len(jac) else np.zeros((0, n_free))
    norms = np.linalg.norm(Js, axis=0)
    # no informative row depends on it (every column, a parameter at a bound included)
    unread = norms <= 1e-12 * norms.max() if norms.size and norms.max() > 0 else np.ones(n_free, dtype=bool)
    inner = np.flatnonzero(~at_bound)
    ok = np.zeros(0, dtype=int)
    if len(inner) and len(jac):
        J, colnorm = Js[:, inner], norms[inner]
        biggest = colnorm.max() if colnorm.size else 0.0
        zero_col = colnorm <= 1e-12 * biggest if biggest > 0 else np.ones_like(colnorm, dtype=bool)
        for k in np.flatnonzero(zero_col):
            j = inner[k]
            unident[j] = True
            notes[free[j]].append("not identifiable: no used measurement depends on it")
        keep = inner[~zero_col]
        if len(keep):
            Jn = J[:, ~zero_col] / colnorm[~zero_col]
            _, sv, vt = np.linalg.svd(Jn, full_matrices=False)
            small = np.zeros(len(keep), dtype=bool)
            if len(sv) < len(keep):  # fewer informative rows than parameters: rank deficient
                small[:] = True
            else:
                for k in np.flatnonzero(sv < rcond * sv[0]):
                    small |= np.abs(vt[k]) > 0.1
            for k in np.flatnonzero(small):
                j = keep[k]
                if not unident[j]:
                    unident[j] = True
                    notes[free[j]].append("not identifiable: its Jacobian column is (nearly) a combination of "
                                          "others (near-singular)")
            ok = keep[~small]
    return Identifiability(at_bound=at_bound, unidentifiable=unident, notes=notes, ok=ok, unread=unread)


def covariance(jac, ok, n_free: int, chisqr: float, dof: int, scale_covar: bool = True) -> np.ndarray:
    """Gauss-Newton covariance of the free parameters ``ok`` (NaN elsewhere), see :func:`calibrate` Notes.

    Parameters
    ----------
    jac : ndarray
        Jacobian of the weighted residuals of the informative rows, one column per free parameter.
    ok : ndarray of int
        Indices of the parameters that get a covariance (identifiable, inside their bounds).
    n_free : int
        Number of free parameters (size of the returned matrix).
    chisqr : float
        Sum of squared weighted residuals.
    dof : int
        Degrees of freedom; with ``scale_covar`` the matrix is scaled by ``chisqr/dof`` (NaN if dof <= 0).

    Examples
    --------
    >>> import numpy as np
    >>> J = np.array([[1.0], [1.0], [1.0], [1.0]])     # mean of four points, residual variance 1
    >>> float(covariance(J, np.array([0]), 1, chisqr=3.0, dof=3)[0, 0])   # s^2 / n
    0.25
    """
    cov = np.full((n_free, n_free), math.nan)
    ok = np.asarray(ok, dtype=int)
    if len(ok) and len(jac):
        Jo = np.asarray(jac)[:, ok]
        cn = np.linalg.norm(Jo, axis=0)
        _, sv2, vt2 = np.linalg.svd(Jo / cn, full_matrices=False)
        cov_n = (vt2.T / sv2 ** 2) @ vt2
        c_ok = cov_n / np.outer(cn, cn)
        if scale_covar:
            c_ok = c_ok * (chisqr / dof) if dof > 0 else c_ok * math.nan
        cov[np.ix_(ok, ok)] = c_ok
    return cov


def flag_uncertain(cov, x, ident: Identifiability, free, dof: int, scale_covar: bool, *,
                   max_relative_stderr: float = 1.0, max_correlation: float = 0.999):
    """Standard errors and correlations from ``cov``; flags (in ``ident``) the parameters they leave undetermined.

    A parameter is flagged when its standard error exceeds ``max_relative_stderr * |value|``
    or its correlation with another exceeds ``max_correlation``; a note says when the
    standard error is undefined for lack of degrees of freedom.

    Returns
    -------
    (stderr, corr) : ndarray, ndarray
    """
    n_free = len(free)
    stderr = np.sqrt(np.diag(cov)) if n_free else np.zeros(0)
    with np.errstate(invalid="ignore", divide="ignore"):
        corr = cov / np.outer(stderr, stderr)
    unident, notes, at_bound = ident.unidentifiable, ident.notes, ident.at_bound
    if scale_covar and dof <= 0 and n_free:
        for j, n in enumerate(free):
            if not unident[j] and not at_bound[j]:
                notes[n].append(f"standard error undefined: {dof} degrees of freedom")
    for j, n in enumerate(free):
        if np.isfinite(stderr[j]) and stderr[j] > max_relative_stderr * abs(x[j]):
            unident[j] = True
            pct = 100 * stderr[j] / abs(x[j]) if x[j] != 0 else math.inf
            notes[n].append(f"not identifiable: standard error is {pct:.3g}% of its value")
        for k, m in enumerate(free):
            if k != j and np.isfinite(corr[j, k]) and abs(corr[j, k]) > max_correlation:
                unident[j] = True
                notes[n].append(f"not identifiable: correlation with {m} is {corr[j, k]:+.5f}")
    return stderr, corr


def tables(model, problem: Problem, sol: Solution, ident: Identifiability, cov, stderr, corr, pred, pa, pb, res,
           wres, is_bound, *, chisqr: float, n_data: int, n_active: int, dof: int,
           scale_covar: bool, informative=None, ranges=None) -> CalibrationResult:
    """Assemble the :class:`CalibrationResult`: parameter table, residual table, shape checks, statistics.

    ``ranges`` (:func:`readings_ranges`, for a fit with ``dof <= 0``) fills the parameter table's
    ``lo90``/``hi90`` with each parameter's spread over the admissible readings
    (``interval_method = "readings range"``), which :mod:`zmodel.store` stores as its interval.
    """
    import pandas as pd
    from scipy import stats

    free, init, xbest = problem.free, problem.init, sol.x
    if scale_covar and dof > 0:
        q = float(stats.t.ppf(0.975, dof))
    else:
        q = float(stats.norm.ppf(0.975))

    best = Parameters()
    rows = []
    for n in init:
        p = init[n]
        if p.vary:
            j = free.index(n)
            v, se = float(xbest[j]), float(stderr[j])
            best[n] = p.replace(value=v, stderr=se)
            notes = list(ident.notes[n])
            rng = (ranges or {}).get(n)
            word = "exactly determined" if dof == 0 else "under-determined"
            lo90 = hi90 = math.nan
            method = ""
            if ranges is not None:
                # a spread below 1e-6 of the value is the refits' numerical noise: a point
                if rng is not None and rng[1] - rng[0] > 1e-6 * max(abs(rng[0]), abs(rng[1])):
                    (lo90, hi90), method = rng, "readings range"
                    notes.append(f"{word}: over the admissible readings "
                                 f"of {', '.join(ranges['_rows'])} it ranges over [{rng[0]:.6g}, {rng[1]:.6g}] "
                                 f"({ranges['_refits']} refits)")
                elif rng is not None:
                    notes.append(f"{word}; fixed by exact values alone (no admissible reading moves it): "
                                 f"no range and no standard error")
                else:
                    notes.append(f"{word} and not fixed by the admissible "
                                 f"readings either: sample its plausible range")
            given = (ranges or {}).get("_given", {}).get(n) if method else None
            if given:
                notes.append("the range holds given the assumed " + ", ".join(
                    f"{a} (d ln {n} / d ln {a} = {e:+.3g})" for a, e in given.items()))
            rows.append(dict(name=n, value=v, stderr=se, ci95_low=v - q * se, ci95_high=v + q * se,
                             lo90=lo90, hi90=hi90, interval_method=method, given=given or None,
                             initial=p.value, min=p.min, max=p.max, vary=True,
                             at_bound=bool(ident.at_bound[j]), identifiable=not bool(ident.unidentifiable[j]),
                             unit=p.unit, source=p.source, note="; ".join(notes)))
        else:
            best[n] = p
            rows.append(dict(name=n, value=p.value, stderr=math.nan, ci95_low=math.nan, ci95_high=math.nan,
                             lo90=math.nan, hi90=math.nan, interval_method="", given=None,
                             initial=p.value, min=p.min, max=p.max, vary=False, at_bound=False,
                             identifiable=True, unit=p.unit, source=p.source, note=""))
    ptable = pd.DataFrame(rows).set_index("name")
    corr_df = pd.DataFrame(corr, index=free, columns=free)
    cov_df = pd.DataFrame(cov, index=free, columns=free)

    fit_tab = problem.fit_table
    meas = fit_tab["measured"].to_numpy()
    with np.errstate(all="ignore"):
        perr = np.where(meas != 0, 100.0 * (pred - meas) / np.abs(meas), math.nan)
    satisfied = np.where(is_bound, res == 0, True)
    resid = pd.DataFrame({
        "id": fit_tab["id"], "kind": fit_tab["kind"], "unit": fit_tab["unit"],
        "measured": meas, "low": fit_tab["low"], "high": fit_tab["high"],
        "predicted": pred, "predicted_a": pa, "predicted_b": pb,
        "residual": res, "weight": problem.weight, "weighted_residual": wres, "percent_error": perr,
        "satisfied": pd.array(np.where(is_bound, satisfied, None), dtype="boolean"),
        "used_in_fit": problem.used,
        "informative": np.ones(len(fit_tab), dtype=bool) if informative is None else np.asarray(informative),
    })
    shape_rows = []
    for id_ in problem.shape_table["id"]:
        passed = model.check(id_, best.valuesdict()) if hasattr(model, "check") else None
        shape_rows.append(dict(id=id_, passed=passed, used_in_fit=id_ not in problem.exclude))
    shapes = pd.DataFrame(shape_rows, columns=["id", "passed", "used_in_fit"])

    label = getattr(model, "name", None) or type(model).__name__
    return CalibrationResult(
        params=best, init_params=init, parameter_table=ptable, correlations=corr_df, covariance=cov_df,
        residuals=resid, shape_checks=shapes, chisqr=chisqr, n_data=n_data, n_active=n_active,
        n_free=len(free), dof=dof, success=sol.success, message=sol.message, nfev=sol.nfev,
        scale_covar=scale_covar, model_name=label)


def _reads(model, id_: str, values: Mapping[str, float], param: "Parameter") -> bool:
    """Whether the prediction of ``id_`` at ``values`` moves when ``param`` moves by a small step.

    The step is 1e-4 of the value (1e-6 of the bounds' span, or 1e-12, at zero), taken
    upwards unless that leaves the bounds.
    """
    v = float(values[param.name])
    span = param.max - param.min
    step = 1e-4 * abs(v) if v != 0 else (1e-6 * span if math.isfinite(span) else 1e-12)
    moved = v + step if v + step <= param.max else v - step
    return model.predict(id_, values) != model.predict(id_, {**values, param.name: moved})


_FOLD_JOB: list = []   # the refit function a forked worker runs (set just before the fork)


def _forked_worker_init() -> None:
    """Start of a forked pool worker: default SIGTERM and SIGINT actions, no signal wake-up fd.

    A forked worker inherits its parent's signal handlers. A parent that has run notebooks
    carries an event loop's handlers (``nbclient`` installs asyncio handlers for SIGINT and
    SIGTERM that only schedule a clean-up callback): in a worker they turn the SIGTERM of
    ``Pool.terminate()`` into a no-op, and the pool's ``join()`` then waits forever for a
    worker blocked on its task queue. The worker is born with SIGTERM blocked
    (:func:`_fork_pool`) and unblocks it here, after the reset: a SIGTERM that came before
    (a pool terminated while its workers start) is then acted on, not swallowed by the
    inherited handler.
    """
    import signal

    signal.set_wakeup_fd(-1)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})


def _fork_pool(processes: int):
    """A ``fork`` pool of ``processes`` workers started by :func:`_forked_worker_init`: every
    process pool of the package (the caller checks that ``fork`` exists).

    SIGTERM is blocked in this thread while the pool forks its workers (and starts the threads
    that fork any later ones), so each worker keeps a SIGTERM pending until its initializer has
    reset the handler. Until 2026-11-27 a pool terminated before a worker reached its
    initializer (a loaded machine) could hang: the worker's inherited no-op handler swallowed
    the SIGTERM, and the worker then waited forever for the task-queue lock the terminating
    parent holds.
    """
    import multiprocessing
    import signal

    blocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
    try:
        return multiprocessing.get_context("fork").Pool(processes, _forked_worker_init)
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)


def _run_fold(k: int):
    return _FOLD_JOB[0](k)


def _map_folds(refit, keys, workers: int):
    """``refit(k)`` for each k of ``keys``, in order: here, or in ``workers`` forked processes.

    The workers take the keys in their order (one at a time), so the longest jobs go first
    when the caller lists them first.
    """
    import multiprocessing

    keys = list(keys)
    if workers == 1 or len(keys) < 2 or "fork" not in multiprocessing.get_all_start_methods():
        yield from (refit(k) for k in keys)
        return
    _FOLD_JOB[:] = [refit]
    try:
        with _fork_pool(min(workers, len(keys))) as pool:
            yield from pool.imap(_run_fold, keys)
    finally:
        _FOLD_JOB.clear()


def cross_validate(model, measurements, exclude: Iterable[str] = (), weights=None, *,
                   progress: bool | None = None, groups: Mapping[str, str] | None = None, full=None,
                   workers: int = 1, **calibrate_kwargs):
    """Leave-one-out cross-validation: refit without each used measurement, predict it.

    Parameters
    ----------
    model : Model
        As for :func:`calibrate`.
    measurements : pandas.DataFrame
        Catalog-format rows, as for :func:`calibrate`.
    exclude : iterable of str
        Ids never used in any fit (and not cross-validated).
    weights : mapping or Series id -> float, optional
        As for :func:`calibrate`.
    progress : bool, optional
        Show a tqdm progress bar; default: only on a terminal and when ``CI`` is unset.
    workers : int
        Processes that run the refits (each refit is independent: the table is the same, row
        for row, whatever the count); 1 (default) runs them in this process. More than one
        forks this process (POSIX only; elsewhere the refits run here).
    groups : mapping id -> str, optional
        Leave out a whole group at a time (e.g. every row of one benchmark, when its rows
        share a cause): each refit drops every used, informative row of one group and
        predicts all of them. Rows the mapping does not name form a group of their own.
        Default: every row is its own group (plain leave-one-out).
    full : CalibrationResult, optional
        The fit on all rows with the same model, rows and settings (saves refitting it); its
        ``init_params`` are the refits' starting values either way.
    **calibrate_kwargs
        Passed to :func:`calibrate` (``scale``, ``params``, ...) for the full fit and every
        refit; ``starts`` and ``seed`` make every refit a multi-start fit from the same
        data-independent starting points (the declared defaults and the seeded draws).

    Returns
    -------
    pandas.DataFrame
        One row per used, informative fitted-kind measurement (configuration echoes are
        not predictions: left out): id, group (the fold that left it out), kind, unit, measured,
        predicted_full (all data), predicted_loo (that row's group left out), percent_error_full,
        percent_error_loo (``100 (p - m)/|m|``; NaN for a bound: bounds are judged by
        bound_satisfied_loo, satisfied or violated by the left-out prediction, never
        scored as a percent), residual_loo (fit-scale residual), success (False: the refit
        did not converge, counted in ``n_failed``), predictable (False when leaving the
        row out leaves a free parameter that its prediction reads unidentified: no other row
        determines it, so the left-out value rests on that parameter's initial value; a
        parameter the prediction does not move with, :func:`_reads`, leaves it predictable) and
        unidentified_without (those parameters). ``.attrs`` holds the summary:
        ``median_abs_percent_error``, ``mean_abs_percent_error`` (over value rows),
        ``n``, ``bounds_satisfied`` of ``bounds``, ``n_failed`` (rows whose refit did not
        converge), ``failed_refits`` (refits that did not converge), ``refits``,
        ``median_abs_percent_error_predictable``, ``n_unpredictable``,
        ``by_group`` (group -> median absolute percent error of its left-out value rows) and
        ``refit_parameters`` (fold -> {free parameter: (its refit value, whether it sits on a
        bound of its range)}: what the remaining rows set).

    Notes
    -----
    For a linear model fitted by ordinary least squares on the absolute scale,
    the left-out residual equals the PRESS residual :math:`e_i / (1 - h_{ii})`,
    with :math:`h_{ii}` the leverage (Draper & Smith 1998, sec. 8.1 / PRESS).
    Each refit starts from the caller's initial parameter values, not from the
    full-data optimum, so that no left-out number leaks into its own prediction; with
    ``starts > 1`` each refit also tries the seeded draws of :func:`starting_points`, which
    depend on the bounds and the seed only, never on a fitted value. A free parameter that no
    remaining row (nor a prior) depends on (:attr:`CalibrationResult.unread`) is held at its
    initial value and the fold refitted: the solver's steps along a flat direction move it
    anywhere in its bounds, and a prediction read there would rest on no data and no start.
    Leaving out groups (Hastie, Tibshirani & Friedman, *The Elements of Statistical
    Learning*, 2nd ed., 2009, sec. 7.10) judges a model on rows that share no cause with
    the rows it was fitted to.

    Examples
    --------
    >>> import pandas as pd
    >>> m = Model({"a": 1.0})
    >>> for k, x in enumerate([1.0, 2.0, 3.0]):
    ...     m.add_predictor(f"doc.y{k}", lambda p, x=x: p["a"] * x)
    >>> data = pd.DataFrame({"id": ["doc.y0", "doc.y1", "doc.y2"], "kind": "absolute",
    ...                      "value_num": [2.0, 4.0, 6.0], "unit": "s"})
    >>> cv = cross_validate(m, data, progress=False)
    >>> round(cv.attrs["median_abs_percent_error"], 6)
    0.0
    >>> cross_validate(m, data, groups={"doc.y0": "A", "doc.y1": "A"}, progress=False).attrs["refits"]
    2
    """
    if calibrate_kwargs.get("profile"):
        raise ValueError("profile does not apply to cross-validation (each refit would profile again); "
                         "run calibrate(..., profile=...) on the full fit instead")
    return cross_validate_many([dict(model=model, measurements=measurements, exclude=exclude, weights=weights,
                                     groups=groups, full=full, **calibrate_kwargs)],
                               workers=workers, progress=progress)[0]


def cross_validate_many(requests, *, workers: int = 1, progress: bool | None = None) -> list:
    """Several cross-validations whose refits share one pool of ``workers`` processes.

    Parameters
    ----------
    requests : sequence of mapping
        Each the arguments of one :func:`cross_validate` call (``model``, ``measurements``
        and any of ``exclude``, ``weights``, ``groups``, ``full`` and the calibrate
        keywords); ``workers`` and ``progress`` are this function's.
    workers : int
        Processes for all the refits together: a pool started once, whose processes take
        the refits in request order (list the longest first), so that none waits while
        another table's last refit runs. 1 (default) runs them here.
    progress : bool, optional
        One tqdm bar over every refit; default as for :func:`cross_validate`.

    Returns
    -------
    list of pandas.DataFrame
        The tables :func:`cross_validate` returns for each request, in order (the same
        tables, row for row, whatever the count of workers).

    Examples
    --------
    Plain leave-one-out and the two rows left out together, in one call:

    >>> import pandas as pd
    >>> m = Model({"a": 1.0})
    >>> m.add_predictor("doc.u", lambda p: p["a"]); m.add_predictor("doc.v", lambda p: 2 * p["a"])
    >>> rows = pd.DataFrame({"id": ["doc.u", "doc.v"], "kind": "absolute", "value_num": [1.0, 2.2], "unit": "s"})
    >>> plain, both = cross_validate_many([dict(model=m, measurements=rows),
    ...                                    dict(model=m, measurements=rows, groups={"doc.u": "g", "doc.v": "g"})],
    ...                                   progress=False)
    >>> plain.attrs["refits"], both.attrs["refits"]
    (2, 1)
    """
    workers = as_count("workers", workers, 1)
    plans = []
    for i, request in enumerate(requests):
        if not isinstance(request, Mapping):
            raise ValueError(f"requests[{i}] must be a mapping of cross_validate arguments, got {type(request).__name__}")
        kw = dict(request)
        missing = [k for k in ("model", "measurements") if k not in kw]
        if missing:
            raise ValueError(f"requests[{i}] must give model and measurements; missing {', '.join(missing)}")
        if "workers" in kw or "progress" in kw:
            raise ValueError(f"requests[{i}]: workers and progress are cross_validate_many's own arguments")
        args = [kw.pop(k, d) for k, d in (("model", None), ("measurements", None), ("exclude", ()),
                                           ("weights", None), ("groups", None), ("full", None))]
        plans.append(_plan_cross_validation(*args, kw))
    keys = [(i, k) for i, (n, _) in enumerate(plans) for k in range(n)]
    done = list(_progress(_map_folds(lambda key: plans[key[0]][1](key[1]), keys, workers), len(keys),
                          "leave-one-out", progress))
    out, at = [], 0
    for n, _ in plans:
        out.append(_cross_validation_table(done[at:at + n], n))
        at += n
    return out


def _plan_cross_validation(model, measurements, exclude, weights, groups, full, calibrate_kwargs):
    """The refits of one cross-validation: ``(count, refit)``, ``refit(k)`` the k-th fold's (:func:`cross_validate`)."""
    exclude = [exclude] if isinstance(exclude, str) else list(exclude)
    if full is None:
        full = calibrate(model, measurements, exclude=exclude, weights=weights, **calibrate_kwargs)
    kw = dict(calibrate_kwargs)
    kw["intervals"] = "covariance"   # a refit keeps only its left-out prediction: no profile refits
    # Each refit starts from the caller's initial values, never from the full-data optimum:
    # a warm start would carry the left-out number into its own "prediction" whenever the
    # remaining rows leave a parameter free (it would just keep its fitted value).
    kw["params"] = full.init_params.copy()
    r = full.residuals
    # configuration echoes (no free parameter moves them) are not predictions: not cross-validated
    todo = r.loc[r["used_in_fit"] & r["informative"].astype(bool)]
    if groups is not None and not isinstance(groups, Mapping):
        raise ValueError(f"groups must be a mapping id -> group name, got {type(groups).__name__}")
    label = {i: (groups or {}).get(i, i) for i in todo["id"]}
    folds: dict[str, list] = {}
    for _, row in todo.iterrows():
        folds.setdefault(label[row["id"]], []).append(row)
    jobs = list(folds.items())
    unidentified_in_full = set(full.parameter_table.index[~full.parameter_table["identifiable"]])

    def refit(k: int) -> tuple[bool, list[dict]]:
        name, members = jobs[k]
        out_ids = [row["id"] for row in members]
        loo = calibrate(model, measurements, exclude=exclude + out_ids, weights=weights,
                        readings_range=False, **kw)
        t = loo.parameter_table
        # a parameter no remaining row reads rests on its start whether or not the full fit
        # identified it (the kernel fit's anticipation miss probability is unidentified in the full
        # fit and read by the decision-support rows alone: left out with them, it was not held)
        held = list(loo.unread)
        lost = list(dict.fromkeys(held + [n for n in t.index[t["vary"] & ~t["identifiable"]]
                                          if n not in unidentified_in_full]))
        if held:
            # a parameter that no remaining row depends on is left wherever the solver's steps
            # along its flat direction put it (a bounded trust-region step moves it: seen moving
            # an anticipation miss probability from its start 1 to 0.0003): that value is no
            # prediction, so refit with it held at its starting value, as the table says it rests
            start = kw["params"].copy()
            for n in held:
                start.set(n, vary=False)
            loo = calibrate(model, measurements, exclude=exclude + out_ids, weights=weights,
                            readings_range=False, **{**kw, "params": start})
        lres = loo.residuals.set_index("id")
        at = loo.params.valuesdict()
        fold = []
        for row in members:
            lr = lres.loc[row["id"]]
            # only the unidentified parameters this row's prediction reads leave it resting on a start
            row_lost = [n for n in lost if _reads(model, row["id"], at, loo.params[n])]
            m, p = row["measured"], lr["predicted"]
            perr = 100.0 * (p - m) / abs(m) if m != 0 else math.nan
            full_perr = row["percent_error"]
            bound = row["kind"] in _BOUNDS
            satisfied_loo = bool(lr["residual"] == 0) if bound else None
            if bound:   # a bound is satisfied or violated, never scored as a percent error
                perr = full_perr = math.nan
            fold.append(dict(id=row["id"], group=name, kind=row["kind"], unit=row["unit"], measured=m,
                             predicted_full=row["predicted"], predicted_loo=p,
                             percent_error_full=full_perr, percent_error_loo=perr,
                             residual_loo=lr["residual"], bound_satisfied_loo=satisfied_loo, success=loo.success,
                             predictable=not row_lost, unidentified_without=", ".join(row_lost)))
        # what the remaining rows set: each free parameter's refit value, and whether it sits on
        # a bound of its range (a left-out prediction read where the others pushed a parameter to
        # its bound rests on that bound, not on a value the data chose)
        t = loo.parameter_table   # at_bound: the fit's own test; a held one rests on its start
        setting = {n: (float(t.at[n, "value"]), bool(t.at[n, "at_bound"]) or (
                       not t.at[n, "vary"] and t.at[n, "value"] in (t.at[n, "min"], t.at[n, "max"])))
                   for n in t.index if full.params[n].vary}
        return bool(loo.success), fold, (name, setting)

    return len(jobs), refit


#: kinds whose left-out error :func:`out_of_sample_log_errors` reads as ln(predicted / measured): positive
#: quantities (a percent change is read on its growth factor instead)
_LOG_KINDS = ("absolute", "percent", "count", "ratio")


def out_of_sample_log_errors(cv):
    r"""The left-out errors of a cross-validation table on a log scale: what the model misses out of sample.

    Each value row of a :func:`cross_validate` table gives
    :math:`e = \ln(p_\text{loo} / m)` -- for a percent change on its growth factor,
    :math:`e = \ln\big((1 + p_\text{loo}/100) / (1 + m/100)\big)`, the relative error of the
    quantity after the change over before (the scale :func:`calibrate` fits it on). A bound or
    an interval is satisfied or violated, not a value, and has no error here. Every value row
    counts, the unpredictable ones included (their left-out value rests on a declared start:
    that is what the model predicts where no other row speaks): what a model cannot predict is
    reported, not excluded. A row whose prediction or measurement has no logarithm (a quantity at
    or below zero, a change at or below -100 %) is listed in ``attrs["skipped"]``.

    Parameters
    ----------
    cv : pandas.DataFrame
        A table of :func:`cross_validate` (columns id, kind, measured, predicted_loo,
        percent_error_loo).

    Returns
    -------
    pandas.DataFrame
        Columns id, kind, measured, predicted_loo, log_error; ``attrs["skipped"]`` lists the ids
        without a logarithm.

    Examples
    --------
    >>> import pandas as pd
    >>> cv = pd.DataFrame({"id": ["a", "b", "c"], "kind": ["ratio", "percent_change", "upper_bound"],
    ...                    "measured": [2.0, 10.0, 5.0], "predicted_loo": [2.5, 32.0, 9.0],
    ...                    "percent_error_loo": [25.0, 220.0, float("nan")]})
    >>> e = out_of_sample_log_errors(cv)
    >>> [round(x, 6) for x in e["log_error"]]      # ln(2.5/2), ln(1.32/1.10) = ln 1.2
    [0.223144, 0.182322]
    """
    import pandas as pd

    rows, skipped = [], []
    for r in cv.to_dict(orient="records"):
        kind, m, p = r["kind"], float(r["measured"]), float(r["predicted_loo"])
        if kind == "percent_change":
            a, b = 1.0 + p / 100.0, 1.0 + m / 100.0
        elif kind in _LOG_KINDS:
            a, b = p, m
        else:   # a bound, an interval, a configuration echo: no value to miss
            continue
        if not (a > 0.0 and b > 0.0 and math.isfinite(a) and math.isfinite(b)):
            skipped.append(r["id"])
            continue
        rows.append(dict(id=r["id"], kind=kind, measured=m, predicted_loo=p, log_error=math.log(a / b)))
    out = pd.DataFrame(rows, columns=["id", "kind", "measured", "predicted_loo", "log_error"])
    out.attrs["skipped"] = skipped
    return out


def _cross_validation_table(results, refits: int):
    """The table of :func:`cross_validate` from its refits' ``(success, rows, (fold, setting))`` in fold order."""
    import pandas as pd

    rows, failed_refits, settings = [], 0, {}
    for success, fold, (name, setting) in results:
        failed_refits += not success
        rows += fold
        settings[name] = setting
    out = pd.DataFrame(rows, columns=["id", "group", "kind", "unit", "measured", "predicted_full", "predicted_loo",
                                      "percent_error_full", "percent_error_loo", "residual_loo",
                                      "bound_satisfied_loo", "success", "predictable", "unidentified_without"])
    values = out[out["bound_satisfied_loo"].isna()] if len(out) else out
    a = values["percent_error_loo"].abs().dropna()
    b = values.loc[values["predictable"].astype(bool), "percent_error_loo"].abs().dropna()
    out.attrs["median_abs_percent_error"] = float(a.median()) if len(a) else math.nan
    out.attrs["mean_abs_percent_error"] = float(a.mean()) if len(a) else math.nan
    out.attrs["n"] = len(out)
    bounds = out["bound_satisfied_loo"].dropna().astype(bool) if len(out) else out.get("bound_satisfied_loo")
    out.attrs["bounds_satisfied"] = int(bounds.sum()) if bounds is not None else 0
    out.attrs["bounds"] = int(len(bounds)) if bounds is not None else 0
    # a refit that did not converge is a failure, counted, not silently averaged
    out.attrs["n_failed"] = int((~out["success"].astype(bool)).sum()) if len(out) else 0
    out.attrs["failed_refits"] = int(failed_refits)
    out.attrs["refits"] = refits
    # fold (group, or left-out id) -> {free parameter: (refit value, on a bound of its range)}
    out.attrs["refit_parameters"] = settings
    # rows whose removal leaves a parameter that only they determined: their left-out
    # "prediction" rests on that parameter's initial value, not on the other data
    out.attrs["median_abs_percent_error_predictable"] = float(b.median()) if len(b) else math.nan
    out.attrs["n_unpredictable"] = int((~out["predictable"].astype(bool)).sum())
    out.attrs["by_group"] = {g: float(v["percent_error_loo"].abs().dropna().median())
                             if v["percent_error_loo"].notna().any() else math.nan
                             for g, v in values.groupby("group", sort=False)} if len(values) else {}
    return out
