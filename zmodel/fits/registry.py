"""The one list of calibrations: which fits exist, their titles, where their functions live.

Both ``zmodel calibrate`` (:mod:`zmodel.cli`) and ``make report`` (:mod:`zmodel.report`)
read :data:`CALIBRATIONS`. Each entry names its function by a ``"module:function"``
string, imported only when the calibration is run, so listing the registry costs no
import of scipy or of the models, and a fit whose module has not landed yet is
reported as unavailable instead of breaking everything else.

Every registered function takes no required argument and returns an object with a
``report()`` method (a :class:`zmodel.calibration.CalibrationResult`, or for
``dasd`` a :class:`zmodel.fits.dasd.DasdFitResult`, which has ``report()`` but not the
``to_frame("residuals")`` views of the catalog engine).

Examples
--------
>>> from zmodel.fits.registry import CALIBRATIONS, areas, select
>>> areas()[0]
'usl'
>>> [e.target for e in select(["storage"])]
['zmodel.fits.storage:calibrate_storage']
>>> select(["nonsense"])
Traceback (most recent call last):
...
ValueError: unknown calibration area 'nonsense'; known: usl, channels, storage, dasd, network, crypto, kernel_memory, kernel_hypervisor, kernel_locks, kernel_iopath, kernel_numa, kernel_versions, kernel
"""
from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable, Iterable
from typing import NamedTuple

__all__ = ["Calibration", "CALIBRATIONS", "CalibrationUnavailable", "areas", "select", "is_available",
           "load", "available"]


class Calibration(NamedTuple):
    """One registered calibration.

    Attributes
    ----------
    area : str
        Short key used on the command line (``zmodel calibrate storage``).
    title : str
        Heading of its report section.
    target : str
        ``"module:function"``; the function takes no required argument and returns an
        object with ``report()``.
    """

    area: str
    title: str
    target: str


#: The registry, in report order: the first fit, then the hardware layer, then the kernel layer.
CALIBRATIONS: list[Calibration] = [
    Calibration("usl", "Universal Scalability Law vs dbench memory throughput, Linux 2.4 and 2.6 "
                "(IBM Systems Journal, Figure 1)", "zmodel.fits.usl:calibrate_usl_dbench"),
    Calibration("channels", "Channel subsystem: FICON and FCP at 2 and 4 Gbit/s, direct I/O, multipathing "
                "(WAVV 2008)", "zmodel.fits.channels:calibrate_channels"),
    Calibration("storage", "Storage servers: ESS F20, ESS 800, DS8300 configurations, DS8300 vs ESS, "
                "TSM ECKD vs SCSI (WAVV 2008, zSeries Expo 2003)", "zmodel.fits.storage:calibrate_storage"),
    Calibration("dasd", "DASD volume vs the /proc/dasd/statistics sample (zSeries Expo 2003)",
                "zmodel.fits.dasd:fit_dasd_statistics"),
    Calibration("network", "Network adapters: OSA-Express2 round trips and 10 GbE streaming (WAVV 2008)",
                "zmodel.fits.network:calibrate_network"),
    Calibration("crypto", "SSL and crypto hardware: CEX2A handshakes, CPACF, WebSEAL (WAVV 2008)",
                "zmodel.fits.crypto:calibrate_crypto"),
    Calibration("kernel_memory", "Memory management: TLB/ISKE costs and dbench scaling of Linux 2.4 vs 2.6, "
                "page-table and sysfs memory (IBM Systems Journal, OSDL)",
                "zmodel.fits.kernel_memory:calibrate_kernel_memory"),
    Calibration("kernel_hypervisor", "Hypervisors: steal time of the top snapshot, timer ticks, idle guests "
                "(WAVV 2008, IBM Systems Journal)", "zmodel.fits.kernel_hypervisor:calibrate_kernel_hypervisor"),
    Calibration("kernel_locks", "Lock contention: Altix cache lines and spinlocks, io_request_lock, BKL "
                "(Altix, IBM Systems Journal, OSDL, WAVV 2008)", "zmodel.fits.kernel_locks:calibrate_kernel_locks"),
    Calibration("kernel_iopath", "Block I/O path of Linux 2.4 vs 2.6: request queues, I/O schedulers, unplugging",
                "zmodel.fits.kernel_iopath:calibrate_kernel_iopath"),
    Calibration("kernel_numa", "NUMA placement and memory locality", "zmodel.fits.kernel_numa:calibrate_kernel_numa"),
    Calibration("kernel_versions", "Kernel versions composed: Linux 2.4.21 vs 2.6.x feature sets",
                "zmodel.fits.kernel_versions:calibrate_kernel_versions"),
    Calibration("kernel", "Kernel calibration summary: every kernel area's fitted and leave-one-out errors",
                "zmodel.fits.kernel_report:kernel_calibration_report"),
]


class CalibrationUnavailable(LookupError):
    """A registered calibration whose module or function cannot be imported (yet)."""


def areas() -> list[str]:
    """The area keys of :data:`CALIBRATIONS`, in order."""
    return [entry.area for entry in CALIBRATIONS]


def select(names: Iterable[str] | None = None) -> list[Calibration]:
    """The entries for ``names`` (all of them when empty or None), in the order asked.

    Raises
    ------
    ValueError
        "unknown calibration area 'x'; known: ..." for a name not in the registry.
    """
    names = list(names or [])
    if not names:
        return list(CALIBRATIONS)
    by_area = {entry.area: entry for entry in CALIBRATIONS}
    out = []
    for name in names:
        if name not in by_area:
            raise ValueError(f"unknown calibration area {name!r}; known: {', '.join(by_area)}")
        if by_area[name] not in out:
            out.append(by_area[name])
    return out


def _split(target: str) -> tuple[str, str]:
    module, sep, func = target.partition(":")
    if not (module and sep and func):
        raise ValueError(f"calibration target must be 'module:function', got {target!r}")
    return module, func


def is_available(entry: Calibration | str) -> bool:
    """Whether the entry's module can be found, without importing it."""
    module, _ = _split(entry.target if isinstance(entry, Calibration) else entry)
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def load(entry: Calibration | str) -> Callable:
    """Import the entry's function.

    Raises
    ------
    CalibrationUnavailable
        When the module is missing, fails to import, or lacks the function.
    """
    target = entry.target if isinstance(entry, Calibration) else entry
    module, func = _split(target)
    if not is_available(target):
        raise CalibrationUnavailable(f"{module} is not available yet")
    try:
        mod = importlib.import_module(module)
    except Exception as exc:  # a module being written may not import yet: report, do not crash
        raise CalibrationUnavailable(f"{module} cannot be imported ({type(exc).__name__}: {exc})") from exc
    try:
        return getattr(mod, func)
    except AttributeError:
        raise CalibrationUnavailable(f"{module} has no function {func!r} yet") from None


def available() -> list[Calibration]:
    """The entries whose module can be found (not imported)."""
    return [entry for entry in CALIBRATIONS if is_available(entry)]
