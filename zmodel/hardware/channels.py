r"""The channel subsystem: channel paths (CHPIDs), subchannels, ESCON/FICON/FCP links, multipath, PAV.

On zSeries every device is reached through the channel subsystem: it "offers 256 channel
paths (each identified by a channel path ID, or CHPID) and can drive up to 65,535
devices. Each device is attached to the zSeries by using up to eight CHPIDs", and there
is a one-to-one relation between subchannels and device numbers (ibmsj, section
"New device model", seed 000_bf0694975d199a2d.txt). A subchannel runs one I/O at a
time; Parallel Access Volume (PAV) aliases give an ECKD volume extra subchannels.

This module turns the parameters of a link technology and of a path configuration into
service demands and calls :mod:`zmodel.queueing`:

* :class:`ChannelLink` — one channel technology: effective data rate per direction, the
  per-I/O channel (command) time, duplex, and how many I/Os it multiplexes. ESCON is
  circuit switched and half duplex: the channel is held by one I/O for its command and
  its whole data transfer (a single-server FCFS station). FICON and FCP multiplex many
  concurrent I/Os (open exchanges) over a full-duplex link: the per-I/O command
  processing is a single-server station (the channel processor) and each link direction
  is a processor-sharing station whose capacity is the data rate.
* :class:`ChannelCard` — a FICON card generation (FICON Express ... Express8S) from
  ``zmodel/_data/hardware/channel_cards.csv``: command-mode and zHPF (transport-mode)
  I/O-rate limits of one channel, its data rate over both directions, the feature bus;
  :meth:`ChannelCard.link` builds the :class:`ChannelLink` of one of its channels.
* :class:`ChannelSubsystem` — a device group reached over ``paths`` channel paths,
  used as ``"failover"`` (one active path, the others standby) or ``"multibus"`` (I/O
  spread over all paths, each I/O paying a host path-selection time); with ``aliases``
  PAV aliases per device (static) or pooled per control unit (HyperPAV). It predicts the z/OS RMF decomposition of the I/O response
  time (IOSQ, pending, disconnect, connect) for an open load, the closed-loop
  throughput of a number of synchronous I/O streams, and the maximum I/O rate and
  data rate of the channels.

References
----------
.. [1] C. Bornträger, M. Schwidefsky, "Linux 2.6 on zSeries", IBM Systems Journal
   44(2), 2005 (seed ibmsj): channel subsystem, CHPIDs, subchannels.
.. [2] IBM, *z/OS Resource Measurement Facility Report Analysis*, SC33-7991, "DASD
   Activity report" (IOSQ, PEND, DISC, CONN time; section not re-verified).
.. [3] E. D. Lazowska, J. Zahorjan, G. S. Graham, K. C. Sevcik, *Quantitative System
   Performance*, Prentice Hall 1984, ch. 10 "Disk I/O" (channel contention and path
   selection in queueing models; page not re-verified).
.. [4] L. Kleinrock, *Queueing Systems, Vol. 2: Computer Applications*, Wiley 1976,
   §4.4 (processor sharing: mean response :math:`S/(1-\rho)` for any service law).
.. [5] IBM Redbook SG24-5444, *IBM System z Connectivity Handbook*, ESCON and FICON
   chapters (ESCON 17 MB/s half duplex, one I/O per channel; FICON full duplex,
   concurrent I/Os).

Examples
--------
>>> from zmodel.hardware.channels import ChannelLink, ChannelSubsystem
>>> ficon = ChannelLink.from_catalog("FICON-4G", command_time=100e-6)
>>> round(ficon.max_io_rate(4096, read_fraction=1.0))       # command bound: 1/100 us
10000
>>> round(ficon.max_data_rate(1 << 20, read_fraction=1.0) / 1e6)   # link bound
400
>>> css = ChannelSubsystem(ficon, paths=2, multipath="multibus", devices=32)
>>> r = css.response_time(io_rate=2000.0, block_size=4096, disconnect_time=0.002)
>>> round(r.response_time * 1e3, 3) == round((r.iosq_time + r.pending_time
...                                            + r.disconnect_time + r.connect_time) * 1e3, 3)
True
"""
from __future__ import annotations

import contextlib
import dataclasses
import math
from typing import Any, ClassVar

import numpy as np

from zmodel.queueing import mm1, mmc, mva
from zmodel.queueing._params import param, prior
from zmodel.queueing._result import Result
from zmodel.conventions import (
    as_count, as_float_array, as_int_array, as_probability, as_scalar, check_fields, quiet_saturation,
    vectorized,
)

__all__ = [
    "MAX_CHPIDS",
    "MAX_DEVICES",
    "MAX_PATHS_PER_DEVICE",
    "IO_MODES",
    "PAV_MODES",
    "PROTOCOLS",
    "ChannelCard",
    "ChannelLink",
    "ChannelParameters",
    "ChannelSubsystem",
    "ClosedIOResult",
    "IOResponse",
]

#: Channel paths of one channel subsystem (ibmsj: "offers 256 channel paths").
MAX_CHPIDS = 256
#: Channel paths per device (ibmsj: "up to eight CHPIDs").
MAX_PATHS_PER_DEVICE = 8
#: Devices one channel subsystem can drive (ibmsj, printed "up to 65,535 devices").
MAX_DEVICES = 65535
#: Link protocols modelled.
PROTOCOLS = ("ESCON", "FICON", "FCP")
#: Multipath modes: one active path with standbys, or I/O spread over all paths.
MULTIPATH_MODES = ("failover", "multibus")
#: Channel-program modes of a FICON channel: command mode (FICON) and transport mode (zHPF).
IO_MODES = ("command", "transport")
#: PAV flavours: static aliases bound to one base device, or HyperPAV aliases pooled per control unit.
PAV_MODES = ("static", "hyper")




