"""One contract for every public model function and class, run over ``tests/contract_registry.py``.

scalar in → float out; a pandas Series in → the same index out; a batch broadcasts like
the scalar calls; a negative, NaN, boolean, text or wrongly shaped argument →
``ValueError`` naming it; overload → exactly one ``SaturationWarning``; ``to_frame()``
works; and the registry covers every public callable of the three layers.

The expected values are the model's own scalar calls (the batch must agree with them
entry by entry): the contract is about form, the numbers are tested where computed.
"""
import dataclasses
import fnmatch
import importlib
import inspect
import pkgutil
import re
import warnings

import numpy as np
import pandas as pd
import pytest

import zmodel.hardware
import zmodel.kernel
import zmodel.queueing
from zmodel.conventions import SaturationWarning

from contract_registry import CASES, EXEMPT, batch_values, covered_names

INDEX = pd.Index(["a", "b", "c"], name="point")


def _public_callables():
    """``module.Name`` and ``module.Class.method`` for every public callable of the layers."""
    names = set()
    for pkg in (zmodel.queueing, zmodel.hardware, zmodel.kernel):
        for info in pkgutil.iter_modules(pkg.__path__):
            if info.name.startswith("_"):
                continue
            mod = importlib.import_module(f"{pkg.__name__}.{info.name}")
            for attr in getattr(mod, "__all__", ()):
                obj = getattr(mod, attr)
                if not callable(obj):
                    continue
                names.add(f"{info.name}.{attr}")
                if inspect.isclass(obj):
                    for meth, fn in vars(obj).items():
                        if not meth.startswith("_") and (callable(fn) or isinstance(fn, (classmethod, staticmethod))):
                            names.add(f"{info.name}.{attr}.{meth}")
    return names


def _exempt(name):
    return any(fnmatch.fnmatch(name, pattern) or fnmatch.fnmatch(name.split(".", 1)[1], pattern)
               for pattern in EXEMPT)


def test_registry_covers_every_public_callable():
    public = _public_callables()
    assert len(public) > 100
    missing = sorted(n for n in public if n not in covered_names() and not _exempt(n))
    assert not missing, f"public callables with no contract case (add one to tests/contract_registry.py): {missing}"
    stale = sorted(covered_names() - public)
    assert not stale, f"registry names that are not public callables: {stale}"


def test_coverage_check_can_fail():
    assert not _exempt("single.mm1") and _exempt("closed.MVAResult")


# ------------------------------------------------------------------------------ helpers
def _call(case, **changes):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SaturationWarning)
        return case.call(**{**case.args, **changes})


def _fields(result):
    """Numeric outputs of a result: {name: value}."""
    if dataclasses.is_dataclass(result):
        out = {}
        for f in dataclasses.fields(result):
            v = getattr(result, f.name)
            if isinstance(v, (bool, str, np.bool_)) or v is None:
                continue
            if isinstance(v, (float, int, np.number, np.ndarray, pd.Series)):
                if isinstance(v, np.ndarray) and v.dtype.kind not in "fiu":
                    continue
                out[f.name] = v
        return out
    if isinstance(result, (float, int, np.number, np.ndarray, pd.Series)):
        return {"value": result}
    if isinstance(result, pd.DataFrame):
        return {}
    return {}


def _numeric_args(case):
    if case.checked is not None:
        return case.checked
    return tuple(k for k, v in case.args.items()
                 if not isinstance(v, (bool, str)) and (isinstance(v, (int, float)) or
                                                      (isinstance(v, (list, tuple)) and v and
                                                       all(isinstance(x, (int, float)) for x in np.ravel(v)))))


FUNCTIONS = [c for c in CASES if not c.constructor]
VECTOR = [c for c in FUNCTIONS if c.vector]
OVERLOAD = [c for c in CASES if c.overload]
BAD = [(c, a) for c in CASES for a in _numeric_args(c)]


# ------------------------------------------------------------------------------ the contract
@pytest.mark.parametrize("case", FUNCTIONS, ids=str)
def test_scalar_in_float_out(case):
    result = _call(case)
    for name, v in _fields(result).items():
        if isinstance(v, np.ndarray):
            assert v.ndim >= 1, f"{case}: {name} is a 0-d array, not a float"
        else:
            assert type(v) in (float, int), f"{case}: {name} is {type(v).__name__}, not a Python float"


