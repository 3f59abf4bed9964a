r"""Storage servers (ESS 2105-F20, ESS 2105-800, DS8300 2107-922): disks, RAID ranks, cache, NVS.

Three components, each a frozen dataclass in SI units:

* :class:`Disk` — one disk drive: seek curve, rotation, media transfer (Ruemmler &
  Wilkes 1994);
* :class:`RaidRank` — an array of ``width`` disks in RAID-5 (one parity-equivalent
  disk; the ESS/DS8000 ranks are 8 disks, 6+P+S or 7+P): back-end disk operations per
  host operation (small-write penalty of 4, full-stride writes);
* :class:`StorageServer` — cache (read hit/miss), NVS fast write mirrored into the other
  cluster with destage to the ranks, ranks of disks (RAID-5 or RAID-10), device
  adapters, cluster processors, cache bandwidth, the internal data path between host
  adapters and clusters, host adapters and host links;
* :func:`lru_hit_ratio` — read hit ratio from cache size and workload footprint (Che's
  approximation of LRU).

Four workloads (``op``): ``"random_read"``, ``"random_write"``, ``"sequential_read"``,
``"sequential_write"``. The server turns a workload into per-request service demands
(disk-seconds on the back end, link-seconds on the host links, adapter-seconds) and
calls :mod:`zmodel.queueing` for the queueing: M/G/1 per disk and M/D/c per link set
for open load (:meth:`StorageServer.open_load`), exact MVA for closed iozone-like
threads (:meth:`StorageServer.closed_load`), M/M/1/K for the NVS as a finite buffer
(:meth:`StorageServer.nvs`); the saturation point is the minimum of the resource
capacities (:meth:`StorageServer.saturation`; Lazowska et al. 1984, §5.2,
:math:`X_{max} = 1/D_{max}`).

References
----------
C. Ruemmler, J. Wilkes, "An introduction to disk drive modeling", IEEE Computer
27(3):17-28, 1994. doi:10.1109/2.268881
D. A. Patterson, G. Gibson, R. H. Katz, "A case for redundant arrays of inexpensive
disks (RAID)", Proc. ACM SIGMOD 1988, pp. 109-116. doi:10.1145/50202.50214
P. M. Chen, E. K. Lee, G. A. Gibson, R. H. Katz, D. A. Patterson, "RAID:
High-performance, reliable secondary storage", ACM Computing Surveys 26(2):145-185,
1994, §3.3 (RAID-5 small writes: read-modify-write, four disk accesses).
doi:10.1145/176979.176981
E. D. Lazowska, J. Zahorjan, G. S. Graham, K. C. Sevcik, *Quantitative System
Performance*, Prentice Hall 1984, §5.2 (asymptotic bounds), ch. 6 (MVA).
IBM Redbooks SG24-5465 (ESS F models), SG24-6424 (ESS Model 800), SG24-6786 (DS8000
Architecture and Implementation): ranks of 8 disk drives in RAID-5, cache, NVS.
IBM Redbook SG24-6452, *IBM TotalStorage DS8000 Series: Concepts and
Architecture*, IBM ITSO 2005, ch. 12, §12.2.2-12.2.3, p. 256: the ESS's "internal structures
and buses" and host bays as its architectural limits (the internal data path).
IBM Redbook SG24-7145-00, C. Warrick et al., *IBM TotalStorage DS6000 Series: Performance
Monitoring and Tuning*, IBM ITSO, December 2005, p. 48: the ESS 800's aggregated sequential
read and write bandwidth.
"""
from __future__ import annotations

import dataclasses
import math
from typing import Any, ClassVar

import numpy as np

from zmodel.queueing._params import param, prior
from zmodel.queueing._result import Result
from zmodel.conventions import (
    as_choice, as_count, as_float_array, as_fraction, as_int_array, as_probability, as_scalar, check_fields,
    vectorized,
)

__all__ = ["Disk", "DriveMechanics", "F20DriveMechanics", "RaidRank", "ScsiPathParameters", "StorageServer",
           "OPERATIONS", "RAID_LEVELS", "lru_hit_ratio", "SaturationResult",
           "OpenLoadResult", "ClosedLoadResult", "NvsResult"]

#: the four workloads
OPERATIONS = ("random_read", "random_write", "sequential_read", "sequential_write")
#: RAID levels of a rank
RAID_LEVELS = ("RAID-5", "RAID-10")



