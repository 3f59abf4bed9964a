"""Shared validation helpers and the generic tidy result frame."""
import dataclasses
import math
import warnings

import numpy as np
import pandas as pd
import pytest

from zmodel.queueing import SaturationWarning
from zmodel.queueing._result import Result
from zmodel.conventions import (
    as_float_array, as_int_array, as_probability, as_servers, series_index, warn_saturated, wrap,
)


@pytest.mark.parametrize("value,kw,message", [
    ([1.0, float("nan")], {}, r"service_time must not be NaN, got nan at index 1"),
    ([1.0, math.inf], {}, r"service_time must be finite, got inf at index 1"),
    (-2.0, {}, r"service_time must be non-negative, got -2.0"),
    (0.0, {"positive": True}, r"service_time must be positive, got 0.0"),
    ("abc", {}, r"service_time must be numeric"),
])
def test_as_float_array_errors(value, kw, message):
    with pytest.raises(ValueError, match=message):
        as_float_array("service_time", value, **kw)


def test_as_float_array_min_ndim():
    with pytest.raises(ValueError, match=r"service_demands must have at least 1 dimension\(s\), got shape \(\)"):
        as_float_array("service_demands", 1.0, min_ndim=1)


def test_as_int_array_rules():
    assert as_int_array("population", [0, 3.0]).tolist() == [0, 3]
    with pytest.raises(ValueError, match=r"population must be an integer, got 2.5"):
        as_int_array("population", 2.5)
    with pytest.raises(ValueError, match=r"population must be an integer >= 0, got -1"):
        as_int_array("population", -1.0)
    with pytest.raises(ValueError, match=r"servers must be a positive integer, got 0"):
        as_int_array("servers", 0, minimum=1)
    with pytest.raises(ValueError, match=r"population must be an integer, got 'x'"):
        as_int_array("population", "x")


def test_as_probability():
    assert as_probability("hit_ratio", [0, 1]).tolist() == [0.0, 1.0]
    with pytest.raises(ValueError, match=r"hit_ratio must be a probability in \[0, 1\], got 1.5"):
        as_probability("hit_ratio", 1.5)


def test_as_servers_convention():
    assert as_servers(1, 3).tolist() == [1, 1, 1]
    assert as_servers([1, 4, math.inf], 3).tolist() == [1, 4, math.inf]
    with pytest.raises(ValueError, match=r"servers must be a scalar or have one entry per station \(3\)"):
        as_servers([1, 2], 3)
    with pytest.raises(ValueError, match=r"servers must be a positive integer or math.inf, got 0.0 at index 1"):
        as_servers([1, 0, 1], 3)
    with pytest.raises(ValueError, match=r"servers must be a positive integer or math.inf, got 1.5"):
        as_servers([1.5], 1)
    with pytest.raises(ValueError, match=r"servers must not be NaN"):
        as_servers([float("nan")], 1)


def test_series_roundtrip():
    s = pd.Series([1.0, 2.0], index=["a", "b"])
    idx = series_index(3.0, s)
    out = wrap(np.array([10.0, 20.0]), idx, name="x")
    assert list(out.index) == ["a", "b"] and out.tolist() == [10.0, 20.0]
    assert series_index(1.0, [2.0]) is None
    assert wrap(np.array(5.0), None) == 5.0 and isinstance(wrap(np.array(5.0), None), float)


def test_warn_saturated_counts_once():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warn_saturated(np.array([True, False, True]))
        warn_saturated(np.array([False]))
    assert len(caught) == 1 and issubclass(caught[0].category, SaturationWarning)
    assert "2 open queue entries saturated" in str(caught[0].message)


@dataclasses.dataclass(frozen=True)
class _Demo(Result):
    trailing_dims = ("station",)
    throughput: np.ndarray
    residence_time: np.ndarray
    method: str = "exact"


def test_to_frame_is_tidy_over_batch_and_station():
    r = _Demo(throughput=np.array([1.0, 2.0]), residence_time=np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]))
    df = r.to_frame()
    assert list(df.columns) == ["batch", "station", "throughput", "residence_time", "method"]
    assert len(df) == 6
    assert df.loc[(df.batch == 1) & (df.station == 2), "residence_time"].item() == 6.0
    assert df.loc[df.batch == 1, "throughput"].unique().tolist() == [2.0]
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.method = "other"


def test_to_frame_single_network():
    r = _Demo(throughput=np.float64(3.0), residence_time=np.array([1.0, 2.0]))
    df = r.to_frame()
    assert list(df.station) == [0, 1] and df.throughput.tolist() == [3.0, 3.0]


def test_to_frame_accepts_series_fields():
    r = _Demo(throughput=pd.Series([1.0, 2.0], index=["a", "b"]),
              residence_time=np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]))
    df = r.to_frame()
    assert len(df) == 6 and df.loc[df.batch == 1, "throughput"].unique().tolist() == [2.0]
