r"""Cryptographic hardware: Crypto Express2 accelerator (CEX2A) and CPACF, for SSL servers.

An SSL server transaction costs CPU time for the handshake (protocol work plus one RSA
private-key operation) and for the record layer (per byte: TCP/IP and copies, plus the
symmetric cipher). Two System z features remove parts of it (002_3ef25dc9d706703e.txt,
slides "Crypto Express2 Accelerator (CEX2A) - SSL handshakes", "... and CPACF",
"Crypto performance – WebSEAL SSL access"; IBM developerWorks "Cryptographic support"):

* the **CEX2A** executes the RSA operation asynchronously on a PCI-X adapter: the CPU
  only builds and submits the request (:class:`CryptoAccelerator`), and the adapter is a
  queueing station of its own with its own capacity;
* the **CPACF** on every CPU executes AES/TDES and SHA with far fewer CPU cycles per
  byte than software (:class:`CipherCost`); being part of each CPU it adds no station.

:class:`SSLServer` turns this into service demands of a CPU station (``cpus`` servers)
and an accelerator station (``adapters`` servers) and solves the closed network of
``connections`` clients with :func:`zmodel.queueing.mva` (think time = client and
network time between transactions).
"""
from __future__ import annotations

import dataclasses
import math
from typing import Any, ClassVar

import numpy as np

from zmodel.queueing import mva
from zmodel.queueing._params import param
from zmodel.queueing._result import Result
from zmodel.conventions import as_count, as_int_array, as_scalar, check_fields, vectorized

__all__ = ["CryptoAccelerator", "CipherCost", "SSLCosts", "SSLServer", "SSLResult"]

STATIONS = ("cpu", "accelerator")



@dataclasses.dataclass(frozen=True)
class CryptoAccelerator:
    """An asymmetric-crypto accelerator (CEX2A adapters) as a queueing station.

    Parameters
    ----------
    name : str
        Catalog name, e.g. ``"CEX2A"``.
    rsa_service_time : float
        Adapter time per RSA private-key operation, positive [s].
    adapters : int
        Number of accelerator adapters serving the system (2 per CEX2 feature) [1].
    offload_cpu : float
        CPU time to build, submit and complete one request (libica, zcrypt), >= 0 [s].

    Examples
    --------
    >>> cex = CryptoAccelerator("CEX2A", rsa_service_time=1e-4, adapters=2)
    >>> cex.capacity   # RSA operations per second of both adapters
    20000.0
    """

    name: str
    rsa_service_time: float
    adapters: int = 1
    offload_cpu: float = 0.0

    def __post_init__(self):
        t = as_scalar("rsa_service_time", self.rsa_service_time)
        if t <= 0:
            raise ValueError(f"rsa_service_time must be positive, got {self.rsa_service_time!r}")
        object.__setattr__(self, "rsa_service_time", t)
        object.__setattr__(self, "adapters", as_count("adapters", self.adapters))
        object.__setattr__(self, "offload_cpu", as_scalar("offload_cpu", self.offload_cpu))

    @property
    def capacity(self) -> float:
        """RSA operations per second of all adapters, ``adapters / rsa_service_time`` [1/s]."""
        return self.adapters / self.rsa_service_time

    @classmethod
    def from_catalog(cls, name: str, rsa_service_time: float, features: int = 1,
                     offload_cpu: float = 0.0) -> "CryptoAccelerator":
        """Build from ``zmodel/_data/hardware/crypto.csv``: ``adapters = features x
        adapters_per_feature`` (via :func:`zmodel.hardware.catalog.component`)."""
        from zmodel.hardware import catalog  # written by the channel engineer

        spec = catalog.component("crypto", name)
        per = int(spec.get("adapters_per_feature", 1))
        return cls(name, rsa_service_time, adapters=as_count("features", features) * per,
                   offload_cpu=offload_cpu)


