"""Every calibration has the same entry points; every model parameter a fit uses is declared once.

Issue 10 parts 1, 2 and 6. A model's tunable costs live in a frozen dataclass whose fields
are :func:`zmodel.queueing._params.param` declarations (default, unit, plausible range,
provenance); a fit derives its :class:`~zmodel.calibration.Parameters` from them
(``Parameters.from_dataclass``) and maps the values back (``to_dataclass``). The checks are
functions that return the problems they find, so that each is shown failing on a
deliberately broken declaration or calibration written in this file.
"""
import dataclasses
import importlib
import inspect
import math

import pytest

from zmodel.calibration import Parameters
from zmodel.queueing._params import _KEY, is_parameter_class, param, parameter_info


# ------------------------------------------------------------------------------ checkers
def metadata_problems(cls) -> list[str]:
    """What is missing from a model parameter dataclass: every field a param() with unit,
    finite range lo <= default <= hi and a non-empty provenance (nested parameter classes
    are checked in turn)."""
    problems = []
    for f in dataclasses.fields(cls):
        where = f"{cls.__name__}.{f.name}"
        nested = f.default_factory if f.default_factory is not dataclasses.MISSING else None
        if isinstance(nested, type) and is_parameter_class(nested):
            problems += metadata_problems(nested)
            continue
        meta = f.metadata.get(_KEY)
        if meta is None:
            problems.append(f"{where} is not declared with param()")
            continue
        lo, hi = meta.get("range", (math.nan, math.nan))
        if not (isinstance(meta.get("unit"), str) and meta["unit"].strip()):
            problems.append(f"{where} has no unit")
        if not (isinstance(meta.get("source"), str) and meta["source"].strip()):
            problems.append(f"{where} has no provenance")
        if not (math.isfinite(lo) and math.isfinite(hi)):
            problems.append(f"{where}: plausible range ({lo}, {hi}) is not finite")
        elif not (lo <= f.default <= hi):
            problems.append(f"{where}: default {f.default} is outside its range ({lo}, {hi})")
    return problems


ENTRY_POINTS = ("run", "cross_validate", "measurements", "measurements_with", "__call__")


def entry_point_problems(cal) -> list[str]:
    """How a registered calibration differs from the one shape every area has."""
    from zmodel.fits import LAYERS, Calibration

    area = getattr(cal, "area", repr(cal))
    if not isinstance(cal, Calibration):
        return [f"{area}: not a zmodel.fits.Calibration ({type(cal).__name__})"]
    problems = [f"{area}: {name} is not callable" for name in ENTRY_POINTS if not callable(getattr(cal, name, None))]
    if cal.layer not in LAYERS or not cal.area or not cal.title:
        problems.append(f"{area}: layer, area and title must be set")
    # the entry points are the class's, not replaced per area
    for name in ENTRY_POINTS:
        if name in vars(cal) or getattr(type(cal), name, None) is not getattr(Calibration, name, None):
            problems.append(f"{area}: {name} is overridden")
    if list(inspect.signature(cal.run).parameters) != ["options"]:
        problems.append(f"{area}: run takes other arguments than **options")
    if list(inspect.signature(cal.cross_validate).parameters) != ["progress", "options"]:
        problems.append(f"{area}: cross_validate takes other arguments than (progress, **options)")
    if (cal.model is None) == (cal.fit is None):
        problems.append(f"{area}: give exactly one of model or fit")
    if cal.model is None and cal.validate is None:
        problems.append(f"{area}: a fit without a model needs validate (its out-of-sample table)")
    return problems


def parameter_classes_of(cal) -> list[type]:
    """The model parameter dataclasses a calibration's fit module uses (imports)."""
    module = importlib.import_module(cal.model.__module__ if cal.model is not None else cal.fit.__module__)
    return [obj for obj in vars(module).values()
            if isinstance(obj, type) and is_parameter_class(obj) and obj.__module__.startswith(("zmodel.hardware",
                                                                                               "zmodel.kernel"))]


