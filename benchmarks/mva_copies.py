"""Time mva's replicated queues (``copies``) against a pooled station and the queues written out.

Usage (from the repository root)::

    NUMBA_NUM_THREADS=1 .venv/bin/python benchmarks/mva_copies.py

256 networks (populations 1..256) of a delay (controller), a 4-server station (links) and 256
disks sharing 5.76 ms per request: the disks as one pooled 256-server station (the model before
2026-11-27), as ``copies=256`` (now), and as 256 single-server stations written out (the same
answer, the reference the tests compare with); and ``copies=256`` without a multi-server station
(the plain recursion); and ``copies=256`` beside four multi-server stations (a CPU station and
three channel stations, the scenario's composition). Best of 5 after a warm-up (Numba compile excluded). Wall-clock
milliseconds on a shared machine; a measurement, never a test assertion.
"""
from __future__ import annotations

import math
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def best_of(f, repeats: int = 5) -> float:
    f()
    best = math.inf
    for _ in range(repeats):
        t0 = time.perf_counter()
        f()
        best = min(best, time.perf_counter() - t0)
    return best


def main() -> int:
    from zmodel.queueing import mva

    n = np.arange(1, 257)
    d = [0.0002, 0.00001, 0.00576]
    cases = {
        "pooled 256-server disk station (before)": lambda: mva(d, n, servers=[math.inf, 4, 256]),
        "copies=256 (now)": lambda: mva(d, n, servers=[math.inf, 4, 1], copies=[1, 1, 256]),
        "256 stations written out": lambda: mva([d[0], d[1]] + [d[2] / 256] * 256, n,
                                                servers=[math.inf, 4] + [1] * 256),
        "copies=256, no multi-server station": lambda: mva(d, n, servers=[math.inf, 1, 1], copies=[1, 1, 256]),
        # the scenario's composition of a DS8300 behind four paths (examples/capacity_plan.py): a
        # 2-CPU station, the channel processor and the two link directions (4 paths each), 256 disks
        "copies=256 beside four multi-server stations": lambda: mva(
            [0.00012, 0.00011, 0.00001, 0.00001, 0.00576], n, servers=[2, 4, 4, 4, 1], copies=[1, 1, 1, 1, 256]),
    }
    for name, f in cases.items():
        print(f"{name}: {best_of(f) * 1e3:.2f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
