"""The main job: ``make report`` (``python -m zmodel.report``).

Until the notebook report lands it prints, as plain text:

1. a demonstration of the queueing core — a closed interactive network solved by exact
   MVA over a population sweep, beside its asymptotic bounds;
2. every calibration report registered in :data:`CALIBRATIONS`, each with its residual
   table against the documented numbers.

It needs no network and writes nothing but standard output.
"""
from __future__ import annotations

import sys

# (title, "module:function") pairs; each function returns a CalibrationResult-like object
# with a ``report()`` method. Registered as the models land.
CALIBRATIONS: list[tuple[str, str]] = [
    ("Universal Scalability Law vs dbench memory throughput, Linux 2.4 and 2.6 "
     "(IBM Systems Journal, Figure 1)", "zmodel.fits.usl:calibrate_usl_dbench"),
]


def demonstration() -> str:
    """Text of the queueing demonstration: a three-station interactive system."""
    import numpy as np
    import pandas as pd

    from zmodel.queueing import asymptotic_bounds, mva

    # A timesharing system in the style of Lazowska et al., QSP (1984) ch. 5-6: a CPU and
    # two disks, 15 s think time; demands [s] are illustrative.
    demands = np.array([0.605, 2.1, 1.35])
    think = 15.0
    populations = np.array([1, 2, 5, 10, 15, 20, 30])
    exact = mva(np.broadcast_to(demands, (len(populations), 3)), populations, think_time=think)
    bounds = asymptotic_bounds(demands, populations, think_time=think)
    table = pd.DataFrame({
        "population": populations,
        "throughput [1/s]": exact.throughput,
        "X upper bound [1/s]": bounds.throughput_upper,
        "response_time [s]": exact.response_time,
        "R lower bound [s]": bounds.response_time_lower,
        "U cpu": exact.utilization[:, 0],
        "U disk1": exact.utilization[:, 1],
        "U disk2": exact.utilization[:, 2],
    })
    head = ("Queueing core: exact MVA of an interactive system (CPU, two disks; "
            f"demands {demands.tolist()} s, think time {think} s)")
    return head + "\n" + table.to_string(index=False, float_format=lambda v: f"{v:.4f}")


def main(argv: list[str] | None = None) -> int:
    from importlib import import_module

    print(demonstration())
    for title, target in CALIBRATIONS:
        module, _, func = target.partition(":")
        result = getattr(import_module(module), func)()
        print("\n" + "=" * 78 + f"\n{title}\n" + "=" * 78)
        print(result.report())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
