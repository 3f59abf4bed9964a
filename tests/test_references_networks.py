"""Open and mixed multi-class networks (zmodel.queueing.open_networks, .mixed) in two limits
computed by hand.

* A mixed network with no open class is the closed network: the exact two-class MVA by
  hand (Lazowska et al. 1984, Algorithm 7.1; the 3/19 and 2/19 of the doctest).
* In an open multi-class network the residence time of class c at a single-server
  queueing station k is R_ck = D_ck / (1 - U_k) (Lazowska et al. 1984, Sec. 7.3, open
  classes); a class that never visits a saturated station keeps finite times.
"""
import math
import warnings
from fractions import Fraction

import numpy as np
import pytest

from zmodel.queueing.mixed import mixed_network
from zmodel.queueing.open_networks import open_multiclass


def test_mixed_network_without_open_classes_is_the_closed_network():
    # two closed classes of one customer each, demands [[1, 3], [2, 4]]: exact MVA by hand
    # (each customer sees the other's queue of the N - e_c population): X = (3/19, 2/19)
    d = [[1.0, 3.0], [2.0, 4.0]]
    r = mixed_network([], [], d, [1, 1])
    assert r.throughput == pytest.approx([3 / 19, 2 / 19], rel=1e-12)
    # residence times: class 1 at station 1: D11 (1 + Q of class 2 alone) = 1 (1 + 2/6)
    assert r.residence_time[0, 0] == pytest.approx(float(Fraction(1) * (1 + Fraction(2, 6))), rel=1e-12)


def test_open_class_avoiding_a_saturated_station_by_hand():
    # station 1 shared (D = 0.2 s for both), station 2 visited only by class A (D = 1 s) at
    # lambda_A = 1.5/s: U_2 = 1.5, saturated. Class B (lambda_B = 1/s) never visits station 2:
    # U_1 = 1.5 x 0.2 + 1 x 0.2 = 0.5, R_B = 0.2 / (1 - 0.5) = 0.4 s, finite.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = open_multiclass([1.5, 1.0], [[0.2, 1.0], [0.2, 0.0]])
    assert math.isinf(r.response_time[0])
    assert r.response_time[1] == pytest.approx(0.4, rel=1e-12)
    assert r.residence_time[1, 1] == 0.0
    assert np.isfinite(r.queue_length[1]).all()
