r"""Network adapters: OSA-Express2 1 GbE / 10 GbE, the previous OSA-Express, HiperSockets.

A request-response transaction or a streaming transfer between two TCP/IP stacks
(the WAVV 2008 set-up: "2 OSAs, 2 TCP/IP stacks", 002_3ef25dc9d706703e.txt, slide
"Response times") visits four queueing stations and one delay:

* the **client CPU** and the **server CPU** (TCP/IP stack path: a cost per message,
  per packet and per byte, :class:`StackCost`),
* the **client adapter** and the **server adapter** (a processing time per packet
  crossing it, :class:`NetworkAdapter`),
* the two directions of the full-duplex **link** (serialisation of the bytes sent at
  the link rate),
* a **fixed latency** (switch, propagation) as a delay station.

:class:`NetworkPath` turns a :class:`Workload` (request and response sizes, whether a
connection is opened per transaction) into the service demand of each station and
calls :func:`zmodel.queueing.mva` (stations :data:`STATIONS`): one session is the single-session round trip (the
sum of the demands), N sessions are a closed network of N jobs. A streaming transfer
is a closed network whose jobs are the TCP segments in flight (the window); its
throughput approaches the smallest station capacity, i.e.
:math:`\min(\text{link rate}\times\text{protocol efficiency},\ \text{CPU rate})`.

HiperSockets move data memory to memory, synchronously on the sending CPU (IBM
Redbook SG24-5444, ch. 9 HiperSockets): its transfer time is charged to the sending
CPU and it has no wire (no Ethernet frame overhead).

Units are SI: bytes, seconds, bit/s. Catalog values (Gbit/s, KB) are converted in
:mod:`zmodel.hardware.catalog`; :meth:`NetworkAdapter.from_catalog` reads them.
"""
from __future__ import annotations

import dataclasses
import math
from typing import Any, ClassVar

import numpy as np

from zmodel.queueing import mva
from zmodel.queueing._params import param
from zmodel.queueing._result import Result
from zmodel.conventions import as_count, as_float_array, as_int_array, as_scalar, check_fields, vectorized
from zmodel.units import KiB, MiB

__all__ = [
    "ETHERNET_FRAME_OVERHEAD",
    "TCPIP_HEADER_SIZE",
    "CONNECTION_PACKETS",
    "NetworkAdapter",
    "NetworkCosts",
    "StackCost",
    "Workload",
    "AWM_WORKLOADS",
    "NetworkPath",
    "RoundTripResult",
    "StreamingResult",
    "protocol_efficiency",
    "segments",
]

#: bytes an Ethernet frame adds on the wire to an IP datagram: preamble + SFD 8,
#: MAC header 14, FCS 4, inter-frame gap 12 (IEEE 802.3-2005, clause 3.1.1 frame
#: format and clause 4.4.2 interFrameGap of 96 bit times) [B]
ETHERNET_FRAME_OVERHEAD = 38.0
#: IPv4 header 20 (RFC 791 §3.1) + TCP header 20 (RFC 793 §3.1) + timestamp option
#: 12 (RFC 1323 §3.2, on by default in Linux) [B]
TCPIP_HEADER_SIZE = 52.0
#: packets to open and close one TCP connection: SYN, SYN-ACK, ACK, FIN, ACK, FIN,
#: ACK (RFC 793 §3.4 and §3.5); the client sends 4 of them, the server 3 [1]
CONNECTION_PACKETS = 7
_CLIENT_CONNECTION_PACKETS = 4
_SERVER_CONNECTION_PACKETS = 3

STATIONS = ("client_cpu", "client_adapter", "link_out", "link_back", "server_adapter", "server_cpu", "latency")




