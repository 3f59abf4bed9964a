r"""Linux kernel versions as feature sets, and a system model composed from the component models.

Two parts.

**Versions and features.** :data:`FEATURE_DETAILS` names every kernel feature the models
switch on or off, with the version that introduced it (and, for features that 2.6
removed, the version that removed it), the seed document and the phrase that dates it.
:data:`KERNEL_VERSIONS` is derived from that table: a version has every feature whose
``introduced <= version < removed``. Where the seeds do not print a version, the table
says so and states the reading used (e.g. the zSeries memory-management primitives are
placed in 2.6.6 because the paper's Linux 2.6 dbench curve was measured with SLES9,
which carried them, while "Early Linux 2.6 kernels flushed TLB entries every time the
dirty and referenced indicators of PTEs were modified").

**Composition.** :func:`compose` predicts a benchmark-level figure of one system --
hardware, hypervisor share, kernel feature set, workload -- as a closed queueing network
solved by exact MVA (:func:`zmodel.queueing.mva`):

* a CPU station with ``cpus`` servers whose demand per transaction is the workload's
  user time plus the kernel paths each feature changes (scheduler, block I/O, network,
  threads, fork, memory management via :func:`zmodel.kernel.memory.mm_overhead`),
  inflated by the spinning on the locks of the version (the 2.4 runqueue lock and
  ``io_request_lock``, the 2.6 per-request-queue locks) -- each a finite-source queue of
  the CPUs whose serial time grows with the CPUs at the lock by one cache-line hand-off
  each, :func:`zmodel.kernel.locks.ticket_lock` (Boyd-Wickizer et al. 2012, section 3), and
  on x86 by a measured share of the hold itself (:data:`HOLD_GROWTH`)
  -- and by the hypervisor's dispatch fraction;
* the channel paths (:class:`zmodel.hardware.channels.ChannelLink` demands) and the
  storage back end (disk-seconds per I/O from :class:`zmodel.hardware.storage.StorageServer`
  or a plain disk service time), with the anticipatory I/O scheduler's idling
  (:func:`zmodel.kernel.iopath.anticipation_hold`) when the device has other work;
* delays: the storage controller, other tiers (``external_delay``), the sleeps and timeouts that end
  on a timer tick (``tick_waits`` x :func:`tick_period`: 10 ms on 2.4, 1 ms on 2.6 x86) and the think time.

The fixed points (spin fraction vs CPU utilization, anticipatory idling vs disk
utilization) are iterated until a pass repeats the last one exactly, at most
:data:`FIXED_POINT_ITERATIONS` times.

Sources: seed ``000_bf0694975d199a2d.txt`` (C. Bornträger, M. Schwidefsky, "Providing
Linux 2.6 support for the zSeries platform", IBM Systems Journal 44(2), 2005), seed
``001_37b528ecce68b8bf.txt`` (OSDL, "Linux 2.6 kernel performance enhancements for
data center workloads", January 2004), seed ``002_3ef25dc9d706703e.txt`` (T. Weber,
"Linux on System z Performance Update", WAVV 2008), seed ``003_b2fdde8a1106fead.txt``
(Linux for Altix scaling paper). Queueing: E. D. Lazowska, J. Zahorjan, G. S. Graham,
K. C. Sevcik, *Quantitative System Performance*, Prentice Hall 1984, ch. 6 (MVA), §8.4
(flow-equivalent / iterative decomposition of non-product-form effects).

Units are SI: seconds, bytes, 1/s. This module imports :mod:`zmodel.hardware` (through
the kernel models) and :mod:`zmodel.queueing` only.
"""
from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np

from zmodel.kernel.locks import SpinlockHandoff
from zmodel.kernel.memory import InstructionCosts, mm_overhead, page_table_memory, sysfs_memory
from zmodel.queueing._params import param
from zmodel.queueing import mva
from zmodel.queueing.closed import MAX_COPIES
from zmodel.queueing._result import Result
from zmodel.conventions import as_count, as_fraction, vectorized, check_fields
from zmodel.units import KiB, MiB

__all__ = [
    "Feature",
    "FEATURE_DETAILS",
    "FEATURES",
    "KernelVersion",
    "KERNEL_VERSIONS",
    "VERSION_ALIASES",
    "IO_SCHEDULERS",
    "kernel_version",
    "tick_period",
    "TICK_HZ",
    "TIMESLICE_24",
    "REFERENCE_CLOCK",
    "calibrated_costs",
    "memory_variant",
    "spinlock_strategy",
    "KernelCosts",
    "WorkloadProfile",
    "SystemConfig",
    "SystemResult",
    "compose",
    "compose_many",
    "SystemResults",
    "io_lock_scaling",
    "IoLockScalingResult",
    "kernel_cpu_time",
    "memory_overhead",
    "FIXED_POINT_ITERATIONS",
    "SWITCHES_PER_WAIT",
    "FIXED_POINT_TOL",
    "PLATFORMS",
    "HOLD_GROWTH",
    "format_parameters",
]

_IBMSJ = "000_bf0694975d199a2d.txt"
_OSDL = "001_37b528ecce68b8bf.txt"
_WAVV = "002_3ef25dc9d706703e.txt"
_ALTIX = "003_b2fdde8a1106fead.txt"
#: the public references of the path-lookup lock (not in the seeds): the kernel's own history of
#: path-walk locking, and the lockmeter measurement of SPECweb99 on 2.4 that KernelCosts.dcache_hold
#: and WorkloadProfile.dcache_lookups read
_DCACHE_RCU_DOC = ("Linux Documentation/filesystems/path-lookup.txt (N. Piggin, 2011), 'Path walking "
                   "synchronisation history'")
_DCACHE_LOCKMETER = ("D. Sarma, 'specweb99: dcache scalability results', linux-kernel mailing list, 12 July 2002 "
                     "(cs.helsinki.fi/linux/linux-kernel/2002-27/0941.html; measurements by T. Wilson, IBM LTC; "
                     "8-CPU PIII Xeon, kernel 2.4.17+lse02E), 'Lockmeter comparison', dcache_lock rows")

#: processor clock of the reference speed (``SystemConfig.cpu_speed = 1``) at which KernelCosts are stated:
#: the declared defaults are "order-of-magnitude values for a ~1 GHz processor", and the process-creation
#: costs are LMBench's on 1000 MHz hosts (_LMBENCH_STP) [Hz]. A system whose path lengths are measured at
#: another clock runs at cpu_speed = clock / REFERENCE_CLOCK (the clock ratio: same processor family)
REFERENCE_CLOCK = 1e9

#: the public measurement of process creation on 2.4 and 2.5 (not in the seeds): LMBench 2.0 lat_proc on two
#: OSDL STP 1-way hosts of 1000 MHz, read by KernelCosts.fork_time, spawn_time and their PTE-chain extras
_LMBENCH_STP = ("C. White (OSDL), 'Re: Minutes from Feb 21 LSE Call', linux-kernel mailing list, 25 Feb 2003, "
                "Message-Id <200302251711.h1PHBct16624@mail.osdl.org>, LMBench 2.0 table 'Processor, Processes - "
                "times in microseconds'")
_RMAP_FORK = ("A. Morton, linux-kernel, 7 Sep 2002, Message-Id <3D7A2768.E5C85EB@digeo.com>: 'The fork/exec/mmap "
              "slowdown is the rmap overhead'")

#: context switches of one wait (a task that blocks and is woken: it leaves its CPU, and the woken task
#: takes a CPU, usually preempting the one running there -- 2.4 reschedule_idle() preempts when the
#: woken task's goodness is higher, 2.6 when its priority is): the count this module's workload readings
#: use for every wait (:func:`zmodel.fits.kernel_versions.reaim_profile`: two per wait), and what each
#: thread synchronisation that reaches the kernel adds (:attr:`WorkloadProfile.context_switches`) [1]
SWITCHES_PER_WAIT = 2

#: most fixed-point passes of :func:`compose` (spin fraction, anticipatory idling); a network stops
#: earlier when a pass repeats the last one exactly. Six passes left DBT-2 cached's 2.4 composition on 8
#: CPUs at a residual of 2.2e-6, over :data:`FIXED_POINT_TOL` (2026-11-28); ten reach it, every
#: composition of the kernel-version fit converges, and throughputs move by under 1e-6 relative
FIXED_POINT_ITERATIONS = 12
#: a composition whose last fixed-point pass changes a utilization or the spin fraction by less than this
#: has converged [1]
FIXED_POINT_TOL = 1e-6
#: a network with a background disk load (:attr:`SystemConfig.background_disk_load`), whose disk share
#: :math:`U = k X` joins the fixed point, stops when a pass changes no utilization (U included) by more
#: than this [1] (until 2026-11-28 the scenario solved U outside compose, to 1e-9 relative, one
#: composition of :data:`FIXED_POINT_ITERATIONS` passes per step of its root search)
BACKGROUND_TOLERANCE = 1e-10
#: most fixed-point passes of a network with a background disk load: where the destage nearly fills
#: the disks, U and the CPU side settle together over tens of passes
BACKGROUND_ITERATIONS = 200
#: processor architectures of a composed system (:class:`SystemConfig`), as the catalog records
#: the platform of each documented figure (:data:`zmodel.data.PLATFORMS`)
PLATFORMS = ("x86", "ia64", "zSeries")
#: platform -> timer interrupts per second (HZ) without and with ``hz_1000``: x86 100 in 2.4
#: (include/asm-i386/param.h ``#define HZ 100``; the IBM SJ paper: "In Linux 2.4, HZ is a constant whose
#: value is set at 100 for almost every hardware architecture except Alpha") and 1000 in 2.5/2.6
#: (``# define HZ 1000 /* Internal kernel timer frequency */``); ia64 1024 in both (include/asm-ia64/
#: param.h ``# define HZ 1024``); s390 100 in both (:attr:`KernelVersion.hz`: its z/VM guests tick
#: every 10 ms)
TICK_HZ = {"x86": (100.0, 1000.0), "ia64": (1024.0, 1024.0), "zSeries": (100.0, 100.0)}
#: platform -> relative growth g of a spinlock's critical section per additional CPU at the lock [1]: with
#: k CPUs at a lock (the holder and its spinning waiters) a hold of h uncontended lasts h (1 + g (k - 1)),
#: the holder's own cache misses slowed by the waiters' traffic on the shared bus and the lines they take
#: from it. x86: read from the lockmeter of one benchmark (VolanoMark, 8 CPUs) under two kernels, the
#: same call sites of the runqueue lock with and without contention (B. Hartner, IBM Linux Technology
#: Center, 'VolanoMark 2.1.2 - SGI Lockmeter Data for 2.4.4 and 2.4.4+MQ Scheduler Kernel', 14 June 2001,
#: lse.sourceforge.net/benchmarks/volanomark/14_jun_2001/244_lockmeter_mq_scheduler.html; not in the
#: seeds). Under 2.4.4 the
#: one global lock was 'utilized 76.3 %' and its waiters 'spun for 47.4 %' of the 8 CPUs, 'a total of
#: 4.56 of the 8 CPUs' at the lock: while it is held, k = 4.555 / 0.763 = 5.97 CPUs on average. Under
#: 2.4.4+MQ the per-CPU locks were contended in 7.9 % (__wake_up) and 6.5 % (deliver_signal) of the
#: acquisitions: k = 1.079 and 1.065 (one waiter per contended acquisition, a lower bound). The call
#: counts agree (277757 and 281511 wake-ups, 1241 and 1255 signal deliveries), so each pair is one code
#: path: __wake_up holds 8.6 us contended, 3.8 us per-CPU; deliver_signal 1.2 and 0.5 us. Solving
#: h_a (1 + g (k_a - 1)) / (h_b (1 + g (k_b - 1))) = h_a / h_b for g gives 4.8 / 18.21 = 0.264 and
#: 0.70 / 2.407 = 0.291: the hold grows in proportion to its length (a fixed hand-off per waiter would
#: have added the same time to both; it adds 4.8 and 0.7 us). Mean 0.277. The printed holds have two
#: digits (0.5 us: one), and the MQ patch's wake-up is not line for line 2.4.4's, so g is known to
#: perhaps a third. ia64 and zSeries: 0 (not measured; ia64's spinlocks keep the fitted hand-off of
#: zmodel.fits.kernel_locks, KernelCosts.handoff, as every platform does)
HOLD_GROWTH = {"x86": 0.277, "ia64": 0.0, "zSeries": 0.0}
#: the timeslice of a CPU-bound nice-0 task under the 2.4 scheduler: NICE_TO_TICKS(0) = (20 >> 2) + 1 =
#: 6 ticks at HZ = 100 (linux-2.4 kernel/sched.c, TICK_SCALE for HZ < 200), 60 ms [s]
TIMESLICE_24 = ((20 >> 2) + 1) / TICK_HZ["x86"][0]
#: the I/O schedulers a version may offer (feature ``<name>_scheduler``)
IO_SCHEDULERS = ("deadline", "anticipatory", "cfq", "noop")


# =====================================================================================
# features and versions
# =====================================================================================
@dataclasses.dataclass(frozen=True)
class Feature:
    """One kernel feature the models switch on or off.

    Attributes
    ----------
    name : str
        Feature name, e.g. ``"per_queue_io_lock"``.
    description : str
        What it changes in the models.
    introduced : str
        First version in :data:`KERNEL_VERSIONS` that has it.
    removed : str or None
        First version that no longer has it (``None``: still present).
    source : str
        Seed file name and section/slide (or the public reference when the seeds do not
        date it).
    phrase : str
        The verbatim phrase that dates it (``""`` when the seeds print no version).
    dated_by_documents : bool
        ``True`` when the seeds print the version; ``False`` when it is a stated reading.
    """

    name: str
    description: str
    introduced: str
    removed: str | None
    source: str
    phrase: str
    dated_by_documents: bool = True


def _f(name, description, introduced, source, phrase, removed=None, dated=True):
    return Feature(name, description, introduced, removed, source, phrase, dated)