# ------------------------------------------------------------------------------- disk
@dataclasses.dataclass(frozen=True)
class Disk:
    r"""A disk drive: Ruemmler–Wilkes seek curve, rotational latency and media transfer.

    Parameters
    ----------
    rotation_rate : float
        Revolutions per second (rpm / 60) [1/s].
    media_rate : float
        Media transfer rate while the head reads one track (a data sheet's "formatted internal
        transfer rate"; a data sheet's *sustained* rate already pays the track switches: give
        it with ``track_switch=0``) [B/s].
    cylinders : int
        Number of cylinders (seek distances 0..cylinders-1) [1].
    seek_short : tuple of float
        ``(a, b)`` of the short-seek regime :math:`a + b\sqrt{d}` [s], [s].
    seek_long : tuple of float
        ``(c, e)`` of the long-seek regime :math:`c + e d` [s], [s].
    seek_boundary : float
        Distance (cylinders) where the long regime starts [1].
    write_settle : float
        Extra settling before a write, over a read's seek (0: one seek curve for both) [s].
    track_switch : float
        Time lost between consecutive tracks of a transfer: the skew that hides a head
        switch or a single-track seek (0: ``media_rate`` is already a sustained rate) [s].

    Notes
    -----
    Seek time for a distance of :math:`d > 0` cylinders (Ruemmler & Wilkes 1994, §"Seek
    time", after the HP 97560 measurements):

    .. math:: t_s(d) = \begin{cases} a + b\sqrt{d} & d < d_0 \\ c + e\,d & d \ge d_0\end{cases},
              \qquad t_s(0) = 0 .

    A random access (start and end cylinders independent and uniform) has distance
    density :math:`f(d) = 2(C - d)/C^2` (continuous approximation), so the average
    seek is :math:`\int_0^C t_s(d) f(d)\,dd`, evaluated in closed form. Rotational
    latency is half a revolution on average (uniform on one revolution, variance
    :math:`T^2/12`); transfer is ``size / media_rate``.

    A write must wait for the head to settle on the track more tightly than a read does:
    drive specifications print a separate, longer average seek for writes, measured like
    the read's "to the start of a reliable read or write operation" (HGST Ultrastar
    C15K600 Hard Disk Drive Specification, sec. 4.4.1.1 Table 6, p. 27: "Read 2.9",
    "Write 3.1" ms typical; Hitachi Travelstar 5K320 SATA OEM Specification, sec. 4.4.2.1
    Table 5, p. 19: "Read 12", "Write 13" ms). The write seek is the read seek plus a
    constant ``write_settle`` :math:`\Delta_w` (the settle phase ends the seek at every
    distance): :math:`t_{s,w}(d) = t_s(d) + \Delta_w` for :math:`d > 0`, so the average
    write seek is :math:`\bar t_s + \Delta_w`
    (:meth:`average_write_seek_time`). :meth:`service_time` and the ranks still charge
    the read's seek to every access.

    A transfer longer than what is left of a track moves on to the next track (another
    head of the cylinder, or the next cylinder). The drive formats each track's first
    block behind the previous track's last one by the switching time, "to avoid waiting
    for one turn involved in head and cylinder switching" (Fujitsu MAH3182MC Maintenance
    Manual, C141-E103-01EN, sec. 3 "Track skew and cylinder skew", p. 3-7), so each track
    costs one revolution :math:`T` plus the switch :math:`s` and the streaming rate is
    :math:`r_s = r\,T/(T + s)` (:attr:`sequential_rate`). A transfer of ``size`` bytes
    starting at a uniform position crosses ``size / (r T)`` track boundaries on average,
    so its mean transfer time is ``size / r_s`` at every size (:meth:`transfer_time`).

    References
    ----------
    C. Ruemmler, J. Wilkes, IEEE Computer 27(3):17-28, 1994. doi:10.1109/2.268881

    Examples
    --------
    The HP 97560 of Ruemmler & Wilkes: 1962 cylinders, 4002 rpm, seek
    3.24 + 0.400 sqrt(d) ms below 383 cylinders, 8.00 + 0.008 d ms above.

    >>> hp = Disk(4002 / 60, 2.2e6, 1962, (3.24e-3, 0.400e-3), (8.00e-3, 0.008e-3), 383)
    >>> round(hp.seek_time(100) * 1e3, 2), round(hp.seek_time(1000) * 1e3, 2)
    (7.24, 16.0)
    """

    rotation_rate: float
    media_rate: float
    cylinders: int
    seek_short: tuple
    seek_long: tuple
    seek_boundary: float
    write_settle: float = 0.0
    track_switch: float = 0.0

    def __post_init__(self):
        object.__setattr__(self, "rotation_rate", as_scalar("rotation_rate", self.rotation_rate, positive=True))
        object.__setattr__(self, "media_rate", as_scalar("media_rate", self.media_rate, positive=True))
        object.__setattr__(self, "cylinders", as_count("cylinders", self.cylinders, 2))
        for name in ("seek_short", "seek_long"):
            v = tuple(float(x) for x in getattr(self, name))
            if len(v) != 2 or not all(math.isfinite(x) and x >= 0 for x in v):
                raise ValueError(f"{name} must be two non-negative numbers (intercept [s], slope), got {v!r}")
            object.__setattr__(self, name, v)
        b = as_scalar("seek_boundary", self.seek_boundary, positive=True)
        if not (0 < b <= self.cylinders):
            raise ValueError(f"seek_boundary must be in (0, cylinders], got {self.seek_boundary!r}")
        object.__setattr__(self, "seek_boundary", b)
        object.__setattr__(self, "write_settle", as_scalar("write_settle", self.write_settle))
        object.__setattr__(self, "track_switch", as_scalar("track_switch", self.track_switch))

    @classmethod
    def from_specs(cls, rotation_rate, media_rate, cylinders, average_seek, full_stroke_seek,
                   track_seek, boundary_fraction=0.2, write_settle=0.0, track_switch=0.0) -> "Disk":
        r"""Fit the two-regime seek curve to a data sheet's three seek figures.

        Parameters
        ----------
        rotation_rate : float
            [1/s].
        media_rate : float
            [B/s].
        cylinders : int
            [1].
        average_seek : float
            Data-sheet average seek (random distance) [s].
        full_stroke_seek : float
            Data-sheet full-stroke seek [s].
        track_seek : float
            Data-sheet single-track (track-to-track) seek [s].
        boundary_fraction : float
            :math:`d_0 / C` (0.195 for the HP 97560) [1].
        write_settle : float
            Data-sheet average write seek minus average read seek [s].
        track_switch : float
            Time lost between consecutive tracks (class notes) [s].

        Notes
        -----
        Solves the linear system :math:`t_s(1) = ` track, :math:`t_s(C) = ` full stroke,
        continuity at :math:`d_0` and :math:`\int t_s f = ` average for
        :math:`(b, c, e)`, with :math:`a = ` track :math:`- b`.

        Examples
        --------
        >>> d = Disk.from_specs(250.0, 60e6, 10000, 3.5e-3, 8.0e-3, 0.4e-3)
        >>> round(d.average_seek_time() * 1e3, 6), round(d.seek_time(9999) * 1e3, 3)
        (3.5, 8.0)
        """
        C = float(as_count("cylinders", cylinders, 2))
        d0 = as_scalar("boundary_fraction", boundary_fraction, positive=True) * C
        t1, tf, ta = (as_scalar(n, v, positive=True) for n, v in
                      (("track_seek", track_seek), ("full_stroke_seek", full_stroke_seek),
                       ("average_seek", average_seek)))
        # integrals of 1, sqrt(d), d against f(d) = 2 (C - d)/C^2 on [0, d0] and [d0, C]
        def m(p, lo, hi):
            return 2.0 / C ** 2 * (C * (hi ** (p + 1) - lo ** (p + 1)) / (p + 1)
                                   - (hi ** (p + 2) - lo ** (p + 2)) / (p + 2))
        I0s, Ihs, I0l, I1l = m(0, 0, d0), m(0.5, 0, d0), m(0, d0, C), m(1, d0, C)
        # unknowns (b, c, e); a = t1 - b
        A = np.array([[math.sqrt(d0) - 1.0, -1.0, -d0],        # a + b sqrt(d0) = c + e d0
                      [0.0, 1.0, C],                            # c + e C = tf
                      [Ihs - I0s, I0l, I1l]])                   # mean = ta
        rhs = np.array([-t1, tf, ta - t1 * I0s])
        b, c, e = np.linalg.solve(A, rhs)
        a = t1 - b
        if min(a, b, c, e) < 0:
            raise ValueError("seek figures inconsistent with a two-regime curve with non-negative "
                             f"coefficients (a={a:.3g}, b={b:.3g}, c={c:.3g}, e={e:.3g})")
        return cls(rotation_rate, media_rate, int(C), (a, b), (c, e), d0, write_settle, track_switch)

    @classmethod
    def from_stroke(cls, rotation_rate, media_rate, cylinders, full_stroke_seek, track_seek,
                    write_settle=0.0, track_switch=0.0) -> "Disk":
        r"""A drive whose seek follows the constant-acceleration law between its two end seeks.

        For a data sheet read without its average seek: the curve is predicted, not fitted to it.

        Parameters
        ----------
        rotation_rate, media_rate, cylinders, write_settle, track_switch
            As :meth:`from_specs`.
        full_stroke_seek : float
            Data-sheet full-stroke seek [s].
        track_seek : float
            Data-sheet single-track seek, settling included [s].

        Notes
        -----
        An arm driven at its full acceleration :math:`\alpha` over the first half of a
        seek and braked over the second covers :math:`d` in
        :math:`2\sqrt{d/\alpha}` (uniform acceleration from rest, twice
        :math:`d/2 = \alpha t^2/2`); with a settle time of its own, the seek is
        :math:`a + b\sqrt{d}`, the short-seek regime of Ruemmler & Wilkes (1994,
        §"Seek time") taken over the whole stroke (no coasting at a top speed). The two
        data-sheet figures fix it: :math:`a + b = ` track seek at :math:`d = 1`,
        :math:`a + b\sqrt{C} = ` full stroke. Over the random-access density
        :math:`f(d) = 2(C - d)/C^2`, :math:`E\sqrt{d} = \tfrac{8}{15}\sqrt{C}`, so the
        average seek is :math:`a + \tfrac{8}{15} b \sqrt{C}`, tending to
        :math:`t_1 + \tfrac{8}{15}(t_f - t_1)` for many cylinders. A velocity-limited
        (coasting) arm has a more nearly linear long-seek curve, whose average between
        the same ends is lower (linear: :math:`t_1 + \tfrac13 (t_f - t_1)`).

        Examples
        --------
        >>> d = Disk.from_stroke(90.0, 50e6, 10**6, 20.0e-3, 1.0e-3)
        >>> round(d.seek_time(1) * 1e3, 9), round(d.seek_time(10**6) * 1e3, 9)
        (1.0, 20.0)
        >>> round(d.average_seek_time() * 1e3, 3)   # 1 + 8/15 x 19 = 11.133 for a very large C
        11.124
        """
        C = float(as_count("cylinders", cylinders, 2))
        t1, tf = (as_scalar(n, v, positive=True) for n, v in
                  (("track_seek", track_seek), ("full_stroke_seek", full_stroke_seek)))
        if not tf > t1:
            raise ValueError(f"full_stroke_seek must exceed track_seek, got {tf!r} <= {t1!r}")
        b = (tf - t1) / (math.sqrt(C) - 1.0)
        if b > t1:
            raise ValueError(f"track_seek must be at least (full_stroke_seek - track_seek) / (sqrt(cylinders) - 1) "
                             f"= {b:.3g} s (a settle time that is not negative), got {t1!r} with {int(C)} cylinders")
        # the long regime starts at the full stroke itself: t(C) = c + e C = tf with e = 0
        return cls(rotation_rate, media_rate, int(C), (t1 - b, b), (tf, 0.0), C, write_settle, track_switch)

    @vectorized
    def seek_time(self, distance):
        """Seek time for ``distance`` cylinders (0 gives 0) [s]."""
        d = as_float_array("distance", distance)
        a, b = self.seek_short
        c, e = self.seek_long
        t = np.where(d < self.seek_boundary, a + b * np.sqrt(d), c + e * d)
        return np.where(d == 0, 0.0, t)

    def _seek_moments(self):
        C, d0 = float(self.cylinders), self.seek_boundary
        x = np.linspace(0.0, C, 20001)
        f = 2.0 * (C - x) / C ** 2
        t = self.seek_time(x)
        t1 = np.trapezoid(t * f, x)
        t2 = np.trapezoid(t * t * f, x)
        return float(t1), float(t2)

    @vectorized
    def average_seek_time(self) -> float:
        """Mean seek of a random access (closed form over f(d) = 2(C-d)/C^2) [s]."""
        C, d0 = float(self.cylinders), self.seek_boundary
        a, b = self.seek_short
        c, e = self.seek_long
        def m(p, lo, hi):
            return 2.0 / C ** 2 * (C * (hi ** (p + 1) - lo ** (p + 1)) / (p + 1)
                                   - (hi ** (p + 2) - lo ** (p + 2)) / (p + 2))
        return float(a * m(0, 0, d0) + b * m(0.5, 0, d0) + c * m(0, d0, C) + e * m(1, d0, C))

    def average_write_seek_time(self) -> float:
        r"""Mean seek of a random write: the read's mean seek plus the write settle [s].

        Notes
        -----
        :math:`\bar t_{s,w} = \bar t_s + \Delta_w` (see the class notes; the data sheets
        print the two averages side by side, e.g. HGST Ultrastar C15K600 Table 6, p. 27).

        Examples
        --------
        >>> d = Disk.from_specs(250.0, 60e6, 10000, 3.5e-3, 8.0e-3, 0.4e-3, write_settle=0.2e-3)
        >>> round(d.average_write_seek_time() * 1e3, 6)
        3.7
        """
        return self.average_seek_time() + self.write_settle

    @property
    def revolution_time(self) -> float:
        """One revolution [s]."""
        return 1.0 / self.rotation_rate

    @property
    def rotational_latency(self) -> float:
        """Mean rotational latency, half a revolution [s]."""
        return 0.5 / self.rotation_rate

    @property
    def sequential_rate(self) -> float:
        r"""Streaming rate over many tracks, :math:`r\,T/(T + s)` (class notes) [B/s].

        Examples
        --------
        A 15,000 rpm track (T = 4 ms) read at 48.9 MB/s with a 0.7 ms switch to the next
        track streams 48.9 x 4/4.7 = 41.6 MB/s:

        >>> d = Disk.from_stroke(250.0, 48.9e6, 10**4, 8e-3, 0.7e-3, track_switch=0.7e-3)
        >>> round(d.sequential_rate / 1e6, 2)
        41.62
        """
        T = self.revolution_time
        return self.media_rate * T / (T + self.track_switch)

    @vectorized
    def transfer_time(self, size):
        """Mean media transfer time of ``size`` bytes, track switches included (class notes) [s]."""
        return as_float_array("size", size, positive=True) / self.sequential_rate

    @vectorized
    def service_time(self, size, sequential: bool = False):
        r"""Mean time of one access of ``size`` bytes [s].

        Random: :math:`\bar t_s + T/2 + \text{size}/r`; sequential (no seek, no
        latency: the head is already there): :math:`\text{size}/r`.
        """
        tr = np.asarray(self.transfer_time(size))
        return tr if sequential else self.average_seek_time() + self.rotational_latency + tr

    @vectorized
    def service_scv(self, size):
        """Squared coefficient of variation of a random access (seek and latency independent) [1]."""
        t1, t2 = self._seek_moments()
        var = (t2 - t1 ** 2) + self.revolution_time ** 2 / 12.0
        mean = np.asarray(self.service_time(size))
        return var / mean ** 2


