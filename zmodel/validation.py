r"""The validation set posed to the model: one predictor per expressible figure (``zmodel validate``).

The figures of ``zmodel/_data/validation/figures.csv`` (:func:`zmodel.data.validation_figures`)
come from published sources outside the five seed documents and are **never fitted**: every
predictor below poses its figure's conditions to the library as a planner would -- hardware
from the catalogs, model parameters from the calibrated store (:mod:`zmodel.store`) -- and
nothing is tuned to the figure. A prediction far from its figure is reported, not mended.

Each predictor returns the prediction in the figure's own unit and kind (an I/O rate in IO/s,
a ratio new/base, a percentage as printed) with a 90 % interval: the store's parameters are
drawn (:meth:`zmodel.store.AreaParameters.sample`: calibrated ones from their fitted
distribution or range, the assumed ones of the area over their stored plausible range
when they have one, with the assumed value as the median (:func:`zmodel.store.draw_around`:
half the draws on each side, uniformly or log-uniformly across decades), otherwise held), the
figure is predicted again for each draw, and the 5th and 95th percentiles are the interval
(``method="inverted_cdf"``, as :meth:`zmodel.kernel.scenario.Scenario.predict`). The dbench
figures go through :meth:`~zmodel.kernel.scenario.Scenario.sampled`, the planner's own path; the
OSDL ReAIM figures through the kernel-version fit's own ReAIM composition (the x86 system and
workload reading the scenario presets do not carry).
A prediction that uses no stored parameter (a hardware catalog value, a formula) has an
interval of zero width: the catalogs' values are taken as facts. That is the **parameters'
interval** (``parameter_lo``, ``parameter_hi``): it leaves out what the model lacks. The
**prediction interval** (``predicted_lo``, ``predicted_hi``) adds to each draw a draw of the
out-of-sample error of the fits the figure rests on (:func:`error_areas`,
:class:`zmodel.store.ModelError`: each fit's value rows refitted without each, or without each
benchmark, and predicted -- the documents' numbers only, never a validation figure), on the
figure's scale (:data:`SCALES`); a catalog-only prediction in an area with a fit (a FICON card's
rate) carries that fit's error, one from a drive's own specification alone (its streaming rate)
keeps zero width.

Scoring (:func:`summary`):

* ``ratio`` = predicted / published, for every kind. A bound ("up to", "more than") or the
  end of a published range is read as the value the source prints: a satisfied bound is
  not a zero error (a model answering "over 500 MB/s" with 3200 MB/s is six times off);
  a range's two ends are predicted by the smallest and the largest prediction over the
  conditions the range spans. Percentages (``%``: a change, a reduction) are compared as
  printed.
* ``|error|`` = ``|ratio - 1|``; *within x1.5* means ``1/1.5 <= ratio <= 1.5``, *within
  x2* ``1/2 <= ratio <= 2``.
* Statistics count the expressible figures that are independent of the library's own data;
  a figure whose number a hardware catalog took from the same page (``catalog_check``) is
  shown with its prediction but not counted. Figures the library cannot express are listed
  with what is missing.

This module sits beside the layers (it may import any of them, and the fits' model
classes for their composition of components); no calibration imports it.
"""
from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Callable, Mapping

import numpy as np

# INTERVAL_LEVEL (re-exported): coverage of the intervals, the 5th and 95th percentiles of the draws
from zmodel.conventions import INTERVAL_LEVEL, interval

__all__ = ["Prediction", "Predictor", "PREDICTORS", "STATUSES", "predict", "validate", "summary",
           "area_summary", "DEFAULT_SAMPLES", "MAX_SAMPLES", "INTERVAL_LEVEL", "SMALL_BLOCK", "LARGE_BLOCK"]

#: parameter draws per figure of ``zmodel validate``
DEFAULT_SAMPLES = 200
#: most draws :func:`validate` takes
MAX_SAMPLES = 100_000
#: "small blocks (4 KB, single track)" of the FICON/zHPF I/O-rate figures [B]
SMALL_BLOCK = 4096.0
#: a "large sequential" transfer: one I/O of 1 MiB, where the per-I/O channel time of every
#: card in the catalog (at most 1/7200 s) is under 6 % of the transfer at 400 MB/s [B]
LARGE_BLOCK = float(2 ** 20)
#: processor counts of the dbench scaling figures (speed-up over 1 CPU)
DBENCH_CPUS = (1, 2, 4, 8, 16)
#: "packets of about 20 KB" of the Java SSL figure [B]
JAVA_SSL_PAYLOAD = 20.0 * 1024
#: status of a figure in the validation table
STATUSES = ("counted", "catalog check", "inexpressible")


@dataclasses.dataclass(frozen=True)
class Prediction:
    """A figure's prediction with its sampled 90 % intervals, in the figure's unit.

    ``predicted_lo``/``predicted_hi``: the prediction interval -- the parameters' draws with the
    out-of-sample error of the fits named in ``model_error`` added (:func:`_with_model_error`);
    ``parameter_lo``/``parameter_hi``: the parameters' draws alone. Without a fit's error the two
    agree (``model_error`` empty).
    """

    predicted: float
    predicted_lo: float
    predicted_hi: float
    parameter_lo: float = math.nan
    parameter_hi: float = math.nan
    model_error: tuple[str, ...] = ()


