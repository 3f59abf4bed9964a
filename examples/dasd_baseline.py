"""A DASD baseline from a /proc/dasd/statistics dump, and its response time at +25 %, +50 %, +100 % I/O.

The question. A planner has one volume's ``cat /proc/dasd/statistics`` (Linux on System z
DASD driver, statistics switched on with ``echo set on > /proc/dasd/statistics``, reset, and
read after a known interval). What is the mean I/O time (build to end, the driver's
"I/O times" histogram) today, and what will it be when the I/O rate grows by 25 %, 50 % and
100 %, and how sure is that?

The sample here, ``examples/dasd_statistics_sample.txt``, is SYNTHETIC: a seeded
simulation of a volume with known parameters (``examples/make_dasd_sample.py``, which
states them), printed in the 2.4.21 driver's format. Use your own dump instead:
``python examples/dasd_baseline.py DUMP SECONDS`` (SECONDS: how long the statistics ran).

The steps (the same as ``zmodel calibrate dasd --measurements DUMP --save params.toml``):

1. read the dump (:func:`zmodel.data.read_dasd_measurements`) and fit the DASD model
   (:mod:`zmodel.fits.dasd`): the ssch-to-irq service time as a log-normal mixture by
   multinomial maximum likelihood on its histogram, the number of components by BIC, the
   sampling distribution from the observed information;
2. store the fit as the ``dasd`` area of a parameter store (:mod:`zmodel.store`);
3. project with :func:`zmodel.fits.dasd.project_response_time`: the subchannel as an open
   M/G/1 queue at the measured rate (requests / interval) times 1, 1.25, 1.5, 2
   (Pollaczek-Khinchine), plus the start latency and the dump's mean irq-to-end time; 90 %
   intervals from 1,000 draws of the fitted service law.

The model's baseline is checked against the dump's own "I/O times" histogram (the mean
estimated from the bucket counts), which the projection did not use.

Run: ``python examples/dasd_baseline.py`` (deterministic, about half a minute: the fit
tries 1 to 4 components). The last line is the answer in a fixed ``ANSWER: key=value``
form.
"""
from __future__ import annotations

import sys
import warnings
from pathlib import Path

HERE = Path(__file__).resolve().parent
SAMPLE = HERE / "dasd_statistics_sample.txt"
#: how long the sample's statistics ran (stated in the sample's comment lines) [s]
SAMPLE_INTERVAL = 600.0
RATE_FACTORS = (1.0, 1.25, 1.5, 2.0)
SAMPLES = 1000
SEED = 0


def calibrate(dump=SAMPLE):
    """Fit the DASD model to a dump; returns (fit result, parameter store with its dasd area)."""
    from zmodel import store
    from zmodel.data import read_dasd_measurements
    from zmodel.fits.dasd import CALIBRATION

    histograms = read_dasd_measurements(dump)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")       # the fit's trial components may warn; the result is checked below
        fit = CALIBRATION.run(measurements=histograms)
    area = fit.to_store_area(origin=f"measurements: {Path(dump).name}")
    return fit, store.EMPTY.replace_area(area), histograms.attrs


def project(parameters, io_rate: float):
    """The projection table (see :func:`zmodel.fits.dasd.project_response_time`)."""
    from zmodel.fits.dasd import project_response_time

    return project_response_time(parameters, io_rate, RATE_FACTORS, samples=SAMPLES, seed=SEED)


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    dump, interval = (Path(argv[0]), float(argv[1])) if len(argv) == 2 else (SAMPLE, SAMPLE_INTERVAL)
    fit, parameters, attrs = calibrate(dump)
    io_rate = attrs["requests"] * attrs["scale"] / interval if attrs.get("requests") else fit.n_requests / interval
    v = fit.volume
    print(f"dump: {Path(dump).name}, {fit.n_requests} requests over {interval:g} s -> {io_rate:.2f} I/O per s")
    print(f"service law: {v.weights.size} log-normal component(s); E[S] = {v.mean_service_time * 1e3:.3f} ms, "
          f"SCV = {v.service_scv:.3f}; utilization 1 - p0 = {fit.little.utilization:.3f} "
          f"(rate x E[S] = {io_rate * v.mean_service_time:.3f})")
    table = project(parameters, io_rate)
    measured = fit.mean_estimates["total"]
    print(f"baseline mean I/O time: model {table['response_time'][0] * 1e3:.3f} ms "
          f"[{table['response_time_lo'][0] * 1e3:.3f}, {table['response_time_hi'][0] * 1e3:.3f}], "
          f"dump's 'I/O times' histogram {measured * 1e3:.3f} ms")
    print()
    print(f"{'I/O rate':>12} {'utilization':>12} {'response time [ms]':>20} {'90 % interval [ms]':>22}")
    for _, r in table.iterrows():
        label = "baseline" if r["rate_factor"] == 1 else f"+{(r['rate_factor'] - 1) * 100:.0f} %"
        print(f"{label:>8} {r['io_rate']:>5.0f} {r['utilization']:>10.3f}  {r['response_time'] * 1e3:>18.3f} "
              f"   [{r['response_time_lo'] * 1e3:7.3f}, {r['response_time_hi'] * 1e3:7.3f}]")
    print(f"(assumed, not calibrated: {table['assumed'][0]})")
    answer = " ".join(f"R{int(round(f * 100))}={r * 1e3:.3f}ms" for f, r in zip(table["rate_factor"],
                                                                               table["response_time"]))
    print(f"ANSWER: components={v.weights.size} io_rate={io_rate:.2f} {answer}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
