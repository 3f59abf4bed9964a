"""Exact multi-class MVA (zmodel.queueing.closed.mva_multiclass): the size of its lattice.

The exact multi-class recursion visits every population vector n <= N, prod_c (N_c + 1)
of them, with K stations each; the solver refuses networks above 50,000,000 lattice cells and says how many it found.
The counts below are that product, by hand.
"""
import pytest

from zmodel.queueing.closed import mva_multiclass


def test_lattice_size_in_the_refusal_is_the_hand_count():
    # 3 classes of 499, 499, 199 customers at 2 stations: 500 x 500 x 200 x 2 = 100,000,000 cells
    d = [[0.1, 0.2], [0.2, 0.1], [0.3, 0.3]]
    with pytest.raises(ValueError, match=r"populations span 100000000 lattice cells \(> 50000000\)"):
        mva_multiclass(d, [499, 499, 199])
    # 2 classes of 5000 x 5000 at 3 stations: 5001^2 x 3 = 75,030,003
    with pytest.raises(ValueError, match=r"populations span 75030003 lattice cells"):
        mva_multiclass([[0.1, 0.2, 0.3], [0.3, 0.2, 0.1]], [5000, 5000])


@pytest.mark.parametrize("demands,populations", [
    ([[1.0, 3.0], [2.0, 4.0]], [1, 1]),
    ([[1.0, 3.0, 0.5], [2.0, 4.0, 1.0]], [1, 3]),
    ([[0.2, 0.3], [0.4, 0.1], [0.3, 0.3]], [1, 2, 4]),
])
def test_linearizer_within_its_documented_accuracy_of_exact_mva(demands, populations):
    # Chandy & Neuse (CACM 25(2), 1982): Linearizer's error is "well under one percent"
    # (the amva docstring's claim); exact reference: the multi-class MVA recursion. Classes of
    # a single customer exercise the N - 1 = 0 populations of the correction terms.
    from zmodel.queueing.closed import amva

    exact = mva_multiclass(demands, populations).throughput
    lin = amva(demands, populations, method="linearizer")
    assert lin.converged
    assert lin.throughput == pytest.approx(exact, rel=0.01)


def test_linearizer_iterations_are_bounded_by_max_iter():
    from zmodel.queueing.closed import amva

    with pytest.warns(RuntimeWarning, match="did not converge"):
        r = amva([[1.0, 3.0], [2.0, 4.0]], [1, 1], method="linearizer", max_iter=1)
    assert r.iterations == 1 and not r.converged