@vectorized
def segments(size, mss):
    r"""Number of TCP segments that carry a message of ``size`` bytes.

    Parameters
    ----------
    size : float or array_like
        Message size, >= 0 [B].
    mss : float
        Maximum segment size (MTU minus TCP/IP headers), positive [B].

    Returns
    -------
    ndarray or float
        :math:`n = \max(1, \lceil m / \mathrm{MSS} \rceil)`: an empty message still
        sends one segment [1].

    Notes
    -----
    TCP cuts the byte stream into segments of at most MSS bytes (RFC 793 §3.1,
    RFC 879); MSS = MTU - 40 bytes of IPv4+TCP headers (- 12 with timestamps).

    References
    ----------
    J. Postel, "The TCP Maximum Segment Size and Related Topics", RFC 879, 1983.

    Examples
    --------
    >>> segments([1, 8940, 8941, 32768], 8940.0)
    array([1., 1., 2., 4.])
    """
    mss = as_scalar("mss", mss, positive=True)
    size = as_float_array("size", size)
    return np.maximum(1.0, np.ceil(size / mss))


@vectorized
def protocol_efficiency(mtu, header_size=TCPIP_HEADER_SIZE, frame_overhead=ETHERNET_FRAME_OVERHEAD):
    r"""Fraction of the wire bytes that are TCP payload, for full-sized segments.

    Parameters
    ----------
    mtu : float or array_like
        Maximum transmission unit, the largest IP datagram, > ``header_size`` [B].
    header_size : float
        IP + TCP header bytes per segment [B].
    frame_overhead : float
        Link-layer bytes per frame on the wire (38 for Ethernet, 0 for HiperSockets)
        [B].

    Returns
    -------
    ndarray or float
        :math:`\eta = (\mathrm{MTU} - h)/(\mathrm{MTU} + o)` [1].

    Notes
    -----
    A full segment carries MTU - h payload bytes and occupies MTU + o bytes on the
    wire (IEEE 802.3-2005 clause 3.1.1; RFC 791, RFC 793). ACKs travel in the other
    direction of a full-duplex link and do not reduce the data direction's rate.
    Valid for bulk transfers in full-sized segments.

    References
    ----------
    IEEE Std 802.3-2005, clause 3 (MAC frame structure), clause 4.4.2 (interFrameGap).

    Examples
    --------
    MTU 1492 versus 8992 on Ethernet:

    >>> [round(float(protocol_efficiency(m)), 4) for m in (1492, 8992)]
    [0.9412, 0.99]
    """
    mtu = as_float_array("mtu", mtu)
    if (mtu <= header_size).any():
        raise ValueError(f"mtu must exceed the header size {header_size:g} bytes, got {mtu!r}")
    out = (mtu - header_size) / (mtu + frame_overhead)
    return float(out) if out.ndim == 0 else out


