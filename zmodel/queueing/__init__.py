"""Queueing formulas and solvers: the exact core every zmodel layer is built on.

No domain words live here: stations, classes, servers, demands.

Conventions (one meaning per name across the library)
-----------------------------------------------------
The glossary of every layer, the input checks and the saturation policy live in
:mod:`zmodel.conventions`; the names the core uses:

``utilization``     per server, 0..1 [1]
``response_time``   time in the system or network, think time excluded [s]
``queue_length``    mean number at the station, waiting plus in service [1]
``throughput``      completions per second [1/s]
``service_demand``  total service per visit-weighted job at a station, D = V S [s]
``think_time``      delay between a job's completion and its next request [s]
``waiting_time``    time queued before service starts [s]
``population``      number of jobs in a closed class [1]

``servers``: 1 = single-server queue, an integer k > 1 = k identical servers,
``math.inf`` = delay (infinite-server) station.

Inputs may be scalars, lists, ndarrays or pandas Series (a Series' index is kept);
leading array axes are batches solved in one call. Results are frozen dataclasses
with ``.to_frame()``.

Saturation policy
-----------------
An open queue offered rho >= 1 does not raise: its waiting time, response time and
queue length are ``inf``, its utilization is 1, its throughput is its capacity, and
one :class:`SaturationWarning` per call says how many entries saturated.
"""
from importlib import import_module as _import_module

from zmodel.conventions import SaturationWarning

# public name -> defining module (imported on first use, so ``import zmodel`` is fast)
_EXPORTS = {
    # closed networks (closed.py, bounds.py, mixed.py)
    "mva": "closed", "mva_multiclass": "closed", "amva": "closed",
    "MVAResult": "closed", "MultiClassMVAResult": "closed", "AMVAResult": "closed",
    "asymptotic_bounds": "bounds", "balanced_job_bounds": "bounds", "BoundsResult": "bounds",
    "mixed_network": "mixed", "MixedNetworkResult": "mixed",
    # load-dependent and multi-server stations (loaddep.py)
    "mva_load_dependent": "loaddep", "LoadDependentMVAResult": "loaddep",
    "flow_equivalent_server": "loaddep", "FlowEquivalentResult": "loaddep",
    "finite_source": "loaddep", "finite_source_probabilities": "loaddep",
    "FiniteSourceResult": "loaddep",
    # multi-server approximations, mixed multi-server networks, multi-class bounds
    "multiclass": None,
    "multiclass_bounds": "multiclass", "MultiClassBoundsResult": "multiclass",
    "bottleneck_mixes": "multiclass", "BottleneckResult": "multiclass",
    # single stations (erlang.py, single.py)
    "erlang_b": "erlang", "erlang_c": "erlang",
    "mm1": "single", "mmc": "single", "mmck": "single", "machine_repairman": "single",
    "mg1": "single", "md1": "single", "ggc": "single", "StationResult": "single",
    # open networks (open_networks.py)
    "jackson_network": "open_networks", "open_multiclass": "open_networks",
    "OpenNetworkResult": "open_networks", "OpenMulticlassResult": "open_networks",
    # scalability laws (scalability.py)
    "usl": "scalability", "usl_fit": "scalability", "amdahl": "scalability",
    "UslFitResult": "scalability",
    # simulation oracle (simulation.py)
    "simulate_station": "simulation", "simulate_closed_network": "simulation",
    "StationSimulationResult": "simulation", "ClosedNetworkSimulationResult": "simulation",
    # distributions (distributions.py), routing (routing.py), priorities (priority.py),
    # Markov chains and finite capacity (ctmc.py)
    "marginal_probabilities": "distributions", "mmc_percentiles": "distributions",
    "closed_station_percentiles": "distributions", "closed_cycle_percentile": "distributions",
    "CyclePercentileResult": "distributions",
    "MarginalProbabilitiesResult": "distributions", "PercentileResult": "distributions",
    "StationPercentileResult": "distributions",
    "routing_visits": "routing", "routed_network": "routing",
    "VisitsResult": "routing", "RoutedNetworkResult": "routing",
    "priority_station": "priority", "open_priority_network": "priority",
    "mva_priority": "priority", "PriorityStationResult": "priority",
    "PriorityNetworkResult": "priority",
    "ctmc_steady_state": "ctmc", "ctmc_transient": "ctmc",
    "finite_capacity_network": "ctmc", "finite_capacity_generator": "ctmc",
    "CTMCSteadyStateResult": "ctmc", "CTMCTransientResult": "ctmc",
    "FiniteCapacityResult": "ctmc",
    # exact symbolic forms (symbolic.py) and the simulation oracle (simulation.py)
    "symbolic": None, "simulation": None,
}

__all__ = sorted([k for k in _EXPORTS if _EXPORTS[k]] + ["SaturationWarning"])


def __getattr__(name):
    if name in _EXPORTS:
        module = _import_module(f"{__name__}.{_EXPORTS[name] or name}")
        value = module if _EXPORTS[name] is None else getattr(module, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_EXPORTS))
