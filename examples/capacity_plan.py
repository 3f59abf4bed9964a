"""Capacity plan: how many FICON channels, and which kernel, for 15000 I/O/s within 4 ms?

The question. A 2-CPU z990 LPAR reads 4 KiB blocks at random from a DS8300 (read-cache hit
ratio 0.5) over FICON 4 Gbit/s channel paths used in multibus mode. The application
must sustain 15000 I/O requests per second with a mean I/O response time of at most
4 ms (host CPU path + channel + storage; 3.45 ms until 2026-11-27, when the disks became
separate queues and their queueing alone added 0.59 ms at this rate). How many channel paths are needed, and
should the image run Linux 2.4.21 or 2.6.10?

The model (the scenario of ``examples/ficon_sizing.toml``, solved by
:meth:`zmodel.kernel.scenario.Scenario.predict` as an open load): each station -- the
CPUs with the kernel's CPU time per I/O, each channel path's command processor and link
directions -- is an M/M/c queue at the offered rate, each back-end disk an M/M/1 queue at its
share of it (a read miss waits at the disk that holds its block); the storage controller adds
its hit time. The kernel version changes the CPU time per I/O (2.4.21:
512-byte buffer heads, the global ``io_request_lock`` and ``tq_disk`` unplugging of every
queue; 2.6.10: bio, per-queue locks, per-device unplugging). Two supporting views use
the hardware layer directly: :class:`zmodel.hardware.channels.ChannelSubsystem` (how
many paths the channel command rate allows, and their utilization) and
:class:`zmodel.hardware.storage.StorageServer` (the DS8300's saturation point, to make
sure the storage server is not the limit).

Every parameter comes from the calibrated parameter store (:mod:`zmodel.store`): the
kernel costs fitted to the documents' kernel-version figures and the FICON command time
fitted to the WAVV 2008 channel figures with IBM's published FICON Express2 rate (about
9,000 I/O/s) as its prior (the uncalibrated model would use the 1/7200 s of the FICON-1G
catalog entry). ``PARAMETERS`` names another store.

Run: ``python examples/capacity_plan.py`` (deterministic, about half a minute on one core: the 100
parameter draws of 16 configurations; 100 s until 2026-11-27). The last line
is the answer in a fixed ``ANSWER: key=value ...`` form. ``--csv PATH`` also writes the
decision table (one row per kernel and channel count, the columns of :func:`decision_table`)
to ``PATH``, for a spreadsheet or a later script.
"""
from __future__ import annotations

import math
import sys
import tomllib

import numpy as np
from pathlib import Path

HERE = Path(__file__).resolve().parent
SCENARIO_FILE = HERE / "ficon_sizing.toml"
#: the planning objective
TARGET_IO_RATE = 15000.0          # [1/s]
RESPONSE_OBJECTIVE = 4.0e-3       # [s], mean I/O response time
#: the choices
KERNELS = ["2.4.21", "2.6.10"]
#: parameter store the plan uses (None: the calibrated store shipped with zmodel)
PARAMETERS = None
CHANNELS = list(range(1, 9))      # channel paths per device: 1..8 (CHPIDs per device)


def base_scenario(path: Path = SCENARIO_FILE) -> dict:
    """The scenario file as a dict, without its own sweep, at the target I/O rate."""
    with open(path, "rb") as fh:
        data = tomllib.load(fh)
    data.pop("sweep", None)
    data["workload"]["io_rate"] = TARGET_IO_RATE
    return data


def parameters():
    """The parameter store of the plan (:data:`PARAMETERS`, default the calibrated one)."""
    from zmodel import store

    return store.default() if PARAMETERS is None else store.load(PARAMETERS)


#: parameter draws behind the probability of meeting the objective (seeded: reproducible)
SAMPLES = 100
SEED = 0