# ------------------------------------------------------------------------------- rank
@dataclasses.dataclass(frozen=True)
class RaidRank:
    r"""A RAID-5 rank: ``width`` disks, one disk's worth of rotated parity.

    Parameters
    ----------
    disk : Disk
        The drive of every member.
    width : int
        Disks in the rank (8 for ESS/DS8000 7+P; 7 active for 6+P+S) [1].

    Notes
    -----
    Back-end disk accesses per host operation (Chen et al. 1994, §3.3; Patterson,
    Gibson & Katz 1988, "small writes"): a random read costs 1; a random (small)
    write costs 4 — read old data, read old parity, write data, write parity; a
    full-stride sequential write of ``width - 1`` data blocks writes ``width``
    blocks, i.e. :math:`w/(w-1)` disk-writes per data block and no reads.

    Examples
    --------
    >>> r = RaidRank(Disk.from_specs(250.0, 60e6, 10000, 3.5e-3, 8e-3, 0.4e-3), width=8)
    >>> r.backend_accesses("random_write"), r.backend_accesses("sequential_write")
    (4.0, 1.1428571428571428)
    """

    disk: Disk
    width: int = 8
    level: str = "RAID-5"

    def __post_init__(self):
        if not isinstance(self.disk, Disk):
            raise ValueError(f"disk must be a Disk, got {type(self.disk).__name__}")
        if self.level not in RAID_LEVELS:
            raise ValueError(f"level must be one of {list(RAID_LEVELS)}, got {self.level!r}")
        if self.level == "RAID-10":
            w = as_count("width", self.width, 2)
            if w % 2:
                raise ValueError(f"width must be an even integer >= 2 for RAID-10 (mirrored pairs), got {self.width!r}")
            object.__setattr__(self, "width", w)
        else:
            object.__setattr__(self, "width", as_count("width", self.width, 3))

    @property
    def data_disks(self) -> int:
        """Disks' worth of data capacity: width - 1 (RAID-5), width / 2 (RAID-10) [1]."""
        return self.width // 2 if self.level == "RAID-10" else self.width - 1

    @vectorized
    def backend_accesses(self, op: str) -> float:
        """Disk accesses per host operation (of one block) [1].

        RAID-5: 1, 4, 1, w/(w-1) for random read, random write, sequential read and
        write; RAID-10: 1, 2, 1, 2 (every write goes to both copies of a mirrored pair;
        a read to one copy; Chen et al. 1994, §3.3, "mirrored" level 1).
        """
        op = as_choice("op", op, OPERATIONS)
        if self.level == "RAID-10":
            return {"random_read": 1.0, "random_write": 2.0, "sequential_read": 1.0,
                    "sequential_write": 2.0}[op]
        return {"random_read": 1.0, "random_write": 4.0, "sequential_read": 1.0,
                "sequential_write": self.width / (self.width - 1)}[op]

    @vectorized
    def disk_seconds(self, op: str, size) -> Any:
        """Disk busy time summed over the rank's members per host operation of ``size`` bytes [s].

        Random operations pay seek + latency + transfer per access; sequential ones
        stream (transfer only) — the ``size`` bytes, plus the parity share for writes.
        """
        op = as_choice("op", op, OPERATIONS)
        if op.startswith("random"):
            return self.backend_accesses(op) * np.asarray(self.disk.service_time(size))
        return self.backend_accesses(op) * np.asarray(self.disk.transfer_time(size))

    @vectorized
    def capacity(self, op: str, size) -> Any:
        """Maximum host operations per second of the rank, width / disk_seconds [1/s]."""
        return self.width / np.asarray(self.disk_seconds(op, size))