@dataclasses.dataclass(frozen=True)
class Predictor:
    """How one figure is posed to the model.

    Attributes
    ----------
    how : str
        The posing in one sentence (shown by the notebook).
    areas : tuple of str
        Store areas whose parameters the prediction uses (drawn for the interval).
    function : callable
        ``function(values)`` -> prediction; ``values[area][name]`` is a parameter value.
    """

    how: str
    areas: tuple[str, ...]
    function: Callable[[Mapping[str, Mapping[str, float]]], float]
    #: the scale on which a fit's out-of-sample error adds to the prediction (:data:`SCALES`)
    scale: str = "log"
    #: the largest value the quantity can take: the prediction interval stops there
    ceiling: float = math.inf

    def draws(self, store, samples: int, seed, cache: dict) -> tuple[float, np.ndarray | None]:
        """The prediction at the store's values and at each of ``samples`` parameter draws (None: no draw)."""
        point = float(self.function({a: _area_values(store, a) for a in self.areas}))
        if not self.areas or samples == 0:
            return point, None
        rng = np.random.default_rng(seed)
        draws = {a: _area_draws(store, a, samples, rng) for a in self.areas}
        out = np.array([self.function({a: {n: float(v[i]) for n, v in draws[a].items()} for a in self.areas})
                        for i in range(samples)], dtype=float)
        return point, out


def _interval(values: np.ndarray) -> tuple[float, float]:
    lo, hi = interval(values)
    return float(lo), float(hi)


#: scale name -> (to the scale on which a fit's out-of-sample log error adds, and back): a quantity's
#: logarithm; a percent change's growth factor's, ln(1 + x/100) (as the fits score a change:
#: :func:`zmodel.calibration.out_of_sample_log_errors`); a percent reduction's remaining fraction's,
#: ln(1 - x/100)
SCALES = {
    "log": (np.log, np.exp),
    "percent_change": (lambda x: np.log1p(np.asarray(x) / 100.0), lambda y: 100.0 * np.expm1(y)),
    "percent_reduction": (lambda x: np.log1p(-np.asarray(x) / 100.0), lambda y: -100.0 * np.expm1(y)),
}


def error_areas(predictor, figure_area: str, store) -> tuple[str, ...]:
    """The fits whose out-of-sample error a figure's prediction interval carries.

    Those of the store areas the prediction draws (:attr:`Predictor.areas`) that hold a
    :class:`~zmodel.store.ModelError`; where it draws none, the figure's own area's fit if the
    store holds one with an error (a catalog-only channel prediction carries the channel model's
    error); else none (a drive's streaming rate from its own specification: the catalogs' values are
    taken as facts, and no fit measured what such a prediction misses).
    """
    areas = tuple(predictor.areas) or (figure_area,)
    return tuple(a for a in areas if a in store.areas and store.areas[a].model_error is not None)


def _with_model_error(point: float, draws, samples: int, seed: int, scale: str, store,
                      areas: tuple[str, ...], ceiling: float = math.inf) -> Prediction:
    r"""A prediction with its two intervals: the parameters' draws, and those plus the fits' model errors.

    The prediction interval adds to each draw, on the figure's scale (:data:`SCALES`), an
    independent draw of each named fit's out-of-sample log error
    (:meth:`zmodel.store.ModelError.draws`, Student's t at the fit's spread), and takes the
    5th and 95th percentiles; a prediction without parameter draws adds them to its point. The
    error draws come from a stream of their own per fit (:meth:`~zmodel.store.ModelError.sample`),
    so the parameters' interval is the one the draws alone give. An end beyond ``ceiling``, the largest
    value the quantity can take, stops there.
    """
    if samples == 0:
        return Prediction(point, point, point, point, point, ())
    if draws is None:
        draws = np.full(samples, point)
    plo, phi = _interval(draws)
    if not areas:
        return Prediction(point, plo, phi, plo, phi, ())
    to, back = SCALES[scale]
    with np.errstate(invalid="ignore", divide="ignore"):
        y = np.asarray(to(draws), dtype=float)
    for a in areas:
        y = y + store.areas[a].model_error.sample(samples, seed, a)
    if not np.all(np.isfinite(y)):
        return Prediction(point, math.nan, math.nan, plo, phi, areas)
    ends = np.minimum(back(np.asarray(_interval(y))), ceiling)
    return Prediction(point, float(min(ends)), float(max(ends)), plo, phi, areas)


# --------------------------------------------------------------------------- parameters
def _defaults(area: str) -> dict[str, float]:
    """Declared defaults of an area's parameters (used where the store has no such area)."""
    if area == "crypto":
        from zmodel.fits.crypto import CryptoModel
        return dict(CryptoModel().parameters().valuesdict())
    if area == "network":
        from zmodel.fits.network import NetworkModel
        return dict(NetworkModel().parameters().valuesdict())
    if area == "kernel_versions":
        from zmodel.kernel.versions import KernelCosts
        return {"copy_time_per_byte": float(KernelCosts().copy_time_per_byte)}
    if area == "channels":
        from zmodel.hardware.storage import DriveMechanics
        from zmodel.kernel.scenario import DEFAULT_COMMAND_TIME
        drive = DriveMechanics()
        return {"ficon_command_time": DEFAULT_COMMAND_TIME, "average_seek": drive.average_seek,
                "revolution_time": drive.revolution_time}
    raise ValueError(f"area must be one of crypto, network, kernel_versions, channels, got {area!r}")


def _area_values(store, area: str) -> dict[str, float]:
    out = _defaults(area)
    if area in store.areas:
        out.update(store.areas[area].values())
    return out


def _area_draws(store, area: str, samples: int, rng) -> dict[str, np.ndarray]:
    """Draws of an area: calibrated from their fit (or range), assumed over their stored plausible range."""
    out = {n: np.full(samples, v) for n, v in _defaults(area).items()}
    if area in store.areas:
        out.update(store.areas[area].sample(samples, rng, vary_assumed=True))
    return out


# --------------------------------------------------------------------------- channels
def _card(name: str):
    from zmodel.hardware.channels import ChannelCard
    return ChannelCard.from_catalog(name)


def _zhpf_io_rate(card: str) -> Callable:
    def f(p):
        c = _card(card)
        link = c.link(mode="transport", command_time=p["channels"]["ficon_command_time"]
                      if math.isnan(c.command_io_rate) else None)
        return float(link.max_io_rate(SMALL_BLOCK, 1.0))
    return f