def decision_table(data: dict | None = None, samples: int = SAMPLES):
    """One row per (kernel, channel paths): predictions, whether the objective is met at the
    calibrated values, and the probability of meeting it over ``samples`` parameter draws
    (``p_meets``: the share of draws -- calibrated parameters from their fitted
    distribution, assumed ones over their plausible range with their value as the median --
    that sustain the target
    within the objective; omitted with ``samples=0``). ``p_meets_model`` is the same share when
    each draw's response time is also multiplied by a draw of the out-of-sample errors of the fits
    it rests on (:meth:`~zmodel.kernel.scenario.Scenario.model_error_factors`: what the kernel-version
    fit missed on each benchmark left out of it, and what the channel fit missed on each of its rows,
    carried by how strongly each configuration's response time follows its channel time; one draw
    for all the configurations of a parameter draw):
    the probability a planner can lean on, since the parameters' draws alone leave out what the
    model lacks. Without such an error in the store it equals ``p_meets``."""
    from zmodel.kernel.scenario import INTERVAL_COLUMNS, Scenario

    scenario = Scenario.from_dict(base_scenario() if data is None else data, parameters=parameters())
    sweep = {"kernel.version": KERNELS, "hardware.channels": CHANNELS}
    table = scenario.predict(sweep)
    if samples:
        runs = scenario.sampled(sweep, samples, SEED)
        x = runs[:, :, INTERVAL_COLUMNS.index("throughput")]
        r = runs[:, :, INTERVAL_COLUMNS.index("response_time")]
        sustained = x >= TARGET_IO_RATE * (1 - 1e-12)
        table["p_meets"] = np.mean(sustained & (r <= RESPONSE_OBJECTIVE), axis=0)
        factor = scenario.model_error_factors(samples, SEED, sweep)   # (draws, points)
        factor = np.ones_like(r) if factor is None else factor
        table["p_meets_model"] = np.mean(sustained & (r * factor <= RESPONSE_OBJECTIVE), axis=0)
    table = table.rename(columns={"kernel.version": "kernel", "hardware.channels": "channels"})
    table["sustained"] = table["throughput"] >= TARGET_IO_RATE * (1 - 1e-12)
    table["meets_objective"] = table["sustained"] & (table["response_time"] <= RESPONSE_OBJECTIVE)
    return table


def answer(table) -> dict:
    """The fewest channel paths that meet the objective, and the kernel that does it.

    Per kernel: the smallest channel count meeting the objective (None if none does).
    Overall: the fewest channels; on a tie, the lower CPU utilization.
    """
    per_kernel = {}
    for kernel in KERNELS:
        ok = table[(table["kernel"] == kernel) & table["meets_objective"]]
        per_kernel[kernel] = None if ok.empty else ok.sort_values("channels").iloc[0]
    feasible = [row for row in per_kernel.values() if row is not None]
    if not feasible:
        return {"feasible": False, "per_kernel": {k: None for k in per_kernel}}
    best = min(feasible, key=lambda r: (int(r["channels"]), float(r["cpu_utilization"])))
    return {"feasible": True, "kernel": str(best["kernel"]), "channels": int(best["channels"]),
            "response_time": float(best["response_time"]), "cpu_utilization": float(best["cpu_utilization"]),
            "channel_utilization": float(best["channel_utilization"]),
            "per_kernel": {k: (None if r is None else int(r["channels"])) for k, r in per_kernel.items()}}


def hardware_views(channels: int, data: dict | None = None) -> dict:
    """Channel-subsystem and storage-server views of the chosen configuration."""
    from zmodel.hardware.channels import ChannelLink, ChannelSubsystem
    from zmodel.hardware.storage import StorageServer
    from zmodel.kernel.scenario import DEFAULT_COMMAND_TIME

    data = base_scenario() if data is None else data
    hw, wl = data["hardware"], data["workload"]
    # the command time the scenario uses: the calibrated one, else the catalog reading
    command_time = parameters().values().get("ficon_command_time", DEFAULT_COMMAND_TIME)
    link = ChannelLink.from_catalog(hw["channel"], command_time=command_time)
    css = ChannelSubsystem(link, paths=channels, multipath="multibus", devices=256)
    io = css.response_time(TARGET_IO_RATE, wl["block_size"], read_fraction=1.0)
    server = StorageServer.from_catalog(hw["storage_server"], links=channels)
    sat = server.saturation("random_read", wl["block_size"], hit_ratio=wl["hit_ratio"])
    return {"channel_max_io_rate": float(css.max_io_rate(wl["block_size"])),
            "channel_utilization": float(io.channel_utilization),
            "pending_time": float(io.pending_time), "connect_time": float(io.connect_time),
            "storage_max_io_rate": float(sat.max_io_rate), "storage_bottleneck": sat.bottleneck}


def _fmt_ms(seconds: float) -> str:
    return "saturated" if not math.isfinite(seconds) else f"{seconds * 1e3:.3f}"