# ------------------------------------------------------------------------------- cache
def _popularity_bins(items: int, skew: float, exact: int = 4096, bins: int = 4096):
    """Zipf popularity q_i ∝ i^-skew, i = 1..items, as (count, q) pairs: exact head, geometric bins after."""
    head = np.arange(1, min(items, exact) + 1, dtype=float)
    counts, reps = [np.ones_like(head)], [head]
    if items > exact:
        edges = np.unique(np.round(np.geomspace(exact, items, bins + 1)))
        lo, hi = edges[:-1], edges[1:]                       # bin holds items lo+1 .. hi
        counts.append(hi - lo)
        # mean of x^-skew over (lo, hi], continuous approximation of the bin's members
        if skew == 1.0:
            mean = np.log(hi / lo) / (hi - lo)
        else:
            mean = (hi ** (1 - skew) - lo ** (1 - skew)) / ((1 - skew) * (hi - lo))
        reps.append(mean ** (-1.0 / skew) if skew > 0 else np.ones_like(lo))
    c = np.concatenate(counts)
    w = np.concatenate(reps) ** (-skew)
    return c, w / np.sum(c * w)


def lru_hit_ratio(cache_size, footprint, block_size=4096.0, skew=0.0) -> float:
    r"""Hit ratio of an LRU cache under the independent reference model (Che's approximation).

    Parameters
    ----------
    cache_size : float
        Cache capacity available to the workload, positive [B].
    footprint : float
        Bytes the workload references (its working set), positive [B].
    block_size : float, default 4096
        Caching unit (track or block), positive [B].
    skew : float, default 0
        Zipf exponent of the block popularity, >= 0: 0 = every block equally likely
        (uniform random over the footprint), ~0.8-1 = skewed OLTP-like references [1].

    Returns
    -------
    float
        Hit ratio in [0, 1] [1].

    Notes
    -----
    With :math:`N = \lceil \text{footprint}/\text{block} \rceil` blocks of popularity
    :math:`q_i \propto i^{-s}` and :math:`C = \text{cache}/\text{block}` slots, Che's
    approximation (H. Che, Y. Tung, Z. Wang, "Hierarchical Web caching systems:
    modeling, design and experimental results", IEEE JSAC 20(7):1305-1314, 2002;
    restated as eqs. (1)-(2) of V. Martina, M. Garetto, E. Leonardi, "A unified
    approach to the performance analysis of caching systems", IEEE INFOCOM 2014,
    arXiv:1307.6702, §III; page of the JSAC original not re-checked) takes each block
    in cache with probability :math:`1 - e^{-q_i T_C}`, the characteristic time
    :math:`T_C` solving :math:`\sum_i (1 - e^{-q_i T_C}) = C`; the hit ratio is
    :math:`h = \sum_i q_i (1 - e^{-q_i T_C})`. For :math:`s = 0` this gives exactly
    :math:`h = C/N`, the working-set result for uniform references; :math:`C \ge N`
    gives 1. Blocks beyond the 4096 most popular are summed in 4096 geometric bins
    (the terms vary slowly there). Validity: stationary independent references, LRU
    replacement, equal-size blocks; sequential pre-staging is not a hit-ratio effect
    (see :meth:`StorageServer.demands`).

    Examples
    --------
    >>> round(lru_hit_ratio(8 * 2**30, 32 * 2**30), 6)        # uniform: C / N
    0.25
    >>> lru_hit_ratio(64 * 2**30, 32 * 2**30)
    1.0
    """
    from scipy.optimize import brentq

    c_bytes = as_scalar("cache_size", cache_size, positive=True)
    f_bytes = as_scalar("footprint", footprint, positive=True)
    b = as_scalar("block_size", block_size, positive=True)
    s = as_scalar("skew", skew)
    items = int(math.ceil(f_bytes / b))
    slots = c_bytes / b
    if slots >= items:
        return 1.0
    counts, q = _popularity_bins(items, s)

    def excess(log_t):
        return float(np.sum(counts * -np.expm1(-q * math.exp(log_t)))) - slots

    lo = math.log(slots)                          # sum(1 - e^{-qT}) <= T, so excess(log C) <= 0
    hi = lo + 1.0
    while excess(hi) <= 0:
        hi += 2.0
    t = math.exp(brentq(excess, lo, hi, xtol=1e-12, rtol=1e-13))
    return float(min(1.0, np.sum(counts * q * -np.expm1(-q * t))))


# ------------------------------------------------------------------------------- results
@dataclasses.dataclass(frozen=True)
class SaturationResult(Result):
    """Saturation point of a storage server for one workload.

    Attributes
    ----------
    max_io_rate : float or ndarray
        min over resources of their capacity [1/s].
    max_data_rate : float or ndarray
        max_io_rate x size [B/s].
    link_limit, adapter_limit, backend_limit : float or ndarray
        Capacity of each resource set [1/s].
    bottleneck : str
        Name of the limiting resource set (of the first entry when batched).
    device_adapter_limit, cluster_limit, cache_limit, mirror_limit : float or ndarray
        Capacity of the device adapters, the cluster processors, the cache bandwidth
        and the cross-cluster NVS mirroring path (``inf`` when not a limit) [1/s].
    internal_limit : float or ndarray
        Capacity of the internal data path between host adapters and clusters
        (``inf`` when not a limit) [1/s].
    """

    max_io_rate: Any
    max_data_rate: Any
    link_limit: Any
    adapter_limit: Any
    backend_limit: Any
    bottleneck: str
    device_adapter_limit: Any = math.inf
    cluster_limit: Any = math.inf
    cache_limit: Any = math.inf
    mirror_limit: Any = math.inf
    internal_limit: Any = math.inf


@dataclasses.dataclass(frozen=True)
class OpenLoadResult(Result):
    """Open (Poisson) load on a storage server.

    Attributes
    ----------
    throughput : ndarray
        Carried request rate [1/s].
    response_time : ndarray
        Mean response time per request (inf when saturated) [s].
    link_utilization, backend_utilization : ndarray
        Per-server utilization of the links and of the disks [1].
    """

    throughput: Any
    response_time: Any
    link_utilization: Any
    backend_utilization: Any


@dataclasses.dataclass(frozen=True)
class ClosedLoadResult(Result):
    """Closed load: ``threads`` synchronous requesters (iozone-like).

    Attributes
    ----------
    throughput : ndarray
        Requests per second [1/s].
    data_rate : ndarray
        Bytes per second [B/s].
    response_time : ndarray
        Mean response time per request, think time excluded [s].
    link_utilization, backend_utilization : ndarray
        Per-server utilizations [1].
    """

    throughput: Any
    data_rate: Any
    response_time: Any
    link_utilization: Any
    backend_utilization: Any


@dataclasses.dataclass(frozen=True)
class NvsResult(Result):
    """NVS as a finite write buffer (M/M/1/K).

    Attributes
    ----------
    full_probability : ndarray
        P(NVS full when a write arrives): the write must wait for a destage [1].
    destage_utilization : ndarray
        Write arrival rate / destage rate (may exceed 1) [1].
    destage_rate : float or ndarray
        Back-end destage capacity in writes per second [1/s].
    buffer_writes : int or ndarray
        NVS capacity in writes of the given size [1].
    """

    full_probability: Any
    destage_utilization: Any
    destage_rate: float
    buffer_writes: int


# ------------------------------------------------------------------------------- server

def _capacity(servers, demand):
    """Requests per second ``servers`` can carry at ``demand`` seconds each (bottleneck law); ``inf`` without demand."""
    demand = np.asarray(demand, dtype=float)
    with np.errstate(divide="ignore"):
        return np.where(demand > 0, servers / np.where(demand > 0, demand, 1.0), np.inf)