# --------------------------------------------------------------------------- link
@dataclasses.dataclass(frozen=True)
class ChannelLink:
    r"""One channel technology (ESCON, FICON or FCP at a given link speed), SI parameters.

    Parameters
    ----------
    protocol : {"ESCON", "FICON", "FCP"}
        Channel protocol.
    data_rate : float
        Effective payload rate of the link per direction, positive [B/s].
    command_time : float
        Per-I/O channel overhead: channel-processor time to start, run the protocol
        exchange and end one I/O, independent of its size, >= 0 [s].
    directions : int, default 2
        1 for a half-duplex link (ESCON: reads and writes share the link), 2 for full
        duplex (FICON, FCP: inbound and outbound data travel independently) [1].
    concurrency : float, default inf
        I/Os the channel multiplexes (open exchanges); 1 means circuit switched (ESCON),
        > 1 a multiplexing channel whose link is a processor-sharing station [1].
    adapter_rate : float, default inf
        Cap of the channel adapter's data path, below the link rate when the card rather
        than the fibre limits a protocol [B/s].
    link_rate : float, default nan
        Nominal link rate, informational [bit/s].
    name : str, default ""
        Catalog name.
    mode : {"command", "transport"}, default "command"
        FICON channel-program mode: ``"command"`` (CCW chains, the FICON protocol) or
        ``"transport"`` (zHPF: one transport control word per I/O); FCP and ESCON use
        ``"command"`` (their own per-I/O time is ``command_time``).
    transport_time : float, default nan
        Per-I/O channel-processor time in transport mode (zHPF), >= 0; nan when the card
        has no zHPF support [s].
    channel_rate : float, default inf
        Bytes per second the channel (card processor / data router) moves over both
        directions together; ``inf``: not a limit [B/s].

    Notes
    -----
    The per-I/O channel time is :math:`t_c` = ``command_time`` in command mode and
    ``transport_time`` in transport mode (zHPF reduces the information units the
    channel processes per I/O, IBM "FICON performance" web page, 2012; IBM
    zHPF overview, z/VM 6.2 documentation "Overview of zHPF Support").
    The effective data rate is :math:`r = \min(\text{data\_rate}, \text{adapter\_rate})`.
    An I/O of ``block_size`` B bytes, a fraction f of which are reads, demands per
    channel path (Lazowska et al. 1984, ch. 10; [5] for the ESCON/FICON contrast):

    * circuit switched (concurrency 1): one station, :math:`D = t_c + B/r`;
    * multiplexed: channel processor :math:`D_c = t_c`, the channel's data path
      :math:`D_{dp} = B/r_{ch}` (``channel_rate``, shared by both directions, so a
      read/write mix saturates at :math:`r_{ch}` in total however the bytes split; a
      station of its own, as the FICON Express8S hardware data router moves data
      beside the channel processor: :meth:`data_path_demand`), inbound link
      :math:`D_{in} = f B / r` and outbound link :math:`D_{out} = (1-f) B / r` when full
      duplex (one shared direction :math:`B/r` when half duplex).

    The bottleneck law gives the maximum I/O rate :math:`X_{max} = 1/\max_k D_k`
    (Lazowska et al. 1984, §5.2), the maximum data rate :math:`B X_{max}`.

    Examples
    --------
    >>> escon = ChannelLink("ESCON", data_rate=17e6, command_time=0.0, directions=1, concurrency=1)
    >>> round(escon.max_data_rate(65536) / 1e6, 6)
    17.0
    >>> fcp = ChannelLink("FCP", data_rate=400e6, command_time=50e-6, adapter_rate=250e6)
    >>> round(fcp.max_data_rate(1 << 20, read_fraction=0.5) / 1e6)     # 250 MB/s each way
    500
    """

    protocol: str
    data_rate: float
    command_time: float
    directions: int = 2
    concurrency: float = math.inf
    adapter_rate: float = math.inf
    link_rate: float = math.nan
    name: str = ""
    mode: str = "command"
    transport_time: float = math.nan
    channel_rate: float = math.inf

    def __post_init__(self):
        if self.protocol not in PROTOCOLS:
            raise ValueError(f"protocol must be one of {list(PROTOCOLS)}, got {self.protocol!r}")
        object.__setattr__(self, "data_rate", as_scalar("data_rate", self.data_rate, positive=True))
        object.__setattr__(self, "command_time", as_scalar("command_time", self.command_time))
        object.__setattr__(self, "directions", as_count("directions", self.directions, 1, 2))
        c = float(self.concurrency)
        if math.isnan(c) or c < 1 or (math.isfinite(c) and c != round(c)):
            raise ValueError(f"concurrency must be a positive integer or math.inf, got {self.concurrency!r}")
        object.__setattr__(self, "concurrency", c)
        object.__setattr__(self, "adapter_rate", as_scalar("adapter_rate", self.adapter_rate,
                                                                positive=True, allow_inf=True))
        if self.mode not in IO_MODES:
            raise ValueError(f"mode must be one of {list(IO_MODES)}, got {self.mode!r}")
        t = float(self.transport_time)
        if not math.isnan(t):
            t = as_scalar("transport_time", t)
        object.__setattr__(self, "transport_time", t)
        if self.mode == "transport" and (self.protocol != "FICON" or math.isnan(t)):
            raise ValueError("mode 'transport' (zHPF) needs a FICON link with a transport_time, got "
                             f"protocol {self.protocol!r} and transport_time {self.transport_time!r}")
        object.__setattr__(self, "channel_rate", as_scalar("channel_rate", self.channel_rate,
                                                                positive=True, allow_inf=True))
        if self.protocol == "ESCON" and (self.directions != 1 or c != 1):
            raise ValueError("an ESCON link is half duplex and circuit switched: directions and "
                             f"concurrency must be 1, got {self.directions} and {self.concurrency!r}")

    @classmethod
    def from_catalog(cls, name: str, *, command_time: float | None = None, data_dir=None,
                     **overrides) -> "ChannelLink":
        """Build a link from ``zmodel/_data/hardware/links.csv`` (values in SI, converted once there).

        Parameters
        ----------
        name : str
            Catalog name or alias, e.g. ``"FICON-4G"`` or ``"FCP (2 Gbps)"``.
        command_time : float, optional
            Per-I/O channel overhead [s]; default ``1/max_io_rate`` when the catalog
            gives a maximum I/O rate for this link, else it must be given.
        data_dir : path-like, optional
            Folder holding ``hardware/``.
        **overrides
            Any other constructor field (e.g. ``adapter_rate``, ``concurrency``).

        Returns
        -------
        ChannelLink
        """
        from zmodel.hardware import catalog

        spec = catalog.component("links", name, data_dir=data_dir)
        canonical = catalog.canonical_name("links", name, data_dir=data_dir)
        protocol = next((p for p in PROTOCOLS if canonical.upper().startswith(p)), None)
        if protocol is None:
            raise ValueError(f"link {canonical!r}: cannot tell its protocol from the name "
                             f"(expected a prefix among {list(PROTOCOLS)})")
        if command_time is None:
            if "max_io_rate" not in spec:
                raise ValueError(f"command_time must be given for link {canonical!r} "
                                 "(the catalog has no max_io_rate for it)")
            command_time = 1.0 / spec["max_io_rate"]
        fields = dict(protocol=protocol, data_rate=spec["data_rate"], command_time=command_time,
                      directions=int(spec.get("directions", 2)),
                      concurrency=spec.get("concurrent_ios", math.inf),
                      link_rate=spec.get("link_rate", math.nan), name=canonical)
        fields.update(overrides)
        return cls(**fields)

    @property
    def per_io_time(self) -> float:
        """Channel-processor time per I/O in the link's mode: command or transport (zHPF) [s]."""
        return self.transport_time if self.mode == "transport" else self.command_time

    @property
    def circuit_switched(self) -> bool:
        """True when the channel carries one I/O at a time (ESCON)."""
        return self.concurrency == 1

    @property
    def effective_rate(self) -> float:
        """Data rate per direction after the adapter cap, ``min(data_rate, adapter_rate)`` [B/s]."""
        return min(self.data_rate, self.adapter_rate)

    @vectorized
    def transfer_time(self, block_size):
        """Time to move ``block_size`` bytes at the effective rate, ``B / r`` [s].

        Parameters
        ----------
        block_size : float or array_like
            Bytes per I/O, positive [B].

        Returns
        -------
        float or ndarray
            Transfer time [s].
        """
        b = as_float_array("block_size", block_size, positive=True)
        return b / self.effective_rate

    @vectorized
    def demands(self, block_size, read_fraction=1.0) -> np.ndarray:
        """Per-I/O service demands on one path: [channel processor, inbound link, outbound link] [s].

        Parameters
        ----------
        block_size : float or array_like
            Bytes per I/O, positive [B].
        read_fraction : float or array_like, default 1
            Fraction of I/Os (bytes) that are reads, in [0, 1] [1].

        Returns
        -------
        ndarray
            Shape ``broadcast + (3,)``. A circuit-switched link puts its whole demand on
            the first station; a half-duplex multiplexed link puts all data on the second.
        """
        b = as_float_array("block_size", block_size, positive=True)
        f = as_probability("read_fraction", read_fraction)
        b, f = np.broadcast_arrays(b, f)
        transfer = b / self.effective_rate
        zero = np.zeros_like(transfer)
        t_c = self.per_io_time + zero
        if self.circuit_switched:
            cols = (t_c + transfer, zero, zero)
        elif self.directions == 1:
            cols = (t_c, transfer, zero)
        else:
            cols = (t_c, f * transfer, (1.0 - f) * transfer)
        return np.stack(cols, axis=-1)

    @vectorized
    def data_path_demand(self, block_size):
        """Per-I/O demand on the channel's data path, ``B / channel_rate`` (0 when not a limit) [s].

        Parameters
        ----------
        block_size : float or array_like
            Bytes per I/O, positive [B].

        Returns
        -------
        ndarray
            [s]
        """
        b = as_float_array("block_size", block_size, positive=True)
        return b / self.channel_rate

    def _all_demands(self, block_size, read_fraction):
        d = self.demands(block_size, read_fraction)
        dp = np.broadcast_to(self.data_path_demand(block_size), d.shape[:-1])
        return np.concatenate([d, dp[..., None]], axis=-1)

    @vectorized
    def max_io_rate(self, block_size, read_fraction=1.0):
        """Maximum I/O rate of one channel path (bottleneck law) [1/s].

        Parameters
        ----------
        block_size : float or array_like
            Bytes per I/O, positive [B].
        read_fraction : float or array_like, default 1
            Fraction of reads, in [0, 1] [1].

        Returns
        -------
        float or ndarray
            :math:`1 / \\max_k D_k` [1/s].
        """
        d = self._all_demands(block_size, read_fraction)
        return 1.0 / d.max(axis=-1)

    @vectorized
    def max_data_rate(self, block_size, read_fraction=1.0):
        """Maximum data rate of one channel path, ``block_size * max_io_rate`` [B/s].

        Parameters
        ----------
        block_size : float or array_like
            Bytes per I/O, positive [B].
        read_fraction : float or array_like, default 1
            Fraction of reads, in [0, 1] [1].

        Returns
        -------
        float or ndarray
            [B/s]
        """
        b = as_float_array("block_size", block_size, positive=True)
        d = self._all_demands(block_size, read_fraction)
        return np.broadcast_to(b, d.shape[:-1]) / d.max(axis=-1)