@pytest.mark.parametrize("case", VECTOR, ids=str)
def test_batch_broadcasts_like_scalar_calls(case):
    arg = case.vector[0]
    values = batch_values(case, arg)
    batch = _fields(_call(case, **{arg: np.asarray(values)}))
    singles = [_fields(_call(case, **{arg: v})) for v in values]
    assert batch, f"{case}: no numeric output"
    for name, b in batch.items():
        each = [s[name] for s in singles]
        if np.ndim(b) == np.ndim(each[0]):  # a constant of the model, not batched
            assert all(np.allclose(b, e, rtol=1e-9, equal_nan=True) for e in each), f"{case}: {name}"
            continue
        assert np.shape(b) == (3,) + np.shape(each[0]), f"{case}: {name} has shape {np.shape(b)}"
        for i, e in enumerate(each):
            np.testing.assert_allclose(np.asarray(b)[i], e, rtol=1e-9, equal_nan=True,
                                       err_msg=f"{case}: {name}[{i}]")


@pytest.mark.parametrize("case", VECTOR, ids=str)
def test_series_in_same_index_out(case):
    arg = case.vector[0]
    values = batch_values(case, arg)
    plain = _fields(_call(case, **{arg: np.asarray(values)}))
    series = _call(case, **{arg: pd.Series(values, index=INDEX)})
    out = _fields(series)
    batched = [n for n, v in plain.items() if np.shape(v) == (3,)]
    assert batched, f"{case}: no batched output"
    for name in batched:
        assert isinstance(out[name], pd.Series), f"{case}: {name} lost the Series ({type(out[name]).__name__})"
        assert out[name].index.equals(INDEX), f"{case}: {name} has another index"
        np.testing.assert_allclose(out[name].to_numpy(dtype=float), np.asarray(plain[name], dtype=float),
                                   rtol=1e-12, equal_nan=True)
    if hasattr(series, "to_frame"):
        frame = series.to_frame()
        assert isinstance(frame, pd.DataFrame) and len(frame) >= 3


def _bad_values(case, arg):
    """(label, bad value) pairs for one sane argument.

    Negative, NaN, text and boolean values everywhere; a nested list where the
    parameter is one number of a component (constructors take scalars); a batch that
    cannot broadcast against another batched argument.
    """
    value = case.args[arg]
    if isinstance(value, (list, tuple, np.ndarray)):
        arr = np.array(value, dtype=float)
        neg, nan = arr.copy(), arr.copy()
        neg.flat[0] = -1.0
        nan.flat[0] = np.nan
        bad = [("negative", neg.tolist()), ("nan", nan.tolist()), ("text", "5"), ("flag", True)]
        return bad[1:] if arg in case.signed else bad
    bad = [("negative", -1.0 if value == 0 else -abs(value)), ("nan", float("nan")), ("text", "5"),
           ("flag", True)]
    if arg in case.signed:
        bad = bad[1:]
    if case.constructor:
        bad.append(("shape", [value, value]))
    return bad


def _check_bad(case, arg, label, bad, changes=None):
    try:
        _call(case, **{arg: bad, **(changes or {})})
    except ValueError as exc:
        message = str(exc)
        if not re.search(rf"\b{re.escape(arg)}\b", message) or "must" not in message:
            return f"{label} {arg}={bad!r}: {message!r}"
        return None
    except Exception as exc:  # noqa: BLE001 - the contract is a ValueError
        return f"{label} {arg}={bad!r}: {type(exc).__name__}: {exc}"
    return f"{label} {arg}={bad!r}: accepted"


@pytest.mark.parametrize("case,arg", BAD, ids=lambda v: str(v))
def test_bad_input_names_parameter_and_rule(case, arg):
    problems = [p for label, bad in _bad_values(case, arg) if (p := _check_bad(case, arg, label, bad))]
    assert not problems, f"{case}: " + "; ".join(problems)


@pytest.mark.parametrize("case", [c for c in VECTOR if len(c.vector) > 1], ids=str)
def test_batches_that_do_not_broadcast_are_named(case):
    first, second = case.vector[:2]
    a, b = batch_values(case, first), batch_values(case, second)
    problem = _check_bad(case, second, "shape", [b[0], b[1]], {first: a})
    assert problem is None, f"{case}: {problem}"


@pytest.mark.parametrize("case", OVERLOAD, ids=str)
def test_overload_warns_exactly_once(case):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        case.call(**{**case.args, **case.overload})
    saturation = [w for w in caught if issubclass(w.category, SaturationWarning)]
    assert len(saturation) == 1, f"{case}: {len(saturation)} SaturationWarnings: {[str(w.message) for w in saturation]}"


@pytest.mark.parametrize("case", FUNCTIONS, ids=str)
def test_result_is_named_with_to_frame_or_a_number(case):
    """A result is a named result with a working ``to_frame()``, or a plain number/array."""
    result = _call(case)
    if hasattr(result, "to_frame"):
        frame = result.to_frame()
        assert isinstance(frame, pd.DataFrame) and len(frame) >= 1
    else:
        assert _fields(result) or isinstance(result, (str, dict, frozenset, pd.DataFrame)), \
            f"{case}: returned {type(result).__name__}"


