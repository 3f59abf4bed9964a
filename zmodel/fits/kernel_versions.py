"""Calibration of the kernel-version composition (:mod:`zmodel.kernel.versions`) against the seeds.

Documented numbers used (catalog ``zmodel.data.measurements``):

* the OSDL "Results Summary" (seed ``001_37b528ecce68b8bf.txt``, column "Results
  Relative to 2.4", read as percent improvement of 2.6 over 2.4): DBT-2 non-cached
  8.64 and cached 20.00 (8-way), ReAIM 9.75 / 27.78, SPECweb99 26 / 35,
  SPECjAppServer 7 / 14, SPECjbb2000 6 / 8 (4-way / 8-way), decision support 10
  (8-way) -- ``osdl.summary-*``;
* the OSDL I/O-scheduler slide: anticipatory vs deadline on the decision-support system,
  "light load: same performance", "heavy load: AS is -27% against Deadline"
  (``osdl.iosched-light-load``, ``osdl.iosched-heavy-load``);
* the zSeries figures (seed ``000_bf0694975d199a2d.txt``, Figure 1): dbench 1500 vs
  3250 MB/s at 16 CPUs, "quite similar" up to 4 CPUs, "much better" from 8, 2.4 drops
  above 20 CPUs -- read exactly as :mod:`zmodel.fits.usl` and
  :mod:`zmodel.fits.kernel_memory` read them (2.4 within 15 % up to >= 4 CPUs, 2.6 at
  least 25 % better from <= 8 CPUs, the 2.4 peak in [20, 24] CPUs).

Each OSDL row is predicted as ``PercentChange(X_2.4, X_2.6)`` of two compositions
(:func:`~zmodel.kernel.versions.compose`) of the *same* system and workload, one with
the 2.4 feature set (2.4.21; ReAIM 2.4.23) and one with 2.6.0 (the 2.6.0-testN kernels).
The dbench rows compose the ``dbench`` workload (one page event per transaction, one
client per CPU) with 2.4.21 and with 2.6.6 (the feature set with the zSeries
memory-management primitives that SLES9, the paper's "Linux 2.6", carried).

Platforms: the catalog records the platform of every figure (the OSDL deck's are x86, the IBM
SJ paper's zSeries: :func:`zmodel.data.measurements`, column ``platform``) and each is composed
on that platform's hardware description (:attr:`~zmodel.kernel.versions.SystemConfig.platform`:
x86 with high memory behind 2.4 bounce buffers and spinning spinlocks for the OSDL systems,
:data:`SYSTEMS`; zSeries with its storage-key and TLB-purge primitives for dbench,
:data:`DBENCH_PLATFORM`).

Free parameters (7), none specific to one benchmark's 2.4 -> 2.6 difference. Shared by every
OSDL benchmark: the runqueue-lock hold time per switch (global in 2.4: it carries the 4-way ->
8-way growth of every pair) and the extra network CPU per request without TSO/NAPI; the
decision-support rows: the anticipatory scheduler's miss probability and the LUN service time
(a property of that storage system, set by the I/O-scheduler slide and the decision-support
row together); dbench: the CPU time per page and the two global-purge costs. The per-workload
activity counts are fixed readings of the workload descriptions (:data:`PROFILES`) in every row
and version: until 2026-11-26 each benchmark had a free multiplier of its counts, set by its
own two rows, which absorbed whatever the mechanisms got wrong and left a left-out benchmark
nothing to be predicted from. The kernel costs are those of
:class:`~zmodel.kernel.versions.KernelCosts` and :class:`~zmodel.kernel.memory.InstructionCosts`,
derived from their declarations (:data:`FREE_COSTS` vary; every other cost is held at its
declared default or at this fit's reading, :data:`COST_READINGS`); every free parameter starts
from its declared default or a stated data-independent reading, never from a fitted value, and
the fit runs to convergence. Fixed and stated in each parameter's ``source`` (not identified by
these rows; a first fit with them free flagged them all): the 2.4 goodness scan per task (held
under the global runqueue lock, so the lock's hold grows with the runnable tasks), the
``io_request_lock`` hold, the 2.4 cost per 512-byte segment, the LinuxThreads extra, the locks'
hand-off per waiting CPU (every lock of the composition is a hand-off chain, its serial time
growing by that hand-off with each waiter: the value the lock calibration fits,
:mod:`zmodel.fits.kernel_locks`; on x86 also by a measured share of the hold per additional CPU at
the lock, :data:`~zmodel.kernel.versions.HOLD_GROWTH`), and the
activity counts of each benchmark (:data:`PROFILES`, readings of the slides' workload
descriptions: the seeds print no path lengths) and the systems' disk/channel parameters
(:data:`SYSTEMS`).

What the composition does not explain (reported, tested as targets that fail): with the counts
as read, the shared costs fit SPECweb99 within 12 % (29.0 / 31.9 % for 26 / 35), SPECjAppServer within
13 % (6.4 / 12.3 % for 7 / 14), decision support within 15 %, SPECjbb2000 within 29 % (6.0 / 10.3 % for 6 / 8:
its switches are SPEC's description, a timeslice end per 60 ms of CPU, plus the waits of its contended
Java monitors, so its gain is NPTL's and the O(1) scheduler's and grows with the CPUs; 4.9 / 4.9 % before
the synchronisations were waits, 2026-11-28), DBT-2 cached 12.9 % for 20 (7 % before its
timer waits, below; 11 % until its 12 disks became separate queues on 2026-11-27); DBT-2 non-cached
(+8.64 %) -- the model is I/O bound on the 12 disks there, so no kernel path shortens it (predicted
0.5 %, the shorter tick's); and ReAIM not at all. ReAIM's activity is read from OSDL's published
workload and source (:data:`REAIM_MIX`, :func:`reaim_profile`, 2026-11-27): a job is one test call
of about 46 ms of CPU (measured by OSDL under 2.5.69 since 2026-11-28; 25 ms assumed before) with
about 2 context switches (waits for ``system("sync")`` and O_SYNC writes, a timeslice end), 0.27
programs run through the shell (the ``system("sync")`` calls: spawns, each costing what LMBench's 'sh
proc' measured on OSDL's 1 GHz STP hosts, 4.46 ms under 2.4.18 and 5.29 ms under 2.5.60's PTE-chain
rmap, since 2026-11-28; 0.27 bare forks of an assumed 200 + 50 us before) and about one block I/O at
the largest load. At that activity the 2.4 runqueue lock and the goodness() scan cost under 0.1 % of
a job, and the spawns' PTE chains cost 2.6 about 0.7 %, so the composed 2.4 -> 2.6 gain is -0.65 %
for 9.75 / 27.78 % (+0.005 % before the spawns were measured), and 2.6 does not hold its throughput
better at the largest load (the shape claim fails). The mechanism is missing, not a count; the
suspects, none composed: the 2.6 per-CPU page lists against the 2.4 zone lock (``page_test`` makes
about 1,700 brk calls and 1,600 page faults per call, sieve maps and frees 1 MB), sync() under the
2.4 big kernel lock (2.4's ``sys_sync`` is ``fsync_dev(0)``, which runs ``sync_inodes`` and
``sync_supers`` between ``lock_kernel()`` and ``unlock_kernel()`` and scans the dirty-buffer list
under the global ``lru_list_lock``: Linux 2.4.27 ``fs/buffer.c``, read 2026-11-28; how long it holds
them under ReAIM is not published, so no hold can be set without the rows it would predict; since
contended holds grow on x86, such a lock would cost 2.4 more on 8 CPUs than on 4; 2.4 also takes the
big kernel lock around every namespace change and ext2 block mapping -- ``vfs_create``, ``vfs_unlink``,
``ext2_get_block``, ``ext2_delete_inode``, Linux 2.4.22 ``fs/namei.c`` and ``fs/ext2/inode.c``, read
2026-11-28 -- but at 0.27 file creations per job (each of the 28 calls of disk_rd, disk_rr,
sync_disk_rw, sync_disk_update, disk_brw and disk_bcp per child creates and unlinks one file,
``src/disk1.c``) of about 120 us each, LMBench's 10K create and delete on OSDL's 1-way STP host, that
is under 1 % of a lock on 8 CPUs: an estimate, not composed),
and the CPU affinity of the O(1) scheduler's per-CPU run queues (tasks that
keep their caches). The last has a published size on this benchmark: one 2.6-test scheduler patch
(sched-2.6.0-test2-mm2-A3, "most likely the round robinning of tasks every 25ms", C. Kolivas,
linux-kernel, 7 Aug 2003, <200308071240.54863.kernel@kolivas.org>) raised re-aim's user time on
OSDL's 4-way from 3853.55 to 4416.70 s for the same run, +14.6 %, "A 10% regression there, mainly
user time" (A. Morton, linux-kernel, 5 Aug 2003, <20030805222354.66dbdb8d.akpm@osdl.org>): the
caches a task refills after a switch or a move cost user time, which ``compose`` charges nothing (its
user time is per transaction, whatever the scheduler does). The round robin is a doubtful cause:
in that run (``-s4 -i4``: 4 to 16 children on 4 CPUs, files of 74 to 266 KB) a job switches 5 to 12
times on its O_SYNC writes and syncs (:func:`reaim_profile`; two switches per wait), so it blocks
every 8 to 19 ms of CPU at 700 MHz and a 25 ms round robin seldom fires; what else the patch changed
(where a woken task runs) is not measured, so no cost per
switch can be read from it. Until
2026-11-27 ReAIM's counts were a reading of 4 switches and 0.05 forks per millisecond of CPU -- 30
times the switches the workfile gives -- which let the runqueue lock carry its gain (fitted 6.0 /
23.3 %) and pulled the runqueue hold from 31 to 37 us. Since 2026-11-28 a contended hold grows on
x86 (:data:`~zmodel.kernel.versions.HOLD_GROWTH`, g = 0.277 per additional CPU at the lock): read from
lockmeter on 2.4.4 under VolanoMark on an 8-CPU system (B. Hartner, IBM LTC, "VolanoMark 2.1.2 - SGI
Lockmeter Data for 2.4.4 and 2.4.4+MQ Scheduler Kernel", 14 June 2001,
lse.sourceforge.net/benchmarks/volanomark/14_jun_2001/), the same call sites holding the runqueue lock
8.6 vs 3.8 us (wake-up) and 1.2 vs 0.5 us (signal delivery) with about 6 and about 1 CPUs at it. With
it the fitted hold fell from 31 to 19 us per switch (95 % 7 to 32) and leave-one-benchmark-out from
67.2 to 50.5 % (SPECweb99 left out: 117 to 6 %; its 4- to 8-way growth now comes from the dcache
lock's contended holds). That hold was five times what the same lockmeter implies for an uncontended
switch: its 12.2 us of hold per context switch (2392438 acquisitions at a mean 8.8 us, 1721928 of them
in schedule(), "about 70" runnable tasks) were measured with about six CPUs at the lock, which reads
back to 12.2 / (1 + 0.277 x 4.97) = 5.1 us at one CPU, 3.7 us without the goodness() scan of 70 tasks
at this fit's 20 ns. The missing switches were the waits of the thread synchronisations: a Java monitor
or thread-pool hand-off that reaches the thread library blocks its thread (LinuxThreads suspends it
until a restart signal, NPTL in a futex wait), and each wait is two context switches
(:data:`~zmodel.kernel.versions.SWITCHES_PER_WAIT`), the count this fit reads for every wait (ReAIM's, above), so
SPECjAppServer's 10 synchronisations per transaction add 20 switches to its 4 and SPECjbb2000's 10 add
20 to its timeslice ends (:attr:`~zmodel.kernel.versions.WorkloadProfile.context_switches`, composed
since 2026-11-28). Until then they cost CPU but no switch, and the rows put the whole product of
switches and hold on a few switches. With the waits the fitted hold is 2.6 us (95 % 0.2 to 4.9 from the
covariance; the rows' own profile, 0 to 4.0, and 0 to 3.8 at 90 % is what the parameter store holds
and predictions draw: the chi-square is far from quadratic below the fitted value), the
lockmeter's 3.7 us within its interval, and SPECjbb2000's gain grows from 4 to 8 CPUs as measured (6.0
/ 10.3 % for 6 / 8); leave-one-benchmark-out moves from 50.5 to 52.4 % (SPECjAppServer left out: 84 to
26 %, SPECjbb2000 28 to 23 %, SPECweb99 5 to 44 %: with the hold small its 4- to 8-way growth rests on
the dcache lock alone). Read as one switch per wait (a woken task that never preempts), the hold is 4.9
us and leave-one-benchmark-out 37.5 %; not adopted: the fit keeps one count for every wait, and 2.4
reschedule_idle() and 2.6's wake-up both preempt the running task when the woken one ranks higher.
The hold is still five times the declared 0.5 us, and LMBench on OSDL's 1 GHz 1-way STP host puts a
whole uncontended 2.4.18 context switch between two processes, runqueue lock included, at 0.59 us
("2p/0K ctxsw"; C. White, linux-kernel, 25 Feb 2003, <200302251711.h1PHBct16624@mail.osdl.org>; a
validation figure, never fitted): the composition's 2.4 switch on one CPU is 5.6 us (37 times the
figure before the waits), mostly the assumed 3 us ``switch_time``. Tried as a
log-normal prior (10.8 us, 95 % factor 2) on 2026-11-27, before the growth, and not adopted: the
prior's residual (log units, weight 1) outweighs the rows' (the throughput ratio's relative error), so
the fit sits on the prior and the O(1) gains vanish (DBT-2 cached 0.9 % for 20, ReAIM 0.5 / 2.1 % for
9.75 / 27.78; leave-one-benchmark-out 65.8 %); again on 2026-11-28 (still before the growth, 10.8 us,
factor 3) the fit sat on the prior (SPECjAppServer 5.2 / 5.9 % for 7 / 14): the rows' weight, not the
measurement, decides where such a fit ends.
Outside evidence on the DBT-2 mechanism (2026-11-27; a validation row, never fitted): OSDL's
own earlier run of the same workload on the same 8-way 700 MHz Pentium III (linux-kernel,
2003-01-17, "[OSDL][BENCHMARK] Database results 2.4 versus 2.5", lkml.org/lkml/2003/1/17/154)
prints the CPU split beside the throughput: cached, 2.4.21-pre3 at 74.24 % user and 3.64 % system
for 4479 NOTPM, 2.5.49 at 85.37 / 2.85 % for 5040 (+12.5 %). The CPU per transaction is the same
under both kernels (+0.7 %) and the 2.4 system time is under 5 % of the busy time, so the cached
gain is idle time taken up (22 % idle -> 12 %), not kernel CPU saved -- whereas this fit made
the O(1) scheduler carry it as 2.4 runqueue-lock spinning, which is system time: with the store of
2026-11-27 the composition had the 2.4 CPUs 60.5 % busy, 16 % of that spinning (9.8 % of the time,
against 3.64 % of system time in all measured), and 2.6 at 56 % busy with 17 % less CPU per
transaction (``compose(**model.composition("dbt2_cached", 8, kernel, store values))``). With the
timer tick (below) and the x86 growth of contended holds (2026-11-28) the same call gives the 2.4
CPUs 42.6 % busy, 4.1 % of that spinning (1.7 % of the time, within the measured system time), and
2.6 at 46.4 % busy with 4.8 % less CPU per transaction: most of the composed gain is now idle time
taken up, as measured. The suspect was a
2.4 mechanism that leaves CPUs idle while work waits (a woken task not placed on an idle CPU,
or synchronous log writes waiting longer under 2.4), which the composition did not have.
One such mechanism is now composed (2026-11-27): the timer tick. 2.4 ticks 100 times a second on
x86 and 2.6.0 1000 times ("The HZ value was increased to 1000 for the Linux 2.6 kernel on some
hardware architectures", seed ``000_bf0694975d199a2d.txt``, 'Timer tick'; the x86 values from
include/asm-i386/param.h; feature ``hz_1000``), so a sleep or timeout that ends on a tick waits ten
times longer under 2.4 while its CPU idles. OSDL measured that effect alone on this benchmark: the
same 2.5.65-mjb2 kernel scored 90.95 with HZ = 100 and 102.38 with HZ = 1000 on DBT-2 cached, 99.26
and 99.92 non-cached (:data:`DBT2_HZ_SCORES`, 28 March 2003; not a validation row). That ratio
(x1.126) sets DBT-2's ticks waited per transaction (``tick_waits`` = 0.038, :func:`dbt2_tick_waits`,
at the fit's starting values, before any fit), a count read from a quantity other than the 2.4 ->
2.6 difference; the non-cached column is predicted (x1.0045 for x1.0066, :func:`hz_checks`). At the
fitted values the two read x1.119 and x1.0045 (the 2.6 CPU time carries the fitted runqueue-lock
hold): the calibration shows these residuals with its own (:func:`hz_table`). With it
the DBT-2 cached gain is 16.5 % for 20 (the shorter tick 12.4 points, O(1) 6.1) and, left out,
16.4 % (-18 %; -71 % without it), as idle time, the kind of gain the 17 January CPU split shows. What
SAP DB waits for on a tick is not published; the non-cached gain (8.64 %) stays unexplained (0.5 %).
The public record leaves the mechanism open (read 2026-11-27): A. Morton answered OSDL that "All the
gains here are due to reduced idle time" and named the I/O scheduler or the VM's page replacement
(linux-kernel, 17 Jan 2003, <20030117130046.0f73d6d6.akpm@digeo.com>), then, with vmstat, "the I/O
scheduler's tendency to service reads more promptly when there is a lot of writeback happening"
(31 Jan 2003, quoted in <200301312247.h0VMlxB09932@mail.osdl.org>): stock 2.4.20 placed a read that
merges nowhere at the tail of the request queue, behind the queued writes (his read-latency2 patch for
2.4.20, "Instead of placing an unmergeable read at the tail of the list, it is placed a tunable distance
from the front", reposted on linux-kernel 10 Dec 2002, <200212101155.48151.m.c.p@wolk-project.de>), the
2.5 deadline scheduler serves reads first. OSDL's own reading was paging under 2.4; the question was
left unanswered. On a 4-way hyperthreaded Xeon with a bounce-buffer fix in every kernel, OSDL and IBM
then found 2.4.21rc1 and 2.5.68 within 2 % on both variants, "neither helps" of the two CPU schedulers
(M. E. Meredith et al., 21 May 2003, <1053540326.16526.4598.camel@ibm-e.pdx.osdl.net>; two rows of the
validation set, never fitted and inexpressible: no 2.5 kernel, no hyperthreading).
That is evidence against this fit's attribution of the cached gain to the O(1) scheduler (now 6.1 of
its 16.5 points), and against a large elevator effect on that machine; the composition has neither
write-back nor read priority, so the DBT-2 non-cached row is reported, not explained.

Mechanisms from public workload and software descriptions (2026-11-27; no parameter added to the
fit): SPECweb99's responses are segmented by the stack without TSO (``network_segments``: 5.95
segments per request from SPECweb99's published file mix) where SPECjAppServer's small messages
move one segment, so one per-segment cost (``net_extra_time``, fitted 22 us against its declared
20 us) serves both -- before, one per-request cost could not (SPECweb99 11 / 19 % for 26 / 35,
SPECjAppServer 17 / 30 %). The fitted 22 us is large: the "1 GHz / 1 Gbps" rule of thumb for
the Linux 2.4 TCP stack (A. P. Foong et al., "TCP performance re-visited", ISPASS 2003, abstract)
allows about 12 us of 1 GHz CPU for the whole processing of a 1460-byte segment, so this cost
also carries 2.6 changes to the web-serving path that the model does not list, and the attribution
table's TSO + NAPI share of SPECweb99 (22-24 points) is an upper bound on theirs; SPECweb99's path lookups take the 2.4 global ``dcache_lock`` (9.3
acquisitions per transaction, heavy-tailed holds, from a published lockmeter measurement of
SPECweb99 on an 8-CPU PIII Xeon), lock-free in 2.6 (``dcache_rcu``): about 4 points of the 8-way
gain; WebSphere runs on LinuxThreads under both kernels (``nptl_capable=False``), so SPECjAppServer
gains nothing from NPTL. SPECjbb2000's IBM JVM 1.4.1 is read as NPTL-capable (unsourced: Red Hat
Enterprise Linux 3's release notes list "IBM JRE" among applications with NPTL problems, without a
version; on LinuxThreads the model's SPECjbb2000 gain would lose its ~4.8-point NPTL part).
:func:`attribution_table` says which change carries
each predicted gain (feature ablation, :func:`zmodel.kernel.attribution.feature_attribution`).

Cross-validation: ``CALIBRATION.cross_validate()`` leaves one row out at a time,
``CALIBRATION.cross_validate(grouped=True)`` a whole benchmark (:data:`BENCHMARKS`: every row
of DBT-2, ReAIM, SPECweb99, SPECjAppServer, SPECjbb2000, decision support with the I/O-scheduler
slide, dbench), each refit from the declared defaults to convergence. The dbench rows are the
only ones that read the dbench parameters, and the decision-support rows the only ones that read
``antic_miss`` and ``lun_time``, so leaving either out leaves these parameters at their starts
(reported as unpredictable; the refit holds them there, :func:`zmodel.calibration.cross_validate`:
until 2026-11-27 the solver moved the unread ``antic_miss`` from its start 1 to 0.0003, and the
heavy-load row was "predicted" at 0 % for -27 %; from the starts it is -45 %; since 2026-11-28 it is
held there also while the full fit leaves it unidentified, as it does since ReAIM's rows raised the
error scale); every OSDL benchmark
left out is predicted from the shared costs the others set. The report lists what each refit set
(``refit_parameters`` of the table): without SPECweb99 the only other networked benchmark,
SPECjAppServer (whose gain the O(1) term already over-predicts), puts the per-segment network cost
at 0, the bound of its range, so SPECweb99 left out keeps none of its TSO/NAPI gain (4.9 / 15.3 %
for 26 / 35) -- that was until 2026-11-27; since ReAIM's activity is read from its workload, the
runqueue hold rests on DBT-2 cached, SPECweb99 and SPECjAppServer alone, and without SPECweb99 the
refit sends it to 0.05 us and the network cost to 57 us, predicting SPECweb99 at 64 / 65 % for
26 / 35; ReAIM left out is predicted as fitted (-0.65 %).

Speed: every composition the rows need at a parameter vector -- and at all the
finite-difference steps of a Jacobian -- is solved in one
:func:`~zmodel.kernel.versions.compose_many` call (:meth:`KernelVersionsModel.prefetch`), the
dbench curve as one processor sweep; results are memoised on the values each reads.

Readings of catalog kinds: the dbench threshold rows as ``zmodel/_data/readings.csv`` reads them
for every fit (as :mod:`zmodel.fits.usl` explains). ``osdl.iosched-light-load``
(measured 0 %) is fitted on the absolute scale (percentage points). Not fitted, with the
reason: ``osdl.specjapp-4way-gain`` (the slide's "1%" conflicts with the summary's 7;
the catalog note suspects OCR damage; it is predicted and reported as excluded), the
slide duplicates of the summary (``osdl.specweb-4way-gain`` ...: same numbers), the
hyperthreading row (``osdl.summary-ht-4way``: not a kernel-version difference), and
``osdl.dbt2-improvement-grows-with-io`` is a shape check that the model FAILS by
construction -- the summary table itself (cached 20.00 > non-cached 8.64) contradicts
it (catalog note).
"""
from __future__ import annotations