#: every modelled feature, with its dating (see :class:`Feature`)
FEATURE_DETAILS: dict[str, Feature] = {f.name: f for f in (
    # ---- block I/O locking
    _f("global_io_request_lock",
       "one io_request_lock spinlock for the whole block layer: every I/O request takes it (global lock)",
       "2.4.21", f"{_OSDL}, 'I/O - Handling I/O Requests: Locking I/O Request'",
       "Linux 2.4 used a single io_request_lock spinlock for the entire block device subsystem.",
       removed="2.6.0"),
    _f("per_queue_io_lock",
       "one lock per request queue: CPUs contend for the block-layer lock only when they queue requests for "
       "the same device (one lock per disk instead of one for all)",
       "2.6.0", f"{_OSDL}, 'Locking I/O Request'; {_IBMSJ}, 'I/O'",
       "Linux 2.6 replaced the IO_request_lock with more granular locking, which includes a separate "
       "lock for each individual device queue."),
    # ---- CPU scheduler
    _f("global_runqueue_lock",
       "one runqueue and runqueue lock for all CPUs; schedule() scans every runnable task (goodness loop)",
       "2.4.21", f"{_OSDL}, 'Kernel -- Task Scheduler' (2.4 contrast)",
       "Run-queues and locks now on a per CPU basis", removed="2.6.0"),
    _f("o1_scheduler",
       "O(1) scheduler: per-CPU runqueues and locks, constant cost per context switch",
       "2.6.0", f"{_OSDL}, 'Kernel -- Task Scheduler'; {_IBMSJ}, 'Conclusion'",
       "New task scheduler for the kernel whose cost stays constant as the number of tasks increases"),
    _f("numa_aware_placement",
       "NUMA-aware extensions of the O(1) scheduler (node balancing, local memory)",
       "2.6.0", f"{_OSDL}, 'Kernel -- NUMA'", "NUMA aware extensions to O(1) scheduler"),
    _f("sched_balance_backoff",
       "progressive back-off between idle load-balancing attempts (no boot live lock on large systems)",
       "2.6.7", f"{_ALTIX}, CPU scheduler section",
       "The latest 2.6.7 CPU scheduler, as developed by Nick Piggin, incorporates a similar back off algorithm."),
    _f("nptl",
       "Native POSIX Thread Library (1:1, futex based) instead of LinuxThreads: cheaper thread synchronisation",
       "2.6.0", f"{_OSDL}, 'Linux Threads vs NPTL'",
       "Linux Threads ... Doesn't scale ... Bogs down on SMP machines"),
    # ---- memory management
    _f("rmap",
       "reverse mapping: page_referenced reads the PTEs of a page instead of searching all page tables",
       "2.6.0", f"{_IBMSJ}, 'Memory management'; {_OSDL}, 'RMAPs (Reverse Mapping)'",
       "The main change to Linux 2.6 memory management, which applies to all supported architectures, "
       "is the introduction of \"reverse mapping.\""),
    _f("objrmap",
       "object-based reverse mapping: no PTE chains (less memory, faster fork/exit, a bit more VM CPU)",
       "2.6.7", f"{_IBMSJ}, 'Memory management' (mechanism); version not printed",
       "Object-based reverse mappings trade a bit of CPU overhead in the virtual memory manager for a "
       "smaller memory footprint and faster process creation and exit.", dated=False),
    _f("tlb_flush_on_dirty",
       "TLB flush (a global purge on zSeries where IPTE is not applicable) on every dirty/referenced change",
       "2.4.21", f"{_IBMSJ}, 'Memory management'",
       "Early Linux 2.6 kernels flushed TLB entries every time the dirty and referenced indicators of "
       "PTEs were modified.", removed="2.6.6", dated=False),
    _f("iske_per_page",
       "zSeries primitives: ISKE once per physical page, RRBE for page_referenced, IPTE for invalidation",
       "2.6.6", f"{_IBMSJ}, 'Memory management' and Figure 1 (SLES9); mainline version not printed",
       "this instruction is executed for each mapping (for each PTE referring to the page), instead of "
       "once for each physical page", dated=False),
    _f("large_pages",
       "large pages: one PTE maps a large block (fewer PTEs, fewer TLB misses)",
       "2.6.0", f"{_OSDL}, 'Virtual Memory: Large page support'",
       "Now can have a PTE point to a very large contiguous block of memory"),
    _f("hugetlbfs",
       "hugetlbfs: shared memory (shmget/mmap) backed by large pages",
       "2.6.0", f"{_OSDL}, 'Virtual Memory (cont): HugeTLBfs'",
       "Provides a mechanism for the database to share memory consisting of Large Pages"),
    _f("sysfs_pinned",
       "unified device model with sysfs: inodes and dentries of every sysfs file pinned in memory",
       "2.6.0", f"{_IBMSJ}, 'Device model'",
       "We have seen several zSeries systems with Linux 2.6 that use 50 to 100 MB more memory than Linux 2.4."),
    _f("sysfs_backing_store",
       "sysfs backing store: sysfs inodes/dentries discarded and re-created on demand",
       "2.6.10", f"{_IBMSJ}, 'Device model'",
       "The sysfs backing-store patch was accepted by the Linux maintainers and is expected to be part of "
       "Release 2.6.10."),
    # ---- block I/O path
    _f("large_block_io",
       "struct bio: one request per large I/O instead of 512-byte buffer heads reassembled",
       "2.6.0", f"{_OSDL}, 'I/O - Structure (cont): Large Block I/O'; {_IBMSJ}, 'I/O' (struct bio)",
       "Previously I/Os were broken into 512 byte requests and the results were reassembled."),
    _f("bounce_buffer_avoidance",
       "no bounce buffers for DMA to/from high memory (x86 systems with memory above 1 GB)",
       "2.6.0", f"{_OSDL}, 'I/O - Handling I/O Requests: Bounce Buffer Avoidance'",
       "In Linux 2.6, device drivers register whether they support high-memory DMA, and bounce buffers "
       "can be avoided altogether."),
    _f("direct_io",
       "O_DIRECT for files (unbuffered, no page-cache copy); before, only raw devices",
       "2.6.0", f"{_OSDL}, 'I/O -- Direct Accessing'",
       "Added Direct I/O for files ... Previously only supported for raw devices"),
    _f("async_io",
       "asynchronous I/O for raw devices (many outstanding requests per process)",
       "2.6.0", f"{_OSDL}, 'I/O - Async Accessing'", "Asynchronous I/O for raw devices was added"),
    _f("per_bdi_unplug",
       "per backing-device unplugging: an unplug touches one queue, not every queue",
       "2.6.6", f"{_IBMSJ}, 'I/O'",
       "The so-called \"per backing dev unplugging\" was merged into the Linux 2.6.6 kernel."),
    _f("deadline_scheduler",
       "deadline I/O scheduler (the 2.4 elevator, per the IBM paper)",
       "2.4.21", f"{_IBMSJ}, 'I/O'; {_OSDL}, 'Scheduling Algorithms (cont)'",
       "The Linux 2.4 scheduler is now known as the deadline scheduler."),
    _f("anticipatory_scheduler",
       "anticipatory I/O scheduler: idles the device after a read, waiting for the same process",
       "2.6.0", f"{_OSDL}, 'Scheduling Algorithms (cont)'; {_IBMSJ}, 'I/O'",
       "Anticipatory scheduler (AS - the default currently)"),
    _f("noop_scheduler",
       "no-op I/O scheduler (FIFO with merging)",
       "2.6.0", f"{_OSDL}, 'Scheduling Algorithms (cont)'", "Noop scheduler"),
    _f("cfq_scheduler",
       "complete-fair-queuing I/O scheduler",
       "2.6.6", f"{_IBMSJ}, 'I/O' (named among the 2.6 schedulers; version not printed)",
       "It has been supplemented with several other modular I/O schedulers: the anticipatory scheduler, "
       "the complete-fair-queuing scheduler, and the no-op scheduler.", dated=False),
    # ---- path lookup
    _f("dcache_rcu",
       "lock-free directory-entry lookup (d_lookup under RCU): a path walk no longer takes the global "
       "dcache_lock per component; the lock stays for dcache updates",
       "2.6.0", f"{_DCACHE_RCU_DOC} (merged in 2.5.62; not in the seeds)",
       "Since 2.5.62 kernel, dcache has been using a new locking model that uses RCU to make dcache "
       "look-up lock-free.", dated=False),
    # ---- networking
    _f("tcp_segmentation_offload",
       "TCP segmentation offload: the NIC segments and checksums (less CPU per request)",
       "2.6.0", f"{_OSDL}, 'I/O - Networking: TCP Segmentation off-loading'",
       "Reduces processor overhead, freeing cycles for database activity"),
    _f("napi",
       "NAPI: interrupts under light load, polling under heavy load",
       "2.6.0", f"{_OSDL}, 'I/O - Networking: NAPI'",
       "Uses an interrupt approach under light load and polling under heavy"),
    # ---- zSeries virtualisation
    _f("diag44_yield",
       "s390 spinlock gives the CPU back to the hypervisor with DIAG 44 instead of looping",
       "2.4.21", f"{_WAVV}, 'SLES / RHEL improved resource usage'",
       "The older solution issues a DIAG 44 instruction to the LPAR or z/VM hypervisor to give the CPU "
       "back instead of looping for the lock."),
    _f("spin_retry",
       "spin_retry counter: spin a number of times before the diagnose",
       "2.6.16", f"{_WAVV}, 'SLES / RHEL improved resource usage' (SLES10/RHEL5; mainline version not "
       "printed)", "spin_retry counter in Linux to avoid excessive use of diagnose instructions",
       dated=False),
    _f("diag9c_directed_yield",
       "DIAG 9C: directed yield to the lock holder's virtual CPU",
       "2.6.16", f"{_WAVV}, 'SLES / RHEL improved resource usage' (SLES10/RHEL5; mainline version not "
       "printed)", "use of DIAG 9C instruction to pass information along with the instruction, who "
       "should get the processor", dated=False),
    _f("virtual_cpu_accounting",
       "CPU time accounted on every context change from the System z virtual timer; steal time shown",
       "2.6.16", f"{_WAVV}, 'SLES10 / RHEL5 virtual CPU time accounting' (mainline version not printed)",
       "the feature is enabled by default in SLES10 and RHEL5", dated=False),
    _f("hz_1000",
       "timer tick of 1 ms instead of 10 ms (HZ 100 -> 1000) where the architecture raised HZ (x86; "
       "s390 kept 100, ia64 had 1024 already): a sleep or timeout that ends on a tick ends ten times "
       "sooner (:func:`tick_period`, ``WorkloadProfile.tick_waits``)",
       "2.6.0", f"{_IBMSJ}, 'Timer tick'; the x86 value: Linux include/asm-i386/param.h, 'HZ 100' in "
       "2.4 and '# define HZ 1000 /* Internal kernel timer frequency */' in 2.5/2.6 (until CONFIG_HZ, 2.6.13)",
       "The HZ value was increased to 1000 for the Linux 2.6 kernel on some hardware architectures in order "
       "to improve system responsiveness."),
    _f("idle_tick_patch",
       "no timer interrupts while the system is idle (z/VM can recognise idle guests)",
       "2.6.6", f"{_IBMSJ}, 'Timer tick'", "This patch has been accepted for the Linux 2.6.6 kernel."),
)}

#: feature name -> description with its source and dating phrase (the contract's mapping)
FEATURES: dict[str, str] = {
    n: (f"{f.description}. Since {f.introduced}" + (f", removed in {f.removed}" if f.removed else "")
        + f" [{f.source}: \"{f.phrase}\"]" + ("" if f.dated_by_documents else " (version not printed in the "
                                               "seeds: a stated reading)"))
    for n, f in FEATURE_DETAILS.items()}


@dataclasses.dataclass(frozen=True)
class KernelVersion:
    """A kernel version as a set of features.

    Attributes
    ----------
    name : str
        Version string, e.g. ``"2.6.6"``.
    release_date : str or None
        ISO date of the kernel.org release (``None`` when unknown).
    features : frozenset of str
        Names of :data:`FEATURE_DETAILS` the version has.
    description : str
        Where the documents use this version, with the source.
    hz : float
        Timer interrupts per second on s390 (100 for 2.4 and 2.6: "In Linux 2.4, HZ is a
        constant whose value is set at 100"; the 2.6 increase to 1000 was "on some hardware
        architectures", not s390, whose z/VM guests tick every 10 ms; :data:`TICK_HZ`) [1/s].
    default_io_scheduler : str
        The version's default I/O scheduler.
    """

    name: str
    release_date: str | None
    features: frozenset
    description: str
    hz: float = 100.0
    default_io_scheduler: str = "deadline"

    def has(self, feature: str) -> bool:
        """Whether the version has ``feature``."""
        return feature in self.features


def _key(version: str) -> tuple[int, ...]:
    return tuple(int(p) for p in version.split("."))


_VERSION_INFO = {
    # name: (release date, source of the date, description)
    "2.4.21": ("2003-06-13", "kernel.org",
               f"Linux 2.4 baseline of the OSDL/IBM LTC comparisons (SPECweb99, SPECjAppServer, SPECjbb2000, "
               f"decision support: '2.6.0-testN vs. 2.4.21', {_OSDL}); DBT-2 used 2.4.21-rc1; 'the last IBM "
               f"code drop for the Linux 2.4 kernel was at version 2.4.21' ({_IBMSJ})"),
    "2.4.23": ("2003-11-28", "kernel.org",
               f"ReAIM baseline ('2.4.23rc2 versus 2.6.0', {_OSDL}); same modelled features as 2.4.21"),
    "2.4.28": ("2004-11-17", "kernel.org",
               f"'the latest available 2.4 kernel at the time of the code drop was 2.4.28' ({_IBMSJ})"),
    "2.6.0": ("2003-12-17", _IBMSJ,
              f"'Version 2.6 of the Linux kernel was released on December 17, 2003' ({_IBMSJ}); the OSDL "
              f"results use 2.6.0-test2/-test5/-test7/-test11 and 2.6.0 ({_OSDL})"),
    "2.6.6": ("2004-05-10", "kernel.org",
              f"per backing dev unplugging and the idle-tick patch ({_IBMSJ}); here also the zSeries "
              f"memory-management primitives measured with SLES9 (Figure 1 of {_IBMSJ})"),
    "2.6.7": ("2004-06-16", "kernel.org",
              f"scheduler load-balance back-off ({_ALTIX}); object-based reverse mapping (reading)"),
    "2.6.10": ("2004-12-24", "kernel.org", f"sysfs backing store ({_IBMSJ})"),
    "2.6.16": ("2006-03-20", "kernel.org",
               f"SLES10 kernel level (RHEL5: 2.6.18); spin_retry, DIAG 9C and virtual CPU time accounting "
               f"as shipped in SLES10/RHEL5 ({_WAVV}); the distribution kernel levels are public facts, "
               f"not printed in the seeds"),
}

#: other names of the versions (release candidates and test kernels of the documents)
VERSION_ALIASES = {
    "2.4.21-rc1": "2.4.21", "2.4.23-rc2": "2.4.23",
    "2.6.0-test1": "2.6.0", "2.6.0-test2": "2.6.0", "2.6.0-test5": "2.6.0", "2.6.0-test7": "2.6.0",
    "2.6.0-test11": "2.6.0", "2.4": "2.4.21", "2.6": "2.6.0",
}


def _build_versions() -> dict[str, KernelVersion]:
    out = {}
    for name, (date, date_src, desc) in _VERSION_INFO.items():
        k = _key(name)
        feats = frozenset(n for n, f in FEATURE_DETAILS.items()
                          if _key(f.introduced) <= k and (f.removed is None or k < _key(f.removed)))
        sched = "anticipatory" if "anticipatory_scheduler" in feats else "deadline"
        note = "" if date_src == _IBMSJ else " (release date from the kernel.org archive, not printed in the seeds)"
        out[name] = KernelVersion(name=name, release_date=date, features=feats, description=desc + note,
                                  hz=TICK_HZ["zSeries"]["hz_1000" in feats], default_io_scheduler=sched)
    return out


#: version string -> :class:`KernelVersion`
KERNEL_VERSIONS: dict[str, KernelVersion] = _build_versions()


