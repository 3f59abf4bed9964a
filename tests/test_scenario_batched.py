"""The batched draws of :meth:`Scenario.sampled` against the per-draw loop they replace.

``sampled`` solves the draws of a batch together (every composition of a step in one
``compose_many`` call, the IOSQ bisections of all draws in lock step). The reference is
the definition of the sampled predictions, written out here: for each parameter draw of
:meth:`Scenario.draws`, the scenario with that draw's values (:meth:`Scenario.with_values`)
predicted point by point (each point's task driven alone, one composition per call). The two
must agree bit for bit; so must :meth:`Scenario.predict`, which drives the points of a sweep
together, and the same points each alone -- closed and open loads, populations swept, the IOSQ fixed point
of PAV volumes, and saturated z/VM points.
"""
from __future__ import annotations

import numpy as np
import pytest

from zmodel.conventions import quiet_saturation
from zmodel.kernel import scenario as scenario_module
from zmodel.kernel.scenario import INTERVAL_COLUMNS, Scenario

HW = {"processor": "z990", "cpus": 2, "storage_server": "DS8300", "channel": "FICON-4G", "channels": 2}
CASES = {
    "closed, clients and kernels swept": (
        {"hardware": HW, "kernel": {"version": "2.6.10"},
         "workload": {"kind": "oltp", "clients": 8, "think_time": 0.1, "io_per_transaction": 4}},
        {"kernel.version": ["2.4.21", "2.6.10"], "workload.clients": [2, 8]}),
    "open load, rates and paths swept": (
        {"hardware": HW, "kernel": {"version": "2.6.10"},
         "workload": {"kind": "random_read", "io_rate": 4000, "hit_ratio": 0.5}},
        {"workload.io_rate": [2000, 20000], "hardware.channels": [1, 4]}),
    "open load with a population sweep": (
        {"hardware": HW, "kernel": {"version": "2.6.10"},
         "workload": {"kind": "random_read", "io_rate": 4000}},
        {"workload.clients": [4, 16]}),
    "PAV volumes (IOSQ fixed point)": (
        {"hardware": {**HW, "volumes": 1, "pav": "static", "pav_aliases": 0}, "kernel": {"version": "2.6.10"},
         "workload": {"kind": "random_read", "clients": 16}},
        {"hardware.pav_aliases": [0, 3]}),
    "open load on PAV volumes": (
        {"hardware": {**HW, "volumes": 2, "pav": "hyper", "pav_aliases": 1}, "kernel": {"version": "2.6.10"},
         "workload": {"kind": "random_read", "io_rate": 300}},
        {"workload.io_rate": [100, 300]}),
    "z/VM guests, some saturated": (
        {"hardware": HW, "kernel": {"version": "2.4.21"},
         "hypervisor": {"type": "zvm", "guests": 100, "active_guests": 1, "physical_cpus": 4},
         "workload": {"kind": "oltp", "clients": 8, "think_time": 0.05}},
        {"hypervisor.guests": [1, 2000]}),
    "no sweep": (
        {"hardware": HW, "kernel": {"version": "2.6.6"}, "workload": {"kind": "dbench"}}, None),
}


def _point_by_point(scen: Scenario, sweep) -> np.ndarray:
    """The rows of ``scen.predict(sweep)``, each point's task driven alone (as predict did until 2026-11-27)."""
    _, jobs = scen._point_jobs(sweep)
    rows = [row for _, point, populations in jobs for row in point._predict_point(populations)]
    return np.array([[row[c] for c in INTERVAL_COLUMNS] for row in rows], dtype=float)


def _per_draw(scen: Scenario, sweep, samples: int, seed: int) -> np.ndarray:
    """The definition: each draw's values, the scenario predicted again point by point."""
    draws = scen.draws(samples, seed)
    runs = []
    for i in range(samples):
        with quiet_saturation():
            runs.append(_point_by_point(scen.with_values({n: v[i] for n, v in draws.items()}), sweep))
    return np.stack(runs)


@pytest.mark.parametrize("case", list(CASES))
def test_batched_draws_equal_the_per_draw_loop(case, monkeypatch):
    mapping, sweep = CASES[case]
    scen = Scenario.from_dict(mapping)
    monkeypatch.setattr(scenario_module, "SAMPLED_BATCH", 2)   # 5 draws: batches of 2, 2 and 1
    done = []
    got = scen.sampled(sweep, samples=5, seed=3, progress=lambda i, n: done.append((i, n)))
    np.testing.assert_array_equal(got, _per_draw(scen, sweep, 5, 3))   # bit for bit, inf where inf
    assert done == [(i, 5) for i in range(1, 6)]


@pytest.mark.parametrize("case", list(CASES))
def test_points_driven_together_equal_each_point_alone(case):
    # predict drives the tasks of all points of a sweep together (one compose_many call per step)
    mapping, sweep = CASES[case]
    scen = Scenario.from_dict(mapping)
    with quiet_saturation():
        got = scen.predict(sweep)[list(INTERVAL_COLUMNS)].to_numpy(dtype=float)
        np.testing.assert_array_equal(got, _point_by_point(scen, sweep))   # bit for bit, inf where inf


def test_the_cases_exercise_what_they_name():
    """Guards against a case silently losing its point: saturation, IOSQ and an open load occur."""
    zvm = Scenario.from_dict(CASES["z/VM guests, some saturated"][0]).predict(CASES["z/VM guests, some saturated"][1])
    assert zvm["saturated"].iloc[1] and np.isinf(zvm["response_time"].iloc[1])
    pav = Scenario.from_dict(CASES["PAV volumes (IOSQ fixed point)"][0])
    assert 0.0 < pav.iosq_time(50.0, clients=16) < np.inf     # 16 clients on 1 subchannel queue
    plain = Scenario.from_dict({**CASES["PAV volumes (IOSQ fixed point)"][0], "hardware": HW}).predict()
    assert pav.predict()["throughput"].iloc[0] < plain["throughput"].iloc[0]   # the IOSQ delay acts
    open_load = Scenario.from_dict(CASES["open load, rates and paths swept"][0])
    assert open_load.predict()["model"].iloc[0].startswith("open")


def test_one_batch_of_all_draws_equals_batches_of_one(monkeypatch):
    mapping, sweep = CASES["PAV volumes (IOSQ fixed point)"]
    scen = Scenario.from_dict(mapping)
    together = scen.sampled(sweep, samples=4, seed=0)
    monkeypatch.setattr(scenario_module, "SAMPLED_BATCH", 1)
    np.testing.assert_array_equal(together, scen.sampled(sweep, samples=4, seed=0))