# --------------------------------------------------------------------------- card
@dataclasses.dataclass(frozen=True)
class ChannelCard:
    r"""A FICON channel card generation (FICON Express, Express2, Express4, Express8, Express8S).

    Limits of one channel (one CHPID / port) of the card, SI units; ``inf`` or ``nan``
    where no public figure was found (see ``zmodel/_data/hardware/channel_cards.csv``).

    Parameters
    ----------
    name : str
        Catalog name, e.g. ``"FICON-Express8S"``.
    max_link_rate : float
        Highest link rate the card negotiates [bit/s].
    command_io_rate : float, default nan
        Maximum I/O rate of one channel in command mode (FICON protocol, small blocks) [1/s].
    zhpf_io_rate : float, default nan
        Maximum I/O rate of one channel in transport mode (zHPF, small blocks); nan when
        the card has no zHPF [1/s].
    channel_rate : float, default inf
        Maximum data rate of one channel, reads plus writes [B/s].
    ports : int, default 0
        Channels per feature (0: not recorded) [1].
    feature_rate : float, default inf
        Data rate of the bus that feeds one feature (all its channels) [B/s].

    Examples
    --------
    >>> card = ChannelCard.from_catalog("FICON-Express8S")
    >>> round(card.zhpf_io_rate), round(card.channel_rate / 1e6)
    (92000, 1600)
    """

    name: str
    max_link_rate: float
    command_io_rate: float = math.nan
    zhpf_io_rate: float = math.nan
    channel_rate: float = math.inf
    ports: int = 0
    feature_rate: float = math.inf

    def __post_init__(self):
        if not isinstance(self.name, str) or not self.name:
            raise ValueError(f"name must be a non-empty string, got {self.name!r}")
        object.__setattr__(self, "max_link_rate", as_scalar("max_link_rate", self.max_link_rate, positive=True))
        for n in ("command_io_rate", "zhpf_io_rate"):
            v = float(getattr(self, n))
            if not math.isnan(v):
                v = as_scalar(n, v, positive=True)
            object.__setattr__(self, n, v)
        for n in ("channel_rate", "feature_rate"):
            object.__setattr__(self, n, as_scalar(n, getattr(self, n), positive=True, allow_inf=True))
        object.__setattr__(self, "ports", as_count("ports", self.ports, 0))

    @classmethod
    def from_catalog(cls, name: str, *, data_dir=None) -> "ChannelCard":
        """Build from ``zmodel/_data/hardware/channel_cards.csv`` (SI values, converted there).

        Parameters
        ----------
        name : str
            Catalog name or alias, e.g. ``"FICON Express4"``.
        data_dir : path-like, optional
            Folder holding ``hardware/``.

        Returns
        -------
        ChannelCard
        """
        from zmodel.hardware import catalog

        spec = catalog.component("channel_cards", name, data_dir=data_dir)
        return cls(name=catalog.canonical_name("channel_cards", name, data_dir=data_dir),
                   max_link_rate=spec["max_link_rate"],
                   command_io_rate=spec.get("command_io_rate", math.nan),
                   zhpf_io_rate=spec.get("zhpf_io_rate", math.nan),
                   channel_rate=spec.get("channel_rate", math.inf),
                   ports=int(spec.get("ports", 0)), feature_rate=spec.get("feature_rate", math.inf))

    @classmethod
    def rate_floor(cls, name: str, field: str = "command_io_rate", *, data_dir=None) -> tuple[float, str | None]:
        """A lower bound of a card's I/O rate (``field``: command mode or zHPF) where the catalog has none.

        The catalog lists the cards in the order IBM introduced them; a later generation's
        channel runs a protocol at least as fast as the one it superseded (each generation's
        own zHPF rate grows: 31000, 52000, 92000 I/O/s for Express4, Express8, Express8S), so
        the newest earlier card with a rate bounds it from below. A reading, not a figure: the
        planner lists it among the assumptions.

        Returns
        -------
        (float, str or None)
            The card's own rate and ``None`` when the catalog has one; else the bound and the
            card it comes from; ``(nan, None)`` when no earlier card has one [1/s].

        Examples
        --------
        >>> ChannelCard.rate_floor("FICON Express8")
        (14090.9, 'FICON-Express4')
        >>> ChannelCard.rate_floor("FICON Express4")
        (14090.9, None)
        >>> ChannelCard.rate_floor("FICON Express16S+", "zhpf_io_rate")
        (92000.0, 'FICON-Express8S')
        """
        from zmodel.hardware import catalog

        if field not in ("command_io_rate", "zhpf_io_rate"):
            raise ValueError(f"field must be 'command_io_rate' or 'zhpf_io_rate', got {field!r}")
        own = cls.from_catalog(name, data_dir=data_dir)
        if not math.isnan(getattr(own, field)):
            return getattr(own, field), None
        order = catalog.names("channel_cards", data_dir=data_dir)
        for earlier in reversed(order[:order.index(own.name)]):
            rate = getattr(cls.from_catalog(earlier, data_dir=data_dir), field)
            if not math.isnan(rate):
                return rate, earlier
        return math.nan, None

    def link(self, link_rate: float | None = None, *, mode: str = "command",
             command_time: float | None = None, **overrides) -> "ChannelLink":
        r"""A FICON :class:`ChannelLink` of this card at ``link_rate``.

        Parameters
        ----------
        link_rate : float, optional
            Negotiated link rate, at most ``max_link_rate`` (default) [bit/s].
        mode : {"command", "transport"}
            Channel-program mode (transport = zHPF).
        command_time : float, optional
            Per-I/O time in command mode; default ``1/command_io_rate`` [s].
        **overrides
            Other :class:`ChannelLink` fields.

        Returns
        -------
        ChannelLink

        Notes
        -----
        Payload per direction :math:`r = 0.8\,\text{link\_rate}/8` (8b/10b coding, as
        the link catalog's 100/200/400 MB/s at 1/2/4 Gbit/s); per-I/O times are the
        reciprocals of the card's maximum I/O rates (bottleneck law, Lazowska et al.
        1984, §5.2: a channel at 100 % busy on small blocks runs at
        :math:`1/t_c`).
        """
        rate = self.max_link_rate if link_rate is None else as_scalar("link_rate", link_rate, positive=True)
        if rate > self.max_link_rate:
            raise ValueError(f"link_rate must be at most the card's max_link_rate "
                             f"{self.max_link_rate:g} bit/s, got {rate:g}")
        if command_time is None:
            if math.isnan(self.command_io_rate):
                raise ValueError(f"command_time must be given for card {self.name!r} "
                                 "(the catalog has no command_io_rate for it)")
            command_time = 1.0 / self.command_io_rate
        fields = dict(protocol="FICON", data_rate=rate * 0.8 / 8.0, command_time=command_time,
                      mode=mode, transport_time=(1.0 / self.zhpf_io_rate), channel_rate=self.channel_rate,
                      link_rate=rate, name=f"{self.name} @ {rate / 1e9:g} Gbit/s")
        fields.update(overrides)
        return ChannelLink(**fields)