# --------------------------------------------------------------------------- components
@dataclasses.dataclass(frozen=True)
class NetworkAdapter:
    """A network adapter (OSA-Express2 port) or HiperSockets, in SI units.

    Parameters
    ----------
    name : str
        Catalog name, e.g. ``"OSA-Express2 10GbE LR"``.
    link_rate : float
        Wire rate (for HiperSockets: the memory-move rate of the sending CPU) [bit/s].
    mtu : float
        Maximum transmission unit in use, > TCP/IP header size [B].
    per_packet_time : float
        Adapter processing time per packet crossing it (firmware, QDIO queues), >= 0 [s].
    frame_overhead : float
        Link-layer bytes per frame on the wire (Ethernet 38, HiperSockets 0) [B].
    host_transfer : bool
        True when the data move is done by the sending CPU (HiperSockets), so the
        transfer time is CPU time, not adapter time.

    Examples
    --------
    >>> osa = NetworkAdapter("OSA-Express2 1GbE", link_rate=1e9, mtu=8992, per_packet_time=5e-6)
    >>> osa.mss, round(osa.wire_time(8940), 9)
    (8940.0, 7.224e-05)
    """

    name: str
    link_rate: float
    mtu: float
    per_packet_time: float = 0.0
    frame_overhead: float = ETHERNET_FRAME_OVERHEAD
    host_transfer: bool = False

    def __post_init__(self):
        object.__setattr__(self, "link_rate", as_scalar("link_rate", self.link_rate, positive=True))
        object.__setattr__(self, "mtu", as_scalar("mtu", self.mtu, positive=True))
        if self.mtu <= TCPIP_HEADER_SIZE:
            raise ValueError(f"mtu must exceed the TCP/IP header size {TCPIP_HEADER_SIZE:g} bytes, got {self.mtu:g}")
        object.__setattr__(self, "per_packet_time", as_scalar("per_packet_time", self.per_packet_time))
        object.__setattr__(self, "frame_overhead", as_scalar("frame_overhead", self.frame_overhead))
        object.__setattr__(self, "host_transfer", bool(self.host_transfer))

    @property
    def mss(self) -> float:
        """Maximum segment size MTU - TCP/IP headers [B]."""
        return self.mtu - TCPIP_HEADER_SIZE

    @vectorized
    def wire_time(self, payload, packets=None):
        """Time to put ``payload`` bytes in ``packets`` frames on the link [s].

        ``packets`` defaults to the number of segments of the payload.
        """
        payload = as_float_array("payload", payload)
        n = segments(payload, self.mss) if packets is None else np.asarray(packets, dtype=float)
        out = 8.0 * (payload + n * (TCPIP_HEADER_SIZE + self.frame_overhead)) / self.link_rate
        return float(out) if out.ndim == 0 else out

    @classmethod
    def from_catalog(cls, name: str, per_packet_time: float = 0.0, mtu: float | None = None,
                     **overrides) -> "NetworkAdapter":
        """Build from the catalog row set ``zmodel/_data/hardware/adapters.csv`` (SI via
        :func:`zmodel.hardware.catalog.component`).

        ``mtu`` defaults to the catalog's ``mtu``; HiperSockets get no frame overhead
        and ``host_transfer=True``; its ``link_rate`` (memory-move rate) must be given
        in ``overrides`` since it has no wire.
        """
        from zmodel.hardware import catalog  # written by the channel engineer

        spec = catalog.component("adapters", name)
        hiper = "hipersockets" in name.lower()
        kw = dict(name=name, per_packet_time=per_packet_time,
                  mtu=spec["mtu"] if mtu is None else mtu,
                  frame_overhead=0.0 if hiper else ETHERNET_FRAME_OVERHEAD, host_transfer=hiper)
        if "link_rate" in spec:
            kw["link_rate"] = spec["link_rate"]
        kw.update(overrides)
        if "link_rate" not in kw:
            raise ValueError(f"adapter {name!r} has no link_rate in the catalog; pass link_rate= "
                             f"(for HiperSockets the memory-move rate) [bit/s]")
        return cls(**kw)


@dataclasses.dataclass(frozen=True)
class StackCost:
    """CPU cost of one TCP/IP stack side (socket layer, TCP/IP, device driver), SI units.

    Parameters
    ----------
    per_message : float
        CPU time per message sent or received (system call, socket wake-up) [s].
    per_packet : float
        CPU time per packet sent or received (TCP/IP processing, QDIO, interrupt) [s].
    per_byte : float
        CPU time per payload byte (copy, checksum) [s/byte].
    per_connection : float
        CPU time to open and close one connection, beyond its packets [s].

    Examples
    --------
    >>> StackCost(per_message=10e-6, per_packet=10e-6, per_byte=1e-9).per_connection
    0.0
    """

    per_message: float
    per_packet: float
    per_byte: float
    per_connection: float = 0.0

    def __post_init__(self):
        for f in ("per_message", "per_packet", "per_byte", "per_connection"):
            object.__setattr__(self, f, as_scalar(f, getattr(self, f)))


