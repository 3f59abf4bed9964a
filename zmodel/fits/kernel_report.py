"""The kernel calibration report (issue 5 part 8): every kernel area fitted, with a
residual row for every documented number used, leave-one-out errors and shape checks.

The areas are the kernel-layer calibrations of the registry (:mod:`zmodel.fits.registry`),
named here without their ``kernel_`` prefix (``locks``, ``memory``, ...); each is a
:class:`zmodel.fits.Calibration` with ``run()`` and ``cross_validate()``. This module runs
them (reusing results already computed in this process) and summarises per area:

* the median and worst absolute percent error over the fitted informative value rows
  (configuration echoes and bounds are not scored by a percent; bounds are counted as
  satisfied or violated);
* the same over the *informative* fitted rows only: value rows, and bounds or interval
  readings the fit violates — satisfied bounds and intervals and rows that a dedicated
  parameter reproduces by construction are reported but kept out of this figure, so
  that trivially exact rows do not flatter the median;
* the leave-one-out median and worst absolute percent error (each row predicted by a
  fit that did not see it, started from the model's declared values) over every
  informative value row -- including the rows whose removal leaves a parameter
  undetermined (counted as ``unpredictable_rows`` and also summarised without them,
  ``median_left_out_predictable``; the per-area leave-one-out table of :meth:`report` shows
  every such row with its ``predictable`` flag); bounds counted as satisfied or violated
  (``bounds_left_out``) and refits that did not converge as ``failed_refits``;
* the shape claims checked and how many hold.

The targets of the issue are a median absolute error of at most 5 % on fitted numbers
and at most 15 % when left out.
"""
from __future__ import annotations

import dataclasses
import math

import numpy as np

from zmodel.fits import Calibration, cross_validate_together
from zmodel.queueing._result import Result

TARGET_FITTED = 5.0    # median |% error| on fitted numbers, issue 5 part 8
TARGET_LEFT_OUT = 15.0  # median |% error| when left out


def _abs_errors(frame, column: str, satisfied_column: str | None = None) -> np.ndarray:
    err = frame[column].astype(float).abs().to_numpy()
    if satisfied_column is not None and satisfied_column in frame:
        ok = frame[satisfied_column].fillna(False).astype(bool).to_numpy()
        err = np.where(ok, 0.0, err)
    return err[np.isfinite(err)]


def _stats(err: np.ndarray) -> tuple[float, float]:
    return (float(np.median(err)), float(np.max(err))) if err.size else (math.nan, math.nan)


@dataclasses.dataclass(frozen=True)
class KernelCalibrationReport(Result):
    """Per-area summary plus the full results of every kernel calibration."""

    summary: object            # pandas.DataFrame, one row per area
    results: dict              # area -> CalibrationResult
    leave_one_out: dict        # area -> DataFrame from cross_validate
    leave_group_out: dict = dataclasses.field(default_factory=dict)  # area -> grouped cross_validate

    def to_frame(self):
        return self.summary

    def report(self) -> str:
        import pandas as pd

        lines = ["[[Kernel calibration summary]] (|% error|; targets: median <= "
                 f"{TARGET_FITTED:g} % fitted, <= {TARGET_LEFT_OUT:g} % left out)"]
        with pd.option_context("display.width", 200, "display.max_columns", 20):
            lines.append(self.summary.to_string(index=False, float_format=lambda v: f"{v:.2f}"))
        for area, result in self.results.items():
            lines += ["", "-" * 78, f"kernel area: {area}", "-" * 78, result.report()]
            loo = self.leave_one_out.get(area)
            if loo is not None and len(loo):
                lines.append("[[Leave-one-out]] (each row predicted by a fit without it)")
                cols = [c for c in ("id", "measured", "predicted_full", "predicted_loo",
                                    "percent_error_full", "percent_error_loo", "bound_satisfied_loo",
                                    "predictable", "unidentified_without") if c in loo]
                lines.append(loo[cols].to_string(index=False, float_format=lambda v: f"{v:.4g}"))
            lgo = self.leave_group_out.get(area)
            if lgo is not None and len(lgo):
                lines.append(group_report(lgo))
        return "\n".join(lines)


