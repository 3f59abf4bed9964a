"""Calibration of the hypervisor models against seeds 000 (IBM Systems Journal 2005,
"Timer tick") and 002 (WAVV 2008, the ``top`` snapshot and the spinlock slides).

Expected values are the printed numbers: the six %st of the snapshot (53.0, 52.6,
38.7, 49.1, 45.5, 48.6), the 10 ms tick, "hundreds" of guests. The least-squares optimum
of the one free parameter is re-derived here in closed form from the printed columns.
"""
import numpy as np
import pytest

from zmodel.fits.kernel_hypervisor import (
    FIT_IDS,
    SHAPE_IDS,
    STEAL_IDS,
    HypervisorModel,
    calibrate_kernel_hypervisor,
    cross_validate_kernel_hypervisor,
    measurements,
)

# WAVV 2008, slide "Linux command 'top' - the snapshot tool": %id, %wa, %st per Cpu line
IDLE = np.array([0.0, 5.1, 0.6, 1.2, 15.0, 0.0])
IOWAIT = np.array([2.4, 1.3, 4.9, 0.0, 0.6, 4.2])
STEAL = np.array([53.0, 52.6, 38.7, 49.1, 45.5, 48.6])


@pytest.fixture(scope="module")
def result():
    return calibrate_kernel_hypervisor()


@pytest.fixture(scope="module")
def loo():
    return cross_validate_kernel_hypervisor()


def test_rows_have_provenance():
    rows = measurements().set_index("id")
    assert rows.loc[list(STEAL_IDS), "value_num"].tolist() == STEAL.tolist()
    assert rows.loc["ibmsj.tick-dispatch-interval", "value_num"] == 10
    assert set(rows["source"]) == {"000_bf0694975d199a2d.txt", "002_3ef25dc9d706703e.txt"}
    assert set(rows.index) == set(FIT_IDS) | set(SHAPE_IDS)


def test_fitted_capacity_is_the_closed_form_least_squares_optimum(result):
    # relative residual e_j = (r_j (1 - C/R) - m_j)/m_j = a_j - b_j C (linear in C)
    r = 1 - (IDLE + IOWAIT) / 100
    R = r.sum()
    m = STEAL / 100
    a, b = r / m - 1, r / (R * m)
    c_star = (a * b).sum() / (b * b).sum()
    assert result.params["guest_capacity"].value == pytest.approx(c_star, rel=1e-5)
    # the snapshot is consistent with its 6 virtual CPUs running on 3 physical CPUs
    # (less CP overhead and other guests): 95 % interval contains 3, point below it
    row = result.parameter_table.loc["guest_capacity"]
    assert row["ci95_low"] < 3.0 < row["ci95_high"] and row["value"] < 3.0


def test_steal_predictions_by_hand(result):
    C = result.params["guest_capacity"].value
    r = 1 - (IDLE + IOWAIT) / 100
    expected = 100 * r * (1 - C / r.sum())
    res = result.to_frame("residuals").set_index("id")
    assert res.loc[list(STEAL_IDS), "predicted"].to_numpy() == pytest.approx(expected, rel=1e-9)


def test_residual_tolerances(result):
    res = result.to_frame("residuals").set_index("id")
    err = res["percent_error"].abs()
    steal = err.loc[list(STEAL_IDS)]
    # one common dispatch fraction cannot reproduce the per-CPU spread of one snapshot
    # (st/runnable ranges 0.41..0.56): median 8 %, worst Cpu2 (38.7 %st) at +22 %
    assert steal.median() <= 10.0
    assert steal.max() <= 25.0
    assert res.loc["ibmsj.tick-dispatch-interval", "predicted"] == pytest.approx(10.0)
    assert res.loc["wavv08.timer-interrupt-period", "predicted"] == pytest.approx(10.0)
    assert res.loc[["ibmsj.zvm-guests-hundreds", "ibmsj.linux-instances-hundreds"], "satisfied"].all()
    fitted = np.where(res["satisfied"].fillna(False).astype(bool), 0.0, err)
    assert np.median(fitted) <= 5.0            # issue target on all fitted rows
    # total steal of the snapshot within 3 % of the printed total
    assert res.loc[list(STEAL_IDS), "predicted"].sum() == pytest.approx(STEAL.sum(), rel=0.03)


def test_all_shape_checks_hold(result):
    shapes = result.to_frame("shape_checks").set_index("id")
    assert set(shapes.index) == set(SHAPE_IDS)
    assert shapes["passed"].all()


def test_leave_one_out(loo):
    loo = loo.set_index("id")
    err = loo["percent_error_loo"].abs()
    assert loo.attrs["median_abs_percent_error"] <= 15.0      # issue target, all fitted rows
    assert err.loc[list(STEAL_IDS)].median() <= 12.0
    assert err.loc[list(STEAL_IDS)].max() <= 35.0
    assert loo["success"].all()


def test_checks_can_fail():
    m = HypervisorModel()
    p = m.parameters().valuesdict()
    cheap = dict(p, cost_per_tick=1e-7)       # 100 guests x 100/s x 0.1 us = 0.001 CPU
    assert not m.idle_overhead_considerable(cheap)
    dear = dict(p, cost_per_tick=2e-3)        # 16 CPUs / (100/s x 2 ms) = 80 < "hundreds"
    assert m.saturation_guests(dear) == pytest.approx(80.0)
    roomy = dict(p, guest_capacity=6.0)       # capacity for every VCPU: no steal, accurate ticks
    assert not m.tick_accounting_inaccurate(roomy)
    assert m.steal_percent(0, roomy) == 0.0
