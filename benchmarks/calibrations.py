"""Time every registered calibration (``run()``) and, optionally, its leave-one-out (``cross_validate()``).

Usage (from the repository root)::

    .venv/bin/python benchmarks/calibrations.py                 # fits only, print the table
    .venv/bin/python benchmarks/calibrations.py --loo           # also every area's leave-one-out
    .venv/bin/python benchmarks/calibrations.py --loo --write   # and put the table in BENCHMARKS.md
    .venv/bin/python benchmarks/calibrations.py --loo --workers 2   # the refits in two processes

``--loo`` skips the areas whose calibration declares ``leave_one_out_in_summary = False``
(none at present); ``--all-loo`` times them too. With ``--loo``, an area that declares
``groups`` (kernel_versions: its benchmarks) also times its leave-one-group-out
(``cross_validate(grouped=True)``, one refit per benchmark).

Each calibration is run in this one process, in registry order, after one Numba warm-up
call (the JIT compile is excluded, as in ``benchmarks/run.py``), from a fresh calibration
object (no memoised result): the figure is what one ``zmodel calibrate AREA`` costs after
the first compile. The kernel summary (``kernel``) reuses the kernel areas' fits of the
same process, as ``zmodel calibrate`` does. Wall-clock seconds on a shared machine vary
by tens of percent between runs; these are measurements, never test assertions.
"""
from __future__ import annotations

import argparse
import datetime as _dt
import os
import platform
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO))
MARK = "## Calibrations (benchmarks/calibrations.py)"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--loo", action="store_true", help="also time every area's cross_validate()")
    ap.add_argument("--all-loo", action="store_true",
                    help="with --loo, also the leave-one-out of areas that declare it too long for the summary")
    ap.add_argument("--workers", type=int, default=1,
                    help="processes for the leave-one-out refits (cross_validate(workers=K): the same tables)")
    ap.add_argument("--write", action="store_true", help="write the table into BENCHMARKS.md")
    ap.add_argument("areas", nargs="*", help="only these areas (default: all)")
    args = ap.parse_args(argv)

    from zmodel.fits import registry
    from zmodel.queueing import mva

    mva([0.1, 0.2], [3])  # Numba warm-up: compile or load the cache once
    rows, total_fit = [], 0.0
    for entry in registry.select(args.areas):
        cal = registry.load(entry)
        cal.clear()
        t0 = time.perf_counter()
        cal.run()
        fit = time.perf_counter() - t0
        total_fit += fit
        loo = lgo = None
        if args.loo and entry.layer != "summary" and (cal.leave_one_out_in_summary or args.all_loo):
            t0 = time.perf_counter()
            cal.cross_validate(workers=args.workers)
            loo = time.perf_counter() - t0
            if cal.groups:
                t0 = time.perf_counter()
                cal.cross_validate(grouped=True, workers=args.workers)
                lgo = time.perf_counter() - t0
        rows.append((entry.area, fit, loo, lgo))
        print(f"{entry.area:<18} run {fit:8.2f} s" + ("" if loo is None else f"   leave-one-out {loo:8.2f} s")
              + ("" if lgo is None else f"   leave-one-group-out {lgo:8.2f} s"), flush=True)
    print(f"{'all':<18} run {total_fit:8.2f} s")

    if args.write:
        cmd = ("benchmarks/calibrations.py" + (" --loo" if args.loo else "") + (" --all-loo" if args.all_loo else "")
               + (f" --workers {args.workers}" if args.workers != 1 else ""))
        lines = [MARK, "",
                 f"* Command: `.venv/bin/python {cmd}` (NUMBA_NUM_THREADS={os.environ.get('NUMBA_NUM_THREADS', 'unset')})",
                 f"* Machine: nproc = {os.cpu_count()}, Python {platform.python_version()}; shared with other jobs "
                 f"(load average at the end: {', '.join(f'{v:.1f}' for v in os.getloadavg())})",
                 f"* Date: {_dt.date.today().isoformat()}",
                 "", "| area | run() [s] | cross_validate() [s] | cross_validate(grouped=True) [s] |",
                 "|---|---:|---:|---:|"]
        for area, fit, loo, lgo in rows:
            lines.append(f"| {area} | {fit:.2f} | {'not run' if loo is None else f'{loo:.2f}'} | "
                         f"{'' if lgo is None else f'{lgo:.2f}'} |")
        lines.append(f"| all (one process) | {total_fit:.2f} | | |")
        path = REPO / "BENCHMARKS.md"
        text = path.read_text(encoding="utf-8") if path.exists() else "# Benchmarks\n"
        head, _, rest = text.partition("\n" + MARK)
        after = rest.split("\n## ", 1)   # keep the sections that follow this one
        tail = ("\n## " + after[1]) if len(after) > 1 else ""
        path.write_text(head.rstrip("\n") + "\n\n" + "\n".join(lines) + "\n" + tail, encoding="utf-8")
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