def group_report(cv) -> str:
    """Text of a grouped cross-validation (``cross_validate(grouped=True)``): per group, then per row."""
    import pandas as pd

    values = cv[cv["bound_satisfied_loo"].isna()]
    scored = values["percent_error_loo"].abs().dropna()
    # rows whose left-out prediction rests on the other benchmarks' data, not on an unidentified start
    data_only = values.loc[values["predictable"].astype(bool), "percent_error_loo"].abs().dropna()
    per = []
    for group, rows in cv.groupby("group", sort=False):
        v = values[values["group"] == group]
        err = v["percent_error_loo"].abs().dropna()
        b = rows["bound_satisfied_loo"].dropna().astype(bool)
        per.append(dict(group=group, rows=len(rows), median_abs_error_pct=float(err.median()) if len(err) else math.nan,
                        worst_abs_error_pct=float(err.max()) if len(err) else math.nan,
                        bounds_satisfied=f"{int(b.sum())} of {len(b)}", refit_converged=bool(rows["success"].all()),
                        unidentified_without=", ".join(sorted({n for u in rows["unidentified_without"] if u
                                                               for n in u.split(", ")}))))
    lines = ["[[Leave-one-benchmark-out]] (every row of a benchmark predicted by a refit without any of them, "
             "started from the declared defaults)",
             f"median |% error| over the left-out value rows: {cv.attrs.get('median_abs_percent_error', math.nan):.2f}"
             f" ({len(scored)} rows); over the {len(data_only)} of them that no parameter's start decides "
             f"(predictable): {float(data_only.median()) if len(data_only) else math.nan:.2f}; "
             f"refits {cv.attrs.get('refits', 0)}, not converged {cv.attrs.get('failed_refits', 0)} (failures)"]
    with pd.option_context("display.width", 200, "display.max_columns", 20, "display.max_colwidth", 60):
        lines.append(pd.DataFrame(per).to_string(index=False, float_format=lambda v: f"{v:.2f}"))
        cols = ["id", "group", "measured", "predicted_full", "predicted_loo", "percent_error_loo", "success"]
        lines.append(cv[cols].to_string(index=False, float_format=lambda v: f"{v:.4g}"))
        settings = cv.attrs.get("refit_parameters") or {}
        if settings:
            names = list(dict.fromkeys(n for s in settings.values() for n in s))
            lines.append("What the other benchmarks set: each refit's free parameters (* on a bound of its range: "
                         "the left-out prediction rests on that bound)")
            lines.append(pd.DataFrame([{"left out": g, **{n: (f"{s[n][0]:.4g}" + ("*" if s[n][1] else ""))
                                                          if n in s else "" for n in names}}
                                       for g, s in settings.items()]).to_string(index=False))
    return "\n".join(lines)


def kernel_areas() -> dict:
    """Short name (``locks``) -> the registered kernel-layer :class:`~zmodel.fits.Calibration`, in report order."""
    from zmodel.fits import registry

    return {cal.area.removeprefix("kernel_"): cal for cal in registry.calibrations(layer="kernel")}