def _arguments(argv):
    import argparse

    parser = argparse.ArgumentParser(description="How many FICON channel paths, and which kernel, for "
                                                 f"{TARGET_IO_RATE:.0f} I/O/s within {RESPONSE_OBJECTIVE * 1e3:g} ms?")
    parser.add_argument("--csv", metavar="PATH", type=Path,
                        help="also write the decision table to PATH as CSV (its folder must exist)")
    args = parser.parse_args(argv)
    if args.csv is not None and not args.csv.parent.is_dir():
        parser.error(f"--csv: folder {str(args.csv.parent)!r} does not exist")
    return args


def _write_csv(table, path: Path) -> None:
    """The decision table as CSV, written whole or not at all (a temporary file renamed)."""
    import os
    import tempfile

    fd, tmp = tempfile.mkstemp(prefix=".capacity_plan-", suffix=".csv", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            table.to_csv(fh, index=False)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def main(argv=None) -> dict:
    args = _arguments(argv)
    table = decision_table()
    if args.csv is not None:
        _write_csv(table, args.csv)
    print(f"Target: {TARGET_IO_RATE:.0f} I/O/s of 4 KiB random reads, mean response <= "
          f"{RESPONSE_OBJECTIVE * 1e3:.2f} ms (z990 LPAR, 2 CPUs, DS8300, FICON-4G multibus)\n")
    print(f"{'kernel':>7} {'paths':>5} {'I/O/s':>8} {'resp [ms]':>10} {'CPU util':>8} {'chan util':>9}  meets"
          f"  P(meets)  P(+model)")
    for _, r in table.iterrows():
        print(f"{r['kernel']:>7} {int(r['channels']):>5} {r['throughput']:>8.0f} {_fmt_ms(r['response_time']):>10} "
              f"{r['cpu_utilization']:>8.3f} {r['channel_utilization']:>9.3f}  {'yes' if r['meets_objective'] else 'no ':<3}"
              f"  {r['p_meets']:8.3f}  {r['p_meets_model']:9.3f}")
    result = answer(table)
    best = table.loc[table["p_meets"].idxmax()]
    print(f"\nProbability of meeting the objective over {SAMPLES} parameter draws (seed {SEED}): at most "
          f"{best['p_meets']:.3f}, Linux {best['kernel']} with {int(best['channels'])} paths. The calibrated "
          "values decide 'meets'; the probability says how far to trust that answer. P(+model) also draws "
          "what the kernel-version and channel fits missed on the documents' rows left out of them: at most "
          f"{table['p_meets_model'].max():.3f}.")
    print()
    for kernel, n in result["per_kernel"].items():
        print(f"Linux {kernel}: " + (f"needs {n} channel paths" if n is not None
                                     else "does not meet the objective with 1-8 channel paths"))
    if not result["feasible"]:
        close = table.loc[table["response_time"].idxmin()]
        print(f"\nClosest: Linux {close['kernel']} with {int(close['channels'])} paths, "
              f"{_fmt_ms(close['response_time'])} ms against the {RESPONSE_OBJECTIVE * 1e3:.2f} ms objective.")
        print(f"ANSWER: feasible=no p_meets_max={best['p_meets']:.3f}")
        return result
    views = hardware_views(result["channels"])
    print(f"\nChannel subsystem with {result['channels']} paths: at most {views['channel_max_io_rate']:.0f} I/O/s "
          f"(command-time bound), utilization {views['channel_utilization']:.3f}, "
          f"pending {views['pending_time'] * 1e3:.3f} ms, connect {views['connect_time'] * 1e3:.4f} ms")
    print(f"DS8300: saturates at {views['storage_max_io_rate']:.0f} I/O/s for these reads "
          f"(bottleneck: {views['storage_bottleneck']}), {views['storage_max_io_rate'] / TARGET_IO_RATE:.1f} "
          "times the target")
    print(f"\nUse Linux {result['kernel']} with {result['channels']} FICON-4G channel paths: "
          f"{_fmt_ms(result['response_time'])} ms mean response at {TARGET_IO_RATE:.0f} I/O/s, "
          f"CPU utilization {result['cpu_utilization']:.2f}.")
    p = float(table[(table["kernel"] == result["kernel"]) & (table["channels"] == result["channels"])]["p_meets"].iloc[0])
    print(f"ANSWER: feasible=yes kernel={result['kernel']} channels={result['channels']} "
          f"response_time={result['response_time']:.6g} p_meets={p:.3f}")
    return result


if __name__ == "__main__":
    main()
    sys.exit(0)
