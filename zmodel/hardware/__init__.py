"""Hardware components built on :mod:`zmodel.queueing`.

Channel subsystem (CHPIDs, FICON/ESCON/FCP links, subchannels, multipath, PAV), storage
servers (ESS F20/800, DS8300: cache, NVS, RAID ranks, disks), processors, network
adapters and crypto hardware. Each component holds its parameters in SI units and
returns predictions computed with the queueing layer. Imports ``zmodel.queueing`` only.

Names, units, input checks, the vectorising wrapper and the saturation policy are the
library's one contract, :mod:`zmodel.conventions` (sizes in :mod:`zmodel.units`).
"""