def _zhpf_vs_ficon(p) -> float:
    c = _card("FICON-Express4")
    return float(c.link(mode="transport").max_io_rate(SMALL_BLOCK, 1.0)
                 / c.link(mode="command").max_io_rate(SMALL_BLOCK, 1.0))


def _channel_duplex_mbps(card: str) -> Callable:
    """Duplex data rate of one channel in transport mode, 1 MiB I/Os half reads half writes [MB/s].

    A card the catalog knows only by its link rate (no zHPF rate: IBM's measured rates of it are
    validation figures) takes the newest earlier card's zHPF per-I/O time
    (:meth:`~zmodel.hardware.channels.ChannelCard.rate_floor`: a newer card is not slower per
    I/O). At 1 MiB per I/O it does not bind -- the link's two directions do (bottleneck law,
    Lazowska et al. 1984, §5.2) -- so that prediction is the link's full-duplex payload rate.
    """
    def f(p):
        from zmodel.hardware.channels import ChannelCard

        c = _card(card)
        zhpf, _ = ChannelCard.rate_floor(card, "zhpf_io_rate")
        link = c.link(mode="transport", command_time=p["channels"]["ficon_command_time"]
                      if math.isnan(c.command_io_rate) else None, transport_time=1.0 / zhpf)
        return float(link.max_data_rate(LARGE_BLOCK, 0.5)) / 1e6
    return f


def _feature_rate(card: str, read_fraction: float) -> float:
    """Data rate of one feature [B/s]: its channels (command mode, card's top link rate) capped by the feature bus.

    Bottleneck law over the feature (Lazowska et al. 1984, §5.2): the ``ports`` channels
    each move :meth:`~zmodel.hardware.channels.ChannelLink.max_data_rate`; the bus feeding
    the feature (``feature_rate``, channel_cards.csv) carries all of it.
    """
    c = _card(card)
    per_channel = float(c.link(mode="command").max_data_rate(LARGE_BLOCK, read_fraction))
    return min(c.ports * per_channel, c.feature_rate)


#: the three workloads the FICON Express4 feature figures name: READ, WRITE, READ+WRITE
FEATURE_MIXES = (1.0, 0.0, 0.5)


def _feature_ratio(end: str) -> Callable:
    def f(p):
        ratios = [_feature_rate("FICON-Express4", m) / _feature_rate("FICON-Express2", m) for m in FEATURE_MIXES]
        return min(ratios) if end == "low" else max(ratios)
    return f


# --------------------------------------------------------------------------- storage, disks
def _ess800_sequential(op: str) -> Callable:
    """Saturation data rate [MB/s] of the catalog's ESS-800 with 16 FICON links for 1 MiB ``op`` requests."""
    def f(p):
        from zmodel.hardware.storage import StorageServer
        server = StorageServer.from_catalog("ESS-800", links=16, host_adapters=16)
        return float(np.asarray(server.saturation(op, LARGE_BLOCK).max_data_rate)) / 1e6
    return f


def _drive_15k():
    """The catalog's 15,000 rpm drive (DS8300 / ESS-800): the Seagate ST373453 (Cheetah 15K.3) as proxy, its average
    seek and best-case rate from Hennessy & Patterson, 6th ed., Fig. 1.10 (storage_servers.csv); the seek-curve shape
    (track-to-track, full stroke, cylinders) still NOT verified."""
    from zmodel.hardware.storage import StorageServer
    return StorageServer.from_catalog("DS8300").disk


def _seek_15k(p) -> float:
    """Average read seek of the 15,000 rpm drive of the catalog's DS8300 / ESS-800 as the calibrated store holds
    it [ms]: the channel fit's :class:`~zmodel.hardware.storage.DriveMechanics` ``average_seek`` (the same
    drive, the ST373453's published latency as its prior; the catalog's 3.7 ms is that prior's centre)."""
    return p["channels"]["average_seek"] * 1e3


def _write_seek_15k(p) -> float:
    """Average write seek of the same drive: the store's read seek + the catalog drive's write settle
    (Disk notes) [ms]."""
    return (p["channels"]["average_seek"] + _drive_15k().write_settle) * 1e3


def _latency_5400(p) -> float:
    return dataclasses.replace(_drive_15k(), rotation_rate=5400 / 60).rotational_latency * 1e3


#: Hitachi Travelstar 5K320 SATA OEM Specification (Hitachi GST, 2007), sec. 4.4.2, p. 19: full-stroke
#: read seek "Read | 20.0" ms (Table 6), single-track read seek "Read | 1.0" ms (Table 7), 5400 rpm
#: (Table 8). Its cylinder count is not on the stored page: 1e5 assumed (the predicted average moves
#: from 11.04 to 11.12 ms over 1e4 to 1e6 cylinders).
TRAVELSTAR_5K320 = dict(rpm=5400.0, full_stroke_seek=20.0e-3, track_seek=1.0e-3, cylinders=10 ** 5)


def _seek_5k320(p) -> float:
    """Average read seek predicted from the drive's single-track and full-stroke seeks (Disk.from_stroke) [ms]."""
    from zmodel.hardware.storage import Disk

    t = TRAVELSTAR_5K320
    # the seek does not read the media rate: the catalog drive's stands in
    d = Disk.from_stroke(t["rpm"] / 60, _drive_15k().media_rate, t["cylinders"], t["full_stroke_seek"],
                         t["track_seek"])
    return d.average_seek_time() * 1e3


def _access_15k(p) -> float:
    """Seek plus half a revolution of the same drive, both as the calibrated store holds them
    (:attr:`~zmodel.hardware.storage.DriveMechanics.random_access_time`) [ms]."""
    from zmodel.hardware.storage import DriveMechanics

    c = p["channels"]
    return DriveMechanics(average_seek=c["average_seek"], revolution_time=c["revolution_time"]).random_access_time * 1e3