import dataclasses
import functools
import math

import numpy as np

from zmodel.calibration import Model, Parameters, PercentChange, to_dataclass
from zmodel.conventions import as_count
from zmodel.fits import Calibration
from zmodel.fits.kernel_memory import _first_crossing   # the dbench threshold crossings, read alike
from zmodel.kernel.memory import DbenchMemoryCosts
from zmodel.queueing._params import parameter_info
from zmodel.kernel.versions import (REFERENCE_CLOCK, TIMESLICE_24, KernelCosts, SystemConfig, WorkloadProfile,
                                    compose, compose_many, kernel_version)

__all__ = ["KernelVersionsModel", "PROFILES", "REAIM_MIX", "reaim_profile", "SYSTEMS", "attribution_table",
           "DBENCH_PLATFORM", "OSDL_ROWS", "FIT_KINDS", "SCALES", "WEIGHTS",
           "EXCLUDED", "SHAPE_IDS", "BENCHMARKS", "measurements", "calibrate_kernel_versions",
           "cross_validate_kernel_versions", "DBT2_HZ_SCORES", "dbt2_tick_waits", "hz_checks", "hz_table"]

from zmodel.units import KiB as KB
SIMILAR_WITHIN = 0.85   # "quite similar": 2.4 within 15 % of 2.6 (as zmodel.fits.usl)
MUCH_BETTER = 1.25      # "much better": 2.6 at least 25 % above 2.4 (as zmodel.fits.usl)
MAX_CPUS = 40           # dbench processor counts evaluated [1]
#: ReAIM slide, "2.6 peaks at a higher throughput and holds the throughput number higher with more
#: processes": "higher" read as at least 1 % higher (an assumed reading: a difference the slide's two
#: plotted curves show; until 2026-11-28 any margin, so two compositions equal to 0.002 % passed or
#: failed by rounding)
VISIBLY_HIGHER = 1.01
REAIM_PROCESSES = (1, 2, 4, 8, 16, 32, 48, 64, 96, 128, 192, 256)   # ReAIM load levels (peak over them)
LIGHT_STREAMS, HEAVY_STREAMS = 2, 64   # decision-support query streams, light and heavy load (reading)
OLD, NEW = "2.4.21", "2.6.0"
_DBENCH_PARAMS = ("dbench_cpu_time", "purge", "purge_per_cpu", "ipte_relative")