@dataclasses.dataclass(frozen=True)
class NetworkCosts:
    """Tunable CPU and adapter costs of a Linux TCP/IP path over OSA-Express adapters.

    Each field declares its default, unit, plausible range and provenance once
    (:func:`zmodel.queueing._params.param`); :mod:`zmodel.fits.network` derives its fit
    parameters from them and maps the fitted values back with ``to_dataclass``. The
    seeds print no per-message, per-packet or per-byte cost, so the defaults are
    orders of magnitude (``assumed``).

    Parameters
    ----------
    cpu_per_byte : float
        Stack CPU time per payload byte (copy, checksum) [s/B].
    osa_previous_per_packet : float
        Per-packet time of the previous OSA-Express adapter [s].
    cpu_per_message : float
        Stack CPU time per message (system call, wake-up) [s].
    cpu_per_packet : float
        Stack CPU time per packet (TCP/IP, QDIO, interrupt) [s].
    cpu_per_connection : float
        Stack CPU time to open and close a connection (socket, connect/accept, close) [s].
    osa2_per_packet : float
        Per-packet time of an OSA-Express2 adapter [s].

    Examples
    --------
    >>> c = NetworkCosts()
    >>> c.stack().per_byte == c.cpu_per_byte
    True
    >>> c.per_packet_time("OSA-Express GbE") == c.osa_previous_per_packet
    True
    """

    cpu_per_byte: float = param(
        1e-9, unit="s/B", range=(0.0, 1e-7),
        source="assumed: a copy and checksum at about 1 GB/s of one CPU")
    osa_previous_per_packet: float = param(
        20e-6, unit="s", range=(0.0, 1e-3),
        source="assumed: previous OSA-Express per-packet time; the wavv08 '>20%' round-trip improvement "
               "only requires it above about 11.3 us with the other defaults")
    cpu_per_message: float = param(
        10e-6, unit="s", range=(0.0, 1e-3),
        source="assumed: order of magnitude of a system call plus a wake-up per message")
    cpu_per_packet: float = param(
        10e-6, unit="s", range=(0.0, 1e-3),
        source="assumed: order of magnitude of TCP/IP plus QDIO processing per packet")
    cpu_per_connection: float = param(
        50e-6, unit="s", range=(0.0, 10e-3),
        source="assumed: order of magnitude of socket, connect/accept and close")
    osa2_per_packet: float = param(
        5e-6, unit="s", range=(0.0, 1e-3),
        source="assumed: OSA-Express2 per-packet time small enough that the adapter does not cap 10 GbE "
               "streaming below the CPU")

    def __post_init__(self):
        check_fields(self)

    def stack(self) -> StackCost:
        """The CPU cost of one stack side at these values."""
        return StackCost(per_message=self.cpu_per_message, per_packet=self.cpu_per_packet,
                         per_byte=self.cpu_per_byte, per_connection=self.cpu_per_connection)

    def per_packet_time(self, adapter: str) -> float:
        """Per-packet adapter time: the previous OSA-Express for ``"OSA-Express GbE"``, else OSA-Express2 [s]."""
        return self.osa_previous_per_packet if adapter == "OSA-Express GbE" else self.osa2_per_packet


@dataclasses.dataclass(frozen=True)
class Workload:
    """An AWM-style workload: request/response sizes, connection per transaction or not.

    Parameters
    ----------
    name : str
        e.g. ``"rr200x1000"``.
    request_size, response_size : float
        Bytes sent by the client and by the server per transaction [B].
    connect : bool
        True for connect-request-response (``crr``): a new TCP connection per
        transaction.
    streaming : bool
        True for a one-way bulk transfer of ``request_size`` bytes.

    Examples
    --------
    >>> AWM_WORKLOADS["rr200x32k"].response_size
    32768.0
    """

    name: str
    request_size: float
    response_size: float = 0.0
    connect: bool = False
    streaming: bool = False

    def __post_init__(self):
        object.__setattr__(self, "request_size", as_scalar("request_size", self.request_size))
        object.__setattr__(self, "response_size", as_scalar("response_size", self.response_size))

    @property
    def data_size(self) -> float:
        """Bytes moved per transaction, both directions [B]."""
        return self.request_size + self.response_size


#: The AWM workloads of WAVV 2008 (002_3ef25dc9d706703e.txt, slide "OSA-Express2 -
#: 1GbE / 10GbE, MTU 8992"; sizes read from the names, k = 1024 bytes) and the
#: 1-byte/1-byte round-trip test (slide "Response times").
AWM_WORKLOADS = {
    "rr1x1": Workload("rr1x1", 1, 1),
    "rr200x1000": Workload("rr200x1000", 200, 1000),
    "crr64x8k": Workload("crr64x8k", 64, 8 * KiB, connect=True),
    "rr200x32k": Workload("rr200x32k", 200, 32 * KiB),
    "stream20m": Workload("stream20m", 20 * MiB, 0, streaming=True),
}


