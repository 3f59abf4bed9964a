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


class _ToyArea:
    """A kernel area on synthetic rows: y1 = y2 = a (2 and 2.2), y3 = b (5, the only row on b),
    and a reading of a in [2.5, 3] (violated by any a the values give)."""

    exactly_determined = ()
    leave_one_out_in_summary = True

    def __init__(self):
        import pandas as pd

        from zmodel.calibration import Model

        self.model = Model({"a": 1.0, "b": 1.0}, name="toy")
        for id_, name in (("d.y1", "a"), ("d.y2", "a"), ("d.y3", "b"), ("d.r", "a")):
            self.model.add_predictor(id_, lambda p, name=name: p[name])
        self.data = pd.DataFrame({"id": ["d.y1", "d.y2", "d.y3", "d.r"],
                                  "kind": ["absolute", "absolute", "absolute", "interval"],
                                  "value_num": [2.0, 2.2, 5.0, 2.75], "low": [np.nan] * 3 + [2.5],
                                  "high": [np.nan] * 3 + [3.0], "unit": "s"})

    def run(self):
        from zmodel.calibration import calibrate

        return calibrate(self.model, self.data)

    def cross_validate(self, progress=False):
        from zmodel.calibration import cross_validate

        return cross_validate(self.model, self.data, progress=progress)


def test_summary_keeps_the_rows_it_cannot_predict(monkeypatch):
    import zmodel.fits.kernel_report as kr

    monkeypatch.setattr(kr, "kernel_areas", lambda: {"toy": _ToyArea()})
    rep = kr.kernel_calibration_report(areas=("toy",))
    row = rep.summary.set_index("area").loc["toy"]
    # by hand: y3 is the only row on b, so leaving it out leaves b at its start value 1:
    # (1 - 5)/5 = -80 %, an unpredictable row -- reported and counted, not excluded
    loo = rep.leave_one_out["toy"].set_index("id")
    assert loo.loc["d.y3", "predicted_loo"] == pytest.approx(1.0) and not loo.loc["d.y3", "predictable"]
    assert loo.loc["d.y3", "percent_error_loo"] == pytest.approx(-80.0)
    assert row["loo_rows"] == 3 and row["unpredictable_rows"] == 1     # y1, y2 and y3: none dropped
    assert row["worst_left_out"] == pytest.approx(80.0)                # the unpredictable row is in the worst
    # every informative row is in the fitted count (3 values + the violated reading) and in the text
    assert row["fitted_rows"] == 4
    text = rep.report()
    for id_ in ("d.y1", "d.y2", "d.y3", "d.r"):
        assert text.count(id_) >= 2, id_                                  # residual table and leave-one-out
    assert "(OUTSIDE [2.5, 3])" in text and "predictable" in text
