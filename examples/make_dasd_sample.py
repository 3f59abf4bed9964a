"""Write examples/dasd_statistics_sample.txt: a synthetic /proc/dasd/statistics dump with known truth.

The sample is CONSTRUCTED, not measured: a seeded discrete-event simulation of one DASD
volume behind the Linux 2.4 DASD driver, printed in the driver's format. Nothing in it is
copied from the seed documents. Its truth (``TRUTH`` below) is what
``examples/dasd_baseline.py`` must recover.

The simulated volume:

* requests arrive as a Poisson process at ``io_rate`` for ``interval`` seconds;
* the subchannel serves one request at a time, FCFS, from START SUBCHANNEL to the I/O
  interrupt; the service time is a mixture of two log-normal laws (``weights``,
  ``medians``, ``sigmas``: cache hits and misses); a request that finds the subchannel
  idle is started ``start_latency`` after it is built, a queued one at the previous
  request's interrupt (the interrupt handler's fast path);
* the interrupt-to-end time is uniform on [``end_low``, ``end_high``);
* the size is 8, 16, 64 or 256 sectors with probabilities ``size_probabilities``;
* the chanq is not capped (the 2.4 driver keeps at most 4 requests QUEUED and leaves the
  rest in the block layer's queue, whose time it does not see): at this load a request
  finds 4 or more ahead about 2 % of the time (the dump's last histogram), so the
  simplification touches few requests.

Each request is then binned as the driver's ``dasd_profile_add`` does (times in whole
microseconds, truncated; bucket = number of significant bits of ``value >> 2``, capped at
31; per-sector times by C integer division; the queue-length counter = requests already
on the chanq at enqueue, at most 32) and printed as ``dasd_statistics_open`` of the 2.4.21
driver prints (``drivers/s390/block/dasd.c``: request and sector totals, the two bucket
header lines, eight titled histograms of 32 counts, ``"%7d "`` sixteen to a line; no
scaling below 10,000,000 requests).

Run: ``python examples/make_dasd_sample.py`` (deterministic; rewrites the sample).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
SAMPLE = HERE / "dasd_statistics_sample.txt"

#: the parameters the sample is drawn from (SI units)
TRUTH = {
    "weights": (0.7, 0.3),
    "medians": (1.5e-3, 9.0e-3),     # [s]
    "sigmas": (0.35, 0.5),
    "io_rate": 84.0,                 # [1/s]
    "interval": 600.0,               # [s]
    "start_latency": 5e-6,           # [s]
    "end_low": 15e-6,                # [s]
    "end_high": 45e-6,               # [s]
    "sizes": (8, 16, 64, 256),       # [512-byte sectors]
    "size_probabilities": (0.6, 0.2, 0.15, 0.05),
    "seed": 20261125,
}

HEADER = ("   __<4\t   ___8\t   __16\t   __32\t   __64\t   _128\t   _256\t   _512\t   __1k\t   __2k\t   __4k\t"
          "   __8k\t   _16k\t   _32k\t   _64k\t   128k",
          "   _256\t   _512\t   __1M\t   __2M\t   __4M\t   __8M\t   _16M\t   _32M\t   _64M\t   128M\t   256M\t"
          "   512M\t   __1G\t   __2G\t   __4G    _>4G")
TITLES = ("Histogram of sizes (512B secs)", "Histogram of I/O times (microseconds)",
          "Histogram of I/O times per sector", "Histogram of I/O time till ssch",
          "Histogram of I/O time between ssch and irq", "Histogram of I/O time between ssch and irq per sector",
          "Histogram of I/O time between irq and end", "# of req in chanq at enqueuing (1..32) ")


def simulate(truth=TRUTH) -> dict[str, np.ndarray]:
    """Per-request clocks of the simulated volume [s] and sizes [sectors]."""
    rng = np.random.default_rng(truth["seed"])
    n = rng.poisson(truth["io_rate"] * truth["interval"])
    arrival = np.sort(rng.uniform(0.0, truth["interval"], n))
    comp = rng.choice(len(truth["weights"]), size=n, p=truth["weights"])
    service = np.asarray(truth["medians"])[comp] * np.exp(np.asarray(truth["sigmas"])[comp] * rng.standard_normal(n))
    end_time = rng.uniform(truth["end_low"], truth["end_high"], n)
    sectors = rng.choice(truth["sizes"], size=n, p=truth["size_probabilities"])
    start = np.empty(n)
    stop = np.empty(n)
    free_at = -np.inf
    for i in range(n):                      # FCFS single server (Lindley recursion)
        start[i] = max(arrival[i] + truth["start_latency"], free_at)
        stop[i] = free_at = start[i] + service[i]
    end = stop + end_time
    # requests already on the chanq at enqueue: earlier ones not yet ended
    ended = np.searchsorted(np.sort(end), arrival, side="right")
    ahead = np.arange(n) - ended
    return {"build": arrival, "start": start, "stop": stop, "end": end, "sectors": sectors, "ahead": ahead}


def _bucket(values: np.ndarray) -> np.ndarray:
    """dasd_profile_add_counter: significant bits of (value >> 2), capped at 31."""
    v = np.asarray(values, dtype=np.int64) >> 2
    idx = np.zeros(v.shape, dtype=np.int64)
    nz = v > 0
    idx[nz] = np.floor(np.log2(v[nz])).astype(np.int64) + 1
    return np.minimum(idx, 31)


def histograms(sim: dict[str, np.ndarray]) -> list[np.ndarray]:
    """The eight 32-bucket counters in the driver's print order."""
    us = lambda a, b: np.floor((sim[b] - sim[a]) * 1e6).astype(np.int64)  # noqa: E731 - (clk_b - clk_a) >> 12
    tot, strt, irq, endt = us("build", "end"), us("build", "start"), us("start", "stop"), us("stop", "end")
    sec = sim["sectors"].astype(np.int64)
    counts = lambda idx: np.bincount(idx, minlength=32)  # noqa: E731
    return [counts(_bucket(sec)), counts(_bucket(tot)), counts(_bucket(tot // sec)), counts(_bucket(strt)),
            counts(_bucket(irq)), counts(_bucket(irq // sec)), counts(_bucket(endt)),
            counts(np.minimum(sim["ahead"], 31))]


def render(sim: dict[str, np.ndarray]) -> str:
    """The dump as the 2.4.21 driver prints it, under a comment block saying what it is."""
    t = TRUTH
    lines = ["# SYNTHETIC /proc/dasd/statistics dump, constructed by examples/make_dasd_sample.py (not measured):",
             f"# Poisson arrivals at {t['io_rate']:g}/s for {t['interval']:g} s, FCFS subchannel, service a "
             f"log-normal mixture weights={t['weights']} medians={t['medians']} s sigmas={t['sigmas']},",
             f"# start latency {t['start_latency']:g} s, irq-to-end uniform [{t['end_low']:g}, {t['end_high']:g}) s,"
             f" seed {t['seed']}. The statistics ran for {t['interval']:g} s.",
             f"{sim['build'].size} dasd I/O requests",
             f"with {int(sim['sectors'].sum())} sectors(512B each)", *HEADER]
    for title, h in zip(TITLES, histograms(sim)):
        lines.append(title)
        lines.append("".join("%7d " % c for c in h[:16]))
        lines.append("".join("%7d " % c for c in h[16:]))
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    SAMPLE.write_text(render(simulate()), encoding="utf-8")
    print(f"wrote {SAMPLE.name}")