def _response_segments(mix, mss=1460.0):
    """Mean TCP segments of a response drawn from ``mix`` (class share, file sizes of the class, equally likely)."""
    return sum(share * sum(math.ceil(size / mss) for size in sizes) / len(sizes) for share, sizes in mix)


#: SPECweb96/99 file classes: (share of requests, the nine file sizes of the class [B]), SPEC's workload
#: page Table 1 (shares) and Table 2 (sizes k x 1/10, 1, 10, 100 KB for k = 1..9)
SPECWEB_FILE_MIX = tuple((share, tuple(k * unit for k in range(1, 10)))
                         for share, unit in ((0.35, 102.4), (0.50, 1024.0), (0.14, 10240.0), (0.01, 102400.0)))
_SPECWEB_RESPONSE_SEGMENTS = _response_segments(SPECWEB_FILE_MIX)
#: the lockmeter's mean dcache_lock hold, as KernelCosts declares it (the SPECweb99 count below reads it)
_DCACHE_HOLD = parameter_info(KernelCosts)["dcache_hold"].default

#: benchmark -> the per-transaction activity: fixed readings of the workload descriptions (see the
#: module docstring), the same counts in every row of a benchmark and in every version; no multiplier
#: of them is fitted (a benchmark's own multiplier would be set by the very difference it predicts).
PROFILES: dict[str, dict] = {
    # DBT-2 (TPC-C-like, SAP DB): "Keying time and think time - zero"; cached: "8 drivers",
    # "heavy CPU activity", "Heavy synchronous writes to log file"; non-cached: "16 drivers",
    # "Random read, writes, 8k", "I/O bound"; 12 raw 10k rpm drives (raw: no page-cache copy)
    "dbt2_cached": dict(clients=8, user_time=1e-3, switches=6, io_per_transaction=1, block_size=8 * KB,
                        read_fraction=0.0),
    "dbt2_noncached": dict(clients=16, user_time=1e-3, switches=6, io_per_transaction=3, block_size=8 * KB,
                           read_fraction=0.6),
    # ReAIM (AIM7/AIM9 "Database Mix", 2 SCSI drives; peak over process counts): one job = one test
    # call, its activity read from the published workload and source (REAIM_MIX); this
    # entry is that of the largest load level, each load level composes its own (reaim_profile)
    "reaim": None,
    # SPECweb99: Apache 2.0.43 processes serving cached files over 4 e1000 NICs. dcache_lock: a
    # published lockmeter reading of SPECweb99 on an 8-CPU PIII Xeon under 2.4 (as
    # KernelCosts.dcache_hold), utilization 15.7 % at a mean hold of 2.1 us with the CPUs saturated at
    # the measured peak (assumed): 0.157 / 8 CPUs x 1 ms of CPU per transaction / 2.1 us = 9.3
    # acquisitions per transaction (the user time stands for the CPU per transaction; the kernel terms
    # add a little, so this undercounts slightly)
    # Segments: a request is received in one segment and its response sent in ceil(size / 1460 B)
    # (1500-byte Ethernet MTU less 40 bytes of IP and TCP headers), over SPECweb99's file mix, "files
    # less than 1KB account for 35% of all requests, files between 1KB and 10KB account for 50% of
    # requests, 14% between 10KB and 100KB, and finally 1% between 100KB and 1MB", nine sizes per class
    # (SPEC, 'The Workload for the SPECweb96 Benchmark', spec.org/osg/web96/workload.html, Tables 1-2;
    # SPECweb99 keeps the classes): 0.35 x 1 + 0.50 x 4 + 0.14 x 36 + 0.01 x 351.2 = 10.9 segments per
    # response (_SPECWEB_RESPONSE_SEGMENTS), (1 + 10.9) / 2 per request
    "specweb": dict(clients=200, user_time=1e-3, switches=3, network_requests=2, runnable_fraction=0.05,
                    dcache_lookups=0.157 / 8 * 1e-3 / _DCACHE_HOLD, network_segments=(1 + _SPECWEB_RESPONSE_SEGMENTS) / 2),
    # SPECjAppServer2002: WebSphere (JDK 1.3.1) with "number of threads in the web application
    # server (50)", DB2 on another machine (a delay). WebSphere runs on LinuxThreads under every
    # kernel (nptl_capable=False): "NPTL is not supported with the WebSphere Application Server, V5.1
    # run time" and "The WebSphere Application Server run time is automatically configured to run
    # under LinuxThreads at install time" (IBM WebSphere Application Server V5.1 information center,
    # 'Native POSIX Threading Library (NPTL) support', 2004; copy setgetweb.com/p/WAS51/ND_V51/ae/ae/
    # cins_nptl.html); the slide's 5.0.2 with JDK 1.3.1 predates it, and the seed's own slide calls
    # NPTL "Incompatible with most Linux Threads apps"
    "specjapp": dict(clients=50, user_time=1e-3, switches=4, thread_syncs=10, network_requests=2,
                     external_delay=2e-3, runnable_fraction=0.3, nptl_capable=False),
    # SPECjbb2000: one warehouse thread per CPU. SPEC's description (SPEC, 'SPECjbb2000, A Java Business
    # Benchmark', whitepaper, 2000, spec.org/jbb2000/docs/whitepaper.html, 1.0 Overview): "SPECjbb2000 does
    # no disk IO", "there is no network IO in SPECjbb2000", it "has no think times" and "uses only Java
    # synchronization". A warehouse thread therefore never waits for I/O: it leaves its CPU when its
    # timeslice ends (TIMESLICE_24; the garbage collector's stop-the-world pauses, every few seconds, add a
    # few switches per thread per pause: not counted) or when it waits on a contended monitor (below).
    # Until 2026-11-28 the reading was one switch per millisecond of CPU, 60 times the timeslice ends.
    # thread_syncs: Java monitors that reach the thread library (contended ones; uncontended monitors stay
    # in the JVM), 10 per transaction: assumed, SPEC prints no count; they carry the NPTL part of the gain,
    # and each is a wait of two switches (compose adds them: WorkloadProfile.context_switches)
    "specjbb": dict(clients=None, user_time=1e-3, switches=1e-3 / TIMESLICE_24, thread_syncs=10),
    # decision support: DB2, 100 GB, "4 QLogic 2300 controllers, 2 FAStT900 storage devices, 112 disks",
    # large pages; 64 KB prefetch reads from many streams
    "dss": dict(clients=HEAVY_STREAMS, user_time=0.8e-3, switches=1, io_per_transaction=1, block_size=64 * KB,
                read_fraction=1.0, read_think_time=1e-3, large_pages=True),
}

