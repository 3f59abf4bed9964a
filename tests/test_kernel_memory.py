"""zmodel.kernel.memory: storage-key/TLB operation costs, dbench MVA model, page tables, sysfs.

Expected values are computed by hand in each test (exact fractions where the model is a
closed form) or are the printed numbers of the OSDL deck (seed 001, slide "Virtual
Memory: Large page support": "A 16GB database buffer uses 16M of low memory per process
for PTEs, 1GB for 64 processes"; "4 byte entry with 1024 processes would use 4k of low
memory to support a4k sized page").
"""
import math
from fractions import Fraction
from math import comb, factorial

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st

from zmodel.kernel.memory import (
    KERNELS,
    DbenchMemoryModel,
    InstructionCosts,
    mm_overhead,
    operation_counts,
    page_table_memory,
    sysfs_memory,
)

GiB, MiB, KiB = 2 ** 30, 2 ** 20, 2 ** 10


# --------------------------------------------------------------------------- costs and counts
def test_broadcast_stall_is_linear_in_cpus():
    c = InstructionCosts(purge=2e-6, purge_per_cpu=0.25e-6, ipte=0.5e-6, ipte_per_cpu=0.125e-6)
    assert c.purge_stall(8) == pytest.approx(2e-6 + 8 * 0.25e-6, rel=1e-15)
    assert c.ipte_stall(4) == pytest.approx(0.5e-6 + 4 * 0.125e-6, rel=1e-15)
    assert np.allclose(c.purge_stall([1, 2]), [2.25e-6, 2.5e-6], rtol=1e-15)


def test_costs_reject_negative_values():
    with pytest.raises(ValueError, match="iske must be non-negative and finite"):
        InstructionCosts(iske=-1.0)


def test_costs_reject_non_numbers():
    with pytest.raises(ValueError, match="purge must be a number"):
        InstructionCosts(purge="fast")


@pytest.mark.parametrize("m", [1, 2, 7])
def test_operation_counts_follow_the_papers_statements(m):
    c24 = operation_counts("2.4", m, searched_ptes=50)
    early = operation_counts("2.6-early", m)
    c26 = operation_counts("2.6", m)
    # 2.4: ISKE "for each mapping" (dirty + referenced query), purge per PTE change, page-table search
    assert (c24.iske, c24.sske, c24.rrbe, c24.pte_tests, c24.tlb_purges, c24.ipte) == (2 * m, 1, 0, 50, 3 * m, 0)
    # early 2.6: still per mapping and flushing, but the reverse map visits only the m PTEs
    assert (early.iske, early.pte_tests, early.tlb_purges, early.ipte) == (2 * m, m, 3 * m, 0)
    # 2.6 with the primitives: ISKE once per physical page, RRBE, no purge, one IPTE per mapping
    assert (c26.iske, c26.sske, c26.rrbe, c26.pte_tests, c26.tlb_purges, c26.ipte) == (1, 1, 1, 0, 0, m)


def test_operation_counts_vectorise():
    c = operation_counts("2.4", [1, 2, 3])
    assert np.array_equal(c.iske, [2, 4, 6]) and c.to_frame().shape[0] == 3


def test_operation_counts_reject_unknown_kernel():
    with pytest.raises(ValueError, match=r"kernel must be one of \['2.4', '2.6-early', '2.6'\]"):
        operation_counts("2.5", 1)


def test_operation_counts_reject_zero_mappings():
    with pytest.raises(ValueError, match="mappings must be a positive integer"):
        operation_counts("2.4", 0)


def test_mm_overhead_by_hand():
    c = InstructionCosts(iske=3e-7, sske=5e-7, rrbe=7e-7, pte_test=1e-8, ipte=2e-7, ipte_per_cpu=1e-8,
                         purge=1e-6, purge_per_cpu=1e-7)
    n, m, s = 8, 2, 10
    r = mm_overhead("2.4", n, m, s, costs=c)
    assert r.storage_key_time == pytest.approx(2 * m * 3e-7 + 5e-7, rel=1e-12)
    assert r.search_time == pytest.approx(s * 1e-8, rel=1e-12)
    assert r.purge_stall_time == pytest.approx(3 * m * n * (1e-6 + n * 1e-7), rel=1e-12)
    assert r.ipte_stall_time == 0
    assert r.total_time == pytest.approx(r.storage_key_time + r.search_time + r.purge_stall_time, rel=1e-12)
    r26 = mm_overhead("2.6", n, m, s, costs=c)
    assert r26.storage_key_time == pytest.approx(3e-7 + 5e-7 + 7e-7, rel=1e-12)
    assert r26.search_time == 0 and r26.purge_stall_time == 0
    assert r26.ipte_stall_time == pytest.approx(m * n * (2e-7 + n * 1e-8), rel=1e-12)


