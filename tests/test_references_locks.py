"""Lock models (zmodel.kernel.locks) in cases small enough to solve by hand.

* Boyd-Wickizer et al. (2012), section 3: a ticket lock shared by n cores is a birth-death
  chain on k = cores holding or waiting, arrivals (n - k)/a, service rate 1/(s + k c).
  With n = 2, a = 1, s = 0, c = 1: weights 1, 2 (a_0/s_1 = 2 x 1), 4 (x a_1/s_2 = 1 x 2),
  p = (1, 2, 4)/7, acquisition rate X = p_1/(s + c) + p_2/(s + 2c) = 2/7 + 2/7 = 4/7.
  A lock whose critical section is empty still costs its hand-off.
* One CPU updating a shared cache line never loses it: it cycles think time z plus hit
  time h, so the line is busy h/(z + h) of the time.
"""
from fractions import Fraction

import pytest

from zmodel.kernel.locks import anonymous_touch, atomic_update


def test_handoff_only_ticket_lock_by_hand():
    r = anonymous_touch(2, 7, 1.0, lock_serial_time=0.0, lock_handoff_time=1.0)
    x = Fraction(4, 7)
    assert r.fault_rate == pytest.approx(float(x), rel=1e-12)
    assert r.total_time == pytest.approx(float(7 / x), rel=1e-12)
    assert anonymous_touch(2, 7, 1.0).fault_rate == pytest.approx(2.0, rel=1e-15)   # no lock: n/z


def test_single_cpu_atomic_update_by_hand():
    z, tx, h = 3e-6, 0.5e-6, 1e-6
    r = atomic_update(1, z, tx, 0.2, 0.1, h)
    assert r.update_rate == pytest.approx(1 / (z + h), rel=1e-12)
    assert r.line_utilization == pytest.approx(h / (z + h), rel=1e-12)
    assert r.update_time == pytest.approx(h, rel=1e-12) and r.attempts_per_update == 1.0
