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


class _ToyArea:
    """A kernel area on synthetic rows: y1 = y2 = a (2 and 2.2), y3 = b (5, the only row on b),
    and a reading of a in [2.5, 3] (violated by any a the values give)."""

    exactly_determined = ()
    leave_one_out_in_summary = True
    groups = {}     # no benchmarks: no leave-one-benchmark-out

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
                       "unidentified_without": ["k_a", "k_a", "", ""], "predictable": [False, False, True, True]})
    cv.attrs.update(median_abs_percent_error=10.0, refits=2, failed_refits=1,
                    refit_parameters={"A": {"k_a": (0.5, False), "k_b": (0.0, True)}, "B": {"k_a": (2.0, False)}})
    text = group_report(cv)
    # each fold's refit values, the one on a bound of its range starred
    assert "What the other benchmarks set" in text and "0*" in text and "0.5 " in text
    assert "Leave-one-benchmark-out" in text and "not converged 1 (failures)" in text
    # three value rows; only b1's prediction does not rest on an unidentified start (k_a): 4 %
    assert "value rows: 10.00 (3 rows); over the 1 of them that no parameter's start decides (predictable): 4.00" in text
    line_a = next(ln for ln in text.splitlines() if ln.split()[:1] == ["A"])
    line_b = next(ln for ln in text.splitlines() if ln.split()[:1] == ["B"])
    assert "20.00" in line_a and "30.00" in line_a and "k_a" in line_a and "True" in line_a
    assert "4.00" in line_b and "1 of 1" in line_b and "False" in line_b


def test_cross_validations_computed_together_equal_each_alone():
    """One pool for several tables (zmodel calibrate): each equals the table its calibration
    computes alone, row for row, and is memoised for it."""
    import pandas as pd

    from zmodel.fits import cross_validate_together, registry

    hyp, net = (next(c for c in registry.calibrations() if c.area == a) for a in ("kernel_hypervisor", "network"))
    for cal in (hyp, net):
        cal.clear()
    together = cross_validate_together([(hyp, {}), (net, {}), (hyp, {})], workers=2)
    assert hyp.has_cross_validation() and net.has_cross_validation()
    # each table holds its own calibration's declared rows, none of the other's
    assert set(together[0]["id"]) <= set(hyp.rows) and set(together[1]["id"]) <= set(net.rows)
    assert len(together[0]) and len(together[1]) and not set(together[0]["id"]) & set(together[1]["id"])
    pd.testing.assert_frame_equal(together[0], together[2], check_exact=True)   # one request, computed once
    for cal, table in ((hyp, together[0]), (net, together[1])):
        cal.clear()
        alone = cal.cross_validate()
        pd.testing.assert_frame_equal(table, alone, check_exact=True)
        assert table.attrs == alone.attrs


def test_summary_requests_the_longest_cross_validations_first():
    from zmodel.fits.kernel_report import kernel_areas, summary_cross_validations

    areas = kernel_areas()
    requests = summary_cross_validations(grouped=True)
    grouped = [cal for cal, opts in requests if opts == {"grouped": True}]
    plain = [cal for cal, opts in requests if opts == {}]
    assert grouped == [c for c in areas.values() if c.groups]            # kernel_versions' benchmarks
    assert requests[:len(grouped)] == [(c, {"grouped": True}) for c in grouped]
    assert plain == [c for c in areas.values() if c.leave_one_out_in_summary]
    assert [c for c, _ in summary_cross_validations(areas=["hypervisor"])] == [areas["hypervisor"]]
