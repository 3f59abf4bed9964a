"""The dbench memory model and sysfs memory (zmodel.kernel.memory) by hand.

DbenchMemoryModel: N clients, each page costs CPU work (a delay station: every client has
its own CPU) plus, with ``serial_time``, a section one CPU at a time (a single server);
exact MVA by hand (Lazowska et al. 1984, Algorithm 6.1). The memory-management time per
page is the IBM Systems Journal operation count for 2.4 (ISKE x2, SSKE x1, three global
purges stalling N CPUs); with the purge costs set to zero only ISKE and SSKE remain.
Efficiency is X(N) / (N X_1), X_1 the rate of one CPU without broadcast stalls.
"""
import pytest

from zmodel.kernel.memory import DbenchMemoryModel, InstructionCosts, sysfs_memory


def test_dbench_with_a_serial_section_by_hand():
    ic = InstructionCosts(iske=0.2e-6, sske=0.1e-6, rrbe=0.0, pte_test=0.0, ipte=0.0, ipte_per_cpu=0.0,
                          purge=0.0, purge_per_cpu=0.0)
    cpu, ser = 10e-6, 4e-6
    m = DbenchMemoryModel("2.4", cpu_time=cpu, serial_time=ser, costs=ic)
    dc = cpu + 2 * 0.2e-6 + 0.1e-6
    # N = 1: R = dc + ds; N = 2: R_s = ds (1 + X_1 ds), the CPU part is a delay
    x1 = 1 / (dc + ser)
    x2 = 2 / (dc + ser * (1 + x1 * ser))
    r = m.throughput([1, 2])
    assert r.page_rate[0] == pytest.approx(x1, rel=1e-12)
    assert r.page_rate[1] == pytest.approx(x2, rel=1e-12)
    assert r.efficiency[0] == pytest.approx(1.0, rel=1e-12)          # one CPU, no broadcast loss
    assert r.efficiency[1] == pytest.approx(x2 / (2 * x1), rel=1e-12)
    assert r.throughput[1] == pytest.approx(4096 * x2, rel=1e-12)


def test_sysfs_active_fraction_must_be_a_fraction():
    with pytest.raises(ValueError, match=r"active_fraction must be in \[0, 1\], got 1.05"):
        sysfs_memory(10, 10, 1500.0, backing_store=True, active_fraction=1.05)
    # the bound itself is allowed: every file active pins its whole size
    assert sysfs_memory(10, 10, 1500.0, backing_store=True, active_fraction=1.0).pinned_bytes == 10 * 10 * 1500.0