# ------------------------------------------------------------------------------ the known defects
def test_population_beyond_the_documented_maximum_is_named():
    """mva(d, 10**30) once returned throughput 0 (int64 overflow); now the bound is named."""
    from zmodel.conventions import MAX_INTEGER
    from zmodel.queueing import mva

    with pytest.raises(ValueError, match=rf"^population must be an integer <= {MAX_INTEGER} \(2\*\*53"):
        mva([0.01, 0.02], 10 ** 30)


@pytest.mark.parametrize("bad", [True, "5"])
def test_flags_and_text_are_not_counts(bad):
    from zmodel.queueing import mmc, mva

    with pytest.raises(ValueError, match=r"^population must be an integer"):
        mva([0.01, 0.02], bad)
    with pytest.raises(ValueError, match=r"^servers must be"):
        mmc(1.0, 0.1, bad)


def test_huge_cpu_count_gets_the_rule_not_a_bogus_bound():
    """`cpus = 9223372036854775807` once said "got 9.22e+18 > -9.22e+18"."""
    from zmodel.kernel.scenario import Scenario

    mapping = {"hardware": {"processor": "z990", "cpus": 9223372036854775807},
               "kernel": {"version": "2.6.10"}, "workload": {"kind": "web"}}
    with pytest.raises(ValueError, match=r"^hardware\.cpus must be an integer <= 9007199254740992 .*"
                                         r"got 9223372036854775807$"):
        Scenario.from_dict(mapping)


def test_mmck_far_beyond_capacity():
    """mmck(1e20, 1, 4, 1000) once gave utilization 0 and a NaN waiting probability.

    Hand computation: with A = 1e20 >> c = 4 the station is full with probability
    1 - O(c/A), so X = (c/S)(1 - O(4e-20)) = 4/s, U = 1, every admitted job waits (P_wait = 1)
    and Q = K = 1000 up to O(c/A).
    """
    from zmodel.queueing import mmck

    r = mmck(1e20, 1.0, 4, 1000)
    assert r.throughput == pytest.approx(4.0, rel=1e-9)
    assert r.utilization == pytest.approx(1.0, rel=1e-9) and r.utilization <= 1.0
    assert r.waiting_probability == pytest.approx(1.0, rel=1e-9)
    assert r.queue_length == pytest.approx(1000.0, rel=1e-9)


def test_mixed_network_saturated_open_class_follows_the_policy():
    """An open class offered twice its bottleneck's capacity once reported utilization 2.0.

    Hand computation: lambda = 100/s, D = (0.01, 0.02) s: the second station saturates
    (U = 2); the class carries 1/0.02 = 50/s, so U = (0.5, 1.0).
    """
    from zmodel.queueing import mixed_network

    with pytest.warns(SaturationWarning):
        r = mixed_network([100.0], [[0.01, 0.02]], [[0.02, 0.01]], [3])
    assert r.throughput[0] == pytest.approx(50.0, rel=1e-12)
    np.testing.assert_allclose(r.utilization[0], [0.5, 1.0], rtol=1e-12)


def test_storage_open_load_takes_a_batch_of_sizes():
    """open_load(size=[4096, 65536]) once failed with numpy's "truth value is ambiguous"."""
    from contract_registry import server

    s = server()
    batch = s.open_load(500.0, "random_read", [4096.0, 65536.0], hit_ratio=0.5)
    for i, size in enumerate([4096.0, 65536.0]):
        one = s.open_load(500.0, "random_read", size, hit_ratio=0.5)
        assert batch.response_time[i] == pytest.approx(one.response_time, rel=1e-12)


def test_scenario_keeps_the_catalog_name_it_was_given():
    """A scenario with channel = "FCP-4G" once came back labelled FICON-4G (same numbers)."""
    from zmodel.kernel.scenario import Scenario

    s = Scenario.from_dict({"hardware": {"processor": "z990", "cpus": 4, "storage_server": "ESS-800",
                                         "channel": "fcp-4g"},
                            "kernel": {"version": "2.6.10"}, "workload": {"kind": "oltp"}})
    assert s.hardware.channel == "FCP-4G"


def test_scenario_block_size_beyond_representable_demands_is_named():
    """`block_size = 1e300` once said "service_demands must not be NaN" without naming the key."""
    from zmodel.kernel.scenario import Scenario

    mapping = {"hardware": {"processor": "z990", "cpus": 4, "storage_server": "ESS-800", "channel": "FICON-2G"},
               "kernel": {"version": "2.6.10"}, "workload": {"kind": "oltp", "block_size": 1e300}}
    with pytest.raises(ValueError, match=r"^workload\.block_size must be at most 1073741824, got 1e\+300$"):
        Scenario.from_dict(mapping)
