"""The parameter store: the calibrated parameters every prediction starts from.

``zmodel calibrate`` (and ``make report``) write the fitted parameters of each calibration
area to a versioned TOML file; :class:`zmodel.kernel.scenario.Scenario`, ``zmodel plan``,
the notebooks and the examples read it, so a planner's prediction uses what the
calibrations found rather than illustrative defaults. The shipped store is
``zmodel/_data/params/parameters.toml`` (in the data folder of
:func:`zmodel.hardware.catalog.data_folder`); ``--parameters FILE`` or
:func:`load` ``(path)`` use another one, e.g. a planner's calibration against their own
measurements (``zmodel calibrate AREA --measurements FILE --save FILE``).

Per area the store keeps, for every parameter of the fit: the value, its unit, whether it
was free in the fit (*calibrated*) or held at a declared default or a stated reading
(*assumed*), and for a calibrated one its 90 % interval with the method that gave it
(``covariance``: the Gauss-Newton covariance, drawn jointly normal -- multivariate t with the
fit's degrees of freedom where it estimated its residuals' scale, ``covariance_dof``; ``profile``: the
profile-likelihood interval, where the covariance misrepresents the fit --
:func:`zmodel.calibration.nonlinear_parameters` -- drawn by :func:`split_normal` with the
covariance's correlation; ``readings range``: where the data determine it only up to a
range, drawn uniformly) and the covariance matrix of the free parameters when it is defined.
It also keeps the catalog rows used, the fit's out-of-sample error (:class:`ModelError`: its value
rows refitted without each and predicted, on a log scale), the code version and the date.
Products the fit derives from its parameters (``derived``, e.g. the IPTE stall as a
fraction of the purge) are recorded by name so that a sampler can rebuild them. A
readings range that holds only given assumed values of the same area (the bytes per sysfs
file read off "50 to 100 MB" for an assumed 5000 devices x 10 files) records them with
their elasticities (``given``, :func:`zmodel.calibration.assumption_elasticities`): where a
prediction uses other values of those assumptions -- another area's, a planner's, a draw --
the calibrated value moves with them so that the reading still holds
(:meth:`ParameterStore.values`, :meth:`ParameterStore.conditioned`, :meth:`ParameterStore.sample`).

The store is plain data: this module sits between the hardware and kernel layers (it
reads :func:`~zmodel.hardware.catalog.data_folder`; the kernel layer reads it) and knows
nothing of the fits. :func:`from_results` turns calibration results into a store by their
documented attributes (``parameter_table``, ``covariance``, ``residuals``).

File layout (``format = "zmodel-parameters"``, ``version = 1``)::

    format = "zmodel-parameters"
    version = 1
    code_version = "0.1.0"
    created = "2026-11-24"
    [areas.channels]
    title = "..."
    origin = "documents"            # or "measurements: <file name>"
    rows = ["wavv08.fcp-random-gain", ...]
    covariance_dof = 10             # Student-t intervals and draws (absent: normal)
    [areas.channels.parameters.ficon_command_time]
    value = 3.4e-05
    unit = "s"
    calibrated = true
    interval = [2.9e-05, 3.9e-05]   # 90 %
    method = "covariance"
    source = "..."
    [areas.kernel_memory.parameters.sysfs_bytes_per_file.given]
    sysfs_files_per_device = -1.0   # d ln value / d ln assumed value
    [areas.channels.covariance]
    names = ["ficon_command_time", ...]
    matrix = [[...], ...]
    [areas.channels.model_error]
    method = "leave-one-out"        # or "leave-one-benchmark-out"
    ids = ["wavv08.ficon-4g-avg-gain", ...]
    log_errors = [-0.16, ...]       # ln(left-out prediction / measured)

Examples
--------
>>> s = ParameterStore.from_dict({"areas": {"a": {"parameters": {
...     "hold": {"value": 2e-6, "unit": "s", "calibrated": True, "interval": [1e-6, 3e-6]},
...     "scan": {"value": 1e-8, "unit": "s", "calibrated": False}}}}})
>>> s.values()["hold"], sorted(s.calibrated())
(2e-06, ['hold'])
>>> loads(dumps(s)).values() == s.values()
True
"""
from __future__ import annotations

import dataclasses
import functools
import datetime as _dt
import math
import os
import tomllib
import zlib
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["FORMAT", "VERSION", "StoredParameter", "AreaParameters", "ParameterStore", "default_path", "load",
           "default", "save", "dumps", "loads", "from_results", "PRECEDENCE", "EMPTY", "split_normal", "ModelError"]

FORMAT = "zmodel-parameters"
VERSION = 1
#: two stores' elasticities of a ``given`` agree within this (absolute; a finite-difference derivative at
#: an optimum located to its solver's tolerance; below it a factor 1000 of the assumption moves the
#: value by less than 1 %)
GIVEN_ATOL = 1e-3
#: two stores' out-of-sample log errors (:class:`ModelError`) agree within this (absolute: each is a refit's
#: prediction, located to its solver's tolerance; 1e-3 is a 0.1 % relative error)
MODEL_ERROR_ATOL = 1e-3
#: z-value of a two-sided 90 % interval (normal quantile 0.95)
Z90 = 1.6448536269514722
#: area order when two areas hold the same parameter name: an area that *fitted* it wins over
#: one that only holds it at an assumed value (a calibrated value is never overridden by a
#: default), and among areas of the same kind the first listed wins. The composed kernel model
#: is what the planner's predictions solve, so its values come first; then the kernel component
#: areas, then the hardware areas.
PRECEDENCE = ("kernel_versions", "kernel_memory", "kernel_locks", "kernel_iopath", "kernel_hypervisor",
              "kernel_numa", "channels", "storage", "network", "crypto", "usl")


@dataclasses.dataclass(frozen=True)
class StoredParameter:
    """One parameter of one area: value, unit, calibrated or assumed, and its 90 % interval."""

    name: str
    value: float
    unit: str = ""
    calibrated: bool = False
    interval: tuple[float, float] | None = None
    method: str = ""
    source: str = ""
    bounds: tuple[float, float] | None = None
    #: the assumed parameters (of the same area) the value and interval hold for, with the
    #: elasticity d ln value / d ln assumed (:func:`zmodel.calibration.assumption_elasticities`):
    #: a reading that fixes a product fixes each factor only given the others
    given: tuple[tuple[str, float], ...] = ()

    def to_dict(self) -> dict:
        out: dict[str, Any] = {"value": float(self.value), "unit": self.unit, "calibrated": bool(self.calibrated)}
        if self.interval is not None:
            out["interval"] = [float(v) for v in self.interval]
        if self.method:
            out["method"] = self.method
        if self.bounds is not None:
            out["bounds"] = [float(v) for v in self.bounds]
        if self.source:
            out["source"] = self.source
        if self.given:
            out["given"] = {a: float(e) for a, e in self.given}
        return out