#: OSDL re-aim-7 as the OSDL deck ran it ("OSDL ReAIM ... Combination of AIM7 and AIM9 micro-test
#: suites ... Used the Database Mix", seed ``001_37b528ecce68b8bf.txt``, 'OSDL ReAIM Tests'), read from
#: its published source: OSDL re-aim-7, ``osdl-aim-7/`` of github.com/davidlohr/areaim (commit 584705b),
#: workload file ``data/workfile.new_dbase`` ("Large Database Mix", 570 hits) with the shipped
#: ``data/reaim.config`` ("FILESIZE 10k", "POOLSIZE 1m"; the workfile's own FILESIZE/POOLSIZE lines are
#: comments). A job is one test call ("jobs per minute" = calls / time x 60 x children,
#: ``src/driver.c`` 1218-1224); each child runs its list of round(hits / 570 x 100) calls of each test in
#: random order (``src/driver.c`` 840-876): 103 calls. What of them makes the kernel work:
#: ``disk_rd`` and ``disk_rr`` (7 calls each) call ``system("sync")`` twice each (``src/disk1.c`` 59-76,
#: 254, 292, 489, 515): 28 forks of /bin/sh per child, each a blocking wait of the caller and a sync(2)
#: that waits for the write-back; ``sync_disk_rw`` and ``sync_disk_update`` (2 calls each) make D/2
#: one-kilobyte O_SYNC writes per call (``src/disk1.c`` 383-456, 746-838), each a wait for the disk;
#: D = FILESIZE + POOLSIZE / children kilobytes (``src/driver.c`` 654-662); the 14 ``disk_rd`` /
#: ``disk_rr`` files (D KB each) are written back by their syncs before they are unlinked. No test
#: forks otherwise, and the pipe and semaphore tests never block (one process: ``src/pipe_test.c``
#: 395-423, 624-695). Counts per job, with n children:
REAIM_MIX = dict(
    calls=103,              # test calls per child (the job list of the 570-hit mix scaled to 100)
    sync_calls=28,          # system("sync") per child: 2 in each of 7 disk_rd and 7 disk_rr calls
    switches_per_sync=4,    # the caller's wait for its child (2 switches), sync(2)'s wait for the write-back (2)
    osync_writes_per_kb=2,  # O_SYNC 1 KB writes per child per KB of D: (2 sync_disk_rw + 2 sync_disk_update) x D/2
    synced_files=14,        # D-KB files per child written back by a sync before unlink (7 disk_rd + 7 disk_rr)
    filesize_kb=10, poolsize_kb=1024,
    # CPU per job, measured by OSDL on a 4-CPU STP system (700 MHz Pentium III, the deck's 4-way STP
    # class) under 2.5.69, new_dbase at the STP configuration: the children's user and system time over
    # the jobs of one run, "88 5185.88 104.87 376.01 40.28" (children, JPM, run time [s], c_utime [s],
    # c_systime [s]; "c_ times are total for all children"; C. White, "re-aim - 2.5.69, -mm6",
    # linux-kernel, 20 May 2003, Message-Id <200305201743.h4KHhMC25023@es175.pdx.osdl.net>):
    # (376.01 + 40.28) s / (5185.88 / 60 x 104.87) jobs = 45.9 ms, 9.7 % of it system time. A 2.5 kernel
    # and not the 2.4 -> 2.6 difference: a quantity other than the one predicted. Until 2026-11-28 an
    # assumed 25 ms (an order-of-magnitude reading of the tests' loop counts; the same source run here
    # single-user on one AMD EPYC virtual CPU gives 2.2 ms per job, so the 700 MHz Pentium III is about
    # 20 times slower on this mix). Those runs used OSDL's STP configuration, "FILESIZE 80k", "POOLSIZE
    # 1024k", four disk directories (C. White, linux-kernel, 20 May 2003, Message-Id
    # <200305202021.h4KKLUT32174@mail.osdl.org>), not the shipped reaim.config kept above: read with
    # 80 KB files and one request per written-back 4 KB page, the 8-way composition becomes bound on
    # the deck's 2 drives near 5,300 jobs per minute under both kernels, which the deck's 8-way gain
    # (27.78 %, 2.6 peaking higher) contradicts: the write-back requests merge, and how far is not
    # published; the shipped 10k files keep the syncs' I/O small (not verified)
    cpu_per_job=(376.01 + 40.28) / (5185.88 / 60.0 * 104.87),
    timeslice=TIMESLICE_24,  # a CPU-bound task is preempted when its timeslice ends
    # the measuring system's clock: "4 /8 CPU 700MHz Pentium III 1M cache" (the deck's STP systems);
    # cpu_per_job is converted to the reference speed (REFERENCE_CLOCK) by the clock ratio
    clock=700e6,
)


def reaim_profile(children: int) -> dict:
    """The ReAIM job's activity with ``children`` processes (:data:`REAIM_MIX`), as WorkloadProfile fields.

    With :math:`n` children each test file holds :math:`D = 10 + \\lfloor 1024/n \\rfloor` KB. Per
    job (one of the 103 calls of a child): spawns :math:`28/103` (each ``system("sync")``); switches
    :math:`(4 \\cdot 28 + 2 \\cdot 2D)/103 + t_\\text{cpu}/t_\\text{slice}` (the waits for
    ``system("sync")`` and its write-back, a wait per O_SYNC write, a timeslice end); block
    I/Os :math:`(2D + 14 D/4)/103` (the O_SYNC writes and the 4 KB pages of the files the syncs
    write back; every read hits the page cache: the file was just written).

    Examples
    --------
    The CPU of a job outside the modelled paths (``user_time``, at the reference speed) is the
    measured CPU per job at the clock ratio less its spawns at the declared costs of a kernel with
    PTE chains, as the measured 2.5.69 had (:class:`~zmodel.kernel.versions.KernelCosts`
    ``spawn_time + pte_chain_spawn_extra``, LMBench's 'sh proc' of 2.5.60): the composition adds
    the spawns back at the costs of the kernel it composes.

    Examples
    --------
    >>> r = reaim_profile(256)          # D = 10 + 4 = 14 KB
    >>> round(r["spawns"], 4), round(r["io_per_transaction"], 4)
    (0.2718, 0.7476)
    >>> round(r["user_time"] * 1e3, 3)  # 45.93 ms x 0.7 - 0.2718 x 5.292 ms
    30.71
    """
    children = as_count("children", children)
    m = REAIM_MIX
    d = m["filesize_kb"] + m["poolsize_kb"] // children
    calls = m["calls"]
    switches = ((m["switches_per_sync"] * m["sync_calls"] + 2 * m["osync_writes_per_kb"] * d) / calls
                + m["cpu_per_job"] / m["timeslice"])
    io = (m["osync_writes_per_kb"] * d + m["synced_files"] * d / 4.0) / calls
    spawns = m["sync_calls"] / calls
    declared = KernelCosts()
    user = (m["cpu_per_job"] * m["clock"] / REFERENCE_CLOCK
            - spawns * (declared.spawn_time + declared.pte_chain_spawn_extra))
    return dict(clients=children, user_time=user, switches=switches, io_per_transaction=io,
                block_size=4 * KB, read_fraction=0.0, spawns=spawns, runnable_fraction=1.0)