@dataclasses.dataclass(frozen=True)
class StorageServer:
    r"""A cached, RAID-5 storage server with NVS fast write, host adapters and links.

    Parameters
    ----------
    name : str
        Catalog name, e.g. ``"DS8300"``.
    cache_size : float
        Read/write cache [B].
    nvs_size : float
        Non-volatile storage for fast writes [B].
    disk : Disk
        The drive.
    disk_count : int
        Number of drives [1].
    rank_width : int
        Drives per RAID-5 rank (8) [1].
    link_rate : float
        Signalling rate of one host link [bit/s] (data rate = link_rate x
        ``link_efficiency`` / 8 bytes/s).
    links : int
        Host links in use [1].
    host_adapters : int
        Host adapters in use [1].
    adapter_rate : float
        Requests per second one host adapter can process (``inf``: not a limit) [1/s].
    link_efficiency : float
        Payload bytes per signalled byte (8b/10b coding: 0.8) [1].
    hit_time : float
        Controller time of a cache hit or fast write (per request) [s].
    raid_level : {"RAID-5", "RAID-10"}, default "RAID-5"
        Level of every rank [-].
    device_adapters : int, default 1
        Device adapters moving data between cache and ranks [1].
    device_adapter_rate : float, default inf
        Bytes per second one device adapter moves (``inf``: not a limit) [B/s].
    clusters : int, default 2
        Cluster processor complexes (the two "servers" of an ESS/DS8000) [1].
    cluster_time : float, default 0
        Cluster-processor time per host request (0: not a limit) [s].
    cache_bandwidth : float, default inf
        Bytes per second through the cache memory, all clusters together [B/s].
    nvs_mirroring : bool, default True
        Every write is copied into the NVS of the other cluster before it completes.
    mirror_rate : float, default inf
        Bytes per second of the path that carries the NVS copies between clusters [B/s].
    internal_rate : float, default inf
        Bytes per second of host data the internal data path between the host adapters
        and the clusters (host bays, internal buses) carries, reads and writes together
        (``inf``: not a limit) [B/s].

    Notes
    -----
    Per request of ``size`` bytes and read hit ratio :math:`h`:

    * host links: :math:`D_{link} = \text{size}/(0.8\,\text{link\_rate}/8)` (FC 8b/10b);
    * back end: read misses :math:`(1-h)` and every write (destaged eventually)
      cost ``RaidRank.disk_seconds`` disk-seconds, spread over ``disk_count`` disks
      (sequential reads are pre-staged in stride units: streaming cost only);
    * device adapters: the back-end bytes, :math:`a\,m\,\text{size}` with ``a``
      back-end accesses per request (:meth:`RaidRank.backend_accesses`) and ``m`` the
      miss fraction (1 except random reads), over ``device_adapters`` x
      ``device_adapter_rate``;
    * cluster processors: ``cluster_time`` per request over ``clusters``;
    * cache memory: a read passes ``(1 + m) size`` bytes (staged in on a miss, out to
      the host); a write ``2 size`` (in from the host, out at destage);
    * NVS mirroring: a write sends ``size`` bytes to the other cluster's NVS (IBM
      Redbook SG24-6786 / SG24-6452, ch. 4 "RAS", Figure 4-3 "Normal data flow", p. 69:
      data written to cache of the owning server, then to the NVS of the alternate
      server, then the write is reported complete, then destaged);
    * internal data path: every request, read or write, moves its ``size`` bytes
      between the host adapters and the cluster that owns the volume, over ``internal_rate``
      (SG24-6452, §12.2.2-12.2.3, p. 256: the ESS's "internal structures and buses" and
      host bays as its limits; an aggregate rate where no component rate is published);
    * saturation :math:`X_{max} = \min_k c_k / D_k` over links, host adapters, disks
      and the five sets above (Lazowska et al. 1984, §5.2). Reads and writes therefore
      saturate at their own rates once the cache, mirroring or device adapters bind,
      e.g. reads at the internal path and writes at the (slower) mirroring path.

    Writes are fast writes into NVS; in steady state the back end must destage every
    write, so long-run write throughput is bounded by the destage capacity; the NVS
    only absorbs bursts (:meth:`nvs`).

    Examples
    --------
    >>> disk = Disk.from_specs(250.0, 75e6, 50000, 3.5e-3, 7.5e-3, 0.3e-3)
    >>> s = StorageServer("toy", 32 * 2**30, 2**30, disk, 128, 8, 2e9, links=4, host_adapters=4)
    >>> sat = s.saturation("sequential_read", 2**20)
    >>> sat.bottleneck, round(sat.max_data_rate / 1e6)
    ('links', 800)
    """

    name: str
    cache_size: float
    nvs_size: float
    disk: Disk
    disk_count: int
    rank_width: int
    link_rate: float
    links: int = 4
    host_adapters: int = 4
    adapter_rate: float = math.inf
    link_efficiency: float = 0.8
    hit_time: float = 0.2e-3
    raid_level: str = "RAID-5"
    device_adapters: int = 1
    device_adapter_rate: float = math.inf
    clusters: int = 2
    cluster_time: float = 0.0
    cache_bandwidth: float = math.inf
    nvs_mirroring: bool = True
    mirror_rate: float = math.inf
    internal_rate: float = math.inf

    def __post_init__(self):
        if not isinstance(self.name, str) or not self.name:
            raise ValueError(f"name must be a non-empty string, got {self.name!r}")
        for n in ("cache_size", "nvs_size", "link_rate", "hit_time"):
            object.__setattr__(self, n, as_scalar(n, getattr(self, n), positive=True))
        object.__setattr__(self, "adapter_rate", as_scalar("adapter_rate", self.adapter_rate,
                                                                positive=True, allow_inf=True))
        object.__setattr__(self, "link_efficiency", as_fraction("link_efficiency", self.link_efficiency,
                                                                positive=True))
        if not isinstance(self.disk, Disk):
            raise ValueError(f"disk must be a Disk, got {type(self.disk).__name__}")
        for n in ("disk_count", "links", "host_adapters"):
            object.__setattr__(self, n, as_count(n, getattr(self, n)))
        if self.raid_level not in RAID_LEVELS:
            raise ValueError(f"raid_level must be one of {list(RAID_LEVELS)}, got {self.raid_level!r}")
        width = as_count("rank_width", self.rank_width, 2 if self.raid_level == "RAID-10" else 3)
        object.__setattr__(self, "rank_width", RaidRank(self.disk, width, self.raid_level).width)
        for n in ("device_adapters", "clusters"):
            object.__setattr__(self, n, as_count(n, getattr(self, n)))
        for n in ("device_adapter_rate", "cache_bandwidth", "mirror_rate", "internal_rate"):
            object.__setattr__(self, n, as_scalar(n, getattr(self, n), positive=True, allow_inf=True))
        object.__setattr__(self, "cluster_time", as_scalar("cluster_time", self.cluster_time))
        if not isinstance(self.nvs_mirroring, (bool, np.bool_)):
            raise ValueError(f"nvs_mirroring must be True or False, got {self.nvs_mirroring!r}")
        if self.disk_count < self.rank_width:
            raise ValueError(f"disk_count must be at least rank_width ({self.rank_width}), got {self.disk_count}")

    #: optional catalog parameters (``storage_servers.csv``) -> constructor fields: the
    #: internal limits a server's row may source; absent rows keep the field's default
    #: (not a limit)
    CATALOG_LIMITS: ClassVar[dict[str, str]] = {
        "host_adapter_rate": "adapter_rate", "device_adapters": "device_adapters",
        "device_adapter_rate": "device_adapter_rate", "clusters": "clusters", "cluster_time": "cluster_time",
        "cache_bandwidth": "cache_bandwidth", "mirror_rate": "mirror_rate", "internal_rate": "internal_rate"}

    @classmethod
    def from_catalog(cls, name: str, *, data_dir=None, **overrides) -> "StorageServer":
        """Build from ``zmodel/_data/hardware/storage_servers.csv`` via :mod:`zmodel.hardware.catalog`.

        Parameters
        ----------
        name : str
            Catalog name or alias, e.g. ``"ESS-800"``.
        data_dir : path-like, optional
            Folder holding ``hardware/``.
        **overrides
            Constructor arguments that replace the catalog's (e.g. ``links=8``).

        Returns
        -------
        StorageServer

        Notes
        -----
        The drive's ``disk_write_settle`` [s] (average write seek minus average read
        seek) is optional: without a row the drive has one seek for reads and writes.
        Besides the drive, cache, NVS, disk count, rank width and link rate, a row may
        give the internal limits of :data:`CATALOG_LIMITS` (``host_adapter_rate`` [1/s],
        ``device_adapters`` [1], ``device_adapter_rate`` [B/s], ``clusters`` [1],
        ``cluster_time`` [s], ``cache_bandwidth`` [B/s], ``mirror_rate`` [B/s],
        ``internal_rate`` [B/s]); a limit without a sourced row stays at its default (not
        a limit).
        """
        from zmodel.hardware import catalog

        p = catalog.component("storage_servers", name, data_dir=data_dir)
        disk = Disk.from_specs(p["disk_rpm"], p["disk_media_rate"], int(p["disk_cylinders"]),
                               p["disk_average_seek"], p["disk_full_stroke_seek"], p["disk_track_seek"],
                               write_settle=p.get("disk_write_settle", 0.0))
        args = dict(name=name, cache_size=p["cache_size"], nvs_size=p["nvs_size"], disk=disk,
                    disk_count=int(p["disk_count"]), rank_width=int(p["rank_width"]),
                    link_rate=p["link_rate"])
        for key, field in cls.CATALOG_LIMITS.items():
            if key in p:
                args[field] = int(p[key]) if field in ("device_adapters", "clusters") else p[key]
        args.update(overrides)
        return cls(**args)

    # -------------------------------------------------------------- structure
    @property
    def rank(self) -> RaidRank:
        """One rank of this server (its ``raid_level``)."""
        return RaidRank(self.disk, self.rank_width, self.raid_level)

    @property
    def ranks(self) -> int:
        """Number of ranks, disk_count // rank_width [1]."""
        return self.disk_count // self.rank_width

    @property
    def link_data_rate(self) -> float:
        """Payload bytes per second of one link [B/s]."""
        return self.link_rate * self.link_efficiency / 8.0

    def hit_ratio(self, footprint, block_size=4096.0, skew=0.0) -> float:
        """Read hit ratio of this server's cache for a workload footprint (:func:`lru_hit_ratio`) [1].

        Parameters
        ----------
        footprint : float
            Bytes the workload references [B].
        block_size : float, default 4096
            Caching unit [B].
        skew : float, default 0
            Zipf exponent of the block popularity [1].

        Returns
        -------
        float
        """
        return lru_hit_ratio(self.cache_size, footprint, block_size, skew)

    # -------------------------------------------------------------- demands
    @vectorized
    def demands(self, op: str, size, hit_ratio=0.0) -> dict:
        """Per-request service demands [s]: ``link`` (one link), ``disk`` (disk-seconds), ``adapter``,
        ``device_adapter`` (one adapter), ``cluster`` (one cluster), ``cache``, ``mirror`` and
        ``internal`` (whole server).

        ``hit_ratio`` is the read-cache hit ratio (random reads); writes are all
        destaged; sequential reads are pre-staged (all back-end, streaming cost).
        """
        op = as_choice("op", op, OPERATIONS)
        h = as_probability("hit_ratio", hit_ratio)
        size = as_float_array("size", size, positive=True)
        disk = np.asarray(self.rank.disk_seconds(op, size))
        if op == "random_read":
            disk = (1.0 - h) * disk
        link = size / self.link_data_rate
        adapter = np.where(np.isinf(self.adapter_rate), 0.0, 1.0 / self.adapter_rate) * np.ones_like(size)
        miss = (1.0 - h) if op == "random_read" else 1.0
        backend_bytes = self.rank.backend_accesses(op) * miss * size
        write = op.endswith("write")
        cache_bytes = 2.0 * size if write else (1.0 + miss) * size
        mirror_bytes = size if (write and self.nvs_mirroring) else 0.0 * size
        one = np.ones_like(size)
        return {"link": link, "disk": disk, "adapter": adapter,
                "device_adapter": backend_bytes / self.device_adapter_rate,
                "cluster": self.cluster_time * one,
                "cache": cache_bytes / self.cache_bandwidth,
                "mirror": mirror_bytes / self.mirror_rate,
                "internal": size / self.internal_rate}

    # -------------------------------------------------------------- predictions
    @vectorized
    def saturation(self, op: str, size, hit_ratio=0.0) -> SaturationResult:
        r"""Maximum request rate and data rate: min over links, adapters and disks.

        Parameters
        ----------
        op : str
            One of :data:`OPERATIONS`.
        size : float or array_like
            Request size [B].
        hit_ratio : float or array_like
            Read-cache hit ratio in [0, 1] [1].

        Returns
        -------
        SaturationResult

        Notes
        -----
        :math:`X_{max} = \min_k c_k / D_k` over the resource sets (Lazowska et al.
        1984, §5.2, asymptotic bounds), with :math:`c_k` servers per set.
        """
        lim = self._limits(self.demands(op, size, hit_ratio))
        stack = np.broadcast_arrays(*lim.values())
        x = np.min(stack, axis=0)
        first = [float(np.ravel(a)[0]) for a in stack]
        bottleneck = tuple(lim)[int(np.argmin(first))]
        size = np.asarray(size, dtype=float)
        return SaturationResult(max_io_rate=x, max_data_rate=x * size, link_limit=lim["links"],
                                adapter_limit=lim["adapters"], backend_limit=lim["backend"], bottleneck=bottleneck,
                                device_adapter_limit=lim["device_adapters"],
                                cluster_limit=lim["clusters"], cache_limit=lim["cache"],
                                mirror_limit=lim["mirror"], internal_limit=lim["internal"])

    def _limits(self, d) -> dict:
        """Capacity [1/s] of every resource set for the per-request demands ``d``.

        ``d`` is :meth:`demands`' dict, or any weighted sum of such dicts (a mix of operations);
        the keys are the bottleneck names of :meth:`saturation` (``links``, ``adapters``,
        ``backend``, then those of the device adapters, clusters, cache, mirroring and internal
        path); ``inf`` where a resource has no demand.
        """
        return {"links": _capacity(self.links, d["link"]), "adapters": _capacity(self.host_adapters, d["adapter"]),
                "backend": _capacity(self.disk_count, d["disk"]), **self._extra_limits(d)}

    def _extra_limits(self, d) -> dict:
        """Capacities [1/s] of device adapters, clusters, cache, mirroring and the internal path (inf: not limiting)."""
        return {"device_adapters": _capacity(self.device_adapters, d["device_adapter"]),
                "clusters": _capacity(self.clusters, d["cluster"]),
                "cache": _capacity(1, d["cache"]), "mirror": _capacity(1, d["mirror"]),
                "internal": _capacity(1, d["internal"])}

    def _extra_cap(self, d):
        return np.min(np.broadcast_arrays(*self._extra_limits(d).values()), axis=0)

    @vectorized
    def open_load(self, arrival_rate, op: str, size, hit_ratio=0.0) -> OpenLoadResult:
        r"""Response time under Poisson load: links M/D/c, disks M/G/1 each, hits a fixed delay.

        Parameters
        ----------
        arrival_rate : float or array_like
            Offered requests per second [1/s].
        op : str
            One of :data:`OPERATIONS`.
        size : float
            Request size [B].
        hit_ratio : float
            Read-cache hit ratio [1].

        Returns
        -------
        OpenLoadResult

        Notes
        -----
        Links: requests spread over ``links`` links, each an M/D/1 with transfer time
        ``size / link_data_rate``. Disks: accesses spread uniformly over
        ``disk_count`` disks, each an M/G/1 (Pollaczek–Khinchine, Kleinrock 1975 Sec.
        5.6) with the disk's random-access service and its scv (streaming accesses:
        deterministic). Random reads that miss wait for the disk; writes are fast writes
        (response = hit time + link) while the destage keeps up, and sequential reads are
        pre-staged into the cache ahead of the host (as in :meth:`closed_load`; until
        2026-11-27 they waited for the disks here): the disks carry the destage and pre-stage
        load. Response time :math:`R = t_{hit} + R_{link} + (1-h)\,R_{disk}` for random reads,
        :math:`t_{hit} + R_{link}` for writes and sequential reads; ``inf`` once any resource
        saturates (library policy).
        """
        from zmodel.queueing import md1, mg1

        op = as_choice("op", op, OPERATIONS)
        lam = as_float_array("arrival_rate", arrival_rate)
        d = self.demands(op, size, hit_ratio)
        h = as_probability("hit_ratio", hit_ratio) if op == "random_read" else np.zeros(())
        accesses = self.rank.backend_accesses(op)
        lam, link_time, disk_time, h = np.broadcast_arrays(lam, d["link"], d["disk"], h)
        busy = disk_time > 0  # every hit (h = 1) leaves the disks idle
        per_access = np.where(busy, disk_time / (accesses * np.where(busy, 1.0 - h, 1.0)), 1.0)
        scv = self.disk.service_scv(size) if op.startswith("random") else 0.0
        disk_rate = np.where(busy, lam * accesses * (1.0 - h) / self.disk_count, 0.0)
        link = md1(lam / self.links, link_time)
        disk = mg1(disk_rate, per_access, scv)
        r_link = np.asarray(link.response_time)
        u_disk = np.where(busy, disk_rate * per_access, 0.0)
        if op == "random_read":
            r_disk = np.where(busy, np.asarray(disk.response_time), 0.0)
            resp = self.hit_time + r_link + (1.0 - h) * r_disk
        else:   # fast writes and pre-staged sequential reads (as closed_load): the disks work behind them
            resp = self.hit_time + r_link + np.where(u_disk >= 1, np.inf, 0.0)
        resp = np.where(lam >= self._extra_cap(d), np.inf, resp)
        sat = self.saturation(op, size, hit_ratio).max_io_rate
        x = np.minimum(lam, sat)
        # utilizations at the carried load x (utilization law), as throughput is (until 2026-11-27
        # the disks' was at the offered rate past saturation)
        carried = np.where(lam > 0, x / np.where(lam > 0, lam, 1.0), 0.0)
        return OpenLoadResult(throughput=x, response_time=resp,
                              link_utilization=np.minimum(x * link_time / self.links, 1.0),
                              backend_utilization=np.minimum(u_disk * carried, 1.0))

    @vectorized
    def closed_load(self, threads, op: str, size, hit_ratio=0.0, think_time=0.0) -> ClosedLoadResult:
        r"""Throughput of ``threads`` synchronous requesters (iozone threads), exact MVA.

        Parameters
        ----------
        threads : int or array_like of int
            Concurrent synchronous requesters [1].
        op : str
            One of :data:`OPERATIONS`.
        size : float
            Request size [B].
        hit_ratio : float
            Read-cache hit ratio [1].
        think_time : float
            Host time between a completion and the next request (CPU, page cache) [s].

        Returns
        -------
        ClosedLoadResult

        Notes
        -----
        Random reads: a closed network (Lazowska et al. 1984, ch. 6, exact MVA via
        :func:`zmodel.queueing.mva`) with three stations: the controller (delay,
        ``hit_time``), the links (``links`` servers, demand ``size/link_data_rate``),
        the disks (``disk_count`` identical single-server queues sharing the
        disk-seconds per request evenly, misses only: a miss waits at the disk that
        holds its block, as in :meth:`open_load`). Writes are fast writes and sequential
        reads are pre-staged into cache ahead of the requester: the requesters cycle through controller and links
        only (MVA over those two), and the long-run rate is capped by the back-end
        capacity ``disk_count / D_disk`` — when writes arrive faster than the destage,
        the NVS fills and throttles them (:meth:`nvs`); likewise pre-staging: :math:`X = \min(X_{MVA}(N), \text{disks}/D_{disk})`,
        :math:`R = N/X - Z` (interactive response-time law, Lazowska §3.2.3).
        """
        from zmodel.queueing import mva

        op = as_choice("op", op, OPERATIONS)
        n = as_int_array("threads", threads)
        d = self.demands(op, size, hit_ratio)
        shape = np.broadcast_shapes(n.shape, np.shape(d["link"]), np.shape(d["disk"]))
        n = np.broadcast_to(n, shape)
        link, disk = np.broadcast_to(d["link"], shape), np.broadcast_to(d["disk"], shape)
        front = [np.full(shape, self.hit_time), link]
        if op != "random_read":
            # fast writes and pre-staged sequential reads: the requester sees controller +
            # link; destage / pre-stage run asynchronously and cap the long-run rate
            r = mva(np.stack(front, axis=-1), population=n, think_time=think_time, servers=[math.inf, self.links])
            cap = np.minimum(_capacity(self.disk_count, disk), self._extra_cap(d))
            x = np.minimum(np.asarray(r.throughput, dtype=float), cap)
            with np.errstate(divide="ignore", invalid="ignore"):
                resp = np.where(x > 0, n / np.where(x > 0, x, 1.0) - think_time, 0.0)
            u_link = x * link / self.links
            u_disk = x * disk / self.disk_count
        else:  # the disks are a third station (zero demand when every read hits)
            # each miss waits at the disk that holds its block: ``disk_count`` single-server
            # queues sharing the demand (mva's copies), not one pool any idle disk could serve
            r = mva(np.stack(front + [disk], axis=-1), population=n, think_time=think_time,
                    servers=[math.inf, self.links, 1], copies=[1, 1, self.disk_count])
            x = np.asarray(r.throughput, dtype=float)
            resp = np.asarray(r.response_time, dtype=float)
            u = np.asarray(r.utilization)
            u_link, u_disk = u[..., 1], u[..., 2]
            cap = np.broadcast_to(self._extra_cap(d), np.shape(x))
            if np.isfinite(cap).any() and (x > cap).any():  # a bound outside the MVA network caps it (§5.2)
                scale = np.minimum(1.0, cap / np.where(x > 0, x, 1.0))
                x = x * scale
                u_link, u_disk = u_link * scale, u_disk * scale
                with np.errstate(divide="ignore", invalid="ignore"):
                    resp = np.where(x > 0, n / np.where(x > 0, x, 1.0) - think_time, 0.0)
        return ClosedLoadResult(throughput=x, data_rate=x * np.asarray(size, dtype=float), response_time=resp,
                                link_utilization=u_link, backend_utilization=u_disk)

    @vectorized
    def nvs(self, write_rate, size, op: str = "random_write") -> NvsResult:
        r"""NVS as a finite buffer: probability that a fast write finds it full.

        Parameters
        ----------
        write_rate : float or array_like
            Host writes per second [1/s].
        size : float
            Write size [B].
        op : str
            ``"random_write"`` or ``"sequential_write"`` (destage cost per write) [-].

        Returns
        -------
        NvsResult

        Notes
        -----
        The NVS holds :math:`K = \lfloor \text{nvs\_size}/\text{size} \rfloor` writes;
        the back end drains it at :math:`\mu = \text{disks}/D_{disk}` writes per
        second (or less when the device adapters, cache or mirroring bind first). Modelled as M/M/1/K (Kleinrock 1975, Sec. 3.6; :func:`zmodel.queueing.mmck`):
        :math:`P_K` is the probability that a write must wait for a destage.
        """
        from zmodel.queueing import mmck

        op = as_choice("op", op, ("random_write", "sequential_write"))
        lam = as_float_array("write_rate", write_rate)
        d = self.demands(op, size)
        mu = np.minimum(self.disk_count / np.asarray(d["disk"]), self._extra_cap(d))
        k = np.maximum(1.0, np.floor(self.nvs_size / np.asarray(size, dtype=float)))
        r = mmck(lam, 1.0 / mu, 1, k)
        return NvsResult(full_probability=np.asarray(r.blocking_probability), destage_utilization=lam / mu,
                         destage_rate=mu, buffer_writes=int(k) if k.ndim == 0 else k)


