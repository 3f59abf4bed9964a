"""The kernel calibration summary (issue 5 part 8) is computed from the areas' own
residual and leave-one-out tables, and states the issue's targets."""
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