#: Seagate Cheetah X15 ST318451LC (the drive of the c't figures), as quoted by N. Brown,
#: linux-kernel, 2001-10-19, "Re: very slow RAID-1 resync" (Message-ID
#: <15311.43586.735550.760255@notabene.cse.unsw.edu.au>): "claim a transfer rate of 37.4 to 48.9
#: MB/sec. That transfer rate is off a single track" (the inner and outer zones' per-track rates) and
#: "it takes 4ms to read a track, and 0.7 to step to the next track". Its seek figures are not in the
#: message: the catalog drive's seek curve stands in and is not read by the rate.
CHEETAH_X15 = dict(rpm=15000.0, zone_rates=(37.4e6, 48.9e6), track_switch=0.7e-3)


def _sustained_x15(p) -> float:
    """Highest streaming rate of the Cheetah X15: its outer zone's track rate paying the track switch [MB/s]."""
    x = CHEETAH_X15
    d = dataclasses.replace(_drive_15k(), rotation_rate=x["rpm"] / 60, media_rate=max(x["zone_rates"]),
                            track_switch=x["track_switch"])
    return d.sequential_rate / 1e6


# --------------------------------------------------------------------------- network, crypto
@functools.lru_cache(maxsize=None)
def _model(name: str):
    """One instance of a fit's model class (its composition of components; nothing is fitted here)."""
    if name == "network":
        from zmodel.fits.network import NetworkModel
        return NetworkModel()
    from zmodel.fits.crypto import CryptoModel
    return CryptoModel()


def _hipersockets_vs_osa(p) -> float:
    from zmodel.hardware.network import NetworkAdapter, NetworkPath

    net = p["network"]
    osa = _model("network").path("OSA-Express GbE", net)
    copy = max(p["kernel_versions"]["copy_time_per_byte"], 1e-15)
    hiper = NetworkAdapter.from_catalog("HiperSockets", per_packet_time=0.0, link_rate=8.0 / copy)
    return float(NetworkPath(hiper, osa.stack).streaming_capacity() / osa.streaming_capacity())


def _java_ssl(quantity: str) -> Callable:
    def f(p):
        from zmodel.fits.crypto import HANDSHAKE_CONNECTIONS

        m, c = _model("crypto"), p["crypto"]
        n = list(HANDSHAKE_CONNECTIONS)
        hw = m.server(c, cex2a=True, cpacf=True).throughput(n, JAVA_SSL_PAYLOAD, 1.0, c["think_time"])
        sw = m.server(c, cex2a=False, cpacf=False).throughput(n, JAVA_SSL_PAYLOAD, 1.0, c["think_time"])
        if quantity == "throughput":
            return float(np.max(np.asarray(hw.throughput) / np.asarray(sw.throughput)))
        return float(np.max(100.0 * (1.0 - np.asarray(hw.cpu_busy) / np.asarray(sw.cpu_busy))))
    return f


# --------------------------------------------------------------------------- kernel versions
@dataclasses.dataclass(frozen=True)
class _DbenchSpeedup:
    """dbench speed-up over 1 CPU through :class:`~zmodel.kernel.scenario.Scenario` (the planner's path)."""

    kernel: str
    cpus: int
    how: str
    areas: tuple[str, ...] = ("kernel_versions",)
    #: the scale on which the fits' out-of-sample error adds (:data:`SCALES`)
    scale: str = "log"

    def _runs(self, store, samples: int, seed, cache: dict):
        key = ("dbench", self.kernel, id(store), samples, seed)
        if key not in cache:
            from zmodel.conventions import quiet_saturation
            from zmodel.kernel.scenario import Scenario

            scen = Scenario.from_dict({"hardware": {"processor": "z990", "cpus": 1},
                                       "kernel": {"version": self.kernel}, "workload": {"kind": "dbench"}},
                                      parameters=store)
            sweep = {"hardware.cpus": list(DBENCH_CPUS)}
            with quiet_saturation():
                point = scen.predict(sweep)["throughput"].to_numpy(dtype=float)
                stack = scen.sampled(sweep, samples, seed)[:, :, 0] if samples else None
            cache[key] = (point, stack)
        return cache[key]

    @property
    def ceiling(self) -> float:
        """A speed-up of ``cpus`` alike clients over one on ``cpus`` CPUs is at most ``cpus``."""
        return float(self.cpus)

    def draws(self, store, samples: int, seed, cache: dict) -> tuple[float, np.ndarray | None]:
        """The speed-up at the store's values and at each parameter draw (None: no draw)."""
        point, stack = self._runs(store, samples, seed, cache)
        j = DBENCH_CPUS.index(self.cpus)
        return float(point[j] / point[0]), None if stack is None else stack[:, j] / stack[:, 0]


def _dbench(kernel: str, distro: str, cpus: int) -> _DbenchSpeedup:
    return _DbenchSpeedup(kernel, cpus, f"dbench on a z990 LPAR, {distro} as Linux {kernel} (the library's "
                          f"version for it), one client per CPU: throughput at {cpus} CPUs over 1 CPU "
                          "(Scenario, kind 'dbench', calibrated store)")


@functools.cache
def _kernel_versions_model():
    """One :class:`~zmodel.fits.kernel_versions.KernelVersionsModel` (it memoises its compositions) and
    its parameters' declared values, built once (a ``parameters()`` call takes tens of milliseconds)."""
    from zmodel.fits.kernel_versions import KernelVersionsModel

    m = KernelVersionsModel()
    return m, m.parameters().valuesdict()


#: processor clock of the OSDL STP hosts of the ReAIM validation figures that are not the deck's 700 MHz
#: 4- and 8-way systems ("4 /8 CPU 700MHz Pentium III 1M cache", seed ``001_37b528ecce68b8bf.txt``,
#: 'OSDL ReAIM Tests'; the fit's SYSTEMS entry, which the 4- and 8-way figures keep) [Hz]: the 1-way host
#: stp1-003 and the 2-way host stp2-000 run at 1000 MHz -- C. White, "Re: Minutes from Feb 21 LSE Call",
#: linux-kernel, 25 Feb 2003, Message-Id <200302251711.h1PHBct16624@mail.osdl.org>, LMBench 2.0 table of
#: those hosts, 'Mhz' column: "stp1-003.  Linux 2.4.18 1000", "stp2-000.  Linux 2.5.60 1000". Posed at the
#: clock ratio to the reference (zmodel.kernel.versions.REFERENCE_CLOCK: a processor of the same family;
#: the 1 GHz hosts' caches are not modelled, an assumption)
REAIM_HOST_CLOCK = {1: 1000e6, 2: 1000e6}