# ------------------------------------------------------------------------------- drive mechanics
@dataclasses.dataclass(frozen=True)
class DriveMechanics:
    """Positioning times of a 15,000 rpm Fibre Channel drive of the WAVV 2008 storage servers.

    A random read that misses the cache waits for a seek and, on average, half a
    revolution (Ruemmler & Wilkes, "An introduction to disk drive modeling", IEEE
    Computer 27(3), 1994, p. 17-28: access time = seek + rotational latency + transfer).
    Both fields carry their public specification as a prior, so a fit that moves them
    (:mod:`zmodel.fits.channels`: the disconnect time of a random read) reports a
    conflict when the documents pull them away from the data sheet.

    Parameters
    ----------
    average_seek : float
        Average seek time including settling, reads [s].
    revolution_time : float
        Time of one revolution, ``60 / rpm`` [s].

    Examples
    --------
    >>> d = DriveMechanics()
    >>> round(d.random_access_time * 1e3, 9)    # 3.7 ms seek + half of 4 ms
    5.7
    """

    average_seek: float = param(
        3.7e-3, unit="s", range=(0.5e-3, 20e-3),
        source="storage_servers.csv DS8300 / ESS-800 disk_average_seek: J. L. Hennessy, D. A. Patterson, Computer "
               "Architecture: A Quantitative Approach, 6th ed. (Morgan Kaufmann, 2019), Fig. 1.10 p. 22 (updated from "
               "D. Patterson, 'Latency lags bandwidth', Commun. ACM 47(10), 2004): Seagate ST373453 (73.4 GB, "
               "15,000 rpm, 2003), latency 5.7 ms, read as 3.7 ms of seek plus 2.0 ms of half a revolution",
        prior=prior(
            3.7e-3, factor=1.5,
            source="Hennessy & Patterson, Computer Architecture: A Quantitative Approach, 6th ed. (2019), Fig. 1.10 "
                   "p. 22: the 73.4 GB 15,000 rpm Seagate ST373453 of 2003, 'latency is the time for a simple "
                   "operation assuming no contention' 5.7 ms, less half a revolution (2.0 ms): 3.7 ms (the split is "
                   "a reading). The drive generation of the ESS 800 and DS8300's 72/73 GB disks; IBM does not name "
                   "the maker. 95 % factor 1.5 (assumed: a proxy drive, a reading of the split, and a mix of reads "
                   "and writes). Until 2026-11-27 the prior was a later drive's figure (Hitachi Ultrastar 15K450, "
                   "2008, Table 7: read 3.3 ms), the figure of a validation row, which was therefore shown and not "
                   "counted"))
    revolution_time: float = param(
        60.0 / 15000.0, unit="s", range=(2e-3, 20e-3),
        source="002_3ef25dc9d706703e.txt (WAVV 2008), 'Our hardware for measurements': ESS 800 and DS8300 "
               "disks '15.000 RPM', so 60/15000 s per revolution",
        prior=prior(
            60.0 / 15000.0, sigma=0.01,
            source="the drives' nominal spindle speed, a data-sheet figure that the WAVV 2008 deck "
                   "(002_3ef25dc9d706703e.txt, 'Our hardware for measurements') prints for the ESS 800 and DS8300 "
                   "disks: '15.000 RPM', i.e. 4 ms per revolution. sigma 1 % (assumed: a regulated spindle speed)"))

    def __post_init__(self):
        check_fields(self, positive=True)

    @property
    def random_access_time(self) -> float:
        """Seek plus half a revolution: the mean positioning time of a random access [s]."""
        return self.average_seek + 0.5 * self.revolution_time


