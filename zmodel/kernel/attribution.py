r"""Which kernel change explains how much of a version difference: feature ablation of a composition.

A throughput difference between two kernel versions (:func:`zmodel.kernel.versions.compose` of
the same workload and system under each) is the sum of what the features that differ do, plus
what they do together. :func:`feature_attribution` takes the newer version's feature set and
reverts one change at a time -- a feature the newer version added is taken out again, with
the older mechanism it replaced put back (the O(1) scheduler with the global runqueue lock,
the per-queue I/O locks with ``io_request_lock``, the zSeries per-page primitives with the
TLB flush on every dirty-bit change); a feature the newer version removed is put back -- and
reports what the gain loses (features that act only together, :data:`TOGETHER`, are one change):

.. math::

    c_g = 100\,\frac{X_\text{new} - X_{\text{new}}^{(-g)}}{X_\text{old}}\ \text{[percentage points]},
    \qquad
    G = 100\,\Big(\frac{X_\text{new}}{X_\text{old}} - 1\Big) = \sum_g c_g + I,

with :math:`I` the interaction of the changes (zero when their effects add up, as they do when
each shortens a different path of a CPU-bound workload by little). This is the "leave one
feature out" ablation of the performance-engineering literature (e.g. R. Jain, *The Art of
Computer Systems Performance Analysis*, Wiley 1991, ch. 17-18: the effect of a factor measured
against a base configuration, with the interaction term left over); a change that leaves the
throughput unchanged to the last bit (the workload's paths never read it, or it changes memory
only, like sysfs) is not listed.

Units: throughputs in transactions per second [1/s], contributions and gains in percent [%].
This module imports :mod:`zmodel.kernel.versions` only.
"""
from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from zmodel.kernel.versions import FEATURE_DETAILS, _features_of, compose_many
from zmodel.queueing._result import Result

__all__ = ["REPLACES", "TOGETHER", "FeatureAttribution", "feature_attribution"]

#: features that act only together (a change of its own): the network path saves its extra CPU
#: only with both segmentation offload and NAPI (:func:`zmodel.kernel.versions.kernel_cpu_time`)
TOGETHER = (("tcp_segmentation_offload", "napi"),)
#: a feature -> the older mechanism it replaced (reverting the feature puts that one back)
REPLACES = {
    "o1_scheduler": "global_runqueue_lock",
    "per_queue_io_lock": "global_io_request_lock",
    "iske_per_page": "tlb_flush_on_dirty",
}


@dataclasses.dataclass(frozen=True)
class FeatureAttribution(Result):
    r"""Result of :func:`feature_attribution` (one entry per change the workload's paths read).

    Attributes
    ----------
    change : tuple of str
        Each change, named by the feature the newer version has (``"-name"`` for a feature it
        removed without a replacement).
    reverted : tuple of str
        What reverting the change does, e.g. ``"-o1_scheduler +global_runqueue_lock"``.
    throughput_old, throughput_new : float
        Throughput of the older and the newer version [1/s].
    gain : float
        :math:`100\,(X_\text{new}/X_\text{old} - 1)` [%].
    throughput_without : ndarray
        Throughput of the newer version with the change reverted [1/s].
    contribution : ndarray
        What the change adds to the gain, :math:`100\,(X_\text{new} - X_{\text{new}}^{(-g)})/X_\text{old}`
        [percentage points].
    interaction : float
        ``gain - contribution.sum()``: what the changes do together beyond their sum [percentage points].
    """

    change: tuple
    reverted: tuple
    throughput_old: float
    throughput_new: float
    gain: float
    throughput_without: Any
    contribution: Any
    interaction: float

    def to_frame(self):
        """One row per change: ``change, reverted, throughput_without, contribution`` and the totals."""
        import pandas as pd

        return pd.DataFrame({
            "change": list(self.change), "reverted": list(self.reverted),
            "throughput_without": np.asarray(self.throughput_without, dtype=float),
            "contribution": np.asarray(self.contribution, dtype=float),
            "gain": self.gain, "interaction": self.interaction,
            "throughput_old": self.throughput_old, "throughput_new": self.throughput_new})