def _pair(path: str, value) -> tuple[float, float] | None:
    if value is None:
        return None
    try:
        lo, hi = (float(v) for v in value)
    except (TypeError, ValueError):
        raise ValueError(f"{path} must be a pair of numbers [lo, hi], got {value!r}") from None
    if math.isnan(lo) or math.isnan(hi) or lo > hi:
        raise ValueError(f"{path} must satisfy lo <= hi (no NaN), got [{lo:g}, {hi:g}]")
    return lo, hi


def _given(path: str, value) -> tuple[tuple[str, float], ...]:
    if value is None:
        return ()
    if not isinstance(value, Mapping):
        raise ValueError(f"{path} must be a table of assumed parameter -> elasticity, got {value!r}")
    out = tuple((str(a), _number(f"{path}.{a}", e)) for a, e in value.items())
    if not all(math.isfinite(e) for _, e in out):
        raise ValueError(f"{path} must hold finite elasticities, got {value!r}")
    return out


def _conditioned(value, given, held: Mapping, reference: Mapping):
    """``value`` moved with its assumed parameters: ``value * prod (held[a] / reference[a]) ** e``.

    A calibrated value read off a product (memory = devices x files x bytes per file) holds
    only for the assumed factors the calibration held (``reference``); for other assumed
    values (``held``: a draw, or the value another area holds) the reading still holds, so the
    calibrated factor moves as its elasticities say (exactly, for a product).

    A held zero leaves the value as it is for that factor: the elasticities are derivatives at
    positive assumed values (:func:`zmodel.calibration.assumption_elasticities`, where a held
    zero is an absent term), and the power law carried to zero would be 0 or infinite whatever
    the elasticity (a storage-key cost of 0 at the low end of its range, elasticity -0.005, put
    the dbench CPU per page at its 1 ms bound, 51 times its value).

    Examples
    --------
    >>> _conditioned(1500.0, (("f", -1.0),), {"f": 20.0}, {"f": 10.0})
    750.0
    >>> _conditioned(2e-5, (("k", -0.005),), {"k": 0.0}, {"k": 1e-7})
    2e-05
    """
    for a, e in given:
        if a in held:
            x = np.asarray(held[a], dtype=float)
            with np.errstate(divide="ignore", invalid="ignore"):
                factor = np.where(x == 0.0, 1.0, (x / reference[a]) ** e)
            value = value * (factor if factor.ndim else float(factor))
    return value


def _number(path: str, value) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"{path} must be a number, got {value!r}")
    return float(value)


@functools.cache
def t95(dof: int) -> float:
    """Student's t 95 % point with ``dof`` degrees of freedom (the end of a two-sided 90 % interval).

    >>> round(t95(1), 4), round(t95(10), 4)      # tables: 6.3138, 1.8125
    (6.3138, 1.8125)
    """
    from scipy import stats

    return float(stats.t.ppf(0.95, dof))


def _uniform_or_log(rng: np.random.Generator, lo: float, hi: float, n: int) -> np.ndarray:
    """``n`` draws over a plausible range: uniform, or uniform in the logarithm when the range is
    positive and spans a factor of 10 or more (a scale known only to within decades)."""
    if lo > 0 and hi >= 10 * lo:
        return np.exp(rng.uniform(math.log(lo), math.log(hi), size=n))
    return rng.uniform(lo, hi, size=n)


def draw_around(rng: np.random.Generator, value: float, lo: float, hi: float, n: int) -> np.ndarray:
    """``n`` draws of a value known only as a best guess inside a plausible range.

    The best guess is the median: half the draws fall in ``[lo, value]`` and half in
    ``[value, hi]``, each side drawn by :func:`_uniform_or_log` (uniform, or uniform in the
    logarithm across a decade or more). A range drawn whole instead puts most draws far from a
    guess that sits near one end (a cost guessed at 0.1 us in a range [0, 10 us] would be drawn
    around 5 us), and a prediction's interval can then exclude the prediction itself. A guess at
    an end of its range (or outside it) says nothing about the side it lacks: the whole range is
    drawn, as before.

    Examples
    --------
    >>> x = draw_around(np.random.default_rng(0), 1e-7, 0.0, 1e-5, 10_000)
    >>> round(float(np.median(x)) / 1e-7, 1)   # the guess, not the middle of the range (50)
    1.0
    """
    value, lo, hi = float(value), float(lo), float(hi)
    if not lo < value < hi:
        return _uniform_or_log(rng, lo, hi, n)
    below = rng.uniform(size=n) < 0.5
    return np.where(below, _uniform_or_log(rng, lo, value, n), _uniform_or_log(rng, value, hi, n))


def split_normal(value: float, lo: float, hi: float, z) -> np.ndarray:
    """Standard normal ``z`` mapped to a value whose median is ``value`` and whose 90 % interval is ``[lo, hi]``.

    Two half-normals joined at the value: ``value + z (hi - value) / z90`` above it, ``value + z
    (value - lo) / z90`` below (``z90`` = :data:`Z90`). It is how a stored *profile* interval,
    asymmetric where the fit's chi-square is, is drawn; the ``z`` come from the area's joint normal
    draw, so the parameter keeps the covariance's correlation with the others (a Gaussian copula).

    Examples
    --------
    >>> [round(float(v), 6) for v in split_normal(2.0, 1.0, 5.0, np.array([-Z90, 0.0, Z90]))]
    [1.0, 2.0, 5.0]
    """
    z = np.asarray(z, dtype=float)
    return value + np.where(z < 0, z * (value - lo), z * (hi - value)) / Z90


def _base_seed(seed) -> int:
    """The integer every named stream of one sampling call derives from (:func:`_stream`).

    An integer seed is used as it is; a generator gives one draw of it (so a caller's stream
    still decides the draws); ``None`` takes fresh entropy.
    """
    if isinstance(seed, np.random.Generator):
        return int(seed.integers(2 ** 63))
    if seed is None:
        return int(np.random.SeedSequence().entropy % 2 ** 63)
    return int(seed)


