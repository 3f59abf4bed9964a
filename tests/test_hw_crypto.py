"""Crypto hardware (zmodel.hardware.crypto): hand-computed cases, queueing invariants, errors."""
import dataclasses
from fractions import Fraction as F

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from zmodel.hardware.crypto import CipherCost, CryptoAccelerator, SSLServer

SW = CipherCost("AES-128 software", 20e-9)
CPACF = CipherCost("AES-128 CPACF", 2e-9)


def test_two_station_mva_by_hand():
    # CPU demand a, accelerator demand b, single servers, N = 2, Z = 0 (exact MVA by hand):
    # R(1) = a + b, Q_cpu(1) = a/(a+b), Q_acc(1) = b/(a+b);
    # R(2) = a (1 + Q_cpu(1)) + b (1 + Q_acc(1)), X(2) = 2 / R(2)
    a, b = F(3, 10**4), F(5, 10**4)
    r2 = a * (1 + a / (a + b)) + b * (1 + b / (a + b))
    srv = SSLServer(1, handshake_cpu=float(a), rsa_cpu=2e-3, cipher=SW,
                    accelerator=CryptoAccelerator("CEX2A", float(b)))
    r = srv.throughput(2)
    assert r.throughput == pytest.approx(float(2 / r2), rel=1e-12)
    assert r.cpu_utilization == pytest.approx(float(2 / r2 * a), rel=1e-12)
    assert r.accelerator_utilization == pytest.approx(float(2 / r2 * b), rel=1e-12)


def test_software_rsa_costs_cpu_and_offload_moves_it():
    srv = SSLServer(2, handshake_cpu=0.3e-3, rsa_cpu=2e-3, cipher=SW, record_cpu_per_byte=5e-9)
    d = srv.service_demands(payload_bytes=1000)
    assert d[0] == pytest.approx(0.3e-3 + 2e-3 + 1000 * 25e-9, rel=1e-12) and d[1] == 0.0
    hw = dataclasses.replace(srv, cipher=CPACF, accelerator=CryptoAccelerator("CEX2A", 0.2e-3, offload_cpu=1e-5))
    d = hw.service_demands(payload_bytes=1000)
    assert d[0] == pytest.approx(0.3e-3 + 1e-5 + 1000 * 7e-9, rel=1e-12)
    assert d[1] == pytest.approx(0.2e-3, rel=1e-12)


def test_saturation_asymptote_is_the_smaller_capacity():
    # utilisation law: X -> min(cpus/D_cpu, adapters/D_acc) as N grows
    hw = SSLServer(4, 0.25e-3, 2e-3, SW, accelerator=CryptoAccelerator("CEX2A", 0.2e-3, adapters=2))
    x = hw.throughput(2000).throughput
    assert x == pytest.approx(min(4 / 0.25e-3, 2 / 0.2e-3), rel=1e-3)


def test_bulk_encryption_rate_cpu_bound():
    # no handshakes, bytes only: X*m -> cpus/(rec + cipher) bytes/s
    for cipher in (SW, CPACF):
        s = SSLServer(2, 0.0, 0.0, cipher, record_cpu_per_byte=5e-9)
        r = s.throughput(500, payload_bytes=1e6, handshakes=0.0)
        assert r.byte_rate == pytest.approx(2 / (5e-9 + cipher.cpu_per_byte), rel=1e-3)
    assert CPACF.rate(cpus=3) == pytest.approx(3 / 2e-9, rel=1e-15)
    assert CipherCost("null", 0.0).rate() == np.inf


def test_capacity():
    assert CryptoAccelerator("CEX2A", 0.25e-3, adapters=2).capacity == pytest.approx(8000.0, rel=1e-15)


@settings(max_examples=60, deadline=None)
@given(h=st.floats(1e-6, 1e-2), rsa=st.floats(0, 1e-2), acc=st.floats(1e-6, 1e-2),
       cpus=st.integers(1, 8), adapters=st.integers(1, 4), z=st.floats(0, 1e-1), m=st.floats(0, 1e6))
def test_invariants(h, rsa, acc, cpus, adapters, z, m):
    srv = SSLServer(cpus, h, rsa, SW, record_cpu_per_byte=5e-9,
                    accelerator=CryptoAccelerator("CEX2A", acc, adapters=adapters))
    n = np.array([1, 4, 16, 64])
    r = srv.throughput(n, payload_bytes=m, think_time=z)
    assert np.allclose(r.throughput * (r.response_time + z), n, rtol=1e-9)     # Little's law
    for u in (r.cpu_utilization, r.accelerator_utilization):
        assert np.all(u >= -1e-12) and np.all(u <= 1 + 1e-9)
    assert np.all(np.diff(r.throughput) >= -1e-9 * r.throughput[1:])
    assert np.allclose(r.cpu_busy, r.cpu_utilization * cpus, rtol=1e-9)


def test_from_catalog():
    acc = CryptoAccelerator.from_catalog("CEX2A", rsa_service_time=1e-4, features=2)
    assert acc.adapters == 4      # two PCI-X adapters per CEX2 feature
    with pytest.raises(ValueError, match="unknown"):
        CryptoAccelerator.from_catalog("CEX9Z", rsa_service_time=1e-4)


# ---- errors: one per message
def test_error_service_time():
    with pytest.raises(ValueError, match="rsa_service_time must be positive"):
        CryptoAccelerator("CEX2A", 0.0)


def test_error_adapters():
    with pytest.raises(ValueError, match="adapters must be a positive integer"):
        CryptoAccelerator("CEX2A", 1e-4, adapters=0)


def test_error_negative():
    with pytest.raises(ValueError, match="cpu_per_byte must be non-negative and finite"):
        CipherCost("x", -1.0)


def test_error_not_a_number():
    with pytest.raises(ValueError, match="handshake_cpu must be a number"):
        SSLServer(1, "fast", 0.0, SW)


def test_error_cipher_type():
    with pytest.raises(ValueError, match="cipher must be a CipherCost"):
        SSLServer(1, 0.0, 0.0, "AES")


def test_error_accelerator_type():
    with pytest.raises(ValueError, match="accelerator must be a CryptoAccelerator or None"):
        SSLServer(1, 0.0, 0.0, SW, accelerator="CEX2A")
