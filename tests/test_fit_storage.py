"""Storage calibration (zmodel.fits.storage) against the catalog rows, and the storage catalog.

Tolerances (modelling targets, stated here):

* configuration rows (cache, NVS, disks, rpm of ESS F20/800 and DS8300): the hardware
  catalog must reproduce the documents exactly (|residual| <= 1e-9);
* TSM CPU (+67 %): one free parameter (CPU cost ratio), |residual| <= 0.01;
* TSM execution time, entry (-25 %) and exit (-50 %): one model cannot meet both (they
  imply speed-ups of 1.33x and 2.0x for the same ECKD/SCSI comparison); each must be
  within 25 % in the engine's ratio form, and the two residuals must straddle zero;
* shape checks: DS8300 much faster (>= 1.5x at 32-64 threads), more throughput needs
  more CPU, the kernel paper's cached storage servers, and "costs almost equal" hold.
"""
import csv
import re
from pathlib import Path

import numpy as np
import pytest

from zmodel.fits.storage import CONFIG_ROWS, MEASUREMENT_IDS, calibrate_storage

REPO = Path(__file__).resolve().parents[1]
TSM_TIME_TOLERANCE = 0.25


@pytest.fixture(scope="module")
def fit():
    return calibrate_storage()


def _residual(fit, id_):
    t = fit.residuals.set_index("id")
    return float(t.loc[id_, "residual"])


def test_configuration_rows_are_exact(fit):
    from zmodel.data import measurements

    m = measurements().set_index("id")
    for id_ in CONFIG_ROWS:
        assert abs(_residual(fit, id_)) <= 1e-9, id_
        # the measured value is the catalog's, not the model's
        assert float(fit.residuals.set_index("id").loc[id_, "measured"]) == float(m.loc[id_, "value_num"])


def test_tsm_residuals(fit):
    assert abs(_residual(fit, "wavv08.tsm-entry-cpu")) <= 0.01
    entry = _residual(fit, "wavv08.tsm-entry-time")
    exit_ = _residual(fit, "wavv08.tsm-exit-time")
    assert abs(entry) <= TSM_TIME_TOLERANCE and abs(exit_) <= TSM_TIME_TOLERANCE
    assert entry < 0 < exit_
    # the engine's ratio form by hand: (1 + p/100) / (1 + m/100) - 1
    p = float(fit.residuals.set_index("id").loc["wavv08.tsm-entry-time", "predicted"])
    assert entry == pytest.approx((1 + p / 100) / (1 - 0.25) - 1, rel=1e-9)


def test_shape_checks(fit):
    checks = fit.shape_checks.set_index("id")["passed"]
    for id_ in ("wavv08.ds8300-faster", "wavv08.new-storage-more-cpu",
                "ibmsj.storage-server-features-shape", "wavv08.tsm-exit-costs-equal"):
        assert checks[id_] is True or checks[id_] == True, id_  # noqa: E712


def test_every_row_reported(fit):
    reported = set(fit.residuals["id"]) | set(fit.shape_checks["id"])
    assert reported == set(MEASUREMENT_IDS)
    assert "[[Residuals]]" in fit.report()


def test_fitted_parameters_are_physical(fit):
    p = fit.params
    assert 1.0 <= p["scsi_outstanding"].value <= 32.0
    assert 0.5 <= p["scsi_cpu_cost_ratio"].value <= 2.0


def test_storage_catalog_verbatim_occurs_in_the_seeds(seeds):
    def norm(s):
        return re.sub(r"\s+", " ", s).strip()

    with open(REPO / "zmodel" / "_data" / "hardware" / "storage_servers.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert rows, "empty catalog"
    texts = {p.name: norm(p.read_text(encoding="utf-8")) for p in seeds.glob("*.txt")}
    for r in rows:
        if r["in_documents"] == "true":
            assert r["source"] in texts, r
            assert norm(r["verbatim"]) in texts[r["source"]], r
        else:
            assert r["verbatim"] == "" and r["source"], r


def test_seed_values_match_catalog_rows():
    """Every in-document storage-server value equals the catalog number of the same fact."""
    from zmodel.data import measurements
    from zmodel.hardware import catalog

    m = measurements().set_index("id")
    pairs = {"wavv08.ds8300-cache": ("DS8300", "cache_size", 2 ** 30),
             "fs03.shark-nvs": ("ESS-F20", "nvs_size", 2 ** 20),
             "wavv08.ess-rpm": ("ESS-800", "disk_rpm", 1 / 60)}
    for id_, (name, param, unit) in pairs.items():
        assert catalog.component("storage_servers", name)[param] == pytest.approx(
            float(m.loc[id_, "value_num"]) * unit)