@dataclasses.dataclass(frozen=True)
class F20DriveMechanics:
    """Positioning times of the ESS 2105-F20's 10,000 rpm drives, with their data-sheet priors.

    The F20 of the filesystems deck has '128 * 36 GB disks' at '10.000 RPM'; the hardware
    catalog takes them as the IBM Ultrastar 36LZX generation. A fit that depends on the
    F20's random accesses (:mod:`zmodel.fits.kernel_iopath`) varies these two and builds
    the drive with :meth:`disk` (the catalog's media rate, cylinders and the other seek
    figures unchanged).

    Parameters
    ----------
    f20_average_seek : float
        Average seek time, reads [s].
    f20_revolution_time : float
        Time of one revolution, ``60 / rpm`` [s].

    Examples
    --------
    >>> d = F20DriveMechanics().disk()
    >>> round(d.average_seek_time() * 1e3, 6), round(1 / d.rotation_rate * 1e3, 6)
    (4.9, 6.0)
    """

    f20_average_seek: float = param(
        4.9e-3, unit="s", range=(1e-3, 10e-3),
        source="storage_servers.csv ESS-F20 disk_average_seek: R. E. Bryant, D. R. O'Hallaron, Computer "
               "Systems: A Programmer's Perspective, Prentice Hall 2003, sec. 6.1, Fig. 6.13 'IBM Ultrastar 36LZX "
               "geometry and performance' (source: www.storage.ibm.com): 'Avg. seek time 4.9 ms'",
        prior=prior(
            4.9e-3, factor=1.5,
            source="R. E. Bryant, D. R. O'Hallaron, Computer Systems: A Programmer's Perspective (Prentice Hall, "
                   "2003), sec. 6.1, Fig. 6.13 'IBM Ultrastar 36LZX geometry and performance' (from IBM's "
                   "www.storage.ibm.com data sheet): 10,000 RPM, average seek 4.9 ms. 95 % factor 1.5 "
                   "(assumed): the F20's drives are taken as this generation, not identified by model"))
    f20_revolution_time: float = param(
        6e-3, unit="s", range=(2e-3, 20e-3),
        source="004_0d27ef34b5d760a7.txt (fs03), 'Measurement setup / Hardware (2105-F20 (Shark))': "
               "'10.000 RPM', so 60/10000 s per revolution",
        prior=prior(
            6e-3, sigma=0.01,
            source="the drives' nominal 10,000 rpm: printed for the F20 in the filesystems deck "
                   "(004_0d27ef34b5d760a7.txt, '10.000 RPM') and the 36LZX data (Bryant & O'Hallaron 2003, "
                   "Fig. 6.13: '10,000 RPM', 'Avg. rotational latency 2.99 ms'). sigma 1 % (assumed: a "
                   "regulated spindle speed)"))

    def __post_init__(self):
        check_fields(self, positive=True)

    def disk(self) -> Disk:
        """The F20 drive of the hardware catalog with these two times (:meth:`Disk.from_specs`)."""
        from zmodel.hardware import catalog

        c = catalog.component("storage_servers", "ESS-F20")
        return Disk.from_specs(1.0 / self.f20_revolution_time, c["disk_media_rate"], int(c["disk_cylinders"]),
                               self.f20_average_seek, c["disk_full_stroke_seek"], c["disk_track_seek"])


