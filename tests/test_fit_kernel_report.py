"""The kernel calibration summary (issue 5 part 8) is computed from the areas' own
residual and leave-one-out tables, and states the issue's targets."""
import math

import numpy as np
import pytest

from zmodel.fits.kernel_report import TARGET_FITTED, TARGET_LEFT_OUT, kernel_calibration_report


@pytest.fixture(scope="module")
def report():
    return kernel_calibration_report(areas=("hypervisor",))


def test_summary_recomputed_from_the_residual_table(report):
    row = report.summary.set_index("area").loc["hypervisor"]
    res = report.results["hypervisor"].to_frame("residuals")
    used = res[res["used_in_fit"].astype(bool) & res["informative"].astype(bool)]
    values = used[used["satisfied"].isna()]          # bounds: satisfied or violated, not a percent
    assert row["fitted_rows"] == len(used)
    assert row["median_fitted"] == pytest.approx(np.median(values["percent_error"].abs()))
    loo = report.leave_one_out["hypervisor"]
    rows = loo[loo["bound_satisfied_loo"].isna()]     # every informative value row, predictable or not
    assert row["median_left_out"] == pytest.approx(np.median(rows["percent_error_loo"].abs()))
    pred = rows[rows["predictable"].astype(bool)]
    assert row["median_left_out_predictable"] == pytest.approx(np.median(pred["percent_error_loo"].abs()))
    assert row["unpredictable_rows"] == len(rows) - len(pred)


def test_report_text_names_targets_and_every_area(report):
    text = report.report()
    assert f"<= {TARGET_FITTED:g} % fitted" in text and f"<= {TARGET_LEFT_OUT:g} % left out" in text
    assert "kernel area: hypervisor" in text and "[[Leave-one-out]]" in text


def test_unknown_area_is_refused():
    with pytest.raises(ValueError, match=r"areas must be among memory, hypervisor, locks, .*; got scheduler"):
        kernel_calibration_report(areas=("scheduler",))


def test_group_report_table_by_hand():
    import pandas as pd

    from zmodel.fits.kernel_report import group_report

    # two groups: A's value rows miss by -10 % and +30 % (median |error| 20 %), B by 4 %;
    # one bound of B satisfied
    cv = pd.DataFrame({"id": ["a1", "a2", "b1", "b2"], "group": ["A", "A", "B", "B"],
                       "kind": ["absolute", "absolute", "absolute", "upper_bound"],
                       "measured": [10.0, 10.0, 25.0, 5.0], "predicted_full": [10.0, 10.0, 25.0, 4.0],
                       "predicted_loo": [9.0, 13.0, 26.0, 4.5], "percent_error_loo": [-10.0, 30.0, 4.0, math.nan],
                       "bound_satisfied_loo": [None, None, None, True], "success": [True, True, False, False],
                       "unidentified_without": ["k_a", "k_a", "", ""]})
    cv.attrs.update(median_abs_percent_error=10.0, refits=2, failed_refits=1)
    text = group_report(cv)
    assert "Leave-one-benchmark-out" in text and "not converged 1 (failures)" in text
    line_a = next(ln for ln in text.splitlines() if ln.split()[:1] == ["A"])
    line_b = next(ln for ln in text.splitlines() if ln.split()[:1] == ["B"])
    assert "20.00" in line_a and "30.00" in line_a and "k_a" in line_a and "True" in line_a
    assert "4.00" in line_b and "1 of 1" in line_b and "False" in line_b