def _stream(base: int, *keys: str) -> np.random.Generator:
    """A generator of its own for each named quantity (an area's joint block, one parameter).

    The draws of a parameter depend on the seed and its name only, not on which other
    parameters are drawn, how, or in what order: a change to one parameter's distribution
    leaves every other draw as it was, and two scenarios sampled with one seed share their
    common parameters' draws (common random numbers: their difference shows the change, not
    sampling noise).
    """
    return np.random.default_rng([base % 2 ** 63, *(zlib.crc32(k.encode()) for k in keys)])


@dataclasses.dataclass(frozen=True)
class ModelError:
    r"""What an area's model misses out of sample: its fit's left-out errors on a log scale.

    ``log_errors`` are the errors of the fit's cross-validation on the documents
    (:func:`zmodel.calibration.out_of_sample_log_errors`: each value row refitted without it,
    or without its benchmark, and predicted; :math:`\ln(p/m)`, a percent change on its growth
    factor), one per row of ``ids``; ``method`` says which cross-validation. They carry what the
    parameters' intervals leave out -- the mechanisms the model lacks -- and some parameter
    uncertainty too (each refit has one row less), so an interval that adds them to the
    parameters' draws errs on the wide side.

    Read as independent draws :math:`e_i \sim N(0, \sigma^2)` of the error a prediction makes,
    :math:`n s^2/\sigma^2 = \sum e_i^2/\sigma^2` is chi-square with :math:`n` degrees of
    freedom and independent of a new prediction's error :math:`e \sim N(0, \sigma^2)`, so
    :math:`e/s = (e/\sigma)/\sqrt{\chi^2_n/n}` is Student-t with :math:`n` degrees of freedom
    (the definition of Student's t): a 90 % interval of the new prediction is its log
    :math:`\pm t_{0.95,n}\,s`, where :math:`s = \sqrt{\sum e_i^2/n}` (a mean error of zero is
    assumed, so a model that errs to one side widens :math:`s` instead of shifting the interval).

    Examples
    --------
    >>> e = ModelError("leave-one-out", ("a", "b"), (0.3, -0.4))
    >>> round(e.scale, 6), e.rows              # sqrt((0.09 + 0.16) / 2)
    (0.353553, 2)
    >>> round(e.half_width(0.90), 4)            # t(0.95; 2) = 2.91999 x 0.353553
    1.0324
    """

    method: str
    ids: tuple[str, ...]
    log_errors: tuple[float, ...]

    def __post_init__(self):
        if len(self.ids) != len(self.log_errors) or not self.ids:
            raise ValueError(f"model_error must have one log error per id and at least one, got "
                             f"{len(self.ids)} ids and {len(self.log_errors)} errors")
        if not all(math.isfinite(float(e)) for e in self.log_errors):
            raise ValueError("model_error.log_errors must be finite numbers")

    @property
    def rows(self) -> int:
        """Rows the errors come from (the degrees of freedom of :attr:`scale`)."""
        return len(self.log_errors)

    @property
    def scale(self) -> float:
        """Root mean square of the log errors."""
        return float(np.sqrt(np.mean(np.square(np.asarray(self.log_errors, dtype=float)))))

    def half_width(self, level: float = 0.90) -> float:
        """Half-width of the two-sided ``level`` interval of a new prediction's log error."""
        from scipy import stats

        if not 0.0 < level < 1.0:
            raise ValueError(f"level must lie in (0, 1), got {level!r}")
        return float(stats.t.ppf(0.5 + level / 2.0, self.rows) * self.scale)

    def draws(self, rng: np.random.Generator, n: int) -> np.ndarray:
        """``n`` draws of a new prediction's log error (``scale`` times Student's t with ``rows`` dof)."""
        return self.scale * rng.standard_t(self.rows, size=n)

    def sample(self, n: int, seed, area: str) -> np.ndarray:
        """``n`` draws (:meth:`draws`) from the stream of ``area``'s model error: one of its own per seed
        and area (:func:`_stream`, as each parameter's), so every prediction sampled with one seed
        shares a fit's error draws, and the parameters' draws do not move."""
        return self.draws(_stream(_base_seed(seed), f"model_error:{area}"), n)

    def to_dict(self) -> dict:
        return {"method": self.method, "ids": list(self.ids), "log_errors": [float(e) for e in self.log_errors]}

    @classmethod
    def from_dict(cls, where: str, m) -> "ModelError":
        if not isinstance(m, Mapping):
            raise ValueError(f"{where} must be a table, got {type(m).__name__}")
        ids, errs = m.get("ids", ()), m.get("log_errors", ())
        if isinstance(ids, str) or not all(isinstance(i, str) for i in ids):
            raise ValueError(f"{where}.ids must be a list of row ids")
        return cls(method=str(m.get("method", "")), ids=tuple(ids),
                   log_errors=tuple(_number(f"{where}.log_errors", e) for e in errs))