def kernel_calibration_report(areas=None, leave_one_out: bool | str = "summary",
                              results=None, workers: int = 1) -> KernelCalibrationReport:
    """Fit every kernel area, cross-validate it and summarise the residuals.

    Parameters
    ----------
    areas : iterable of str, optional
        Kernel areas among :func:`kernel_areas` (default: all of them).
    leave_one_out : bool or "summary"
        Also run the leave-one-out refits: ``True`` for every area, ``False`` for none,
        ``"summary"`` (default) for the areas whose calibration declares
        ``leave_one_out_in_summary`` (kernel_versions does not: its 18 + 7 refits to
        convergence from the declared defaults take longer than all the other areas' refits
        together, BENCHMARKS.md; the summary says "not run"). An area that declares ``groups`` (the kernel-version composition: its
        benchmarks) is, with its leave-one-out, also cross-validated leaving out one group at
        a time (``median_left_out_benchmark``, ``failed_benchmark_refits`` and a per-benchmark
        table); a grouped table already computed in this process is shown in any case.
    results : mapping area -> CalibrationResult, optional
        Fits already made in this run (``make report`` fits each area once and passes
        them here, keyed by short area name); the areas missing from it are fitted.
    workers : int
        Processes for the refits (:func:`zmodel.calibration.cross_validate`: the same tables
        whatever the count; 1 runs them in this process).

    Returns
    -------
    KernelCalibrationReport
        ``.summary`` (one row per area), ``.results``, ``.leave_one_out``, ``.report()``.
    """
    import pandas as pd

    known = kernel_areas()
    areas = list(known) if areas is None else list(areas)
    unknown = [a for a in areas if a not in known]
    if unknown:
        raise ValueError(f"areas must be among {', '.join(known)}; got {', '.join(map(str, unknown))}")
    if workers > 1:   # every refit of the summary in one pool (the same tables)
        cross_validate_together(summary_cross_validations(areas, leave_one_out), workers=workers)
    rows, fitted_results, loos, lgos = [], {}, {}, {}
    for area in areas:
        cal = known[area]
        given = (results or {}).get(area)
        result = given if given is not None else cal.run()
        fitted_results[area] = result
        res = result.to_frame("residuals")
        used = res[res["used_in_fit"].astype(bool)]
        if "informative" in used:
            used = used[used["informative"].astype(bool)]   # configuration echoes are not scored
        # bounds are satisfied or violated, never a 0 % error in a median
        fitted = _abs_errors(used[used["satisfied"].isna()], "percent_error")
        value_rows = used[~used["kind"].isin(["upper_bound", "lower_bound", "range_low", "range_high", "interval"])
                          | ~used["satisfied"].fillna(True).astype(bool)]
        exact_ids = set(cal.exactly_determined)
        informative = _abs_errors(value_rows[~value_rows["id"].isin(exact_ids)], "percent_error")
        shapes = result.to_frame("shape_checks")
        row = {
            "area": area,
            "fitted_rows": len(used),
            "median_fitted": _stats(fitted)[0], "worst_fitted": _stats(fitted)[1],
            "informative_rows": informative.size,
            "median_informative": _stats(informative)[0],
            "shape_checks": len(shapes),
            "shape_holds": int(shapes["passed"].fillna(False).astype(bool).sum()) if len(shapes) else 0,
        }
        if _wants_leave_one_out(cal, leave_one_out):
            loo = cal.cross_validate(**_workers(workers))
            loos[area] = loo
            # every informative value row counts, including those the other rows cannot
            # predict (their left-out error is reported, not excluded); bounds are counted
            values = loo[loo["bound_satisfied_loo"].isna()]
            lerr = _abs_errors(values, "percent_error_loo")
            lerr = lerr[np.isfinite(lerr)]
            predictable = values[values["predictable"].astype(bool)]
            perr = _abs_errors(predictable, "percent_error_loo")
            perr = perr[np.isfinite(perr)]
            row.update(loo_rows=lerr.size, median_left_out=_stats(lerr)[0], worst_left_out=_stats(lerr)[1],
                       median_left_out_predictable=_stats(perr)[0],
                       unpredictable_rows=int(len(values) - len(predictable)),
                       bounds_left_out=f"{loo.attrs.get('bounds_satisfied', 0)} of {loo.attrs.get('bounds', 0)}",
                       failed_refits=int(loo.attrs.get("n_failed", 0)))
        if cal.groups and (area in loos or cal.has_cross_validation(grouped=True)):
            # a whole benchmark left out at a time (issue 11 part 3)
            lgo = cal.cross_validate(grouped=True, **_workers(workers))
            lgos[area] = lgo
            row.update(median_left_out_benchmark=lgo.attrs["median_abs_percent_error"],
                       failed_benchmark_refits=int(lgo.attrs["failed_refits"]))
        rows.append(row)
    summary = pd.DataFrame(rows)
    return KernelCalibrationReport(summary=summary, results=fitted_results, leave_one_out=loos,
                                   leave_group_out=lgos)


def _wants_leave_one_out(cal, leave_one_out: bool | str) -> bool:
    return leave_one_out is True or (leave_one_out == "summary" and cal.leave_one_out_in_summary)


def summary_cross_validations(areas=None, leave_one_out: bool | str = "summary",
                              grouped: bool = False) -> list[tuple[Calibration, dict]]:
    """The cross-validations :func:`kernel_calibration_report` shows, as requests of
    :func:`zmodel.fits.cross_validate_together` (longest first: the areas' leave-one-group-out).

    ``grouped`` adds the leave-one-group-out of every area that declares groups (``zmodel
    calibrate`` prints it after the area's report); without it an area's grouped table is
    requested when its leave-one-out is, or when it is already memoised.
    """
    known = kernel_areas()
    chosen = [known[a] for a in (known if areas is None else areas)]
    wanted = [cal for cal in chosen if _wants_leave_one_out(cal, leave_one_out)]
    groups = [(cal, {"grouped": True}) for cal in chosen
              if cal.groups and (grouped or any(c is cal for c in wanted) or cal.has_cross_validation(grouped=True))]
    return groups + [(cal, {}) for cal in wanted]


def _workers(workers: int) -> dict:
    """The ``workers`` keyword of a cross-validation: none for one process (every area's default)."""
    return {} if workers == 1 else {"workers": workers}


def _leave_one_out_tables(progress: bool | None = False, **options):
    """Every kernel area's leave-one-out table, one frame with an ``area`` column."""
    import pandas as pd

    return pd.concat([cal.cross_validate(progress=progress).assign(area=area)
                      for area, cal in kernel_areas().items()], ignore_index=True)


#: the summary over the kernel calibrations (registered in zmodel.fits.registry, after them)
CALIBRATION = Calibration(
    area="kernel", layer="summary", order=0, fit=kernel_calibration_report, validate=_leave_one_out_tables,
    title="Kernel calibration report: every kernel area, residuals and leave-one-out")