# --------------------------------------------------------------------------- results
@dataclasses.dataclass(frozen=True)
class IOResponse(Result):
    """I/O response time split as z/OS RMF reports it, for an open load.

    Attributes
    ----------
    iosq_time : float, ndarray or Series
        Time queued in the operating system before the start subchannel: waiting for
        the device's subchannel(s), plus the host path-selection time of multibus [s].
    pending_time : float, ndarray or Series
        From start subchannel to the start of data transfer: waiting for a channel
        path plus the channel command time [s].
    disconnect_time : float, ndarray or Series
        Time the storage server works without the channel (cache miss, destage) [s].
    connect_time : float, ndarray or Series
        Data transfer time, stretched by link sharing on multiplexed channels [s].
    response_time : float, ndarray or Series
        Sum of the four [s].
    channel_utilization : float, ndarray or Series
        Busy fraction of each active channel path's processor (ESCON: of the channel) [1].
    link_utilization : float, ndarray or Series
        Busy fraction of the busier link direction (or of the channel data path when
        ``channel_rate`` is finite) of each active path (0 for ESCON, whose transfer is
        counted in channel_utilization) [1].
    device_utilization : float, ndarray or Series
        Busy fraction of each subchannel of a device (base plus aliases) [1].
    throughput : float, ndarray or Series
        Completed I/Os per second, all devices [1/s].
    """

    iosq_time: Any
    pending_time: Any
    disconnect_time: Any
    connect_time: Any
    response_time: Any
    channel_utilization: Any
    link_utilization: Any
    device_utilization: Any
    throughput: Any

    trailing_dims: ClassVar[tuple[str, ...]] = ()


@dataclasses.dataclass(frozen=True)
class ClosedIOResult(Result):
    """Closed-loop throughput of synchronous I/O streams over a channel group.

    Attributes
    ----------
    throughput : float or ndarray
        I/Os completed per second [1/s].
    data_rate : float or ndarray
        Bytes moved per second, ``throughput * block_size`` [B/s].
    response_time : float or ndarray
        Mean I/O time, think (host) time excluded [s].
    channel_utilization : float or ndarray
        Busy fraction of each active channel path's processor [1].
    link_utilization : float or ndarray
        Busy fraction of the busier link direction of each active path [1].
    """

    throughput: Any
    data_rate: Any
    response_time: Any
    channel_utilization: Any
    link_utilization: Any

    trailing_dims: ClassVar[tuple[str, ...]] = ()