@dataclasses.dataclass(frozen=True)
class AreaParameters:
    """The stored calibration of one area."""

    area: str
    parameters: Mapping[str, StoredParameter]
    title: str = ""
    origin: str = "documents"
    rows: tuple[str, ...] = ()
    covariance_names: tuple[str, ...] = ()
    covariance: np.ndarray | None = None
    derived: Mapping[str, tuple[str, ...]] = dataclasses.field(default_factory=dict)
    #: the fit's out-of-sample errors (None: not estimated -- not a catalog fit, or no value row)
    model_error: ModelError | None = None
    #: degrees of freedom of the covariance's scale where the fit estimated it from its own residuals
    #: (``scale_covar``): its covariance intervals are Student-t and its joint draws multivariate t
    #: with this many degrees of freedom; None: a known scale, normal
    covariance_dof: int | None = None

    def values(self, held: Mapping[str, float] | None = None) -> dict[str, float]:
        """Name -> value, derived products included.

        ``held`` gives other values of assumed parameters (another area's, a planner's): a
        calibrated value that holds given an assumed one (:attr:`StoredParameter.given`)
        moves with it, and the derived products follow.
        """
        out = {n: p.value for n, p in self.parameters.items()}
        self._condition(out, held)
        for name, factors in self.derived.items():
            out[name] = float(np.prod([out[f] for f in factors]))
        return out

    def _condition(self, out: dict, held: dict | None) -> None:
        """Move, in place, each calibrated value of ``out`` with the assumed values it was calibrated given.

        The assumed values are ``held``'s where it names them, else ``out``'s (this area's own,
        drawn or not). Where the moved value would leave its bounds the draw of the assumed value
        is inadmissible under the calibration (a thousand sysfs files per device would leave
        each file less memory than an inode takes): the value stops at its bound and the drawn
        assumed value with the largest elasticity is moved, in ``held`` or ``out``, to where the
        reading still holds (the mass beyond the admissible range lands on its edge).
        """
        reference = {n: p.value for n, p in self.parameters.items()}
        for name, p in self.parameters.items():
            if not (p.given and p.calibrated):
                continue
            src = {a: (held[a] if held is not None and a in held else out[a]) for a, _ in p.given}
            v = _conditioned(out[name], p.given, src, reference)
            if p.bounds is not None and np.ndim(v):
                c = np.clip(v, p.bounds[0], p.bounds[1])
                moved = c != v
                drawn = [(a, e) for a, e in p.given if np.ndim(src[a]) and e != 0]
                if moved.any() and drawn:
                    a, e = max(drawn, key=lambda t: abs(t[1]))
                    where = held if held is not None and a in held else out
                    # value = v0 (a / a_ref) ** e: at the bound c the reading holds for a (c / v) ** (1 / e)
                    where[a] = np.where(moved, np.asarray(src[a], dtype=float) * (c / np.where(moved, v, 1.0))
                                        ** (1.0 / e), src[a])
                v = c
            elif not np.ndim(v):   # a value, not draws: a float, within its bounds
                v = float(v) if p.bounds is None else min(max(float(v), p.bounds[0]), p.bounds[1])
            out[name] = v

    def sample(self, n: int, rng: np.random.Generator | int, names: Iterable[str] | None = None,
               vary_assumed: bool = False, held: dict | None = None) -> dict[str, np.ndarray]:
        """``n`` draws of the area's parameters (derived products rebuilt), see :meth:`ParameterStore.sample`.

        With ``vary_assumed`` the area's assumed parameters are drawn too, over their stored
        plausible range around their value (:func:`draw_around`); otherwise they are held.
        ``rng`` is a seed or a generator; each parameter (and the jointly normal block) draws
        from a stream of its own (:func:`_stream`). A calibrated parameter that holds given
        assumed ones (:attr:`StoredParameter.given`) moves with their draws, or with ``held``
        (a dict name -> value or draws) where it names them: the reading it was calibrated to
        keeps holding (an assumed draw it cannot admit is moved, in ``held`` or in the result).
        """
        base = _base_seed(rng)
        names = list(self.parameters) if names is None else [m for m in names if m in self.parameters]
        out = {m: np.full(n, self.parameters[m].value) for m in self.parameters}
        def in_joint(p):   # drawn from the joint normal: a covariance interval, or a profile one's copula
            return p.calibrated and (p.method == "covariance" or (p.method == "profile" and p.interval is not None))

        joint = [m for m in self.covariance_names if in_joint(self.parameters[m])]
        if joint and self.covariance is not None:
            idx = [self.covariance_names.index(m) for m in joint]
            cov = np.asarray(self.covariance)[np.ix_(idx, idx)]
            mean = np.array([self.parameters[m].value for m in joint])
            draws = _stream(base, self.area, "covariance", *joint).multivariate_normal(
                mean, cov, size=n, method="eigh", check_valid="ignore")
            # multivariate t: each normal draw's deviation scaled by sqrt(nu / chi2_nu), one per draw
            w = self._t_scale(base, n)
            for k, m in enumerate(joint):
                p = self.parameters[m]
                if p.method == "profile":   # the covariance's correlation, the profile's margin
                    sd = math.sqrt(cov[k, k]) if cov[k, k] > 0 else math.nan
                    z = ((draws[:, k] - mean[k]) / sd if math.isfinite(sd)   # no variance: a margin of its own
                         else _stream(base, self.area, m).standard_normal(size=n))
                    out[m] = split_normal(p.value, p.interval[0], p.interval[1], z)
                else:
                    out[m] = mean[k] + (draws[:, k] - mean[k]) * w
        for m in names:
            p = self.parameters[m]
            if not p.calibrated or m in joint:
                continue
            own = _stream(base, self.area, m)
            if p.method == "covariance" and p.interval is not None:  # no joint matrix: marginal normal (or t)
                sd = (p.interval[1] - p.interval[0]) / (2 * self.covariance_quantile())
                out[m] = (own.normal(p.value, sd, size=n) if self.covariance_dof is None
                          else p.value + sd * own.standard_t(self.covariance_dof, size=n))
            elif p.method == "profile" and p.interval is not None:   # no joint matrix: its own margin
                out[m] = split_normal(p.value, p.interval[0], p.interval[1], own.standard_normal(size=n))
            elif p.interval is not None:                             # a range (readings)
                out[m] = own.uniform(p.interval[0], p.interval[1], size=n)
            elif p.bounds is not None:                               # not determined: its plausible range
                out[m] = draw_around(own, p.value, p.bounds[0], p.bounds[1], n)
        if vary_assumed:
            for m in names:
                p = self.parameters[m]
                if not p.calibrated and p.bounds is not None and p.bounds[0] < p.bounds[1]:
                    out[m] = draw_around(_stream(base, self.area, m), p.value, p.bounds[0], p.bounds[1], n)
        self._condition(out, held)
        for m in names:
            b = self.parameters[m].bounds
            if b is not None:
                out[m] = np.clip(out[m], b[0], b[1])
        for name, factors in self.derived.items():
            out[name] = np.prod([out[f] for f in factors], axis=0)
        return out

    def covariance_quantile(self) -> float:
        """The 95 % point that makes a covariance interval 90 %: Student's t at :attr:`covariance_dof`, else
        the normal's (:data:`Z90`)."""
        return Z90 if self.covariance_dof is None else t95(self.covariance_dof)

    def _t_scale(self, base: int, n: int) -> np.ndarray:
        """Per draw, sqrt(nu / chi2_nu) (a multivariate t from a normal draw), or ones without a dof."""
        if self.covariance_dof is None:
            return np.ones(n)
        nu = self.covariance_dof
        return np.sqrt(nu / _stream(base, self.area, "covariance", "chi2").chisquare(nu, size=n))

    def to_dict(self) -> dict:
        out: dict[str, Any] = {"title": self.title, "origin": self.origin, "rows": list(self.rows),
                               "parameters": {n: p.to_dict() for n, p in self.parameters.items()}}
        if self.covariance_dof is not None:
            out["covariance_dof"] = int(self.covariance_dof)
        if self.derived:
            out["derived"] = {n: list(f) for n, f in self.derived.items()}
        if self.covariance is not None and len(self.covariance_names):
            out["covariance"] = {"names": list(self.covariance_names),
                                 "matrix": [[float(v) for v in row] for row in np.asarray(self.covariance)]}
        if self.model_error is not None:
            out["model_error"] = self.model_error.to_dict()
        return out

    @classmethod
    def from_dict(cls, area: str, m: Mapping) -> "AreaParameters":
        where = f"areas.{area}"
        if not isinstance(m, Mapping):
            raise ValueError(f"{where} must be a table, got {type(m).__name__}")
        params = {}
        for name, p in dict(m.get("parameters", {})).items():
            pw = f"{where}.parameters.{name}"
            if not isinstance(p, Mapping) or "value" not in p:
                raise ValueError(f"{pw} must be a table with a value")
            params[name] = StoredParameter(
                name=name, value=_number(f"{pw}.value", p["value"]), unit=str(p.get("unit", "")),
                calibrated=bool(p.get("calibrated", False)), interval=_pair(f"{pw}.interval", p.get("interval")),
                method=str(p.get("method", "")), source=str(p.get("source", "")),
                bounds=_pair(f"{pw}.bounds", p.get("bounds")), given=_given(f"{pw}.given", p.get("given")))
        for name, p in params.items():
            for a, _ in p.given:
                if a not in params or params[a].calibrated or params[a].value <= 0:
                    raise ValueError(f"{where}.parameters.{name}.given.{a} must name a positive assumed "
                                     f"(not calibrated) parameter of the area")
        derived = {}
        for name, factors in dict(m.get("derived", {})).items():
            if isinstance(factors, str) or not all(isinstance(f, str) and f in params for f in factors):
                raise ValueError(f"{where}.derived.{name} must list parameters of the area, got {factors!r}")
            derived[name] = tuple(factors)
        names, cov = (), None
        if "covariance" in m:
            c = m["covariance"]
            names = tuple(c.get("names", ()))
            cov = np.asarray(c.get("matrix", []), dtype=float)
            if cov.shape != (len(names), len(names)) or not all(n in params for n in names):
                raise ValueError(f"{where}.covariance must be a square matrix over parameters of the area")
        error = ModelError.from_dict(f"{where}.model_error", m["model_error"]) if "model_error" in m else None
        dof = m.get("covariance_dof")
        if dof is not None and (isinstance(dof, bool) or not isinstance(dof, int) or dof < 1):
            raise ValueError(f"{where}.covariance_dof must be a positive integer, got {dof!r}")
        return cls(area=area, parameters=params, title=str(m.get("title", "")), origin=str(m.get("origin", "")),
                   rows=tuple(m.get("rows", ())), covariance_names=names, covariance=cov, derived=derived,
                   model_error=error, covariance_dof=dof)


