"""Calibrations of the layered models against the documented numbers (beside the layers).

Each fit module of this package exports one :class:`Calibration` named ``CALIBRATION``: what
it fits (area, layer, title), with which model, on which catalog rows read how (kinds,
weights, scales, exclusions). The module itself keeps only its model's predictors. One
:meth:`Calibration.run` and one :meth:`Calibration.cross_validate` serve every area;
:mod:`zmodel.fits.registry` finds the calibrations (the only list) for the CLI, the report
and the notebooks.
"""
from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable, Iterable, Mapping
from typing import Any

__all__ = ["Calibration", "catalog_rows", "LAYERS"]

#: report order of the layers a calibration belongs to ("summary": a view over other calibrations)
LAYERS = ("queueing", "hardware", "kernel", "summary")


def catalog_rows(ids: Iterable[str], kinds: Mapping[str, str] | None = None, data_dir=None):
    """The catalog rows a fit uses, with the fit's reading of their kinds applied.

    Parameters
    ----------
    ids : iterable of str
        Catalog ids (zmodel/_data/catalog/); an unknown id raises ``ValueError`` (the loader's).
    kinds : mapping id -> kind, optional
        Kinds under which this fit reads some rows, where the phrase's bound word in the
        catalog is not how the number enters the model; each fit module states why. Readings
        shared by several fits, and every verbal statement read as an ``interval``, live once
        in ``zmodel/_data/readings.csv`` (:func:`zmodel.data.readings`) and are applied first;
        a row read as ``interval`` (by either) takes its ends from there.
    data_dir : path, optional
        Override of the ``data/`` folder.

    Returns
    -------
    pandas.DataFrame
        The rows of :func:`zmodel.data.measurements`, in catalog order, with columns ``low``
        and ``high`` (the ends of the interval rows, NaN elsewhere).
    """
    import math

    from zmodel.data import measurements, reading_intervals, readings

    ids = list(dict.fromkeys(ids))
    rows = (measurements(ids=ids) if data_dir is None else measurements(ids=ids, data_dir=data_dir)).copy()
    missing = sorted(set(ids) - set(rows["id"]))
    if missing:
        raise ValueError(f"catalog rows missing for the calibration: {', '.join(missing)}")
    shared = readings() if data_dir is None else readings(data_dir=data_dir)
    kinds = dict(kinds or {})
    unknown = sorted(set(kinds) - set(ids))
    if unknown:
        raise ValueError(f"kinds must name rows of the fit; not among its ids: {', '.join(unknown)}")
    kinds = {**{i: k for i, (k, _) in shared.items() if i in ids}, **kinds}
    hit = rows["id"].isin(list(kinds))
    rows.loc[hit, "kind"] = rows.loc[hit, "id"].map(kinds)
    # a verbal statement read as an interval: its ends, from the one place they are written
    ends = reading_intervals() if data_dir is None else reading_intervals(data_dir=data_dir)
    lacking = sorted(set(rows.loc[rows["kind"] == "interval", "id"]) - set(ends))
    if lacking:
        raise ValueError(f"rows read as 'interval' need their ends in readings.csv; missing for: {', '.join(lacking)}")
    interval = rows["kind"] == "interval"
    rows["low"] = [ends[i][0] if k else math.nan for i, k in zip(rows["id"], interval)]
    rows["high"] = [ends[i][1] if k else math.nan for i, k in zip(rows["id"], interval)]
    return rows


#: Environment variable naming a file of calibration results written by the process that
#: computed them (:func:`share_results`): ``make report`` sets it for its notebook kernels,
#: so that a notebook showing the calibrations reads the report's fits and leave-one-out
#: tables instead of computing them again on the same cores. Unset (the tests, a notebook
#: opened by hand), or before the file is written, every calibration computes its own.
SHARED_RESULTS = "ZMODEL_SHARED_CALIBRATIONS"
_SHARED: list = [None, {}]   # (path, mtime, size) of the file read, its contents


def _shared_results(area: str) -> dict:
    """The memo entries of ``area`` in the file :data:`SHARED_RESULTS` names (empty: none yet)."""
    import os
    import pickle

    path = os.environ.get(SHARED_RESULTS)
    if not path:
        return {}
    try:
        st = os.stat(path)
    except OSError:
        return {}
    key = (path, st.st_mtime_ns, st.st_size)
    if _SHARED[0] != key:
        try:
            with open(path, "rb") as fh:
                data = pickle.load(fh)
        except (OSError, EOFError, pickle.UnpicklingError):
            return {}
        _SHARED[:] = [key, data if isinstance(data, dict) else {}]
    return _SHARED[1].get(area, {})