def _context_switch_us(p) -> float:
    """CPU of one context switch between two processes on one CPU under 2.4.21's features [us].

    The kernel-version composition's per-switch terms (:func:`~zmodel.kernel.versions.kernel_cpu_time`:
    the switch's fixed part, the 2.4 ``goodness()`` scan of the two runnable tasks and the work under
    the runqueue lock) at the calibrated store's costs, at the reference clock (1 GHz, the LMBench
    host's), one switch per transaction and no other work.
    """
    from zmodel.fits.kernel_versions import KernelVersionsModel
    from zmodel.kernel.versions import SystemConfig, WorkloadProfile, kernel_cpu_time, kernel_version

    _, values = _kernel_values(p)
    w = WorkloadProfile("ctxsw", clients=2, user_time=0.0, switches=1, runnable_fraction=1.0)
    t = kernel_cpu_time(kernel_version("2.4.21").features, w, SystemConfig(cpus=1, devices=0),
                        KernelVersionsModel.costs(values))
    return float(t["scheduler"] + t["lock_hold"]) * 1e6


def _kernel_values(p) -> tuple:
    """The fit's model and its parameter values with the store's kernel-version draws in ``p``."""
    m, declared = _kernel_versions_model()
    return m, {**declared, **{n: v for n, v in p["kernel_versions"].items() if n in declared}}


def _reaim_peaks(m, values, cpus: int, kernels, speed: float | None = None, io_scheduler=None) -> list[float]:
    """Peak ReAIM throughput over :data:`~zmodel.fits.kernel_versions.REAIM_PROCESSES` of each kernel [jobs/s]:
    the fit's compositions of the load levels (each with its own activity), at processor ``speed``
    (default the fit's system's)."""
    from zmodel.kernel.versions import compose_many

    comps = [c if speed is None else {**c, "system": dataclasses.replace(c["system"], cpu_speed=speed)}
             for k in kernels for c in m.reaim_compositions(cpus, k, values, io_scheduler)]
    x = np.array([float(r.throughput) for r in compose_many(comps)]).reshape(len(kernels), -1)
    return [float(v) for v in x.max(axis=1)]


def _reaim_gain(cpus: int) -> Callable:
    """Percent gain of the peak ReAIM jobs per minute, 2.6.0 over 2.4.23, with ``cpus`` CPUs [%].

    The calibrated kernel-version composition's ReAIM pair
    (:meth:`~zmodel.fits.kernel_versions.KernelVersionsModel.reaim_compositions`: the Database Mix
    read from re-aim-7's source, each load level composed with its own activity, the peak over the
    load levels, on the OSDL x86 STP system of the fit) at the store's kernel-version parameters,
    with the processor clock of the figure's host where it is not the fit's system's
    (:data:`REAIM_HOST_CLOCK`). At 4 and 8 CPUs it is the fit's own prediction of the deck's ReAIM
    rows; at 1 and 2 CPUs a size the fit never composed.
    """
    def f(p):
        from zmodel.fits.kernel_versions import NEW, OLD
        from zmodel.kernel.versions import REFERENCE_CLOCK

        m, values = _kernel_values(p)
        clock = REAIM_HOST_CLOCK.get(cpus)
        x24, x26 = _reaim_peaks(m, values, cpus, (OLD, NEW), None if clock is None else clock / REFERENCE_CLOCK)
        return 100.0 * (x26 / x24 - 1.0)
    return f


def _reaim_as_vs_deadline(p) -> float:
    """Percent gain of the peak ReAIM jobs per minute on 4 CPUs under 2.6.0, anticipatory over deadline [%]
    (the fit's ReAIM compositions, :func:`_reaim_peaks`, with each I/O scheduler)."""
    from zmodel.fits.kernel_versions import NEW

    m, values = _kernel_values(p)
    (dl,), (as_,) = (_reaim_peaks(m, values, 4, (NEW,), io_scheduler=s) for s in ("deadline", "anticipatory"))
    return 100.0 * (as_ / dl - 1.0)


# --------------------------------------------------------------------------- the table
_ZHPF = ("FICON {card} channel in transport mode (ChannelCard.link(mode='transport')): maximum I/O rate of "
         "4 KB reads, 1 / max demand")
_LINK_ONLY_DUPLEX = ("FICON {card} channel at 16 Gbit/s in transport mode, 1 MiB I/Os half reads half writes: "
                     "maximum data rate (the catalog has the card's link rate only: no channel data path; zHPF "
                     "per-I/O time assumed as FICON Express8S's, which does not bind at 1 MiB)")
_SEEK_15K = ("average seek of the 15,000 rpm drive of the catalog's DS8300/ESS-800 (Seagate ST373453 proxy) as "
             "the calibrated store holds it (channels: DriveMechanics.average_seek, the drive's published latency "
             "as prior)")