# --------------------------------------------------------------------------- subsystem
@dataclasses.dataclass(frozen=True)
class ChannelSubsystem:
    r"""A group of devices reached over ``paths`` channel paths of one link technology.

    Parameters
    ----------
    link : ChannelLink
        The channel technology of every path.
    paths : int, default 1
        Channel paths (CHPIDs) per device, 1..8 [1].
    multipath : {"failover", "multibus"}, default "failover"
        ``"failover"``: one active path, the others standby; ``"multibus"``: I/O spread
        over all paths (any free path serves), each I/O paying ``multipath_cpu_time``.
    multipath_cpu_time : float, default 0
        Host time per I/O for path selection in multibus mode, >= 0 [s].
    aliases : int, default 0
        PAV alias subchannels (ECKD on ESCON/FICON only), >= 0: per device when
        ``pav="static"``, one pool for all ``devices`` when ``pav="hyper"`` [1].
    devices : int, default 1
        Devices (volumes) sharing the paths, 1..65535 [1].
    pav : {"static", "hyper"}, default "static"
        ``"static"``: each device owns ``aliases`` alias subchannels; ``"hyper"``
        (HyperPAV): the aliases form one pool that any device of the group borrows
        for one I/O at a time.

    Notes
    -----
    Open load :math:`\lambda` spread evenly over the devices, active paths
    :math:`k = \text{paths}` (multibus) or 1 (failover). RMF decomposition [2], solved as
    a two-level decomposition (Lazowska et al. 1984, ch. 10):

    * pending: the channel processor (ESCON: the whole channel) is an M/M/k station
      with service :math:`D_c`: :math:`T_{pend} = W_q(M/M/k) + t_c`;
    * connect: a multiplexed link is a processor-sharing station per path and direction,
      :math:`T_{conn} = \sum_d D_d / (1 - \lambda D_d / k)` (PS mean response, Kleinrock
      Vol. 2 §4.4); with a card data-path limit (``channel_rate``) the data path is one more
      PS station moving the same bytes concurrently, so the connect time is the larger of
      the two (the slower end of a pipeline); ESCON: :math:`T_{conn} = B/r` (the wait is in
      pending);
    * disconnect: given by the storage server;
    * IOSQ: each device is an M/M/c station with :math:`c = 1 + \text{aliases}` servers
      (one active I/O per subchannel) and service :math:`T_{pend} + T_{disc} + T_{conn}`:
      :math:`T_{IOSQ} = W_q(M/M/c) + t_{mp}` with the multibus path-selection time.
      HyperPAV: a device's I/O runs on the device's own base subchannel or on any alias
      of the pool. Two relaxations each wait less than that: the whole group as one pool
      (:math:`c = \text{devices} + \text{aliases}` fed by :math:`\lambda`: every base
      usable by every device) and one device with the whole alias pool to itself
      (:math:`c = 1 + \text{aliases}` fed by :math:`\lambda/\text{devices}`: no other
      device competing for the aliases). The IOSQ time is the larger of the two waits, a
      lower bound on HyperPAV's; it is static PAV's exactly without aliases (nothing to
      pool) and with ``devices = 1``. Until 2026-11-27 it was the first relaxation alone,
      which with no aliases pooled the base subchannels of all devices and doubled the
      throughput of 64 volumes.
    * a closed population (:meth:`closed_iosq_time`): the device's subchannels are a
      finite-source M/M/c//N queue (every client a source), exact for the device given the
      time a client spends away from it; no I/O waits while :math:`N \le c`.

    Valid for Poisson arrivals and below saturation of every station (the library's
    saturation policy applies: infinite times, one warning per station). The
    decomposition treats the device and channel queues as independent (approximation).

    Examples
    --------
    >>> link = ChannelLink("FICON", data_rate=200e6, command_time=100e-6)
    >>> css = ChannelSubsystem(link, paths=4, multipath="multibus", devices=32)
    >>> round(css.max_io_rate(4096))
    40000
    """

    link: ChannelLink
    paths: int = 1
    multipath: str = "failover"
    multipath_cpu_time: float = 0.0
    aliases: int = 0
    devices: int = 1
    pav: str = "static"

    def __post_init__(self):
        if not isinstance(self.link, ChannelLink):
            raise ValueError(f"link must be a ChannelLink, got {type(self.link).__name__}")
        object.__setattr__(self, "paths", as_count("paths", self.paths, 1, MAX_PATHS_PER_DEVICE))
        if self.multipath not in MULTIPATH_MODES:
            raise ValueError(f"multipath must be one of {list(MULTIPATH_MODES)}, got {self.multipath!r}")
        object.__setattr__(self, "multipath_cpu_time",
                           as_scalar("multipath_cpu_time", self.multipath_cpu_time))
        object.__setattr__(self, "aliases", as_count("aliases", self.aliases, 0))
        if self.aliases and self.link.protocol == "FCP":
            raise ValueError("aliases (PAV) apply to ECKD devices on ESCON/FICON channels, "
                             f"got {self.aliases} on an FCP link")
        object.__setattr__(self, "devices", as_count("devices", self.devices, 1, MAX_DEVICES))
        if self.pav not in PAV_MODES:
            raise ValueError(f"pav must be one of {list(PAV_MODES)}, got {self.pav!r}")

    @property
    def active_paths(self) -> int:
        """Paths carrying I/O: all of them for multibus, one for failover [1]."""
        return self.paths if self.multipath == "multibus" else 1

    @property
    def path_selection_time(self) -> float:
        """Host time per I/O for multipath path selection (0 unless multibus) [s]."""
        return self.multipath_cpu_time if self.multipath == "multibus" else 0.0

    @vectorized
    def max_io_rate(self, block_size, read_fraction=1.0):
        """Maximum I/O rate over the active paths, ``k / max_k D_k`` [1/s].

        Parameters
        ----------
        block_size : float or array_like
            Bytes per I/O, positive [B].
        read_fraction : float or array_like, default 1
            Fraction of reads, in [0, 1] [1].

        Returns
        -------
        float or ndarray
            [1/s]
        """
        return self.active_paths * np.asarray(self.link.max_io_rate(block_size, read_fraction))

    @vectorized
    def max_data_rate(self, block_size, read_fraction=1.0):
        """Maximum data rate over the active paths [B/s].

        Parameters
        ----------
        block_size : float or array_like
            Bytes per I/O, positive [B].
        read_fraction : float or array_like, default 1
            Fraction of reads, in [0, 1] [1].

        Returns
        -------
        float or ndarray
            [B/s]
        """
        return self.active_paths * np.asarray(self.link.max_data_rate(block_size, read_fraction))

    @vectorized
    def response_time(self, io_rate, block_size, read_fraction=1.0, disconnect_time=0.0) -> IOResponse:
        """I/O response time and its RMF split for an open Poisson load.

        Parameters
        ----------
        io_rate : float or array_like
            I/Os per second offered to all devices together, >= 0 [1/s].
        block_size : float or array_like
            Bytes per I/O, positive [B].
        read_fraction : float or array_like, default 1
            Fraction of reads, in [0, 1] [1].
        disconnect_time : float or array_like, default 0
            Storage-server time per I/O without the channel, >= 0 [s].

        Returns
        -------
        IOResponse
            Times [s], utilizations [1], throughput [1/s]; Series when a Series came in.
        """
        lam = as_float_array("io_rate", io_rate)
        disc = as_float_array("disconnect_time", disconnect_time)
        d = self.link.demands(block_size, read_fraction)
        lam, disc = np.broadcast_arrays(lam, disc)
        shape = np.broadcast_shapes(lam.shape, d.shape[:-1])
        lam, disc = np.broadcast_to(lam, shape), np.broadcast_to(disc, shape)
        d = np.broadcast_to(d, shape + (3,))
        k = self.active_paths
        ch = mmc(lam, d[..., 0], servers=k)
        t_io = self.link.per_io_time
        pending = np.asarray(ch.waiting_time) + t_io
        if self.link.circuit_switched:
            connect = d[..., 0] - t_io
            link_util = np.zeros(shape)
        else:
            connect = np.zeros(shape)
            link_util = np.zeros(shape)
            dp = np.broadcast_to(self.link.data_path_demand(block_size), shape)
            d = np.concatenate([d, dp[..., None]], axis=-1)
            stretched = {}
            for col in (1, 2, 3):
                dem = d[..., col]
                has = dem > 0
                ps = mm1(np.where(has, lam / k, 0.0), np.where(has, dem, 1.0))
                stretched[col] = np.where(has, np.asarray(ps.response_time), 0.0)
                link_util = np.maximum(link_util, np.where(has, np.asarray(ps.utilization), 0.0))
            # the card's data path moves the same bytes as the link, at the same time (a pipeline, not
            # a stage after it): the transfer lasts as long as the slower of the two. Until 2026-11-27
            # the two were added, so a data-path limit that cannot bind (FICON Express8S's 1600 MB/s
            # behind an 800 MB/s direction) made every I/O slower than on a card without the figure
            connect = np.maximum(stretched[1] + stretched[2], stretched[3])
        busy = pending + disc + connect
        finite = np.isfinite(busy)
        # the channel already reported; the device queue's placeholder service time must not
        with quiet_saturation() if not finite.all() else contextlib.nullcontext():
            own = mmc(lam / self.devices, np.where(finite, busy, 1.0), servers=1 + self.aliases)
            wait = np.asarray(own.waiting_time, dtype=float)
            dev_util = np.asarray(own.utilization, dtype=float)
            if self.pav == "hyper":   # the larger of the two relaxations' waits (class notes)
                pool = mmc(lam, np.where(finite, busy, 1.0), servers=self.devices + self.aliases)
                wait = np.maximum(wait, np.asarray(pool.waiting_time, dtype=float))
                dev_util = np.asarray(pool.utilization, dtype=float)
        iosq = np.where(finite, wait, np.inf) + self.path_selection_time
        dev_util = np.where(finite, dev_util, 1.0)
        total = iosq + busy
        throughput = np.where(np.isfinite(total), lam, np.minimum(lam, np.asarray(ch.throughput)))
        out = dict(iosq_time=iosq, pending_time=pending, disconnect_time=disc + 0.0, connect_time=connect,
                   response_time=total, channel_utilization=np.asarray(ch.utilization),
                   link_utilization=link_util, device_utilization=dev_util, throughput=throughput)
        return IOResponse(**out)

    @vectorized
    def device_busy_time(self, io_rate, block_size, read_fraction=1.0, disconnect_time=0.0):
        """Time an I/O holds its subchannel: pending + disconnect + connect at ``io_rate`` [s].

        The service time of the device queue of :meth:`response_time` (``inf`` where a channel
        station saturates, quietly).
        """
        with quiet_saturation():
            r = self.response_time(io_rate, block_size, read_fraction, disconnect_time)
        return (np.asarray(r.pending_time, dtype=float) + np.asarray(r.disconnect_time, dtype=float)
                + np.asarray(r.connect_time, dtype=float))

    def max_device_io_rate(self, block_size, read_fraction=1.0, disconnect_time=0.0) -> float:
        r"""The I/O rate at which the devices' subchannels saturate (the IOSQ time of
        :meth:`response_time` turns infinite), for all devices together [1/s].

        The subchannel holding time grows with the load (channel queueing in pending and
        connect), so the rate solves :math:`\lambda S(\lambda) = c` per device (HyperPAV: the
        first of its two relaxations to saturate); found by bisection to a relative 1e-12,
        never above the channels' own maximum (:meth:`max_io_rate`).

        Examples
        --------
        >>> link = ChannelLink("FICON", data_rate=200e6, command_time=100e-6)
        >>> css = ChannelSubsystem(link, paths=4, multipath="multibus", devices=2)
        >>> round(css.max_device_io_rate(4096, disconnect_time=5e-3), 1)  # 2 / (5 ms + 100 us + 20.48 us)
        390.6
        """
        hi = float(np.ravel(self.max_io_rate(block_size, read_fraction))[0])

        def ok(lam):
            with quiet_saturation():
                r = self.response_time(lam, block_size, read_fraction, disconnect_time)
            return bool(np.isfinite(np.ravel(np.asarray(r.iosq_time, dtype=float))[0]))

        if ok(hi * (1 - 1e-12)):
            return hi
        lo = 0.0
        while hi - lo > 1e-12 * hi:
            mid = 0.5 * (lo + hi)
            lo, hi = (mid, hi) if ok(mid) else (lo, mid)
        return lo

    def closed_iosq_time(self, population, io_rate, block_size, read_fraction=1.0, disconnect_time=0.0,
                         iosq_time=0.0) -> float:
        r"""IOSQ time per I/O of ``population`` clients, each with at most one I/O in flight [s].

        Parameters
        ----------
        population : int
            Clients N, >= 1 [1].
        io_rate : float
            I/Os per second the clients complete together, >= 0 [1/s].
        block_size, read_fraction, disconnect_time
            As :meth:`response_time`.
        iosq_time : float, default 0
            The IOSQ time per I/O the clients currently see (the unknown of a fixed point
            :math:`W = f(W)`: a client's time away from a device includes its waits at the
            others) [s].

        Returns
        -------
        float
            ``f(iosq_time)``: the waiting time of the device's finite-source queue, plus the
            multibus path-selection time [s]; ``inf`` when a channel station saturates.

        Notes
        -----
        A client cycles through its I/Os at :math:`N/\lambda` per I/O; I/Os spread evenly over
        the devices, so it comes back to one device every :math:`\text{devices}\,N/\lambda`.
        Between two visits it is away (a think time in the finite-source sense)
        :math:`Z = \text{devices}\,N/\lambda - S - W` with :math:`S` the subchannel holding
        time (:meth:`device_busy_time`) and :math:`W` = ``iosq_time``; the device's
        :math:`c = 1 + \text{aliases}` subchannels are then an M/M/c//N queue
        (:func:`zmodel.queueing.machine_repairman`, exact for it), and no I/O waits while
        :math:`N \le c`. HyperPAV takes the larger wait of the two relaxations of the class
        notes (the whole group as one pool of :math:`\text{devices} + \text{aliases}`, away
        :math:`N/\lambda - S - W`; one device with every alias). Replaces the open M/M/c
        queue at the closed throughput (a decomposition without the finite population), which
        jumped from 0 to its open value at :math:`N = c + 1`: one more client lowered the
        throughput by 16 % (2026-11-27).
        """
        from zmodel.queueing import machine_repairman

        n = as_count("population", population, 1)
        lam = as_scalar("io_rate", io_rate)
        w = as_scalar("iosq_time", iosq_time)
        if lam == 0.0:
            return self.path_selection_time
        s = float(np.ravel(self.device_busy_time(lam, block_size, read_fraction, disconnect_time))[0])
        if not math.isfinite(s):
            return math.inf
        cycle = n / lam   # per I/O of one client

        def wait(away, servers):
            r = machine_repairman(n, max(away, 0.0), s, servers)
            return float(np.ravel(r.waiting_time)[0])

        out = wait(self.devices * cycle - s - w, 1 + self.aliases)
        if self.pav == "hyper":
            out = max(out, wait(cycle - s - w, self.devices + self.aliases))
        return out + self.path_selection_time

    @vectorized
    def throughput(self, population, block_size, read_fraction=1.0, disconnect_time=0.0,
                   think_time=0.0) -> ClosedIOResult:
        r"""Throughput of ``population`` synchronous I/O streams, one device each (closed MVA).

        Parameters
        ----------
        population : int or array_like
            Concurrent synchronous I/O streams (e.g. benchmark threads, one per disk), >= 0 [1].
        block_size : float or array_like
            Bytes per I/O, positive [B].
        read_fraction : float or array_like, default 1
            Fraction of reads, in [0, 1] [1].
        disconnect_time : float or array_like, default 0
            Storage-server time per I/O without the channel; the storage server is taken
            as having enough parallel resources to overlap streams (a delay station) [s].
        think_time : float or array_like, default 0
            Host time between an I/O's completion and the stream's next I/O (CPU path
            length, page-cache copy), >= 0; multibus adds its path-selection time [s].

        Returns
        -------
        ClosedIOResult

        Notes
        -----
        Stations: channel processor, inbound link, outbound link (each with k servers,
        k the active paths: any free path serves an I/O) and the storage server as a
        delay, solved by exact MVA (:func:`zmodel.queueing.mva`; Lazowska et al. 1984
        §6.4). Each stream has its own device, so no subchannel queueing arises
        (one active I/O per stream). PS and FCFS-exponential stations have the same
        product-form means (BCMP), so the multiplexed link is exact in this model.
        """
        n = as_int_array("population", population, minimum=0)
        z = as_float_array("think_time", think_time) + self.path_selection_time
        disc = as_float_array("disconnect_time", disconnect_time)
        b = as_float_array("block_size", block_size, positive=True)
        d = self.link.demands(block_size, read_fraction)
        if math.isfinite(self.link.channel_rate):  # the channel's data path as a fourth station
            d = self.link._all_demands(block_size, read_fraction)
        m = d.shape[-1]
        shape = np.broadcast_shapes(n.shape, z.shape, disc.shape, d.shape[:-1])
        demands = np.concatenate([np.broadcast_to(d, shape + (m,)),
                                  np.broadcast_to(disc, shape)[..., None]], axis=-1)
        k = self.active_paths
        r = mva(demands, np.broadcast_to(n, shape), np.broadcast_to(z, shape), servers=[k] * m + [math.inf])
        x = np.asarray(r.throughput, dtype=float)
        util = np.asarray(r.utilization, dtype=float)
        link_util = util[..., 0] * 0.0 if self.link.circuit_switched else util[..., 1:m].max(axis=-1)
        out = dict(throughput=x, data_rate=x * np.broadcast_to(b, shape), response_time=np.asarray(r.response_time),
                   channel_utilization=util[..., 0], link_utilization=link_util)
        return ClosedIOResult(**out)