def wait_for_shared_results(timeout: float = 900.0) -> bool:
    """Wait until the file :data:`SHARED_RESULTS` names exists; True when it does.

    A notebook that shows every calibration calls it first: under ``make report`` the
    report is computing the same fits on the same cores and shares them when done, so
    waiting for them costs less than computing them a second time. Returns False at once
    when the variable is unset (a notebook run by hand or by the tests: it computes its
    own), or after ``timeout`` seconds without the file.
    """
    import os
    import time

    path = os.environ.get(SHARED_RESULTS)
    if not path:
        return False
    end = time.monotonic() + timeout
    while not os.path.exists(path):
        if time.monotonic() > end:
            return False
        time.sleep(0.2)
    return True


def share_results(calibrations, path) -> None:
    """Write the memoised results of ``calibrations`` (:class:`Calibration` objects) to ``path``.

    Written to a temporary file first and renamed, so a reader never sees part of it; read
    back by every calibration of a process whose environment names ``path`` in
    :data:`SHARED_RESULTS`.
    """
    import os
    import pickle
    import tempfile
    from pathlib import Path

    data = {cal.area: dict(cal._results) for cal in calibrations}
    path = Path(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".shared-")
    try:
        with os.fdopen(fd, "wb") as fh:
            pickle.dump(data, fh, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _frozen(options: Mapping[str, Any]):
    try:
        key = tuple(sorted(options.items()))
        hash(key)
        return key
    except TypeError:
        return None


@dataclasses.dataclass(frozen=True, eq=False)
class Calibration:
    """One calibration, declared: the model, the catalog rows and how they are read.

    Attributes
    ----------
    area : str
        Short key (``zmodel calibrate storage``).
    layer : str
        One of :data:`LAYERS`.
    title : str
        Heading of its report section.
    order : int
        Position within its layer in the report.
    model : callable, optional
        Factory of the :class:`zmodel.calibration.Model`; its keyword arguments are the
        calibration's model options (e.g. ``links`` of the storage fit).
    rows : tuple of str
        Catalog ids used (fitted, excluded and shape rows).
    kinds : mapping id -> kind
        This fit's readings of catalog kinds (module docstrings say why).
    weights, scales : mapping id -> value
        Passed to :func:`zmodel.calibration.calibrate`.
    exclude : tuple of str
        Rows predicted and reported but never fitted.
    settings : mapping
        Further :func:`~zmodel.calibration.calibrate` keywords (tolerances, Jacobian).
    exactly_determined : tuple of str
        Rows a dedicated parameter reproduces by construction: reported, but kept out of
        the informative error figures.
    leave_one_out_in_summary : bool
        Whether the kernel summary (:mod:`zmodel.fits.kernel_report`) runs this area's
        leave-one-out by default (False where the refits take far longer than the fit).
    fit, validate : callable, optional
        For an area that is not a catalog least-squares fit (``dasd``, the kernel summary):
        ``fit(**options)`` returns its result, ``validate(**options)`` its out-of-sample table.
    derived : mapping name -> tuple of parameter names
        Model parameters the fit sets to the product of its own parameters (e.g. the IPTE
        stall as a fraction of the purge); written to the parameter store with the area
        (:mod:`zmodel.store`) so that predictions and samplers rebuild them.
    read_measurements : callable, optional
        For a ``fit`` area that takes a planner's own data (``zmodel calibrate AREA
        --measurements FILE``): ``read_measurements(path)`` returns what ``fit(measurements=...)``
        takes (catalog fits use :func:`zmodel.data.read_measurements`).
    to_store_area : callable, optional
        For a ``fit`` area: ``to_store_area(result, origin)`` gives its
        :class:`zmodel.store.AreaParameters` for ``--save``.
    groups : mapping id -> str
        Rows that share a cause (the benchmark they come from): ``cross_validate(grouped=True)``
        leaves out a whole group at a time; empty: no grouped cross-validation.
    tables : mapping title -> callable
        Further tables of the area that the report shows with its fit: ``table(result)`` returns
        a pandas DataFrame computed at the fit's parameters (e.g. the kernel-version feature
        attribution).
    """

    area: str
    layer: str
    title: str
    order: int = 0
    model: Callable | None = None
    rows: tuple = ()
    kinds: Mapping[str, str] = dataclasses.field(default_factory=dict)
    weights: Mapping[str, float] = dataclasses.field(default_factory=dict)
    scales: Any = "relative"
    exclude: tuple = ()
    settings: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    exactly_determined: tuple = ()
    leave_one_out_in_summary: bool = True
    fit: Callable | None = None
    validate: Callable | None = None
    derived: Mapping[str, tuple] = dataclasses.field(default_factory=dict)
    read_measurements: Callable | None = None
    to_store_area: Callable | None = None
    groups: Mapping[str, str] = dataclasses.field(default_factory=dict)
    tables: Mapping[str, Callable] = dataclasses.field(default_factory=dict)
    _results: dict = dataclasses.field(default_factory=dict, repr=False)

    def __post_init__(self):
        if self.layer not in LAYERS:
            raise ValueError(f"layer must be one of {', '.join(LAYERS)}, got {self.layer!r}")
        if (self.model is None) == (self.fit is None):
            raise ValueError(f"calibration {self.area!r}: give exactly one of model (a catalog fit) or fit")
        if self.model is not None and not self.rows:
            raise ValueError(f"calibration {self.area!r}: a catalog fit needs its rows")
        object.__setattr__(self, "rows", tuple(dict.fromkeys(self.rows)))
        object.__setattr__(self, "exclude", tuple(self.exclude))
        unknown = sorted(set(self.groups) - set(self.rows))
        if unknown:
            raise ValueError(f"calibration {self.area!r}: groups must name rows of the fit; not among its rows: "
                             f"{', '.join(unknown)}")

    # ------------------------------------------------------------------ the data
    def measurements(self, data_dir=None):
        """The catalog rows this calibration uses, with :attr:`kinds` applied."""
        if self.model is None:
            raise ValueError(f"calibration {self.area!r} is not a catalog fit: it has no catalog rows")
        return catalog_rows(self.rows, self.kinds, data_dir=data_dir)

    def measurements_with(self, own, data_dir=None):
        """The catalog rows with a planner's own numbers in place of the documents'.

        ``own`` is a frame of :func:`zmodel.data.read_measurements` (or any frame with
        ``id``, ``kind``, ``value_num``, ``unit``); each of its ids must be a row of this
        calibration -- its number, kind and unit replace the documented ones (the model
        predicts catalog rows: a new id has no predictor). Raises ``ValueError`` naming the
        file (``own.attrs["source_file"]``), row and column otherwise.
        """
        rows = self.measurements(data_dir).copy()
        name = own.attrs.get("source_file", "measurements")
        known = set(rows["id"])
        for number, (_, rec) in enumerate(own.iterrows(), start=1):
            if rec["id"] not in known:
                raise ValueError(f"{name}: row {number}, column 'id': {rec['id']!r} is not a row of calibration "
                                 f"{self.area!r} (its rows: {', '.join(sorted(known))})")
            hit = rows["id"] == rec["id"]
            rows.loc[hit, "value_num"] = float(rec["value_num"])
            rows.loc[hit, "value"] = str(rec.get("value", rec["value_num"]))
            rows.loc[hit, "kind"] = rec["kind"]
            rows.loc[hit, "unit"] = rec["unit"]
        return rows

    def _split(self, options):
        """Split options into (model options, data_dir, calibrate keywords)."""
        options = dict(options)
        data_dir = options.pop("data_dir", None)
        sig = inspect.signature(self.model)
        model_opts = {k: options.pop(k) for k in list(options) if k in sig.parameters}
        kw = dict(exclude=self.exclude, weights=dict(self.weights) or None, scale=self.scales, **self.settings)
        kw.update(options)
        return model_opts, data_dir, kw

    # ------------------------------------------------------------------ the entry points
    def run(self, **options):
        """Fit and return the result (with ``report()``); results are memoised per options.

        Keyword arguments the model factory accepts go to it, ``data_dir`` to the catalog
        loader, ``measurements`` (a planner's own numbers, :meth:`measurements_with`) in
        place of the documents', the rest to :func:`zmodel.calibration.calibrate`
        (overriding the declaration).
        """
        key = _frozen(options)
        if (known := self._recall(key)) is not None:
            return known
        own = options.pop("measurements", None) if "measurements" in options else None
        if own is not None and self.fit is not None and self.read_measurements is None:
            raise ValueError(f"calibration {self.area!r} is not a catalog fit: it takes no measurements table")
        if self.fit is not None:
            result = self.fit(**options) if own is None else self.fit(measurements=own, **options)
        else:
            from zmodel.calibration import calibrate

            model_opts, data_dir, kw = self._split(options)
            rows = self.measurements(data_dir) if own is None else self.measurements_with(own, data_dir)
            result = calibrate(self.model(**model_opts), rows, **kw)
        if key is not None:
            self._results[key] = result
        return result

    __call__ = run

    def cross_validate(self, progress: bool | None = False, **options):
        """Leave-one-out table (:func:`zmodel.calibration.cross_validate`), refits from the model's defaults.

        With the option ``grouped=True`` a whole group of :attr:`groups` (a benchmark) is left
        out at a time; ``measurements=`` cross-validates a planner's own numbers in place of the
        documents' (:meth:`measurements_with`, as :meth:`run` fits them; not memoised);
        ``workers=K`` runs the refits in K processes (the same table). The fit on all rows is :meth:`run`'s (memoised); tables are memoised per
        options.
        """
        workers = options.pop("workers", 1)   # processes for the refits: the same table whatever the count
        return cross_validate_together([(self, options)], workers=workers, progress=progress)[0]

    def _cross_validation_request(self, options, progress):
        """``(memo key, table, None)`` when the table is known (or not a catalog fit's: computed
        here), else ``(memo key, None, request)`` with the arguments of
        :func:`zmodel.calibration.cross_validate_many` that compute it."""
        options = dict(options)
        grouped = bool(options.pop("grouped", False))
        own = options.pop("measurements", None)   # a planner's numbers in place of the documents' (run's)
        if grouped and not self.groups:
            raise ValueError(f"calibration {self.area!r} declares no groups: grouped cross-validation needs them")
        if self.fit is not None:
            if own is not None:
                raise ValueError(f"calibration {self.area!r} is not a catalog fit: it cross-validates no "
                                 f"measurements table")
            return None, self.validate(progress=progress, **options), None
        key = _frozen(options) if own is None else None   # a planner's table is not memoised
        memo_key = None if key is None else ("cross_validate", grouped, key)
        if (known := self._recall(memo_key)) is not None:
            return memo_key, known.copy(), None
        full = self.run(**options) if own is None else self.run(measurements=own, **options)
        model_opts, data_dir, kw = self._split(options)
        rows = self.measurements(data_dir) if own is None else self.measurements_with(own, data_dir)
        return memo_key, None, dict(model=self.model(**model_opts), measurements=rows,
                                    groups=dict(self.groups) if grouped else None, full=full, **kw)

    def _keep_cross_validation(self, memo_key, cv):
        if self.exactly_determined:
            informative = cv.loc[~cv["id"].isin(self.exactly_determined), "percent_error_loo"].abs()
            cv.attrs["median_abs_percent_error_informative"] = float(informative.median())
        if memo_key is not None:
            self._results[memo_key] = cv

    def has_cross_validation(self, grouped: bool = False, **options) -> bool:
        """Whether :meth:`cross_validate` with these options is already memoised in this process."""
        key = _frozen(options)
        return key is not None and ("cross_validate", grouped, key) in self._results

    def clear(self) -> None:
        """Forget the memoised results."""
        self._results.clear()

    def _recall(self, key):
        """The memoised value of ``key``: this process's, else the shared file's (adopted); None: neither."""
        if key is None:
            return None
        if key not in self._results:
            shared = _shared_results(self.area)
            if key not in shared:
                return None
            self._results[key] = shared[key]
        return self._results[key]

    def adopt(self, result, **options) -> None:
        """Memoise ``result`` as :meth:`run`'s with these options (a fit made in another process)."""
        key = _frozen(options)
        if key is not None:
            self._results[key] = result


def cross_validate_together(requests, workers: int = 1, progress: bool | None = False) -> list:
    """The cross-validation tables of several calibrations, their refits in one pool.

    ``requests`` lists ``(calibration, options)`` pairs, the options those of
    :meth:`Calibration.cross_validate` (``grouped=True`` leaves out a group at a time). The
    tables not memoised yet are computed by :func:`zmodel.calibration.cross_validate_many`:
    one pool of ``workers`` processes takes every refit in request order (list the longest
    first), so no process idles while another table's last refit runs. Each table is
    memoised as :meth:`Calibration.cross_validate` memoises it and equals its table.
    """
    from zmodel.calibration import cross_validate_many

    out: list = [None] * len(requests)
    pending: dict = {}    # (calibration id, memo key) -> [positions, calibration, memo key, request]
    for i, (cal, options) in enumerate(requests):
        memo_key, table, request = cal._cross_validation_request(options, progress)
        if request is None:
            out[i] = table
            continue
        slot = pending.setdefault((id(cal), memo_key if memo_key is not None else i), [[], cal, memo_key, request])
        slot[0].append(i)
    tables = cross_validate_many([slot[3] for slot in pending.values()], workers=workers, progress=progress)
    for (positions, cal, memo_key, _), cv in zip(pending.values(), tables):
        cal._keep_cross_validation(memo_key, cv)
        for i in positions:
            out[i] = cv.copy()
    return out