# ------------------------------------------------------------------------------- SCSI vs ECKD
@dataclasses.dataclass(frozen=True)
class ScsiPathParameters:
    """Tunable differences of a SCSI/FCP path to a storage server against an ECKD/FICON one.

    Each field declares its default, unit, plausible range and provenance once
    (:func:`zmodel.queueing._params.param`); :mod:`zmodel.fits.storage` derives its fit
    parameters from them (the TSM ECKD vs SCSI study of the WAVV 2008 deck prints only
    percent changes, so both defaults are assumed).

    Parameters
    ----------
    scsi_outstanding : float
        Requests of one sequential stream in flight in the FCP LUN queue; ECKD without
        PAV has one per subchannel [1].
    scsi_cpu_cost_ratio : float
        Linux CPU per byte moved, SCSI/FCP over ECKD/FICON [1].

    Examples
    --------
    >>> ScsiPathParameters().scsi_outstanding
    2.0
    """

    scsi_outstanding: float = param(
        2.0, unit="1", range=(1.0, 32.0),
        source="assumed: read-ahead keeps a couple of requests of a stream in the LUN queue (ECKD: one per "
               "subchannel); range: one up to a typical LUN queue depth of 32")
    scsi_cpu_cost_ratio: float = param(
        1.2, unit="1", range=(0.1, 10.0),
        source="assumed: the SCSI stack (SCSI mid-layer, zfcp) costs somewhat more CPU per byte than the "
               "DASD driver")

    def __post_init__(self):
        check_fields(self)