#: figure id -> predictor (every expressible figure has one; tests check the two sets agree)
PREDICTORS: dict[str, Predictor | _DbenchSpeedup] = {
    "val.channels.zhpf-fex4-max-iops": Predictor(_ZHPF.format(card="Express4"), (), _zhpf_io_rate("FICON-Express4")),
    "val.channels.zhpf-vs-ficon-fex4-ratio": Predictor(
        "FICON Express4 channel, 4 KB reads: maximum I/O rate in transport mode over command mode", (),
        _zhpf_vs_ficon),
    "val.channels.zhpf-fex8-max-iops": Predictor(_ZHPF.format(card="Express8"), ("channels",),
                                                 _zhpf_io_rate("FICON-Express8")),
    "val.channels.zhpf-fex8s-max-iops": Predictor(_ZHPF.format(card="Express8S"), ("channels",),
                                                  _zhpf_io_rate("FICON-Express8S")),
    "val.channels.zhpf-fex8s-seq-duplex-mbps": Predictor(
        "FICON Express8S channel at 8 Gbit/s in transport mode, 1 MiB I/Os half reads half writes: "
        "maximum data rate (links per direction and the channel data path)", ("channels",),
        _channel_duplex_mbps("FICON-Express8S")),
    "val.channels.zhpf-fex16s-seq-duplex-mbps": Predictor(
        _LINK_ONLY_DUPLEX.format(card="Express16S"), ("channels",),
        _channel_duplex_mbps("FICON-Express16S")),
    "val.channels.zhpf-fex16splus-seq-duplex-mbps": Predictor(
        _LINK_ONLY_DUPLEX.format(card="Express16S+"), ("channels",),
        _channel_duplex_mbps("FICON-Express16S+")),
    "val.channels.fex4-feature-read-mbps": Predictor(
        "four FICON Express4 channels at 4 Gbit/s, 1 MiB reads: min(4 x channel data rate, feature bus rate)",
        (), lambda p: _feature_rate("FICON-Express4", 1.0) / 1e6),
    "val.channels.fex4-feature-write-mbps": Predictor(
        "four FICON Express4 channels at 4 Gbit/s, 1 MiB writes: min(4 x channel data rate, feature bus rate)",
        (), lambda p: _feature_rate("FICON-Express4", 0.0) / 1e6),
    "val.channels.fex4-feature-duplex-mbps": Predictor(
        "four FICON Express4 channels at 4 Gbit/s, 1 MiB I/Os half reads half writes: min(4 x channel data "
        "rate over both directions, feature bus rate)", (), lambda p: _feature_rate("FICON-Express4", 0.5) / 1e6),
    "val.channels.fex4-vs-fex2-feature-low": Predictor(
        "FICON Express4 feature (4 Gbit/s) over FICON Express2 feature (2 Gbit/s) data rate: smallest ratio over "
        "read, write and read+write", (), _feature_ratio("low")),
    "val.channels.fex4-vs-fex2-feature-high": Predictor(
        "FICON Express4 feature (4 Gbit/s) over FICON Express2 feature (2 Gbit/s) data rate: largest ratio over "
        "read, write and read+write", (), _feature_ratio("high")),
    "val.storage.ess800-turbo-seq-read-mbps": Predictor(
        "ESS-800 (catalog) with 16 host links at 2 Gbit/s, 1 MiB sequential reads: saturation data rate "
        "(StorageServer.saturation: links, disks, internal data path)", (), _ess800_sequential("sequential_read")),
    "val.storage.ess800-turbo-seq-write-mbps": Predictor(
        "ESS-800 (catalog) with 16 host links at 2 Gbit/s, 1 MiB sequential writes: saturation data rate "
        "(StorageServer.saturation: links, destage to RAID-5, internal data path, NVS mirroring)", (),
        _ess800_sequential("sequential_write")),
    "val.disks.ultrastar-15k450-450gb-read-seek": Predictor(_SEEK_15K, ("channels",), _seek_15k),
    "val.disks.ultrastar-15k450-450gb-write-seek": Predictor(
        "average write seek of the 15,000 rpm drive of the catalog's DS8300/ESS-800: its average read seek as the "
        "calibrated store holds it (channels: DriveMechanics.average_seek) plus the write settle "
        "(Disk.average_write_seek_time; write settle from the Ultrastar C15K600 specification)", ("channels",),
        _write_seek_15k),
    "val.disks.ultrastar-15k450-300gb-read-seek": Predictor(_SEEK_15K, ("channels",), _seek_15k),
    "val.disks.ultrastar-c15k600-read-seek": Predictor(_SEEK_15K, ("channels",), _seek_15k),
    "val.disks.travelstar-5k320-avg-latency": Predictor(
        "rotational latency of a Disk at 5400 rpm: half a revolution", (), _latency_5400),
    "val.disks.travelstar-5k320-read-seek": Predictor(
        "average seek of a Disk whose seek follows the constant-acceleration law (a + b sqrt(d)) through the "
        "drive's single-track (1.0 ms) and full-stroke (20.0 ms) read seeks (Disk.from_stroke)", (), _seek_5k320),
    "val.disks.cheetah-x15-access-time": Predictor(
        "access time = average seek + rotational latency of the 15,000 rpm drive of the catalog's DS8300/ESS-800 "
        "as the calibrated store holds them (channels: DriveMechanics.random_access_time)", ("channels",),
        _access_15k),
    "val.disks.cheetah-x15-transfer-rate": Predictor(
        "streaming rate of the Cheetah X15's outer zone: its per-track rate (48.9 MB/s) paying a 0.7 ms switch "
        "to the next track every 4 ms revolution (Disk.sequential_rate)", (), _sustained_x15),
    "val.network.hipersockets-vs-osa-throughput-max": Predictor(
        "streaming capacity of a HiperSockets path (MTU 8 KB, memory move at the kernel model's copy rate) over "
        "an OSA-Express GbE path (MTU 8992), network store costs", ("network", "kernel_versions"),
        _hipersockets_vs_osa),
    "val.crypto.cex2a-java-ssl-cpu-reduction": Predictor(
        "SSL server (crypto store), handshake + 20 KB per transaction, 1..32 connections: largest CPU-busy "
        "reduction with CEX2A + CPACF over software", ("crypto",), _java_ssl("cpu"), scale="percent_reduction"),
    "val.crypto.cex2a-java-ssl-throughput-ratio": Predictor(
        "SSL server (crypto store), handshake + 20 KB per transaction, 1..32 connections: largest throughput "
        "ratio with CEX2A + CPACF over software", ("crypto",), _java_ssl("throughput")),
    **{f"val.kernel_versions.dbench-sles8-speedup-{n}cpu": _dbench("2.4.21", "SLES8 (2.4.21)", n)
       for n in DBENCH_CPUS[1:]},
    **{f"val.kernel_versions.dbench-sles9-speedup-{n}cpu": _dbench("2.6.6", "SLES9 (2.6.5)", n)
       for n in DBENCH_CPUS[1:]},
    "val.kernel_versions.lmbench-ctxsw-2418-1way": Predictor(
        "the kernel-version composition's CPU per context switch under 2.4.21's features on one CPU at the "
        "reference clock, two runnable tasks: switch, goodness() scan and runqueue-lock work (calibrated store)",
        ("kernel_versions",), _context_switch_us),
    "val.io_schedulers.reaim-4way-as-vs-deadline": Predictor(
        "OSDL ReAIM (re-aim-7 Database Mix) on the x86 STP system of the kernel-version fit with 4 CPUs under "
        "Linux 2.6.0: peak jobs per minute with the anticipatory I/O scheduler over deadline (calibrated store)",
        ("kernel_versions",), _reaim_as_vs_deadline, scale="percent_change"),
    **{f"val.kernel_versions.reaim-stp-{n}way": Predictor(
        f"OSDL ReAIM (re-aim-7 Database Mix) on the x86 STP system of the kernel-version fit with {n} CPU"
        f"{'s' if n > 1 else ''} at the clock of the figure's host: peak jobs per minute of Linux 2.6.0 over "
        "2.4.23 (the -mm patches and test releases read as those versions; calibrated store)", ("kernel_versions",),
        _reaim_gain(n), scale="percent_change")
       for n in (1, 2, 4, 8)},
}