def test_mm_overhead_keeps_a_series_index():
    cpus = pd.Series([1, 4, 16], index=["a", "b", "c"])
    r = mm_overhead("2.4", cpus)
    assert isinstance(r.total_time, pd.Series) and list(r.total_time.index) == ["a", "b", "c"]
    assert r.to_frame().shape[0] == 3


def test_mm_overhead_rejects_bad_costs_and_cpus():
    with pytest.raises(ValueError, match="costs must be an InstructionCosts"):
        mm_overhead("2.4", 4, costs={"iske": 1.0})
    with pytest.raises(ValueError, match="cpus must be a positive integer"):
        mm_overhead("2.4", 0)


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 128), m=st.integers(1, 64), s=st.integers(0, 10_000))
def test_26_never_costs_more_than_24_or_early_26(n, m, s):
    o24 = mm_overhead("2.4", n, m, s).total_time
    early = mm_overhead("2.6-early", n, m, s).total_time
    o26 = mm_overhead("2.6", n, m, s).total_time
    assert o26 <= early * (1 + 1e-12) and o26 <= o24 * (1 + 1e-12)


# --------------------------------------------------------------------------- dbench network
COSTS = InstructionCosts(iske=1e-7, sske=1e-7, rrbe=1e-7, pte_test=0.0, ipte=1e-8, ipte_per_cpu=1e-9,
                         purge=2e-7, purge_per_cpu=2e-8)


def _repairman_throughput(n, z, s):
    """Exact M/M/1//N throughput (Kleinrock 1975, §3.9): X = (1 - p0)/S, by fractions."""
    z, s = Fraction(z), Fraction(s)
    weights = [Fraction(factorial(n), factorial(n - k)) * (s / z) ** k for k in range(n + 1)]
    p0 = 1 / sum(weights)
    return (1 - p0) / s


@pytest.mark.parametrize("n", [1, 2, 5, 16, 33])
def test_24_throughput_is_the_exact_finite_source_queue(n):
    cpu, serial = 20e-6, 1.5e-6
    m = DbenchMemoryModel("2.4", cpu_time=cpu, serial_time=serial, costs=COSTS)
    # delay demand by hand: cpu + 2 ISKE + SSKE + 3 purges x N x (purge + purge_per_cpu N)
    z = cpu + 3e-7 + 3 * n * (2e-7 + 2e-8 * n)
    x = float(_repairman_throughput(n, z, serial))
    r = m.throughput(n)
    assert r.page_rate == pytest.approx(x, rel=1e-10)
    assert r.throughput == pytest.approx(4096 * x, rel=1e-10)
    assert r.serial_utilization == pytest.approx(x * serial, rel=1e-10)   # utilization law


def test_one_cpu_has_no_contention():
    m = DbenchMemoryModel("2.4", cpu_time=20e-6, serial_time=1e-6, costs=COSTS)
    d1 = 20e-6 + 3e-7 + 3 * (2e-7 + 2e-8)
    assert m.throughput(1).page_rate == pytest.approx(1 / (d1 + 1e-6), rel=1e-12)


def test_without_serial_section_the_form_is_usl_like_and_peaks_at_the_formula():
    cpu = 20e-6
    m = DbenchMemoryModel("2.4", cpu_time=cpu, costs=COSTS)
    n = np.arange(1, 65)
    x = n / (cpu + 3e-7 + 3 * n * (2e-7 + 2e-8 * n))
    assert np.allclose(m.throughput(n).page_rate, x, rtol=1e-12)
    # dX/dN = 0 at N* = sqrt((t_cpu + T_local) / (n_purge t_1))
    peak = math.sqrt((cpu + 3e-7) / (3 * 2e-8))
    assert m.peak_cpus(64) == pytest.approx(peak, abs=0.1)