@dataclasses.dataclass(frozen=True)
class ParameterStore:
    """Calibrated parameters by area (see the module docstring)."""

    areas: Mapping[str, AreaParameters]
    code_version: str = ""
    created: str = ""
    path: str = ""

    # ------------------------------------------------------------------ queries
    def _order(self) -> list[str]:
        known = [a for a in PRECEDENCE if a in self.areas]
        return known + sorted(a for a in self.areas if a not in PRECEDENCE)

    def where(self, name: str) -> str | None:
        """The area whose value of ``name`` predictions use (:data:`PRECEDENCE`), or None.

        An area that calibrated ``name`` (or derives it from calibrated factors) comes before
        one that holds it at an assumed value; within each kind, :data:`PRECEDENCE` decides.
        """
        return self._winners.get(name)

    @functools.cached_property
    def _winners(self) -> dict[str, str]:
        """Name -> the area :meth:`where` names, for every name of every area (computed once)."""
        order = self._order()
        names = dict.fromkeys(n for a in order for n in (*self.areas[a].parameters, *self.areas[a].derived))
        out = {}
        for name in names:
            holders = [a for a in order if name in self.areas[a].parameters or name in self.areas[a].derived]
            fitted = [a for a in holders if self._fitted_in(a, name)]
            out[name] = (fitted or holders)[0]
        return out

    def _fitted_in(self, area: str, name: str) -> bool:
        a = self.areas[area]
        if name in a.parameters:
            return a.parameters[name].calibrated
        return any(a.parameters[f].calibrated for f in a.derived[name] if f in a.parameters)

    def values(self) -> dict[str, float]:
        """Name -> value over every area, the area of :meth:`where` winning."""
        return dict(self._values)

    @functools.cached_property
    def _values(self) -> dict[str, float]:
        plain = self._winning({area: self.areas[area].values() for area in self._order()})
        # a value calibrated given an assumed one follows the value predictions use of the latter
        return self._held_values(plain) if self._has_given else plain

    @functools.cached_property
    def _has_given(self) -> bool:
        return any(p.given for a in self.areas.values() for p in a.parameters.values())

    def _winning(self, per_area: Mapping[str, Mapping[str, float]]) -> dict[str, float]:
        """Name -> the value of the area :meth:`where` names, from per-area values."""
        return {name: per_area[area][name] for name, area in self._winners.items()}

    def _held_values(self, held: dict) -> dict[str, float]:
        """The winning values with every area conditioned on the assumed values ``held`` (:meth:`AreaParameters.values`)."""
        return self._winning({area: self.areas[area].values(held=held) for area in self._order()})

    def conditioned(self, overrides: Mapping[str, float]) -> dict[str, float]:
        """:meth:`values` with some values replaced (``overrides``): a calibrated value that holds
        given a replaced assumed one (:attr:`StoredParameter.given`) moves with it, unless it is
        replaced itself.

        Examples
        --------
        >>> s = ParameterStore.from_dict({"areas": {"m": {"parameters": {
        ...     "b": {"value": 1500.0, "calibrated": True, "interval": [1000.0, 2000.0], "given": {"f": -1.0}},
        ...     "f": {"value": 10.0}}}}})
        >>> s.conditioned({"f": 20.0})["b"]     # the reading fixes b x f
        750.0
        """
        over = {k: float(v) for k, v in overrides.items()}
        if not over or not self._has_given:
            return {**self.values(), **over}
        return {**self._held_values({**self.values(), **over}), **over}

    def given(self, name: str) -> tuple[str, ...]:
        """The assumed parameters the winning value of ``name`` was calibrated given (empty for most)."""
        area = self.where(name)
        p = self.areas[area].parameters.get(name) if area is not None else None
        return tuple(a for a, _ in p.given) if p is not None and p.calibrated else ()

    def calibrated(self) -> set[str]:
        """Names whose value (in the winning area) was fitted, derived products of fitted ones included."""
        return {name for name in self.values() if self._fitted_in(self.where(name), name)}

    def parameter(self, name: str) -> StoredParameter:
        """The stored entry of ``name`` in its winning area."""
        area = self.where(name)
        if area is None or name not in self.areas[area].parameters:
            raise KeyError(name)
        return self.areas[area].parameters[name]

    def table(self):
        """One row per (area, parameter): value, unit, calibrated, interval, method, used (wins)."""
        import pandas as pd

        rows = []
        for area in self._order():
            for name, p in self.areas[area].parameters.items():
                lo, hi = p.interval if p.interval is not None else (math.nan, math.nan)
                rows.append(dict(area=area, name=name, value=p.value, unit=p.unit, calibrated=p.calibrated,
                                 lo90=lo, hi90=hi, method=p.method, used=self.where(name) == area,
                                 source=p.source))
        return pd.DataFrame(rows, columns=["area", "name", "value", "unit", "calibrated", "lo90", "hi90",
                                           "method", "used", "source"])

    def sample(self, n: int, seed: int | np.random.Generator | None = 0, names: Iterable[str] | None = None,
               assumed_ranges: Mapping[str, tuple[float, float]] | None = None,
               assumed_values: Mapping[str, float] | None = None) -> dict[str, np.ndarray]:
        """``n`` joint draws of the parameters a prediction uses: name -> array of shape ``(n,)``.

        Calibrated parameters come from their fitted distribution: jointly normal with the
        stored covariance (``method = "covariance"``), uniform over a stored range (profile
        or readings intervals), over their plausible bounds when the data did not determine
        them. Assumed parameters (held at a default or a reading in every area) are drawn
        over ``assumed_ranges`` (their ``param()`` metadata range) when given, else kept at
        their value. A plausible range is drawn around the parameter's value, its best
        guess, as the median (:func:`draw_around`): half the draws on each side, each side
        uniformly, or uniformly in the logarithm when it is positive and spans a factor of 10
        or more (a scale known to within decades: the log-uniform law gives each decade the
        same weight, Jeffreys' prior for a scale, H. Jeffreys, *Theory of Probability*, 3rd
        ed., Oxford 1961, sec. 3.1). Draws are clipped to the parameter's bounds;
        derived products are rebuilt from the draws.

        Parameters
        ----------
        n : int
            Number of draws.
        seed : int or numpy.random.Generator
            Seed (reproducible draws) or a generator (one integer is drawn from it). Each
            parameter draws from a stream of its own, keyed by the seed, its area and its name
            (:func:`_stream`): its draws do not move when another parameter's distribution, or
            the set of parameters drawn, changes.
        names : iterable of str, optional
            Names wanted (default: every stored name); names neither stored nor in
            ``assumed_ranges`` are left out.
        assumed_ranges : mapping name -> (lo, hi), optional
            Plausible ranges of the parameters that are not calibrated.
        assumed_values : mapping name -> float, optional
            Best guesses of those parameters, the medians of their draws (default: the
            stored values; a name with neither is drawn over its whole range).
        """
        from zmodel.conventions import as_count

        n = as_count("n", n)
        base = _base_seed(seed)   # every parameter draws from a stream of its own (_stream)
        ranges = dict(assumed_ranges or {})
        wanted = list(self.values()) if names is None else list(dict.fromkeys(names))
        calibrated = self.calibrated()
        out: dict[str, np.ndarray] = {}
        guesses = {**self.values(), **dict(assumed_values or {})}
        assumed = {}
        for name in wanted:
            if name not in calibrated and name in ranges:
                lo, hi = ranges[name]
                assumed[name] = draw_around(_stream(base, "assumed", name), guesses.get(name, math.nan), lo, hi, n)
        # a calibrated value that holds given an assumed one moves with that one's draws (or value);
        # an assumed draw it cannot admit is moved to the edge of the admissible range (in held)
        held = {**self.values(), **assumed}
        per_area = {a: self.areas[a].sample(n, base, held=held) for a in self._order()}
        for name in wanted:
            area = self.where(name)
            if name in calibrated:
                out[name] = per_area[area][name]
            elif name in assumed:
                out[name] = held[name]
            elif area is not None:
                out[name] = per_area[area][name]
        return out

    def replace_area(self, area: AreaParameters) -> "ParameterStore":
        """A store with ``area`` added or replacing the stored one of the same name."""
        return dataclasses.replace(self, areas={**self.areas, area.area: area})

    # ------------------------------------------------------------------ (de)serialisation
    def to_dict(self) -> dict:
        return {"format": FORMAT, "version": VERSION, "code_version": self.code_version, "created": self.created,
                "areas": {a: self.areas[a].to_dict() for a in self._order()}}

    @classmethod
    def from_dict(cls, m: Mapping, path: str = "") -> "ParameterStore":
        if not isinstance(m, Mapping):
            raise ValueError("parameter store must be a table")
        fmt = m.get("format", FORMAT)
        if fmt != FORMAT:
            raise ValueError(f"format must be {FORMAT!r}, got {fmt!r}")
        version = m.get("version", VERSION)
        if version != VERSION:
            raise ValueError(f"version must be {VERSION} (this zmodel's store format), got {version!r}")
        areas = m.get("areas", {})
        if not isinstance(areas, Mapping):
            raise ValueError("areas must be a table of calibration areas")
        return cls(areas={a: AreaParameters.from_dict(a, v) for a, v in areas.items()},
                   code_version=str(m.get("code_version", "")), created=str(m.get("created", "")), path=path)