@vectorized
def kernel_version(name) -> KernelVersion:
    """The :class:`KernelVersion` called ``name`` (or one of :data:`VERSION_ALIASES`).

    Parameters
    ----------
    name : str or KernelVersion
        Version string such as ``"2.6.10"``.

    Returns
    -------
    KernelVersion

    Raises
    ------
    ValueError
        ``"unknown kernel version '2.7'; known: 2.4.21, ..."``.

    Examples
    --------
    >>> v = kernel_version("2.6.6")
    >>> v.has("per_bdi_unplug"), v.has("global_io_request_lock")
    (True, False)
    >>> kernel_version("2.6.0-test2").name
    '2.6.0'
    """
    if isinstance(name, KernelVersion):
        return name
    key = str(name).strip()
    key = VERSION_ALIASES.get(key, key)
    if key not in KERNEL_VERSIONS:
        raise ValueError(f"unknown kernel version {str(name)!r}; known: {', '.join(KERNEL_VERSIONS)}")
    return KERNEL_VERSIONS[key]


def tick_period(features, platform: str = "zSeries") -> float:
    """Timer tick of a kernel feature set on a platform, 1/HZ [s].

    Parameters
    ----------
    features : iterable of str or KernelVersion
        Kernel features (:data:`FEATURE_DETAILS`); ``hz_1000`` raises HZ where the
        platform did (:data:`TICK_HZ`).
    platform : {"x86", "ia64", "zSeries"}, default "zSeries"
        Processor architecture (:data:`PLATFORMS`).

    Returns
    -------
    float

    Examples
    --------
    >>> tick_period(kernel_version("2.4.21"), "x86"), tick_period(kernel_version("2.6.0"), "x86")
    (0.01, 0.001)
    >>> tick_period(kernel_version("2.6.0"), "zSeries")
    0.01
    """
    f = _features_of(features)
    if platform not in TICK_HZ:
        raise ValueError(f"platform must be one of {list(TICK_HZ)}, got {platform!r}")
    return 1.0 / TICK_HZ[platform]["hz_1000" in f]


def _delay_time(workload, features, platform: str) -> float:
    """Delay per transaction outside every station [s]: other tiers (``external_delay``) and the
    sleeps and timeouts that end on a timer tick (``tick_waits`` x :func:`tick_period`); the
    closed composition and the scenario's open load add the same."""
    return workload.external_delay + workload.tick_waits * tick_period(features, platform)


@vectorized
def memory_variant(features) -> str:
    """The :mod:`zmodel.kernel.memory` kernel variant of a feature set.

    ``"2.4"`` without reverse mapping, ``"2.6"`` with the zSeries primitives
    (``iske_per_page``), else ``"2.6-early"``.

    Examples
    --------
    >>> [memory_variant(kernel_version(v).features) for v in ("2.4.21", "2.6.0", "2.6.6")]
    ['2.4', '2.6-early', '2.6']
    """
    f = frozenset(features)
    if "rmap" not in f:
        return "2.4"
    return "2.6" if "iske_per_page" in f else "2.6-early"


@vectorized
def spinlock_strategy(features) -> str:
    """The :func:`zmodel.kernel.hypervisor.spinlock_yield` strategy of a feature set.

    Examples
    --------
    >>> spinlock_strategy(kernel_version("2.4.21").features), spinlock_strategy(kernel_version("2.6.16").features)
    ('diag44', 'spin_retry_diag9c')
    """
    f = frozenset(features)
    if "spin_retry" in f:
        return "spin_retry_diag9c" if "diag9c_directed_yield" in f else "spin_retry_diag44"
    return "diag44" if "diag44_yield" in f else "spin"


# =====================================================================================
# composition
# =====================================================================================
_ASSUMED = "assumed: order of magnitude for a ~1 GHz processor; the seeds print no path lengths"
#: how KernelCosts' dcache_lock variability and RCU share are derived from the lockmeter rows
_DCACHE_SCV_SOURCE = (
    f"DERIVED from {_DCACHE_LOCKMETER} (2.4.17+lse02E) by the Pollaczek-Khinchine mean wait "
    "W = rho h (1 + c^2) / (2 (1 - rho)): W = 20.8 % contended x 23 us mean wait = 4.78 us per "
    "acquisition at rho = 15.7 %, h = 2.1 us gives 1 + c^2 = 2 W (1 - rho) / (rho h) = 24.5 (the hold "
    "times are heavy-tailed: the same row prints a longest hold of 6668 us)")
_DCACHE_RCU_SOURCE = (
    f"DERIVED from {_DCACHE_LOCKMETER}: acquisitions per connection-second with dcache_rcu over "
    "those without, (657152 / 69.2 s) / (5215460 / 69.8 s) x 2258 / 2530 = 0.113 (each interval = "
    "acquisitions x mean hold / utilization: 657152 x 2.0 us / 1.9 %, 5215460 x 2.1 us / 15.7 %; "
    "throughput 2530 and 2258 simultaneous connections)")


@dataclasses.dataclass(frozen=True)
class KernelCosts:
    r"""CPU and device costs of the kernel paths the features change (one execution each).

    None of these is printed in the seeds: the defaults are order-of-magnitude values for
    a ~1 GHz processor or, where each one's source says so, public measurements (the
    process-creation costs, the ``dcache_lock`` hold), and :mod:`zmodel.fits.kernel_versions`
    calibrates the ones the OSDL results constrain. All times are at the reference processor
    speed (``SystemConfig.cpu_speed = 1``, a processor of :data:`REFERENCE_CLOCK`).

    Parameters
    ----------
    switch_time : float
        Context switch with the O(1) scheduler or the 2.4 scheduler's fixed part [s].
    scan_time : float
        2.4 ``goodness()`` evaluation per runnable task per schedule() [s].
    runqueue_hold : float
        Hold time of the runqueue lock per switch (global in 2.4, per CPU in 2.6) [s].
    io_request_time : float
        Block-layer and driver CPU per I/O request [s].
    io_lock_hold : float
        Hold time of the block-layer lock per request (``io_request_lock`` in 2.4, the
        queue lock in 2.6) [s].
    segment_time : float
        2.4 CPU per 512-byte buffer head of a request (split and reassembly) [s].
    bounce_time_per_byte : float
        Copy through a low-memory bounce buffer, per byte (x86 high memory only) [s/B].
    copy_time_per_byte : float
        Page-cache to user copy per byte (buffered file I/O, no O_DIRECT) [s/B].
    unplug_time_per_queue : float
        CPU per request queue touched by a global unplug (2.4 ``tq_disk``, 2.6 before
        2.6.6) [s].
    net_request_time : float
        Network stack CPU per request with TSO and NAPI [s].
    net_extra_time : float
        Extra network CPU per TCP segment without segmentation offload and NAPI (the
        stack's segmentation and the per-packet interrupts; a request moves
        ``WorkloadProfile.network_segments`` of them) [s].
    thread_sync_time : float
        CPU of a thread synchronisation that reaches the kernel (futex wait and wake) with NPTL,
        its context switches excluded (``WorkloadProfile.context_switches`` counts them) [s].
    linuxthreads_extra : float
        Extra cost per synchronisation event with LinuxThreads (signals, manager
        thread) [s].
    fork_time : float
        Process creation and exit: ``fork``, the child's ``exit``, the parent's ``wait`` [s].
    pte_chain_fork_extra : float
        Extra fork/exit time with PTE-chain reverse mapping (rmap without objrmap) [s].
    spawn_time : float
        A program run through the shell (``system(3)``: ``fork``, ``exec`` of ``/bin/sh -c``,
        the shell's start and its ``exec`` of the command, ``exit``, ``wait``), the command's own
        work excluded [s].
    pte_chain_spawn_extra : float
        Extra time of a spawn with PTE-chain reverse mapping (rmap without objrmap) [s].
    antic_expire : float
        Anticipatory scheduler's longest wait after a read (``antic_expire``) [s].
    antic_miss : float
        Probability that an anticipation does not pay off on a multi-spindle storage
        server (the next read is not adjacent) [1].
    dcache_hold : float
        Hold time of the global ``dcache_lock`` per acquisition (a path-component lookup in
        2.4, a dcache update with ``dcache_rcu``) [s].
    dcache_hold_scv : float
        Squared coefficient of variation of the ``dcache_lock`` hold times [1].
    dcache_rcu_fraction : float
        Share of the 2.4 ``dcache_lock`` acquisitions per transaction that remain with
        lock-free lookup (``dcache_rcu``: the update side) [1].
    instruction_costs : InstructionCosts
        zSeries storage-key and TLB costs for :func:`zmodel.kernel.memory.mm_overhead`.
    handoff : SpinlockHandoff
        The cache-line hand-off per CPU at a contended spinlock (``spinlock_handoff``, the
        parameter :mod:`zmodel.fits.kernel_locks` fits), for every lock of the composition.
    sysfs_files_per_device : float
        sysfs files per device [1].
    sysfs_bytes_per_file : float
        Memory pinned per sysfs file without the backing store [B].
    pte_chain_bytes : float
        Memory per PTE-chain entry (one per mapped page per process) [B].

    Examples
    --------
    >>> KernelCosts().switch_time > 0
    True
    """

    switch_time: float = param(3e-6, unit="s", range=(0.1e-6, 100e-6),
                               source=_ASSUMED + " (a context switch is a few microseconds)")
    scan_time: float = param(0.1e-6, unit="s", range=(0.0, 0.2e-6),
                             source=_ASSUMED + " (goodness() is tens of instructions per runnable task); range: "
                                    "at most the whole runqueue_lock hold per context switch that lockmeter measured on "
                                    "2.4.4 under VolanoMark, 8-CPU, 'about 70' runnable tasks (B. Hartner, IBM LTC, "
                                    "'VolanoMark 2.1.2 - SGI Lockmeter Data for 2.4.4 and 2.4.4+MQ Scheduler Kernel', "
                                    "14 June 2001, lse.sourceforge.net/benchmarks/volanomark/14_jun_2001/: 2392438 "
                                    "acquisitions at a mean hold of 8.8 us, 1721928 in schedule(), 12.2 us per switch) "
                                    "spread over those tasks, 12.2 / 70 = 0.17 us, rounded up")
    runqueue_hold: float = param(0.5e-6, unit="s", range=(0.0, 100e-6),
                                 source=_ASSUMED + " (a few hundred instructions under the runqueue lock)")
    io_request_time: float = param(20e-6, unit="s", range=(1e-6, 1e-3),
                                   source=_ASSUMED + " (block layer and driver per request)")
    io_lock_hold: float = param(3e-6, unit="s", range=(0.0, 100e-6),
                                source=_ASSUMED + " (queue manipulation under io_request_lock)")
    segment_time: float = param(0.3e-6, unit="s", range=(0.0, 10e-6),
                                source=_ASSUMED + " (one buffer head per 512 bytes, OSDL 'Large Block I/O')")
    bounce_time_per_byte: float = param(1.0 / 1.0e9, unit="s/B", range=(0.0, 1e-8),
                                        source="assumed: a memory-to-memory copy at ~1 GB/s")
    copy_time_per_byte: float = param(1.0 / 1.0e9, unit="s/B", range=(0.0, 1e-8),
                                      source="assumed: a memory-to-memory copy at ~1 GB/s")
    unplug_time_per_queue: float = param(50e-9, unit="s", range=(0.0, 10e-6),
                                         source=_ASSUMED + " (a list walk step per request queue)")
    net_request_time: float = param(30e-6, unit="s", range=(1e-6, 1e-3),
                                    source=_ASSUMED + " (TCP/IP stack per request with TSO and NAPI)")
    net_extra_time: float = param(20e-6, unit="s", range=(0.0, 2e-3),
                                  source=_ASSUMED + " (segmentation and per-packet interrupts without "
                                                    "TSO/NAPI, OSDL 'Networking')")
    thread_sync_time: float = param(1e-6, unit="s", range=(0.1e-6, 100e-6),
                                    source=_ASSUMED + " (a contended synchronisation's futex wait and wake: two "
                                                      "system calls; its context switches are counted apart)")
    linuxthreads_extra: float = param(5e-6, unit="s", range=(0.0, 1e-3),
                                      source=_ASSUMED + " (signals and the manager thread, OSDL 'Linux "
                                                        "Threads vs NPTL')")
    fork_time: float = param(104e-6, unit="s", range=(52e-6, 208e-6),
                             source=f"{_LMBENCH_STP}, 'fork proc' of Linux 2.4.18 on the 1-way host (1000 MHz): "
                                    "'stp1-003.  Linux 2.4.18 1000' ... '104.'. Range: half to twice the measurement "
                                    "(another processor of the reference class)")
    pte_chain_fork_extra: float = param(39e-6, unit="s", range=(0.0, 78e-6),
                                        source=f"{_LMBENCH_STP}, 'fork proc' of Linux 2.5.60 (PTE-chain rmap, no "
                                               "objrmap) less that of 2.4.18 on the 1-way hosts: 143 - 104 us. The "
                                               f"whole difference read as rmap's ({_RMAP_FORK}). Range: "
                                               "none of it to twice it")
    spawn_time: float = param(4460e-6, unit="s", range=(2230e-6, 8920e-6),
                              source=f"{_LMBENCH_STP}, 'sh proc' of Linux 2.4.18 on the 1-way host (1000 MHz): "
                                     "'stp1-003.  Linux 2.4.18 1000' ... '4460' (LMBench lat_proc 'shell': fork, exec "
                                     "of /bin/sh -c running a small program, exit, wait). Range: half to twice the "
                                     "measurement (another processor of the reference class, another shell)")
    pte_chain_spawn_extra: float = param(832e-6, unit="s", range=(0.0, 1664e-6),
                                         source=f"{_LMBENCH_STP}, 'sh proc' of Linux 2.5.60 less that of 2.4.18 on "
                                                f"the 1-way hosts: 5292 - 4460 us. The whole difference read as rmap's "
                                                f"({_RMAP_FORK}). Range: none of it to twice it")
    antic_expire: float = param(6e-3, unit="s", range=(0.0, 0.1),
                                source="Linux 2.6.0 anticipatory scheduler: antic_expire = HZ/150, 6 ms at HZ = 1000")
    antic_miss: float = param(1.0, unit="1", range=(0.0, 1.0),
                              source="assumed: worst case, every anticipation on a multi-spindle server is wasted "
                                     "(ibmsj: AS assumes 'a disk has only one moving head')")
    dcache_hold: float = param(2.1e-6, unit="s", range=(0.0, 100e-6),
                               source=f"{_DCACHE_LOCKMETER}: mean hold '2.1us' (2.4.17+lse02E, SPECweb99); "
                                      "measured on an 8-way PIII Xeon near the reference speed, not rescaled")
    dcache_hold_scv: float = param(23.5, unit="1", range=(0.0, 1000.0), source=_DCACHE_SCV_SOURCE)
    dcache_rcu_fraction: float = param(0.113, unit="1", range=(0.0, 1.0), source=_DCACHE_RCU_SOURCE)
    instruction_costs: InstructionCosts = dataclasses.field(default_factory=InstructionCosts)
    handoff: SpinlockHandoff = dataclasses.field(default_factory=SpinlockHandoff)
    sysfs_files_per_device: float = param(10.0, unit="1", range=(1.0, 1000.0),
                                          source="assumed: device and subchannel directories and attributes "
                                                 "(ibmsj: 'each device creates multiple files in sysfs')")
    sysfs_bytes_per_file: float = param(1500.0, unit="B", range=(64.0, 65536.0),
                                        source="assumed: inode + dentry + sysfs structures per file; "
                                               "zmodel.fits.kernel_memory fits it to ibmsj '50 to 100 MB more'")
    pte_chain_bytes: float = param(8.0, unit="B", range=(4.0, 64.0),
                                   source="assumed: one pointer pair per mapped page per process (rmap PTE chains)")

    def __post_init__(self):
        if not isinstance(self.instruction_costs, InstructionCosts):
            raise ValueError(f"instruction_costs must be an InstructionCosts, got "
                             f"{type(self.instruction_costs).__name__}")
        if not isinstance(self.handoff, SpinlockHandoff):
            raise ValueError(f"handoff must be a SpinlockHandoff, got {type(self.handoff).__name__}")
        check_fields(self, fractions=("antic_miss",), skip=("instruction_costs", "handoff"))