def test_26_with_free_instructions_is_linear():
    c = InstructionCosts(iske=0.0, sske=0.0, rrbe=0.0, ipte=0.0, ipte_per_cpu=0.0)
    m = DbenchMemoryModel("2.6", cpu_time=4096 / 250e6, costs=c)
    r = m.throughput([1, 8, 32])
    assert np.allclose(r.throughput, [250e6, 2000e6, 8000e6], rtol=1e-12)
    assert np.allclose(r.efficiency, 1.0, rtol=1e-12)


def test_peak_at_the_edge_when_still_rising():
    c = InstructionCosts(iske=0.0, sske=0.0, rrbe=0.0, ipte=0.0, ipte_per_cpu=0.0)
    assert DbenchMemoryModel("2.6", cpu_time=1e-5, costs=c).peak_cpus(32) == 32.0


@settings(max_examples=40, deadline=None)
@given(cpu=st.floats(1e-6, 1e-4), serial=st.floats(1e-8, 1e-5), purge=st.floats(0, 1e-6),
       per_cpu=st.floats(0, 1e-7), n=st.integers(1, 64), kernel=st.sampled_from(KERNELS))
def test_throughput_within_asymptotic_bounds(cpu, serial, purge, per_cpu, n, kernel):
    c = InstructionCosts(purge=purge, purge_per_cpu=per_cpu)
    m = DbenchMemoryModel(kernel, cpu_time=cpu, serial_time=serial, costs=c)
    r = m.throughput(n)
    d_cpu, d_ser = r.cpu_demand, r.serial_demand
    # Lazowska et al. 1984, §5.2: X <= min(N / (D_cpu + D_ser), 1 / D_ser)
    assert r.page_rate <= min(n / (d_cpu + d_ser), 1 / d_ser) * (1 + 1e-9)
    assert 0 <= r.serial_utilization <= 1 + 1e-12
    # and at least the balanced lower bound N / (D_cpu + N D_ser)
    assert r.page_rate >= n / (d_cpu + n * d_ser) * (1 - 1e-9)


def test_throughput_keeps_a_series_index():
    m = DbenchMemoryModel("2.6", cpu_time=2e-5)
    s = pd.Series([1, 16], index=["one", "sixteen"])
    assert list(m.throughput(s).throughput.index) == ["one", "sixteen"]


def test_model_validation_messages():
    with pytest.raises(ValueError, match="kernel must be one of"):
        DbenchMemoryModel("2.2", cpu_time=1e-5)
    with pytest.raises(ValueError, match="cpu_time must be non-negative and finite"):
        DbenchMemoryModel("2.4", cpu_time=-1.0)
    with pytest.raises(ValueError, match="page_size must be positive"):
        DbenchMemoryModel("2.4", cpu_time=1e-5, page_size=0)
    with pytest.raises(ValueError, match="costs must be an InstructionCosts"):
        DbenchMemoryModel("2.4", cpu_time=1e-5, costs=None)
    with pytest.raises(ValueError, match="cpus must be a positive integer"):
        DbenchMemoryModel("2.4", cpu_time=1e-5).throughput(0)


def test_zero_demand_is_rejected():
    c = InstructionCosts(iske=0.0, sske=0.0, rrbe=0.0, ipte=0.0, ipte_per_cpu=0.0)
    with pytest.raises(ValueError, match="must be positive"):
        DbenchMemoryModel("2.6", cpu_time=0.0, costs=c).throughput(2)


# --------------------------------------------------------------------------- page tables
def test_osdl_16gb_buffer_example():
    # OSDL deck: "A 16GB database buffer uses 16M of low memory per process for PTEs, 1GB for 64 processes"
    r = page_table_memory(16 * GiB, 64, page_size=4 * KiB, entry_size=4)
    assert r.entries_per_process == 16 * GiB // (4 * KiB)           # 4 Mi entries
    assert r.bytes_per_process == 16 * MiB
    assert r.total_bytes == 1 * GiB


def test_osdl_one_page_shared_by_1024_processes():
    # "4 byte entry with 1024 processes would use 4k of low memory to support a4k sized page"
    assert page_table_memory(4 * KiB, 1024, page_size=4 * KiB, entry_size=4).total_bytes == 4 * KiB


