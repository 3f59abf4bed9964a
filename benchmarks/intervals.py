"""Time the sampled intervals of a planner's sweep (issue 11 part 4): 100 points x 1,000 draws.

Usage (from the repository root)::

    NUMBA_NUM_THREADS=1 .venv/bin/python benchmarks/intervals.py [--samples N]

The sweep is examples/oltp_z990_ds8300.toml over ``workload.clients`` = 1..100 (one
composition per draw: the closed model solves every population at once, each population its
own network, the storage server's destage inside compose's fixed point), with the
shipped parameter store; assumed parameters are drawn over their plausible ranges. One
warm-up prediction first (Numba compile excluded). Wall-clock seconds on a shared
machine; a measurement, never a test assertion.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--samples", type=int, default=1000)
    args = ap.parse_args(argv)
    from zmodel.kernel.scenario import Scenario

    with open(REPO / "examples" / "oltp_z990_ds8300.toml", "rb") as fh:
        data = tomllib.load(fh)
    data.pop("sweep", None)
    s = Scenario.from_dict(data)
    sweep = {"workload.clients": list(range(1, 101))}
    s.predict(sweep)   # warm-up
    t0 = time.perf_counter()
    df = s.predict(sweep, samples=args.samples, seed=0)
    dt = time.perf_counter() - t0
    print(f"{len(df)} points x {args.samples} draws: {dt:.2f} s "
          f"(load average {', '.join(f'{v:.1f}' for v in os.getloadavg())})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