def _items(old: frozenset, new: frozenset, io_scheduler) -> list[tuple[str, str, frozenset]]:
    """(change name, reverted text, reverted feature set) per change."""
    fixed_choice = {f"{io_scheduler}_scheduler"} if io_scheduler is not None else set()
    items, paired, done = [], set(), set()
    for group in TOGETHER:
        added = set(group) & (new - old)
        if len(added) > 1:
            done |= added
            items.append(("+".join(sorted(added, key=group.index)),
                          " ".join(f"-{f}" for f in sorted(added, key=group.index)), new - added))
    for f in sorted(new - old - done, key=list(FEATURE_DETAILS).index):
        if f in fixed_choice:       # an explicit I/O scheduler needs its feature in both sets
            continue
        back = REPLACES.get(f)
        if back is not None and back in old - new:
            paired.add(back)
            items.append((f, f"-{f} +{back}", (new - {f}) | {back}))
        else:
            items.append((f, f"-{f}", new - {f}))
    for f in sorted(old - new - paired, key=list(FEATURE_DETAILS).index):
        items.append((f"-{f}", f"+{f}", new | {f}))
    return items


def feature_attribution(old, new, workload, system, costs=None, io_scheduler=None,
                        clients=None) -> FeatureAttribution:
    r"""How much of the throughput gain from ``old`` to ``new`` each kernel change explains.

    Parameters
    ----------
    old, new : str, KernelVersion or iterable of str
        The two kernels (version names or feature sets), as :func:`~zmodel.kernel.versions.compose`
        takes them.
    workload : WorkloadProfile
        The workload, the same under both.
    system : SystemConfig
        The hardware, the same under both.
    costs : KernelCosts, optional
        Kernel costs (default: the calibrated ones, as :func:`~zmodel.kernel.versions.compose`).
    io_scheduler : str, optional
        The I/O scheduler of every composition (default: each feature set's own default, so that
        a newer default scheduler is a change of its own).
    clients : int or sequence of int, optional
        Closed population; a sequence is a load sweep whose peak throughput counts (as a
        benchmark that reports its best load level) [1].

    Returns
    -------
    FeatureAttribution

    Raises
    ------
    ValueError
        ``"old and new must differ in at least one feature"``, and what
        :func:`~zmodel.kernel.versions.compose` raises for its arguments.

    Notes
    -----
    :math:`G = \sum_g c_g + I` (module docstring); every throughput comes from one
    :func:`~zmodel.kernel.versions.compose_many` call. A change whose reversion leaves the
    newer version's throughput unchanged to the last bit (:math:`c_g = 0` exactly: its
    features never enter the throughput) is left out.

    Examples
    --------
    A CPU-bound workload of context switches and thread synchronisations on 4 CPUs: the O(1)
    scheduler and NPTL are the two changes it reads.

    >>> from zmodel.kernel.versions import KernelCosts, SystemConfig, WorkloadProfile
    >>> w = WorkloadProfile("w", clients=4, user_time=1e-3, switches=1, thread_syncs=10)
    >>> a = feature_attribution("2.4.21", "2.6.0", w, SystemConfig(cpus=4), KernelCosts())
    >>> a.change
    ('o1_scheduler', 'nptl')
    >>> bool(abs(a.gain - a.contribution.sum() - a.interaction) < 1e-12)
    True
    """
    f_old, f_new = _features_of(old), _features_of(new)
    if f_old == f_new:
        raise ValueError("old and new must differ in at least one feature")
    peak = clients is not None and np.ndim(clients) > 0
    if peak and len(clients) == 0:
        raise ValueError("clients must name at least one population, got an empty sequence")
    pop = list(clients) if peak else clients
    items = _items(f_old, f_new, io_scheduler)

    def call(kernel) -> dict:
        return dict(kernel=kernel, workload=workload, system=system, costs=costs, io_scheduler=io_scheduler,
                    clients=pop)

    results = compose_many([call(old), call(new)] + [call(fs) for _, _, fs in items])

    def x(r) -> float:
        return float(np.max(r.throughput)) if peak else float(r.throughput)

    x_old, x_new = x(results[0]), x(results[1])
    rows = [(name, text, x(r)) for (name, text, _), r in zip(items, results[2:]) if x(r) != x_new]
    without = np.array([w for _, _, w in rows], dtype=float)
    contribution = 100.0 * (x_new - without) / x_old
    gain = 100.0 * (x_new / x_old - 1.0)
    return FeatureAttribution(change=tuple(n for n, _, _ in rows), reverted=tuple(t for _, t, _ in rows),
                              throughput_old=x_old, throughput_new=x_new, gain=gain,
                              throughput_without=without, contribution=contribution,
                              interaction=float(gain - contribution.sum()))