@dataclasses.dataclass(frozen=True)
class WorkloadProfile:
    r"""What one transaction of a workload does, in the units of :class:`KernelCosts`.

    Parameters
    ----------
    name : str
        Workload name.
    clients : int
        Closed population: drivers, users, processes [1].
    think_time : float
        Think time between a client's transactions [s].
    user_time : float
        CPU per transaction outside the modelled kernel paths (application and
        version-independent kernel work) at the reference speed [s].
    switches : float
        Context switches per transaction other than the waits of ``thread_syncs`` [1].
    io_per_transaction : float
        Block I/O requests per transaction [1].
    block_size : float
        Bytes per I/O request [B].
    read_fraction : float
        Fraction of the I/O that reads [1].
    sequential : bool
        Sequential (streaming, prestaged) rather than random I/O.
    hit_ratio : float
        Storage read-cache hit ratio [1].
    buffered_io : bool
        I/O through the page cache (``True``) rather than raw or O_DIRECT; with the
        ``direct_io`` feature and ``direct_io_capable`` the copy is avoided.
    direct_io_capable : bool
        The application opens its files with O_DIRECT when the kernel offers it.
    read_think_time : float
        Time a process computes between two of its synchronous reads (what the
        anticipatory scheduler waits for) [s].
    page_events : float
        zSeries memory-management page events per transaction
        (:func:`zmodel.kernel.memory.mm_overhead`) [1].
    mappings : int
        PTEs mapping each page [1].
    network_requests : float
        Network requests (receive + send) per transaction [1].
    network_segments : float
        Mean TCP segments (packets of at most one MSS) a network request moves: what the
        stack segments and the NIC interrupts for when the kernel has no TSO and NAPI [1].
    thread_syncs : float
        Thread synchronisation events per transaction that reach the kernel: a contended
        mutex or condition wait of the thread library (NPTL's futex wait and wake, LinuxThreads'
        suspend and restart signals). Each is a wait: the waiter blocks and is woken, adding
        :data:`SWITCHES_PER_WAIT` context switches (:attr:`context_switches`) besides its own
        CPU (``KernelCosts.thread_sync_time``, ``linuxthreads_extra``) [1].
    nptl_capable : bool
        The application's runtime uses NPTL where the kernel offers it (``False``: a
        runtime that requires LinuxThreads on every kernel, e.g. WebSphere Application
        Server 5.x).
    dcache_lookups : float
        ``dcache_lock`` acquisitions per transaction with the 2.4 path walk (one per
        path-component lookup, d_lookup) [1].
    forks : float
        Process creations per transaction (``fork`` and ``exit``; a program run through the
        shell is a spawn) [1].
    spawns : float
        Programs run through the shell per transaction (``system(3)``, ``popen(3)``: a fork, the
        shell's start and the exec of the command) [1].
    external_delay : float
        Time per transaction spent in other tiers or clients, a delay [s].
    tick_waits : float
        Timer ticks a transaction waits for sleeps and timeouts that end on a tick, a
        delay of ``tick_waits`` x :func:`tick_period` that shrinks tenfold on x86 with
        ``hz_1000`` [1].
    runnable_fraction : float
        Fraction of the clients that are runnable tasks the 2.4 scheduler scans when the
        system is busy [1].
    shared_memory : float
        Shared buffer each client process maps (database buffer pool) [B].
    large_pages : bool
        The application uses large pages when the kernel offers them.

    Examples
    --------
    >>> WorkloadProfile("toy", clients=4, user_time=1e-3).clients
    4
    """

    name: str
    clients: int = 1
    think_time: float = 0.0
    user_time: float = 1e-3
    switches: float = 0.0
    io_per_transaction: float = 0.0
    block_size: float = 4096.0
    read_fraction: float = 1.0
    sequential: bool = False
    hit_ratio: float = 0.0
    buffered_io: bool = False
    direct_io_capable: bool = False
    read_think_time: float = 0.0
    page_events: float = 0.0
    mappings: int = 1
    network_requests: float = 0.0
    network_segments: float = 1.0
    thread_syncs: float = 0.0
    nptl_capable: bool = True
    dcache_lookups: float = 0.0
    forks: float = 0.0
    spawns: float = 0.0
    external_delay: float = 0.0
    tick_waits: float = 0.0
    runnable_fraction: float = 1.0
    shared_memory: float = 0.0
    large_pages: bool = False

    def __post_init__(self):
        if not isinstance(self.name, str) or not self.name:
            raise ValueError(f"name must be a non-empty string, got {self.name!r}")
        check_fields(self, counts={"clients": 0, "mappings": 1},
                     fractions=("read_fraction", "hit_ratio", "runnable_fraction"),
                     flags=("sequential", "buffered_io", "direct_io_capable", "large_pages", "nptl_capable"), skip=("name",))
        if self.io_per_transaction > 0 and self.block_size <= 0:
            raise ValueError(f"block_size must be positive when there is I/O, got {self.block_size!r}")
        if self.network_segments < 1:
            raise ValueError(f"network_segments must be >= 1 (a request moves at least one segment), "
                             f"got {self.network_segments!r}")

    @property
    def context_switches(self) -> float:
        """All context switches per transaction: ``switches`` plus :data:`SWITCHES_PER_WAIT` per
        thread synchronisation (a wait in the thread library) [1].

        Examples
        --------
        >>> WorkloadProfile("w", clients=1, switches=3, thread_syncs=5).context_switches
        13.0
        """
        return float(self.switches + SWITCHES_PER_WAIT * self.thread_syncs)

    def replace(self, **changes) -> "WorkloadProfile":
        """A copy with some fields changed (validated again)."""
        return dataclasses.replace(self, **changes)


@dataclasses.dataclass(frozen=True)
class SystemConfig:
    r"""The hardware and hypervisor side of a composed system, in SI units.

    Parameters
    ----------
    cpus : int
        Logical CPUs of the Linux image [1].
    cpu_speed : float
        Speed relative to the reference processor of :class:`KernelCosts` [1].
    dispatch_fraction : float
        Share of wall time the hypervisor dispatches a runnable logical CPU, in (0, 1]
        (1 for native / dedicated) [1].
    overcommit : float
        Runnable virtual CPUs per physical CPU seen by lock holders, >= 1 only under a
        shared hypervisor [1].
    disks : int
        Back-end disks (or request queues) serving the I/O [1].
    disk_time : float
        Disk-seconds per back-end I/O on one disk (random access or streaming) [s].
    controller_time : float
        Storage controller time per I/O (cache hit path), a delay [s].
    channel_demands : tuple of 3 floats
        Per-I/O demands on one channel path: channel processor, inbound link, outbound
        link (:meth:`zmodel.hardware.channels.ChannelLink.demands`) [s].
    channel_paths : int
        Active channel paths sharing the channel demands [1].
    highmem : bool
        Memory above the DMA-reachable low memory (x86 with more than 1 GB): 2.4 needs
        bounce buffers.
    devices : int
        Devices known to the device model (sysfs) [1].
    background_disk_load : float
        Disk utilization per transaction per second that the transactions cause but do not
        wait for: a storage server's destage of fast writes from its NVS and its pre-stage of
        sequential reads [s] (default 0). The disks are busy with it a fraction :math:`U = k X`
        of the time, during which the transactions' own disk accesses wait: their service is
        stretched to :math:`D / (1 - U)` (the shadow-server treatment of a higher-priority
        background load, Lazowska et al. 1984, §11.3.2), and :math:`U` is part of
        :func:`compose`'s fixed point.
    cp_costs : zmodel.kernel.hypervisor.CpCosts or None
        The z/VM control program's CPU per guest I/O and per virtual-CPU dispatch when the
        system is a z/VM guest (:func:`zmodel.kernel.hypervisor.cp_overhead`); ``None``
        (default): no z/VM, bare metal or an LPAR.
    platform : str
        The processor architecture, one of :data:`PLATFORMS` (default ``"zSeries"``). It
        decides which platform mechanisms apply: x86 alone has high memory behind bounce
        buffers (``highmem``) and critical sections that grow with the CPUs at a contended
        lock (:data:`HOLD_GROWTH`, measured on an 8-way x86); zSeries alone has the
        storage-key and TLB-purge primitives of :func:`zmodel.kernel.memory.mm_overhead`
        (``page_events``), the DIAG 44 / 9C spinlock yields and z/VM (``cp_costs``);
        elsewhere a spinlock spins.

    Examples
    --------
    >>> SystemConfig(cpus=8).dispatch_fraction
    1.0
    """

    cpus: int
    cpu_speed: float = 1.0
    dispatch_fraction: float = 1.0
    overcommit: float = 1.0
    disks: int = 1
    disk_time: float = 5e-3
    controller_time: float = 0.0
    channel_demands: tuple = (0.0, 0.0, 0.0)
    channel_paths: int = 1
    highmem: bool = False
    devices: int = 1
    cp_costs: Any = None
    platform: str = "zSeries"
    background_disk_load: float = 0.0

    def __post_init__(self):
        if self.platform not in PLATFORMS:
            raise ValueError(f"platform must be one of {', '.join(PLATFORMS)}, got {self.platform!r}")
        if self.highmem and self.platform != "x86":
            raise ValueError(f"highmem (memory behind 2.4 bounce buffers) exists on platform 'x86' only, "
                             f"got platform {self.platform!r}")
        if self.cp_costs is not None and self.platform != "zSeries":
            raise ValueError(f"cp_costs (a z/VM guest) needs platform 'zSeries', got {self.platform!r}")
        check_fields(self, counts={"cpus": 1, "disks": 1, "channel_paths": 1, "devices": 0},
                     flags=("highmem",), skip=("channel_demands", "dispatch_fraction", "cp_costs"))
        if self.disks > MAX_COPIES:   # each disk its own queue in compose's MVA (copies)
            raise ValueError(f"disks must be at most {MAX_COPIES}, got {self.disks}")
        if self.cp_costs is not None:
            from zmodel.kernel.hypervisor import CpCosts

            if not isinstance(self.cp_costs, CpCosts):
                raise ValueError(f"cp_costs must be a CpCosts or None, got {type(self.cp_costs).__name__}")
        object.__setattr__(self, "dispatch_fraction",
                           as_fraction("dispatch_fraction", self.dispatch_fraction, positive=True))
        if self.dispatch_fraction == 0:
            raise ValueError("dispatch_fraction must be in (0, 1], got 0")
        if self.cpu_speed <= 0:
            raise ValueError(f"cpu_speed must be positive, got {self.cpu_speed!r}")
        if self.overcommit < 1:
            raise ValueError(f"overcommit must be >= 1, got {self.overcommit!r}")
        d = tuple(float(v) for v in np.ravel(np.asarray(self.channel_demands, dtype=float)))
        if len(d) != 3 or any((not math.isfinite(v)) or v < 0 for v in d):
            raise ValueError(f"channel_demands must be 3 non-negative numbers, got {self.channel_demands!r}")
        object.__setattr__(self, "channel_demands", d)


@dataclasses.dataclass(frozen=True)
class SystemResult(Result):
    r"""Prediction of :func:`compose` (one entry per client population of the call).

    Attributes
    ----------
    clients : float or ndarray
        Closed population [1].
    throughput : float or ndarray
        Transactions per second [1/s].
    response_time : float or ndarray
        Mean time per transaction, think time excluded, ``N/X - Z`` [s].
    cpu_utilization : float or ndarray
        Fraction of wall time each logical CPU is dispatched and busy (including
        spinning on global locks) [1].
    steal : float or ndarray
        Fraction of wall time a logical CPU wants to run but the hypervisor does not
        dispatch it [1].
    spin_fraction : float or ndarray
        Fraction of the busy CPU time spent spinning on global locks [1].
    channel_utilization : float or ndarray
        Busiest of channel processor and link direction, per active path [1].
    disk_utilization : float or ndarray
        Utilization of each back-end disk [1].
    cpu_demand : float or ndarray
        CPU seconds per transaction at the CPU station, spinning and dispatch included [s].
    disk_demand : float or ndarray
        Disk-seconds per transaction, anticipatory idling included [s].
    memory_overhead : float
        Kernel memory that depends on the feature set: pinned sysfs, page tables of the
        clients' shared buffer, PTE chains [B].
    features : str
        Comma-separated features that entered the prediction.
    parameters : mapping
        The model quantities used, by name: ``cpus``, ``speed`` (relative processor speed),
        ``dispatch`` (dispatch fraction), ``disks``, ``paths`` (channel paths),
        ``io_scheduler``, ``spin_strategy``, ``D_cpu`` and ``D_disk`` (demands of the
        largest population [s]), ``spin`` (spin fraction there) and ``Z`` (think time [s]).
    residual : float
        Largest change of a utilization (per-CPU busy fraction, disk) in the last pass of
        the fixed point [1].
    converged : bool
        Whether ``residual`` is below :data:`FIXED_POINT_TOL` after
        :data:`FIXED_POINT_ITERATIONS` passes.
    """

    clients: Any
    throughput: Any
    response_time: Any
    cpu_utilization: Any
    steal: Any
    spin_fraction: Any
    channel_utilization: Any
    disk_utilization: Any
    cpu_demand: Any
    disk_demand: Any
    memory_overhead: float
    features: str
    parameters: Mapping[str, Any]
    residual: float = 0.0
    converged: bool = True

    def parameters_text(self) -> str:
        """The parameters as one ``name=value, ...`` line (demands and think time in seconds)."""
        return format_parameters(self.parameters)

    trailing_dims: ClassVar[tuple[str, ...]] = ()


def _features_of(kernel) -> frozenset:
    if isinstance(kernel, KernelVersion):
        return kernel.features
    if isinstance(kernel, str):
        return kernel_version(kernel).features
    f = frozenset(kernel)
    unknown = sorted(f - set(FEATURE_DETAILS))
    if unknown:
        raise ValueError(f"unknown kernel feature {unknown[0]!r}; known: {', '.join(FEATURE_DETAILS)}")
    return f