PROFILES["reaim"] = reaim_profile(REAIM_PROCESSES[-1])


#: OSDL DBT-2 (SAP DB) on the 8-way, 2.5.65-mjb2 built with HZ = 100 and with HZ = 1000, all else
#: equal: benchmark -> (score at HZ = 100, score at HZ = 1000), relative to stock 2.5.65 = 100 (M. E.
#: Meredith, M. Wong, C. White, Open Source Development Lab, "[OSDL][BENCHMARK] DBT-2 2.5.65/mjb/osdl
#: comparison data", linux-kernel and lse-tech mailing lists, 28 March 2003, Message-Id
#: <1048889724.2535.329.camel@ibm-e.pdx.osdl.net>, the score table: "2.5.65-mjb2 HZ=100 90.95 99.26",
#: "2.5.65-mjb2 HZ=1000 102.38 99.92", columns cached and non-cached; "mjb2 kernel uses Andrew Morton /
#: Dave Hansen patch making HZ a config option"). A public figure from outside the seeds, not in the
#: validation set: it sets one per-workload count (DBT-2's tick_waits, :func:`dbt2_tick_waits`) from the
#: HZ effect alone -- a quantity other than the 2.4 -> 2.6 differences the model predicts (issue 12
#: part 3: "fitted to quantities other than the difference being predicted")
DBT2_HZ_SCORES = {"dbt2_cached": (90.95, 102.38), "dbt2_noncached": (99.26, 99.92)}


def _hz_pair(bench: str, tick_waits: float, p, cpus: int = 8) -> tuple[float, float]:
    """Throughput of ``bench`` under 2.6.0 built with HZ = 100 and with HZ = 1000 (x86) [1/s]."""
    kv = kernel_version(NEW)
    hz100 = dataclasses.replace(kv, name=f"{NEW} (HZ 100)", features=kv.features - {"hz_1000"})
    w = KernelVersionsModel._workload(bench, cpus, tick_waits=False).replace(tick_waits=tick_waits)
    s = KernelVersionsModel._system(bench, cpus, p)
    c = KernelVersionsModel.costs(p)
    slow, fast = compose_many([dict(kernel=k, workload=w, system=s, costs=c, io_scheduler="deadline")
                               for k in (hz100, kv)])
    return float(slow.throughput), float(fast.throughput)


def _start_values() -> dict:
    """The fit's starting parameter values (declared defaults and this fit's readings; never fitted ones)."""
    return KernelVersionsModel().parameters().valuesdict()


@functools.cache
def dbt2_tick_waits() -> float:
    r"""Timer ticks a DBT-2 transaction waits for (SAP DB), read from the OSDL HZ = 100 / 1000 comparison.

    The count :math:`k` (``WorkloadProfile.tick_waits``) for which the composition of the DBT-2
    cached workload on the 8-way under 2.6.0 built with HZ = 1000 and with HZ = 100 has the
    throughput ratio of :data:`DBT2_HZ_SCORES` (102.38 / 90.95 = 1.1257), at the fit's starting
    values (:func:`_start_values`: data-independent, so the count does not follow the fit). The
    2.6 compositions read one free cost, the runqueue-lock hold (CPU work under the per-CPU
    lock), so at the fitted values the cached ratio is x1.119 (residual -0.65 points of gain,
    :func:`hz_table`, shown with the fit). A root in :math:`k` of a
    monotone ratio (Brent's method). One count for both DBT-2 variants (the same SAP DB code path
    per transaction); the non-cached column (99.92 / 99.26 = 1.0066) is predicted, not fitted
    (:func:`hz_checks`). What SAP DB waits for on a tick (a timed sleep, a poll, a timeout of the
    log writer or of the user-kernel-thread scheduling) is not published; the count is the whole
    reading. Computed once per process.

    Returns
    -------
    float
        Ticks waited per transaction [1].
    """
    from scipy.optimize import brentq

    p = _start_values()
    lo, hi = DBT2_HZ_SCORES["dbt2_cached"]
    target = hi / lo

    def excess(k):
        slow, fast = _hz_pair("dbt2_cached", k, p)
        return fast / slow - target

    upper = 1.0
    while excess(upper) < 0:
        upper *= 2.0
        if upper > 1e6:
            raise RuntimeError("the HZ ratio of the DBT-2 composition does not reach the measured one")
    return float(brentq(excess, 0.0, upper, xtol=1e-12, rtol=1e-12))


def hz_checks(p=None) -> list[dict]:
    """The HZ = 1000 over HZ = 100 throughput ratio of each DBT-2 variant, measured and composed.

    Parameters
    ----------
    p : mapping, optional
        Parameter values (default: the fit's starting values).

    Returns
    -------
    list of dict
        ``benchmark, measured, predicted, fitted`` (ratios; ``fitted`` True for the row that
        sets :func:`dbt2_tick_waits`), and the same as gains of HZ = 1000 over HZ = 100 in
        percent with the residual in percentage points (``measured_gain_pct,
        predicted_gain_pct, residual_points``).
    """
    p = _start_values() if p is None else p
    k = dbt2_tick_waits()
    out = []
    for bench, (lo, hi) in DBT2_HZ_SCORES.items():
        slow, fast = _hz_pair(bench, k, p)
        gain, want = 100.0 * (fast / slow - 1.0), 100.0 * (hi / lo - 1.0)
        out.append(dict(benchmark=bench, measured=hi / lo, predicted=fast / slow, fitted=bench == "dbt2_cached",
                        measured_gain_pct=want, predicted_gain_pct=gain, residual_points=gain - want))
    return out


def hz_table(params=None):
    """:func:`hz_checks` as a table, at ``params`` (default: the fit's starting values).

    The calibration reports it beside its residuals: the DBT-2 tick count is read from these
    two numbers (the cached one; the non-cached one is predicted), so their residuals at the
    fitted values are shown with the fit (2.4 -> 2.6 rows are never among them).
    """
    import pandas as pd

    return pd.DataFrame(hz_checks(params))


#: benchmark -> system (disks, disk time, channels, high memory), readings of the slides. Every OSDL
#: system is an x86 machine (the catalog's platform of the deck): high memory behind 2.4 bounce
#: buffers where the slide prints more than 1 GB ("4GB", "28 GB RAM", "8 GB RAM", "16 GB RAM";
#: SPECjAppServer's application server prints none), no zSeries primitives, spinlocks that spin.
#: The clocks the slides print (700 MHz to 2.0 GHz) are not applied: the user times of PROFILES
#: are order-of-magnitude readings at the reference speed, not per-clock path lengths, so scaling
#: them would add a precision the readings do not have. ReAIM is the exception since 2026-11-28:
#: its CPU per job is OSDL's measurement on the 700 MHz STP, so that system runs at its clock
#: ratio to the reference (REFERENCE_CLOCK).
SYSTEMS: dict[str, dict] = {
    # 12 x 10k rpm drives: ~5 ms random 8 KB (seek ~4.5 ms + half a turn 3 ms, short-stroked)
    "dbt2_cached": dict(disks=12, disk_time=1e-3, highmem=True),   # log writes: sequential, ~1 ms
    "dbt2_noncached": dict(disks=12, disk_time=5e-3, highmem=True),
    # ReAIM's CPU per job is measured on the deck's 700 MHz STP (REAIM_MIX): its clock is applied
    "reaim": dict(disks=2, disk_time=5e-3, highmem=True, cpu_speed=REAIM_MIX["clock"] / REFERENCE_CLOCK),
    "specweb": dict(disks=1, disk_time=5e-3, highmem=True),
    "specjapp": dict(disks=1, disk_time=5e-3, highmem=False),
    "specjbb": dict(disks=1, disk_time=5e-3, highmem=True),
    # 112 disks behind 8 LUNs (request queues) of 14 disks (the LUN service time is the free
    # parameter lun_time); 4 x 2 Gbit/s FC: 64 KB / 200 MB/s on each of 4 paths
    "dss": dict(disks=8, disk_time=1.2e-3, highmem=True, channel_demands=(0.0, 64 * KB / 200e6, 0.0),
                channel_paths=4),
}
for _spec in SYSTEMS.values():
    _spec["platform"] = "x86"
#: the platform of the dbench compositions (IBM SJ Figure 1: z990 LPARs)
DBENCH_PLATFORM = "zSeries"

#: the kernel costs the OSDL and dbench rows determine (the rest of KernelCosts is held at its default)
FREE_COSTS = ("runqueue_hold", "net_extra_time", "antic_miss", "purge", "purge_per_cpu")
#: kernel costs this fit derives as products of its parameters (the IPTE stall relative to a purge)
DERIVED = {"ipte": ("ipte_relative", "purge"), "ipte_per_cpu": ("ipte_relative", "purge_per_cpu")}
#: the parameters KernelCosts is built from (its fields, those of InstructionCosts, the factors of DERIVED)
_COST_NAMES = tuple(dict.fromkeys(list(parameter_info(KernelCosts))
                                   + [n for fs in DERIVED.values() for n in fs]))