@dataclasses.dataclass(frozen=True)
class CipherCost:
    """CPU cost of a symmetric cipher (+ MAC) on the SSL record layer.

    Parameters
    ----------
    name : str
        e.g. ``"AES-128 software"`` or ``"AES-128 CPACF"``.
    cpu_per_byte : float
        CPU time per byte encrypted or decrypted, >= 0 [s/byte].

    Examples
    --------
    >>> CipherCost("AES-128 CPACF", 2e-9).rate(cpus=2)   # bytes/s, CPU-bound
    1000000000.0
    """

    name: str
    cpu_per_byte: float

    def __post_init__(self):
        object.__setattr__(self, "cpu_per_byte", as_scalar("cpu_per_byte", self.cpu_per_byte))

    @vectorized
    def rate(self, cpus: int = 1) -> float:
        """Bulk encryption rate of ``cpus`` CPUs doing nothing else [B/s]."""
        c = as_count("cpus", cpus)
        return math.inf if self.cpu_per_byte == 0 else c / self.cpu_per_byte


@dataclasses.dataclass(frozen=True)
class SSLResult(Result):
    """Throughput and resource use of an SSL server with a closed client population.

    Attributes
    ----------
    throughput : float or ndarray
        Transactions (handshakes) per second [1/s].
    response_time : float or ndarray
        Time per transaction at the server, think time excluded [s].
    cpu_utilization : float or ndarray
        Utilization per CPU [1].
    accelerator_utilization : float or ndarray
        Utilization per accelerator adapter (0 without one) [1].
    cpu_per_transaction : float
        CPU time per transaction [s].
    cpu_busy : float or ndarray
        CPU resources in use, ``throughput x cpu_per_transaction`` (CPUs' worth) [1].
    byte_rate : float or ndarray
        Payload bytes per second [B/s].
    """

    throughput: Any
    response_time: Any
    cpu_utilization: Any
    accelerator_utilization: Any
    cpu_per_transaction: float
    cpu_busy: Any
    byte_rate: Any