def _scheduler_of(kernel, features: frozenset, io_scheduler) -> str:
    if io_scheduler is None:
        if isinstance(kernel, (str, KernelVersion)):
            return kernel_version(kernel).default_io_scheduler
        return "anticipatory" if "anticipatory_scheduler" in features else "deadline"
    if io_scheduler not in IO_SCHEDULERS:
        raise ValueError(f"io_scheduler must be one of {list(IO_SCHEDULERS)}, got {io_scheduler!r}")
    if f"{io_scheduler}_scheduler" not in features:
        offered = [s for s in IO_SCHEDULERS if f"{s}_scheduler" in features]
        raise ValueError(f"io_scheduler {io_scheduler!r} is not offered by this kernel; it has {offered}")
    return io_scheduler


@vectorized
def kernel_cpu_time(features, workload: WorkloadProfile, system: SystemConfig,
                    costs: KernelCosts | None = None, runnable=None) -> dict[str, Any]:
    r"""CPU time per transaction of each kernel path, for a feature set (no contention).

    Parameters
    ----------
    features : iterable of str
        Kernel features (:data:`FEATURE_DETAILS`).
    workload : WorkloadProfile
        Per-transaction activity.
    system : SystemConfig
        Hardware side (``cpus``, ``disks``, ``highmem``).
    costs : KernelCosts, optional
        Per-event costs.
    runnable : float or array_like, optional
        Runnable tasks the 2.4 scheduler scans per switch; default
        ``max(1, runnable_fraction * clients)`` [1].

    Returns
    -------
    dict
        ``user, scheduler, block_io, network, threads, fork, memory, lock_hold`` [s] at
        the reference speed, and ``global_locks``: a list of (name, acquisitions per
        transaction [1], hold time [s]) of the locks that are global in this version.

    Notes
    -----
    With :math:`\sigma` switches (``context_switches``: :math:`\sigma_0 + 2\theta`, each of the
    :math:`\theta` synchronisations a wait), :math:`\iota` I/Os of :math:`B` bytes, :math:`\nu`
    network requests of :math:`g` TCP segments each, :math:`\theta` synchronisations, :math:`\phi`
    forks, :math:`\psi` spawns,
    :math:`\lambda` dcache lookups and :math:`\pi` page events per transaction, and :math:`[\cdot]` = 1 when a feature is
    absent:

    .. math::

        T_\text{sched} &= \sigma\,(t_\text{sw} + [\neg O(1)]\, t_\text{scan}\, n_\text{run}),\\
        T_\text{io} &= \iota\,\big(t_\text{io} + [\neg\text{bio}]\, t_\text{seg} \lceil B/512\rceil
                      + [\neg\text{bounce}\wedge\text{highmem}]\, b\,B + [\text{copy}]\, c\,B
                      + [\neg\text{per\_bdi}]\, t_\text{unplug}\, n_\text{disks}\big),\\
        T_\text{net} &= \nu\,(t_\text{net} + [\neg(\text{TSO}\wedge\text{NAPI})]\, g\, t_\text{net}^+),\quad
        T_\text{thr} = \theta\,(t_\text{sync} + [\neg\text{NPTL}]\, t_\text{LT}),\\
        T_\text{fork} &= \phi\,(t_\text{fork} + [\text{rmap}\wedge\neg\text{objrmap}]\, t_\text{chain})
                        + \psi\,(t_\text{spawn} + [\text{rmap}\wedge\neg\text{objrmap}]\, t_\text{chain}^\text{spawn}),\\
        T_\text{mm} &= \pi\, T_\text{mm}(\text{variant}, N_\text{cpu})\ (\text{mm\_overhead}),

    plus the lock hold times :math:`\sigma h_\text{rq} + \iota h_\text{io} + \lambda h_\text{dc}` (CPU
    work in every version; contended by all CPUs where the lock is global, per request queue for
    the 2.6 block-layer lock, see :func:`compose`; the ``dcache_lock`` is global in every
    version, taken :math:`\lambda` times per transaction in 2.4 and :math:`\lambda f_\text{rcu}`
    times with ``dcache_rcu``). Each term is one reading of a seed statement or, where the
    feature table says so, of a public reference (see :data:`FEATURE_DETAILS`). Valid as mean path lengths;
    cache effects (affinity, NUMA) are not modelled.

    References
    ----------
    Seeds ``001_37b528ecce68b8bf.txt`` (OSDL deck) and ``000_bf0694975d199a2d.txt`` (IBM
    Systems Journal), sections named in :data:`FEATURE_DETAILS`.

    Examples
    --------
    Per-queue locks and O(1): the scheduler term is the switch cost only.

    >>> w = WorkloadProfile("w", clients=10, user_time=1e-3, switches=2)
    >>> t = kernel_cpu_time(kernel_version("2.6.0").features, w, SystemConfig(cpus=4),
    ...                     KernelCosts(switch_time=1e-6))
    >>> round(float(t["scheduler"]) * 1e6, 9)
    2.0
    """
    f = _features_of(features)
    c = KernelCosts() if costs is None else costs
    w, s = workload, system
    run = max(1.0, w.runnable_fraction * w.clients) if runnable is None else np.maximum(1.0, runnable)
    return _cpu_terms(f, w, s, c, run, s.cpus)


def _scheduler_time(switches, switch_time, scan_factor, run):
    """T_sched of :func:`kernel_cpu_time`: ``scan_factor`` is 0 with O(1), 1 with the 2.4 goodness scan [s]."""
    return switches * (switch_time + scan_factor * run)


def _cpu_terms(f: frozenset, w: WorkloadProfile, s: SystemConfig, c: KernelCosts, run, cpus) -> dict[str, Any]:
    """The terms of :func:`kernel_cpu_time` (validated inputs; ``cpus`` an int or an int array)."""
    o1 = "o1_scheduler" in f
    switches = w.context_switches
    sched = _scheduler_time(switches, c.switch_time, (0.0 if o1 else 1.0) * c.scan_time,
                            np.asarray(run, dtype=float))
    io = 0.0
    if w.io_per_transaction > 0:
        per = c.io_request_time
        if "large_block_io" not in f:
            per += c.segment_time * math.ceil(w.block_size / 512.0)
        if s.highmem and "bounce_buffer_avoidance" not in f:
            per += c.bounce_time_per_byte * w.block_size
        if w.buffered_io and not (w.direct_io_capable and "direct_io" in f):
            per += c.copy_time_per_byte * w.block_size
        if "per_bdi_unplug" not in f:
            per += c.unplug_time_per_queue * s.disks
        io = w.io_per_transaction * per
    net = w.network_requests * (c.net_request_time + (0.0 if {"tcp_segmentation_offload", "napi"} <= f
                                                      else w.network_segments * c.net_extra_time))
    threads = w.thread_syncs * (c.thread_sync_time
                                + (0.0 if ("nptl" in f and w.nptl_capable) else c.linuxthreads_extra))
    chains = "rmap" in f and "objrmap" not in f
    fork = (w.forks * (c.fork_time + (c.pte_chain_fork_extra if chains else 0.0))
            + w.spawns * (c.spawn_time + (c.pte_chain_spawn_extra if chains else 0.0)))
    memory = 0.0
    if w.page_events > 0:
        if s.platform != "zSeries":
            raise ValueError(f"page_events model the zSeries storage-key and TLB-purge primitives; platform "
                             f"{s.platform!r} has none of them (give page_events = 0)")
        if np.ndim(cpus) == 0:
            memory = w.page_events * _page_event_time(memory_variant(f), cpus, w.mappings, c.instruction_costs)
        else:
            o = mm_overhead(memory_variant(f), cpus, w.mappings, 0, c.instruction_costs)
            memory = w.page_events * np.asarray(o.total_time, float)
    hold = switches * c.runqueue_hold + w.io_per_transaction * c.io_lock_hold + w.dcache_lookups * c.dcache_hold
    locks = []
    if "global_runqueue_lock" in f and switches > 0:
        locks.append(("runqueue_lock", switches, c.runqueue_hold))
    if "global_io_request_lock" in f and w.io_per_transaction > 0:
        locks.append(("io_request_lock", w.io_per_transaction, c.io_lock_hold))
    if w.dcache_lookups > 0:
        rcu = "dcache_rcu" in f
        locks.append(("dcache_lock", w.dcache_lookups * (c.dcache_rcu_fraction if rcu else 1.0), c.dcache_hold))
    return dict(user=w.user_time, scheduler=sched, block_io=io, network=net, threads=threads, fork=fork,
                memory=memory, lock_hold=hold, global_locks=locks)


def _page_event_time(variant: str, cpus, mappings, costs) -> float:
    """``float(mm_overhead(variant, cpus, mappings, 0, costs).total_time)``, once per distinct input [s]."""
    try:
        return _page_event_time_cached(variant, cpus, mappings, costs)
    except TypeError:   # unhashable costs: not cached
        return float(mm_overhead(variant, cpus, mappings, 0, costs).total_time)


@functools.lru_cache(maxsize=4096)
def _page_event_time_cached(variant: str, cpus, mappings, costs) -> float:
    return float(mm_overhead(variant, cpus, mappings, 0, costs).total_time)


@vectorized
def memory_overhead(features, workload: WorkloadProfile, system: SystemConfig,
                    costs: KernelCosts | None = None) -> float:
    r"""Kernel memory that depends on the feature set [B].

    :func:`zmodel.kernel.memory.sysfs_memory` (with ``sysfs_pinned``; backing store with
    ``sysfs_backing_store``) + :func:`zmodel.kernel.memory.page_table_memory` of the
    clients mapping ``shared_memory`` (large pages when the workload uses them and the
    kernel has ``large_pages``; 8-byte PTEs, 1 MiB segments as the large page on
    System z) + PTE chains (``rmap`` without ``objrmap``: one entry per mapped page per
    process).

    Examples
    --------
    >>> w = WorkloadProfile("w", clients=1)
    >>> memory_overhead(kernel_version("2.4.21").features, w, SystemConfig(cpus=1, devices=100))
    0.0
    >>> memory_overhead(kernel_version("2.6.0").features, w, SystemConfig(cpus=1, devices=100),
    ...                 KernelCosts(sysfs_files_per_device=10, sysfs_bytes_per_file=1000))
    1000000.0
    """
    f = _features_of(features)
    c = KernelCosts() if costs is None else costs
    total = 0.0
    if "sysfs_pinned" in f and system.devices > 0:
        total += float(sysfs_memory(system.devices, c.sysfs_files_per_device, c.sysfs_bytes_per_file,
                                    backing_store="sysfs_backing_store" in f).pinned_bytes)
    w = workload
    if w.shared_memory > 0 and w.clients > 0:
        large = w.large_pages and "large_pages" in f
        page = MiB if large else 4 * KiB
        total += float(page_table_memory(w.shared_memory, w.clients, page_size=page, entry_size=8).total_bytes)
        if "rmap" in f and "objrmap" not in f and not large:
            total += w.clients * math.ceil(w.shared_memory / 4096.0) * c.pte_chain_bytes
    return total


def calibrated_costs(parameters=None) -> KernelCosts:
    """The kernel costs of a parameter store: fitted values where a calibration fitted them.

    Parameters
    ----------
    parameters : zmodel.store.ParameterStore, optional
        Default the shipped store (:func:`zmodel.store.default`); :data:`zmodel.store.EMPTY`
        gives ``KernelCosts()``, every cost at its declared default.

    Examples
    --------
    >>> from zmodel import store
    >>> calibrated_costs(store.EMPTY) == KernelCosts()
    True
    """
    from zmodel import store
    from zmodel.queueing._params import build

    return build(KernelCosts, (store.default() if parameters is None else parameters).values())