#: a store with no calibrated area (every parameter at its declared default)
EMPTY = ParameterStore(areas={})


# --------------------------------------------------------------------------- TOML
def _toml_str(s: str) -> str:
    out = ['"']
    for ch in s:
        if ch == "\\":
            out.append("\\\\")
        elif ch == '"':
            out.append('\\"')
        elif ch == "\n":
            out.append("\\n")
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def _toml_value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return repr(v)
    if isinstance(v, str):
        return _toml_str(v)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    raise TypeError(f"cannot write {type(v).__name__} to TOML")


def _key(k: str) -> str:
    return k if k and all(c.isalnum() or c in "_-" for c in k) else _toml_str(k)


def _emit(table: Mapping, prefix: tuple[str, ...], lines: list[str]) -> None:
    scalars = {k: v for k, v in table.items() if not isinstance(v, Mapping)}
    subs = {k: v for k, v in table.items() if isinstance(v, Mapping)}
    if prefix and (scalars or not subs):
        lines.append("")
        lines.append("[" + ".".join(_key(p) for p in prefix) + "]")
    for k, v in scalars.items():
        lines.append(f"{_key(k)} = {_toml_value(v)}")
    for k, v in subs.items():
        _emit(v, prefix + (k,), lines)


def dumps(store: ParameterStore) -> str:
    """The store as TOML text (floats written with ``repr``: they read back exactly)."""
    lines = ["# zmodel parameter store: written by `zmodel calibrate --save` / `make report`; see zmodel/store.py"]
    _emit(store.to_dict(), (), lines)
    return "\n".join(lines) + "\n"


