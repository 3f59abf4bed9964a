"""G/G/c references for c > 1 (zmodel.queueing.single.ggc).

Two kinds of reference, both outside the code under test:

* the published formulas evaluated by hand here: Sakasegawa (1977), the formula of the
  paper's title, :math:`L_q \\approx \\rho^{\\sqrt{2(c+1)}}/(1-\\rho)` for M/M/c, scaled by
  the two-moment factor :math:`(c_a^2 + c_s^2)/2` (Kingman 1961) and turned into
  :math:`W_q = L_q/\\lambda` by Little's law; Allen-Cunneen, Erlang C (summed in exact
  rational arithmetic) times :math:`S/(c(1-\\rho))` times the same factor;
* a seeded SimPy simulation (zmodel.queueing.simulation) of G/G/4 and G/G/8 with a 95 %
  confidence interval, accepted as in tests/test_simulation.py (3 half-widths) plus the
  two-moment approximations' accuracy on top.
"""
import math
from fractions import Fraction

import numpy as np
import pytest

from zmodel.queueing.simulation import simulate_station
from zmodel.queueing.single import ggc

WIDEN = 3.0


def erlang_c_exact(c: int, a: Fraction) -> Fraction:
    """Erlang's C by its textbook sum (Kleinrock 1975, Sec. 3.5, eq. 3.40), in rationals."""
    tail = a ** c / math.factorial(c) * c / (c - a)
    return tail / (sum(a ** k / math.factorial(k) for k in range(c)) + tail)


@pytest.mark.parametrize("c", [2, 4, 8])
@pytest.mark.parametrize("rho", [0.5, 0.9])
@pytest.mark.parametrize("ca2,cs2", [(1.0, 1.0), (0.5, 2.0)])
def test_kingman_sakasegawa_by_hand(c, rho, ca2, cs2):
    s = 2.0
    lam = rho * c / s
    lq = rho ** math.sqrt(2 * (c + 1)) / (1 - rho) * (ca2 + cs2) / 2
    r = ggc(lam, s, c, ca2, cs2, method="kingman")
    assert r.queue_waiting == pytest.approx(lq, rel=1e-12)
    assert r.waiting_time == pytest.approx(lq / lam, rel=1e-12)           # Little: Wq = Lq / lambda
    assert r.response_time == pytest.approx(lq / lam + s, rel=1e-12)
    assert r.queue_length == pytest.approx(lq + lam * s, rel=1e-12)


def test_sakasegawa_at_four_servers_against_erlang_c():
    # M/M/4 at rho = 0.9 (a = 3.6): exact Lq = C(4, a) rho / (1 - rho) = 78732/11105 = 7.0898;
    # Sakasegawa's rho^sqrt(10) / (1 - rho) = 7.1664, 1.1 % high (arithmetic on the two
    # published formulas). A wrong exponent moves it by tens of percent (sqrt(2c) - 1: -24 %).
    a = Fraction(36, 10)
    lq_exact = erlang_c_exact(4, a) * Fraction(9, 10) / Fraction(1, 10)
    lq_saka = 0.9 ** math.sqrt(10) / 0.1
    r = ggc(3.6, 1.0, 4, 1.0, 1.0, method="kingman")
    assert r.queue_waiting == pytest.approx(lq_saka, rel=1e-12)
    assert r.queue_waiting == pytest.approx(float(lq_exact), rel=0.02)
    ac = ggc(3.6, 1.0, 4, 1.0, 1.0)                      # Allen-Cunneen is exact for M/M/c
    assert ac.queue_waiting == pytest.approx(float(lq_exact), rel=1e-12)
    assert ac.waiting_probability == pytest.approx(float(erlang_c_exact(4, a)), rel=1e-12)


@pytest.mark.parametrize("c", [2, 4, 8])
def test_allen_cunneen_by_hand(c):
    # Wq = C(c, a) S / (c (1 - rho)) (ca2 + cs2) / 2 with a = lambda S, rho = a / c
    s, rho, ca2, cs2 = 0.5, Fraction(8, 10), Fraction(1, 2), Fraction(2)
    a = rho * c
    lam = a / Fraction(s)
    wq = erlang_c_exact(c, a) * Fraction(s) / (c * (1 - rho)) * (ca2 + cs2) / 2
    r = ggc(float(lam), s, c, float(ca2), float(cs2))
    assert r.waiting_time == pytest.approx(float(wq), rel=1e-12)
    assert r.queue_waiting == pytest.approx(float(lam * wq), rel=1e-12)


def _within(sim, metric, value, slack):
    mean = float(getattr(sim, metric))
    half = float(getattr(sim, f"{metric}_half_width"))
    return abs(mean - value) <= WIDEN * half + slack * abs(value)


def test_ggc_against_seeded_simulation():
    # G/G/4, S = 1, smooth arrivals (ca2 = 0.5, gamma), variable service (cs2 = 2, gamma),
    # rho = 0.85. Two-moment approximations are good to about 20 %
    # here (Bolch et al. 2006, Ch. 6), on top of 3 half-widths of the simulation's 95 % CI.
    c, lam = 4, 3.4
    sim = simulate_station(lam, 1.0, c, arrival_scv=0.5, service_scv=2.0, replications=6,
                           horizon=3000.0, seed=41)
    for method in ("allen_cunneen", "kingman"):
        r = ggc(lam, 1.0, c, 0.5, 2.0, method=method)
        assert _within(sim, "waiting_time", float(r.waiting_time), 0.20), (method, sim.waiting_time, r.waiting_time)
        assert _within(sim, "queue_length", float(r.queue_length), 0.20), method
    assert _within(sim, "utilization", lam / c, 0.0)