@vectorized
def compose(kernel, workload: WorkloadProfile, system: SystemConfig, costs: KernelCosts | None = None,
            io_scheduler: str | None = None, clients=None, cpus=None) -> SystemResult:
    r"""Benchmark-level prediction of a system: hardware + hypervisor share + kernel + workload.

    Parameters
    ----------
    kernel : str, KernelVersion or iterable of feature names
        The kernel (a version name or an explicit feature set).
    workload : WorkloadProfile
        What one transaction does.
    system : SystemConfig
        CPUs, speed, hypervisor dispatch, disks, channels.
    costs : KernelCosts, optional
        Per-event costs; default :func:`calibrated_costs` (the parameter store's fitted
        values, declared defaults where no calibration fitted a cost).
    io_scheduler : {"deadline", "anticipatory", "cfq", "noop"}, optional
        Override of the version's default I/O scheduler (must be offered).
    clients : int or array_like of int, optional
        Populations to solve in one batch (default ``workload.clients``) [1].
    cpus : int or array_like of int, optional
        Logical CPUs of each network of the batch, broadcast against ``clients`` (default
        ``system.cpus`` for all): one call solves a sweep over the processors, e.g. one
        client per CPU with ``clients = cpus = 1..40``. The CPU count enters the CPU
        station's servers, the global-lock queues and the memory-management stalls [1].

    Returns
    -------
    SystemResult

    Notes
    -----
    Closed network, exact MVA (Lazowska et al. 1984, §6.4, Algorithm 6.1) with stations:
    CPU (``cpus`` servers), channel processor / inbound / outbound link
    (``channel_paths`` servers each), disks (``disks`` single-server queues sharing the
    disk demand: a request waits at the disk holding its block), and delays for the
    storage controller and other tiers; think time Z. The CPU demand per transaction is

    .. math::

        D_\text{cpu} = \frac{T_\text{kernel+user} + \sum_L a_L\, u_L\, w_L}
                            {s\,\phi\,(1 - \sum_L f_L)},

    with :math:`T` from :func:`kernel_cpu_time`, speed :math:`s`, dispatch fraction
    :math:`\phi`, and for every lock L (acquisitions :math:`a_L`, hold :math:`h_L`,
    :math:`k_L` equal instances, each acquisition on a uniformly chosen one) the fraction
    :math:`f_L = (Q - X h_L)/n` of CPU time lost at it (spinning and handing off). The
    lock's sources are the :math:`n = \min(N, \text{clients})` CPUs that can run at once,
    each taking the lock after :math:`Z_L = (T/a_L - h_L)/U_s` of work
    (:math:`U_s = U N/n` the busy fraction of a source: an idle CPU takes no locks); an
    instance with j CPUs at it hands over after :math:`h_L (1 + g (j - 1)) + j c` -- the Markov
    model of Boyd-Wickizer et al. (2012), section 3, c the cache-line hand-off per CPU at the
    lock (``KernelCosts.handoff.spinlock_handoff``, the parameter of
    :mod:`zmodel.fits.kernel_locks`), g the platform's growth of a critical section per
    additional CPU at the lock (:data:`HOLD_GROWTH`: 0.277 on x86, read from a lockmeter of the
    2.4 runqueue lock with and without contention; 0 elsewhere). The chain is
    :func:`~zmodel.kernel.locks.ticket_locks`' with serial time :math:`h_L (1 - g)` and hand-off
    :math:`c + g h_L`; the time lost at the lock is :math:`Q - X h_L` (the uncontended hold is
    work the CPU demand already holds). X and Q come from the closed product-form network of
    the n CPUs, a delay :math:`Z_L` and the :math:`k_L` instances
    (:func:`zmodel.kernel.locks.ticket_locks`; for :math:`k_L = 1` the chain
    :math:`P_j \propto \frac{n!}{(n-j)!} Z_L^{-j} \prod_{i \le j}(h_L + i c)` of
    :func:`zmodel.kernel.locks.ticket_lock`), so a CPU waits at one instance at a time.
    The locks: the 2.4 global runqueue lock (:math:`k = 1`, held
    :math:`h_\text{rq} + t_\text{scan} n_\text{run}` per switch: Linux 2.4
    ``kernel/sched.c`` ``schedule()`` runs its ``goodness()`` loop over the run queue
    between ``spin_lock_irq(&runqueue_lock)`` and ``spin_unlock_irq(&runqueue_lock)``;
    :math:`n_\text{run}` the runnable tasks of the pass, as in :func:`kernel_cpu_time`)
    and ``io_request_lock`` (:math:`k = 1`), the 2.6 per-request-queue lock (:math:`k` = ``disks``: seed 000, "we now have one lock per
    request queue. Several queues can be processed at the same time on different
    processors"), and the 2.4 ``dcache_lock`` (:math:`k = 1`, one acquisition per path-component
    lookup; with ``dcache_rcu`` only the update side's ``KernelCosts.dcache_rcu_fraction`` of them).
    A lock whose hold times vary more than exponentially (squared coefficient of variation
    :math:`c_L^2`: ``KernelCosts.dcache_hold_scv`` for ``dcache_lock``, 1 for the others) has
    its spinning scaled by :math:`(1 + c_L^2)/2`: the ratio of the M/G/1 to the M/M/1 mean
    wait at the same utilization (Pollaczek-Khinchine, R. B. Cooper, *Introduction to
    Queueing Theory*, 2nd ed., North Holland 1981, p. 189:
    :math:`E(W) = \frac{\rho\tau}{2(1-\rho)}(1 + \sigma^2/\tau^2)`), applied to the
    finite-source chain's wait (exact in the M/G/1 limit of many CPUs, an approximation for
    few: a seeded simulation of 8 CPUs thinking 100 us between 2.1 us holds drawn from a
    balanced hyperexponential of :math:`c^2 = 23.5` waits 0.64 of the scaled value, 4 CPUs 0.66 --
    finite sources throttle while a long hold runs). ``dcache_hold_scv`` is read from the
    measured wait through the same formula, so at the measured point (8 CPUs, 15.7 % lock
    utilization, the fitted hand-off) the composition gives 5.0 us of spinning per acquisition
    against the measured 4.8 us: an effective variability for this formula, not the second
    moment of a particular distribution. With c = 0 and k = 1 the lock is M/M/1//n. A single source never
    contends (no other CPU holds the lock and the line stays in its cache, as
    :func:`zmodel.kernel.locks.atomic_update`'s hit). Under an
    overcommitted hypervisor each contended acquisition
    (probability = lock utilization :math:`u_L`) also burns the ``wasted_cpu`` of
    :func:`zmodel.kernel.hypervisor.spinlock_yield` (:math:`w_L`, strategy from
    :func:`spinlock_strategy`), and the lock's queue sees the preempted holder's
    effective hold :math:`h_\text{eff} = h + m W` of
    :func:`zmodel.kernel.hypervisor.preempted_hold_time` (spinning: the full off time;
    DIAG 44: shortened by the waiters queued ahead of the holder, their share read as the
    last pass's spin fraction; DIAG 9C: about the spin phase plus one diagnose), plus the
    hand-off :math:`j c` (the waiters' preemption is not modelled: s390 spinlocks are
    compare-and-swap locks, not ticket locks, so a preempted waiter blocks nobody). Under
    overcommit the 2.6 per-CPU runqueue locks (one per CPU, each acquisition on a
    uniformly chosen instance) are added as queues too, charged only with the spin the
    preemption adds (:math:`f(h_\text{eff}) - f(h)`: a CPU takes mostly its own runqueue
    lock, so on dedicated CPUs they are treated as uncontended).
    With ``SystemConfig.cp_costs`` (a z/VM guest) the demand also carries
    :math:`C_\text{CP}/(s\phi)` of :func:`zmodel.kernel.hypervisor.cp_overhead` (I/Os,
    wakeups = I/Os + network requests, slice-end dispatches of the base CPU time). The disk demand is
    :math:`\iota (1-h) t_\text{disk}`, plus, under the anticipatory scheduler, the
    idle :math:`\iota\,(1-h)\, p_\text{miss}\, E[\min(Z_r, w)]\, U_\text{disk}` --
    anticipation only costs when other requests wait (light load: no loss; heavy
    load: the device idles, seed 001 "light load: same performance, heavy load: AS
    is -27% against Deadline"). U and :math:`U_\text{disk}` come from the previous MVA
    solution (:data:`FIXED_POINT_ITERATIONS` passes, starting from busy CPUs and an
    idle disk). Steal is :math:`U_\text{cpu}(1-\phi)` and CPU utilization
    :math:`U_\text{cpu}\phi` (:func:`zmodel.kernel.hypervisor.guest_cpu_accounting`:
    :math:`\text{st} = r(1-\phi)`).

    Validity: product-form means (exponential FCFS or PS stations), a spinning CPU is
    busy, the locks are independent of each other (the instances of one lock share the
    CPUs exactly), each acquisition picks an instance uniformly; exponential hold and
    hand-off times, as in Boyd-Wickizer et al. (whose measured collapse is sharper than
    the chain's); the fixed point is an iterative decomposition (Lazowska et al. 1984,
    §8.4), not exact.

    References
    ----------
    E. D. Lazowska, J. Zahorjan, G. S. Graham, K. C. Sevcik, *Quantitative System
    Performance*, Prentice Hall 1984, ch. 6 and §8.4.
    S. Boyd-Wickizer, M. F. Kaashoek, R. Morris, N. Zeldovich, "Non-scalable locks are
    dangerous", Proc. Linux Symposium, Ottawa 2012, section 3 (the lock's Markov model).
    Seeds 000 (IBM Systems Journal), 001 (OSDL), 002 (WAVV 2008), sections in
    :data:`FEATURE_DETAILS`.

    Examples
    --------
    One CPU, no I/O, no locks: X = 1/D.

    >>> w = WorkloadProfile("cpu", clients=1, user_time=2e-3)
    >>> r = compose("2.6.6", w, SystemConfig(cpus=1))
    >>> round(r.throughput, 9), r.steal
    (500.0, 0.0)

    A processor sweep, one client per CPU: X = N / D.

    >>> compose("2.6.6", w, SystemConfig(cpus=1), clients=[1, 2, 4], cpus=[1, 2, 4]).throughput.round(9).tolist()
    [500.0, 1000.0, 2000.0]
    """
    return _compose_all([(kernel, workload, system, costs, io_scheduler, clients, cpus)])[0]


@dataclasses.dataclass(frozen=True)
class SystemResults(Result):
    """The results of :func:`compose_many`, one :class:`SystemResult` per composition (a sequence).

    Attributes
    ----------
    results : tuple of SystemResult
        In the order of the compositions.
    """

    results: tuple

    def __len__(self) -> int:
        return len(self.results)

    def __iter__(self):
        return iter(self.results)

    def __getitem__(self, i) -> SystemResult:
        return self.results[i]

    def to_frame(self):
        """One frame: every composition's :meth:`SystemResult.to_frame` rows, with a ``composition`` column."""
        import pandas as pd

        frames = [r.to_frame().assign(composition=i) for i, r in enumerate(self.results)]
        return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame({"composition": []})


@vectorized
def compose_many(compositions) -> SystemResults:
    r"""Several :func:`compose` calls solved together: one MVA call per fixed-point pass for all.

    Parameters
    ----------
    compositions : iterable of mapping
        The keyword arguments of one :func:`compose` call each (``kernel``, ``workload``,
        ``system``, and optionally ``costs``, ``io_scheduler``, ``clients``, ``cpus``).

    Returns
    -------
    SystemResults
        A sequence of one :class:`SystemResult` per composition, in order; each equal, bit
        for bit, to what :func:`compose` returns for it alone.

    Notes
    -----
    The compositions share nothing but the solver calls: every fixed-point pass solves all
    of their networks in one batched :func:`zmodel.queueing.mva` call (each network with its
    own server counts) and the lock queues of all networks with the same CPU count in
    one :func:`zmodel.kernel.locks.ticket_lock` call. A composition whose fixed point is exact
    before the others' would repeat its last pass bit for bit, so the batch gives each
    composition what it gets alone. Used by the calibrations, which compose dozens of
    systems at each parameter vector.

    Examples
    --------
    >>> w = WorkloadProfile("cpu", clients=1, user_time=2e-3)
    >>> a, b = compose_many([dict(kernel="2.6.6", workload=w, system=SystemConfig(cpus=1)),
    ...                      dict(kernel="2.4.21", workload=w, system=SystemConfig(cpus=2), clients=[1, 2])])
    >>> round(a.throughput, 9), b.throughput.round(9).tolist()
    (500.0, [500.0, 1000.0])
    """
    names = ("kernel", "workload", "system", "costs", "io_scheduler", "clients", "cpus")
    calls = []
    for i, comp in enumerate(compositions):
        if not isinstance(comp, Mapping):
            raise ValueError(f"compositions must be mappings of compose() arguments, got {type(comp).__name__} "
                             f"at index {i}")
        unknown = sorted(set(comp) - set(names))
        if unknown:
            raise ValueError(f"compositions[{i}] has unknown argument {unknown[0]!r}; known: {', '.join(names)}")
        missing = [n for n in names[:3] if n not in comp]
        if missing:
            raise ValueError(f"compositions[{i}] must give {', '.join(missing)}")
        calls.append(tuple(comp.get(n) for n in names))
    return SystemResults(results=tuple(_compose_all(calls)))


@dataclasses.dataclass(frozen=True)
class IoLockScalingResult(Result):
    """2.4's global ``io_request_lock`` against 2.6's per-request-queue locks (:func:`io_lock_scaling`).

    Attributes
    ----------
    cpus : float or ndarray
        CPUs of each system [1].
    disks : float or ndarray
        Disks (DASDs), one request queue each [1].
    spin_fraction_global : float or ndarray
        Fraction of the busy CPU time lost at the one global lock (2.4) [1].
    spin_fraction_per_queue : float or ndarray
        Fraction of the busy CPU time lost at the per-queue locks (2.6) [1].
    throughput_global : float or ndarray
        Transactions per second with the global lock [1/s].
    throughput_per_queue : float or ndarray
        Transactions per second with one lock per request queue [1/s].
    gain : float or ndarray
        ``100 (throughput_per_queue / throughput_global - 1)`` [%].
    """

    cpus: Any
    disks: Any
    spin_fraction_global: Any
    spin_fraction_per_queue: Any
    throughput_global: Any
    throughput_per_queue: Any
    gain: Any


@vectorized
def io_lock_scaling(cpus, disks, workload: WorkloadProfile, system: SystemConfig | None = None,
                    costs: KernelCosts | None = None, kernel="2.6.6", io_scheduler="deadline") -> IoLockScalingResult:
    r"""The block-layer lock's cost as CPUs and disks grow: one global lock (2.4) or one per request queue (2.6).

    Two compositions (:func:`compose`) per (``cpus``, ``disks``) pair, identical but for the
    block-layer locking: ``kernel``'s features with ``global_io_request_lock`` (the 2.4
    ``io_request_lock``: one lock for every request) or with ``per_queue_io_lock`` (one lock
    per request queue, one queue per disk). Everything else -- paths, scheduler, costs --
    is the same, so the difference is the lock alone. All pairs are solved in one
    :func:`compose_many` call.

    Parameters
    ----------
    cpus : int or array_like of int
        CPUs of the system, >= 1, broadcast against ``disks`` [1].
    disks : int or array_like of int
        Disks (DASDs; request queues), >= 1 [1].
    workload : WorkloadProfile
        What one transaction does (``io_per_transaction`` > 0 for a lock to matter).
    system : SystemConfig, optional
        The rest of the system (speed, hypervisor, disk time, channels); its ``cpus`` and
        ``disks`` are replaced. Default ``SystemConfig(cpus=1)``.
    costs : KernelCosts, optional
        Default :func:`calibrated_costs`.
    kernel : str or KernelVersion, default "2.6.6"
        The feature set both variants start from.
    io_scheduler : str, default "deadline"
        The I/O scheduler of both variants (the 2.4 elevator).

    Returns
    -------
    IoLockScalingResult

    Notes
    -----
    Each lock is the hand-off chain of :func:`compose` (Boyd-Wickizer et al. 2012, section
    3): with k lock instances, each CPU takes a given instance after
    :math:`Z_L = (k T/\iota - h)/U` and loses :math:`f = k (Q - X h)/N` of its time,
    :math:`Q, X` of the chain with serial time :math:`h + j c`. With a saturated CPU
    station (U = 1, no disk time) the throughput is :math:`N (1 - f)/T`. The global lock
    saturates at about :math:`(Z_L + h)/h` CPUs whatever the disks; the per-queue locks
    divide the acquisitions among k = ``disks`` locks. IBM Systems Journal (seed 000),
    "I/O": the io_request_lock contention "gets worse the more processors or disks" and
    "we now have one lock per request queue. Several queues can be processed at the same
    time on different processors"; OSDL deck (seed 001), "Locking I/O Request".

    References
    ----------
    .. [1] S. Boyd-Wickizer, M. F. Kaashoek, R. Morris, N. Zeldovich, "Non-scalable locks
       are dangerous", Proc. Linux Symposium, Ottawa 2012, section 3.
    .. [2] Seeds ``000_bf0694975d199a2d.txt`` (section "I/O") and
       ``001_37b528ecce68b8bf.txt`` ("Locking I/O Request").

    Examples
    --------
    One CPU never contends: both lockings give the same throughput.

    >>> w = WorkloadProfile("io", clients=4, user_time=40e-6, io_per_transaction=1)
    >>> r = io_lock_scaling(1, 8, w, SystemConfig(cpus=1, disk_time=0.0), KernelCosts())
    >>> r.gain, r.spin_fraction_global
    (0.0, 0.0)
    """
    n = np.asarray(cpus)
    d = np.asarray(disks)
    n_list = np.array([as_count("cpus", v, 1) for v in n.ravel()], dtype=np.int64).reshape(n.shape)
    d_list = np.array([as_count("disks", v, 1) for v in d.ravel()], dtype=np.int64).reshape(d.shape)
    try:
        n_b, d_b = np.broadcast_arrays(n_list, d_list)
    except ValueError:
        raise ValueError(f"cpus and disks must broadcast against each other, got shapes {n.shape} and "
                         f"{d.shape}") from None
    if not isinstance(workload, WorkloadProfile):
        raise ValueError(f"workload must be a WorkloadProfile, got {type(workload).__name__}")
    if system is None:
        system = SystemConfig(cpus=1)
    if not isinstance(system, SystemConfig):
        raise ValueError(f"system must be a SystemConfig, got {type(system).__name__}")
    base = _features_of(kernel)
    locking = {"global": (base - {"per_queue_io_lock"}) | {"global_io_request_lock"},
               "per_queue": (base - {"global_io_request_lock"}) | {"per_queue_io_lock"}}
    calls = [dict(kernel=locking[v], workload=workload, costs=costs, io_scheduler=io_scheduler,
                  system=dataclasses.replace(system, cpus=int(c), disks=int(k)))
             for c, k in zip(n_b.ravel(), d_b.ravel()) for v in ("global", "per_queue")]
    res = compose_many(calls)
    x = np.array([float(r.throughput) for r in res]).reshape(-1, 2)
    f = np.array([float(r.spin_fraction) for r in res]).reshape(-1, 2)
    with np.errstate(invalid="ignore", divide="ignore"):
        gain = np.where(x[:, 0] > 0, 100.0 * (x[:, 1] / np.where(x[:, 0] > 0, x[:, 0], 1.0) - 1.0), 0.0)
    shape = n_b.shape
    return IoLockScalingResult(cpus=n_b.astype(float), disks=d_b.astype(float),
                               spin_fraction_global=f[:, 0].reshape(shape),
                               spin_fraction_per_queue=f[:, 1].reshape(shape),
                               throughput_global=x[:, 0].reshape(shape), throughput_per_queue=x[:, 1].reshape(shape),
                               gain=gain.reshape(shape))