def test_64_bit_entries_and_large_pages():
    r8 = page_table_memory(16 * GiB, 64, entry_size=8)
    assert r8.total_bytes == 2 * GiB
    # 2 MiB pages: 16 GiB / 2 MiB = 8192 entries x 4 B = 32 KiB per process, 512 x less
    r2m = page_table_memory(16 * GiB, 64, page_size=2 * MiB, entry_size=4)
    assert r2m.bytes_per_process == 32 * KiB and r2m.total_bytes == 2 * MiB
    r4m = page_table_memory(16 * GiB, 64, page_size=4 * MiB, entry_size=4)
    assert r4m.bytes_per_process == 16 * KiB


def test_table_rounding_and_partial_pages():
    # 10 KiB buffer, 4 KiB pages: 3 entries x 8 B = 24 B, rounded up to one 2 KiB table
    r = page_table_memory(10 * KiB, 3, entry_size=8, table_size=2048)
    assert (r.entries_per_process, r.bytes_per_process, r.total_bytes) == (3, 2048, 6144)


def test_page_table_memory_vectorises_with_series():
    s = pd.Series([1, 64], index=["x", "y"])
    r = page_table_memory(16 * GiB, s, entry_size=4)
    assert list(r.total_bytes) == [16 * MiB, 1 * GiB] and list(r.total_bytes.index) == ["x", "y"]


def test_page_table_memory_errors():
    with pytest.raises(ValueError, match="page_size must be positive"):
        page_table_memory(GiB, 1, page_size=0)
    with pytest.raises(ValueError, match="processes must be an integer >= 0"):
        page_table_memory(GiB, -1)
    with pytest.raises(ValueError, match="table_size must be positive"):
        page_table_memory(GiB, 1, table_size=0)


@settings(max_examples=50, deadline=None)
@given(buf=st.integers(1, 2 ** 40), procs=st.integers(0, 10_000), shift=st.integers(12, 22))
def test_larger_pages_never_need_more_page_table(buf, procs, shift):
    small = page_table_memory(buf, procs, page_size=4096, entry_size=8).total_bytes
    large = page_table_memory(buf, procs, page_size=2 ** shift, entry_size=8).total_bytes
    assert large <= small
    assert small == procs * math.ceil(buf / 4096) * 8


# --------------------------------------------------------------------------- sysfs
def test_sysfs_pinned_and_backing_store_by_hand():
    r = sysfs_memory(3000, 12, 2000.0)
    assert r.files == 36000 and r.pinned_bytes == 36000 * 2000
    bs = sysfs_memory(3000, 12, 2000.0, backing_store=True, retained_bytes_per_file=100.0, active_fraction=0.25)
    assert bs.pinned_bytes == pytest.approx(36000 * (100 + 0.25 * 1900), rel=1e-15)
    assert bs.backing_store and not r.backing_store


def test_sysfs_full_activity_equals_pinned():
    a = sysfs_memory(10, 5, 800.0)
    b = sysfs_memory(10, 5, 800.0, backing_store=True, active_fraction=1.0)
    assert a.pinned_bytes == pytest.approx(b.pinned_bytes, rel=1e-15)


def test_sysfs_errors():
    with pytest.raises(ValueError, match=r"active_fraction must be in \[0, 1\]"):
        sysfs_memory(10, 5, 800.0, backing_store=True, active_fraction=1.5)
    with pytest.raises(ValueError, match="retained_bytes_per_file must not exceed bytes_per_file"):
        sysfs_memory(10, 5, 50.0, backing_store=True, retained_bytes_per_file=64.0)
    with pytest.raises(ValueError, match="devices must be an integer >= 0"):
        sysfs_memory(-1, 5, 800.0)


@settings(max_examples=50, deadline=None)
@given(d=st.integers(0, 100_000), f=st.floats(1, 50), b=st.floats(64, 1e4), a=st.floats(0, 1))
def test_backing_store_never_uses_more(d, f, b, a):
    pinned = sysfs_memory(d, f, b).pinned_bytes
    bs = sysfs_memory(d, f, b, backing_store=True, active_fraction=a).pinned_bytes
    assert bs <= pinned * (1 + 1e-12) and pinned == pytest.approx(d * f * b, rel=1e-12)