# --------------------------------------------------------------------------- results
@dataclasses.dataclass(frozen=True)
class RoundTripResult(Result):
    """Request-response performance of N sessions over a network path.

    Attributes
    ----------
    throughput : float or ndarray
        Transactions per second [1/s].
    round_trip_time : float or ndarray
        Mean time from sending a request to receiving its response, think time
        excluded [s].
    service_demand : ndarray
        Demand per transaction of each station (``stations``), batch + (7,) [s].
    utilization : ndarray
        Utilization per server of each station, batch + (7,) [1].
    queue_length : ndarray
        Mean number of transactions at each station, batch + (7,) [1].
    cpu_per_transaction : float or ndarray
        CPU time of both stacks per transaction [s].
    """

    throughput: Any
    round_trip_time: Any
    service_demand: np.ndarray
    utilization: np.ndarray
    queue_length: np.ndarray
    cpu_per_transaction: Any
    trailing_dims: ClassVar[tuple[str, ...]] = ("station",)
    stations: ClassVar[tuple[str, ...]] = STATIONS


@dataclasses.dataclass(frozen=True)
class StreamingResult(Result):
    """Bulk-transfer throughput over a network path and its bounding capacities.

    Attributes
    ----------
    throughput : float or ndarray
        Payload bytes per second with the given window [B/s].
    link_limit : float
        Link rate x protocol efficiency (inf for host-transfer links) [B/s].
    cpu_limit : float
        Payload rate the busier CPU can sustain [B/s].
    adapter_limit : float
        Payload rate the busier adapter can sustain (link included) [B/s].
    capacity : float
        Smallest station capacity: the throughput of an unlimited window [B/s].
    utilization : ndarray
        Utilization per server of each station, batch + (7,) [1].
    bottleneck : str
        Name of the station with the smallest capacity.
    """

    throughput: Any
    link_limit: float
    cpu_limit: float
    adapter_limit: float
    capacity: float
    utilization: np.ndarray
    bottleneck: str
    trailing_dims: ClassVar[tuple[str, ...]] = ("station",)
    stations: ClassVar[tuple[str, ...]] = STATIONS