class _Prepared:
    """One composition laid out for the batched fixed point (iteration-independent terms)."""

    __slots__ = ("f", "w", "s", "c", "sched", "pop", "ncpu", "scalar", "strategy", "terms", "locks", "scan",
                 "disk_base", "antic", "chan", "ctrl", "B", "cpus_param", "cp")


def _kernel_info(kernel, io_scheduler) -> tuple[frozenset, str, str]:
    """Features, I/O scheduler and spinlock strategy of a kernel argument (once per distinct argument)."""
    try:
        return _kernel_info_cached(kernel, io_scheduler)
    except TypeError:   # an unhashable feature collection (a list): not cached
        f = _features_of(kernel)
        return f, _scheduler_of(kernel, f, io_scheduler), spinlock_strategy(f)


@functools.lru_cache(maxsize=256)
def _kernel_info_cached(kernel, io_scheduler) -> tuple[frozenset, str, str]:
    f = _features_of(kernel)
    return f, _scheduler_of(kernel, f, io_scheduler), spinlock_strategy(f)


def _prepare(kernel, workload, system, costs, io_scheduler, clients, cpus) -> _Prepared:
    f, sched, strategy = _kernel_info(kernel, io_scheduler)
    c = calibrated_costs() if costs is None else costs
    if not isinstance(workload, WorkloadProfile):
        raise ValueError(f"workload must be a WorkloadProfile, got {type(workload).__name__}")
    if not isinstance(system, SystemConfig):
        raise ValueError(f"system must be a SystemConfig, got {type(system).__name__}")
    w, s = workload, system
    pop = np.atleast_1d(np.asarray(w.clients if clients is None else clients))
    pop = np.array([as_count("clients", v, 0) for v in pop.ravel()], dtype=np.int64)
    if cpus is None:
        ncpu = np.full(pop.size, s.cpus, dtype=np.int64)
        cpus_param = s.cpus
    else:
        ncpu = np.array([as_count("cpus", v, 1) for v in np.ravel(cpus)], dtype=np.int64)
        try:
            pop, ncpu = (np.ascontiguousarray(a) for a in np.broadcast_arrays(pop, ncpu))
        except ValueError:
            raise ValueError(f"cpus must broadcast against clients: got {ncpu.size} CPU counts for "
                             f"{pop.size} populations") from None
        cpus_param = int(ncpu[-1])
    p = _Prepared()
    p.f, p.w, p.s, p.c, p.sched, p.pop, p.ncpu, p.B = f, w, s, c, sched, pop, ncpu, pop.size
    p.scalar = (clients is None or np.ndim(clients) == 0) and (cpus is None or np.ndim(cpus) == 0)
    p.cpus_param = cpus_param
    if s.platform != "zSeries":   # DIAG 44 / 9C are zSeries instructions: elsewhere a spinlock spins
        strategy = "spin"
    p.strategy = strategy
    # every term of kernel_cpu_time but the 2.4 scan (it follows the runnable tasks of each pass)
    t = _cpu_terms(f, w, s, c, 1.0, cpus_param if cpus is None else ncpu)
    p.terms = t
    p.scan = (0.0 if "o1_scheduler" in f else 1.0) * c.scan_time
    ios = w.io_per_transaction
    p.disk_base = ios * (1.0 - (w.hit_ratio if w.read_fraction > 0 else 0.0) * w.read_fraction) * s.disk_time
    antic = 0.0
    if sched == "anticipatory" and ios > 0 and w.read_fraction > 0:
        from zmodel.kernel.iopath import anticipation_hold

        hold = float(anticipation_hold(w.read_think_time, c.antic_expire))
        antic = ios * w.read_fraction * (1.0 - w.hit_ratio) * c.antic_miss * hold
    p.antic = antic
    p.chan = np.asarray(s.channel_demands) * ios
    p.ctrl = ios * s.controller_time
    p.locks = _locks(f, w, s, c, t["global_locks"], strategy)
    p.cp = None
    if s.cp_costs is not None:
        from zmodel.kernel.hypervisor import cp_overhead

        wake = ios + w.network_requests
        # CP CPU per transaction = fixed (I/Os, wakeups) + per second of guest CPU (slice ends)
        p.cp = (float(cp_overhead(ios, wake, 0.0, s.overcommit, s.cp_costs).total_time),
                float(cp_overhead(0.0, 0.0, 1.0, s.overcommit, s.cp_costs).total_time))
    return p


def _locks(f: frozenset, w: WorkloadProfile, s: SystemConfig, c: KernelCosts, global_locks, strategy) -> list:
    """The spinlocks of a composition: ``(name, acquisitions, hold, wasted, instances, increment, a, b, scv, ua, ub)``.

    Every global lock of the version (one instance); the 2.6 per-request-queue block-layer
    locks (``instances = disks``: each request goes to one of the disks' queues, chosen
    uniformly), contended like any lock; and, under overcommit, the 2.6 per-CPU runqueue
    locks (``instances = 0`` meaning one per CPU) with ``increment``: only what the holder's
    preemption adds to their spinning is charged (a CPU takes mostly its own runqueue lock,
    so on dedicated CPUs the composition treats it as uncontended). ``wasted`` is the CPU a
    contended acquisition burns under overcommit
    (:func:`zmodel.kernel.hypervisor.spinlock_yield`, ``None`` without), ``a + b q`` the
    hold time the lock's queue sees when a fraction q of the virtual CPUs queued for a
    physical CPU are lock waiters (:func:`zmodel.kernel.hypervisor.preempted_hold_time`,
    linear in q; ``a = hold, b = 0`` without overcommit), ``scv`` the squared coefficient of
    variation of its hold times (1: exponential; ``KernelCosts.dcache_hold_scv`` for the dcache lock), and
    ``ua, ub`` the factors a and b per unit of hold (the preempted hold is proportional to the hold).
    """
    over = s.overcommit > 1

    def hyper(hold):
        if not over:
            return None, hold, 0.0, 1.0, 0.0
        from zmodel.kernel.hypervisor import preempted_hold_time, spinlock_yield

        # the preempted holder's hold is proportional to the hold (preempted_hold_time): its factors
        # per unit of hold, read at the hold or, for a hold at its bound 0, at any positive one (the
        # 2.4 runqueue lock is then held for its goodness() scan alone, which they inflate)
        ref = hold if hold > 0 else 1e-6
        a1 = float(preempted_hold_time(s.overcommit, ref, strategy).effective_hold_time)
        b1 = float(preempted_hold_time(s.overcommit, ref, strategy, yielding_fraction=1.0).effective_hold_time) - a1
        if hold <= 0:   # held for no time: no holder to preempt in it, nothing wasted
            return 0.0, 0.0, 0.0, a1 / ref, b1 / ref
        wasted = float(spinlock_yield(s.overcommit, hold, strategy).wasted_cpu)
        return wasted, a1, b1, a1 / hold, b1 / hold

    def entry(name, acq, hold, instances, increment):
        wasted, a, b, ua, ub = hyper(hold)
        scv = c.dcache_hold_scv if name == "dcache_lock" else 1.0
        return name, acq, hold, wasted, instances, increment, a, b, scv, ua, ub

    out = [entry(name, acq, hold, 1, False) for name, acq, hold in global_locks]
    if over and "global_runqueue_lock" not in f and w.context_switches > 0 and c.runqueue_hold > 0:
        out.append(entry("runqueue_lock_per_cpu", w.context_switches, c.runqueue_hold, 0, True))
    if "global_io_request_lock" not in f and w.io_per_transaction > 0 and c.io_lock_hold > 0:
        out.append(entry("queue_lock", w.io_per_transaction, c.io_lock_hold, s.disks, False))
    return out


@functools.lru_cache(maxsize=4096)
def _memory_overhead(f, w, s, c) -> float:
    """:func:`memory_overhead` of validated, hashable inputs, computed once per distinct system."""
    return memory_overhead(f, w, s, c)


def _locks_of(cpus, think, serial, handoff, instances) -> dict:
    """:func:`zmodel.kernel.locks.ticket_locks` of ``cpus`` CPUs at each lock of the flat arrays
    (built valid by :func:`_compose_all`: its checks are the serial time's only)."""
    from zmodel.kernel.locks import _check_serial, _ticket_locks

    _check_serial(serial, handoff)
    return _ticket_locks(np.full(serial.size, float(cpus)), think, serial, handoff, instances)


def _grown_chain(hold, growth, handoff):
    """The hand-off chain's ``(serial, hand-off)`` whose serial time with k CPUs at the lock is
    ``hold (1 + growth (k - 1)) + k handoff`` (:data:`HOLD_GROWTH`): ``hold (1 - growth)`` and
    ``handoff + growth hold``."""
    return hold * (1.0 - growth), handoff + growth * hold


def _lost_fraction(lk, hold, cpus):
    """Fraction of ``cpus`` CPUs lost at a lock of :func:`_locks_of`: the CPUs at it less those doing
    the uncontended hold's work, (Q - X h) / n (hand-offs, spinning and a hold's growth, HOLD_GROWTH)."""
    return np.maximum(lk["queue_length"] - lk["acquisition_rate"] * hold, 0.0) / cpus


def _background_step(u, g, u_last, excess_last):
    r"""The next background disk share :math:`U` of networks whose pass at ``u`` gave :math:`k X = g`.

    The root of :math:`k X(U) - U` lies between :math:`U` and :math:`k X(U)` where :math:`X`
    falls as :math:`U` grows (the usual case; under the 2.4 scheduler's scan of the runnable
    tasks slower disks can raise :math:`X` a little, and the iteration then ends only where a
    pass repeats :math:`U = k X(U)`): the secant through this pass and the last where it falls strictly
    inside that bracket, else its middle; the first pass takes :math:`k X(0)`, the bracket's
    upper end (Illinois-style safeguarding, Dowell & Jarratt, BIT 11, 1971, pp. 168-174, of a
    root whose function also moves with the other fixed-point variables). A step up goes at
    most half the way to 1: where the destage alone would need more than the disks
    (:math:`k X > 1` until :math:`U` is close to 1, the NVS throttling the writes) a jump to
    :math:`U = 1` would stall the transactions for a pass and throw the other variables of
    the fixed point far from their solution.
    """
    h = g - u
    lo, hi = np.minimum(u, g), np.maximum(u, g)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        secant = u - h * (u - u_last) / (h - excess_last)
    inside = np.isfinite(secant) & (secant > lo) & (secant < hi)
    step = np.where(np.isnan(excess_last), g, np.where(inside, secant, 0.5 * (lo + hi)))
    step = np.minimum(step, u + 0.5 * (1.0 - u))
    return np.clip(np.where(h == 0.0, u, step), 0.0, 1.0 - 1e-12)


