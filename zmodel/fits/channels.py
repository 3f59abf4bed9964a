r"""Calibration of the channel-subsystem model against the documented channel numbers.

The WAVV 2008 deck (seed 002_3ef25dc9d706703e.txt, slides "Disk I/O performance with
4Gbps links") compares FICON and FCP channels at 2 and 4 Gbit/s with iozone on a z9 and
a DS8300 ("1, 2, 4, 8, 16, 32, 64 threads, each operating on its own disk"; "main memory
was restricted to 256MB"). Its charts are not in the text; the bullet claims are, and
they are catalogued (``zmodel.data.measurements(model_area="channel")``):

=====================================  =======  ==========================================
id                                     value    what the model predicts
=====================================  =======  ==========================================
wavv08.ficon-4g-seqread-gain           2 x      best 4G/2G FICON ratio of sequential read
wavv08.ficon-4g-avg-gain               1.6 x    mean 4G/2G FICON ratio over workloads, threads
wavv08.fcp-4g-seqread-gain             1.25 x   best 4G/2G FCP ratio of sequential read
wavv08.fcp-random-gain                 +40 %    FCP vs FICON random I/O throughput (4G)
wavv08.directio-fcp-gain               <= 2 x   best direct-I/O / page-cache ratio, FCP
wavv08.directio-ficon-gain             <= 1.6x  the same for FICON
wavv08.multipath-cost-low/-high        ~10-15 % host cost per I/O of multibus multipathing,
                                                read as [9, 16.5] % (readings.csv)
configuration rows                              CHPIDs, paths per device, link rates
=====================================  =======  ==========================================

Workload model (assumptions, stated here once): one synchronous I/O stream per thread,
each on its own disk (so no subchannel queueing); one channel path (single path /
failover) unless stated; four iozone workloads — sequential write and read with
``SEQUENTIAL_BLOCK`` requests, random read and write with ``RANDOM_BLOCK`` requests.
Writes and sequential reads are cache hits in the storage server (NVS fast write,
sequential prefetch) with no disconnect time; a random read is a disk access: the
seek plus half a revolution of :class:`~zmodel.hardware.storage.DriveMechanics` (15k rpm
drives, data-sheet priors). The host
time per I/O (think time of the stream) is ``host_time`` plus, through the page cache,
a copy cost per byte; direct I/O removes the copy. The copy cost per byte is fixed from
a documented number: the Linux 2.6 dbench memory transfer rate of 3250 MB/s with 16
processors (ibmsj), i.e. 16 / 3.25e9 s per byte of one CPU.

Fitted parameters: the per-I/O channel time of FICON and of FCP, the FCP adapter data
path cap (a FICON Express card in FCP mode), the host time per I/O and the multibus
path-selection time; with their public specifications as priors (module
:mod:`zmodel.calibration`, "Priors"), the FICON and the FCP per-I/O times, the 2 and 4 Gbit/s
link data rates and the drives' seek and revolution times. The report's [[Priors]] section
says where the documents pull a value outside its specification's 95 % interval. Held near
IBM's published FCP rate (about 31,700 I/O/s on a z9, since 2026-11-27), the FCP channel time
no longer carries the deck's 40 % FCP advantage on random I/O alone: the host time per I/O of
an iozone stream rises from about 0.6 to 2.5 ms (declared 100 us) and the FICON average 4G/2G
gain falls from 1.35 to 1.27 for 1.6 -- the streams are slower than the channels for a reason
the model does not have. The
4G/2G comparison is read as running on the same machine with the same channel cards, so only
the link data rate changes between 2 and 4 Gbit/s. That is a reading: the deck's hardware
slide ("Our hardware for measurements") lists a z990 (0.83 ns cycle, FICON-Express2) and a
z9-109 (0.58 ns, FICON-Express4), an ESS 800 with 2 Gbps and a DS8300 with 4 Gbps links, and
the configuration slide of the 4 Gbit/s measurements is a picture, not text. Read instead
with the 2 Gbit/s rows on the z990 (host time per I/O, page-cache copy included, 0.83/0.58
times longer; nothing else changed), the refit gives a FICON average gain of 1.47 for 1.6
(-8 %, against -21 %) with a host time of 1.7 ms and chi-square 0.0070 (2026-11-27, not
adopted: the choice between readings would then rest on this one figure). The reading is the
suspect of the missed 20 % target; a text of the configuration slide would settle it.

Examples
--------
>>> model = ChannelModel()
>>> p = model.parameters().valuesdict()
>>> gain = model.predict("wavv08.ficon-4g-seqread-gain", p)   # best 4G/2G ratio, seq. read
>>> bool(1.0 < gain.value <= 2.0)
True
"""
from __future__ import annotations