@dataclasses.dataclass(frozen=True)
class SSLServer:
    r"""An SSL server: CPUs (with or without CPACF) and optionally a CEX2A.

    Parameters
    ----------
    cpus : int
        CPUs of the server, a positive integer [1].
    handshake_cpu : float
        CPU time per full handshake, the RSA operation excluded, >= 0 [s].
    rsa_cpu : float
        CPU time of one RSA private-key operation in software, >= 0 [s].
    cipher : CipherCost
        Symmetric cipher cost (software or CPACF).
    record_cpu_per_byte : float
        Other CPU time per payload byte (TCP/IP, copies, application), >= 0 [s/byte].
    request_cpu : float
        Other CPU time per transaction (application), >= 0 [s].
    accelerator : CryptoAccelerator or None
        The CEX2A; ``None`` computes RSA in software.

    Notes
    -----
    Per transaction with ``h`` handshakes and ``m`` payload bytes, the demands are

    .. math::
        D_\mathrm{cpu} = c_\mathrm{req} + h\,(c_\mathrm{hs} + c_x) + m\,(c_\mathrm{rec} + c_\mathrm{cipher}),
        \qquad D_\mathrm{acc} = h\,s_\mathrm{rsa}\ \text{(with accelerator, else 0)},

    with :math:`c_x = c_\mathrm{rsa}` in software and the offload cost with a CEX2A.
    ``connections`` clients with think time Z form a closed network solved by exact
    MVA (Lazowska et al. 1984, §6.4.1); the CPU station has ``cpus`` servers and the
    accelerator ``adapters`` servers (load-dependent multi-server MVA, Bolch et al.
    2006, §8.2.4). As N grows, :math:`X \to \min(c_\mathrm{cpu}/D_\mathrm{cpu},
    c_\mathrm{acc}/D_\mathrm{acc})` (utilisation law). Valid as a product-form
    approximation (exponential service, FCFS); the CEX2A works asynchronously, so the
    CPU is free while the adapter computes.

    References
    ----------
    E. D. Lazowska, J. Zahorjan, G. S. Graham, K. C. Sevcik, *Quantitative System
    Performance*, Prentice Hall 1984, §5.2, §6.4.
    G. Bolch, S. Greiner, H. de Meer, K. S. Trivedi, *Queueing Networks and Markov
    Chains*, 2nd ed., Wiley 2006, §8.2.
    IBM developerWorks, Linux on System z, "Cryptographic support" (CEX2A, CPACF).

    Examples
    --------
    Handshakes only, one CPU, no think time: software RSA saturates the CPU at
    1/(0.25 + 1.75) ms = 500/s; with a CEX2A of 0.5 ms per operation the adapter is
    the bottleneck at 2000/s and the CPU is 50% busy.

    >>> sw = SSLServer(1, handshake_cpu=0.25e-3, rsa_cpu=1.75e-3, cipher=CipherCost("sw", 0.0))
    >>> hw = dataclasses.replace(sw, accelerator=CryptoAccelerator("CEX2A", 0.5e-3))
    >>> round(sw.throughput(200).throughput, 6), round(hw.throughput(200).throughput, 3)
    (500.0, 2000.0)
    >>> round(hw.throughput(200).cpu_utilization, 3)
    0.5
    """

    cpus: int
    handshake_cpu: float
    rsa_cpu: float
    cipher: CipherCost
    record_cpu_per_byte: float = 0.0
    request_cpu: float = 0.0
    accelerator: CryptoAccelerator | None = None

    def __post_init__(self):
        object.__setattr__(self, "cpus", as_count("cpus", self.cpus))
        for f in ("handshake_cpu", "rsa_cpu", "record_cpu_per_byte", "request_cpu"):
            object.__setattr__(self, f, as_scalar(f, getattr(self, f)))
        if not isinstance(self.cipher, CipherCost):
            raise ValueError(f"cipher must be a CipherCost, got {type(self.cipher).__name__}")
        if self.accelerator is not None and not isinstance(self.accelerator, CryptoAccelerator):
            raise ValueError(f"accelerator must be a CryptoAccelerator or None, "
                             f"got {type(self.accelerator).__name__}")

    @vectorized
    def service_demands(self, payload_bytes=0.0, handshakes=1.0) -> np.ndarray:
        """Demands (CPU, accelerator) per transaction [s]; shape (2,)."""
        m = as_scalar("payload_bytes", payload_bytes)
        h = as_scalar("handshakes", handshakes)
        acc = self.accelerator
        rsa = self.rsa_cpu if acc is None else acc.offload_cpu
        cpu = self.request_cpu + h * (self.handshake_cpu + rsa) + m * (self.record_cpu_per_byte
                                                                       + self.cipher.cpu_per_byte)
        return np.array([cpu, 0.0 if acc is None else h * acc.rsa_service_time])

    @vectorized
    def throughput(self, connections, payload_bytes=0.0, handshakes=1.0, think_time=0.0) -> SSLResult:
        """Solve the closed network of ``connections`` clients.

        Parameters
        ----------
        connections : int or array_like of int
            Concurrent client connections N >= 0 [1].
        payload_bytes : float
            Payload bytes per transaction [B].
        handshakes : float
            Full handshakes per transaction (1: a new session each time; 0: bulk only) [1].
        think_time : float or array_like
            Client plus network time between transactions, >= 0 [s].

        Returns
        -------
        SSLResult
        """
        D = self.service_demands(payload_bytes, handshakes)
        adapters = 1 if self.accelerator is None else self.accelerator.adapters
        res = mva(D, population=as_int_array("connections", connections), think_time=think_time, servers=[self.cpus, adapters])
        u = np.asarray(res.utilization)
        x = res.throughput
        cpu_u, acc_u = u[..., 0], u[..., 1]
        if np.ndim(x) == 0:
            cpu_u, acc_u = float(cpu_u), float(acc_u)
        return SSLResult(throughput=x, response_time=res.response_time, cpu_utilization=cpu_u,
                         accelerator_utilization=acc_u, cpu_per_transaction=float(D[0]),
                         cpu_busy=x * D[0], byte_rate=x * float(payload_bytes))