def _as_samples(samples) -> int:
    if isinstance(samples, bool) or not isinstance(samples, (int, np.integer)) or not 0 <= samples <= MAX_SAMPLES:
        raise ValueError(f"samples must be an integer from 0 to {MAX_SAMPLES}, got {samples!r}")
    return int(samples)


def _as_seed(seed) -> int:
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    return int(seed)


def predict(figure: str, store=None, samples: int = DEFAULT_SAMPLES, seed: int = 0) -> Prediction:
    """Predict one validation figure with its sampled 90 % interval.

    Parameters
    ----------
    figure : str
        A validation id with a predictor (:data:`PREDICTORS`).
    store : zmodel.store.ParameterStore, optional
        Parameters to predict with; default the shipped calibrated store.
    samples : int
        Parameter draws for the interval (0: none, the interval is the point) [1].
    seed : int
        Seed of the draws (the same seed gives the same interval).

    Returns
    -------
    Prediction
    """
    from zmodel import store as _store

    if figure not in PREDICTORS:
        raise ValueError(f"figure must be an expressible validation id, got {figure!r}")
    st = _store.default() if store is None else store
    return _predict_figure(figure, _figure_areas()[figure], st, _as_samples(samples), _as_seed(seed), {})


@functools.cache
def _figure_areas() -> dict[str, str]:
    from zmodel.data import validation_figures

    t = validation_figures()
    return dict(zip(t["id"], t["area"]))


def _predict_figure(fid: str, area: str, store, samples: int, seed: int, cache: dict) -> Prediction:
    """Figure ``fid`` (of ``area``) predicted, with its parameter and prediction intervals."""
    p = PREDICTORS[fid]
    point, draws = p.draws(store, samples, seed, cache)
    return _with_model_error(point, draws, samples, seed, p.scale, store, error_areas(p, area, store), p.ceiling)


def validate(store=None, samples: int = DEFAULT_SAMPLES, seed: int = 0, figures=None, progress=None):
    """Every validation figure beside its prediction: the table of ``zmodel validate``.

    Parameters
    ----------
    store : zmodel.store.ParameterStore, optional
        Default: the shipped calibrated store.
    samples : int
        Parameter draws per figure (0: no intervals) [1].
    seed : int
        Seed of the draws (each figure uses it, so figures sharing parameters share draws).
    figures : pandas.DataFrame, optional
        The validation set (default :func:`zmodel.data.validation_figures`).
    progress : callable, optional
        ``progress(done, total)`` after each figure.

    Returns
    -------
    pandas.DataFrame
        One row per figure: id, area, kind, unit, published, predicted, predicted_lo,
        predicted_hi, ratio, status (:data:`STATUSES`), missing, catalog_check, how.
        Inexpressible figures have NaN predictions.
    """
    import pandas as pd

    from zmodel import store as _store
    from zmodel.data import validation_figures

    samples, seed = _as_samples(samples), _as_seed(seed)
    st = _store.default() if store is None else store
    table = validation_figures() if figures is None else figures
    rows, cache = [], {}
    for i, rec in enumerate(table.to_dict(orient="records")):
        fid = rec["id"]
        expressible = rec["expressible"] == "yes"
        if expressible and fid not in PREDICTORS:
            raise ValueError(f"figure {fid!r} is marked expressible but has no predictor in zmodel.validation")
        status = ("inexpressible" if not expressible else
                  "catalog check" if str(rec.get("catalog_check", "") or "").strip() else "counted")
        pred = (_predict_figure(fid, rec["area"], st, samples, seed, cache) if expressible
                else Prediction(math.nan, math.nan, math.nan))
        published = float(rec["value_num"])
        rows.append(dict(id=fid, area=rec["area"], kind=rec["kind"], unit=rec["unit"], published=published,
                         predicted=pred.predicted, predicted_lo=pred.predicted_lo, predicted_hi=pred.predicted_hi,
                         ratio=pred.predicted / published if expressible else math.nan, status=status,
                         missing=str(rec["missing"] or ""), catalog_check=str(rec.get("catalog_check", "") or ""),
                         how=PREDICTORS[fid].how if expressible else "", parameter_lo=pred.parameter_lo,
                         parameter_hi=pred.parameter_hi, model_error=" ".join(pred.model_error)))
        if progress is not None:
            progress(i + 1, len(table))
    return pd.DataFrame(rows, columns=["id", "area", "kind", "unit", "published", "predicted", "predicted_lo",
                                       "predicted_hi", "ratio", "status", "missing", "catalog_check", "how",
                                       "parameter_lo", "parameter_hi", "model_error"])