#: this fit's readings of fixed kernel costs, replacing KernelCosts defaults (value, reason); the free
#: costs start at their KernelCosts defaults, never at a fitted value
COST_READINGS = {
    "scan_time": (20e-9, "2.4 goodness() per runnable task per schedule(): a few instructions (fixed, the OSDL "
                         "rows do not identify it)"),
    "bounce_time_per_byte": (0.5e-9, "bounce-buffer copy at ~2 GB/s (OSDL 'Bounce Buffer Avoidance': 'Eliminate "
                                     "copy overhead')"),
}

#: catalog id -> (benchmark, cpus); percent change 2.4 -> 2.6
OSDL_ROWS = {
    "osdl.summary-dbt2-noncached-8way": ("dbt2_noncached", 8),
    "osdl.summary-dbt2-cached-8way": ("dbt2_cached", 8),
    "osdl.summary-reaim-4way": ("reaim", 4),
    "osdl.summary-reaim-8way": ("reaim", 8),
    "osdl.summary-specweb-4way": ("specweb", 4),
    "osdl.summary-specweb-8way": ("specweb", 8),
    "osdl.summary-specjapp-4way": ("specjapp", 4),
    "osdl.summary-specjapp-8way": ("specjapp", 8),
    "osdl.summary-specjbb-4way": ("specjbb", 4),
    "osdl.summary-specjbb-8way": ("specjbb", 8),
    "osdl.summary-dss-8way": ("dss", 8),
    "osdl.specjapp-4way-gain": ("specjapp", 4),   # predicted, excluded (see EXCLUDED)
}
IOSCHED_ROWS = ("osdl.iosched-light-load", "osdl.iosched-heavy-load")
DBENCH_ROWS = ("ibmsj.dbench-24-16cpu-mbps", "ibmsj.dbench-26-16cpu-mbps", "ibmsj.dbench-24-drop-above-20cpu",
               "ibmsj.fig1-similar-upto-4cpu", "ibmsj.fig1-26-better-from-8cpu")

#: catalog id -> kind used in this fit; the dbench rows are read as zmodel/_data/readings.csv says (shared)
FIT_KINDS: dict[str, str] = {}
#: a measured 0 % has no relative residual
SCALES = {"osdl.iosched-light-load": "absolute"}
#: weights: the "quite similar up to 4" threshold as in zmodel.fits.kernel_memory (x10); the light-load
#: row is an absolute residual in percentage points, weighted 1/100 to put it on the relative scale
#: of the other rows (1 point ~ 1 %)
WEIGHTS = {"ibmsj.fig1-similar-upto-4cpu": 10.0, "osdl.iosched-light-load": 0.01}
#: benchmark of each fitted row: leave-one-benchmark-out drops all rows of one at a time (issue 11 part 3)
BENCHMARK_NAMES = {"dbt2_cached": "DBT-2", "dbt2_noncached": "DBT-2", "reaim": "ReAIM", "specweb": "SPECweb99",
                   "specjapp": "SPECjAppServer", "specjbb": "SPECjbb2000", "dss": "decision support / iosched"}
BENCHMARKS = {**{id_: BENCHMARK_NAMES[bench] for id_, (bench, _) in OSDL_ROWS.items()},
              **{id_: "decision support / iosched" for id_ in IOSCHED_ROWS},
              **{id_: "dbench" for id_ in DBENCH_ROWS}}
#: parameters the compositions of a memoised quantity never read, so that its memo key leaves
#: them out (a finite-difference step in one of them reuses the value): the LUN service time
#: outside decision support (it is the dss system's disk time); the network extra cost where
#: the profile has no network requests (it enters as 0 x cost); the anticipatory miss
#: probability in the 2.4-vs-2.6 pairs (they compose with the deadline scheduler whenever
#: there is I/O, :meth:`KernelVersionsModel.composition`, and without I/O no anticipation).
#: Checked: the fit's parameters are the same to the last bit with and without these.
_UNREAD = {**{b: ({"lun_time"} if b != "dss" else set()) | {"antic_miss"}
              | (set() if PROFILES[b].get("network_requests") else {"net_extra_time"}) for b in PROFILES},
           "iosched": set() if PROFILES["dss"].get("network_requests") else {"net_extra_time"}}
#: least-squares settings: run to convergence from the data-independent start (an evaluation cap no
#: fit reaches).
#: The surface has several minima (calibrate(starts=8, seed=0): 8 converged, 5 distinct, costs
#: 0.00385 to 0.078). The declared defaults reach the one of cost 0.00400; a lower one (0.00385,
#: found with starts=4, seed=0) puts runqueue_hold at its 100 us upper bound, misses the ReAIM
#: 4-way gain by 25 % and fails the queue-lock throughput shape claim (both before ReAIM's activity
#: was read from its workload, 2026-11-27): not adopted until the model says why (an open
#: question, not a setting to flip: with starts=4 the fit and every refit take four times as long).
#: The evaluation cap is set well above what any fit needs (scipy's default, 100 per free
#: parameter = 700, stopped the SPECweb99-left-out refit at 700 on 2026-11-27 while it still crept
#: towards the runqueue hold's lower bound; it converges at 762, to the same predictions).
FIT_SETTINGS = dict(tol=1e-8, jac="2-point", max_nfev=5000)
#: predicted and reported, never fitted
EXCLUDED = ("osdl.specjapp-4way-gain",)

SHAPE_IDS = (
    "osdl.reaim-26-higher-peak",
    "osdl.reaim-26-holds-throughput",
    "osdl.dbt2-cached-cpu-bound",
    "osdl.dbt2-improvement-grows-with-io",
    "ibmsj.fig1-similar-upto-4cpu-shape",
    "ibmsj.fig1-26-better-from-8cpu-shape",
    "ibmsj.dbench-24-drop-above-20cpu-shape",
    "ibmsj.dbench-26-above-20cpu-shape",
    "osdl.iosched-deadline-for-db-shape",
    "osdl.queue-lock-throughput-shape",
    "ibmsj.io-request-lock-contention-scaling-shape",
    "osdl.o1-scheduler-cost",
    "ibmsj.o1-scheduler-constant-time-shape",
)