def loads(text: str, path: str = "") -> ParameterStore:
    """Parse TOML text of a store; a malformed one raises ``ValueError`` naming the key."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"not a valid TOML parameter store: {exc}") from None
    return ParameterStore.from_dict(data, path=path)


# --------------------------------------------------------------------------- files
def default_path(data_dir=None) -> Path:
    """``params/parameters.toml`` in the data folder (:func:`zmodel.hardware.catalog.data_folder`)."""
    from zmodel.hardware.catalog import data_folder

    return data_folder(data_dir) / "params" / "parameters.toml"


#: the largest store file read [B]
MAX_BYTES = 16 * 2 ** 20


def load(path: str | os.PathLike | None = None) -> ParameterStore:
    """Read a store; ``None``: the shipped one (:func:`default_path`), empty if it is absent.

    Raises ``ValueError`` naming the file for a missing, unreadable or malformed explicit file.
    """
    if path is None:
        p = default_path()
        if not p.is_file():
            return EMPTY
    else:
        p = Path(path)
        if not p.is_file():
            raise ValueError(f"{p}: parameter store not found (must be a regular file)")
        if p.stat().st_size > MAX_BYTES:
            raise ValueError(f"{p}: parameter store larger than {MAX_BYTES} bytes")
    try:
        text = p.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"{p}: cannot read the parameter store: {exc}") from None
    try:
        return loads(text, path=str(p))
    except ValueError as exc:
        raise ValueError(f"{p}: {exc}") from None


_DEFAULT: dict[str, ParameterStore] = {}


def default() -> ParameterStore:
    """The shipped store, read once per process and data folder (see :func:`load`)."""
    key = str(default_path())
    if key not in _DEFAULT:
        _DEFAULT[key] = load()
    return _DEFAULT[key]


def save(store: ParameterStore, path: str | os.PathLike) -> None:
    """Write ``store`` as TOML to ``path`` (through a temporary file, then renamed)."""
    p = Path(path)
    text = dumps(store)
    tmp = p.with_name(f".{p.name}.tmp{os.getpid()}")
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, p)
    finally:
        if tmp.exists():
            tmp.unlink()
    _DEFAULT.pop(str(p), None)


# --------------------------------------------------------------------------- from calibrations
def _version() -> str:
    try:
        from importlib.metadata import version

        return version("zmodel")
    except Exception:  # noqa: BLE001 - not installed: a checkout
        return "unknown"


def area_from_result(area: str, result, *, title: str = "", origin: str = "documents",
                     derived: Mapping[str, Iterable[str]] | None = None) -> AreaParameters:
    """The stored form of one :class:`zmodel.calibration.CalibrationResult`.

    A free parameter is *calibrated*; its 90 % interval is the result's ``lo90``/``hi90``
    when the parameter table has them (with ``interval_method``), else value ±
    :math:`t_{0.95,\nu}` standard errors (``covariance``; Student's t with the fit's
    :math:`\nu` degrees of freedom where it estimated its residuals' scale, ``scale_covar``: the
    posterior of a linear model's coefficients with an unknown error variance is multivariate t
    with :math:`\nu` degrees of freedom, which is how :meth:`AreaParameters.sample` then draws
    them; 1.645, the normal's, where the scale is known or the fit has priors, whose information has
    a stated scale) cut to the parameter's bounds (the physical limits
    the draws are clipped to as well: a hold time is never negative), else none (not
    identifiable: a sampler then uses its plausible range); a readings range keeps the assumed
    parameters it holds given (``given``, their elasticities). Fixed parameters are stored as assumed, with their value. A
    free parameter with a prior (a public specification) stores the prior-informed value and
    interval; its method says so.
    """
    t = result.parameter_table
    dof = int(getattr(result, "dof", 0) or 0)
    # a scale estimated from the fit's own residuals (scale_covar, dof > 0): Student's t, as the fit's own
    # 95 % intervals (zmodel.calibration.tables); else the normal's. A fit with priors keeps the normal:
    # its covariance rescales only the measurement rows, and the priors' information has a stated scale
    with_priors = bool(getattr(result, "n_priors", 0))
    covariance_dof = dof if getattr(result, "scale_covar", False) and dof > 0 and not with_priors else None
    q90 = Z90 if covariance_dof is None else t95(covariance_dof)
    priors = getattr(result, "priors", None)
    with_prior = set(priors.index) if priors is not None else set()
    params = {}
    for name, row in t.iterrows():
        free = bool(row.get("vary", False))
        interval, method = None, ""
        bounds = None
        if np.isfinite(row.get("min", math.nan)) and np.isfinite(row.get("max", math.nan)):
            bounds = (float(row["min"]), float(row["max"]))
        if free:
            lo, hi = row.get("lo90", math.nan), row.get("hi90", math.nan)
            if np.isfinite(lo) and np.isfinite(hi):
                interval, method = (float(lo), float(hi)), str(row.get("interval_method", "") or "interval")
            elif np.isfinite(row.get("stderr", math.nan)) and bool(row.get("identifiable", True)):
                se = float(row["stderr"])
                lo, hi = float(row["value"]) - q90 * se, float(row["value"]) + q90 * se
                if bounds is not None:
                    lo, hi = max(lo, bounds[0]), min(hi, bounds[1])
                interval, method = (lo, hi), "covariance"
            else:
                method = "not determined by the data: sample the plausible range"
            if name in with_prior:   # the value and interval are posterior: documents and specification
                method += " (with the public specification as prior)"
        given = row.get("given") if free and interval is not None else None
        given = tuple((str(a), float(e)) for a, e in given.items()) if isinstance(given, Mapping) else ()
        params[str(name)] = StoredParameter(name=str(name), value=float(row["value"]), unit=str(row.get("unit", "")),
                                            calibrated=free, interval=interval, method=method,
                                            source=str(row.get("source", "")), bounds=bounds, given=given)
    cov = getattr(result, "covariance", None)
    names, matrix = (), None
    if cov is not None and len(cov):
        ok = [n for n in cov.index if np.all(np.isfinite(cov.loc[n].to_numpy()))]
        if ok:
            names, matrix = tuple(ok), cov.loc[ok, ok].to_numpy(dtype=float)
    rows = ()
    res = getattr(result, "residuals", None)
    if res is not None and "used_in_fit" in res:
        rows = tuple(str(i) for i in res.loc[res["used_in_fit"].astype(bool), "id"])
    return AreaParameters(area=area, parameters=params, title=title, origin=origin, rows=rows,
                          covariance_names=names, covariance=matrix,
                          derived={k: tuple(v) for k, v in (derived or {}).items()}, covariance_dof=covariance_dof)


def from_results(results: Mapping[str, tuple], *, created: str | None = None) -> ParameterStore:
    """A store from ``{area: (result, title, derived)}`` of catalog calibrations."""
    areas = {}
    for area, (result, title, derived) in results.items():
        if not hasattr(result, "parameter_table"):
            continue  # not a least-squares calibration (e.g. the DASD histogram): nothing to store
        areas[area] = area_from_result(area, result, title=title, derived=derived)
    return ParameterStore(areas=areas, code_version=_version(),
                          created=created or _dt.date.today().isoformat())


def same_values(a: ParameterStore, b: ParameterStore, rtol: float = 1e-6,
                interval_fraction: float = 0.01) -> list[str]:
    """Differences between two stores' areas, values and plausible ranges (empty when they agree).

    Two values agree when they are within ``rtol`` of each other, or, for a parameter with a
    90 % interval in both stores, within ``interval_fraction`` of the narrower interval's width
    (the ends of the interval are compared alike; an interval in one store only is a difference;
    the elasticities of ``given`` agree within :data:`GIVEN_ATOL`, an absent one counting as 0):
    a least-squares optimum is located only to its solver's tolerance, and where the data
    determine a parameter loosely (a wide interval) the stopping point moves with the last bits
    of the machine's arithmetic (1e-5 relative between two x86-64 machines for the kernel-version
    fit) -- far below anything its interval or a prediction can show.

    Examples
    --------
    >>> a = ParameterStore.from_dict({"areas": {"x": {"parameters": {"h": {"value": 1.0, "unit": "s",
    ...     "calibrated": True, "interval": [0.5, 1.5]}}}}})
    >>> b = ParameterStore.from_dict({"areas": {"x": {"parameters": {"h": {"value": 1.005, "unit": "s",
    ...     "calibrated": True, "interval": [0.5, 1.5]}}}}})
    >>> same_values(a, b)
    []
    >>> same_values(a, b, interval_fraction=0.001)
    ['x.h: 1.0 vs 1.005']
    """
    out = []
    for area in sorted(set(a.areas) | set(b.areas)):
        if area not in a.areas or area not in b.areas:
            out.append(f"area {area!r} in only one store")
            continue
        pa, pb = a.areas[area].parameters, b.areas[area].parameters
        for name in sorted(set(pa) | set(pb)):
            if name not in pa or name not in pb:
                out.append(f"{area}.{name} in only one store")
                continue
            x, y = pa[name].value, pb[name].value
            slack = rtol * max(abs(x), abs(y))
            if pa[name].interval is not None and pb[name].interval is not None:
                width = min(pa[name].interval[1] - pa[name].interval[0],
                            pb[name].interval[1] - pb[name].interval[0])
                slack = max(slack, interval_fraction * width)
            if not (x == y or abs(x - y) <= slack):
                out.append(f"{area}.{name}: {x!r} vs {y!r}")
            ia, ib = pa[name].interval, pb[name].interval
            if (ia is None) != (ib is None):
                out.append(f"{area}.{name}: interval {ia!r} vs {ib!r}")
            elif ia is not None and any(not (u == v or abs(u - v) <= slack) for u, v in zip(ia, ib)):
                # the ends move with the optimum's last bits as the value does: the same slack
                out.append(f"{area}.{name}: interval {list(ia)!r} vs {list(ib)!r}")
            if pa[name].calibrated != pb[name].calibrated:
                out.append(f"{area}.{name}: calibrated {pa[name].calibrated} vs {pb[name].calibrated}")
            if pa[name].bounds != pb[name].bounds:   # the plausible range the planner draws from
                out.append(f"{area}.{name}: bounds {pa[name].bounds!r} vs {pb[name].bounds!r}")
            ga, gb = dict(pa[name].given), dict(pb[name].given)
            if any(abs(ga.get(k, 0.0) - gb.get(k, 0.0)) > GIVEN_ATOL for k in set(ga) | set(gb)):
                out.append(f"{area}.{name}: given {ga!r} vs {gb!r}")
        if a.areas[area].covariance_dof != b.areas[area].covariance_dof:
            out.append(f"{area}: covariance_dof {a.areas[area].covariance_dof!r} vs {b.areas[area].covariance_dof!r}")
        ea, eb = a.areas[area].model_error, b.areas[area].model_error
        if (ea is None) != (eb is None) or (ea is not None and (
                ea.method != eb.method or ea.ids != eb.ids
                or any(abs(u - v) > MODEL_ERROR_ATOL for u, v in zip(ea.log_errors, eb.log_errors)))):
            out.append(f"{area}: model error {None if ea is None else ea.to_dict()!r} vs "
                       f"{None if eb is None else eb.to_dict()!r}")
    return out