import math

import numpy as np

from zmodel.fits import Calibration
from zmodel.calibration import Model, Parameters, PercentChange, Ratio, to_dataclass
from zmodel.hardware import catalog
from zmodel.hardware.channels import (
    MAX_CHPIDS,
    MAX_DEVICES,
    MAX_PATHS_PER_DEVICE,
    ChannelLink,
    ChannelParameters,
    ChannelSubsystem,
)
from zmodel.hardware.storage import DriveMechanics

__all__ = ["ChannelModel", "calibrate_channels", "CHANNEL_IDS", "THREADS", "WORKLOADS"]

from zmodel.units import KiB as KB
#: iozone thread counts of the deck ("1, 2, 4, 8, 16, 32, 64 threads").
THREADS = np.array([1, 2, 4, 8, 16, 32, 64])
#: Request size of sequential I/O after merging (assumption: 128 KB, Linux max request) [B].
SEQUENTIAL_BLOCK = 128 * KB
#: Request size of random I/O (assumption: one 4 KB page) [B].
RANDOM_BLOCK = 4 * KB
#: Host CPU time per byte of a page-cache copy: 16 CPUs / 3250 MB/s (ibmsj dbench, Linux 2.6) [s/B].
COPY_TIME_PER_BYTE = 16 / 3250e6
#: workload -> (block size [B], read fraction [1], disk accesses per I/O [1]: a random read misses the cache)
WORKLOADS = {
    "seq_write": (SEQUENTIAL_BLOCK, 0.0, 0.0),
    "seq_read": (SEQUENTIAL_BLOCK, 1.0, 0.0),
    "rand_read": (RANDOM_BLOCK, 1.0, 1.0),
    "rand_write": (RANDOM_BLOCK, 0.0, 0.0),
}

#: Parameters of :class:`~zmodel.hardware.channels.ChannelParameters` this fit varies (all of them).
FREE = ("ficon_command_time", "fcp_command_time", "fcp_adapter_rate", "host_time", "multipath_cpu_time",
        "data_rate_2g", "data_rate_4g")
#: Parameters of :class:`~zmodel.hardware.storage.DriveMechanics` this fit varies (both, with their priors).
FREE_DRIVE = ("average_seek", "revolution_time")
#: Link-rate configuration rows -> catalog link name.
_LINK_ROWS = {
    "wavv08.ess-fcp-link": "FCP-2G", "wavv08.ess-ficon-link": "FICON-2G",
    "wavv08.ds8300-fcp-link": "FCP-4G", "wavv08.ds8300-ficon-link": "FICON-4G",
    "wavv08.cfg-4gbps": "FICON-4G", "wavv08.ficon-compare-4g": "FICON-4G",
    "wavv08.ficon-compare-2g": "FICON-2G", "wavv08.ficon-fcp-compare-4g": "FCP-4G",
    "fs03.ficon-link-speed": "FICON-1G",
}
#: Every catalog row this calibration predicts or checks.
CHANNEL_IDS = (
    "ibmsj.css-channel-paths", "ibmsj.css-max-devices", "ibmsj.chpids-per-device-max",
    "ibmsj.subchannel-devno-one-to-one",
    *_LINK_ROWS,
    "wavv08.ficon-4g-avg-gain", "wavv08.ficon-4g-seqread-gain", "wavv08.fcp-4g-seqread-gain",
    "wavv08.fcp-random-gain", "wavv08.directio-fcp-gain", "wavv08.directio-ficon-gain",
    "wavv08.multipath-cost-low", "wavv08.multipath-cost-high",
    "wavv08.multipath-failover", "wavv08.fcp-4g-moderate", "wavv08.ficon-fcp-seqwrite-similar",
    "wavv08.directio-fcp-reads-faster",
)