class KernelVersionsModel(Model):
    """OSDL 2.4 -> 2.6 results and the zSeries dbench figures from one composition.

    Examples
    --------
    >>> m = KernelVersionsModel()
    >>> p = m.parameters().valuesdict()
    >>> x24, x26 = m.pair("specjbb", 4, p)
    >>> x26 > x24
    True
    """

    name = "Kernel versions: composed 2.4 vs 2.6 benchmark figures (OSDL summary, IBM SJ Figure 1)"
    memo_size = 20000

    def __init__(self):
        super().__init__()
        for id_, (bench, cpus) in OSDL_ROWS.items():
            self.add_predictor(id_, lambda p, b=bench, c=cpus: PercentChange(*self.pair(b, c, p)))
        self.add_predictor("osdl.iosched-light-load", lambda p: PercentChange(*self.as_vs_deadline(LIGHT_STREAMS, p)))
        self.add_predictor("osdl.iosched-heavy-load", lambda p: PercentChange(*self.as_vs_deadline(HEAVY_STREAMS, p)))
        self.add_predictor("ibmsj.dbench-24-16cpu-mbps", lambda p: self.dbench_rate(OLD, 16, p))
        self.add_predictor("ibmsj.dbench-26-16cpu-mbps", lambda p: self.dbench_rate("2.6.6", 16, p))
        self.add_predictor("ibmsj.dbench-24-drop-above-20cpu", self.dbench_peak_24)
        self.add_predictor("ibmsj.fig1-similar-upto-4cpu", self.similar_up_to)
        self.add_predictor("ibmsj.fig1-26-better-from-8cpu", self.much_better_from)
        self.add_check("osdl.reaim-26-higher-peak", self.reaim_higher_peak)
        self.add_check("osdl.reaim-26-holds-throughput", self.reaim_holds)
        self.add_check("osdl.dbt2-cached-cpu-bound", self.dbt2_cached_cpu_bound)
        self.add_check("osdl.dbt2-improvement-grows-with-io",
                       lambda p: self.gain("dbt2_noncached", 8, p) > self.gain("dbt2_cached", 8, p))
        self.add_check("ibmsj.fig1-similar-upto-4cpu-shape",
                       lambda p: bool(np.all(np.round(self.dbench_ratio(p)[:4], 2) >= SIMILAR_WITHIN)))
        self.add_check("ibmsj.fig1-26-better-from-8cpu-shape",
                       lambda p: bool(np.all(1.0 / self.dbench_ratio(p)[7:32] >= MUCH_BETTER)))
        self.add_check("ibmsj.dbench-24-drop-above-20cpu-shape",
                       lambda p: self.dbench_rate(OLD, 32, p) < 0.95 * self.dbench_rate(OLD, 20, p))
        self.add_check("ibmsj.dbench-26-above-20cpu-shape",
                       lambda p: self.dbench_rate("2.6.6", 32, p) >= self.dbench_rate("2.6.6", 20, p))
        self.add_check("osdl.iosched-deadline-for-db-shape",
                       lambda p: self.as_vs_deadline(HEAVY_STREAMS, p)[0] >= self.as_vs_deadline(HEAVY_STREAMS, p)[1])
        self.add_check("osdl.queue-lock-throughput-shape", self.queue_lock_helps)
        self.add_check("ibmsj.io-request-lock-contention-scaling-shape", self.io_lock_contention_grows)
        self.add_check("osdl.o1-scheduler-cost", self.o1_flat)
        self.add_check("ibmsj.o1-scheduler-constant-time-shape", self.o1_flat)

    def parameters(self) -> Parameters:
        # every kernel cost, declared once (default, range, unit, provenance) in KernelCosts and
        # InstructionCosts: FREE_COSTS vary, the others are held at their defaults or this fit's
        # readings; the IPTE costs are derived from the purge (ipte_relative), not parameters here
        ps = Parameters.from_dataclass(KernelCosts, free=FREE_COSTS, values=COST_READINGS,
                                       exclude=("ipte", "ipte_per_cpu"))
        # the locks' hand-off per waiting CPU (the serial time grows by it with every waiter): the value
        # the lock calibration fits (zmodel.fits.kernel_locks, the Altix page-fault and superblock-lock
        # figures), held fixed here so that the composed locks and the lock fit agree
        from zmodel.fits.kernel_locks import CALIBRATION as LOCKS

        handoff = LOCKS.run().params["spinlock_handoff"]
        ps.set("spinlock_handoff", value=handoff.value,
               source=f"the kernel_locks calibration's fitted value (held fixed here); {handoff.source}")
        # the fit's own parameters: not model costs, readings of the benchmarks
        # (starting values are data-independent readings, never a previous optimum)
        ps.add("lun_time", 0.5e-3, min=1e-5, max=0.05, unit="s",
               source="decision support: service of one 64 KB read by a LUN (14 disks of a FAStT900 array); not "
                      "printed (fitted; starts at ~5 ms per disk access shared by 14 disks, assumed)")
        ps.add("dbench_cpu_time", 10e-6, min=1e-7, max=1e-3, unit="s",
               source="CPU per 4 KB page outside memory management (dbench, fitted; starts at 10 us, assumed: a "
                      "4 KB copy plus a few system calls)")
        ps.update(Parameters.from_dataclass(DbenchMemoryCosts, only=("ipte_relative",)))   # declared once, fixed
        return ps

    # ------------------------------------------------------------------ building blocks
    @staticmethod
    def costs(p) -> KernelCosts:
        return to_dataclass(KernelCosts, p, **{n: math.prod(p[f] for f in fs) for n, fs in DERIVED.items()})

    def _costs(self, p) -> KernelCosts:
        """:meth:`costs`, built once per set of cost values."""
        return self.memo(("costs",) + tuple((n, p[n]) for n in _COST_NAMES if n in p), lambda: self.costs(p))

    def workload(self, bench: str, cpus: int, clients: int | None = None) -> WorkloadProfile:
        """The workload of ``bench`` on ``cpus`` CPUs (one client per CPU where the profile says so;
        ReAIM: that of ``clients`` children, default the largest load level, :func:`reaim_profile`)."""
        return self.memo(("workload", bench, cpus, clients),
                         lambda: self._workload(bench, cpus, clients=clients))

    @staticmethod
    def _workload(bench: str, cpus: int, tick_waits: bool = True, clients: int | None = None) -> WorkloadProfile:
        spec = dict(reaim_profile(clients) if bench == "reaim" and clients is not None else PROFILES[bench])
        if spec["clients"] is None:
            spec["clients"] = cpus
        if tick_waits and bench in DBT2_HZ_SCORES:   # read from the HZ comparison (dbt2_tick_waits)
            spec["tick_waits"] = dbt2_tick_waits()
        return WorkloadProfile(bench, **spec)

    def system(self, bench: str, cpus: int, p=None) -> SystemConfig:
        lun = p["lun_time"] if bench == "dss" and p is not None else None
        return self.memo(("system", bench, cpus, lun), lambda: self._system(bench, cpus, p))

    @staticmethod
    def _system(bench: str, cpus: int, p=None) -> SystemConfig:
        spec = dict(SYSTEMS[bench])
        if bench == "dss" and p is not None:
            spec["disk_time"] = p["lun_time"]
        return SystemConfig(cpus=cpus, **spec)

    def composition(self, bench: str, cpus: int, kernel: str, p, io_scheduler=None, clients=None) -> dict:
        """The :func:`~zmodel.kernel.versions.compose` arguments of ``bench`` on ``cpus`` CPUs under ``kernel``
        (ReAIM: one load level, ``clients`` children, whose activity it sets; default the largest)."""
        if bench == "reaim":   # one load level: its activity depends on it
            clients = as_count("clients", REAIM_PROCESSES[-1] if clients is None else clients)
        w = self.workload(bench, cpus, clients if bench == "reaim" else None)
        old = kernel.startswith("2.4")
        sched = io_scheduler or ("deadline" if (old or w.io_per_transaction > 0) else None)
        return dict(kernel=kernel if not (bench == "reaim" and old) else "2.4.23", workload=w,
                    system=self.system(bench, cpus, p), costs=self._costs(p), io_scheduler=sched, clients=clients)

    def throughput(self, bench: str, cpus: int, kernel: str, p, io_scheduler=None, clients=None):
        return compose(**self.composition(bench, cpus, kernel, p, io_scheduler, clients))

    def reaim_compositions(self, cpus: int, kernel: str, p, io_scheduler=None) -> list[dict]:
        """One composition per ReAIM load level of :data:`REAIM_PROCESSES` (each with its own activity;
        ``io_scheduler`` overrides the elevator, as in :meth:`composition`)."""
        return [self.composition("reaim", cpus, kernel, p, io_scheduler, clients=n) for n in REAIM_PROCESSES]

    # Each memoised quantity below is (key, compositions, reduce): prefetch() solves the
    # compositions of many quantities -- of many parameter vectors -- in one compose_many call
    @staticmethod
    def _shared_key(p) -> dict:
        """The values an OSDL composition may read: all but the dbench parameters."""
        return {n: v for n, v in sorted(p.items()) if n not in _DBENCH_PARAMS}

    @staticmethod
    def _key_of(shared: dict, unread) -> tuple:
        return tuple(v for n, v in shared.items() if n not in unread)

    def _pair_job(self, bench: str, cpus: int, p, shared=None):
        key = ("pair", bench, cpus) + self._key_of(
            self._shared_key(p) if shared is None else shared, _UNREAD[bench])

        def build():
            if bench == "reaim":
                return self.reaim_compositions(cpus, OLD, p) + self.reaim_compositions(cpus, NEW, p)
            return [self.composition(bench, cpus, OLD, p), self.composition(bench, cpus, NEW, p)]

        def reduce(*results):
            if bench == "reaim":   # the curves over the load levels (pair takes their peaks)
                x = [float(r.throughput) for r in results]
                return tuple(x[:len(REAIM_PROCESSES)]), tuple(x[len(REAIM_PROCESSES):])
            r24, r26 = results
            return float(r24.throughput), float(r26.throughput)

        return key, build, reduce

    def _iosched_job(self, streams: int, p, shared=None):
        key = ("iosched", streams) + self._key_of(self._shared_key(p) if shared is None else shared,
                                                  _UNREAD["iosched"])

        def build():
            return [self.composition("dss", 8, NEW, p, io_scheduler="deadline", clients=streams),
                    self.composition("dss", 8, NEW, p, io_scheduler="anticipatory", clients=streams)]

        return key, build, lambda dl, as_: (float(dl.throughput), float(as_.throughput))

    def _dbench_job(self, kernel: str, p):
        key = ("dbench", kernel) + tuple(p[k] for k in _DBENCH_PARAMS)
        n = np.arange(1, MAX_CPUS + 1)

        def build():
            w = WorkloadProfile("dbench", clients=1, user_time=p["dbench_cpu_time"], page_events=1)
            s = SystemConfig(cpus=1, devices=0, platform=DBENCH_PLATFORM)
            return [dict(kernel=kernel, workload=w, system=s, costs=self._costs(p), clients=n, cpus=n)]

        return key, build, lambda r: np.asarray(r.throughput) * 4096 / 1e6

    def _jobs(self, p):
        shared = self._shared_key(p)
        jobs = [self._pair_job(b, c, p, shared) for b, c in dict.fromkeys(OSDL_ROWS.values())]
        jobs += [self._iosched_job(n, p, shared) for n in (LIGHT_STREAMS, HEAVY_STREAMS)]
        jobs += [self._dbench_job(k, p) for k in (OLD, "2.6.6")]
        return jobs

    def _run(self, job):
        key, build, reduce = job
        return self.memo(key, lambda: reduce(*compose_many(build())))

    def prefetch(self, values) -> None:
        """Solve every composition the rows need at each parameter vector of ``values`` in one batch."""
        todo = {}
        for p in values:
            for key, build, reduce in self._jobs(p):
                if key not in todo and not self.memoised(key):
                    todo[key] = (build(), reduce)
        if not todo:
            return
        results = iter(compose_many([c for comps, _ in todo.values() for c in comps]))
        for key, (comps, reduce) in todo.items():
            value = reduce(*(next(results) for _ in comps))
            self.memo(key, lambda: value)

    def pair(self, bench: str, cpus: int, p) -> tuple[float, float]:
        """Throughput with 2.4 and with 2.6.0 (ReAIM: peaks over :data:`REAIM_PROCESSES`) [1/s]."""
        r = self._run(self._pair_job(bench, cpus, p))
        return (max(r[0]), max(r[1])) if bench == "reaim" else r

    def gain(self, bench: str, cpus: int, p) -> float:
        """Predicted percent improvement of 2.6.0 over 2.4 [%]."""
        return PercentChange(*self.pair(bench, cpus, p)).value

    def as_vs_deadline(self, streams: int, p) -> tuple[float, float]:
        """Decision support on 2.6.0: (deadline, anticipatory) throughput at ``streams`` [1/s]."""
        return self._run(self._iosched_job(streams, p))

    # ------------------------------------------------------------------ dbench (zSeries)
    def dbench_rates(self, kernel: str, p, cpus=None) -> np.ndarray:
        """dbench memory transfer rate [MB/s] for CPUs 1..MAX_CPUS, or at ``cpus`` (one client per CPU)."""
        x = self._run(self._dbench_job(kernel, p))
        if cpus is None:
            return x.copy()
        n = np.atleast_1d(np.asarray(cpus))
        if n.size and (n.min() < 1 or n.max() > MAX_CPUS):
            return self._dbench_rates(kernel, p, tuple(int(c) for c in n))
        return x[n.astype(int) - 1]

    def _dbench_rates(self, kernel: str, p, n) -> np.ndarray:
        w = WorkloadProfile("dbench", clients=1, user_time=p["dbench_cpu_time"], page_events=1)
        r = compose(kernel, w, SystemConfig(cpus=1, devices=0, platform=DBENCH_PLATFORM), self._costs(p),
                    clients=list(n), cpus=list(n))
        return np.asarray(r.throughput) * 4096 / 1e6

    def dbench_rate(self, kernel: str, cpus: int, p) -> float:
        return float(self.dbench_rates(kernel, p, [cpus])[0])

    def dbench_ratio(self, p) -> np.ndarray:
        return self.dbench_rates(OLD, p) / self.dbench_rates("2.6.6", p)

    def dbench_peak_24(self, p) -> float:
        x = self.dbench_rates(OLD, p)
        i = int(np.argmax(x))
        if i == 0 or i == len(x) - 1:
            return float(i + 1)
        a, b, c = x[i - 1], x[i], x[i + 1]
        den = a - 2 * b + c
        return float(i + 1) if den == 0 else float(i + 1 + 0.5 * (a - c) / den)

    def similar_up_to(self, p) -> float:
        n = np.arange(1, MAX_CPUS + 1)
        return _first_crossing(n, self.dbench_ratio(p), SIMILAR_WITHIN, rising=False)

    def much_better_from(self, p) -> float:
        n = np.arange(1, MAX_CPUS + 1)
        return _first_crossing(n, 1.0 / self.dbench_ratio(p), MUCH_BETTER, rising=True)

    # ------------------------------------------------------------------ shape checks
    def reaim_curves(self, cpus: int, p):
        """ReAIM throughput at each load level of :data:`REAIM_PROCESSES`, 2.4 and 2.6 [jobs/s]
        (the compositions of the memoised pair, :meth:`pair`)."""
        x24, x26 = self._run(self._pair_job("reaim", cpus, p))
        return np.array(x24), np.array(x26)

    def reaim_higher_peak(self, p) -> bool:
        """2.6's peak at least :data:`VISIBLY_HIGHER` times 2.4's, on 4 and 8 CPUs."""
        return all(c[1].max() >= VISIBLY_HIGHER * c[0].max()
                   for c in (self.reaim_curves(4, p), self.reaim_curves(8, p)))

    def reaim_holds(self, p) -> bool:
        """At the largest load 2.6 keeps more of its peak than 2.4 does, and is :data:`VISIBLY_HIGHER` there."""
        ok = True
        for cpus in (4, 8):
            x24, x26 = self.reaim_curves(cpus, p)
            ok &= bool(x26[-1] / x26.max() > x24[-1] / x24.max() and x26[-1] >= VISIBLY_HIGHER * x24[-1])
        return ok

    def dbt2_cached_cpu_bound(self, p) -> bool:
        c = self.throughput("dbt2_cached", 8, OLD, p)
        n = self.throughput("dbt2_noncached", 8, OLD, p)
        return bool(c.cpu_utilization > c.disk_utilization and n.disk_utilization > n.cpu_utilization)

    def queue_lock_helps(self, p) -> bool:
        """DSS-like I/O on 8 CPUs: per-queue locks beat the global io_request_lock, more so at 8 than 2 CPUs."""
        w = self.workload("dss", 8)
        feats24 = {"global_io_request_lock", "deadline_scheduler", "large_block_io", "o1_scheduler"}
        feats26 = (feats24 - {"global_io_request_lock"}) | {"per_queue_io_lock"}
        g = []
        for cpus in (2, 8):
            s = self.system("dss", cpus, p)
            a = compose(feats24, w, s, self._costs(p), io_scheduler="deadline").throughput
            b = compose(feats26, w, s, self._costs(p), io_scheduler="deadline").throughput
            g.append(b / a)
        return bool(g[1] > g[0] >= 1.0)

    def io_lock_contention_grows(self, p) -> bool:
        """CPUs spinning on the 2.4 io_request_lock grow with the CPUs issuing I/O (fast disks) and
        with the disks serving it (slow disks): ibmsj "gets worse the more processors or disks"."""
        w = self.workload("dbt2_noncached", 8).replace(io_per_transaction=6, switches=0, clients=64)

        def spinning(cpus, disks, disk_time):
            r = compose(OLD, w, SystemConfig(cpus=cpus, disks=disks, disk_time=disk_time), self._costs(p),
                        io_scheduler="deadline")
            return r.spin_fraction * r.cpu_utilization * cpus

        return bool(spinning(2, 24, 1e-4) < spinning(8, 24, 1e-4) and spinning(8, 24, 5e-3) < spinning(8, 96, 5e-3))

    def o1_flat(self, p) -> bool:
        """Scheduler CPU per switch: flat in the number of tasks with O(1), growing in 2.4."""
        from zmodel.kernel.versions import kernel_cpu_time

        w = WorkloadProfile("s", clients=10, switches=1)
        s = SystemConfig(cpus=4)
        c = self._costs(p)
        t26 = [float(kernel_cpu_time(kernel_version(NEW).features, w, s, c, runnable=n)["scheduler"])
               for n in (10, 1000)]
        t24 = [float(kernel_cpu_time(kernel_version(OLD).features, w, s, c, runnable=n)["scheduler"])
               for n in (10, 1000)]
        return bool(t26[0] == t26[1] and t24[1] > t24[0])


