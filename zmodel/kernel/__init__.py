"""Kernel-version and hypervisor models composed from :mod:`zmodel.hardware`.

Lock contention, TLB/ISKE and memory management, hypervisor scheduling (LPAR, z/VM),
the I/O path and NUMA, composed into Linux 2.4 vs 2.6 feature sets. Imports
``zmodel.hardware`` and ``zmodel.queueing`` only.

Names, units, input checks, the vectorising wrapper and the saturation policy are the
library's one contract, :mod:`zmodel.conventions` (sizes in :mod:`zmodel.units`).
"""