def _compose_all(calls) -> list[SystemResult]:
    """The fixed point of :func:`compose` for several compositions at once (see :func:`compose_many`)."""
    preps = [_prepare(*call) for call in calls]
    if not preps:
        return []
    sizes = np.array([p.B for p in preps])
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    seg = np.repeat(np.arange(len(preps)), sizes)
    B = int(sizes.sum())

    def col(values):  # one value per composition -> one per network
        return np.repeat(np.asarray(values, dtype=float), sizes)

    def cat(arrays):  # one value or array per composition -> one per network
        if all(isinstance(a, float) for a in arrays):   # Python or NumPy floats
            return col(arrays)
        return np.concatenate([np.broadcast_to(np.asarray(a, dtype=float), (n,)) for a, n in zip(arrays, sizes)])

    pop = np.concatenate([p.pop for p in preps])
    ncpu = np.concatenate([p.ncpu for p in preps])
    names = ("user", "block_io", "network", "threads", "fork", "memory", "lock_hold")
    terms = {k: cat([p.terms[k] for p in preps]) for k in names}
    switches = col([p.w.context_switches for p in preps])
    switch_time = col([p.c.switch_time for p in preps])
    scan = col([p.scan for p in preps])
    rfrac = col([p.w.runnable_fraction for p in preps])
    think_time = col([p.w.think_time for p in preps])
    speed_phi = col([p.s.cpu_speed * p.s.dispatch_fraction for p in preps])
    disk_base = col([p.disk_base for p in preps])
    # a background disk load (destage, pre-stage) with disk accesses of the transactions to stretch
    bg_load = col([p.s.background_disk_load for p in preps])
    bg = (bg_load > 0.0) & (disk_base > 0.0)
    antic = col([p.antic for p in preps])
    other = np.repeat(np.array([[p.chan[0], p.chan[1], p.chan[2]] for p in preps]), sizes, axis=0)
    ctrl = col([p.ctrl for p in preps])
    ext = col([_delay_time(p.w, p.f, p.s.platform) for p in preps])
    handoff = col([p.c.handoff.spinlock_handoff for p in preps])
    growth = col([HOLD_GROWTH[p.s.platform] for p in preps])
    servers = np.repeat(np.array([[0.0, p.s.channel_paths, p.s.channel_paths, p.s.channel_paths, 1.0,
                                   math.inf, math.inf] for p in preps]), sizes, axis=0)
    servers[:, 0] = ncpu
    # the disks: one single-server queue per disk sharing the demand (a request waits at the
    # disk that holds its block), not a pool of servers any request could use
    copies = np.ones((B, 7), dtype=np.int64)
    copies[:, 4] = np.repeat(np.array([p.s.disks for p in preps], dtype=np.int64), sizes)
    # the global locks: per network, acquisitions, hold, wasted CPU under overcommit (NaN: none)
    slots = max((len(p.locks) for p in preps), default=0)
    lock_acq = np.full((slots, B), np.nan)
    lock_hold = np.full((slots, B), np.nan)
    lock_waste = np.full((slots, B), np.nan)
    lock_inst = np.ones((slots, B))
    lock_incr = np.zeros((slots, B), dtype=bool)
    lock_a = np.full((slots, B), np.nan)
    lock_b = np.zeros((slots, B))
    lock_ua, lock_ub = np.ones((slots, B)), np.zeros((slots, B))   # a and b per unit of hold
    lock_var = np.ones((slots, B))   # (1 + scv) / 2: the Pollaczek-Khinchine factor of the spinning
    # the 2.4 runqueue lock is held across schedule()'s goodness() scan: hold + scan x runnable
    lock_scan = np.zeros((slots, B))
    over_of = {}    # network slice -> (overcommit, strategy) where a scanned hold needs its yield waste per pass
    for i, p in enumerate(preps):
        sl = slice(starts[i], starts[i] + sizes[i])
        for j, (name, acq, hold, wasted, inst, incr, a, b, scv, ua, ub) in enumerate(p.locks):
            lock_acq[j, sl], lock_hold[j, sl], lock_var[j, sl] = acq, hold, (1.0 + scv) / 2.0
            lock_waste[j, sl] = math.nan if wasted is None else wasted
            lock_inst[j, sl] = ncpu[sl] if inst == 0 else inst
            lock_incr[j, sl], lock_a[j, sl], lock_b[j, sl] = incr, a, b
            lock_ua[j, sl], lock_ub[j, sl] = ua, ub
            if name == "runqueue_lock" and p.scan > 0:
                lock_scan[j, sl] = p.scan
                if wasted is not None:
                    over_of[(j, starts[i], sizes[i])] = (float(p.s.overcommit), p.strategy)
    scanned = bool((lock_scan > 0).any())
    # networks whose lock holds follow the previous pass's spin (DIAG 44 under overcommit)
    # (a scanned lock follows it through its factor per unit of hold even when its own hold is 0)
    q_dep = ((lock_b != 0.0) | ((lock_ub != 0.0) & (lock_scan > 0))).any(axis=0) if slots else np.zeros(B, dtype=bool)
    # z/VM CP CPU per transaction: fixed part and part per second of guest CPU
    cp_on = np.repeat(np.array([p.cp is not None for p in preps]), sizes)
    cp_fixed = col([0.0 if p.cp is None else p.cp[0] for p in preps])
    cp_per_cpu = col([0.0 if p.cp is None else p.cp[1] for p in preps])

    # fixed point: per-CPU busy fraction (starts busy), disk utilization (starts idle), the
    # background load's share of the disks (starts 0)
    u_cpu = np.ones(B)
    u_disk = np.zeros(B)
    u_bg = np.zeros(B)
    bg_last, excess_last = np.full(B, np.nan), np.full(B, np.nan)   # the last pass's U and k X - U
    runnable = np.maximum(1.0, rfrac * pop.astype(float))
    x, util, spin_total = np.zeros(B), np.zeros((B, 7)), np.zeros(B)
    d_cpu, d_disk = np.zeros(B), np.zeros(B)
    change_of = np.full(B, math.inf)   # each network's change in its last pass
    limit = np.where(bg, BACKGROUND_ITERATIONS, FIXED_POINT_ITERATIONS)
    active = np.ones(B, dtype=bool)
    for it in range(int(limit.max(initial=0))):
        # the networks whose fixed point is not yet exact (an exact one would repeat its last
        # pass bit for bit: compose stops there; until 2026-11-28 a whole composition stopped
        # when all its networks were exact, which repeated theirs: the same numbers)
        ix = np.flatnonzero(active)
        if not ix.size:
            break
        sg = seg[ix]
        nb = ix.size
        sched = _scheduler_time(switches[ix], switch_time[ix], scan[ix], np.maximum(1.0, runnable[ix]))
        base = (terms["user"][ix] + sched + terms["block_io"][ix] + terms["network"][ix] + terms["threads"][ix]
                + terms["fork"][ix] + terms["memory"][ix] + terms["lock_hold"][ix]) * np.ones(nb)
        spin_a = np.zeros(nb)
        waste = np.zeros(nb)
        if slots:
            # every global lock of every network: its queue of CPUs (the think times follow
            # this pass's base demand and busy fraction), solved per CPU count in one call
            acq_a, hold_a, waste_a, ncpu_a = lock_acq[:, ix], lock_hold[:, ix], lock_waste[:, ix], ncpu[ix]
            inst_a, incr_a, var_a = lock_inst[:, ix], lock_incr[:, ix], lock_var[:, ix]
            # the hold the queue sees: h, or under overcommit h + preemptions x holder delay,
            # the delay shortened by the waiters queued ahead of the holder (q = last pass's spin)
            eff_a = lock_a[:, ix] + lock_b[:, ix] * spin_total[ix]
            if scanned:
                # the goodness() scan under the 2.4 runqueue lock: the hold of this pass is
                # h + t_scan n_run; the preempted holder's h_eff = h + (kappa h/T_s) W(q) is
                # proportional to the hold (preempted_hold_time), so it scales with it
                scan_hold = lock_scan[:, ix] * np.maximum(1.0, runnable[ix])
                unit = lock_ua[:, ix] + lock_ub[:, ix] * spin_total[ix]
                eff_a = np.where(scan_hold > 0, (hold_a + scan_hold) * unit, eff_a)
                hold_a = hold_a + scan_hold
            # the chain's serial time with k CPUs at the lock, h (1 + g (k - 1)) + k c (HOLD_GROWTH)
            ser_a, c_a = _grown_chain(eff_a, growth[ix], handoff[ix])
            # the lock's sources: the CPUs that can run at once, min(CPUs, clients), each busy
            # U N / sources of the time (all busy CPU time is theirs)
            src_a = np.minimum(ncpu_a, pop[ix])
            # a lock with neither hold nor hand-off takes no time; one source never contends
            has = ~np.isnan(acq_a) & (hold_a + c_a > 0) & (src_a > 1)
            busy = np.clip(u_cpu[ix] * ncpu_a / np.maximum(src_a, 1), 1e-6, 1.0)
            with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
                # work between two acquisitions (of any instance of the lock)
                think = np.maximum(base / acq_a - hold_a, 0.0) / busy
            for j in range(slots):
                # a composition whose lock is acquired so rarely that it is never contended skips it
                bad = np.zeros(len(preps), dtype=bool)
                np.logical_or.at(bad, sg[has[j]], ~np.isfinite(think[j, has[j]]))
                has[j] &= ~bad[sg]
            spin = np.zeros((slots, nb))
            util_lock = np.zeros((slots, nb))
            for n_cpu in np.unique(src_a[has.any(axis=0)]):
                # the hand-off chain of every lock instance: serial time h (1 + g (k - 1)) + k c
                # with k CPUs at it
                sel = has & (src_a == n_cpu)
                lk = _locks_of(n_cpu, think[sel], ser_a[sel], c_a[sel], inst_a[sel])
                spin[sel] = _lost_fraction(lk, eff_a[sel], n_cpu) * var_a[sel]
                util_lock[sel] = lk["utilization"]
                inc = sel & incr_a
                if inc.any():   # a per-CPU lock: only what the preemption adds
                    ser0, c0 = _grown_chain(hold_a, growth[ix], handoff[ix])
                    lk0 = _locks_of(n_cpu, think[inc], ser0[inc], c0[inc], inst_a[inc])
                    spin[inc] = spin[inc] - _lost_fraction(lk0, hold_a[inc], n_cpu) * var_a[inc]
            if scanned and over_of:
                # the yield waste of a contended acquisition follows the scanned hold
                from zmodel.kernel.hypervisor import spinlock_yield

                waste_a = waste_a.copy()
                pos = np.full(B, -1)
                pos[ix] = np.arange(nb)
                for (j, start, size), (rho, strategy) in over_of.items():
                    cols = pos[start:start + size]
                    cols = cols[cols >= 0]
                    if cols.size:
                        waste_a[j, cols] = np.asarray(spinlock_yield(rho, hold_a[j, cols], strategy).wasted_cpu,
                                                      dtype=float)
            for j in range(slots):   # in the order of the locks, as compose adds them
                idx = np.flatnonzero(has[j])
                spin_a[idx] = spin_a[idx] + spin[j, idx]
                over = idx[~np.isnan(waste_a[j, idx])]
                if over.size:
                    waste[over] = waste[over] + acq_a[j, over] * util_lock[j, over] * waste_a[j, over]
        spin_a = np.minimum(spin_a, 0.95)
        dc = (base + waste) / (speed_phi[ix] * (1.0 - spin_a))
        cp_ix = cp_on[ix]
        if cp_ix.any():   # z/VM: CP's CPU for the I/Os and dispatches, on the guest's share
            dc = np.where(cp_ix, dc + (cp_fixed[ix] + cp_per_cpu[ix] * base) / speed_phi[ix], dc)
        q_used = spin_total[ix]
        # the transactions' disk accesses stretched by the background load, D / (1 - U)
        dd = np.where(bg[ix], disk_base[ix] / (1.0 - u_bg[ix]), disk_base[ix]) + antic[ix] * u_disk[ix]
        demands = np.stack([dc, other[ix, 0], other[ix, 1], other[ix, 2], dd, ctrl[ix], ext[ix]], axis=-1)
        r = mva(demands, pop[ix], think_time[ix], servers=servers[ix], copies=copies[ix])
        x[ix] = r.throughput
        ut = np.atleast_2d(np.asarray(r.utilization, dtype=float))
        util[ix] = ut
        spin_total[ix], d_cpu[ix], d_disk[ix] = spin_a, dc, dd
        u_new = np.clip(ut[:, 0], 0.0, 1.0)
        u_cpu_next = np.where(pop[ix] > 0, u_new, 1.0)
        u_disk_next = np.clip(ut[:, 4], 0.0, 1.0)
        # the change of this pass: the busy fractions and the spin (under overcommit the lock holds
        # follow the last pass's spin, which can keep moving after the utilizations have settled:
        # until 2026-11-28 such a composition was reported converged at 12 passes, 0.66 % off)
        change = np.maximum(np.maximum(np.abs(u_cpu_next - u_cpu[ix]), np.abs(u_disk_next - u_disk[ix])),
                            np.abs(spin_a - q_used))
        b = bg[ix]
        if b.any():
            j = ix[b]
            g = bg_load[j] * x[j]   # the share the background load takes at this pass's throughput
            u_new = _background_step(u_bg[j], g, bg_last[j], excess_last[j])
            bg_last[j], excess_last[j] = u_bg[j], g - u_bg[j]
            change[b] = np.maximum(change[b], np.abs(u_new - u_bg[j]))
            u_bg[j] = u_new
        change_of[ix] = change
        u_cpu[ix], u_disk[ix] = u_cpu_next, u_disk_next
        q_cpu = np.atleast_2d(np.asarray(r.queue_length, dtype=float))[:, 0]
        runnable_next = np.maximum(1.0, np.minimum(rfrac[ix] * pop[ix], q_cpu))
        same = (runnable_next == runnable[ix]) & (~q_dep[ix] | (spin_a == q_used))
        # a network with a background load stops within BACKGROUND_TOLERANCE: its runnable tasks
        # and spin may jitter in the last bits for ever (and the others stop at their 12 passes)
        near = (np.abs(runnable_next - runnable[ix]) <= BACKGROUND_TOLERANCE * runnable_next) & (
            ~q_dep[ix] | (np.abs(spin_a - q_used) <= BACKGROUND_TOLERANCE))
        runnable[ix] = runnable_next
        done = np.where(b, near & (change <= BACKGROUND_TOLERANCE), same & (change == 0.0))
        active[ix[done | (it + 1 >= limit[ix])]] = False
    residual = np.array([change_of[st:st + n].max(initial=0.0) for st, n in zip(starts, sizes)])
    with np.errstate(invalid="ignore", divide="ignore"):
        resp = np.where(x > 0, pop / np.where(x > 0, x, 1.0) - think_time, 0.0)
    u_station = np.where(pop > 0, util[:, 0], 0.0)
    chan_u = np.max(util[:, 1:4], axis=1)
    phi = col([p.s.dispatch_fraction for p in preps])
    fields = dict(clients=pop.astype(float), throughput=x, response_time=np.maximum(resp, 0.0),
                  cpu_utilization=u_station * phi, steal=u_station * (1.0 - phi), spin_fraction=spin_total,
                  channel_utilization=chan_u, disk_utilization=np.where(pop > 0, util[:, 4], 0.0),
                  cpu_demand=d_cpu, disk_demand=d_disk)
    out = []
    for i, p in enumerate(preps):
        sl = slice(starts[i], starts[i] + sizes[i])
        vals = {k: v[sl].copy() for k, v in fields.items()}
        if p.scalar:
            vals = {k: float(v[0]) for k, v in vals.items()}
        s, w = p.s, p.w
        params = dict(cpus=p.cpus_param, speed=float(s.cpu_speed), dispatch=float(s.dispatch_fraction),
                      disks=s.disks, paths=s.channel_paths, io_scheduler=p.sched, spin_strategy=p.strategy,
                      D_cpu=float(d_cpu[sl][-1]), D_disk=float(d_disk[sl][-1]), spin=float(spin_total[sl][-1]),
                      Z=float(w.think_time))
        res = float(residual[i])
        out.append(SystemResult(**vals, memory_overhead=_memory_overhead(p.f, w, s, p.c),
                                features=",".join(sorted(_used_features(p.f, w, s, p.sched))), parameters=params,
                                residual=res, converged=bool(res < FIXED_POINT_TOL)))
    return out


#: parameters of :attr:`SystemResult.parameters` given in seconds (``s`` suffix in the text form)
_SECONDS = ("D_cpu", "D_disk", "Z")


def format_parameters(parameters: Mapping[str, Any]) -> str:
    """``name=value, ...`` text of a parameter mapping (numbers to 4 significant digits, ``s`` for times).

    Examples
    --------
    >>> format_parameters({"cpus": 2, "D_cpu": 1.5e-5, "io_scheduler": "deadline"})
    'cpus=2, D_cpu=1.5e-05s, io_scheduler=deadline'
    """
    out = []
    for k, v in parameters.items():
        if isinstance(v, float):
            out.append(f"{k}={v:.4g}{'s' if k in _SECONDS else ''}")
        else:
            out.append(f"{k}={v}")
    return ", ".join(out)


def _used_features(f: frozenset, w: WorkloadProfile, s: SystemConfig, sched: str) -> set:
    """The features of ``f`` that the composition consulted for this workload."""
    used = {f"{sched}_scheduler"} if w.io_per_transaction > 0 else set()
    if w.context_switches > 0:
        used |= f & {"o1_scheduler", "global_runqueue_lock"}
    if w.io_per_transaction > 0:
        used |= f & {"global_io_request_lock", "per_queue_io_lock", "large_block_io", "per_bdi_unplug"}
        if s.highmem:
            used |= f & {"bounce_buffer_avoidance"}
        if w.buffered_io and w.direct_io_capable:
            used |= f & {"direct_io"}
    if w.network_requests > 0:
        used |= f & {"tcp_segmentation_offload", "napi"}
    if w.thread_syncs > 0 and w.nptl_capable:
        used |= f & {"nptl"}
    if w.dcache_lookups > 0:
        used |= f & {"dcache_rcu"}
    if w.forks > 0 or w.spawns > 0 or w.shared_memory > 0:
        used |= f & {"rmap", "objrmap"}
    if w.page_events > 0:
        used |= f & {"rmap", "tlb_flush_on_dirty", "iske_per_page"}
    if w.shared_memory > 0 and w.large_pages:
        used |= f & {"large_pages", "hugetlbfs"}
    if s.devices > 0:
        used |= f & {"sysfs_pinned", "sysfs_backing_store"}
    if s.overcommit > 1:
        used |= f & {"diag44_yield", "spin_retry", "diag9c_directed_yield"}
    return used
