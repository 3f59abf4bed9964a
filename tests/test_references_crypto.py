"""SSL server demands (zmodel.hardware.crypto.SSLServer) by hand, every cost term nonzero.

Per transaction the CPU does the request work, h handshakes (handshake CPU + RSA in software
or the offload CPU with an accelerator) and m payload bytes of record processing and cipher:
D_cpu = t_req + h (t_hs + t_rsa) + m (t_rec + t_cipher); the accelerator holds h t_acc.
One client, no think time: X = 1 / (D_cpu + D_acc) (MVA with N = 1, Lazowska et al. 1984
Sec. 6.4).
"""
import pytest

from zmodel.hardware.crypto import CipherCost, CryptoAccelerator, SSLServer


def test_every_demand_term_by_hand():
    t_req, t_hs, t_rsa, t_rec, t_ciph = 0.1e-3, 0.25e-3, 1.75e-3, 4e-9, 20e-9
    srv = SSLServer(2, handshake_cpu=t_hs, rsa_cpu=t_rsa, cipher=CipherCost("c", t_ciph),
                    record_cpu_per_byte=t_rec, request_cpu=t_req)
    m, h = 16384.0, 0.5
    d_cpu = t_req + h * (t_hs + t_rsa) + m * (t_rec + t_ciph)
    d = srv.service_demands(payload_bytes=m, handshakes=h)
    assert d[0] == pytest.approx(d_cpu, rel=1e-12) and d[1] == 0.0
    r = srv.throughput(1, payload_bytes=m, handshakes=h)
    assert r.throughput == pytest.approx(1 / d_cpu, rel=1e-12)
    assert r.byte_rate == pytest.approx(m / d_cpu, rel=1e-12)