# --------------------------------------------------------------------------- the path
@dataclasses.dataclass(frozen=True)
class NetworkPath:
    r"""Two TCP/IP stacks connected through two adapters of one type.

    Parameters
    ----------
    adapter : NetworkAdapter
        Adapter type at both ends ("2 OSAs, 2 TCP/IP stacks").
    stack : StackCost
        CPU cost of each stack side.
    cpus : int
        CPUs available to each side's stack, a positive integer [1].
    fixed_latency : float
        Switch and propagation delay per one-way message, >= 0 [s].

    Notes
    -----
    Per transaction with request q and response r bytes, segment counts
    :math:`n_q, n_r` (:func:`segments`), delayed ACKs
    :math:`a(n) = \lfloor n/2 \rfloor` for n > 1 and 0 for n = 1 (an ACK every
    second full segment, RFC 1122 §4.2.3.2; a single segment's ACK rides on the reply),
    c = 7 connection packets for ``connect`` workloads (RFC 793 §3.4-3.5), and
    :math:`P = n_q + n_r + a(n_q) + a(n_r) + c` packets in all:

    .. math::
        D_\mathrm{cpu} = 2 c_\mathrm{msg} + P\,c_\mathrm{pkt} + (q + r)\,c_\mathrm{byte}
        + [\mathrm{connect}]\,c_\mathrm{conn}, \qquad
        D_\mathrm{adapter} = P\,t_\mathrm{pkt}, \qquad
        D_\mathrm{link,dir} = \frac{8\,w_\mathrm{dir}}{B}

    on each side, :math:`w_\mathrm{dir}` the wire bytes (payload plus
    :math:`h + o` per packet) sent in that direction and B the link rate (a
    host-transfer link charges :math:`8 w/B` to the sending CPU instead). N sessions with think time Z form a closed network solved by exact MVA
    (Lazowska et al. 1984, §6.4.1); with N = 1 the round trip is
    :math:`\sum_k D_k`. The stations are treated as product-form (exponential FCFS
    or PS); a multi-segment message is not pipelined across stations in one session,
    so single-session round trips of large messages are upper estimates.

    Streaming: a job is one full segment (MSS payload) and the population is the
    window in segments; per segment each side's CPU spends
    :math:`1.5\,c_\mathrm{pkt} + \mathrm{MSS}\,c_\mathrm{byte}` (data plus half an ACK)
    each adapter :math:`1.5\,t_\mathrm{pkt}`, the data direction of the link
    :math:`8(\mathrm{MTU}+o)/B` and the ACK direction half an ACK frame.
    As the window grows the MVA throughput tends to the smallest capacity
    :math:`c_k/D_k` (utilisation law, Denning & Buzen 1978), i.e.
    :math:`\min(B/8\cdot\eta(\mathrm{MTU}),\ \text{CPU rate},\ \text{adapter rate})`.

    References
    ----------
    E. D. Lazowska, J. Zahorjan, G. S. Graham, K. C. Sevcik, *Quantitative System
    Performance*, Prentice Hall 1984, §5.2 (bounds), §6.4 (exact MVA).
    P. J. Denning, J. P. Buzen, "The operational analysis of queueing network
    models", ACM Computing Surveys 10(3):225-261, 1978. doi:10.1145/356733.356735
    R. Braden (ed.), "Requirements for Internet Hosts -- Communication Layers",
    RFC 1122, 1989, §4.2.3.2 (delayed ACK).

    Examples
    --------
    One 1-byte/1-byte session: every station is visited by 2 packets; the round trip
    is the sum of the demands.

    >>> osa = NetworkAdapter("OSA", link_rate=1e9, mtu=1492, per_packet_time=5e-6)
    >>> path = NetworkPath(osa, StackCost(per_message=10e-6, per_packet=10e-6, per_byte=0.0))
    >>> r = path.round_trip(AWM_WORKLOADS["rr1x1"])
    >>> round(r.round_trip_time * 1e6, 3)   # 2 CPUs x 40 + 2 adapters x 10 + 2 x 0.728 us wire
    101.456
    """

    adapter: NetworkAdapter
    stack: StackCost
    cpus: int = 1
    fixed_latency: float = 0.0

    def __post_init__(self):
        if not isinstance(self.adapter, NetworkAdapter):
            raise ValueError(f"adapter must be a NetworkAdapter, got {type(self.adapter).__name__}")
        if not isinstance(self.stack, StackCost):
            raise ValueError(f"stack must be a StackCost, got {type(self.stack).__name__}")
        object.__setattr__(self, "cpus", as_count("cpus", self.cpus))
        object.__setattr__(self, "fixed_latency", as_scalar("fixed_latency", self.fixed_latency))

    # ---- demands
    @vectorized
    def service_demands(self, workload: Workload) -> np.ndarray:
        """Service demand per transaction of the stations :data:`STATIONS` (client CPU,
        client adapter, link client->server, link server->client, server adapter, server
        CPU, latency) [s]; shape (7,)."""
        if not isinstance(workload, Workload):
            raise ValueError(f"workload must be a Workload, got {type(workload).__name__}")
        if workload.streaming:
            raise ValueError(f"workload {workload.name!r} is a streaming workload; use streaming()")
        a, s = self.adapter, self.stack
        q, r = workload.request_size, workload.response_size
        nq, nr = float(segments(q, a.mss)), float(segments(r, a.mss))
        aq, ar = (math.floor(n / 2) if n > 1 else 0.0 for n in (nq, nr))
        c_cli = _CLIENT_CONNECTION_PACKETS if workload.connect else 0
        c_srv = _SERVER_CONNECTION_PACKETS if workload.connect else 0
        packets = nq + nr + aq + ar + c_cli + c_srv
        cpu = 2 * s.per_message + packets * s.per_packet + (q + r) * s.per_byte
        if workload.connect:
            cpu += s.per_connection
        # client transmits the request, the ACKs of the response and its connection packets
        tx_client = a.wire_time(q, nq) + a.wire_time(0.0, ar + c_cli)
        tx_server = a.wire_time(r, nr) + a.wire_time(0.0, aq + c_srv)
        cpu_client, cpu_server = cpu, cpu
        adapter = packets * a.per_packet_time
        link_out, link_back = tx_client, tx_server
        if a.host_transfer:  # the sending CPU moves the data (HiperSockets)
            cpu_client, cpu_server = cpu_client + tx_client, cpu_server + tx_server
            link_out, link_back = 0.0, 0.0
        latency = 2.0 * self.fixed_latency * (2.0 if workload.connect else 1.0)
        return np.array([cpu_client, adapter, link_out, link_back, adapter, cpu_server, latency])

    def _servers(self, cpus=None):
        c = self.cpus if cpus is None else cpus
        return [c, 1, 1, 1, 1, c, math.inf]

    # ---- request-response
    @vectorized
    def round_trip(self, workload: Workload, sessions=1, think_time=0.0) -> RoundTripResult:
        """Throughput and round-trip time of ``sessions`` concurrent request-response
        sessions (closed network, exact MVA).

        Parameters
        ----------
        workload : Workload
            Request/response sizes (not streaming).
        sessions : int or array_like of int
            Number of concurrent sessions N >= 0 [1].
        think_time : float or array_like
            Client delay between a response and the next request, >= 0 [s].

        Returns
        -------
        RoundTripResult
        """
        D = self.service_demands(workload)
        res = mva(D, population=as_int_array("sessions", sessions), think_time=think_time, servers=self._servers())
        cpu = D[0] + D[5]
        return RoundTripResult(throughput=res.throughput, round_trip_time=res.response_time,
                               service_demand=np.broadcast_to(D, np.shape(res.utilization)).copy(),
                               utilization=res.utilization, queue_length=res.queue_length,
                               cpu_per_transaction=cpu)

    # ---- streaming
    @vectorized
    def segment_demands(self) -> np.ndarray:
        """Service demand per full data segment of a one-way bulk transfer, stations as
        in :meth:`service_demands` [s]; shape (7,)."""
        a, s = self.adapter, self.stack
        cpu = 1.5 * s.per_packet + a.mss * s.per_byte
        tx_data = a.wire_time(a.mss, 1.0)
        tx_ack = 0.5 * a.wire_time(0.0, 1.0)
        cpu_s, cpu_r = cpu, cpu
        adapter = 1.5 * a.per_packet_time
        link_out, link_back = tx_data, tx_ack
        if a.host_transfer:  # the sending CPU moves the data (HiperSockets)
            cpu_s, cpu_r = cpu_s + tx_data, cpu_r + tx_ack
            link_out, link_back = 0.0, 0.0
        return np.array([cpu_s, adapter, link_out, link_back, adapter, cpu_r, 0.0])

    @vectorized
    def streaming(self, sessions=1, window=64 * KiB) -> StreamingResult:
        """Throughput of ``sessions`` bulk transfers with ``window`` bytes in flight each.

        Parameters
        ----------
        sessions : int
            Concurrent streams, a positive integer; each stream's protocol work is
            serialised (one CPU per side per stream), so the CPU stations get
            ``min(cpus, sessions)`` servers [1].
        window : float or array_like
            TCP window (bytes in flight) per stream, >= one segment [B].

        Returns
        -------
        StreamingResult
        """
        sessions = as_count("sessions", sessions)
        window = as_float_array("window", window)
        mss = self.adapter.mss
        if (window < mss).any():
            raise ValueError(f"window must hold at least one segment ({mss:g} bytes), got {window!r}")
        D = self.segment_demands()
        c = min(self.cpus, int(sessions))
        servers = self._servers(c)
        population = int(sessions) * np.floor(window / mss)
        res = mva(D, population=population.astype(np.int64), servers=servers)
        with np.errstate(divide="ignore", over="ignore"):
            cap = np.array([servers[k] / D[k] if D[k] > 0 else math.inf for k in range(6)]) * mss
        thr = res.throughput * mss
        return StreamingResult(throughput=thr, link_limit=float(cap[2]), cpu_limit=float(min(cap[0], cap[5])),
                               adapter_limit=float(min(cap[1], cap[4])), capacity=float(cap.min()),
                               utilization=res.utilization, bottleneck=STATIONS[int(np.argmin(cap))])

    @vectorized
    def streaming_capacity(self, sessions=1) -> float:
        """Throughput of an unlimited window: the smallest station capacity [B/s]."""
        return self.streaming(sessions, window=self.adapter.mss).capacity
