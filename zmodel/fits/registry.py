"""The one list of calibrations: every fit module of :mod:`zmodel.fits` that exports ``CALIBRATION``.

The list is found, not written: each module ``zmodel/fits/<name>.py`` that defines a
:class:`zmodel.fits.Calibration` named ``CALIBRATION`` is a registered calibration, in the
report order of its layer (queueing, hardware, kernel, then the summaries) and of its
``order`` within the layer. Adding an area therefore touches its model, its fit module,
its catalog rows, its tests and its notebook -- not this file. ``zmodel calibrate``
(:mod:`zmodel.cli`), ``make report`` (:mod:`zmodel.report`), the kernel summary
(:mod:`zmodel.fits.kernel_report`) and the notebooks read :data:`CALIBRATIONS`.

Each entry names its calibration by a ``"module:CALIBRATION"`` target; :func:`load`
returns the calibration object, which is callable (``run()``) and returns an object with
a ``report()`` method. A module that fails to import is reported as unavailable instead of
breaking everything else.

Examples
--------
>>> from zmodel.fits.registry import CALIBRATIONS, areas, select
>>> areas()[0]
'usl'
>>> [e.target for e in select(["storage"])]
['zmodel.fits.storage:CALIBRATION']
>>> select(["nonsense"])  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
ValueError: unknown calibration area 'nonsense'; known: usl, channels, storage, ...
"""
from __future__ import annotations

import dataclasses
import datetime as _dt
import importlib
import importlib.util
import pkgutil
from collections.abc import Callable, Iterable
from typing import NamedTuple

__all__ = ["Calibration", "CALIBRATIONS", "CalibrationUnavailable", "areas", "select", "is_available",
           "parameter_store", "STORE_INTERVALS",
           "load", "available", "calibrations", "discover"]

_PACKAGE = "zmodel.fits"
_NOT_FITS = {"registry"}


class Calibration(NamedTuple):
    """One registry entry (the light view the CLI lists without running anything).

    Attributes
    ----------
    area : str
        Short key used on the command line (``zmodel calibrate storage``).
    title : str
        Heading of its report section.
    target : str
        ``"module:attribute"``; the attribute is callable with no required argument and
        returns an object with ``report()`` (for the fit modules: their ``CALIBRATION``).
    layer : str
        The calibration's layer (:data:`zmodel.fits.LAYERS`).
    """

    area: str
    title: str
    target: str
    layer: str = ""


def discover() -> list[Calibration]:
    """Entries of every fit module exporting ``CALIBRATION``, in report order."""
    from zmodel.fits import LAYERS
    from zmodel.fits import Calibration as Declared

    import zmodel.fits as package

    found = []
    for info in pkgutil.iter_modules(package.__path__):
        if info.name in _NOT_FITS or info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{_PACKAGE}.{info.name}")
        cal = getattr(module, "CALIBRATION", None)
        if isinstance(cal, Declared):
            found.append((LAYERS.index(cal.layer), cal.order, cal.area,
                          Calibration(cal.area, cal.title, f"{module.__name__}:CALIBRATION", cal.layer)))
    found.sort(key=lambda t: t[:3])
    entries = [t[3] for t in found]
    dup = sorted({e.area for e in entries if [x.area for x in entries].count(e.area) > 1})
    if dup:
        raise ValueError(f"calibration areas must be unique; declared twice: {', '.join(dup)}")
    return entries


#: The registry, in report order: the first fit, then the hardware layer, then the kernel layer.
CALIBRATIONS: list[Calibration] = discover()


class CalibrationUnavailable(LookupError):
    """A registered calibration whose module or function cannot be imported (yet)."""


def areas() -> list[str]:
    """The area keys of :data:`CALIBRATIONS`, in order."""
    return [entry.area for entry in CALIBRATIONS]


def select(names: Iterable[str] | None = None) -> list[Calibration]:
    """The entries for ``names`` (all of them when empty or None), in the order asked.

    Raises
    ------
    ValueError
        "unknown calibration area 'x'; known: ..." for a name not in the registry.
    """
    names = list(names or [])
    if not names:
        return list(CALIBRATIONS)
    by_area = {entry.area: entry for entry in CALIBRATIONS}
    out = []
    for name in names:
        if name not in by_area:
            raise ValueError(f"unknown calibration area {name!r}; known: {', '.join(by_area)}")
        if by_area[name] not in out:
            out.append(by_area[name])
    return out


def _split(target: str) -> tuple[str, str]:
    module, sep, func = target.partition(":")
    if not (module and sep and func):
        raise ValueError(f"calibration target must be 'module:function', got {target!r}")
    return module, func


