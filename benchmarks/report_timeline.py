"""Timeline of the main job: ``python -m zmodel.report`` with the time of each output line.

Usage (from the repository root, with the venv)::

    .venv/bin/python benchmarks/report_timeline.py [--output DIR] [-- REPORT OPTIONS]

Runs the report in a subprocess (standard output and error merged, as a terminal shows
them), prefixes every line with the seconds since the start, writes the full timeline to
``benchmarks/report_timeline.log`` and prints the progress lines and a summary: when the
first line appeared, when the last one did, the exit status, and the CPU count. These are
the numbers BENCHMARKS.md records ("first line at, last line at").
"""
from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main(argv: list[str]) -> int:
    extra = argv[argv.index("--") + 1:] if "--" in argv else []
    own = argv[:argv.index("--")] if "--" in argv else argv
    output = own[own.index("--output") + 1] if "--output" in own else str(ROOT / "report")
    log_path = ROOT / "benchmarks" / "report_timeline.log"
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    env.pop("CI", None)
    start = time.monotonic()
    proc = subprocess.Popen([sys.executable, "-m", "zmodel.report", "--output", output, *extra], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1)
    first = last = None
    with open(log_path, "w", encoding="utf-8") as log:
        for line in proc.stdout:
            last = time.monotonic() - start
            first = last if first is None else first
            log.write(f"{last:8.2f} {line}")
            if "zmodel.report:" in line:
                print(f"{last:8.2f} {line}", end="", flush=True)
    status = proc.wait()
    total = time.monotonic() - start
    print(f"first line at {first:.1f} s, last line at {last:.1f} s, exit status {status}, "
          f"total {total:.1f} s, {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