# --------------------------------------------------------------------------- parameters
@dataclasses.dataclass(frozen=True)
class ChannelParameters:
    """Tunable per-I/O costs of a FICON or FCP channel path and of the host driving it.

    Each field declares its default, unit, plausible range and provenance once
    (:func:`zmodel.queueing._params.param`); :mod:`zmodel.fits.channels` derives its fit
    parameters from them and maps the fitted values back with ``to_dataclass``.

    Parameters
    ----------
    ficon_command_time : float
        Per-I/O channel time of a FICON channel in command mode [s].
    fcp_command_time : float
        Per-I/O channel time of an FCP channel [s].
    fcp_adapter_rate : float
        Data-path cap of a FICON Express card run in FCP mode [B/s].
    host_time : float
        Linux CPU time per I/O outside the page-cache copy (think time of a stream) [s].
    multipath_cpu_time : float
        dm-multipath path selection per I/O in multibus mode [s].
    data_rate_2g, data_rate_4g : float
        Payload data rate per direction of a 2 and a 4 Gbit/s FICON/FCP link [B/s]
        (the catalog's ``data_rate`` of FICON-2G/FCP-2G and FICON-4G/FCP-4G; 1 Gbit/s
        links keep the catalog value).

    Public specifications enter a fit as priors (``prior=`` of the declaration): the
    FICON per-I/O time (IBM's published FICON Express2 I/O rate), the FCP per-I/O time
    (IBM's published FICON Express4 FCP I/O rate on a z10 and its gain over the z9, from the
    z10 BC reference guide; IBM's FCP performance page prints only ratios in text) and the
    link data rates (the Fibre Channel physical-interface standards).

    Examples
    --------
    >>> c = ChannelParameters()
    >>> link = c.link("FCP", 4)
    >>> link.protocol, link.adapter_rate == c.fcp_adapter_rate
    ('FCP', True)
    >>> c.subsystem("FICON", 2, multibus=True).paths
    2
    """

    ficon_command_time: float = param(
        1.0 / 7200.0, unit="s", range=(5e-6, 1e-3),
        source="IBM eServer zSeries 990 product guide, 'FICON Express Channel Card Features - Performance': "
               "'up to 7200 I/O operations/sec (channel is 100% utilized)' at 1 Gbps (hardware catalog "
               "links.csv FICON-1G max_io_rate), so 1/7200 s per I/O",
        prior=prior(
            1.0 / 9000.0, factor=1.5,
            source="IBM Redbook SG24-7145, 'IBM TotalStorage DS6000 Series: Performance Monitoring and "
                   "Tuning' (IBM, 2005), ch. 3 p. 78: 'A single FICON Express2 channel can actually perform up "
                   "to about 9,000 read hit I/Os per second' (the WAVV 2008 z990 had FICON-Express2 channels, the "
                   "z9 FICON-Express4), so 1/9000 s per I/O. 95 % factor 1.5 (assumed), 6,000 to 13,500 I/O/s: it "
                   "holds the previous FICON Express card's published rates, 'up to 7,200 I/O operations/sec "
                   "(channel is 100% utilized)' at 1 Gbps on z990 (IBM eServer zSeries 990 product guide, "
                   "undated public copy manualsdump.com/en/manuals/116974/17) and 'in the range of 6,800 I/Os per "
                   "second or more per FICON Express channel' (IBM Redbook SG24-6786, 'The IBM TotalStorage "
                   "DS8000 Series: Concepts and Architecture', 2005, sec. 12.5.2 p. 270), and a card generation's "
                   "gain"))
    fcp_command_time: float = param(
        1.8 / 57000.0, unit="s", range=(5e-6, 1e-3),
        source="IBM System z10 Business Class reference guide, p. 22 'FCP - increased performance for small "
               "block sizes' (public copy manualsdump.com/en/manuals/116949/22): 'With FICON Express4, there may "
               "be up to 57,000 I/O operations per second (all reads, all writes, or a mix of reads and writes), "
               "an 80% increase compared to System z9', so 57,000 / 1.8 = 31,700 I/O/s on a z9, 1.8/57000 s per "
               "I/O (one channel, CHPID type FCP, laboratory)",
        prior=prior(
            1.8 / 57000.0, factor=1.5,
            source="IBM System z10 Business Class reference guide, p. 22 (public copy manualsdump.com/en/manuals/"
                   "116949/22): FICON Express4 in FCP mode 'up to 57,000 I/O operations per second ... an 80% "
                   "increase compared to System z9'; the WAVV 2008 4 Gbit/s FCP measurements ran on a z9-109 "
                   "with FICON-Express4, so 1.8/57000 s per I/O. 95 % factor 1.5 (assumed): the deck's hardware slide "
                   "also lists a z990 with FICON-Express2, whose FCP rate is not published (which machine ran the "
                   "2 Gbit/s rows is not in the text), and '80%' is rounded (IBM's "
                   "FCP performance page prints the same comparison as 90 %: a figure of the validation set, "
                   "not used here)"))
    fcp_adapter_rate: float = param(
        300e6, unit="B/s", range=(50e6, 2e9),
        source="assumed: an FCP data path of a few hundred MB/s on a FICON Express card (the card's STI bus "
               "is 333 MB/s for two channels, channel_cards.csv feature_rate); range: physical")
    host_time: float = param(
        100e-6, unit="s", range=(1e-6, 10e-3),
        source="assumed: Linux CPU time per I/O outside the copy (system call, block layer, driver, "
               "interrupt) of the order of 100 us; range: physical")
    multipath_cpu_time: float = param(
        20e-6, unit="s", range=(0.0, 1e-3),
        source="assumed: dm-multipath path selection per I/O in multibus mode, tens of microseconds")
    data_rate_2g: float = param(
        200e6, unit="B/s", range=(50e6, 212.5e6),
        source="links.csv FICON-2G / FCP-2G data_rate (IBM Redbook SG24-5444, FICON chapter: 200 MBps per "
               "direction); range: at most the 2.125 Gbaud line rate after 8b/10b coding (212.5 MB/s)",
        prior=prior(
            200e6, factor=1.1,
            source="ANSI INCITS 352-2002, Fibre Channel Physical Interfaces (FC-PI): the '200-MB/s' variant at "
                   "2.125 Gbaud; IBM Redbook SG24-7145, 'IBM TotalStorage DS6000 Series: Performance "
                   "Monitoring and Tuning' (IBM, 2005), ch. 2 p. 48: a 2 Gbps adapter 'provides a nominal "
                   "200 MB/s full-duplex data rate'. 95 % factor 1.1 (assumed): frame overhead and measured "
                   "maxima (SG24-6786 p. 270: 'up to 206 MB/sec per 2 Gbps FICON Express channel')"))
    data_rate_4g: float = param(
        400e6, unit="B/s", range=(100e6, 425e6),
        source="links.csv FICON-4G / FCP-4G data_rate (IBM Redbook SG24-5444, FICON chapter: 400 MBps per "
               "direction); range: at most the 4.25 Gbaud line rate after 8b/10b coding (425 MB/s)",
        prior=prior(
            400e6, factor=1.1,
            source="ANSI INCITS 404-2006, Fibre Channel Physical Interfaces-2 (FC-PI-2): the '400-MB/s' variant "
                   "at 4.25 Gbaud. 95 % factor 1.1 (assumed), as for 2 Gbit/s"))

    def __post_init__(self):
        check_fields(self)

    def link(self, protocol: str, gbit: int) -> ChannelLink:
        """The catalog link ``FICON-<gbit>G`` or ``FCP-<gbit>G`` with these channel times and data rates."""
        rate = {2: {"data_rate": self.data_rate_2g}, 4: {"data_rate": self.data_rate_4g}}.get(gbit, {})
        if protocol == "FICON":
            return ChannelLink.from_catalog(f"FICON-{gbit}G", command_time=self.ficon_command_time, **rate)
        return ChannelLink.from_catalog(f"FCP-{gbit}G", command_time=self.fcp_command_time,
                                        adapter_rate=self.fcp_adapter_rate, **rate)

    def subsystem(self, protocol: str, gbit: int, multibus: bool = False) -> ChannelSubsystem:
        """One device group on :meth:`link`: single path (failover), or two paths in multibus mode."""
        return ChannelSubsystem(self.link(protocol, gbit), paths=2 if multibus else 1,
                                multipath="multibus" if multibus else "failover",
                                multipath_cpu_time=self.multipath_cpu_time)