class ChannelModel(Model):
    """The iozone-on-z9 channel scenario of the WAVV 2008 deck as a calibratable model.

    Parameters are SI; predictors and shape checks are registered for :data:`CHANNEL_IDS`.
    """

    name = "channels (FICON/FCP, WAVV 2008 iozone)"

    def __init__(self):
        super().__init__()
        for id_, link in _LINK_ROWS.items():
            self.add_predictor(id_, lambda p, link=link: catalog.component("links", link)["link_rate"] / 1e9)
        self.add_predictor("ibmsj.css-channel-paths", lambda p: MAX_CHPIDS)
        self.add_predictor("ibmsj.css-max-devices", lambda p: MAX_DEVICES)
        self.add_predictor("ibmsj.chpids-per-device-max", lambda p: MAX_PATHS_PER_DEVICE)
        # subchannels per device number of a device without PAV aliases
        self.add_predictor("ibmsj.subchannel-devno-one-to-one",
                           lambda p: 1 + self.subsystem(p, "FICON", 4).aliases)
        self.add_predictor("wavv08.ficon-4g-seqread-gain", lambda p: self._best_gain(p, "FICON", "seq_read"))
        self.add_predictor("wavv08.fcp-4g-seqread-gain", lambda p: self._best_gain(p, "FCP", "seq_read"))
        self.add_predictor("wavv08.ficon-4g-avg-gain", lambda p: self.average_gain(p, "FICON"))
        self.add_predictor("wavv08.fcp-random-gain", self._random_gain)
        self.add_predictor("wavv08.directio-fcp-gain", lambda p: self.direct_io_gain(p, "FCP"))
        self.add_predictor("wavv08.directio-ficon-gain", lambda p: self.direct_io_gain(p, "FICON"))
        self.add_range("wavv08.multipath-cost-low", "wavv08.multipath-cost-high", self.multipath_cost)
        self.add_check("wavv08.multipath-failover", self._failover_better)
        self.add_check("wavv08.fcp-4g-moderate",
                       lambda p: 1.0 < self.average_gain(p, "FCP") < self.average_gain(p, "FICON"))
        self.add_check("wavv08.ficon-fcp-seqwrite-similar", self._seqwrite_similar)
        self.add_check("wavv08.directio-fcp-reads-faster", self._direct_reads_faster)

    def parameters(self) -> Parameters:
        """Calibratable parameters, declared in :class:`~zmodel.hardware.channels.ChannelParameters` and
        :class:`~zmodel.hardware.storage.DriveMechanics` (priors included)."""
        ps = Parameters.from_dataclass(ChannelParameters, free=FREE)
        for p in Parameters.from_dataclass(DriveMechanics, free=FREE_DRIVE).values():
            ps[p.name] = p
        return ps

    # ------------------------------------------------------------------ components
    @staticmethod
    def costs(p) -> ChannelParameters:
        """The channel parameters at the fit's values ``p``."""
        return to_dataclass(ChannelParameters, p)

    def link(self, p, protocol: str, gbit: int) -> ChannelLink:
        """The catalog link of ``protocol`` at ``gbit`` Gbit/s with the fitted channel times."""
        return self.costs(p).link(protocol, gbit)

    def subsystem(self, p, protocol: str, gbit: int, multibus: bool = False) -> ChannelSubsystem:
        """One device group: single path, or two paths in multibus mode."""
        return self.costs(p).subsystem(protocol, gbit, multibus)

    def data_rate(self, p, protocol: str, gbit: int, workload: str, direct: bool = False,
                  multibus: bool = False) -> np.ndarray:
        """iozone throughput at each of :data:`THREADS` [B/s]."""
        return self.curves(p, protocol, gbit, multibus)[(workload, direct)].copy()

    def curves(self, p, protocol: str, gbit: int, multibus: bool = False) -> dict:
        """(workload, direct) -> throughput at each of :data:`THREADS` [B/s], all in one batched MVA.

        Memoised per parameter values (:meth:`~zmodel.calibration.Model.memo`): the
        predictors of several rows share these curves at each optimiser step.
        """
        key = ("curves", protocol, gbit, multibus) + tuple(sorted(p.items()))
        return self.memo(key, lambda: self._curves(p, protocol, gbit, multibus))

    def _curves(self, p, protocol, gbit, multibus) -> dict:
        cases = [(w, direct) for w in WORKLOADS for direct in (False, True)]
        block = np.array([WORKLOADS[w][0] for w, _ in cases], dtype=float)[:, None]
        reads = np.array([WORKLOADS[w][1] for w, _ in cases], dtype=float)[:, None]
        access = to_dataclass(DriveMechanics, p).random_access_time
        disconnect = np.array([WORKLOADS[w][2] * access for w, _ in cases], dtype=float)[:, None]
        host = self.costs(p).host_time + np.where([d for _, d in cases], 0.0, block[:, 0] * COPY_TIME_PER_BYTE)[:, None]
        css = self.subsystem(p, protocol, gbit, multibus)
        rate = np.asarray(css.throughput(THREADS, block, reads, disconnect, host).data_rate)
        return {case: rate[i] for i, case in enumerate(cases)}

    # ------------------------------------------------------------------ predictions
    def _best_gain(self, p, protocol, workload) -> Ratio:
        fast, slow = self.data_rate(p, protocol, 4, workload), self.data_rate(p, protocol, 2, workload)
        best = int(np.argmax(fast / slow))
        return Ratio(fast[best], slow[best])

    def average_gain(self, p, protocol) -> float:
        """Mean 4G/2G throughput ratio over the four workloads and the thread counts [1]."""
        return float(np.mean([self.data_rate(p, protocol, 4, w) / self.data_rate(p, protocol, 2, w)
                              for w in WORKLOADS]))

    def _random_gain(self, p) -> PercentChange:
        ficon = sum(self.data_rate(p, "FICON", 4, w).sum() for w in ("rand_read", "rand_write"))
        fcp = sum(self.data_rate(p, "FCP", 4, w).sum() for w in ("rand_read", "rand_write"))
        return PercentChange(ficon, fcp)

    def direct_io_gain(self, p, protocol) -> float:
        """Best direct-I/O over page-cache throughput ratio at 4G, over workloads and threads [1]."""
        return float(max(np.max(self.data_rate(p, protocol, 4, w, direct=True)
                                / self.data_rate(p, protocol, 4, w)) for w in WORKLOADS))

    def multipath_cost(self, p) -> float:
        """Extra host time per I/O of multibus over single path, mean over the workloads [%]."""
        c = self.costs(p)
        host = np.mean([c.host_time + WORKLOADS[w][0] * COPY_TIME_PER_BYTE for w in WORKLOADS])
        return 100.0 * c.multipath_cpu_time / host

    def _failover_better(self, p) -> bool:
        # a single stream cannot use a second path: multibus only adds path selection
        return all(self.data_rate(p, "FCP", 4, w)[0] >= self.data_rate(p, "FCP", 4, w, multibus=True)[0]
                   for w in WORKLOADS)

    def _seqwrite_similar(self, p) -> bool:
        ratio = self.data_rate(p, "FCP", 4, "seq_write") / self.data_rate(p, "FICON", 4, "seq_write")
        return bool(abs(float(np.mean(ratio)) - 1.0) <= 0.15)

    def _direct_reads_faster(self, p) -> bool:
        return all(np.mean(self.data_rate(p, "FCP", 4, w, direct=True))
                   > 1.1 * np.mean(self.data_rate(p, "FICON", 4, w, direct=True))
                   for w in ("seq_read", "rand_read"))


#: the calibration (registered in zmodel.fits.registry)
CALIBRATION = Calibration(
    area="channels", layer="hardware", order=1, model=ChannelModel, rows=CHANNEL_IDS,
    title="Channel subsystem: FICON and FCP at 2 and 4 Gbit/s, direct I/O, multipathing (WAVV 2008)")
calibrate_channels = CALIBRATION.run