@dataclasses.dataclass(frozen=True)
class SSLCosts:
    """Tunable CPU and adapter costs of an SSL server with and without CEX2A and CPACF.

    Each field declares its default, unit, plausible range and provenance once
    (:func:`zmodel.queueing._params.param`); :mod:`zmodel.fits.crypto` derives its fit
    parameters from them and maps the fitted values back with ``to_dataclass``. The
    WAVV 2008 crypto slides print only ratios (4x, -50 %, 3.5x, 6x, 2.4x), no time, so
    every default is an order of magnitude (``assumed``).

    Parameters
    ----------
    handshake_cpu : float
        Server CPU per full handshake besides the RSA private-key operation [s].
    cex2a_service_time : float
        CEX2A adapter time per RSA operation [s].
    cipher_sw_per_byte : float
        Software cipher + MAC CPU per payload byte [s/B].
    rsa_cpu : float
        Software RSA-1024 private-key operation [s].
    cipher_cpacf_per_byte : float
        CPACF AES-128 cipher + MAC CPU per payload byte [s/B].
    record_per_byte : float
        Non-cipher CPU per payload byte (TCP/IP, copies) [s/B].
    webseal_request_cpu : float
        WebSEAL CPU per request besides the per-byte work [s].

    Examples
    --------
    >>> c = SSLCosts()
    >>> c.server(cpus=4, cex2a=True, cpacf=True, adapters=1).accelerator.adapters
    1
    >>> c.server(cpus=4, cex2a=False, cpacf=False).cipher.cpu_per_byte == c.cipher_sw_per_byte
    True
    """

    handshake_cpu: float = param(
        0.3e-3, unit="s", range=(0.0, 0.1),
        source="assumed: key exchange, certificate and session set-up besides RSA, a fraction of a millisecond")
    cex2a_service_time: float = param(
        0.15e-3, unit="s", range=(1e-7, 0.1),
        source="assumed: an RSA-1024 operation on the adapter an order of magnitude faster than in software")
    cipher_sw_per_byte: float = param(
        20e-9, unit="s/B", range=(0.0, 1e-6),
        source="assumed: software AES-128 + SHA-1 at about 50 MB/s of one CPU")
    rsa_cpu: float = param(
        2e-3, unit="s", range=(1e-5, 0.1),
        source="assumed: software RSA-1024 private-key operation of a few milliseconds; sets the time scale only")
    cipher_cpacf_per_byte: float = param(
        2e-9, unit="s/B", range=(0.0, 1e-7),
        source="assumed: CPACF AES-128 + MAC about ten times faster than software; not documented")
    record_per_byte: float = param(
        5e-9, unit="s/B", range=(0.0, 1e-7),
        source="assumed: non-cipher CPU per payload byte (TCP/IP, copies); not documented")
    webseal_request_cpu: float = param(
        0.5e-3, unit="s", range=(0.0, 0.1),
        source="assumed: WebSEAL CPU per request besides per-byte work; not documented")

    def __post_init__(self):
        check_fields(self)

    def server(self, cpus: int, cex2a: bool, cpacf: bool, adapters: int = 1) -> "SSLServer":
        """The SSL server at these costs with/without a CEX2A of ``adapters`` adapters and CPACF."""
        cipher = (CipherCost("AES-128 CPACF", self.cipher_cpacf_per_byte) if cpacf
                  else CipherCost("AES-128 software", self.cipher_sw_per_byte))
        acc = CryptoAccelerator("CEX2A", self.cex2a_service_time, adapters=adapters) if cex2a else None
        return SSLServer(cpus, handshake_cpu=self.handshake_cpu, rsa_cpu=self.rsa_cpu, cipher=cipher,
                         record_cpu_per_byte=self.record_per_byte, accelerator=acc)
