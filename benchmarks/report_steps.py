"""CPU and wall seconds of each step of the report's main process (no notebooks, no HTML).

Usage (from the repository root, with the venv)::

    NUMBA_NUM_THREADS=1 .venv/bin/python benchmarks/report_steps.py

Runs what ``python -m zmodel.report`` runs in its own process, in the same order -- every
registered calibration (the kernel summary reusing the kernel fits), the example
predictions with :data:`zmodel.report.EXAMPLE_SAMPLES` parameter draws, the validation
set with :data:`zmodel.report.VALIDATION_SAMPLES` -- after one Numba warm-up call, and
prints the CPU time (``time.process_time``) and the wall time of each step. CPU time is
the figure to compare on a shared machine: it does not count the time other processes
hold the cores. The notebooks, which the report executes meanwhile in kernels of their
own, are timed by ``benchmarks/report_timeline.py`` (the whole report).
"""
from __future__ import annotations

import sys
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main() -> int:
    from zmodel import report
    from zmodel.fits import registry
    from zmodel.queueing import mva
    from zmodel.validation import validate

    warnings.simplefilter("ignore")
    mva([0.1, 0.2], [3])  # Numba warm-up: compile or load the cache once
    rows = []

    class _Steps(report._Silent):
        def __init__(self):
            super().__init__()
            self.label, self.cpu, self.wall = None, time.process_time(), time.perf_counter()

        def step(self, label):
            cpu, wall = time.process_time(), time.perf_counter()
            if self.label is not None:
                rows.append((self.label, cpu - self.cpu, wall - self.wall))
            self.label, self.cpu, self.wall = label, cpu, wall

    steps = _Steps()
    report.run_calibrations([(e.title, e.target) for e in registry.select(None)], progress=steps, echo=True)
    steps.step(f"example predictions ({report.EXAMPLE_SAMPLES} draws)")
    report.example_predictions(None)
    steps.step(f"validation set ({report.VALIDATION_SAMPLES} draws)")
    validate(samples=report.VALIDATION_SAMPLES, seed=0)
    steps.step("end")
    print(f"{'step':45s} {'CPU [s]':>8s} {'wall [s]':>8s}")
    for label, cpu, wall in rows:
        print(f"{label:45s} {cpu:8.2f} {wall:8.2f}")
    cal = [r for r in rows if r[0].startswith("calibrating")]
    print(f"{'all calibrations':45s} {sum(r[1] for r in cal):8.2f} {sum(r[2] for r in cal):8.2f}")
    print(f"{'all steps':45s} {sum(r[1] for r in rows):8.2f} {sum(r[2] for r in rows):8.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