def is_available(entry: Calibration | str) -> bool:
    """Whether the entry's module can be found, without importing it."""
    module, _ = _split(entry.target if isinstance(entry, Calibration) else entry)
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def load(entry: Calibration | str) -> Callable:
    """Import the entry's calibration (callable: ``load(entry)()`` runs it).

    Raises
    ------
    CalibrationUnavailable
        When the module is missing, fails to import, or lacks the attribute.
    """
    target = entry.target if isinstance(entry, Calibration) else entry
    module, func = _split(target)
    if not is_available(target):
        raise CalibrationUnavailable(f"{module} is not available yet")
    try:
        mod = importlib.import_module(module)
    except Exception as exc:  # a module being written may not import yet: report, do not crash
        raise CalibrationUnavailable(f"{module} cannot be imported ({type(exc).__name__}: {exc})") from exc
    try:
        return getattr(mod, func)
    except AttributeError:
        raise CalibrationUnavailable(f"{module} has no function {func!r} yet") from None


def available() -> list[Calibration]:
    """The entries whose module can be found (not imported)."""
    return [entry for entry in CALIBRATIONS if is_available(entry)]


def calibrations(layer: str | None = None) -> list:
    """The declared :class:`zmodel.fits.Calibration` objects, in report order (optionally of one layer)."""
    return [load(e) for e in CALIBRATIONS if layer is None or e.layer == layer]


#: the ``intervals`` option of the fits the parameter store is written from
#: (:func:`zmodel.calibration.calibrate`): a parameter whose covariance interval misrepresents its fit
#: is stored with its profile-likelihood interval, so that predictions draw what the rows admit (the
#: kernel-version fit's purge: covariance 0.20 to 0.26 us, rows 0.04 to 0.30 us)
STORE_INTERVALS = "auto"


def model_error(cal, measurements=None):
    """The out-of-sample error of a catalog calibration (:class:`zmodel.store.ModelError`), or None.

    From its cross-validation on the documents (:meth:`zmodel.fits.Calibration.cross_validate`,
    memoised), or on a planner's own numbers in their place (``measurements``, a frame of
    :func:`zmodel.data.read_measurements`, as the fit took them): a whole benchmark left out at a
    time where the calibration declares groups (rows that share a cause), else one row at a
    time; each value row's left-out error on a log scale
    (:func:`zmodel.calibration.out_of_sample_log_errors`). None where no value row is left.
    """
    from zmodel import store
    from zmodel.calibration import out_of_sample_log_errors

    grouped = bool(cal.groups)
    options = {} if measurements is None else {"measurements": measurements}
    errors = out_of_sample_log_errors(cal.cross_validate(grouped=grouped, **options))
    if not len(errors):
        return None
    return store.ModelError("leave-one-benchmark-out" if grouped else "leave-one-out",
                            tuple(errors["id"]), tuple(float(e) for e in errors["log_error"]))


def parameter_store(results=None, areas: Iterable[str] | None = None, *, origin: str = "documents",
                    measurements=None):
    """The parameter store (:class:`zmodel.store.ParameterStore`) of the catalog calibrations.

    Each area is stored from its fit with ``intervals=``:data:`STORE_INTERVALS`; a given
    result fitted otherwise is refitted so (from the documents; a planner's measurements must
    be fitted so by the caller). Each area also stores its out-of-sample error
    (:func:`model_error`): its cross-validation on the documents, or, for an area fitted to a
    planner's measurements, on those (``measurements``, the frame the fit took, with the
    documents' rows it does not replace); without that frame such an area stores none.

    Parameters
    ----------
    results : mapping area -> calibration result, optional
        Results already computed (e.g. by ``zmodel calibrate``); the other catalog
        calibrations of ``areas`` are run (memoised per process).
    areas : iterable of str, optional
        Areas to include (default: every catalog calibration; summaries and non-least-squares
        fits such as ``dasd`` have no parameters to store and are skipped).
    origin : str
        What the fits were fitted to (``"documents"`` or ``"measurements: FILE"``).
    measurements : pandas.DataFrame, optional
        The planner's numbers the ``results`` were fitted to (:func:`zmodel.data.read_measurements`),
        for their cross-validation; with ``origin`` other than the documents only.
    """
    from zmodel import store

    results = dict(results or {})
    found = {}
    for entry in select(areas):
        cal = load(entry)
        if getattr(cal, "model", None) is None:
            continue
        result = results.get(entry.area)
        if result is None or getattr(result, "intervals", "covariance") != STORE_INTERVALS:
            if origin != "documents":
                raise ValueError(f"parameter_store: the result of {entry.area!r} ({origin}) was fitted with "
                                 f"intervals={getattr(result, 'intervals', None)!r}; the store needs "
                                 f"intervals={STORE_INTERVALS!r}")
            result = cal.run(intervals=STORE_INTERVALS)
        area = store.area_from_result(entry.area, result, title=entry.title, origin=origin,
                                      derived=getattr(cal, "derived", {}))
        if origin == "documents" or measurements is not None:   # cross-validated on what it was fitted to
            area = dataclasses.replace(area, model_error=model_error(cal, measurements))
        found[entry.area] = area
    return store.ParameterStore(areas=found, code_version=store._version(),
                                created=_dt.date.today().isoformat())