def derivation_problems(cal, classes=None) -> list[str]:
    """Fit parameters named like a declared model parameter that do not carry its declaration."""
    problems = []
    ps = cal.model().parameters()
    for cls in parameter_classes_of(cal) if classes is None else classes:
        for name, info in parameter_info(cls).items():
            if name not in ps:
                continue
            p = ps[name]
            where = f"{cal.area}: {name} ({cls.__name__})"
            if (p.min, p.max) != info.range:
                problems.append(f"{where}: bounds ({p.min}, {p.max}) are not the declared range {info.range}")
            if p.unit != info.unit:
                problems.append(f"{where}: unit {p.unit!r} is not the declared {info.unit!r}")
            if info.source not in p.source:
                problems.append(f"{where}: provenance is not the declared one")
    return problems


def _registered():
    from zmodel.fits import registry

    return registry.calibrations()


def _catalog_fits():
    return [c for c in _registered() if c.model is not None]


# ------------------------------------------------------------------------------ the package
def test_every_registered_calibration_has_the_same_entry_points():
    cals = _registered()
    assert len(cals) >= 10
    problems = [p for cal in cals for p in entry_point_problems(cal)]
    assert not problems, problems


def test_every_parameter_class_used_by_a_fit_is_fully_declared():
    classes = {cls for cal in _registered() for cls in parameter_classes_of(cal)}
    from zmodel.kernel.versions import KernelCosts

    assert KernelCosts in classes and len(classes) >= 10
    problems = [p for cls in sorted(classes, key=lambda c: c.__name__) for p in metadata_problems(cls)]
    assert not problems, problems


@pytest.mark.parametrize("area", [c.area for c in _catalog_fits() if c.layer in ("hardware", "kernel")])
def test_hardware_and_kernel_fits_derive_their_model_parameters(area):
    """Each model fit takes its model parameters from the model's declaration, bounds and all."""
    cal = next(c for c in _catalog_fits() if c.area == area)
    classes = parameter_classes_of(cal)
    assert classes, f"{area}: the fit uses no model parameter dataclass"
    declared = {n for cls in classes for n in parameter_info(cls)}
    assert declared & set(cal.model().parameters()), f"{area}: no declared parameter reaches the fit"
    assert not derivation_problems(cal)


@pytest.mark.parametrize("area", [c.area for c in _catalog_fits() if c.layer in ("hardware", "kernel")])
def test_fitted_values_map_back_to_the_model(area):
    """``to_dataclass`` of the fit's values gives every declared field the fit's value."""
    from zmodel.calibration import to_dataclass

    cal = next(c for c in _catalog_fits() if c.area == area)
    ps = cal.model().parameters()
    for cls in parameter_classes_of(cal):
        info = parameter_info(cls)
        mine = {n: ps[n] for n in info if n in ps and n in {f.name for f in dataclasses.fields(cls)}}
        # a value inside each range that differs from the default
        values = {n: 0.5 * (p.value + p.max) if p.value != p.max else 0.5 * (p.min + p.max) for n, p in mine.items()}
        obj = to_dataclass(cls, {**ps.valuesdict(), **values})
        for n, v in values.items():
            assert getattr(obj, n) == v, (area, cls.__name__, n)


def test_fit_only_parameters_carry_unit_range_and_source():
    """What a fit still adds by hand (readings of a benchmark) is documented like a declaration."""
    problems = []
    for cal in _catalog_fits():
        declared = {n for cls in parameter_classes_of(cal) for n in parameter_info(cls)}
        for p in cal.model().parameters().values():
            if p.name in declared:
                continue
            where = f"{cal.area}: {p.name}"
            if not p.unit.strip() or not p.source.strip():
                problems.append(f"{where}: unit and source required")
            if p.vary and not (math.isfinite(p.min) and math.isfinite(p.max)):
                problems.append(f"{where}: a free parameter needs a finite range")
    assert not problems, problems


