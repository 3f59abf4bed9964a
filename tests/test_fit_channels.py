"""Calibration of the channel model against the documented channel numbers (zmodel/fits/channels.py).

The expected numbers are the catalogued measurements (zmodel/_data/catalog/*.csv), never the
model's output. Tolerances are modelling targets, stated per row below.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from zmodel.calibration import calibrate
from zmodel.data import measurements
from zmodel.fits.channels import CHANNEL_IDS, ChannelModel, calibrate_channels


@pytest.fixture(scope="module")
def fit():
    return calibrate_channels()


def test_one_residual_row_per_documented_number(fit):
    cat = measurements(ids=CHANNEL_IDS)
    fitted = cat[cat["kind"] != "shape"]
    r = fit.residuals.set_index("id")
    assert set(r.index) == set(fitted["id"])
    for _, row in fitted.iterrows():          # measured column is the catalog's value
        assert r.loc[row["id"], "measured"] == row["value_num"]
    assert set(fit.shape_checks["id"]) == set(cat.loc[cat["kind"] == "shape", "id"])
    assert fit.success


# Modelling targets (percent error of the prediction against the documented value):
TOLERANCE = {
    "wavv08.ficon-4g-seqread-gain": 5.0,    # link-bound at both speeds: the model's core claim
    "wavv08.fcp-4g-seqread-gain": 5.0,      # FCP data-path cap between 200 and 400 MB/s
    "wavv08.fcp-random-gain": 10.0,         # per-I/O channel time FICON > FCP
    "wavv08.ficon-4g-avg-gain": 20.0,       # known shortfall: small random I/O is not link bound
}


#: targets the fit misses since the FCP per-I/O time has its public specification as a prior
#: (2026-11-27): with FCP's channel time held near IBM's 31,700 I/O/s, the fit's other parameters
#: move and the FICON 4 Gbit/s average gain comes out 1.267 for 1.6 (-20.8 %, the target 20 %; 1.268 before the drive-seek prior took the measured drives' generation)
_FCP_PRIOR_MISS = ("2026-11-27: with the FCP per-I/O time held by its public specification (z10 BC "
                   "reference guide p. 22), the FICON 4 Gbit/s average gain is predicted 1.267 for 1.6, "
                   "-20.8 % against the 20 % target; suspect: the reading that the 2 and 4 Gbit/s rows ran on "
                   "the same machine (zmodel.fits.channels)")
MISSED = {"wavv08.ficon-4g-avg-gain"}


@pytest.mark.parametrize("id_", [pytest.param(i, marks=pytest.mark.xfail(strict=True, reason=_FCP_PRIOR_MISS))
                                 if i in MISSED else i for i in sorted(TOLERANCE)])
def test_ratio_claims_within_tolerance(fit, id_):
    row = fit.residuals.set_index("id").loc[id_]
    assert abs(row["percent_error"]) <= TOLERANCE[id_], (id_, row["measured"], row["predicted"])


def test_configuration_rows_exact(fit):
    r = fit.residuals
    conf = r[r["kind"].isin(["configuration"]) | (r["id"] == "ibmsj.subchannel-devno-one-to-one")]
    assert len(conf) == 13
    assert np.allclose(conf["predicted"], conf["measured"], rtol=0, atol=0)


def test_multipath_cost_inside_documented_range(fit):
    r = fit.residuals.set_index("id")
    cost = r.loc["wavv08.multipath-cost-low", "predicted"]
    # "costs for multipathing are about 10-15%": the range with the catalog-wide +/-10 % for
    # "about" on each end, [0.9 * 10, 1.1 * 15] = [9, 16.5] (zmodel/_data/readings.csv)
    assert 9.0 - 1e-6 <= cost <= 16.5 + 1e-6


def test_direct_io_bounds(fit):
    r = fit.residuals.set_index("id")
    # "up to 2x" (FCP) holds; FICON may exceed "up to 1.6x" by at most 5 %
    assert r.loc["wavv08.directio-fcp-gain", "predicted"] <= 2.0
    assert r.loc["wavv08.directio-ficon-gain", "predicted"] <= 1.6 * 1.05
    assert r.loc["wavv08.directio-fcp-gain", "predicted"] > 1.0


def test_shape_checks(fit):
    checks = fit.shape_checks.set_index("id")["passed"]
    assert checks["wavv08.multipath-failover"]
    assert checks["wavv08.fcp-4g-moderate"]


def _claim_errors(fit):
    r = fit.residuals
    claims = r[~r["kind"].isin(["configuration"]) & (r["id"] != "ibmsj.subchannel-devno-one-to-one")]
    return (100 * claims["residual"]).abs()          # fit-scale residual: 0 for satisfied bounds


def test_median_residual(fit):
    assert _claim_errors(fit).median() <= 5.0


@pytest.mark.xfail(strict=True, reason=_FCP_PRIOR_MISS)
def test_worst_residual(fit):
    assert _claim_errors(fit).max() <= 20.0


def test_fitted_parameters_physical(fit):
    p = fit.params.valuesdict()
    assert p["ficon_command_time"] > p["fcp_command_time"]
    assert 200e6 < p["fcp_adapter_rate"] < 400e6     # between the 2G and 4G link data rates


def test_recovers_known_parameters():
    """Synthetic data from known parameters: the engine recovers them."""
    model = ChannelModel()
    truth = dict(model.parameters().valuesdict(), ficon_command_time=60e-6, host_time=400e-6)
    ids = ["wavv08.ficon-4g-avg-gain", "wavv08.fcp-random-gain", "wavv08.ficon-4g-seqread-gain"]
    kinds = ["ratio", "percent_change", "ratio"]
    values = [getattr(v, "value", v) for v in (model.predict(i, truth) for i in ids)]
    data = pd.DataFrame({"id": ids, "kind": kinds, "value_num": values, "unit": ["x", "%", "x"]})
    start = model.parameters()
    for name in ("fcp_command_time", "fcp_adapter_rate", "multipath_cpu_time", "data_rate_2g", "data_rate_4g",
                 "average_seek", "revolution_time"):
        start.set(name, vary=False)
    start.set("ficon_command_time", prior=None)   # recovery of the likelihood alone: no pull toward the spec
    res = calibrate(model, data, params=start)
    got = res.params.valuesdict()
    assert got["ficon_command_time"] == pytest.approx(60e-6, rel=1e-3)
    assert got["host_time"] == pytest.approx(400e-6, rel=1e-3)


def test_report_prints_residual_table(fit):
    text = fit.report()
    assert "[[Residuals]]" in text and "wavv08.fcp-random-gain" in text


# ------------------------------------------------------------------ public specifications as priors
# The spec values below are read from the sources, not from the code: IBM Redbook SG24-7145 ch. 3 p. 78,
# 'about 9,000 read hit I/Os per second' of a FICON Express2 channel (95 % within a factor 1.5), the FC-PI / FC-PI-2
# '200-MB/s' and '400-MB/s' variants (factor 1.1), the Seagate ST373453's 'Latency (ms) 5.7' less half a
# revolution at 15,000 rpm (2.0 ms; Hennessy & Patterson, 6th ed., Fig. 1.10 p. 22): 3.7 ms (factor 1.5) and
# 15,000 rpm = 4 ms per revolution (sigma 1 %); the IBM System z10 BC reference
# guide p. 22, FICON Express4 in FCP mode 'up to 57,000 I/O operations per second ... an 80% increase
# compared to System z9', so 57000 / 1.8 I/O/s on the z9 of the measurements (factor 1.5).
SPECS = {"ficon_command_time": (1 / 9000, 1.5), "data_rate_2g": (200e6, 1.1), "data_rate_4g": (400e6, 1.1),
         "average_seek": (5.7e-3 - 0.5 * 60 / 15000, 1.5), "fcp_command_time": (1.8 / 57000, 1.5)}


def test_priors_listed_with_their_specification(fit):
    t = fit.priors
    assert set(t.index) == set(SPECS) | {"revolution_time"}
    for name, (spec, factor) in SPECS.items():
        assert t.loc[name, "prior_value"] == pytest.approx(spec, rel=1e-12)
        assert t.loc[name, "prior_low"] == pytest.approx(spec / factor, rel=1e-9)
        assert t.loc[name, "prior_high"] == pytest.approx(spec * factor, rel=1e-9)
    assert t.loc["revolution_time", "prior_value"] == pytest.approx(60 / 15000, rel=1e-12)
    assert "[[Priors]]" in fit.report() and "priors             = 6" in fit.report()


@pytest.mark.parametrize("name", sorted(SPECS) + ["revolution_time"])
def test_fitted_value_within_its_specification_or_the_conflict_is_flagged(fit, name):
    row = fit.priors.loc[name]
    inside = row["prior_low"] <= fit.params[name].value <= row["prior_high"]
    assert inside or (bool(row["conflict"]) and name in fit.conflicts)
    assert bool(row["conflict"]) is (not inside)

