"""Time a population sweep of one network: one recursion that stops at each population
(``mva``, since 2026-11-27) against every population solved from the start (the kernel's
per-network loop, which ``mva`` used before).

Usage (from the repository root)::

    NUMBA_NUM_THREADS=1 .venv/bin/python benchmarks/mva_sweep.py

The network is the I/O-scheduler fit's storage-server case (zmodel.kernel.iopath,
``scheduler_throughput`` on a storage server): an anticipation hold (one server), the
controller (a delay), one link and 8 disk queues (``copies=8``), populations 1..4096 with a
think time. Both give the same numbers bit for bit (tests/test_closed.py). Best of 5 after a
warm-up (Numba compile excluded). Wall-clock milliseconds on a shared machine; a measurement,
never a test assertion.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from mva_copies import best_of  # noqa: E402


def main() -> int:
    from zmodel.queueing import mva
    from zmodel.queueing._kernels import mva_batch

    d = np.array([0.0005, 0.0002, 0.00004, 0.0058])
    servers = np.array([1.0, np.inf, 1.0, 1.0])
    copies = np.array([1, 1, 1, 8])
    for top in (256, 4096):
        n = np.arange(1, top + 1)
        B = len(n)
        out = [np.empty(B), np.empty((B, 4)), np.empty((B, 4)), np.empty((B, 4)), np.empty(B)]
        tiled = (np.tile(d, (B, 1)), np.full(B, 0.002), n.astype(np.int64), np.tile(servers, (B, 1)),
                 np.tile(copies, (B, 1)))
        swept = lambda: mva(d, n, think_time=0.002, servers=servers, copies=copies)  # noqa: E731
        each = lambda: mva_batch(*tiled, *out)  # noqa: E731
        assert np.array_equal(swept().throughput, (each(), out[0])[1])
        print(f"populations 1..{top}: one recursion {best_of(swept) * 1e3:.2f} ms, "
              f"each from the start {best_of(each) * 1e3:.2f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