# ------------------------------------------------------------------------------ the checks can fail
def test_metadata_checker_finds_a_field_without_param():
    @dataclasses.dataclass(frozen=True)
    class Broken:
        hold: float = param(1e-6, unit="s", range=(0.0, 1e-3), source="assumed: illustration")
        rate: float = 5.0

    assert metadata_problems(Broken) == ["Broken.rate is not declared with param()"]


def test_metadata_checker_finds_missing_unit_source_and_bad_ranges():
    # param() refuses these at definition; a hand-written metadata entry bypasses it
    def raw(default, **meta):
        return dataclasses.field(default=default, metadata={_KEY: meta})

    @dataclasses.dataclass(frozen=True)
    class Broken:
        no_unit: float = raw(1.0, unit="", range=(0.0, 2.0), source="assumed: x")
        no_source: float = raw(1.0, unit="s", range=(0.0, 2.0), source=" ")
        outside: float = raw(5.0, unit="s", range=(0.0, 2.0), source="assumed: x")
        unbounded: float = raw(1.0, unit="s", range=(0.0, math.inf), source="assumed: x")

    problems = metadata_problems(Broken)
    assert problems == ["Broken.no_unit has no unit", "Broken.no_source has no provenance",
                        "Broken.outside: default 5.0 is outside its range (0.0, 2.0)",
                        "Broken.unbounded: plausible range (0.0, inf) is not finite"]


def test_metadata_checker_descends_into_nested_classes():
    @dataclasses.dataclass(frozen=True)
    class Inner:
        a: float = param(1.0, unit="1", range=(0.0, 2.0), source="assumed: x")
        b: float = 2.0

    @dataclasses.dataclass(frozen=True)
    class Outer:
        c: float = param(1.0, unit="1", range=(0.0, 2.0), source="assumed: x")
        inner: Inner = dataclasses.field(default_factory=Inner)

    assert metadata_problems(Outer) == ["Inner.b is not declared with param()"]


def test_entry_point_checker_finds_a_calibration_of_another_shape():
    from zmodel.fits import Calibration

    class Custom(Calibration):
        def run(self, links=1):   # an area with its own signature
            return None

    odd = Custom(area="odd", layer="hardware", title="odd", model=lambda: None, rows=("x",))
    assert "odd: run is overridden" in entry_point_problems(odd)
    assert "odd: run takes other arguments than **options" in entry_point_problems(odd)

    class NotOne:
        area = "plain"

    assert entry_point_problems(NotOne()) == ["plain: not a zmodel.fits.Calibration (NotOne)"]


class _DerivedModel:
    """A model whose parameters come from the declaration (the reference for the next test)."""

    def parameters(self):
        from zmodel.kernel.locks import LockCosts

        return Parameters.from_dataclass(LockCosts)


def test_derivation_checker_finds_a_hand_written_parameter():
    """A fit that re-declares a model parameter by hand (other bounds) is caught."""
    from zmodel.fits import Calibration
    from zmodel.calibration import Model
    from zmodel.kernel.locks import LockCosts

    class HandModel(Model):
        def parameters(self):
            ps = Parameters.from_dataclass(LockCosts)
            ps.add("transfer_time", 2e-6, min=0.0, max=1.0, unit="s", source="by hand")
            return ps

    cal = Calibration(area="hand", layer="kernel", title="hand", model=HandModel, rows=("x",))
    assert derivation_problems(cal, [LockCosts]) and not derivation_problems(
        Calibration(area="derived", layer="kernel", title="derived", model=_DerivedModel, rows=("x",)), [LockCosts])
    problems = derivation_problems(cal, [LockCosts])
    assert any("transfer_time (LockCosts): bounds" in p for p in problems)
    assert any("transfer_time (LockCosts): provenance" in p for p in problems)