def _coverage(rows) -> dict:
    """``with_interval`` (counted rows with a finite 90 % prediction interval) and ``inside_interval`` (of
    them, those whose published value lies inside it, ends included); ``with_parameter_interval`` and
    ``inside_parameter_interval`` alike for the parameters' interval (where the table has it)."""
    out = {}
    for prefix, key in (("predicted", ""), ("parameter", "parameter_")):
        if not len(rows) or f"{prefix}_lo" not in rows:
            out.update({f"with_{key}interval": 0, f"inside_{key}interval": 0})
            continue
        lo = rows[f"{prefix}_lo"].to_numpy(dtype=float)
        hi = rows[f"{prefix}_hi"].to_numpy(dtype=float)
        pub = rows["published"].to_numpy(dtype=float)
        has = np.isfinite(lo) & np.isfinite(hi)
        inside = has & (pub >= np.minimum(lo, hi)) & (pub <= np.maximum(lo, hi))
        out.update({f"with_{key}interval": int(has.sum()), f"inside_{key}interval": int(inside.sum())})
    return out


def _stats(ratios) -> dict:
    r = np.asarray(list(ratios), dtype=float)
    if r.size == 0:
        return dict(count=0, median_abs_error=math.nan, worst_abs_error=math.nan, within_1_5=0, within_2=0)
    err = np.abs(r - 1.0)

    def within(factor: float) -> int:
        return int(np.sum((r >= 1.0 / factor) & (r <= factor)))

    return dict(count=int(r.size), median_abs_error=float(np.median(err)), worst_abs_error=float(np.max(err)),
                within_1_5=within(1.5), within_2=within(2.0))


def summary(table) -> dict:
    """Summary statistics of a validation table (:func:`validate`) over its counted figures.

    Returns
    -------
    dict
        ``total`` (figures), ``expressible``, ``counted`` (expressible and independent),
        ``catalog_checks``, ``inexpressible``, ``median_abs_error`` (median of
        ``|ratio - 1|`` over the counted figures), ``worst_abs_error``, ``within_1_5`` and
        ``within_2`` (counted figures with ratio in [1/1.5, 1.5] and [1/2, 2]), ``with_interval``
        (counted figures with a 90 % prediction interval: sampled, ``samples > 0``) and
        ``inside_interval`` (of them, those whose published value lies inside it), and
        ``with_parameter_interval`` / ``inside_parameter_interval`` alike for the parameters'
        interval. The parameters' interval comes from the parameters' uncertainty alone -- the
        calibrated ones' spread and the assumed ones' plausible ranges -- not from what the model
        lacks; the prediction interval adds the fits' out-of-sample error (:func:`error_areas`),
        which the documents' cross-validation measured, never these figures. The counts say how far
        a planner's interval can be trusted to hold a measurement: near 90 % where the fits'
        left-out errors are like the model's errors elsewhere.

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"status": ["counted", "counted", "counted", "catalog check", "inexpressible"],
    ...                   "ratio": [1.1, 0.6, 3.0, 1.0, float("nan")],
    ...                   "published": [10.0, 10.0, 1.0, 5.0, 1.0], "predicted_lo": [9.0, 5.0, 2.0, 5.0, float("nan")],
    ...                   "predicted_hi": [12.0, 7.0, 4.0, 5.0, float("nan")]})
    >>> s = summary(t)
    >>> s["counted"], round(s["median_abs_error"], 12), s["within_1_5"], s["within_2"]
    (3, 0.4, 1, 2)
    >>> s["with_interval"], s["inside_interval"]      # 10 in [9, 12]; 10 not in [5, 7], 1 not in [2, 4]
    (3, 1)
    >>> s["with_parameter_interval"]                  # the table has no parameter interval
    0
    """
    status = table["status"]
    rows = table.loc[status == "counted"]
    counted = rows["ratio"]
    out = dict(total=int(len(table)), expressible=int((status != "inexpressible").sum()),
               counted=int(len(counted)), catalog_checks=int((status == "catalog check").sum()),
               inexpressible=int((status == "inexpressible").sum()))
    st = _stats(counted)
    out.update({k: v for k, v in st.items() if k != "count"})
    out.update(_coverage(rows))
    return out


def area_summary(table):
    """Per area: figures, counted, median and worst ``|ratio - 1|`` of the counted ones, within x1.5 and x2.

    Returns
    -------
    pandas.DataFrame
        Columns area, figures, counted, median_abs_error, worst_abs_error, worst_id,
        within_1_5, within_2, with_interval, inside_interval, with_parameter_interval,
        inside_parameter_interval (:func:`summary`); one row per area of the table, in first-seen order.
    """
    import pandas as pd

    rows = []
    for area in dict.fromkeys(table["area"]):
        part = table[table["area"] == area]
        counted = part[part["status"] == "counted"]
        st = _stats(counted["ratio"])
        worst = ""
        if len(counted):
            worst = str(counted["id"].iloc[int(np.argmax(np.abs(counted["ratio"].to_numpy(dtype=float) - 1.0)))])
        rows.append(dict(area=area, figures=int(len(part)), counted=st["count"],
                         median_abs_error=st["median_abs_error"], worst_abs_error=st["worst_abs_error"],
                         worst_id=worst, within_1_5=st["within_1_5"], within_2=st["within_2"],
                         **_coverage(counted)))
    return pd.DataFrame(rows, columns=["area", "figures", "counted", "median_abs_error", "worst_abs_error",
                                       "worst_id", "within_1_5", "within_2", "with_interval", "inside_interval",
                                       "with_parameter_interval", "inside_parameter_interval"])