def attribution_table(params=None):
    """Feature ablation of every composed 2.4 -> 2.6 figure: which change explains how much.

    One :func:`zmodel.kernel.attribution.feature_attribution` per benchmark configuration of
    :data:`OSDL_ROWS` (the compositions of its fitted row: same kernels and I/O scheduler; ReAIM
    at the load level where its 2.6 composition peaks) and for dbench on 16 CPUs (2.4.21 vs 2.6.6,
    IBM SJ Figure 1), at ``params``.

    Parameters
    ----------
    params : mapping name -> value, optional
        The fit's parameter values (default: the fit's optimum, :func:`calibrate_kernel_versions`).

    Returns
    -------
    pandas.DataFrame
        One row per (benchmark, change): ``benchmark, cpus, platform, measured`` (the documented
        gain, %), ``gain`` (the composition's, %), ``change, reverted, contribution`` (percentage
        points), ``interaction`` (gain minus the sum of the contributions, percentage points).
    """
    import pandas as pd

    from zmodel.data import measurements as catalog
    from zmodel.kernel.attribution import feature_attribution

    m = KernelVersionsModel()
    p = dict(calibrate_kernel_versions().params.valuesdict() if params is None else params)
    rows = catalog(ids=list(OSDL_ROWS))
    measured = dict(zip(rows["id"], rows["value_num"]))
    frames = []
    for id_, (bench, cpus) in OSDL_ROWS.items():
        if id_ in EXCLUDED:
            continue
        clients = None
        if bench == "reaim":   # at the load level where 2.6 peaks (each level has its own activity)
            clients = REAIM_PROCESSES[int(np.argmax(m.reaim_curves(cpus, p)[1]))]
        a, b = m.composition(bench, cpus, OLD, p, clients=clients), m.composition(bench, cpus, NEW, p, clients=clients)
        r = feature_attribution(a["kernel"], b["kernel"], b["workload"], b["system"], b["costs"],
                                io_scheduler=b["io_scheduler"], clients=clients)
        frames.append(r.to_frame().assign(benchmark=BENCHMARK_NAMES[bench] + f" ({bench})", cpus=cpus,
                                          platform=b["system"].platform, measured=measured[id_], row=id_))
    w = WorkloadProfile("dbench", clients=16, user_time=p["dbench_cpu_time"], page_events=1)
    r = feature_attribution(OLD, "2.6.6", w, SystemConfig(cpus=16, devices=0, platform=DBENCH_PLATFORM),
                            m._costs(p))
    frames.append(r.to_frame().assign(benchmark="dbench (IBM SJ Figure 1)", cpus=16, platform=DBENCH_PLATFORM,
                                      measured=100.0 * (3250.0 / 1500.0 - 1.0), row="ibmsj.dbench-2x-16cpu-mbps"))
    cols = ["row", "benchmark", "cpus", "platform", "measured", "gain", "change", "reverted", "contribution",
            "interaction"]
    return pd.concat(frames, ignore_index=True)[cols]


#: the calibration (registered in zmodel.fits.registry)
CALIBRATION = Calibration(
    area="kernel_versions", layer="kernel", order=5, model=KernelVersionsModel,
    rows=tuple(OSDL_ROWS) + IOSCHED_ROWS + DBENCH_ROWS + SHAPE_IDS, kinds=FIT_KINDS, scales=SCALES,
    weights=WEIGHTS, exclude=EXCLUDED, settings=FIT_SETTINGS, derived=DERIVED, groups=BENCHMARKS,
    tables={"What explains each 2.4 -> 2.6 difference (feature ablation, percentage points of the gain)":
            lambda result: attribution_table(result.params.valuesdict()),
            "DBT-2 ticks per transaction read from OSDL's HZ = 100 vs 1000 comparison (2.5.65-mjb2, linux-kernel "
            "28 March 2003; cached fitted, non-cached predicted; at the fitted values)":
            lambda result: hz_table(result.params.valuesdict())},
    leave_one_out_in_summary=False,
    title="Kernel versions composed: Linux 2.4.21 vs 2.6.x feature sets")
measurements = CALIBRATION.measurements
calibrate_kernel_versions = CALIBRATION.run
cross_validate_kernel_versions = CALIBRATION.cross_validate

